//! The shared load driver of the `units` and `holds` benchmarks: C client tasks pull request
//! numbers from one counter until N, each request's latency goes into an HdrHistogram, and
//! every answer is tallied by outcome; a report row per run.

use crate::error::BenchError;
use hdrhistogram::Histogram;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// What one request (or one scripted flow of requests) ended with.
#[derive(Debug, Default)]
pub struct Sample {
    /// `ok`, an error code, or another label the workload chooses.
    pub outcome: String,
    /// Ids handed out (unit ids), for the "never twice" check.
    pub ids: Vec<i64>,
    /// Units this request took for good (0 when none).
    pub quantity: i64,
    /// The quantity it asked for.
    pub requested: i64,
}

/// Everything the clients of one run produced.
pub struct Collected {
    /// Latency of every request, µs.
    pub hist: Histogram<u64>,
    /// Requests per outcome.
    pub outcomes: BTreeMap<String, u64>,
    /// Every id handed out, in no order.
    pub ids: Vec<i64>,
    /// Sum of `quantity` over all requests.
    pub quantity: i64,
    /// Smallest `requested` among `insufficient_stock` answers.
    pub min_insufficient_request: Option<i64>,
    /// Wall time, seconds.
    pub elapsed_s: f64,
}

/// Figures and checks of one benchmark run.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// Workload name, e.g. `units/large`.
    pub workload: String,
    /// Strategy name.
    pub strategy: String,
    /// Concurrent clients.
    pub clients: usize,
    /// Requests (or flows) sent.
    pub requests: u64,
    /// Wall time of the load phase, seconds.
    pub elapsed_s: f64,
    /// Requests per second.
    pub requests_per_s: f64,
    /// Units taken for good per second.
    pub units_per_s: f64,
    /// Latency percentiles, µs.
    pub latency_us_p50: u64,
    /// 95th percentile, µs.
    pub latency_us_p95: u64,
    /// 99th percentile, µs.
    pub latency_us_p99: u64,
    /// Maximum, µs.
    pub latency_us_max: u64,
    /// Answers by outcome.
    pub outcomes: BTreeMap<String, u64>,
    /// Every invariant that broke, in words (empty when all hold).
    pub violations: Vec<String>,
}

impl LoadReport {
    /// A report row from what the clients collected.
    pub fn new(workload: &str, strategy: &str, clients: usize, c: &Collected, violations: Vec<String>) -> Self {
        let requests: u64 = c.outcomes.values().sum();
        LoadReport {
            workload: workload.into(),
            strategy: strategy.into(),
            clients,
            requests,
            elapsed_s: c.elapsed_s,
            requests_per_s: requests as f64 / c.elapsed_s.max(1e-9),
            units_per_s: c.quantity as f64 / c.elapsed_s.max(1e-9),
            latency_us_p50: c.hist.value_at_quantile(0.50),
            latency_us_p95: c.hist.value_at_quantile(0.95),
            latency_us_p99: c.hist.value_at_quantile(0.99),
            latency_us_max: c.hist.max(),
            outcomes: c.outcomes.clone(),
            violations,
        }
    }
}

/// How long a load generator keeps an idle connection for reuse: below `allot serve`'s
/// `--idle-timeout-ms` (10 s), so the generator never sends a request on a connection the
/// server is dropping as idle at that very instant (the keep-alive race every HTTP/1.1 client
/// meets with a server that closes idle connections; reqwest does not retry a POST that met
/// a closed connection, and the bench counted it as a client error: seen as `holds batched`
/// BROKEN with `error sending request`, after the strategies before had left connections
/// idle for about 10 s).
pub const POOL_IDLE: std::time::Duration = std::time::Duration::from_secs(5);

/// A `reqwest` client builder for load generators: [`POOL_IDLE`] set.
pub fn client_builder() -> reqwest::ClientBuilder {
    reqwest::Client::builder().pool_idle_timeout(POOL_IDLE)
}

