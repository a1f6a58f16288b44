//! `allot bench compare`: every workload under every strategy of the backend in one run, side
//! by side — a Markdown table, a JSON file and a PNG chart (throughput and p99 per strategy per
//! workload) — and, where `pgbench` is installed, the textbook single-statement versions of
//! the same workloads on the same database with allot's ratio to them.

use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use serde::Serialize;
use std::path::Path;

/// One workload under one strategy.
#[derive(Debug, Clone, Serialize)]
pub struct CompareRow {
    /// Workload (`hot_sku`, `spread`, `holds`, `units`, `bookings`, `queue`, `batch`).
    pub workload: String,
    /// Strategy.
    pub strategy: String,
    /// Operations per second (allocations, flows, claims, bookings, completed jobs).
    pub ops_per_s: f64,
    /// 99th percentile latency, µs (claim latency for the queue).
    pub latency_us_p99: u64,
    /// Whether every invariant held (`naive` breaks them by design).
    pub invariants_ok: bool,
    /// The workload's reference, per second, when measured (see `reference`): pgbench's
    /// single-statement version on the same database (for the batch API, its write
    /// statement's allocations per second); for `redis_counter` redis-benchmark running the
    /// admission script itself; for the queue's peer-shaped rows graphile-worker's completed
    /// jobs on fresh databases of its own. The field keeps its name for the JSON's readers.
    pub pgbench_tps: Option<f64>,
    /// Which tool measured `pgbench_tps` (`pgbench`, `redis-benchmark` or `graphile-worker`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The HTTP ceiling of the workload, requests per second: the no-op axum handler parsing
    /// the same body from the same clients (`reference.rs`), for the hot-SKU rows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noop_per_s: Option<f64>,
    /// CPU of the benchmark's process per operation, µs (server and client when the server
    /// runs in-process); for the no-op row, the handler's and the client's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_us_per_op: Option<f64>,
}

impl CompareRow {
    /// A row without a reference: `(ops_per_s, latency_us_p99)` and whether the run's
    /// invariants held.
    pub fn plain(workload: &str, strategy: &str, (ops_per_s, p99): (f64, u64), ok: bool) -> Self {
        CompareRow {
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

    /// allot's throughput over the pgbench reference.
    pub fn ratio(&self) -> Option<f64> {
        self.pgbench_tps.filter(|t| *t > 0.0).map(|t| self.ops_per_s / t)
    }

    /// allot's throughput over the no-op handler's (the share of the HTTP ceiling).
    pub fn noop_ratio(&self) -> Option<f64> {
        self.noop_per_s.filter(|t| *t > 0.0).map(|t| self.ops_per_s / t)
    }
}

/// The Markdown table of a comparison.
pub fn render_compare_table(rows: &[CompareRow]) -> String {
    let mut out = String::from(
        "| workload | strategy | ops/s | p99 ms | CPU µs/op | invariants | reference | reference /s | allot / reference | allot / no-op |\n|---|---|---:|---:|---:|---|---|---:|---:|---:|\n",
    );
    let fmt = |x: Option<f64>, f: fn(f64) -> String| x.map(f).unwrap_or_else(|| "-".into());
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {:.0} | {:.2} | {} | {} | {} | {} | {} | {} |\n",
            r.workload,
            r.strategy,
            r.ops_per_s,
            r.latency_us_p99 as f64 / 1000.0,
            fmt(r.cpu_us_per_op, |x| format!("{x:.0}")),
            if r.invariants_ok { "ok" } else { "BROKEN" },
            r.reference.as_deref().unwrap_or("-"),
            fmt(r.pgbench_tps, |t| format!("{t:.0}")),
            fmt(r.ratio(), |x| format!("{x:.2}x")),
            fmt(r.noop_ratio(), |x| format!("{x:.2}x")),
        ));
    }
    out
}

/// Fonts tried for the chart's text (plotters draws text with `ab_glyph`, from a font file).
const FONT_FILES: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// The first of `files` that can be read; an error naming them all when none can.
fn read_font(files: &[&str]) -> Result<Vec<u8>, String> {
    files
        .iter()
        .find_map(|f| std::fs::read(f).ok())
        .ok_or_else(|| format!("no font for the chart (tried {})", files.join(", ")))
}

