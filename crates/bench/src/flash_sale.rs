//! `allot bench flash-sale`: N single-unit allocations from C concurrent clients against a
//! SKU with stock k (or M SKUs with `--spread M`), per strategy.

use crate::error::BenchError;
use crate::load::{post, resolve_strategies, run_id};
use futures::stream::{self, StreamExt, TryStreamExt};
use hdrhistogram::Histogram;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Options of one flash-sale run.
#[derive(Debug, Clone)]
pub struct FlashSaleOptions {
    /// Base URL of a running server, e.g. `http://127.0.0.1:8080` (loopback only).
    pub url: String,
    /// Strategies to run, or `["all"]` for every strategy the server's backend has.
    pub strategies: Vec<String>,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Stock per SKU (k).
    pub stock: i64,
    /// Total allocation requests (N).
    pub requests: u64,
    /// Number of SKUs the load is spread over (M); 1 is one hot SKU.
    pub spread: u32,
    /// Buckets of the SKUs created for the `segmented` strategy.
    pub segmented_buckets: u32,
    /// Show a progress bar on a terminal.
    pub progress: bool,
    /// An API key to send (`Authorization: Bearer …`) to a server that requires one.
    pub api_key: Option<String>,
}

/// Figures and checks of one strategy's run.
#[derive(Debug, Clone, Serialize)]
pub struct StrategyReport {
    /// Strategy name.
    pub strategy: String,
    /// Requests sent (N).
    pub requests: u64,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Stock per SKU (k).
    pub stock: i64,
    /// SKUs (M).
    pub spread: u32,
    /// Wall time of the load phase, seconds.
    pub elapsed_s: f64,
    /// Requests per second.
    pub requests_per_s: f64,
    /// Successful allocations per second.
    pub allocations_per_s: f64,
    /// Latency percentiles of all requests, microseconds.
    pub latency_us_p50: u64,
    /// 95th percentile, µs.
    pub latency_us_p95: u64,
    /// 99th percentile, µs.
    pub latency_us_p99: u64,
    /// Maximum, µs.
    pub latency_us_max: u64,
    /// CPU of this process per request during the load, µs: the load generator, and the
    /// server too when it runs in-process (no `--url`); `None` off Linux.
    pub cpu_us_per_request: Option<f64>,
    /// 201 answers.
    pub successes: u64,
    /// Non-201 answers by error code (`http_NNN` when the body had none).
    pub rejections: BTreeMap<String, u64>,
    /// What a correct store must give: sum over SKUs of min(requests to it, k).
    pub expected_successes: u64,
    /// Units sold beyond the stock (only `naive` should ever have any).
    pub oversold: u64,
    /// Whether `allot audit` found every SKU of this run clean.
    pub audit_clean: bool,
    /// Every invariant that broke, in words (empty when all hold).
    pub violations: Vec<String>,
    /// SKUs whose final `on_hand` could not be read (every one of [`FINAL_READ_ATTEMPTS`]
    /// failed): what they hold is unverified, which is a failed read, not a broken
    /// invariant.
    pub unread_skus: u64,
    /// Whether the strategy is unsafe by design (`naive`): its violations are expected.
    pub unsafe_strategy: bool,
}

/// Tries of each final read of a SKU (100 ms apart) before it counts as unread.
pub const FINAL_READ_ATTEMPTS: u32 = 3;

/// The final `on_hand` of `sku`: `None` when no attempt got a `200` with a number.
async fn final_on_hand(client: &reqwest::Client, url: &str, sku: &str) -> Option<i64> {
    for attempt in 0..FINAL_READ_ATTEMPTS {
        if attempt > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        let Ok(resp) = client.get(format!("{url}/v1/skus/{sku}")).send().await else {
            continue;
        };
        if resp.status() != reqwest::StatusCode::OK {
            continue;
        }
        if let Some(n) = resp.json::<Value>().await.ok().and_then(|v| v["on_hand"].as_i64()) {
            return Some(n);
        }
    }
    None
}

