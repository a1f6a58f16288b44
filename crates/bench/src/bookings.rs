//! `allot bench bookings`: C clients book random `days`-long ranges over R resources (few
//! resources: high contention), per strategy, then the overlap check (`/v1/audit`'s
//! booking_overlaps over this run's resources: only `naive` may have any). With `capacity`,
//! every resource is put first with that capacity per night: the capacity path, checked by
//! the audit's `slot_overbookings` over this run's resources (and a refusal is
//! `capacity_exceeded`, counted as a refusal, not an error).

use crate::error::BenchError;
use crate::load::{drive, error_count, outcome_of, LoadReport, Sample};
use crate::load::{get, post, resolve_strategies, run_id};
use rand::Rng;
use serde_json::json;
use std::time::Duration;

/// Options of `allot bench bookings`.
#[derive(Debug, Clone)]
pub struct BookingsOptions {
    /// Base URL of a running server (loopback).
    pub url: String,
    /// `exclusion`, `batched`, `advisory`, `naive`, `serialized`, a list, or `all`.
    pub strategies: Vec<String>,
    /// Concurrent clients (C).
    pub clients: usize,
    /// Booking requests (N).
    pub requests: u64,
    /// Resources (R).
    pub resources: u32,
    /// Length of every range, days.
    pub days: u32,
    /// Ranges start on a day in `0..horizon_days` from 2030-01-01.
    pub horizon_days: u32,
    /// Put every resource with this capacity per night (`slot_ms` a day) before the run.
    pub capacity: Option<u32>,
    /// Show progress bars.
    pub progress: bool,
}

/// Run the workload for every strategy asked; a strategy the server refuses is skipped.
pub async fn bookings_bench(opts: &BookingsOptions) -> Result<Vec<LoadReport>, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let strategies = resolve_strategies(
        &client,
        &opts.url,
        &opts.strategies,
        &["exclusion", "batched", "advisory", "naive"],
    )
    .await?;
    let run = run_id();
    let mut reports = Vec::new();
    for strategy in strategies {
        let prefix = format!("bk-{run}-{strategy}-");
        let probe = json!({"start": "2030-01-01T00:00:00Z", "end": "2030-01-01T00:00:00Z", "holder": "probe", "strategy": strategy});
        let (s, b) = post(
            &client,
            &format!("{}/v1/resources/{prefix}probe/bookings", opts.url),
            &probe,
        )
        .await?;
        if s == 400 && b["error"]["code"] == "unsupported_strategy" {
            eprintln!("skipping {strategy}: the server does not support it");
            continue;
        }
        if let Some(cap) = opts.capacity {
            put_resources(&client, opts, &prefix, cap).await?;
        }
        let booker = std::sync::Arc::new(Booker {
            client: client.clone(),
            base: opts.url.clone(),
            prefix: prefix.clone(),
            strategy: strategy.clone(),
            resources: opts.resources.max(1),
            days: opts.days.max(1),
            horizon_days: opts.horizon_days.max(1),
        });
        let label = format!("bookings {strategy}");
        let collected = drive(&label, opts.clients, opts.requests, opts.progress, move |_| {
            let booker = booker.clone();
            async move { booker.run().await }
        })
        .await?;
        let violations = check(&client, opts, &prefix, &strategy, &collected).await?;
        reports.push(LoadReport::new(
            "bookings",
            &strategy,
            opts.clients,
            &collected,
            violations,
        ));
    }
    Ok(reports)
}

/// Put the run's resources with `capacity` per night.
async fn put_resources(
    client: &reqwest::Client,
    opts: &BookingsOptions,
    prefix: &str,
    capacity: u32,
) -> Result<(), BenchError> {
    for r in 0..opts.resources.max(1) {
        let resp = client
            .put(format!("{}/v1/resources/{prefix}{r}", opts.url))
            .json(&json!({"capacity": capacity, "slot_ms": 86_400_000}))
            .send()
            .await?;
        if !resp.status().is_success() {
            let text = resp.text().await.unwrap_or_default();
            return Err(BenchError::Setup(format!("put resource {prefix}{r}: {text}")));
        }
    }
    Ok(())
}

/// One booking request: what it needs to run.
struct Booker {
    client: reqwest::Client,
    base: String,
    prefix: String,
    strategy: String,
    resources: u32,
    days: u32,
    horizon_days: u32,
}

impl Booker {
    /// Book `days` days on a random resource at a random day of the horizon.
    async fn run(&self) -> Sample {
        let (r, d) = {
            let mut rng = rand::rng();
            (
                rng.random_range(0..self.resources),
                rng.random_range(0..self.horizon_days),
            )
        };
        let start = chrono::DateTime::parse_from_rfc3339("2030-01-01T00:00:00Z")
            .expect("constant")
            .with_timezone(&chrono::Utc)
            + chrono::Duration::days(i64::from(d));
        let end = start + chrono::Duration::days(i64::from(self.days));
        let body =
            json!({"start": start.to_rfc3339(), "end": end.to_rfc3339(), "holder": "bench", "strategy": self.strategy});
        let url = format!("{}/v1/resources/{}{r}/bookings", self.base, self.prefix);
        match post(&self.client, &url, &body).await {
            Ok((s, b)) => {
                let outcome = outcome_of(s, &b, 201);
                Sample {
                    quantity: i64::from(outcome == "ok"),
                    outcome,
                    requested: 1,
                    ids: Vec::new(),
                }
            }
            Err(e) => Sample {
                outcome: format!("client_error: {e}"),
                ..Sample::default()
            },
        }
    }
}

/// After a run: no server or client errors, and no overlapping pairs among this run's
/// resources (reported for `naive` too, where they are expected).
async fn check(
    client: &reqwest::Client,
    opts: &BookingsOptions,
    prefix: &str,
    strategy: &str,
    collected: &crate::load::Collected,
) -> Result<Vec<String>, BenchError> {
    let audit = get(client, &format!("{}/v1/audit", opts.url)).await?;
    let mine = |list: &str| {
        audit[list]
            .as_array()
            .map(|o| {
                o.iter()
                    .filter(|o| o["resource"].as_str().is_some_and(|r| r.starts_with(prefix)))
                    .count()
            })
            .unwrap_or(0)
    };
    let overlaps = mine("booking_overlaps") + mine("slot_overbookings");
    let mut violations = Vec::new();
    let errors = error_count(&collected.outcomes);
    if errors > 0 {
        violations.push(format!("{errors} server or client errors"));
    }
    if overlaps > 0 {
        violations.push(format!(
            "{overlaps} overlapping booking pairs{}",
            if allot_core::strategy::is_unsafe_name(strategy) {
                " (naive: expected)"
            } else {
                ""
            }
        ));
    }
    Ok(violations)
}
