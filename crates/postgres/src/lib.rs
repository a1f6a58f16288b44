//! # allot-postgres
//!
//! The PostgreSQL backend: tokio-postgres over a deadpool-postgres pool, prepared
//! statements cached per connection, every strategy written as SQL.
//!
//! Errors are mapped by SQLSTATE (PostgreSQL docs, Appendix A "PostgreSQL Error Codes"):
//! 40001 serialization_failure and 40P01 deadlock_detected are retried (bounded by
//! `Limits::max_tx_retries`, jittered backoff) and end as `contention`, never as a 500;
//! class 08 (connection exceptions), 57P01..03 (shutdown) and 53xxx (insufficient resources)
//! and pool timeouts are `unavailable`.
//!
//! The tree: `engine/` (the store and pool, the transaction envelope, SQLSTATE mapping,
//! migrations, LISTEN, the `batched` combiner and lanes, and the stock machinery several
//! domains share), then one folder or file per domain: `stock/` (SKUs, adjustments,
//! allocations, locations, transfers, cancels, returns), `holds/`, `units/`, `bookings`,
//! `jobs/`, `keys`, `events` (the change feed), `audit/`. A domain uses the engine and the core, never a sibling domain.

mod audit;
mod bookings;
mod engine;
mod events;
mod holds;
mod in_tx;
#[cfg(test)]
mod in_tx_tests;
mod instances;
mod jobs;
mod keys;
mod maintenance;
mod stock;
mod units;
mod webhooks;

pub use engine::batched::{batch_write_sql, batches_in_flight_per_lane};
pub use engine::config::PgConfig;
pub use engine::connect::{PgConnection, PgTarget};
pub use engine::errors::{is_retryable, map_error};
pub use engine::migrate::migrate;
pub use engine::pooler::{check_not_transaction_pooled, transaction_pooler_seen, TRANSACTION_POOLER_ADVICE};
pub use engine::store::PgStore;
pub use engine::tls::{RootCerts, SslMode};
pub use jobs::enqueue_in;
pub use stock::atomic_allocation_sql;
