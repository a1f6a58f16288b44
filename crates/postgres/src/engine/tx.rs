//! The transaction envelope of every PostgreSQL write: one bounded retry policy
//! ([`PgStore::retrying`]) around one attempt ([`PgStore::write`]) that begins, runs the
//! idempotency protocol, runs the body, stores the response and commits.
//!
//! Idempotency (the `Idempotency-Key` convention of Stripe-style APIs): a transaction-scoped advisory lock on the key (two-int
//! form, class [`IDEMPOTENCY_LOCK_CLASS`]) taken without waiting, then the key's row; the
//! response is stored in the same transaction as the effect, so a failed request stores
//! nothing and its retry runs again (PostgreSQL docs, 9.27.10 "Advisory Lock Functions").

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::errors::{is_retryable, map_error};
use crate::engine::store::PgStore;
use allot_core::idempotency::{decide, KeyDecision, StoredKey};
use allot_core::store::{Executed, Idempotency, StoredResponse};
use allot_core::strategy::fnv1a_64;
use allot_core::Capable;
use allot_core::{retry, AllotError, Result};
use rand::Rng;
use std::time::Duration;

/// Why one attempt of a transaction ended without committing.
pub(crate) enum TxErr {
    /// 40001 / 40P01: run the whole transaction again (bounded).
    Retry,
    /// The optimistic strategy saw another version: run again (bounded by
    /// `optimistic_max_attempts`).
    VersionConflict,
    /// A line was short while overdue holds on its SKU still count as held: finalise them
    /// and run again (bounded by `MAX_EXPIRY_PASSES`); `err` is the answer after that.
    Overdue {
        /// The short SKU's tenant.
        tenant: String,
        /// The short SKU.
        sku: String,
        /// `insufficient_stock` as seen before expiring.
        err: AllotError,
    },
    /// An allocation's line was short on a SKU with a `backorder_limit`: the allocation
    /// paths run the backorder path ([`crate::stock::backorders`]); anywhere else it is the
    /// final answer `err` (`insufficient_stock`).
    Backorder(AllotError),
    /// Final answer.
    Fail(AllotError),
}

/// How many times one request finalises overdue holds on one short SKU and runs again (each
/// SKU of a request has its own passes, as each line does on SQLite: a cart of three SKUs,
/// each held by an overdue hold, needs three — `allot sim` found such a cart refused with
/// the figure of before the last pass).
pub(crate) const MAX_EXPIRY_PASSES: usize = 2;

/// Whether a request that already finalised the overdue holds of the SKUs in `passed` (one
/// entry per pass) may do so once more for `sku` ([`MAX_EXPIRY_PASSES`] per SKU): the one
/// rule of the per-request paths and the batched lanes.
pub(crate) fn may_expire_again(passed: &[String], sku: &str) -> bool {
    passed.iter().filter(|s| *s == sku).count() < MAX_EXPIRY_PASSES
}

impl From<tokio_postgres::Error> for TxErr {
    fn from(e: tokio_postgres::Error) -> Self {
        if is_retryable(&e) {
            TxErr::Retry
        } else {
            TxErr::Fail(map_error(e))
        }
    }
}

impl From<AllotError> for TxErr {
    fn from(e: AllotError) -> Self {
        TxErr::Fail(e)
    }
}

pub(crate) type TxResult<T> = std::result::Result<T, TxErr>;

/// Advisory lock class for idempotency keys (two-int form `pg_try_advisory_xact_lock(int, int)`,
/// so it cannot collide with the bigint-keyed locks of other features). A 32-bit hash
/// collision between two keys costs a spurious `idempotency_key_in_use`, never correctness:
/// the key's row is the truth.
pub(crate) const IDEMPOTENCY_LOCK_CLASS: i32 = 0x0a11_0c01;

/// The advisory lock id (second int, under [`IDEMPOTENCY_LOCK_CLASS`]) of idempotency key `key`
/// of `tenant`: both hashed, so the same key in two tenants takes two locks (a collision only
/// costs a spurious `idempotency_key_in_use`).
pub(crate) fn idempotency_lock_id(tenant: &str, key: &str) -> i32 {
    (fnv1a_64(key.as_bytes()) ^ fnv1a_64(tenant.as_bytes())) as u32 as i32
}

