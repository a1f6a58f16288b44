//! The audit's reads on PostgreSQL: every figure the rules of [`allot_core::audit`] need, in
//! one REPEATABLE READ, READ ONLY snapshot (PostgreSQL docs, 13.2.2 "Repeatable Read
//! Isolation Level"). Jobs are streamed, never collected.

mod books;
mod slots;

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::audit::{
    error_attempts, Auditor, ClaimAuditRow, JobAuditRow, LocationAuditRow, SkuAuditRow, StateAuditRow,
    MAX_LISTED_OVERLAPS,
};
use allot_core::job::JobState;
use allot_core::Capable;
use allot_core::{AuditReport, BookingOverlap, Result};
use futures::{pin_mut, TryStreamExt};

// Every read takes `$1`: one tenant, or NULL for all of them. Rows carry their tenant first.

/// Per SKU: balances, ledger sums and what its active holds hold.
const SKU_ROWS: &str = "
WITH st AS (SELECT tenant, sku, sum(on_hand)::int8 AS on_hand, sum(held)::int8 AS held,
                   min(on_hand - held)::int8 AS min_avail, min(held)::int8 AS min_held
              FROM stock WHERE $1::text IS NULL OR tenant = $1 GROUP BY tenant, sku
            UNION ALL
            SELECT tenant, sku, count(*) FILTER (WHERE status <> 'allocated'),
                   count(*) FILTER (WHERE status = 'held'),
                   count(*) FILTER (WHERE status = 'available'),
                   count(*) FILTER (WHERE status = 'held')
              FROM units WHERE $1::text IS NULL OR tenant = $1 GROUP BY tenant, sku),
     hl AS (SELECT hl.tenant, hl.sku, sum(hl.quantity)::int8 AS q FROM holds h
              JOIN hold_lines hl ON hl.tenant = h.tenant AND hl.hold_id = h.id
             WHERE h.status = 'held' AND ($1::text IS NULL OR h.tenant = $1) GROUP BY hl.tenant, hl.sku),
     l AS (SELECT tenant, sku, sum(delta)::int8 AS d, sum(held_delta)::int8 AS h, count(*)::int8 AS n
             FROM ledger WHERE $1::text IS NULL OR tenant = $1 GROUP BY tenant, sku)
SELECT s.tenant, s.sku, COALESCE(st.on_hand, 0) AS on_hand, COALESCE(st.held, 0) AS held,
       COALESCE(st.min_avail, 0) AS min_bucket_available, COALESCE(st.min_held, 0) AS min_bucket_held,
       COALESCE(l.d, 0) AS ledger_delta, COALESCE(l.h, 0) AS ledger_held_delta,
       COALESCE(l.n, 0) AS ledger_entries, COALESCE(hl.q, 0) AS active_hold_quantity
  FROM skus s LEFT JOIN st ON st.tenant = s.tenant AND st.sku = s.sku
  LEFT JOIN l ON l.tenant = s.tenant AND l.sku = s.sku
  LEFT JOIN hl ON hl.tenant = s.tenant AND hl.sku = s.sku
 WHERE $1::text IS NULL OR s.tenant = $1
 ORDER BY s.tenant, s.sku";

/// Per (count-tracked SKU, location): its rows' sums and its ledger's sums there (a ledger
/// entry without a location joins as the location '').
const LOCATION_ROWS: &str = "
WITH st AS (SELECT tenant, sku, location, sum(on_hand)::int8 AS on_hand, sum(held)::int8 AS held
              FROM stock WHERE $1::text IS NULL OR tenant = $1 GROUP BY tenant, sku, location),
     l AS (SELECT l.tenant, l.sku, COALESCE(l.location, '') AS location, sum(l.delta)::int8 AS d,
                  sum(l.held_delta)::int8 AS h
             FROM ledger l JOIN skus s ON s.tenant = l.tenant AND s.sku = l.sku AND s.tracking = 'count'
            WHERE $1::text IS NULL OR l.tenant = $1 GROUP BY 1, 2, 3)
