//! `allot serve`: its flags and the server configuration they make.

use crate::*;

#[derive(Args, Clone)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Address to listen on.
    #[arg(long, env = "ALLOT_LISTEN", default_value = "127.0.0.1:8080")]
    pub(crate) listen: String,
    /// Strategy for requests that name none (default: batched on PostgreSQL, serialized on SQLite).
    #[arg(long, env = "ALLOT_DEFAULT_STRATEGY")]
    pub(crate) default_strategy: Option<String>,
    /// Allow `naive` (it oversells; it exists to show that in the benchmark).
    #[arg(long, env = "ALLOT_ALLOW_UNSAFE_STRATEGIES")]
    pub(crate) allow_unsafe_strategies: bool,
    /// PostgreSQL connections in the pool.
    #[arg(long, env = "ALLOT_POOL_SIZE", default_value_t = 32)]
    pub(crate) pool_size: usize,
    /// How long a request waits for a pooled connection before 503, ms.
    #[arg(long, env = "ALLOT_POOL_WAIT_MS", default_value_t = 5000)]
    pub(crate) pool_wait_ms: u64,
    /// How long stored Idempotency-Key responses are kept, ms (at least 24 h).
    #[arg(long, env = "ALLOT_IDEMPOTENCY_RETENTION_MS", default_value_t = 86_400_000,
          value_parser = clap::value_parser!(u64).range(86_400_000..))]
    pub(crate) idempotency_retention_ms: u64,
    /// How often expired idempotency responses are pruned, ms.
    #[arg(long, env = "ALLOT_SWEEP_INTERVAL_MS", default_value_t = 60_000)]
    pub(crate) sweep_interval_ms: u64,
    /// How often expired holds are finalised, ms (readers and writers never wait for it).
    #[arg(long, env = "ALLOT_HOLD_SWEEP_INTERVAL_MS", default_value_t = 1000)]
    pub(crate) hold_sweep_interval_ms: u64,
    /// How long completed, discarded and cancelled jobs are kept before pruning, ms.
    #[arg(long, env = "ALLOT_JOB_RETENTION_MS", default_value_t = 86_400_000)]
    pub(crate) job_retention_ms: u64,
    /// Redis for the `redis_counter` and `redis_lock` strategies: `redis://host:port`, or a
    /// Redis Cluster as `redis+cluster://host:port,host:port` (or a list of redis:// URLs).
    #[arg(long, env = "ALLOT_REDIS_URL")]
    pub(crate) redis_url: Option<String>,
    /// Prefix of allot's Redis keys.
    #[arg(long, env = "ALLOT_REDIS_KEY_PREFIX", default_value = "allot")]
    pub(crate) redis_key_prefix: String,
    /// Admission counters are rebuilt from the database after this long, ms.
    #[arg(long, env = "ALLOT_REDIS_COUNTER_TTL_MS", default_value_t = 60_000)]
    pub(crate) redis_counter_ttl_ms: u64,
    /// TTL of a `redis_lock` lock, ms (a watchdog renews it while held).
    #[arg(long, env = "ALLOT_REDIS_LOCK_TTL_MS", default_value_t = 5_000)]
    pub(crate) redis_lock_ttl_ms: u64,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

impl ServeArgs {
    pub(crate) fn config(&self) -> anyhow::Result<ServerConfig> {
        let default_strategy = match &self.default_strategy {
            None => None,
            Some(s) => Some(
                s.parse::<Strategy>()
                    .map_err(|e| anyhow::anyhow!("--default-strategy: {e}"))?,
            ),
        };
        Ok(ServerConfig {
            listen: self.listen.clone(),
            database_url: self.db.database_url.clone(),
            default_strategy,
            allow_unsafe_strategies: self.allow_unsafe_strategies,
            limits: self.limits.limits(),
            pool_size: self.pool_size,
            pool_wait_ms: self.pool_wait_ms,
            idempotency_retention_ms: self.idempotency_retention_ms,
            sweep_interval_ms: self.sweep_interval_ms,
            hold_sweep_interval_ms: self.hold_sweep_interval_ms,
            job_retention_ms: self.job_retention_ms,
            redis_url: self.redis_url.clone(),
            redis_key_prefix: self.redis_key_prefix.clone(),
            redis_counter_ttl_ms: self.redis_counter_ttl_ms,
            redis_lock_ttl_ms: self.redis_lock_ttl_ms,
            ..ServerConfig::default()
        })
    }
}
