//! The sequencer: turns committed changes into numbered events, in the background.
//!
//! A stock change pays only for its ledger entries and one narrow `ledger_marks` row per
//! statement and SKU (V16), inside its row lock. A round, under an advisory lock (one
//! sequencer across every allot instance), reads in one snapshot the committed marks oldest
//! first, their ledger entries, their SKUs' levels and the committed `events` rows still
//! waiting (bookings, hold extensions, jobs) ([`SQL_ROUND`]); derives each entry's events in
//! Rust (`allot_core::event::derive`: the totals after it, the thresholds it crosses, the
//! JSON); numbers everything, each tenant's after its `event_cursors.last`; writes the events
//! and deletes the marks, in one transaction.
//!
//! Why the totals are exact: `event_levels` holds each SKU's levels after the entries
//! numbered so far (filled from the stock when V16 committed, with the ledger locked; 0 for a
//! SKU or location that came later, all of whose entries are marked), and each round applies
//! its entries in cursor order and keeps the levels it ends with, in the transaction that
//! numbers them. So every "after" is exact, and crossing 0 or a low-stock threshold is one
//! event per crossing, whatever order the writers committed in (`batched` lanes let two
//! transactions write one SKU at once). This needs every entry marked: the marking trigger
//! must stay enabled (`allot bench feed` disables it only for SKUs of its own).

//! Why the cursor has no gap and nothing appears behind a reader: numbers go only to
//! committed changes, and rounds commit one after another; a change that commits late is
//! numbered in a later round.
//!
//! A round that numbered events NOTIFYs at its commit, so readers on every instance wake (see
//! `engine/listen.rs`), not only this one's.

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::errors::map_error;
use crate::engine::listen::FEED_PAYLOAD;
use crate::engine::store::PgStore;
use allot_core::event::derive::{Derived, Entry, Levels};
use allot_core::model::LedgerKind;
use allot_core::{AllotError, Result, StockReason};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use tokio_postgres::types::ToSql;
use tokio_postgres::Row;

/// The advisory lock class of the sequencer (`pg_try_advisory_xact_lock(class, 0)`); the
/// other classes are the jobs' and the idempotency keys'.
const SEQUENCER_LOCK_CLASS: i32 = 0x0a11_0e5e;

/// Whether any committed change waits for its event.
const SQL_PENDING: &str = "SELECT EXISTS (SELECT 1 FROM ledger_marks)
    OR EXISTS (SELECT 1 FROM events WHERE cursor IS NULL) AS pending";

/// What one round works on, in one snapshot (one statement): the marks it takes (about `$1`
/// entries' worth, whole, oldest first, at least one unless `$1` direct events come first),
/// their ledger entries in mark order, the levels of their SKUs before the first of them (the
/// sequencer's `event_levels`), and up to `$1` events written directly.
/// `row` says which: 0 a level (a SKU and one of its locations; location NULL for a SKU
/// without stock rows), 1 an entry, 2 a direct event, 3 a taken mark.
const SQL_ROUND: &str = "WITH
    -- Marks and direct events share one order (`ord`, `id`): a round takes everything visible
    -- below the first item it leaves, of either kind, so it never numbers a later change
    -- before an earlier one it left for the next round.
    direct_next AS MATERIALIZED (
        SELECT id FROM events WHERE cursor IS NULL ORDER BY id OFFSET $1 LIMIT 1),
    taken AS MATERIALIZED (
        SELECT ord, tenant, sku, first_id, last_id, xact FROM (
            SELECT m.*, sum(m.last_id - m.first_id + 1) OVER (ORDER BY m.ord) AS upto
              FROM (SELECT * FROM ledger_marks
                     WHERE ord < COALESCE((SELECT id FROM direct_next), 9223372036854775807)
                     ORDER BY ord LIMIT $1) m) w
         WHERE w.upto - (w.last_id - w.first_id + 1) < $1),
    mark_next AS MATERIALIZED (
        SELECT min(ord) AS ord FROM ledger_marks WHERE ord > COALESCE((SELECT max(ord) FROM taken), 0)),
    chosen AS MATERIALIZED (SELECT DISTINCT tenant, sku FROM taken),
    -- Each mark's entries by a range of the ledger's key: an index range per mark, whatever
    -- the statistics say about the ledger's size (`OFFSET 0` keeps the planner from turning
    -- the LATERAL back into a join, which a young table's statistics make a scan of it all).
    fresh AS MATERIALIZED (
        SELECT m.ord, l.id, l.tenant, l.sku, l.location, l.delta, l.held_delta, l.kind, l.ref, l.actor, l.at,
               l.reason, l.reference
          FROM taken m
          CROSS JOIN LATERAL (
            SELECT * FROM ledger l WHERE l.tenant = m.tenant AND l.sku = m.sku
               AND l.id BETWEEN m.first_id AND m.last_id AND l.xact = m.xact OFFSET 0) l),
    -- Each stocked location's level before the round: the sequencer's own (0 for a location
    -- or SKU it has not numbered an entry of: all its entries are marked).
    levels AS (
        SELECT st.tenant, st.sku, st.location,
               COALESCE(min(el.on_hand), 0)::bigint AS on_hand, COALESCE(min(el.held), 0)::bigint AS held
          FROM stock st
          JOIN chosen c ON c.tenant = st.tenant AND c.sku = st.sku
          LEFT JOIN event_levels el ON el.tenant = st.tenant AND el.sku = st.sku AND el.location = st.location
         GROUP BY 1, 2, 3)
    SELECT 0 AS row, NULL::bigint AS ord, NULL::bigint AS id, k.tenant, k.sku, lv.location,
           NULL::bigint AS delta, NULL::bigint AS held_delta, NULL::text AS kind, NULL::text AS ref,
           NULL::text AS actor, NULL::timestamptz AS at, lv.on_hand, lv.held, k.low_stock_below,
           k.tracking = 'count' AS counted, NULL::text AS reason, NULL::text AS reference
      FROM chosen c JOIN skus k ON k.tenant = c.tenant AND k.sku = c.sku
      LEFT JOIN levels lv ON lv.tenant = k.tenant AND lv.sku = k.sku
    UNION ALL
    SELECT 1, ord, id, tenant, sku, location, delta, held_delta, kind, ref, actor, at, NULL, NULL, NULL, NULL,
           reason, reference
      FROM fresh
    UNION ALL
    SELECT 2, id, id, tenant, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
      FROM (SELECT id, tenant FROM events
             WHERE cursor IS NULL AND id < COALESCE((SELECT ord FROM mark_next), 9223372036854775807)
             ORDER BY id LIMIT $1) d
    UNION ALL
    SELECT 3, ord, NULL, tenant, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
      FROM taken
     ORDER BY row, ord, id";

