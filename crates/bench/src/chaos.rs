//! The fault suite (`allot chaos`): a load of allocations, each with its own
//! `Idempotency-Key`, against an `allot serve` child process, a fault in the middle, then
//! Jepsen-style checks of what clients were told against what the database holds:
//!
//! - every answer is 2xx, a 4xx, `503`, or no answer at all (the server died): anything else
//!   is a failure;
//! - every request without a 201 (a 503 or no answer) is retried with its key until it is
//!   answered: a 503 whose retry is a *replay* was applied after all — a failure ("503 means
//!   nothing was applied"); an unanswered one may have been applied or not, and its retry
//!   must apply it exactly once;
//! - bank: the SKU's stock taken equals the number of distinct keys applied (nothing lost,
//!   nothing twice), and the audit is clean.
//!
//! Every run is bounded in time and sends traffic to loopback only; the PostgreSQL clusters
//! are the suite's own ([`crate::cluster`]), never the shared server.

use crate::cluster::{free_port, PgCluster, RedisServer, StopMode};
use crate::error::BenchError;
use crate::lb::Haproxy;
use serde::Serialize;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A fault scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// SIGKILL of the server on SQLite mid-load, then a restart on the same file.
    SqliteKill,
    /// `pg_ctl restart -m fast` of the cluster under `batched` and `atomic` load.
    PgRestartFast,
    /// `pg_ctl restart -m immediate` (crash recovery) under the same load.
    PgRestartImmediate,
    /// SIGKILL of the allot server on PostgreSQL mid-load (`batched` lanes hold requests in
    /// memory), then a restart: an acknowledged request is committed, an unanswered one
    /// retried with its key is applied once.
    PgKillAllot,
    /// A primary and a synchronous streaming standby (made by the suite); the primary is
    /// SIGKILLed mid-load and the standby promoted; allot, on a multi-host URL with
    /// `target_session_attrs=read-write`, must find the new primary by itself.
    PgFailover,
    /// Three allot instances on one database behind HAProxy; one is SIGKILLed mid-load and
    /// restarted (HAProxy's health checks take it out and back).
    PgHaproxy,
    /// The HA stack of Debian's packages ([`crate::patroni::PatroniStack`]: etcd, two PostgreSQL
    /// nodes under Patroni in synchronous mode, HAProxy routing to the leader by Patroni's
    /// health check); the leader node (Patroni and PostgreSQL) is SIGKILLed mid-load,
    /// Patroni promotes the synchronous standby, and allot, on HAProxy's address, goes on.
    PgPatroni,
    /// A Redis of the suite's own crashes (SIGKILL) and comes back empty under
    /// `redis_counter`, `redis_lock` and `atomic` load on PostgreSQL.
    RedisRestart,
    /// `FLUSHALL` on the suite's Redis under the same load: every counter, lock and fence
    /// gone at once while the server keeps running (an operator's mistake, or a failover to
    /// an empty replica).
    RedisFlushall,
}

impl Scenario {
    /// Every scenario.
    pub const ALL: [Scenario; 9] = [
        Scenario::SqliteKill,
        Scenario::PgRestartFast,
        Scenario::PgRestartImmediate,
        Scenario::PgKillAllot,
        Scenario::PgFailover,
        Scenario::PgHaproxy,
        Scenario::PgPatroni,
        Scenario::RedisRestart,
        Scenario::RedisFlushall,
    ];

    /// Its name (`--scenario`).
    pub fn name(self) -> &'static str {
        match self {
            Scenario::SqliteKill => "sqlite-kill",
            Scenario::PgRestartFast => "pg-restart-fast",
            Scenario::PgRestartImmediate => "pg-restart-immediate",
            Scenario::PgKillAllot => "pg-kill-allot",
            Scenario::PgFailover => "pg-failover",
            Scenario::PgHaproxy => "pg-haproxy",
            Scenario::PgPatroni => "pg-patroni",
            Scenario::RedisRestart => "redis-restart",
            Scenario::RedisFlushall => "redis-flushall",
        }
    }
}

