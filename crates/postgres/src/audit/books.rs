//! The audit's reads for the per-object rules of [`allot_core::books`] on PostgreSQL: every
//! allocation, hold and transfer against the ledger entries that point at it, in the audit's
//! snapshot (the transaction [`crate::audit`] opened). Rows are streamed, never collected.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use allot_core::audit::Auditor;
use allot_core::books::{AllocationAuditRow, HoldAuditRow, HoldBookingAuditRow, TransferAuditRow};
use allot_core::{AllocationStatus, HoldStatus, Result};
use futures::{pin_mut, TryStreamExt};

// Every read takes `$1`: one tenant, or NULL for all of them.

/// Per (allocation, SKU): the line's quantity and stored `returned`, what its ledger entries
/// took and gave back, and its return records (either side may be missing: an entry that
/// points at no allocation is a row too).
const ALLOCATION_ROWS: &str = "
WITH al AS (SELECT a.tenant, a.id, a.status, l->>'sku' AS sku, sum((l->>'quantity')::int8)::int8 AS q,
                   sum(COALESCE((l->>'returned')::int8, 0))::int8 AS stored
              FROM allocations a CROSS JOIN LATERAL jsonb_array_elements(a.lines) l
             WHERE $1::text IS NULL OR a.tenant = $1 GROUP BY 1, 2, 3, 4),
     lg AS (SELECT tenant, ref AS id, sku,
                   COALESCE(-sum(delta) FILTER (WHERE kind IN ('allocation', 'hold_confirmed')), 0)::int8 AS out,
                   COALESCE(sum(delta) FILTER (WHERE kind = 'allocation_cancelled'), 0)::int8 AS cancelled,
                   COALESCE(sum(delta) FILTER (WHERE kind = 'returned'), 0)::int8 AS returned,
                   COALESCE(-sum(delta) FILTER (WHERE kind = 'backorder_filled'), 0)::int8 AS fill_entries
              FROM ledger WHERE ref IS NOT NULL AND ($1::text IS NULL OR tenant = $1)
               AND kind IN ('allocation', 'hold_confirmed', 'allocation_cancelled', 'returned', 'backorder_filled')
             GROUP BY 1, 2, 3),
     bo AS (SELECT tenant, allocation_id AS id, sku, quantity, filled, cancelled,
                   (SELECT COALESCE(sum((f->>'quantity')::int8), 0) FROM jsonb_array_elements(fills) f)::int8 AS listed
              FROM backorders WHERE $1::text IS NULL OR tenant = $1),
     rt AS (SELECT tenant, allocation_id AS id, sku,
                   COALESCE(sum(quantity) FILTER (WHERE state = 'sellable'), 0)::int8 AS sellable,
                   COALESCE(sum(quantity) FILTER (WHERE state = 'damaged'), 0)::int8 AS damaged
              FROM returns WHERE $1::text IS NULL OR tenant = $1 GROUP BY 1, 2, 3),
     k AS (SELECT tenant, id, sku FROM al UNION SELECT tenant, id, sku FROM lg UNION SELECT tenant, id, sku FROM rt
           UNION SELECT tenant, id, sku FROM bo)
SELECT k.tenant, k.id, k.sku, al.status, COALESCE(al.q, 0) AS quantity, COALESCE(al.stored, 0) AS stored_returned,
       COALESCE(lg.out, 0) AS out, COALESCE(lg.cancelled, 0) AS cancelled_back,
       COALESCE(lg.returned, 0) AS returned_back, COALESCE(rt.sellable, 0) AS sellable,
       COALESCE(rt.damaged, 0) AS damaged, COALESCE(lg.fill_entries, 0) AS fill_entries,
       COALESCE(bo.quantity, 0) AS backordered, COALESCE(bo.filled, 0) AS filled,
       COALESCE(bo.listed, 0) AS fills_listed, COALESCE(bo.cancelled, 0) AS dropped,
       COALESCE(bo.quantity - bo.filled - bo.cancelled, 0) AS owed
  FROM k LEFT JOIN al ON al.tenant = k.tenant AND al.id = k.id AND al.sku = k.sku
         LEFT JOIN bo ON bo.tenant = k.tenant AND bo.id = k.id AND bo.sku = k.sku
         LEFT JOIN lg ON lg.tenant = k.tenant AND lg.id = k.id AND lg.sku = k.sku
         LEFT JOIN rt ON rt.tenant = k.tenant AND rt.id = k.id AND rt.sku = k.sku
 ORDER BY 1, 2, 3";

/// Per (hold, SKU): what its lines hold and what its ledger entries add up to, by kind.
const HOLD_ROWS: &str = "
WITH hl AS (SELECT h.tenant, h.id, h.status, l.sku, sum(l.quantity)::int8 AS q
              FROM holds h LEFT JOIN hold_lines l ON l.tenant = h.tenant AND l.hold_id = h.id
             WHERE $1::text IS NULL OR h.tenant = $1 GROUP BY 1, 2, 3, 4),
     lg AS (SELECT tenant, ref AS id, sku,
                   COALESCE(sum(held_delta) FILTER (WHERE kind = 'hold'), 0)::int8 AS held,
                   COALESCE(-sum(delta) FILTER (WHERE kind = 'hold_confirmed'), 0)::int8 AS confirmed,
                   COALESCE(-sum(held_delta) FILTER (WHERE kind = 'hold_confirmed'), 0)::int8 AS confirmed_held,
                   COALESCE(-sum(held_delta) FILTER (WHERE kind IN ('hold_released', 'hold_expired')), 0)::int8 AS released
              FROM ledger WHERE ref IS NOT NULL AND ($1::text IS NULL OR tenant = $1)
               AND kind IN ('hold', 'hold_confirmed', 'hold_released', 'hold_expired')
             GROUP BY 1, 2, 3),
     k AS (SELECT tenant, id, sku FROM hl WHERE sku IS NOT NULL UNION SELECT tenant, id, sku FROM lg)
