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
    /// PostgreSQL's own address when the database URL goes through a transaction pooler
    /// (PgBouncer `pool_mode = transaction`): migrations and `LISTEN` use it, and pooled
    /// connections send only unnamed statements. Without it, a URL that leads to a
    /// transaction pooler is refused at open.
    pub direct_url: Option<String>,
    /// Whether `naive` may run (benchmarks only).
    pub allow_unsafe_strategies: bool,
    /// Where "now" comes from.
    pub clock: Arc<dyn Clock>,
    /// Whether to migrate (and create a missing SQLite file) or open what exists.
    pub mode: OpenMode,
}

/// How [`open`] treats the database's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OpenMode {
    /// Run the migrations first (a missing SQLite file is created): `allot serve`, `allot
    /// migrate`, the commands that write.
    #[default]
    Migrate,
    /// Open the database as it is, for commands that only read (`allot audit`, `allot keys
    /// list`): never create or migrate it, and refuse a database without allot's schema or
    /// at another version, saying what to run.
    Existing,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            limits: Limits::default(),
            pool_size: 32,
            pool_wait_ms: 5000,
            direct_url: None,
            allow_unsafe_strategies: false,
            clock: Arc::new(SystemClock),
            mode: OpenMode::Migrate,
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

/// Run the migrations of `url`'s backend (unless `opts.mode` is [`OpenMode::Existing`]) and
/// open its store.
///
/// Errors: `invalid_request` for a URL of no known scheme, and with [`OpenMode::Existing`]
/// for a database that does not exist or whose schema is not this build's; `unavailable`
/// when the database cannot be reached (saying what to do).
pub async fn open(url: &str, opts: &OpenOptions) -> Result<Arc<dyn Database>> {
    let store = open_backend(url, opts).await?;
    if opts.mode == OpenMode::Existing {
        if let Some(problem) = store.schema_version().await?.problem() {
            return Err(AllotError::invalid(format!("{}: {problem}", redacted(url))));
        }
    }
    Ok(store)
}

/// `url` without its passwords: the one of `postgres://user:password@…` and any
/// `password=` query pair, shown as `***`.
pub fn redacted(url: &str) -> String {
    let (base, query) = url.split_once('?').map_or((url, None), |(b, q)| (b, Some(q)));
    let base = match (base.find("://"), base.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => match base[scheme + 3..at].split_once(':') {
            Some((user, _)) => format!("{}{user}:***{}", &base[..scheme + 3], &base[at..]),
            None => base.to_string(),
        },
        _ => base.to_string(),
    };
    let Some(query) = query else { return base };
    let pairs: Vec<String> = query
        .split('&')
        .map(|p| {
            if p.starts_with("password=") {
                "password=***".to_string()
            } else {
                p.to_string()
            }
        })
        .collect();
    format!("{base}?{}", pairs.join("&"))
}

async fn open_backend(url: &str, opts: &OpenOptions) -> Result<Arc<dyn Database>> {
    match backend_of(url) {
        Some(Backend::Postgres) => {
            // Before anything session-scoped (the migrations' advisory lock) runs on it.
            if opts.direct_url.is_none() {
                allot_postgres::check_not_transaction_pooled(url).await?;
            }
            let direct = opts.direct_url.as_deref().unwrap_or(url);
            match opts.mode {
                OpenMode::Migrate => allot_postgres::migrate(direct).await?,
                // Reached once here, so a failure says what to do (the pool's would not).
                OpenMode::Existing => drop(allot_postgres::PgTarget::parse(direct)?.connect().await?),
            }
            let mut pg = allot_postgres::PgConfig::new(url);
            pg.direct_url = opts.direct_url.clone();
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
            sc.migrate = opts.mode == OpenMode::Migrate;
            let store = tokio::task::spawn_blocking(move || allot_sqlite::SqliteStore::open(&sc))
                .await
                .map_err(|e| AllotError::Internal(e.to_string()))??;
            Ok(Arc::new(store))
        }
        None => Err(AllotError::invalid(format!(
            "database url `{}` is neither sqlite://… nor postgres://…",
            redacted(url)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(redacted("postgres://u:secret@h/db"), "postgres://u:***@h/db");
        assert_eq!(redacted("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redacted("sqlite://a.db"), "sqlite://a.db");
        assert_eq!(
            redacted("postgres://u@h/db?password=s&sslmode=require"),
            "postgres://u@h/db?password=***&sslmode=require"
        );
    }

    #[test]
    fn urls_name_their_backend() {
        assert_eq!(backend_of("postgres://u@h/db"), Some(Backend::Postgres));
        assert_eq!(backend_of("postgresql://u@h/db"), Some(Backend::Postgres));
        assert_eq!(backend_of("sqlite://allot.db"), Some(Backend::Sqlite));
        assert_eq!(backend_of("mysql://x"), None);
    }
}