/// What to run.
#[derive(Debug, Clone)]
pub struct ChaosOptions {
    /// The scenario.
    pub scenario: Scenario,
    /// The `allot` binary to run as the server (the running one).
    pub allot_bin: PathBuf,
    /// Concurrent clients.
    pub clients: usize,
    /// Requests (each one unit, each with its own key).
    pub requests: u64,
}

/// What a scenario found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ChaosReport {
    /// The scenario's name.
    pub scenario: String,
    /// Requests sent.
    pub operations: u64,
    /// Answered 201.
    pub acknowledged: u64,
    /// Answered 503 (then retried with their keys).
    pub failed_503: u64,
    /// Not answered (the server died; retried with their keys).
    pub unanswered: u64,
    /// Answered `409 contention` (refused, nothing applied; retried with their keys).
    pub refused_contention: u64,
    /// Answered `409 lease_lost` under `redis_lock`: Redis lost the lock (FLUSHALL, a restart)
    /// while its holder worked, another took it, and the SKU row's fencing token refused the
    /// late holder. Nothing applied; retried with their keys, which checks it.
    pub refused_fenced: u64,
    /// From the fault to the first 201 once the fault is over (the restart done), ms.
    pub recovery_ms: u64,
    /// Keys whose effect is missing from the database (must be 0).
    pub lost: u64,
    /// Units taken beyond one per key (must be 0).
    pub applied_twice: u64,
    /// Every check that failed, in words (empty: the scenario passed).
    pub violations: Vec<String>,
    /// `pg-haproxy`: fault-free throughput (allocations/s) through HAProxy with 1, 2 and 3
    /// instances on the same database.
    pub throughput_by_instances: Vec<(usize, u64)>,
    /// The unit claims, bookings and jobs sent through the same fault, and what their
    /// checkers found.
    pub mixed: crate::mixed::MixedReport,
}

/// An `allot serve` child process (a chaos scenario's, or a test's that kills one): killed
/// when dropped.
pub struct Server {
    /// The process.
    pub child: tokio::process::Child,
    /// Its base URL, `http://127.0.0.1:{port}`.
    pub url: String,
}

/// Start `bin serve` on 127.0.0.1:`port` and `database_url` (and `redis_url`), and wait (30 s
/// at most) until it answers `/healthz`.
pub async fn start_server(
    bin: &PathBuf,
    port: u16,
    database_url: &str,
    redis_url: Option<&str>,
) -> Result<Server, BenchError> {
    start_server_with(bin, port, (database_url, redis_url), &[]).await
}

/// [`start_server`] with `env` added to the process's environment (`allot sim --faults` runs
/// its instances under libfaketime this way, to jump their clock).
pub async fn start_server_with(
    bin: &PathBuf,
    port: u16,
    (database_url, redis_url): (&str, Option<&str>),
    env: &[(String, String)],
) -> Result<Server, BenchError> {
    let redis: Vec<&str> = redis_url.map_or_else(Vec::new, |u| vec!["--redis-url", u]);
    let child = tokio::process::Command::new(bin)
        .args([
            "serve",
            "--listen",
            &format!("127.0.0.1:{port}"),
            "--database-url",
            database_url,
        ])
        .args(["--pool-wait-ms", "1000", "--request-timeout-ms", "40000"])
        .args(&redis)
        .env("ALLOT_LOG", "warn")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| BenchError::Setup(format!("cannot start {}: {e}", bin.display())))?;
    let server = Server {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    wait_healthy(&server.url, Duration::from_secs(30)).await?;
    Ok(server)
}

pub(crate) async fn wait_healthy(url: &str, within: Duration) -> Result<(), BenchError> {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if let Ok(r) = client.get(format!("{url}/healthz")).send().await {
            if r.status().is_success() {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(BenchError::Setup(format!("{url} not healthy within {within:?}")))
}

/// One request's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Answer {
    Created,
    Unavailable,
    /// `409 contention` (e.g. `redis_lock` out of lock attempts): refused, nothing applied,
    /// as a 503 promises; the retry by key checks it.
    Contention,
    /// `409 lease_lost`: the fencing token refused a holder whose Redis lock was lost;
    /// nothing applied, like `contention`.
    Fenced,
    Unanswered,
    Other(String),
}

fn body(sku: &str, strategy: &str) -> Value {
    json!({"lines": [{"sku": sku, "quantity": 1}], "strategy": strategy})
}

/// Send request `i` once; `replayed` tells whether a 201 was a replay.
/// Request `i` of a load on `sku` (its key: `{sku}-{i}`).
struct Target<'a> {
    url: &'a str,
    sku: &'a str,
    strategies: &'a [&'a str],
}

