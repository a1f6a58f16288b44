//! The audit's reads for the per-object rules of [`allot_core::books`] on SQLite: every
//! allocation, hold and transfer against the ledger entries that point at it, read on the
//! writer thread with the rest of the audit (one snapshot). Rows are judged one by one.

use crate::engine::errors::map_error;
use allot_core::audit::Auditor;
use allot_core::books::{AllocationAuditRow, HoldAuditRow, HoldBookingAuditRow, TransferAuditRow};
use allot_core::{AllocationStatus, HoldStatus, Result};
use rusqlite::Connection;

// Every read takes `?1`: one tenant, or NULL for all of them.

/// Per (allocation, SKU): the line's quantity and stored `returned`, what its ledger entries
/// took and gave back, and its return records (a full outer join as a union of keys).
const ALLOCATION_ROWS: &str = "
WITH al AS (SELECT a.tenant, a.id, a.status, json_extract(l.value, '$.sku') AS sku,
                   sum(json_extract(l.value, '$.quantity')) AS q,
                   sum(COALESCE(json_extract(l.value, '$.returned'), 0)) AS stored
              FROM allocations a, json_each(a.lines) l
             WHERE ?1 IS NULL OR a.tenant = ?1 GROUP BY 1, 2, 3, 4),
     lg AS (SELECT tenant, ref AS id, sku,
                   -sum(CASE WHEN kind IN ('allocation', 'hold_confirmed') THEN delta ELSE 0 END) AS out,
                   sum(CASE WHEN kind = 'allocation_cancelled' THEN delta ELSE 0 END) AS cancelled,
                   sum(CASE WHEN kind = 'returned' THEN delta ELSE 0 END) AS returned,
                   -sum(CASE WHEN kind = 'backorder_filled' THEN delta ELSE 0 END) AS fill_entries
              FROM ledger WHERE ref IS NOT NULL AND (?1 IS NULL OR tenant = ?1)
               AND kind IN ('allocation', 'hold_confirmed', 'allocation_cancelled', 'returned', 'backorder_filled')
             GROUP BY 1, 2, 3),
     bo AS (SELECT tenant, allocation_id AS id, sku, quantity, filled, cancelled,
                   (SELECT COALESCE(sum(json_extract(f.value, '$.quantity')), 0) FROM json_each(fills) f) AS listed
              FROM backorders WHERE ?1 IS NULL OR tenant = ?1),
     rt AS (SELECT tenant, allocation_id AS id, sku,
                   sum(CASE WHEN state = 'sellable' THEN quantity ELSE 0 END) AS sellable,
                   sum(CASE WHEN state = 'damaged' THEN quantity ELSE 0 END) AS damaged
              FROM returns WHERE ?1 IS NULL OR tenant = ?1 GROUP BY 1, 2, 3),
     k AS (SELECT tenant, id, sku FROM al UNION SELECT tenant, id, sku FROM lg UNION SELECT tenant, id, sku FROM rt
           UNION SELECT tenant, id, sku FROM bo)
SELECT k.tenant AS tenant, k.id AS id, k.sku AS sku, al.status AS status, COALESCE(al.q, 0) AS quantity,
       COALESCE(al.stored, 0) AS stored_returned, COALESCE(lg.out, 0) AS out,
       COALESCE(lg.cancelled, 0) AS cancelled_back, COALESCE(lg.returned, 0) AS returned_back,
       COALESCE(rt.sellable, 0) AS sellable, COALESCE(rt.damaged, 0) AS damaged,
       COALESCE(lg.fill_entries, 0) AS fill_entries, COALESCE(bo.quantity, 0) AS backordered,
       COALESCE(bo.filled, 0) AS filled, COALESCE(bo.listed, 0) AS fills_listed,
       COALESCE(bo.cancelled, 0) AS dropped, COALESCE(bo.quantity - bo.filled - bo.cancelled, 0) AS owed
  FROM k LEFT JOIN al ON al.tenant = k.tenant AND al.id = k.id AND al.sku = k.sku
         LEFT JOIN bo ON bo.tenant = k.tenant AND bo.id = k.id AND bo.sku = k.sku
         LEFT JOIN lg ON lg.tenant = k.tenant AND lg.id = k.id AND lg.sku = k.sku
         LEFT JOIN rt ON rt.tenant = k.tenant AND rt.id = k.id AND rt.sku = k.sku
 ORDER BY 1, 2, 3";

/// Per (hold, SKU): what its lines hold and what its ledger entries add up to, by kind.
const HOLD_ROWS: &str = "
WITH hl AS (SELECT h.tenant, h.id, l.sku, sum(l.quantity) AS q
              FROM holds h JOIN hold_lines l ON l.tenant = h.tenant AND l.hold_id = h.id
             WHERE ?1 IS NULL OR h.tenant = ?1 GROUP BY 1, 2, 3),
     lg AS (SELECT tenant, ref AS id, sku,
                   sum(CASE WHEN kind = 'hold' THEN held_delta ELSE 0 END) AS held,
                   -sum(CASE WHEN kind = 'hold_confirmed' THEN delta ELSE 0 END) AS confirmed,
                   -sum(CASE WHEN kind = 'hold_confirmed' THEN held_delta ELSE 0 END) AS confirmed_held,
                   -sum(CASE WHEN kind IN ('hold_released', 'hold_expired') THEN held_delta ELSE 0 END) AS released
              FROM ledger WHERE ref IS NOT NULL AND (?1 IS NULL OR tenant = ?1)
               AND kind IN ('hold', 'hold_confirmed', 'hold_released', 'hold_expired')
             GROUP BY 1, 2, 3),
     k AS (SELECT tenant, id, sku FROM hl UNION SELECT tenant, id, sku FROM lg)
