//! The engine every domain builds on, and nothing domain-specific but what several domains
//! share: the store and its writer thread (`store`, `config`, `clock`), the one transaction
//! envelope with idempotency (`tx`), result-code mapping and strict reads of stored names and
//! documents (`errors`), opening and migrating the file (`migrate`), and the stock machinery
//! allocations, holds and unit claims all use: taking a line across a SKU's rows
//! (`placement`), a location's rows (`location_rows`), records several domains read or write
//! (`records`), overdue holds (`overdue`) and the backorders filled where stock comes back
//! (`fills`, below `location_rows` and `overdue`, which both call it). The same rooms as the PostgreSQL backend's
//! engine, less what SQLite does not need (a pool, LISTEN, the `batched` combiner).
//!
//! **Invariant:** a domain (`stock/`, `holds/`, `units/`, `bookings`, `jobs`, `keys`,
//! `audit/`) uses the engine and the core, never a sibling domain; the engine uses no domain.

pub(crate) mod clock;
pub(crate) mod config;
pub(crate) mod errors;
pub(crate) mod fills;
pub(crate) mod location_rows;
pub(crate) mod migrate;
pub(crate) mod overdue;
pub(crate) mod placement;
pub(crate) mod records;
pub(crate) mod store;
pub(crate) mod tx;
pub(crate) mod unit_picks;
