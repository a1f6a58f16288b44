//! `RedisGated<S>`: the Redis strategies as a decorator over any store (the decorator
//! pattern, as tower's layers wrap a service). It implements every store trait by handing the
//! call to the inner store, except where Redis has a part:
//!
//! - `allocate` / `create_hold` with `redis_counter` or `redis_lock`: the gate's admission or
//!   lock first, then the inner store's database side ([`RedisGate::allocate`],
//!   [`RedisGate::create_hold`]);
//! - `release_hold`: a released `redis_counter` hold gives its lines back to the counters;
//! - `adjust`: the SKU's counter is dropped (rebuilt from the database on next use);
//! - `supports`: the Redis strategies are supported here (the inner store alone does not run
//!   them).
//!
//! So the HTTP layer never chooses between Redis and the store: it calls the store it was
//! given, gated or not.

use crate::RedisGate;
use allot_core::access::{ApiKey, NewKey};
use allot_core::job::{Claim, Completion, Completions, Enqueue, Enqueued, JobState};
use allot_core::job::{Fail, JobStatus, JobView, LeasedJob, QueueCounts};
use allot_core::store::{
    BookingStore, Executed, HoldStore, Idempotency, JobStore, KeyStore, Keyed, StockStore, UnitStore,
};
use allot_core::{
    AddUnits, Adjustment, Allocation, AllocationRequest, Booking, BookingRequest, CreateSku, Hold, HoldRequest,
    LedgerEntry, Location, LocationStore, Result, Return, SetLevel, Sku, Store, Strategy, Transfer, UnitAllocation,
    UnitClaim, UnitFilter, UnitView, UnitsCreated,
};
use allot_core::{Capabilities, Capable};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// A store whose Redis strategies run through `gate` first.
pub struct RedisGated<S: ?Sized> {
    inner: Arc<S>,
    gate: Arc<RedisGate>,
    /// The inner store's, with the Redis strategies added.
    capabilities: Capabilities,
}

impl<S: Capable + ?Sized> RedisGated<S> {
    /// `inner` with the Redis strategies of `gate` in front of it.
    pub fn new(inner: Arc<S>, gate: Arc<RedisGate>) -> Self {
        let mut capabilities = inner.capabilities().clone();
        capabilities
            .stock
            .0
            .extend([Strategy::RedisCounter, Strategy::RedisLock]);
        RedisGated {
            inner,
            gate,
            capabilities,
        }
    }

    /// The gate (for its health and counters).
    pub fn gate(&self) -> &Arc<RedisGate> {
        &self.gate
    }

    /// Drop the counters of `skus` after the database changed them in a way a counter cannot
    /// follow (an adjustment, a cancel): they rebuild from the database on next use. Best
    /// effort: a failure leaves a counter that its TTL ends.
    async fn invalidate(&self, tenant: &str, skus: &[&str]) {
        for sku in skus {
            if let Err(e) = self.gate.invalidate(tenant, sku).await {
                tracing::warn!(%sku, error = %e, "redis_counter: counter not invalidated after a change");
            }
        }
    }
}

impl<S: ?Sized + Send + Sync + 'static> Capable for RedisGated<S> {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }
}

#[async_trait]
impl<S: Store + ?Sized> StockStore for RedisGated<S> {
    async fn health(&self) -> Result<()> {
        self.inner.health().await
    }
    async fn create_sku(&self, tenant: &str, req: CreateSku, idem: Option<Idempotency<Sku>>) -> Result<Executed<Sku>> {
        self.inner.create_sku(tenant, req, idem).await
    }
    async fn get_sku(&self, tenant: &str, sku: &str) -> Result<Sku> {
        self.inner.get_sku(tenant, sku).await
    }
    async fn adjust(&self, tenant: &str, req: Adjustment, idem: Option<Idempotency<Sku>>) -> Result<Executed<Sku>> {
        let sku = req.sku.clone();
        let result = self.inner.adjust(tenant, req, idem).await;
        if let Ok(Executed::Fresh(_)) = &result {
            self.invalidate(tenant, &[sku.as_str()]).await;
        }
        result
    }
    async fn ledger(&self, tenant: &str, sku: &str, after: i64, limit: u32) -> Result<Vec<LedgerEntry>> {
        self.inner.ledger(tenant, sku, after, limit).await
    }
    async fn allocate(
        &self,
        tenant: &str,
        req: AllocationRequest,
        idem: Option<Idempotency<Allocation>>,
    ) -> Result<Executed<Allocation>> {
        if req.strategy.needs_redis() {
            self.gate.allocate(&*self.inner, tenant, req, idem).await
        } else {
            self.inner.allocate(tenant, req, idem).await
        }
    }
    async fn get_allocation(&self, tenant: &str, id: &str) -> Result<Allocation> {
        self.inner.get_allocation(tenant, id).await
    }
    async fn return_allocation(
        &self,
        tenant: &str,
        req: Return,
        idem: Option<Idempotency<Return>>,
    ) -> Result<Executed<Return>> {
        let result = self.inner.return_allocation(tenant, req, idem).await;
        // Sellable returns are back in stock: the counters rebuild from the database.
        if let Ok(Executed::Fresh(r)) = &result {
            let skus: Vec<&str> = r.lines.iter().map(|l| l.sku.as_str()).collect();
            self.invalidate(tenant, &skus).await;
        }
        result
    }
    async fn cancel_allocation(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Option<Idempotency<Allocation>>,
    ) -> Result<Executed<Allocation>> {
        let result = self.inner.cancel_allocation(tenant, id, actor, idem).await;
        // Stock came back: the counters rebuild from the database on next use.
        if let Ok(Executed::Fresh(a)) = &result {
            let skus: Vec<&str> = a.lines.iter().map(|l| l.sku.as_str()).collect();
            self.invalidate(tenant, &skus).await;
        }
        result
    }
    async fn list_skus(
        &self,
        tenant: &str,
        after: Option<&str>,
        available_below: Option<i64>,
        limit: u32,
    ) -> Result<Vec<Sku>> {
        self.inner.list_skus(tenant, after, available_below, limit).await
    }
    async fn list_allocations(&self, tenant: &str, after: Option<&str>, limit: u32) -> Result<Vec<Allocation>> {
        self.inner.list_allocations(tenant, after, limit).await
    }
}

