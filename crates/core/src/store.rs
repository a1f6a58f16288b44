//! The store traits every backend implements, and the idempotency plumbing.
//!
//! Idempotency (API.md, Conventions): the first request's status and body are stored in
//! the same transaction as its effect. The store does not know the wire format, so the
//! caller passes a `render` function that turns the result into the stored response; the
//! store calls it inside the transaction. Only successful requests are stored: a failed
//! request changes nothing, so a retry of it runs again.

use crate::error::Result;
use crate::model::*;
use crate::strategy::{Backend, Strategy};
use async_trait::async_trait;

/// A response as stored for an idempotency key: HTTP status and body bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// HTTP status code.
    pub status: u16,
    /// The exact body bytes first sent.
    pub body: Vec<u8>,
}

/// Renders a result into the response that is stored with it.
pub type Render<T> = Box<dyn Fn(&T) -> StoredResponse + Send + Sync>;

/// What a request carried for idempotency.
pub struct Idempotency<T> {
    /// The `Idempotency-Key` header value (validated).
    pub key: String,
    /// Identifies the request (method, path, canonical body); the same key with another
    /// fingerprint is `idempotency_key_reused`.
    pub fingerprint: String,
    /// Turns the result into the response to store.
    pub render: Render<T>,
}

/// Either the result of running the request now, or the stored response of its first run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Executed<T> {
    /// Ran now.
    Fresh(T),
    /// Replayed from the idempotency store.
    Replayed(StoredResponse),
}

/// Fungible stock per SKU. Implemented by every backend; the same conformance suite runs
/// against each.
///
/// Errors: `not_found`, `already_exists`, `insufficient_stock`, `contention`,
/// `idempotency_key_reused`, `idempotency_key_in_use`, `unavailable`, `internal`.
#[async_trait]
pub trait StockStore: Send + Sync + 'static {
    /// Which backend this is.
    fn backend(&self) -> Backend;

    /// Whether this backend can run `strategy`.
    fn supports(&self, strategy: Strategy) -> bool;

    /// `Ok` when this backend can run `strategy`, else `unsupported_strategy` naming both.
    fn require(&self, strategy: Strategy) -> Result<()> {
        if self.supports(strategy) {
            Ok(())
        } else {
            Err(crate::AllotError::unsupported_strategy(
                strategy.name(),
                self.backend().name(),
            ))
        }
    }

    /// The strategy used when neither the request nor the server names one.
    fn default_strategy(&self) -> Strategy;

    /// Cheap round trip to the store; `unavailable` when it is down.
    async fn health(&self) -> Result<()>;

    /// Create a SKU with its initial stock spread evenly over its buckets, and its
    /// `created` ledger entry. `already_exists` if it exists.
    async fn create_sku(&self, req: CreateSku, idem: Option<Idempotency<Sku>>) -> Result<Executed<Sku>>;

    /// Read a SKU's totals.
    async fn get_sku(&self, sku: &str) -> Result<Sku>;

    /// Change `on_hand` by `delta` (relative), spreading available stock evenly over the
    /// buckets; writes an `adjustment` ledger entry. A negative delta beyond `available` is
    /// `insufficient_stock`.
    async fn adjust(&self, req: Adjustment, idem: Option<Idempotency<Sku>>) -> Result<Executed<Sku>>;

    /// Ledger entries of a SKU with `id > after`, oldest first, at most `limit`.
    async fn ledger(&self, sku: &str, after: i64, limit: u32) -> Result<Vec<LedgerEntry>>;

    /// Allocate all lines or none, with the request's strategy.
    async fn allocate(
        &self,
        req: AllocationRequest,
        idem: Option<Idempotency<Allocation>>,
    ) -> Result<Executed<Allocation>>;

    /// Read an allocation.
    async fn get_allocation(&self, id: &str) -> Result<Allocation>;

    /// Spread each SKU's available stock evenly over its buckets (one SKU, or all
    /// segmented SKUs). Returns how many SKUs were changed. No ledger entry: totals stay.
    async fn rebalance(&self, sku: Option<&str>) -> Result<u64>;

    /// Check conservation for every SKU in one snapshot.
    async fn audit(&self) -> Result<AuditReport>;

    /// Delete at most `max_rows` stored idempotency responses created before `before`.
    /// Returns how many were deleted. `allot serve` calls it periodically with
    /// `now - idempotency_retention_ms` (API.md keeps keys at least 24 h).
    async fn prune_idempotency_keys(&self, before: chrono::DateTime<chrono::Utc>, max_rows: u32) -> Result<u64>;
}
