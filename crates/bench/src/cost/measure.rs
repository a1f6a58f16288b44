//! One build's cost table: its own cluster, the counting proxy, the build's `allot serve`
//! under callgrind, each path's warm-up and window, and the floors.

use super::callgrind::Profiled;
use super::paths::{CostPath, Driver};
use super::wire::CountingProxy;
use super::{connect, floors, setup, wal, CostRow, Totals};
use crate::cluster::{free_port, PgCluster};
use crate::error::BenchError;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_postgres::Client;

/// What `allot bench cost` measures, and with what.
#[derive(Debug, Clone)]
pub struct CostOptions {
    /// The `allot` binary whose `serve` is measured.
    pub binary: PathBuf,
    /// The binary that serves the no-op floor (`allot bench noop-serve`): this build's.
    pub noop_binary: Option<PathBuf>,
    /// Operations counted per path (rounded up to whole requests of the batch and feed paths).
    pub ops: u64,
    /// Operations sent per path before its window (connections, caches, statements warm).
    pub warmup_ops: u64,
    /// The paths to measure.
    pub paths: Vec<CostPath>,
    /// Seed of the SKU picks.
    pub seed: u64,
    /// Where callgrind's files and the server's log go.
    pub work_dir: PathBuf,
    /// Leave out a path that fails (an older build's), rather than fail the run.
    pub tolerate_failures: bool,
}

/// `postgresql.conf` of the bench's cluster: the same requests write the same WAL (no
/// full-page images, no checkpoint, no autovacuum inside a run).
const COUNTING_SETTINGS: &str = "full_page_writes = off\nautovacuum = off\ncheckpoint_timeout = '1d'\n\
max_wal_size = '20GB'\nmax_connections = 100\n";

/// The database the server and the floors use on the bench's cluster.
const DB: &str = "cost";

/// The background interval the measured server runs with, ms: an hour (its first passes
/// run at start, before any window).
const QUIET_MS: u64 = 3_600_000;

/// The interval flags an older build (without `--background-interval-ms`) may have, each set
/// to [`QUIET_MS`]; what it runs on fixed intervals is taken off by an idle window's rate.
const OLDER_QUIET_FLAGS: [&str; 3] = [
    "--event-sequence-interval-ms",
    "--hold-sweep-interval-ms",
    "--sweep-interval-ms",
];

/// The measured process's tokio runtime with one worker thread (`TOKIO_WORKER_THREADS`,
/// which tokio's runtime builder reads): with two, which thread serves a request follows the
/// timing, and so do the first uses of what each thread keeps (prepared statements, metric
/// handles) — a heap allocation and a half per operation between runs of one build. Callgrind
/// runs one thread at a time anyway; both builds of `--rev` are counted so.
fn one_worker() -> Vec<(String, String)> {
    vec![("TOKIO_WORKER_THREADS".to_string(), "1".to_string())]
}

/// Length of the idle window of a build without `--background-interval-ms`.
const IDLE_WINDOW: Duration = Duration::from_secs(10);

/// Longest a server under callgrind may take to answer `/healthz`.
const START_LIMIT: Duration = Duration::from_secs(300);

/// The running pieces of one build's measurement.
struct Bench {
    _cluster: PgCluster,
    proxy: CountingProxy,
    direct: Client,
    server: Profiled,
    driver: Driver,
    /// Background per second, taken off each window (builds that cannot be quieted).
    idle: Option<Totals>,
}

/// Measure `o.binary`: every path of `o.paths`, then the floors; the rows in that order.
pub async fn measure_build(o: &CostOptions) -> Result<Vec<CostRow>, BenchError> {
    let mut b = start(o).await?;
    let mut rows = Vec::new();
    for &path in &o.paths {
        eprintln!("== cost: {}", path.name());
        match measure_path(&mut b, o, path).await {
            Ok(row) => rows.push(row),
            // An older build may lack what a path needs (an endpoint, the schema the bench's
            // sequencer writes): its table goes without that row.
            Err(e) if o.tolerate_failures => eprintln!("(no {} row for this build: {e})", path.name()),
            Err(e) => return Err(e),
        }
    }
    eprintln!("== cost: floors");
    b.driver.prepare(CostPath::Atomic, 0).await?;
    let sku = format!("cost-{}-0", CostPath::Atomic.name());
    rows.extend(floors::database_rows(&b.proxy, &b.direct, DB, &sku, o.ops).await?);
    drop(b);
    if let Some(noop) = &o.noop_binary {
        rows.push(noop_row(noop, o).await?);
    }
    Ok(rows)
}

