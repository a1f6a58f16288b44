//! `allot`: serve | migrate | audit | rebalance | bench.
//!
//! Configuration precedence: command-line flag > environment variable (`ALLOT_*`) > TOML
//! file (`--config FILE` or `ALLOT_CONFIG`, keys as the long flag names with `_`, e.g.
//! `max_lines = 50`) > built-in default.

use allot_core::{Limits, Strategy};
use allot_server::ServerConfig;
use anyhow::{bail, Context};
use clap::{Args, Parser, Subcommand};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "allot",
    version,
    about = "Hands out scarce things to many concurrent callers without overselling."
)]
struct Cli {
    /// TOML file with settings (keys are the long flag names with `_`); flags and
    /// environment variables override it.
    #[arg(long, env = "ALLOT_CONFIG", global = true)]
    config: Option<PathBuf>,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run the HTTP service (embedded SQLite `./allot.db` on 127.0.0.1:8080 by default).
    Serve(ServeArgs),
    /// Apply the versioned migrations and exit.
    Migrate(DbArgs),
    /// Check conservation of every SKU (on_hand and held = sums of the ledger and of active
    /// holds, 0 <= held <= on_hand) and that no two blocking bookings of a resource overlap;
    /// exit 1 on any violation.
    Audit(DbArgs),
    /// Spread each segmented SKU's available stock evenly over its buckets.
    Rebalance(RebalanceArgs),
    /// Load generators with invariant checks.
    #[command(subcommand)]
    Bench(BenchCmd),
}

#[derive(Args, Clone)]
struct DbArgs {
    /// `sqlite://relative.db`, `sqlite:///absolute/path.db` or `postgres://user@host:port/db`.
    #[arg(long, env = "ALLOT_DATABASE_URL", default_value = "sqlite://allot.db")]
    database_url: String,
}

/// The named limits as flags and `ALLOT_*` variables, built from [`Limits::TABLE`] (one
/// place defines each limit's name, default, help and minimum).
#[derive(Clone, Debug, Default)]
struct LimitArgs {
    limits: Limits,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        self.limits.clone()
    }

    /// `max_lines` -> `ALLOT_MAX_LINES`.
    fn env_name(name: &str) -> String {
        format!("ALLOT_{}", name.to_uppercase())
    }
}

impl clap::FromArgMatches for LimitArgs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let mut limits = Limits::default();
        for info in Limits::TABLE {
            if let Some(v) = m.get_one::<String>(info.name) {
                limits
                    .set(info.name, v)
                    .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e))?;
            }
        }
        Ok(LimitArgs { limits })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for LimitArgs {
    fn augment_args(mut cmd: clap::Command) -> clap::Command {
        for info in Limits::TABLE {
            let default = Limits::default_text(info.name).unwrap_or_default();
            cmd = cmd.arg(
                clap::Arg::new(info.name)
                    .long(info.name.replace('_', "-"))
                    .env(Self::env_name(info.name))
                    .value_name(info.name.to_uppercase())
                    .default_value(default)
                    .help(info.help.trim())
                    .help_heading("Limits"),
            );
        }
        cmd
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

#[derive(Args, Clone)]
struct ServeArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Address to listen on.
    #[arg(long, env = "ALLOT_LISTEN", default_value = "127.0.0.1:8080")]
    listen: String,
    /// Strategy for requests that name none (default: batched on PostgreSQL, serialized on SQLite).
    #[arg(long, env = "ALLOT_DEFAULT_STRATEGY")]
    default_strategy: Option<String>,
    /// Allow `naive` (it oversells; it exists to show that in the benchmark).
    #[arg(long, env = "ALLOT_ALLOW_UNSAFE_STRATEGIES")]
    allow_unsafe_strategies: bool,
    /// PostgreSQL connections in the pool.
    #[arg(long, env = "ALLOT_POOL_SIZE", default_value_t = 32)]
    pool_size: usize,
    /// How long a request waits for a pooled connection before 503, ms.
    #[arg(long, env = "ALLOT_POOL_WAIT_MS", default_value_t = 5000)]
    pool_wait_ms: u64,
    /// How long stored Idempotency-Key responses are kept, ms (at least 24 h).
    #[arg(long, env = "ALLOT_IDEMPOTENCY_RETENTION_MS", default_value_t = 86_400_000,
          value_parser = clap::value_parser!(u64).range(86_400_000..))]
    idempotency_retention_ms: u64,
    /// How often expired idempotency responses are pruned, ms.
    #[arg(long, env = "ALLOT_SWEEP_INTERVAL_MS", default_value_t = 60_000)]
    sweep_interval_ms: u64,
    /// How often expired holds are finalised, ms (readers and writers never wait for it).
    #[arg(long, env = "ALLOT_HOLD_SWEEP_INTERVAL_MS", default_value_t = 1000)]
    hold_sweep_interval_ms: u64,
    /// How long completed, discarded and cancelled jobs are kept before pruning, ms.
    #[arg(long, env = "ALLOT_JOB_RETENTION_MS", default_value_t = 86_400_000)]
    job_retention_ms: u64,
    /// Redis for the `redis_counter` and `redis_lock` strategies: `redis://host:port`, or a
    /// Redis Cluster as `redis+cluster://host:port,host:port` (or a list of redis:// URLs).
    #[arg(long, env = "ALLOT_REDIS_URL")]
    redis_url: Option<String>,
    /// Prefix of allot's Redis keys.
    #[arg(long, env = "ALLOT_REDIS_KEY_PREFIX", default_value = "allot")]
    redis_key_prefix: String,
    /// Admission counters are rebuilt from the database after this long, ms.
    #[arg(long, env = "ALLOT_REDIS_COUNTER_TTL_MS", default_value_t = 60_000)]
    redis_counter_ttl_ms: u64,
    /// TTL of a `redis_lock` lock, ms (a watchdog renews it while held).
    #[arg(long, env = "ALLOT_REDIS_LOCK_TTL_MS", default_value_t = 5_000)]
    redis_lock_ttl_ms: u64,
    #[command(flatten)]
    limits: LimitArgs,
}

