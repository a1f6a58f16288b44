//! Stock (fungible counts per SKU) on PostgreSQL: every stock strategy (docs/internals.md, "Strategies") as SQL.

pub(crate) mod backorders;
mod cancel;
#[cfg(test)]
mod gate_tests;
mod kits;
mod locations;
#[cfg(test)]
mod mark_tests;
mod receiving;
mod returns;
#[cfg(test)]
mod single_location_tests;
mod states;

use crate::engine::batched::{fits_one_statement, AllocatePerRequest};
use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::location_rows::Entry;
use crate::engine::placement::{answered, short_line, take_lines, Take};
use crate::engine::records::{
    allocation_of, allocation_select, insert_allocation, read_allocation, SQL_INSERT_ALLOCATION,
};
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::store::{Executed, Idempotency, Keyed, StockStore};
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::Cancel;
use allot_core::Capable;
use allot_core::{
    split_even, Adjustment, Allocation, AllocationRequest, AllotError, CreateSku, Incoming, LedgerEntry, LedgerKind,
    Move, Receipt, Result, Return, Sku, StockReason, Strategy, DEFAULT_LOCATION,
};
use async_trait::async_trait;
use chrono::Utc;

/// The single-statement allocation of a SKU stocked at one location; the argument is the
/// bucket predicate; `$8` is the tenant, `$9` its ledger sequence (see
/// [`PgStore::ledger_sequence`]: no trigger runs while the row is locked). Returns how many rows it took (0 or 1), the row's
/// location and, only when it took none (a successful allocation pays no extra lookup), the
/// SKU's number of stock rows plus those that do not say `single_location` (so 1 only for
/// one row that says it; -1: unit-tracked; NULL when the SKU does not exist). The
/// allocation's line gets its `from` here, from the row taken.
///
/// The statement writes its ledger entry's mark itself and sets `allot.ledger_marked` to its
/// transaction's id from the entry's row, so `ledger_events`' PL/pgSQL trigger does not run
/// for it when it took a row (migration V28: 7 500–7 700 tps of the statement against
/// 6 230–6 770 on 10 000 SKUs). It runs alone in its transaction (autocommit), where that
/// setting ends.
///
/// "No row at another location" is the row's own `single_location` flag (migration V29),
/// read by the UPDATE itself and so re-read on the row's newest version when the UPDATE
/// waited for it. It was two one-sided probes of `stock_location` inside the window the row
/// is locked for: on 10 000 SKUs, pgbench (prepared, 64 clients, seven alternating pairs) ran
/// the statement at a mean 2 856 tps with the flag against 2 692 with the probes (issue 28).
/// Before them, one probe of `location <> …` also read the hot row itself from the heap: on a
/// database whose hot row had been updated some 700 000 times (autovacuum off), the textbook
/// UPDATE with that probe ran at 3 576 tps, with the two at 8 058, without any at 14 082.
macro_rules! fast_allocate {
    ($bucket:literal) => {
        concat!(
            "WITH upd AS (
    UPDATE stock SET on_hand = on_hand - $2, version = version + 1
     WHERE tenant = $8 AND sku = $1 AND ",
            $bucket,
            " AND on_hand - held >= $2 AND single_location
    RETURNING sku, location),
led AS (
    INSERT INTO ledger (id, tenant, sku, delta, held_delta, kind, ref, actor, location, at)
    SELECT nextval($9::oid::regclass), $8, sku, -$2, 0, 'allocation', $4, $7, location, $6 FROM upd
     WHERE set_config('allot.ledger_marked', pg_current_xact_id()::text, true) IS NOT NULL
    RETURNING id, sku),
mark AS (
    INSERT INTO ledger_marks (tenant, sku, first_id, last_id, xact, at)
    SELECT $8, sku, id, id, pg_current_xact_id(), $6 FROM led),
alo AS (
    ",
            insert_allocation!(),
            "
    SELECT $8, $4, 'allocated', $5,
           jsonb_build_array(jsonb_build_object('sku', sku, 'quantity', $2,
               'from', jsonb_build_array(jsonb_build_object('location', location, 'quantity', $2)))), $6
      FROM upd)
SELECT (SELECT count(*) FROM upd) AS taken, (SELECT location FROM upd) AS location,
       CASE WHEN NOT EXISTS (SELECT 1 FROM upd) THEN
         (SELECT CASE WHEN tracking = 'units' THEN -1
                      ELSE (SELECT count(*) + count(*) FILTER (WHERE NOT single_location)
                              FROM stock WHERE tenant = $8 AND sku = $1) END
            FROM skus WHERE tenant = $8 AND sku = $1) END AS refusal"
        )
    };
}
/// `atomic`: bucket 0 (`$3` is unused but typed, to share the parameter list).
const SQL_FAST_ALLOCATE_ATOMIC: &str = fast_allocate!("bucket = 0 AND $3::int8 >= 0");
/// The statement `atomic` runs for an allocation of one line from a SKU stocked at one
/// location (its parameters as in `fast_allocate!`: `$1` SKU, `$2` quantity, `$3` unused
/// bucket start, `$4` allocation id, `$5` strategy name, `$6` now, `$7` actor, `$8` tenant,
/// `$9` the oid of the tenant's ledger sequence; the allocation's one line is built by the
/// statement itself, where a JSON text parameter cost the server its serialisation and
/// encoding). Public for `allot
/// bench compare`, which runs it alone through pgbench beside the textbook UPDATE, so the
/// part of `atomic`'s distance from pgbench that is SQL shows apart from the part that is
/// HTTP and the server.
pub fn atomic_allocation_sql() -> &'static str {
    SQL_FAST_ALLOCATE_ATOMIC
}

