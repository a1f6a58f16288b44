//! `allot bench locations`: the flash sale across locations, and its pgbench reference.

use crate::{bench_target, finish_load, Args, PathBuf, TargetArgs};

#[derive(Args)]
pub(crate) struct LocationsArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategy, a comma-separated list, or `all`.
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    pub(crate) clients: usize,
    /// Allocation requests (N), of 1..=3 units each.
    #[arg(short = 'n', long, default_value_t = 20_000)]
    pub(crate) requests: u64,
    /// Locations (L), priorities 0..L.
    #[arg(short = 'l', long, default_value_t = 5)]
    pub(crate) locations: usize,
    /// Stock at each location (k).
    #[arg(short = 'k', long, default_value_t = 5_000)]
    pub(crate) stock: i64,
    /// Share of requests that may be split over locations.
    #[arg(long, default_value_t = 0.5)]
    pub(crate) split_share: f64,
    /// Seconds of the pgbench reference (PostgreSQL with pgbench installed; 0: none).
    #[arg(long, default_value_t = 10)]
    pub(crate) pgbench_seconds: u64,
    /// Write the reports as JSON here.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

pub(crate) async fn locations(a: LocationsArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::LocationsOptions {
        url: url.clone(),
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        clients: a.clients,
        requests: a.requests,
        locations: a.locations,
        stock: a.stock,
        split_share: a.split_share,
        progress: true,
    };
    let run = allot_bench::locations(&opts).await?;
    let title = format!(
        "locations: C={} N={} L={} k={} split share {}",
        a.clients, a.requests, a.locations, a.stock, a.split_share
    );
    let reference = reference(&a, &run.reference_sku);
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
    finish_load(title, &run.reports, a.json.as_ref(), server).await
}

/// The textbook statement's rate on the same database, when it is PostgreSQL and pgbench is
/// installed: at most 32 clients (the in-process server holds its pool open beside it).
fn reference(a: &LocationsArgs, sku: &str) -> Option<f64> {
    let db = a.target.database_url.as_deref().filter(|u| u.starts_with("postgres"))?;
    if a.pgbench_seconds == 0 || !allot_bench::pgbench_available() {
        return None;
    }
    eprintln!("== pgbench: locations");
    allot_bench::pgbench_script_tps(
        db,
        ("locations", include_str!("../../../bench/pgbench/locations.sql")),
        a.clients.min(32),
        allot_bench::PgbenchRun::Seconds(a.pgbench_seconds),
        &[("sku", format!("'{sku}'"))],
    )
}