impl PgStore {
    /// Run `attempt` until it commits or fails for good: the one retry policy of every
    /// write. 40001/40P01 retry up to `max_tx_retries` times, optimistic version conflicts up
    /// to `optimistic_max_attempts` attempts, both after a full-jitter backoff
    /// ([`backoff_sleep`]) and both ending as `contention`; a line short while overdue holds
    /// still count on its SKU expires them and runs again (at most `MAX_EXPIRY_PASSES`).
    pub(crate) async fn retrying<T, F, Fut>(&self, attempt: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = TxResult<T>>,
    {
        self.retry_policy(true, attempt).await
    }

    /// [`PgStore::retrying`] for the expiry paths themselves, which must not recurse into
    /// expiring: a short line is final.
    pub(crate) async fn retry_plain<T, F, Fut>(&self, attempt: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = TxResult<T>>,
    {
        self.retry_policy(false, attempt).await
    }

    async fn retry_policy<T, F, Fut>(&self, expire_overdue: bool, mut attempt: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = TxResult<T>>,
    {
        let (mut tx_retries, mut conflicts) = (0u32, 0u32);
        // The SKUs whose overdue holds it finalised, once per pass (bounded: at most
        // `MAX_EXPIRY_PASSES` for each of at most `max_lines` SKUs).
        let mut passed: Vec<String> = Vec::new();
        let contention = |attempts| AllotError::Contention {
            attempts,
            retry_after_ms: retry::Backoff::default().cap_ms,
        };
        loop {
            let n = match attempt().await {
                Ok(v) => return Ok(v),
                Err(TxErr::Fail(e) | TxErr::Backorder(e)) => return Err(e),
                Err(TxErr::Overdue { tenant, sku, err }) => {
                    if !expire_overdue || !may_expire_again(&passed, &sku) {
                        return Err(err);
                    }
                    self.expire_overdue_on(&tenant, &sku, self.now()).await?;
                    passed.push(sku);
                    continue;
                }
                Err(TxErr::Retry) => {
                    tx_retries += 1;
                    if tx_retries > self.limits.max_tx_retries {
                        return Err(contention(tx_retries + conflicts));
                    }
                    tx_retries
                }
                Err(TxErr::VersionConflict) => {
                    conflicts += 1;
                    if conflicts >= self.limits.optimistic_max_attempts {
                        return Err(contention(tx_retries + conflicts));
                    }
                    conflicts
                }
            };
            backoff_sleep(n).await;
        }
    }

    /// One attempt of a write: begin; with an `Idempotency-Key`, take it and replay a stored
    /// response if there is one; run `body`; store its rendered response; commit. Any error
    /// rolls everything back (the transaction drops uncommitted). The key belongs to
    /// `tenant`: two tenants may use the same key.
    pub(crate) async fn write<T, F>(
        &self,
        tenant: &str,
        idem: Option<&Idempotency<T>>,
        body: F,
    ) -> TxResult<Executed<T>>
    where
        F: AsyncFnOnce(&mut Transaction<'_>) -> TxResult<T>,
    {
        let written = self
            .write_or(tenant, idem, async |tx| {
                body(tx).await.map(Decided::Commit::<T, std::convert::Infallible>)
            })
            .await?;
        match written {
            Ok(done) => Ok(done),
            Err(never) => match never {},
        }
    }

    /// [`PgStore::write`] for a body that may also decide to roll back and hand back a value
    /// of its own (a short unit claim's report, a booking refused by the exclusion
    /// constraint): `Ok(executed)` when it committed (or replayed), `Err(r)` when it rolled
    /// back with `r`. Nothing is stored for the key on a rollback.
    pub(crate) async fn write_or<T, R, F>(
        &self,
        tenant: &str,
        idem: Option<&Idempotency<T>>,
        body: F,
    ) -> TxResult<std::result::Result<Executed<T>, R>>
    where
        F: AsyncFnOnce(&mut Transaction<'_>) -> TxResult<Decided<T, R>>,
    {
        let mut client = self.client().await?;
        let mut tx = client.transaction().await?;
        // Every way out ends the transaction before answering, so the key's advisory lock
        // is free for the client's next request (a dropped transaction only queues its
        // ROLLBACK; another connection could still find the key in use).
        if let Some(idem) = idem {
            match idem_begin(&tx, tenant, idem).await {
                Ok(None) => {}
                Ok(Some(stored)) => {
                    tx.rollback().await?;
                    return Ok(Ok(Executed::Replayed(stored)));
                }
                Err(e) => {
                    let _ = tx.rollback().await;
                    return Err(e);
                }
            }
        }
        let value = match body(&mut tx).await {
            Ok(Decided::Commit(value)) => value,
            Ok(Decided::Rollback(r)) => {
                tx.rollback().await?;
                return Ok(Err(r));
            }
            Err(e) => {
                let _ = tx.rollback().await;
                return Err(e);
            }
        };
        if let Some(idem) = idem {
            idem_store(&tx, (tenant, self.now()), idem, &value).await?;
        }
        tx.commit().await.map_err(commit_error)?;
        Ok(Ok(Executed::Fresh(value)))
    }
}

/// Sleep before retry number `n` (1-based): full jitter over an exponential cap
/// ([`allot_core::retry::Backoff`], the AWS Architecture Blog's "Exponential Backoff and
/// Jitter").
pub(crate) async fn backoff_sleep(n: u32) {
    let r: u64 = rand::rng().random();
    let delay_us = retry::Backoff::default().delay_us(n.saturating_sub(1), r);
    tokio::time::sleep(Duration::from_micros(delay_us)).await;
}

/// An error of `COMMIT` itself: with an SQLSTATE the server refused the commit (nothing was
/// applied; 40001 retries as usual); without one the connection broke while committing, and
/// the transaction may have committed or not: `outcome_unknown`, never `unavailable`, whose
/// promise is that nothing was applied.
pub(crate) fn commit_error(e: tokio_postgres::Error) -> TxErr {
    if e.code().is_none() {
        TxErr::Fail(AllotError::OutcomeUnknown)
    } else {
        TxErr::from(e)
    }
}

/// What the body of a [`PgStore::write_or`] decided.
pub(crate) enum Decided<T, R> {
    /// Commit; `T` is the result (stored for an idempotency key).
    Commit(T),
    /// Roll back and hand `R` to the caller.
    Rollback(R),
}

/// Idempotency, first half: take the key's transaction-scoped advisory lock without
/// waiting (busy means the first request is still running: `idempotency_key_in_use`), then
/// look for a stored response (same fingerprint: replay it; other: `idempotency_key_reused`).
pub(crate) async fn idem_begin<T>(
    tx: &crate::engine::conn::Tx<'_>,
    tenant: &str,
    idem: &Idempotency<T>,
) -> TxResult<Option<StoredResponse>> {
    let objid = idempotency_lock_id(tenant, &idem.key);
    let stmt = tx.prepare_cached("SELECT pg_try_advisory_xact_lock($1, $2)").await?;
    let locked: bool = tx.query_one(&stmt, &[&IDEMPOTENCY_LOCK_CLASS, &objid]).await?.get(0);
    let stored = match locked {
        false => None,
        true => {
            let stmt = tx
                .prepare_cached("SELECT fingerprint, status, body FROM idempotency_keys WHERE tenant = $2 AND key = $1")
                .await?;
            tx.query_opt(&stmt, &[&idem.key, &tenant]).await?.map(|row| StoredKey {
                fingerprint: row.get("fingerprint"),
                response: StoredResponse {
                    code: row.get::<_, i32>("status") as u16,
                    body: row.get("body"),
                },
            })
        }
    };
    match decide(locked, stored, &idem.fingerprint) {
        KeyDecision::Run => Ok(None),
        KeyDecision::Replay(response) => Ok(Some(response)),
        KeyDecision::Refuse(e) => Err(TxErr::Fail(e)),
    }
}

/// Idempotency, second half: store the rendered response in the same transaction as the effect.
pub(crate) async fn idem_store<T>(
    tx: &crate::engine::conn::Tx<'_>,
    (tenant, now): (&str, chrono::DateTime<chrono::Utc>),
    idem: &Idempotency<T>,
    value: &T,
) -> TxResult<()> {
    let resp = (idem.render)(value);
    let stmt = tx
        .prepare_cached(
            "INSERT INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at)
             VALUES ($5, $1, $2, $3, $4, $6)",
        )
        .await?;
    tx.execute(
        &stmt,
        &[
            &idem.key,
            &idem.fingerprint,
            &i32::from(resp.code),
            &resp.body,
            &tenant,
            &now,
        ],
    )
    .await?;
    Ok(())
}
