//! `allot bench …`: the flags of each workload and how each runs and reports.

use crate::{bail, Args, CompareArgs, PathBuf, ServerConfig, Subcommand};

#[derive(Subcommand)]
pub(crate) enum BenchCmd {
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
    /// What the change feed costs a hot SKU (`batched` by default: the flash sale with and
    /// without the feed's trigger, ABBA after a warm-up, on one PostgreSQL database), and the
    /// events per second one Server-Sent Events reader follows.
    Feed(FeedArgs),
    /// Every workload (hot SKU, spread, holds, units, bookings, queue, the batch API) under
    /// every strategy of the backend in one run: a Markdown table, a JSON file and a PNG chart
    /// (throughput and p99), with each workload's reference and allot's ratio to it: a no-op
    /// handler (hot SKU), pgbench on the same database (PostgreSQL), graphile-worker (the
    /// queue, with Node.js and npm), redis-benchmark (with --redis-url).
    Compare(CompareArgs),
    /// A flash sale across L locations (5 by default): N allocations of 1..=3 units from C
    /// clients with placements (priority, most available, ranked lists) and splits, per
    /// strategy, with the per-location checks; on PostgreSQL with pgbench installed, the
    /// textbook placement statement on the same database as the reference.
    Locations(crate::locations::LocationsArgs),
    /// N single-unit allocations on one hot SKU through `POST /v1/batch`, B operations per
    /// batch, from C connections each sending one batch at a time (one connection by
    /// default), per strategy, with the checks (successes == min(N, k), on_hand == k -
    /// successes, audit clean).
    Batch(BatchArgs),
    /// A flash sale whose hot SKU moves: N single-unit allocations from C clients over M
    /// SKUs in P phases, `--hot-share` of each phase's requests on that phase's hot SKU, under
    /// `auto` and each fixed strategy, with the per-SKU checks.
    Auto(AutoArgs),
    /// The console's calls (overview, queues, jobs by filter, the bulk count, SKU search and
    /// filters, events), one at a time, on a server filled with J jobs and S SKUs, beside
    /// `GET /livez` as the no-op reference; fails when the overview's p99 is 100 ms or more.
    Console(crate::console_bench::ConsoleArgs),
}

#[derive(Args)]
pub(crate) struct AutoArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategies, comma-separated.
    #[arg(long, default_value = "auto,atomic,batched")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 128)]
    pub(crate) clients: usize,
    /// Requests (N).
    #[arg(short = 'n', long, default_value_t = 40_000)]
    pub(crate) requests: u64,
    /// SKUs (M).
    #[arg(long, default_value_t = 100)]
    pub(crate) skus: u32,
    /// Phases (P).
    #[arg(long, default_value_t = 4)]
    pub(crate) phases: u32,
    /// Share of a phase's requests on its hot SKU.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) hot_share: f64,
    /// Stock per SKU (k).
    #[arg(short = 'k', long, default_value_t = 1_000_000)]
    pub(crate) stock: i64,
}

pub(crate) async fn auto(a: AutoArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::MovingOptions {
        url,
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        clients: a.clients,
        requests: a.requests,
        skus: a.skus,
        phases: a.phases,
        hot_share: a.hot_share.clamp(0.0, 1.0),
        stock: a.stock,
    };
    let reports = allot_bench::moving_bench(&opts).await?;
    println!(
        "moving hot SKU: C={} N={} M={} P={} hot share {}\n",
        a.clients, a.requests, a.skus, a.phases, opts.hot_share
    );
    print!("{}", allot_bench::render_moving_table(&reports));
    if let Some(s) = server {
        s.stop().await?;
    }
    if reports.iter().any(|r| !r.violations.is_empty()) {
        bail!("invariants broken");
    }
    Ok(())
}

