//! Moves between quantity states on SQLite (see `allot_core::states`), each in one write
//! transaction on the writer thread: the sellable rows change as an adjustment's do, the
//! unsellable counts beside them, with one `moved` ledger entry and the move's row.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::location_rows::{lock_and_rebalance, require_counted, require_location, write_entry, Entry};
use crate::engine::store::SqliteStore;
use allot_core::states::{Move, QuantityState};
use allot_core::store::{Executed, Keyed};
use allot_core::{AllotError, LedgerKind, Result};
use rusqlite::{params, Connection, OptionalExtension};

/// Take the move's units out of its unsellable `from` state (`exceeds_state` when it has
/// fewer), or put them into its unsellable `to` state.
fn apply_state(c: &Connection, tenant: &str, req: &Move, state: QuantityState) -> Result<()> {
    let key = params![tenant, req.sku, req.location, state.as_str(), req.quantity];
    if state == req.to {
        c.prepare_cached(
            "INSERT INTO stock_states (tenant, sku, location, state, quantity) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (tenant, sku, location, state) DO UPDATE SET quantity = quantity + excluded.quantity",
        )
        .and_then(|mut s| s.execute(key))
        .map_err(map_error)?;
        return Ok(());
    }
    let taken = c
        .prepare_cached(
            "UPDATE stock_states SET quantity = quantity - ?5
              WHERE tenant = ?1 AND sku = ?2 AND location = ?3 AND state = ?4 AND quantity >= ?5",
        )
        .and_then(|mut s| s.execute(key))
        .map_err(map_error)?;
    if taken == 1 {
        return Ok(());
    }
    let left: Option<i64> = c
        .prepare_cached(
            "SELECT quantity FROM stock_states WHERE tenant = ?1 AND sku = ?2 AND location = ?3 AND state = ?4",
        )
        .and_then(|mut s| {
            s.query_row(params![tenant, req.sku, req.location, state.as_str()], |r| r.get(0))
                .optional()
        })
        .map_err(map_error)?;
    Err(AllotError::ExceedsState {
        sku: req.sku.clone(),
        state: state.as_str(),
        requested: req.quantity,
        left: left.unwrap_or(0),
    })
}

impl SqliteStore {
    /// `StockStore::move_stock` on SQLite.
    pub(crate) async fn move_rows(&self, tenant: &str, req: Move, idem: Keyed<Move>) -> Result<Executed<Move>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            require_counted(tx, &t, &req.sku)?;
            require_location(tx, &t, &req.location)?;
            let entry = Entry::new(LedgerKind::Moved, Some(req.id.as_str()), req.actor.as_deref())
                .because(Some(req.reason), req.reference.as_deref());
            let at = (req.sku.as_str(), req.location.as_str());
            let delta = req.sellable_delta();
            if delta == 0 {
                write_entry(tx, &t, at, 0, entry)?;
            } else {
                lock_and_rebalance(tx, &t, at, delta, entry)?;
            }
            for state in [req.from, req.to] {
                if state != QuantityState::Available {
                    apply_state(tx, &t, &req, state)?;
                }
            }
            tx.execute(
                "INSERT INTO moves (tenant, id, sku, location, from_state, to_state, quantity, reason, reference,
                                    actor, created_at_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    t,
                    req.id,
                    req.sku,
                    req.location,
                    req.from.as_str(),
                    req.to.as_str(),
                    req.quantity,
                    req.reason.as_str(),
                    req.reference,
                    req.actor,
                    now_us()
                ],
            )
            .map_err(map_error)?;
            Ok(req)
        })
        .await
    }
}
