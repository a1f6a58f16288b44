//! Holds on PostgreSQL: create (the stock strategies, into `held`), confirm, release, and
//! expiry (by writers that find a line short, and by the sweeper).
//!
//! Lock order, everywhere: a hold's row first (`holds`, by id), then stock rows in
//! `(sku, bucket)` order. Allocations and new holds take only stock rows (in SKU order) and
//! insert new hold rows, so no cycle can form; a deadlock that still happens (40P01) is
//! retried, bounded.

mod confirm_part;
mod created;

use crate::engine::batched::HoldPerRequest;
use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::errors::map_error;
use crate::engine::overdue::SQL_OVERDUE;
use crate::engine::placement::{answered, take_lines, Take};
use crate::engine::records::unit_of;
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::hold::{Confirm, Release};
use allot_core::hold::{HoldKind, HoldStatus};
use allot_core::store::Keyed;
use allot_core::store::{Executed, HoldStore, Idempotency};
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::Capable;
use allot_core::{Allocation, AllotError, Hold, HoldRequest, Result, Strategy, Unit};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::collections::HashMap;

// These take (id, tenant).
const SQL_HOLD_ROW: &str =
    "SELECT id, kind, status, strategy, lines, expires_at, created_at FROM holds WHERE tenant = $2 AND id = $1";
const SQL_HOLD_ROW_LOCKED: &str =
    "SELECT id, kind, status, strategy, lines, expires_at, created_at FROM holds WHERE tenant = $2 AND id = $1 FOR UPDATE";
/// The units of the holds `$1` (ids) of tenant `$2`, by hold, then id.
const SQL_HOLDS_UNITS: &str = "SELECT claim_id, id, serial, location, lot, received_at, expires_at FROM units
     WHERE tenant = $2 AND claim_id = ANY($1) ORDER BY claim_id, id";

/// Lock a hold's row (the first lock of every finish; see the module's lock order) and read
/// its stored status and expiry. `not_found` when there is no such hold.
async fn lock_hold(
    tx: &Transaction<'_>,
    tenant: &str,
    id: &str,
) -> TxResult<(tokio_postgres::Row, HoldStatus, DateTime<Utc>)> {
    let stmt = tx.prepare_cached(SQL_HOLD_ROW_LOCKED).await?;
    let row = tx
        .query_opt(&stmt, &[&id, &tenant])
        .await?
        .ok_or_else(|| AllotError::not_found("hold", id))?;
    let stored = HoldStatus::parse(row.get("status")).ok_or_else(|| AllotError::Internal("bad hold status".into()))?;
    let expires_at: DateTime<Utc> = row.get("expires_at");
    Ok((row, stored, expires_at))
}

/// Whether a hold of `kind` stored as `stored` lists units it holds (a unit or mixed hold,
/// held or confirmed).
fn lists_units(kind: HoldKind, stored: HoldStatus) -> bool {
    kind != HoldKind::Stock && matches!(stored, HoldStatus::Held | HoldStatus::Confirmed)
}

/// Read a hold (the row, and its units when it is a unit hold that still has them, and its
/// bookings when it is mixed): [`read_holds`] of one.
async fn read_hold<C: Db>(c: &C, tenant: &str, row: &tokio_postgres::Row, now: DateTime<Utc>) -> Result<Hold> {
    let mut one = read_holds(c, tenant, std::slice::from_ref(row), now).await?;
    one.pop()
        .ok_or_else(|| AllotError::Internal("a hold read as none".into()))
}

