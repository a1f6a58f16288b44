//! # allot-redis
//!
//! The Redis strategies of allot (docs/internals.md, "Strategies", and the invariant "Redis is never the record"), on
//! a single Redis or a Redis Cluster. PostgreSQL stays the system of record in both: Redis can
//! lose acknowledged writes on a restart or a failover, so nothing here is trusted to decide
//! a sale on its own.
//!
//! - [`RedisGate::allocate`] / [`RedisGate::create_hold`] with `redis_counter`: a Lua
//!   check-and-decrement of each line's admission counter answers sold-out requests from
//!   Redis; an admitted request then runs the `atomic` path on the store, which is the final
//!   check. Whatever the store refuses (or replays) is given back to the counter. A missing
//!   counter (first use, a restart, `FLUSHALL`, a failover, or its refresh TTL) is loaded from
//!   the store's `available` with `SET NX PX`. Every other strategy's allocations and holds
//!   take from the counters, released holds drop them ([`RedisGated`]), and a refusal is
//!   checked against the store's `available`: it states that figure, or, where the store has
//!   enough, the request goes to the store without an admission (and a fresh effect is taken
//!   from the counters after). Counters can run *above* the truth (a load racing requests in
//!   flight, for a moment; a lost update, an instance that died after its database write,
//!   until the counter's TTL), which only admits requests the store refuses, or *below* it (a
//!   hold that expired in the database, an instance that died between admission and commit),
//!   which sends requests past Redis until the counter's TTL (`counter_ttl_ms`). Never an
//!   oversell.
//! - `redis_lock`: per SKU, `SET lock <owner> NX PX ttl` with bounded jittered retries, a
//!   watchdog that renews it (compare-and-pexpire) while the holder works, compare-and-delete
//!   unlock, SKUs locked in sorted order. Each acquisition also takes a fencing token, newer
//!   than every earlier one of the SKU; the store applies the request only if the token is
//!   newer than the last one written to the SKU row (`AllocationRequest::fences`), so a holder
//!   that paused past its TTL is refused with `lease_lost`. Technique: Kleppmann, "How to do
//!   distributed locking" (2016); the lock itself is the single-instance pattern of the Redis
//!   docs ("Distributed Locks with Redis").
//!
//! Keys carry the SKU as a hash tag (`{prefix}:{SKU}:avail`, `…:lock`, `…:fence`), so every
//! script touches one slot; a cart on a cluster takes its lines one slot at a time in SKU
//! order and gives back what it took when a line is short.
//!
//! Errors: Redis unreachable or timing out (`timeout_ms`) is `unavailable` before anything
//! was applied; lock acquisition out of attempts is `contention`; a stale fencing token is
//! `lease_lost` (`AllotError::Fenced`); the store's own errors pass through.

mod gated;
pub use gated::RedisGated;

use allot_core::store::{Executed, HoldStore, Keyed, StockStore, UnitStore};
use allot_core::support::page::Page;
use allot_core::tenant::Tenant;
use allot_core::unit::UnitFilter;
use allot_core::{Allocation, AllocationLine, AllotError, Hold, HoldRequest, Placement, Result, Strategy};
use rand::Rng;
use redis::aio::ConnectionLike;
use std::sync::Arc;
use std::time::Duration;

/// Settings of a [`RedisGate`].
#[derive(Debug, Clone)]
pub struct RedisConfig {
    /// `redis://host:port[/db]` for one Redis; `redis+cluster://host:port,host:port,…` or a
    /// comma-separated list of `redis://` URLs for a Redis Cluster (any of its masters).
    pub url: String,
    /// Prefix of every key (several databases can share one Redis). Default `allot`.
    pub key_prefix: String,
    /// Admission counters live this long, ms, then are rebuilt from the database (bounds how
    /// long a counter can stay below the truth). Default 60 000.
    pub counter_ttl_ms: u64,
    /// TTL of a `redis_lock` lock, ms; the watchdog renews it every third of it. Default 5000.
    pub lock_ttl_ms: u64,
    /// Attempts to take one SKU's lock before `contention`. Default 200.
    pub lock_max_attempts: u32,
    /// Cap of the full-jitter wait between lock attempts, ms. Default 20.
    pub lock_retry_cap_ms: u64,
    /// Bound on every Redis round trip (and on connecting), ms; past it: `unavailable`.
    /// Default 1000.
    pub timeout_ms: u64,
}