/// Move each tenant `$1` on by `$2` cursors; each one's new last.
const SQL_BUMP: &str = "INSERT INTO event_cursors AS ec (tenant, last)
    SELECT * FROM unnest($1::text[], $2::bigint[])
    ON CONFLICT (tenant) DO UPDATE SET last = ec.last + EXCLUDED.last
    RETURNING tenant, last";

/// Write the derived events, numbered.
const SQL_INSERT: &str = "INSERT INTO events (tenant, cursor, type, object, data, at)
    SELECT t, c, ty, o, d::json, a
      FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
        AS u(t, c, ty, o, d, a)";

/// Number the directly written events.
const SQL_NUMBER: &str = "UPDATE events e SET cursor = u.c
      FROM unnest($1::bigint[], $2::bigint[]) AS u(id, c) WHERE e.id = u.id";

/// Each location's levels after the round.
const SQL_KEEP_LEVELS: &str = "INSERT INTO event_levels (tenant, sku, location, on_hand, held)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
    ON CONFLICT (tenant, sku, location) DO UPDATE SET on_hand = EXCLUDED.on_hand, held = EXCLUDED.held";

/// The marks the round took.
const SQL_CONSUME: &str = "DELETE FROM ledger_marks WHERE ord = ANY($1::bigint[])";

/// The oldest change still waiting for its event: the first mark or unnumbered event by
/// their shared sequence (drawn in time order, so the oldest but for a few µs of skew).
const SQL_OLDEST: &str = "SELECT least(
        (SELECT at FROM ledger_marks ORDER BY ord LIMIT 1),
        (SELECT at FROM events WHERE cursor IS NULL ORDER BY id LIMIT 1)) AS at";

/// What a row of [`SQL_ROUND`] is (its `row` column).
enum RoundRow {
    /// 0: a SKU's level at one location.
    Level,
    /// 1: a ledger entry.
    Entry,
    /// 2: an event written directly.
    Direct,
    /// 3: a mark the round takes.
    Mark,
}

impl RoundRow {
    fn of(row: i32) -> Result<RoundRow> {
        match row {
            0 => Ok(RoundRow::Level),
            1 => Ok(RoundRow::Entry),
            2 => Ok(RoundRow::Direct),
            3 => Ok(RoundRow::Mark),
            _ => Err(AllotError::Internal(format!("a sequencer row of kind {row}"))),
        }
    }
}