/// Read a page of holds: their units and their bookings in one statement each, whatever the
/// page's length (not one per hold).
async fn read_holds<C: Db>(c: &C, tenant: &str, rows: &[tokio_postgres::Row], now: DateTime<Utc>) -> Result<Vec<Hold>> {
    let (mut with_units, mut mixed) = (Vec::new(), Vec::new());
    for row in rows {
        let (kind, stored) = kind_and_status(row)?;
        let id: String = row.get("id");
        if kind == HoldKind::Mixed {
            mixed.push(id.clone());
        }
        if lists_units(kind, stored) {
            with_units.push(id);
        }
    }
    let mut units: HashMap<String, Vec<Unit>> = HashMap::new();
    if !with_units.is_empty() {
        let stmt = c.prepare_cached(SQL_HOLDS_UNITS).await.map_err(map_error)?;
        for r in c.query(&stmt, &[&with_units, &tenant]).await.map_err(map_error)? {
            units.entry(r.get("claim_id")).or_default().push(unit_of(&r));
        }
    }
    let mut bookings: HashMap<String, Vec<allot_core::Booking>> = HashMap::new();
    if !mixed.is_empty() {
        let stmt = c
            .prepare_cached(&crate::bookings::SQL_HOLDS_BOOKINGS)
            .await
            .map_err(map_error)?;
        for r in c.query(&stmt, &[&mixed, &tenant]).await.map_err(map_error)? {
            bookings
                .entry(r.get("hold_id"))
                .or_default()
                .push(crate::bookings::booking_of(&r, now)?);
        }
    }
    rows.iter()
        .map(|row| {
            let id: &str = row.get("id");
            let u = units.remove(id).unwrap_or_default();
            let b = bookings.remove(id).unwrap_or_default();
            hold_of(row, u, b, now)
        })
        .collect()
}

fn kind_and_status(row: &tokio_postgres::Row) -> Result<(HoldKind, HoldStatus)> {
    let kind = HoldKind::parse(row.get("kind")).ok_or_else(|| AllotError::Internal("a hold of unknown kind".into()))?;
    let stored = HoldStatus::parse(row.get("status")).ok_or_else(|| AllotError::Internal("bad hold status".into()))?;
    Ok((kind, stored))
}

/// The hold of `row` with what it lists: `units` (a unit or mixed hold's; empty once it holds
/// none) and `bookings` (a mixed hold's, absent when it has none).
fn hold_of(
    row: &tokio_postgres::Row,
    units: Vec<Unit>,
    bookings: Vec<allot_core::Booking>,
    now: DateTime<Utc>,
) -> Result<Hold> {
    let (kind, stored) = kind_and_status(row)?;
    let expires_at: DateTime<Utc> = row.get("expires_at");
    let lines: serde_json::Value = row.get("lines");
    Ok(Hold {
        id: row.get("id"),
        status: stored.effective(expires_at, now),
        kind,
        lines: serde_json::from_value(lines).map_err(|e| AllotError::Internal(e.to_string()))?,
        units: (kind != HoldKind::Stock).then_some(units),
        bookings: Some(bookings).filter(|b| kind == HoldKind::Mixed && !b.is_empty()),
        strategy: kind
            .strategy(row.get("strategy"))
            .ok_or_else(|| AllotError::Internal("a hold of unknown strategy".into()))?,
        expires_at,
        created_at: row.get("created_at"),
    })
}

/// Holds of tenant `$1` in effective status `$3` as of `$4`, expiring soonest first, after
/// the hold `$2` (the cursor), at most `$5`.
const SQL_LIST_HOLDS: &str = "SELECT id, kind, status, strategy, lines, expires_at, created_at FROM holds h
  WHERE h.tenant = $1
    AND ($2::text IS NULL OR (h.expires_at, h.id) >
         (SELECT p.expires_at, p.id FROM holds p WHERE p.tenant = $1 AND p.id = $2))
    AND CASE $3::text WHEN 'held' THEN h.status = 'held' AND h.expires_at > $4
                      WHEN 'expired' THEN h.status = 'expired' OR (h.status = 'held' AND h.expires_at <= $4)
                      ELSE h.status = $3 END
    AND ($6::text IS NULL OR EXISTS (SELECT 1 FROM hold_lines l WHERE l.tenant = $1 AND l.hold_id = h.id AND l.sku = $6))
  ORDER BY h.expires_at, h.id LIMIT $5";

