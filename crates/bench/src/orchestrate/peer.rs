//! `allot bench compare`'s queue peer: graphile-worker, pinned from npm under
//! `bench/peers/graphile-worker` (`package.json` and its lock), as the reference of the queue.
//!
//! N no-op jobs end to end, allot's worker pool straight on the store (`skip_locked`) in the
//! peer's shape and the peer's runner with the batching options of its own performance page,
//! alternating ABBA over `--peer-rounds`, each run on a fresh database beside
//! `--database-url`: once with the workers running while the jobs are enqueued, once with
//! every job enqueued first. Each mode is one row of the table, allot's mean over the peer's
//! (`bench/peers/queue_compare.sh` runs the same, with more knobs).

use super::fresh_db::fresh_pg_database;
use crate::compare::CompareRow;
use crate::queue::QueueOptions;
use anyhow::{bail, Context};
use std::path::Path;
use std::time::Duration;

/// The peer's name, as the table's reference.
const PEER: &str = "graphile-worker";

/// Longest `npm ci` of the peer may take (it fetches from the npm registry once).
const INSTALL_LIMIT: Duration = Duration::from_secs(300);

/// Longest one run of either side may take.
const RUN_LIMIT: Duration = Duration::from_secs(300);

/// What the peer's rows need.
pub struct Peer<'a> {
    /// `--database-url` (PostgreSQL): the fresh databases go beside it.
    pub given: &'a str,
    /// The directory holding `graphile-worker/` (`--peers-dir`).
    pub dir: &'a Path,
    /// Pairs of runs per mode.
    pub rounds: u32,
    /// Jobs of each run.
    pub jobs: u64,
    /// PostgreSQL pool size of allot's side (`--pool-size`).
    pub pool_size: usize,
}

/// Lease of allot's jobs, ms: `allot bench queue`'s default, as `queue_compare.sh` runs it.
const LEASE_MS: i64 = 2000;

/// The peer's settings (`run.mjs`) a caller's environment could carry in and that would
/// change the shape its rows name: left to the runner's defaults.
const PEER_KNOBS: [&str; 3] = ["LOCAL_QUEUE", "CONCURRENCY", "BATCH"];

/// When the workers start.
#[derive(Clone, Copy)]
enum Mode {
    /// While the jobs are enqueued (`MODE=both`).
    Both,
    /// After every job is enqueued (`MODE=after`, allot's `--enqueue-first`).
    After,
}

impl Mode {
    /// The peer's `MODE`.
    fn env(self) -> &'static str {
        match self {
            Mode::Both => "both",
            Mode::After => "after",
        }
    }

    /// The row's strategy column.
    fn label(self) -> &'static str {
        match self {
            Mode::Both => "skip_locked, the peer's shape, both at once",
            Mode::After => "skip_locked, the peer's shape, enqueue first",
        }
    }
}

/// One run of allot's side: jobs per second completed, claim p99 (µs), invariants held.
struct Ours {
    per_s: f64,
    claim_us_p99: u64,
    ok: bool,
}

/// The peer's rows, one per mode; none (with a line saying why) when Node.js, npm or the
/// peer's directory is missing, or `rounds` is 0.
pub async fn queue_peer_rows(peer: &Peer<'_>) -> anyhow::Result<Vec<CompareRow>> {
    let project = peer.dir.join("graphile-worker");
    if peer.rounds == 0 {
        return Ok(Vec::new());
    }
    if !project.join("run.mjs").is_file()
        || !crate::compare::tool_available("node")
        || !crate::compare::tool_available("npm")
    {
        eprintln!(
            "no {PEER} rows: they need Node.js, npm and {} (--peers-dir)",
            project.join("run.mjs").display()
        );
        return Ok(Vec::new());
    }
    install(&project).await?;
    let mut rows = Vec::new();
    for mode in [Mode::Both, Mode::After] {
        eprintln!("== queue: {PEER}, {}", mode.env());
        // A mode that cannot finish leaves the other's row standing.
        match mode_row(peer, &project, mode).await {
            Ok(row) => rows.push(row),
            Err(e) => eprintln!("no {PEER} row ({}): {e:#}", mode.env()),
        }
    }
    Ok(rows)
}

