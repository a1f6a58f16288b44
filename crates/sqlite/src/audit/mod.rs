//! The audit's reads on SQLite: every figure the rules of [`allot_core::audit`] need, read on
//! the writer thread (so no write interleaves: one snapshot). Jobs are streamed row by row.

mod books;
mod slots;

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::audit::{
    error_attempts, Auditor, ClaimAuditRow, JobAuditRow, LocationAuditRow, SkuAuditRow, StateAuditRow,
    MAX_LISTED_OVERLAPS,
};
use allot_core::job::JobState;
use allot_core::{AuditReport, BookingOverlap, Result};
use rusqlite::Connection;

// Every read takes `?1`: one tenant, or NULL for all of them. Rows carry their tenant first.

/// Per SKU: balances, ledger sums and what its active holds hold.
const SKU_ROWS: &str = "
WITH st AS (SELECT tenant, sku, sum(on_hand) AS on_hand, sum(held) AS held,
                   min(on_hand - held) AS min_avail, min(held) AS min_held
              FROM stock WHERE ?1 IS NULL OR tenant = ?1 GROUP BY tenant, sku
            UNION ALL
            SELECT tenant, sku, sum(status <> 'allocated'), sum(status = 'held'),
                   sum(status = 'available'), sum(status = 'held')
              FROM units WHERE ?1 IS NULL OR tenant = ?1 GROUP BY tenant, sku),
     hl AS (SELECT hl.tenant, hl.sku, sum(hl.quantity) AS q FROM holds h
              JOIN hold_lines hl ON hl.tenant = h.tenant AND hl.hold_id = h.id
             WHERE h.status = 'held' AND (?1 IS NULL OR h.tenant = ?1) GROUP BY hl.tenant, hl.sku),
     l AS (SELECT tenant, sku, sum(delta) AS d, sum(held_delta) AS h, count(*) AS n
             FROM ledger WHERE ?1 IS NULL OR tenant = ?1 GROUP BY tenant, sku)
SELECT s.tenant AS tenant, s.sku AS sku, COALESCE(st.on_hand, 0) AS on_hand, COALESCE(st.held, 0) AS held,
       COALESCE(st.min_avail, 0) AS min_bucket_available, COALESCE(st.min_held, 0) AS min_bucket_held,
       COALESCE(l.d, 0) AS ledger_delta, COALESCE(l.h, 0) AS ledger_held_delta,
       COALESCE(l.n, 0) AS ledger_entries, COALESCE(hl.q, 0) AS active_hold_quantity
  FROM skus s LEFT JOIN st ON st.tenant = s.tenant AND st.sku = s.sku
  LEFT JOIN l ON l.tenant = s.tenant AND l.sku = s.sku
  LEFT JOIN hl ON hl.tenant = s.tenant AND hl.sku = s.sku
 WHERE ?1 IS NULL OR s.tenant = ?1
 ORDER BY s.tenant, s.sku";

/// Per (count-tracked SKU, location): its rows' sums and its ledger's sums there (a ledger
/// entry without a location keyed as ''; a full outer join as a union of keys).
const LOCATION_ROWS: &str = "
WITH st AS (SELECT tenant, sku, location, sum(on_hand) AS on_hand, sum(held) AS held
              FROM stock WHERE ?1 IS NULL OR tenant = ?1 GROUP BY tenant, sku, location),
     l AS (SELECT l.tenant, l.sku, COALESCE(l.location, '') AS location, sum(l.delta) AS d, sum(l.held_delta) AS h
             FROM ledger l JOIN skus s ON s.tenant = l.tenant AND s.sku = l.sku AND s.tracking = 'count'
            WHERE ?1 IS NULL OR l.tenant = ?1 GROUP BY 1, 2, 3),
     k AS (SELECT tenant, sku, location FROM st UNION SELECT tenant, sku, location FROM l)
SELECT k.tenant AS tenant, k.sku AS sku, NULLIF(k.location, '') AS location, COALESCE(st.on_hand, 0) AS on_hand,
       COALESCE(st.held, 0) AS held, COALESCE(l.d, 0) AS ledger_delta, COALESCE(l.h, 0) AS ledger_held_delta
  FROM k LEFT JOIN st ON st.tenant = k.tenant AND st.sku = k.sku AND st.location = k.location
         LEFT JOIN l ON l.tenant = k.tenant AND l.sku = k.sku AND l.location = k.location
 ORDER BY 1, 2, 3";