/// `segmented`: the request's first bucket, hash mod the SKU's bucket count.
const SQL_FAST_ALLOCATE_SEGMENTED: &str =
    fast_allocate!("bucket = $3::bigint % (SELECT buckets FROM skus WHERE tenant = $8 AND sku = $1)");

// These take (sku, tenant).
/// A SKU row `s`'s counts as a reader must see them at `$2`: from its stock rows, or derived
/// from its units when unit-tracked; and what overdue holds still hold (they are expired, so
/// it leaves `held`). `$3`: the tenant. Columns: buckets, on_hand, held, version, overdue.
macro_rules! sku_counts {
    () => {
        "s.buckets, s.low_stock_below, s.backorder_limit,
        (SELECT COALESCE(sum(b.quantity - b.filled - b.cancelled), 0) FROM backorders b
          WHERE b.tenant = $3 AND b.sku = s.sku AND b.filled + b.cancelled < b.quantity)::int8 AS backordered,
        CASE WHEN s.tracking = 'units'
             THEN (SELECT count(*) FROM units u WHERE u.tenant = $3 AND u.sku = s.sku AND u.status <> 'allocated')
             ELSE (SELECT sum(on_hand) FROM stock st WHERE st.tenant = $3 AND st.sku = s.sku) END::int8 AS on_hand,
        CASE WHEN s.tracking = 'units'
             THEN (SELECT count(*) FROM units u WHERE u.tenant = $3 AND u.sku = s.sku AND u.status = 'held')
             ELSE (SELECT sum(held) FROM stock st WHERE st.tenant = $3 AND st.sku = s.sku) END::int8 AS held,
        CASE WHEN s.tracking = 'units'
             THEN (SELECT COALESCE(max(id), 0) FROM ledger l WHERE l.tenant = $3 AND l.sku = s.sku)
             ELSE (SELECT sum(version) FROM stock st WHERE st.tenant = $3 AND st.sku = s.sku) END::int8 AS version,
        COALESCE((SELECT sum(hl.quantity) FROM hold_lines hl JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
                   WHERE hl.tenant = $3 AND hl.sku = s.sku AND h.status = 'held' AND h.expires_at <= $2), 0)::int8 AS overdue,
        CASE WHEN s.tracking = 'units' THEN (
            SELECT jsonb_agg(jsonb_build_array(loc, on_hand, held) ORDER BY loc) FROM (
                SELECT COALESCE(u.location, 'default') AS loc, count(*) FILTER (WHERE u.status <> 'allocated') AS on_hand,
                       count(*) FILTER (WHERE u.status = 'held' AND NOT EXISTS (
                           SELECT 1 FROM holds h WHERE h.tenant = u.tenant AND h.id = u.claim_id AND h.expires_at <= $2)) AS held
                  FROM units u WHERE u.tenant = $3 AND u.sku = s.sku GROUP BY 1) x)
        ELSE (
            SELECT jsonb_agg(jsonb_build_array(st.location, st.on_hand, st.held - COALESCE(od.q, 0)) ORDER BY st.location)
              FROM (SELECT location, sum(on_hand) AS on_hand, sum(held) AS held FROM stock
                     WHERE tenant = $3 AND sku = s.sku GROUP BY location) st
              LEFT JOIN (SELECT so.location, sum(hl.quantity) AS q FROM hold_lines hl
                           JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
                           JOIN stock so ON so.tenant = hl.tenant AND so.sku = hl.sku AND so.bucket = hl.bucket
                          WHERE hl.tenant = $3 AND hl.sku = s.sku AND h.status = 'held' AND h.expires_at <= $2
                          GROUP BY so.location) od ON od.location = st.location) END AS levels,
        (SELECT jsonb_agg(jsonb_build_array(i.location, i.n) ORDER BY i.location)
           FROM (SELECT location, sum(quantity - received)::int8 AS n FROM incoming
                  WHERE tenant = $3 AND sku = s.sku AND received < quantity GROUP BY location) i) AS incoming,
        (SELECT jsonb_agg(jsonb_build_array(ss.location, ss.state, ss.quantity) ORDER BY ss.location, ss.state)
           FROM stock_states ss WHERE ss.tenant = $3 AND ss.sku = s.sku AND ss.quantity > 0) AS states"
    };
}
/// One SKU (`$1`) as of `$2`.
const SQL_GET_SKU: &str = concat!(
    "SELECT ",
    sku_counts!(),
    " FROM skus s WHERE s.tenant = $3 AND s.sku = $1"
);
/// A page of SKUs after the name `$1` as of `$2` (tenant `$3`), at most `$4`, with `$inner`
/// added to the key's condition and `$outer` filtering the counts.
macro_rules! list_skus {
    ($inner:literal, $outer:literal) => {
        concat!(
            "SELECT sku, buckets, low_stock_below, backorder_limit, backordered, on_hand, held, version, overdue, levels, incoming, states FROM (SELECT s.sku, ",
            sku_counts!(),
            " FROM skus s WHERE s.tenant = $3 AND s.sku > $1",
            $inner,
            ") x",
            $outer,
            " ORDER BY sku LIMIT $4"
        )
    };
}
/// The SKU listing, one statement per filter, so that every generic plan walks the key in
/// order and stops at the page (a generic plan of `$n IS NULL OR …` counted every SKU and
/// sorted them: 600 ms at 100 000 SKUs): none; available below `$5`; a name prefix `$5`;
/// both, below `$5` and prefix `$6`.
const SQL_LIST_SKUS: [&str; 4] = [
    list_skus!("", ""),
    list_skus!("", " WHERE COALESCE(on_hand, 0) - (COALESCE(held, 0) - overdue) < $5"),
    list_skus!(" AND s.sku >= $5 AND starts_with(s.sku, $5)", ""),
    list_skus!(
        " AND s.sku >= $6 AND starts_with(s.sku, $6)",
        " WHERE COALESCE(on_hand, 0) - (COALESCE(held, 0) - overdue) < $5"
    ),
];
/// `$7`: the tenant's ledger sequence (see [`PgStore::ledger_sequence`]); `$8`: now.
const SQL_LEDGER_ALLOCATION: &str =
    "INSERT INTO ledger (id, tenant, sku, delta, held_delta, kind, ref, actor, location, at)
     SELECT nextval($7::oid::regclass), $5, t.sku, -t.q, 0, 'allocation', $3, $4, t.loc, $8
       FROM unnest($1::text[], $2::int8[], $6::text[]) AS t(sku, q, loc)";

