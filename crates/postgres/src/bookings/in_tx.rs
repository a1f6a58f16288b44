//! A booking inside the caller's own transaction (`book_in`, see `crate::in_tx`): the API's
//! path — a plain resource's insert under its lock (`exclusion`, `advisory`), or a resource
//! that was put decided by capacity — in a savepoint of the caller's transaction. What the
//! API does in transactions of its own after a refusal (finding the booking in the way,
//! expiring overdue holds) runs in the caller's transaction too, in a savepoint, so it never
//! waits for the caller's own locks.

use super::{conflicts, insert_body, NotInserted, MAX_BOOKING_ATTEMPTS, SQL_EXPIRE_IDS};
use crate::engine::conn::Db;
use crate::engine::store::PgStore;
use allot_core::store::{Executed, Keyed};
use allot_core::{AllotError, Booking, BookingRequest, BookingStrategy, Capable, Result, Tenant};
use chrono::{DateTime, Utc};

impl PgStore {
    /// Book `req` (from `allot_core::validate::booking`) in `tx`, as
    /// `POST /v1/resources/{r}/bookings` does: the booking exists when `tx` commits, and the
    /// resource's lock is held until then.
    ///
    /// Errors: `invalid_request` for `batched`, `serialized` or `naive` (they decide outside
    /// the request's own transaction, or are the benchmarks' baseline) and for a `tx` that is
    /// not `READ COMMITTED` (its snapshot would not see a booking committed while it waited
    /// for the resource's lock); then the API's
    /// (`booking_overlap` naming the booking in the way, `capacity_exceeded`,
    /// `rule_violated`, `idempotency_key_*`); `contention` when `tx` must run again;
    /// `unavailable`.
    pub async fn book_in(
        &self,
        tx: &mut tokio_postgres::Transaction<'_>,
        tenant: &Tenant,
        req: BookingRequest,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        if matches!(
            req.strategy,
            BookingStrategy::Batched | BookingStrategy::Serialized | BookingStrategy::Naive
        ) || !self.supports_booking(req.strategy)
        {
            return Err(AllotError::invalid(format!(
                "strategy: {} cannot run in the caller's transaction (exclusion or advisory)",
                req.strategy.name()
            )));
        }
        crate::engine::caller_tx::require_read_committed(tx).await?;
        let tenant = tenant.as_str();
        let counted = async |tx: &mut tokio_postgres::Transaction<'_>| {
            self.write_in(tx, tenant, idem.as_ref(), || {
                async |t| self.counted_body(t, tenant, &req).await
            })
            .await
        };
        if req.quantity != 1 || self.known_put(tenant, &req.resource) {
            return counted(tx).await;
        }
        for _ in 0..MAX_BOOKING_ATTEMPTS {
            let now = self.now();
            let written = self
                .write_in_or(tx, tenant, idem.as_ref(), || {
                    async |t| insert_body(t, tenant, &req, now).await
                })
                .await?;
            match written {
                Ok(b) => return Ok(b),
                Err(NotInserted::Counted) => {
                    self.remember_put(tenant, &req.resource);
                    return counted(tx).await;
                }
                Err(NotInserted::Excluded) => {
                    if let Some(id) = in_the_way(tx, tenant, &req, now).await? {
                        return Err(AllotError::BookingOverlap {
                            conflicting_booking_id: Some(id),
                        });
                    }
                }
            }
        }
        Err(AllotError::BookingOverlap {
            conflicting_booking_id: None,
        })
    }
}

/// After a 23P01, in a savepoint of the caller's transaction: the live booking in the way, or
/// `None` once the overdue held ones that caused it are expired (a retry may succeed).
async fn in_the_way(
    caller: &mut tokio_postgres::Transaction<'_>,
    tenant: &str,
    req: &BookingRequest,
    now: DateTime<Utc>,
) -> Result<Option<String>> {
    crate::engine::caller_tx::in_savepoint(caller, "allot_in_the_way", async |sp| {
        let (live, overdue) = conflicts(sp, tenant, req, now).await?;
        if live.is_none() && !overdue.is_empty() {
            let stmt = sp.prepare_cached(SQL_EXPIRE_IDS).await?;
            sp.execute(&stmt, &[&overdue, &now, &tenant]).await?;
        }
        Ok(live)
    })
    .await
}
