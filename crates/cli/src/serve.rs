//! `allot serve`: its flags and the server configuration they make.

use crate::db_args::DbArgs;
use crate::limit_args::LimitArgs;
use allot_core::Strategy;
use allot_server::ServerConfig;
use clap::Args;

#[derive(Args, Clone)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub(crate) db: DbArgs,
    /// Address to listen on: HOST:PORT (an IP address, `[IPv6]` or a host name; port
    /// 0..=65535), checked before anything else runs.
    #[arg(long, env = "ALLOT_LISTEN", default_value = "127.0.0.1:8080", value_parser = listen_address)]
    pub(crate) listen: String,
    /// Strategy for requests that name none (default: batched on PostgreSQL, serialized on
    /// SQLite), or `auto` (each SKU's contention picks: atomic when quiet, batched when hot).
    #[arg(long, env = "ALLOT_DEFAULT_STRATEGY")]
    pub(crate) default_strategy: Option<String>,
    /// Allow `naive` (it oversells; it exists to show that in the benchmark).
    #[arg(long, env = "ALLOT_ALLOW_UNSAFE_STRATEGIES")]
    pub(crate) allow_unsafe_strategies: bool,
    /// Serve without API keys on a non-loopback address while none exists (without it, such
    /// a server refuses to start and says how to create a key).
    #[arg(long, env = "ALLOT_INSECURE_NO_AUTH")]
    pub(crate) insecure_no_auth: bool,
    /// Requests per second of a key made without its own rate (429 rate_limited beyond).
    #[arg(long, env = "ALLOT_KEY_RATE_PER_S", default_value_t = 100_000,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) key_rate_per_s: u32,
    /// Job claims one key may have waiting at once.
    #[arg(long, env = "ALLOT_KEY_LONG_POLLS", default_value_t = 64)]
    pub(crate) key_long_polls: usize,
    /// PostgreSQL connections in the pool.
    #[arg(long, env = "ALLOT_POOL_SIZE", default_value_t = 32)]
    pub(crate) pool_size: usize,
    /// How long a request waits for a pooled connection before 503, ms (and, before it, at
    /// most as long at a hot SKU's writers' gate: `--sku-writers`).
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
    /// How long events of the change feed are kept before pruning, ms (7 days).
    #[arg(long, env = "ALLOT_EVENT_RETENTION_MS", default_value_t = 604_800_000)]
    pub(crate) event_retention_ms: u64,
    /// Refuse a stock write without an `Idempotency-Key` (`400 idempotency_key_required`):
    /// creations, adjustments, allocations, cancels, returns, holds, confirms, releases,
    /// extends, transfers, incoming stock and receipts, unit receipts and claims, and a
    /// batch's operations. A level set
    /// needs none (its `compare_on_hand` guards a retry).
    #[arg(long, env = "ALLOT_REQUIRE_IDEMPOTENCY_KEY")]
    pub(crate) require_idempotency_key: bool,
    /// Let webhook deliveries reach loopback and private addresses (refused by default: a
    /// guard against server-side request forgery).
    #[arg(long, env = "ALLOT_WEBHOOK_ALLOW_PRIVATE")]
    pub(crate) webhook_allow_private: bool,
    /// How long a webhook delivery waits for the receiver's answer, ms.
    #[arg(long, env = "ALLOT_WEBHOOK_TIMEOUT_MS", default_value_t = 10_000)]
    pub(crate) webhook_timeout_ms: u64,
    /// Webhook deliveries in flight at once, per instance.
    #[arg(long, env = "ALLOT_WEBHOOK_CONCURRENCY", default_value_t = 16)]
    pub(crate) webhook_concurrency: usize,
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
    /// One interval for every background task instead of each one's own, ms (sweepers,
    /// sequencer, scheduler, heartbeat, webhook dispatch, the key cache's refresh: a revoked
    /// key then works that long). For measurement: `allot bench cost`
    /// sets an hour, so a request's counts hold no background work; never in production.
    #[arg(long, env = "ALLOT_BACKGROUND_INTERVAL_MS", hide = true,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) background_interval_ms: Option<u64>,
    #[command(flatten)]
    pub(crate) http: HttpArgs,
    #[command(flatten)]
    pub(crate) limits: LimitArgs,
}

