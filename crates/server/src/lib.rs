//! # allot-server
//!
//! The HTTP API of allot (its OpenAPI document is served at `/openapi.json`) on axum: handlers, the error body, the `Idempotency-Key`
//! protocol, Prometheus metrics and the OpenAPI document (utoipa). This is the only crate
//! that knows HTTP or JSON; it talks to the backends through the store traits of [`allot_core::store`].

mod api;
mod config;
mod error;
mod extract;
mod metrics_layer;
mod state;

pub use api::{router, ApiDoc};
pub use config::{open_store, ServerConfig};
pub use error::{ApiError, ErrorBody};
pub use state::AppState;

use std::net::SocketAddr;
use std::sync::Arc;

/// A server started with [`spawn`]: its address and a handle to stop it.
pub struct RunningServer {
    /// Where it listens.
    pub addr: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// `http://addr`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stop accepting, let in-flight requests finish, and wait for it.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.await.unwrap_or(Ok(()))
    }
}

/// Open the store of `cfg` (running migrations), bind `cfg.listen` and serve in a
/// background task until [`RunningServer::stop`].
pub async fn spawn(cfg: &ServerConfig) -> Result<RunningServer, ApiError> {
    let store = open_store(cfg).await?;
    let state = AppState::new(store.clone(), cfg)?;
    let listener = tokio::net::TcpListener::bind(&cfg.listen).await.map_err(|e| {
        ApiError::from(allot_core::AllotError::Unavailable(format!(
            "cannot bind {}: {e}",
            cfg.listen
        )))
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| ApiError::from(allot_core::AllotError::Internal(e.to_string())))?;
    // Started only once the server can run, so a failed start leaves no task behind.
    let sweeper = tokio::spawn(sweep(
        store.clone(),
        cfg.idempotency_retention_ms,
        cfg.job_retention_ms,
        cfg.sweep_interval_ms,
    ));
    let upkeep = tokio::spawn(metrics_layer::upkeep());
    let depths = tokio::spawn(sample_queue_depths(store.clone()));
    let hold_sweeper = tokio::spawn(sweep_holds(
        store,
        cfg.hold_sweep_interval_ms,
        cfg.limits.hold_sweep_batch,
    ));
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let app = router(Arc::new(state));
    let task = tokio::spawn(async move {
        let result = axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = rx.await;
            })
            .await;
        sweeper.abort();
        hold_sweeper.abort();
        upkeep.abort();
        depths.abort();
        result
    });
    Ok(RunningServer {
        addr,
        shutdown: Some(tx),
        task,
    })
}

/// Most rows one sweep deletes in one statement, and most statements per sweep.
const SWEEP_BATCH_ROWS: u32 = 1000;
const SWEEP_MAX_BATCHES: u32 = 100;

/// `ms` before the store's now.
fn ago(store: &dyn allot_core::Store, ms: u64) -> chrono::DateTime<chrono::Utc> {
    store.now() - chrono::Duration::milliseconds(ms.min(i64::MAX as u64) as i64)
}

/// The background sweeper: every `interval_ms`, delete idempotency responses older than
/// `retention_ms` and finished jobs older than `job_retention_ms`, in bounded batches.
/// Errors are logged and retried at the next tick.
async fn sweep(store: Arc<dyn allot_core::Store>, retention_ms: u64, job_retention_ms: u64, interval_ms: u64) {
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
async fn sweep_holds(store: Arc<dyn allot_core::Store>, interval_ms: u64, batch: u32) {
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
/// queue (`GET /v1/queues/{queue}` refreshes it for that queue at once).
async fn sample_queue_depths(store: Arc<dyn allot_core::Store>) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut seen: std::collections::HashSet<(String, &'static str)> = Default::default();
    loop {
        tick.tick().await;
        match store.queue_depths().await {
            Ok(rows) => {
                let mut now_seen = std::collections::HashSet::new();
                for (queue, state, n) in rows {
                    metrics::gauge!("allot_queue_jobs", "queue" => queue.clone(), "state" => state.as_str())
                        .set(n as f64);
                    now_seen.insert((queue, state.as_str()));
                }
                // Queues and states that emptied since the last sample read 0, not their old value.
                for (queue, state) in seen.difference(&now_seen) {
                    metrics::gauge!("allot_queue_jobs", "queue" => queue.clone(), "state" => *state).set(0.0);
                }
                seen = now_seen;
            }
            Err(e) => tracing::warn!(error = %e, "queue depth sample failed"),
        }
    }
}

/// Serve until Ctrl-C or SIGTERM, then shut down gracefully: stop accepting, let in-flight
/// requests finish (each is one transaction, so nothing is half-applied), and return.
pub async fn serve_until_signal(cfg: &ServerConfig) -> Result<(), ApiError> {
    let server = spawn(cfg).await?;
    tracing::info!(addr = %server.addr, backend = %cfg.backend_name(), "allot listening");
    shutdown_signal().await;
    tracing::info!("shutting down: finishing in-flight requests");
    server
        .stop()
        .await
        .map_err(|e| ApiError::from(allot_core::AllotError::Internal(e.to_string())))
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
