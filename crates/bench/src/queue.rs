//! `allot bench queue`: P producers enqueue J jobs (some one by one, most in batches), W worker
//! pools of the library (`allot-worker`) claim in batches and complete in batches, straight
//! on the store; some jobs fail once, some pools are killed mid-job (their jobs come back by
//! the lease rescue). At the end the queue is drained and the total-queue check runs: every
//! accepted job completed exactly once, none lost, none discarded (max_attempts allows it).

use allot_core::job::{
    Claim, ClaimStrategy, Complete, Completion, Completions, Enqueue, Enqueued, Fail, JobFilter, JobSpec, JobStatus,
    JobView, LeasedJob, QueueCounts, Snooze,
};
use allot_core::store::{Executed, JobStore, Keyed};
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Database, Result, Store};
use allot_worker::{Handler, WorkerConfig, WorkerPool};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tenant the queue benchmark works in (a server without keys).
static DEFAULT: std::sync::LazyLock<Tenant> = std::sync::LazyLock::new(Tenant::default_tenant);

/// Options of `allot bench queue`.
#[derive(Debug, Clone)]
pub struct QueueOptions {
    /// Claim strategies to run (`skip_locked`, `advisory`, `serialized`).
    pub strategies: Vec<ClaimStrategy>,
    /// Producers (P).
    pub producers: usize,
    /// Jobs (J).
    pub jobs: u64,
    /// Jobs per enqueue batch.
    pub batch: usize,
    /// Share of jobs enqueued one by one, 0..=1.
    pub single_fraction: f64,
    /// Worker pools (W).
    pub workers: usize,
    /// Slots per pool.
    pub concurrency: usize,
    /// Jobs per claim, at most.
    pub claim_batch: i64,
    /// Share of jobs whose first attempt fails, 0..=1.
    pub fail_fraction: f64,
    /// Pools killed once a third of the jobs is done.
    pub kill_workers: usize,
    /// Lease, ms (killed pools' jobs come back after it).
    pub lease_ms: i64,
    /// Give up draining after this long, s.
    pub drain_timeout_s: u64,
    /// Partition keys the jobs spread over (`partition_key` = `k{i mod keys}`); 0: none.
    pub keys: u64,
    /// `--limit N`: also run each strategy with `max_running_per_key` N.
    pub limit_per_key: Option<i64>,
    /// `--fifo`: also run each strategy with `fifo_per_key`.
    pub fifo: bool,
    /// False (`--drop-completed`): every run's queue has `keep_completed: false`.
    pub keep_completed: bool,
    /// `--enqueue-first`: every job is enqueued before the pools start (the rate still
    /// counts from the first enqueue).
    pub enqueue_first: bool,
    /// `--fair`: also run each strategy with `fair_by: partition_key`.
    pub fair: bool,
    /// `--events`: also run each strategy with `events: true` (each completion and failed
    /// attempt written to the feed).
    pub events: bool,
    /// `--chains N`: also run each strategy with the jobs enqueued as chains of N, each job
    /// depending on the one before it (`depends_on`); 0 or 1: no such run.
    pub chain: u64,
}

impl QueueOptions {
    /// The settings of the limited run, when `--limit` or `--fifo` asks for one.
    fn limited(&self) -> Option<allot_core::job::queue::QueueSettings> {
        (self.limit_per_key.is_some() || self.fifo).then(|| allot_core::job::queue::QueueSettings {
            max_running_per_key: self.limit_per_key,
            fifo_per_key: self.fifo,
            keep_completed: self.keep_completed,
            ..Default::default()
        })
    }

    /// The settings of the fair run, when `--fair` asks for one.
    fn fair(&self) -> Option<allot_core::job::queue::QueueSettings> {
        self.fair.then(|| allot_core::job::queue::QueueSettings {
            fair_by: Some(allot_core::job::fair::FairBy::PartitionKey),
            keep_completed: self.keep_completed,
            ..Default::default()
        })
    }

    /// The settings of the run with job events, when `--events` asks for one.
    fn events(&self) -> Option<allot_core::job::queue::QueueSettings> {
        self.events.then(|| allot_core::job::queue::QueueSettings {
            events: true,
            keep_completed: self.keep_completed,
            ..Default::default()
        })
    }

