//! `allot bench console`: the console's calls on a server filled with a million jobs and
//! 100 000 SKUs, beside a no-op reference.

use crate::{bail, bench_target, Args, PathBuf, TargetArgs};

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

pub(crate) async fn console(a: ConsoleArgs) -> anyhow::Result<()> {
    let (url, server) = bench_target(&a.target).await?;
    let opts = allot_bench::ConsoleOptions {
        url,
        jobs: a.jobs,
        queues: a.queues.max(1),
        skus: a.skus,
        samples: a.samples.max(1),
    };
    eprintln!(
        "filling: {} jobs over {} queues, {} SKUs",
        opts.jobs, opts.queues, opts.skus
    );
    let report = allot_bench::console_bench(&opts).await?;
    println!("console calls, one at a time, {} samples each\n", opts.samples);
    print!("{}", allot_bench::render_console_table(&report));
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)?;
    }
    if let Some(s) = server {
        s.stop().await?;
    }
    let overview = report.calls.iter().find(|c| c.page == "overview");
    if overview.is_some_and(|o| o.latency_us_p99 >= allot_bench::OVERVIEW_P99_TARGET_US) {
        bail!("the overview's p99 is over 100 ms");
    }
    Ok(())
}
