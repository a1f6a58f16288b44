//! `allot bench`'s stock workloads run on a server's URL and reported: the flash sale, the
//! moving hot SKU (`auto`), the batch API with its pgbench reference, the flash sale across
//! locations with its pgbench reference, and the change feed. Each prints its table, writes
//! its JSON and fails when a safe strategy broke an invariant.

use std::path::Path;

use anyhow::bail;

use super::batch_ref::{batch_reference, BatchReference};
use super::report::{finish_load, write_json};
use crate::batch_api::BatchOptions;
use crate::flash_sale::FlashSaleOptions;
use crate::locations::LocationsOptions;
use crate::moving::MovingOptions;

/// `allot bench flash-sale`: the run, its table and its checks; a SKU whose final `on_hand`
/// could not be read is reported as unverified (a failure), never as a broken invariant.
pub async fn flash_sale(opts: &FlashSaleOptions, json: Option<&Path>) -> anyhow::Result<()> {
    let reports = crate::flash_sale::flash_sale(opts).await?;
    println!(
        "flash sale: C={} k={} N={} spread={}\n",
        opts.clients, opts.stock, opts.requests, opts.spread
    );
    print!("{}", crate::flash_sale::render_table(&reports));
    write_json(json, &reports)?;
    let broken: Vec<&str> = reports
        .iter()
        .filter(|r| !r.unsafe_strategy && !r.violations.is_empty())
        .map(|r| r.strategy.as_str())
        .collect();
    if !broken.is_empty() {
        bail!("invariants broken for safe strategies: {}", broken.join(", "));
    }
    let unread: Vec<&str> = reports
        .iter()
        .filter(|r| r.unread_skus > 0)
        .map(|r| r.strategy.as_str())
        .collect();
    if !unread.is_empty() {
        bail!(
            "unverified: some final SKU reads failed for {} (what those SKUs hold is unchecked; `allot audit` checks the books)",
            unread.join(", ")
        );
    }
    Ok(())
}

/// `allot bench auto`: the moving hot SKU under `auto` and the fixed strategies.
pub async fn moving(opts: &MovingOptions) -> anyhow::Result<()> {
    let reports = crate::moving::moving_bench(opts).await?;
    println!(
        "moving hot SKU: C={} N={} M={} P={} hot share {}\n",
        opts.clients, opts.requests, opts.skus, opts.phases, opts.hot_share
    );
    print!("{}", crate::moving::render_moving_table(&reports));
    if reports.iter().any(|r| !r.violations.is_empty()) {
        bail!("invariants broken");
    }
    Ok(())
}

/// `allot bench batch`: the batch API, and on PostgreSQL (`database_url`) the batch's write
/// statement alone through pgbench for `pgbench_seconds` as the reference of `batched` and
/// of the server's default.
pub async fn batch(
    opts: &BatchOptions,
    (database_url, pgbench_seconds): (Option<&str>, u64),
    json: Option<&Path>,
) -> anyhow::Result<()> {
    let mut reports = crate::batch_api::batch_bench(opts).await?;
    let in_flight = (opts.batch, opts.connections.max(1) * opts.streams.max(1));
    let reference = batch_reference(&opts.url, database_url, in_flight, pgbench_seconds).await;
    for r in reports
        .iter_mut()
        .filter(|r| r.strategy == "batched" || r.strategy == crate::batch_api::SERVER_DEFAULT)
    {
        r.pgbench_allocations_per_s = reference.as_ref().map(BatchReference::allocations_per_s);
    }
    println!(
        "batch: C={} S={} B={} N={} k={}\n",
        opts.connections, opts.streams, opts.batch, opts.requests, opts.stock
    );
    print!("{}", crate::batch_api::render_batch_table(&reports));
    if let Some(f) = &reference {
        println!(
            "\npgbench, the batch's write statement alone ({} allocations per transaction, {} clients): \
             {:.0} allocations/s, p99 {:.2} ms a transaction",
            f.per_transaction,
            f.clients,
            f.allocations_per_s(),
            f.figures.latency_us_p99 as f64 / 1000.0
        );
    }
    write_json(json, &reports)?;
    if reports.iter().any(|r| !r.violations.is_empty()) {
        bail!("invariants broken");
    }
    Ok(())
}

/// `allot bench locations`: the flash sale across locations and, on PostgreSQL
/// (`database_url`) with pgbench installed, bench/pgbench/locations.sql on the same database
/// for `pgbench_seconds` as the reference.
pub async fn locations(
    opts: &LocationsOptions,
    (database_url, pgbench_seconds): (Option<&str>, u64),
    json: Option<&Path>,
) -> anyhow::Result<()> {
    let run = crate::locations::locations(opts).await?;
    let title = format!(
        "locations: C={} N={} L={} k={} split share {}",
        opts.clients, opts.requests, opts.locations, opts.stock, opts.split_share
    );
    let reference = database_url
        .filter(|u| u.starts_with("postgres"))
        .and_then(|db| locations_reference(db, opts.clients, pgbench_seconds, &run.reference_sku));
    if let Some(tps) = reference {
        println!("pgbench reference (bench/pgbench/locations.sql, same database, same locations): {tps:.0} tps\n");
        for r in &run.reports {
            println!(
                "{}: {:.0} requests/s = {:.2}x the reference",
                r.strategy,
                r.requests_per_s,
                r.requests_per_s / tps
            );
        }
        println!();
    }
    finish_load(&title, &run.reports, json)
}

/// The textbook placement statement's rate on `db` when pgbench is installed: at most 32
/// clients (the in-process server holds its pool open beside it).
fn locations_reference(db: &str, clients: usize, seconds: u64, sku: &str) -> Option<f64> {
    if seconds == 0 || !crate::compare::pgbench_available() {
        return None;
    }
    eprintln!("== pgbench: locations");
    crate::compare::pgbench_script_tps(
        db,
        ("locations", include_str!("../../../../bench/pgbench/locations.sql")),
        clients.min(32),
        crate::compare::PgbenchRun::Seconds(seconds),
        &[("sku", format!("'{sku}'"))],
    )
}

/// `allot bench feed`: the hot SKU with and without the feed's trigger over `rounds` ABBA
/// rounds on `database_url`, then one Server-Sent Events reader following every event
/// (`sequence_interval_ms`: the server's sequencer period, for the title).
pub async fn feed(
    opts: &FlashSaleOptions,
    (database_url, rounds, sequence_interval_ms): (&str, u32, u64),
    json: Option<&Path>,
) -> anyhow::Result<()> {
    let runs = crate::feed::rounds(opts, database_url, rounds).await?;
    let top = crate::feed::top(&opts.url).await?;
    let stream = crate::feed::follow(&opts.url, top as u64, std::time::Duration::from_secs(600)).await?;
    println!(
        "change feed: {} hot SKU, C={} N={} rounds={rounds} sequencer every {sequence_interval_ms} ms\n",
        opts.strategies.join(","),
        opts.clients,
        opts.requests
    );
    print!("{}", crate::feed::render(&runs, &stream));
    write_json(json, &(&runs, &stream))?;
    if runs.iter().any(|r| !r.report.violations.is_empty()) {
        bail!("invariants broken");
    }
    Ok(())
}
