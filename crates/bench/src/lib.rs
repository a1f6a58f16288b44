//! # allot-bench
//!
//! The load generator of `allot bench`: async keep-alive HTTP clients on loopback, latency
//! percentiles from HdrHistogram, the invariant checks of ARCHITECTURE.md after every run, and the
//! reports (a side-by-side table and JSON). It speaks only the HTTP API, so it measures the
//! whole service as its users see it.

mod batch_api;
mod bookings;
mod chaos;
mod cluster;
mod compare;
mod console;
pub mod feed;
mod flash_sale;
mod holds;
mod lb;
mod load;
mod locations;
mod mixed;
mod moving;
pub mod orchestrate;
mod patroni;
mod pgbouncer;
mod queue;
mod reference;
mod soak;
mod units;

pub use batch_api::{batch_bench, render_batch_table, BatchOptions, BatchReport, SERVER_DEFAULT};
pub use bookings::{bookings_bench, BookingsOptions};
pub use chaos::{chaos, render_chaos, start_server, ChaosOptions, ChaosReport, Scenario, Server};
pub use cluster::PgCluster;
pub use compare::{
    create_reference_skus, parse_pgbench_tps, parse_redis_benchmark_rps, pgbench_available, pgbench_script_figures,
    pgbench_script_tps, redis_benchmark_admission_rps, redis_benchmark_available, render_compare_table, tool_available,
    wait_for_feed, write_chart, CompareRow, FeedWait, PgbenchFigures, PgbenchProtocol, PgbenchRun,
};
pub use console::{console_bench, render_console_table, ConsoleOptions, ConsoleReport, OVERVIEW_P99_TARGET_US};
pub use flash_sale::{flash_sale, render_table, FlashSaleOptions, StrategyReport};
pub use holds::{holds_bench, HoldsOptions};
pub use load::{render_load_table, LoadReport};
pub use locations::{locations, LocationsOptions, LocationsRun};
pub use moving::{moving_bench, render_moving_table, MovingOptions, MovingReport};
pub use patroni::PatroniStack;
pub use pgbouncer::{PgBouncer, PoolMode};
pub use queue::{claim_bench, queue_bench, render_queue_table, ClaimPath, ClaimReport, QueueOptions, QueueReport};
pub use reference::{noop_ceiling, process_cpu_us, serve_noop, Ceiling};
pub use soak::{render_soak, soak, SoakOptions, SoakReport, SoakSample};
pub use units::{create_unit_pool, units_bench, UnitsOptions};

/// Why a benchmark could not run (not an invariant failure: those are in the report).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The server could not be reached or answered something unexpected.
    #[error("http: {0}")]
    Http(#[from] reqwest::Error),
    /// The server answered a setup request with an error.
    #[error("setup failed: {0}")]
    Setup(String),
}
