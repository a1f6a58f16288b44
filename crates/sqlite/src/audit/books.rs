//! The audit's reads for the per-object rules of [`allot_core::books`] on SQLite: every
//! allocation, hold and transfer against the ledger entries that point at it, read on the
//! writer thread with the rest of the audit (one snapshot). Rows are judged one by one.

use crate::engine::errors::map_error;
use allot_core::audit::Auditor;
use allot_core::books::{AllocationAuditRow, HoldAuditRow, TransferAuditRow};
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
                   sum(CASE WHEN kind = 'returned' THEN delta ELSE 0 END) AS returned
              FROM ledger WHERE ref IS NOT NULL AND (?1 IS NULL OR tenant = ?1)
               AND kind IN ('allocation', 'hold_confirmed', 'allocation_cancelled', 'returned')
             GROUP BY 1, 2, 3),
     rt AS (SELECT tenant, allocation_id AS id, sku,
                   sum(CASE WHEN state = 'sellable' THEN quantity ELSE 0 END) AS sellable,
                   sum(CASE WHEN state = 'damaged' THEN quantity ELSE 0 END) AS damaged
              FROM returns WHERE ?1 IS NULL OR tenant = ?1 GROUP BY 1, 2, 3),
     k AS (SELECT tenant, id, sku FROM al UNION SELECT tenant, id, sku FROM lg UNION SELECT tenant, id, sku FROM rt)
SELECT k.tenant, k.id, k.sku, al.status, COALESCE(al.q, 0), COALESCE(al.stored, 0), COALESCE(lg.out, 0),
       COALESCE(lg.cancelled, 0), COALESCE(lg.returned, 0), COALESCE(rt.sellable, 0), COALESCE(rt.damaged, 0)
  FROM k LEFT JOIN al ON al.tenant = k.tenant AND al.id = k.id AND al.sku = k.sku
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
SELECT k.tenant, k.id, k.sku, (SELECT h.status FROM holds h WHERE h.tenant = k.tenant AND h.id = k.id),
       COALESCE(hl.q, 0), COALESCE(lg.held, 0), COALESCE(lg.confirmed, 0), COALESCE(lg.confirmed_held, 0),
       COALESCE(lg.released, 0)
  FROM k LEFT JOIN hl ON hl.tenant = k.tenant AND hl.id = k.id AND hl.sku = k.sku
         LEFT JOIN lg ON lg.tenant = k.tenant AND lg.id = k.id AND lg.sku = k.sku
 ORDER BY 1, 2, 3";

/// Per transfer: its entries, the SKUs and locations they name, and what they add up to.
const TRANSFER_ROWS: &str = "
SELECT tenant, ref, min(sku), count(*), count(DISTINCT sku), count(DISTINCT location), sum(delta), sum(held_delta)
  FROM ledger WHERE kind = 'transfer' AND (?1 IS NULL OR tenant = ?1)
 GROUP BY tenant, ref ORDER BY 1, 2";

/// Judge every allocation, hold and transfer of `tenant` (or of all).
pub(crate) fn books(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(ALLOCATION_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(AllocationAuditRow {
                tenant: r.get(0)?,
                id: r.get(1)?,
                sku: r.get(2)?,
                status: r
                    .get::<_, Option<String>>(3)?
                    .as_deref()
                    .and_then(AllocationStatus::parse),
                quantity: r.get(4)?,
                stored_returned: r.get(5)?,
                out: r.get(6)?,
                cancelled_back: r.get(7)?,
                returned_back: r.get(8)?,
                sellable: r.get(9)?,
                damaged: r.get(10)?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.allocation(&r.map_err(map_error)?);
    }
    holds(c, tenant, a)?;
    let mut s = c.prepare_cached(TRANSFER_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(TransferAuditRow {
                tenant: r.get(0)?,
                id: r.get(1)?,
                sku: r.get(2)?,
                entries: r.get(3)?,
                skus: r.get(4)?,
                locations: r.get(5)?,
                delta: r.get(6)?,
                held_delta: r.get(7)?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.transfer(&r.map_err(map_error)?);
    }
    Ok(())
}

/// Judge every (hold, SKU) of `tenant` (or of all).
fn holds(c: &Connection, tenant: Option<&str>, a: &mut Auditor) -> Result<()> {
    let mut s = c.prepare_cached(HOLD_ROWS).map_err(map_error)?;
    let rows = s
        .query_map([tenant], |r| {
            Ok(HoldAuditRow {
                tenant: r.get(0)?,
                id: r.get(1)?,
                sku: r.get(2)?,
                status: r.get::<_, Option<String>>(3)?.as_deref().and_then(HoldStatus::parse),
                lines: r.get(4)?,
                held: r.get(5)?,
                confirmed: r.get(6)?,
                confirmed_held: r.get(7)?,
                released: r.get(8)?,
            })
        })
        .map_err(map_error)?;
    for r in rows {
        a.hold(&r.map_err(map_error)?);
    }
    Ok(())
}