/// Run the flash sale for every strategy asked, one after the other, each on fresh SKUs.
/// A strategy the server refuses with `unsupported_strategy` (e.g. `naive` without
/// `--allow-unsafe-strategies`) is skipped with a note on stderr.
pub async fn flash_sale(opts: &FlashSaleOptions) -> Result<Vec<StrategyReport>, BenchError> {
    let mut headers = reqwest::header::HeaderMap::new();
    if let Some(key) = &opts.api_key {
        let value = reqwest::header::HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| BenchError::Setup("the API key is not a header value".into()))?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .timeout(Duration::from_secs(60))
        .default_headers(headers)
        .build()?;
    let run_id = run_id();
    let mut reports = Vec::new();
    for strategy in resolve_strategies(
        &client,
        &opts.url,
        &opts.strategies,
        &["atomic", "pessimistic", "optimistic", "segmented", "batched", "naive"],
    )
    .await?
    {
        match run_one(&client, opts, &strategy, &run_id).await? {
            Some(r) => reports.push(r),
            None => eprintln!("skipping {strategy}: the server does not support it"),
        }
    }
    Ok(reports)
}

async fn run_one(
    client: &reqwest::Client,
    opts: &FlashSaleOptions,
    strategy: &str,
    run_id: &str,
) -> Result<Option<StrategyReport>, BenchError> {
    let m = opts.spread.max(1) as usize;
    let skus: Arc<Vec<String>> = Arc::new((0..m).map(|i| format!("flash-{run_id}-{strategy}-{i}")).collect());
    create_skus(client, opts, &skus, strategy).await?;
    // Probe: does the server run this strategy at all? (Costs nothing: quantity beyond stock.)
    let probe = json!({"lines": [{"sku": skus[0], "quantity": opts.stock + 1}], "strategy": strategy});
    let (status, body) = post(client, &format!("{}/v1/allocations", opts.url), &probe).await?;
    if status == 400 && body["error"]["code"] == "unsupported_strategy" {
        return Ok(None);
    }
    let cpu_before = crate::reference::process_cpu_us();
    let run = hammer(client, opts, strategy, &skus).await?;
    let cpu_us_per_request = crate::reference::process_cpu_us()
        .zip(cpu_before)
        .map(|(a, b)| (a - b) as f64 / opts.requests.max(1) as f64);
    // Final on_hand of every SKU, C at a time, in SKU order.
    let final_on_hand: Vec<Option<i64>> = stream::iter(skus.iter())
        .map(|sku| final_on_hand(client, &opts.url, sku))
        .buffered(opts.clients.max(1))
        .collect()
        .await;
    let unread_skus = final_on_hand.iter().filter(|v| v.is_none()).count() as u64;
    let n = opts.requests;
    let Invariants {
        successes,
        expected,
        oversold,
        mut violations,
    } = check_invariants(&run.per_sku_ok, &final_on_hand, n, opts.stock, &run.rejections);
    let audit_clean = audit_clean(
        client,
        &opts.url,
        &format!("flash-{run_id}-{strategy}-"),
        &mut violations,
    )
    .await?;
    let (hist, elapsed) = (&run.hist, run.elapsed_s);
    let pct = |q: f64| hist.value_at_quantile(q);
    Ok(Some(StrategyReport {
        strategy: strategy.to_string(),
        requests: n,
        clients: opts.clients,
        stock: opts.stock,
        spread: m as u32,
        elapsed_s: elapsed,
        requests_per_s: n as f64 / elapsed,
        allocations_per_s: successes as f64 / elapsed,
        latency_us_p50: pct(0.50),
        latency_us_p95: pct(0.95),
        latency_us_p99: pct(0.99),
        latency_us_max: hist.max(),
        cpu_us_per_request,
        successes,
        rejections: run.rejections,
        expected_successes: expected,
        oversold,
        audit_clean,
        violations,
        unread_skus,
        unsafe_strategy: allot_core::strategy::is_unsafe_name(strategy),
    }))
}