/// A mode's runs, alternating, and its row.
async fn mode_row(peer: &Peer<'_>, project: &Path, mode: Mode) -> anyhow::Result<CompareRow> {
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..peer.rounds * 2 {
        let tag = format!("{}_{}", mode.env(), round);
        if ours_in(round) {
            ours.push(allot_run(peer, mode, &tag).await?);
        } else {
            theirs.push(peer_run(peer, project, mode, &tag).await?);
        }
    }
    Ok(row(mode, &ours, &theirs))
}

/// Whether run `round` of a mode (0, 1, … 2 x rounds - 1) is allot's: ABBA, so allot runs
/// first in the first pair and second in the next, and neither side always follows the other.
fn ours_in(round: u32) -> bool {
    matches!(round % 4, 0 | 3)
}

/// `npm ci` in the peer's directory unless its packages are there (bounded by
/// [`INSTALL_LIMIT`]).
async fn install(project: &Path) -> anyhow::Result<()> {
    if project.join("node_modules/graphile-worker").is_dir() {
        return Ok(());
    }
    eprintln!("== npm ci in {}", project.display());
    let run = tokio::process::Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund"])
        .current_dir(project)
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(INSTALL_LIMIT, run)
        .await
        .context("npm ci ran past its limit")?
        .context("run npm ci")?;
    if !out.status.success() {
        bail!("npm ci failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(())
}

/// The peer's shape on allot's side: one producer enqueuing batches of 1000, 800 slots in two
/// pools claiming up to 250 each, completions deleting their jobs (as the peer's do).
fn shape(jobs: u64, mode: Mode) -> QueueOptions {
    QueueOptions {
        strategies: vec![allot_core::ClaimStrategy::SkipLocked],
        producers: 1,
        jobs,
        batch: 1000,
        single_fraction: 0.0,
        workers: 2,
        concurrency: 400,
        claim_batch: 250,
        fail_fraction: 0.0,
        kill_workers: 0,
        lease_ms: LEASE_MS,
        drain_timeout_s: RUN_LIMIT.as_secs(),
        keys: 0,
        limit_per_key: None,
        fifo: false,
        keep_completed: false,
        enqueue_first: matches!(mode, Mode::After),
        fair: false,
        events: false,
        chain: 0,
    }
}

/// One run of allot's worker pool on a fresh database (bounded by [`RUN_LIMIT`]).
async fn allot_run(peer: &Peer<'_>, mode: Mode, tag: &str) -> anyhow::Result<Ours> {
    let name = format!("allot_peer_allot_{}_{tag}", std::process::id());
    let (url, drop_db) = fresh_pg_database(peer.given, &name)?;
    let run = async {
        let open = allot_store::OpenOptions {
            pool_size: peer.pool_size,
            ..Default::default()
        };
        let store = allot_store::open(&url, &open).await?;
        let reports = crate::queue::queue_bench(store, &shape(peer.jobs, mode)).await?;
        let r = reports.first().context("the queue run reported nothing")?;
        anyhow::Ok(Ours {
            per_s: r.completed_per_s,
            claim_us_p99: r.claim_latency_us_p99,
            ok: r.violations.is_empty(),
        })
    };
    let ours = match tokio::time::timeout(RUN_LIMIT, run).await {
        Ok(ours) => ours,
        Err(_) => Err(anyhow::anyhow!("allot's run went past {} s", RUN_LIMIT.as_secs())),
    };
    dropped(drop_db(), ours)
}

/// A run's outcome once its database is dropped: the run's error first; a failed drop is
/// an error of its own when the run succeeded, and a line on stderr when it did not.
fn dropped<T>(drop: anyhow::Result<()>, run: anyhow::Result<T>) -> anyhow::Result<T> {
    match (drop, run) {
        (Ok(()), run) => run,
        (Err(d), Ok(_)) => Err(d.context("drop the run's database")),
        (Err(d), Err(r)) => {
            eprintln!("could not drop the run's database either: {d:#}");
            Err(r)
        }
    }
}

/// One run of the peer's runner on a fresh database: its jobs per second.
async fn peer_run(peer: &Peer<'_>, project: &Path, mode: Mode, tag: &str) -> anyhow::Result<f64> {
    let name = format!("allot_peer_graphile_{}_{tag}", std::process::id());
    let (url, drop_db) = fresh_pg_database(peer.given, &name)?;
    let mut node = tokio::process::Command::new("node");
    node.arg("run.mjs")
        .current_dir(project)
        .env("DATABASE_URL", &url)
        .env("JOBS", peer.jobs.to_string())
        .env("MODE", mode.env())
        .kill_on_drop(true);
    for knob in PEER_KNOBS {
        node.env_remove(knob);
    }
    let run = async {
        let out = tokio::time::timeout(RUN_LIMIT, node.output())
            .await
            .context("the peer ran past its limit")?
            .context("run node")?;
        if !out.status.success() {
            bail!("{PEER} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        completed_per_s(&String::from_utf8_lossy(&out.stdout))
    };
    let theirs = run.await;
    dropped(drop_db(), theirs)
}

/// The peer's rate from the last line it prints (`{"completed_per_s": …, …}`).
fn completed_per_s(stdout: &str) -> anyhow::Result<f64> {
    let line = stdout.lines().last().context("the peer printed nothing")?;
    let v: serde_json::Value = serde_json::from_str(line).with_context(|| format!("the peer printed {line:?}"))?;
    v["completed_per_s"]
        .as_f64()
        .filter(|r| r.is_finite() && *r > 0.0)
        .with_context(|| format!("no completed_per_s in {line:?}"))
}

/// A mode's row: allot's mean rate, its worst claim p99, the peer's mean as the reference.
fn row(mode: Mode, ours: &[Ours], theirs: &[f64]) -> CompareRow {
    let ours_per_s: Vec<f64> = ours.iter().map(|o| o.per_s).collect();
    CompareRow {
        workload: "queue".into(),
        strategy: mode.label().into(),
        ops_per_s: mean(&ours_per_s),
        latency_us_p99: ours.iter().map(|o| o.claim_us_p99).max().unwrap_or(0),
        invariants_ok: ours.iter().all(|o| o.ok),
        pgbench_tps: Some(mean(theirs)),
        reference: Some(PEER.into()),
        noop_per_s: None,
        cpu_us_per_op: None,
    }
}

/// The mean of `v` (0 for none: a mode always has at least one run of each side).
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peers_rate_is_its_last_lines() {
        let out = "npm notice\n{\"peer\":\"graphile-worker\",\"completed_per_s\":31546.2}\n";
        assert_eq!(completed_per_s(out).unwrap(), 31546.2);
        assert!(completed_per_s("").is_err());
        assert!(completed_per_s("{\"completed_per_s\":0}").is_err());
        assert!(completed_per_s("not json").is_err());
    }

    #[test]
    fn a_runs_error_comes_before_its_databases() {
        let fail = || Err::<(), _>(anyhow::anyhow!("drop failed"));
        assert_eq!(dropped(Ok(()), Ok(7)).unwrap(), 7);
        let run_failed = dropped(fail(), Err::<u8, _>(anyhow::anyhow!("run failed")));
        assert_eq!(run_failed.unwrap_err().to_string(), "run failed");
        let drop_failed = dropped(fail(), Ok(7));
        assert!(format!("{:#}", drop_failed.unwrap_err()).contains("drop failed"));
    }

    #[test]
    fn rounds_alternate_abba() {
        let ours: Vec<bool> = (0..8).map(ours_in).collect();
        assert_eq!(ours, [true, false, false, true, true, false, false, true]);
        // Each pair holds one run of each side.
        assert!(ours.chunks(2).all(|pair| pair[0] != pair[1]));
    }
}
