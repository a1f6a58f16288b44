//! # allot-store
//!
//! The facade over the backends (sqlx's `AnyPool` idea): [`open`] takes a database URL and
//! returns the migrated store of its backend as `Arc<dyn Database>` (its request paths and its
//! maintenance). `allot serve`, `allot
//! migrate`, `allot audit`, the benchmarks and the tests all open stores here, so a third
//! backend is added in one place.

use allot_core::{AllotError, Backend, Clock, Database, Limits, Result, SystemClock};
use std::sync::Arc;

/// How to open a store; defaults fit `allot serve`.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Named limits.
    pub limits: Limits,
    /// PostgreSQL pool size. Default 32.
    pub pool_size: usize,
    /// How long a request waits for a pooled connection before `unavailable`, ms. Default 5000.
    pub pool_wait_ms: u64,
    /// Whether `naive` may run (benchmarks only).
    pub allow_unsafe_strategies: bool,
    /// Where "now" comes from.
    pub clock: Arc<dyn Clock>,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            limits: Limits::default(),
            pool_size: 32,
            pool_wait_ms: 5000,
            allow_unsafe_strategies: false,
            clock: Arc::new(SystemClock),
        }
    }
}

/// The backend a URL names: `postgres://…` / `postgresql://…`, or `sqlite://…`.
pub fn backend_of(url: &str) -> Option<Backend> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Some(Backend::Postgres)
    } else if allot_sqlite::path_from_url(url).is_some() {
        Some(Backend::Sqlite)
    } else {
        None
    }
}

/// Run the migrations of `url`'s backend and open its store.
///
/// Errors: `invalid_request` for a URL of no known scheme, `unavailable` when the database
/// cannot be reached.
pub async fn open(url: &str, opts: &OpenOptions) -> Result<Arc<dyn Database>> {
    match backend_of(url) {
        Some(Backend::Postgres) => {
            allot_postgres::migrate(url).await?;
            let mut pg = allot_postgres::PgConfig::new(url);
            pg.pool_size = opts.pool_size;
            pg.pool_wait_ms = opts.pool_wait_ms;
            pg.limits = opts.limits.clone();
            pg.allow_unsafe_strategies = opts.allow_unsafe_strategies;
            pg.clock = opts.clock.clone();
            Ok(Arc::new(allot_postgres::PgStore::connect(&pg)?))
        }
        Some(Backend::Sqlite) => {
            let path = allot_sqlite::path_from_url(url).expect("checked by backend_of");
            let mut sc = allot_sqlite::SqliteConfig::new(path);
            sc.limits = opts.limits.clone();
            sc.clock = opts.clock.clone();
            let store = tokio::task::spawn_blocking(move || allot_sqlite::SqliteStore::open(&sc))
                .await
                .map_err(|e| AllotError::Internal(e.to_string()))??;
            Ok(Arc::new(store))
        }
        None => Err(AllotError::invalid(format!(
            "database url `{url}` is neither sqlite://… nor postgres://…"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_their_backend() {
        assert_eq!(backend_of("postgres://u@h/db"), Some(Backend::Postgres));
        assert_eq!(backend_of("postgresql://u@h/db"), Some(Backend::Postgres));
        assert_eq!(backend_of("sqlite://allot.db"), Some(Backend::Sqlite));
        assert_eq!(backend_of("mysql://x"), None);
    }
}