/// Create the run's SKUs, C at a time (segmented: `segmented_buckets` buckets each).
async fn create_skus(
    client: &reqwest::Client,
    opts: &FlashSaleOptions,
    skus: &[String],
    strategy: &str,
) -> Result<(), BenchError> {
    let buckets = if strategy == "segmented" {
        opts.segmented_buckets.max(1)
    } else {
        1
    };
    let skus_url = format!("{}/v1/skus", opts.url);
    stream::iter(skus.iter().map(Ok))
        .try_for_each_concurrent(opts.clients.max(1), |sku| {
            let body = json!({"sku": sku, "on_hand": opts.stock, "buckets": buckets});
            let (client, url) = (client, &skus_url);
            async move {
                match post(client, url, &body).await? {
                    (201, _) => Ok(()),
                    (status, body) => Err(BenchError::Setup(format!("create sku: {status} {body}"))),
                }
            }
        })
        .await
}

/// What the clients of one run saw.
struct Run {
    hist: Histogram<u64>,
    rejections: BTreeMap<String, u64>,
    per_sku_ok: Vec<u64>,
    elapsed_s: f64,
}

/// `requests` allocations of one unit from `clients` tasks, round robin over the SKUs.
async fn hammer(
    client: &reqwest::Client,
    opts: &FlashSaleOptions,
    strategy: &str,
    skus: &Arc<Vec<String>>,
) -> Result<Run, BenchError> {
    let bar = progress_bar(opts.progress, opts.requests, strategy);
    let per_sku_ok: Arc<Vec<AtomicU64>> = Arc::new((0..skus.len()).map(|_| AtomicU64::new(0)).collect());
    let issued = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..opts.clients.max(1) {
        let client = Client {
            http: client.clone(),
            url: format!("{}/v1/allocations", opts.url),
            skus: skus.clone(),
            strategy: strategy.to_string(),
            issued: issued.clone(),
            per_sku_ok: per_sku_ok.clone(),
            bar: bar.clone(),
        };
        let n = opts.requests;
        tasks.push(tokio::spawn(async move { client.run(n).await }));
    }
    let mut hist = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
    let mut rejections: BTreeMap<String, u64> = BTreeMap::new();
    for t in tasks {
        let (h, r) = t.await.map_err(|e| BenchError::Setup(e.to_string()))?;
        hist.add(h).map_err(|e| BenchError::Setup(e.to_string()))?;
        for (k, v) in r {
            *rejections.entry(k).or_default() += v;
        }
    }
    let elapsed_s = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let per_sku_ok = per_sku_ok.iter().map(|a| a.load(Ordering::Relaxed)).collect();
    Ok(Run {
        hist,
        rejections,
        per_sku_ok,
        elapsed_s,
    })
}

fn progress_bar(on: bool, n: u64, label: &str) -> ProgressBar {
    if !on {
        return ProgressBar::hidden();
    }
    let b = ProgressBar::new(n);
    b.set_style(
        ProgressStyle::with_template("{prefix:>12} {bar:40} {pos}/{len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    b.set_prefix(label.to_string());
    b
}

/// One client task of a run.
struct Client {
    http: reqwest::Client,
    url: String,
    skus: Arc<Vec<String>>,
    strategy: String,
    issued: Arc<AtomicU64>,
    per_sku_ok: Arc<Vec<AtomicU64>>,
    bar: ProgressBar,
}

impl Client {
    /// Take request numbers until `n` are issued; latencies and refusals by code.
    async fn run(self, n: u64) -> (Histogram<u64>, BTreeMap<String, u64>) {
        let mut hist = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("valid bounds");
        let mut rejections: BTreeMap<String, u64> = BTreeMap::new();
        loop {
            let i = self.issued.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                return (hist, rejections);
            }
            let s = (i % self.skus.len() as u64) as usize;
            let body = json!({"lines": [{"sku": self.skus[s], "quantity": 1}], "strategy": self.strategy});
            let t0 = Instant::now();
            let result = post(&self.http, &self.url, &body).await;
            hist.saturating_record(t0.elapsed().as_micros() as u64);
            self.bar.inc(1);
            match result {
                Ok((201, _)) => {
                    self.per_sku_ok[s].fetch_add(1, Ordering::Relaxed);
                }
                Ok((status, body)) => {
                    let code = body["error"]["code"]
                        .as_str()
                        .map(String::from)
                        .unwrap_or(format!("http_{status}"));
                    *rejections.entry(code).or_default() += 1;
                }
                Err(e) => *rejections.entry(format!("client_error: {e}")).or_default() += 1,
            }
        }
    }
}

/// Whether `/v1/audit` is clean for this run's SKUs (those starting with `prefix`); adds a
/// violation when not.
pub(crate) async fn audit_clean(
    client: &reqwest::Client,
    url: &str,
    prefix: &str,
    violations: &mut Vec<String>,
) -> Result<bool, BenchError> {
    let audit: Value = client.get(format!("{url}/v1/audit")).send().await?.json().await?;
    let bad: Vec<&Value> = audit["violations"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter(|v| v["sku"].as_str().is_some_and(|s| s.starts_with(prefix)))
                .collect()
        })
        .unwrap_or_default();
    let clean = bad.is_empty() && audit["violations"].is_array();
    if !clean {
        violations.push(format!(
            "audit: {} violations, e.g. {}",
            bad.len(),
            bad.first().map(|v| v.to_string()).unwrap_or_default()
        ));
    }
    Ok(clean)
}

