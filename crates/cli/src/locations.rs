//! `allot bench locations`: the flags of the flash sale across locations.

use allot_bench::orchestrate::stock_runs;

use crate::target::{on_target, LoadArgs};
use clap::Args;

#[derive(Args)]
pub(crate) struct LocationsArgs {
    #[command(flatten)]
    pub(crate) load: LoadArgs,
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
}

impl LocationsArgs {
    fn options(&self, url: String) -> allot_bench::LocationsOptions {
        allot_bench::LocationsOptions {
            url,
            strategies: self.load.strategies(),
            clients: self.load.clients,
            requests: self.requests,
            locations: self.locations,
            stock: self.stock,
            split_share: self.split_share,
            progress: true,
        }
    }
}

/// `bench locations` on its target.
pub(crate) async fn locations(a: LocationsArgs) -> anyhow::Result<()> {
    on_target(a.load.target.clone(), |url| async move {
        let reference = (a.load.target.database_url.as_deref(), a.pgbench_seconds);
        stock_runs::locations(&a.options(url), reference, a.load.json()).await
    })
    .await
}
