//! `allot bench holds`: C clients each run flows of hold → confirm (50 %), release (30 %)
//! or abandon (20 %, the hold expires), per stock strategy, then the conservation check:
//! once every abandoned hold has expired, nothing is held and on_hand = stock - confirmed.
//! With `unit_line`, every hold also takes one unit of a unit-tracked SKU of its own (a mixed
//! hold: the stock SKU stays the hot row); the check adds that every confirmed flow's unit is
//! allocated and no unit is left held.

use crate::error::BenchError;
use crate::load::{drive, error_count, outcome_of, LoadReport, Sample};
use crate::load::{get, post, resolve_strategies, run_id};
use serde_json::json;
use std::time::Duration;

/// Options of `allot bench holds`.
#[derive(Debug, Clone)]
pub struct HoldsOptions {
    /// Base URL of a running server (loopback).
    pub url: String,
    /// Stock strategies, or `all`.
    pub strategies: Vec<String>,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Stock of the SKU (k).
    pub stock: i64,
    /// Flows (N).
    pub flows: u64,
    /// TTL of every hold, ms (abandoned holds expire after it; must be >= the server's
    /// `min_hold_ttl_ms`).
    pub ttl_ms: u64,
    /// Every hold also takes one unit of a unit-tracked SKU (a mixed hold); the SKU gets one
    /// unit per flow.
    pub unit_line: bool,
    /// Every flow abandons its hold (no confirm or release: the holds expire), which measures
    /// making holds alone.
    pub hold_only: bool,
    /// Show progress bars.
    pub progress: bool,
}

/// Run the flows for every strategy asked; a strategy the server refuses is skipped.
pub async fn holds_bench(opts: &HoldsOptions) -> Result<Vec<LoadReport>, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let strategies = resolve_strategies(
        &client,
        &opts.url,
        &opts.strategies,
        &["atomic", "pessimistic", "optimistic", "segmented", "batched"],
    )
    .await?;
    let run = run_id();
    let mut reports = Vec::new();
    for strategy in strategies {
        let sku = format!("holds-{run}-{strategy}");
        let buckets = if strategy == "segmented" { 8 } else { 1 };
        let body = json!({"sku": sku, "on_hand": opts.stock, "buckets": buckets});
        match post(&client, &format!("{}/v1/skus", opts.url), &body).await? {
            (201, _) => {}
            (s, b) => return Err(BenchError::Setup(format!("create sku: {s} {b}"))),
        }
        let probe =
            json!({"lines": [{"sku": sku, "quantity": opts.stock + 1}], "ttl_ms": opts.ttl_ms, "strategy": strategy});
        let (s, b) = post(&client, &format!("{}/v1/holds", opts.url), &probe).await?;
        if s == 400 && b["error"]["code"] == "unsupported_strategy" {
            eprintln!("skipping {strategy}: the server does not support it");
            continue;
        }
        let unit_sku = format!("{sku}-units");
        if opts.unit_line {
            crate::units::create_unit_pool(&opts.url, &unit_sku, opts.flows).await?;
        }
        let flow = Flow {
            client: client.clone(),
            base: opts.url.clone(),
            sku: sku.clone(),
            unit_sku: opts.unit_line.then(|| unit_sku.clone()),
            hold_only: opts.hold_only,
            strategy: strategy.clone(),
            ttl_ms: opts.ttl_ms,
        };
        let flow = std::sync::Arc::new(flow);
        let collected = drive(
            &format!("holds {strategy}"),
            opts.clients,
            opts.flows,
            opts.progress,
            move |i| {
                let flow = flow.clone();
                async move { flow.run(i).await }
            },
        )
        .await?;
        // Let every abandoned hold lapse; readers see it expired at once, the sweeper
        // finalises it within its interval.
        tokio::time::sleep(Duration::from_millis(opts.ttl_ms + 50)).await;
        let mut violations = check(&client, opts, &sku, &collected).await?;
        if opts.unit_line {
            check_units(&client, &opts.url, &unit_sku, (&collected, opts.flows), &mut violations).await?;
        }
        reports.push(LoadReport::new(
            if opts.unit_line { "holds_mixed" } else { "holds" },
            &strategy,
            opts.clients,
            &collected,
            violations,
        ));
    }
    Ok(reports)
}

