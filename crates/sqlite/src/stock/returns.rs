//! Returns on SQLite (see `allot_core::returns`), in one write transaction on the writer
//! thread.

use crate::engine::clock::{from_us, now_us};
use crate::engine::errors::map_error;
use crate::engine::location_rows::{lock_and_rebalance, tracks_units, Entry};
use crate::engine::records::read_allocation;
use crate::engine::store::SqliteStore;
use allot_core::returns::{settle_line, Return};
use allot_core::store::{Executed, Keyed};
use allot_core::{AllocationStatus, AllotError, LedgerKind, Result, ReturnLine, ReturnState, DEFAULT_LOCATION};
use rusqlite::{params, Connection};

/// Record `line` of return `r`: a sellable one back on hand at its location (a `returned`
/// ledger entry pointing at the allocation), every one in `returns`.
fn apply_line(c: &Connection, tenant: &str, r: &Return, (n, line): (usize, &ReturnLine)) -> Result<()> {
    let location = line.location.as_deref().unwrap_or(DEFAULT_LOCATION);
    if line.state == ReturnState::Sellable {
        let entry = Entry::new(LedgerKind::Returned, Some(r.allocation_id.as_str()), r.actor.as_deref())
            .because(None, r.reference.as_deref());
        lock_and_rebalance(c, tenant, (&line.sku, location), line.quantity, entry)?;
    } else {
        crate::engine::location_rows::require_location(c, tenant, location)?;
    }
    c.prepare_cached(
        "INSERT INTO returns (tenant, id, allocation_id, sku, location, state, quantity, created_at_us, line)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )
    .and_then(|mut s| {
        s.execute(params![
            tenant,
            r.id,
            r.allocation_id,
            line.sku,
            location,
            line.state.as_str(),
            line.quantity,
            r.created_at.timestamp_micros(),
            n as i64
        ])
    })
    .map_err(map_error)?;
    Ok(())
}

impl SqliteStore {
    /// `StockStore::return_allocation` on SQLite.
    pub(crate) async fn return_lines(
        &self,
        tenant: &str,
        req: Return,
        idem: Keyed<Return>,
    ) -> Result<Executed<Return>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            let mut alloc = read_allocation(tx, &t, &req.allocation_id)?;
            let mut made = req;
            made.created_at = from_us(now_us());
            let cancelled = alloc.status == AllocationStatus::Cancelled;
            for line in &mut made.lines {
                let at = alloc.lines.iter().position(|l| l.sku == line.sku);
                settle_line(line, at.map(|i| &alloc.lines[i]), cancelled)?;
                if tracks_units(tx, &t, &line.sku)? == Some(true) {
                    return Err(AllotError::wrong_tracking(&line.sku, true));
                }
                if let Some(i) = at {
                    alloc.lines[i].returned += line.quantity;
                }
            }
            for (n, line) in made.lines.iter().enumerate() {
                apply_line(tx, &t, &made, (n, line))?;
            }
            Ok(made)
        })
        .await
    }
}
