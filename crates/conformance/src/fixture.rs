//! What a case runs on: a fresh, migrated store of the backend under test, its injected
//! clock and limits, a way to open a second store on the same database, and the builders
//! the cases share.

use allot_core::store::{Executed, Idempotency, Keyed, StoredResponse};
use allot_core::{validate, Allocation, AllocationRequest, Database, Limits, TestClock};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future, as the backend's hooks return them.
pub type Boxed<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The tenant of a case (every store method takes one).
pub static T: std::sync::LazyLock<allot_core::Tenant> = std::sync::LazyLock::new(allot_core::Tenant::default_tenant);

/// A store under test. Made by the backend's runner ([`Fixture::new`]); a case ends with
/// [`Fixture::finish`], which requires a clean audit and removes the database.
pub struct Fixture {
    /// The store (its request paths and its maintenance).
    pub store: Arc<dyn Database>,
    /// The clock the store was opened with.
    pub clock: Arc<TestClock>,
    /// The limits the store was opened with.
    pub limits: Limits,
    reopen: Box<dyn Fn() -> Boxed<Arc<dyn Database>> + Send + Sync>,
    cleanup: Option<Boxed<()>>,
}

impl Fixture {
    /// A fixture of `store` (opened with `clock` and `limits`); `reopen` opens another store
    /// on the same database (another pool, as another process would), `cleanup` removes
    /// the database after the case.
    pub fn new(
        store: Arc<dyn Database>,
        (clock, limits): (Arc<TestClock>, Limits),
        reopen: Box<dyn Fn() -> Boxed<Arc<dyn Database>> + Send + Sync>,
        cleanup: Boxed<()>,
    ) -> Self {
        Fixture {
            store,
            clock,
            limits,
            reopen,
            cleanup: Some(cleanup),
        }
    }

    /// Limits the suite opens stores with: the defaults, with holds as short as 50 ms, and
    /// readers of the feed that only a wake-up brings back early (a minute's poll).
    pub fn limits() -> Limits {
        Limits {
            min_hold_ttl_ms: 50,
            event_poll_interval_ms: 60_000,
            ..Default::default()
        }
    }

    /// A second store on the same database.
    pub async fn reopen(&self) -> Arc<dyn Database> {
        (self.reopen)().await
    }

    /// End the case: the audit must be clean; then the database goes.
    pub async fn finish(mut self) {
        let audit = self.store.audit(None).await.unwrap();
        assert!(audit.is_clean(), "audit: {audit:?}");
        drop(self.store);
        if let Some(cleanup) = self.cleanup.take() {
            cleanup.await;
        }
    }

    /// Create SKU `sku` of tenant [`T`] with `on_hand`.
    pub async fn create_sku(&self, sku: &str, on_hand: i64) {
        self.create_sku_of(&T, sku, on_hand).await;
    }

    /// Create SKU `sku` of `tenant` with `on_hand`.
    pub async fn create_sku_of(&self, tenant: &allot_core::Tenant, sku: &str, on_hand: i64) {
        let req =
            validate::create_sku(body(serde_json::json!({"sku": sku, "on_hand": on_hand})), &self.limits).unwrap();
        self.store.create_sku(tenant, req, None).await.unwrap();
    }

    /// An allocation of `quantity` of `sku` with the store's default strategy.
    pub fn allocation(&self, sku: &str, quantity: i64) -> AllocationRequest {
        let b = body(serde_json::json!({"lines": [{"sku": sku, "quantity": quantity}]}));
        let id = uuid::Uuid::new_v4().to_string();
        validate::allocation(id, b, self.store.default_strategy(), &self.limits).unwrap()
    }

    /// Allocate `quantity` of `sku` in [`T`]; the allocation.
    pub async fn allocate(&self, sku: &str, quantity: i64) -> Allocation {
        fresh(self.store.allocate(&T, self.allocation(sku, quantity), None).await)
    }
}

/// A request body from JSON (as the server would parse it).
pub fn body<B: serde::de::DeserializeOwned>(v: serde_json::Value) -> B {
    serde_json::from_value(v).unwrap()
}

/// The fresh value of a write that must have run now.
pub fn fresh<T: std::fmt::Debug>(r: allot_core::Result<Executed<T>>) -> T {
    match r {
        Ok(Executed::Fresh(v)) => v,
        other => panic!("expected a fresh result: {other:?}"),
    }
}

/// The stored response of a write that must have been replayed.
pub fn replayed<T: std::fmt::Debug>(r: allot_core::Result<Executed<T>>) -> StoredResponse {
    match r {
        Ok(Executed::Replayed(s)) => s,
        other => panic!("expected a replay: {other:?}"),
    }
}

/// An idempotency key `key` whose stored response is the value's JSON under `code`; the
/// fingerprint is the key's own (another fingerprint is another request).
pub fn key<T: serde::Serialize + 'static>(key: &str) -> Keyed<T> {
    Some(Idempotency {
        key: key.into(),
        fingerprint: format!("fp-{key}"),
        render: Box::new(|v: &T| StoredResponse {
            code: 200,
            body: serde_json::to_vec(v).unwrap(),
        }),
    })
}

/// The same key with another fingerprint: another request under a used key.
pub fn reused<T: serde::Serialize + 'static>(k: &str) -> Keyed<T> {
    key(k).map(|i| Idempotency {
        fingerprint: "another request".into(),
        ..i
    })
}
