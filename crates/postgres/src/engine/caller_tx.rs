//! The write envelope of the `*_in` functions ([`PgStore::write_in`]): one write run inside
//! the caller's own transaction, the way [`PgStore::write`] runs it inside ours — the same
//! body, the same idempotency protocol — but in a savepoint, so a refused request leaves
//! the caller's transaction usable with nothing of the request in it, and never committing: the effect lands
//! when the caller commits, and vanishes when it rolls back.
//!
//! A deadlock, a serialization failure (40P01/40001) or rows others had locked run the write
//! again in a fresh savepoint, a few times; past that it is `contention`, since only the
//! caller can run its whole transaction again (its own statements may be what conflicted).
//! Overdue holds on a short SKU are finished in the caller's transaction, in a savepoint of
//! their own, never in another transaction (which would wait for the locks the caller
//! holds); they stay finished when the write is then refused.

use crate::engine::conn::Tx as Transaction;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use crate::engine::tx::{idem_begin, idem_store, may_expire_again, Decided, TxErr, TxResult};
use allot_core::store::{Executed, Idempotency};
use allot_core::Capable;
use allot_core::{AllotError, Result};

/// The savepoint every `*_in` write runs in.
const SAVEPOINT: &str = "allot_in";

/// How many times one `*_in` write runs again after a deadlock, a serialization failure or
/// rows others had locked, before it answers `contention`.
const MAX_RETRIES_IN: u32 = 3;

