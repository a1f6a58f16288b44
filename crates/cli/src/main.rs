//! `allot`: serve | migrate | audit | rebalance | bench.
//!
//! Configuration precedence: command-line flag > environment variable (`ALLOT_*`) > TOML
//! file (`--config FILE` or `ALLOT_CONFIG`, keys as the long flag names with `_`, e.g.
//! `max_lines = 50`) > built-in default.

use clap::{Args, CommandFactory, Parser, Subcommand};

/// The process's allocator: mimalloc (Microsoft's, "Mimalloc: Free List Sharding in
/// Action", 2019) in place of glibc's malloc, which took about a quarter of the server's CPU
/// samples under a hot-SKU load (`perf record`; see docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bench;
mod compare;
mod config;
mod console_bench;
mod cost;
mod db_args;
mod keys;
mod limit_args;
mod locations;
mod logging;
mod serve;
mod sim;
mod target;

use bench::BenchCmd;
use config::with_config_file;
use db_args::{existing, tenant_arg, DbArgs};
use logging::LogFormat;
use serve::ServeArgs;
use std::ffi::OsString;
use std::path::PathBuf;

/// `allot --version`: the crate's version and the git commit it was built from.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("ALLOT_GIT_COMMIT"), ")");

#[derive(Parser)]
#[command(
    name = "allot",
    version = VERSION,
    about = "Hands out scarce things to many concurrent callers without overselling."
)]
struct Cli {
    /// TOML file with settings (keys are the long flag names with `_`); flags and
    /// environment variables override it.
    #[arg(long, env = "ALLOT_CONFIG", global = true)]
    config: Option<PathBuf>,
    /// Log lines as `text` or `json` (one object per line). What is logged: `ALLOT_LOG`
    /// (e.g. `info`, `info,allot::request=debug` for a line per served request; default
    /// `info`, `warn` for bench and chaos).
    #[arg(long, env = "ALLOT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    log_format: LogFormat,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the HTTP service (embedded SQLite `./allot.db` on 127.0.0.1:8080 by default).
    Serve(Box<ServeArgs>),
    /// Apply the versioned migrations and exit.
    Migrate(DbArgs),
    /// Check conservation of every SKU (on_hand and held = sums of the ledger and of active
    /// holds, 0 <= held <= on_hand) and that no two blocking bookings of a resource overlap;
    /// exit 1 on any violation. Every tenant, or one with `--tenant`.
    Audit(AuditArgs),
    /// Spread each segmented SKU's available stock evenly over its buckets.
    Rebalance(RebalanceArgs),
    /// Load generators with invariant checks.
    #[command(subcommand)]
    Bench(BenchCmd),
    /// API keys: create (prints the secret once), list, revoke.
    #[command(subcommand)]
    Keys(keys::KeysCmd),
    /// Print the API's OpenAPI document (the route table's, backend-neutral: what the
    /// generated clients are made from; a running server serves its own at `/openapi.json`
    /// and `/openapi-3.0.json`, with its backend's strategies and limits).
    Openapi(OpenapiArgs),
    /// Fault scenarios with Jepsen-style checks (bounded, loopback only, on PostgreSQL clusters
    /// the suite makes itself); exits 1 when a check fails.
    Chaos(ChaosArgs),
    /// Differential simulation: one seeded sequence of operations against the reference
    /// model and every backend and strategy, every answer and the stock after every step
    /// compared; exits 1 on a divergence, printing the step and a shrunk sequence.
    Sim(sim::SimArgs),
}

#[derive(Args)]
struct ChaosArgs {
    /// sqlite-kill, pg-restart-fast, pg-restart-immediate, pg-kill-allot, pg-failover,
    /// pg-haproxy, redis-restart, redis-flushall, or all (all but `soak`: 30 minutes of mixed load with
    /// memory, descriptors and p99 sampled, which must stay flat).
    #[arg(long, default_value = "all")]
    scenario: String,
    /// Concurrent clients.
    #[arg(short = 'c', long, default_value_t = 32)]
    clients: usize,
    /// Requests per scenario (each one unit, each with its own Idempotency-Key).
    #[arg(short = 'n', long, default_value_t = 3000)]
    requests: u64,
    /// `--scenario soak`: how long, seconds (not part of `all`).
    #[arg(long, default_value_t = 1800)]
    duration_s: u64,
    /// `--scenario soak`: sampling interval, seconds.
    #[arg(long, default_value_t = 60)]
    sample_s: u64,
}

#[derive(Args)]
struct OpenapiArgs {
    /// `3.1` (as utoipa makes it) or `3.0` (for generators that cannot read 3.1).
    #[arg(long = "openapi-version", value_enum, default_value_t = OpenapiVersion::V3_1)]
    version: OpenapiVersion,
}

/// Which OpenAPI version `allot openapi` prints.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum OpenapiVersion {
    /// OpenAPI 3.1.
    #[value(name = "3.1")]
    V3_1,
    /// OpenAPI 3.0.3.
    #[value(name = "3.0")]
    V3_0,
}

#[derive(Args, Clone)]
struct AuditArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Only this tenant (default: every tenant; each finding names its tenant).
    #[arg(long, value_parser = tenant_arg)]
    tenant: Option<allot_core::Tenant>,
}

#[derive(Args, Clone)]
struct RebalanceArgs {
    #[command(flatten)]
    db: DbArgs,
    /// The tenant whose SKUs to rebalance.
    #[arg(long, default_value = allot_core::access::DEFAULT_TENANT, value_parser = tenant_arg)]
    tenant: allot_core::Tenant,
    /// Only this SKU (default: every SKU with more than one bucket).
    #[arg(long)]
    sku: Option<String>,
}