/// What the counters of one run say about the invariants (the audit is checked apart).
#[derive(Debug, PartialEq, Eq)]
struct Invariants {
    successes: u64,
    expected: u64,
    oversold: u64,
    violations: Vec<String>,
}

/// Check one run: request `i` went to SKU `i % M`, each SKU started with `stock` units, and
/// `per_sku_ok[s]` requests to SKU `s` got a 201. A correct store gives every SKU exactly
/// min(requests to it, stock) successes, ends with `stock - successes` on hand, and answers
/// no request with a 5xx (or not at all).
fn check_invariants(
    per_sku_ok: &[u64],
    final_on_hand: &[Option<i64>],
    requests: u64,
    stock: i64,
    rejections: &BTreeMap<String, u64>,
) -> Invariants {
    let m = per_sku_ok.len().max(1) as u64;
    let stock_units = stock.max(0) as u64;
    let mut violations = Vec::new();
    let successes: u64 = per_sku_ok.iter().sum();
    let (mut expected, mut oversold) = (0u64, 0u64);
    for (s, ok) in per_sku_ok.iter().enumerate() {
        let sent = requests / m + u64::from((s as u64) < requests % m);
        expected += sent.min(stock_units);
        oversold += ok.saturating_sub(stock_units);
    }
    // A request answered `409 contention` (optimistic giving up) took nothing and may leave
    // stock unsold: it can lower the successes, never raise them.
    let contention = rejections.get("contention").copied().unwrap_or(0);
    if successes > expected || successes + contention < expected {
        violations.push(format!(
            "successes {successes} != min(N, k) {expected} (contention refusals: {contention})"
        ));
    }
    let errors: u64 = rejections
        .iter()
        .filter(|(k, _)| {
            matches!(k.as_str(), "internal" | "unavailable") || k.starts_with("http_5") || k.starts_with("client_error")
        })
        .map(|(_, v)| v)
        .sum();
    if errors > 0 {
        violations.push(format!("{errors} server or client errors"));
    }
    // An unread SKU (`None`) is unverified, not a mismatch: the caller reports it apart.
    let mismatches = per_sku_ok
        .iter()
        .zip(final_on_hand)
        .filter(|(ok, on_hand)| on_hand.is_some_and(|n| n != stock - **ok as i64))
        .count();
    if mismatches > 0 {
        violations.push(format!("{mismatches} SKUs where final on_hand != k - successes"));
    }
    if oversold > 0 {
        violations.push(format!("oversold {oversold} units"));
    }
    Invariants {
        successes,
        expected,
        oversold,
        violations,
    }
}

