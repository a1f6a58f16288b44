//! `allot bench units`: concurrent claims of 1–5 units from a large pool and from a nearly
//! empty one, per unit strategy, with the checks: no unit handed out twice, the units of
//! the successes are exactly what left the pool, and `insufficient_stock` only when fewer
//! units than asked were left.

use crate::error::BenchError;
use crate::load::{
    drive, error_count, first_duplicate, get, outcome_of, post, resolve_strategies, run_id, LoadReport, Sample,
};
use futures::stream::{self, TryStreamExt};
use serde_json::{json, Value};
use std::time::Duration;

/// Options of `allot bench units`.
#[derive(Debug, Clone)]
pub struct UnitsOptions {
    /// Base URL of a running server (loopback).
    pub url: String,
    /// `skip_locked`, `nowait_scan`, `batched`, `serialized`, a list, or `all`.
    pub strategies: Vec<String>,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Units in the large pool.
    pub pool_units: u64,
    /// Claims against the large pool (N).
    pub requests: u64,
    /// Smallest quantity of a claim.
    pub min_quantity: i64,
    /// Largest quantity of a claim.
    pub max_quantity: i64,
    /// Units in the nearly empty pool (claims against it: as many as units, so demand is
    /// about three times the supply).
    pub scarce_units: u64,
    /// `order_by` of every claim.
    pub order_by: Vec<String>,
    /// Claim the large workload from this existing unit SKU instead of filling a new pool
    /// (so a pool loaded earlier, e.g. for a pgbench comparison, can be reused).
    pub pool_sku: Option<String>,
    /// Show progress bars.
    pub progress: bool,
}

/// A unit pool for a reference run (pgbench's `units_skip_locked.sql`): `n` units of `sku`,
/// made as the benchmark's own pools are ([`fill`]).
pub async fn create_unit_pool(url: &str, sku: &str, n: u64) -> Result<(), BenchError> {
    fill(&reqwest::Client::new(), url, sku, n).await
}

/// Insert `n` units into `sku` through the API, 10 000 per request, 4 requests at a time.
async fn fill(client: &reqwest::Client, url: &str, sku: &str, n: u64) -> Result<(), BenchError> {
    const BATCH: u64 = 10_000;
    let batches: Vec<u64> = (0..n.div_ceil(BATCH)).collect();
    let url = format!("{url}/v1/skus/{sku}/units");
    stream::iter(batches.into_iter().map(Ok))
        .try_for_each_concurrent(4, |b| {
            let (client, url) = (client, &url);
            async move {
                let units: Vec<Value> = (b * BATCH..((b + 1) * BATCH).min(n))
                    .map(|i| {
                        json!({"serial": format!("SN{i:09}"), "location": format!("A{:02}", i % 50),
                               "received_at": format!("2026-{:02}-{:02}T00:00:00Z", 1 + (i / 28) % 12, 1 + i % 28)})
                    })
                    .collect();
                match post(client, url, &json!({ "units": units })).await? {
                    (201, _) => Ok(()),
                    (s, b) => Err(BenchError::Setup(format!("insert units: {s} {b}"))),
                }
            }
        })
        .await
}

