//! [`Stores`]: a backend's request paths held apart, one handle per domain, so a decorator
//! replaces only the domains it changes (the Redis gate wraps stock, locations and holds;
//! units, bookings, jobs and keys reach the backend directly) and a test or a benchmark
//! wraps only the one it observes.

use crate::store::capabilities::{Capabilities, Capable};
use crate::store::{
    BookingStore, EventStore, HoldStore, JobStore, KeyStore, LocationStore, QueueStore, StockStore, Store, UnitStore,
    WebhookStore,
};
use std::sync::Arc;

/// One handle per domain trait, and the capabilities that go with them.
///
/// [`Stores::of`] points every handle at one backend. A decorator takes a `Stores` and gives
/// back another whose handles it wraps (`..stores` for the rest): `allot_redis::RedisGated::wrap`
/// replaces `stock`, `locations` and `holds` and adds the Redis strategies to
/// `capabilities`. Handlers call the domain they serve (`state.stores.jobs.enqueue(…)`).
#[derive(Clone)]
pub struct Stores {
    /// Backend, clock, strategies supported and defaults (as served by [`Capable`]).
    pub capabilities: Capabilities,
    /// SKUs, adjustments, the ledger, allocations, cancels and returns.
    pub stock: Arc<dyn StockStore>,
    /// Locations, transfers and levels.
    pub locations: Arc<dyn LocationStore>,
    /// Stock holds and unit holds.
    pub holds: Arc<dyn HoldStore>,
    /// Units and unit claims.
    pub units: Arc<dyn UnitStore>,
    /// Bookings on resources.
    pub bookings: Arc<dyn BookingStore>,
    /// The job queue.
    pub jobs: Arc<dyn JobStore>,
    /// Queue settings and job details.
    pub queues: Arc<dyn QueueStore>,
    /// API keys.
    pub keys: Arc<dyn KeyStore>,
    /// The change feed.
    pub events: Arc<dyn EventStore>,
    /// Webhook endpoints.
    pub webhooks: Arc<dyn WebhookStore>,
}

impl Stores {
    /// Every domain of `backend`, which implements them all (a `dyn Database` or a
    /// backend's own type coerces to `Arc<dyn Store>`).
    pub fn of(backend: Arc<dyn Store>) -> Self {
        Stores {
            capabilities: backend.capabilities().clone(),
            stock: backend.clone(),
            locations: backend.clone(),
            holds: backend.clone(),
            units: backend.clone(),
            bookings: backend.clone(),
            jobs: backend.clone(),
            queues: backend.clone(),
            keys: backend.clone(),
            events: backend.clone(),
            webhooks: backend,
        }
    }
}

impl Capable for Stores {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores")
            .field("capabilities", &self.capabilities)
            .finish_non_exhaustive()
    }
}