    /// The settings of the plain run: none, or only `keep_completed: false`.
    fn plain(&self) -> Option<allot_core::job::queue::QueueSettings> {
        (!self.keep_completed).then(|| allot_core::job::queue::QueueSettings {
            keep_completed: false,
            ..Default::default()
        })
    }
}

/// Figures and checks of one strategy's run.
#[derive(Debug, Clone, Serialize)]
pub struct QueueReport {
    /// Claim strategy.
    pub strategy: String,
    /// `plain`, or the run's settings (`limit 2/key`, `fifo`, `fair`, `events`), or `chains of N`.
    pub mode: String,
    /// Completed/s of this run over the plain run's of the same strategy (every other run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs_plain: Option<f64>,
    /// Jobs accepted by enqueue.
    pub accepted: u64,
    /// Enqueued jobs per second (producer phase).
    pub enqueue_per_s: f64,
    /// Completed jobs per second, first enqueue to drained.
    pub completed_per_s: f64,
    /// Claim latency percentiles, µs.
    pub claim_latency_us_p50: u64,
    /// 99th percentile, µs.
    pub claim_latency_us_p99: u64,
    /// Final counts by state.
    pub counts: BTreeMap<allot_core::JobState, i64>,
    /// Attempts failed on purpose.
    pub failed_attempts: u64,
    /// Pools killed.
    pub killed_workers: usize,
    /// Completions refused as lease_lost.
    pub lease_lost: u64,
    /// Every invariant that broke (empty when all hold).
    pub violations: Vec<String>,
}

/// A JobStore that times claims (everything else passes through).
struct Timed {
    inner: Arc<dyn Store>,
    claims: Mutex<Histogram<u64>>,
}

#[async_trait::async_trait]
impl JobStore for Timed {
    async fn enqueue(&self, tn: &Tenant, r: Enqueue, i: Keyed<Enqueued>) -> Result<Executed<Enqueued>> {
        self.inner.enqueue(tn, r, i).await
    }
    async fn claim_jobs(&self, tn: &Tenant, r: Claim, i: Keyed<Vec<LeasedJob>>) -> Result<Executed<Vec<LeasedJob>>> {
        let t0 = Instant::now();
        let out = self.inner.claim_jobs(tn, r, i).await;
        if let Ok(mut h) = self.claims.lock() {
            h.saturating_record(t0.elapsed().as_micros() as u64);
        }
        out
    }
    async fn complete_job(
        &self,
        tn: &Tenant,
        id: i64,
        c: Complete,
        i: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        self.inner.complete_job(tn, id, c, i).await
    }
    async fn snooze_job(&self, tn: &Tenant, id: i64, s: Snooze, i: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.snooze_job(tn, id, s, i).await
    }
    async fn fail_job(&self, tn: &Tenant, id: i64, f: Fail, i: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.fail_job(tn, id, f, i).await
    }
    async fn heartbeat_job(
        &self,
        tn: &Tenant,
        id: i64,
        t: &str,
        l: i64,
        i: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        self.inner.heartbeat_job(tn, id, t, l, i).await
    }
    async fn complete_jobs(
        &self,
        tn: &Tenant,
        q: &str,
        j: Vec<Completion>,
        i: Keyed<Completions>,
    ) -> Result<Executed<Completions>> {
        self.inner.complete_jobs(tn, q, j, i).await
    }
    async fn cancel_job(&self, tn: &Tenant, id: i64, i: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.cancel_job(tn, id, i).await
    }
    async fn reschedule_job(&self, tn: &Tenant, id: i64, d: i64, i: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.reschedule_job(tn, id, d, i).await
    }
    async fn retry_job(&self, tn: &Tenant, id: i64, i: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        self.inner.retry_job(tn, id, i).await
    }
    async fn list_jobs(&self, tn: &Tenant, q: &str, s: JobFilter, p: Page<i64>) -> Result<Listed<JobView, i64>> {
        self.inner.list_jobs(tn, q, s, p).await
    }
    async fn wait_for_jobs(&self, tn: &Tenant, q: &str, w: Duration) {
        self.inner.wait_for_jobs(tn, q, w).await
    }
    async fn queue_counts(&self, tn: &Tenant, q: &str) -> Result<QueueCounts> {
        self.inner.queue_counts(tn, q).await
    }
}

/// Fails the first attempt of jobs whose payload says so; does nothing else.
struct BenchHandler;