/// Outcome counts that mean the server or the client failed: 5xx, `internal`,
/// `unavailable`, transport errors.
pub fn error_count(outcomes: &BTreeMap<String, u64>) -> u64 {
    outcomes
        .iter()
        .filter(|(k, _)| {
            matches!(k.as_str(), "internal" | "unavailable") || k.starts_with("http_5") || k.starts_with("client_error")
        })
        .map(|(_, v)| v)
        .sum()
}

/// The outcome label of an answer: `ok` for `ok_status`, else the error code (or `http_NNN`).
pub fn outcome_of(status: u16, body: &Value, ok_status: u16) -> String {
    if status == ok_status {
        "ok".into()
    } else {
        body["error"]["code"]
            .as_str()
            .map(String::from)
            .unwrap_or(format!("http_{status}"))
    }
}

/// Run `op(i)` for i in 0..n from `clients` concurrent tasks; a progress bar when `progress`.
pub async fn drive<F, Fut>(label: &str, clients: usize, n: u64, progress: bool, op: F) -> Result<Collected, BenchError>
where
    F: Fn(u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Sample> + Send,
{
    let bar = if progress {
        let b = ProgressBar::new(n);
        b.set_style(
            ProgressStyle::with_template("{prefix:>24} {bar:40} {pos}/{len} {per_sec} eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_prefix(label.to_string());
        b
    } else {
        ProgressBar::hidden()
    };
    let op = Arc::new(op);
    let issued = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients.max(1) {
        let (op, issued, bar) = (op.clone(), issued.clone(), bar.clone());
        tasks.push(tokio::spawn(async move {
            let mut hist = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
            let mut samples = Vec::new();
            loop {
                let i = issued.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let t0 = Instant::now();
                let s = op(i).await;
                hist.saturating_record(t0.elapsed().as_micros() as u64);
                bar.inc(1);
                samples.push(s);
            }
            (hist, samples)
        }));
    }
    let mut c = Collected {
        hist: Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
        outcomes: BTreeMap::new(),
        ids: Vec::new(),
        quantity: 0,
        min_insufficient_request: None,
        elapsed_s: 0.0,
    };
    for t in tasks {
        let (h, samples) = t.await.map_err(|e| BenchError::Setup(e.to_string()))?;
        c.hist.add(h).map_err(|e| BenchError::Setup(e.to_string()))?;
        for s in samples {
            if s.outcome == "insufficient_stock" {
                c.min_insufficient_request =
                    Some(c.min_insufficient_request.map_or(s.requested, |m| m.min(s.requested)));
            }
            *c.outcomes.entry(s.outcome).or_default() += 1;
            c.ids.extend(s.ids);
            c.quantity += s.quantity;
        }
    }
    c.elapsed_s = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    Ok(c)
}

/// Make the SKU `sku` with `on_hand` on the server at `url` (`201`, else a setup error).
pub(crate) async fn create_sku(client: &reqwest::Client, url: &str, sku: &str, on_hand: i64) -> Result<(), BenchError> {
    match post(
        client,
        &format!("{url}/v1/skus"),
        &serde_json::json!({"sku": sku, "on_hand": on_hand}),
    )
    .await?
    {
        (201, _) => Ok(()),
        (status, body) => Err(BenchError::Setup(format!("creating {sku}: {status} {body}"))),
    }
}

pub(crate) async fn post(client: &reqwest::Client, url: &str, body: &Value) -> Result<(u16, Value), BenchError> {
    let resp = client.post(url).json(body).send().await?;
    let status = resp.status().as_u16();
    Ok((status, resp.json::<Value>().await.unwrap_or(Value::Null)))
}

/// Send requests `0..n` from `clients` concurrent tasks, each taking the next index, on one
/// HTTP client (45 s timeout, longer than any bounded wait of the server): `one(client, i)`
/// sends request `i` and records what it got. A fault suite's driver.
pub(crate) async fn each_index<F, Fut>(clients: usize, n: u64, one: F)
where
    F: Fn(reqwest::Client, u64) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let next = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let client = client_builder()
        .timeout(std::time::Duration::from_secs(45))
        .build()
        .expect("a client");
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..clients.max(1) {
        let (client, next, one) = (client.clone(), next.clone(), one.clone());
        set.spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    return;
                }
                one(client.clone(), i).await;
            }
        });
    }
    while set.join_next().await.is_some() {}
}

