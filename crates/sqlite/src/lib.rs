//! # allot-sqlite
//!
//! The embedded default backend: one SQLite file in WAL mode, one writer thread that owns
//! the connection, and every request as one `BEGIN IMMEDIATE` transaction on that thread
//! (strategy `serialized`). Requests reach the thread through a channel; a reply comes back
//! on a oneshot. Because all work is serial, the order of evaluation is exact.
//!
//! Errors map by SQLite result code (not message text): `SQLITE_BUSY`/`SQLITE_LOCKED`
//! (another process holds the write lock past `busy_timeout`) are `contention`;
//! `SQLITE_CANTOPEN`, `SQLITE_IOERR`, `SQLITE_FULL` are `unavailable`.

mod audit;
mod bookings;
mod engine;
mod events;
mod holds;
mod instances;
mod jobs;
mod keys;
mod maintenance;
mod stock;
mod units;
mod webhooks;

pub use engine::config::{path_from_url, SqliteConfig};
pub use engine::errors::map_error;
pub use engine::migrate::{migrate, open};
pub use engine::store::SqliteStore;