#[derive(Args)]
pub(crate) struct BatchArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategy, a comma-separated list, `all`, or `default` (the operations name none: the
    /// server's default, `batched` on PostgreSQL and `serialized` on SQLite).
    #[arg(long, default_value = "default")]
    pub(crate) strategy: String,
    /// Connections (C).
    #[arg(short = 'c', long, default_value_t = 1)]
    pub(crate) connections: usize,
    /// Batches in flight on each connection (S): 1 sends one at a time over HTTP/1.1; more
    /// sends that many at once as HTTP/2 streams over the one connection.
    #[arg(short = 's', long, default_value_t = 1)]
    pub(crate) streams: usize,
    /// Operations per batch (B).
    #[arg(short = 'b', long, default_value_t = 1000)]
    pub(crate) batch: usize,
    /// Allocations (N), rounded up to whole batches.
    #[arg(short = 'n', long, default_value_t = 200_000)]
    pub(crate) requests: u64,
    /// Stock of the hot SKU (k); N by default, so every allocation can succeed.
    #[arg(short = 'k', long)]
    pub(crate) stock: Option<i64>,
    /// Seconds of the reference on PostgreSQL (the batch's write statement alone through
    /// pgbench, on `--database-url`, from C x S clients); 0 runs none.
    #[arg(long, default_value_t = 5)]
    pub(crate) pgbench_seconds: u64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

pub(crate) async fn batch(a: BatchArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::BatchOptions {
        url,
        strategies: a.strategy.split(',').map(|s| s.trim().to_string()).collect(),
        connections: a.connections,
        streams: a.streams,
        batch: a.batch,
        requests: a.requests,
        stock: a.stock.unwrap_or(a.requests as i64),
    };
    let mut reports = allot_bench::batch_bench(&opts).await?;
    let in_flight = (a.batch, a.connections.max(1) * a.streams.max(1));
    let reference = allot_bench::orchestrate::batch_ref::batch_reference(
        &opts.url,
        a.target.database_url.as_deref(),
        in_flight,
        a.pgbench_seconds,
    )
    .await;
    // The reference is the `batched` statement's: it stands beside the strategies that run
    // on the lanes (`default` is `batched` on PostgreSQL).
    for r in reports
        .iter_mut()
        .filter(|r| r.strategy == "batched" || r.strategy == allot_bench::SERVER_DEFAULT)
    {
        r.pgbench_allocations_per_s = reference
            .as_ref()
            .map(allot_bench::orchestrate::batch_ref::BatchReference::allocations_per_s);
    }
    println!(
        "batch: C={} S={} B={} N={} k={}\n",
        a.connections, a.streams, a.batch, a.requests, opts.stock
    );
    print!("{}", allot_bench::render_batch_table(&reports));
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
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_vec_pretty(&reports)?)?;
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    if reports.iter().any(|r| !r.violations.is_empty()) {
        bail!("invariants broken");
    }
    Ok(())
}