pub(crate) async fn get(client: &reqwest::Client, url: &str) -> Result<Value, BenchError> {
    Ok(client.get(url).send().await?.json().await?)
}

pub(crate) fn run_id() -> String {
    format!(
        "{:x}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis()
    )
}

/// The strategies to run: `asked`, or for `all` every strategy of the server's backend
/// (`postgres` on PostgreSQL, `serialized` on SQLite), plus `redis_counter` and `redis_lock`
/// for the stock workloads (those whose list has `atomic`) when the server reports Redis up.
pub(crate) async fn resolve_strategies(
    client: &reqwest::Client,
    url: &str,
    asked: &[String],
    postgres: &[&str],
) -> Result<Vec<String>, BenchError> {
    if !asked.iter().any(|s| s == "all") {
        return Ok(asked.to_vec());
    }
    let health = get(client, &format!("{url}/healthz")).await?;
    Ok(match health["backend"].as_str() {
        Some("postgres") => {
            let mut all: Vec<String> = postgres.iter().map(|s| s.to_string()).collect();
            if postgres.contains(&"atomic") && health["redis"] == "ok" {
                all.extend(["redis_counter".to_string(), "redis_lock".to_string()]);
            }
            all
        }
        _ => vec!["serialized".to_string()],
    })
}

/// A side-by-side Markdown table of load reports.
pub fn render_load_table(reports: &[LoadReport]) -> String {
    let mut out = String::from(
        "| workload | strategy | req/s | units/s | p50 ms | p95 ms | p99 ms | max ms | outcomes | invariants |\n|---|---|---:|---:|---:|---:|---:|---:|---|---|\n",
    );
    let ms = |us: u64| format!("{:.2}", us as f64 / 1000.0);
    for r in reports {
        let outcomes = r
            .outcomes
            .iter()
            .map(|(k, v)| format!("{k}:{v}"))
            .collect::<Vec<_>>()
            .join(" ");
        let inv = if r.violations.is_empty() {
            "ok".to_string()
        } else {
            format!("BROKEN: {}", r.violations.join("; "))
        };
        out.push_str(&format!(
            "| {} | {} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} |\n",
            r.workload,
            r.strategy,
            r.requests_per_s,
            r.units_per_s,
            ms(r.latency_us_p50),
            ms(r.latency_us_p95),
            ms(r.latency_us_p99),
            ms(r.latency_us_max),
            outcomes,
            inv
        ));
    }
    out
}

/// `true` when no id occurs twice; else the first duplicate.
pub fn first_duplicate(ids: &[i64]) -> Option<i64> {
    let mut seen = std::collections::HashSet::with_capacity(ids.len());
    ids.iter().copied().find(|id| !seen.insert(*id))
}

/// Whether `GET /v1/audit` of the server at `url` finds nothing wrong with `sku`.
pub(crate) async fn audit_clean_for(client: &reqwest::Client, url: &str, sku: &str) -> Result<bool, BenchError> {
    let audit = get(client, &format!("{url}/v1/audit")).await?;
    Ok(audit["violations"]
        .as_array()
        .is_some_and(|v| v.iter().all(|v| v["sku"] != sku)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_errors() {
        assert_eq!(first_duplicate(&[1, 2, 3]), None);
        assert_eq!(first_duplicate(&[1, 2, 1]), Some(1));
        let o: BTreeMap<String, u64> = [("ok", 3), ("http_502", 1), ("contention", 2), ("internal", 1)]
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        assert_eq!(error_count(&o), 2);
        assert_eq!(outcome_of(201, &Value::Null, 201), "ok");
        assert_eq!(
            outcome_of(409, &serde_json::json!({"error": {"code": "contention"}}), 201),
            "contention"
        );
    }
}
