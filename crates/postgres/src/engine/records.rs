//! Records more than one domain reads: an allocation (made by allocations, hold confirms and
//! unit claims; read back by cancels and returns) and a unit's columns (unit claims, unit
//! holds, unit listings).

use super::errors::map_error;
use crate::engine::conn::Db;
use allot_core::{Allocation, AllocationLine, AllocationStatus, AllotError, Result, TakenWith, Unit};

/// The columns [`allocation_of`] reads, from `allocations a`: id, status, strategy, lines,
/// created_at and, per SKU, what its return records add up to (`[[sku, quantity], …]` or
/// NULL), so what came back is derived from the facts when the allocation is read; and its
/// owed lines with their fills (`allot_core::backorder`), likewise.
macro_rules! allocation_select {
    () => {
        "SELECT a.id, a.status, a.strategy, a.lines, a.created_at,
                (SELECT jsonb_agg(jsonb_build_array(r.sku, r.q)) FROM
                   (SELECT sku, sum(quantity)::int8 AS q FROM returns
                     WHERE tenant = a.tenant AND allocation_id = a.id GROUP BY sku) r) AS returned,
                (SELECT jsonb_agg(jsonb_build_object('allocation_id', b.allocation_id, 'sku', b.sku,
                        'quantity', b.quantity, 'fills', b.fills, 'cancelled', b.cancelled))
                   FROM backorders b WHERE b.tenant = a.tenant AND b.allocation_id = a.id) AS backorders
           FROM allocations a"
    };
}
pub(crate) use allocation_select;

/// The head of every INSERT of an allocation record (the single-statement allocation, the
/// envelope's, `batched`'s, a unit claim's, a hold's confirm): one column list, so the
/// record is written the same way everywhere ([`allocation_of`] reads it back).
macro_rules! insert_allocation {
    () => {
        "INSERT INTO allocations (tenant, id, status, strategy, lines, created_at)"
    };
}
pub(crate) use insert_allocation;

/// One allocation `$1` of tenant `$5`, `allocated`, with strategy `$2`, lines `$3` (JSON,
/// with `from`) at `$4`.
pub(crate) const SQL_INSERT_ALLOCATION: &str =
    concat!(insert_allocation!(), " VALUES ($5, $1, 'allocated', $2, $3, $4)");

/// An allocation from the columns of [`allocation_select`]. A row that cannot be decoded is
/// an `Internal` error for this request, never a panic.
pub(crate) fn allocation_of(row: &tokio_postgres::Row) -> Result<Allocation> {
    let bad = |what: &str| AllotError::Internal(format!("an allocation with an unreadable {what}"));
    let lines: serde_json::Value = row.try_get("lines").map_err(|_| bad("lines"))?;
    let returned: Option<serde_json::Value> = row.try_get("returned").map_err(|_| bad("returns"))?;
    let returned: Vec<(String, i64)> = match returned {
        Some(v) => serde_json::from_value(v).map_err(|_| bad("returns"))?,
        None => Vec::new(),
    };
    let mut lines: Vec<AllocationLine> = serde_json::from_value(lines).map_err(|_| bad("lines"))?;
    allot_core::returns::derive_returned(&mut lines, &returned);
    let backorders: Option<serde_json::Value> = row.try_get("backorders").map_err(|_| bad("backorders"))?;
    if let Some(v) = backorders {
        let owed: Vec<allot_core::backorder::Backorder> = serde_json::from_value(v).map_err(|_| bad("backorders"))?;
        allot_core::backorder::derive_backorders(&mut lines, &owed)?;
    }
    Ok(Allocation {
        id: row.try_get("id").map_err(|_| bad("id"))?,
        status: AllocationStatus::parse(row.try_get("status").map_err(|_| bad("status"))?)
            .ok_or_else(|| bad("status"))?,
        strategy: TakenWith::parse(row.try_get("strategy").map_err(|_| bad("strategy"))?)
            .ok_or_else(|| bad("strategy"))?,
        lines,
        created_at: row.try_get("created_at").map_err(|_| bad("created_at"))?,
    })
}

/// Read an allocation of `tenant` by id.
pub(crate) async fn read_allocation<C: Db>(c: &C, tenant: &str, id: &str) -> Result<Allocation> {
    let stmt = c
        .prepare_cached(concat!(allocation_select!(), " WHERE a.tenant = $2 AND a.id = $1"))
        .await
        .map_err(map_error)?;
    let row = c
        .query_opt(&stmt, &[&id, &tenant])
        .await
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("allocation", id))?;
    allocation_of(&row)
}

/// A unit from its columns, by name (id, serial, location, lot, received_at, expires_at).
pub(crate) fn unit_of(r: &tokio_postgres::Row) -> Unit {
    Unit {
        id: r.get("id"),
        serial: r.get("serial"),
        location: r.get("location"),
        lot: r.get("lot"),
        received_at: r.get("received_at"),
        expires_at: r.get("expires_at"),
    }
}

/// The units of `rows` (rows without a unit id are skipped).
pub(crate) fn unit_rows(rows: &[tokio_postgres::Row]) -> Vec<Unit> {
    rows.iter()
        .filter(|r| r.get::<_, Option<i64>>("id").is_some())
        .map(unit_of)
        .collect()
}