/// The HTTP limits of `allot serve` (see allot_server::HttpLimits).
#[derive(Args, Clone)]
pub(crate) struct HttpArgs {
    /// Host names (no port) the server answers to, comma-separated; `*` for any. Default:
    /// loopback names only (a DNS-rebinding page cannot reach the API).
    #[arg(
        long,
        env = "ALLOT_ALLOWED_HOSTS",
        value_delimiter = ',',
        default_value = "localhost,127.0.0.1,[::1]"
    )]
    pub(crate) allowed_hosts: Vec<String>,
    /// Origins (scheme://host, no port) whose browser requests are served, comma-separated;
    /// `*` for any. Default: loopback origins only.
    #[arg(
        long,
        env = "ALLOT_ALLOWED_ORIGINS",
        value_delimiter = ',',
        default_value = "http://localhost,https://localhost,http://127.0.0.1,https://127.0.0.1,http://[::1],https://[::1]"
    )]
    pub(crate) allowed_origins: Vec<String>,
    /// A client has this long to send a request's headers, ms.
    #[arg(long, env = "ALLOT_HEADER_READ_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) header_read_timeout_ms: u64,
    /// A request has this long to be answered (408 after), ms; must exceed --max-wait-ms.
    #[arg(long, env = "ALLOT_REQUEST_TIMEOUT_MS", default_value_t = 60_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) request_timeout_ms: u64,
    /// Requests served at once; more are refused 503 with Retry-After.
    #[arg(long, env = "ALLOT_MAX_CONCURRENT_REQUESTS", default_value_t = 4096,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_concurrent_requests: u64,
    /// Job claims waiting at once (wait_ms > 0); more are refused 503 with Retry-After.
    #[arg(long, env = "ALLOT_MAX_LONG_POLLS", default_value_t = 512)]
    pub(crate) max_long_polls: u64,
    /// On shutdown, in-flight requests have this long to finish, ms.
    #[arg(long, env = "ALLOT_SHUTDOWN_GRACE_MS", default_value_t = 30_000)]
    pub(crate) shutdown_grace_ms: u64,
    /// A connection idle this long (no byte, no request being served) is dropped, ms.
    #[arg(long, env = "ALLOT_IDLE_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) idle_timeout_ms: u64,
    /// A request body must arrive within this long, ms (408 after); it holds no slot meanwhile.
    #[arg(long, env = "ALLOT_BODY_READ_TIMEOUT_MS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) body_read_timeout_ms: u64,
    /// Streams one HTTP/2 connection may have open at once.
    #[arg(long, env = "ALLOT_MAX_STREAMS_PER_CONNECTION", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_streams_per_connection: u32,
    /// Connections one peer address may have open at once, at most half of the bound in all;
    /// past it its oldest idle one is shed (0: no bound; raise it behind a proxy).
    #[arg(long, env = "ALLOT_MAX_CONNECTIONS_PER_PEER", default_value_t = 1024)]
    pub(crate) max_connections_per_peer: u32,
    /// Connections open at once in all (0: the open-file limit less 128 for the database pool
    /// and files).
    #[arg(long, env = "ALLOT_MAX_CONNECTIONS", default_value_t = 0)]
    pub(crate) max_connections: u32,
    /// Longest request target (path and query), bytes; longer is 414.
    #[arg(long, env = "ALLOT_MAX_URI_BYTES", default_value_t = 8192,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_uri_bytes: u64,
    /// Most bytes of request headers; more is 431.
    #[arg(long, env = "ALLOT_MAX_HEADER_BYTES", default_value_t = 16_384,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_header_bytes: u64,
    /// Serve HTTPS: the certificate chain, PEM (with --tls-key).
    #[arg(long, env = "ALLOT_TLS_CERT", requires = "tls_key")]
    pub(crate) tls_cert: Option<std::path::PathBuf>,
    /// Serve HTTPS: the private key, PEM (with --tls-cert).
    #[arg(long, env = "ALLOT_TLS_KEY", requires = "tls_cert")]
    pub(crate) tls_key: Option<std::path::PathBuf>,
}