impl ServeArgs {
    fn config(&self) -> anyhow::Result<ServerConfig> {
        let default_strategy = match &self.default_strategy {
            None => None,
            Some(s) => Some(
                s.parse::<Strategy>()
                    .map_err(|e| anyhow::anyhow!("--default-strategy: {e}"))?,
            ),
        };
        Ok(ServerConfig {
            listen: self.listen.clone(),
            database_url: self.db.database_url.clone(),
            default_strategy,
            allow_unsafe_strategies: self.allow_unsafe_strategies,
            limits: self.limits.limits(),
            pool_size: self.pool_size,
            pool_wait_ms: self.pool_wait_ms,
            idempotency_retention_ms: self.idempotency_retention_ms,
            sweep_interval_ms: self.sweep_interval_ms,
            hold_sweep_interval_ms: self.hold_sweep_interval_ms,
            job_retention_ms: self.job_retention_ms,
            redis_url: self.redis_url.clone(),
            redis_key_prefix: self.redis_key_prefix.clone(),
            redis_counter_ttl_ms: self.redis_counter_ttl_ms,
            redis_lock_ttl_ms: self.redis_lock_ttl_ms,
            ..ServerConfig::default()
        })
    }
}

#[derive(Args, Clone)]
struct RebalanceArgs {
    #[command(flatten)]
    db: DbArgs,
    /// Only this SKU (default: every SKU with more than one bucket).
    #[arg(long)]
    sku: Option<String>,
}

#[derive(Subcommand)]
enum BenchCmd {
    /// N single-unit allocations from C clients against stock k, per strategy, with the
    /// invariant checks (successes == min(N, k), final on_hand == k - successes, audit clean).
    FlashSale(FlashSaleArgs),
    /// Flows of hold -> confirm / release / abandon (expire) from C clients per stock
    /// strategy, then the conservation check (nothing held, on_hand = k - confirmed, audit clean).
    Holds(HoldsArgs),
    /// Claims of 1-5 units from a large pool and from a nearly empty one per unit strategy,
    /// with the checks (no unit twice, units of successes = what left the pool,
    /// insufficient_stock only when fewer were left).
    Units(UnitsArgs),
    /// Random `--days`-long bookings from C clients over R resources per booking strategy,
    /// then the overlap check (only `naive` may double-book).
    Bookings(BookingsArgs),
    /// P producers enqueue J jobs, W worker pools (the allot-worker library, straight on the
    /// store) claim and complete them in batches; some jobs fail once, some pools are killed
    /// mid-job; then the total-queue check (every job completed exactly once, none lost).
    Queue(QueueArgs),
    /// Every workload (hot SKU, spread, holds, units, bookings, queue) under every strategy of
    /// the backend in one run: a Markdown table, a JSON file and a PNG chart (throughput and
    /// p99), and on PostgreSQL with pgbench installed the textbook single-statement hot-SKU
    /// allocation on the same database with allot's ratio to it.
    Compare(CompareArgs),
}

