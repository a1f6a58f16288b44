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
mod clock;
mod expiry;
mod holds;
mod jobs;
mod keys;
mod stock;
mod store;
mod tx;
mod units;

pub use store::SqliteStore;

use allot_core::AllotError;
use rusqlite::ErrorCode;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Settings of a [`SqliteStore`].
#[derive(Debug, Clone)]
pub struct SqliteConfig {
    /// Path of the database file (created when missing).
    pub path: std::path::PathBuf,
    /// Limits.
    pub limits: allot_core::Limits,
    /// How long a write waits for another process's lock before `contention`, ms. Default 5000.
    pub busy_timeout_ms: u64,
    /// Where "now" comes from. Default [`allot_core::SystemClock`].
    pub clock: std::sync::Arc<dyn allot_core::Clock>,
}

impl SqliteConfig {
    /// Defaults for `path`.
    pub fn new(path: impl Into<std::path::PathBuf>) -> Self {
        SqliteConfig {
            path: path.into(),
            limits: allot_core::Limits::default(),
            busy_timeout_ms: 5000,
            clock: std::sync::Arc::new(allot_core::SystemClock),
        }
    }
}

/// Parse `sqlite://relative.db`, `sqlite:///absolute/path.db` or `sqlite::memory:`-free
/// plain forms into a file path. `None` when the URL is not a SQLite URL.
pub fn path_from_url(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    if rest.is_empty() {
        return None;
    }
    Some(std::path::PathBuf::from(rest))
}

/// Map a rusqlite error to the domain error by SQLite result code.
pub fn map_error(e: rusqlite::Error) -> AllotError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => AllotError::Contention {
                attempts: 1,
                retry_after_ms: 100,
            },
            ErrorCode::CannotOpen | ErrorCode::SystemIoFailure | ErrorCode::DiskFull | ErrorCode::ReadOnly => {
                AllotError::Unavailable(format!("sqlite: {e}"))
            }
            _ => AllotError::Internal(format!("sqlite: {e}")),
        },
        _ => AllotError::Internal(format!("sqlite: {e}")),
    }
}

/// Open the file, set WAL mode and pragmas, and run the versioned migrations (refinery).
pub fn open(cfg: &SqliteConfig) -> Result<rusqlite::Connection, AllotError> {
    let mut conn = rusqlite::Connection::open(&cfg.path).map_err(map_error)?;
    conn.busy_timeout(std::time::Duration::from_millis(cfg.busy_timeout_ms))
        .map_err(map_error)?;
    conn.pragma_update(None, "journal_mode", "WAL").map_err(map_error)?;
    // FULL: a commit survives power loss, as a ledger should.
    conn.pragma_update(None, "synchronous", "FULL").map_err(map_error)?;
    embedded::migrations::runner()
        .run(&mut conn)
        .map_err(|e| AllotError::Internal(format!("sqlite migration failed: {e}")))?;
    Ok(conn)
}

/// Run the migrations on the file at `path` and close it.
pub fn migrate(path: &std::path::Path) -> Result<(), AllotError> {
    open(&SqliteConfig::new(path)).map(|_| ())
}

/// Column `i` parsed by `parse`; a stored name it does not know is a conversion error (never
/// a silent default).
pub(crate) fn stored_name<T>(r: &rusqlite::Row<'_>, i: usize, parse: fn(&str) -> Option<T>) -> rusqlite::Result<T> {
    let s: String = r.get(i)?;
    parse(&s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("unknown stored name `{s}`").into(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            path_from_url("sqlite://a.db").unwrap(),
            std::path::PathBuf::from("a.db")
        );
        assert_eq!(
            path_from_url("sqlite:///tmp/a.db").unwrap(),
            std::path::PathBuf::from("/tmp/a.db")
        );
        assert!(path_from_url("postgres://x").is_none());
        assert!(path_from_url("sqlite://").is_none());
    }
}
