//! The faults injected while the clients run, in a seeded order, on the run's own PostgreSQL
//! cluster and `allot serve` processes (never the shared server on 5432).

use super::history::History;
use allot_bench::{start_server_with, PgCluster, RedisServer, Server, StopMode};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Mutex;

/// A fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Every connection of allot's to PostgreSQL terminated (`pg_terminate_backend`).
    TerminateBackends,
    /// `pg_ctl restart -m fast`: in-flight transactions rolled back.
    RestartFast,
    /// `pg_ctl restart -m immediate`: an abort, crash recovery at the start.
    RestartImmediate,
    /// One `allot serve` SIGKILLed (its in-flight requests and `batched` lanes gone), then
    /// started again on its port.
    KillInstance(usize),
    /// `FLUSHALL` on the run's Redis: every counter, lock and fence gone at once.
    RedisFlush,
    /// Every instance's wall clock jumps [`CLOCK_JUMP_S`] ahead at once, as an NTP step does
    /// (libfaketime's timestamp file; their monotonic clocks, and PostgreSQL's, run on):
    /// every lease running then has expired.
    ClockJump,
}

/// How far a [`Fault::ClockJump`] moves the instances' clocks, s (more than a lease,
/// [`super::client::LEASE_MS`]).
pub const CLOCK_JUMP_S: i64 = 5;

/// Where Debian's libfaketime (package `faketime`) puts the library the instances preload.
pub const LIBFAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

impl Fault {
    /// Its name in the report.
    pub fn name(self) -> String {
        match self {
            Fault::TerminateBackends => "pg_terminate_backend".into(),
            Fault::RestartFast => "PostgreSQL restart (fast)".into(),
            Fault::RestartImmediate => "PostgreSQL restart (immediate)".into(),
            Fault::KillInstance(i) => format!("SIGKILL of instance {i}"),
            Fault::RedisFlush => "Redis FLUSHALL".into(),
            Fault::ClockJump => format!("clock jump of {CLOCK_JUMP_S} s on every instance"),
        }
    }
}

/// Each fault once, and every instance killed once, in the seed's order.
pub fn schedule(seed: u64, instances: usize) -> Vec<Fault> {
    let mut faults = vec![
        Fault::TerminateBackends,
        Fault::RestartFast,
        Fault::RestartImmediate,
        Fault::RedisFlush,
        Fault::ClockJump,
    ];
    faults.extend((0..instances).map(Fault::KillInstance));
    faults.shuffle(&mut StdRng::seed_from_u64(seed));
    faults
}

/// What the faults act on: the cluster, the `allot` binary, and the instances (with their
/// ports, so that a killed one comes back where its clients look for it).
pub struct Stage {
    /// The run's own cluster.
    pub cluster: Arc<PgCluster>,
    /// The binary the instances run.
    pub allot_bin: PathBuf,
    /// The run's own Redis (the `redis_*` strategies' counters and locks).
    pub redis: RedisServer,
    /// The instances, by index.
    pub instances: Mutex<Vec<(u16, Server)>>,
    /// The instances' clock: libfaketime's timestamp file they read (none without the
    /// library: a clock jump is then reported as not made).
    pub clock: Option<PathBuf>,
    /// The clients' log, told of each clock jump.
    pub history: Arc<History>,
}

