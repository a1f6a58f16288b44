//! `allot bench console`: whether the console stays usable at scale. It fills a server with J
//! jobs over Q queues (100 of them dead letters) and S SKUs (one in ten sold out), then asks
//! each API call the console's pages make, one at a time as one person's browser would,
//! `samples` times each, and reports the latency percentiles beside the same number of
//! `GET /livez` (the no-op reference) in the same run. The overview (`GET /v1/stats`) is
//! the figure the issue names: p99 under 100 ms at a million jobs.

use crate::error::BenchError;
use hdrhistogram::Histogram;
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Instant;

/// Jobs per enqueue request while filling (within the default `max_batch_insert`).
const ENQUEUE_BATCH: u64 = 10_000;
/// Concurrent requests while filling.
const FILL_CLIENTS: usize = 16;
/// Dead letters made in the first queue.
const DEAD_LETTERS: usize = 100;
/// The p99 the overview must stay under, µs.
pub const OVERVIEW_P99_TARGET_US: u64 = 100_000;

/// What to fill and how often to ask.
#[derive(Debug, Clone)]
pub struct ConsoleOptions {
    /// The server (loopback).
    pub url: String,
    /// Jobs (J).
    pub jobs: u64,
    /// Queues (Q) the jobs are spread over.
    pub queues: u32,
    /// SKUs (S).
    pub skus: u32,
    /// Requests per call measured.
    pub samples: u32,
}

/// One call of a console page.
#[derive(Debug, Clone, Serialize)]
pub struct CallReport {
    /// The page that makes it.
    pub page: &'static str,
    /// The request.
    pub request: String,
    /// Median latency, µs.
    pub latency_us_p50: u64,
    /// 99th percentile, µs.
    pub latency_us_p99: u64,
    /// Slowest, µs.
    pub latency_us_max: u64,
    /// p99 over the no-op reference's p99.
    pub p99_ratio: f64,
}

/// The filled server's figures.
#[derive(Debug, Clone, Serialize)]
pub struct ConsoleReport {
    /// Seconds the filling took.
    pub fill_s: f64,
    /// The calls, the reference (`GET /livez`) first.
    pub calls: Vec<CallReport>,
}

async fn post(c: &reqwest::Client, url: &str, body: Value) -> Result<Value, BenchError> {
    let resp = c.post(url).json(&body).send().await?;
    let status = resp.status();
    let v: Value = resp.json().await.unwrap_or(Value::Null);
    if !status.is_success() {
        return Err(BenchError::Setup(format!("POST {url}: {status} {v}")));
    }
    Ok(v)
}

/// Run `f(i)` for `0..n` with at most [`FILL_CLIENTS`] in flight.
async fn each<F, Fut>(n: u64, f: F) -> Result<(), BenchError>
where
    F: Fn(u64) -> Fut,
    Fut: std::future::Future<Output = Result<(), BenchError>>,
{
    use futures::stream::{self, StreamExt, TryStreamExt};
    stream::iter(0..n)
        .map(&f)
        .buffer_unordered(FILL_CLIENTS)
        .try_collect::<()>()
        .await
}

async fn fill(c: &reqwest::Client, o: &ConsoleOptions) -> Result<(), BenchError> {
    let requests = o.jobs.div_ceil(ENQUEUE_BATCH);
    each(requests, |i| async move {
        let n = ENQUEUE_BATCH.min(o.jobs - i * ENQUEUE_BATCH);
        let jobs: Vec<Value> = (0..n)
            .map(|j| json!({"payload": {"order": i * ENQUEUE_BATCH + j}, "priority": 2, "tags": ["fill"]}))
            .collect();
        let url = format!("{}/v1/queues/q{}/jobs", o.url, i % u64::from(o.queues.max(1)));
        post(c, &url, json!({ "jobs": jobs })).await.map(|_| ())
    })
    .await?;
    each(u64::from(o.skus), |i| async move {
        let sku = json!({"sku": format!("SKU-{i:06}"), "on_hand": i % 10});
        post(c, &format!("{}/v1/skus", o.url), sku).await.map(|_| ())
    })
    .await?;
    dead_letters(c, &o.url).await
}

/// [`DEAD_LETTERS`] jobs of one attempt in `q0`, claimed first (priority 1) and failed.
async fn dead_letters(c: &reqwest::Client, url: &str) -> Result<(), BenchError> {
    let jobs: Vec<Value> = (0..DEAD_LETTERS)
        .map(|i| json!({"payload": {"dead": i}, "priority": 1, "max_attempts": 1}))
        .collect();
    post(c, &format!("{url}/v1/queues/q0/jobs"), json!({ "jobs": jobs })).await?;
    let claimed = post(c, &format!("{url}/v1/queues/q0/claims"), json!({"max": DEAD_LETTERS})).await?;
    for j in claimed["jobs"].as_array().into_iter().flatten() {
        let fail = json!({"lease_token": j["lease_token"], "error": "bench"});
        post(c, &format!("{url}/v1/jobs/{}/fail", j["id"]), fail).await?;
    }
    Ok(())
}