async fn send(client: &reqwest::Client, t: &Target<'_>, i: u64) -> (Answer, bool) {
    let strategy = t.strategies[i as usize % t.strategies.len()];
    let sent = client
        .post(format!("{}/v1/allocations", t.url))
        .header("idempotency-key", format!("{}-{i}", t.sku))
        .json(&body(t.sku, strategy))
        .send()
        .await;
    match sent {
        Err(_) => (Answer::Unanswered, false),
        Ok(r) => {
            let replayed = r.headers().contains_key("idempotent-replayed");
            match r.status().as_u16() {
                201 => (Answer::Created, replayed),
                // A 503 `outcome_unknown` promises nothing: like no answer, its retry decides.
                503 => match r.json::<Value>().await {
                    Ok(b) if b["error"]["code"] == "outcome_unknown" => (Answer::Unanswered, false),
                    _ => (Answer::Unavailable, false),
                },
                // A proxy's 502/504: the instance died or timed out with the request; the
                // client cannot know whether it was applied (like no answer at all).
                502 | 504 => (Answer::Unanswered, false),
                409 => match r.json::<Value>().await {
                    Ok(b) if b["error"]["code"] == "contention" => (Answer::Contention, false),
                    Ok(b) if b["error"]["code"] == "lease_lost" => (Answer::Fenced, false),
                    // The code says which refusal it was (the report names it).
                    Ok(b) => (Answer::Other(format!("409 {}", b["error"]["code"])), false),
                    Err(_) => (Answer::Other("409".into()), false),
                },
                s => (Answer::Other(s.to_string()), false),
            }
        }
    }
}

/// What the load saw: each request's answer, and the instants of the 201s.
struct Seen {
    answers: Mutex<Vec<Option<Answer>>>,
    acks: Mutex<Vec<Instant>>,
    done: AtomicU64,
}

impl Seen {
    fn new(requests: u64) -> Arc<Seen> {
        Arc::new(Seen {
            answers: Mutex::new(vec![None; requests as usize]),
            acks: Mutex::new(Vec::new()),
            done: AtomicU64::new(0),
        })
    }
}

