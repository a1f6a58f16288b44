//! A target: a real `allot serve` (in this process, on a loopback port) on one backend with
//! one default strategy, on the simulation's clock, and the client that sends it each step.

use crate::made::{Made, Noted};
use crate::ops::Op;
use crate::request::{self, Method};
use crate::{view, Answer, SimError};
use allot_core::{ManualClock, Strategy};
use allot_server::{RunningServer, ServerConfig};
use serde_json::Value;
use std::sync::Arc;

/// Which backend and strategy a target runs: `sqlite`, or `postgres:<strategy>` (`atomic`,
/// `pessimistic`, `optimistic`, `segmented`, `batched`, `auto`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    /// `true` for PostgreSQL, `false` for SQLite.
    pub postgres: bool,
    /// The server's default strategy (`None`: the backend's own default; `auto` is a mode).
    pub strategy: Option<String>,
    /// A Redis strategy on a Redis Cluster of the target's own (`@cluster`).
    pub cluster: bool,
    /// PostgreSQL with `+sql`: whole confirms and releases of holds without an idempotency
    /// key run in a transaction of the caller's own ([`crate::in_tx`]), not over HTTP.
    pub in_tx: bool,
}

impl Spec {
    /// `sqlite`, `sqlite:<strategy>`, `postgres` or `postgres:<strategy>`; a Redis strategy
    /// with `@cluster` (`postgres:redis_lock@cluster`) runs on a 3-master Redis Cluster the
    /// target starts for itself (Debian's `redis-server` and `redis-cli`).
    pub fn parse(s: &str) -> Result<Spec, SimError> {
        let (s, in_tx) = match s.strip_suffix("+sql") {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        let (s, cluster) = match s.strip_suffix("@cluster") {
            Some(rest) => (rest, true),
            None => (s, false),
        };
        let (backend, strategy) = match s.split_once(':') {
            Some((b, st)) => (b, Some(st.to_string())),
            None => (s, None),
        };
        let postgres = match backend {
            "postgres" => true,
            "sqlite" => false,
            _ => {
                return Err(SimError::Setup(format!(
                    "unknown backend `{backend}` (sqlite or postgres[:strategy])"
                )))
            }
        };
        if let Some(st) = strategy.as_deref().filter(|st| *st != "auto") {
            st.parse::<Strategy>()
                .map_err(|_| SimError::Setup(format!("unknown strategy `{st}`")))?;
        }
        let spec = Spec {
            postgres,
            strategy,
            cluster,
            in_tx,
        };
        if cluster && !spec.redis() {
            return Err(SimError::Setup("`@cluster` goes with a Redis strategy".into()));
        }
        if in_tx && !postgres {
            return Err(SimError::Setup("`+sql` goes with PostgreSQL".into()));
        }
        Ok(spec)
    }

    /// Whether the target runs a Redis strategy (`postgres:redis_counter`,
    /// `postgres:redis_lock`): it needs the Redis of `ALLOT_SIM_REDIS_URL` (default
    /// `redis://127.0.0.1:6379`), so `allot sim` runs it only when named.
    pub fn redis(&self) -> bool {
        self.strategy.as_deref().is_some_and(|s| s.starts_with("redis_"))
    }

    /// The booking strategy a target's bookings name, so that each PostgreSQL one is run
    /// too: `advisory` beside `pessimistic`, `batched` beside `batched`; the backend's default
    /// (`exclusion`, SQLite's `serialized`) otherwise.
    pub fn booking_strategy(&self) -> Option<&'static str> {
        match (self.postgres, self.strategy.as_deref()) {
            (true, Some("pessimistic")) => Some("advisory"),
            (true, Some("batched")) => Some("batched"),
            _ => None,
        }
    }

    /// The unit claim strategy a target's claims name, so that each PostgreSQL one is run:
    /// `nowait_scan` beside `pessimistic`, `batched` beside `batched`; the backend's default
    /// (`skip_locked`, SQLite's `serialized`) otherwise.
    pub fn unit_strategy(&self) -> Option<&'static str> {
        match (self.postgres, self.strategy.as_deref()) {
            (true, Some("pessimistic")) => Some("nowait_scan"),
            (true, Some("batched")) => Some("batched"),
            _ => None,
        }
    }

    /// The name a report uses.
    pub fn name(&self) -> String {
        let backend = if self.postgres { "postgres" } else { "sqlite" };
        let cluster = if self.cluster { "@cluster" } else { "" };
        let in_tx = if self.in_tx { "+sql" } else { "" };
        match &self.strategy {
            Some(s) => format!("{backend}:{s}{cluster}{in_tx}"),
            None => format!("{backend}{in_tx}"),
        }
    }
}