impl RedisConfig {
    /// Defaults for `url`.
    pub fn new(url: impl Into<String>) -> Self {
        RedisConfig {
            url: url.into(),
            key_prefix: "allot".into(),
            counter_ttl_ms: 60_000,
            lock_ttl_ms: 5_000,
            lock_max_attempts: 200,
            lock_retry_cap_ms: 20,
            timeout_ms: 1_000,
        }
    }

    /// Whether the URL names a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.url.starts_with("redis+cluster://") || self.url.contains(',')
    }

    /// The cluster's seed nodes as `redis://host:port` URLs.
    fn cluster_nodes(&self) -> Vec<String> {
        let rest = self.url.strip_prefix("redis+cluster://").unwrap_or(&self.url);
        rest.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                if s.contains("://") {
                    s.to_string()
                } else {
                    format!("redis://{s}")
                }
            })
            .collect()
    }
}

/// The admission script of `redis_counter` (public so that benchmarks can run the very same
/// script with `redis-benchmark` as the raw reference). Checks every key's counter against
/// its quantity, then takes all of them, or none.
/// `KEYS`: counters; `ARGV`: quantities. Returns `{1, 0, 0}` taken; `{0, i, have}` key `i`
/// (1-based) short with `have` left; `{-1, i, 0}` key `i` has no counter (load it first).
pub const ADMIT_SCRIPT: &str = r#"
for i = 1, #KEYS do
  local v = redis.call('GET', KEYS[i])
  if not v then return {-1, i, 0} end
  if tonumber(v) < tonumber(ARGV[i]) then return {0, i, tonumber(v)} end
end
for i = 1, #KEYS do redis.call('DECRBY', KEYS[i], ARGV[i]) end
return {1, 0, 0}
"#;

/// Give `ARGV[1]` back to a counter that still exists (a vanished one is rebuilt from the
/// database, which already has the truth).
const LUA_GIVE_BACK: &str = r#"
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('INCRBY', KEYS[1], ARGV[1]) end
return false
"#;

/// Take the lock `KEYS[1]` for owner `ARGV[1]` for `ARGV[2]` ms, and on success the next
/// fencing token from `KEYS[2]`: `max(last + 1, Redis TIME in µs)`, so tokens keep rising
/// even after Redis lost the last one — which is why the token key may expire (`ARGV[3]` ms,
/// [`FENCE_TTL_FACTOR`] lock TTLs): by then the clock is far past any token it held, so no
/// key allot writes lives forever, whatever SKU names requests mention. Returns the token,
/// or nil when the lock is taken.
const LUA_LOCK: &str = r#"
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local last = tonumber(redis.call('GET', KEYS[2]) or '0')
  local token = math.max(last + 1, now)
  redis.call('SET', KEYS[2], string.format('%.0f', token), 'PX', ARGV[3])
  return token
end
return false
"#;

/// A fencing-token key lives this many lock TTLs (at least a minute) after its last use.
pub const FENCE_TTL_FACTOR: u64 = 12;

/// Delete the lock `KEYS[1]` only if owner `ARGV[1]` still has it (compare-and-delete).
const LUA_UNLOCK: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"#;

/// Extend the lock `KEYS[1]` to `ARGV[2]` ms only if owner `ARGV[1]` still has it.
const LUA_RENEW: &str = r#"
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"#;

/// A connection to one Redis or to a cluster (both reconnect on their own).
#[derive(Clone)]
enum Conn {
    Single(redis::aio::ConnectionManager),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> redis::RedisFuture<'a, redis::Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> redis::RedisFuture<'a, Vec<redis::Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
        }
    }
}

/// How a `redis_counter` request goes to the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Admission {
    /// Its lines were taken from the counters.
    Admitted,
    /// The counters refused but the database has enough: the database decides alone.
    Bypass,
}

fn unavailable(e: impl std::fmt::Display) -> AllotError {
    AllotError::Unavailable(format!("redis: {e}"))
}

/// The Redis side of `redis_counter` and `redis_lock`. Cheap to share (`Arc`); connects on
/// first use, so a server starts while Redis is down and its other strategies keep working.
pub struct RedisGate {
    cfg: RedisConfig,
    conn: tokio::sync::OnceCell<Conn>,
    admit: redis::Script,
    give_back: redis::Script,
    lock: redis::Script,
    unlock: redis::Script,
    renew: redis::Script,
}

