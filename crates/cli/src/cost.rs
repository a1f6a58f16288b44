//! `allot bench cost` and `allot bench noop-serve`: their flags, mapped to
//! `allot_bench::orchestrate::cost_runs`.

use allot_bench::cost::{CostOptions, CostPath};
use allot_bench::orchestrate::cost_runs::{self, CostRun};
use clap::Args;
use std::path::PathBuf;

/// Flags of `allot bench cost`.
#[derive(Args)]
pub(crate) struct CostArgs {
    /// Operations counted per path (five times as many for the batch path, in whole batches
    /// of 50, and the feed path, in whole pages of 100).
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub(crate) ops: u64,
    /// Operations sent per path before its window opens.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub(crate) warmup: u64,
    /// Paths to count, comma-separated (default: every path).
    #[arg(long, value_delimiter = ',', value_parser = path_name)]
    pub(crate) paths: Vec<CostPathArg>,
    /// Seed of the SKU picks.
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Count this revision's `allot serve` too (built in release in a worktree under
    /// target/compare-rev/, the working tree in release beside it) and print both tables and
    /// this build over it.
    #[arg(long, conflicts_with_all = ["check", "write_baseline"])]
    pub(crate) rev: Option<String>,
    /// Fail when a count rises past the baseline in FILE (instructions by more than 3 %,
    /// heap allocations by more than 0.5 per operation, WAL bytes by more than 1 %,
    /// statements, round trips or rows written by one every 20 operations).
    #[arg(long, value_name = "FILE")]
    pub(crate) check: Option<PathBuf>,
    /// Write this build's counts to FILE as the new baseline.
    #[arg(long, value_name = "FILE")]
    pub(crate) write_baseline: Option<PathBuf>,
    /// Directory for cost.md, cost.json and callgrind's files.
    #[arg(long, default_value = "allot-cost")]
    pub(crate) out: PathBuf,
}

/// A path as parsed from `--paths`.
#[derive(Clone, Copy)]
pub(crate) struct CostPathArg(CostPath);

fn path_name(s: &str) -> Result<CostPathArg, String> {
    CostPath::parse(s).map(CostPathArg).ok_or_else(|| {
        let names: Vec<&str> = CostPath::ALL.iter().map(|p| p.name()).collect();
        format!("`{s}` is not a path (one of {})", names.join(", "))
    })
}

/// Flags of `allot bench noop-serve`.
#[derive(Args)]
pub(crate) struct NoopServeArgs {
    /// Address to listen on, HOST:PORT.
    #[arg(long, default_value = "127.0.0.1:8089")]
    pub(crate) listen: String,
}

/// Run `allot bench cost`.
pub(crate) async fn cost(a: CostArgs) -> anyhow::Result<()> {
    let me = std::env::current_exe()?;
    let paths = if a.paths.is_empty() {
        CostPath::ALL.to_vec()
    } else {
        a.paths.iter().map(|p| p.0).collect()
    };
    let run = CostRun {
        options: CostOptions {
            binary: me.clone(),
            noop_binary: Some(me),
            ops: a.ops,
            warmup_ops: a.warmup,
            paths,
            seed: a.seed,
            work_dir: a.out.join("callgrind"),
            tolerate_failures: false,
        },
        out: a.out,
        rev: a.rev,
        check: a.check,
        write_baseline: a.write_baseline,
        profile: if cfg!(debug_assertions) { "debug" } else { "release" },
    };
    cost_runs::cost(&run).await
}

/// Run `allot bench noop-serve` until killed.
pub(crate) async fn noop_serve(a: NoopServeArgs) -> anyhow::Result<()> {
    Ok(allot_bench::serve_noop_at(&a.listen).await?)
}