#[derive(Args)]
struct CompareArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// Concurrent clients of the HTTP workloads (C).
    #[arg(short = 'c', long, default_value_t = 256)]
    clients: usize,
    /// Requests of the hot-SKU and spread workloads (N); the others run a fraction of it.
    #[arg(short = 'n', long, default_value_t = 20_000)]
    requests: u64,
    /// SKUs of the spread workload.
    #[arg(long, default_value_t = 10_000)]
    spread: u32,
    /// Jobs of the queue workload (needs --database-url, not --url).
    #[arg(long, default_value_t = 50_000)]
    jobs: u64,
    /// Seconds of each pgbench reference run.
    #[arg(long, default_value_t = 10)]
    pgbench_seconds: u64,
    /// Directory for compare.md, compare.json and compare.png.
    #[arg(long, default_value = "allot-compare")]
    out: PathBuf,
}

#[derive(Args)]
struct QueueArgs {
    /// Database (default: a fresh SQLite file in the temp dir).
    #[arg(long)]
    database_url: Option<String>,
    /// skip_locked, advisory (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    strategy: String,
    /// Producers (P).
    #[arg(short = 'p', long, default_value_t = 4)]
    producers: usize,
    /// Jobs (J).
    #[arg(short = 'j', long, default_value_t = 100_000)]
    jobs: u64,
    /// Jobs per enqueue batch.
    #[arg(long, default_value_t = 1000)]
    batch: usize,
    /// Share of jobs enqueued one by one.
    #[arg(long, default_value_t = 0.01)]
    single_fraction: f64,
    /// Worker pools (W).
    #[arg(short = 'w', long, default_value_t = 4)]
    workers: usize,
    /// Slots per pool.
    #[arg(long, default_value_t = 200)]
    concurrency: usize,
    /// Jobs per claim, at most.
    #[arg(long, default_value_t = 100)]
    claim_batch: i64,
    /// Share of jobs whose first attempt fails.
    #[arg(long, default_value_t = 0.05)]
    fail_fraction: f64,
    /// Pools killed mid-run.
    #[arg(long, default_value_t = 1)]
    kill_workers: usize,
    /// Lease, ms.
    #[arg(long, default_value_t = 2000)]
    lease_ms: i64,
    /// PostgreSQL pool size.
    #[arg(long, default_value_t = 32)]
    pool_size: usize,
    /// Instead of the workload: single-job claims only, from this many clients, for at most
    /// `--seconds` (the figure to compare with bench/pgbench/jobs_claim.sql).
    #[arg(long)]
    claims_only: Option<usize>,
    /// Time limit of `--claims-only`, s.
    #[arg(long, default_value_t = 15)]
    seconds: u64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Args)]
struct BookingsArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// exclusion, advisory, naive (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    clients: usize,
    /// Booking requests (N).
    #[arg(short = 'n', long, default_value_t = 10_000)]
    requests: u64,
    /// Resources (R); few resources means high contention.
    #[arg(long, default_value_t = 100)]
    resources: u32,
    /// Length of every range, days.
    #[arg(long, default_value_t = 3)]
    days: u32,
    /// Ranges start on a random day in 0..horizon from 2030-01-01.
    #[arg(long, default_value_t = 3650)]
    horizon_days: u32,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// Where a benchmark sends its load.
#[derive(Args, Clone)]
struct TargetArgs {
    /// A running server to load (loopback). Without it, one is started in-process on
    /// `--database-url` with unsafe strategies allowed.
    #[arg(long)]
    url: Option<String>,
    /// Database of the in-process server (default: a fresh SQLite file in the temp dir).
    #[arg(long)]
    database_url: Option<String>,
    /// PostgreSQL pool size of the in-process server.
    #[arg(long, default_value_t = 32)]
    pool_size: usize,
    /// Redis of the in-process server (adds `redis_counter` and `redis_lock` to `all`).
    #[arg(long, env = "ALLOT_REDIS_URL")]
    redis_url: Option<String>,
}

#[derive(Args)]
struct HoldsArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// Strategy, a comma-separated list, or `all`.
    #[arg(long, default_value = "all")]
    strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    clients: usize,
    /// Stock of the SKU (k).
    #[arg(short = 'k', long, default_value_t = 100_000)]
    stock: i64,
    /// Flows (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    flows: u64,
    /// TTL of every hold, ms (abandoned holds expire after it).
    #[arg(long, default_value_t = 1000)]
    ttl_ms: u64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Args)]