/// Locations pass through. A transfer leaves a SKU's total as it was (the counter gates the
/// total); a level set by compare-and-set changes it, so the counter is rebuilt on next use.
#[async_trait]
impl<S: Store + ?Sized> LocationStore for RedisGated<S> {
    async fn create_location(&self, tenant: &str, location: Location, max_locations: u32) -> Result<Location> {
        self.inner.create_location(tenant, location, max_locations).await
    }
    async fn list_locations(&self, tenant: &str) -> Result<Vec<Location>> {
        self.inner.list_locations(tenant).await
    }
    async fn transfer(
        &self,
        tenant: &str,
        req: Transfer,
        idem: Option<Idempotency<Transfer>>,
    ) -> Result<Executed<Transfer>> {
        self.inner.transfer(tenant, req, idem).await
    }
    async fn set_level(&self, tenant: &str, req: SetLevel, idem: Option<Idempotency<Sku>>) -> Result<Executed<Sku>> {
        let sku = req.sku.clone();
        let result = self.inner.set_level(tenant, req, idem).await;
        if let Ok(Executed::Fresh(_)) = &result {
            self.invalidate(tenant, &[sku.as_str()]).await;
        }
        result
    }
}

#[async_trait]
impl<S: Store + ?Sized> HoldStore for RedisGated<S> {
    async fn create_hold(
        &self,
        tenant: &str,
        req: HoldRequest,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        if req.take.strategy.needs_redis() {
            self.gate.create_hold(&*self.inner, tenant, req, idem).await
        } else {
            self.inner.create_hold(tenant, req, idem).await
        }
    }
    async fn get_hold(&self, tenant: &str, id: &str) -> Result<Hold> {
        self.inner.get_hold(tenant, id).await
    }
    async fn confirm_hold(
        &self,
        tenant: &str,
        id: &str,
        part: Option<Vec<(String, i64)>>,
        actor: Option<String>,
        idem: Option<Idempotency<Allocation>>,
    ) -> Result<Executed<Allocation>> {
        // What a partial confirm releases is back in stock: the hold's counters are rebuilt.
        let held = match part {
            Some(_) => self.inner.get_hold(tenant, id).await.ok(),
            None => None,
        };
        let result = self.inner.confirm_hold(tenant, id, part, actor, idem).await;
        if let (Some(h), Ok(Executed::Fresh(_))) = (held, &result) {
            let skus: Vec<&str> = h.lines.iter().map(|l| l.sku.as_str()).collect();
            self.invalidate(tenant, &skus).await;
        }
        result
    }
    async fn release_hold(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        let result = self.inner.release_hold(tenant, id, actor, idem).await;
        if let Ok(Executed::Fresh(hold)) = &result {
            self.gate.after_release(tenant, hold).await;
        }
        result
    }
    async fn list_holds(
        &self,
        tenant: &str,
        status: allot_core::hold::HoldStatus,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Hold>> {
        self.inner.list_holds(tenant, status, after, limit).await
    }
    async fn extend_hold(
        &self,
        tenant: &str,
        id: &str,
        ttl_ms: u64,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        self.inner.extend_hold(tenant, id, ttl_ms, idem).await
    }
}

#[async_trait]
impl<S: Store + ?Sized> UnitStore for RedisGated<S> {
    async fn add_units(
        &self,
        tenant: &str,
        req: AddUnits,
        idem: Option<Idempotency<UnitsCreated>>,
    ) -> Result<Executed<UnitsCreated>> {
        self.inner.add_units(tenant, req, idem).await
    }
    async fn list_units(
        &self,
        tenant: &str,
        sku: &str,
        filter: &UnitFilter,
        after: i64,
        limit: u32,
    ) -> Result<Vec<UnitView>> {
        self.inner.list_units(tenant, sku, filter, after, limit).await
    }
    async fn get_unit(&self, tenant: &str, sku: &str, serial: &str) -> Result<UnitView> {
        self.inner.get_unit(tenant, sku, serial).await
    }
    async fn claim_units(
        &self,
        tenant: &str,
        req: UnitClaim,
        idem: Option<Idempotency<UnitAllocation>>,
    ) -> Result<Executed<UnitAllocation>> {
        self.inner.claim_units(tenant, req, idem).await
    }
}

#[async_trait]
impl<S: Store + ?Sized> BookingStore for RedisGated<S> {
    async fn book(
        &self,
        tenant: &str,
        req: BookingRequest,
        idem: Option<Idempotency<Booking>>,
    ) -> Result<Executed<Booking>> {
        self.inner.book(tenant, req, idem).await
    }
    async fn get_booking(&self, tenant: &str, id: &str) -> Result<Booking> {
        self.inner.get_booking(tenant, id).await
    }
    async fn cancel_booking(
        &self,
        tenant: &str,
        id: &str,
        idem: Option<Idempotency<Booking>>,
    ) -> Result<Executed<Booking>> {
        self.inner.cancel_booking(tenant, id, idem).await
    }
    async fn release_booking(
        &self,
        tenant: &str,
        id: &str,
        idem: Option<Idempotency<Booking>>,
    ) -> Result<Executed<Booking>> {
        self.inner.release_booking(tenant, id, idem).await
    }
    async fn confirm_booking(
        &self,
        tenant: &str,
        id: &str,
        idem: Option<Idempotency<Booking>>,
    ) -> Result<Executed<Booking>> {
        self.inner.confirm_booking(tenant, id, idem).await
    }
    async fn extend_booking(
        &self,
        tenant: &str,
        id: &str,
        ttl_ms: u64,
        idem: Option<Idempotency<Booking>>,
    ) -> Result<Executed<Booking>> {
        self.inner.extend_booking(tenant, id, ttl_ms, idem).await
    }
    async fn list_bookings(
        &self,
        tenant: &str,
        resource: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Booking>> {
        self.inner.list_bookings(tenant, resource, from, to, limit).await
    }
}

#[async_trait]
impl<S: Store + ?Sized> JobStore for RedisGated<S> {
    async fn enqueue(
        &self,
        tenant: &str,
        req: Enqueue,
        idem: Option<Idempotency<Enqueued>>,
    ) -> Result<Executed<Enqueued>> {
        self.inner.enqueue(tenant, req, idem).await
    }
    async fn claim_jobs(
        &self,
        tenant: &str,
        req: Claim,
        idem: Keyed<Vec<LeasedJob>>,
    ) -> Result<Executed<Vec<LeasedJob>>> {
        self.inner.claim_jobs(tenant, req, idem).await
    }
    async fn complete_job(
        &self,
        tenant: &str,
        id: i64,
        lease_token: &str,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        self.inner.complete_job(tenant, id, lease_token, idem).await
    }
    async fn fail_job(
        &self,
        tenant: &str,
        fail: &Fail,
        id: i64,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        self.inner.fail_job(tenant, fail, id, idem).await
    }
    async fn heartbeat_job(
        &self,
        tenant: &str,
        id: i64,
        lease_token: &str,
        lease_ms: i64,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        self.inner.heartbeat_job(tenant, id, lease_token, lease_ms, idem).await
    }
    async fn complete_jobs(
        &self,
        tenant: &str,
        queue: &str,
        jobs: Vec<Completion>,
        idem: Keyed<Completions>,
    ) -> Result<Executed<Completions>> {
        self.inner.complete_jobs(tenant, queue, jobs, idem).await
    }
    async fn cancel_job(&self, tenant: &str, id: i64, idem: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.cancel_job(tenant, id, idem).await
    }
    async fn retry_job(&self, tenant: &str, id: i64, idem: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.retry_job(tenant, id, idem).await
    }
    async fn list_jobs(
        &self,
        tenant: &str,
        queue: &str,
        state: JobState,
        after: i64,
        limit: u32,
    ) -> Result<Vec<JobView>> {
        self.inner.list_jobs(tenant, queue, state, after, limit).await
    }
    async fn wait_for_jobs(&self, tenant: &str, queue: &str, max_wait: std::time::Duration) {
        self.inner.wait_for_jobs(tenant, queue, max_wait).await
    }
    async fn queue_counts(&self, tenant: &str, queue: &str) -> Result<QueueCounts> {
        self.inner.queue_counts(tenant, queue).await
    }
}

#[async_trait]
impl<S: Store + ?Sized> KeyStore for RedisGated<S> {
    async fn create_key(&self, key: NewKey) -> Result<ApiKey> {
        self.inner.create_key(key).await
    }
    async fn list_keys(&self, tenant: &str) -> Result<Vec<ApiKey>> {
        self.inner.list_keys(tenant).await
    }
    async fn revoke_key(&self, tenant: Option<&str>, id: &str, now: DateTime<Utc>) -> Result<ApiKey> {
        self.inner.revoke_key(tenant, id, now).await
    }
    async fn key_by_hash(&self, secret_sha256: &str) -> Result<Option<ApiKey>> {
        self.inner.key_by_hash(secret_sha256).await
    }
    async fn any_key(&self) -> Result<bool> {
        self.inner.any_key().await
    }
}
