//! Backorders on SQLite (`allot_core::backorder`): a short allocation line that owes what is
//! not there, the fills of owed lines when stock comes back, and a cancel's share. Every
//! write runs alone on the writer thread, so what is read is what is written.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::location_rows::require_location;
use crate::engine::placement::{take_line, take_what_there_is, Piece, Take};
use crate::engine::store::SqliteStore;
use allot_core::backorder::BackorderLevel;
use allot_core::location::Placement;
use allot_core::{AllocationRequest, AllotError, Result, Sku};
use rusqlite::{params, Connection, OptionalExtension};

/// Take every line of `req` in SKU order inside the write transaction; a line short on a SKU
/// with room to owe (its `backorder_limit` less what it owes) takes what there is and owes
/// the rest. Returns the pieces of each line and what each owes. A short line where its SKU
/// has no room (or a ranked placement): `insufficient_stock`, with what it could have.
pub(crate) fn take_lines_or_owe(
    tx: &Connection,
    tenant: &str,
    req: &AllocationRequest,
    now_us: i64,
) -> Result<(Vec<Vec<Piece>>, Vec<i64>)> {
    let mut taken = Vec::with_capacity(req.lines.len());
    let mut owes = Vec::with_capacity(req.lines.len());
    for line in &req.lines {
        match take_line(tx, tenant, req, line, Take::Allocate, now_us) {
            Ok(pieces) => {
                taken.push(pieces);
                owes.push(0);
            }
            Err(refusal @ AllotError::InsufficientStock { .. }) => {
                let level = level_of(tx, tenant, &line.sku)?;
                if matches!(req.placement, Placement::Ranked(_)) || level.limit == 0 {
                    return Err(refusal);
                }
                let (pieces, short) = take_what_there_is(tx, tenant, req, line)?;
                let pinned_nowhere = || {
                    line.location
                        .as_deref()
                        .is_some_and(|at| require_location(tx, tenant, at).is_err())
                };
                if short > 0 && (!level.has_room(short) || pinned_nowhere()) {
                    return Err(refusal);
                }
                taken.push(pieces);
                owes.push(short);
            }
            Err(e) => return Err(e),
        }
    }
    Ok((taken, owes))
}

/// A SKU's backorder limit and what it owes now.
fn level_of(tx: &Connection, tenant: &str, sku: &str) -> Result<BackorderLevel> {
    tx.prepare_cached(
        "SELECT s.backorder_limit, (SELECT COALESCE(sum(quantity - filled - cancelled), 0) FROM backorders
                                     WHERE tenant = ?1 AND sku = ?2 AND filled + cancelled < quantity)
           FROM skus s WHERE s.tenant = ?1 AND s.sku = ?2",
    )
    .and_then(|mut s| {
        s.query_row([tenant, sku], |r| {
            Ok(BackorderLevel {
                limit: r.get(0)?,
                owed: r.get(1)?,
            })
        })
        .optional()
    })
    .map_err(map_error)
    .map(Option::unwrap_or_default)
}

/// Record the owed lines of allocation `id`: `(sku, location pinned, owed)` where it owes.
pub(crate) fn record_owed(tx: &Connection, tenant: &str, id: &str, owed: &[(&str, Option<&str>, i64)]) -> Result<()> {
    for (sku, location, quantity) in owed.iter().filter(|o| o.2 > 0) {
        tx.prepare_cached(
            "INSERT INTO backorders (tenant, allocation_id, sku, location, quantity, created_at_us)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .and_then(|mut s| s.execute(params![tenant, id, sku, location, quantity, now_us()]))
        .map_err(map_error)?;
    }
    Ok(())
}

/// Before a cancel gives back allocation `id`'s lines: drop what its lines still owe.
pub(crate) fn drop_owed(tx: &Connection, tenant: &str, id: &str) -> Result<()> {
    tx.prepare_cached(
        "UPDATE backorders SET cancelled = quantity - filled
          WHERE tenant = ?1 AND allocation_id = ?2 AND filled + cancelled < quantity",
    )
    .and_then(|mut s| s.execute([tenant, id]))
    .map_err(map_error)?;
    Ok(())
}

impl SqliteStore {
    /// `StockStore::set_backorder_limit`.
    pub(crate) async fn write_backorder_limit(&self, tenant: &str, sku: &str, limit: i64) -> Result<Sku> {
        let (t, sku) = (tenant.to_string(), sku.to_string());
        self.transact(move |tx| {
            let n = tx
                .execute(
                    "UPDATE skus SET backorder_limit = ?3 WHERE tenant = ?1 AND sku = ?2 AND tracking <> 'units'",
                    params![t, sku, limit],
                )
                .map_err(map_error)?;
            let found = super::get_sku_with(tx, &t, &sku, now_us())?;
            if n == 0 {
                // Unit-tracked: a unit has a serial, it cannot be owed.
                return Err(AllotError::wrong_tracking(&found.sku, true));
            }
            Ok(found)
        })
        .await
    }
}