#[derive(Args)]
pub(crate) struct QueueArgs {
    /// Database (default: a fresh SQLite file in the temp dir).
    #[arg(long)]
    pub(crate) database_url: Option<String>,
    /// skip_locked, advisory (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Producers (P).
    #[arg(short = 'p', long, default_value_t = 4)]
    pub(crate) producers: usize,
    /// Jobs (J).
    #[arg(short = 'j', long, default_value_t = 100_000)]
    pub(crate) jobs: u64,
    /// Jobs per enqueue batch.
    #[arg(long, default_value_t = 1000)]
    pub(crate) batch: usize,
    /// Share of jobs enqueued one by one.
    #[arg(long, default_value_t = 0.01)]
    pub(crate) single_fraction: f64,
    /// Worker pools (W).
    #[arg(short = 'w', long, default_value_t = 4)]
    pub(crate) workers: usize,
    /// Slots per pool.
    #[arg(long, default_value_t = 200)]
    pub(crate) concurrency: usize,
    /// Jobs per claim, at most.
    #[arg(long, default_value_t = 100)]
    pub(crate) claim_batch: i64,
    /// Share of jobs whose first attempt fails.
    #[arg(long, default_value_t = 0.05)]
    pub(crate) fail_fraction: f64,
    /// Pools killed mid-run.
    #[arg(long, default_value_t = 1)]
    pub(crate) kill_workers: usize,
    /// Lease, ms.
    #[arg(long, default_value_t = 2000)]
    pub(crate) lease_ms: i64,
    /// PostgreSQL pool size.
    #[arg(long, default_value_t = 32)]
    pub(crate) pool_size: usize,
    /// Partition keys the jobs spread over (0: none; 1000 when --limit or --fifo asks for
    /// keys and this is not given).
    #[arg(long)]
    pub(crate) keys: Option<u64>,
    /// Also run each strategy with `max_running_per_key` N on the same jobs, and report its
    /// throughput against the plain run's.
    #[arg(long)]
    pub(crate) limit: Option<i64>,
    /// Also run each strategy with `fifo_per_key` (with --limit: both in one run).
    #[arg(long)]
    pub(crate) fifo: bool,
    /// Run on queues with `keep_completed: false` (a completion deletes its job, as
    /// graphile-worker does); the check then counts the completions the pools had
    /// acknowledged, so use it with `--kill-workers 0`.
    #[arg(long)]
    pub(crate) drop_completed: bool,
    /// Enqueue every job before the worker pools start, instead of while they run; the
    /// completed rate still counts from the first enqueue.
    #[arg(long)]
    pub(crate) enqueue_first: bool,
    /// Instead of the workload: single-job claims only, from this many clients, for at most
    /// `--seconds` (the figure to compare with bench/pgbench/jobs_claim.sql).
    #[arg(long)]
    pub(crate) claims_only: Option<usize>,
    /// Time limit of `--claims-only`, s.
    #[arg(long, default_value_t = 15)]
    pub(crate) seconds: u64,
    /// With `--claims-only`: also claim through HTTP (`POST /v1/queues/{queue}/claims`) on a
    /// server started in-process on the same database, and give its claims/s over the
    /// store's.
    #[arg(long, requires = "claims_only")]
    pub(crate) http: bool,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct BookingsArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// exclusion, batched, advisory, naive (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    pub(crate) clients: usize,
    /// Booking requests (N).
    #[arg(short = 'n', long, default_value_t = 10_000)]
    pub(crate) requests: u64,
    /// Resources (R); few resources means high contention.
    #[arg(long, default_value_t = 100)]
    pub(crate) resources: u32,
    /// Length of every range, days.
    #[arg(long, default_value_t = 3)]
    pub(crate) days: u32,
    /// Ranges start on a random day in 0..horizon from 2030-01-01.
    #[arg(long, default_value_t = 3650)]
    pub(crate) horizon_days: u32,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

/// Where a benchmark sends its load.
#[derive(Args, Clone)]
pub(crate) struct TargetArgs {
    /// A running server to load (loopback). Without it, one is started in-process on
    /// `--database-url` with unsafe strategies allowed.
    #[arg(long)]
    pub(crate) url: Option<String>,
    /// Database of the in-process server (default: a fresh SQLite file in the temp dir).
    #[arg(long)]
    pub(crate) database_url: Option<String>,
    /// PostgreSQL pool size of the in-process server.
    #[arg(long, default_value_t = 32)]
    pub(crate) pool_size: usize,
    /// Redis of the in-process server (adds `redis_counter` and `redis_lock` to `all`).
    #[arg(long, env = "ALLOT_REDIS_URL")]
    pub(crate) redis_url: Option<String>,
}

#[derive(Args)]
pub(crate) struct HoldsArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategy, a comma-separated list, or `all`.
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    pub(crate) clients: usize,
    /// Stock of the SKU (k).
    #[arg(short = 'k', long, default_value_t = 100_000)]
    pub(crate) stock: i64,
    /// Flows (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    pub(crate) flows: u64,
    /// TTL of every hold, ms (abandoned holds expire after it).
    #[arg(long, default_value_t = 1000)]
    pub(crate) ttl_ms: u64,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct UnitsArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// skip_locked, nowait_scan (PostgreSQL), serialized (SQLite), a list, or `all`.
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    pub(crate) clients: usize,
    /// Units in the large pool.
    #[arg(long, default_value_t = 100_000)]
    pub(crate) units: u64,
    /// Claims against the large pool (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    pub(crate) requests: u64,
    /// Smallest quantity of a claim.
    #[arg(long, default_value_t = 1)]
    pub(crate) min_quantity: i64,
    /// Largest quantity of a claim.
    #[arg(long, default_value_t = 5)]
    pub(crate) max_quantity: i64,
    /// Units in the nearly empty pool.
    #[arg(long, default_value_t = 200)]
    pub(crate) scarce_units: u64,
    /// Comma-separated order_by of every claim.
    #[arg(long, default_value = "received_at,location")]
    pub(crate) order_by: String,
    /// Claim the large workload from this existing unit SKU instead of filling a new pool.
    #[arg(long)]
    pub(crate) pool_sku: Option<String>,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct FeedArgs {
    /// A fresh PostgreSQL database to run on (its in-process server is started here).
    #[arg(long)]
    pub(crate) database_url: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 256)]
    pub(crate) clients: usize,
    /// Allocations per flash sale (N); the SKU has as many units.
    #[arg(short = 'n', long, default_value_t = 20_000)]
    pub(crate) requests: u64,
    /// Flash sales with the feed, and as many without.
    #[arg(long, default_value_t = 2)]
    pub(crate) rounds: u32,
    /// The in-process server's sequencer interval (`allot serve --event-sequence-interval-ms`).
    #[arg(long, default_value_t = 50)]
    pub(crate) event_sequence_interval_ms: u64,
    /// The stock strategy of the sale (`batched`, the hot path the feed must not slow down,
    /// or a per-request one such as `atomic`).
    #[arg(long, default_value = "batched")]
    pub(crate) strategy: String,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct FlashSaleArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategy, a comma-separated list, or `all` (every strategy of the backend).
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    pub(crate) clients: usize,
    /// Stock per SKU (k).
    #[arg(short = 'k', long, default_value_t = 1000)]
    pub(crate) stock: i64,
    /// Requests (N).
    #[arg(short = 'n', long, default_value_t = 5000)]
    pub(crate) requests: u64,
    /// Spread the load over M SKUs (each with stock k) instead of one hot SKU.
    #[arg(long, default_value_t = 1)]
    pub(crate) spread: u32,
    /// Buckets of the SKUs of the `segmented` run.
    #[arg(long, default_value_t = 8)]
    pub(crate) buckets: u32,
    /// The API key to send to a `--url` server that requires keys (scopes stock:write and
    /// admin, for the audit).
    #[arg(long, env = "ALLOT_API_KEY")]
    pub(crate) api_key: Option<String>,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

