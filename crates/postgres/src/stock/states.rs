//! Moves between quantity states on PostgreSQL (see `allot_core::states`). Lock order: the
//! location's stock rows first (as an adjustment locks them, so a move out of `available`
//! races allocations exactly as an adjustment does), then its `stock_states` rows in state
//! order; two moves of one location therefore take turns and never deadlock.

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::location_rows::{require_counted, require_location, write_entry, Entry};
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::states::{Move, QuantityState};
use allot_core::store::{Executed, Idempotency};
use allot_core::Capable;
use allot_core::{AllotError, LedgerKind};

/// Take `$5` units out of state `$4` at (tenant `$1`, SKU `$2`, location `$3`), only if it
/// has them.
const SQL_TAKE_STATE: &str = "UPDATE stock_states SET quantity = quantity - $5
     WHERE tenant = $1 AND sku = $2 AND location = $3 AND state = $4 AND quantity >= $5";
const SQL_STATE: &str =
    "SELECT quantity FROM stock_states WHERE tenant = $1 AND sku = $2 AND location = $3 AND state = $4";
const SQL_PUT_STATE: &str = "INSERT INTO stock_states (tenant, sku, location, state, quantity)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant, sku, location, state) DO UPDATE SET quantity = stock_states.quantity + EXCLUDED.quantity";
const SQL_INSERT_MOVE: &str = "INSERT INTO moves (tenant, id, sku, location, from_state, to_state, quantity, reason,
                                   reference, actor, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";

/// Take the move's units out of its unsellable `from` state (`exceeds_state` when it has
/// fewer), or put them into its unsellable `to` state.
async fn apply_state(tx: &Transaction<'_>, tenant: &str, req: &Move, state: QuantityState) -> TxResult<()> {
    let key: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
        [&tenant, &req.sku, &req.location, &state.as_str(), &req.quantity];
    if state == req.to {
        let stmt = tx.prepare_cached(SQL_PUT_STATE).await?;
        tx.execute(&stmt, &key).await?;
        return Ok(());
    }
    let stmt = tx.prepare_cached(SQL_TAKE_STATE).await?;
    if tx.execute(&stmt, &key).await? == 1 {
        return Ok(());
    }
    let stmt = tx.prepare_cached(SQL_STATE).await?;
    let left = tx.query_opt(&stmt, &key[..4]).await?.map_or(0, |r| r.get::<_, i64>(0));
    Err(TxErr::Fail(AllotError::ExceedsState {
        sku: req.sku.clone(),
        state: state.as_str(),
        requested: req.quantity,
        left,
    }))
}

impl PgStore {
    /// One attempt of `StockStore::move_stock`.
    pub(crate) async fn try_move(
        &self,
        tenant: &str,
        req: &Move,
        idem: Option<&Idempotency<Move>>,
    ) -> TxResult<Executed<Move>> {
        self.write(tenant, idem, async |tx| {
            require_counted(tx, tenant, &req.sku).await?;
            require_location(tx, tenant, &req.location).await?;
            let entry = Entry::new(
                LedgerKind::Moved,
                Some(req.id.as_str()),
                req.actor.as_deref(),
                self.now(),
            )
            .because(Some(req.reason), req.reference.as_deref());
            let at = (req.sku.as_str(), req.location.as_str());
            let delta = req.sellable_delta();
            // Locks the location's rows even when the sellable part does not change.
            Self::lock_and_rebalance(tx, tenant, at, delta, entry).await?;
            if delta == 0 {
                write_entry(tx, tenant, at, 0, entry).await?;
            }
            let mut states = [req.from, req.to];
            states.sort_by_key(|s| s.as_str());
            for state in states.into_iter().filter(|s| *s != QuantityState::Available) {
                apply_state(tx, tenant, req, state).await?;
            }
            let stmt = tx.prepare_cached(SQL_INSERT_MOVE).await?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 11] = [
                &tenant,
                &req.id,
                &req.sku,
                &req.location,
                &req.from.as_str(),
                &req.to.as_str(),
                &req.quantity,
                &req.reason.as_str(),
                &req.reference,
                &req.actor,
                &entry.at,
            ];
            tx.execute(&stmt, &params).await?;
            Ok(req.clone())
        })
        .await
    }
}