/// The general path of an allocation, in `tx` (ours, or a savepoint of the caller's:
/// `allocate_in`): take every line (placement, the strategy's locks, in SKU order), write
/// its ledger entries (ids from the tenant's sequence, `sequence`) and the allocation's
/// record, at `now`. Errors: `not_found`, `insufficient_stock` (or `Overdue`, to finish
/// overdue holds and run again), `wrong_tracking`.
pub(crate) async fn allocate_body(
    tx: &crate::engine::conn::Tx<'_>,
    tenant: &str,
    req: &AllocationRequest,
    sequence: u32,
    now: chrono::DateTime<Utc>,
) -> TxResult<Allocation> {
    let taken = take_lines(tx, tenant, req, Take::Allocate, now).await?;
    let mut alloc = req.to_allocation(now);
    alloc.lines = req.lines.iter().zip(&taken).map(|(l, p)| answered(l, p)).collect();
    record_allocation(tx, tenant, req, (&alloc, &taken), sequence, now).await?;
    Ok(alloc)
}

/// Write allocation `alloc` of `req` (its lines as answered) and the ledger entries of the
/// pieces it `taken`, at `now` (ids from the tenant's sequence `sequence`).
pub(crate) async fn record_allocation(
    tx: &crate::engine::conn::Tx<'_>,
    tenant: &str,
    req: &AllocationRequest,
    (alloc, taken): (&Allocation, &[Vec<crate::engine::placement::Piece>]),
    sequence: u32,
    now: chrono::DateTime<Utc>,
) -> TxResult<()> {
    let c = crate::engine::placement::PieceColumns::of(req.lines.iter().map(|l| l.sku.as_str()), taken);
    let stmt = tx.prepare_cached(SQL_LEDGER_ALLOCATION).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
        &c.skus,
        &c.quantities,
        &req.id,
        &req.actor,
        &tenant,
        &c.locations,
        &sequence,
        &now,
    ];
    tx.execute(&stmt, &params).await?;
    let lines_json = serde_json::to_value(&alloc.lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    let stmt = tx.prepare_cached(SQL_INSERT_ALLOCATION).await?;
    tx.execute(&stmt, &[&req.id, &req.strategy.name(), &lines_json, &now, &tenant])
        .await?;
    Ok(())
}