/// The environment that runs an instance on the clock of `file` (libfaketime: an offset from
/// the machine's wall clock, read again at most a second after it changes; the monotonic
/// clock left alone, so tokio's timers run on).
pub fn clock_env(file: &std::path::Path) -> Vec<(String, String)> {
    [
        ("LD_PRELOAD", LIBFAKETIME.to_string()),
        ("FAKETIME_TIMESTAMP_FILE", file.display().to_string()),
        ("FAKETIME_CACHE_DURATION", "1".to_string()),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// A fresh clock file at offset 0 when libfaketime is installed (`None` otherwise).
pub fn clock_file(seed: u64) -> Option<PathBuf> {
    if !std::path::Path::new(LIBFAKETIME).exists() {
        return None;
    }
    let file = std::env::temp_dir().join(format!("allot-sim-clock-{}-{seed}", std::process::id()));
    std::fs::write(&file, "+0\n").ok().map(|()| file)
}

impl Stage {
    /// Inject `fault`, and wait until it is over (the server back, the instance healthy).
    pub async fn inject(&self, fault: Fault) -> Result<(), String> {
        match fault {
            Fault::TerminateBackends => self.terminate().await,
            Fault::RestartFast | Fault::RestartImmediate => {
                let mode = if fault == Fault::RestartFast {
                    StopMode::Fast
                } else {
                    StopMode::Immediate
                };
                let cluster = self.cluster.clone();
                tokio::task::spawn_blocking(move || cluster.restart(mode))
                    .await
                    .map_err(|e| e.to_string())?
                    .map_err(|e| e.to_string())
            }
            Fault::KillInstance(i) => self.kill(i).await,
            Fault::RedisFlush => self.redis.cli(&["FLUSHALL"]).map(drop).map_err(|e| e.to_string()),
            Fault::ClockJump => self.jump().await,
        }
    }

    /// The environment an instance starts with.
    pub fn env(&self) -> Vec<(String, String)> {
        self.clock.as_deref().map(clock_env).unwrap_or_default()
    }

    /// Move the clock file [`CLOCK_JUMP_S`] ahead, then wait until every instance's HTTP
    /// `Date` header shows it (bounded by [`JUMP_SEEN_WITHIN`]): a jump no instance took is a
    /// failed fault, not a silent one.
    async fn jump(&self) -> Result<(), String> {
        let file = (self.clock.as_ref()).ok_or("libfaketime is not installed (Debian: apt-get install faketime)")?;
        // The file holds the whole offset, which the history keeps too.
        let offset_s = self.history.jumped(CLOCK_JUMP_S * 1000) / 1000;
        std::fs::write(file, format!("+{offset_s}\n")).map_err(|e| e.to_string())?;
        let ports: Vec<u16> = self.instances.lock().await.iter().map(|(p, _)| *p).collect();
        let ahead = Duration::from_secs((offset_s - 1).max(0) as u64);
        for port in ports {
            clock_seen(port, ahead).await?;
        }
        Ok(())
    }

    async fn terminate(&self) -> Result<(), String> {
        let (client, conn) = tokio_postgres::connect(&self.cluster.url(), tokio_postgres::NoTls)
            .await
            .map_err(|e| e.to_string())?;
        let conn = tokio::spawn(conn);
        let done = client
            .batch_execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                  WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'",
            )
            .await
            .map_err(|e| e.to_string());
        drop(client);
        let _ = conn.await;
        done
    }

    async fn kill(&self, i: usize) -> Result<(), String> {
        let mut instances = self.instances.lock().await;
        let Some((port, server)) = instances.get_mut(i) else {
            return Err(format!("no instance {i}"));
        };
        server.child.kill().await.map_err(|e| e.to_string())?;
        let port = *port;
        let url = self.cluster.url();
        let fresh = start_server_with(&self.allot_bin, port, (&url, Some(&self.redis.url())), &self.env())
            .await
            .map_err(|e| e.to_string())?;
        instances[i] = (port, fresh);
        Ok(())
    }
}

/// How long an instance may take to show a clock jump (libfaketime reads its file again at
/// most a second after it changes; `Date` has whole seconds).
const JUMP_SEEN_WITHIN: Duration = Duration::from_secs(5);

/// Wait until the instance on `port` answers with a `Date` at least `ahead` past the
/// machine's clock.
async fn clock_seen(port: u16, ahead: Duration) -> Result<(), String> {
    let http = reqwest::Client::new();
    let deadline = tokio::time::Instant::now() + JUMP_SEEN_WITHIN;
    while tokio::time::Instant::now() < deadline {
        let answer = http.get(format!("http://127.0.0.1:{port}/livez")).send().await;
        let date = answer.ok().and_then(|r| {
            let header = r.headers().get(reqwest::header::DATE)?.to_str().ok()?.to_string();
            httpdate::parse_http_date(&header).ok()
        });
        if date.is_some_and(|d| d >= std::time::SystemTime::now() + ahead) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(format!(
        "the instance on port {port} did not show the jump within {JUMP_SEEN_WITHIN:?}"
    ))
}

/// Inject `faults` one after the other, a seeded pause (300..900 ms) before each, noting each
/// one done (or why it failed) in `log`.
pub async fn run(stage: &Stage, faults: &[Fault], seed: u64, log: &mut Vec<String>) {
    let mut rng = StdRng::seed_from_u64(seed.wrapping_add(1));
    for fault in faults {
        tokio::time::sleep(Duration::from_millis(rng.random_range(300..900))).await;
        let started = std::time::Instant::now();
        match stage.inject(*fault).await {
            Ok(()) => log.push(format!("{} ({} ms)", fault.name(), started.elapsed().as_millis())),
            Err(e) => log.push(format!("{} FAILED: {e}", fault.name())),
        }
    }
}
