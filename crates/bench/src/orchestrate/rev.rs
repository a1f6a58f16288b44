//! `allot bench compare --rev REV`: this build against a git revision, workload by workload.
//!
//! The revision is checked out in a git worktree under `target/compare-rev/` and built there
//! in release (one target directory for every revision, so dependencies build once), the
//! working tree is built in release in its own target directory; then
//! both binaries run `allot bench compare` in turn, ABBA over `--rounds` pairs, each run on a
//! fresh database (a new PostgreSQL database beside the one given, or a new SQLite file), and
//! the ratio of this build's throughput to the revision's is printed per workload and
//! strategy. Alternating and fresh databases keep a noisy machine's drift and a database's
//! growth out of the ratio.

use super::fresh_db::{fresh_pg_database, DropDb};
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `--rev` runs: `bench compare`'s own flags, passed on to both builds.
#[derive(Debug, Clone)]
pub struct RevOptions {
    /// The database the runs' fresh databases are made beside (PostgreSQL), or `sqlite://…`.
    pub database_url: Option<String>,
    /// Where `compare-rev.md` and each run's output go.
    pub out: PathBuf,
    /// ABBA pairs of runs.
    pub rounds: u32,
    /// `-c`, `-n`, `--spread`, `--jobs`, `--pgbench-seconds` of each run.
    pub clients: usize,
    /// Requests of the hot-SKU and spread workloads.
    pub requests: u64,
    /// SKUs of the spread workload.
    pub spread: u32,
    /// Jobs of the queue workload.
    pub jobs: u64,
    /// Seconds of each pgbench reference.
    pub pgbench_seconds: u64,
    /// `--workloads` as given (comma-separated), or `None` for every workload.
    pub workloads: Option<String>,
}

/// What is read back from a run's `compare.json` (older builds write fewer fields).
#[derive(serde::Deserialize)]
struct Row {
    workload: String,
    strategy: String,
    ops_per_s: f64,
    latency_us_p99: u64,
}

/// Each build's throughputs (one per run) and worst p99 (µs) of one workload and strategy.
#[derive(Default)]
struct Pair {
    base: Vec<f64>,
    head: Vec<f64>,
    base_p99: u64,
    head_p99: u64,
}

/// The runs by (workload, strategy).
type Runs = BTreeMap<(String, String), Pair>;

/// Build `rev` and run both builds alternately; print and write the ratios.
pub fn compare_rev(a: &RevOptions, rev: &str) -> anyhow::Result<()> {
    let (root, sha) = resolve(rev)?;
    let base = build_rev(&root, &sha)?;
    let head = build_working_tree(&root)?;
    let mut runs = Runs::new();
    for round in 0..a.rounds.max(1) {
        let order = if round % 2 == 0 { [false, true] } else { [true, false] };
        for is_head in order {
            let (bin, label) = if is_head { (&head, "head") } else { (&base, "base") };
            eprintln!("== round {} of {}: {label}", round + 1, a.rounds.max(1));
            for r in run_once(a, bin, &format!("{label}-{round}"))? {
                let e = runs.entry((r.workload, r.strategy)).or_default();
                if is_head {
                    e.head.push(r.ops_per_s);
                    e.head_p99 = e.head_p99.max(r.latency_us_p99);
                } else {
                    e.base.push(r.ops_per_s);
                    e.base_p99 = e.base_p99.max(r.latency_us_p99);
                }
            }
        }
    }
    let table = render(&runs, &sha[..12.min(sha.len())]);
    println!("{table}");
    std::fs::create_dir_all(&a.out)?;
    std::fs::write(a.out.join("compare-rev.md"), &table)?;
    eprintln!("wrote {}/compare-rev.md", a.out.display());
    Ok(())
}

/// The repository's root and the full commit id `rev` names in it.
pub(crate) fn resolve(rev: &str) -> anyhow::Result<(PathBuf, String)> {
    let root = PathBuf::from(git(&["rev-parse", "--show-toplevel"], None)?.trim());
    let sha = git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")], Some(&root))
        .with_context(|| format!("`{rev}` is not a revision of {}", root.display()))?;
    Ok((root, sha.trim().to_string()))
}