impl std::fmt::Debug for RedisGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisGate").field("cfg", &self.cfg).finish()
    }
}

/// Whether a counter's refusal may be the answer for a request: one without an idempotency
/// key (its key is checked first) and without a ranked placement (a counter is the SKU's
/// total over every location); see [`RedisGate::admit_checked`] for the rest.
fn counter_decides(keyed: bool, placement: &Placement) -> bool {
    !keyed && !matches!(placement, Placement::Ranked(_))
}

impl RedisGate {
    /// A gate for `cfg` (no connection yet). Errors: `invalid_request` for a URL that is not
    /// `redis://…`, `rediss://…` or `redis+cluster://…`.
    pub fn new(cfg: RedisConfig) -> Result<Self> {
        let ok = if cfg.is_cluster() {
            cfg.cluster_nodes().iter().all(|n| n.starts_with("redis://"))
        } else {
            cfg.url.starts_with("redis://") || cfg.url.starts_with("rediss://")
        };
        if !ok || cfg.key_prefix.is_empty() || cfg.key_prefix.contains(['{', '}']) {
            return Err(AllotError::invalid(format!(
                "redis url `{}` (prefix `{}`) is not redis://…, redis+cluster://host:port,… or a list of redis:// urls",
                cfg.url, cfg.key_prefix
            )));
        }
        Ok(RedisGate {
            cfg,
            conn: tokio::sync::OnceCell::new(),
            admit: redis::Script::new(ADMIT_SCRIPT),
            give_back: redis::Script::new(LUA_GIVE_BACK),
            lock: redis::Script::new(LUA_LOCK),
            unlock: redis::Script::new(LUA_UNLOCK),
            renew: redis::Script::new(LUA_RENEW),
        })
    }

    /// The settings.
    pub fn config(&self) -> &RedisConfig {
        &self.cfg
    }

    fn timeout(&self) -> Duration {
        Duration::from_millis(self.cfg.timeout_ms.max(1))
    }

    /// The shared connection, made on first use (bounded by `timeout_ms`; a failed attempt
    /// leaves the cell empty, so the next call tries again). No lock once connected.
    async fn conn(&self) -> Result<Conn> {
        self.conn.get_or_try_init(|| self.connect()).await.cloned()
    }

