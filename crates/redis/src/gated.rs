//! `RedisGated`: the Redis strategies as a decorator (the decorator pattern, as tower's
//! layers wrap a service) over the three domains Redis has a part in: stock, locations and
//! holds. [`RedisGated::wrap`] takes a backend's [`Stores`] and gives back the same stores
//! with those three handles wrapped; units, bookings, jobs and keys never pass through it
//! (the units are read only to tell a unit-tracked SKU, which gets no counter).
//! Each method hands the call to the inner handle, except where Redis has a part:
//!
//! - `allocate` / `create_hold` with `redis_counter` or `redis_lock`: the gate's admission or
//!   lock first, then the inner store's database side ([`RedisGate::allocate`],
//!   [`RedisGate::create_hold`]);
//! - `allocate` / `create_hold` with any other strategy: what the database took is taken
//!   from the counters that exist (in the background, at most [`MAX_COUNTER_UPDATES`] at
//!   once, so a slow or unreachable Redis never holds up a database strategy's answer), so a
//!   counter stays the database's `available` whatever strategies share its SKU;
//! - `release_hold`: the hold's SKUs' counters are dropped (rebuilt from the database on next
//!   use; dropping twice, for a release repeated, changes nothing more);
//! - `adjust`, `set_level`, a receipt, a cancel, a sellable return, a partial confirm: the SKUs'
//!   counters are dropped (rebuilt from the database on next use);
//! - the capabilities: the Redis strategies are supported here (the inner store alone does
//!   not run them).
//!
//! So the HTTP layer never chooses between Redis and the store: it calls the stores it was
//! given, gated or not.

use crate::RedisGate;
use allot_core::hold::{Confirm, Release};
use allot_core::store::{Executed, HoldStore, Keyed, StockStore, UnitStore};
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::Cancel;
use allot_core::{
    Adjustment, Allocation, AllocationRequest, CreateSku, Hold, HoldRequest, Incoming, LedgerEntry, Location,
    LocationStore, Move, Receipt, Result, Return, SetLevel, Sku, Stores, Strategy, Transfer,
};
use async_trait::async_trait;
use std::sync::Arc;

/// The stock, location and hold handles of a backend, with the Redis strategies of `gate` in
/// front of them.
pub struct RedisGated {
    stock: Arc<dyn StockStore>,
    locations: Arc<dyn LocationStore>,
    holds: Arc<dyn HoldStore>,
    /// Read only: whether a SKU is unit-tracked, when a counter is built.
    units: Arc<dyn UnitStore>,
    gate: Arc<RedisGate>,
    /// Permits of the counter updates running in the background.
    updates: Arc<tokio::sync::Semaphore>,
}

/// Counter updates after other strategies' writes running at once; past it an update is
/// skipped (logged), which leaves that counter above the database until its TTL: admissions
/// the database then refuses, never an oversell.
pub const MAX_COUNTER_UPDATES: usize = 1024;

impl RedisGated {
    /// `stores` with stock, locations and holds behind `gate`, and the Redis strategies added
    /// to its capabilities; the other domains are handed back as they were.
    pub fn wrap(stores: Stores, gate: Arc<RedisGate>) -> Stores {
        let gated = Arc::new(RedisGated {
            stock: stores.stock.clone(),
            locations: stores.locations.clone(),
            holds: stores.holds.clone(),
            units: stores.units.clone(),
            gate,
            updates: Arc::new(tokio::sync::Semaphore::new(MAX_COUNTER_UPDATES)),
        });
        let mut capabilities = stores.capabilities.clone();
        capabilities
            .stock
            .0
            .extend([Strategy::RedisCounter, Strategy::RedisLock]);
        Stores {
            capabilities,
            stock: gated.clone(),
            locations: gated.clone(),
            holds: gated,
            ..stores
        }
    }

    /// Drop the counters of `skus` after the database changed them in a way a counter cannot
    /// follow (an adjustment, a cancel): they rebuild from the database on next use. Best
    /// effort: a failure leaves a counter that its TTL ends.
    async fn invalidate(&self, tenant: &Tenant, skus: &[&str]) {
        for sku in skus {
            if let Err(e) = self.gate.invalidate(tenant, sku).await {
                tracing::warn!(%sku, error = %e, "redis_counter: counter not invalidated after a change");
            }
        }
    }

