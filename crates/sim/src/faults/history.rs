//! What the clients of the faults phase did, in real-time order: each operation's invocation
//! (recorded before its first request leaves) and its return (recorded after its settled
//! answer came back), so that an operation that precedes another in this log preceded it in
//! real time — the order a linearizability checker needs.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Mutex;

/// One operation, as a client invoked it. `n` numbers a client's operations (its
/// idempotency key is made of the seed, the client and `n`).
#[allow(missing_docs)] // the variants say what their fields are
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `POST /v1/allocations` of one line.
    Allocate { sku: &'static str, quantity: i64, n: u64 },
    /// `POST /v1/allocations/{id}/cancel` of the allocation the client's operation `of` made.
    Cancel { sku: &'static str, quantity: i64, of: u64 },
    /// `POST /v1/skus/{sku}/adjustments` by `delta`.
    Adjust { sku: &'static str, delta: i64 },
    /// `GET /v1/skus/{sku}`.
    Read { sku: &'static str },
    /// `POST /v1/queues/{queue}/claims` of one job.
    Claim,
    /// `POST /v1/jobs/{id}/complete` with the token of `attempt`.
    Complete { job: i64, attempt: i32, token: String },
}

impl Call {
    /// The SKU it acts on, if any.
    pub fn sku(&self) -> Option<&'static str> {
        match self {
            Call::Allocate { sku, .. } | Call::Cancel { sku, .. } | Call::Adjust { sku, .. } | Call::Read { sku } => {
                Some(sku)
            }
            _ => None,
        }
    }
}

/// A lease a claim handed out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// The job.
    pub job: i64,
    /// Its attempt.
    pub attempt: i32,
    /// Its token.
    pub token: String,
    /// When it lapses, ms since the epoch.
    pub expires_ms: i64,
}

/// A settled answer.
#[allow(missing_docs)] // the variants say what their fields are
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `201` with the allocation's id.
    Allocated { id: String },
    /// `409 insufficient_stock`, naming `available`.
    Short { available: i64 },
    /// `200`, the allocation cancelled.
    Cancelled,
    /// `200`, the SKU's figures (an adjustment's or a read's answer).
    Level { on_hand: i64, available: i64 },
    /// `200` to a claim: the job leased, or none.
    Leased(Option<Lease>),
    /// `200` to a completion.
    Completed,
    /// `409 lease_lost`.
    LeaseLost,
    /// Any other answer: `status code`, or why none settled.
    Other(String),
}

/// One entry of the log.
#[allow(missing_docs)] // the variants say what their fields are
#[derive(Debug, Clone)]
pub enum Event {
    /// Client `client` invoked `call`.
    Invoke { client: usize, call: Call },
    /// Client `client`'s operation in flight returned `outcome`, at `at_ms` (ms since the epoch).
    Return {
        client: usize,
        outcome: Outcome,
        at_ms: i64,
    },
}

/// The shared log, and how far the instances' clocks were jumped ahead of the machine's.
#[derive(Debug, Default)]
pub struct History {
    events: Mutex<Vec<Event>>,
    /// What [`Fault::ClockJump`](super::inject::Fault::ClockJump)s added to the instances'
    /// clocks so far, ms.
    skew_ms: AtomicI64,
}

impl History {
    fn push(&self, e: Event) {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }

    /// Client `client` invokes `call`.
    pub fn invoke(&self, client: usize, call: Call) {
        self.push(Event::Invoke { client, call });
    }

    /// The instances' clocks were jumped `ms` ahead (set as the jump is made: an instance
    /// reads it within a second, and until then a return's instant is later than its clock's,
    /// which only lets a lost lease be lost earlier).
    /// Returns the instances' whole offset after it, ms.
    pub fn jumped(&self, ms: i64) -> i64 {
        self.skew_ms.fetch_add(ms, Ordering::SeqCst) + ms
    }

    /// Client `client`'s operation returned `outcome` (now, on the instances' clock: the
    /// machine's plus the jumps).
    pub fn ret(&self, client: usize, outcome: Outcome) {
        let at_ms = chrono::Utc::now().timestamp_millis() + self.skew_ms.load(Ordering::SeqCst);
        self.push(Event::Return { client, outcome, at_ms });
    }

    /// The log so far.
    pub fn events(&self) -> Vec<Event> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}
