//! Server configuration and opening the store it names.

use crate::error::ApiError;
use allot_core::{AllotError, Database, Limits, Strategy};
use std::sync::Arc;

/// Everything `allot serve` needs. Built by the CLI from flags, environment and TOML.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `host:port` to listen on. Default `127.0.0.1:8080`.
    pub listen: String,
    /// `sqlite://file.db`, `sqlite:///abs/path.db` or `postgres://…`. Default `sqlite://allot.db`.
    pub database_url: String,
    /// PostgreSQL's own address when `database_url` goes through a transaction pooler
    /// ([`allot_store::OpenOptions::direct_url`]). Default `None`.
    pub direct_database_url: Option<String>,
    /// Strategy when a request names none; `None` means the backend's own default
    /// (`atomic` on PostgreSQL, `serialized` on SQLite).
    pub default_strategy: Option<Strategy>,
    /// Requests that name no strategy run as `auto` (each SKU's contention picks; its cold
    /// and hot strategies fall back to `default_strategy` where the store lacks them).
    pub default_auto: bool,
    /// Allow `naive` (it oversells; for the benchmark only).
    pub allow_unsafe_strategies: bool,
    /// Named limits.
    pub limits: Limits,
    /// PostgreSQL pool size.
    pub pool_size: usize,
    /// How long a request waits for a pooled connection, ms.
    pub pool_wait_ms: u64,
    /// How long stored idempotency responses are kept, ms (at least 24 h).
    pub idempotency_retention_ms: u64,
    /// How often the sweeper prunes expired idempotency responses, ms.
    pub sweep_interval_ms: u64,
    /// How often the lease sweeper rescues jobs and finalises expired holds and bookings, ms.
    pub hold_sweep_interval_ms: u64,
    /// How long completed, discarded and cancelled jobs are kept, ms.
    pub job_retention_ms: u64,
    /// How long events of the change feed are kept, ms. Default 7 days.
    pub event_retention_ms: u64,
    /// Every stock write (a SKU's creation, adjustments, allocations, their cancels and
    /// returns, holds and their confirms, releases and extends, transfers, incoming stock and
    /// receipts, unit receipts and claims, each operation of a batch) must carry an `Idempotency-Key`, as Shopify's
    /// inventory API requires on adjustments; one without is refused `400
    /// idempotency_key_required` and changes nothing. A level set needs none: its
    /// `compare_on_hand` makes it safe to retry. Default `false`.
    pub require_idempotency_key: bool,
    /// Webhook deliveries may go to loopback and private addresses (tests, a trusted
    /// network). Default `false`: such endpoints are refused when delivering.
    pub webhook_allow_private: bool,
    /// How long a delivery waits for the receiver's answer, ms. Default 10 000.
    pub webhook_timeout_ms: u64,
    /// Deliveries in flight at once, per instance. Default 16.
    pub webhook_concurrency: usize,
    /// How often new events are handed to webhook deliveries, ms. Default 100.
    pub webhook_dispatch_interval_ms: u64,
    /// One interval for every background task instead of each one's own, ms: the sweepers,
    /// the feed's sequencer, the scheduler, the queue-count fold and gauge, the heartbeat,
    /// the webhook dispatcher and its delivery workers' polls, the key cache's refresh, the
    /// metrics upkeep (its drain of the queued samples fell into some of `allot bench cost`'s
    /// windows and not others: 1.2 % of `unit_claim`). `None` (the default): each its own.
    /// `allot bench cost` sets an hour, so that what it counts per request holds no
    /// background work.
    pub background_interval_ms: Option<u64>,
    /// Redis for `redis_counter` / `redis_lock` (`redis://…`, or `redis+cluster://h:p,…` /
    /// a comma-separated list for a Redis Cluster). `None`: those strategies are
    /// `unsupported_strategy`.
    pub redis_url: Option<String>,
    /// Prefix of allot's Redis keys. Default `allot`.
    pub redis_key_prefix: String,
    /// Admission counters are rebuilt from the database after this long, ms. Default 60 000.
    pub redis_counter_ttl_ms: u64,
    /// TTL of a `redis_lock` lock (renewed by a watchdog while held), ms. Default 5000.
    pub redis_lock_ttl_ms: u64,
    /// HTTP limits: Host/Origin allow-lists, timeouts, concurrency, shutdown grace.
    pub http: crate::http::HttpLimits,
    /// Serve without keys on a non-loopback address while no key exists (a deliberate choice;
    /// without it such a server refuses to start).
    pub insecure_no_auth: bool,
    /// Requests per second of a key created without its own `rate_per_s` (token bucket,
    /// burst of one second's worth). Default 100 000: generous, since one checkout service
    /// may send a whole flash sale through one key; set tighter rates per key.
    pub key_rate_per_s: u32,
    /// Job claims one key may have waiting at once (`wait_ms > 0`). Default 64.
    pub key_long_polls: usize,
    /// Where "now" comes from: [`allot_core::SystemClock`], or a
    /// [`allot_core::TestClock`] in tests that move time instead of sleeping.
    pub clock: Arc<dyn allot_core::Clock>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: "127.0.0.1:8080".into(),
            database_url: "sqlite://allot.db".into(),
            direct_database_url: None,
            default_strategy: None,
            default_auto: false,
            allow_unsafe_strategies: false,
            limits: Limits::default(),
            pool_size: 32,
            pool_wait_ms: 5000,
            idempotency_retention_ms: 86_400_000,
            sweep_interval_ms: 60_000,
            hold_sweep_interval_ms: 1000,
            job_retention_ms: 86_400_000,
            event_retention_ms: 604_800_000,
            require_idempotency_key: false,
            webhook_allow_private: false,
            webhook_timeout_ms: 10_000,
            webhook_concurrency: 16,
            webhook_dispatch_interval_ms: 100,
            background_interval_ms: None,
            redis_url: None,
            redis_key_prefix: "allot".into(),
            redis_counter_ttl_ms: 60_000,
            redis_lock_ttl_ms: 5_000,
            http: crate::http::HttpLimits::default(),
            insecure_no_auth: false,
            key_rate_per_s: 100_000,
            key_long_polls: 64,
            clock: Arc::new(allot_core::SystemClock),
        }
    }
}