struct UnitsArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// skip_locked, nowait_scan (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    clients: usize,
    /// Units in the large pool.
    #[arg(long, default_value_t = 100_000)]
    units: u64,
    /// Claims against the large pool (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    requests: u64,
    /// Smallest quantity of a claim.
    #[arg(long, default_value_t = 1)]
    min_quantity: i64,
    /// Largest quantity of a claim.
    #[arg(long, default_value_t = 5)]
    max_quantity: i64,
    /// Units in the nearly empty pool.
    #[arg(long, default_value_t = 200)]
    scarce_units: u64,
    /// Comma-separated order_by of every claim.
    #[arg(long, default_value = "received_at,location")]
    order_by: String,
    /// Claim the large workload from this existing unit SKU instead of filling a new pool.
    #[arg(long)]
    pool_sku: Option<String>,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

#[derive(Args)]
struct FlashSaleArgs {
    #[command(flatten)]
    target: TargetArgs,
    /// Strategy, a comma-separated list, or `all` (every strategy of the backend).
    #[arg(long, default_value = "all")]
    strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    clients: usize,
    /// Stock per SKU (k).
    #[arg(short = 'k', long, default_value_t = 1000)]
    stock: i64,
    /// Requests (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    requests: u64,
    /// Spread the load over M SKUs (each with stock k) instead of one hot SKU.
    #[arg(long, default_value_t = 1)]
    spread: u32,
    /// Buckets of the SKUs of the `segmented` run.
    #[arg(long, default_value_t = 8)]
    buckets: u32,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

/// The command line with the TOML config file's settings added (if there is a file): a key
/// becomes `--key=value` when the chosen command has that flag and neither the command line
/// nor its `ALLOT_<KEY>` variable sets it, so precedence is flag > env > file > default.
/// Keys the command has no flag for are ignored (one file serves every command).
fn with_config_file(mut args: Vec<OsString>, path: Option<&Path>) -> anyhow::Result<Vec<OsString>> {
    let Some(path) = path else { return Ok(args) };
    let text = std::fs::read_to_string(path).with_context(|| format!("reading config {}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("parsing config {}", path.display()))?;
    let command = chosen_command(&args);
    for (key, value) in table {
        let long = key.replace('_', "-");
        let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(long.as_str())) else {
            continue;
        };
        let given = args.iter().any(|a| {
            a.to_str()
                .is_some_and(|a| a == format!("--{long}") || a.starts_with(&format!("--{long}=")))
        });
        let env_set = arg.get_env().is_some_and(|e| std::env::var_os(e).is_some());
        if given || env_set {
            continue;
        }
        match value {
            toml::Value::Boolean(true) if !arg.get_action().takes_values() => args.push(format!("--{long}").into()),
            toml::Value::Boolean(false) if !arg.get_action().takes_values() => {}
            toml::Value::String(v) => args.push(format!("--{long}={v}").into()),
            toml::Value::Integer(v) => args.push(format!("--{long}={v}").into()),
            toml::Value::Float(v) => args.push(format!("--{long}={v}").into()),
            toml::Value::Boolean(v) => args.push(format!("--{long}={v}").into()),
            other => bail!("config key `{key}`: unsupported value {other}"),
        }
    }
    Ok(args)
}

/// The (sub)command `args` run, e.g. `bench flash-sale`: its flags are the ones a config key
/// may set.
fn chosen_command(args: &[OsString]) -> clap::Command {
    use clap::CommandFactory;
    let mut command = Cli::command();
    command.build();
    let matches = Cli::command().ignore_errors(true).get_matches_from(args);
    let mut m = &matches;
    while let Some((name, sub)) = m.subcommand() {
        let Some(next) = command.find_subcommand(name).cloned() else {
            break;
        };
        command = next;
        m = sub;
    }
    command
}

fn main() -> anyhow::Result<()> {
    let args: Vec<OsString> = std::env::args_os().collect();
    // First pass only to learn `--config` / ALLOT_CONFIG; the second sees the file's values.
    let config = Cli::parse_from(&args).config;
    let cli = Cli::parse_from(with_config_file(args, config.as_deref())?);
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("ALLOT_LOG").unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    rt.block_on(run(cli))
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.cmd {
        Cmd::Serve(a) => {
            let cfg = a.config()?;
            allot_server::serve_until_signal(&cfg).await?;
        }
        Cmd::Migrate(db) => {
            let store = allot_store::open(&db.database_url, &Default::default()).await?;
            println!("migrations applied to {}", store.backend().name());
        }
        Cmd::Audit(db) => {
            let store = allot_store::open(&db.database_url, &Default::default()).await?;
            let report = store.audit().await?;
            print_audit(&report);
            if !report.is_clean() {
                std::process::exit(1);
            }
        }
        Cmd::Rebalance(a) => {
            let store = allot_store::open(&a.db.database_url, &Default::default()).await?;
            let n = store.rebalance(a.sku.as_deref()).await?;
            println!("rebalanced {n} SKUs");
        }
        Cmd::Bench(BenchCmd::FlashSale(a)) => flash_sale(a).await?,
        Cmd::Bench(BenchCmd::Holds(a)) => holds(a).await?,
        Cmd::Bench(BenchCmd::Units(a)) => units(a).await?,
        Cmd::Bench(BenchCmd::Bookings(a)) => bookings(a).await?,
        Cmd::Bench(BenchCmd::Queue(a)) => queue(a).await?,
        Cmd::Bench(BenchCmd::Compare(a)) => compare(a).await?,
    }
    Ok(())
}

/// The URL to load, and the in-process server started for it when no `--url` was given.
async fn bench_target(t: &TargetArgs) -> anyhow::Result<(String, Option<allot_server::RunningServer>)> {
    if let Some(u) = &t.url {
        return Ok((u.trim_end_matches('/').to_string(), None));
    }
    let database_url = t.database_url.clone().unwrap_or_else(|| {
        let p = std::env::temp_dir().join(format!("allot-bench-{}.db", std::process::id()));
        format!("sqlite://{}", p.display())
    });
    let cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url,
        allow_unsafe_strategies: true,
        pool_size: t.pool_size,
        redis_url: t.redis_url.clone(),
        ..ServerConfig::default()
    };
    let s = allot_server::spawn(&cfg).await?;
    let url = s.url();
    eprintln!("started an in-process {} server on {url}", cfg.backend_name());
    Ok((url, Some(s)))
}

/// Print the table, write the JSON, stop the in-process server, and fail on any violation.
async fn finish_load(
    title: String,
    reports: &[allot_bench::LoadReport],
    json: Option<&PathBuf>,
    server: Option<allot_server::RunningServer>,
) -> anyhow::Result<()> {
    println!("{title}\n");
    print!("{}", allot_bench::render_load_table(reports));
    if let Some(path) = json {
        std::fs::write(path, serde_json::to_vec_pretty(reports)?)?;
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    // `naive` breaks its invariants by design (that is what it is for): reported, not fatal.
    let broken: Vec<String> = reports
        .iter()
        .filter(|r| !r.violations.is_empty() && !allot_core::strategy::is_unsafe_name(&r.strategy))
        .map(|r| format!("{} {}", r.workload, r.strategy))
        .collect();
    if !broken.is_empty() {
        bail!("invariants broken: {}", broken.join(", "));
    }
    Ok(())
}

async fn holds(a: HoldsArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::HoldsOptions {
        url,
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        clients: a.clients,
        stock: a.stock,
        flows: a.flows,
        ttl_ms: a.ttl_ms,
        progress: true,
    };
    let reports = allot_bench::holds_bench(&opts).await?;
    let title = format!("holds: C={} k={} N={} ttl_ms={}", a.clients, a.stock, a.flows, a.ttl_ms);
    finish_load(title, &reports, a.json.as_ref(), server).await
}

async fn units(a: UnitsArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::UnitsOptions {
        url,
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        clients: a.clients,
        pool_units: a.units,
        requests: a.requests,
        min_quantity: a.min_quantity,
        max_quantity: a.max_quantity,
        scarce_units: a.scarce_units,
        order_by: a
            .order_by
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        pool_sku: a.pool_sku.clone(),
        progress: true,
    };
    let reports = allot_bench::units_bench(&opts).await?;
    let title = format!(
        "units: C={} pool={} N={} quantity={}..={} scarce={} order_by={}",
        a.clients, a.units, a.requests, a.min_quantity, a.max_quantity, a.scarce_units, a.order_by
    );
    finish_load(title, &reports, a.json.as_ref(), server).await
}

async fn bookings(a: BookingsArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::BookingsOptions {
        url,
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        clients: a.clients,
        requests: a.requests,
        resources: a.resources,
        days: a.days,
        horizon_days: a.horizon_days,
        progress: true,
    };
    let reports = allot_bench::bookings_bench(&opts).await?;
    let title = format!(
        "bookings: C={} N={} resources={} days={} horizon_days={}",
        a.clients, a.requests, a.resources, a.days, a.horizon_days
    );
    finish_load(title, &reports, a.json.as_ref(), server).await
}

async fn queue(a: QueueArgs) -> anyhow::Result<()> {
    let database_url = a.database_url.clone().unwrap_or_else(|| {
        let p = std::env::temp_dir().join(format!("allot-bench-queue-{}.db", std::process::id()));
        format!("sqlite://{}", p.display())
    });
    let opts = allot_store::OpenOptions {
        pool_size: a.pool_size,
        ..Default::default()
    };
    let store = allot_store::open(&database_url, &opts).await?;
    let strategies = if a.strategy == "all" {
        allot_core::ClaimStrategy::ALL.to_vec()
    } else {
        a.strategy
            .split(',')
            .map(|s| allot_core::ClaimStrategy::parse(s.trim()).ok_or_else(|| anyhow::anyhow!("unknown strategy {s}")))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let opts = allot_bench::QueueOptions {
        strategies,
        producers: a.producers,
        jobs: a.jobs,
        batch: a.batch,
        single_fraction: a.single_fraction,
        workers: a.workers,
        concurrency: a.concurrency,
        claim_batch: a.claim_batch,
        fail_fraction: a.fail_fraction,
        kill_workers: a.kill_workers,
        lease_ms: a.lease_ms,
        drain_timeout_s: 300,
    };
    if let Some(clients) = a.claims_only {
        return claims_only(store, &opts.strategies, &a, clients).await;
    }
    let reports = allot_bench::queue_bench(store, &opts).await?;
    println!(
        "queue: P={} J={} W={}x{} claim_batch={} fail={} killed={}\n",
        a.producers, a.jobs, a.workers, a.concurrency, a.claim_batch, a.fail_fraction, a.kill_workers
    );
    print!("{}", allot_bench::render_queue_table(&reports));
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_vec_pretty(&reports)?)?;
    }
    let broken: Vec<&str> = reports
        .iter()
        .filter(|r| !r.violations.is_empty())
        .map(|r| r.strategy.as_str())
        .collect();
    if !broken.is_empty() {
        bail!("queue check broken for: {}", broken.join(", "));
    }
    Ok(())
}

/// `bench queue --claims-only`: claims alone on a loaded queue, per strategy, as a table;
/// fails when a job was leased twice.
async fn claims_only(
    store: std::sync::Arc<dyn allot_core::Store>,
    strategies: &[allot_core::ClaimStrategy],
    a: &QueueArgs,
    clients: usize,
) -> anyhow::Result<()> {
    println!("| strategy | claimed | claims/s | p50 ms | p99 ms | leased twice |\n|---|---:|---:|---:|---:|---:|");
    for s in strategies {
        if !store.supports_claim(*s) {
            continue;
        }
        let r = allot_bench::claim_bench(store.clone(), *s, a.jobs, clients, a.seconds).await?;
        println!(
            "| {} | {} | {:.0} | {:.2} | {:.2} | {} |",
            r.strategy,
            r.claimed,
            r.claims_per_s,
            r.latency_us_p50 as f64 / 1000.0,
            r.latency_us_p99 as f64 / 1000.0,
            r.duplicates
        );
        if r.duplicates > 0 {
            bail!("{}: {} jobs leased twice", r.strategy, r.duplicates);
        }
    }
    Ok(())
}

fn load_rows(reports: &[allot_bench::LoadReport]) -> Vec<allot_bench::CompareRow> {
    reports
        .iter()
        .map(|r| allot_bench::CompareRow {
            workload: r.workload.clone(),
            strategy: r.strategy.clone(),
            ops_per_s: r.requests_per_s,
            latency_us_p99: r.latency_us_p99,
            invariants_ok: r.violations.is_empty(),
            pgbench_tps: None,
            reference: None,
        })
        .collect()
}

async fn compare(a: CompareArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let n = a.requests.max(100);
    let mut rows = compare_http_workloads(&url, &a, n).await?;
    let database_url = a.target.database_url.clone();
    if let (Some(db), None) = (&database_url, &a.target.url) {
        rows.extend(compare_queue(db, &a).await?);
    }
    // The textbook reference: the single conditional UPDATE on one hot row, same database.
    if let Some(db) = database_url.as_deref().filter(|u| u.starts_with("postgres")) {
        if allot_bench::pgbench_available() {
            add_pgbench_reference(&mut rows, &url, db, &a).await?;
        }
    }
    // The Redis reference: redis-benchmark running redis_counter's admission script itself.
    if let Some(redis_url) = a.target.redis_url.as_deref() {
        if allot_bench::redis_benchmark_available() {
            eprintln!("== redis-benchmark: admission script");
            let rps = allot_bench::redis_benchmark_admission_rps(redis_url, a.clients, n.max(10_000));
            for r in rows
                .iter_mut()
                .filter(|r| r.workload == "hot_sku" && r.strategy == "redis_counter")
            {
                r.pgbench_tps = rps;
                r.reference = rps.map(|_| "redis-benchmark".to_string());
            }
        }
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    write_compare(&rows, &a, n)
}

/// The HTTP workloads of `bench compare` under every strategy: hot SKU, spread, holds,
/// units, bookings.
async fn compare_http_workloads(url: &str, a: &CompareArgs, n: u64) -> anyhow::Result<Vec<allot_bench::CompareRow>> {
    let all = vec!["all".to_string()];
    let mut rows: Vec<allot_bench::CompareRow> = Vec::new();
    for (workload, spread, stock) in [("hot_sku", 1, n as i64), ("spread", a.spread.max(1), 100)] {
        eprintln!("== {workload}");
        let opts = allot_bench::FlashSaleOptions {
            url: url.to_string(),
            strategies: all.clone(),
            clients: a.clients,
            stock,
            requests: n,
            spread,
            segmented_buckets: 8,
            progress: true,
        };
        for r in allot_bench::flash_sale(&opts).await? {
            rows.push(compare_row(
                workload,
                &r.strategy,
                r.allocations_per_s,
                r.latency_us_p99,
                r.violations.is_empty(),
            ));
        }
    }
    eprintln!("== holds");
    let holds = allot_bench::HoldsOptions {
        url: url.to_string(),
        strategies: all.clone(),
        clients: a.clients.min(64),
        stock: 1_000_000,
        flows: (n / 4).max(100),
        ttl_ms: 2000,
        progress: true,
    };
    rows.extend(load_rows(&allot_bench::holds_bench(&holds).await?));
    eprintln!("== units");
    let units = allot_bench::UnitsOptions {
        url: url.to_string(),
        strategies: all.clone(),
        clients: a.clients.min(64),
        pool_units: 50_000,
        requests: (n / 2).max(100),
        min_quantity: 1,
        max_quantity: 3,
        scarce_units: 200,
        order_by: vec!["received_at".into(), "location".into()],
        pool_sku: None,
        progress: true,
    };
    rows.extend(load_rows(&allot_bench::units_bench(&units).await?));
    eprintln!("== bookings");
    let bookings = allot_bench::BookingsOptions {
        url: url.to_string(),
        strategies: all,
        clients: a.clients.min(64),
        requests: (n / 2).max(100),
        resources: 100,
        days: 3,
        horizon_days: 3650,
        progress: true,
    };
    rows.extend(load_rows(&allot_bench::bookings_bench(&bookings).await?));
    Ok(rows)
}

/// One row of the comparison, without a reference.
fn compare_row(workload: &str, strategy: &str, ops_per_s: f64, p99: u64, ok: bool) -> allot_bench::CompareRow {
    allot_bench::CompareRow {
        workload: workload.into(),
        strategy: strategy.to_string(),
        ops_per_s,
        latency_us_p99: p99,
        invariants_ok: ok,
        pgbench_tps: None,
        reference: None,
    }
}

/// The job queue under every claim strategy, straight on the store at `db`.
async fn compare_queue(db: &str, a: &CompareArgs) -> anyhow::Result<Vec<allot_bench::CompareRow>> {
    eprintln!("== queue");
    let open = allot_store::OpenOptions {
        pool_size: a.target.pool_size,
        ..Default::default()
    };
    let store = allot_store::open(db, &open).await?;
    let opts = allot_bench::QueueOptions {
        strategies: allot_core::ClaimStrategy::ALL.to_vec(),
        producers: 4,
        jobs: a.jobs,
        batch: 1000,
        single_fraction: 0.01,
        workers: 4,
        concurrency: 200,
        claim_batch: 100,
        fail_fraction: 0.0,
        kill_workers: 0,
        lease_ms: 30_000,
        drain_timeout_s: 300,
    };
    Ok(allot_bench::queue_bench(store, &opts)
        .await?
        .iter()
        .map(|r| {
            compare_row(
                "queue",
                &r.strategy,
                r.completed_per_s,
                r.claim_latency_us_p99,
                r.violations.is_empty(),
            )
        })
        .collect())
}

/// pgbench's hot-SKU script on the same database, as the reference of the hot-SKU rows.
async fn add_pgbench_reference(
    rows: &mut [allot_bench::CompareRow],
    url: &str,
    db: &str,
    a: &CompareArgs,
) -> anyhow::Result<()> {
    eprintln!("== pgbench: hot_sku");
    let sku = format!("pgbench-hot-{}", std::process::id());
    allot_bench::create_reference_sku(url, &sku, 1_000_000_000).await?;
    let script = std::env::temp_dir().join(format!("allot-hot-sku-{}.sql", std::process::id()));
    std::fs::write(&script, include_str!("../../../bench/pgbench/hot_sku.sql"))?;
    // At most 64 pgbench clients: the server's pool holds connections too, and more
    // clients cannot make one hot row go faster.
    let clients = a.clients.min(64);
    let tps = allot_bench::pgbench_tps(db, &script, clients, a.pgbench_seconds, &[("sku", format!("'{sku}'"))]);
    let _ = std::fs::remove_file(&script);
    for r in rows.iter_mut().filter(|r| r.workload == "hot_sku") {
        r.pgbench_tps = tps;
        r.reference = tps.map(|_| "pgbench".to_string());
    }
    Ok(())
}

/// Print the table, write it with the JSON and the chart under `--out`, and fail when a
/// safe strategy broke an invariant.
fn write_compare(rows: &[allot_bench::CompareRow], a: &CompareArgs, n: u64) -> anyhow::Result<()> {
    let table = allot_bench::render_compare_table(rows);
    println!(
        "compare: C={} N={} spread={} jobs={}\n\n{table}",
        a.clients, n, a.spread, a.jobs
    );
    std::fs::create_dir_all(&a.out)?;
    std::fs::write(a.out.join("compare.md"), &table)?;
    std::fs::write(a.out.join("compare.json"), serde_json::to_vec_pretty(rows)?)?;
    match allot_bench::write_chart(rows, &a.out.join("compare.png")) {
        Ok(()) => eprintln!("wrote {}/compare.{{md,json,png}}", a.out.display()),
        Err(e) => eprintln!("wrote {}/compare.{{md,json}}; no chart: {e}", a.out.display()),
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

async fn flash_sale(a: FlashSaleArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::FlashSaleOptions {
        url,
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        clients: a.clients,
        stock: a.stock,
        requests: a.requests,
        spread: a.spread,
        segmented_buckets: a.buckets,
        progress: true,
    };
    let reports = allot_bench::flash_sale(&opts).await?;
    println!(
        "flash sale: C={} k={} N={} spread={}\n",
        a.clients, a.stock, a.requests, a.spread
    );
    print!("{}", allot_bench::render_table(&reports));
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_vec_pretty(&reports)?)?;
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    let broken: Vec<&str> = reports
        .iter()
        .filter(|r| !r.unsafe_strategy && !r.violations.is_empty())
        .map(|r| r.strategy.as_str())
        .collect();
    if !broken.is_empty() {
        bail!("invariants broken for safe strategies: {}", broken.join(", "));
    }
    Ok(())
}

/// Print an audit report: one summary line, then one line per finding.
fn print_audit(report: &allot_core::AuditReport) {
    println!(
        "audit: {} SKUs, {} ledger entries, {} jobs, {} violations, {} job violations, {} overlapping bookings",
        report.skus_checked,
        report.ledger_entries,
        report.jobs_checked,
        report.violations.len(),
        report.job_violations.len(),
        report.booking_overlaps.len()
    );
    for v in &report.violations {
        println!("  {}: {}", v.sku, v.problem);
    }
    for v in &report.job_violations {
        println!("  job {} (queue {}): {}", v.id, v.queue, v.problem);
    }
    for o in &report.booking_overlaps {
        println!(
            "  resource {}: bookings {} and {} overlap",
            o.resource, o.first, o.second
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<OsString> {
        a.iter().map(OsString::from).collect()
    }

    #[test]
    fn config_file_fills_only_what_the_command_line_leaves_open() {
        let path = std::env::temp_dir().join(format!("allot-cli-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            "listen = \"127.0.0.1:1\"\nmax_lines = 7\nmax_claim = 3\nallow_unsafe_strategies = true\nnot_a_flag = 1\n",
        )
        .unwrap();
        let got = with_config_file(args(&["allot", "serve", "--max-lines=9"]), Some(&path)).unwrap();
        let cli = Cli::parse_from(&got);
        let Cmd::Serve(s) = cli.cmd else { panic!("serve") };
        assert_eq!(s.listen, "127.0.0.1:1", "from the file");
        assert_eq!(s.limits.limits().max_lines, 9, "the flag wins over the file");
        assert_eq!(s.limits.limits().max_claim, 3, "a limit from the file");
        assert!(s.allow_unsafe_strategies, "a boolean flag from the file");
        // Another command takes only the keys it has flags for.
        let got = with_config_file(args(&["allot", "audit"]), Some(&path)).unwrap();
        assert_eq!(got, args(&["allot", "audit"]));
        let _ = std::fs::remove_file(&path);
    }
}
