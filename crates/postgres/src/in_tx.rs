//! Writes inside the caller's own transaction (issue 57; River's `InsertTx` for jobs, which
//! [`crate::enqueue_in`] already is): allocate, hold, confirm, release (here) and book
//! (`bookings/in_tx.rs`) on a caller's
//! `tokio_postgres::Transaction`, so an order row and the stock it takes commit together
//! or not at all. Each runs the API's own code path — the same validation (the request
//! types come from `allot_core::validate`), placement, ledger entries, idempotency keys and
//! events (written by the same statements and triggers) — in a savepoint of the caller's transaction
//! ([`PgStore::write_in`]): a refusal rolls back to it and leaves the caller's transaction
//! usable; nothing is visible to anyone until the caller commits, and a rollback undoes it
//! all.
//!
//! The cost, on a hot SKU: the stock rows a write takes stay locked until the caller's
//! transaction ends, so every other writer of that SKU waits for the caller's remaining
//! statements and its commit (docs/api.md measures it). The transaction must reach allot's
//! tables by its `search_path` (allot's schema, `public` by default).

use crate::engine::store::PgStore;
use allot_core::hold::{Confirm, Release};
use allot_core::store::{Executed, Keyed};
use allot_core::Capable;
use allot_core::{Allocation, AllocationRequest, AllotError, Hold, HoldRequest, Result, Strategy, Tenant};

/// The stock strategies that run in a caller's transaction: those that decide in the
/// request's own transaction at its isolation level. `batched` decides in a lane's
/// transaction, `serialized` needs a transaction of its own at SERIALIZABLE, `naive` is the
/// benchmarks' baseline, and the Redis strategies decide outside PostgreSQL.
const IN_TX_STRATEGIES: [Strategy; 4] = [
    Strategy::Atomic,
    Strategy::Pessimistic,
    Strategy::Optimistic,
    Strategy::Segmented,
];

/// `invalid_request` naming `strategy` unless `s` runs in a caller's transaction.
fn in_tx_strategy(s: Strategy) -> Result<()> {
    if IN_TX_STRATEGIES.contains(&s) {
        return Ok(());
    }
    Err(AllotError::invalid(format!(
        "strategy: {} cannot run in the caller's transaction (atomic, pessimistic, optimistic or segmented)",
        s.name()
    )))
}

impl PgStore {
    /// Allocate `req` (from `allot_core::validate::allocation`) in `tx`, as
    /// `POST /v1/allocations` does: the stock is taken when `tx` commits.
    ///
    /// Errors: `invalid_request` for a strategy that cannot run in a caller's transaction
    /// (see [`IN_TX_STRATEGIES`]); then the API's (`not_found`, `insufficient_stock`,
    /// `wrong_tracking`, `idempotency_key_*`); `contention` when `tx` must run again
    /// (40001/40P01); `unavailable`.
    pub async fn allocate_in(
        &self,
        tx: &mut tokio_postgres::Transaction<'_>,
        tenant: &Tenant,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        in_tx_strategy(req.strategy)?;
        self.require_database_side(req.strategy)?;
        let (tenant, now) = (tenant.as_str(), self.now());
        let sequence = self.ledger_sequence(tenant).await?;
        self.write_in(tx, tenant, idem.as_ref(), || {
            async |t| crate::stock::allocate_body(t, tenant, &req, sequence, now).await
        })
        .await
    }

    /// Hold `req` (from `allot_core::validate::hold`) in `tx`, as `POST /v1/holds` does. The
    /// hold's TTL counts from now, not from the commit.
    ///
    /// Errors: as [`PgStore::allocate_in`]; `invalid_request` for a hold with booking lines in
    /// a `tx` that is not `READ COMMITTED` (as [`PgStore::book_in`]); a booking line's refusal
    /// as [`allot_core::AllotError::OnLine`] naming the line (`unlined()` gives the booking's
    /// own refusal). Its `hold.created` event is written with it, after its lines' events.
    pub async fn hold_in(
        &self,
        tx: &mut tokio_postgres::Transaction<'_>,
        tenant: &Tenant,
        req: HoldRequest,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>> {
        in_tx_strategy(req.take.strategy)?;
        self.require_database_side(req.take.strategy)?;
        if !req.bookings.is_empty() {
            crate::engine::caller_tx::require_read_committed(tx).await?;
        }
        let (tenant, now) = (tenant.as_str(), self.now());
        self.write_in(tx, tenant, idem.as_ref(), || {
            async |t| crate::holds::hold_body(t, tenant, &req, now).await
        })
        .await
    }

    /// Confirm a hold (whole, or part of it) in `tx`, as
    /// `POST /v1/holds/{id}/confirm` does, with `allot_confirm_hold_at`, the function
    /// `allot.confirm_hold` runs: the hold is confirmed, with its allocation, ledger entries
    /// and events, when `tx` commits; held still when it rolls back. The hold's row and its
    /// stock rows stay locked until then, so its expiry cannot overtake the confirm.
    ///
    /// Errors: `not_found`, `hold_expired`, `hold_released`, `insufficient_stock` (a part
    /// larger than the hold), `not_in_hold` (a booking not the hold's),
    /// `idempotency_key_*`, `contention`, `unavailable`.
    pub async fn confirm_in(
        &self,
        tx: &mut tokio_postgres::Transaction<'_>,
        tenant: &Tenant,
        req: Confirm,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let (tenant, now) = (tenant.as_str(), self.now());
        let target = (req.id.as_str(), req.part.as_ref());
        self.write_in(tx, tenant, idem.as_ref(), || {
            async |t| crate::holds::confirm_body(t, tenant, target, req.actor.as_deref(), now).await
        })
        .await
    }

    /// Release a hold in `tx`, as `POST /v1/holds/{id}/release` does (`allot_release_hold_at`,
    /// the function `allot.release_hold` runs).
    ///
    /// Errors: `not_found`, `hold_confirmed`, `idempotency_key_*`,
    /// `contention`, `unavailable`.
    pub async fn release_in(
        &self,
        tx: &mut tokio_postgres::Transaction<'_>,
        tenant: &Tenant,
        req: Release,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>> {
        let (tenant, now) = (tenant.as_str(), self.now());
        self.write_in(tx, tenant, idem.as_ref(), || {
            async |t| crate::holds::release_body(t, tenant, &req.id, req.actor.as_deref(), now).await
        })
        .await
    }
}