/// A round's work, read in one snapshot.
#[derive(Default)]
struct Round {
    /// Each SKU's levels before its first entry of the round, by (tenant, SKU).
    levels: HashMap<(String, String), Levels>,
    /// The entries, in mark order: (mark, tenant, entry).
    entries: Vec<(i64, String, Entry)>,
    /// The directly written events: (id, tenant).
    direct: Vec<(i64, String)>,
    /// The marks taken.
    taken: Vec<i64>,
}

/// One event of a round before its cursor: its place in the round (mark or event id, ledger
/// id, n-th event of the entry), its tenant, and what to write or which row to number.
struct Pending {
    place: (i64, i64, usize),
    tenant: String,
    what: Option<Derived>,
}

/// A SKU's row of [`SQL_ROUND`] (row 0): counted, low-stock threshold, one location's levels.
fn add_level(round: &mut Round, r: &Row) {
    let key = (r.get::<_, String>("tenant"), r.get::<_, String>("sku"));
    let counted: bool = r.get("counted");
    let levels = round
        .levels
        .entry(key)
        .or_insert_with(|| Levels::new(counted.then_some((0, 0)), BTreeMap::new(), r.get("low_stock_below")));
    if let Some(location) = r.get::<_, Option<String>>("location") {
        let (on_hand, held): (i64, i64) = (r.get("on_hand"), r.get("held"));
        levels.add_location(location, on_hand, held);
    }
}

/// An entry's row of [`SQL_ROUND`] (row 1).
fn entry_of(r: &Row) -> Result<Entry> {
    let kind: String = r.get("kind");
    let reason: Option<String> = r.get("reason");
    let reason = match reason {
        None => None,
        Some(name) => {
            Some(StockReason::parse(&name).ok_or_else(|| AllotError::Internal(format!("a ledger reason {name}")))?)
        }
    };
    Ok(Entry {
        id: r.get("id"),
        sku: r.get("sku"),
        location: r.get("location"),
        delta: r.get("delta"),
        held_delta: r.get("held_delta"),
        kind: LedgerKind::parse(&kind).ok_or_else(|| AllotError::Internal(format!("a ledger kind {kind}")))?,
        reference: r.get("ref"),
        reason,
        document: r.get("reference"),
        actor: r.get("actor"),
        at: r.get("at"),
    })
}

/// Read a round of about `max` events (see [`SQL_ROUND`]).
async fn read_round(tx: &Transaction<'_>, max: i64) -> Result<Round> {
    let stmt = tx.prepare_cached(SQL_ROUND).await.map_err(map_error)?;
    let mut round = Round::default();
    for r in tx.query(&stmt, &[&max]).await.map_err(map_error)? {
        match RoundRow::of(r.get("row"))? {
            RoundRow::Level => add_level(&mut round, &r),
            RoundRow::Entry => round.entries.push((r.get("ord"), r.get("tenant"), entry_of(&r)?)),
            RoundRow::Direct => round.direct.push((r.get("id"), r.get("tenant"))),
            RoundRow::Mark => round.taken.push(r.get("ord")),
        }
    }
    Ok(round)
}

/// The round's events in cursor order: each entry's, derived from its SKU's levels in mark
/// order, and the direct ones in their places.
fn derive(round: &mut Round) -> Vec<Pending> {
    let mut out = Vec::with_capacity(round.entries.len() + round.direct.len());
    for (ord, tenant, e) in &round.entries {
        let levels = round
            .levels
            .entry((tenant.clone(), e.sku.clone()))
            .or_insert_with(|| Levels::new(None, BTreeMap::new(), None));
        for (n, d) in levels.apply(e).into_iter().enumerate() {
            out.push(Pending {
                place: (*ord, e.id, n),
                tenant: tenant.clone(),
                what: Some(d),
            });
        }
    }
    out.extend(round.direct.drain(..).map(|(id, tenant)| Pending {
        place: (id, 0, 0),
        tenant,
        what: None,
    }));
    out.sort_by_key(|p| p.place);
    out
}