/// Run both workloads for every strategy asked; a strategy the server refuses is skipped.
pub async fn units_bench(opts: &UnitsOptions) -> Result<Vec<LoadReport>, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let run = run_id();
    let mut reports = Vec::new();
    for strategy in resolve_strategies(
        &client,
        &opts.url,
        &opts.strategies,
        &["skip_locked", "nowait_scan", "batched"],
    )
    .await?
    {
        for (workload, units, requests) in [
            ("units/large", opts.pool_units, opts.requests),
            ("units/scarce", opts.scarce_units, opts.scarce_units),
        ] {
            let (sku, units) = match (&opts.pool_sku, workload) {
                (Some(pool), "units/large") => {
                    let v = get(&client, &format!("{}/v1/skus/{pool}", opts.url)).await?;
                    let on_hand = v["on_hand"]
                        .as_i64()
                        .ok_or_else(|| BenchError::Setup(format!("pool sku {pool}: {v}")))?;
                    (pool.clone(), on_hand as u64)
                }
                _ => {
                    let sku = format!("units-{run}-{strategy}-{}", workload.trim_start_matches("units/"));
                    fill(&client, &opts.url, &sku, units).await?;
                    (sku, units)
                }
            };
            // Probe: quantity 0 is refused as unsupported_strategy before it is validated.
            let probe = json!({"sku": sku, "quantity": 0, "strategy": strategy});
            let (s, b) = post(&client, &format!("{}/v1/unit-allocations", opts.url), &probe).await?;
            if s == 400 && b["error"]["code"] == "unsupported_strategy" {
                eprintln!("skipping {strategy}: the server does not support it");
                break;
            }
            let (min_q, span) = (
                opts.min_quantity.max(1),
                (opts.max_quantity - opts.min_quantity).max(0) + 1,
            );
            let claim = std::sync::Arc::new(Claimer {
                client: client.clone(),
                url: format!("{}/v1/unit-allocations", opts.url),
                sku: sku.clone(),
                strategy: strategy.clone(),
                order_by: opts.order_by.clone(),
            });
            let label = format!("{workload} {strategy}");
            let collected = drive(&label, opts.clients, requests, opts.progress, move |i| {
                let claim = claim.clone();
                async move { claim.run(min_q + (i as i64 % span)).await }
            })
            .await?;
            let v = get(&client, &format!("{}/v1/skus/{sku}", opts.url)).await?;
            let violations = check(&collected, units as i64, v["on_hand"].as_i64().unwrap_or(-1));
            reports.push(LoadReport::new(
                workload,
                &strategy,
                opts.clients,
                &collected,
                violations,
            ));
        }
    }
    Ok(reports)
}

/// One unit claim: what it needs to run.
struct Claimer {
    client: reqwest::Client,
    url: String,
    sku: String,
    strategy: String,
    order_by: Vec<String>,
}

impl Claimer {
    /// Claim `quantity` units; the sample carries the ids of the units handed out.
    async fn run(&self, quantity: i64) -> Sample {
        let body = json!({"sku": self.sku, "quantity": quantity, "order_by": self.order_by, "strategy": self.strategy});
        match post(&self.client, &self.url, &body).await {
            Ok((s, b)) => {
                let ids: Vec<i64> = b["units"]
                    .as_array()
                    .map(|u| u.iter().filter_map(|u| u["id"].as_i64()).collect())
                    .unwrap_or_default();
                Sample {
                    outcome: outcome_of(s, &b, 201),
                    quantity: ids.len() as i64,
                    ids,
                    requested: quantity,
                }
            }
            Err(e) => Sample {
                outcome: format!("client_error: {e}"),
                requested: quantity,
                ..Sample::default()
            },
        }
    }
}

/// The pool's invariants after a run: no unit twice, units of the successes = what left the
/// pool, `insufficient_stock` only when fewer were left, no answer but ok / contention /
/// insufficient_stock.
fn check(collected: &crate::load::Collected, units: i64, on_hand: i64) -> Vec<String> {
    let mut violations = Vec::new();
    if let Some(d) = first_duplicate(&collected.ids) {
        violations.push(format!("unit {d} handed out twice"));
    }
    let errors = error_count(&collected.outcomes);
    if errors > 0 {
        violations.push(format!("{errors} server or client errors"));
    }
    if on_hand != units - collected.quantity {
        violations.push(format!(
            "pool {units} - units of successes {} != on_hand {on_hand}",
            collected.quantity
        ));
    }
    if let Some(q) = collected.min_insufficient_request {
        if on_hand >= q {
            violations.push(format!("insufficient_stock for {q} units while {on_hand} are left"));
        }
    }
    let unexpected: u64 = collected
        .outcomes
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "ok" | "contention" | "insufficient_stock"))
        .map(|(_, v)| v)
        .sum();
    if unexpected > errors {
        violations.push(format!(
            "{} answers other than ok/contention/insufficient_stock",
            unexpected - errors
        ));
    }
    violations
}
