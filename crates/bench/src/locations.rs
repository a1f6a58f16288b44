//! `allot bench locations`: a flash sale across L locations (5 by default) with placement and
//! splits — C clients send N allocations of 1..=3 units, each with a placement (priority,
//! most available, or a ranked list of two locations) and, for a share of them, `allow_split`
//! — per strategy, with the checks: the `from` of the successes add up, location by location,
//! to exactly what left each location's level; a line without a split came from one location;
//! every `from` adds up to its line; nothing oversold anywhere; the audit is clean.

use crate::error::BenchError;
use crate::load::{drive, get, outcome_of, post, resolve_strategies, run_id, Collected, LoadReport, Sample};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Options of one run.
#[derive(Debug, Clone)]
pub struct LocationsOptions {
    /// Base URL of a running server (loopback only).
    pub url: String,
    /// Strategies, or `["all"]`.
    pub strategies: Vec<String>,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Allocation requests (N).
    pub requests: u64,
    /// Locations (L).
    pub locations: usize,
    /// Stock at each location (k).
    pub stock: i64,
    /// Share of requests with `allow_split`, 0..=1.
    pub split_share: f64,
    /// Show a progress bar.
    pub progress: bool,
}

/// What the successes took from each location.
type Taken = Arc<Mutex<BTreeMap<String, i64>>>;

/// The reports of a run, and a SKU with (practically) endless stock at the same locations
/// for a reference on the same database (see `bench/pgbench/locations.sql`).
pub struct LocationsRun {
    /// One per strategy.
    pub reports: Vec<LoadReport>,
    /// The reference SKU's name.
    pub reference_sku: String,
}

/// Run the workload for every strategy asked; one report per strategy.
pub async fn locations(opts: &LocationsOptions) -> Result<LocationsRun, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .build()?;
    let run = run_id();
    let names: Vec<String> = (0..opts.locations.max(1)).map(|i| format!("loc-{run}-{i}")).collect();
    for (i, l) in names.iter().enumerate() {
        let (s, b) = post(
            &client,
            &format!("{}/v1/locations", opts.url),
            &json!({"location": l, "priority": i}),
        )
        .await?;
        if s != 201 {
            return Err(BenchError::Setup(format!("create location {l}: {s} {b}")));
        }
    }
    let all = ["atomic", "pessimistic", "optimistic", "segmented", "batched"];
    let mut reports = Vec::new();
    for strategy in resolve_strategies(&client, &opts.url, &opts.strategies, &all).await? {
        let sku = format!("loc-{run}-{strategy}");
        stock_sku(&client, &opts.url, &sku, &names, opts.stock).await?;
        let taken: Taken = Arc::default();
        let c = load(&client, opts, &strategy, &sku, &names, &taken).await?;
        let mut violations = check(&client, &opts.url, &sku, &names, opts.stock, &taken).await?;
        let audit = get(&client, &format!("{}/v1/audit", opts.url)).await?;
        for v in audit["violations"].as_array().into_iter().flatten() {
            if v["sku"] == sku.as_str() {
                violations.push(format!("audit: {}", v["problem"]));
            }
        }
        reports.push(LoadReport::new("locations", &strategy, opts.clients, &c, violations));
    }
    let reference_sku = format!("loc-{run}-reference");
    stock_sku(&client, &opts.url, &reference_sku, &names, 1_000_000_000).await?;
    Ok(LocationsRun { reports, reference_sku })
}

/// A SKU with `stock` at each of `locations`.
async fn stock_sku(
    client: &reqwest::Client,
    url: &str,
    sku: &str,
    locations: &[String],
    stock: i64,
) -> Result<(), BenchError> {
    let body = json!({"sku": sku, "on_hand": stock, "location": locations[0]});
    let (s, b) = post(client, &format!("{url}/v1/skus"), &body).await?;
    if s != 201 {
        return Err(BenchError::Setup(format!("create {sku}: {s} {b}")));
    }
    for l in &locations[1..] {
        let (s, b) = post(
            client,
            &format!("{url}/v1/skus/{sku}/adjustments"),
            &json!({"delta": stock, "location": l}),
        )
        .await?;
        if s != 200 {
            return Err(BenchError::Setup(format!("stock {sku} at {l}: {s} {b}")));
        }
    }
    Ok(())
}