SELECT k.tenant, k.id, k.sku, (SELECT h.status FROM holds h WHERE h.tenant = k.tenant AND h.id = k.id) AS status,
       COALESCE(hl.q, 0) AS lines, COALESCE(lg.held, 0) AS held, COALESCE(lg.confirmed, 0) AS confirmed,
       COALESCE(lg.confirmed_held, 0) AS confirmed_held, COALESCE(lg.released, 0) AS released
  FROM k LEFT JOIN hl ON hl.tenant = k.tenant AND hl.id = k.id AND hl.sku = k.sku
         LEFT JOIN lg ON lg.tenant = k.tenant AND lg.id = k.id AND lg.sku = k.sku
 ORDER BY 1, 2, 3";

/// Per booking of a hold: its status and its hold's.
const HOLD_BOOKING_ROWS: &str = "
SELECT b.tenant, b.hold_id, b.id, b.resource, b.status, h.status AS hold_status
  FROM bookings b LEFT JOIN holds h ON h.tenant = b.tenant AND h.id = b.hold_id
 WHERE b.hold_id IS NOT NULL AND ($1::text IS NULL OR b.tenant = $1) ORDER BY 1, 2, 3";

/// Per transfer: its entries, the SKUs and locations they name, and what they add up to.
const TRANSFER_ROWS: &str = "
SELECT tenant, ref AS id, min(sku) AS sku, count(*)::int8 AS entries, count(DISTINCT sku)::int8 AS skus,
       count(DISTINCT location)::int8 AS locations, sum(delta)::int8 AS delta, sum(held_delta)::int8 AS held_delta
  FROM ledger WHERE kind = 'transfer' AND ($1::text IS NULL OR tenant = $1)
 GROUP BY tenant, ref ORDER BY 1, 2";

/// The per-object rules' reads ([`allot_core::books`]), streamed, in the audit's snapshot.
pub(crate) async fn books(tx: &crate::engine::conn::Tx<'_>, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let rows = tx.query_raw(ALLOCATION_ROWS, &[&tenant]).await.map_err(map_error)?;
    pin_mut!(rows);
    while let Some(r) = rows.try_next().await.map_err(map_error)? {
        a.allocation(&AllocationAuditRow {
            tenant: r.get("tenant"),
            id: r.get("id"),
            sku: r.get("sku"),
            status: r.get::<_, Option<&str>>("status").and_then(AllocationStatus::parse),
            quantity: r.get("quantity"),
            stored_returned: r.get("stored_returned"),
            out: r.get("out"),
            cancelled_back: r.get("cancelled_back"),
            returned_back: r.get("returned_back"),
            sellable: r.get("sellable"),
            damaged: r.get("damaged"),
            backordered: r.get("backordered"),
            filled: r.get("filled"),
            fills_listed: r.get("fills_listed"),
            fill_entries: r.get("fill_entries"),
            dropped: r.get("dropped"),
            owed: r.get("owed"),
        });
    }
    let rows = tx.query_raw(HOLD_ROWS, &[&tenant]).await.map_err(map_error)?;
    pin_mut!(rows);
    while let Some(r) = rows.try_next().await.map_err(map_error)? {
        a.hold(&HoldAuditRow {
            tenant: r.get("tenant"),
            id: r.get("id"),
            sku: r.get("sku"),
            status: r.get::<_, Option<&str>>("status").and_then(HoldStatus::parse),
            lines: r.get("lines"),
            held: r.get("held"),
            confirmed: r.get("confirmed"),
            confirmed_held: r.get("confirmed_held"),
            released: r.get("released"),
        });
    }
    let rows = tx.query_raw(HOLD_BOOKING_ROWS, &[&tenant]).await.map_err(map_error)?;
    pin_mut!(rows);
    while let Some(r) = rows.try_next().await.map_err(map_error)? {
        a.hold_booking(&HoldBookingAuditRow {
            tenant: r.get("tenant"),
            hold_id: r.get("hold_id"),
            booking_id: r.get("id"),
            resource: r.get("resource"),
            booking: allot_core::booking::BookingStatus::parse(r.get("status")),
            hold: r.get::<_, Option<&str>>("hold_status").and_then(HoldStatus::parse),
        });
    }
    for r in tx.query(TRANSFER_ROWS, &[&tenant]).await.map_err(map_error)? {
        a.transfer(&TransferAuditRow {
            tenant: r.get("tenant"),
            id: r.get("id"),
            sku: r.get("sku"),
            entries: r.get("entries"),
            skus: r.get("skus"),
            locations: r.get("locations"),
            delta: r.get("delta"),
            held_delta: r.get("held_delta"),
        });
    }
    Ok(())
}