/// `samples` GETs of `path`, one at a time: their latency histogram (µs).
async fn measure(c: &reqwest::Client, url: &str, path: &str, samples: u32) -> Result<Histogram<u64>, BenchError> {
    let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("static bounds");
    for _ in 0..samples {
        let start = Instant::now();
        let resp = c.get(format!("{url}{path}")).send().await?;
        let status = resp.status();
        let _ = resp.bytes().await?;
        if !status.is_success() {
            return Err(BenchError::Setup(format!("GET {path}: {status}")));
        }
        h.saturating_record(u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX));
    }
    Ok(h)
}

/// What each page asks, in the order of the pages.
fn calls() -> Vec<(&'static str, &'static str)> {
    vec![
        ("reference", "/livez"),
        ("overview", "/v1/stats"),
        ("queues", "/v1/queues?limit=200"),
        ("queue", "/v1/queues/q0"),
        ("queue: jobs", "/v1/queues/q0/jobs?limit=50"),
        ("queue: dead letters", "/v1/queues/q0/jobs?state=discarded&limit=50"),
        ("queue: by tag", "/v1/queues/q1/jobs?tag=fill&limit=50"),
        ("queue: bulk count", "/v1/queues/q0/jobs/bulk"),
        ("stock", "/v1/skus?limit=50"),
        ("stock: search", "/v1/skus?prefix=SKU-0999&limit=50"),
        ("stock: sold out", "/v1/skus?available_below=1&limit=50"),
        ("events", "/v1/events?after=0&limit=50"),
    ]
}

/// Fill the server at `o.url`, then measure every call.
pub async fn console_bench(o: &ConsoleOptions) -> Result<ConsoleReport, BenchError> {
    let c = reqwest::Client::new();
    let started = Instant::now();
    fill(&c, o).await?;
    let fill_s = started.elapsed().as_secs_f64();
    let mut out: Vec<CallReport> = Vec::new();
    let mut reference_p99 = 1;
    for (page, path) in calls() {
        let h = if page == "queue: bulk count" {
            measure_bulk_count(&c, &o.url, o.samples).await?
        } else {
            measure(&c, &o.url, path, o.samples).await?
        };
        if page == "reference" {
            reference_p99 = h.value_at_quantile(0.99).max(1);
        }
        out.push(CallReport {
            page,
            request: path.to_string(),
            latency_us_p50: h.value_at_quantile(0.5),
            latency_us_p99: h.value_at_quantile(0.99),
            latency_us_max: h.max(),
            p99_ratio: h.value_at_quantile(0.99) as f64 / reference_p99 as f64,
        });
    }
    Ok(ConsoleReport { fill_s, calls: out })
}

/// The bulk form's count: a dry run of a retry of the dead letters.
async fn measure_bulk_count(c: &reqwest::Client, url: &str, samples: u32) -> Result<Histogram<u64>, BenchError> {
    let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3).expect("static bounds");
    let body = json!({"action": "retry", "filter": {"state": "discarded"}, "dry_run": true});
    for _ in 0..samples {
        let start = Instant::now();
        post(c, &format!("{url}/v1/queues/q0/jobs/bulk"), body.clone()).await?;
        h.saturating_record(u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX));
    }
    Ok(h)
}

/// A Markdown table of the report, and the overview's verdict against [`OVERVIEW_P99_TARGET_US`].
pub fn render_console_table(r: &ConsoleReport) -> String {
    let ms = |us: u64| format!("{:.1}", us as f64 / 1000.0);
    let mut s =
        String::from("| page | request | p50 ms | p99 ms | max ms | p99 / no-op |\n|---|---|---:|---:|---:|---:|\n");
    for c in &r.calls {
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {:.1}x |\n",
            c.page,
            c.request,
            ms(c.latency_us_p50),
            ms(c.latency_us_p99),
            ms(c.latency_us_max),
            c.p99_ratio
        ));
    }
    if let Some(o) = r.calls.iter().find(|c| c.page == "overview") {
        let verdict = if o.latency_us_p99 < OVERVIEW_P99_TARGET_US {
            "under"
        } else {
            "OVER"
        };
        s.push_str(&format!(
            "\noverview p99 {} ms: {verdict} the 100 ms target (filled in {:.0} s)\n",
            ms(o.latency_us_p99),
            r.fill_s
        ));
    }
    s
}