    async fn connect(&self) -> Result<Conn> {
        let connect = async {
            if self.cfg.is_cluster() {
                let client = redis::cluster::ClusterClient::new(self.cfg.cluster_nodes()).map_err(unavailable)?;
                Ok::<_, AllotError>(Conn::Cluster(client.get_async_connection().await.map_err(unavailable)?))
            } else {
                let client = redis::Client::open(self.cfg.url.as_str()).map_err(unavailable)?;
                let mgr_cfg = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(self.timeout()))
                    .set_response_timeout(Some(self.timeout()))
                    .set_number_of_retries(1);
                Ok(Conn::Single(
                    client
                        .get_connection_manager_with_config(mgr_cfg)
                        .await
                        .map_err(unavailable)?,
                ))
            }
        };
        tokio::time::timeout(self.timeout(), connect)
            .await
            .map_err(|_| unavailable("connect timed out"))?
    }

    /// Run one Redis exchange on the shared connection, bounded by `timeout_ms`.
    async fn run<T, F, Fut>(&self, f: F) -> Result<T>
    where
        F: FnOnce(Conn) -> Fut,
        Fut: std::future::Future<Output = redis::RedisResult<T>>,
    {
        let c = self.conn().await?;
        match tokio::time::timeout(self.timeout(), f(c)).await {
            Ok(r) => r.map_err(unavailable),
            Err(_) => Err(unavailable("timed out")),
        }
    }

    /// `PING`; `unavailable` when Redis cannot be reached.
    pub async fn health(&self) -> Result<()> {
        self.run(|mut c| async move { redis::cmd("PING").query_async::<String>(&mut c).await })
            .await
            .map(|_| ())
    }

    /// The key of `what` of a SKU, its tenant-scoped name ([`scoped`]) as the hash tag.
    fn key(&self, scoped_sku: &str, what: &str) -> String {
        format!("{}:{{{scoped_sku}}}:{what}", self.cfg.key_prefix)
    }

    /// The admission counter's current value of `sku` of `tenant`, `None` when it is not
    /// loaded.
    pub async fn counter(&self, tenant: &Tenant, sku: &str) -> Result<Option<i64>> {
        let key = self.key(&scoped(tenant, sku), "avail");
        self.run(|mut c| async move { redis::cmd("GET").arg(key).query_async::<Option<i64>>(&mut c).await })
            .await
    }

    /// Drop a SKU's counter so the next request loads it from the database (after a change
    /// the counter cannot follow exactly, e.g. an adjustment).
    pub async fn invalidate(&self, tenant: &Tenant, sku: &str) -> Result<()> {
        let key = self.key(&scoped(tenant, sku), "avail");
        self.run(|mut c| async move { redis::cmd("DEL").arg(key).query_async::<i64>(&mut c).await })
            .await
            .map(|_| ())
    }

    /// Load a missing counter from the store's `available` (`SET NX PX`: a concurrent
    /// loader's value stands).
    ///
    /// A unit-tracked SKU gets no counter (`wrong_tracking`, which the admission leaves to
    /// the database): its units, not a count, are what a claim takes, and a count line on it
    /// is the database's `wrong_tracking` whatever the counter would say (`allot sim`: the
    /// counter answered `insufficient_stock` there). Units are never deleted, so a SKU with
    /// a unit is unit-tracked.
    async fn load<S: StockStore + ?Sized>(
        &self,
        (store, units): (&S, &dyn UnitStore),
        tenant: &Tenant,
        sku: &str,
    ) -> Result<()> {
        let one = Page { after: 0, limit: 1 };
        if !units
            .list_units(tenant, sku, &UnitFilter::default(), one)
            .await?
            .items
            .is_empty()
        {
            return Err(AllotError::wrong_tracking(sku, true));
        }
        let available = store.get_sku(tenant, sku).await?.available.max(0);
        let (key, ttl) = (self.key(&scoped(tenant, sku), "avail"), self.cfg.counter_ttl_ms.max(1));
        self.run(|mut c| async move {
            redis::cmd("SET")
                .arg(key)
                .arg(available)
                .arg("NX")
                .arg("PX")
                .arg(ttl)
                .query_async::<Option<String>>(&mut c)
                .await
        })
        .await
        .map(|_| ())
    }

    /// One admission script over `lines` (one slot).
    async fn admit_once(&self, tenant: &Tenant, lines: &[AllocationLine]) -> Result<(i64, usize, i64)> {
        let mut inv = self.admit.prepare_invoke();
        for l in lines {
            inv.key(self.key(&scoped(tenant, &l.sku), "avail"));
        }
        for l in lines {
            inv.arg(l.quantity);
        }
        self.run(|mut c| async move { inv.invoke_async::<(i64, usize, i64)>(&mut c).await })
            .await
    }

    /// Take every line's quantity from its counter, or none: on one Redis with one script;
    /// on a cluster one line (one slot) at a time in SKU order, giving back what was taken
    /// when a line is short. Missing counters are loaded (at most twice per line).
    async fn admit<S: StockStore + ?Sized>(
        &self,
        store: (&S, &dyn UnitStore),
        tenant: &Tenant,
        lines: &[AllocationLine],
    ) -> Result<()> {
        let groups: Vec<&[AllocationLine]> = if self.cfg.is_cluster() {
            lines.chunks(1).collect()
        } else {
            vec![lines]
        };
        let mut taken = 0;
        for group in groups {
            let mut loads = 0;
            let outcome = loop {
                let (status, i, have) = match self.admit_once(tenant, group).await {
                    Ok(r) => r,
                    Err(e) => break Err(e),
                };
                let line = group.get(i.saturating_sub(1));
                match (status, line) {
                    (1, _) => break Ok(()),
                    (-1, Some(l)) if loads < 2 * group.len() => {
                        loads += 1;
                        if let Err(e) = self.load(store, tenant, &l.sku).await {
                            break Err(e);
                        }
                    }
                    (0, Some(l)) => {
                        break Err(AllotError::InsufficientStock {
                            sku: l.sku.clone(),
                            requested: l.quantity,
                            available: have,
                        })
                    }
                    _ => break Err(unavailable("admission counter kept vanishing")),
                }
            };
            if let Err(e) = outcome {
                // The groups are consecutive slices of `lines`: what was taken is a prefix.
                self.give_back(tenant, &lines[..taken]).await;
                return Err(e);
            }
            taken += group.len();
        }
        Ok(())
    }

    /// Give `lines` back to their counters (those that still exist). Best effort: a failure
    /// leaves a counter low (undersell until its TTL), never high.
    pub async fn give_back(&self, tenant: &Tenant, lines: &[AllocationLine]) {
        self.move_counters(tenant, lines, 1).await;
    }

    /// Take `lines` from their counters (those that exist) after another strategy took them
    /// in the database without an admission, so a counter stays the database's `available`.
    /// On failure the counter is dropped instead (rebuilt from the database on next use).
    pub async fn took(&self, tenant: &Tenant, lines: &[AllocationLine]) {
        self.move_counters(tenant, lines, -1).await;
    }

    /// Add `sign` × each line's quantity to its counter, where one exists.
    async fn move_counters(&self, tenant: &Tenant, lines: &[AllocationLine], sign: i64) {
        for l in lines {
            let key = self.key(&scoped(tenant, &l.sku), "avail");
            let q = sign * l.quantity;
            let script = &self.give_back;
            let r = self
                .run(|mut c| async move { script.key(key).arg(q).invoke_async::<Option<i64>>(&mut c).await })
                .await;
            match r {
                Err(e) if sign > 0 => {
                    tracing::warn!(sku = %l.sku, error = %e, "redis_counter: give-back failed (the counter stays low until its TTL)");
                }
                // A counter left above the truth would admit what the database then refuses:
                // dropped instead (and if that fails too, the database still refuses).
                Err(e) => {
                    if self.invalidate(tenant, &l.sku).await.is_err() {
                        tracing::warn!(sku = %l.sku, error = %e, "redis_counter: a counter stays above the database until its TTL");
                    }
                }
                Ok(_) => {}
            }
        }
    }

    /// [`RedisGate::admit`], with a refusal checked against the database: where the
    /// database's `available` is short too, the refusal states the database's figure; where
    /// it is not (requests admitted and still in flight, or a counter below the truth: a hold
    /// that expired in the database, an instance that died between admission and commit),
    /// the request goes to the database without an admission ([`Admission::Bypass`]), which
    /// decides. The database decides alone too when the request carries an idempotency key
    /// (its key is checked before stock: a retry of a request that succeeded is its replay, a
    /// key bound to another request `idempotency_key_reused`, whatever the counter says) and
    /// when the SKU does not exist (`not_found`, as on every other strategy) — both found by
    /// `allot sim`'s differential runner, where `redis_counter` answered `insufficient_stock`;
    /// and when the SKU takes backorders (`allot_core::backorder`: with room to owe, the
    /// database owes; at its limit, what an expired hold gives back fills owed lines first,
    /// which the SKU's read does not show — `allot sim`, seed 2, once holds gave back to them).
    /// And it decides when the line refused is not the first in SKU order or may not use
    /// every location of its SKU (pinned, or a ranked `placement`): a counter is the SKU's
    /// total, while the database refuses the first line in SKU order that its locations
    /// cannot bear, with what those locations have (`allot sim`: the counter named `C` with
    /// the total where the database named `A`, pinned to a location without it).
    async fn admit_checked<S: StockStore + ?Sized>(
        &self,
        (store, units): (&S, &dyn UnitStore),
        tenant: &Tenant,
        (lines, decides): (&[AllocationLine], bool),
    ) -> Result<Admission> {
        let (sku, requested, available) = match self.admit((store, units), tenant, lines).await {
            Ok(()) => return Ok(Admission::Admitted),
            Err(AllotError::InsufficientStock {
                sku,
                requested,
                available,
            }) => (sku, requested, available),
            // A SKU with no counter to build: the database checks the key first, then the
            // lines in SKU order (`allot sim`, seed 3037: `not_found` where the key said
            // `idempotency_key_reused`).
            Err(AllotError::NotFound { .. } | AllotError::WrongTracking { .. }) => return Ok(Admission::Bypass),
            Err(other) => return Err(other),
        };
        let first = lines.first().is_some_and(|l| l.sku == sku && l.location.is_none());
        if !decides || !first {
            return Ok(Admission::Bypass);
        }
        let (truth, owing) = match store.get_sku(tenant, &sku).await {
            // A SKU that takes backorders: the database decides (with room to owe it takes
            // what there is and owes the rest; without, an expired hold it finishes first
            // fills owed lines, so what the read calls available may be theirs).
            Ok(s) => (s.available, s.backorder_limit > 0),
            Err(AllotError::NotFound { .. }) => return Ok(Admission::Bypass),
            Err(_) => (available, false),
        };
        if truth >= requested || owing {
            return Ok(Admission::Bypass);
        }
        Err(AllotError::InsufficientStock {
            sku,
            requested,
            available: truth.max(0),
        })
    }

    /// Run `apply` (the store's part) after an admission and, unless it made a fresh effect,
    /// give the admission back; or, bypassing a counter that refused while the database had
    /// enough, take a fresh effect from the counters afterwards, as for any other strategy.
    async fn admitted<S, T, F, Fut>(
        &self,
        store: (&S, &dyn UnitStore),
        tenant: &Tenant,
        (lines, decides): (&[AllocationLine], bool),
        apply: F,
    ) -> Result<Executed<T>>
    where
        S: StockStore + ?Sized,
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Executed<T>>>,
    {
        let admission = self.admit_checked(store, tenant, (lines, decides)).await?;
        let r = apply().await;
        let fresh = matches!(r, Ok(Executed::Fresh(_)));
        match admission {
            Admission::Admitted if !fresh => self.give_back(tenant, lines).await,
            Admission::Bypass if fresh => self.took(tenant, lines).await,
            _ => {}
        }
        r
    }

    /// Run `apply` (the store's part, given the fencing tokens) while holding the locks of
    /// `lines`' SKUs, then release them.
    async fn locked<T, F, Fut>(&self, tenant: &Tenant, lines: &[AllocationLine], apply: F) -> Result<Executed<T>>
    where
        F: FnOnce(Vec<(String, i64)>) -> Fut,
        Fut: std::future::Future<Output = Result<Executed<T>>>,
    {
        let skus: Vec<String> = lines.iter().map(|l| l.sku.clone()).collect();
        let guard = self.lock_skus(tenant, &skus).await?;
        let r = apply(guard.fences().to_vec()).await;
        guard.release().await;
        r
    }

    /// Allocate with `req.strategy` (`redis_counter` or `redis_lock`) on `store`.
    /// Errors: `unsupported_strategy` for another strategy; see the crate docs for the rest.
    pub async fn allocate<S: StockStore + ?Sized>(
        &self,
        (store, units): (&S, &dyn UnitStore),
        tenant: &Tenant,
        mut req: allot_core::AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        match req.strategy {
            Strategy::RedisCounter => {
                let lines = req.lines.clone();
                let decides = counter_decides(idem.is_some(), &req.placement);
                self.admitted((store, units), tenant, (&lines, decides), || {
                    store.allocate(tenant, req, idem)
                })
                .await
            }
            Strategy::RedisLock => {
                let lines = req.lines.clone();
                let r = self
                    .locked(tenant, &lines, |fences| {
                        req.fences = fences;
                        store.allocate(tenant, req, idem)
                    })
                    .await;
                if matches!(r, Ok(Executed::Fresh(_))) {
                    self.took(tenant, &lines).await;
                }
                r
            }
            other => Err(AllotError::unsupported_strategy(other.name(), "redis")),
        }
    }

    /// Create a hold with `req.take.strategy` (`redis_counter` or `redis_lock`) in `holds`;
    /// `store` gives the SKUs' available stock when a counter is rebuilt.
    pub async fn create_hold<S: StockStore + ?Sized, H: HoldStore + ?Sized>(
        &self,
        store: (&S, &dyn UnitStore),
        holds: &H,
        tenant: &Tenant,
        mut req: HoldRequest,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>> {
        match req.take.strategy {
            Strategy::RedisCounter => {
                let lines = req.take.lines.clone();
                let decides = counter_decides(idem.is_some(), &req.take.placement);
                self.admitted(store, tenant, (&lines, decides), || {
                    holds.create_hold(tenant, req, idem)
                })
                .await
            }
            Strategy::RedisLock => {
                let lines = req.take.lines.clone();
                let r = self
                    .locked(tenant, &lines, |fences| {
                        req.take.fences = fences;
                        holds.create_hold(tenant, req, idem)
                    })
                    .await;
                if matches!(r, Ok(Executed::Fresh(_))) {
                    self.took(tenant, &lines).await;
                }
                r
            }
            other => Err(AllotError::unsupported_strategy(other.name(), "redis")),
        }
    }

    /// Take the locks of `skus` in sorted order (each with bounded, jittered attempts) and
    /// start their watchdog. Out of attempts on one SKU: the locks taken are given up and the
    /// answer is `contention`.
    pub async fn lock_skus(&self, tenant: &Tenant, skus: &[String]) -> Result<LockGuard> {
        let mut sorted: Vec<String> = skus.to_vec();
        sorted.sort();
        sorted.dedup();
        // The watchdog's connection first: a failure then leaves nothing locked.
        let conn = self.conn().await?;
        let owner = uuid::Uuid::new_v4().to_string();
        let mut held: Vec<(String, i64)> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        for sku in &sorted {
            let key = scoped(tenant, sku);
            match self.lock_one(&key, &owner).await {
                Ok(token) => {
                    held.push((sku.clone(), token));
                    keys.push(key);
                }
                Err(e) => {
                    for k in keys.iter().rev() {
                        let _ = self.unlock_one(k, &owner).await;
                    }
                    return Err(e);
                }
            }
        }
        Ok(LockGuard::start(self.handle(conn), owner, keys, held))
    }

    /// A second handle on the same connection and scripts (for the watchdog task).
    fn handle(&self, conn: Conn) -> Arc<GateHandle> {
        Arc::new(GateHandle {
            cfg: self.cfg.clone(),
            conn,
            unlock: self.unlock.clone(),
            renew: self.renew.clone(),
        })
    }

    async fn lock_one(&self, sku: &str, owner: &str) -> Result<i64> {
        let backoff = allot_core::retry::Backoff {
            base_ms: 1,
            cap_ms: self.cfg.lock_retry_cap_ms.max(1),
        };
        let attempts = self.cfg.lock_max_attempts.max(1);
        for attempt in 0..attempts {
            let (lock, fence) = (self.key(sku, "lock"), self.key(sku, "fence"));
            let (script, owner, ttl) = (&self.lock, owner.to_string(), self.cfg.lock_ttl_ms.max(1));
            let fence_ttl = (ttl * FENCE_TTL_FACTOR).max(60_000);
            let token = self
                .run(|mut c| async move {
                    script
                        .key(lock)
                        .key(fence)
                        .arg(owner)
                        .arg(ttl)
                        .arg(fence_ttl)
                        .invoke_async::<Option<i64>>(&mut c)
                        .await
                })
                .await?;
            if let Some(t) = token {
                return Ok(t);
            }
            if attempt + 1 < attempts {
                let r: u64 = rand::rng().random();
                tokio::time::sleep(Duration::from_micros(backoff.delay_us(attempt, r))).await;
            }
        }
        Err(AllotError::Contention {
            attempts,
            retry_after_ms: self.cfg.lock_retry_cap_ms.max(1),
        })
    }

    async fn unlock_one(&self, sku: &str, owner: &str) -> Result<bool> {
        let (key, owner, script) = (self.key(sku, "lock"), owner.to_string(), &self.unlock);
        self.run(|mut c| async move { script.key(key).arg(owner).invoke_async::<i64>(&mut c).await })
            .await
            .map(|n| n == 1)
    }

    /// Whether the lock of `sku` of `tenant` is taken (by anyone).
    pub async fn is_locked(&self, tenant: &Tenant, sku: &str) -> Result<bool> {
        let key = self.key(&scoped(tenant, sku), "lock");
        self.run(|mut c| async move { redis::cmd("EXISTS").arg(key).query_async::<i64>(&mut c).await })
            .await
            .map(|n| n == 1)
    }
}

