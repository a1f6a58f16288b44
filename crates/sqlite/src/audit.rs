//! The audit's reads on SQLite: every figure the rules of [`allot_core::audit`] need, read on
//! the writer thread (so no write interleaves: one snapshot). Jobs are streamed row by row.

use crate::clock::now_us;
use crate::map_error;
use crate::store::SqliteStore;
use allot_core::audit::{error_attempts, Auditor, ClaimAuditRow, JobAuditRow, SkuAuditRow};
use allot_core::job::JobState;
use allot_core::{AuditReport, BookingOverlap, Result};
use rusqlite::Connection;

/// Per SKU: balances, ledger sums and what its active holds hold.
const SKU_ROWS: &str = "
WITH st AS (SELECT sku, sum(on_hand) AS on_hand, sum(held) AS held,
                   min(on_hand - held) AS min_avail, min(held) AS min_held
              FROM stock GROUP BY sku
            UNION ALL
            SELECT sku, sum(status <> 'allocated'), sum(status = 'held'),
                   sum(status = 'available'), sum(status = 'held')
              FROM units GROUP BY sku),
     hl AS (SELECT hl.sku, sum(hl.quantity) AS q FROM holds h
              JOIN hold_lines hl ON hl.hold_id = h.id WHERE h.status = 'held' GROUP BY hl.sku),
     l AS (SELECT sku, sum(delta) AS d, sum(held_delta) AS h, count(*) AS n
             FROM ledger GROUP BY sku)
SELECT s.sku, COALESCE(st.on_hand, 0), COALESCE(st.held, 0), COALESCE(st.min_avail, 0),
       COALESCE(st.min_held, 0), COALESCE(l.d, 0), COALESCE(l.h, 0), COALESCE(l.n, 0),
       COALESCE(hl.q, 0)
  FROM skus s LEFT JOIN st ON st.sku = s.sku LEFT JOIN l ON l.sku = s.sku
  LEFT JOIN hl ON hl.sku = s.sku ORDER BY s.sku";

/// Per unit claim whose units and ledger disagree: what each says (a full outer join written
/// as the union of both sides, which every SQLite version has).
const CLAIM_ROWS: &str = "
WITH u AS (SELECT sku, claim_id AS claim, sum(status = 'allocated') AS a, sum(status = 'held') AS h
             FROM units WHERE claim_id IS NOT NULL GROUP BY sku, claim_id),
     l AS (SELECT l.sku, l.ref AS claim, -sum(l.delta) AS a, sum(l.held_delta) AS h
             FROM ledger l JOIN skus s ON s.sku = l.sku AND s.tracking = 'units'
            WHERE l.ref IS NOT NULL
              AND l.kind IN ('allocation', 'hold', 'hold_confirmed', 'hold_released', 'hold_expired')
            GROUP BY l.sku, l.ref),
     k AS (SELECT sku, claim FROM u UNION SELECT sku, claim FROM l)
SELECT k.sku, k.claim, COALESCE(l.a, 0), COALESCE(l.h, 0), COALESCE(u.a, 0), COALESCE(u.h, 0)
  FROM k LEFT JOIN u ON u.sku = k.sku AND u.claim = k.claim
         LEFT JOIN l ON l.sku = k.sku AND l.claim = k.claim
 WHERE COALESCE(l.a, 0) <> COALESCE(u.a, 0) OR COALESCE(l.h, 0) <> COALESCE(u.h, 0)
 ORDER BY 1, 2";

const JOB_ROWS: &str = "
SELECT id, queue, state, attempt, max_attempts, lease_expires_at_us IS NOT NULL,
       finalized_at_us IS NOT NULL, errors
  FROM jobs ORDER BY id";

/// Blocking bookings of one resource that overlap (at most 1000 pairs).
const OVERLAPS: &str = "
SELECT a.resource, a.id, b.id FROM bookings a JOIN bookings b
    ON a.resource = b.resource AND a.id < b.id AND a.start_us < b.end_us AND b.start_us < a.end_us
 WHERE (a.status = 'confirmed' OR (a.status = 'held' AND a.expires_at_us > ?1))
   AND (b.status = 'confirmed' OR (b.status = 'held' AND b.expires_at_us > ?1))
 ORDER BY 1, 2, 3 LIMIT 1000";

/// The overlapping blocking bookings as of now.
fn overlaps(c: &Connection) -> Result<Vec<BookingOverlap>> {
    let mut s = c.prepare_cached(OVERLAPS).map_err(map_error)?;
    let rows = s
        .query_map([now_us()], |r| {
            Ok(BookingOverlap {
                resource: r.get(0)?,
                first: r.get(1)?,
                second: r.get(2)?,
            })
        })
        .map_err(map_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(map_error)
}

impl SqliteStore {
    /// Every audit rule over one snapshot (see [`allot_core::audit`]).
    pub(crate) async fn audit_snapshot(&self) -> Result<AuditReport> {
        self.call(|c| {
            let mut a = Auditor::new();
            a.skus(&sku_rows(c)?);
            claim_rows(c, &mut a)?;
            job_rows(c, &mut a)?;
            a.overlaps(overlaps(c)?);
            Ok(a.finish())
        })
        .await
    }
}

fn sku_rows(c: &Connection) -> Result<Vec<SkuAuditRow>> {
    let mut s = c.prepare_cached(SKU_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([], |r| {
            Ok(SkuAuditRow {
                sku: r.get(0)?,
                on_hand: r.get(1)?,
                held: r.get(2)?,
                min_bucket_available: r.get(3)?,
                min_bucket_held: r.get(4)?,
                ledger_delta: r.get(5)?,
                ledger_held_delta: r.get(6)?,
                ledger_entries: r.get(7)?,
                active_hold_quantity: r.get(8)?,
            })
        })
        .map_err(map_error)?;
    rows.collect::<rusqlite::Result<Vec<_>>>().map_err(map_error)
}

fn claim_rows(c: &Connection, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(CLAIM_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([], |r| {
            Ok(ClaimAuditRow {
                sku: r.get(0)?,
                claim: r.get(1)?,
                ledger_allocated: r.get(2)?,
                ledger_held: r.get(3)?,
                units_allocated: r.get(4)?,
                units_held: r.get(5)?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.claim(&r.map_err(map_error)?);
    }
    Ok(())
}

fn job_rows(c: &Connection, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(JOB_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([], |r| {
            let state: String = r.get(2)?;
            let errors: String = r.get(7)?;
            Ok(JobAuditRow {
                id: r.get(0)?,
                queue: r.get(1)?,
                state: JobState::parse(&state),
                attempt: r.get(3)?,
                max_attempts: r.get(4)?,
                leased: r.get(5)?,
                finalized: r.get(6)?,
                error_attempts: error_attempts(&serde_json::from_str(&errors).unwrap_or_default()),
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.job(&r.map_err(map_error)?);
    }
    Ok(())
}