/// A running target and what it made.
pub struct Target {
    /// Its spec.
    pub spec: Spec,
    /// What it handed out so far.
    pub made: Made,
    base: String,
    client: reqwest::Client,
    server: Option<RunningServer>,
    /// The server's database, opened beside it: the lease sweeper's passes ([`Op::Sweep`]).
    store: Arc<dyn allot_core::Database>,
    cleanup: Cleanup,
    /// The Redis Cluster of an `@cluster` target (stopped when the target is dropped).
    _cluster: Option<allot_bench::RedisCluster>,
    /// The API keys' secrets: the `default` tenant's, then the other tenant's.
    secrets: [String; 2],
    /// The caller's own connection of a `+sql` target.
    caller: Option<crate::in_tx::Caller>,
}

/// An admin key of `default` and one of [`crate::ops::OTHER_TENANT`] in `store` (made before
/// the first request, so every request needs one): their secrets.
async fn make_keys(
    store: &dyn allot_core::store::KeyStore,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<[String; 2], allot_core::AllotError> {
    let body = allot_core::access::NewKeyBody {
        name: "sim".into(),
        scopes: vec![allot_core::access::Scope::Admin],
        rate_per_s: Some(1_000_000),
    };
    let key = async |tenant: allot_core::Tenant| {
        allot_server::access::create_key(store, now, &tenant, &body)
            .await
            .map(|(_, secret)| secret)
    };
    let default = key(allot_core::Tenant::default_tenant()).await?;
    Ok([
        default,
        key(allot_core::Tenant::stored(crate::ops::OTHER_TENANT)).await?,
    ])
}

/// What a started target runs: its server, the store beside it (one connection), the API
/// keys' secrets, and a `+sql` target's own connection; or why it did not start.
type Served = (
    (RunningServer, Arc<dyn allot_core::Database>, [String; 2]),
    Option<crate::in_tx::Caller>,
);

/// Start the server of `spec` on `cfg`, then what runs beside it.
async fn serve(spec: &Spec, cfg: &ServerConfig) -> Result<Served, String> {
    let started = match allot_server::spawn(cfg).await {
        // The sweeper's handle needs one connection (a PostgreSQL target's server has its
        // pool of 2 beside it: one step at a time needs no more, and two runs of every
        // target fit in PostgreSQL's default max_connections of 100).
        Ok(server) => allot_server::open_store(&ServerConfig {
            pool_size: 1,
            ..cfg.clone()
        })
        .await
        .map(|store| (server, store)),
        Err(e) => Err(e),
    };
    let (server, store) = started.map_err(|e| e.to_string())?;
    let secrets = make_keys(&*store, store.now()).await.map_err(|e| e.to_string())?;
    let caller = match spec.in_tx {
        true => Some(
            crate::in_tx::Caller::connect(&cfg.database_url)
                .await
                .map_err(|e| e.to_string())?,
        ),
        false => None,
    };
    Ok(((server, store, secrets), caller))
}

/// Most rows one sweep statement finalises (`allot serve`'s `hold_sweep_batch`); most due
/// schedules one pass takes.
const SWEEP_BATCH: u32 = 500;

/// The page size of the listings that find the jobs a schedule pass made.
const LIST_PAGE: usize = 100;

/// What an answer's body handed out (read before its view).
fn noted(op: &Op, body: &Value) -> Option<Noted> {
    match op {
        // The callback of a batch is made after the jobs.
        Op::Enqueue { .. } => Some(Noted::Jobs(
            body["ids"]
                .as_array()?
                .iter()
                .filter_map(Value::as_i64)
                .chain(body["batch"]["callback_id"].as_i64())
                .collect(),
        )),
        Op::Claim { .. } => Some(Noted::Leases(
            body["jobs"]
                .as_array()?
                .iter()
                .filter_map(|j| Some((j["id"].as_i64()?, j["lease_token"].as_str()?.to_string())))
                .collect(),
        )),
        Op::Hold { .. } => Some(Noted::Hold {
            id: body["id"].as_str()?.to_string(),
            bookings: body["bookings"]
                .as_array()
                .map(|b| b.iter().filter_map(|b| b["id"].as_str().map(str::to_string)).collect())
                .unwrap_or_default(),
        }),
        _ => body["id"].as_str().map(|id| Noted::Id(id.to_string())),
    }
}

/// What a target removes when it ends: its PostgreSQL database or its SQLite file.
enum Cleanup {
    Database { admin_url: String, database: String },
    File(std::path::PathBuf),
}

impl Target {
    /// Start `spec` on `clock`; a PostgreSQL target gets a database of its own on the server of
    /// `database_url` (dropped by [`Target::stop`]).
    pub async fn start(spec: &Spec, clock: Arc<ManualClock>, database_url: &str) -> Result<Target, SimError> {
        let (url, cleanup) = if spec.postgres {
            // A database of its own, not a schema: advisory locks (the idempotency keys') are
            // per database, and a run beside another (or beside the tests) would see the other's
            // keys in use.
            let database = format!("allot_sim_{}", uuid::Uuid::new_v4().simple());
            let url = with_database(database_url, &database)?;
            admin(database_url, &format!("CREATE DATABASE {database}")).await?;
            (
                url,
                Cleanup::Database {
                    admin_url: database_url.to_string(),
                    database,
                },
            )
        } else {
            let file = std::env::temp_dir().join(format!("allot-sim-{}.db", uuid::Uuid::new_v4().simple()));
            (format!("sqlite://{}", file.display()), Cleanup::File(file))
        };
        let mut cfg = config(spec, clock, url);
        let cluster = match spec.cluster {
            true => match tokio::task::spawn_blocking(allot_bench::RedisCluster::start).await {
                Ok(Ok(c)) => Some(c),
                Ok(Err(e)) => {
                    cleanup.run().await;
                    return Err(SimError::Setup(format!("{}: {e}", spec.name())));
                }
                Err(e) => return Err(SimError::Setup(format!("{}: {e}", spec.name()))),
            },
            false => None,
        };
        if spec.redis() {
            // The shared Redis (or the target's own cluster), under a prefix of this target's
            // own: no other run or test sees its counters, locks and fences.
            cfg.redis_url = Some(cluster.as_ref().map_or_else(redis_url, |c| c.url()));
            cfg.redis_key_prefix = format!("allot-sim-{}", uuid::Uuid::new_v4().simple());
        }
        let made = serve(spec, &cfg).await;
        let ((server, store, secrets), caller) = match made {
            Ok(s) => s,
            Err(e) => {
                cleanup.run().await;
                return Err(SimError::Setup(format!(
                    "{}: the server did not start: {e}",
                    spec.name()
                )));
            }
        };
        Ok(Target {
            spec: spec.clone(),
            made: Made::default(),
            base: server.url(),
            client: reqwest::Client::new(),
            server: Some(server),
            store,
            cleanup,
            _cluster: cluster,
            secrets,
            caller,
        })
    }

    /// One pass of the lease sweeper at the store's now (the simulation's clock), as
    /// `allot serve` runs it: jobs rescued, bookings and holds past their expiry finalised.
    pub async fn sweep(&self) -> Result<(), SimError> {
        let now = self.store.now();
        let failed = |e: allot_core::AllotError| SimError::Setup(format!("{}: a sweep failed: {e}", self.spec.name()));
        self.store.rescue_jobs(now, SWEEP_BATCH).await.map_err(failed)?;
        self.store.expire_bookings(now, SWEEP_BATCH).await.map_err(failed)?;
        self.store.expire_holds(now, SWEEP_BATCH).await.map_err(failed)?;
        Ok(())
    }

    /// A pass of the scheduler at the clock's now, then the jobs it made noted (listed from
    /// each queue above the highest id noted so far, in id order: the order they were made)
    /// and answered as [`crate::view::made_job`] shows them, in that order.
    pub async fn run_schedules(&mut self) -> Result<Vec<Value>, SimError> {
        let failed =
            |e: allot_core::AllotError| SimError::Setup(format!("{}: a schedule pass failed: {e}", self.spec.name()));
        self.store
            .run_schedules(self.store.now(), SWEEP_BATCH)
            .await
            .map_err(failed)?;
        let mut made: Vec<Value> = Vec::new();
        for queue in crate::ops::QUEUES {
            let mut after = self.made.last_job();
            loop {
                let path = format!("/v1/queues/{queue}/jobs?after={after}&limit={LIST_PAGE}");
                let (status, _, body) = self.send(&request::Request::get(path)).await?;
                let jobs = body["jobs"].as_array().cloned().unwrap_or_default();
                if status != 200 {
                    return Err(SimError::Setup(format!(
                        "{}: listing {queue}'s jobs: {status}",
                        self.spec.name()
                    )));
                }
                made.extend(jobs.iter().cloned());
                match body["next"].as_i64() {
                    Some(next) => after = next,
                    None => break,
                }
            }
        }
        made.sort_by_key(|j| j["id"].as_i64());
        let ids = made.iter().filter_map(|j| j["id"].as_i64()).collect();
        self.made.note(&Op::RunSchedules, (200, false), Some(Noted::Jobs(ids)));
        Ok(made.iter().map(|j| crate::view::made_job(j, &self.made)).collect())
    }

    /// Send `op` (its references resolved by what this target made) and note what it made.
    pub async fn step(&mut self, op: &Op) -> Result<Option<Answer>, SimError> {
        if let Op::Batch { ops } = op {
            return self.step_batch(ops).await.map(Some);
        }
        if matches!(op, Op::HoldEvents | Op::StockEvents) {
            // Every committed event numbered first (a PostgreSQL server's sequencer runs on a
            // timer): the feed then holds all that was written.
            let failed =
                |e: allot_core::AllotError| SimError::Setup(format!("{}: sequencing failed: {e}", self.spec.name()));
            while self.store.sequence_events(1000).await.map_err(failed)? > 0 {}
        }
        let resolved = self.made.resolve(op);
        let Some(mut req) = request::of(op, &resolved) else {
            return Ok(None);
        };
        let strategy = match op {
            Op::Book { .. } => self.spec.booking_strategy(),
            Op::ClaimUnits { .. } => self.spec.unit_strategy(),
            _ => None,
        };
        if let (Some(body), Some(strategy)) = (req.body.as_mut(), strategy) {
            body["strategy"] = Value::String(strategy.into());
        }
        let in_tx = match &self.caller {
            Some(c) => c.step(op, &resolved.id, self.store.now()).await?,
            None => None,
        };
        let (status, replayed, body) = match in_tx {
            Some((status, body)) => (status, false, body),
            None => self.send(&req).await?,
        };
        // Noted first: the view names an enqueue's new jobs by their places.
        self.made.note(op, (status, replayed), noted(op, &body));
        let mut answer = Answer {
            status,
            replayed,
            view: view::of(op, status, &body, &self.made),
        };
        if let Some(served) = self.served_otherwise(op, &answer, &body) {
            // Not the model's business, but a target that is not what it says is no test of
            // its strategy: the view then differs from the model's, and the run says so.
            answer.view["served_by"] = Value::String(served);
        }
        Ok(Some(answer))
    }

    /// Send a batch of `ops` and note what each made, in order: its refusal, or each
    /// operation's result as the model lists them.
    async fn step_batch(&mut self, ops: &[Op]) -> Result<Answer, SimError> {
        let resolved: Vec<_> = ops.iter().map(|op| self.made.resolve(op)).collect();
        let (status, replayed, body) = self.send(&request::batch(ops, &resolved)).await?;
        if status != 200 {
            let view = view::of(&Op::Batch { ops: Vec::new() }, status, &body, &self.made);
            return Ok(Answer { status, replayed, view });
        }
        let mut results = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            let r = &body["results"][i];
            let (status, replayed) = (r["status"].as_u64().unwrap_or(0) as u16, r["replayed"] == true);
            self.made.note(op, (status, replayed), noted(op, &r["body"]));
            let answer = Answer {
                status,
                replayed,
                view: view::of(op, status, &r["body"], &self.made),
            };
            results.push(answer.as_result());
        }
        let view = serde_json::json!({ "results": results });
        Ok(Answer { status, replayed, view })
    }

    /// Send `req`: the status, whether it was a replay, and the body (`null` if none).
    async fn send(&self, req: &request::Request) -> Result<(u16, bool, Value), SimError> {
        let url = format!("{}{}", self.base, req.path);
        let mut http = match req.method {
            Method::Get => self.client.get(url),
            Method::Post => self.client.post(url),
            Method::Delete => self.client.delete(url),
            Method::Put => self.client.put(url),
            Method::Patch => self.client.patch(url),
        };
        if let Some(body) = &req.body {
            http = http.json(body);
        }
        http = http.bearer_auth(&self.secrets[usize::from(req.other_tenant)]);
        if let Some(key) = req.key {
            http = http.header("Idempotency-Key", key);
        }
        let failed = |e: reqwest::Error| SimError::Setup(format!("{}: {e}", self.spec.name()));
        let resp = http.send().await.map_err(failed)?;
        let status = resp.status().as_u16();
        let replayed = resp.headers().get("idempotent-replayed").is_some_and(|v| v == "true");
        Ok((status, replayed, resp.json().await.unwrap_or(Value::Null)))
    }

    /// The strategy a fresh allocation or hold was served with, when it is not the one this
    /// target was started with (`auto` and a backend's own default are not checked).
    fn served_otherwise(&self, op: &Op, answer: &Answer, body: &Value) -> Option<String> {
        let wanted = self.spec.strategy.as_deref().filter(|s| *s != "auto")?;
        let fresh = answer.status == 201 && !answer.replayed;
        if !(fresh && matches!(op, Op::Allocate { .. } | Op::Hold { .. })) {
            return None;
        }
        let served = body["strategy"].as_str().unwrap_or("(none)");
        (served != wanted).then(|| served.to_string())
    }

    /// Stop the server and remove its database.
    pub async fn stop(self) {
        let Target {
            server,
            store,
            cleanup,
            _cluster,
            caller,
            spec,
            ..
        } = self;
        if let Some(c) = caller {
            let ran = c.ran.load(std::sync::atomic::Ordering::Relaxed);
            eprintln!(
                "{}: {ran} confirms and releases ran in the caller's transaction",
                spec.name()
            );
        }
        if let Some(server) = server {
            let _ = server.stop().await;
        }
        // Its connections closed before the database goes.
        drop(store);
        cleanup.run().await;
    }
}