/// The name a SKU of `tenant` has in Redis keys: `tenant/sku` (names hold no `/`), or the SKU
/// alone for the default tenant (whose keys keep the names they had before tenants). The
/// whole name is the key's hash tag, so a SKU's keys share one cluster slot.
pub fn scoped(tenant: &str, sku: &str) -> String {
    if tenant == allot_core::access::DEFAULT_TENANT {
        sku.to_string()
    } else {
        format!("{tenant}/{sku}")
    }
}

/// What a [`LockGuard`]'s watchdog and release need of the gate.
struct GateHandle {
    cfg: RedisConfig,
    conn: Conn,
    unlock: redis::Script,
    renew: redis::Script,
}

impl GateHandle {
    fn key(&self, sku: &str) -> String {
        format!("{}:{{{sku}}}:lock", self.cfg.key_prefix)
    }

    /// Run `script` on `sku`'s lock for `owner` (with `ms` for a renewal); `true` when the
    /// owner still had it.
    async fn call(&self, script: &redis::Script, sku: &str, owner: &str, ms: Option<u64>) -> bool {
        let mut c = self.conn.clone();
        let mut inv = script.key(self.key(sku));
        inv.arg(owner);
        if let Some(ms) = ms {
            inv.arg(ms);
        }
        let timeout = Duration::from_millis(self.cfg.timeout_ms.max(1));
        matches!(
            tokio::time::timeout(timeout, inv.invoke_async::<i64>(&mut c)).await,
            Ok(Ok(1))
        )
    }
}