impl PgStore {
    /// Try the single-statement path: one line, no idempotency key, `atomic` or
    /// `segmented`, a SKU stocked at one location, placed by a policy (not pinned, no ranked
    /// list). The UPDATE and both INSERTs run as one statement (one implicit transaction, one
    /// commit), so the row lock is held only for that statement and its commit. An unknown
    /// SKU is `not_found` and a short one-row SKU whose row says `single_location`
    /// `insufficient_stock` right here, so the rejections of a sold-out flash sale cost two
    /// round trips, not a transaction. Returns the location taken from, or `None` when other
    /// rows remain to be tried or the row no longer says `single_location`: the general path
    /// then decides.
    async fn try_fast_allocate(
        &self,
        tenant: &str,
        req: &AllocationRequest,
        now: chrono::DateTime<Utc>,
    ) -> TxResult<Option<String>> {
        let line = &req.lines[0];
        let start = if req.strategy == Strategy::Segmented {
            (req.spread_hash >> 1) as i64
        } else {
            0
        };
        // Before the connection of the statement: a first use takes one of its own.
        let sequence = self.ledger_sequence(tenant).await?;
        let client = self.client().await?;
        let sql = if req.strategy == Strategy::Segmented {
            SQL_FAST_ALLOCATE_SEGMENTED
        } else {
            SQL_FAST_ALLOCATE_ATOMIC
        };
        let stmt = client.prepare_cached(sql).await?;
        let strategy = req.strategy.name();
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
            &line.sku,
            &line.quantity,
            &start,
            &req.id,
            &strategy,
            &now,
            &req.actor,
            &tenant,
            &sequence,
        ];
        let row = client.query_one(&stmt, &params).await?;
        // By position (`taken`, `location`, `refusal`): a lookup by name compares every
        // column's name.
        if row.get::<_, i64>(0) == 1 {
            return Ok(row.get(1));
        }
        match row.get::<_, Option<i64>>(2) {
            None => Err(TxErr::Fail(AllotError::not_found("sku", &line.sku))),
            Some(-1) => Err(TxErr::Fail(AllotError::wrong_tracking(&line.sku, true))),
            // One row that says `single_location` in the snapshot: short, unless the fresh
            // level has enough on hand (the row stopped saying it while the UPDATE waited on
            // it, stock arrived since, or the row is not the statement's bucket).
            Some(1) => match short_line(
                &client,
                tenant,
                (&line.sku, Take::Allocate),
                line.quantity,
                (None, None),
                now,
            )
            .await
            {
                TxErr::Fail(AllotError::InsufficientStock { available, .. }) if available >= line.quantity => Ok(None),
                // The general path decides, and runs the backorder path from there.
                TxErr::Backorder(_) => Ok(None),
                refused => Err(refused),
            },
            Some(_) => Ok(None),
        }
    }

    async fn try_allocate(
        &self,
        tenant: &str,
        req: &AllocationRequest,
        idem: Option<&Idempotency<Allocation>>,
        now: chrono::DateTime<Utc>,
    ) -> TxResult<Executed<Allocation>> {
        let sequence = self.ledger_sequence(tenant).await?;
        self.write(tenant, idem, async |tx| {
            allocate_body(tx, tenant, req, sequence, now).await
        })
        .await
    }

    async fn try_create(
        &self,
        tenant: &str,
        req: &CreateSku,
        idem: Option<&Idempotency<Sku>>,
    ) -> TxResult<Executed<Sku>> {
        let now = self.now();
        self.write(tenant, idem, async |tx| {
            crate::engine::location_rows::require_location(tx, tenant, &req.location).await?;
            let n = tx
                .execute(
                    "INSERT INTO skus (tenant, sku, buckets, created_at, low_stock_below)
                     VALUES ($3, $1, $2, $4, $5) ON CONFLICT DO NOTHING",
                    &[&req.sku, &(req.buckets as i32), &tenant, &now, &req.low_stock_below],
                )
                .await?;
            if n == 0 {
                return Err(TxErr::Fail(AllotError::AlreadyExists {
                    kind: "sku",
                    id: req.sku.clone(),
                }));
            }
            let buckets: Vec<i32> = (0..req.buckets as i32).collect();
            let amounts = split_even(req.on_hand, req.buckets);
            tx.execute(
                "INSERT INTO stock (tenant, sku, bucket, on_hand, location, single_location)
                 SELECT $4, $1, b, q, $5, true FROM unnest($2::int4[], $3::int8[]) AS t(b, q)",
                &[&req.sku, &buckets, &amounts, &tenant, &req.location],
            )
            .await?;
            tx.execute(
                "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, actor, location, at)
                 VALUES ($4, $1, $2, 0, 'created', $3, $5, $6)",
                &[&req.sku, &req.on_hand, &req.actor, &tenant, &req.location, &now],
            )
            .await?;
            let sku = Sku::created(req);
            Ok(sku)
        })
        .await
    }

    async fn try_adjust(
        &self,
        tenant: &str,
        req: &Adjustment,
        idem: Option<&Idempotency<Sku>>,
    ) -> TxResult<Executed<Sku>> {
        self.write(tenant, idem, async |tx| {
            let entry = Entry::new(LedgerKind::Adjustment, None, req.actor.as_deref(), self.now())
                .because(Some(req.reason), req.reference.as_deref());
            let at = (req.sku.as_str(), req.location.as_str());
            Self::lock_and_rebalance(tx, tenant, at, req.delta, entry).await?;
            let sku = get_sku_with(tx, tenant, &req.sku, self.now()).await?;
            Ok(sku)
        })
        .await
    }

    /// Rebalance each location of `sku` in one transaction (locations in name order).
    async fn try_rebalance_one(&self, tenant: &str, sku: &str) -> TxResult<bool> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let locations: Vec<String> = tx
            .query(
                "SELECT DISTINCT location FROM stock WHERE tenant = $2 AND sku = $1 ORDER BY location",
                &[&sku, &tenant],
            )
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let mut changed = false;
        let entry = Entry::new(LedgerKind::Adjustment, None, None, self.now());
        for loc in &locations {
            changed |= Self::lock_and_rebalance(&tx, tenant, (sku, loc), 0, entry).await?;
        }
        if locations.is_empty() {
            crate::engine::location_rows::location_rows(&tx, tenant, sku, DEFAULT_LOCATION, false).await?;
        }
        tx.commit().await?;
        Ok(changed)
    }
}