/// Per (count-tracked SKU, location, quantity state) whose books disagree: what is kept
/// (an unsellable state's count; for `available`, the location's `moved` ledger entries)
/// and what the moves add up to (see [`allot_core::audit::StateAuditRow`]).
const STATE_ROWS: &str = "
SELECT tenant, sku, location, state, sum(kept) AS kept, sum(moved) AS moved FROM (
    SELECT tenant, sku, location, state, quantity AS kept, 0 AS moved FROM stock_states
    UNION ALL SELECT tenant, sku, location, 'available', delta, 0 FROM ledger WHERE kind = 'moved'
    UNION ALL SELECT tenant, sku, location, to_state, 0, quantity FROM moves
    UNION ALL SELECT tenant, sku, location, from_state, 0, -quantity FROM moves)
 WHERE ?1 IS NULL OR tenant = ?1
 GROUP BY tenant, sku, location, state HAVING sum(kept) <> sum(moved)
 ORDER BY 1, 2, 3, 4";

/// Per unit claim whose units and ledger disagree: what each says (a full outer join written
/// as the union of both sides, which every SQLite version has).
const CLAIM_ROWS: &str = "
WITH u AS (SELECT tenant, sku, claim_id AS claim, sum(status = 'allocated') AS a, sum(status = 'held') AS h
             FROM units WHERE claim_id IS NOT NULL AND (?1 IS NULL OR tenant = ?1) GROUP BY tenant, sku, claim_id),
     l AS (SELECT l.tenant, l.sku, l.ref AS claim, -sum(l.delta) AS a, sum(l.held_delta) AS h
             FROM ledger l JOIN skus s ON s.tenant = l.tenant AND s.sku = l.sku AND s.tracking = 'units'
            WHERE l.ref IS NOT NULL AND (?1 IS NULL OR l.tenant = ?1)
              AND l.kind IN ('allocation', 'hold', 'hold_confirmed', 'hold_released', 'hold_expired',
                             'allocation_cancelled')
            GROUP BY l.tenant, l.sku, l.ref),
     k AS (SELECT tenant, sku, claim FROM u UNION SELECT tenant, sku, claim FROM l)
SELECT k.tenant AS tenant, k.sku AS sku, k.claim AS claim, COALESCE(l.a, 0) AS ledger_allocated,
       COALESCE(l.h, 0) AS ledger_held, COALESCE(u.a, 0) AS units_allocated, COALESCE(u.h, 0) AS units_held
  FROM k LEFT JOIN u ON u.tenant = k.tenant AND u.sku = k.sku AND u.claim = k.claim
         LEFT JOIN l ON l.tenant = k.tenant AND l.sku = k.sku AND l.claim = k.claim
 WHERE COALESCE(l.a, 0) <> COALESCE(u.a, 0) OR COALESCE(l.h, 0) <> COALESCE(u.h, 0)
 ORDER BY 1, 2, 3";

const JOB_ROWS: &str = "
SELECT tenant, id, queue, state, attempt, max_attempts, lease_expires_at_us IS NOT NULL AS leased,
       finalized_at_us IS NOT NULL AS finalized, errors
  FROM jobs WHERE ?1 IS NULL OR tenant = ?1 ORDER BY tenant, id";

/// Blocking bookings of one resource that overlap (`?3`: at most this many pairs, one more
/// than the report lists, so it can say the list was cut).
const OVERLAPS: &str = "
SELECT a.tenant AS tenant, a.resource AS resource, a.id AS first, b.id AS second FROM bookings a JOIN bookings b
    ON a.tenant = b.tenant AND a.resource = b.resource AND a.id < b.id
   AND a.start_us < b.end_us AND b.start_us < a.end_us
 WHERE (?1 IS NULL OR a.tenant = ?1) AND NOT a.slotted AND NOT b.slotted
   AND (a.status = 'confirmed' OR (a.status = 'held' AND a.expires_at_us > ?2))
   AND (b.status = 'confirmed' OR (b.status = 'held' AND b.expires_at_us > ?2))
 ORDER BY 1, 2, 3, 4 LIMIT ?3";