impl HttpArgs {
    fn limits(&self, max_wait_ms: i64) -> anyhow::Result<allot_server::HttpLimits> {
        if self.request_timeout_ms as i128 <= max_wait_ms as i128 {
            anyhow::bail!(
                "--request-timeout-ms ({}) must exceed --max-wait-ms ({max_wait_ms}): a long-poll would time out",
                self.request_timeout_ms
            );
        }
        let lower = |v: &[String]| v.iter().map(|s| s.trim().to_ascii_lowercase()).collect();
        Ok(allot_server::HttpLimits {
            origins: allot_server::Origins {
                hosts: lower(&self.allowed_hosts),
                origins: lower(&self.allowed_origins),
            },
            header_read_timeout_ms: self.header_read_timeout_ms,
            request_timeout_ms: self.request_timeout_ms,
            max_concurrent_requests: self.max_concurrent_requests as usize,
            max_long_polls: self.max_long_polls as usize,
            shutdown_grace_ms: self.shutdown_grace_ms,
            idle_timeout_ms: self.idle_timeout_ms,
            body_read_timeout_ms: self.body_read_timeout_ms,
            max_streams_per_connection: self.max_streams_per_connection,
            max_connections_per_peer: self.max_connections_per_peer,
            max_connections: self.max_connections,
            max_uri_bytes: self.max_uri_bytes as usize,
            max_header_bytes: self.max_header_bytes as usize,
            tls: match (&self.tls_cert, &self.tls_key) {
                (Some(cert), Some(key)) => Some(allot_server::http::TlsFiles {
                    cert: cert.clone(),
                    key: key.clone(),
                }),
                _ => None,
            },
        })
    }
}

impl ServeArgs {
    pub(crate) fn config(&self) -> anyhow::Result<ServerConfig> {
        let default_auto = self.default_strategy.as_deref() == Some(allot_core::auto::AUTO);
        let default_strategy = match &self.default_strategy {
            None => None,
            Some(_) if default_auto => None,
            Some(s) => Some(
                s.parse::<Strategy>()
                    .map_err(|e| anyhow::anyhow!("--default-strategy: {e}"))?,
            ),
        };
        let limits = self.limits.limits();
        let http = self.http.limits(limits.max_wait_ms)?;
        Ok(ServerConfig {
            http,
            listen: self.listen.clone(),
            database_url: self.db.database_url.clone(),
            direct_database_url: self.db.direct_database_url.clone(),
            default_strategy,
            default_auto,
            allow_unsafe_strategies: self.allow_unsafe_strategies,
            insecure_no_auth: self.insecure_no_auth,
            key_rate_per_s: self.key_rate_per_s,
            key_long_polls: self.key_long_polls,
            limits,
            pool_size: self.pool_size,
            pool_wait_ms: self.pool_wait_ms,
            idempotency_retention_ms: self.idempotency_retention_ms,
            sweep_interval_ms: self.sweep_interval_ms,
            hold_sweep_interval_ms: self.hold_sweep_interval_ms,
            job_retention_ms: self.job_retention_ms,
            event_retention_ms: self.event_retention_ms,
            require_idempotency_key: self.require_idempotency_key,
            webhook_allow_private: self.webhook_allow_private,
            webhook_timeout_ms: self.webhook_timeout_ms,
            webhook_concurrency: self.webhook_concurrency,
            redis_url: self.redis_url.clone(),
            redis_key_prefix: self.redis_key_prefix.clone(),
            redis_counter_ttl_ms: self.redis_counter_ttl_ms,
            redis_lock_ttl_ms: self.redis_lock_ttl_ms,
            background_interval_ms: self.background_interval_ms,
            ..ServerConfig::default()
        })
    }
}

/// `--listen`'s check: `HOST:PORT` with a host and a port of 0..=65535, so `18403` or
/// `:99999` is refused as an address at once instead of failing later for another reason.
fn listen_address(s: &str) -> Result<String, String> {
    let (host, port) = s
        .rsplit_once(':')
        .ok_or_else(|| format!("`{s}` is not HOST:PORT (e.g. 127.0.0.1:8080)"))?;
    if host.is_empty() {
        return Err(format!("`{s}` has no host (e.g. 127.0.0.1:{port})"));
    }
    port.parse::<u16>()
        .map_err(|_| format!("`{port}` is not a port (0..=65535)"))?;
    Ok(s.to_string())
}

#[cfg(test)]
mod listen_tests {
    use super::listen_address;

    /// HOST:PORT with an IP, a bracketed IPv6 address or a name passes; a bare port, a
    /// missing host or a port beyond 65535 is refused, naming what is wrong.
    #[test]
    fn addresses() {
        for ok in ["127.0.0.1:8080", "[::1]:8080", "localhost:0", "0.0.0.0:65535"] {
            assert_eq!(listen_address(ok).as_deref(), Ok(ok));
        }
        assert!(listen_address("18403").unwrap_err().contains("HOST:PORT"));
        assert!(listen_address(":8080").unwrap_err().contains("no host"));
        assert!(listen_address("127.0.0.1:99999").unwrap_err().contains("not a port"));
        assert!(listen_address("127.0.0.1:http").unwrap_err().contains("not a port"));
    }
}
