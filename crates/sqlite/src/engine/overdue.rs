//! Finishing holds on SQLite (confirm, release, expiry): each hold once, its quantity back to
//! the buckets it took (or out of `on_hand` when confirmed), its units returned or allocated,
//! one ledger entry per line. Used by the hold writes, by writers that find a SKU short while
//! overdue holds still count on it, and by the sweeper.

use crate::engine::errors::map_error;
use allot_core::hold::HoldStatus;
use allot_core::Result;
use rusqlite::{params, Connection};

/// Finish `held` holds: mark them `to`, give stock back to its buckets (or take it out of
/// `on_hand` too when confirming), return or allocate their units, one ledger entry per
/// line. Conditional on `status = 'held'`: each hold is finished once.
pub(crate) fn finish_holds(
    c: &Connection,
    tenant: &str,
    ids: &[String],
    to: HoldStatus,
    now_us: i64,
    actor: Option<&str>,
) -> Result<u64> {
    let confirm = to == HoldStatus::Confirmed;
    let mut done = 0;
    let mut finished = Vec::new();
    for id in ids {
        let n = c
            .prepare_cached(
                "UPDATE holds SET status = ?2, finished_at_us = ?3 WHERE tenant = ?4 AND id = ?1 AND status = 'held'",
            )
            .and_then(|mut s| s.execute(params![id, to.as_str(), now_us, tenant]))
            .map_err(map_error)?;
        if n == 0 {
            continue;
        }
        done += 1;
        finished.push(id.as_str());
        c.prepare_cached(
            "UPDATE stock SET held = held - (SELECT quantity FROM hold_lines hl
                                            WHERE hl.tenant = ?3 AND hl.hold_id = ?1 AND hl.sku = stock.sku
                                              AND hl.bucket = stock.bucket),
                    on_hand = on_hand - CASE WHEN ?2 THEN (SELECT quantity FROM hold_lines hl
                                            WHERE hl.tenant = ?3 AND hl.hold_id = ?1 AND hl.sku = stock.sku
                                              AND hl.bucket = stock.bucket) ELSE 0 END,
                    version = version + 1
              WHERE tenant = ?3
                AND (sku, bucket) IN (SELECT sku, bucket FROM hold_lines WHERE tenant = ?3 AND hold_id = ?1 AND bucket >= 0)",
        )
        .and_then(|mut s| s.execute(params![id, confirm, tenant]))
        .map_err(map_error)?;
        c.prepare_cached(
            "UPDATE units SET status = CASE WHEN ?2 THEN 'allocated' ELSE 'available' END,
                    claim_id = CASE WHEN ?2 THEN claim_id END
              WHERE tenant = ?3 AND claim_id = ?1 AND status = 'held'",
        )
        .and_then(|mut s| s.execute(params![id, confirm, tenant]))
        .map_err(map_error)?;
        // Its booking lines take its status (the names are the same), the events by trigger.
        c.prepare_cached(
            "UPDATE bookings SET status = ?2, status_at_us = ?3,
                    expires_at_us = CASE WHEN ?2 = 'confirmed' THEN NULL ELSE expires_at_us END
              WHERE tenant = ?4 AND hold_id = ?1 AND status = 'held'",
        )
        .and_then(|mut s| s.execute(params![id, to.as_str(), now_us, tenant]))
        .map_err(map_error)?;
        c.prepare_cached(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
             SELECT hl.tenant, hl.sku, CASE WHEN ?2 THEN -hl.quantity ELSE 0 END, -hl.quantity, ?3, hl.hold_id, ?4, ?5,
                    st.location
               FROM hold_lines hl
               LEFT JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
              WHERE hl.tenant = ?6 AND hl.hold_id = ?1 ORDER BY hl.sku, hl.bucket",
        )
        .and_then(|mut s| s.execute(params![id, confirm, to.ledger_kind().as_str(), now_us, actor, tenant]))
        .map_err(map_error)?;
        let key = crate::engine::records::HoldKey { tenant, id };
        crate::engine::records::hold_event(c, key, to.event_type(), now_us)?;
    }
    if !confirm && !finished.is_empty() {
        // What they gave back fills what their SKUs owe there.
        let at = crate::engine::fills::released_at(c, tenant, &finished)?;
        crate::engine::fills::fill_after_holds(c, tenant, at, actor)?;
    }
    Ok(done)
}

/// A group of overdue holds one call finished: (tenant, ids, at µs).
pub(crate) type Overdue = (String, Vec<String>, i64);

thread_local! {
    /// The overdue holds finished as expired by the write running on this (the writer)
    /// thread, a group per call that finished them, with the instant they were finished at
    /// (a group is finished again together: what it gave back fills once, in one order, as
    /// on PostgreSQL, whose writers finish each group in a transaction of their own):
    /// [`SqliteStore::transact`] finishes
    /// them again in a transaction of their own when the write rolls back, so an expired
    /// hold a refused request met is finished for good, as PostgreSQL finishes it in a
    /// transaction of its own (a mixed hold's units rejoin the claims' order either way).
    static FINISHED_OVERDUE: std::cell::RefCell<Vec<Overdue>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Forget the overdue holds noted so far on this thread (a write begins).
pub(crate) fn forget_finished_overdue() {
    FINISHED_OVERDUE.with_borrow_mut(Vec::clear);
}

/// The overdue holds noted on this thread since [`forget_finished_overdue`]:
/// a group per call that finished them.
pub(crate) fn take_finished_overdue() -> Vec<Overdue> {
    FINISHED_OVERDUE.with_borrow_mut(std::mem::take)
}

/// Finish `overdue` (from [`take_finished_overdue`]) as expired, each group at its own
/// instant: those another write finished since are left as they are.
pub(crate) fn finish_again(c: &Connection, overdue: &[Overdue]) -> Result<u64> {
    let mut n = 0;
    for (tenant, ids, at) in overdue {
        n += finish_holds(c, tenant, ids, HoldStatus::Expired, *at, None)?;
    }
    Ok(n)
}

/// Finish the overdue holds that hold `sku` of `tenant`, inside the caller's transaction
/// (noted: see [`FINISHED_OVERDUE`]).
pub(crate) fn expire_overdue_on(c: &Connection, tenant: &str, sku: &str, now_us: i64) -> Result<u64> {
    let ids: Vec<String> = c
        .prepare_cached(
            "SELECT h.id FROM holds h WHERE h.tenant = ?3 AND h.status = 'held' AND h.expires_at_us <= ?2
                AND EXISTS (SELECT 1 FROM hold_lines hl WHERE hl.tenant = h.tenant AND hl.hold_id = h.id AND hl.sku = ?1)
              ORDER BY h.id",
        )
        .and_then(|mut s| s.query_map(params![sku, now_us, tenant], |r| r.get(0))?.collect())
        .map_err(map_error)?;
    if !ids.is_empty() {
        FINISHED_OVERDUE.with_borrow_mut(|f| f.push((tenant.to_string(), ids.clone(), now_us)));
    }
    finish_holds(c, tenant, &ids, HoldStatus::Expired, now_us, None)
}