async fn start(o: &CostOptions) -> Result<Bench, BenchError> {
    let cluster = PgCluster::start_with(COUNTING_SETTINGS)?;
    let admin = connect(cluster.port, "postgres").await?;
    admin
        .batch_execute(&format!("CREATE DATABASE {DB}"))
        .await
        .map_err(setup)?;
    let direct = connect(cluster.port, DB).await?;
    direct
        .batch_execute("CREATE EXTENSION pg_walinspect")
        .await
        .map_err(setup)?;
    let proxy = CountingProxy::start(cluster.port).await?;
    let quiet = takes_flag(&o.binary, "--background-interval-ms");
    let port = free_port()?;
    let mut args: Vec<String> = ["serve", "--listen", &format!("127.0.0.1:{port}"), "--database-url"]
        .map(String::from)
        .to_vec();
    args.push(format!(
        "postgres://postgres@127.0.0.1:{}/{DB}?sslmode=disable",
        proxy.port
    ));
    // A waiting claim (the webhook delivery workers') re-reads its queue every
    // `job_poll_interval_ms` (250 ms) beside the wake-ups: a statement a few times a second,
    // as many per window as the window lasts.
    args.extend(["--job-poll-interval-ms".to_string(), QUIET_MS.to_string()]);
    if quiet {
        args.extend(["--background-interval-ms".to_string(), QUIET_MS.to_string()]);
    } else {
        // An older build: quiet what it lets be quieted, above all the feed's sequencer,
        // whose work follows the load (it would put the numbering of a path's events in the
        // path's window, where this build numbers them in the feed's).
        for flag in OLDER_QUIET_FLAGS {
            if takes_flag(&o.binary, flag) {
                args.extend([flag.to_string(), QUIET_MS.to_string()]);
            }
        }
    }
    let server = Profiled::spawn(&o.binary, &args, &one_worker(), &o.work_dir.join("server"))?;
    let base = format!("http://127.0.0.1:{port}");
    let mut b = Bench {
        _cluster: cluster,
        proxy,
        direct,
        server,
        driver: Driver::new(&base, o.seed)?,
        idle: None,
    };
    wait_healthy(&mut b.server, &base).await?;
    if !quiet {
        eprintln!("(this build has no --background-interval-ms: an idle window's rate is taken off each path)");
        b.idle = Some(idle_rate(&mut b).await?);
    }
    Ok(b)
}

/// Whether `binary serve` accepts `flag` (a hidden flag is not in `--help`: clap refuses an
/// unknown one before it prints help).
fn takes_flag(binary: &Path, flag: &str) -> bool {
    std::process::Command::new(binary)
        .args(["serve", flag, "1", "--help"])
        .output()
        .is_ok_and(|o| o.status.success())
}