SELECT COALESCE(st.tenant, l.tenant) AS tenant, COALESCE(st.sku, l.sku) AS sku,
       NULLIF(COALESCE(st.location, l.location), '') AS location, COALESCE(st.on_hand, 0) AS on_hand,
       COALESCE(st.held, 0) AS held, COALESCE(l.d, 0) AS ledger_delta, COALESCE(l.h, 0) AS ledger_held_delta
  FROM st FULL JOIN l ON l.tenant = st.tenant AND l.sku = st.sku AND l.location = st.location
 ORDER BY 1, 2, 3";

/// Per unit claim whose units and ledger disagree: what each says.
const CLAIM_ROWS: &str = "
WITH u AS (SELECT tenant, sku, claim_id, count(*) FILTER (WHERE status = 'allocated')::int8 AS a,
                  count(*) FILTER (WHERE status = 'held')::int8 AS h
             FROM units WHERE claim_id IS NOT NULL AND ($1::text IS NULL OR tenant = $1)
            GROUP BY tenant, sku, claim_id),
     l AS (SELECT l.tenant, l.sku, l.ref, (-sum(l.delta))::int8 AS a, sum(l.held_delta)::int8 AS h
             FROM ledger l JOIN skus s ON s.tenant = l.tenant AND s.sku = l.sku AND s.tracking = 'units'
            WHERE l.ref IS NOT NULL AND ($1::text IS NULL OR l.tenant = $1)
              AND l.kind IN ('allocation', 'hold', 'hold_confirmed', 'hold_released', 'hold_expired',
                             'allocation_cancelled')
            GROUP BY l.tenant, l.sku, l.ref)
SELECT COALESCE(u.tenant, l.tenant) AS tenant, COALESCE(u.sku, l.sku) AS sku,
       COALESCE(u.claim_id, l.ref) AS claim, COALESCE(l.a, 0) AS ledger_allocated, COALESCE(l.h, 0) AS ledger_held,
       COALESCE(u.a, 0) AS units_allocated, COALESCE(u.h, 0) AS units_held
  FROM u FULL JOIN l ON l.tenant = u.tenant AND l.sku = u.sku AND l.ref = u.claim_id
 WHERE COALESCE(l.a, 0) <> COALESCE(u.a, 0) OR COALESCE(l.h, 0) <> COALESCE(u.h, 0)
 ORDER BY 1, 2, 3";

const JOB_ROWS: &str = "
SELECT tenant, id, queue, state, attempt::int8 AS attempt, max_attempts::int8 AS max_attempts,
       lease_expires_at IS NOT NULL AS leased, finalized_at IS NOT NULL AS finalized, errors
  FROM jobs WHERE $1::text IS NULL OR tenant = $1 ORDER BY tenant, id";

/// Blocking bookings of one resource that overlap (`$3`: at most this many pairs, one more
/// than the report lists, so it can say the list was cut).
const OVERLAPS: &str = "
SELECT a.tenant, a.resource, a.id AS first, b.id AS second FROM bookings a JOIN bookings b
    ON a.resource_hash = b.resource_hash AND a.tenant = b.tenant AND a.resource = b.resource AND a.id < b.id
   AND a.during && b.during
 WHERE ($1::text IS NULL OR a.tenant = $1) AND NOT a.slotted AND NOT b.slotted
   AND (a.status = 'confirmed' OR (a.status = 'held' AND a.expires_at > $2))
   AND (b.status = 'confirmed' OR (b.status = 'held' AND b.expires_at > $2))
 ORDER BY 1, 2, 3, 4 LIMIT $3";

/// Per (count-tracked SKU, location, quantity state) whose books disagree: what is kept
/// (an unsellable state's count; for `available`, the location's `moved` ledger entries)
/// and what the moves add up to (see [`allot_core::audit::StateAuditRow`]).
const STATE_ROWS: &str = "
SELECT tenant, sku, location, state, sum(kept)::int8 AS kept, sum(moved)::int8 AS moved FROM (
    SELECT tenant, sku, location, state, quantity AS kept, 0 AS moved FROM stock_states
    UNION ALL SELECT tenant, sku, location, 'available', delta, 0 FROM ledger WHERE kind = 'moved'
    UNION ALL SELECT tenant, sku, location, to_state, 0, quantity FROM moves
    UNION ALL SELECT tenant, sku, location, from_state, 0, -quantity FROM moves) x
 WHERE $1::text IS NULL OR tenant = $1
 GROUP BY tenant, sku, location, state HAVING sum(kept) <> sum(moved)
 ORDER BY 1, 2, 3, 4";