/// Read a SKU's counts as of `now` (see `SQL_GET_SKU`).
pub(crate) async fn get_sku_with<C: Db>(c: &C, tenant: &str, sku: &str, now: chrono::DateTime<Utc>) -> Result<Sku> {
    let stmt = c.prepare_cached(SQL_GET_SKU).await.map_err(map_error)?;
    let row = c
        .query_opt(&stmt, &[&sku, &now, &tenant])
        .await
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("sku", sku))?;
    Ok(sku_of(&row, sku.to_string()))
}

/// A SKU from its counts' columns, by name (see `sku_counts!`).
fn sku_of(row: &tokio_postgres::Row, sku: String) -> Sku {
    let overdue: i64 = row.get("overdue");
    let mut s = Sku::from_counts(
        sku,
        row.get::<_, Option<i64>>("on_hand").unwrap_or(0),
        row.get::<_, Option<i64>>("held").unwrap_or(0) - overdue,
        row.get::<_, Option<i64>>("version").unwrap_or(0),
        row.get::<_, i32>("buckets") as u32,
    );
    let levels: Option<Vec<(String, i64, i64)>> = row
        .get::<_, Option<serde_json::Value>>("levels")
        .and_then(|v| serde_json::from_value(v).ok());
    s.levels = allot_core::location::levels(levels.iter().flatten().map(|(l, a, h)| (l.as_str(), *a, *h)));
    s.low_stock_below = row.get("low_stock_below");
    s.backorder_limit = row.get("backorder_limit");
    s.backordered = row.get("backordered");
    let incoming: Option<Vec<(String, i64)>> = row
        .get::<_, Option<serde_json::Value>>("incoming")
        .and_then(|v| serde_json::from_value(v).ok());
    allot_core::receiving::with_incoming(&mut s, incoming.iter().flatten().map(|(l, n)| (l.as_str(), *n)));
    let states: Option<Vec<(String, String, i64)>> = row
        .get::<_, Option<serde_json::Value>>("states")
        .and_then(|v| serde_json::from_value(v).ok());
    allot_core::states::with_states(
        &mut s,
        states
            .iter()
            .flatten()
            .filter_map(|(l, st, n)| Some((l.as_str(), allot_core::QuantityState::parse(st)?, *n))),
    );
    s
}

