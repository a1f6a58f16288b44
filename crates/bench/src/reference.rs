//! The HTTP ceiling of the hot-SKU workload: a no-op handler of the same framework (axum,
//! on the same tokio runtime) that parses the same body (`allot_core::AllocationBody`, with
//! unknown fields refused) and answers `201` with an allocation-shaped body, touching no
//! store. What allot reaches over what this reaches is the share of the HTTP ceiling that the
//! allocation itself costs (`allot bench compare`'s `allot / no-op` column), measured with
//! the same client loop and the same number of clients in the same run.

use crate::error::BenchError;
use crate::load::post;
use axum::http::StatusCode;
use axum::routing::post as route_post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// What the no-op handler reached.
#[derive(Debug, Clone, Copy)]
pub struct Ceiling {
    /// Requests per second.
    pub requests_per_s: f64,
    /// 99th percentile latency, µs.
    pub latency_us_p99: u64,
    /// CPU of this whole process (handler and client) per request, µs.
    pub cpu_us_per_request: Option<f64>,
}

/// The handler: parse, make an id, answer as an allocation would (no store, no lock).
async fn allocate(Json(body): Json<allot_core::AllocationBody>) -> (StatusCode, Json<Value>) {
    let lines: Vec<Value> = body
        .lines
        .iter()
        .filter_map(|l| match l {
            allot_core::kit::OrderLineBody::Stock(l) => Some(l),
            allot_core::kit::OrderLineBody::Kit(_) => None,
        })
        .map(|l| json!({"sku": l.sku, "quantity": l.quantity, "bucket": 0, "location": "default"}))
        .collect();
    let id = uuid::Uuid::new_v4().to_string();
    let answer = json!({"id": id, "status": "allocated", "strategy": body.strategy, "lines": lines,
        "created_at": chrono::Utc::now()});
    (StatusCode::CREATED, Json(answer))
}

/// The no-op handler's routes: `POST /v1/allocations`, and `GET /healthz` (200, empty) to
/// learn that it serves.
fn noop_router() -> Router {
    Router::new()
        .route("/v1/allocations", route_post(allocate))
        .route("/healthz", axum::routing::get(|| async {}))
}

/// Serve the no-op handler on a free loopback port until the returned handle is aborted.
pub async fn serve_noop() -> Result<(String, tokio::task::JoinHandle<()>), BenchError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| BenchError::Setup(format!("bind the no-op handler: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| BenchError::Setup(format!("the no-op handler's address: {e}")))?;
    let app = noop_router();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((format!("http://{addr}"), task))
}

/// Serve the no-op handler on `addr` (`HOST:PORT`) until the process ends: the HTTP floor of
/// `allot bench cost`, run in a process of its own (`allot bench noop-serve`).
pub async fn serve_noop_at(addr: &str) -> Result<(), BenchError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| BenchError::Setup(format!("bind the no-op handler on {addr}: {e}")))?;
    axum::serve(listener, noop_router())
        .await
        .map_err(|e| BenchError::Setup(format!("the no-op handler: {e}")))
}

/// Send `requests` single-unit allocation bodies from `clients` keep-alive clients to the
/// no-op handler, the flash sale's loop against allot.
pub async fn noop_ceiling(clients: usize, requests: u64) -> Result<Ceiling, BenchError> {
    let (url, task) = serve_noop().await?;
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let url: Arc<str> = format!("{url}/v1/allocations").into();
    let cpu_before = process_cpu_us();
    let run = crate::load::drive("no-op handler", clients, requests, false, move |_| {
        let (client, url) = (client.clone(), url.clone());
        async move {
            let body = json!({"lines": [{"sku": "noop", "quantity": 1}], "strategy": "batched"});
            let outcome = match post(&client, &url, &body).await {
                Ok((status, answer)) => crate::load::outcome_of(status, &answer, 201),
                Err(e) => format!("client_error: {e}"),
            };
            crate::load::Sample {
                outcome,
                ..Default::default()
            }
        }
    })
    .await;
    let cpu = process_cpu_us()
        .zip(cpu_before)
        .map(|(a, b)| (a - b) as f64 / requests as f64);
    task.abort();
    let run = run?;
    if let Some((other, _)) = run.outcomes.iter().find(|(k, _)| k.as_str() != "ok") {
        return Err(BenchError::Setup(format!("the no-op handler answered {other}")));
    }
    Ok(Ceiling {
        requests_per_s: requests as f64 / run.elapsed_s,
        latency_us_p99: run.hist.value_at_quantile(0.99),
        cpu_us_per_request: cpu,
    })
}

/// This process's CPU time (user + system), µs, from `/proc/self/stat` (Linux; `None`
/// elsewhere). Clock ticks are 10 ms, so it is meant for runs of seconds.
pub fn process_cpu_us() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let (utime, stime): (u64, u64) = (fields.get(11)?.parse().ok()?, fields.get(12)?.parse().ok()?);
    // USER_HZ is 100 on every Linux this runs on.
    Some((utime + stime) * 10_000)
}