    /// Take `lines` from their counters in the background (see [`MAX_COUNTER_UPDATES`]).
    fn took_later(&self, tenant: &Tenant, lines: Vec<allot_core::AllocationLine>) {
        let Ok(permit) = self.updates.clone().try_acquire_owned() else {
            tracing::warn!("redis_counter: too many counter updates in flight; a counter stays high until its TTL");
            return;
        };
        let (gate, tenant) = (self.gate.clone(), tenant.clone());
        tokio::spawn(async move {
            gate.took(&tenant, &lines).await;
            drop(permit);
        });
    }

    /// [`RedisGated::invalidate`] the SKUs `skus` names in `result`, when it is fresh (a
    /// replay or a refusal changed nothing). Returns `result`.
    async fn invalidate_fresh<T: Send + Sync>(
        &self,
        tenant: &Tenant,
        result: Result<Executed<T>>,
        skus: fn(&T) -> Vec<&str>,
    ) -> Result<Executed<T>> {
        if let Ok(Executed::Fresh(v)) = &result {
            self.invalidate(tenant, &skus(v)).await;
        }
        result
    }
}

#[async_trait]
impl StockStore for RedisGated {
    async fn health(&self) -> Result<()> {
        self.stock.health().await
    }
    async fn create_sku(&self, tenant: &Tenant, req: CreateSku, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        self.stock.create_sku(tenant, req, idem).await
    }
    async fn get_sku(&self, tenant: &Tenant, sku: &str) -> Result<Sku> {
        self.stock.get_sku(tenant, sku).await
    }
    async fn set_backorder_limit(&self, tenant: &Tenant, sku: &str, limit: i64) -> Result<Sku> {
        self.stock.set_backorder_limit(tenant, sku, limit).await
    }
    async fn set_low_stock(&self, tenant: &Tenant, sku: &str, below: Option<i64>) -> Result<Sku> {
        self.stock.set_low_stock(tenant, sku, below).await
    }
    async fn put_kit(&self, tenant: &Tenant, kit: allot_core::kit::Kit) -> Result<allot_core::kit::Kit> {
        self.stock.put_kit(tenant, kit).await
    }
    async fn kits(&self, tenant: &Tenant, names: &[String]) -> Result<allot_core::kit::Kits> {
        self.stock.kits(tenant, names).await
    }
    async fn delete_kit(&self, tenant: &Tenant, kit: &str) -> Result<()> {
        self.stock.delete_kit(tenant, kit).await
    }
    async fn adjust(&self, tenant: &Tenant, req: Adjustment, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        let result = self.stock.adjust(tenant, req, idem).await;
        self.invalidate_fresh(tenant, result, |s| vec![s.sku.as_str()]).await
    }
    async fn ledger(&self, tenant: &Tenant, sku: &str, page: Page<i64>) -> Result<Listed<LedgerEntry, i64>> {
        self.stock.ledger(tenant, sku, page).await
    }
    async fn allocate(
        &self,
        tenant: &Tenant,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        if req.strategy.needs_redis() {
            return self
                .gate
                .allocate((&*self.stock, &*self.units), tenant, req, idem)
                .await;
        }
        // Taken in the database without an admission: the counters follow.
        let lines = req.lines.clone();
        let result = self.stock.allocate(tenant, req, idem).await;
        if matches!(result, Ok(Executed::Fresh(_))) {
            self.took_later(tenant, lines);
        }
        result
    }
    async fn get_allocation(&self, tenant: &Tenant, id: &str) -> Result<Allocation> {
        self.stock.get_allocation(tenant, id).await
    }
    async fn return_allocation(&self, tenant: &Tenant, req: Return, idem: Keyed<Return>) -> Result<Executed<Return>> {
        let result = self.stock.return_allocation(tenant, req, idem).await;
        // Sellable returns are back in stock: the counters rebuild from the database.
        self.invalidate_fresh(tenant, result, |r| r.lines.iter().map(|l| l.sku.as_str()).collect())
            .await
    }
    async fn cancel_allocation(
        &self,
        tenant: &Tenant,
        req: Cancel,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let result = self.stock.cancel_allocation(tenant, req, idem).await;
        // Stock came back: the counters rebuild from the database on next use.
        self.invalidate_fresh(tenant, result, |a| a.lines.iter().map(|l| l.sku.as_str()).collect())
            .await
    }
    async fn add_incoming(&self, tenant: &Tenant, req: Incoming, idem: Keyed<Incoming>) -> Result<Executed<Incoming>> {
        // Incoming is not on hand: the counters stay as they are.
        self.stock.add_incoming(tenant, req, idem).await
    }
    async fn receive(&self, tenant: &Tenant, req: Receipt, idem: Keyed<Receipt>) -> Result<Executed<Receipt>> {
        let result = self.stock.receive(tenant, req, idem).await;
        // Stock arrived: the counters rebuild from the database on next use.
        self.invalidate_fresh(tenant, result, |r| vec![r.sku.as_str()]).await
    }
    async fn move_stock(&self, tenant: &Tenant, req: Move, idem: Keyed<Move>) -> Result<Executed<Move>> {
        let result = self.stock.move_stock(tenant, req, idem).await;
        // Available changed (either way): the counters rebuild from the database on next use.
        self.invalidate_fresh(tenant, result, |m| vec![m.sku.as_str()]).await
    }
    async fn list_skus(
        &self,
        tenant: &Tenant,
        filter: &allot_core::SkuFilter,
        page: Page<Option<&str>>,
    ) -> Result<Listed<Sku, String>> {
        self.stock.list_skus(tenant, filter, page).await
    }
    async fn list_allocations(&self, tenant: &Tenant, page: Page<Option<&str>>) -> Result<Listed<Allocation, String>> {
        self.stock.list_allocations(tenant, page).await
    }
}

