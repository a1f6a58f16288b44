//! # allot-worker
//!
//! A worker pool for allot's job queue that talks to the store directly, as River's workers
//! do: one fetch loop claims up to `claim_batch` jobs whenever slots are free (long-polling
//! when the queue is empty), each job runs the [`Handler`] on its own task under a semaphore
//! of `concurrency` slots with a heartbeat that extends its lease every `lease_ms / 3`,
//! successes are completed in batches (one statement per flush), failures go back with
//! `fail` (retry with backoff, or the dead letter). [`WorkerPool::shutdown`] stops claiming,
//! lets running jobs finish and flushes the last completions.

use allot_core::job::{Claim, ClaimStrategy, Completion, Fail, LeasedJob};
use allot_core::long_poll::{claim_waiting, FirstTry};
use allot_core::store::Executed;
use allot_core::JobStore;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch, OwnedSemaphorePermit, Semaphore};
use tracing::Instrument;

mod trace;

/// What a job does. `Err` fails the attempt: its text is kept in the job's errors, and the
/// job runs again after the queue's backoff, or after `retry_in_ms` when the handler says.
#[async_trait::async_trait]
pub trait Handler: Send + Sync + 'static {
    /// Run one job.
    async fn run(&self, job: &LeasedJob) -> Result<(), JobError>;
}

/// Why an attempt failed, and when to try again (`None`: the queue's backoff).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobError {
    /// What went wrong, kept in the job's errors.
    pub error: String,
    /// Run again after this many ms (0..=`max_retry_in_ms`).
    pub retry_in_ms: Option<i64>,
}

impl JobError {
    /// A failure to try again after `ms`.
    pub fn retry_in(error: impl Into<String>, ms: i64) -> Self {
        JobError {
            error: error.into(),
            retry_in_ms: Some(ms),
        }
    }
}

impl From<String> for JobError {
    fn from(error: String) -> Self {
        JobError {
            error,
            retry_in_ms: None,
        }
    }
}

impl From<&str> for JobError {
    fn from(error: &str) -> Self {
        error.to_string().into()
    }
}

/// Settings of a [`WorkerPool`].
#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// The tenant whose queue it works (its key's tenant when the store sits behind a
    /// server that requires keys; [`allot_core::access::DEFAULT_TENANT`] otherwise).
    pub tenant: allot_core::Tenant,
    /// The queue to work.
    pub queue: String,
    /// Jobs running at once.
    pub concurrency: usize,
    /// Most jobs per claim (<= the server's `max_claim`, 100 by default).
    pub claim_batch: i64,
    /// Lease of each job, ms; heartbeats renew it every third of it.
    pub lease_ms: i64,
    /// How long an empty claim waits before claiming again, ms.
    pub poll_ms: u64,
    /// Completions per flush, at most.
    pub completion_batch: usize,
    /// Longest a completion waits for more to join its flush, ms. 0 (the default): none;
    /// a flush takes what is queued when it starts, so batches grow with the load while
    /// each flush runs ("natural batching", as graphile-worker's `completeJobBatchDelay: 0`).
    pub completion_flush_ms: u64,
    /// Claim strategy.
    pub strategy: ClaimStrategy,
    /// Worker name (kept on claimed jobs).
    pub worker: Option<String>,
}

impl WorkerConfig {
    /// Defaults for `queue`: 32 slots, batches of 100, 30 s leases.
    pub fn new(queue: impl Into<String>, strategy: ClaimStrategy) -> Self {
        WorkerConfig {
            tenant: allot_core::Tenant::default_tenant(),
            queue: queue.into(),
            concurrency: 32,
            claim_batch: 100,
            lease_ms: allot_core::job::DEFAULT_LEASE_MS,
            poll_ms: 50,
            completion_batch: 500,
            completion_flush_ms: 0,
            strategy,
            worker: None,
        }
    }
}