/// One hold flow: what it needs to run.
struct Flow {
    client: reqwest::Client,
    base: String,
    sku: String,
    /// The unit SKU every hold also takes one unit of, when the holds are mixed.
    unit_sku: Option<String>,
    /// Every flow abandons its hold.
    hold_only: bool,
    strategy: String,
    ttl_ms: u64,
}

impl Flow {
    /// Flow `i`: hold 1..=3 units, then confirm (50 %), release (30 %) or abandon (20 %).
    async fn run(&self, i: u64) -> Sample {
        let quantity = 1 + (i as i64 % 3);
        let sample = |outcome: String| Sample {
            outcome,
            requested: quantity,
            ..Sample::default()
        };
        let mut lines = vec![json!({"sku": self.sku, "quantity": quantity})];
        if let Some(unit_sku) = &self.unit_sku {
            lines.push(json!({"units": {"sku": unit_sku, "quantity": 1}}));
        }
        let body = json!({"lines": lines, "ttl_ms": self.ttl_ms, "strategy": self.strategy});
        let (s, h) = match post(&self.client, &format!("{}/v1/holds", self.base), &body).await {
            Ok(r) => r,
            Err(e) => return sample(format!("client_error: {e}")),
        };
        if s != 201 {
            return sample(outcome_of(s, &h, 201));
        }
        let id = h["id"].as_str().unwrap_or_default();
        if self.hold_only {
            return sample("abandoned".into());
        }
        let (action, ok_label) = match i % 10 {
            0..=4 => ("confirm", "confirmed"),
            5..=7 => ("release", "released"),
            _ => return sample("abandoned".into()),
        };
        let url = format!("{}/v1/holds/{id}/{action}", self.base);
        match post(&self.client, &url, &json!({})).await {
            Ok((200, _)) => Sample {
                outcome: ok_label.into(),
                quantity: if action == "confirm" { quantity } else { 0 },
                requested: quantity,
                ids: Vec::new(),
            },
            Ok((s, b)) => sample(format!("{action}:{}", outcome_of(s, &b, 200))),
            Err(e) => sample(format!("client_error: {e}")),
        }
    }
}

/// The conservation check after every hold ended: no errors, on_hand = stock - confirmed,
/// nothing held, the audit clean for this SKU.
async fn check(
    client: &reqwest::Client,
    opts: &HoldsOptions,
    sku: &str,
    collected: &crate::load::Collected,
) -> Result<Vec<String>, BenchError> {
    let v = get(client, &format!("{}/v1/skus/{sku}", opts.url)).await?;
    let mut violations = Vec::new();
    let errors = error_count(&collected.outcomes);
    if errors > 0 {
        violations.push(format!("{errors} server or client errors"));
    }
    let (on_hand, held) = (v["on_hand"].as_i64().unwrap_or(-1), v["held"].as_i64().unwrap_or(-1));
    if on_hand != opts.stock - collected.quantity {
        violations.push(format!(
            "on_hand {on_hand} != stock {} - confirmed {}",
            opts.stock, collected.quantity
        ));
    }
    if held != 0 {
        violations.push(format!("{held} still held after every hold ended"));
    }
    if !crate::load::audit_clean_for(client, &opts.url, sku).await? {
        violations.push("audit found violations".into());
    }
    Ok(violations)
}

/// With mixed holds: as many units allocated as flows confirmed (a unit SKU's on hand counts
/// the units not allocated), none held, the audit clean for the unit SKU.
async fn check_units(
    client: &reqwest::Client,
    url: &str,
    unit_sku: &str,
    (collected, flows): (&crate::load::Collected, u64),
    violations: &mut Vec<String>,
) -> Result<(), BenchError> {
    let confirmed = collected.outcomes.get("confirmed").copied().unwrap_or(0) as i64;
    let v = get(client, &format!("{url}/v1/skus/{unit_sku}")).await?;
    let (on_hand, held) = (v["on_hand"].as_i64().unwrap_or(-1), v["held"].as_i64().unwrap_or(-1));
    if on_hand != flows as i64 - confirmed {
        violations.push(format!(
            "{on_hand} units on hand != {flows} - {confirmed} flows confirmed"
        ));
    }
    if held != 0 {
        violations.push(format!("{held} units still held after every hold ended"));
    }
    if !crate::load::audit_clean_for(client, url, unit_sku).await? {
        violations.push("audit found violations on the unit SKU".into());
    }
    Ok(())
}
