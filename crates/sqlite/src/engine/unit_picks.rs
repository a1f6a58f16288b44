//! Unit claims' picks, shared by the unit claims (`units/`) and the unit lines of holds
//! (`holds/`): the first free units of a SKU in a claim's order, marked with the claim's id.

use crate::engine::errors::map_error;
use crate::engine::location_rows::tracks_units;
use crate::engine::overdue::expire_overdue_on;
use crate::engine::records::unit_from_row;
use allot_core::unit::{claim_satisfied, order_by_sql};
use allot_core::{AllotError, Result, Unit, UnitClaim};
use rusqlite::{params, Connection};

/// The units a claim takes, in its order, marked `held` (a hold's) or `allocated` with the
/// claim's id: overdue holds of the SKU are finalised and the pick run again when too few
/// are free. Errors: `not_found`, `wrong_tracking`, `insufficient_stock`. The claim's
/// record is the caller's.
pub(crate) fn take_units(tx: &Connection, t: &str, req: &UnitClaim, now: i64) -> Result<Vec<Unit>> {
    match tracks_units(tx, t, &req.sku)? {
        None => return Err(AllotError::not_found("sku", &req.sku)),
        Some(false) => return Err(AllotError::wrong_tracking(&req.sku, false)),
        Some(true) => {}
    }
    let mut units = pick_units(tx, t, req, now)?;
    if (units.len() as i64) < req.quantity && expire_overdue_on(tx, t, &req.sku, now)? > 0 {
        units = pick_units(tx, t, req, now)?;
    }
    let got = units.len() as i64;
    if !claim_satisfied(got, req.quantity, req.allow_partial) {
        return Err(AllotError::InsufficientStock {
            sku: req.sku.clone(),
            requested: req.quantity,
            available: got,
        });
    }
    let status = if req.hold_ttl_ms.is_some() { "held" } else { "allocated" };
    for u in &units {
        tx.prepare_cached(
            "UPDATE units SET status = ?2, claim_id = ?3 WHERE tenant = ?4 AND id = ?1 AND status = 'available'",
        )
        .and_then(|mut s| s.execute(params![u.id, status, req.id, t]))
        .map_err(map_error)?;
    }
    Ok(units)
}

/// A pick's condition that a unit is within its best-before date at `?4` (µs): one past it
/// is never handed out.
const UNEXPIRED: &str = "(expires_at IS NULL OR expires_at > ?4)";

/// The first `quantity` available units of the claim's SKU in its `order_by` order; of a
/// claim by serials, those of its units that are available, in id order. Never a unit past
/// its best-before date at `now` (µs).
fn pick_units(tx: &Connection, tenant: &str, req: &UnitClaim, now: i64) -> Result<Vec<Unit>> {
    if !req.serials.is_empty() {
        return pick_by_serials(tx, tenant, req, now);
    }
    let select = format!(
        "SELECT id, serial, location, lot, received_at, expires_at FROM units
          WHERE tenant = ?3 AND sku = ?1 AND status = 'available' AND {UNEXPIRED} ORDER BY {} LIMIT ?2",
        order_by_sql(&req.order_by, false)
    );
    tx.prepare_cached(&select)
        .and_then(|mut s| {
            s.query_map(params![req.sku, req.quantity, tenant, now], unit_from_row)?
                .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(map_error)
}

fn pick_by_serials(tx: &Connection, tenant: &str, req: &UnitClaim, now: i64) -> Result<Vec<Unit>> {
    let serials = serde_json::to_string(&req.serials).map_err(|e| AllotError::Internal(e.to_string()))?;
    tx.prepare_cached(&format!(
        "SELECT id, serial, location, lot, received_at, expires_at FROM units
          WHERE tenant = ?3 AND sku = ?1 AND status = 'available' AND {UNEXPIRED}
            AND serial IN (SELECT value FROM json_each(?2)) ORDER BY id"
    ))
    .and_then(|mut s| {
        s.query_map(params![req.sku, serials, tenant, now], unit_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()
    })
    .map_err(map_error)
}
