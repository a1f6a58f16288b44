//! The operations a simulation applies, and the seeded generator of their sequences.
//!
//! An operation names objects the way a client would after the fact: a SKU by name (from a
//! pool of three, so that steps fight over the same rows, plus one that never exists and one
//! that breaks the name rule), and an allocation or hold by its place among those made so far
//! ([`Ref`]), which every target resolves to its own id. Removing steps (shrinking) keeps every
//! reference meaningful: a reference past the end wraps around, and with nothing made it
//! names an id no object has.

mod batch;
mod bookings;
mod jobs;
mod places;
pub mod schedules;
mod units;

pub use bookings::{window_at, ResourcePut, POOLS, PUT_RESOURCES, RESOURCES, WINDOW_HOURS};
pub use jobs::{JobRef, NewJob, Settings, Token, QUEUES};
pub use places::{Place, Placing, LOCATIONS, UNKNOWN_LOCATION};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
pub use units::{NewUnit, SERIALS, UNIT_SKU};

/// Where every run's clock starts: a fixed instant, so that a seed's trace is the same on
/// every machine and every day (steps name instants from it: a job's `run_at`, a booking's
/// range).
pub fn start() -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(1_893_456_000, 0).unwrap_or_default()
}

/// The SKUs steps fight over.
pub const SKUS: [&str; 3] = ["A", "B", "C"];
/// Kits: the first is made at the start of every run (of the first two SKUs) and remade now
/// and then; the second is never made (`not_found`). A line of a kit's name in [`Lines`] is a
/// kit line (`{"kit": …}`, see [`lines_json`]).
pub const KITS: [&str; 2] = ["KIT", "NOKIT"];
/// A well-formed SKU no step creates: `not_found`.
pub const UNKNOWN_SKU: &str = "Z";
/// A SKU name the name rule refuses (a space): `invalid_request`.
pub const BAD_SKU: &str = "no good";
/// Idempotency keys: the first three are reused often (a retry, or another body under a used
/// key), the rest now and then.
pub const KEYS: [&str; 16] = [
    "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13", "k14", "k15", "k16",
];

/// The `n`-th allocation, hold or job made so far (wrapping), or none at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ref {
    /// The made object at `n % count`; with none made, an unknown id.
    Nth(usize),
    /// An id no object has.
    Unknown,
}

/// Lines of a request: `(sku, quantity)`.
pub type Lines = Vec<(&'static str, i64)>;

/// What a partial confirm keeps: `lines` (SKU, quantity) of the hold's stock and unit SKUs,
/// and the hold's booking lines by their index among its booking lines, in (resource, start,
/// end) order, as [`allot_core::hold::booking_id`] numbers them (an index past them names no
/// booking of it: `422 not_in_hold`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// `(sku, quantity)` kept.
    pub lines: Lines,
    /// The hold's booking lines kept, by index among its booking lines.
    pub bookings: Vec<usize>,
}

/// An idempotency key, if the step carries one.
pub type Key = Option<&'static str>;

