//! `allot bench batch`: allocations on one hot SKU through `POST /v1/batch`, from C
//! connections (one by default) each sending its batches one after the other, per strategy;
//! then the checks (successes == min(N, k), on_hand == k - successes, audit clean).

use crate::error::BenchError;
use crate::load::{resolve_strategies, run_id};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The strategy name that sends none (the server's default: `batched` on PostgreSQL,
/// `serialized` on SQLite).
pub const SERVER_DEFAULT: &str = "default";

/// Options of one batch run.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// Base URL of a running server (loopback only).
    pub url: String,
    /// Strategies to run, `["all"]`, or `["default"]` (none named: the server's default).
    pub strategies: Vec<String>,
    /// Connections (C).
    pub connections: usize,
    /// Batches in flight on each connection (S): 1 sends them one at a time over HTTP/1.1;
    /// more sends them as that many concurrent HTTP/2 streams over the connection (prior
    /// knowledge, as the server speaks both on one port).
    pub streams: usize,
    /// Operations per batch (at most the server's `max_batch_operations`).
    pub batch: usize,
    /// Allocations in all (N), rounded up to whole batches.
    pub requests: u64,
    /// Stock of the hot SKU (k).
    pub stock: i64,
}

/// Figures and checks of one strategy's run.
#[derive(Debug, Clone, Serialize)]
pub struct BatchReport {
    /// Strategy name.
    pub strategy: String,
    /// Connections (C).
    pub connections: usize,
    /// Batches in flight on each connection (S; HTTP/2 streams when above 1).
    pub streams: usize,
    /// Operations per batch.
    pub batch: usize,
    /// Allocations asked for (N).
    pub requests: u64,
    /// Successful allocations per second.
    pub allocations_per_s: f64,
    /// Latency of a whole batch, µs: median.
    pub batch_latency_us_p50: u64,
    /// 99th percentile, µs.
    pub batch_latency_us_p99: u64,
    /// 201 results.
    pub successes: u64,
    /// Other results by status and code.
    pub rejections: BTreeMap<String, u64>,
    /// Every invariant that broke, in words (empty when all hold).
    pub violations: Vec<String>,
    /// The reference's allocations per second (`allot bench batch` on PostgreSQL: the
    /// batch's own write statement through pgbench), when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pgbench_allocations_per_s: Option<f64>,
}

/// Run every strategy asked, one after the other, each on its own SKU.
pub async fn batch_bench(opts: &BatchOptions) -> Result<Vec<BatchReport>, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.connections)
        .timeout(Duration::from_secs(120))
        .build()?;
    let run_id = run_id();
    let mut reports = Vec::new();
    let all = ["atomic", "pessimistic", "optimistic", "segmented", "batched"];
    for strategy in resolve_strategies(&client, &opts.url, &opts.strategies, &all).await? {
        let sku = format!("batch-{run_id}-{strategy}");
        crate::load::create_sku(&client, &opts.url, &sku, opts.stock).await?;
        reports.push(run_one(&client, opts, &strategy, &sku).await?);
    }
    Ok(reports)
}

async fn run_one(
    client: &reqwest::Client,
    opts: &BatchOptions,
    strategy: &str,
    sku: &str,
) -> Result<BatchReport, BenchError> {
    let batch = opts.batch.max(1);
    let mut op = json!({"op": "allocate", "body": {"lines": [{"sku": sku, "quantity": 1}]}});
    if strategy != SERVER_DEFAULT {
        op["body"]["strategy"] = json!(strategy);
    }
    let body = json!({"operations": vec![op; batch]}).to_string();
    let batches = opts.requests.div_ceil(batch as u64);
    let next = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for client in connection_clients(client, opts)?
        .into_iter()
        .flat_map(|c| std::iter::repeat_n(c, opts.streams.max(1)))
    {
        let (body, next) = (body.clone(), next.clone());
        let url = format!("{}/v1/batch", opts.url);
        tasks.push(tokio::spawn(async move {
            let mut seen = Seen::default();
            while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < batches {
                let t = Instant::now();
                let resp = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body.clone())
                    .send()
                    .await?;
                let status = resp.status().as_u16();
                let bytes = resp.bytes().await?;
                seen.record(status, &bytes, t.elapsed())?;
            }
            Ok::<_, BenchError>(seen)
        }));
    }
    let mut all = Seen::default();
    for t in tasks {
        let seen = t
            .await
            .map_err(|e| BenchError::Setup(format!("a connection's task failed: {e}")))??;
        all.merge(seen);
    }
    let elapsed = started.elapsed().as_secs_f64();
    let violations = check(client, opts, sku, batches * batch as u64, &all).await?;
    Ok(BatchReport {
        strategy: strategy.to_string(),
        connections: opts.connections,
        streams: opts.streams.max(1),
        batch,
        requests: batches * batch as u64,
        allocations_per_s: all.successes as f64 / elapsed,
        batch_latency_us_p50: all.hist.value_at_quantile(0.5),
        batch_latency_us_p99: all.hist.value_at_quantile(0.99),
        successes: all.successes,
        rejections: all.rejections,
        violations,
        pgbench_allocations_per_s: None,
    })
}