async fn wait_healthy(server: &mut Profiled, base: &str) -> Result<(), BenchError> {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + START_LIMIT;
    while Instant::now() < deadline {
        if !server.running() {
            return Err(BenchError::Setup(
                "the process under callgrind exited (see its server.log)".into(),
            ));
        }
        if let Ok(r) = client.get(format!("{base}/healthz")).send().await {
            if r.status().is_success() {
                return Ok(());
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Err(BenchError::Setup(
        "the process under callgrind never answered /healthz".into(),
    ))
}

/// A window: everything counted from its start.
struct Window {
    wire: super::wire::WireCounts,
    wal: String,
    at: Instant,
    requests: u64,
}

async fn open(b: &mut Bench) -> Result<Window, BenchError> {
    b.server.zero().await?;
    Ok(Window {
        wire: b.proxy.counts(),
        wal: wal::position(&b.direct).await?,
        at: Instant::now(),
        requests: b.driver.requests,
    })
}

/// Close `w`: its totals (less the idle rate, if any) and its length, s.
async fn close(b: &mut Bench, w: Window) -> Result<(Totals, f64), BenchError> {
    let cpu = b.server.dump().await?;
    let secs = w.at.elapsed().as_secs_f64();
    let wire = b.proxy.counts().since(w.wire);
    let wal = wal::since(&b.direct, &w.wal).await?;
    let t = Totals::of(b.driver.requests - w.requests, Some(cpu), wire, wal);
    Ok((b.idle.as_ref().map_or(t, |rate| t.less(rate, secs)), secs))
}

async fn idle_rate(b: &mut Bench) -> Result<Totals, BenchError> {
    let w = open(b).await?;
    tokio::time::sleep(IDLE_WINDOW).await;
    let (t, secs) = close(b, w).await?;
    Ok(t.per_second(secs))
}

/// Calls of [`Driver::operate`] that make at least `ops` times the path's scale operations.
fn calls_for(path: CostPath, ops: u64) -> u64 {
    (ops * path.scale()).div_ceil(path.per_call()).max(1)
}

async fn measure_path(b: &mut Bench, o: &CostOptions, path: CostPath) -> Result<CostRow, BenchError> {
    let (calls, warm) = (calls_for(path, o.ops), calls_for(path, o.warmup_ops));
    b.driver.prepare(path, calls + warm).await?;
    if path == CostPath::FeedEvent {
        b.driver.write_events(warm).await?;
        sequence(b).await?;
    }
    for i in 0..warm {
        b.driver.operate(path, i).await?;
    }
    if path == CostPath::FeedEvent {
        b.driver.write_events(calls).await?;
    }
    let w = open(b).await?;
    if path == CostPath::FeedEvent {
        sequence(b).await?;
    }
    for i in warm..warm + calls {
        b.driver.operate(path, i).await?;
    }
    let (t, _) = close(b, w).await?;
    Ok(CostRow::new(path.name(), path.about(), calls * path.per_call(), t))
}

/// Number every committed event (what the server's sequencer does), from this process
/// through the proxy: its statements and WAL are counted, its instructions are not the
/// server's.
async fn sequence(b: &mut Bench) -> Result<(), BenchError> {
    use allot_core::Maintenance;
    let url = format!("postgres://postgres@127.0.0.1:{}/{DB}?sslmode=disable", b.proxy.port);
    let mut cfg = allot_postgres::PgConfig::new(url);
    cfg.pool_size = 1;
    let store = allot_postgres::PgStore::connect(&cfg).map_err(|e| BenchError::Setup(e.to_string()))?;
    while store
        .sequence_events(1000)
        .await
        .map_err(|e| BenchError::Setup(e.to_string()))?
        > 0
    {}
    Ok(())
}

/// The HTTP floor: `allot bench noop-serve` under callgrind, sent the atomic path's requests
/// (each answered 201, as the driver checks).
async fn noop_row(binary: &Path, o: &CostOptions) -> Result<CostRow, BenchError> {
    let port = free_port()?;
    let args = ["bench", "noop-serve", "--listen", &format!("127.0.0.1:{port}")].map(String::from);
    let mut server = Profiled::spawn(binary, &args, &one_worker(), &o.work_dir.join("noop"))?;
    let base = format!("http://127.0.0.1:{port}");
    wait_healthy(&mut server, &base).await?;
    let mut driver = Driver::new(&base, o.seed)?;
    for i in 0..o.warmup_ops {
        driver.operate(CostPath::Atomic, i).await?;
    }
    server.zero().await?;
    for i in o.warmup_ops..o.warmup_ops + o.ops {
        driver.operate(CostPath::Atomic, i).await?;
    }
    let cpu = server.dump().await?;
    let t = Totals::of(o.ops, Some(cpu), Default::default(), Default::default());
    Ok(CostRow::new(
        "floor: no-op handler",
        "axum parses the body, no store",
        o.ops,
        t,
    ))
}