async fn drive(url: String, sku: &'static str, strategies: Vec<&'static str>, clients: usize, n: u64, seen: Arc<Seen>) {
    crate::load::each_index(clients, n, move |client, i| {
        let (url, strategies, seen) = (url.clone(), strategies.clone(), seen.clone());
        async move {
            let target = Target {
                url: &url,
                sku,
                strategies: &strategies,
            };
            let (answer, _) = send(&client, &target, i).await;
            if answer == Answer::Created {
                seen.acks.lock().unwrap_or_else(|p| p.into_inner()).push(Instant::now());
            } else {
                // A client backs off after a failure, as a real one would.
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            seen.answers.lock().unwrap_or_else(|p| p.into_inner())[i as usize] = Some(answer);
            seen.done.fetch_add(1, Ordering::Relaxed);
        }
    })
    .await
}

/// Retry every request that got no 201 with its key until it is applied (bounded); returns
/// how many 503s turned out to have been applied before.
async fn settle(
    url: &str,
    strategies: &[&str],
    answers: &[Option<Answer>],
    report: &mut ChaosReport,
    first_ok: &mut Option<Instant>,
) -> u64 {
    let client = reqwest::Client::new();
    let mut applied_after_503 = 0;
    for (i, a) in answers.iter().enumerate() {
        if matches!(a, Some(Answer::Created)) {
            continue;
        }
        let mut settled = false;
        for _ in 0..50 {
            let target = Target {
                url,
                sku: "CHAOS",
                strategies,
            };
            match send(&client, &target, i as u64).await {
                (Answer::Created, replayed) => {
                    first_ok.get_or_insert_with(Instant::now);
                    if replayed && matches!(a, Some(Answer::Unavailable | Answer::Contention | Answer::Fenced)) {
                        applied_after_503 += 1;
                    }
                    settled = true;
                    break;
                }
                _ => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        if !settled {
            report
                .violations
                .push(format!("request {i} could not be settled with its key"));
        }
    }
    applied_after_503
}

/// The databases of a scenario: none (SQLite), a cluster, or a primary and its standby.
struct Db {
    primary: Option<PgCluster>,
    standby: Option<PgCluster>,
    patroni: Option<Mutex<crate::patroni::PatroniStack>>,
    redis: Option<Mutex<RedisServer>>,
    redis_url: Option<String>,
}

/// The databases (and Redis) `scenario` runs on, made by the suite.
fn make_db(scenario: Scenario) -> Result<Db, BenchError> {
    let none = |primary| Db {
        primary,
        standby: None,
        patroni: None,
        redis: None,
        redis_url: None,
    };
    Ok(match scenario {
        Scenario::SqliteKill => none(None),
        Scenario::PgPatroni => Db {
            patroni: Some(Mutex::new(crate::patroni::PatroniStack::start()?)),
            ..none(None)
        },
        Scenario::PgFailover => {
            let primary = PgCluster::start()?;
            let standby = PgCluster::standby_of(&primary)?;
            Db {
                standby: Some(standby),
                ..none(Some(primary))
            }
        }
        Scenario::RedisRestart | Scenario::RedisFlushall => {
            let redis = RedisServer::start()?;
            Db {
                redis_url: Some(redis.url()),
                redis: Some(Mutex::new(redis)),
                ..none(Some(PgCluster::start()?))
            }
        }
        _ => none(Some(PgCluster::start()?)),
    })
}

/// Run `opts.scenario` and check it.
pub async fn chaos(opts: &ChaosOptions) -> Result<ChaosReport, BenchError> {
    let db = tokio::task::block_in_place(|| make_db(opts.scenario))?;
    let file = std::env::temp_dir().join(format!("allot-chaos-{}.db", crate::cluster::uuid_like()));
    let patroni_url = db
        .patroni
        .as_ref()
        .map(|p| p.lock().unwrap_or_else(|e| e.into_inner()).url());
    let database_url = match (&db.primary, &db.standby) {
        _ if patroni_url.is_some() => patroni_url.unwrap_or_default(),
        (Some(p), Some(s)) => format!(
            "postgres://postgres@127.0.0.1:{},127.0.0.1:{}/postgres?target_session_attrs=read-write",
            p.port, s.port
        ),
        (Some(p), None) => p.url(),
        _ => format!("sqlite://{}", file.display()),
    };
    let mut result = run_scenario(opts, &db, &database_url).await;
    if let (Ok(report), Scenario::PgHaproxy) = (&mut result, opts.scenario) {
        report.throughput_by_instances = scaling(opts, &db, &database_url).await?;
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
    result
}

/// The allot instances of a scenario (port and process) and the URL clients use: the
/// instance itself, or HAProxy in front of them.
struct Fleet {
    servers: Vec<(u16, Server)>,
    _proxy: Option<Haproxy>,
    url: String,
}

/// `n` instances on `database_url`, behind HAProxy when `proxied`.
async fn start_fleet(
    opts: &ChaosOptions,
    db: &Db,
    database_url: &str,
    n: usize,
    proxied: bool,
) -> Result<Fleet, BenchError> {
    let mut servers = Vec::with_capacity(n);
    for _ in 0..n {
        let port = free_port()?;
        servers.push((
            port,
            start_server(&opts.allot_bin, port, database_url, db.redis_url.as_deref()).await?,
        ));
    }
    let proxy = if proxied {
        let ports: Vec<u16> = servers.iter().map(|(p, _)| *p).collect();
        Some(Haproxy::start(&ports)?)
    } else {
        None
    };
    let url = proxy.as_ref().map_or_else(|| servers[0].1.url.clone(), Haproxy::url);
    wait_healthy(&url, Duration::from_secs(30)).await?;
    Ok(Fleet {
        servers,
        _proxy: proxy,
        url,
    })
}

impl Fleet {
    /// Kill every instance (and, when dropped, the proxy).
    async fn stop(mut self) {
        for (_, server) in &mut self.servers {
            let _ = server.child.kill().await;
        }
    }
}

async fn run_scenario(opts: &ChaosOptions, db: &Db, database_url: &str) -> Result<ChaosReport, BenchError> {
    let n = if opts.scenario == Scenario::PgHaproxy { 3 } else { 1 };
    let mut fleet = start_fleet(opts, db, database_url, n, n > 1).await?;
    let initial = opts.requests as i64 * 2;
    let sku = json!({"sku": "CHAOS", "on_hand": initial});
    let (s, b) = crate::load::post(&reqwest::Client::new(), &format!("{}/v1/skus", fleet.url), &sku).await?;
    if s != 201 {
        return Err(BenchError::Setup(format!("create the SKU: {s} {b}")));
    }
    let strategies: Vec<&'static str> = match (db.primary.is_some() || db.patroni.is_some(), db.redis.is_some()) {
        (_, true) => vec!["redis_counter", "redis_lock", "atomic"],
        (true, false) => vec!["batched", "atomic"],
        _ => vec!["serialized"],
    };
    let seen = Seen::new(opts.requests);
    let (mixed, workers) = crate::mixed::prepare(&fleet.url, database_url, opts.requests / 2).await?;
    let side = tokio::spawn(crate::mixed::drive(
        fleet.url.clone(),
        (opts.clients / 2).max(1),
        mixed.clone(),
    ));
    let driven = drive(
        fleet.url.clone(),
        "CHAOS",
        strategies.clone(),
        opts.clients,
        opts.requests,
        seen.clone(),
    );
    let load = tokio::spawn(driven);
    while seen.done.load(Ordering::Relaxed) < opts.requests / 3 && !load.is_finished() {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let fault_at = Instant::now();
    inject(opts, db, &mut fleet, database_url).await?;
    let restored = Instant::now();
    load.await.map_err(|e| BenchError::Setup(e.to_string()))?;
    side.await.map_err(|e| BenchError::Setup(e.to_string()))?;
    wait_healthy(&fleet.url, Duration::from_secs(60)).await?;
    let mut report = check(opts, &fleet.url, &strategies, &seen, (fault_at, restored), initial).await;
    if let Ok(r) = &mut report {
        r.mixed = mixed.check(&fleet.url, workers, &mut r.violations).await;
        audit_mixed(&fleet.url, &mut r.violations).await?;
    }
    fleet.stop().await;
    report
}

/// The audit's job rules and booking overlaps after the mixed load (the SKU rules are the
/// bank's).
async fn audit_mixed(url: &str, violations: &mut Vec<String>) -> Result<(), BenchError> {
    let audit = crate::load::get(&reqwest::Client::new(), &format!("{url}/v1/audit")).await?;
    for list in ["job_violations", "booking_overlaps"] {
        if audit[list] != json!([]) {
            violations.push(format!("audit {list}: {}", audit[list]));
        }
    }
    Ok(())
}

/// Fault-free throughput through HAProxy with 1, 2 and 3 instances (does it scale until the
/// database is the limit?).
async fn scaling(opts: &ChaosOptions, db: &Db, database_url: &str) -> Result<Vec<(usize, u64)>, BenchError> {
    let mut out = Vec::new();
    for (k, sku) in [(1usize, "SCALE1"), (2, "SCALE2"), (3, "SCALE3")] {
        let fleet = start_fleet(opts, db, database_url, k, true).await?;
        let body = json!({"sku": sku, "on_hand": opts.requests as i64 * 2});
        crate::load::post(&reqwest::Client::new(), &format!("{}/v1/skus", fleet.url), &body).await?;
        let seen = Seen::new(opts.requests);
        let started = Instant::now();
        drive(
            fleet.url.clone(),
            sku,
            vec!["batched"],
            opts.clients,
            opts.requests,
            seen.clone(),
        )
        .await;
        let acks = seen.acks.lock().unwrap_or_else(|p| p.into_inner()).len() as f64;
        out.push((k, (acks / started.elapsed().as_secs_f64()) as u64));
        fleet.stop().await;
    }
    Ok(out)
}

/// The checks after the load: the answers, the retries with their keys, the recovery time
/// (from the fault to the first 201 once the fault is over), the bank and the audit.
async fn check(
    opts: &ChaosOptions,
    url: &str,
    strategies: &[&str],
    seen: &Seen,
    (fault_at, restored): (Instant, Instant),
    initial: i64,
) -> Result<ChaosReport, BenchError> {
    let answers = seen.answers.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let acks = seen.acks.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut first_ok = acks.iter().filter(|t| **t > restored).min().copied();
    let mut report = tally(opts, &answers);
    let applied_after_503 = settle(url, strategies, &answers, &mut report, &mut first_ok).await;
    match first_ok {
        Some(t) => report.recovery_ms = (t - fault_at).as_millis() as u64,
        None if report.acknowledged < opts.requests => {
            report.violations.push("nothing succeeded after the fault".into())
        }
        None => {}
    }
    if applied_after_503 > 0 {
        report.violations.push(format!(
            "{applied_after_503} requests answered 503 (or 409 contention or lease_lost) had been applied"
        ));
    }
    bank(url, initial, opts.requests, &mut report).await?;
    Ok(report)
}

/// Inject the scenario's fault.
async fn inject(opts: &ChaosOptions, db: &Db, fleet: &mut Fleet, database_url: &str) -> Result<(), BenchError> {
    match (opts.scenario, db.primary.as_ref()) {
        (Scenario::SqliteKill | Scenario::PgKillAllot | Scenario::PgHaproxy, _) => {
            // SIGKILL the first instance; behind HAProxy the others serve while it is down.
            let (port, server) = &mut fleet.servers[0];
            server
                .child
                .start_kill()
                .map_err(|e| BenchError::Setup(e.to_string()))?;
            let _ = server.child.wait().await;
            if opts.scenario == Scenario::PgHaproxy {
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            *server = start_server(&opts.allot_bin, *port, database_url, db.redis_url.as_deref()).await?;
            Ok(())
        }
        (Scenario::RedisRestart, _) => {
            let redis = db.redis.as_ref().ok_or_else(|| BenchError::Setup("no redis".into()))?;
            tokio::task::block_in_place(|| redis.lock().unwrap_or_else(|p| p.into_inner()).crash_and_restart())
        }
        (Scenario::RedisFlushall, _) => {
            let redis = db.redis.as_ref().ok_or_else(|| BenchError::Setup("no redis".into()))?;
            let said =
                tokio::task::block_in_place(|| redis.lock().unwrap_or_else(|p| p.into_inner()).cli(&["FLUSHALL"]))?;
            if said != "OK" {
                return Err(BenchError::Setup(format!("FLUSHALL answered {said:?}")));
            }
            Ok(())
        }
        (Scenario::PgPatroni, _) => {
            let stack = db
                .patroni
                .as_ref()
                .ok_or_else(|| BenchError::Setup("no patroni stack".into()))?;
            tokio::task::block_in_place(|| {
                let mut stack = stack.lock().unwrap_or_else(|p| p.into_inner());
                let killed = stack.kill_leader()?;
                // Patroni's own failover: the leader key's TTL (10 s), then the promotion.
                stack.wait_for_new_leader(killed, Duration::from_secs(60))
            })
        }
        (Scenario::PgFailover, Some(primary)) => {
            let standby = db
                .standby
                .as_ref()
                .ok_or_else(|| BenchError::Setup("no standby".into()))?;
            tokio::task::block_in_place(|| {
                primary.kill9()?;
                standby.promote()
            })
        }
        (s, Some(c)) => {
            let mode = if s == Scenario::PgRestartFast {
                StopMode::Fast
            } else {
                StopMode::Immediate
            };
            tokio::task::block_in_place(|| c.restart(mode))
        }
        (_, None) => Err(BenchError::Setup("a PostgreSQL scenario without its cluster".into())),
    }
}

fn tally(opts: &ChaosOptions, answers: &[Option<Answer>]) -> ChaosReport {
    let mut r = ChaosReport {
        scenario: opts.scenario.name().into(),
        operations: opts.requests,
        ..Default::default()
    };
    for a in answers {
        match a {
            Some(Answer::Created) => r.acknowledged += 1,
            Some(Answer::Unavailable) => r.failed_503 += 1,
            Some(Answer::Contention) => r.refused_contention += 1,
            Some(Answer::Fenced) => r.refused_fenced += 1,
            Some(Answer::Unanswered) | None => r.unanswered += 1,
            Some(Answer::Other(s)) => r.violations.push(format!(
                "an answer {s}: neither 2xx, 503, 409 contention, 409 lease_lost nor none"
            )),
        }
    }
    r
}

/// Bank: one unit taken per key, no more, no less; the audit clean.
async fn bank(url: &str, initial: i64, requests: u64, report: &mut ChaosReport) -> Result<(), BenchError> {
    let client = reqwest::Client::new();
    let sku = crate::load::get(&client, &format!("{url}/v1/skus/CHAOS")).await?;
    let taken = initial - sku["on_hand"].as_i64().unwrap_or(initial);
    let expected = requests as i64;
    report.lost = (expected - taken).max(0) as u64;
    report.applied_twice = (taken - expected).max(0) as u64;
    if taken != expected {
        report
            .violations
            .push(format!("{taken} units taken for {expected} keys"));
    }
    let audit = crate::load::get(&client, &format!("{url}/v1/audit")).await?;
    if audit["violations"] != json!([]) {
        report.violations.push(format!("audit: {}", audit["violations"]));
    }
    Ok(())
}

/// The scenarios' table (Markdown).
pub fn render_chaos(reports: &[ChaosReport]) -> String {
    let mut s = String::from(
        "| scenario | operations | acknowledged | 503 | unanswered | recovery ms | lost | applied twice | checks |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut notes = String::new();
    for r in reports {
        let checks = if r.violations.is_empty() {
            "ok".to_string()
        } else {
            r.violations.join("; ")
        };
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.scenario,
            r.operations,
            r.acknowledged,
            r.failed_503,
            r.unanswered,
            r.recovery_ms,
            r.lost,
            r.applied_twice,
            checks
        ));
        if r.refused_contention > 0 {
            notes.push_str(&format!(
                "\n{}: {} answered 409 contention (nothing applied; settled by key)\n",
                r.scenario, r.refused_contention
            ));
        }
        if r.refused_fenced > 0 {
            notes.push_str(&format!(
                "\n{}: {} answered 409 lease_lost (a lock Redis lost, refused by its fencing token; nothing applied; settled by key)\n",
                r.scenario, r.refused_fenced
            ));
        }
        if !r.throughput_by_instances.is_empty() {
            let by: Vec<String> = r
                .throughput_by_instances
                .iter()
                .map(|(k, t)| format!("{k}: {t}/s"))
                .collect();
            notes.push_str(&format!(
                "\n{}: allocations/s through HAProxy by instances: {}\n",
                r.scenario,
                by.join(", ")
            ));
        }
    }
    s.push_str(&notes);
    s.push_str(&render_mixed(reports));
    s
}

/// The mixed workload's table (Markdown), after the scenarios' one.
fn render_mixed(reports: &[ChaosReport]) -> String {
    let mut s = String::from(
        "\nMixed workload (same faults):\n\n\
         | scenario | unit claims | units twice | bookings won | refused (overlap) | jobs enqueued | completed | pending | jobs lost |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in reports {
        let m = &r.mixed;
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.scenario,
            m.unit_claims,
            m.units_twice,
            m.bookings_won,
            m.bookings_refused,
            m.jobs_enqueued,
            m.jobs_completed,
            m.jobs_pending,
            m.jobs_lost
        ));
    }
    s
}
