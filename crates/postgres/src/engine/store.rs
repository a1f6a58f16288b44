//! The PostgreSQL store: its pool, limits, clock and the handles its features share.

use crate::engine::config::PgConfig;
use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use allot_core::{AllotError, Limits, Result, Strategy};
use allot_core::{Backend, BookingStrategy, Capabilities, Capable, ClaimStrategy, UnitStrategy};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use std::time::Duration;

/// The queues of `batched` unit claims, per (tenant, SKU, the claims' `ORDER BY` text of
/// whitelisted columns); `None` answers a claim that runs on the per-request path.
pub(crate) type UnitBatches = crate::engine::flat::FlatQueues<
    (String, String, String),
    allot_core::UnitClaim,
    Option<allot_core::UnitAllocation>,
>;

/// The queues of `batched` bookings, per lane; each request with its tenant; `None` answers
/// a booking that runs on the per-request path.
pub(crate) type BookingBatches =
    crate::engine::flat::FlatQueues<usize, (String, allot_core::BookingRequest), Option<allot_core::Booking>>;

/// The PostgreSQL stock store. Cheap to clone (the pool is shared).
#[derive(Clone)]
pub struct PgStore {
    pool: Pool,
    pub(crate) limits: Limits,
    /// When to refresh the statistics of `units` (see `UnitStore::add_units`).
    pub(crate) analyzing: std::sync::Arc<crate::engine::analyze::AnalyzeGate>,
    /// When to refresh the statistics of `jobs` (see `JobStore::enqueue`).
    pub(crate) analyzing_jobs: std::sync::Arc<crate::engine::analyze::AnalyzeGate>,
    /// When to refresh the statistics of `bookings` (see `BookingStore::book`).
    pub(crate) analyzing_bookings: std::sync::Arc<crate::engine::analyze::AnalyzeGate>,
    /// Wakes job claims and feed readers waiting on `LISTEN allot_jobs` (see
    /// `JobStore::wait_for_jobs`, `EventStore::wait_for_events`).
    pub(crate) listener: std::sync::Arc<crate::engine::listen::Listener>,
    /// The `batched` strategy's combiner (`None` in the stores its lanes run on).
    pub(crate) combiner: Option<std::sync::Arc<crate::engine::combiner::Combiner>>,
    /// The `batched` unit claims' queues, per (tenant, SKU, order).
    pub(crate) unit_batches: std::sync::Arc<UnitBatches>,
    /// The `batched` bookings' queues, per lane.
    pub(crate) booking_batches: std::sync::Arc<BookingBatches>,
    /// The writers' gate of every SKU (`sku_writers`): per-request stock writers of one SKU
    /// wait here rather than on its row lock.
    pub(crate) sku_gate: std::sync::Arc<crate::engine::sku_gate::SkuGate>,
    capabilities: Capabilities,
    /// How pooled connections send statements: named and cached, or unnamed behind a
    /// transaction pooler ([`PgConfig::direct_url`]).
    statements: std::sync::Arc<crate::engine::conn::Statements>,
    /// Each tenant's ledger sequence (its OID), for the statements that draw ledger ids
    /// themselves (see [`PgStore::ledger_sequence`]); at most [`MAX_CACHED_SEQUENCES`].
    ledger_sequences: std::sync::Arc<std::sync::Mutex<foldhash::HashMap<String, u32>>>,
    /// Resources known to have been put, `(tenant, resource)`: a resource is never un-put, so
    /// a booking of one goes straight to the capacity path (at most
    /// [`MAX_KNOWN_PUT_RESOURCES`]; past it, the others are found out by their insert).
    pub(crate) put_resources: std::sync::Arc<std::sync::Mutex<foldhash::HashMap<String, foldhash::HashSet<String>>>>,
}

/// Most put resources a store remembers.
pub(crate) const MAX_KNOWN_PUT_RESOURCES: usize = 100_000;

/// Most tenants' ledger sequences a store remembers; past it the cache starts again.
const MAX_CACHED_SEQUENCES: usize = 4096;

