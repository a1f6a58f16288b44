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
/// `status = 'held'`, so each hold is finished exactly once.
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
        .prepare_cached(
            "UPDATE holds SET status = $2, finished_at = $3
              WHERE tenant = $4 AND id = ANY($1) AND status = 'held' RETURNING id",
        )
        .await?;
    let done: Vec<String> = tx
        .query(&stmt, &[&ids, &to.as_str(), &now, &tenant])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if done.is_empty() {
        return Ok(0);
    }
    let confirm = to == HoldStatus::Confirmed;
    give_back_stock(tx, tenant, &done, confirm).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE units SET status = CASE WHEN $2 THEN 'allocated' ELSE 'available' END,
                    claim_id = CASE WHEN $2 THEN claim_id END
              WHERE tenant = $3 AND claim_id = ANY($1) AND status = 'held'",
        )
        .await?;
    tx.execute(&stmt, &[&done, &confirm, &tenant]).await?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
             SELECT hl.tenant, hl.sku, CASE WHEN $2 THEN -hl.quantity ELSE 0 END, -hl.quantity, $3, hl.hold_id, $4,
                    st.location, $6
               FROM hold_lines hl
               LEFT JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
              WHERE hl.tenant = $5 AND hl.hold_id = ANY($1) ORDER BY hl.hold_id, hl.sku, hl.bucket",
        )
        .await?;
    tx.execute(
        &stmt,
        &[&done, &confirm, &to.ledger_kind().as_str(), &actor, &tenant, &now],
    )
    .await?;
    Ok(done.len() as u64)
}

/// The stock side of finishing the holds `done`: their quantity leaves `held` in the
/// buckets they took (and, when `confirm`, leaves `on_hand` too), rows locked in (sku, bucket)
/// order first.
async fn give_back_stock(tx: &Transaction<'_>, tenant: &str, done: &[String], confirm: bool) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "SELECT sku, bucket, sum(quantity)::int8 AS quantity FROM hold_lines
              WHERE tenant = $2 AND hold_id = ANY($1) AND bucket >= 0 GROUP BY sku, bucket ORDER BY sku, bucket",
        )
        .await?;
    let lines = tx.query(&stmt, &[&done, &tenant]).await?;
    if lines.is_empty() {
        return Ok(());
    }
    let skus: Vec<String> = lines.iter().map(|r| r.get("sku")).collect();
    let buckets: Vec<i32> = lines.iter().map(|r| r.get("bucket")).collect();
    let qs: Vec<i64> = lines.iter().map(|r| r.get("quantity")).collect();
    // Lock in (sku, bucket) order first: UPDATE … FROM does not promise an order.
    let stmt = tx
        .prepare_cached(
            "SELECT 1 FROM stock s JOIN unnest($1::text[], $2::int4[]) AS d(sku, bucket)
                 ON s.tenant = $3 AND s.sku = d.sku AND s.bucket = d.bucket
              ORDER BY s.sku, s.bucket FOR UPDATE OF s",
        )
        .await?;
    tx.query(&stmt, &[&skus, &buckets, &tenant]).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE stock s SET held = s.held - d.q,
                    on_hand = s.on_hand - CASE WHEN $4 THEN d.q ELSE 0 END,
                    version = s.version + 1
               FROM unnest($1::text[], $2::int4[], $3::int8[]) AS d(sku, bucket, q)
              WHERE s.tenant = $5 AND s.sku = d.sku AND s.bucket = d.bucket",
        )
        .await?;
    tx.execute(&stmt, &[&skus, &buckets, &qs, &confirm, &tenant]).await?;
    Ok(())
}

/// Overdue holds of tenant `$4` on `$1` as of `$2`, at most `$3`, locked (waiting for holds
/// another transaction is finishing); (tenant, id).
const SQL_OVERDUE_ON_SKU: &str = "SELECT h.tenant, h.id FROM holds h
  WHERE h.tenant = $4 AND h.status = 'held' AND h.expires_at <= $2
    AND EXISTS (SELECT 1 FROM hold_lines hl WHERE hl.tenant = h.tenant AND hl.hold_id = h.id AND hl.sku = $1)
  ORDER BY h.id LIMIT $3 FOR UPDATE OF h";
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
