//! The HTTP ceiling of the hot-SKU workload: a no-op handler of the same framework (axum,
//! on the same tokio runtime) that parses the same body (`allot_core::AllocationBody`, with
//! unknown fields refused) and answers `201` with an allocation-shaped body, touching no
//! store. What allot reaches over what this reaches is the share of the HTTP ceiling that the
//! allocation itself costs (`allot bench compare`'s `allot / no-op` column), measured with
//! the same client loop and the same number of clients in the same run.

use crate::load::post;
use crate::BenchError;
use axum::http::StatusCode;
use axum::routing::post as route_post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
        .map(|l| json!({"sku": l.sku, "quantity": l.quantity, "bucket": 0, "location": "default"}))
        .collect();
    let id = uuid::Uuid::new_v4().to_string();
    let answer = json!({"id": id, "status": "allocated", "strategy": body.strategy, "lines": lines,
        "created_at": chrono::Utc::now()});
    (StatusCode::CREATED, Json(answer))
}

/// Serve the no-op handler on a free loopback port until the returned handle is aborted.
pub async fn serve_noop() -> Result<(String, tokio::task::JoinHandle<()>), BenchError> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| BenchError::Setup(format!("bind the no-op handler: {e}")))?;
    let addr = listener
        .local_addr()
        .map_err(|e| BenchError::Setup(format!("the no-op handler's address: {e}")))?;
    let app = Router::new().route("/v1/allocations", route_post(allocate));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((format!("http://{addr}"), task))
}

/// Send `requests` single-unit allocation bodies from `clients` keep-alive clients to the
/// no-op handler, the flash sale's loop against allot.
pub async fn noop_ceiling(clients: usize, requests: u64) -> Result<Ceiling, BenchError> {
    let (url, task) = serve_noop().await?;
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let issued = Arc::new(AtomicU64::new(0));
    let cpu_before = process_cpu_us();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients.max(1) {
        let (client, issued, url) = (client.clone(), issued.clone(), format!("{url}/v1/allocations"));
        tasks.push(tokio::spawn(async move {
            let mut hist = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
            while issued.fetch_add(1, Ordering::Relaxed) < requests {
                let body = json!({"lines": [{"sku": "noop", "quantity": 1}], "strategy": "batched"});
                let t0 = Instant::now();
                let (status, _) = post(&client, &url, &body).await?;
                hist.saturating_record(t0.elapsed().as_micros() as u64);
                if status != 201 {
                    return Err(BenchError::Setup(format!("the no-op handler answered {status}")));
                }
            }
            Ok(hist)
        }));
    }
    let mut hist = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
    for t in tasks {
        let h = t.await.map_err(|e| BenchError::Setup(e.to_string()))??;
        let _ = hist.add(h);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let cpu = process_cpu_us()
        .zip(cpu_before)
        .map(|(a, b)| (a - b) as f64 / requests as f64);
    task.abort();
    Ok(Ceiling {
        requests_per_s: requests as f64 / elapsed,
        latency_us_p99: hist.value_at_quantile(0.99),
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
