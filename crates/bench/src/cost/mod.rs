//! `allot bench cost`: what each hot path costs per operation, in units that do not swing
//! with the hour — the server's instructions and heap allocations (callgrind, on the server
//! process alone), PostgreSQL's statements and round trips (a counting proxy on the
//! protocol), WAL bytes and rows written (`pg_walinspect`) — beside two floors: a no-op HTTP
//! handler, and the textbook SQL by hand.
//!
//! Everything runs on the bench's own PostgreSQL cluster (a free port, `full_page_writes`
//! and autovacuum off, removed after), with the server's background tasks slowed to one
//! pass an hour (`--background-interval-ms`), so a window holds the requests' work and
//! nothing else. A build without that flag (an older revision) gets the interval flags it has
//! set to an hour (the feed's sequencer, the sweepers), and an idle window whose rate is
//! taken off each path's for the rest.

mod baseline;
mod callgrind;
mod floors;
mod measure;
mod paths;
mod render;
mod wal;
mod wire;

pub use baseline::{check, Baseline, Verdict};
pub use callgrind::CpuCounts;
pub use measure::{measure_build, CostOptions};
pub use paths::CostPath;
pub use render::{render_table, render_versus};
pub use wal::WalCounts;
pub use wire::{CountingProxy, WireCounts};

/// One row of the table: what one operation of a path (or floor) cost, on average over the
/// window's operations.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CostRow {
    /// The path's or floor's name.
    pub path: String,
    /// What one operation is.
    pub about: String,
    /// Operations in the window.
    pub ops: u64,
    /// HTTP requests per operation.
    pub requests_per_op: f64,
    /// Server instructions per operation (`None`: not counted, as for the SQL floor).
    pub instructions_per_op: Option<f64>,
    /// Server heap allocations per operation.
    pub allocations_per_op: Option<f64>,
    /// PostgreSQL statements per operation.
    pub statements_per_op: f64,
    /// Round trips to PostgreSQL per operation.
    pub round_trips_per_op: f64,
    /// WAL bytes per operation.
    pub wal_bytes_per_op: f64,
    /// Heap rows inserted, updated or deleted per operation.
    pub rows_written_per_op: f64,
}

/// A window's totals before they are divided by its operations (floats: an idle window's
/// rate may have been taken off).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Totals {
    /// HTTP requests sent.
    pub requests: f64,
    /// Server counts, when the server ran under callgrind.
    pub cpu: Option<(f64, f64)>,
    /// Statements, round trips.
    pub wire: (f64, f64),
    /// WAL bytes, rows written.
    pub wal: (f64, f64),
}

impl Totals {
    /// The totals of one window.
    pub fn of(requests: u64, cpu: Option<CpuCounts>, wire: WireCounts, wal: WalCounts) -> Totals {
        Totals {
            requests: requests as f64,
            cpu: cpu.map(|c| (c.instructions as f64, c.allocations as f64)),
            wire: (wire.statements as f64, wire.round_trips as f64),
            wal: (wal.wal_bytes as f64, wal.rows_written as f64),
        }
    }

    /// These totals less `rate` (per second) over `secs` seconds, never below 0.
    pub fn less(self, rate: &Totals, secs: f64) -> Totals {
        let sub = |a: f64, b: f64| (a - b * secs).max(0.0);
        Totals {
            requests: self.requests,
            cpu: self
                .cpu
                .zip(rate.cpu)
                .map(|(a, b)| (sub(a.0, b.0), sub(a.1, b.1)))
                .or(self.cpu),
            wire: (sub(self.wire.0, rate.wire.0), sub(self.wire.1, rate.wire.1)),
            wal: (sub(self.wal.0, rate.wal.0), sub(self.wal.1, rate.wal.1)),
        }
    }

    /// These totals per second of a `secs`-long window.
    pub fn per_second(self, secs: f64) -> Totals {
        let d = |a: f64| a / secs.max(1e-9);
        Totals {
            requests: d(self.requests),
            cpu: self.cpu.map(|(i, a)| (d(i), d(a))),
            wire: (d(self.wire.0), d(self.wire.1)),
            wal: (d(self.wal.0), d(self.wal.1)),
        }
    }
}

impl CostRow {
    /// The row of `ops` operations that cost `t`.
    pub fn new(path: &str, about: &str, ops: u64, t: Totals) -> CostRow {
        let per = |x: f64| x / ops.max(1) as f64;
        CostRow {
            path: path.to_string(),
            about: about.to_string(),
            ops,
            requests_per_op: per(t.requests),
            instructions_per_op: t.cpu.map(|c| per(c.0)),
            allocations_per_op: t.cpu.map(|c| per(c.1)),
            statements_per_op: per(t.wire.0),
            round_trips_per_op: per(t.wire.1),
            wal_bytes_per_op: per(t.wal.0),
            rows_written_per_op: per(t.wal.1),
        }
    }
}

/// A client of database `db` on `127.0.0.1:port` (the bench's cluster, or the proxy in front
/// of it): what the measurement and the floors connect with.
async fn connect(port: u16, db: &str) -> Result<tokio_postgres::Client, crate::error::BenchError> {
    let url = format!("postgres://postgres@127.0.0.1:{port}/{db}");
    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
        .await
        .map_err(setup)?;
    tokio::spawn(conn);
    Ok(client)
}

/// A failure of the bench's cluster, as a setup error.
fn setup(e: tokio_postgres::Error) -> crate::error::BenchError {
    crate::error::BenchError::Setup(format!("the bench's cluster: {e}"))
}
