//! The connection settings of a [`PgStore`](super::store::PgStore).

/// Connection settings of a [`PgStore`].
#[derive(Debug, Clone)]
pub struct PgConfig {
    /// `postgres://user@host:port/db?options=…` (libpq's URL form; a library caller may also
    /// give the key/value form), with `sslmode` and `sslrootcert` as in libpq
    /// ([`crate::PgTarget`]).
    pub url: String,
    /// The database itself, when `url` goes through a transaction pooler (PgBouncer
    /// `pool_mode = transaction`): migrations, `LISTEN` and the description of statements go
    /// here, and pooled connections send only unnamed statements (see
    /// [`crate::engine::conn`]). `None` (the default): `url` is the database, or a pooler in
    /// session mode.
    pub direct_url: Option<String>,
    /// Most pooled connections. Default 32.
    pub pool_size: usize,
    /// How long a request waits for a pooled connection before `unavailable`, ms. Default 5000.
    pub pool_wait_ms: u64,
    /// Limits (retry bounds among them).
    pub limits: allot_core::Limits,
    /// Whether `naive` may run.
    pub allow_unsafe_strategies: bool,
    /// Where "now" comes from. Default [`allot_core::SystemClock`].
    pub clock: std::sync::Arc<dyn allot_core::Clock>,
}

impl PgConfig {
    /// Defaults for `url`.
    pub fn new(url: impl Into<String>) -> Self {
        PgConfig {
            url: url.into(),
            direct_url: None,
            pool_size: 32,
            pool_wait_ms: 5000,
            limits: allot_core::Limits::default(),
            allow_unsafe_strategies: false,
            clock: std::sync::Arc::new(allot_core::SystemClock),
        }
    }
}
