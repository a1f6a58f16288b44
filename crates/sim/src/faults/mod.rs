//! The concurrent phase with faults (`allot sim --faults`), VOPR-style: many clients on two
//! `allot serve` instances over a PostgreSQL cluster and a Redis the run makes itself
//! (allocating with `atomic`, `batched`, `pessimistic`, `optimistic`, `redis_counter` and
//! `redis_lock` side by side), faults injected while they run (connections terminated,
//! PostgreSQL restarted fast and immediate, Redis flushed, each instance SIGKILLed and started
//! again, answers lost, every instance's wall clock jumped ahead by more than a lease, under
//! libfaketime), then a heal phase in which every
//! client settles what it had in flight by its idempotency key and the queue is drained.
//!
//! Then the checks: every operation settled with an answer its specification can give; no
//! 5xx but 502/503/504; `GET /v1/audit` clean; each SKU holds what the acknowledged
//! operations add up to, and every acknowledged allocation reads as it was left; every job
//! completed, none twice; and each SKU's and each job's history linearizable
//! ([`spec`], checked by stateright's `LinearizabilityTester`, Jepsen's Knossos idea).
//!
//! What is not in the mix (yet): holds and bookings; a clock stepping back.

pub mod check;
pub mod client;
pub mod history;
pub mod inject;
pub mod spec;

use crate::SimError;
use client::{Client, Stats, INITIAL_ON_HAND, QUEUE, SKUS};
use history::{Call, History, Outcome};
use stateright::semantics::ConsistencyTester;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `allot serve` instances the clients share.
pub const INSTANCES: usize = 2;
/// How long the heal phase may take to drain the queue, ms.
pub const DRAIN_MS: u64 = 60_000;
/// How long one history's check may take, ms (the search is exponential at worst).
pub const CHECK_MS: u64 = 120_000;

/// A faults run.
#[derive(Debug, Clone)]
pub struct FaultsConfig {
    /// Seeds the clients' choices and the faults' order and timing.
    pub seed: u64,
    /// Concurrent clients.
    pub clients: usize,
    /// Most operations per client.
    pub max_ops: usize,
    /// Jobs enqueued before the clients start.
    pub jobs: usize,
    /// The `allot` binary the instances run.
    pub allot_bin: PathBuf,
}

/// What a faults run did and found.
#[derive(Debug, Clone, Default)]
pub struct FaultsReport {
    /// Operations invoked (each settled, or a violation).
    pub operations: usize,
    /// Requests sent, retries included.
    pub sends: u64,
    /// Answers the clients stopped waiting for.
    pub answers_dropped: u64,
    /// Sends with no answer or a 502/503/504.
    pub unavailable: u64,
    /// The faults injected, in order, with how long each took.
    pub faults: Vec<String>,
    /// Histories found linearizable (one per SKU, one per job).
    pub linearizable: usize,
    /// Every check that failed, in words (empty: the run passed).
    pub violations: Vec<String>,
}

/// The run's own PostgreSQL cluster and Redis, and [`INSTANCES`] `allot serve` processes on
/// them: the stage, and the instances' URLs.
async fn stage(cfg: &FaultsConfig, history: Arc<History>) -> Result<(inject::Stage, Vec<String>), SimError> {
    let setup = |e: allot_bench::BenchError| SimError::Setup(e.to_string());
    let joined = |e: tokio::task::JoinError| SimError::Setup(e.to_string());
    let cluster = Arc::new(
        tokio::task::spawn_blocking(allot_bench::PgCluster::start)
            .await
            .map_err(joined)?
            .map_err(setup)?,
    );
    let redis = tokio::task::spawn_blocking(allot_bench::RedisServer::start)
        .await
        .map_err(joined)?
        .map_err(setup)?;
    let clock = inject::clock_file(cfg.seed);
    let env = clock.as_deref().map(inject::clock_env).unwrap_or_default();
    let mut instances = Vec::new();
    for _ in 0..INSTANCES {
        let port = allot_bench::free_port().map_err(setup)?;
        let server = allot_bench::start_server_with(&cfg.allot_bin, port, (&cluster.url(), Some(&redis.url())), &env)
            .await
            .map_err(setup)?;
        instances.push((port, server));
    }
    let urls: Vec<String> = instances.iter().map(|(_, s)| s.url.clone()).collect();
    let stage = inject::Stage {
        cluster,
        allot_bin: cfg.allot_bin.clone(),
        redis,
        instances: tokio::sync::Mutex::new(instances),
        clock,
        history,
    };
    Ok((stage, urls))
}

