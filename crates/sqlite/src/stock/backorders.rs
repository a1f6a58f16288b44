//! Backorders on SQLite (`allot_core::backorder`): a short allocation line that owes what is
//! not there, the fills of owed lines when stock comes back, and a cancel's share. Every
//! write runs alone on the writer thread, so what is read is what is written.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::location_rows::require_location;
use crate::engine::placement::{take_line, take_what_there_is, Piece, Take};
use crate::engine::store::SqliteStore;
use allot_core::backorder::{plan_fills, BackorderLevel};
use allot_core::location::Placement;
use allot_core::{plan_rebalance, AllocationRequest, AllotError, BucketCounts, Result, Sku};
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

/// Fill the owed lines of `sku` that may use `location` from what is available there now,
/// oldest first (the writer brought stock back there): the stock taken, each fill on its
/// line and one `backorder_filled` ledger entry each, by `actor`.
pub(crate) fn fill_backorders(
    tx: &Connection,
    tenant: &str,
    (sku, location): (&str, &str),
    actor: Option<&str>,
) -> Result<()> {
    let owed: Vec<(String, i64)> = tx
        .prepare_cached(
            "SELECT allocation_id, quantity - filled - cancelled FROM backorders
              WHERE tenant = ?1 AND sku = ?2 AND filled + cancelled < quantity AND (location IS NULL OR location = ?3)
              ORDER BY rid",
        )
        .and_then(|mut s| {
            s.query_map([tenant, sku, location], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(map_error)?;
    if owed.is_empty() {
        return Ok(());
    }
    let counts = crate::engine::location_rows::bucket_counts(tx, tenant, sku, location)?;
    let available: i64 = counts.iter().map(|c: &BucketCounts| c.on_hand - c.held).sum();
    let fills = plan_fills(&owed.iter().map(|o| o.1).collect::<Vec<_>>(), available);
    let total: i64 = fills.iter().sum();
    if total == 0 {
        return Ok(());
    }
    for (b, d) in plan_rebalance(sku, &counts, -total)? {
        tx.prepare_cached(
            "UPDATE stock SET on_hand = on_hand + ?3, version = version + 1 WHERE tenant = ?4 AND sku = ?1 AND bucket = ?2",
        )
        .and_then(|mut s| s.execute(params![sku, b, d, tenant]))
        .map_err(map_error)?;
    }
    for ((id, _), f) in owed.iter().zip(fills).filter(|(_, f)| *f > 0) {
        tx.prepare_cached(
            "UPDATE backorders SET filled = filled + ?4,
                    fills = json_insert(fills, '$[#]', json_object('location', ?3, 'quantity', ?4))
              WHERE tenant = ?1 AND allocation_id = ?2 AND sku = ?5",
        )
        .and_then(|mut s| s.execute(params![tenant, id, location, f, sku]))
        .map_err(map_error)?;
        tx.prepare_cached(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
             VALUES (?1, ?2, ?3, 0, 'backorder_filled', ?4, ?5, ?6, ?7)",
        )
        .and_then(|mut s| s.execute(params![tenant, sku, -f, id, now_us(), actor, location]))
        .map_err(map_error)?;
    }
    Ok(())
}

/// The (SKU, location) of each stock piece of the holds `ids` of `tenant` whose SKU owes
/// anything: where what a release or an expiry gave back may fill.
pub(crate) fn released_at(tx: &Connection, tenant: &str, ids: &[&str]) -> Result<Vec<(String, String)>> {
    let mut at = Vec::new();
    for id in ids {
        let rows: Vec<(String, String)> = tx
            .prepare_cached(
                "SELECT hl.sku, st.location FROM hold_lines hl
                   JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
                  WHERE hl.tenant = ?1 AND hl.hold_id = ?2 AND hl.bucket >= 0
                    AND EXISTS (SELECT 1 FROM backorders b WHERE b.tenant = ?1 AND b.sku = hl.sku
                                   AND b.filled + b.cancelled < b.quantity)",
            )
            .and_then(|mut s| s.query_map([tenant, id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .map_err(map_error)?;
        at.extend(rows);
    }
    Ok(at)
}

/// Fill what the SKUs owe at each (SKU, location) of `at` (stock a hold gave back there), in
/// byte order of SKU then location, each pair once: the order PostgreSQL's
/// `allot_fill_backorders` (V48) and the model fill in.
pub(crate) fn fill_after_holds(
    tx: &Connection,
    tenant: &str,
    at: Vec<(String, String)>,
    actor: Option<&str>,
) -> Result<()> {
    let at: std::collections::BTreeSet<(String, String)> = at.into_iter().collect();
    for (sku, location) in &at {
        fill_backorders(tx, tenant, (sku, location), actor)?;
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
