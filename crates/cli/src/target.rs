//! Where a benchmark's load goes: a server given by `--url`, or one started in-process on
//! `--database-url`; and the flags every HTTP load shares.

use std::future::Future;

use allot_bench::orchestrate::report::comma_list;

use allot_server::ServerConfig;
use clap::Args;
use std::path::PathBuf;

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

/// The flags every HTTP load shares: where it goes, which strategies, how many clients,
/// where its figures are written.
#[derive(Args)]
pub(crate) struct LoadArgs {
    #[command(flatten)]
    pub(crate) target: TargetArgs,
    /// Strategies of the workload's kind, comma-separated, or `all` (every one the backend
    /// has; `naive` and the other unsafe ones are reported, not fatal).
    #[arg(long, default_value = "all")]
    pub(crate) strategy: String,
    /// Concurrent clients (C).
    #[arg(short = 'c', long, default_value_t = 64)]
    pub(crate) clients: usize,
    /// Write every figure as JSON to this file.
    #[arg(long)]
    pub(crate) json: Option<PathBuf>,
}

impl LoadArgs {
    /// `--strategy` as a list.
    pub(crate) fn strategies(&self) -> Vec<String> {
        comma_list(&self.strategy)
    }

    /// `--json`, if given.
    pub(crate) fn json(&self) -> Option<&std::path::Path> {
        self.json.as_deref()
    }
}

/// Run `load` on the target's URL (a server started in-process when no `--url` was given),
/// then stop that server, whatever the run's outcome.
pub(crate) async fn on_target<F, Fut>(t: TargetArgs, load: F) -> anyhow::Result<()>
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    on_target_with(t, |_| {}, load).await
}

/// [`on_target`], with `tweak` applied to the in-process server's configuration.
pub(crate) async fn on_target_with<F, Fut>(
    t: TargetArgs,
    tweak: impl FnOnce(&mut ServerConfig),
    load: F,
) -> anyhow::Result<()>
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    let (url, server) = bench_target_with(&t, tweak).await?;
    let result = load(url).await;
    stop(server).await?;
    result
}

/// Stop the in-process server, if one was started.
async fn stop(server: Option<allot_server::RunningServer>) -> anyhow::Result<()> {
    if let Some(s) = server {
        s.stop().await?;
    }
    Ok(())
}

/// A fresh SQLite database in the temp dir, named after `prefix` and this process.
pub(crate) fn temp_sqlite(prefix: &str) -> String {
    let p = std::env::temp_dir().join(format!("{prefix}-{}.db", std::process::id()));
    format!("sqlite://{}", p.display())
}

/// The URL to load, and the in-process server started for it (with `tweak` applied to its
/// configuration) when no `--url` was given.
async fn bench_target_with(
    t: &TargetArgs,
    tweak: impl FnOnce(&mut ServerConfig),
) -> anyhow::Result<(String, Option<allot_server::RunningServer>)> {
    if let Some(u) = &t.url {
        return Ok((u.trim_end_matches('/').to_string(), None));
    }
    let mut cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: t.database_url.clone().unwrap_or_else(|| temp_sqlite("allot-bench")),
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