/// What PostgreSQL runs. The Redis strategies only through allot-redis's `RedisGated`, which
/// runs their Redis side and then this store's database side (see `require_database_side`);
/// `naive` only when allowed (benchmarks). The default stock strategy is `batched`: on this
/// machine it serves 15x the allocations of `atomic` on a hot SKU and 2x with the load spread
/// over 10 000 SKUs (docs/strategies.md).
fn capabilities(cfg: &PgConfig) -> Capabilities {
    let mut stock = vec![
        Strategy::Atomic,
        Strategy::Pessimistic,
        Strategy::Optimistic,
        Strategy::Segmented,
        Strategy::Batched,
    ];
    let mut bookings = vec![
        BookingStrategy::Exclusion,
        BookingStrategy::Advisory,
        BookingStrategy::Batched,
    ];
    if cfg.allow_unsafe_strategies {
        stock.push(Strategy::Naive);
        bookings.push(BookingStrategy::Naive);
    }
    Capabilities {
        backend: Backend::Postgres,
        clock: cfg.clock.clone(),
        stock: (stock, Strategy::Batched),
        units: (
            vec![
                UnitStrategy::SkipLocked,
                UnitStrategy::NowaitScan,
                UnitStrategy::Batched,
            ],
            UnitStrategy::SkipLocked,
        ),
        bookings: (bookings, BookingStrategy::Exclusion),
        claims: (
            vec![ClaimStrategy::SkipLocked, ClaimStrategy::Advisory],
            ClaimStrategy::SkipLocked,
        ),
    }
}

/// A new connection counts only once it has answered a statement within `wait`: a pooler
/// in session mode accepts connections at once but makes each wait inside it until one of
/// its own server connections is free (PgBouncer's `query_wait_timeout`, 120 s by default),
/// so without this a request would hang there instead of ending `unavailable` (503 with
/// `Retry-After`) after the pool's named wait.
fn first_answer_within(wait: Duration) -> deadpool_postgres::Hook {
    deadpool_postgres::Hook::async_fn(move |client, _| {
        Box::pin(async move {
            match tokio::time::timeout(wait, client.simple_query("SELECT 1")).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(deadpool_postgres::HookError::Backend(e)),
                Err(_) => Err(deadpool_postgres::HookError::message(format!(
                    "a new connection did not answer within {} ms (a pooler with no free server connection?)",
                    wait.as_millis()
                ))),
            }
        })
    })
}

impl Capable for PgStore {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }
}

impl PgStore {
    /// Build the pool for `cfg.url` (connections are made lazily, each with the TLS its
    /// `sslmode` asks for: [`crate::PgTarget`]). Does not migrate: call
    /// [`crate::engine::migrate::migrate`] first.
    pub fn connect(cfg: &PgConfig) -> Result<Self> {
        let target = crate::engine::connect::PgTarget::parse(&cfg.url)?;
        let direct = match &cfg.direct_url {
            Some(url) => Some(crate::engine::connect::PgTarget::parse(url)?),
            None => None,
        };
        let mgr = Manager::from_config(
            target.config().clone(),
            target.tls(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let wait = Some(Duration::from_millis(cfg.pool_wait_ms));
        let pool = Pool::builder(mgr)
            .max_size(cfg.pool_size.max(1))
            // The connection used last goes out first: under light load the same few
            // backends stay busy and warm instead of the pool waking each of its idle ones in
            // turn (deadpool's default is FIFO).
            .queue_mode(deadpool_postgres::QueueMode::Lifo)
            .wait_timeout(wait)
            .create_timeout(wait)
            .post_create(first_answer_within(Duration::from_millis(cfg.pool_wait_ms)))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|e| AllotError::Internal(format!("pool: {e}")))?;
        Ok(PgStore {
            pool,
            limits: cfg.limits.clone(),
            analyzing: Default::default(),
            analyzing_jobs: Default::default(),
            analyzing_bookings: Default::default(),
            statements: std::sync::Arc::new(match &direct {
                Some(d) => {
                    crate::engine::conn::Statements::Unnamed(Box::new(crate::engine::conn::Describer::new(d.clone())))
                }
                None => crate::engine::conn::Statements::Prepared,
            }),
            // LISTEN holds its session: through a transaction pooler it would hear nothing.
            listener: std::sync::Arc::new(crate::engine::listen::Listener::new(direct.unwrap_or(target))),
            combiner: Some(std::sync::Arc::new(crate::engine::combiner::Combiner::new(&cfg.limits))),
            unit_batches: Default::default(),
            booking_batches: Default::default(),
            sku_gate: std::sync::Arc::new(crate::engine::sku_gate::SkuGate::new(
                cfg.limits.sku_writers,
                Duration::from_millis(cfg.pool_wait_ms),
            )),
            capabilities: capabilities(cfg),
            ledger_sequences: Default::default(),
            put_resources: Default::default(),
        })
    }

    /// `require`, except that the Redis strategies are accepted: their database side (the
    /// `atomic` path, with the fencing check of `redis_lock`) runs here once a
    /// `RedisGated` store has run their Redis side.
    pub(crate) fn require_database_side(&self, strategy: Strategy) -> Result<()> {
        if strategy.needs_redis() {
            return Ok(());
        }
        Capable::require(self, strategy)
    }

    /// The OID of `tenant`'s ledger sequence (made on first use, V14), remembered per store.
    /// The hot allocation statements draw their ledger ids with `nextval(oid)` instead of
    /// leaving them to the V14 trigger, whose per-row call ran while the SKU's row was locked
    /// (`atomic` on a hot SKU lost about 10% to it). Looked up on its own connection, before
    /// the transaction, so a first use makes the sequence outside it.
    pub(crate) async fn ledger_sequence(&self, tenant: &str) -> Result<u32> {
        let cached = self
            .ledger_sequences
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(tenant)
            .copied();
        if let Some(oid) = cached {
            return Ok(oid);
        }
        let c = self.client().await?;
        let stmt = c
            .prepare_cached("SELECT allot_id_sequence_of('ledger', $1)::oid")
            .await
            .map_err(map_error)?;
        let oid: u32 = c.query_one(&stmt, &[&tenant]).await.map_err(map_error)?.get(0);
        let mut cache = self.ledger_sequences.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= MAX_CACHED_SEQUENCES {
            cache.clear();
        }
        cache.insert(tenant.to_string(), oid);
        Ok(oid)
    }

    /// The connection pool.
    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }

