//! `allot bench auto`: a flash sale whose hot SKU moves. M SKUs; the requests come in P
//! phases, and in each phase `hot_share` of them go to that phase's hot SKU, the rest spread
//! over all. Run under `auto` and under each fixed strategy asked; then the checks (every
//! SKU's on_hand == k - its successes, audit clean).

use crate::error::BenchError;
use crate::load::{post, run_id};
use serde::Serialize;
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Options of the moving-hot-set workload.
#[derive(Debug, Clone)]
pub struct MovingOptions {
    /// Base URL of a running server (loopback only).
    pub url: String,
    /// Strategies, e.g. `auto`, `atomic`, `batched`.
    pub strategies: Vec<String>,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Requests in all (N).
    pub requests: u64,
    /// SKUs (M).
    pub skus: u32,
    /// Phases (P): the hot SKU moves P - 1 times.
    pub phases: u32,
    /// Share of a phase's requests that go to its hot SKU, 0..=1.
    pub hot_share: f64,
    /// Stock per SKU (k).
    pub stock: i64,
}

/// One strategy's figures.
#[derive(Debug, Clone, Serialize)]
pub struct MovingReport {
    /// Strategy.
    pub strategy: String,
    /// Successful allocations per second.
    pub allocations_per_s: f64,
    /// Latency percentiles, µs.
    pub latency_us_p50: u64,
    /// 99th percentile, µs.
    pub latency_us_p99: u64,
    /// 201 answers.
    pub successes: u64,
    /// Every invariant that broke (empty when all hold).
    pub violations: Vec<String>,
}

/// Run every strategy asked on fresh SKUs.
pub async fn moving_bench(opts: &MovingOptions) -> Result<Vec<MovingReport>, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let run = run_id();
    let mut reports = Vec::new();
    for strategy in &opts.strategies {
        let skus: Arc<Vec<String>> = Arc::new(
            (0..opts.skus.max(1))
                .map(|i| format!("moving-{run}-{strategy}-{i}"))
                .collect(),
        );
        for sku in skus.iter() {
            crate::load::create_sku(&client, &opts.url, sku, opts.stock).await?;
        }
        reports.push(run_one(&client, opts, strategy, &skus).await?);
    }
    Ok(reports)
}

/// The SKU of request `i`: its phase's hot SKU for `hot_share` of them (a fixed pattern,
/// so every strategy sees the same sequence), else one of all by a hash of `i`.
fn sku_of(i: u64, opts: &MovingOptions) -> usize {
    let m = u64::from(opts.skus.max(1));
    let per_phase = opts.requests.div_ceil(u64::from(opts.phases.max(1))).max(1);
    let phase = i / per_phase;
    let mixed = allot_core::strategy::fnv1a_64(&i.to_le_bytes());
    if (mixed % 1000) as f64 / 1000.0 < opts.hot_share {
        ((phase * 7919) % m) as usize
    } else {
        ((mixed >> 10) % m) as usize
    }
}

async fn run_one(
    client: &reqwest::Client,
    opts: &MovingOptions,
    strategy: &str,
    skus: &Arc<Vec<String>>,
) -> Result<MovingReport, BenchError> {
    let ok: Arc<Vec<AtomicU64>> = Arc::new(skus.iter().map(|_| AtomicU64::new(0)).collect());
    let (http, url): (_, Arc<str>) = (client.clone(), format!("{}/v1/allocations", opts.url).into());
    let (shared, counted, order, strategy_name) = (skus.clone(), ok.clone(), opts.clone(), strategy.to_string());
    let run = crate::load::drive(strategy, opts.clients, opts.requests, false, move |i| {
        let s = sku_of(i, &order);
        let body = json!({"lines": [{"sku": shared[s], "quantity": 1}], "strategy": strategy_name});
        let (http, url, counted) = (http.clone(), url.clone(), counted.clone());
        async move {
            let outcome = match post(&http, &url, &body).await {
                Ok((status, answer)) => crate::load::outcome_of(status, &answer, 201),
                Err(e) => format!("client_error: {e}"),
            };
            if outcome == "ok" {
                counted[s].fetch_add(1, Ordering::Relaxed);
            }
            crate::load::Sample {
                outcome,
                ..Default::default()
            }
        }
    })
    .await?;
    let (hist, elapsed) = (&run.hist, run.elapsed_s);
    let mut violations: Vec<String> = run
        .outcomes
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "ok" | "insufficient_stock"))
        .map(|(k, n)| format!("{n} answers {k}"))
        .collect();
    let mut successes = 0;
    for (sku, n) in skus.iter().zip(ok.iter()) {
        let n = n.load(Ordering::Relaxed);
        successes += n;
        let on_hand = crate::load::get(client, &format!("{}/v1/skus/{sku}", opts.url)).await?["on_hand"].as_i64();
        if on_hand != Some(opts.stock - n as i64) {
            violations.push(format!(
                "{sku}: on_hand {on_hand:?} after {n} successes of {}",
                opts.stock
            ));
        }
    }
    let prefix = skus[0].trim_end_matches(|c: char| c.is_ascii_digit());
    crate::flash_sale::audit_clean(client, &opts.url, prefix, &mut violations).await?;
    Ok(MovingReport {
        strategy: strategy.to_string(),
        allocations_per_s: successes as f64 / elapsed,
        latency_us_p50: hist.value_at_quantile(0.5),
        latency_us_p99: hist.value_at_quantile(0.99),
        successes,
        violations,
    })
}

/// The Markdown table of the runs.
pub fn render_moving_table(reports: &[MovingReport]) -> String {
    let mut out = String::from(
        "| strategy | allocations/s | p50 ms | p99 ms | successes | invariants |\n|---|---:|---:|---:|---:|---|\n",
    );
    for r in reports {
        out.push_str(&format!(
            "| {} | {:.0} | {:.2} | {:.2} | {} | {} |\n",
            r.strategy,
            r.allocations_per_s,
            r.latency_us_p50 as f64 / 1000.0,
            r.latency_us_p99 as f64 / 1000.0,
            r.successes,
            if r.violations.is_empty() {
                "ok".into()
            } else {
                r.violations.join("; ")
            },
        ));
    }
    out
}
