//! Incoming stock and receipts on PostgreSQL (see `allot_core::receiving`). A receipt locks
//! the incoming row it names first, then the rows of its location (as an adjustment does),
//! so two receipts of one incoming take turns and the second sees what the first received.

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::location_rows::{require_counted, require_location, Entry};
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::receiving::{Incoming, Receipt};
use allot_core::store::{Executed, Idempotency};
use allot_core::Capable;
use allot_core::{AllotError, LedgerKind};

const SQL_INSERT_INCOMING: &str =
    "INSERT INTO incoming (tenant, id, sku, location, quantity, expected_at, reference, actor, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

/// The incoming `$2` of SKU `$3`, locked: its location and what is still expected of it.
const SQL_LOCK_INCOMING: &str = "SELECT location, quantity - received AS left FROM incoming
     WHERE tenant = $1 AND id = $2 AND sku = $3 FOR UPDATE";

const SQL_RECEIVED: &str = "UPDATE incoming SET received = received + $3 WHERE tenant = $1 AND id = $2";

const SQL_INSERT_RECEIPT: &str =
    "INSERT INTO receipts (tenant, id, sku, location, quantity, incoming_id, reference, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";

/// The location a receipt arrives at: its own, or (naming an incoming) the incoming's, whose
/// row is locked and takes the receipt's quantity (`exceeds_incoming` beyond what is left).
async fn settle_incoming(tx: &Transaction<'_>, tenant: &str, req: &Receipt) -> TxResult<String> {
    let Some(id) = &req.incoming_id else {
        return Ok(req.location.clone().unwrap_or_default());
    };
    let stmt = tx.prepare_cached(SQL_LOCK_INCOMING).await?;
    let row = tx
        .query_opt(&stmt, &[&tenant, &id.as_str(), &req.sku])
        .await?
        .ok_or_else(|| AllotError::not_found("incoming", id.as_str()))?;
    let left: i64 = row.get("left");
    if req.quantity > left {
        return Err(TxErr::Fail(AllotError::ExceedsIncoming {
            sku: req.sku.clone(),
            id: id.clone(),
            requested: req.quantity,
            left,
        }));
    }
    let stmt = tx.prepare_cached(SQL_RECEIVED).await?;
    tx.execute(&stmt, &[&tenant, &id.as_str(), &req.quantity]).await?;
    Ok(row.get("location"))
}

impl PgStore {
    /// One attempt of `StockStore::add_incoming`.
    pub(crate) async fn try_add_incoming(
        &self,
        tenant: &str,
        req: &Incoming,
        idem: Option<&Idempotency<Incoming>>,
    ) -> TxResult<Executed<Incoming>> {
        self.write(tenant, idem, async |tx| {
            require_counted(tx, tenant, &req.sku).await?;
            require_location(tx, tenant, &req.location).await?;
            let stmt = tx.prepare_cached(SQL_INSERT_INCOMING).await?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
                &tenant,
                &req.id,
                &req.sku,
                &req.location,
                &req.quantity,
                &req.expected_at,
                &req.reference,
                &req.actor,
                &self.now(),
            ];
            tx.execute(&stmt, &params).await?;
            Ok(req.clone())
        })
        .await
    }

    /// One attempt of `StockStore::receive`.
    pub(crate) async fn try_receive(
        &self,
        tenant: &str,
        req: &Receipt,
        idem: Option<&Idempotency<Receipt>>,
    ) -> TxResult<Executed<Receipt>> {
        self.write(tenant, idem, async |tx| {
            require_counted(tx, tenant, &req.sku).await?;
            let location = settle_incoming(tx, tenant, req).await?;
            let now = self.now();
            let entry = Entry::new(LedgerKind::Received, Some(req.id.as_str()), req.actor.as_deref(), now)
                .because(None, req.reference.as_deref());
            Self::lock_and_rebalance(tx, tenant, (req.sku.as_str(), location.as_str()), req.quantity, entry).await?;
            let stmt = tx.prepare_cached(SQL_INSERT_RECEIPT).await?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
                &tenant,
                &req.id,
                &req.sku,
                &location,
                &req.quantity,
                &req.incoming_id,
                &req.reference,
                &now,
            ];
            tx.execute(&stmt, &params).await?;
            Ok(Receipt {
                location: Some(location),
                ..req.clone()
            })
        })
        .await
    }
}
