//! `allot bench queue` run and reported: the whole workload (producers, worker pools, the
//! total-queue check), or single-job claims alone straight on the store and, on a server
//! the caller started on the same database, through HTTP.

use std::path::Path;
use std::sync::Arc;

use allot_core::{ClaimStrategy, Database, Store};
use anyhow::bail;

use super::report::write_json;
use crate::queue::ClaimPath;
use crate::queue::ClaimReport;
use crate::queue::QueueOptions;

/// Connections of the store that fills the HTTP runs' queues.
pub const HTTP_FILL_POOL: usize = 2;

/// Open the store at `database_url` with `pool_size` connections (PostgreSQL).
pub async fn open(database_url: &str, pool_size: usize) -> anyhow::Result<Arc<dyn Database>> {
    let opts = allot_store::OpenOptions {
        pool_size,
        ..Default::default()
    };
    Ok(allot_store::open(database_url, &opts).await?)
}

/// The workload on `store`: its table, its JSON, and a failure naming every strategy and
/// mode whose total-queue check broke.
pub async fn queue(store: Arc<dyn Database>, opts: &QueueOptions, json: Option<&Path>) -> anyhow::Result<()> {
    let reports = crate::queue::queue_bench(store, opts).await?;
    println!(
        "queue: P={} J={} W={}x{} claim_batch={} fail={} killed={} keys={}\n",
        opts.producers,
        opts.jobs,
        opts.workers,
        opts.concurrency,
        opts.claim_batch,
        opts.fail_fraction,
        opts.kill_workers,
        opts.keys
    );
    print!("{}", crate::queue::render_queue_table(&reports));
    write_json(json, &reports)?;
    let broken: Vec<String> = reports
        .iter()
        .filter(|r| !r.violations.is_empty())
        .map(|r| format!("{} ({})", r.strategy, r.mode))
        .collect();
    if !broken.is_empty() {
        bail!("queue check broken for: {}", broken.join(", "));
    }
    Ok(())
}

/// How much a claims-only run does: jobs filled per queue, clients claiming, and its time
/// limit in seconds.
#[derive(Debug, Clone, Copy)]
pub struct ClaimLoad {
    /// Jobs filled into each run's queue.
    pub jobs: u64,
    /// Clients claiming one job at a time.
    pub clients: usize,
    /// Time limit of each run, s.
    pub seconds: u64,
}

/// Claims alone straight on `store`, per strategy it supports: prints the table's head and a
/// row each, and returns each strategy's claims/s in order (the base of the HTTP rows). Fails when a
/// job was leased twice. Drop `store` after it, before a server opens its own pool.
pub async fn claims_on_store(
    store: Arc<dyn Store>,
    strategies: &[ClaimStrategy],
    load: ClaimLoad,
) -> anyhow::Result<Vec<(ClaimStrategy, f64)>> {
    println!("| strategy | path | claimed | claims/s | vs store | p50 ms | p99 ms | leased twice | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut on_store = Vec::new();
    for s in strategies.iter().copied().filter(|s| store.supports_claim(*s)) {
        let r = crate::queue::claim_bench(
            store.clone(),
            (s, &ClaimPath::Store),
            load.jobs,
            load.clients,
            load.seconds,
        )
        .await?;
        on_store.push((s, r.claims_per_s));
        claim_row(&r, r.claims_per_s)?;
    }
    Ok(on_store)
}

/// Claims alone through `POST /v1/queues/{queue}/claims` of the server at `url` (started on
/// `database_url`), for each strategy of `on_store`, each row against the store's claims/s;
/// the queues are filled through a store of [`HTTP_FILL_POOL`] connections.
pub async fn claims_over_http(
    (database_url, url): (&str, &str),
    on_store: &[(ClaimStrategy, f64)],
    load: ClaimLoad,
) -> anyhow::Result<()> {
    let fill = open(database_url, HTTP_FILL_POOL).await?;
    let path = ClaimPath::Http(url.to_string());
    for (s, base) in on_store.iter().copied() {
        let r = crate::queue::claim_bench(fill.clone(), (s, &path), load.jobs, load.clients, load.seconds).await?;
        claim_row(&r, base)?;
    }
    Ok(())
}

/// One row of the claims-only table (`base`: the store's claims/s of the same strategy); an
/// error when a job was leased twice.
fn claim_row(r: &ClaimReport, base: f64) -> anyhow::Result<()> {
    println!(
        "| {} | {} | {} | {:.0} | {:.2}x | {:.2} | {:.2} | {} | {} |",
        r.strategy,
        r.path,
        r.claimed,
        r.claims_per_s,
        r.claims_per_s / base.max(1e-9),
        r.latency_us_p50 as f64 / 1000.0,
        r.latency_us_p99 as f64 / 1000.0,
        r.duplicates,
        r.errors
    );
    if r.duplicates > 0 {
        bail!("{} ({}): {} jobs leased twice", r.strategy, r.path, r.duplicates);
    }
    if r.errors > 0 {
        eprintln!(
            "{} ({}): {} claims failed; the figure counts only the others",
            r.strategy, r.path, r.errors
        );
    }
    Ok(())
}

/// `bench fairness` on `store`: its table, its JSON, and a failure when a mode lost a job.
pub async fn fairness(
    store: Arc<dyn Database>,
    opts: &crate::FairnessOptions,
    json: Option<&Path>,
) -> anyhow::Result<()> {
    let runs = crate::fairness_bench(store, opts, &crate::load::run_id()).await?;
    println!(
        "fairness: heavy={} light_keys={} per_key={} claim_batch={}\n",
        opts.heavy, opts.light_keys, opts.per_key, opts.claim_batch
    );
    println!("{}", crate::render_fairness_table(&runs));
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_vec_pretty(&runs)?)?;
    }
    let lost: Vec<&str> = runs.iter().filter(|r| r.completed != r.total).map(|r| r.mode).collect();
    if !lost.is_empty() {
        anyhow::bail!("jobs not completed exactly once in: {}", lost.join(", "));
    }
    Ok(())
}