/// The overlapping blocking bookings as of now.
fn overlaps(c: &Connection, tenant: Option<&str>) -> Result<Vec<BookingOverlap>> {
    let mut s = c.prepare_cached(OVERLAPS).map_err(map_error)?;
    let rows = s
        .query_map(
            rusqlite::params![tenant, now_us(), MAX_LISTED_OVERLAPS as i64 + 1],
            |r| {
                Ok(BookingOverlap {
                    tenant: r.get("tenant")?,
                    resource: r.get("resource")?,
                    first: r.get("first")?,
                    second: r.get("second")?,
                })
            },
        )
        .map_err(map_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(map_error)
}

impl SqliteStore {
    /// Every audit rule over one snapshot (see [`allot_core::audit`]), of `tenant` or of all.
    pub(crate) async fn audit_snapshot(&self, tenant: Option<String>) -> Result<AuditReport> {
        self.call(move |c| {
            let t = tenant.as_deref();
            let mut a = Auditor::new();
            a.skus(&sku_rows(c, t)?);
            location_rows(c, t, &mut a)?;
            state_rows(c, t, &mut a)?;
            claim_rows(c, t, &mut a)?;
            books::books(c, t, &mut a)?;
            job_rows(c, t, &mut a)?;
            a.overlaps(overlaps(c, t)?);
            a.capacity(&slots::capacity_rows(c, t)?);
            Ok(a.finish())
        })
        .await
    }
}

fn sku_rows(c: &Connection, tenant: Option<&str>) -> Result<Vec<SkuAuditRow>> {
    let mut s = c.prepare_cached(SKU_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(SkuAuditRow {
                tenant: r.get("tenant")?,
                sku: r.get("sku")?,
                on_hand: r.get("on_hand")?,
                held: r.get("held")?,
                min_bucket_available: r.get("min_bucket_available")?,
                min_bucket_held: r.get("min_bucket_held")?,
                ledger_delta: r.get("ledger_delta")?,
                ledger_held_delta: r.get("ledger_held_delta")?,
                ledger_entries: r.get("ledger_entries")?,
                active_hold_quantity: r.get("active_hold_quantity")?,
            })
        })
        .map_err(map_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(map_error)
}

fn location_rows(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(LOCATION_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(LocationAuditRow {
                tenant: r.get("tenant")?,
                sku: r.get("sku")?,
                location: r.get("location")?,
                on_hand: r.get("on_hand")?,
                held: r.get("held")?,
                ledger_delta: r.get("ledger_delta")?,
                ledger_held_delta: r.get("ledger_held_delta")?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.location(&r.map_err(map_error)?);
    }
    Ok(())
}

fn state_rows(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(STATE_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(StateAuditRow {
                tenant: r.get("tenant")?,
                sku: r.get("sku")?,
                location: r.get("location")?,
                state: r.get("state")?,
                kept: r.get("kept")?,
                moved: r.get("moved")?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.state(&r.map_err(map_error)?);
    }
    Ok(())
}

fn claim_rows(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(CLAIM_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(ClaimAuditRow {
                tenant: r.get("tenant")?,
                sku: r.get("sku")?,
                claim: r.get("claim")?,
                ledger_allocated: r.get("ledger_allocated")?,
                ledger_held: r.get("ledger_held")?,
                units_allocated: r.get("units_allocated")?,
                units_held: r.get("units_held")?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.claim(&r.map_err(map_error)?);
    }
    Ok(())
}

fn job_rows(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(JOB_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            let state: String = r.get("state")?;
            let errors: String = r.get("errors")?;
            Ok(JobAuditRow {
                tenant: r.get("tenant")?,
                id: r.get("id")?,
                queue: r.get("queue")?,
                state: JobState::parse(&state),
                attempt: r.get("attempt")?,
                max_attempts: r.get("max_attempts")?,
                leased: r.get("leased")?,
                finalized: r.get("finalized")?,
                error_attempts: error_attempts(&serde_json::from_str(&errors).unwrap_or_default()),
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.job(&r.map_err(map_error)?);
    }
    Ok(())
}