impl Cleanup {
    /// Drop the database or remove the file; a failure is said on stderr (the run goes on).
    async fn run(&self) {
        match self {
            Cleanup::Database { admin_url, database } => {
                if let Err(e) = admin(admin_url, &format!("DROP DATABASE {database} WITH (FORCE)")).await {
                    eprintln!("allot sim: could not drop the database {database}: {e}");
                }
            }
            Cleanup::File(f) => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", f.display()));
                }
            }
        }
    }
}

/// A server on `url` with the simulation's limits and clock, its background quiet (the
/// clock only moves when the simulation moves it; expiry needs no sweeper).
fn config(spec: &Spec, clock: Arc<ManualClock>, url: String) -> ServerConfig {
    let mut cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: url,
        pool_size: 2,
        background_interval_ms: Some(3_600_000),
        sweep_interval_ms: 3_600_000,
        hold_sweep_interval_ms: 3_600_000,
        ..ServerConfig::default()
    };
    cfg.limits = crate::model::limits();
    cfg.clock = clock;
    match spec.strategy.as_deref() {
        Some("auto") => cfg.default_auto = true,
        Some(s) => cfg.default_strategy = s.parse().ok(),
        None => {}
    }
    cfg
}

/// The Redis the `redis_*` targets use.
fn redis_url() -> String {
    std::env::var("ALLOT_SIM_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// `url` naming `database` instead of its own (`postgres://who@where/db?options`).
fn with_database(url: &str, database: &str) -> Result<String, SimError> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let rest = base
        .strip_prefix("postgres://")
        .or_else(|| base.strip_prefix("postgresql://"))
        .ok_or_else(|| SimError::Setup(format!("not a postgres:// URL: {url}")))?;
    let authority = rest.split_once('/').map_or(rest, |(a, _)| a);
    Ok(format!("postgres://{authority}/{database}{query}"))
}

/// Run `sql` on the database of `url`.
async fn admin(url: &str, sql: &str) -> Result<(), SimError> {
    let setup = |e: tokio_postgres::Error| SimError::Setup(format!("PostgreSQL at the --database-url: {e}"));
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .map_err(setup)?;
    let conn = tokio::spawn(conn);
    let done = client.batch_execute(sql).await.map_err(setup);
    drop(client);
    let _ = conn.await;
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_names_another_database() {
        let url = |u| with_database(u, "x").unwrap();
        assert_eq!(
            url("postgres://postgres@127.0.0.1:5432/postgres"),
            "postgres://postgres@127.0.0.1:5432/x"
        );
        assert_eq!(
            url("postgres://u:p@h/db?sslmode=disable"),
            "postgres://u:p@h/x?sslmode=disable"
        );
        assert_eq!(url("postgresql://h"), "postgres://h/x");
        assert!(with_database("mysql://h/db", "x").is_err());
        assert_eq!(Spec::parse("postgres:batched").unwrap().name(), "postgres:batched");
        assert!(Spec::parse("postgres:nope").is_err());
        assert!(Spec::parse("oracle").is_err());
        let on_a_cluster = Spec::parse("postgres:redis_lock@cluster").unwrap();
        assert!(on_a_cluster.cluster && on_a_cluster.redis());
        assert_eq!(on_a_cluster.name(), "postgres:redis_lock@cluster");
        assert!(Spec::parse("postgres:atomic@cluster").is_err());
        assert_eq!(
            Spec::parse("postgres:atomic+sql").unwrap().name(),
            "postgres:atomic+sql"
        );
        assert!(Spec::parse("sqlite+sql").is_err());
    }
}