/// Run the command; an error is printed as its chain of causes in one line (`Error: a: b`),
/// never with a backtrace, whatever `RUST_BACKTRACE` says, and exits 1.
fn main() -> std::process::ExitCode {
    match start() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("Error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Parse the command line (with the config file), set up logging and the runtime, run.
fn start() -> anyhow::Result<std::process::ExitCode> {
    let args: Vec<OsString> = std::env::args_os().collect();
    // First pass only to learn `--config` / ALLOT_CONFIG; the second sees the file's values.
    let config = Cli::parse_from(&args).config;
    let cli = Cli::parse_from(with_config_file(&Cli::command(), args, config.as_deref())?);
    let quiet = matches!(cli.cmd, Cmd::Bench(_) | Cmd::Chaos(_) | Cmd::Sim(_));
    let _flush_logs_at_exit = logging::init(cli.log_format, quiet);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let result = rt.block_on(run(cli));
    // Tasks still running (requests cut off by a second Ctrl-C) are not waited for.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    result
}

async fn run(cli: Cli) -> anyhow::Result<std::process::ExitCode> {
    match cli.cmd {
        Cmd::Serve(a) => {
            let cfg = a.config()?;
            if allot_server::serve_until_signal(&cfg).await? == allot_server::Stopped::Forced {
                // 128 + SIGINT, as a shell reports a process interrupted.
                return Ok(std::process::ExitCode::from(130));
            }
        }
        Cmd::Migrate(db) => {
            let store = allot_store::open(&db.database_url, &db.options(Default::default())).await?;
            println!("migrations applied to {}", store.backend().name());
        }
        Cmd::Audit(a) => {
            let store = allot_store::open(&a.db.database_url, &a.db.options(existing())).await?;
            let report = store.audit(a.tenant.as_ref()).await?;
            print_audit(&report);
            if !report.is_clean() {
                std::process::exit(1);
            }
        }
        Cmd::Rebalance(a) => {
            let store = allot_store::open(&a.db.database_url, &a.db.options(existing())).await?;
            let n = store.rebalance(&a.tenant, a.sku.as_deref()).await?;
            println!("rebalanced {n} SKUs");
        }
        Cmd::Bench(cmd) => bench::bench(cmd).await?,
        Cmd::Keys(k) => keys::keys(k).await?,
        Cmd::Chaos(a) => chaos(a).await?,
        Cmd::Sim(a) => {
            if !sim::sim(a).await? {
                return Ok(std::process::ExitCode::FAILURE);
            }
        }
        Cmd::Openapi(a) => {
            let doc = serde_json::to_value(allot_server::openapi())?;
            let doc = match a.version {
                OpenapiVersion::V3_1 => doc,
                OpenapiVersion::V3_0 => allot_server::openapi_30(doc),
            };
            println!("{}", serde_json::to_string_pretty(&doc)?);
        }
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `allot chaos`: the scenario's run and report are allot-bench's; exit 1 when an invariant
/// broke.
async fn chaos(a: ChaosArgs) -> anyhow::Result<()> {
    let run = allot_bench::orchestrate::chaos_runs::ChaosRun {
        allot_bin: std::env::current_exe()?,
        clients: a.clients,
        requests: a.requests,
        duration_s: a.duration_s,
        sample_s: a.sample_s,
    };
    if !allot_bench::orchestrate::chaos_runs::run(&a.scenario, &run).await? {
        std::process::exit(1);
    }
    Ok(())
}

/// Print an audit report: one summary line, then one line per finding.
fn print_audit(report: &allot_core::AuditReport) {
    println!(
        "audit: {} SKUs, {} ledger entries, {} jobs, {} allocation lines, {} hold lines, {} transfers, \
         {} violations, {} job violations, {} overlapping bookings{}, {} slots, {} over capacity",
        report.skus_checked,
        report.ledger_entries,
        report.jobs_checked,
        report.allocations_checked,
        report.holds_checked,
        report.transfers_checked,
        report.violations.len(),
        report.job_violations.len(),
        report.booking_overlaps.len(),
        if report.booking_overlaps_truncated {
            " (more not listed)"
        } else {
            ""
        },
        report.slots_checked,
        report.slot_overbookings.len(),
    );
    // Findings of the default tenant read as before tenants; others name their tenant.
    let of = |t: &str| match t {
        allot_core::access::DEFAULT_TENANT => String::new(),
        t => format!(" (tenant {t})"),
    };
    for v in &report.violations {
        println!("  {}{}: {}", v.sku, of(&v.tenant), v.problem);
    }
    for v in &report.job_violations {
        println!("  job {} (queue {}){}: {}", v.id, v.queue, of(&v.tenant), v.problem);
    }
    for o in &report.booking_overlaps {
        println!(
            "  resource {}{}: bookings {} and {} overlap",
            o.resource,
            of(&o.tenant),
            o.first,
            o.second
        );
    }
    for o in &report.slot_overbookings {
        let owner = match (&o.resource, &o.pool) {
            (_, Some(p)) => format!("pool {p}"),
            (Some(r), None) => format!("resource {r}"),
            (None, None) => "?".into(),
        };
        println!(
            "  {owner}{}: slot {} holds {} booked, capacity {}",
            of(&o.tenant),
            o.slot_start.to_rfc3339(),
            o.booked,
            o.capacity
        );
    }
}