/// Counters of a pool, readable while it runs.
#[derive(Debug, Default)]
pub struct WorkerStats {
    /// Jobs claimed.
    pub claimed: AtomicU64,
    /// Jobs completed (acknowledged by the store).
    pub completed: AtomicU64,
    /// Completions refused as `lease_lost` (the job was rescued or cancelled meanwhile).
    pub lease_lost: AtomicU64,
    /// Attempts failed by the handler.
    pub failed: AtomicU64,
    /// Store errors met by the pool (claims, completions, fails, heartbeats).
    pub store_errors: AtomicU64,
}

/// A running pool; [`WorkerPool::shutdown`] stops it gracefully.
pub struct WorkerPool {
    /// `true` once the pool is told to stop: the fetch loop checks it between claims, and a
    /// claim waiting for jobs (up to `poll_ms`) or pausing after an error ends at once.
    stop: watch::Sender<bool>,
    fetch: tokio::task::JoinHandle<()>,
    completer: tokio::task::JoinHandle<()>,
    /// Live counters.
    pub stats: Arc<WorkerStats>,
}

impl WorkerPool {
    /// Start the fetch loop and the completer.
    pub fn start(store: Arc<dyn JobStore>, cfg: WorkerConfig, handler: Arc<dyn Handler>) -> WorkerPool {
        let (stop, stopped) = watch::channel(false);
        let stats = Arc::new(WorkerStats::default());
        // Bounded by the slots: a completion waiting in it still holds its slot.
        let (done_tx, done_rx) = mpsc::channel::<Done>(cfg.concurrency.max(1));
        let completer = tokio::spawn(complete_loop(store.clone(), cfg.clone(), done_rx, stats.clone()));
        let fetch = tokio::spawn(fetch_loop(store, cfg, handler, done_tx, stopped, stats.clone()));
        WorkerPool {
            stop,
            fetch,
            completer,
            stats,
        }
    }

    /// Die at once, like a crashed process: no more claims, running jobs are dropped
    /// mid-flight without completing, failing or heartbeating, and unflushed completions are
    /// lost. Their leases expire and the rescue sweeper gives the jobs back.
    pub fn kill(self) {
        self.fetch.abort();
        self.completer.abort();
    }

    /// Stop claiming, wait for running jobs, flush their completions.
    pub async fn shutdown(self) {
        self.stop.send_replace(true);
        let _ = self.fetch.await;
        let _ = self.completer.await;
    }
}

async fn fetch_loop(
    store: Arc<dyn JobStore>,
    cfg: WorkerConfig,
    handler: Arc<dyn Handler>,
    done: mpsc::Sender<Done>,
    stop: watch::Receiver<bool>,
    stats: Arc<WorkerStats>,
) {
    let f = Fetcher {
        slots: Arc::new(Semaphore::new(cfg.concurrency.max(1))),
        store,
        cfg,
        handler,
        done,
        stats,
        idle: AtomicBool::new(false),
        stop,
    };
    // Job tasks live in this set: aborting the fetch task (kill) aborts them all.
    let mut tasks = tokio::task::JoinSet::new();
    while !*f.stop.borrow() {
        while tasks.try_join_next().is_some() {}
        // Wait for at least one free slot, then claim as many as are free.
        let first = match f.slots.clone().acquire_owned().await {
            Ok(p) => p,
            Err(_) => break,
        };
        let free = (f.slots.available_permits() + 1).min(f.cfg.claim_batch.max(1) as usize);
        let Some(jobs) = f.claim(free).await else {
            continue; // `first` drops: the slot is free again
        };
        if f.spawn_all(jobs, first, &mut tasks).await.is_err() {
            break;
        }
    }
    // Graceful: wait until every running job has finished.
    while tasks.join_next().await.is_some() {}
}

/// What the fetch loop shares with the job tasks it starts.
struct Fetcher {
    store: Arc<dyn JobStore>,
    cfg: WorkerConfig,
    handler: Arc<dyn Handler>,
    done: mpsc::Sender<Done>,
    stats: Arc<WorkerStats>,
    slots: Arc<Semaphore>,
    /// Whether the last claim found nothing (the next one waits first).
    idle: AtomicBool,
    /// The pool's stop signal.
    stop: watch::Receiver<bool>,
}