impl PgStore {
    async fn try_create_hold(
        &self,
        tenant: &str,
        req: &HoldRequest,
        idem: Option<&Idempotency<Hold>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Hold>> {
        self.write(tenant, idem, async |tx| hold_body(tx, tenant, req, now).await)
            .await
    }

    async fn try_confirm(
        &self,
        tenant: &str,
        target: (&str, Option<&allot_core::hold::ConfirmPart>),
        actor: Option<&str>,
        idem: Option<&Idempotency<Allocation>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Allocation>> {
        self.write(tenant, idem, async |tx| {
            confirm_body(tx, tenant, target, actor, now).await
        })
        .await
    }

    async fn try_release(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<&str>,
        idem: Option<&Idempotency<Hold>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Hold>> {
        self.write(tenant, idem, async |tx| release_body(tx, tenant, id, actor, now).await)
            .await
    }
}

/// Create a hold in `tx` (ours, or a savepoint of the caller's: `hold_in`): take every
/// stock line into `held` (placement, the strategy's locks, in SKU order), then every unit
/// line's units (the lock order across kinds: stock rows, then units), and write the hold's
/// row, its pieces, its ledger entries and its `hold.created` event at `now`, in one round
/// trip ([`created::write_new_hold`]). Errors as an allocation's and a unit
/// claim's; a unit line short while others lock its units runs the whole hold again
/// (bounded, then `contention`).
pub(crate) async fn hold_body(
    tx: &Transaction<'_>,
    tenant: &str,
    req: &HoldRequest,
    now: DateTime<Utc>,
) -> TxResult<Hold> {
    let taken = take_lines(tx, tenant, &req.take, Take::Hold, now).await?;
    let answered = req.take.lines.iter().zip(&taken).map(|(l, p)| answered(l, p)).collect();
    let mut hold = req.to_hold(answered, now);
    let mut units = Vec::new();
    for line in &req.units {
        units.extend(crate::engine::unit_claims::hold_unit_line(tx, tenant, (req, line), now).await?);
    }
    if let Some(held) = hold.units.as_mut() {
        units.sort_by_key(|u| u.id);
        *held = units;
    }
    if !req.bookings.is_empty() {
        hold.bookings = Some(crate::bookings::hold_booking_lines(tx, tenant, req, now).await?);
    }
    let pieces = crate::engine::placement::PieceColumns::of(req.take.lines.iter().map(|l| l.sku.as_str()), &taken);
    created::write_new_hold(tx, (tenant, req.take.actor.as_deref()), &hold, &pieces, now).await?;
    Ok(hold)
}

/// Confirm the hold `id` (whole, or `part` of it) by `actor` at `now`: a partial confirm
/// shrinks the hold first ([`confirm_part::shrink_hold`]); then `allot_confirm_hold_at`
/// (V35), the very function `allot.confirm_hold` runs in a caller's transaction, locks the
/// hold, finishes it and records its allocation in one round trip. Errors: `not_found`,
/// `hold_expired`, `hold_released`, `insufficient_stock` for a part larger than the hold,
/// `not_in_hold` for a booking not the hold's.
pub(crate) async fn confirm_body(
    tx: &Transaction<'_>,
    tenant: &str,
    (id, part): (&str, Option<&allot_core::hold::ConfirmPart>),
    actor: Option<&str>,
    now: DateTime<Utc>,
) -> TxResult<Allocation> {
    if let Some(p) = part {
        let (_, stored, expires_at) = lock_hold(tx, tenant, id).await?;
        if stored == HoldStatus::Held && expires_at > now {
            confirm_part::shrink_hold(tx, tenant, (id, p), (actor, now)).await?;
        }
    }
    hold_function(
        tx,
        "SELECT allot_confirm_hold_at($1, $2, $3, $4)",
        (tenant, id),
        actor,
        now,
    )
    .await
}

/// Release the hold `id` by `actor` at `now`: `allot_release_hold_at` (V35), the function
/// `allot.release_hold` runs. An overdue hold not yet swept finishes as expired; releasing a
/// released or expired hold changes nothing. Errors: `not_found`, `hold_confirmed` for a
/// confirmed hold.
pub(crate) async fn release_body(
    tx: &Transaction<'_>,
    tenant: &str,
    id: &str,
    actor: Option<&str>,
    now: DateTime<Utc>,
) -> TxResult<Hold> {
    hold_function(
        tx,
        "SELECT allot_release_hold_at($1, $2, $3, $4)",
        (tenant, id),
        actor,
        now,
    )
    .await
}

/// Call one of V35's functions, `sql`, on hold `id` of `tenant` by `actor` at `now`: its
/// answer (JSON, as the API's) decoded, or its refusal as the domain's error.
async fn hold_function<T: serde::de::DeserializeOwned>(
    tx: &Transaction<'_>,
    sql: &'static str,
    (tenant, id): (&str, &str),
    actor: Option<&str>,
    now: DateTime<Utc>,
) -> TxResult<T> {
    let stmt = tx.prepare_cached(sql).await?;
    let row = tx
        .query_one(&stmt, &[&tenant, &id, &now, &actor])
        .await
        .map_err(|e| hold_refusal(e, id))?;
    serde_json::from_value(row.get(0))
        .map_err(|e| TxErr::Fail(AllotError::Internal(format!("an unreadable answer: {e}"))))
}

/// The refusals V35's functions raise, by SQLSTATE (documented in docs/api.md), as the
/// domain's errors for hold `id`; any other error as usual.
pub(crate) fn hold_refusal(e: tokio_postgres::Error, id: &str) -> TxErr {
    let status = match e.code().map(|c| c.code()) {
        Some("AL010") => return TxErr::Fail(AllotError::not_found("hold", id)),
        Some("AL011") => HoldStatus::Expired,
        Some("AL012") => HoldStatus::Released,
        Some("AL013") => HoldStatus::Confirmed,
        _ => return TxErr::from(e),
    };
    TxErr::Fail(AllotError::HoldNotActive {
        id: id.to_string(),
        status,
    })
}

/// A hold's bookings expire with it: move each to `until`. Each must still be held and live at
/// `now` when its row is locked; one a booking in its way expired on a later clock (which no
/// longer counts it) refuses the extension as the hold's expiry: never a hold extended past
/// bookings it lost, which no confirm could then take.
async fn extend_bookings(
    tx: &Transaction<'_>,
    tenant: &str,
    id: &str,
    until: DateTime<Utc>,
    now: DateTime<Utc>,
) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "WITH moved AS (
                 UPDATE bookings SET expires_at = $3
                  WHERE tenant = $2 AND hold_id = $1 AND status = 'held' AND expires_at > $4 RETURNING 1)
             SELECT (SELECT count(*) FROM moved), (SELECT count(*) FROM bookings WHERE tenant = $2 AND hold_id = $1)",
        )
        .await?;
    let row = tx.query_one(&stmt, &[&id, &tenant, &until, &now]).await?;
    if row.get::<_, i64>(0) < row.get::<_, i64>(1) {
        return Err(TxErr::Fail(AllotError::HoldNotActive {
            id: id.to_string(),
            status: HoldStatus::Expired,
        }));
    }
    Ok(())
}

