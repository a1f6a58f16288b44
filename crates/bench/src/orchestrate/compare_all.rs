//! `allot bench compare`: every workload under every strategy on one server, each beside its
//! reference (the no-op handler, pgbench on the same database, the queue's peer,
//! redis-benchmark), written as compare.md, compare.json and compare.png.

use anyhow::bail;

use super::compare_options::{CompareOptions, Workload};
use crate::compare::CompareRow;

/// Every workload asked for, with its references, then the table, JSON and chart under
/// `out`; fails when a safe strategy broke an invariant.
pub async fn compare(opts: &CompareOptions) -> anyhow::Result<()> {
    let mut rows = super::compare_http::http_workloads(opts).await?;
    if let (Some(db), false, true) = (&opts.database_url, opts.external, opts.runs(Workload::Queue)) {
        rows.extend(super::compare_http::queue_rows(db, opts).await?);
        if db.starts_with("postgres") {
            let peer = super::peer::Peer {
                given: db,
                dir: &opts.peers_dir,
                rounds: opts.peer_rounds,
                jobs: opts.jobs,
                pool_size: opts.pool_size,
            };
            // A peer that cannot run leaves the run's other figures standing.
            match super::peer::queue_peer_rows(&peer).await {
                Ok(peer_rows) => rows.extend(peer_rows),
                Err(e) => eprintln!("no queue peer rows: {e:#}"),
            }
        }
    }
    add_references(&mut rows, opts).await?;
    write_compare(&rows, opts)
}

/// The references beside the rows: the textbook statements through pgbench (the conditional
/// UPDATE on one hot row, the single-statement unit claim, the advisory-lock booking), the
/// batch API with its own pgbench reference, and redis-benchmark running redis_counter's
/// admission script.
async fn add_references(rows: &mut Vec<CompareRow>, opts: &CompareOptions) -> anyhow::Result<()> {
    let n = opts.n();
    if let Some(db) = opts.database_url.as_deref().filter(|u| u.starts_with("postgres")) {
        if crate::compare::pgbench_available() {
            let refs = super::pgbench_refs::References {
                hot_sku: opts.runs(Workload::HotSku),
                spread: opts.runs(Workload::Spread),
                units: opts.runs(Workload::Units),
                bookings: opts.runs(Workload::Bookings),
                clients: opts.clients,
                requests: opts.requests,
                spread_skus: opts.spread,
                pgbench_seconds: opts.pgbench_seconds,
            };
            super::pgbench_refs::add_pgbench_references(rows, &opts.url, db, &refs).await?;
        }
    }
    // Last of the server's workloads: its pgbench reference writes the batch's rows at the
    // database's full pace, which the references above must not run beside.
    if opts.runs(Workload::Batch) {
        let db = opts.database_url.as_deref();
        rows.extend(super::compare_batch::compare_batch(&opts.url, db, opts.pgbench_seconds, n).await?);
    }
    if let Some(redis_url) = opts.redis_url.as_deref() {
        if crate::compare::redis_benchmark_available() {
            eprintln!("== redis-benchmark: admission script");
            let rps = crate::compare::redis_benchmark_admission_rps(redis_url, opts.clients, n.max(10_000));
            for r in rows
                .iter_mut()
                .filter(|r| r.workload == "hot_sku" && r.strategy == "redis_counter")
            {
                r.pgbench_tps = rps;
                r.reference = rps.map(|_| "redis-benchmark".to_string());
            }
        }
    }
    Ok(())
}

/// Print the table, write it with the JSON and the chart under `out`, and fail when a safe
/// strategy broke an invariant.
fn write_compare(rows: &[CompareRow], opts: &CompareOptions) -> anyhow::Result<()> {
    let table = crate::compare::render_compare_table(rows);
    println!(
        "compare: C={} N={} spread={} jobs={}\n\n{table}",
        opts.clients,
        opts.n(),
        opts.spread,
        opts.jobs
    );
    std::fs::create_dir_all(&opts.out)?;
    std::fs::write(opts.out.join("compare.md"), &table)?;
    std::fs::write(opts.out.join("compare.json"), serde_json::to_vec_pretty(rows)?)?;
    match crate::compare::write_chart(rows, &opts.out.join("compare.png")) {
        Ok(()) => eprintln!("wrote {}/compare.{{md,json,png}}", opts.out.display()),
        Err(e) => eprintln!("wrote {}/compare.{{md,json}}; no chart: {e}", opts.out.display()),
    }
    let broken: Vec<String> = rows
        .iter()
        .filter(|r| !r.invariants_ok && !allot_core::strategy::is_unsafe_name(&r.strategy))
        .map(|r| format!("{} {}", r.workload, r.strategy))
        .collect();
    if !broken.is_empty() {
        bail!("invariants broken: {}", broken.join(", "));
    }
    Ok(())
}