/// One step. Fields: `sku` a SKU's name; `lines` `(sku, quantity)`; `key` the
/// `Idempotency-Key`; `allocation`/`hold` the object the step names; `*_ms` milliseconds.
#[allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// `POST /v1/skus`.
    CreateSku {
        sku: &'static str,
        on_hand: i64,
        buckets: i64,
        location: Option<&'static str>,
    },
    /// `GET /v1/skus/{sku}`.
    GetSku { sku: &'static str },
    /// `PUT /v1/kits/{kit}` of `(sku, quantity)` components.
    PutKit {
        kit: &'static str,
        components: Vec<(&'static str, i64)>,
    },
    /// `GET /v1/kits/{kit}`: its components and how many whole kits are available.
    GetKit { kit: &'static str },
    /// `PATCH /v1/skus/{sku}` `{"backorder_limit"}`.
    SetBackorderLimit { sku: &'static str, limit: i64 },
    /// `POST /v1/skus/{sku}/adjustments` (at `location`; none: `default`).
    Adjust {
        sku: &'static str,
        delta: i64,
        location: Option<&'static str>,
        key: Key,
    },
    /// `POST /v1/locations`.
    CreateLocation { location: &'static str, priority: i32 },
    /// `POST /v1/transfers`.
    Transfer {
        sku: &'static str,
        from: &'static str,
        to: &'static str,
        quantity: i64,
        key: Key,
    },
    /// `POST /v1/skus/{sku}/levels/{location}`.
    SetLevel {
        sku: &'static str,
        location: &'static str,
        on_hand: i64,
        compare_on_hand: i64,
        key: Key,
    },
    /// `POST /v1/skus/{sku}/incoming` (at `location`; none: `default`).
    AddIncoming {
        sku: &'static str,
        quantity: i64,
        location: Option<&'static str>,
        key: Key,
    },
    /// `POST /v1/skus/{sku}/receipts`: against the incoming `incoming` names, or at
    /// `location` (none: `default`); both named is a request the core refuses.
    Receive {
        sku: &'static str,
        quantity: i64,
        incoming: Option<Ref>,
        location: Option<&'static str>,
        key: Key,
    },
    /// `POST /v1/skus/{sku}/moves`: `quantity` from one quantity state to another at
    /// `location` (none: `default`); `from == to` is a request the core refuses.
    Move {
        sku: &'static str,
        from: allot_core::QuantityState,
        to: allot_core::QuantityState,
        quantity: i64,
        location: Option<&'static str>,
        key: Key,
    },
    /// `POST /v1/allocations`, placed as `place` says.
    Allocate { lines: Lines, place: Place, key: Key },
    /// `GET /v1/allocations/{id}`.
    GetAllocation { allocation: Ref },
    /// `POST /v1/allocations/{id}/cancel`.
    Cancel { allocation: Ref, key: Key },
    /// `POST /v1/allocations/{id}/returns`: lines of `(sku, quantity, damaged)` (`damaged`
    /// false: `sellable`, back on hand where it came from).
    Return {
        allocation: Ref,
        lines: Vec<(&'static str, i64, bool)>,
        /// Where every line goes back (`None`: where its allocation's line came from first).
        location: Option<&'static str>,
        key: Key,
    },
    /// `POST /v1/holds`, placed as `place` says, with unit lines `units` (none: a stock hold)
    /// and booking lines `bookings`.
    Hold {
        lines: Lines,
        units: Vec<HoldUnits>,
        bookings: Vec<HoldBooking>,
        ttl_ms: i64,
        place: Place,
        key: Key,
    },
    /// `GET /v1/holds/{id}`.
    GetHold { hold: Ref },
    /// `POST /v1/holds/{id}/confirm`, whole (`part` none) or only `part`.
    Confirm { hold: Ref, part: Option<Part>, key: Key },
    /// `POST /v1/holds/{id}/release`.
    Release { hold: Ref, key: Key },
    /// `POST /v1/holds/{id}/extend`.
    Extend { hold: Ref, ttl_ms: i64 },
    /// `POST /v1/queues/{queue}/jobs`.
    Enqueue {
        queue: &'static str,
        jobs: Vec<NewJob>,
        /// The jobs as a batch of this id, with a callback job in the same queue.
        batch: Option<&'static str>,
        key: Key,
    },
    /// `POST /v1/queues/{queue}/claims` (`wait_ms` 0: the answer is what is runnable now).
    Claim {
        queue: &'static str,
        max: i64,
        lease_ms: i64,
        key: Key,
    },
    /// `POST /v1/jobs/{id}/complete` with the lease token `token` names.
    Complete { job: JobRef, token: Token, key: Key },
    /// `POST /v1/jobs/{id}/fail`, retrying after `retry_in_ms` (never the jittered backoff:
    /// the model could not know its delay).
    Fail {
        job: JobRef,
        token: Token,
        retry_in_ms: i64,
        key: Key,
    },
    /// `POST /v1/jobs/{id}/heartbeat`.
    Heartbeat { job: JobRef, token: Token, lease_ms: i64 },
    /// `POST /v1/jobs/{id}/cancel`.
    CancelJob { job: JobRef, key: Key },
    /// `POST /v1/jobs/{id}/snooze` with the lease token `token` names: back in `delay_ms`,
    /// the attempt given back.
    Snooze {
        job: JobRef,
        token: Token,
        delay_ms: i64,
        key: Key,
    },
    /// `POST /v1/jobs/{id}/reschedule`: a waiting job runs no earlier than in `delay_ms`.
    Reschedule { job: JobRef, delay_ms: i64, key: Key },
    /// `POST /v1/jobs/{id}/retry`.
    RetryJob { job: JobRef, key: Key },
    /// `GET /v1/queues/{queue}`: the counts by state.
    GetQueue { queue: &'static str },
    /// `PUT /v1/queues/{queue}`: the queue's settings, replaced whole.
    QueueSettings { queue: &'static str, settings: Settings },
    /// `POST /v1/queues/{queue}/pause` (`pause`) or `/resume`.
    PauseQueue { queue: &'static str, pause: bool },
    /// `POST /v1/resources/{resource}/bookings` of `[start_h, start_h + hours)` (hours into
    /// the window), held for `hold_ttl_ms` or confirmed.
    Book {
        resource: &'static str,
        start_h: i64,
        hours: i64,
        quantity: i64,
        hold_ttl_ms: Option<i64>,
        key: Key,
    },
    /// `PUT /v1/resources/{resource}`.
    PutResource {
        resource: &'static str,
        put: bookings::ResourcePut,
    },
    /// `PUT /v1/pools/{pool}` with slots of `slot_hours`.
    PutPool {
        pool: &'static str,
        capacity: i64,
        slot_hours: i64,
    },
    /// `PUT /v1/resources/{resource}/slots` of the slots starting in `[from_h, to_h)`.
    PutSlots {
        resource: &'static str,
        from_h: i64,
        to_h: i64,
        capacity: i64,
    },
    /// `GET /v1/resources/{resource}/explain` of `[start_h, start_h + hours)` × `quantity`.
    Explain {
        resource: &'static str,
        start_h: i64,
        hours: i64,
        quantity: i64,
    },
    /// `POST /v1/bookings/{id}/reschedule` to `[start_h, start_h + hours)` (and `quantity`).
    RescheduleBooking {
        booking: Ref,
        start_h: i64,
        hours: i64,
        quantity: Option<i64>,
        key: Key,
    },
    /// `GET /v1/bookings/{id}`.
    GetBooking { booking: Ref },
    /// `DELETE /v1/bookings/{id}`.
    CancelBooking { booking: Ref, key: Key },
    /// `POST /v1/bookings/{id}/confirm`.
    ConfirmBooking { booking: Ref, key: Key },
    /// `POST /v1/bookings/{id}/release`.
    ReleaseBooking { booking: Ref, key: Key },
    /// `POST /v1/bookings/{id}/extend`.
    ExtendBooking { booking: Ref, ttl_ms: i64 },
    /// `GET /v1/resources/{resource}/availability` over the window.
    Availability { resource: &'static str },
    /// `POST /v1/skus/{sku}/units`.
    ReceiveUnits {
        sku: &'static str,
        units: Vec<NewUnit>,
        key: Key,
    },
    /// `POST /v1/unit-allocations`: `quantity` units in `order_by` order, a hold of
    /// `hold_ttl_ms` or an allocation.
    ClaimUnits {
        sku: &'static str,
        quantity: i64,
        order_by: Vec<&'static str>,
        allow_partial: bool,
        hold_ttl_ms: Option<i64>,
        key: Key,
    },
    /// `GET /v1/skus/{sku}/units`: every unit (the pool fits one page) with its status.
    GetUnits { sku: &'static str },
    /// `GET /v1/skus/{sku}/units/S{serial}`: one unit by serial.
    GetUnit { sku: &'static str, serial: u32 },
    /// `POST /v1/batch` of `ops` (each an `Allocate`, `Hold`, `Confirm`, `Release` or
    /// `Cancel`, carrying its own key), one result each, in order.
    Batch { ops: Vec<Op> },
    /// One pass of `allot serve`'s lease sweeper at the simulation's now (no request): jobs
    /// whose lease expired rescued, overdue holds and bookings finalised.
    Sweep,
    /// The clock moves forward (no request).
    Advance { ms: i64 },
    /// `POST /v1/schedules`.
    CreateSchedule { schedule: schedules::NewSchedule },
    /// `GET /v1/schedules`.
    ListSchedules,
    /// `DELETE /v1/schedules/{name}`.
    DeleteSchedule { name: &'static str },
    /// `POST /v1/schedules/{name}/pause` (`pause`) or `/resume`.
    PauseSchedule { name: &'static str, pause: bool },
    /// A pass of the scheduler at the clock's now (no request): each due schedule's ticks
    /// enqueued, then the schedules listed.
    RunSchedules,
    /// `GET /v1/audit`: the books balance (the runner's, after the last step; never generated).
    Audit,
    /// `GET /v1/events?types=hold.created,hold.confirmed,hold.released`: every hold's own
    /// events, in the feed's order (the runner's, after the last step; never generated).
    /// `hold.expired` is left out: a backend writes it when it finishes an overdue hold (a
    /// sweep, or a write that found its SKU short), which the API leaves to the backend.
    HoldEvents,
    /// `GET /v1/events?types=stock.adjusted,stock.received,stock.moved,transfer.created`: the
    /// events of the stock writes whose reason and reference a client says, in the feed's
    /// order, each as its type, SKU, location, delta, reason and reference (the runner's,
    /// after the last step; never generated).
    StockEvents,
    /// `op` (a step on stock: SKUs, allocations, holds) sent with the key of another tenant,
    /// [`OTHER_TENANT`], whose objects, locations and idempotency keys are its own.
    OtherTenant { op: Box<Op> },
}

/// The reason and the reference URI the body of `op` names, where it is a stock write that
/// takes them (neither: the server's default): a function of the step's own fields, so the
/// generator draws nothing more for them and every seed's sequence stays as it was.
pub fn said(op: &Op) -> (Option<&'static str>, Option<&'static str>) {
    match op {
        Op::Adjust { delta, .. } if *delta < 0 => (Some("shrinkage"), None),
        Op::Adjust { delta: 3 | 8, .. } => (Some("restock"), Some("erp://po/sim")),
        Op::SetLevel { on_hand, .. } if on_hand % 2 == 0 => (Some("correction"), Some("erp://count/sim")),
        Op::Transfer { quantity, .. } if quantity % 2 == 1 => (None, Some("erp://transfer/sim")),
        Op::Receive { quantity, .. } if quantity % 2 == 1 => (None, Some("erp://asn/sim")),
        Op::Move { .. } => (Some("damaged"), Some("erp://count/sim")),
        _ => (None, None),
    }
}

/// The second tenant of every run: the first is `default`.
pub const OTHER_TENANT: &str = "other";

impl Op {
    /// The idempotency key the step carries.
    pub fn key(&self) -> Option<&'static str> {
        match self {
            Op::OtherTenant { op } => op.key(),
            Op::Adjust { key, .. }
            | Op::Transfer { key, .. }
            | Op::SetLevel { key, .. }
            | Op::AddIncoming { key, .. }
            | Op::Receive { key, .. }
            | Op::Move { key, .. }
            | Op::Allocate { key, .. }
            | Op::Cancel { key, .. }
            | Op::Return { key, .. }
            | Op::Hold { key, .. }
            | Op::Confirm { key, .. }
            | Op::Release { key, .. }
            | Op::Enqueue { key, .. }
            | Op::Claim { key, .. }
            | Op::Complete { key, .. }
            | Op::Fail { key, .. }
            | Op::CancelJob { key, .. }
            | Op::Snooze { key, .. }
            | Op::Reschedule { key, .. }
            | Op::RetryJob { key, .. }
            | Op::Book { key, .. }
            | Op::RescheduleBooking { key, .. }
            | Op::CancelBooking { key, .. }
            | Op::ConfirmBooking { key, .. }
            | Op::ReleaseBooking { key, .. }
            | Op::ReceiveUnits { key, .. }
            | Op::ClaimUnits { key, .. } => *key,
            _ => None,
        }
    }
}

/// A booking line of a hold: the resource, its start and length in hours into the window,
/// and the quantity.
pub type HoldBooking = (&'static str, i64, i64, i64);

/// A unit line of a hold: its SKU, quantity and, when it names its units, their serials'
/// numbers (`S{n}`).
pub type HoldUnits = (&'static str, i64, Option<Vec<u32>>);

/// Lines as a request body names them and as every answer's view lists them.
pub fn lines_json<S: AsRef<str>>(lines: &[(S, i64)]) -> Value {
    Value::Array(
        lines
            .iter()
            .map(|(s, q)| match KITS.contains(&s.as_ref()) {
                true => json!({"kit": s.as_ref(), "quantity": q}),
                false => json!({"sku": s.as_ref(), "quantity": q}),
            })
            .collect(),
    )
}

/// The seeded generator: the same seed gives the same sequence (rand's `StdRng`, seeded).
pub struct Generator {
    rng: StdRng,
    /// The draws about kits, apart from `rng` so that every seed's other steps stay as they
    /// were before kits joined the generator.
    kits: StdRng,
    /// The draws about backorder limits, apart from both for the same reason.
    backorders: StdRng,
    /// The draws about fair queues, apart from the others for the same reason.
    fair: StdRng,
    /// The draws about job dependencies, apart from the others for the same reason.
    deps: StdRng,
}

impl Generator {
    /// A generator of `seed`.
    pub fn new(seed: u64) -> Self {
        Generator {
            rng: StdRng::seed_from_u64(seed),
            kits: StdRng::seed_from_u64(seed ^ 0x6b69_7473),
            backorders: StdRng::seed_from_u64(seed ^ 0x626f_7264),
            fair: StdRng::seed_from_u64(seed ^ 0x6661_6972),
            deps: StdRng::seed_from_u64(seed ^ 0x6465_7073),
        }
    }

    /// `steps` operations: the SKUs are created and the first units received first (so most
    /// steps find them), then a mix biased toward contention and the edges of every rule: a
    /// third of the steps on stock and holds, a third on the queue, a sixth on bookings, a
    /// sixth on units; a claim is often followed by its worker's completion or failure
    /// ([`Generator::worker_step`]).
    pub fn sequence(&mut self, steps: usize) -> Vec<Op> {
        let mut ops: Vec<Op> = LOCATIONS
            .iter()
            .map(|&(location, priority)| Op::CreateLocation { location, priority })
            .collect();
        for &sku in &SKUS {
            let on_hand = self.rng.random_range(2..=24);
            let location = self.maybe_location().filter(|l| *l != UNKNOWN_LOCATION);
            ops.push(Op::CreateSku {
                sku,
                on_hand,
                buckets: 1,
                location,
            });
        }
        ops.push(Op::OtherTenant {
            op: Box::new(Op::CreateSku {
                sku: SKUS[0],
                on_hand: 5,
                buckets: 1,
                location: None,
            }),
        });
        ops.push(Op::PutKit {
            kit: KITS[0],
            components: vec![(SKUS[0], 2), (SKUS[1], 1)],
        });
        ops.push(Op::SetBackorderLimit { sku: SKUS[1], limit: 6 });
        ops.push(self.first_units(8));
        while ops.len() < steps {
            let op = self.op();
            let op = self.with_kit(op);
            let then = self.worker_step(&op);
            ops.push(op);
            ops.extend(then);
            ops.extend(self.kit_op());
            ops.extend(self.backorder_op());
        }
        ops.truncate(steps);
        ops
    }

    /// `op` with a kit line added now and then, if it is an allocation or a hold: the kit of
    /// the first two SKUs (so its demand meets the plain lines' on them), rarely the unknown
    /// one.
    fn with_kit(&mut self, mut op: Op) -> Op {
        if let Op::Allocate { lines, .. } | Op::Hold { lines, .. } = &mut op {
            if self.kits.random_range(0..4) == 0 {
                let kit = if self.kits.random_range(0..10) == 0 {
                    KITS[1]
                } else {
                    KITS[0]
                };
                lines.push((kit, self.kits.random_range(1..=2)));
            }
        }
        op
    }

    /// Now and then a kit remade (its components drawn from the SKUs, a unit-tracked or
    /// unknown one among them at times) or read.
    fn kit_op(&mut self) -> Option<Op> {
        match self.kits.random_range(0..40) {
            0 => {
                let pool = [SKUS[0], SKUS[1], SKUS[2], units::UNIT_SKU, UNKNOWN_SKU];
                let first = pool[self.kits.random_range(0..3)];
                let second = pool[self.kits.random_range(0..pool.len())];
                let mut components = vec![(first, self.kits.random_range(1..=3))];
                if second != first {
                    components.push((second, self.kits.random_range(1..=2)));
                }
                Some(Op::PutKit {
                    kit: KITS[0],
                    components,
                })
            }
            1 | 2 => Some(Op::GetKit {
                kit: KITS[usize::from(self.kits.random_range(0..4) == 0)],
            }),
            _ => None,
        }
    }

    /// Now and then a SKU's backorder limit set (0 among the values, an unknown or
    /// unit-tracked SKU at times), or a large allocation of the SKU that starts with a limit
    /// (so lines owe, fill and are cancelled half filled), pinned or split at times.
    fn backorder_op(&mut self) -> Option<Op> {
        let b = &mut self.backorders;
        match b.random_range(0..20) {
            0 => {
                let pool = [SKUS[0], SKUS[1], SKUS[2], units::UNIT_SKU, UNKNOWN_SKU];
                Some(Op::SetBackorderLimit {
                    sku: pool[b.random_range(0..pool.len())],
                    limit: [0, 2, 6, 12][b.random_range(0..4)],
                })
            }
            n @ 1..=3 => {
                let place = Place {
                    pin: (b.random_range(0..4) == 0).then_some(LOCATIONS[b.random_range(0..LOCATIONS.len())].0),
                    placing: Placing::Default,
                    split: b.random_range(0..2) == 0,
                };
                let quantity = b.random_range(2..=9);
                if n == 1 {
                    // A hold of that SKU instead, so that what holds give back (a release,
                    // an expiry, a partial confirm) meets owed lines; made of the same draws
                    // (the stream goes on as it did before holds joined it, and so do the
                    // places of the other steps).
                    return Some(Op::Hold {
                        lines: vec![(SKUS[1], 1 + quantity % 2)],
                        units: Vec::new(),
                        bookings: Vec::new(),
                        ttl_ms: [1000, 5000, 60_000][(quantity % 3) as usize],
                        place: Place {
                            pin: None,
                            split: true,
                            ..place
                        },
                        key: None,
                    });
                }
                Some(Op::Allocate {
                    lines: vec![(SKUS[1], quantity)],
                    place,
                    key: None,
                })
            }
            _ => None,
        }
    }

    fn op(&mut self) -> Op {
        // Schedules: one step in fifty, and a few of the queue's.
        if self.rng.random_range(0..50) == 0 {
            return self.schedule_op();
        }
        match self.rng.random_range(0..6) {
            0 | 1 => return self.job_op(),
            2 => return self.booking_op(),
            3 => return self.unit_op(),
            _ => {}
        }
        match self.rng.random_range(0..100) {
            0..=3 => self.create_sku(),
            4..=5 => Op::GetSku { sku: self.sku() },
            6..=12 => Op::Adjust {
                sku: self.sku(),
                delta: self.pick(&[-5, -2, -1, 0, 1, 3, 8, 10, 20, 20]),
                location: self.maybe_location(),
                key: self.key(),
            },
            13..=18 => self.place_op(),
            32..=35 => self.batch_op(),
            19..=31 => Op::Allocate {
                lines: self.lines(),
                place: self.place(),
                key: self.key(),
            },
            36..=39 => Op::GetAllocation {
                allocation: self.reference(),
            },
            40..=42 => Op::Cancel {
                allocation: self.reference(),
                key: self.key(),
            },
            43..=48 => Op::Return {
                allocation: self.reference(),
                lines: self.return_lines(),
                location: self.maybe_location(),
                key: self.key(),
            },
            49..=63 => self.hold_op(),
            64..=66 => Op::GetHold { hold: self.reference() },
            67..=78 => Op::Confirm {
                hold: self.reference(),
                part: self.part(),
                key: self.key(),
            },
            79..=85 => Op::Release {
                hold: self.reference(),
                key: self.key(),
            },
            86..=90 => Op::Extend {
                hold: self.reference(),
                ttl_ms: self.ttl_ms(),
            },
            91..=94 => self.other_tenant_op(),
            _ => Op::Advance {
                ms: self.pick(&[1, 999, 1000, 1001, 5000, 60_000]),
            },
        }
    }

    /// A hold of stock lines, unit lines and booking lines.
    fn hold_op(&mut self) -> Op {
        let units = self.unit_lines();
        let bookings = self.hold_bookings();
        // A hold with booking lines mostly within the TTL limits, so that some are made and
        // the booking steps then meet their bookings (`held_by_hold`).
        let ttl_ms = match bookings.is_empty() || self.rng.random_range(0..4) == 0 {
            true => self.ttl_ms(),
            false => self.pick(&[2000, 5000, 60_000, 60_000]),
        };
        Op::Hold {
            lines: self.hold_lines(!units.is_empty()),
            units,
            bookings,
            ttl_ms,
            place: self.place(),
            key: self.key(),
        }
    }

    /// A step on stock with the other tenant's key: mostly on its own SKU `A` (the same name
    /// as the first tenant's), now and then naming an object the first tenant made.
    fn other_tenant_op(&mut self) -> Op {
        let op = match self.rng.random_range(0..10) {
            0 => self.create_sku(),
            1 => Op::GetSku { sku: self.sku() },
            2 => Op::Adjust {
                sku: SKUS[0],
                delta: self.pick(&[-2, 1, 3]),
                location: None,
                key: self.key(),
            },
            3 | 4 => Op::Allocate {
                lines: vec![(SKUS[0], self.rng.random_range(1..=2))],
                place: Place::default(),
                key: self.key(),
            },
            5 => Op::Hold {
                lines: vec![(SKUS[0], 1)],
                units: Vec::new(),
                bookings: Vec::new(),
                ttl_ms: self.ttl_ms(),
                place: Place::default(),
                key: self.key(),
            },
            6 => Op::Cancel {
                allocation: self.reference(),
                key: self.key(),
            },
            7 => Op::Confirm {
                hold: self.reference(),
                part: None,
                key: self.key(),
            },
            8 => Op::Release {
                hold: self.reference(),
                key: self.key(),
            },
            _ => Op::GetAllocation {
                allocation: self.reference(),
            },
        };
        Op::OtherTenant { op: Box::new(op) }
    }

    fn create_sku(&mut self) -> Op {
        Op::CreateSku {
            sku: self.sku(),
            on_hand: self.pick(&[-1, 0, 5, 20]),
            buckets: self.pick(&[0, 1]),
            location: self.maybe_location(),
        }
    }

    fn pick<T: Copy>(&mut self, of: &[T]) -> T {
        of[self.rng.random_range(0..of.len())]
    }

    /// Mostly a pool SKU; sometimes one that does not exist or breaks the name rule.
    pub(super) fn sku(&mut self) -> &'static str {
        match self.rng.random_range(0..30) {
            0 => UNKNOWN_SKU,
            1 => BAD_SKU,
            n => SKUS[n as usize % SKUS.len()],
        }
    }

    /// One to three lines of distinct pool SKUs, 1..=3 each; now and then a quantity of 0 or
    /// beyond most stock, a SKU named twice, or a hostile SKU (most requests should get past
    /// validation, so that the stores decide them).
    /// A hold's stock lines: as an allocation's, or (now and then) none; beside unit lines
    /// mostly one unit of one SKU, so that holds of both kinds are often made.
    fn hold_lines(&mut self, with_units: bool) -> Vec<(&'static str, i64)> {
        match self.rng.random_range(0..12) {
            0 => Vec::new(),
            1..=8 if with_units => vec![(SKUS[self.rng.random_range(0..SKUS.len())], 1)],
            _ => self.lines(),
        }
    }

    /// A hold's booking lines: none two times in three; else one (now and then two) over
    /// the few resources the bookings use, as a booking's range and quantity are drawn.
    fn hold_bookings(&mut self) -> Vec<HoldBooking> {
        let n = match self.rng.random_range(0..9) {
            0..=5 => 0,
            6 | 7 => 1,
            _ => 2,
        };
        (0..n)
            .map(|_| {
                (
                    self.booking_resource(),
                    self.rng.random_range(0..WINDOW_HOURS),
                    self.rare(&[1, 1, 2, 3], &[0]),
                    self.rare(&[1, 1, 1, 2], &[0]),
                )
            })
            .collect()
    }

    /// A hold's unit lines: none half the time; else one (now and then two) of the unit
    /// SKU's (or, now and then, of a count-tracked or unknown SKU), 1..=2 units each, a third
    /// of them named by serial (now and then one no receipt names, or one named twice).
    fn unit_lines(&mut self) -> Vec<HoldUnits> {
        let n = match self.rng.random_range(0..8) {
            0..=3 => 0,
            4..=6 => 1,
            _ => 2,
        };
        (0..n)
            .map(|_| {
                let sku = self.unit_sku(false);
                let q = self.rng.random_range(1..=2);
                let serials = (self.rng.random_range(0..3) == 0)
                    .then(|| (0..q).map(|_| self.rng.random_range(1..=units::SERIALS + 1)).collect());
                (sku, q, serials)
            })
            .collect()
    }

    fn lines(&mut self) -> Vec<(&'static str, i64)> {
        let n = self.rng.random_range(1..=3);
        let first = self.rng.random_range(0..SKUS.len());
        let mut lines: Vec<(&'static str, i64)> = (0..n)
            .map(|i| {
                let q = match self.rng.random_range(0..24) {
                    0 => 0,
                    1 | 2 => 9,
                    _ => self.rng.random_range(1..=2),
                };
                (SKUS[(first + i) % SKUS.len()], q)
            })
            .collect();
        match self.rng.random_range(0..12) {
            0 => lines.push((lines[0].0, 1)),
            1 => {
                let sku = self.sku();
                lines.push((sku, 1));
            }
            _ => {}
        }
        lines
    }

    /// One or two lines of a pool SKU, 1 or 2 each (now and then one beyond any line), a
    /// third of them damaged.
    fn return_lines(&mut self) -> Vec<(&'static str, i64, bool)> {
        (0..self.rng.random_range(1..=2))
            .map(|_| {
                let sku = SKUS[self.rng.random_range(0..SKUS.len())];
                (sku, self.rare(&[1, 1, 2], &[9]), self.rng.random_range(0..3) == 0)
            })
            .collect()
    }

    /// A partial confirm, one in two: some lines (mostly one unit of one SKU, now and then
    /// with a unit of the unit SKU), and (one in two) the hold's booking lines by their index
    /// among its booking lines (0 and 1 are a checkout hold's; 2 and 3 name none of its
    /// bookings: `not_in_hold`).
    fn part(&mut self) -> Option<Part> {
        if self.rng.random_range(0..2) != 0 {
            return None;
        }
        let bookings = match self.rng.random_range(0..6) {
            0 => vec![self.rng.random_range(0..2)],
            1 => vec![0, 1],
            2 => vec![self.rng.random_range(0..4)],
            _ => Vec::new(),
        };
        // Mostly one unit of one SKU: what a checkout hold (or a small hold) holds.
        let one = (SKUS[self.rng.random_range(0..SKUS.len())], 1);
        let lines = match self.rng.random_range(0..6) {
            0 if !bookings.is_empty() => Vec::new(),
            1 => vec![one, (UNIT_SKU, 1)],
            2 | 3 => vec![one],
            _ => self.lines(),
        };
        Some(Part { lines, bookings })
    }

    fn key(&mut self) -> Option<&'static str> {
        match self.rng.random_range(0..16) {
            0 => Some(KEYS[self.rng.random_range(0..3)]),
            1..=3 => Some(KEYS[self.rng.random_range(0..KEYS.len())]),
            _ => None,
        }
    }

    fn reference(&mut self) -> Ref {
        match self.rng.random_range(0..12) {
            0 => Ref::Unknown,
            _ => Ref::Nth(self.rng.random_range(0..64)),
        }
    }

    /// Around both TTL limits of [`crate::model::limits`] (1 s and a day), mostly within.
    fn ttl_ms(&mut self) -> i64 {
        self.pick(&[
            0, 999, 1000, 1001, 2000, 2000, 5000, 5000, 60_000, 60_000, 86_400_000, 86_400_001,
        ])
    }
}