fn git(args: &[&str], dir: Option<&Path>) -> anyhow::Result<String> {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.args(args).output().context("run git")?;
    if !out.status.success() {
        bail!(
            "git {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The release binary of `sha`, built in its own worktree (kept for the next comparison).
pub(crate) fn build_rev(root: &Path, sha: &str) -> anyhow::Result<PathBuf> {
    let dir = root.join("target/compare-rev");
    let short = &sha[..12.min(sha.len())];
    let tree = dir.join(short);
    if !tree.exists() {
        std::fs::create_dir_all(&dir)?;
        git(
            &["worktree", "add", "--detach", &tree.to_string_lossy(), sha],
            Some(root),
        )?;
    }
    let built = cargo_release(&tree, &dir.join("target"), sha)?;
    // Copied: later builds of other revisions overwrite the shared target directory's.
    let bin = dir.join(format!("allot-{short}"));
    std::fs::copy(built, &bin)?;
    Ok(bin)
}

/// The release binary of the working tree as it is now (built, so an older or debug binary
/// is never what is compared).
pub(crate) fn build_working_tree(root: &Path) -> anyhow::Result<PathBuf> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    cargo_release(root, &target, "the working tree")
}

/// `cargo build --release -p allot` in `tree` into `target`; the binary's path.
fn cargo_release(tree: &Path, target: &Path, what: &str) -> anyhow::Result<PathBuf> {
    eprintln!("== building {what} in {} (release)", tree.display());
    let status = Command::new("cargo")
        .args(["build", "--release", "-p", "allot"])
        .current_dir(tree)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .context("run cargo")?;
    if !status.success() {
        bail!("the build of {what} failed");
    }
    Ok(target.join("release/allot"))
}

/// One `bench compare` of `bin` on a fresh database; its rows.
fn run_once(a: &RevOptions, bin: &Path, label: &str) -> anyhow::Result<Vec<Row>> {
    let out = a.out.join(label);
    // Before the database is made: nothing to drop when the build cannot even say its flags.
    let help = Command::new(bin).args(["bench", "compare", "--help"]).output()?;
    let help = String::from_utf8_lossy(&help.stdout);
    let (db, drop_db) = fresh_database(a, label)?;
    let mut cmd = Command::new(bin);
    cmd.args(["bench", "compare", "--database-url", &db, "--out"])
        .arg(&out)
        .args(["-c", &a.clients.to_string(), "-n", &a.requests.to_string()])
        .args(["--spread", &a.spread.to_string(), "--jobs", &a.jobs.to_string()])
        .args(["--pgbench-seconds", &a.pgbench_seconds.to_string()]);
    if let Some(asked) = &a.workloads {
        if help.contains("--workloads") {
            cmd.args(["--workloads", &known_workloads(asked, &help)]);
        } else {
            eprintln!("(this build has no --workloads: it runs every workload)");
        }
    }
    // The queue's peer does not change with the build: its runs would only lengthen each.
    if help.contains("--peer-rounds") {
        cmd.args(["--peer-rounds", "0"]);
    }
    let status = cmd.status().context("run a build's bench compare");
    drop_db()?;
    let status = status?;
    if !status.success() {
        bail!("{label}: bench compare failed ({status})");
    }
    let json = std::fs::read(out.join("compare.json")).with_context(|| format!("{label}: no compare.json"))?;
    Ok(serde_json::from_slice(&json)?)
}

/// `--workloads` as asked, less those a build's help does not list (an older build has no
/// `batch`, say): it runs the rest, and the table shows the missing ones for one build only.
fn known_workloads(asked: &str, help: &str) -> String {
    let known: Vec<&str> = asked
        .split(',')
        .filter(|w| {
            let listed = help.contains(&format!("- {w}:"));
            if !listed {
                eprintln!("(this build has no workload {w})");
            }
            listed
        })
        .collect();
    known.join(",")
}

/// A fresh database for one run, and what removes it: a new PostgreSQL database named after
/// the run beside `--database-url`'s, or a new SQLite file.
fn fresh_database(a: &RevOptions, label: &str) -> anyhow::Result<(String, DropDb)> {
    let given = a
        .database_url
        .clone()
        .context("--rev needs --database-url (PostgreSQL, or sqlite://FILE)")?;
    if !given.starts_with("postgres") {
        let file = std::env::temp_dir().join(format!("allot-rev-{}-{label}.db", std::process::id()));
        let url = format!("sqlite://{}", file.display());
        let remove = move || {
            let _ = std::fs::remove_file(&file);
            Ok(())
        };
        return Ok((url, Box::new(remove)));
    }
    let name = format!("allot_rev_{}_{}", std::process::id(), label.replace('-', "_"));
    fresh_pg_database(&given, &name)
}

/// The table: per workload and strategy, each build's mean throughput and worst p99, and the
/// ratio head / base.
fn render(runs: &Runs, sha: &str) -> String {
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let mut out = format!(
        "| workload | strategy | {sha} ops/s | this build ops/s | {sha} p99 ms | this build p99 ms | this / {sha} |\n|---|---|---:|---:|---:|---:|---:|\n"
    );
    for ((w, s), p) in runs {
        let (b, h) = (mean(&p.base), mean(&p.head));
        let cell = |x: Option<f64>| x.map(|v| format!("{v:.0}")).unwrap_or_else(|| "-".into());
        let ratio = b
            .zip(h)
            .filter(|(b, _)| *b > 0.0)
            .map(|(b, h)| format!("{:.2}x", h / b));
        out.push_str(&format!(
            "| {w} | {s} | {} | {} | {:.2} | {:.2} | {} |\n",
            cell(b),
            cell(h),
            p.base_p99 as f64 / 1000.0,
            p.head_p99 as f64 / 1000.0,
            ratio.unwrap_or_else(|| "-".into())
        ));
    }
    out
}