/// Draw the comparison as a PNG at `path`: two horizontal bar panels, throughput and p99,
/// one bar per workload and strategy. Errors when no font file is found (the table and the
/// JSON do not need one).
pub fn write_chart(rows: &[CompareRow], path: &Path) -> Result<(), String> {
    let font = read_font(&FONT_FILES)?;
    // plotters keeps registered fonts for the life of the process.
    let font: &'static [u8] = Box::leak(font.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| "the font file could not be read".to_string())?;
    let n = rows.len().max(1);
    let height = 120 + 22 * n as u32;
    let root = BitMapBackend::new(path, (1400, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let (left, right) = root.split_horizontally(760);
    let names: Vec<String> = rows
        .iter()
        .map(|r| format!("{} · {}", r.workload, r.strategy))
        .collect();
    let panels: [(&DrawingArea<BitMapBackend, _>, &str, Vec<f64>, bool); 2] = [
        (
            &left,
            "throughput (ops/s)",
            rows.iter().map(|r| r.ops_per_s).collect(),
            true,
        ),
        (
            &right,
            "p99 latency (ms)",
            rows.iter().map(|r| r.latency_us_p99 as f64 / 1000.0).collect(),
            false,
        ),
    ];
    for (area, title, values, with_names) in panels {
        let max = values.iter().cloned().fold(0.0, f64::max).max(1.0) * 1.1;
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 22))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(if with_names { 260 } else { 10 })
            .build_cartesian_2d(0f64..max, (0usize..n).into_segmented())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&|v| match v {
                // Row 0 at the top.
                SegmentValue::CenterOf(i) if with_names && *i < n => names[n - 1 - *i].clone(),
                _ => String::new(),
            })
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(values.iter().enumerate().map(|(i, v)| {
                let color = Palette99::pick(i).filled();
                let y = n - 1 - i;
                Rectangle::new([(0.0, SegmentValue::Exact(y)), (*v, SegmentValue::Exact(y + 1))], color)
            }))
            .map_err(|e| e.to_string())?;
    }
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}

/// Requests at once that make a reference's SKUs.
const SKU_CREATORS: usize = 16;

/// Create one-bucket SKUs with `on_hand` each through the API, [`SKU_CREATORS`] at a time on
/// one client (the rows of pgbench's hot-SKU and spread references).
pub async fn create_reference_skus(url: &str, skus: &[String], on_hand: i64) -> Result<(), crate::error::BenchError> {
    use futures::stream::{self, TryStreamExt};
    let client = reqwest::Client::new();
    stream::iter(skus.iter().map(Ok))
        .try_for_each_concurrent(SKU_CREATORS, |sku| crate::load::create_sku(&client, url, sku, on_hand))
        .await
}

/// What [`wait_for_feed`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedWait {
    /// `allot_feed_lag_seconds` read 0: every committed change has its event.
    CaughtUp,
    /// No gauge to read: `/metrics` refused (a key is needed) or failed, or the server has
    /// no change feed; nothing was waited for.
    NoGauge,
    /// The gauge was still above 0 when the wait ran out.
    StillBehind,
}

/// Longest wait for one answer of `/metrics`.
const METRICS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Wait, at most `within`, until the server at `url` has given every committed change its
/// event (`allot_feed_lag_seconds` is 0 on its `/metrics`), polling every 200 ms, each read
/// bounded by 5 s: a reference run right after a load must not share the machine with the
/// sequencer still working off that load's backlog. Errors: the server cannot be reached
/// (or a read timed out).
pub async fn wait_for_feed(url: &str, within: std::time::Duration) -> Result<FeedWait, crate::error::BenchError> {
    let client = reqwest::Client::builder().timeout(METRICS_TIMEOUT).build()?;
    let deadline = std::time::Instant::now() + within;
    loop {
        let resp = client.get(format!("{url}/metrics")).send().await?;
        if !resp.status().is_success() {
            return Ok(FeedWait::NoGauge);
        }
        let text = resp.text().await?;
        let lag = text
            .lines()
            .find_map(|l| l.strip_prefix("allot_feed_lag_seconds "))
            .and_then(|v| v.trim().parse::<f64>().ok());
        match lag {
            None => return Ok(FeedWait::NoGauge),
            Some(l) if l <= 0.0 => return Ok(FeedWait::CaughtUp),
            Some(_) if std::time::Instant::now() >= deadline => return Ok(FeedWait::StillBehind),
            Some(_) => tokio::time::sleep(std::time::Duration::from_millis(200)).await,
        }
    }
}