    /// This store without its combiner: what a lane of the combiner runs on (holding the
    /// combiner itself would keep its lanes open forever). A lane calls only the named
    /// per-request paths on it (`engine::batched::{AllocatePerRequest, HoldPerRequest}`),
    /// never the store traits, whose `batched` branch needs the combiner.
    pub(crate) fn without_combiner(&self) -> PgStore {
        PgStore {
            combiner: None,
            ..self.clone()
        }
    }

    /// `rows` new rows arrived in `table`: refresh its planner statistics in the background
    /// when `gate` says enough arrived since the last run (see `engine::analyze`).
    pub(crate) fn analyze_in_background(
        &self,
        gate: &std::sync::Arc<crate::engine::analyze::AnalyzeGate>,
        table: &'static str,
        rows: u64,
    ) {
        if !gate.arrived(rows) {
            return;
        }
        let (store, gate) = (self.clone(), gate.clone());
        tokio::spawn(async move {
            let ran = match store.client().await {
                Ok(c) => c
                    .batch_execute(&format!("ANALYZE {table}"))
                    .await
                    .inspect_err(|e| tracing::warn!(error = %e, table, "background ANALYZE failed"))
                    .is_ok(),
                Err(_) => false,
            };
            gate.finished(ran);
        });
    }

    /// A pooled connection; the wait is recorded in `allot_db_pool_acquire_seconds`.
    pub(crate) async fn client(&self) -> Result<crate::engine::conn::Conn> {
        self.pooled().await.map(|c| self.wrap(c))
    }

    /// Wrap `obj`, a connection of this store's pool.
    pub(crate) fn wrap(&self, obj: deadpool_postgres::Object) -> crate::engine::conn::Conn {
        crate::engine::conn::Conn::new(obj, self.statements.clone())
    }

    async fn pooled(&self) -> Result<deadpool_postgres::Object> {
        self.acquire().await.map_err(|e| match e {
            deadpool_postgres::PoolError::Backend(e) => map_error(e),
            other => AllotError::Unavailable(format!("no database connection: {other}")),
        })
    }

    /// A connection of the pool, the wait recorded in `allot_db_pool_acquire_seconds`; the
    /// pool's own error (a batch tells a database error from an empty pool).
    pub(crate) async fn acquire(&self) -> std::result::Result<deadpool_postgres::Object, deadpool_postgres::PoolError> {
        static ACQUIRE: std::sync::OnceLock<metrics::Histogram> = std::sync::OnceLock::new();
        let started = std::time::Instant::now();
        // A free connection (or room for a new one) is taken without arming the wait's timer;
        // only a full pool is waited on, within `pool_wait_ms`.
        let at_once = deadpool_postgres::Timeouts {
            wait: Some(Duration::ZERO),
            ..self.pool.timeouts()
        };
        let got = match self.pool.timeout_get(&at_once).await {
            Err(deadpool_postgres::PoolError::Timeout(deadpool_postgres::TimeoutType::Wait)) => self.pool.get().await,
            got => got,
        };
        ACQUIRE
            .get_or_init(|| metrics::histogram!("allot_db_pool_acquire_seconds"))
            .record(started.elapsed().as_secs_f64());
        got
    }
}
