//! The way back on PostgreSQL: cancelling an allocation. Lock order as everywhere: the
//! allocation's row first, then stock rows in SKU order (its lines are sorted by SKU).

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::location_rows::Entry;
use crate::engine::placement::SQL_BUCKETS;
use crate::engine::records::read_allocation;
use crate::engine::store::PgStore;
use crate::engine::tx::TxResult;
use allot_core::store::{Executed, Idempotency};
use allot_core::Capable;
use allot_core::{Allocation, AllocationLine, AllocationStatus, AllotError, LedgerKind};

/// Give one line of cancelled allocation `id` back: a count-tracked SKU's quantity to each
/// location it came from (its `from`; a line made before locations came from `default`), as
/// an adjustment does (spread over that location's buckets, rows locked in bucket order)
/// under the ledger kind `allocation_cancelled`; a unit-tracked SKU's units of the claim
/// become available, with the same ledger entry.
async fn give_back_line(
    tx: &Transaction<'_>,
    tenant: &str,
    id: &str,
    line: &AllocationLine,
    (actor, at): (Option<&str>, chrono::DateTime<chrono::Utc>),
) -> TxResult<()> {
    let stmt = tx.prepare_cached(SQL_BUCKETS).await?;
    let units: bool = tx
        .query_opt(&stmt, &[&line.sku, &tenant])
        .await?
        .map(|r| r.get(1))
        .ok_or_else(|| AllotError::Internal(format!("allocation {id}: its sku {} is gone", line.sku)))?;
    let entry = Entry::new(LedgerKind::AllocationCancelled, Some(id), actor, at);
    if !units {
        // Every location it goes back to, locked first in bucket order (the global order).
        let locations: Vec<&str> = line.origins().iter().map(|o| o.0).collect();
        let stmt = tx
            .prepare_cached(
                "SELECT 1 FROM stock WHERE tenant = $2 AND sku = $1 AND location = ANY($3) ORDER BY bucket FOR UPDATE",
            )
            .await?;
        tx.query(&stmt, &[&line.sku, &tenant, &locations]).await?;
        for (location, quantity) in line.origins() {
            PgStore::lock_and_rebalance(tx, tenant, (line.sku.as_str(), location), quantity, entry).await?;
        }
        return Ok(());
    }
    let stmt = tx
        .prepare_cached(
            "WITH back AS (
                 UPDATE units SET status = 'available', claim_id = NULL
                  WHERE tenant = $1 AND claim_id = $2 AND sku = $3 AND status = 'allocated' RETURNING 1)
             INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, at)
             SELECT $1, $3, count(*), 0, 'allocation_cancelled', $2, $4, $5 FROM back",
        )
        .await?;
    tx.execute(&stmt, &[&tenant, &id, &line.sku, &actor, &at]).await?;
    Ok(())
}

/// Allocation `id` of `tenant`, its row locked (the first lock of a cancel or a return).
/// The lock is taken first and the allocation read by a second statement: under READ
/// COMMITTED a statement that waited for the lock re-checks only the locked row, while its
/// other reads keep the snapshot from before the wait (PostgreSQL docs, 13.2.1), so what came
/// back by a return that committed meanwhile is read only by a statement started after it.
pub(crate) async fn lock_allocation(tx: &Transaction<'_>, tenant: &str, id: &str) -> TxResult<Allocation> {
    let stmt = tx
        .prepare_cached("SELECT 1 FROM allocations WHERE tenant = $2 AND id = $1 FOR UPDATE")
        .await?;
    if tx.query_opt(&stmt, &[&id, &tenant]).await?.is_none() {
        return Err(AllotError::not_found("allocation", id).into());
    }
    Ok(read_allocation(tx, tenant, id).await?)
}

impl PgStore {
    /// One attempt of `StockStore::cancel_allocation`.
    pub(crate) async fn try_cancel(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<&str>,
        idem: Option<&Idempotency<Allocation>>,
    ) -> TxResult<Executed<Allocation>> {
        let now = self.now();
        self.write(tenant, idem, async |tx| {
            let mut alloc = lock_allocation(tx, tenant, id).await?;
            if alloc.status == AllocationStatus::Cancelled {
                return Ok(alloc);
            }
            // What it still owes is dropped, and what it was filled with read again under
            // the stock rows' locks: that is what goes back.
            if super::backorders::drop_owed(tx, tenant, &alloc).await? {
                alloc = read_allocation(tx, tenant, id).await?;
            }
            for line in &alloc.lines {
                give_back_line(tx, tenant, id, line, (actor, now)).await?;
            }
            let stmt = tx
                .prepare_cached("UPDATE allocations SET status = 'cancelled' WHERE tenant = $2 AND id = $1")
                .await?;
            tx.execute(&stmt, &[&id, &tenant]).await?;
            alloc.status = AllocationStatus::Cancelled;
            Ok(alloc)
        })
        .await
    }
}
