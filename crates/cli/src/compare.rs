//! `allot bench compare`: every workload under every strategy, with references.

use crate::{bail, bench_target, load_rows, Args, PathBuf, TargetArgs};

#[derive(Args)]
pub(crate) struct CompareArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Concurrent clients of the HTTP workloads (C).
    #[arg(short = 'c', long, default_value_t = 256)]
    pub(crate) clients: usize,
    /// Requests of the hot-SKU and spread workloads (N); the others run a fraction of it.
    #[arg(short = 'n', long, default_value_t = 20_000)]
    pub(crate) requests: u64,
    /// SKUs of the spread workload.
    #[arg(long, default_value_t = 10_000)]
    pub(crate) spread: u32,
    /// Jobs of the queue workload (needs --database-url, not --url).
    #[arg(long, default_value_t = 50_000)]
    pub(crate) jobs: u64,
    /// Seconds of each pgbench reference run.
    #[arg(long, default_value_t = 10)]
    pub(crate) pgbench_seconds: u64,
    /// Workloads to run (comma-separated), or `all`. The no-op handler runs with hot_sku; the
    /// batch API's pgbench reference with batch.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "all")]
    pub(crate) workloads: Vec<Workload>,
    /// Instead of one run: build this git revision (a worktree under target/compare-rev/,
    /// release) and run it and this build alternately, ABBA, each on a fresh database beside
    /// `--database-url`, printing this build's throughput over the revision's per workload
    /// (compare-rev.md under `--out`).
    #[arg(long)]
    pub(crate) rev: Option<String>,
    /// Pairs of runs of `--rev` (each pair: both builds once, the order alternating).
    #[arg(long, default_value_t = 2)]
    pub(crate) rounds: u32,
    /// Pairs of runs per mode of the queue's peer (graphile-worker under `--peers-dir`)
    /// against allot's worker pool in the peer's shape, alternating, each on a fresh database
    /// beside `--database-url` (PostgreSQL, with the queue workload; 0: none).
    #[arg(long, default_value_t = 2)]
    pub(crate) peer_rounds: u32,
    /// Where the queue's peer lives (`graphile-worker/` under it; `npm ci` there on first use).
    #[arg(long, default_value = "bench/peers")]
    pub(crate) peers_dir: PathBuf,
    /// Directory for compare.md, compare.json and compare.png.
    #[arg(long, default_value = "allot-compare")]
    pub(crate) out: PathBuf,
}

/// A workload of `bench compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Workload {
    /// Every workload.
    All,
    /// One hot SKU.
    #[value(name = "hot_sku")]
    HotSku,
    /// Allocations spread over `--spread` SKUs.
    Spread,
    /// Hold flows.
    Holds,
    /// Unit claims.
    Units,
    /// Bookings.
    Bookings,
    /// The job queue.
    Queue,
    /// The batch API (`POST /v1/batch`) on one hot SKU.
    Batch,
}

impl CompareArgs {
    /// Whether `workload` is among those asked for.
    pub(crate) fn runs(&self, workload: Workload) -> bool {
        self.workloads.iter().any(|w| *w == Workload::All || *w == workload)
    }

    /// `--workloads` as given, comma-separated (`all` when every one).
    /// What `--rev` passes on to both builds.
    pub(crate) fn rev_options(&self) -> allot_bench::orchestrate::rev::RevOptions {
        allot_bench::orchestrate::rev::RevOptions {
            database_url: self.target.database_url.clone(),
            out: self.out.clone(),
            rounds: self.rounds,
            clients: self.clients,
            requests: self.requests,
            spread: self.spread,
            jobs: self.jobs,
            pgbench_seconds: self.pgbench_seconds,
            workloads: (!self.workloads.contains(&Workload::All)).then(|| self.workloads_arg()),
        }
    }

    pub(crate) fn workloads_arg(&self) -> String {
        use clap::ValueEnum;
        let names: Vec<String> = self
            .workloads
            .iter()
            .filter_map(|w| w.to_possible_value().map(|v| v.get_name().to_string()))
            .collect();
        names.join(",")
    }
}

