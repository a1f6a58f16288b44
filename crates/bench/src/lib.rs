//! # allot-bench
//!
//! The load generator of `allot bench` and `allot chaos`: async keep-alive HTTP clients on
//! loopback (the request workloads measure the whole service as its users see it), the queue
//! and its claims straight on the store (as the worker library runs them), latency percentiles
//! from HdrHistogram, the invariant checks of ARCHITECTURE.md after every run, the reports (a
//! side-by-side table, JSON, a chart), the references each run stands beside (pgbench, the
//! queue's peer, redis-benchmark, a no-op handler), what each hot path costs in counts that
//! do not swing with the hour (`cost/`: callgrind, a counting proxy, the WAL), and the fault suite's clusters, proxies and
//! poolers (`orchestrate/`, `cluster.rs`, `lb.rs`, `patroni.rs`, `pgbouncer.rs`).

mod batch_api;
mod bookings;
mod chaos;
mod checkout;
mod cluster;
mod compare;
mod console;
pub mod cost;
mod error;
mod fairness;
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
mod redis_cluster;
mod reference;
mod soak;
mod units;

pub use batch_api::{batch_bench, render_batch_table, BatchOptions, BatchReport, SERVER_DEFAULT};
pub use bookings::{bookings_bench, BookingsOptions};
pub use chaos::{chaos, render_chaos, start_server, start_server_with, ChaosOptions, ChaosReport, Scenario, Server};
pub use checkout::{checkout_bench, CheckoutOptions};
pub use cluster::{free_port, PgCluster, RedisServer, StopMode};
pub use compare::{
    create_reference_skus, parse_pgbench_tps, parse_redis_benchmark_rps, pgbench_available, pgbench_script_figures,
    pgbench_script_tps, redis_benchmark_admission_rps, redis_benchmark_available, render_compare_table, tool_available,
    wait_for_feed, write_chart, CompareRow, FeedWait, PgbenchFigures, PgbenchProtocol, PgbenchRun,
};
pub use console::{console_bench, render_console_table, ConsoleOptions, ConsoleReport, OVERVIEW_P99_TARGET_US};
pub use error::BenchError;
pub use fairness::{fairness_bench, render_fairness_table, FairnessOptions, FairnessRun};
pub use flash_sale::{flash_sale, render_table, FlashSaleOptions, StrategyReport};
pub use holds::{holds_bench, HoldsOptions};
pub use load::{render_load_table, LoadReport};
pub use locations::{locations, LocationsOptions, LocationsRun};
pub use moving::{moving_bench, render_moving_table, MovingOptions, MovingReport};
pub use patroni::PatroniStack;
pub use pgbouncer::{PgBouncer, PoolMode};
pub use queue::{claim_bench, queue_bench, render_queue_table, ClaimPath, ClaimReport, QueueOptions, QueueReport};
pub use redis_cluster::RedisCluster;
pub use reference::{noop_ceiling, process_cpu_us, serve_noop, serve_noop_at, Ceiling};
pub use soak::{render_soak, soak, SoakOptions, SoakReport, SoakSample};
pub use units::{create_unit_pool, units_bench, UnitsOptions};