#[async_trait]
impl StockStore for PgStore {
    async fn health(&self) -> Result<()> {
        let c = self.client().await?;
        c.client().simple_query("SELECT 1").await.map_err(map_error)?;
        Ok(())
    }

    async fn create_sku(&self, tenant: &Tenant, req: CreateSku, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        self.retrying(|| self.try_create(tenant, &req, idem.as_ref())).await
    }

    async fn get_sku(&self, tenant: &Tenant, sku: &str) -> Result<Sku> {
        let c = self.client().await?;
        get_sku_with(&c, tenant, sku, self.now()).await
    }

    async fn set_backorder_limit(&self, tenant: &Tenant, sku: &str, limit: i64) -> Result<Sku> {
        self.write_backorder_limit(tenant, sku, limit).await
    }

    async fn set_low_stock(&self, tenant: &Tenant, sku: &str, below: Option<i64>) -> Result<Sku> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE skus SET low_stock_below = $3 WHERE tenant = $1 AND sku = $2",
                &[&tenant.as_str(), &sku, &below],
            )
            .await
            .map_err(map_error)?;
        if n == 0 {
            return Err(AllotError::not_found("sku", sku));
        }
        get_sku_with(&c, tenant, sku, self.now()).await
    }

    async fn put_kit(&self, tenant: &Tenant, kit: allot_core::kit::Kit) -> Result<allot_core::kit::Kit> {
        self.write_kit(tenant.as_str(), kit).await
    }

    async fn kits(&self, tenant: &Tenant, names: &[String]) -> Result<allot_core::kit::Kits> {
        self.read_kits(tenant.as_str(), names).await
    }

    async fn delete_kit(&self, tenant: &Tenant, kit: &str) -> Result<()> {
        self.remove_kit(tenant.as_str(), kit).await
    }

    async fn adjust(&self, tenant: &Tenant, req: Adjustment, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        self.retrying(|| self.try_adjust(tenant, &req, idem.as_ref())).await
    }

    async fn ledger(&self, tenant: &Tenant, sku: &str, page: Page<i64>) -> Result<Listed<LedgerEntry, i64>> {
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(
                "SELECT id, delta, held_delta, kind, ref, at, actor, location, reason, reference FROM ledger
                  WHERE tenant = $4 AND sku = $1 AND id > $2 ORDER BY id LIMIT $3",
            )
            .await
            .map_err(map_error)?;
        let rows = c
            .query(
                &stmt,
                &[&sku, &page.after, &i64::from(page.probe_limit()), &tenant.as_str()],
            )
            .await
            .map_err(map_error)?;
        if rows.is_empty() {
            // Distinguish "no more entries" from "no such SKU".
            get_sku_with(&c, tenant, sku, self.now()).await?;
        }
        let entries = rows
            .iter()
            .map(|r| {
                let kind: &str = r.get("kind");
                let kind = LedgerKind::parse(kind)
                    .ok_or_else(|| AllotError::Internal(format!("ledger entry of unknown kind `{kind}`")))?;
                let reason: Option<&str> = r.get("reason");
                Ok(LedgerEntry {
                    id: r.get("id"),
                    delta: r.get("delta"),
                    held_delta: r.get("held_delta"),
                    kind,
                    reason: StockReason::read(kind, reason)
                        .ok_or_else(|| AllotError::Internal(format!("ledger entry with unknown reason {reason:?}")))?,
                    document: r.get("reference"),
                    reference: r.get("ref"),
                    location: r.get("location"),
                    actor: r.get("actor"),
                    at: r.get("at"),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Listed::from_probe(entries, &page, |e| e.id))
    }

    async fn allocate(
        &self,
        tenant: &Tenant,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        self.require_database_side(req.strategy)?;
        if req.strategy == Strategy::Batched {
            return self.allocate_batched(tenant, req, idem).await;
        }
        self.allocate_per_request(tenant, req, idem).await
    }

    async fn get_allocation(&self, tenant: &Tenant, id: &str) -> Result<Allocation> {
        let c = self.client().await?;
        read_allocation(&c, tenant, id).await
    }

    async fn cancel_allocation(
        &self,
        tenant: &Tenant,
        req: Cancel,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        self.retrying(|| self.try_cancel(tenant, &req.id, req.actor.as_deref(), idem.as_ref()))
            .await
    }

    async fn return_allocation(&self, tenant: &Tenant, req: Return, idem: Keyed<Return>) -> Result<Executed<Return>> {
        self.retrying(|| self.try_return(tenant, &req, idem.as_ref())).await
    }

    async fn add_incoming(&self, tenant: &Tenant, req: Incoming, idem: Keyed<Incoming>) -> Result<Executed<Incoming>> {
        self.retrying(|| self.try_add_incoming(tenant, &req, idem.as_ref()))
            .await
    }

    async fn receive(&self, tenant: &Tenant, req: Receipt, idem: Keyed<Receipt>) -> Result<Executed<Receipt>> {
        self.retrying(|| self.try_receive(tenant, &req, idem.as_ref())).await
    }

    async fn move_stock(&self, tenant: &Tenant, req: Move, idem: Keyed<Move>) -> Result<Executed<Move>> {
        self.retrying(|| self.try_move(tenant, &req, idem.as_ref())).await
    }

    async fn list_skus(
        &self,
        tenant: &Tenant,
        filter: &allot_core::SkuFilter,
        page: Page<Option<&str>>,
    ) -> Result<Listed<Sku, String>> {
        let c = self.client().await?;
        let (after, now, tenant) = (page.after.unwrap_or(""), self.now(), tenant.as_str());
        let limit = i64::from(page.probe_limit());
        let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&after, &now, &tenant, &limit];
        let mut variant = 0;
        if let Some(below) = &filter.available_below {
            params.push(below);
            variant += 1;
        }
        if let Some(prefix) = &filter.prefix {
            params.push(prefix);
            variant += 2;
        }
        let stmt = c.prepare_cached(SQL_LIST_SKUS[variant]).await.map_err(map_error)?;
        let rows = c.query(&stmt, &params).await.map_err(map_error)?;
        let skus = rows.iter().map(|r| sku_of(r, r.get("sku"))).collect();
        Ok(Listed::from_probe(skus, &page, |s: &Sku| s.sku.clone()))
    }

    async fn list_allocations(&self, tenant: &Tenant, page: Page<Option<&str>>) -> Result<Listed<Allocation, String>> {
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(concat!(
                allocation_select!(),
                "
                  WHERE a.tenant = $1 AND ($2::text IS NULL OR (a.created_at, a.id) >
                        (SELECT p.created_at, p.id FROM allocations p WHERE p.tenant = $1 AND p.id = $2))
                  ORDER BY a.created_at, a.id LIMIT $3"
            ))
            .await
            .map_err(map_error)?;
        let rows = c
            .query(&stmt, &[&tenant.as_str(), &page.after, &i64::from(page.probe_limit())])
            .await
            .map_err(map_error)?;
        let allocations = rows.iter().map(allocation_of).collect::<Result<Vec<_>>>()?;
        Ok(Listed::from_probe(allocations, &page, |a| a.id.clone()))
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl PgStore {
    pub(crate) async fn run_rebalance(&self, tenant: &str, sku: Option<&str>) -> Result<u64> {
        let skus: Vec<String> = match sku {
            Some(s) => vec![s.to_string()],
            None => {
                let c = self.client().await?;
                c.query(
                    "SELECT sku FROM skus WHERE tenant = $1 AND buckets > 1 ORDER BY sku",
                    &[&tenant],
                )
                .await
                .map_err(map_error)?
                .iter()
                .map(|r| r.get(0))
                .collect()
            }
        };
        let mut changed = 0;
        for s in &skus {
            if self.retrying(|| self.try_rebalance_one(tenant, s)).await? {
                changed += 1;
            }
        }
        Ok(changed)
    }

    pub(crate) async fn run_prune_idempotency_keys(&self, before: chrono::DateTime<Utc>, max_rows: u32) -> Result<u64> {
        let c = self.client().await?;
        c.execute(
            // A MATERIALIZED batch joined with USING: an inlined `key IN (SELECT … LIMIT n FOR
            // UPDATE SKIP LOCKED)` can be rescanned once per outer row (quadratic).
            "WITH batch AS MATERIALIZED (
                 SELECT tenant, key FROM idempotency_keys WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
             DELETE FROM idempotency_keys i USING batch WHERE i.tenant = batch.tenant AND i.key = batch.key",
            &[&before, &i64::from(max_rows)],
        )
        .await
        .map_err(map_error)
    }
}

impl AllocatePerRequest for PgStore {
    async fn allocate_per_request(
        &self,
        tenant: &str,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let admitted = self.sku_gate.admit_writer(tenant, &req).await?;
        let result = self.allocate_past_gate(tenant, req, idem).await;
        if let Some(a) = &admitted {
            a.ended(&result);
        }
        result
    }
}

impl PgStore {
    /// [`AllocatePerRequest::allocate_per_request`] once past the writers' gate: the single
    /// statement when the request fits it, else the general path. A `batched` request comes
    /// here when its lane found it alone: the statement records it as `batched`.
    async fn allocate_past_gate(
        &self,
        tenant: &str,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let now = self.now();
        if fits_one_statement(&req, &idem) {
            if let Some(loc) = self.retrying(|| self.try_fast_allocate(tenant, &req, now)).await? {
                let quantity = req.lines[0].quantity;
                let mut alloc = req.into_allocation(now);
                // All from the one row taken (what `sources` sums, without copying the name).
                alloc.lines[0].from = vec![allot_core::location::Source {
                    location: loc,
                    quantity,
                }];
                return Ok(Executed::Fresh(alloc));
            }
        }
        // Boxed: the general path's future is several times the single statement's, and
        // inline it made every future that holds this one as large, copied at each await
        // above (`allot bench cost`: memcpy per atomic allocation).
        Box::pin(self.retrying(|| self.try_allocate_or_owe(tenant, &req, idem.as_ref(), now))).await
    }

    /// One attempt of the general path; a line short on a SKU with a backorder limit runs the
    /// backorder path ([`backorders`]) in a transaction of its own.
    async fn try_allocate_or_owe(
        &self,
        tenant: &str,
        req: &AllocationRequest,
        idem: Option<&Idempotency<Allocation>>,
        now: chrono::DateTime<Utc>,
    ) -> TxResult<Executed<Allocation>> {
        match self.try_allocate(tenant, req, idem, now).await {
            Err(TxErr::Backorder(refusal)) => self.try_backorder(tenant, req, idem, now, refusal).await,
            done => done,
        }
    }
}