impl PgStore {
    async fn try_extend(
        &self,
        tenant: &str,
        id: &str,
        ttl_ms: u64,
        idem: Option<&Idempotency<Hold>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Hold>> {
        self.write(tenant, idem, async |tx| {
            let (locked, stored, expires_at) = lock_hold(tx, tenant, id).await?;
            allot_core::hold::extend_refusal(id, stored, expires_at, now)?;
            let until = allot_core::hold::extended_expiry(expires_at, now, ttl_ms);
            let stmt = tx
                .prepare_cached("UPDATE holds SET expires_at = $3, extended_at = $4 WHERE tenant = $2 AND id = $1")
                .await?;
            tx.execute(&stmt, &[&id, &tenant, &until, &now]).await?;
            if locked.get::<_, &str>("kind") == HoldKind::Mixed.as_str() {
                extend_bookings(tx, tenant, id, until, now).await?;
            }
            let stmt = tx.prepare_cached(SQL_HOLD_ROW).await?;
            let row = tx.query_one(&stmt, &[&id, &tenant]).await?;
            let hold = read_hold(tx, tenant, &row, now).await?;
            Ok(hold)
        })
        .await
    }
}

#[async_trait]
impl HoldStore for PgStore {
    async fn create_hold(&self, tenant: &Tenant, req: HoldRequest, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        self.require_database_side(req.take.strategy)?;
        // A hold without stock lines has no hot row to share: it runs on the per-request path.
        if req.take.strategy == Strategy::Batched && !req.take.lines.is_empty() {
            return self.hold_batched(tenant, req, idem).await;
        }
        self.hold_per_request(tenant, req, idem).await
    }