/// The URL to load, and the in-process server started for it when no `--url` was given.
pub(crate) async fn bench_target(t: &TargetArgs) -> anyhow::Result<(String, Option<allot_server::RunningServer>)> {
    bench_target_with(t, |_| {}).await
}

/// [`bench_target`], with `tweak` applied to the in-process server's configuration.
async fn bench_target_with(
    t: &TargetArgs,
    tweak: impl FnOnce(&mut ServerConfig),
) -> anyhow::Result<(String, Option<allot_server::RunningServer>)> {
    if let Some(u) = &t.url {
        return Ok((u.trim_end_matches('/').to_string(), None));
    }
    let database_url = t.database_url.clone().unwrap_or_else(|| {
        let p = std::env::temp_dir().join(format!("allot-bench-{}.db", std::process::id()));
        format!("sqlite://{}", p.display())
    });
    let mut cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url,
        allow_unsafe_strategies: true,
        pool_size: t.pool_size,
        redis_url: t.redis_url.clone(),
        ..ServerConfig::default()
    };
    tweak(&mut cfg);
    let s = allot_server::spawn(&cfg).await?;
    let url = s.url();
    eprintln!("started an in-process {} server on {url}", cfg.backend_name());
    Ok((url, Some(s)))
}

/// Print the table, write the JSON, stop the in-process server, and fail on any violation.
pub(crate) async fn finish_load(
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

pub(crate) async fn holds(a: HoldsArgs) -> anyhow::Result<()> {
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

pub(crate) async fn units(a: UnitsArgs) -> anyhow::Result<()> {
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

pub(crate) async fn bookings(a: BookingsArgs) -> anyhow::Result<()> {
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

pub(crate) async fn queue(a: QueueArgs) -> anyhow::Result<()> {
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
    if a.drop_completed && a.kill_workers > 0 {
        // A killed pool's last flush may delete its jobs without counting them, and without
        // kept rows the check has only the pools' counts: it would report jobs lost.
        anyhow::bail!("--drop-completed needs --kill-workers 0");
    }
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
        keys: a.keys.unwrap_or(if a.limit.is_some() || a.fifo { 1000 } else { 0 }),
        limit_per_key: a.limit,
        fifo: a.fifo,
        keep_completed: !a.drop_completed,
        enqueue_first: a.enqueue_first,
    };
    if let Some(clients) = a.claims_only {
        return claims_only(store, &opts.strategies, (&a, &database_url), clients).await;
    }
    let reports = allot_bench::queue_bench(store, &opts).await?;
    println!(
        "queue: P={} J={} W={}x{} claim_batch={} fail={} killed={} keys={}\n",
        a.producers, a.jobs, a.workers, a.concurrency, a.claim_batch, a.fail_fraction, a.kill_workers, opts.keys
    );
    print!("{}", allot_bench::render_queue_table(&reports));
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_vec_pretty(&reports)?)?;
    }
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

/// `bench queue --claims-only`: claims alone on a loaded queue, per strategy, straight on the
/// store and (`--http`) through a server started in-process on `database_url`, as a table;
/// fails when a job was leased twice. The store's pool is closed before the server opens
/// its own (the two at `--pool-size` would pass a default `max_connections`); the HTTP
/// runs fill their queues through a store of [`HTTP_FILL_POOL`] connections.
pub(crate) async fn claims_only(
    store: std::sync::Arc<dyn allot_core::Store>,
    strategies: &[allot_core::ClaimStrategy],
    (a, database_url): (&QueueArgs, &str),
    clients: usize,
) -> anyhow::Result<()> {
    let strategies: Vec<_> = strategies
        .iter()
        .copied()
        .filter(|s| store.supports_claim(*s))
        .collect();
    println!("| strategy | path | claimed | claims/s | vs store | p50 ms | p99 ms | leased twice | errors |\n|---|---|---:|---:|---:|---:|---:|---:|---:|");
    let mut on_store = std::collections::HashMap::new();
    let path = allot_bench::ClaimPath::Store;
    for s in &strategies {
        let r = allot_bench::claim_bench(store.clone(), (*s, &path), a.jobs, clients, a.seconds).await?;
        on_store.insert(*s, r.claims_per_s);
        claim_row(&r, r.claims_per_s)?;
    }
    // The last handle on the store's pool (its LISTEN task holds it weakly): its
    // connections close here, before the server opens its own.
    drop(store);
    if !a.http {
        return Ok(());
    }
    let fill = allot_store::open(
        database_url,
        &allot_store::OpenOptions {
            pool_size: HTTP_FILL_POOL,
            ..Default::default()
        },
    )
    .await?;
    let target = TargetArgs {
        url: None,
        database_url: Some(database_url.to_string()),
        pool_size: a.pool_size,
        redis_url: None,
    };
    let (url, server) = bench_target_with(&target, |_| {}).await?;
    let path = allot_bench::ClaimPath::Http(url);
    for s in &strategies {
        let r = allot_bench::claim_bench(fill.clone(), (*s, &path), a.jobs, clients, a.seconds).await?;
        claim_row(&r, on_store[s])?;
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    Ok(())
}

/// Connections of the store that fills the HTTP runs' queues.
const HTTP_FILL_POOL: usize = 2;

/// One row of the claims-only table (`base`: the store's claims/s of the same strategy); an
/// error when a job was leased twice.
fn claim_row(r: &allot_bench::ClaimReport, base: f64) -> anyhow::Result<()> {
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

pub(crate) fn load_rows(reports: &[allot_bench::LoadReport]) -> Vec<allot_bench::CompareRow> {
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
            noop_per_s: None,
            cpu_us_per_op: None,
        })
        .collect()
}

pub(crate) async fn feed(a: FeedArgs) -> anyhow::Result<()> {
    let target = TargetArgs {
        url: None,
        database_url: Some(a.database_url.clone()),
        pool_size: 32,
        redis_url: None,
    };
    let interval_ms = a.event_sequence_interval_ms;
    let (url, server) = bench_target_with(&target, |cfg| cfg.limits.event_sequence_interval_ms = interval_ms).await?;
    let opts = allot_bench::FlashSaleOptions {
        url: url.clone(),
        strategies: vec![a.strategy.clone()],
        clients: a.clients,
        stock: a.requests as i64,
        requests: a.requests,
        spread: 1,
        segmented_buckets: 1,
        progress: true,
        api_key: None,
    };
    let rounds = allot_bench::feed::rounds(&opts, &a.database_url, a.rounds).await?;
    let top = allot_bench::feed::top(&url).await?;
    let stream = allot_bench::feed::follow(&url, top as u64, std::time::Duration::from_secs(600)).await?;
    println!(
        "change feed: {} hot SKU, C={} N={} rounds={} sequencer every {interval_ms} ms\n",
        a.strategy, a.clients, a.requests, a.rounds
    );
    print!("{}", allot_bench::feed::render(&rounds, &stream));
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_vec_pretty(&(&rounds, &stream))?)?;
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    if rounds.iter().any(|r| !r.report.violations.is_empty()) {
        bail!("invariants broken");
    }
    Ok(())
}

pub(crate) async fn flash_sale(a: FlashSaleArgs) -> anyhow::Result<()> {
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
        api_key: a.api_key.clone(),
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