/// Run the faults phase of `cfg`.
pub async fn run_faults(cfg: &FaultsConfig) -> Result<FaultsReport, SimError> {
    let (history, stats) = (Arc::new(History::default()), Arc::new(Stats::default()));
    let (stage, urls) = stage(cfg, history.clone()).await?;
    prepare(&urls[0], cfg.jobs).await?;
    let mut report = FaultsReport::default();
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..cfg.clients)
        .map(|i| {
            let c = Client::new(
                i,
                urls[i % urls.len()].clone(),
                cfg.seed,
                (history.clone(), stats.clone()),
            );
            tokio::spawn(c.run(stop.clone(), cfg.max_ops))
        })
        .collect();
    inject::run(
        &stage,
        &inject::schedule(cfg.seed, INSTANCES),
        cfg.seed,
        &mut report.faults,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.await.map_err(|e| SimError::Setup(format!("a client failed: {e}")))?;
    }
    let mut heal = Client::new(cfg.clients, urls[0].clone(), cfg.seed, (history.clone(), stats.clone()));
    drain(&mut heal, &urls[0], cfg.jobs, &mut report.violations).await;
    for sku in SKUS {
        if !heal.stuck {
            heal.perform(Call::Read { sku }).await;
        }
    }
    report.sends = stats.sends.load(Ordering::Relaxed);
    report.answers_dropped = stats.answers_dropped.load(Ordering::Relaxed);
    report.unavailable = stats.unavailable.load(Ordering::Relaxed);
    report.violations.extend(
        stats
            .server_errors
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned(),
    );
    verify(&urls[0], &history, &mut report).await;
    if let Some(file) = &stage.clock {
        let _ = std::fs::remove_file(file);
    }
    Ok(report)
}

/// The SKUs, and the jobs in one enqueue (25 attempts each: no job runs out while leases are
/// abandoned and rescued).
async fn prepare(url: &str, jobs: usize) -> Result<(), SimError> {
    let http = reqwest::Client::new();
    let failed = |what: &str, e: String| SimError::Setup(format!("faults phase: {what}: {e}"));
    for sku in SKUS {
        let r = http
            .post(format!("{url}/v1/skus"))
            .json(&serde_json::json!({"sku": sku, "on_hand": INITIAL_ON_HAND}))
            .send()
            .await
            .map_err(|e| failed("create a SKU", e.to_string()))?;
        if r.status() != 201 {
            return Err(failed("create a SKU", r.status().to_string()));
        }
    }
    let batch: Vec<_> = (0..jobs)
        .map(|i| serde_json::json!({"payload": {"i": i}, "max_attempts": 25}))
        .collect();
    let r = http
        .post(format!("{url}/v1/queues/{QUEUE}/jobs"))
        .json(&serde_json::json!({ "jobs": batch }))
        .send()
        .await
        .map_err(|e| failed("enqueue", e.to_string()))?;
    if r.status() != 201 {
        return Err(failed("enqueue", r.status().to_string()));
    }
    Ok(())
}

