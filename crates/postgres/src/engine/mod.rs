//! The engine every domain builds on, and nothing domain-specific but what several domains
//! share: the store and its pool (`store`, `config`), the one transaction envelope with
//! idempotency and bounded retry (`tx`), transactions begun and ended by hand to pipeline
//! `BEGIN` and `COMMIT` (`pipeline`), when to refresh planner statistics (`analyze`), SQLSTATE mapping and safe row decoding (`errors`),
//! migrations (`migrate`), reaching the server with TLS and errors that say what
//! to do (`connect`, `tls`), LISTEN/NOTIFY (`listen`), the `batched` request combiner with no
//! database in it (`combiner`), and the stock machinery allocations, holds and unit claims
//! all use: taking a line across a SKU's rows (`placement`), a location's rows
//! (`location_rows`), records read by several domains (`records`), overdue holds
//! (`overdue`), the backorders filled where stock comes back (`fills`) and the writers' gate
//! of a hot SKU's per-request writers (`sku_gate`).
//!
//! **Invariant:** a domain (`stock/`, `holds/`, `units/`, `bookings`, `jobs/`, `keys`,
//! `audit/`) uses the engine and the core, never a sibling domain; the engine uses no domain.

pub(crate) mod analyze;
pub(crate) mod batched;
pub(crate) mod caller_tx;
pub(crate) mod combiner;
pub(crate) mod config;
pub(crate) mod conn;
pub(crate) mod connect;
pub(crate) mod errors;
pub(crate) mod fills;
pub(crate) mod flat;
pub(crate) mod listen;
pub(crate) mod location_rows;
pub(crate) mod migrate;
pub(crate) mod overdue;
pub(crate) mod pipeline;
pub(crate) mod placement;
pub(crate) mod pooler;
pub(crate) mod records;
pub(crate) mod sku_gate;
pub(crate) mod store;
#[cfg(test)]
pub(crate) mod test_schema;
pub(crate) mod tls;
pub(crate) mod trace;
pub(crate) mod tx;
pub(crate) mod unit_claims;
