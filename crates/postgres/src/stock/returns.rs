//! Returns on PostgreSQL (see `allot_core::returns`). Lock order as a cancel's: the
//! allocation's row first, then, line by line in SKU order, the rows of the location a
//! sellable return goes to.

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::location_rows::Entry;
use crate::engine::placement::SQL_BUCKETS;
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::returns::{settle_line, Return};
use allot_core::store::{Executed, Idempotency};
use allot_core::Capable;
use allot_core::{AllocationStatus, AllotError, LedgerKind, ReturnLine, ReturnState, DEFAULT_LOCATION};

/// Record `line` of return `r`: a sellable one back on hand at its location (a `returned`
/// ledger entry pointing at the allocation), every one in `returns`.
async fn apply_line(tx: &Transaction<'_>, tenant: &str, r: &Return, (n, line): (i32, &ReturnLine)) -> TxResult<()> {
    let location = line.location.as_deref().unwrap_or(DEFAULT_LOCATION);
    if line.state == ReturnState::Sellable {
        let entry = Entry::new(
            LedgerKind::Returned,
            Some(r.allocation_id.as_str()),
            r.actor.as_deref(),
            r.created_at,
        )
        .because(None, r.reference.as_deref());
        let at = (line.sku.as_str(), location);
        PgStore::lock_and_rebalance(tx, tenant, at, line.quantity, entry).await?;
    } else {
        crate::engine::location_rows::require_location(tx, tenant, location).await?;
    }
    let stmt = tx
        .prepare_cached(
            "INSERT INTO returns (tenant, id, allocation_id, sku, location, state, quantity, created_at, line)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] = [
        &tenant,
        &r.id,
        &r.allocation_id,
        &line.sku,
        &location,
        &line.state.as_str(),
        &line.quantity,
        &r.created_at,
        &n,
    ];
    tx.execute(&stmt, &params).await?;
    Ok(())
}

impl PgStore {
    /// One attempt of `StockStore::return_allocation`.
    pub(crate) async fn try_return(
        &self,
        tenant: &str,
        req: &Return,
        idem: Option<&Idempotency<Return>>,
    ) -> TxResult<Executed<Return>> {
        self.write(tenant, idem, async |tx| {
            let mut alloc = super::cancel::lock_allocation(tx, tenant, &req.allocation_id).await?;
            let mut made = req.clone();
            made.created_at = self.now();
            let cancelled = alloc.status == AllocationStatus::Cancelled;
            for line in &mut made.lines {
                let at = alloc.lines.iter().position(|l| l.sku == line.sku);
                settle_line(line, at.map(|i| &alloc.lines[i]), cancelled)?;
                let stmt = tx.prepare_cached(SQL_BUCKETS).await?;
                if tx
                    .query_opt(&stmt, &[&line.sku, &tenant])
                    .await?
                    .is_some_and(|r| r.get::<_, bool>(1))
                {
                    return Err(TxErr::Fail(AllotError::wrong_tracking(&line.sku, true)));
                }
                if let Some(i) = at {
                    alloc.lines[i].returned += line.quantity;
                }
            }
            for (n, line) in made.lines.iter().enumerate() {
                apply_line(tx, tenant, &made, (n as i32, line)).await?;
            }
            Ok(made)
        })
        .await
    }
}