#[async_trait::async_trait]
impl Handler for BenchHandler {
    async fn run(&self, job: &LeasedJob) -> std::result::Result<(), allot_worker::JobError> {
        if job.attempt == 1 && job.payload["fail_once"] == true {
            return Err("injected failure".into());
        }
        Ok(())
    }
}

/// Run the workload once per strategy against `store`.
pub async fn queue_bench(
    store: Arc<dyn Database>,
    opts: &QueueOptions,
) -> std::result::Result<Vec<QueueReport>, crate::error::BenchError> {
    let mut reports = Vec::new();
    for &strategy in &opts.strategies {
        if !store.supports_claim(strategy) {
            eprintln!("skipping {}: the backend does not support it", strategy.name());
            continue;
        }
        let plain = run_one(store.clone(), opts, strategy, opts.plain(), 1).await?;
        let mut others = Vec::new();
        for settings in [opts.limited(), opts.fair(), opts.events()].into_iter().flatten() {
            others.push(run_one(store.clone(), opts, strategy, Some(settings), 1).await?);
        }
        if opts.chain > 1 {
            others.push(run_one(store.clone(), opts, strategy, opts.plain(), opts.chain).await?);
        }
        for r in &mut others {
            r.vs_plain = Some(r.completed_per_s / plain.completed_per_s.max(1e-9));
        }
        reports.push(plain);
        reports.extend(others);
    }
    Ok(reports)
}

/// A run's mode as the table shows it: `plain`, or the run's settings.
fn mode_of(settings: Option<&allot_core::job::queue::QueueSettings>) -> String {
    let Some(s) = settings else {
        return "plain".to_string();
    };
    let mut parts: Vec<String> = s
        .max_running_per_key
        .map(|n| format!("limit {n}/key"))
        .into_iter()
        .collect();
    if s.fifo_per_key {
        parts.push("fifo".into());
    }
    if s.fair_by.is_some() {
        parts.push("fair".into());
    }
    if s.events {
        parts.push("events".into());
    }
    if parts.is_empty() {
        parts.push("plain".into());
    }
    if !s.keep_completed {
        parts.push("drop completed".into());
    }
    parts.join(" + ")
}

/// A fresh queue for one run, with `settings` put on it.
async fn queue_of(
    store: &Arc<dyn Database>,
    strategy: ClaimStrategy,
    settings: Option<allot_core::job::queue::QueueSettings>,
    mode: &str,
) -> Result<String, crate::error::BenchError> {
    let tag: String = mode
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let queue = format!("bench-{}-{}-{tag}", crate::load::run_id(), strategy.name());
    if let Some(s) = settings {
        let s = allot_core::job::queue::QueueSettings {
            queue: queue.clone(),
            ..s
        };
        store
            .put_queue_settings(&DEFAULT, s)
            .await
            .map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
    }
    Ok(queue)
}