impl Fetcher {
    /// Ready once the pool is told to stop.
    fn stopped(&self) -> impl std::future::Future<Output = ()> + use<> {
        let mut stop = self.stop.clone();
        async move {
            // A pool dropped without `shutdown` keeps running, as its tasks are detached.
            if stop.wait_for(|s| *s).await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }

    /// Claim up to `free` jobs, waiting up to `poll_ms` for one to become runnable (the
    /// long-poll claim of `allot_core::long_poll`). `None` after an error (counted,
    /// logged, then a pause of `poll_ms`) or when none became runnable in that time.
    async fn claim(&self, free: usize) -> Option<Vec<LeasedJob>> {
        let claim = Claim {
            queue: self.cfg.queue.clone(),
            max: free as i64,
            lease_ms: self.cfg.lease_ms,
            worker: self.cfg.worker.clone(),
            strategy: self.cfg.strategy,
            wait_ms: 0,
            final_try: true,
        };
        let pause = Duration::from_millis(self.cfg.poll_ms.max(1));
        let first = match self.idle.load(Ordering::Relaxed) {
            true => FirstTry::AfterWait,
            false => FirstTry::Now,
        };
        let claimed = claim_waiting(
            &*self.store,
            &self.cfg.tenant,
            (claim, first),
            (pause, self.stopped()),
            || None,
        );
        let claimed = claimed.await.and_then(Executed::fresh);
        self.idle
            .store(claimed.as_ref().is_ok_and(Vec::is_empty), Ordering::Relaxed);
        match claimed {
            Ok(jobs) if jobs.is_empty() => None,
            Ok(jobs) => {
                self.stats.claimed.fetch_add(jobs.len() as u64, Ordering::Relaxed);
                Some(jobs)
            }
            Err(e) => {
                self.stats.store_errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(error = %e, "claim failed");
                let _ = tokio::time::timeout(pause, self.stopped()).await;
                None
            }
        }
    }

    /// Start one task per job, each holding a slot (`first` for the first job, the others
    /// taken now or waited for). `Err` when the slots are closed.
    async fn spawn_all(
        &self,
        jobs: Vec<LeasedJob>,
        first: OwnedSemaphorePermit,
        tasks: &mut tokio::task::JoinSet<()>,
    ) -> std::result::Result<(), ()> {
        let mut first = Some(first);
        for job in jobs {
            let permit = match first.take() {
                Some(p) => p,
                None => match self.slots.clone().try_acquire_owned() {
                    Ok(p) => p,
                    Err(_) => self.slots.clone().acquire_owned().await.map_err(|_| ())?,
                },
            };
            let (store, handler, done, stats) = (
                self.store.clone(),
                self.handler.clone(),
                self.done.clone(),
                self.stats.clone(),
            );
            let lease = Lease {
                tenant: self.cfg.tenant.clone(),
                ms: self.cfg.lease_ms,
            };
            let span = trace::job_span(&job, &self.cfg.queue);
            tasks.spawn(run_one(store, handler, done, stats, lease, job, permit).instrument(span));
        }
        Ok(())
    }
}

/// What a running job's heartbeats and failure need: its tenant and lease length.
struct Lease {
    tenant: allot_core::Tenant,
    ms: i64,
}

async fn run_one(
    store: Arc<dyn JobStore>,
    handler: Arc<dyn Handler>,
    done: mpsc::Sender<Done>,
    stats: Arc<WorkerStats>,
    lease: Lease,
    job: LeasedJob,
    slot: OwnedSemaphorePermit,
) {
    let (tenant, lease_ms) = (&lease.tenant, lease.ms);
    let every = Duration::from_millis((lease_ms / 3).max(1) as u64);
    let result = {
        let run = handler.run(&job);
        tokio::pin!(run);
        let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        loop {
            tokio::select! {
                r = &mut run => break r,
                _ = tick.tick() => {
                    if let Err(e) = store.heartbeat_job(tenant, job.id, &job.lease_token, lease_ms, None).await {
                        stats.store_errors.fetch_add(1, Ordering::Relaxed);
                        tracing::warn!(job = job.id, error = %e, "heartbeat failed");
                    }
                }
            }
        }
    };
    match result {
        Ok(()) => {
            // The slot (and the job's span) travel with the completion and end with the flush.
            let _ = done
                .send((
                    Completion {
                        id: job.id,
                        lease_token: job.lease_token,
                    },
                    slot,
                    tracing::Span::current(),
                ))
                .await;
        }
        Err(failure) => {
            stats.failed.fetch_add(1, Ordering::Relaxed);
            let fail = Fail {
                lease_token: job.lease_token.clone(),
                error: failure.error,
                retry_in_ms: failure.retry_in_ms,
            };
            if let Err(e) = store.fail_job(tenant, job.id, fail, None).await {
                stats.store_errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(job = job.id, error = %e, "fail failed");
            }
            drop(slot);
        }
    }
}

/// A successful job waiting for its completion flush, with the slot it still occupies and
/// its span.
type Done = (Completion, OwnedSemaphorePermit, tracing::Span);

/// Tries of one completion batch.
const COMPLETION_ATTEMPTS: u32 = 4;

async fn complete_loop(
    store: Arc<dyn JobStore>,
    cfg: WorkerConfig,
    mut rx: mpsc::Receiver<Done>,
    stats: Arc<WorkerStats>,
) {
    let (flush, max) = (
        Duration::from_millis(cfg.completion_flush_ms),
        cfg.completion_batch.max(1),
    );
    loop {
        let Some(first) = rx.recv().await else { return };
        let mut batch = vec![first];
        // What is queued already joins at once; with a delay, more may join until it ends.
        while batch.len() < max {
            match rx.try_recv() {
                Ok(c) => batch.push(c),
                Err(_) => break,
            }
        }
        let deadline = tokio::time::Instant::now() + flush;
        while !flush.is_zero() && batch.len() < max {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(c)) => batch.push(c),
                Ok(None) | Err(_) => break,
            }
        }
        let span = trace::completion_span(batch.iter().map(|(_, _, s)| s));
        let (mut completions, mut slots, mut spans) = (Vec::new(), None::<OwnedSemaphorePermit>, Vec::new());
        for (completion, slot, job_span) in batch {
            completions.push(completion);
            // One permit for the whole batch: its slots come back in one release, so the
            // fetch loop wakes to all of them and claims them in one statement instead of
            // waking to the first and claiming a few at a time.
            match &mut slots {
                Some(all) => all.merge(slot),
                None => slots = Some(slot),
            }
            spans.push(job_span);
        }
        flush_batch(&store, &cfg, completions, &stats).instrument(span).await;
        // Only now may the pool claim more: finished-but-unflushed jobs count against
        // `concurrency`, so a slow store slows claiming instead of letting leases run out
        // in a growing backlog of completions. The jobs' spans end here too.
        drop(slots);
        drop(spans);
    }
}

/// Complete one batch, with bounded retries: a completion that never reaches the store makes
/// its job run again after the lease, which is allowed (at least once) but wasteful.
async fn flush_batch(store: &Arc<dyn JobStore>, cfg: &WorkerConfig, completions: Vec<Completion>, stats: &WorkerStats) {
    for attempt in 0..COMPLETION_ATTEMPTS {
        match store
            .complete_jobs(&cfg.tenant, &cfg.queue, completions.clone(), None)
            .await
            .and_then(Executed::fresh)
        {
            Ok(r) => {
                stats.completed.fetch_add(r.completed.len() as u64, Ordering::Relaxed);
                stats.lease_lost.fetch_add(r.lease_lost.len() as u64, Ordering::Relaxed);
                return;
            }
            Err(e) => {
                stats.store_errors.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(error = %e, attempt, "batch completion failed");
                tokio::time::sleep(Duration::from_millis(10 << attempt)).await;
            }
        }
    }
}
