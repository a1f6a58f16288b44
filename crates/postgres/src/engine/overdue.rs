//! Holds past their expiry, finished by whoever meets them first: the sweeper
//! (`expire_holds`), or a writer that found a SKU short while such holds held it (the
//! envelope's short-line retry, unit claims, the `batched` lane). Finishing a hold gives its
//! stock back (or, for a confirm, takes it out of `on_hand`), returns or allocates its units,
//! and writes its ledger entries.

use super::store::PgStore;
use super::tx::TxResult;
use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use allot_core::hold::HoldStatus;
use allot_core::store::Executed;
use allot_core::Result;
use chrono::{DateTime, Utc};

/// Finish holds that the caller has locked and found `held`: mark them `to`, give their
/// stock back to its buckets (or, for `confirmed`, take it out of `on_hand` too), return or
/// allocate their units, and write one ledger entry per line. Conditional on
/// `status = 'held'`, so each hold is finished exactly once. One round trip: the work is
/// `allot_finish_holds` (V34), the function the caller's-transaction confirm runs too.
pub(crate) async fn finish_holds(
    tx: &Transaction<'_>,
    tenant: &str,
    ids: &[String],
    to: HoldStatus,
    now: DateTime<Utc>,
    actor: Option<&str>,
) -> TxResult<u64> {
    if ids.is_empty() {
        return Ok(0);
    }
    let stmt = tx
        .prepare_cached("SELECT cardinality(allot_finish_holds($1, $2, $3, $4, $5, $6))")
        .await?;
    let kind = to.ledger_kind();
    let done: i32 = tx
        .query_one(&stmt, &[&tenant, &ids, &to.as_str(), &now, &actor, &kind.as_str()])
        .await?
        .get(0);
    Ok(done.max(0) as u64)
}

/// Overdue holds of tenant `$4` on `$1` as of `$2`, at most `$3`, locked (waiting for holds
/// another transaction is finishing); (tenant, id).
const SQL_OVERDUE_ON_SKU: &str = "SELECT h.tenant, h.id FROM holds h
  WHERE h.tenant = $4 AND h.status = 'held' AND h.expires_at <= $2
    AND EXISTS (SELECT 1 FROM hold_lines hl WHERE hl.tenant = h.tenant AND hl.hold_id = h.id AND hl.sku = $1)
  ORDER BY h.id LIMIT $3 FOR UPDATE OF h";
/// Finish, in `tx`, the overdue holds of `tenant` that hold `sku` as of `now` (at most
/// `batch`), waiting for those another transaction is finishing. How many were finished.
/// The caller's-transaction path ([`PgStore::write_in`]) runs it in its own savepoint.
pub(crate) async fn expire_on_sku(
    tx: &Transaction<'_>,
    tenant: &str,
    sku: &str,
    now: DateTime<Utc>,
    batch: i64,
) -> TxResult<u64> {
    let stmt = tx.prepare_cached(SQL_OVERDUE_ON_SKU).await?;
    let ids: Vec<String> = tx
        .query(&stmt, &[&sku, &now, &batch, &tenant])
        .await?
        .iter()
        .map(|r| r.get("id"))
        .collect();
    finish_holds(tx, tenant, &ids, HoldStatus::Expired, now, None).await
}

/// Overdue holds of every tenant as of `$1`, at most `$2`, skipping those another
/// transaction has locked; (tenant, id).
pub(crate) const SQL_OVERDUE: &str = "SELECT tenant, id FROM holds WHERE status = 'held' AND expires_at <= $1
  ORDER BY tenant, id LIMIT $2 FOR UPDATE SKIP LOCKED";

impl PgStore {
    /// One transaction: the holds `select` (with `params`) picks and locks as (tenant, id),
    /// finished as expired at `now`, tenant by tenant. How many were finished.
    pub(crate) async fn expire_selected(
        &self,
        select: &'static str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
        now: DateTime<Utc>,
    ) -> TxResult<u64> {
        let done = self
            .write(allot_core::access::DEFAULT_TENANT, None, async |tx| {
                let stmt = tx.prepare_cached(select).await?;
                let mut by_tenant: std::collections::BTreeMap<String, Vec<String>> = Default::default();
                for r in tx.query(&stmt, params).await? {
                    by_tenant.entry(r.get("tenant")).or_default().push(r.get("id"));
                }
                let mut n = 0;
                for (tenant, ids) in &by_tenant {
                    n += finish_holds(tx, tenant, ids, HoldStatus::Expired, now, None).await?;
                }
                Ok(n)
            })
            .await?;
        match done {
            Executed::Fresh(n) => Ok(n),
            Executed::Replayed(_) => unreachable!("no idempotency key"),
        }
    }

    /// Finalise the overdue holds that hold `sku` (at most `hold_sweep_batch`). Called by a
    /// writer that found the SKU short while such holds existed. Waits for holds that another
    /// transaction is finishing, so after it returns they are finished one way or the other.
    /// Boxed, with `Send` declared: it runs under [`PgStore::retry_plain`], and the retry
    /// policy calls it, so its future's type must not contain itself.
    pub(crate) fn expire_overdue_on<'a>(
        &'a self,
        tenant: &'a str,
        sku: &'a str,
        now: DateTime<Utc>,
    ) -> futures::future::BoxFuture<'a, Result<u64>> {
        Box::pin(async move {
            let batch = i64::from(self.limits.hold_sweep_batch.max(1));
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [&sku, &now, &batch, &tenant];
            self.retry_plain(|| self.expire_selected(SQL_OVERDUE_ON_SKU, &params, now))
                .await
        })
    }
}