/// Map a row of [`OVERLAPS`].
fn overlap(r: &tokio_postgres::Row) -> BookingOverlap {
    BookingOverlap {
        tenant: r.get("tenant"),
        resource: r.get("resource"),
        first: r.get("first"),
        second: r.get("second"),
    }
}

impl PgStore {
    /// Every audit rule over one snapshot (see [`allot_core::audit`]), of `tenant` or of all.
    pub(crate) async fn audit_snapshot(&self, tenant: Option<&str>) -> Result<AuditReport> {
        let mut c = self.client().await?;
        let tx = c
            .build_transaction(tokio_postgres::IsolationLevel::RepeatableRead, true)
            .await
            .map_err(map_error)?;
        let mut a = Auditor::new();
        let skus: Vec<SkuAuditRow> = tx
            .query(SKU_ROWS, &[&tenant])
            .await
            .map_err(map_error)?
            .iter()
            .map(sku_row)
            .collect();
        a.skus(&skus);
        for r in tx.query(LOCATION_ROWS, &[&tenant]).await.map_err(map_error)? {
            a.location(&LocationAuditRow {
                tenant: r.get("tenant"),
                sku: r.get("sku"),
                location: r.get("location"),
                on_hand: r.get("on_hand"),
                held: r.get("held"),
                ledger_delta: r.get("ledger_delta"),
                ledger_held_delta: r.get("ledger_held_delta"),
            });
        }
        for r in tx.query(STATE_ROWS, &[&tenant]).await.map_err(map_error)? {
            a.state(&StateAuditRow {
                tenant: r.get("tenant"),
                sku: r.get("sku"),
                location: r.get("location"),
                state: r.get("state"),
                kept: r.get("kept"),
                moved: r.get("moved"),
            });
        }
        for r in tx.query(CLAIM_ROWS, &[&tenant]).await.map_err(map_error)? {
            a.claim(&ClaimAuditRow {
                tenant: r.get("tenant"),
                sku: r.get("sku"),
                claim: r.get("claim"),
                ledger_allocated: r.get("ledger_allocated"),
                ledger_held: r.get("ledger_held"),
                units_allocated: r.get("units_allocated"),
                units_held: r.get("units_held"),
            });
        }
        books::books(&tx, tenant, &mut a).await?;
        let jobs = tx.query_raw(JOB_ROWS, &[&tenant]).await.map_err(map_error)?;
        pin_mut!(jobs);
        while let Some(r) = jobs.try_next().await.map_err(map_error)? {
            a.job(&job_row(&r));
        }
        let now = self.now();
        a.overlaps(
            tx.query(OVERLAPS, &[&tenant, &now, &(MAX_LISTED_OVERLAPS as i64 + 1)])
                .await
                .map_err(map_error)?
                .iter()
                .map(overlap)
                .collect(),
        );
        a.capacity(&slots::capacity_rows(&tx, tenant, now).await?);
        tx.commit().await.map_err(map_error)?;
        Ok(a.finish())
    }
}

fn sku_row(r: &tokio_postgres::Row) -> SkuAuditRow {
    SkuAuditRow {
        tenant: r.get("tenant"),
        sku: r.get("sku"),
        on_hand: r.get("on_hand"),
        held: r.get("held"),
        min_bucket_available: r.get("min_bucket_available"),
        min_bucket_held: r.get("min_bucket_held"),
        ledger_delta: r.get("ledger_delta"),
        ledger_held_delta: r.get("ledger_held_delta"),
        ledger_entries: r.get("ledger_entries"),
        active_hold_quantity: r.get("active_hold_quantity"),
    }
}

fn job_row(r: &tokio_postgres::Row) -> JobAuditRow {
    JobAuditRow {
        tenant: r.get("tenant"),
        id: r.get("id"),
        queue: r.get("queue"),
        state: JobState::parse(r.get("state")),
        attempt: r.get("attempt"),
        max_attempts: r.get("max_attempts"),
        leased: r.get("leased"),
        finalized: r.get("finalized"),
        error_attempts: error_attempts(&r.get::<_, serde_json::Value>("errors")),
    }
}