/// Whether `tool --version` runs (the tool is on the PATH): pgbench, redis-benchmark, and
/// for `bench compare`'s queue peer `node` and `npm`.
pub fn tool_available(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Whether `redis-benchmark` is on the PATH.
pub fn redis_benchmark_available() -> bool {
    tool_available("redis-benchmark")
}

/// The raw rate of `redis_counter`'s admission script on one Redis (`redis://host:port`):
/// redis-benchmark runs `EVAL` of the very script on one counter key (set high first, deleted
/// after), `requests` times from `clients` connections. `None` when it failed or the URL is
/// not a plain `redis://host[:port]`.
pub fn redis_benchmark_admission_rps(redis_url: &str, clients: usize, requests: u64) -> Option<f64> {
    let hostport = redis_url.strip_prefix("redis://")?.split('/').next()?;
    let (host, port) = hostport.rsplit_once(':').unwrap_or((hostport, "6379"));
    let key = format!("allot-bench:{{ref-{}}}:avail", std::process::id());
    let run = |args: &[&str]| {
        std::process::Command::new("redis-benchmark")
            .args(["-h", host, "-p", port])
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
    };
    run(&["-n", "1", "-c", "1", "SET", &key, "1000000000000000"])?;
    let (clients, requests) = (clients.max(1).to_string(), requests.max(1).to_string());
    let out = run(&[
        "-n",
        &requests,
        "-c",
        &clients,
        "-q",
        "EVAL",
        allot_redis::ADMIT_SCRIPT,
        "1",
        &key,
        "1",
    ]);
    let _ = run(&["-n", "1", "-c", "1", "DEL", &key]);
    parse_redis_benchmark_rps(&out?)
}

/// The rate in redis-benchmark's quiet (`-q`) line: `…: 52493.44 requests per second, …`.
pub fn parse_redis_benchmark_rps(report: &str) -> Option<f64> {
    let at = report.rfind(" requests per second")?;
    report[..at].rsplit([' ', ':']).next()?.trim().parse().ok()
}

/// Whether `pgbench` is on the PATH.
pub fn pgbench_available() -> bool {
    tool_available("pgbench")
}

/// How long a pgbench run lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgbenchRun {
    /// `-T`: this many seconds.
    Seconds(u64),
    /// `-t`: this many transactions per client (for a script that uses something up, such
    /// as a pool of units, so the run cannot outlast it).
    TransactionsPerClient(u64),
}