/// Locations pass through. A transfer leaves a SKU's total as it was (the counter gates the
/// total); a level set by compare-and-set changes it, so the counter is rebuilt on next use.
#[async_trait]
impl LocationStore for RedisGated {
    async fn create_location(&self, tenant: &Tenant, location: Location, max_locations: u32) -> Result<Location> {
        self.locations.create_location(tenant, location, max_locations).await
    }
    async fn list_locations(&self, tenant: &Tenant) -> Result<Vec<Location>> {
        self.locations.list_locations(tenant).await
    }
    async fn transfer(&self, tenant: &Tenant, req: Transfer, idem: Keyed<Transfer>) -> Result<Executed<Transfer>> {
        self.locations.transfer(tenant, req, idem).await
    }
    async fn set_level(&self, tenant: &Tenant, req: SetLevel, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        let result = self.locations.set_level(tenant, req, idem).await;
        self.invalidate_fresh(tenant, result, |s| vec![s.sku.as_str()]).await
    }
}

#[async_trait]
impl HoldStore for RedisGated {
    async fn create_hold(&self, tenant: &Tenant, req: HoldRequest, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        if req.take.strategy.needs_redis() {
            return self
                .gate
                .create_hold((&*self.stock, &*self.units), &*self.holds, tenant, req, idem)
                .await;
        }
        let lines = req.take.lines.clone();
        let result = self.holds.create_hold(tenant, req, idem).await;
        if matches!(result, Ok(Executed::Fresh(_))) {
            self.took_later(tenant, lines);
        }
        result
    }
    async fn get_hold(&self, tenant: &Tenant, id: &str) -> Result<Hold> {
        self.holds.get_hold(tenant, id).await
    }
    async fn confirm_hold(
        &self,
        tenant: &Tenant,
        req: Confirm,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        // What a partial confirm releases is back in stock: the hold's counters are rebuilt.
        let held = match req.part {
            Some(_) => self.holds.get_hold(tenant, &req.id).await.ok(),
            None => None,
        };
        let result = self.holds.confirm_hold(tenant, req, idem).await;
        if let (Some(h), Ok(Executed::Fresh(_))) = (held, &result) {
            let skus: Vec<&str> = h.lines.iter().map(|l| l.sku.as_str()).collect();
            self.invalidate(tenant, &skus).await;
        }
        result
    }
    async fn release_hold(&self, tenant: &Tenant, req: Release, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        let result = self.holds.release_hold(tenant, req, idem).await;
        // Its stock is back (released, or found expired): the counters rebuild from the
        // database. A release repeated answers fresh too, so adding its lines back would count
        // them twice; dropping twice does not.
        if let Ok(Executed::Fresh(hold)) = &result {
            let skus: Vec<&str> = hold.lines.iter().map(|l| l.sku.as_str()).collect();
            self.invalidate(tenant, &skus).await;
        }
        result
    }
    async fn list_holds(
        &self,
        tenant: &Tenant,
        of: (allot_core::hold::HoldStatus, Option<&str>),
        page: Page<Option<&str>>,
    ) -> Result<Listed<Hold, String>> {
        self.holds.list_holds(tenant, of, page).await
    }
    async fn extend_hold(&self, tenant: &Tenant, id: &str, ttl_ms: u64, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        self.holds.extend_hold(tenant, id, ttl_ms, idem).await
    }
}
