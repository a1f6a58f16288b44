//! The background tasks of `allot serve`: pruning (idempotency responses, finished jobs,
//! events), the sequencer of the change feed, the lease sweeper (job rescue, hold and booking
//! expiry) and the queue-depth gauge. Each runs on
//! its own interval in bounded batches; readers and writers never wait for them.

use std::sync::Arc;

/// Most rows one sweep deletes in one statement, and most statements per sweep.
const SWEEP_BATCH_ROWS: u32 = 1000;
const SWEEP_MAX_BATCHES: u32 = 100;

/// `ms` before the store's now.
fn ago(store: &dyn allot_core::Database, ms: u64) -> chrono::DateTime<chrono::Utc> {
    store.now() - chrono::Duration::milliseconds(ms.min(i64::MAX as u64) as i64)
}

/// How long each kind of row is kept, ms.
pub(crate) struct Retention {
    /// Stored idempotency responses.
    pub(crate) idempotency_ms: u64,
    /// Completed, discarded and cancelled jobs.
    pub(crate) jobs_ms: u64,
    /// Events of the change feed.
    pub(crate) events_ms: u64,
}

/// Run `prune` in batches of `SWEEP_BATCH_ROWS` until one deletes fewer, at most
/// `SWEEP_MAX_BATCHES` times; a failure is logged as `what` and ends the sweep.
async fn in_batches<F, Fut>(what: &str, prune: F)
where
    F: Fn(u32) -> Fut,
    Fut: std::future::Future<Output = allot_core::Result<u64>>,
{
    for _ in 0..SWEEP_MAX_BATCHES {
        match prune(SWEEP_BATCH_ROWS).await {
            Ok(n) if n < u64::from(SWEEP_BATCH_ROWS) => break,
            Ok(_) => continue,
            Err(e) => {
                tracing::warn!(error = %e, "{what} failed");
                break;
            }
        }
    }
}

/// The background sweeper: every `interval_ms`, delete finished jobs, idempotency responses
/// and events older than their `retention`, in bounded batches. Errors are logged and
/// retried at the next tick.
pub(crate) async fn sweep(store: Arc<dyn allot_core::Database>, retention: Retention, interval_ms: u64) {
    let mut tick = every(interval_ms);
    loop {
        tick.tick().await;
        let before = ago(store.as_ref(), retention.jobs_ms);
        in_batches("job prune", |max| store.prune_jobs(before, max)).await;
        let before = ago(store.as_ref(), retention.idempotency_ms);
        in_batches("idempotency sweep", |max| store.prune_idempotency_keys(before, max)).await;
        let before = ago(store.as_ref(), retention.events_ms);
        in_batches("event prune", |max| store.prune_events(before, max)).await;
    }
}

/// The sequencer of the change feed: every `interval_ms`, give committed events their
/// cursors (PostgreSQL; a no-op on SQLite), `batch` at a time, again at once while batches
/// come back full. Counts `allot_events_sequenced_total`, and sets `allot_feed_lag_seconds`
/// to the age of the oldest event still waiting for its cursor (0 when none waits).
pub(crate) async fn sequence_events(store: Arc<dyn allot_core::Database>, interval_ms: u64, batch: u32) {
    let mut tick = every(interval_ms);
    loop {
        tick.tick().await;
        for _ in 0..SWEEP_MAX_BATCHES {
            match store.sequence_events(batch).await {
                Ok(n) => {
                    metrics::counter!("allot_events_sequenced_total").increment(n);
                    if n < u64::from(batch) {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "event sequencing failed");
                    break;
                }
            }
        }
        if let Ok(oldest) = store.oldest_unsequenced_event().await {
            let lag = oldest.map_or(0.0, |at| (store.now() - at).num_milliseconds().max(0) as f64 / 1000.0);
            metrics::gauge!("allot_feed_lag_seconds").set(lag);
        }
    }
}

/// The lease sweeper: every `interval_ms`, rescue jobs whose lease expired, expire held
/// bookings, and finalise holds whose expiry has passed, at most
/// `batch` per statement and `SWEEP_MAX_BATCHES` statements per tick. Readers and writers
/// never wait for it (an overdue hold already reads as expired and is finalised by the
/// first writer that needs its stock); it keeps the `held` counts tidy.
pub(crate) async fn sweep_holds(store: Arc<dyn allot_core::Database>, interval_ms: u64, batch: u32) {
    let mut tick = every(interval_ms);
    loop {
        tick.tick().await;
        for _ in 0..SWEEP_MAX_BATCHES {
            let now = store.now();
            match store.rescue_jobs(now, batch).await {
                Ok(n) => metrics::counter!("allot_jobs_rescued_total").increment(n),
                Err(e) => tracing::warn!(error = %e, "job rescue sweep failed"),
            }
            let bookings = match store.expire_bookings(now, batch).await {
                Ok(n) => {
                    metrics::counter!("allot_bookings_expired_total").increment(n);
                    n
                }
                Err(e) => {
                    tracing::warn!(error = %e, "booking expiry sweep failed");
                    0
                }
            };
            match store.expire_holds(now, batch).await {
                Ok(n) => {
                    metrics::counter!("allot_holds_expired_total").increment(n);
                    let n = n.max(bookings);
                    if n < u64::from(batch) {
                        break;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "hold sweep failed");
                    break;
                }
            }
        }
    }
}