/// A side-by-side table of reports, one row per strategy (Markdown, so it pastes into notes).
pub fn render_table(reports: &[StrategyReport]) -> String {
    let mut out = String::from(
        "| strategy | req/s | alloc/s | p50 ms | p95 ms | p99 ms | max ms | ok | expected | rejected | invariants |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n",
    );
    let ms = |us: u64| format!("{:.2}", us as f64 / 1000.0);
    for r in reports {
        let rejected = if r.rejections.is_empty() {
            "-".to_string()
        } else {
            r.rejections
                .iter()
                .map(|(k, v)| format!("{k}:{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let inv = if r.violations.is_empty() && r.unread_skus > 0 {
            format!(
                "UNVERIFIED: the final on_hand of {} SKUs could not be read",
                r.unread_skus
            )
        } else if r.violations.is_empty() {
            "ok".to_string()
        } else if r.unsafe_strategy {
            format!("BROKEN as expected: {}", r.violations.join("; "))
        } else {
            format!("BROKEN: {}", r.violations.join("; "))
        };
        out.push_str(&format!(
            "| {} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            r.strategy,
            r.requests_per_s,
            r.allocations_per_s,
            ms(r.latency_us_p50),
            ms(r.latency_us_p95),
            ms(r.latency_us_p99),
            ms(r.latency_us_max),
            r.successes,
            r.expected_successes,
            rejected,
            inv
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejections(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn a_correct_run_passes() {
        // 10 requests over 2 SKUs of stock 3: 5 each, 3 sold each.
        let inv = check_invariants(
            &[3, 3],
            &[Some(0), Some(0)],
            10,
            3,
            &rejections(&[("insufficient_stock", 4)]),
        );
        assert_eq!((inv.successes, inv.expected, inv.oversold), (6, 6, 0));
        assert!(inv.violations.is_empty(), "{:?}", inv.violations);
        // Uneven split: 5 requests over 2 SKUs of stock 10 -> 3 and 2.
        let inv = check_invariants(&[3, 2], &[Some(7), Some(8)], 5, 10, &BTreeMap::new());
        assert!(inv.violations.is_empty(), "{:?}", inv.violations);
    }

    #[test]
    fn each_broken_invariant_is_reported() {
        let inv = check_invariants(&[5], &[Some(0)], 5, 3, &BTreeMap::new());
        assert_eq!(inv.oversold, 2);
        assert_eq!(inv.violations.len(), 3, "{:?}", inv.violations); // count, on_hand, oversold
        let inv = check_invariants(&[2], &[Some(1)], 5, 3, &rejections(&[("insufficient_stock", 3)]));
        assert_eq!(
            inv.violations,
            vec!["successes 2 != min(N, k) 3 (contention refusals: 0)"]
        );
        // Contention refusals explain a shortfall (optimistic gave up; nothing was taken)...
        let inv = check_invariants(
            &[2],
            &[Some(1)],
            5,
            3,
            &rejections(&[("contention", 1), ("insufficient_stock", 2)]),
        );
        assert!(inv.violations.is_empty(), "{:?}", inv.violations);
        // ...but not more of one than there were refusals.
        let inv = check_invariants(
            &[1],
            &[Some(2)],
            5,
            3,
            &rejections(&[("contention", 1), ("insufficient_stock", 3)]),
        );
        assert_eq!(inv.violations.len(), 1, "{:?}", inv.violations);
        let inv = check_invariants(&[3], &[Some(0)], 5, 3, &rejections(&[("http_500", 2)]));
        assert_eq!(inv.violations, vec!["2 server or client errors"]);
        let inv = check_invariants(&[3, 3], &[None, Some(1)], 6, 3, &BTreeMap::new());
        assert_eq!(
            inv.violations,
            vec!["1 SKUs where final on_hand != k - successes"],
            "an unread SKU is no mismatch; a wrong figure is"
        );
        let inv = check_invariants(&[3], &[None], 3, 3, &BTreeMap::new());
        assert!(
            inv.violations.is_empty(),
            "a failed read breaks nothing: {:?}",
            inv.violations
        );
    }
}
