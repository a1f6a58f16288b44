//! `allot bench console`: the flags of the console's calls on a server filled with a million
//! jobs and 100 000 SKUs, beside a no-op reference.

use allot_bench::orchestrate::flow_runs;

use crate::target::{on_target, TargetArgs};
use clap::Args;
use std::path::PathBuf;

#[derive(Args)]
pub(crate) struct ConsoleArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Jobs (J) to fill the server with.
    #[arg(short = 'j', long, default_value_t = 1_000_000)]
    pub(crate) jobs: u64,
    /// Queues (Q) the jobs are spread over.
    #[arg(short = 'q', long, default_value_t = 10)]
    pub(crate) queues: u32,
    /// SKUs (S), one in ten sold out.
    #[arg(short = 's', long, default_value_t = 100_000)]
    pub(crate) skus: u32,
    /// Requests per call measured, one at a time.
    #[arg(long, default_value_t = 200)]
    pub(crate) samples: u32,
    /// Write the report as JSON here.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

/// `bench console` on its target.
pub(crate) async fn console(a: ConsoleArgs) -> anyhow::Result<()> {
    on_target(a.target.clone(), |url| async move {
        let opts = allot_bench::ConsoleOptions {
            url,
            jobs: a.jobs,
            queues: a.queues.max(1),
            skus: a.skus,
            samples: a.samples.max(1),
        };
        flow_runs::console(&opts, a.json.as_deref()).await
    })
    .await
}
