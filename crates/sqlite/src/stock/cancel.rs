//! The way back on SQLite: cancelling an allocation, in one serialized write.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::location_rows::{lock_and_rebalance, tracks_units, Entry};
use crate::engine::records::read_allocation;
use crate::engine::store::SqliteStore;
use allot_core::store::{Executed, Keyed};
use allot_core::{Allocation, AllocationLine, AllocationStatus, AllotError, LedgerKind, Result};
use rusqlite::{params, Connection};

/// Give one line of cancelled allocation `id` back (see `StockStore::cancel_allocation`): a
/// count-tracked SKU's quantity to each location it came from (`default` for a line made
/// before locations), as an adjustment does, under the ledger kind
/// `allocation_cancelled`; a unit-tracked SKU's units of the claim become available.
fn give_back_line(c: &Connection, tenant: &str, id: &str, line: &AllocationLine, actor: Option<&str>) -> Result<()> {
    let entry = Entry::new(LedgerKind::AllocationCancelled, Some(id), actor);
    match tracks_units(c, tenant, &line.sku)? {
        None => Err(AllotError::Internal(format!(
            "allocation {id}: its sku {} is gone",
            line.sku
        ))),
        Some(false) => {
            for (location, quantity) in line.origins() {
                lock_and_rebalance(c, tenant, (&line.sku, location), quantity, entry)?;
            }
            Ok(())
        }
        Some(true) => {
            let back = c
                .prepare_cached(
                    "UPDATE units SET status = 'available', claim_id = NULL
                      WHERE tenant = ?1 AND claim_id = ?2 AND sku = ?3 AND status = 'allocated'",
                )
                .and_then(|mut s| s.execute(params![tenant, id, line.sku]))
                .map_err(map_error)?;
            c.prepare_cached(
                "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor)
                 VALUES (?1, ?2, ?3, 0, 'allocation_cancelled', ?4, ?5, ?6)",
            )
            .and_then(|mut s| s.execute(params![tenant, line.sku, back as i64, id, now_us(), actor]))
            .map_err(map_error)?;
            Ok(())
        }
    }
}

impl SqliteStore {
    /// See `StockStore::cancel_allocation`.
    pub(crate) async fn cancel(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let mut alloc = read_allocation(tx, &t, &id)?;
            if alloc.status == AllocationStatus::Cancelled {
                return Ok(alloc);
            }
            if alloc.lines.iter().any(|l| l.backordered.is_some_and(|o| o > 0)) {
                // What it still owes is dropped (the answer reads 0 owed); what it took goes back.
                super::backorders::drop_owed(tx, &t, &id)?;
                alloc = read_allocation(tx, &t, &id)?;
            }
            for line in &alloc.lines {
                give_back_line(tx, &t, &id, line, actor.as_deref())?;
            }
            tx.prepare_cached("UPDATE allocations SET status = 'cancelled' WHERE tenant = ?2 AND id = ?1")
                .and_then(|mut s| s.execute(params![id, t]))
                .map_err(map_error)?;
            alloc.status = AllocationStatus::Cancelled;
            Ok(alloc)
        })
        .await
    }
}