SELECT k.tenant AS tenant, k.id AS id, k.sku AS sku,
       (SELECT h.status FROM holds h WHERE h.tenant = k.tenant AND h.id = k.id) AS status,
       COALESCE(hl.q, 0) AS lines, COALESCE(lg.held, 0) AS held, COALESCE(lg.confirmed, 0) AS confirmed,
       COALESCE(lg.confirmed_held, 0) AS confirmed_held, COALESCE(lg.released, 0) AS released
  FROM k LEFT JOIN hl ON hl.tenant = k.tenant AND hl.id = k.id AND hl.sku = k.sku
         LEFT JOIN lg ON lg.tenant = k.tenant AND lg.id = k.id AND lg.sku = k.sku
 ORDER BY 1, 2, 3";

/// Per booking of a hold: its status and its hold's.
const HOLD_BOOKING_ROWS: &str = "
SELECT b.tenant, b.hold_id, b.id, b.resource, b.status, h.status AS hold_status
  FROM bookings b LEFT JOIN holds h ON h.tenant = b.tenant AND h.id = b.hold_id
 WHERE b.hold_id IS NOT NULL AND (?1 IS NULL OR b.tenant = ?1) ORDER BY 1, 2, 3";

/// Per transfer: its entries, the SKUs and locations they name, and what they add up to.
const TRANSFER_ROWS: &str = "
SELECT tenant, ref AS id, min(sku) AS sku, count(*) AS entries, count(DISTINCT sku) AS skus,
       count(DISTINCT location) AS locations, sum(delta) AS delta, sum(held_delta) AS held_delta
  FROM ledger WHERE kind = 'transfer' AND (?1 IS NULL OR tenant = ?1)
 GROUP BY tenant, ref ORDER BY 1, 2";

/// Judge every allocation, hold and transfer of `tenant` (or of all).
pub(crate) fn books(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    each(c, ALLOCATION_ROWS, tenant, allocation_row, |r| a.allocation(r))?;
    each(c, HOLD_ROWS, tenant, hold_row, |r| a.hold(r))?;
    each(c, HOLD_BOOKING_ROWS, tenant, hold_booking_row, |r| a.hold_booking(r))?;
    each(c, TRANSFER_ROWS, tenant, transfer_row, |r| a.transfer(r))
}

/// Run `sql` for `tenant`, decode each row with `decode` and hand it to `judge`, one at a time.
fn each<T>(
    c: &Connection,
    sql: &str,
    tenant: Option<&str>,
    decode: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    mut judge: impl FnMut(&T),
) -> Result<()> {
    let mut s = c.prepare_cached(sql).map_err(map_error)?;
    for r in s.query_map([tenant], decode).map_err(map_error)? {
        judge(&r.map_err(map_error)?);
    }
    Ok(())
}

fn allocation_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AllocationAuditRow> {
    Ok(AllocationAuditRow {
        tenant: r.get("tenant")?,
        id: r.get("id")?,
        sku: r.get("sku")?,
        status: r
            .get::<_, Option<String>>("status")?
            .as_deref()
            .and_then(AllocationStatus::parse),
        quantity: r.get("quantity")?,
        stored_returned: r.get("stored_returned")?,
        out: r.get("out")?,
        cancelled_back: r.get("cancelled_back")?,
        returned_back: r.get("returned_back")?,
        sellable: r.get("sellable")?,
        damaged: r.get("damaged")?,
        backordered: r.get("backordered")?,
        filled: r.get("filled")?,
        fills_listed: r.get("fills_listed")?,
        fill_entries: r.get("fill_entries")?,
        dropped: r.get("dropped")?,
        owed: r.get("owed")?,
    })
}

fn hold_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<HoldAuditRow> {
    Ok(HoldAuditRow {
        tenant: r.get("tenant")?,
        id: r.get("id")?,
        sku: r.get("sku")?,
        status: r
            .get::<_, Option<String>>("status")?
            .as_deref()
            .and_then(HoldStatus::parse),
        lines: r.get("lines")?,
        held: r.get("held")?,
        confirmed: r.get("confirmed")?,
        confirmed_held: r.get("confirmed_held")?,
        released: r.get("released")?,
    })
}

fn hold_booking_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<HoldBookingAuditRow> {
    Ok(HoldBookingAuditRow {
        tenant: r.get("tenant")?,
        hold_id: r.get("hold_id")?,
        booking_id: r.get("id")?,
        resource: r.get("resource")?,
        booking: allot_core::booking::BookingStatus::parse(&r.get::<_, String>("status")?),
        hold: r
            .get::<_, Option<String>>("hold_status")?
            .as_deref()
            .and_then(HoldStatus::parse),
    })
}

fn transfer_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TransferAuditRow> {
    Ok(TransferAuditRow {
        tenant: r.get("tenant")?,
        id: r.get("id")?,
        sku: r.get("sku")?,
        entries: r.get("entries")?,
        skus: r.get("skus")?,
        locations: r.get("locations")?,
        delta: r.get("delta")?,
        held_delta: r.get("held_delta")?,
    })
}