/// One client per connection: with one stream each, the shared HTTP/1.1 client (pooled,
/// one connection per task); with more, a client of its own per connection speaking HTTP/2
/// with prior knowledge, which carries all of that connection's streams.
fn connection_clients(shared: &reqwest::Client, opts: &BatchOptions) -> Result<Vec<reqwest::Client>, BenchError> {
    (0..opts.connections.max(1))
        .map(|_| match opts.streams > 1 {
            false => Ok(shared.clone()),
            true => Ok(crate::load::client_builder()
                .http2_prior_knowledge()
                .timeout(Duration::from_secs(120))
                .build()?),
        })
        .collect()
}

/// The parts of a `POST /v1/batch` answer the run counts: each result's status and, when
/// refused, its error code.
#[derive(Deserialize)]
struct Answered {
    results: Vec<AnsweredOne>,
}

#[derive(Deserialize)]
struct AnsweredOne {
    status: u16,
    body: Option<AnsweredBody>,
}

#[derive(Deserialize)]
struct AnsweredBody {
    #[serde(default)]
    error: Option<AnsweredError>,
}

#[derive(Deserialize)]
struct AnsweredError {
    code: Option<String>,
}

/// What one connection's task saw.
struct Seen {
    hist: Histogram<u64>,
    successes: u64,
    rejections: BTreeMap<String, u64>,
}

impl Default for Seen {
    fn default() -> Self {
        Seen {
            hist: Histogram::new_with_bounds(1, 600_000_000, 3).expect("valid bounds"),
            successes: 0,
            rejections: BTreeMap::new(),
        }
    }
}

impl Seen {
    /// Count the results of one batch's answer, read into [`Answered`] (what is not counted
    /// is skipped, not built: the load generator shares the machine with the server).
    fn record(&mut self, status: u16, answer: &[u8], took: Duration) -> Result<(), BenchError> {
        if status != 200 {
            let text = String::from_utf8_lossy(answer);
            return Err(BenchError::Setup(format!("batch refused: {status} {text}")));
        }
        let answered: Answered = serde_json::from_slice(answer)
            .map_err(|e| BenchError::Setup(format!("a batch answer that is not the contract's: {e}")))?;
        let _ = self.hist.record(took.as_micros().max(1) as u64);
        for r in answered.results {
            match (r.status, r.body.and_then(|b| b.error).and_then(|e| e.code)) {
                (201, _) => self.successes += 1,
                (s, code) => {
                    *self
                        .rejections
                        .entry(format!("{s} {}", code.as_deref().unwrap_or("?")))
                        .or_default() += 1
                }
            }
        }
        Ok(())
    }

    fn merge(&mut self, other: Seen) {
        let _ = self.hist.add(&other.hist);
        self.successes += other.successes;
        for (k, v) in other.rejections {
            *self.rejections.entry(k).or_default() += v;
        }
    }
}

/// The exact outcome: successes == min(n, k), every refusal `insufficient_stock`, the SKU's
/// on_hand == k - successes, the audit clean.
async fn check(
    client: &reqwest::Client,
    opts: &BatchOptions,
    sku: &str,
    n: u64,
    seen: &Seen,
) -> Result<Vec<String>, BenchError> {
    let mut violations = Vec::new();
    let expected = n.min(opts.stock.max(0) as u64);
    if seen.successes != expected {
        violations.push(format!("{} successes, expected {expected}", seen.successes));
    }
    if seen.rejections.keys().any(|k| !k.ends_with("insufficient_stock")) {
        violations.push(format!("refusals other than insufficient_stock: {:?}", seen.rejections));
    }
    let on_hand = crate::load::get(client, &format!("{}/v1/skus/{sku}", opts.url)).await?["on_hand"].as_i64();
    if on_hand != Some(opts.stock - seen.successes as i64) {
        violations.push(format!(
            "on_hand {on_hand:?}, expected {}",
            opts.stock - seen.successes as i64
        ));
    }
    crate::flash_sale::audit_clean(client, &opts.url, sku, &mut violations).await?;
    Ok(violations)
}

/// The Markdown table of batch runs.
pub fn render_batch_table(reports: &[BatchReport]) -> String {
    let mut out = String::from(
        "| strategy | connections | streams | ops/batch | allocations/s | / pgbench | batch p50 ms | batch p99 ms | successes | refusals | invariants |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
    );
    for r in reports {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.0} | {} | {:.2} | {:.2} | {} | {:?} | {} |\n",
            r.strategy,
            r.connections,
            r.streams,
            r.batch,
            r.allocations_per_s,
            r.pgbench_allocations_per_s
                .filter(|p| *p > 0.0)
                .map_or("-".to_string(), |p| format!("{:.2}x", r.allocations_per_s / p)),
            r.batch_latency_us_p50 as f64 / 1000.0,
            r.batch_latency_us_p99 as f64 / 1000.0,
            r.successes,
            r.rejections,
            if r.violations.is_empty() {
                "ok".into()
            } else {
                r.violations.join("; ")
            },
        ));
    }
    out
}