/// How often the scheduler looks for due ticks, ms: a schedule's job is enqueued at most this
/// late (cron's finest unit is a second).
pub(crate) const SCHEDULE_PASS_MS: u64 = 250;

/// How often appended queue-count changes are folded into their totals, ms.
pub(crate) const FOLD_QUEUE_COUNTS_MS: u64 = 1000;

/// How often the queue-depth gauge is sampled, ms.
pub(crate) const SAMPLE_QUEUE_DEPTHS_MS: u64 = 5000;

/// A `tokio` interval of `ms` (at least 1) whose missed ticks are delayed, not bunched.
pub(crate) fn every(ms: u64) -> tokio::time::Interval {
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(ms.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick
}

/// Most due schedules one pass takes (the rest wait for the next pass, `SCHEDULE_PASS_MS`
/// later).
const SCHEDULE_BATCH: u32 = 1000;

/// The scheduler: every `interval_ms` ([`SCHEDULE_PASS_MS`] unless the server's
/// `background_interval_ms` says otherwise), one pass over at most `SCHEDULE_BATCH` due
/// schedules. Every instance runs it; a tick is enqueued once (see
/// `Maintenance::run_schedules`). Counts `allot_schedule_jobs_total`.
pub(crate) async fn run_schedules(store: Arc<dyn allot_core::Database>, interval_ms: u64) {
    let mut tick = every(interval_ms);
    loop {
        tick.tick().await;
        match store.run_schedules(store.now(), SCHEDULE_BATCH).await {
            Ok(n) => metrics::counter!("allot_schedule_jobs_total").increment(n),
            Err(e) => tracing::warn!(error = %e, "schedule pass failed"),
        }
    }
}

/// Every `interval_ms` ([`FOLD_QUEUE_COUNTS_MS`]), fold the appended changes of the queue counts into their totals
/// (PostgreSQL; see `Maintenance::fold_queue_counts`), again at once while folds come back full.
pub(crate) async fn fold_queue_counts(store: Arc<dyn allot_core::Database>, interval_ms: u64) {
    let mut tick = every(interval_ms);
    loop {
        tick.tick().await;
        in_batches("queue count fold", |max| store.fold_queue_counts(max)).await;
    }
}

/// Every `interval_ms` ([`SAMPLE_QUEUE_DEPTHS_MS`]), set the gauge `allot_queue_jobs{queue, state}` to the unfinished jobs of every
/// queue of every tenant, each under its own label (a hash of tenant and queue, see
/// [`crate::metrics_layer::queue_label`]; `GET /v1/queues/{queue}` refreshes it at once).
pub(crate) async fn sample_queue_depths(store: Arc<dyn allot_core::Database>, interval_ms: u64) {
    let mut tick = every(interval_ms);
    let mut seen: std::collections::HashSet<(String, &'static str)> = Default::default();
    loop {
        tick.tick().await;
        match store.queue_depths().await {
            Ok(rows) => {
                // Queues beyond the label cap add up under `other`.
                let mut depths: std::collections::HashMap<(String, &'static str), f64> = Default::default();
                for (tenant, queue, state, n) in rows {
                    let label = crate::metrics_layer::queue_label(&tenant, &queue);
                    *depths.entry((label, state.as_str())).or_default() += n as f64;
                }
                for ((queue, state), n) in &depths {
                    metrics::gauge!("allot_queue_jobs", "queue" => queue.clone(), "state" => *state).set(*n);
                }
                // Queues and states that emptied since the last sample read 0, not their old value.
                let now_seen: std::collections::HashSet<_> = depths.into_keys().collect();
                for (queue, state) in seen.difference(&now_seen) {
                    metrics::gauge!("allot_queue_jobs", "queue" => queue.clone(), "state" => *state).set(0.0);
                }
                seen = now_seen;
            }
            Err(e) => tracing::warn!(error = %e, "queue depth sample failed"),
        }
    }
}

/// Record this instance's heartbeat every `interval_ms` ([`allot_core::instance::HEARTBEAT_MS`]; the first is
/// [`beat`], before the server answers) and forget instances gone for
/// [`allot_core::instance::FORGET_AFTER_MS`]; a failure is logged and tried again at the next
/// tick.
pub(crate) async fn heartbeat(
    store: Arc<dyn allot_core::Database>,
    instance: Arc<crate::recent::Recent>,
    interval_ms: u64,
) {
    let period = std::time::Duration::from_millis(interval_ms.max(1));
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        beat(store.as_ref(), &instance).await;
    }
}

/// One heartbeat of `instance`; a failure is logged.
pub(crate) async fn beat(store: &dyn allot_core::Database, instance: &crate::recent::Recent) {
    let me = allot_core::instance::Instance {
        id: instance.instance_id().to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: instance.started_at(),
        seen_at: store.now(),
    };
    let forget_before = ago(store, allot_core::instance::FORGET_AFTER_MS);
    if let Err(e) = store.heartbeat(&me, forget_before).await {
        tracing::warn!(error = %e, "instance heartbeat failed");
    }
}