impl ServerConfig {
    /// `postgres` or `sqlite`, from the URL.
    pub fn backend_name(&self) -> &'static str {
        if self.is_postgres() {
            "postgres"
        } else {
            "sqlite"
        }
    }

    /// Whether `listen` is a loopback address (`127.0.0.0/8`, `::1`, `localhost`).
    pub fn listens_on_loopback(&self) -> bool {
        match self.listen.parse::<std::net::SocketAddr>() {
            Ok(a) => a.ip().is_loopback(),
            Err(_) => self.listen.split(':').next() == Some("localhost"),
        }
    }

    /// Whether the URL names PostgreSQL.
    pub fn is_postgres(&self) -> bool {
        allot_store::backend_of(&self.database_url) == Some(allot_core::Backend::Postgres)
    }

    /// How the store is opened under this configuration.
    pub fn open_options(&self) -> allot_store::OpenOptions {
        allot_store::OpenOptions {
            limits: self.limits.clone(),
            pool_size: self.pool_size,
            pool_wait_ms: self.pool_wait_ms,
            direct_url: self.direct_database_url.clone(),
            allow_unsafe_strategies: self.allow_unsafe_strategies,
            clock: self.clock.clone(),
            mode: allot_store::OpenMode::Migrate,
        }
    }
}

/// Run migrations and open the store named by `cfg.database_url` (through
/// [`allot_store::open`]).
///
/// Errors: `invalid_request` for a URL of no known scheme, `unavailable` when the database
/// cannot be reached.
pub async fn open_store(cfg: &ServerConfig) -> Result<Arc<dyn Database>, ApiError> {
    Ok(allot_store::open(&cfg.database_url, &cfg.open_options()).await?)
}

/// The Redis gate named by `cfg.redis_url`, if any (no connection is made yet: a server starts
/// while Redis is down, and only the Redis strategies answer `unavailable`).
///
/// Errors: `invalid_request` for a URL that is not a Redis URL; `unsupported_strategy` when
/// the database is not PostgreSQL (the Redis strategies need its fencing and atomic paths).
pub fn open_redis(cfg: &ServerConfig) -> Result<Option<Arc<allot_redis::RedisGate>>, ApiError> {
    let Some(url) = cfg.redis_url.as_deref().filter(|u| !u.is_empty()) else {
        return Ok(None);
    };
    if !cfg.is_postgres() {
        return Err(AllotError::unsupported_strategy("redis_counter", "sqlite").into());
    }
    let mut rc = allot_redis::RedisConfig::new(url);
    rc.key_prefix = cfg.redis_key_prefix.clone();
    rc.counter_ttl_ms = cfg.redis_counter_ttl_ms;
    rc.lock_ttl_ms = cfg.redis_lock_ttl_ms;
    rc.lock_max_attempts = cfg.limits.redis_lock_max_attempts;
    Ok(Some(Arc::new(allot_redis::RedisGate::new(rc)?)))
}
