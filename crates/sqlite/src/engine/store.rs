//! The SQLite store: one writer thread owns the connection; requests reach it as closures
//! on a channel and get their result back on a oneshot.

use crate::engine::config::SqliteConfig;
use crate::engine::migrate::open;
use allot_core::{AllotError, Limits, Result};
use allot_core::{Backend, BookingStrategy, Capabilities, Capable, ClaimStrategy, Strategy, UnitStrategy};
use rusqlite::Connection;

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// Most requests waiting for the writer thread; a caller past it waits for a place (bounded
/// overall by the server's request timeout), so memory stays bounded under any load.
pub const WRITER_QUEUE: usize = 4096;

/// The SQLite stock store. Cloning shares the writer thread.
#[derive(Clone)]
pub struct SqliteStore {
    jobs: tokio::sync::mpsc::Sender<Job>,
    /// Wakes job claims waiting in this process when a job is enqueued.
    pub(crate) job_signal: std::sync::Arc<tokio::sync::Notify>,
    /// Wakes readers of the change feed in this process after every committed write.
    pub(crate) event_signal: std::sync::Arc<tokio::sync::Notify>,
    /// Limits (`job_poll_interval_ms` among them).
    pub(crate) limits: Limits,
    /// What it runs, and where "now" comes from (the writer thread reads the same clock, see
    /// [`now_us`]).
    capabilities: Capabilities,
}

impl Capable for SqliteStore {
    fn capabilities(&self) -> &Capabilities {
        &self.capabilities
    }
}

impl SqliteStore {
    /// Open (and migrate) the database and start its writer thread.
    pub fn open(cfg: &SqliteConfig) -> Result<Self> {
        let mut conn = open(cfg)?;
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Job>(WRITER_QUEUE);
        let clock = cfg.clock.clone();
        std::thread::Builder::new()
            .name("allot-sqlite-writer".into())
            .spawn(move || {
                crate::engine::clock::set_writer_clock(clock);
                while let Some(job) = rx.blocking_recv() {
                    job(&mut conn);
                }
            })
            .map_err(|e| AllotError::Internal(format!("cannot start sqlite thread: {e}")))?;
        Ok(SqliteStore {
            jobs: tx,
            job_signal: Default::default(),
            event_signal: Default::default(),
            limits: cfg.limits.clone(),
            // One writer: every kind of work runs serialized.
            capabilities: Capabilities {
                backend: Backend::Sqlite,
                clock: cfg.clock.clone(),
                stock: (vec![Strategy::Serialized], Strategy::Serialized),
                units: (vec![UnitStrategy::Serialized], UnitStrategy::Serialized),
                bookings: (vec![BookingStrategy::Serialized], BookingStrategy::Serialized),
                claims: (vec![ClaimStrategy::Serialized], ClaimStrategy::Serialized),
            },
        })
    }

    /// Work waiting for the writer thread now.
    pub(crate) fn writer_queue_len(&self) -> u64 {
        (self.jobs.max_capacity() - self.jobs.capacity()) as u64
    }

    /// Run `f` on the writer thread and wait for its result; the wait for the writer is
    /// recorded in `allot_db_pool_acquire_seconds`.
    pub(crate) async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        static ACQUIRE: std::sync::OnceLock<metrics::Histogram> = std::sync::OnceLock::new();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let queued = std::time::Instant::now();
        self.jobs
            .send(Box::new(move |c| {
                ACQUIRE
                    .get_or_init(|| metrics::histogram!("allot_db_pool_acquire_seconds"))
                    .record(queued.elapsed().as_secs_f64());
                let _ = tx.send(f(c));
            }))
            .await
            .map_err(|_| AllotError::Unavailable("sqlite writer thread stopped".into()))?;
        rx.await
            .map_err(|_| AllotError::Unavailable("sqlite writer thread stopped".into()))?
    }
}