/// Run `pgbench -n -c clients -j 2 (-T s | -t n) -f script` with `-D name=value` defines
/// (and `extra` arguments) against `database_url`; its report, or `None` when it failed.
fn pgbench_report(
    database_url: &str,
    script: &Path,
    (clients, run): (usize, PgbenchRun),
    defines: &[(&str, String)],
    extra: &[String],
) -> Option<String> {
    let mut cmd = std::process::Command::new("pgbench");
    cmd.args(["-n", "-j", "2"]).arg("-c").arg(clients.to_string());
    match run {
        PgbenchRun::Seconds(s) => cmd.arg("-T").arg(s.to_string()),
        PgbenchRun::TransactionsPerClient(t) => cmd.arg("-t").arg(t.to_string()),
    };
    cmd.arg("-f").arg(script).args(extra);
    for (k, v) in defines {
        cmd.arg("-D").arg(format!("{k}={v}"));
    }
    let out = cmd.arg(database_url).output().ok()?;
    if !out.status.success() {
        // The first error PostgreSQL reported, where pgbench printed one (a client's abort
        // names it), else pgbench's own last line.
        let err = String::from_utf8_lossy(&out.stderr);
        let line = err
            .lines()
            .find(|l| l.contains("ERROR:"))
            .or_else(|| err.lines().last());
        eprintln!("pgbench failed: {}", line.unwrap_or(""));
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// [`pgbench_report`]'s tps figure.
fn pgbench_tps(
    database_url: &str,
    script: &Path,
    clients: usize,
    run: PgbenchRun,
    defines: &[(&str, String)],
) -> Option<f64> {
    parse_pgbench_tps(&pgbench_report(database_url, script, (clients, run), defines, &[])?)
}

/// [`pgbench_tps`] of a script given as text (`name` labels its temporary file, removed
/// after the run).
pub fn pgbench_script_tps(
    database_url: &str,
    (name, sql): (&str, &str),
    clients: usize,
    run: PgbenchRun,
    defines: &[(&str, String)],
) -> Option<f64> {
    let script = std::env::temp_dir().join(format!("allot-{name}-{}.sql", std::process::id()));
    std::fs::write(&script, sql).ok()?;
    let tps = pgbench_tps(database_url, &script, clients, run, defines);
    let _ = std::fs::remove_file(&script);
    tps
}

/// What one pgbench run measured: transactions per second and the 99th percentile of their
/// latencies, µs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PgbenchFigures {
    /// Transactions per second (pgbench's `tps`, without the initial connection time).
    pub tps: f64,
    /// 99th percentile latency of the transactions, µs.
    pub latency_us_p99: u64,
}

/// How pgbench sends a script's statements (`--protocol`, PostgreSQL docs, pgbench,
/// "Options").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PgbenchProtocol {
    /// `simple`: each statement parsed and planned at every call.
    Simple,
    /// `prepared`: each statement prepared once per connection; variables are sent as
    /// parameters (so a text value is given without SQL quotes).
    Prepared,
}

/// [`pgbench_script_tps`] with the latency of every transaction: pgbench's per-transaction
/// log (`--log --log-prefix`, PostgreSQL docs, pgbench, "Per-Transaction Logging") goes to
/// a fresh temporary directory, read for the 99th percentile and removed after the run.
/// `None` when the directory or the script cannot be written, when pgbench fails (exits
/// with an error, as when a client aborts on an error of its statement), or when no
/// transaction completed.
pub fn pgbench_script_figures(
    database_url: &str,
    (name, sql): (&str, &str),
    (clients, run, protocol): (usize, PgbenchRun, PgbenchProtocol),
    defines: &[(&str, String)],
) -> Option<PgbenchFigures> {
    let dir = std::env::temp_dir().join(format!("allot-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).ok()?;
    let mode = match protocol {
        PgbenchProtocol::Simple => "simple",
        PgbenchProtocol::Prepared => "prepared",
    };
    let script = dir.join("script.sql");
    let figures = std::fs::write(&script, sql).ok().and_then(|()| {
        let args = [
            "--log".to_string(),
            format!("--log-prefix={}", dir.join("log").display()),
            format!("--protocol={mode}"),
        ];
        let tps = parse_pgbench_tps(&pgbench_report(database_url, &script, (clients, run), defines, &args)?)?;
        let latency_us_p99 = pgbench_logs_p99(&dir)?;
        Some(PgbenchFigures { tps, latency_us_p99 })
    });
    let _ = std::fs::remove_dir_all(&dir);
    figures
}

/// The 99th percentile of the latencies (the third field, µs) in the pgbench transaction
/// logs (`log.*`) of `dir`; lines of failed transactions (no number there) are skipped.
fn pgbench_logs_p99(dir: &Path) -> Option<u64> {
    let mut logs = Vec::new();
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        if entry.file_name().to_string_lossy().starts_with("log.") {
            logs.push(std::fs::read_to_string(entry.path()).ok()?);
        }
    }
    logs_p99(logs.iter().map(String::as_str))
}

/// The 99th percentile (an HDR histogram's, 3 significant digits, as every latency of the
/// benches) of the latencies in pgbench per-transaction logs: `client_id transaction_no time
/// script_no time_epoch time_us …`, one line per transaction, `time` in µs; `None` when no
/// line has one.
fn logs_p99<'a>(logs: impl Iterator<Item = &'a str>) -> Option<u64> {
    let mut hist = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("static bounds");
    let latencies = logs
        .flat_map(str::lines)
        .filter_map(|l| l.split_whitespace().nth(2)?.parse::<u64>().ok());
    for us in latencies {
        hist.saturating_record(us.max(1));
    }
    (!hist.is_empty()).then(|| hist.value_at_quantile(0.99))
}