/// The body of request `i`: 1..=3 units, placement by `i`, split for a share.
fn body(i: u64, sku: &str, strategy: &str, locations: &[String], split_share: f64) -> (Value, bool) {
    let n = locations.len() as u64;
    let placement = match i % 3 {
        0 => json!("priority"),
        1 => json!("most_available"),
        _ => json!([locations[((i / 3) % n) as usize], locations[((i / 3 + 1) % n) as usize]]),
    };
    let split = ((i * 7919) % 1000) as f64 / 1000.0 < split_share;
    let q = 1 + (i % 3) as i64;
    let b = json!({"lines": [{"sku": sku, "quantity": q}], "strategy": strategy, "placement": placement, "allow_split": split});
    (b, split)
}

async fn load(
    client: &reqwest::Client,
    opts: &LocationsOptions,
    strategy: &str,
    sku: &str,
    locations: &[String],
    taken: &Taken,
) -> Result<Collected, BenchError> {
    let (client, url) = (client.clone(), format!("{}/v1/allocations", opts.url));
    let (sku, strategy, locations) = (sku.to_string(), strategy.to_string(), locations.to_vec());
    let (taken, share) = (taken.clone(), opts.split_share);
    drive(
        &format!("locations {strategy}"),
        opts.clients,
        opts.requests,
        opts.progress,
        move |i| {
            let (client, url, taken) = (client.clone(), url.clone(), taken.clone());
            let (b, split) = body(i, &sku, &strategy, &locations, share);
            async move {
                let requested = b["lines"][0]["quantity"].as_i64().unwrap_or(0);
                let (status, answer) = match post(&client, &url, &b).await {
                    Ok(r) => r,
                    Err(e) => (0, json!({"error": {"code": format!("client_error: {e}")}})),
                };
                let mut outcome = outcome_of(status, &answer, 201);
                let mut quantity = 0i64;
                if status == 201 {
                    let from = answer["lines"][0]["from"].as_array().cloned().unwrap_or_default();
                    let sum: i64 = from.iter().filter_map(|f| f["quantity"].as_i64()).sum();
                    if sum != requested || (!split && from.len() != 1) {
                        outcome = format!("bad_from: {from:?} for {requested}, split {split}");
                    }
                    let mut t = taken.lock().unwrap_or_else(|p| p.into_inner());
                    for f in &from {
                        *t.entry(f["location"].as_str().unwrap_or("?").to_string()).or_default() +=
                            f["quantity"].as_i64().unwrap_or(0);
                    }
                    quantity = sum;
                }
                Sample {
                    outcome,
                    ids: Vec::new(),
                    quantity,
                    requested,
                }
            }
        },
    )
    .await
}

/// What left each location must be what the successes say they took, and no level negative.
async fn check(
    client: &reqwest::Client,
    url: &str,
    sku: &str,
    locations: &[String],
    stock: i64,
    taken: &Taken,
) -> Result<Vec<String>, BenchError> {
    let v = get(client, &format!("{url}/v1/skus/{sku}")).await?;
    let taken = taken.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let mut violations = Vec::new();
    for l in locations {
        let level = v["levels"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|x| x["location"] == l.as_str());
        let on_hand = level.and_then(|x| x["on_hand"].as_i64()).unwrap_or(-1);
        let got = taken.get(l).copied().unwrap_or(0);
        if on_hand < 0 || stock - on_hand != got {
            violations.push(format!(
                "{l}: {} left the level, the answers say {got}",
                stock - on_hand
            ));
        }
    }
    if taken.keys().any(|l| !locations.contains(l)) {
        violations.push(format!("answers name locations the SKU does not have: {taken:?}"));
    }
    Ok(violations)
}