/// The locks of one `redis_lock` acquisition: the SKUs (sorted) with their fencing tokens.
/// A watchdog task renews every lock each `lock_ttl_ms / 3` while the guard lives; it stops
/// when a renewal finds a lock gone. [`LockGuard::release`] unlocks (compare-and-delete);
/// dropping the guard stops the watchdog and unlocks in the background.
pub struct LockGuard {
    handle: Arc<GateHandle>,
    owner: String,
    /// The tenant-scoped names of the locked SKUs (what the Redis keys carry).
    keys: Vec<String>,
    fences: Vec<(String, i64)>,
    watchdog: Option<tokio::task::JoinHandle<()>>,
}

impl LockGuard {
    fn start(handle: Arc<GateHandle>, owner: String, keys: Vec<String>, fences: Vec<(String, i64)>) -> Self {
        let every = Duration::from_millis((handle.cfg.lock_ttl_ms / 3).max(1));
        let (h, o, skus) = (handle.clone(), owner.clone(), keys.clone());
        let watchdog = tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                for sku in &skus {
                    if !h.call(&h.renew, sku, &o, Some(h.cfg.lock_ttl_ms.max(1))).await {
                        tracing::warn!(%sku, "redis_lock: lock lost before release (renewal refused)");
                        return;
                    }
                }
            }
        });
        LockGuard {
            handle,
            owner,
            keys,
            fences,
            watchdog: Some(watchdog),
        }
    }

    /// `(sku, fencing token)` per locked SKU, sorted by SKU.
    pub fn fences(&self) -> &[(String, i64)] {
        &self.fences
    }

    /// Stop renewing (the locks then lapse after their TTL): what a holder that pauses (GC,
    /// swap, a stopped VM) looks like from outside. For tests and drills.
    pub fn stop_watchdog(&mut self) {
        if let Some(w) = self.watchdog.take() {
            w.abort();
        }
    }

    /// Stop the watchdog and unlock every SKU this guard still owns, in reverse order.
    pub async fn release(mut self) {
        self.stop_watchdog();
        for key in self.keys.iter().rev() {
            self.handle.call(&self.handle.unlock, key, &self.owner, None).await;
        }
        self.keys.clear();
        self.fences.clear();
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        self.stop_watchdog();
        if self.keys.is_empty() {
            return;
        }
        let (h, o, skus) = (self.handle.clone(), self.owner.clone(), std::mem::take(&mut self.keys));
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                for sku in skus.iter().rev() {
                    h.call(&h.unlock, sku, &o, None).await;
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_carry_the_sku_as_hash_tag() {
        let g = RedisGate::new(RedisConfig::new("redis://127.0.0.1:6379")).unwrap();
        assert_eq!(g.key("HOT-1", "avail"), "allot:{HOT-1}:avail");
        assert_eq!(g.key("a:b", "lock"), "allot:{a:b}:lock");
        assert_eq!(scoped("default", "HOT"), "HOT");
        assert_eq!(g.key(&scoped("acme", "HOT"), "avail"), "allot:{acme/HOT}:avail");
    }

    #[test]
    fn cluster_urls_are_recognised() {
        let c = RedisConfig::new("redis+cluster://127.0.0.1:7001,127.0.0.1:7002");
        assert!(c.is_cluster());
        assert_eq!(
            c.cluster_nodes(),
            vec!["redis://127.0.0.1:7001", "redis://127.0.0.1:7002"]
        );
        let c = RedisConfig::new("redis://127.0.0.1:7001, redis://127.0.0.1:7002");
        assert!(c.is_cluster());
        assert!(!RedisConfig::new("redis://127.0.0.1:6379").is_cluster());
        assert!(RedisGate::new(RedisConfig::new("http://x")).is_err());
        let mut bad = RedisConfig::new("redis://127.0.0.1:6379");
        bad.key_prefix = "a{b".into();
        assert!(RedisGate::new(bad).is_err());
    }
}
