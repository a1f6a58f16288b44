//! What one `allot bench compare` run loads and where it writes: its options and the
//! workloads it can run.

use std::path::PathBuf;

/// A workload of `bench compare`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Every workload.
    All,
    /// One hot SKU (with the no-op handler).
    HotSku,
    /// Allocations spread over many SKUs.
    Spread,
    /// Hold flows.
    Holds,
    /// Unit claims.
    Units,
    /// Bookings.
    Bookings,
    /// The job queue (straight on the store; with the peer on PostgreSQL).
    Queue,
    /// The batch API (`POST /v1/batch`) on one hot SKU, with its pgbench reference.
    Batch,
}

impl Workload {
    /// Every workload with its flag name, in the order they run.
    pub const NAMED: [(Workload, &'static str); 8] = [
        (Workload::All, "all"),
        (Workload::HotSku, "hot_sku"),
        (Workload::Spread, "spread"),
        (Workload::Holds, "holds"),
        (Workload::Units, "units"),
        (Workload::Bookings, "bookings"),
        (Workload::Queue, "queue"),
        (Workload::Batch, "batch"),
    ];

    /// Its flag name (`hot_sku`, …).
    pub fn name(self) -> &'static str {
        Self::NAMED.iter().find(|(w, _)| *w == self).map_or("all", |(_, n)| n)
    }

    /// What it runs, in a line (the flag's help).
    pub fn about(self) -> &'static str {
        match self {
            Workload::All => "Every workload",
            Workload::HotSku => "One hot SKU, with the no-op handler",
            Workload::Spread => "Allocations spread over --spread SKUs",
            Workload::Holds => "Hold flows",
            Workload::Units => "Unit claims",
            Workload::Bookings => "Bookings",
            Workload::Queue => "The job queue, straight on the store",
            Workload::Batch => "The batch API on one hot SKU, with its pgbench reference",
        }
    }

    /// The workload named `name`, if any.
    pub fn parse(name: &str) -> Option<Workload> {
        Self::NAMED.iter().find(|(_, n)| *n == name).map(|(w, _)| *w)
    }
}

/// What one `bench compare` run loads, and where it writes.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// The server to load (its base URL, loopback).
    pub url: String,
    /// Its database, when known (the queue, pgbench and the peer run on it).
    pub database_url: Option<String>,
    /// Whether the server is one the caller did not start (no queue workload then).
    pub external: bool,
    /// The Redis the server uses (redis-benchmark's reference).
    pub redis_url: Option<String>,
    /// PostgreSQL pool size of the queue's store and the peer's runs.
    pub pool_size: usize,
    /// Concurrent clients of the HTTP workloads (C).
    pub clients: usize,
    /// Requests of the hot-SKU and spread workloads (N, at least 100).
    pub requests: u64,
    /// SKUs of the spread workload.
    pub spread: u32,
    /// Jobs of the queue workload.
    pub jobs: u64,
    /// Seconds of each pgbench reference run.
    pub pgbench_seconds: u64,
    /// Workloads to run.
    pub workloads: Vec<Workload>,
    /// Pairs of runs per mode of the queue's peer (0: none).
    pub peer_rounds: u32,
    /// Where the queue's peer lives.
    pub peers_dir: PathBuf,
    /// Directory for compare.md, compare.json and compare.png.
    pub out: PathBuf,
}

impl CompareOptions {
    /// Whether `workload` is among those asked for.
    pub fn runs(&self, workload: Workload) -> bool {
        self.workloads.iter().any(|w| *w == Workload::All || *w == workload)
    }

    /// N as the workloads run it (at least 100).
    pub fn n(&self) -> u64 {
        self.requests.max(100)
    }
}
