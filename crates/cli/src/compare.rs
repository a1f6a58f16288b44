//! `allot bench compare`: the flags of every workload under every strategy, with references,
//! or of this build against a git revision (`--rev`).

use allot_bench::orchestrate::compare_all;
use allot_bench::orchestrate::compare_options::{CompareOptions, Workload};

use crate::target::{on_target, TargetArgs};
use clap::builder::TypedValueParser;
use clap::Args;
use std::path::PathBuf;

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
    #[arg(long, value_delimiter = ',', default_value = "all", value_parser = workloads())]
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

impl CompareArgs {
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

    /// `--workloads` as given, comma-separated (`all` when every one).
    pub(crate) fn workloads_arg(&self) -> String {
        let names: Vec<&str> = self.workloads.iter().map(|w| w.name()).collect();
        names.join(",")
    }

    /// The options of one run on the server at `url`.
    fn options(&self, url: String) -> CompareOptions {
        CompareOptions {
            url,
            database_url: self.target.database_url.clone(),
            external: self.target.url.is_some(),
            redis_url: self.target.redis_url.clone(),
            pool_size: self.target.pool_size,
            clients: self.clients,
            requests: self.requests,
            spread: self.spread,
            jobs: self.jobs,
            pgbench_seconds: self.pgbench_seconds,
            workloads: self.workloads.clone(),
            peer_rounds: self.peer_rounds,
            peers_dir: self.peers_dir.clone(),
            out: self.out.clone(),
        }
    }
}

/// `--workloads`' parser: one of [`Workload::NAMED`], each listed with its help (`- name:
/// …` in `--help`, which `--rev` reads to learn what an older build runs).
fn workloads() -> impl clap::builder::TypedValueParser<Value = Workload> {
    let values = Workload::NAMED
        .iter()
        .map(|(w, name)| clap::builder::PossibleValue::new(*name).help(w.about()));
    clap::builder::PossibleValuesParser::new(values)
        .map(|name| Workload::parse(&name).expect("one of the possible values"))
}

/// `bench compare`: against `--rev` (this build and the revision's, alternating, each on a
/// fresh database), or one run on its target.
pub(crate) async fn compare(a: CompareArgs) -> anyhow::Result<()> {
    if let Some(rev) = a.rev.clone() {
        let opts = a.rev_options();
        return tokio::task::block_in_place(|| allot_bench::orchestrate::rev::compare_rev(&opts, &rev));
    }
    on_target(a.target.clone(), |url| async move {
        compare_all::compare(&a.options(url)).await
    })
    .await
}
