//! The background tasks of `allot serve`: pruning (idempotency responses, finished jobs), the
//! lease sweeper (job rescue, hold and booking expiry) and the queue-depth gauge. Each runs on
//! its own interval in bounded batches; readers and writers never wait for them.

use std::sync::Arc;

/// Most rows one sweep deletes in one statement, and most statements per sweep.
const SWEEP_BATCH_ROWS: u32 = 1000;
const SWEEP_MAX_BATCHES: u32 = 100;

/// `ms` before the store's now.
fn ago(store: &dyn allot_core::Database, ms: u64) -> chrono::DateTime<chrono::Utc> {
    store.now() - chrono::Duration::milliseconds(ms.min(i64::MAX as u64) as i64)
}

/// The background sweeper: every `interval_ms`, delete idempotency responses older than
/// `retention_ms` and finished jobs older than `job_retention_ms`, in bounded batches.
/// Errors are logged and retried at the next tick.
pub(crate) async fn sweep(
    store: Arc<dyn allot_core::Database>,
    retention_ms: u64,
    job_retention_ms: u64,
    interval_ms: u64,
) {
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(interval_ms.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        let before = ago(store.as_ref(), job_retention_ms);
        for _ in 0..SWEEP_MAX_BATCHES {
            match store.prune_jobs(before, SWEEP_BATCH_ROWS).await {
                Ok(n) if n < u64::from(SWEEP_BATCH_ROWS) => break,
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "job prune failed");
                    break;
                }
            }
        }
        let before = ago(store.as_ref(), retention_ms);
        for _ in 0..SWEEP_MAX_BATCHES {
            match store.prune_idempotency_keys(before, SWEEP_BATCH_ROWS).await {
                Ok(n) if n < u64::from(SWEEP_BATCH_ROWS) => break,
                Ok(_) => continue,
                Err(e) => {
                    tracing::warn!(error = %e, "idempotency sweep failed");
                    break;
                }
            }
        }
    }
}

/// The lease sweeper: every `interval_ms`, rescue jobs whose lease expired, expire held
/// bookings, and finalise holds whose expiry has passed, at most
/// `batch` per statement and `SWEEP_MAX_BATCHES` statements per tick. Readers and writers
/// never wait for it (an overdue hold already reads as expired and is finalised by the
/// first writer that needs its stock); it keeps the `held` counts tidy.
pub(crate) async fn sweep_holds(store: Arc<dyn allot_core::Database>, interval_ms: u64, batch: u32) {
    let mut tick = tokio::time::interval(std::time::Duration::from_millis(interval_ms.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
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

/// Every 5 s, set the gauge `allot_queue_jobs{queue, state}` to the unfinished jobs of every
/// queue of every tenant, each under its own label (a hash of tenant and queue, see
/// [`crate::metrics_layer::queue_label`]; `GET /v1/queues/{queue}` refreshes it at once).
pub(crate) async fn sample_queue_depths(store: Arc<dyn allot_core::Database>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
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