/// The heal phase's worker: claim and complete until every job is completed (the sweeper
/// rescues the leases abandoned), within [`DRAIN_MS`].
async fn drain(heal: &mut Client, url: &str, jobs: usize, violations: &mut Vec<String>) {
    let deadline = std::time::Instant::now() + Duration::from_millis(DRAIN_MS);
    while !heal.stuck {
        if let Outcome::Leased(Some(l)) = heal.perform(Call::Claim).await {
            heal.perform(Call::Complete {
                job: l.job,
                attempt: l.attempt,
                token: l.token,
            })
            .await;
            continue;
        }
        let completed = completed_jobs(url).await;
        if completed >= jobs as i64 {
            return;
        }
        if std::time::Instant::now() > deadline {
            violations.push(format!(
                "the queue did not drain within {DRAIN_MS} ms: {completed} of {jobs} jobs completed"
            ));
            return;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn completed_jobs(url: &str) -> i64 {
    let counts: Option<serde_json::Value> = match reqwest::get(format!("{url}/v1/queues/{QUEUE}")).await {
        Ok(r) => r.json().await.ok(),
        Err(_) => None,
    };
    counts.and_then(|c| c["counts"]["completed"].as_i64()).unwrap_or(-1)
}

/// Every check of the settled history and the books.
async fn verify(url: &str, history: &History, report: &mut FaultsReport) {
    let paired = check::Paired::new(history.events());
    let v = &mut report.violations;
    for (client, call, outcome) in paired.calls() {
        report.operations += 1;
        match outcome {
            None => v.push(format!("client {client}: {call:?} never returned")),
            Some(Outcome::Other(what)) => v.push(format!("client {client}: {call:?} answered {what}")),
            Some(_) => {}
        }
    }
    books(url, &paired, v).await;
    report.linearizable = linearizable(paired, v).await;
}

/// The audit is clean, each SKU holds what the acknowledged operations add up to, and every
/// acknowledged allocation reads as its client left it.
async fn books(url: &str, paired: &check::Paired, v: &mut Vec<String>) {
    let http = reqwest::Client::new();
    let get = |path: String| {
        let http = http.clone();
        async move {
            let r = http.get(format!("{url}{path}")).send().await.ok()?;
            r.json::<serde_json::Value>().await.ok()
        }
    };
    let audit = get("/v1/audit".into()).await.unwrap_or_default();
    for k in ["violations", "job_violations", "booking_overlaps"] {
        if audit[k].as_array().is_none_or(|a| !a.is_empty()) {
            v.push(format!("audit: {k}: {}", audit[k]));
        }
    }
    for (sku, expected) in check::expected_on_hand(paired) {
        let on_hand = get(format!("/v1/skus/{sku}")).await.unwrap_or_default()["on_hand"].as_i64();
        if on_hand != Some(expected) {
            v.push(format!(
                "{sku}: on hand {on_hand:?}, the acknowledged operations add up to {expected}"
            ));
        }
    }
    let cancelled: Vec<(usize, u64)> = paired
        .calls()
        .filter_map(|(c, call, o)| match (call, o) {
            (Call::Cancel { of, .. }, Some(Outcome::Cancelled)) => Some((c, *of)),
            _ => None,
        })
        .collect();
    for (client, call, outcome) in paired.calls() {
        if let (Call::Allocate { n, .. }, Some(Outcome::Allocated { id })) = (call, outcome) {
            let want = if cancelled.contains(&(client, *n)) {
                "cancelled"
            } else {
                "allocated"
            };
            let got = get(format!("/v1/allocations/{id}")).await.unwrap_or_default();
            if got["status"] != want {
                v.push(format!(
                    "allocation {id} (client {client}): reads {}, acknowledged {want}",
                    got["status"]
                ));
            }
        }
    }
}

/// Check every SKU's and every job's history (each within [`CHECK_MS`]); how many passed.
async fn linearizable(paired: check::Paired, v: &mut Vec<String>) -> usize {
    let found = tokio::time::timeout(
        Duration::from_millis(CHECK_MS),
        tokio::task::spawn_blocking(move || {
            let mut passed = 0;
            let mut found = Vec::new();
            for sku in SKUS {
                match check::sku_tester(&paired, sku) {
                    Ok(t) if t.is_consistent() => passed += 1,
                    Ok(_) => found.push(format!(
                        "{sku}: its history is not linearizable; the shortest prefix that is not ends:\n    {}",
                        check::first_unexplained(&paired, sku, 24).unwrap_or_default()
                    )),
                    Err(e) => found.push(format!("{sku}: not a well-formed history: {e}")),
                }
            }
            match check::job_testers(&paired) {
                Ok(testers) => {
                    for (job, t) in testers {
                        if t.is_consistent() {
                            passed += 1;
                        } else {
                            found.push(format!("job {job}: its history is not linearizable"));
                        }
                    }
                }
                Err(e) => found.push(format!("jobs: not a well-formed history: {e}")),
            }
            (passed, found)
        }),
    )
    .await;
    match found {
        Ok(Ok((passed, found))) => {
            v.extend(found);
            passed
        }
        Ok(Err(e)) => {
            v.push(format!("the checker failed: {e}"));
            0
        }
        Err(_) => {
            v.push(format!("the checker did not decide within {CHECK_MS} ms"));
            0
        }
    }
}