    async fn get_hold(&self, tenant: &Tenant, id: &str) -> Result<Hold> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_HOLD_ROW).await.map_err(map_error)?;
        let row = c
            .query_opt(&stmt, &[&id, &tenant.as_str()])
            .await
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("hold", id))?;
        read_hold(&c, tenant, &row, self.now()).await
    }

    async fn confirm_hold(
        &self,
        tenant: &Tenant,
        req: Confirm,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let Confirm { id, part, actor } = req;
        // A partial confirm runs on the per-request path (a batch finishes holds whole); it
        // forgets the hold's lane all the same.
        let lane = self.batched_hold_lane(tenant, &id);
        if let (Some(lane_sku), None) = (lane, &part) {
            return self.confirm_batched(tenant, &id, actor, idem, lane_sku).await;
        }
        self.confirm_per_request(tenant, (&id, part), actor, idem).await
    }

    async fn release_hold(&self, tenant: &Tenant, req: Release, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        let Release { id, actor } = req;
        if let Some(lane_sku) = self.batched_hold_lane(tenant, &id) {
            return self.release_batched(tenant, &id, actor, idem, lane_sku).await;
        }
        self.release_per_request(tenant, &id, actor, idem).await
    }

    async fn list_holds(
        &self,
        tenant: &Tenant,
        (status, sku): (HoldStatus, Option<&str>),
        page: Page<Option<&str>>,
    ) -> Result<Listed<Hold, String>> {
        let now = self.now();
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_LIST_HOLDS).await.map_err(map_error)?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
            &tenant.as_str(),
            &page.after,
            &status.as_str(),
            &now,
            &i64::from(page.probe_limit()),
            &sku,
        ];
        let rows = c.query(&stmt, &params).await.map_err(map_error)?;
        let rows = Listed::from_probe(rows, &page, |r| r.get::<_, String>("id"));
        let items = read_holds(&c, tenant, &rows.items, now).await?;
        Ok(Listed { items, next: rows.next })
    }

    async fn extend_hold(&self, tenant: &Tenant, id: &str, ttl_ms: u64, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        let now = self.now();
        self.retrying(|| self.try_extend(tenant, id, ttl_ms, idem.as_ref(), now))
            .await
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl PgStore {
    pub(crate) async fn run_expire_holds(&self, now: DateTime<Utc>, max_holds: u32) -> Result<u64> {
        let limit = i64::from(max_holds.max(1));
        // SKIP LOCKED: a hold being confirmed or released right now is left to that
        // transaction; the next sweep sees what it decided.
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&now, &limit];
        self.retry_plain(|| self.expire_selected(SQL_OVERDUE, &params, now))
            .await
    }
}

impl HoldPerRequest for PgStore {
    async fn hold_per_request(&self, tenant: &str, req: HoldRequest, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        let admitted = self.sku_gate.admit_writer(tenant, &req.take).await?;
        let now = self.now();
        let result = self
            .retrying(|| self.try_create_hold(tenant, &req, idem.as_ref(), now))
            .await;
        if let Some(a) = &admitted {
            a.ended(&result);
        }
        result
    }

    async fn confirm_per_request(
        &self,
        tenant: &str,
        (id, part): (&str, Option<allot_core::hold::ConfirmPart>),
        actor: Option<String>,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let now = self.now();
        let target = (id, part.as_ref());
        self.retrying(|| self.try_confirm(tenant, target, actor.as_deref(), idem.as_ref(), now))
            .await
    }

    async fn release_per_request(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>> {
        let now = self.now();
        self.retrying(|| self.try_release(tenant, id, actor.as_deref(), idem.as_ref(), now))
            .await
    }
}
