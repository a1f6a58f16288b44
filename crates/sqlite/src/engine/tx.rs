//! The transaction envelope of every SQLite write: `BEGIN IMMEDIATE` on the writer thread,
//! the idempotency protocol around the body (stored response replayed, another fingerprint
//! refused), the response stored before commit. One writer: no retries are needed.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::idempotency::{decide, KeyDecision, StoredKey};
use allot_core::store::{Executed, Keyed, StoredResponse};
use allot_core::Result;
use rusqlite::{params, OptionalExtension, TransactionBehavior};

impl SqliteStore {
    /// Run `body` in one `BEGIN IMMEDIATE` transaction on the writer thread; any error rolls
    /// everything back — but the overdue holds it finished, which are finished again in a
    /// transaction of their own (`engine/overdue.rs`). For writes that take no idempotency
    /// key.
    pub(crate) async fn transact<T, F>(&self, body: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    {
        let events = self.event_signal.clone();
        self.call(move |conn| {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(map_error)?;
            crate::engine::overdue::forget_finished_overdue();
            let value = match body(&tx) {
                Ok(v) => v,
                Err(e) => {
                    drop(tx);
                    finish_overdue_again(conn);
                    return Err(e);
                }
            };
            tx.commit().map_err(map_error)?;
            // What it wrote may include events: readers waiting in this process read again.
            events.notify_waiters();
            Ok(value)
        })
        .await
    }

    /// Run `body` in one `BEGIN IMMEDIATE` transaction with the idempotency protocol around
    /// it: a stored response with the same fingerprint is replayed, another fingerprint is
    /// `idempotency_key_reused`; on success the rendered response is stored before commit.
    /// Any error rolls everything back.
    /// The key belongs to `tenant`: two tenants may use the same key.
    pub(crate) async fn write<T, F>(&self, tenant: &str, idem: Keyed<T>, body: F) -> Result<Executed<T>>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    {
        self.write_if(tenant, idem, |_| true, body).await
    }

    /// [`SqliteStore::write`] that stores the response for the key only when `keep` says the
    /// result is the answer (a waiting claim's empty tries are not; they change nothing).
    pub(crate) async fn write_if<T, F>(
        &self,
        tenant: &str,
        idem: Keyed<T>,
        keep: fn(&T) -> bool,
        body: F,
    ) -> Result<Executed<T>>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction<'_>) -> Result<T> + Send + 'static,
    {
        let tenant = tenant.to_string();
        self.transact(move |tx| {
            if let Some(idem) = &idem {
                let stored = tx
                    .prepare_cached(
                        "SELECT fingerprint, status, body FROM idempotency_keys WHERE tenant = ?2 AND key = ?1",
                    )
                    .and_then(|mut s| {
                        s.query_row([&idem.key, &tenant], |r| {
                            Ok(StoredKey {
                                fingerprint: r.get("fingerprint")?,
                                response: StoredResponse {
                                    code: r.get::<_, i64>("status")? as u16,
                                    body: r.get("body")?,
                                },
                            })
                        })
                        .optional()
                    })
                    .map_err(map_error)?;
                // One writer: the key's lock is always ours.
                match decide(true, stored, &idem.fingerprint) {
                    KeyDecision::Run => {}
                    KeyDecision::Replay(response) => return Ok(Executed::Replayed(response)),
                    KeyDecision::Refuse(e) => return Err(e),
                }
            }
            let value = body(tx)?;
            if let Some(idem) = idem.as_ref().filter(|_| keep(&value)) {
                let resp = (idem.render)(&value);
                tx.prepare_cached(
                    "INSERT INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at_us)
                     VALUES (?6, ?1, ?2, ?3, ?4, ?5)",
                )
                .and_then(|mut s| {
                    s.execute(params![
                        idem.key,
                        idem.fingerprint,
                        resp.code,
                        resp.body,
                        now_us(),
                        tenant
                    ])
                })
                .map_err(map_error)?;
            }
            Ok(Executed::Fresh(value))
        })
        .await
    }
}

/// After a write rolled back: finish again, in a transaction of their own, the overdue holds
/// it had finished. A failure leaves them to the sweeper (the write's answer stands).
fn finish_overdue_again(conn: &mut rusqlite::Connection) {
    let overdue = crate::engine::overdue::take_finished_overdue();
    if overdue.is_empty() {
        return;
    }
    let done = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(map_error)
        .and_then(|tx| {
            crate::engine::overdue::finish_again(&tx, &overdue)?;
            tx.commit().map_err(map_error)
        });
    if let Err(e) = done {
        tracing::warn!(error = %e, "overdue holds not finished after a refused write");
    }
}