impl PgStore {
    /// Run `body` in a savepoint of `caller` for `tenant` with `idem` (as [`PgStore::write`]):
    /// `Fresh` once the savepoint is released (the effect commits with the caller), or
    /// `Replayed` for a key already answered. Version conflicts of `optimistic` run again
    /// (bounded by `optimistic_max_attempts`); a short SKU with overdue holds finishes them
    /// and runs again (`MAX_EXPIRY_PASSES` per SKU).
    ///
    /// Errors: the body's; `contention` for 40001/40P01 (run the caller's transaction
    /// again); `unavailable` when the connection fails.
    pub(crate) async fn write_in<T, F, B>(
        &self,
        caller: &mut tokio_postgres::Transaction<'_>,
        tenant: &str,
        idem: Option<&Idempotency<T>>,
        mut body: F,
    ) -> Result<Executed<T>>
    where
        F: FnMut() -> B,
        B: AsyncFnOnce(&mut Transaction<'_>) -> TxResult<T>,
    {
        let written = self
            .write_in_or(caller, tenant, idem, || {
                let once = body();
                async move |tx: &mut Transaction<'_>| once(tx).await.map(Decided::Commit::<T, std::convert::Infallible>)
            })
            .await?;
        match written {
            Ok(done) => Ok(done),
            Err(never) => match never {},
        }
    }

    /// [`PgStore::write_in`] for a body that may also decide to roll back to the savepoint
    /// and hand back a value of its own (as [`PgStore::write_or`]): `Ok(executed)` when its
    /// savepoint was released (or the key replayed), `Err(r)` when it rolled back with `r`.
    /// Runs in a `store.in_tx` span, a child of the caller's current span (its trace goes on
    /// through allot's work, as a request's does through the API's `store.*` spans).
    #[tracing::instrument(name = "store", level = "debug", skip_all, fields(otel.name = "store.in_tx", allot.tenant = tenant))]
    pub(crate) async fn write_in_or<T, R, F, B>(
        &self,
        caller: &mut tokio_postgres::Transaction<'_>,
        tenant: &str,
        idem: Option<&Idempotency<T>>,
        mut body: F,
    ) -> Result<std::result::Result<Executed<T>, R>>
    where
        F: FnMut() -> B,
        B: AsyncFnOnce(&mut Transaction<'_>) -> TxResult<Decided<T, R>>,
    {
        let mut passed: Vec<String> = Vec::new();
        let (mut conflicts, mut retries) = (0u32, 0u32);
        let contention = |attempts| AllotError::Contention {
            attempts,
            retry_after_ms: 0,
        };
        loop {
            let sp = caller.savepoint(SAVEPOINT).await.map_err(map_error)?;
            let mut tx = Transaction::caller(sp);
            let attempt = attempt_in(&mut tx, tenant, idem, body(), self.now()).await;
            let refused = match attempt {
                Ok(Ok(done)) => {
                    tx.commit().await.map_err(map_error)?;
                    return Ok(Ok(done));
                }
                Ok(Err(r)) => {
                    tx.rollback().await.map_err(map_error)?;
                    release(caller, SAVEPOINT).await?;
                    return Ok(Err(r));
                }
                Err(e) => e,
            };
            tx.rollback().await.map_err(map_error)?;
            release(caller, SAVEPOINT).await?;
            match refused {
                // In a caller's transaction an allocation does not backorder (documented).
                TxErr::Fail(e) | TxErr::Backorder(e) => return Err(e),
                // A deadlock or serialization failure, or a line whose rows others had
                // locked or that stock came back to: again, in a fresh savepoint, bounded;
                // past the bound the caller's whole transaction is the unit to run again.
                TxErr::Retry => {
                    retries += 1;
                    if retries > MAX_RETRIES_IN {
                        return Err(contention(retries + conflicts));
                    }
                    crate::engine::tx::backoff_sleep(retries).await;
                }
                TxErr::VersionConflict => {
                    conflicts += 1;
                    if conflicts >= self.limits.optimistic_max_attempts {
                        return Err(contention(conflicts));
                    }
                }
                TxErr::Overdue { tenant, sku, err } => {
                    if !may_expire_again(&passed, &sku) {
                        return Err(err);
                    }
                    self.expire_overdue_in(caller, &tenant, &sku).await?;
                    passed.push(sku);
                }
            }
        }
    }

    /// Finish the overdue holds on `sku` (at most `hold_sweep_batch`) in a savepoint of the
    /// caller's transaction.
    async fn expire_overdue_in(
        &self,
        caller: &mut tokio_postgres::Transaction<'_>,
        tenant: &str,
        sku: &str,
    ) -> Result<()> {
        let (batch, now) = (i64::from(self.limits.hold_sweep_batch.max(1)), self.now());
        in_savepoint(caller, "allot_expire", async |tx| {
            crate::engine::overdue::expire_on_sku(tx, tenant, sku, now, batch).await
        })
        .await
        .map(drop)
    }
}

/// Run `body` in savepoint `name` of the caller's transaction: released when it succeeds,
/// rolled back to and released when it fails (its error as the domain's; a retryable one is
/// `contention`: only the caller can run its transaction again).
pub(crate) async fn in_savepoint<T, F>(caller: &mut tokio_postgres::Transaction<'_>, name: &str, body: F) -> Result<T>
where
    F: AsyncFnOnce(&Transaction<'_>) -> TxResult<T>,
{
    let tx = Transaction::caller(caller.savepoint(name).await.map_err(map_error)?);
    match body(&tx).await {
        Ok(v) => {
            tx.commit().await.map_err(map_error)?;
            Ok(v)
        }
        Err(e) => {
            tx.rollback().await.map_err(map_error)?;
            release(caller, name).await?;
            Err(match e {
                TxErr::Fail(e) | TxErr::Backorder(e) => e,
                _ => AllotError::Contention {
                    attempts: 1,
                    retry_after_ms: 0,
                },
            })
        }
    }
}

/// Forget savepoint `name` once rolled back to: tokio-postgres's rollback of a savepoint is
/// `ROLLBACK TO`, which keeps it, and each attempt would nest another subtransaction in the
/// caller's transaction.
pub(crate) async fn release(caller: &tokio_postgres::Transaction<'_>, name: &str) -> Result<()> {
    caller
        .batch_execute(&format!("RELEASE SAVEPOINT {name}"))
        .await
        .map_err(map_error)
}

/// One attempt: the key's protocol, the body, the answer stored for the key; `Err(r)` when
/// the body decided to roll back with `r`.
async fn attempt_in<T, R, B>(
    tx: &mut Transaction<'_>,
    tenant: &str,
    idem: Option<&Idempotency<T>>,
    body: B,
    now: chrono::DateTime<chrono::Utc>,
) -> TxResult<std::result::Result<Executed<T>, R>>
where
    B: AsyncFnOnce(&mut Transaction<'_>) -> TxResult<Decided<T, R>>,
{
    if let Some(idem) = idem {
        if let Some(stored) = idem_begin(tx, tenant, idem).await? {
            return Ok(Ok(Executed::Replayed(stored)));
        }
    }
    let value = match body(tx).await? {
        Decided::Commit(v) => v,
        Decided::Rollback(r) => return Ok(Err(r)),
    };
    if let Some(idem) = idem {
        idem_store(tx, (tenant, now), idem, &value).await?;
    }
    Ok(Ok(Executed::Fresh(value)))
}

/// Refuse a caller's transaction that is not `READ COMMITTED` for a booking decided in it: a
/// booking reads what stands in its way after taking its resource's lock, and a `REPEATABLE
/// READ` or `SERIALIZABLE` snapshot, taken before that lock, would not see a booking committed
/// meanwhile — on a resource with slots, outside the exclusion constraint, a double booking.
/// Errors: `invalid_request` naming the isolation found; `unavailable`.
pub(crate) async fn require_read_committed(caller: &tokio_postgres::Transaction<'_>) -> Result<()> {
    let isolation: String = caller
        .query_one("SELECT current_setting('transaction_isolation')", &[])
        .await
        .map_err(map_error)?
        .get(0);
    if isolation != "read committed" {
        return Err(AllotError::invalid(format!(
            "a booking in the caller's transaction needs READ COMMITTED, not {}",
            isolation.to_uppercase()
        )));
    }
    Ok(())
}
