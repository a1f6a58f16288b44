//! `allot bench holds`: C clients each run flows of hold → confirm (50 %), release (30 %)
//! or abandon (20 %, the hold expires), per stock strategy, then the conservation check:
//! once every abandoned hold has expired, nothing is held and on_hand = stock - confirmed.

use crate::load::{drive, error_count, outcome_of, LoadReport, Sample};
use crate::load::{get, post, resolve_strategies, run_id};
use crate::BenchError;
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
    /// Show progress bars.
    pub progress: bool,
}

/// Run the flows for every strategy asked; a strategy the server refuses is skipped.
pub async fn holds_bench(opts: &HoldsOptions) -> Result<Vec<LoadReport>, BenchError> {
    let client = reqwest::Client::builder()
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
        let (client2, base, sku2, strat, ttl_ms) = (
            client.clone(),
            opts.url.clone(),
            sku.clone(),
            strategy.clone(),
            opts.ttl_ms,
        );
        let collected = drive(
            &format!("holds {strategy}"),
            opts.clients,
            opts.flows,
            opts.progress,
            move |i| {
                let quantity = 1 + (i as i64 % 3);
                let body = json!({"lines": [{"sku": sku2, "quantity": quantity}], "ttl_ms": ttl_ms, "strategy": strat});
                let (client, base) = (client2.clone(), base.clone());
                async move {
                    let fail = |e: BenchError| Sample {
                        outcome: format!("client_error: {e}"),
                        requested: quantity,
                        ..Sample::default()
                    };
                    let (s, h) = match post(&client, &format!("{base}/v1/holds"), &body).await {
                        Ok(r) => r,
                        Err(e) => return fail(e),
                    };
                    if s != 201 {
                        return Sample {
                            outcome: outcome_of(s, &h, 201),
                            requested: quantity,
                            ..Sample::default()
                        };
                    }
                    let id = h["id"].as_str().unwrap_or_default();
                    let (action, ok_label) = match i % 10 {
                        0..=4 => ("confirm", "confirmed"),
                        5..=7 => ("release", "released"),
                        _ => {
                            return Sample {
                                outcome: "abandoned".into(),
                                requested: quantity,
                                ..Sample::default()
                            }
                        }
                    };
                    match post(&client, &format!("{base}/v1/holds/{id}/{action}"), &json!({})).await {
                        Ok((200, _)) => Sample {
                            outcome: ok_label.into(),
                            quantity: if action == "confirm" { quantity } else { 0 },
                            requested: quantity,
                            ids: Vec::new(),
                        },
                        Ok((s, b)) => Sample {
                            outcome: format!("{action}:{}", outcome_of(s, &b, 200)),
                            requested: quantity,
                            ..Sample::default()
                        },
                        Err(e) => fail(e),
                    }
                }
            },
        )
        .await?;
        // Let every abandoned hold lapse; readers see it expired at once, the sweeper
        // finalises it within its interval.
        tokio::time::sleep(Duration::from_millis(opts.ttl_ms + 50)).await;
        let v = get(&client, &format!("{}/v1/skus/{sku}", opts.url)).await?;
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
        let audit = get(&client, &format!("{}/v1/audit", opts.url)).await?;
        if audit["violations"]
            .as_array()
            .is_none_or(|v| v.iter().any(|v| v["sku"] == sku.as_str()))
        {
            violations.push("audit found violations".into());
        }
        reports.push(LoadReport::new(
            "holds",
            &strategy,
            opts.clients,
            &collected,
            violations,
        ));
    }
    Ok(reports)
}