pub(crate) async fn compare(a: CompareArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let n = a.requests.max(100);
    let mut rows = compare_http_workloads(&url, &a, n).await?;
    let database_url = a.target.database_url.clone();
    if let (Some(db), None, true) = (&database_url, &a.target.url, a.runs(Workload::Queue)) {
        rows.extend(compare_queue(db, &a).await?);
        if db.starts_with("postgres") {
            let peer = allot_bench::orchestrate::peer::Peer {
                given: db,
                dir: &a.peers_dir,
                rounds: a.peer_rounds,
                jobs: a.jobs,
                pool_size: a.target.pool_size,
            };
            // A peer that cannot run leaves the run's other figures standing.
            match allot_bench::orchestrate::peer::queue_peer_rows(&peer).await {
                Ok(peer_rows) => rows.extend(peer_rows),
                Err(e) => eprintln!("no queue peer rows: {e:#}"),
            }
        }
    }
    // The textbook references (pgbench, same database): the conditional UPDATE on one hot
    // row, the single-statement unit claim, the advisory-lock booking transaction.
    if let Some(db) = database_url.as_deref().filter(|u| u.starts_with("postgres")) {
        if allot_bench::pgbench_available() {
            let refs = allot_bench::orchestrate::pgbench_refs::References {
                hot_sku: a.runs(Workload::HotSku),
                spread: a.runs(Workload::Spread),
                units: a.runs(Workload::Units),
                bookings: a.runs(Workload::Bookings),
                clients: a.clients,
                requests: a.requests,
                spread_skus: a.spread,
                pgbench_seconds: a.pgbench_seconds,
            };
            allot_bench::orchestrate::pgbench_refs::add_pgbench_references(&mut rows, &url, db, &refs).await?;
        }
    }
    // Last of the server's workloads: its pgbench reference writes the batch's rows at the
    // database's full pace, which the references above must not run beside.
    if a.runs(Workload::Batch) {
        let db = a.target.database_url.as_deref();
        rows.extend(allot_bench::orchestrate::compare_batch::compare_batch(&url, db, a.pgbench_seconds, n).await?);
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
pub(crate) async fn compare_http_workloads(
    url: &str,
    a: &CompareArgs,
    n: u64,
) -> anyhow::Result<Vec<allot_bench::CompareRow>> {
    let all = vec!["all".to_string()];
    let mut rows: Vec<allot_bench::CompareRow> = Vec::new();
    for (kind, workload, spread, stock) in [
        (Workload::HotSku, "hot_sku", 1, n as i64),
        (Workload::Spread, "spread", a.spread.max(1), 100),
    ] {
        if !a.runs(kind) {
            continue;
        }
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
            api_key: None,
        };
        for r in allot_bench::flash_sale(&opts).await? {
            let mut row = compare_row(
                workload,
                &r.strategy,
                r.allocations_per_s,
                r.latency_us_p99,
                r.violations.is_empty(),
            );
            row.cpu_us_per_op = r.cpu_us_per_request;
            rows.push(row);
        }
    }
    if a.runs(Workload::HotSku) {
        let ceiling = http_ceiling(&mut rows, a.clients, n).await?;
        rows.push(ceiling);
    }
    rows.extend(compare_flows(url, a, n).await?);
    Ok(rows)
}

/// The holds, units and bookings workloads under every strategy (those asked for).
async fn compare_flows(url: &str, a: &CompareArgs, n: u64) -> anyhow::Result<Vec<allot_bench::CompareRow>> {
    let all = vec!["all".to_string()];
    let mut rows = Vec::new();
    if a.runs(Workload::Holds) {
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
    }
    if a.runs(Workload::Units) {
        eprintln!("== units");
        let units = allot_bench::UnitsOptions {
            url: url.to_string(),
            strategies: all.clone(),
            clients: a.clients.min(64),
            pool_units: 50_000,
            requests: (n / 2).max(100),
            min_quantity: 3,
            max_quantity: 3,
            scarce_units: 200,
            order_by: vec!["received_at".into(), "location".into()],
            pool_sku: None,
            progress: true,
        };
        rows.extend(load_rows(&allot_bench::units_bench(&units).await?));
    }
    if a.runs(Workload::Bookings) {
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
    }
    Ok(rows)
}

/// The no-op axum handler from the same clients (the HTTP ceiling): its own row, and the
/// reference of the hot-SKU rows' `allot / no-op`.
pub(crate) async fn http_ceiling(
    rows: &mut [allot_bench::CompareRow],
    clients: usize,
    n: u64,
) -> anyhow::Result<allot_bench::CompareRow> {
    eprintln!("== no-op handler (the HTTP ceiling)");
    let c = allot_bench::noop_ceiling(clients, n).await?;
    for r in rows.iter_mut().filter(|r| r.workload == "hot_sku") {
        r.noop_per_s = Some(c.requests_per_s);
    }
    let mut row = compare_row(
        "http_ceiling",
        "no-op handler",
        c.requests_per_s,
        c.latency_us_p99,
        true,
    );
    row.cpu_us_per_op = c.cpu_us_per_request;
    Ok(row)
}

/// One row of the comparison, without a reference.
pub(crate) fn compare_row(
    workload: &str,
    strategy: &str,
    ops_per_s: f64,
    p99: u64,
    ok: bool,
) -> allot_bench::CompareRow {
    allot_bench::CompareRow {
        workload: workload.into(),
        strategy: strategy.to_string(),
        ops_per_s,
        latency_us_p99: p99,
        invariants_ok: ok,
        pgbench_tps: None,
        reference: None,
        noop_per_s: None,
        cpu_us_per_op: None,
    }
}

/// The job queue under every claim strategy, straight on the store at `db`.
pub(crate) async fn compare_queue(db: &str, a: &CompareArgs) -> anyhow::Result<Vec<allot_bench::CompareRow>> {
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
        keys: 0,
        limit_per_key: None,
        fifo: false,
        keep_completed: true,
        enqueue_first: false,
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

/// Print the table, write it with the JSON and the chart under `--out`, and fail when a
/// safe strategy broke an invariant.
pub(crate) fn write_compare(rows: &[allot_bench::CompareRow], a: &CompareArgs, n: u64) -> anyhow::Result<()> {
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