async fn run_one(
    store: Arc<dyn Database>,
    opts: &QueueOptions,
    strategy: ClaimStrategy,
    settings: Option<allot_core::job::queue::QueueSettings>,
    chain: u64,
) -> std::result::Result<QueueReport, crate::error::BenchError> {
    let mut mode = mode_of(settings.as_ref());
    if chain > 1 {
        mode = format!("chains of {chain}");
    }
    let queue = queue_of(&store, strategy, settings, &mode).await?;
    let database = store;
    let store: Arc<dyn Store> = database.clone();
    let timed = Arc::new(Timed {
        inner: store.clone(),
        claims: Mutex::new(Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds")),
    });
    // The rescue sweeper `allot serve` would run.
    let rescuer = {
        let store = database.clone();
        Running(tokio::spawn(async move {
            loop {
                let _ = store.rescue_jobs(store.now(), 1000).await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }))
    };
    let started = Instant::now();
    let mut pools = Pools(Vec::new());
    if !opts.enqueue_first {
        pools.0 = start_pools(&timed, opts, &queue, strategy);
    }
    let accepted = produce(&store, &queue, opts, chain).await?;
    if opts.enqueue_first {
        pools.0 = start_pools(&timed, opts, &queue, strategy);
    }
    let enqueue_s = started.elapsed().as_secs_f64();
    let stats: Vec<_> = pools.0.iter().map(|p| p.stats.clone()).collect();
    let (counts, killed) = drain(&store, &queue, &mut pools.0, accepted, opts).await?;
    let elapsed = started.elapsed().as_secs_f64();
    for p in std::mem::take(&mut pools.0) {
        p.shutdown().await;
    }
    drop(rescuer);
    let completed_by_live: u64 = stats.iter().map(|s| s.completed.load(Ordering::Relaxed)).sum();
    let lease_lost: u64 = stats.iter().map(|s| s.lease_lost.load(Ordering::Relaxed)).sum();
    let failed: u64 = stats.iter().map(|s| s.failed.load(Ordering::Relaxed)).sum();
    let violations = check(&counts, accepted, completed_by_live, opts);
    let h = timed
        .claims
        .lock()
        .map(|h| h.clone())
        .unwrap_or_else(|_| Histogram::new(3).expect("valid"));
    Ok(QueueReport {
        strategy: strategy.name().into(),
        mode,
        vs_plain: None,
        accepted,
        enqueue_per_s: accepted as f64 / enqueue_s.max(1e-9),
        completed_per_s: completed(&counts, completed_by_live, opts) as f64 / elapsed.max(1e-9),
        claim_latency_us_p50: h.value_at_quantile(0.5),
        claim_latency_us_p99: h.value_at_quantile(0.99),
        counts: counts.counts,
        failed_attempts: failed,
        killed_workers: killed,
        lease_lost,
        violations,
    })
}

/// A background task of a run, aborted when the run ends, on any path.
struct Running(tokio::task::JoinHandle<()>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A run's worker pools: those still here when the run ends early (an error) are killed, so
/// none keeps claiming from a database its caller is about to drop. The normal end takes
/// them out first and shuts them down.
struct Pools(Vec<WorkerPool>);

impl Drop for Pools {
    fn drop(&mut self) {
        for p in self.0.drain(..) {
            p.kill();
        }
    }
}

/// Start `opts.workers` pools on `queue`, each with `opts.concurrency` slots.
fn start_pools(timed: &Arc<Timed>, opts: &QueueOptions, queue: &str, strategy: ClaimStrategy) -> Vec<WorkerPool> {
    (0..opts.workers.max(1))
        .map(|w| {
            let mut cfg = WorkerConfig::new(queue, strategy);
            cfg.concurrency = opts.concurrency;
            cfg.claim_batch = opts.claim_batch;
            cfg.lease_ms = opts.lease_ms;
            cfg.worker = Some(format!("w{w}"));
            WorkerPool::start(timed.clone(), cfg, Arc::new(BenchHandler))
        })
        .collect()
}

/// Enqueue `opts.jobs` jobs from `opts.producers` tasks (the first `single_fraction` one at
/// a time, the rest in batches); how many the store accepted.
async fn produce(
    store: &Arc<dyn Store>,
    queue: &str,
    opts: &QueueOptions,
    chain: u64,
) -> Result<u64, crate::error::BenchError> {
    if chain > 1 {
        return produce_chains(store, queue, opts, chain).await;
    }
    let producers_n = opts.producers.max(1) as u64;
    let per = opts.jobs / producers_n;
    let mut producers = tokio::task::JoinSet::new();
    for p in 0..producers_n {
        let (store, queue, opts) = (store.clone(), queue.to_string(), opts.clone());
        let n = if p == 0 {
            opts.jobs - per * (producers_n - 1)
        } else {
            per
        };
        producers.spawn(async move {
            let single = (n as f64 * opts.single_fraction) as u64;
            let (mut accepted, mut next) = (0u64, 0u64);
            let job = |i: u64| JobSpec {
                payload: serde_json::json!({"p": p, "i": i, "fail_once": (i as f64 * opts.fail_fraction).fract() + opts.fail_fraction >= 1.0}),
                priority: 1,
                run_at: store.now(),
                max_attempts: 25,
                unique_key: None,
                partition_key: (opts.keys > 0).then(|| format!("k{}", (p * n + i) % opts.keys)),
                tags: Vec::new(),
                metadata: serde_json::json!({}),
                depends_on: Vec::new(),
                on_failed_dependency: Default::default(),
            };
            while next < n {
                let size = if next < single { 1 } else { opts.batch.max(1) as u64 }.min(n - next);
                let jobs: Vec<JobSpec> = (next..next + size).map(job).collect();
                let req = Enqueue { queue: queue.clone(), jobs, now: store.now(), traceparent: None, batch: None };
                if let Executed::Fresh(e) = store.enqueue(&DEFAULT, req, None).await? {
                    accepted += e.ids.len() as u64;
                }
                next += size;
            }
            Ok::<u64, AllotError>(accepted)
        });
    }
    let mut accepted = 0;
    while let Some(r) = producers.join_next().await {
        let n = r.map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
        accepted += n.map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
    }
    Ok(accepted)
}

/// Enqueue `opts.jobs` jobs as chains of `chain` from `opts.producers` tasks: each round
/// enqueues up to `opts.batch` chain heads, then each next link of those chains in one request
/// (its jobs depending on the ids the last request answered); how many the store accepted.
async fn produce_chains(
    store: &Arc<dyn Store>,
    queue: &str,
    opts: &QueueOptions,
    chain: u64,
) -> Result<u64, crate::error::BenchError> {
    let producers_n = opts.producers.max(1) as u64;
    let chains_per = opts.jobs / chain / producers_n;
    let mut producers = tokio::task::JoinSet::new();
    for p in 0..producers_n {
        let (store, queue, opts) = (store.clone(), queue.to_string(), opts.clone());
        producers.spawn(async move {
            let (mut accepted, mut left) = (0u64, chains_per);
            while left > 0 {
                let heads = left.min(opts.batch.max(1) as u64);
                let mut prev: Vec<i64> = Vec::new();
                for link in 0..chain {
                    let jobs: Vec<JobSpec> = (0..heads)
                        .map(|h| {
                            let mut j = JobSpec::new(serde_json::json!({"p": p, "link": link}), store.now());
                            j.depends_on = prev.get(h as usize).map(|id| vec![*id]).unwrap_or_default();
                            j
                        })
                        .collect();
                    let req = Enqueue {
                        queue: queue.clone(),
                        jobs,
                        now: store.now(),
                        traceparent: None,
                        batch: None,
                    };
                    if let Executed::Fresh(e) = store.enqueue(&DEFAULT, req, None).await? {
                        accepted += e.ids.len() as u64;
                        prev = e.ids;
                    }
                }
                left -= heads;
            }
            Ok::<u64, AllotError>(accepted)
        });
    }
    let mut accepted = 0;
    while let Some(r) = producers.join_next().await {
        let n = r.map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
        accepted += n.map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
    }
    Ok(accepted)
}

/// Wait until the queue is drained (or `drain_timeout_s`), killing `kill_workers` pools once
/// a third of the work is acknowledged. Progress is read from the pools' counters; the
/// queue's counts — a scan of the table, which would take its share of the database from the
/// workload — only when the counters say everything is done, or every 500 ms. Returns the
/// last counts and how many pools were killed.
async fn drain(
    store: &Arc<dyn Store>,
    queue: &str,
    pools: &mut Vec<WorkerPool>,
    accepted: u64,
    opts: &QueueOptions,
) -> Result<(QueueCounts, usize), crate::error::BenchError> {
    let stats: Vec<_> = pools.iter().map(|p| p.stats.clone()).collect();
    let acknowledged = || -> u64 { stats.iter().map(|s| s.completed.load(Ordering::Relaxed)).sum() };
    let deadline = Instant::now() + Duration::from_secs(opts.drain_timeout_s);
    let (mut killed, mut last_count) = (0, Instant::now());
    loop {
        if killed < opts.kill_workers.min(pools.len().saturating_sub(1)) && acknowledged() * 3 >= accepted {
            pools.remove(0).kill();
            killed += 1;
            continue;
        }
        let now = Instant::now();
        if acknowledged() >= accepted || now.duration_since(last_count) >= Duration::from_millis(500) || now >= deadline
        {
            last_count = now;
            let counts = store
                .queue_counts(&DEFAULT, queue)
                .await
                .map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
            if counts.open() == 0 || Instant::now() >= deadline {
                return Ok((counts, killed));
            }
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The queue's invariants after a run: drained, every accepted job completed exactly once,
/// none discarded, no more completions acknowledged than jobs.
fn check(queue: &QueueCounts, accepted: u64, completed_by_live: u64, opts: &QueueOptions) -> Vec<String> {
    let mut violations = Vec::new();
    let (open, counts) = (queue.open(), &queue.counts);
    if open > 0 {
        violations.push(format!("{open} jobs not drained after {} s", opts.drain_timeout_s));
    }
    let kept = counts.get(&allot_core::JobState::Completed).copied().unwrap_or(0);
    if !opts.keep_completed && kept != 0 {
        violations.push(format!("{kept} completed jobs kept by a queue that drops them"));
    }
    let completed = completed(queue, completed_by_live, opts);
    if completed != accepted {
        violations.push(format!("completed {completed} != accepted {accepted} (lost or extra)"));
    }
    let discarded = counts.get(&allot_core::JobState::Discarded).copied().unwrap_or(0);
    if discarded != 0 {
        violations.push(format!("{discarded} jobs discarded although attempts allowed a retry"));
    }
    if completed_by_live > accepted {
        violations.push(format!(
            "{completed_by_live} completions acknowledged for {accepted} jobs"
        ));
    }
    violations
}

/// The jobs a run completed: the queue's completed rows, or, for a queue that drops them
/// (`--drop-completed`), the completions the pools had acknowledged (each deleted one job).
fn completed(queue: &QueueCounts, completed_by_live: u64, opts: &QueueOptions) -> u64 {
    match opts.keep_completed {
        true => queue.counts.get(&allot_core::JobState::Completed).copied().unwrap_or(0) as u64,
        false => completed_by_live,
    }
}

/// Enqueue `jobs` runnable jobs on `queue`, 1000 per request.
async fn fill_queue(store: &Arc<dyn Store>, queue: &str, jobs: u64) -> Result<(), crate::error::BenchError> {
    let mut left = jobs;
    while left > 0 {
        let n = left.min(1000);
        let specs = (0..n)
            .map(|i| JobSpec {
                payload: serde_json::json!({ "i": i }),
                priority: 1,
                run_at: store.now() - chrono::Duration::seconds(1),
                max_attempts: 25,
                unique_key: None,
                partition_key: None,
                tags: Vec::new(),
                metadata: serde_json::json!({}),
                depends_on: Vec::new(),
                on_failed_dependency: Default::default(),
            })
            .collect();
        let req = Enqueue {
            queue: queue.to_string(),
            jobs: specs,
            now: store.now(),
            traceparent: None,
            batch: None,
        };
        store
            .enqueue(&DEFAULT, req, None)
            .await
            .map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
        left -= n;
    }
    Ok(())
}

/// A side-by-side Markdown table of queue reports.
pub fn render_queue_table(reports: &[QueueReport]) -> String {
    let mut out = String::from(
        "| strategy | mode | jobs | enqueue/s | completed/s | vs plain | claim p50 ms | claim p99 ms | failed once | killed pools | lease_lost | check |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in reports {
        out.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.0} | {} | {:.2} | {:.2} | {} | {} | {} | {} |\n",
            r.strategy,
            r.mode,
            r.accepted,
            r.enqueue_per_s,
            r.completed_per_s,
            r.vs_plain.map_or("".to_string(), |v| format!("{v:.2}")),
            r.claim_latency_us_p50 as f64 / 1000.0,
            r.claim_latency_us_p99 as f64 / 1000.0,
            r.failed_attempts,
            r.killed_workers,
            r.lease_lost,
            if r.violations.is_empty() {
                "ok".to_string()
            } else {
                format!("BROKEN: {}", r.violations.join("; "))
            }
        ));
    }
    out
}

/// Figures of a claim-only run.
#[derive(Debug, Clone, Serialize)]
pub struct ClaimReport {
    /// Claim strategy.
    pub strategy: String,
    /// `store` or `HTTP` ([`ClaimPath::name`]).
    pub path: String,
    /// Jobs claimed (each claim takes one).
    pub claimed: u64,
    /// Claims per second.
    pub claims_per_s: f64,
    /// Claim latency percentiles, µs.
    pub latency_us_p50: u64,
    /// 99th percentile, µs.
    pub latency_us_p99: u64,
    /// Jobs leased twice (must be 0).
    pub duplicates: u64,
    /// Claims that failed (an error from the store, or an HTTP error or refusal).
    pub errors: u64,
}

/// Longest one HTTP claim may take before it counts as failed.
const HTTP_CLAIM_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the claims of [`claim_bench`] go.
#[derive(Debug, Clone)]
pub enum ClaimPath {
    /// Straight on the store, as the worker library claims.
    Store,
    /// `POST {url}/v1/queues/{queue}/claims` on a running server, a connection per client.
    Http(String),
}

impl ClaimPath {
    /// The path as the table shows it.
    pub fn name(&self) -> &'static str {
        match self {
            ClaimPath::Store => "store",
            ClaimPath::Http(_) => "HTTP",
        }
    }
}

/// One claim of one job, on `path`: the ids leased (empty when the queue is drained).
async fn claim_one(
    store: &Arc<dyn Store>,
    http: &reqwest::Client,
    (path, queue, strategy): (&ClaimPath, &str, ClaimStrategy),
) -> Result<Vec<i64>> {
    match path {
        ClaimPath::Store => {
            let claim = Claim {
                queue: queue.to_string(),
                max: 1,
                lease_ms: 600_000,
                worker: None,
                strategy,
                wait_ms: 0,
                final_try: true,
            };
            let jobs = store
                .claim_jobs(&DEFAULT, claim, None)
                .await
                .and_then(Executed::fresh)?;
            Ok(jobs.into_iter().map(|j| j.id).collect())
        }
        ClaimPath::Http(url) => {
            let body = serde_json::json!({"max": 1, "lease_ms": 600_000, "strategy": strategy.name()});
            let (status, answer) = crate::load::post(http, &format!("{url}/v1/queues/{queue}/claims"), &body)
                .await
                .map_err(|e| AllotError::Unavailable(e.to_string()))?;
            if status != 200 {
                return Err(AllotError::Unavailable(format!("claim answered {status}: {answer}")));
            }
            let claimed: allot_core::job::Claimed =
                serde_json::from_value(answer).map_err(|e| AllotError::Internal(e.to_string()))?;
            Ok(claimed.jobs.into_iter().map(|j| j.id).collect())
        }
    }
}

/// Single-job claims only: enqueue `jobs` (batches of 1000, not timed), then `clients`
/// tasks claim one job per call on `path` until `jobs` are claimed or `seconds` pass. On
/// the store, the figure to set against pgbench running the same SKIP LOCKED statement
/// (`bench/pgbench/jobs_claim.sql`); through HTTP, what the server adds to it.
pub async fn claim_bench(
    store: Arc<dyn Store>,
    (strategy, path): (ClaimStrategy, &ClaimPath),
    jobs: u64,
    clients: usize,
    seconds: u64,
) -> std::result::Result<ClaimReport, crate::error::BenchError> {
    let queue = format!("claims-{}-{}-{}", crate::load::run_id(), strategy.name(), path.name());
    fill_queue(&store, &queue, jobs).await?;
    // Let a background ANALYZE the fill may have started settle before timing.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let http = crate::load::client_builder()
        .pool_max_idle_per_host(clients)
        .timeout(HTTP_CLAIM_TIMEOUT)
        .build()
        .map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..clients.max(1) {
        let (store, queue, path, http) = (store.clone(), queue.clone(), path.clone(), http.clone());
        tasks.spawn(async move {
            let mut hist = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
            let (mut ids, mut errors) = (Vec::new(), 0u64);
            while Instant::now() < deadline {
                let t0 = Instant::now();
                match claim_one(&store, &http, (&path, &queue, strategy)).await {
                    Ok(j) if j.is_empty() => break,
                    Ok(j) => {
                        hist.saturating_record(t0.elapsed().as_micros() as u64);
                        ids.extend(j);
                    }
                    Err(_) => errors += 1,
                }
            }
            (hist, ids, errors)
        });
    }
    let mut hist = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
    let (mut ids, mut errors) = (Vec::new(), 0);
    while let Some(r) = tasks.join_next().await {
        let (h, i, e) = r.map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
        hist.add(h)
            .map_err(|e| crate::error::BenchError::Setup(e.to_string()))?;
        ids.extend(i);
        errors += e;
    }
    let elapsed = started.elapsed().as_secs_f64();
    let claimed = ids.len() as u64;
    ids.sort_unstable();
    ids.dedup();
    Ok(ClaimReport {
        strategy: strategy.name().into(),
        path: path.name().into(),
        claimed,
        claims_per_s: claimed as f64 / elapsed.max(1e-9),
        latency_us_p50: hist.value_at_quantile(0.5),
        latency_us_p99: hist.value_at_quantile(0.99),
        duplicates: claimed - ids.len() as u64,
        errors,
    })
}