/// The tps figure of pgbench's report (`tps = 1234.5 (without initial connection time)`).
pub fn parse_pgbench_tps(report: &str) -> Option<f64> {
    report
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|t| t.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(w: &str, s: &str, ops: f64, pg: Option<f64>) -> CompareRow {
        CompareRow {
            workload: w.into(),
            strategy: s.into(),
            ops_per_s: ops,
            latency_us_p99: 12_345,
            invariants_ok: true,
            pgbench_tps: pg,
            reference: pg.map(|_| "pgbench".to_string()),
            noop_per_s: None,
            cpu_us_per_op: None,
        }
    }

    #[test]
    fn pgbench_log_latencies_and_their_p99() {
        let log = "0 0 1200 0 1732770000 123\n1 0 800 0 1732770000 456\n0 1 failed 0 1732770001 1\n";
        assert_eq!(logs_p99([log].into_iter()), Some(1200));
        let hundred: String = (1..=100)
            .rev()
            .map(|us| format!("0 {us} {us} 0 1732770000 0\n"))
            .collect();
        assert_eq!(logs_p99([hundred.as_str(), ""].into_iter()), Some(99));
        assert_eq!(logs_p99(["0 0 failed 0 1732770000 0\n"].into_iter()), None);
    }

    #[test]
    fn redis_benchmark_quiet_line_parses() {
        let out = "EVAL ...: 52493.44 requests per second, p50=2.695 msec\n";
        assert_eq!(parse_redis_benchmark_rps(out), Some(52493.44));
        assert_eq!(parse_redis_benchmark_rps("nothing"), None);
    }

    #[test]
    fn pgbench_report_is_parsed() {
        let out = "number of failed transactions: 0 (0.000%)\nlatency average = 21.6 ms\ntps = 2957.313480 (without initial connection time)\n";
        assert_eq!(parse_pgbench_tps(out), Some(2957.31348));
        assert_eq!(parse_pgbench_tps("nothing"), None);
    }

    #[test]
    fn table_has_ratios_where_there_is_a_reference() {
        let mut batched = row("hot_sku", "batched", 15000.0, Some(1500.0));
        batched.noop_per_s = Some(60000.0);
        batched.cpu_us_per_op = Some(48.4);
        let t = render_compare_table(&[batched, row("hot_sku", "atomic", 1400.0, None)]);
        assert!(
            t.contains("| hot_sku | batched | 15000 | 12.35 | 48 | ok | pgbench | 1500 | 10.00x | 0.25x |"),
            "{t}"
        );
        assert!(
            t.contains("| hot_sku | atomic | 1400 | 12.35 | - | ok | - | - | - | - |"),
            "{t}"
        );
    }

    /// The CI machine has Debian's fonts-dejavu-core (`.ci/run` installs it): the chart must
    /// be drawn, as a PNG of the chart's size.
    #[test]
    fn chart_is_a_png() {
        let path = std::env::temp_dir().join(format!("allot-compare-{}.png", std::process::id()));
        write_chart(
            &[
                row("hot_sku", "batched", 15000.0, None),
                row("spread", "atomic", 6000.0, None),
            ],
            &path,
        )
        .expect("a chart (install Debian's fonts-dejavu-core)");
        let bytes = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (1400, 120 + 22 * 2), "the chart's size for two rows");
    }

    #[test]
    fn no_font_is_an_error_that_names_the_files() {
        let e = read_font(&["/nonexistent/a.ttf", "/nonexistent/b.ttf"]).unwrap_err();
        assert!(e.contains("no font") && e.contains("/nonexistent/b.ttf"), "{e}");
    }
}