/// Give the round's events their cursors and write them; consume the marks. Returns how
/// many events were numbered.
async fn write_round(tx: &Transaction<'_>, events: Vec<Pending>, taken: &[i64]) -> Result<u64> {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for p in &events {
        *counts.entry(p.tenant.as_str()).or_default() += 1;
    }
    let (tenants, given): (Vec<&str>, Vec<i64>) = counts.iter().map(|(t, n)| (*t, *n)).unzip();
    let mut next: HashMap<String, i64> = HashMap::new();
    for r in tx.query(SQL_BUMP, &[&tenants, &given]).await.map_err(map_error)? {
        let tenant: String = r.get("tenant");
        let first = r.get::<_, i64>("last") - counts[tenant.as_str()] + 1;
        next.insert(tenant, first);
    }
    let (mut derived, mut direct) = (Written::default(), (Vec::new(), Vec::new()));
    for p in &events {
        let cursor = next.get_mut(&p.tenant).map(|c| {
            *c += 1;
            *c - 1
        });
        let cursor = cursor.ok_or_else(|| AllotError::Internal("a tenant without its cursor".into()))?;
        match &p.what {
            Some(d) => derived.push(&p.tenant, cursor, d),
            None => {
                direct.0.push(p.place.0);
                direct.1.push(cursor);
            }
        }
    }
    let params = derived.params();
    tx.execute(SQL_INSERT, &params).await.map_err(map_error)?;
    tx.execute(SQL_NUMBER, &[&direct.0, &direct.1])
        .await
        .map_err(map_error)?;
    tx.execute(SQL_CONSUME, &[&taken]).await.map_err(map_error)?;
    Ok(events.len() as u64)
}

/// Keep each count-tracked SKU's levels after the round's entries (its next round starts
/// from them).
async fn keep_levels(tx: &Transaction<'_>, round: &Round) -> Result<()> {
    let (mut tenants, mut skus, mut locations) = (Vec::<&str>::new(), Vec::<&str>::new(), Vec::<&str>::new());
    let (mut on_hand, mut held) = (Vec::<i64>::new(), Vec::<i64>::new());
    for ((tenant, sku), levels) in round.levels.iter().filter(|(_, l)| l.counted()) {
        for (location, (o, h)) in levels.locations() {
            tenants.push(tenant);
            skus.push(sku);
            locations.push(location);
            on_hand.push(*o);
            held.push(*h);
        }
    }
    tx.execute(SQL_KEEP_LEVELS, &[&tenants, &skus, &locations, &on_hand, &held])
        .await
        .map_err(map_error)?;
    Ok(())
}

/// The derived events of a round as the columns of [`SQL_INSERT`].
#[derive(Default)]
struct Written<'a> {
    tenants: Vec<&'a str>,
    cursors: Vec<i64>,
    types: Vec<&'static str>,
    objects: Vec<&'a str>,
    data: Vec<&'a str>,
    at: Vec<DateTime<Utc>>,
}

impl<'a> Written<'a> {
    fn push(&mut self, tenant: &'a str, cursor: i64, d: &'a Derived) {
        self.tenants.push(tenant);
        self.cursors.push(cursor);
        self.types.push(d.kind.as_str());
        self.objects.push(&d.object);
        self.data.push(&d.data);
        self.at.push(d.at);
    }

    fn params(&self) -> [&(dyn ToSql + Sync); 6] {
        [
            &self.tenants,
            &self.cursors,
            &self.types,
            &self.objects,
            &self.data,
            &self.at,
        ]
    }
}

impl PgStore {
    /// See [`allot_core::Maintenance::sequence_events`]: one round, skipped (0) while
    /// another instance's sequencer holds the lock. Wakes the waiting readers of every
    /// instance when it numbered any.
    pub(crate) async fn run_sequence_events(&self, max: u32) -> Result<u64> {
        let mut c = self.client().await?;
        // Idle rounds cost two index probes, no transaction and no lock.
        let stmt = c.prepare_cached(SQL_PENDING).await.map_err(map_error)?;
        if !c
            .query_one(&stmt, &[])
            .await
            .map_err(map_error)?
            .get::<_, bool>("pending")
        {
            return Ok(0);
        }
        let tx = c.transaction().await.map_err(map_error)?;
        let locked: bool = tx
            .query_one("SELECT pg_try_advisory_xact_lock($1, 0)", &[&SEQUENCER_LOCK_CLASS])
            .await
            .map_err(map_error)?
            .get(0);
        if !locked {
            return Ok(0);
        }
        let mut round = read_round(&tx, i64::from(max.max(1))).await?;
        let events = derive(&mut round);
        let numbered = write_round(&tx, events, &round.taken).await?;
        keep_levels(&tx, &round).await?;
        if numbered > 0 {
            // Every instance's readers, at commit.
            tx.execute("SELECT pg_notify('allot_jobs', $1)", &[&FEED_PAYLOAD])
                .await
                .map_err(map_error)?;
        }
        tx.commit().await.map_err(map_error)?;
        if numbered > 0 {
            self.listener.wake_feed();
        }
        Ok(numbered)
    }

    /// See [`allot_core::Maintenance::oldest_unsequenced_event`].
    pub(crate) async fn run_oldest_unsequenced_event(&self) -> Result<Option<DateTime<Utc>>> {
        let c = self.client().await?;
        let row = c.query_one(SQL_OLDEST, &[]).await.map_err(map_error)?;
        Ok(row.get("at"))
    }
}
