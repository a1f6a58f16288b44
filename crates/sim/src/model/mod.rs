//! The reference model: allot's stock semantics, pure and in memory, on an injected clock.
//! It is the specification the backends are held to, written to be checked against
//! docs/api.md line by line, and shares nothing with them but core's types and the
//! validation of request bodies (a request the core refuses is refused the same everywhere).
//!
//! What it knows (the rest of the API is not yet modelled, and not yet generated):
//! - SKUs of one bucket per location (`places.rs`): `on_hand`, `held` (the live holds' lines), `available`
//!   (`on_hand − held`), in total and per location (`levels`); created once at a location
//!   (`409 already_exists` after), adjusted at one by a delta that never takes more than is
//!   available there (`409 insufficient_stock`); locations with priorities, transfers,
//!   compare-and-set of a level (`409 compare_failed`, on hand there with its unsellable
//!   states); incoming stock and receipts (`receiving.rs`: incoming beside on hand, never
//!   available; a receipt at a location or against an incoming, at most what it still
//!   expects); quantity states (`states.rs`: moves between available and the unsellable
//!   three, which count in on hand and are never taken); each line placed by its pin or the
//!   request's placement (priority, most available, a ranked list), whole or split, and
//!   given back where it came from.
//! - Allocations: every line or none (`404 not_found` for a SKU that does not exist,
//!   `409 insufficient_stock` naming the first short line in SKU order); a cancel gives every
//!   line back once (a second cancel answers the cancelled allocation and changes nothing).
//! - Holds: like an allocation, set aside until `expires_at` (`now + ttl_ms`); a hold whose
//!   expiry is not after now is `expired` at once, its quantity available again, before any
//!   sweeper. Confirm (whole, or `lines` — at most what it holds of each SKU, the rest
//!   released) makes the allocation with the hold's id, and the hold then reads the lines
//!   it confirmed; confirming a confirmed hold answers that allocation; release gives a held hold back and answers a released or expired one
//!   unchanged (`409 hold_confirmed` for a confirmed one); extend acts on a held hold only
//!   (`409 hold_<status>`) and never shortens it. A hold's lines may be unit lines too
//!   (`units.rs`): its stock lines are placed first (SKU order), then its unit lines taken
//!   (SKU order), then its booking lines booked ((resource, start, end) order, each decided
//!   as a booking is, held until the hold's expiry), all or none; `kind` is `mixed` when it
//!   has lines of several kinds (booking lines alone are refused); confirmed whole, or in
//!   part: of each SKU named at most what it holds (a unit SKU keeps its first units by id),
//!   of its bookings those named by id (another booking: `422 not_in_hold`), the rest given
//!   back (bookings released, the hold's no more). Its bookings are confirmed, released, extended and expire with it; a booking endpoint's own
//!   change of one is `422 held_by_hold` (`bookings.rs`).
//!   An expired hold is finished (its units free for claims) by the sweep, a release, a
//!   unit pick short of free units, or a stock line its store finds short or that holds
//!   could steer (whatever the request's outcome).
//! - Jobs (`jobs.rs`): enqueue with unique keys, claims in (priority, run_at, id) order with
//!   leases, complete / fail / heartbeat by lease token (`409 lease_lost` otherwise), retries
//!   until `max_attempts`, then `discarded`; cancel; retry by hand; the sweeper's rescue of
//!   expired leases; the counts by state; each queue's settings (`queues.rs`: pause,
//!   limits per queue and per key, rates, FIFO per key) and what they let a claim take; a
//!   queue with `keep_completed: false` deleting each job as it completes;
//!   snoozes (by lease token) and reschedules (by hand); schedules (`schedules.rs`): cron
//!   expressions in a time zone whose ticks a pass of the scheduler enqueues, late ones
//!   skipped or run once, paused, resumed and deleted.
//! - Bookings (`bookings.rs`): half-open ranges on a resource that never overlap while both
//!   block (confirmed, or held and not expired: an expired hold stops blocking at once);
//!   cancel, confirm, release, extend, reschedule; free gaps over a window.
//! - Capacity (`capacity.rs`): resources put with a capacity per slot of whole hours in a
//!   time zone, pools, per-slot capacities, rules (a closure, stay length, closed to arrival
//!   or departure, lead time, horizon, a buffer); a booking's
//!   quantity counts against every slot it touches, of the resource and of its pools; the
//!   first rule refuses before the first full slot; explain lists every reason; availability
//!   lists each slot's capacity, used, held and free.
//! - Units (`units.rs`): receipts into the unit-tracked SKU (a serial it has:
//!   `409 already_exists`), claims of N in `order_by` order as allocations or holds (whole,
//!   or with `allow_partial` at least one), a unit hold confirmed whole or in part, cancels and
//!   releases that free the units, and what each unit reads as.
//! - The batch API (`batch.rs`): refused whole when malformed (nothing runs), else each
//!   operation as alone, one result each, in order.
//! - Tenants: the other tenant's steps (`Op::OtherTenant`) act on a model of its own, on the
//!   same clock: its SKUs, locations (only `default`), allocations, holds and idempotency
//!   keys; an id of the first tenant's is `not_found` there, and the reverse.
//! - Idempotency keys: a 2xx answer is stored with the request's method, path and body; the
//!   same request again gets the stored answer (replayed), another request under the key
//!   `422 idempotency_key_reused`; a refused request stores nothing.

mod backorders;
mod batch;
mod bookings;
pub mod capacity;
mod depend;
mod fair;
mod feed;
mod holds;
mod jobs;
mod kits;
mod places;
mod queues;
mod receiving;
mod schedules;
mod states;
mod stock;
mod units;

use crate::made::{Noted, Resolved};
use crate::ops::Op;
use crate::request::{self, Request};
use crate::Answer;
use allot_core::{AllotError, Clock, Limits, ManualClock};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The limits the model and every simulated server run with: the defaults (holds of
/// 1 s..=1 day, which the generator's TTLs straddle).
pub fn limits() -> Limits {
    Limits::default()
}

/// An allocation: its lines (SKU order) and whether it was cancelled (a unit claim's one
/// line names the unit-tracked SKU; its units name the allocation).
#[derive(Debug, Clone)]
struct Allocation {
    lines: Vec<(String, i64)>,
    /// Where each line came from, `(location, quantity)` in the order taken (a unit
    /// claim's line: nothing).
    from: Vec<places::From>,
    /// How much of each line came back by returns.
    returned: Vec<i64>,
    cancelled: bool,
    /// What each line still owes (`None`: it never owed; see `backorders.rs`).
    owed: Vec<Option<i64>>,
    /// The location every line was pinned to, if any (an owed line fills only there).
    pin: Option<String>,
}

impl Allocation {
    /// A new allocation of `lines` taken from `from`, nothing returned.
    fn of(lines: Vec<(String, i64)>, from: Vec<places::From>) -> Allocation {
        Allocation {
            returned: vec![0; lines.len()],
            owed: vec![None; lines.len()],
            lines,
            from,
            cancelled: false,
            pin: None,
        }
    }
}

/// What a hold was last written as (its effective status also reads the clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    Held,
    Confirmed,
    Released,
}

/// A hold: its lines (SKU order), its expiry (µs since the epoch), its stored status,
/// whether it holds units (its units name it) and whether it holds stock too (`mixed`).
#[derive(Debug, Clone)]
struct Hold {
    lines: Vec<(String, i64)>,
    /// Where each line is held, as an allocation's `from` (a unit line's: nothing).
    from: Vec<places::From>,
    expires_us: i64,
    stored: Stored,
    units: bool,
    /// Stock lines and unit lines (`POST /v1/holds` with both).
    mixed: bool,
    /// Expired and finished by a writer or a sweep (the stores' rows then no longer count
    /// it as held; what is seen never does once it expired).
    finalised: bool,
}

impl Hold {
    /// What it holds, as the stores name it.
    fn kind(&self) -> allot_core::hold::HoldKind {
        use allot_core::hold::HoldKind;
        match (self.units, self.mixed) {
            (_, true) => HoldKind::Mixed,
            (true, false) => HoldKind::Units,
            (false, false) => HoldKind::Stock,
        }
    }
}

/// A deliberate fault planted in the model, to show that the runner finds and shrinks a
/// divergence (mutation testing of the oracle: a fault in the model and the same fault in a
/// backend diverge alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// A cancel gives back one unit more than its first line took.
    CancelGivesOneMore,
    /// A transition of a running job takes any token (the lease check removed).
    LeaseCheckRemoved,
    /// A hold of stock and unit lines takes its stock but not its units.
    MixedHoldSkipsUnits,
    /// A hold's booking lines are not booked.
    HoldSkipsBookings,
    /// A booking endpoint changes a booking a hold owns (no `held_by_hold`).
    HoldBookingsUnguarded,
    /// A release writes no `hold.released` to the feed.
    ReleaseEventMissing,
    /// The jobs a scheduler pass makes run at the pass, not at their tick.
    ScheduleIgnoresTick,
    /// A fair queue's claims take oldest first (its `fair_by` ignored).
    FairClaimsOldestFirst,
    /// A failed dependency's dependents run anyway (as if each said `run`), and so does a job
    /// enqueued naming one.
    FailedDependencyRuns,
}

impl Mutation {
    /// Every planted fault.
    pub const ALL: [Mutation; 9] = [
        Mutation::CancelGivesOneMore,
        Mutation::LeaseCheckRemoved,
        Mutation::MixedHoldSkipsUnits,
        Mutation::HoldSkipsBookings,
        Mutation::HoldBookingsUnguarded,
        Mutation::ReleaseEventMissing,
        Mutation::ScheduleIgnoresTick,
        Mutation::FairClaimsOldestFirst,
        Mutation::FailedDependencyRuns,
    ];

    /// The name `allot sim --plant` takes.
    pub fn name(self) -> &'static str {
        match self {
            Mutation::CancelGivesOneMore => "cancel-gives-one-more",
            Mutation::LeaseCheckRemoved => "lease-check-removed",
            Mutation::MixedHoldSkipsUnits => "mixed-hold-skips-units",
            Mutation::HoldSkipsBookings => "hold-skips-bookings",
            Mutation::HoldBookingsUnguarded => "hold-bookings-unguarded",
            Mutation::ReleaseEventMissing => "release-event-missing",
            Mutation::ScheduleIgnoresTick => "schedule-ignores-tick",
            Mutation::FairClaimsOldestFirst => "fair-claims-oldest-first",
            Mutation::FailedDependencyRuns => "failed-dependency-runs",
        }
    }

    /// The fault named `name`, if any.
    pub fn parse(name: &str) -> Option<Mutation> {
        Mutation::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The model's whole state.
#[derive(Debug)]
pub struct Model {
    clock: Arc<ManualClock>,
    mutation: Option<Mutation>,
    limits: Limits,
    /// A count-tracked SKU → its rows `(location, on hand)`, in the order made.
    skus: BTreeMap<String, Vec<(String, i64)>>,
    /// The locations created, with their priorities (`default` is not among them).
    locations: BTreeMap<String, i32>,
    /// Incoming stock by id.
    incoming: BTreeMap<String, receiving::Incoming>,
    /// (SKU, location, unsellable state) → what that state holds there (`states.rs`).
    states: BTreeMap<(String, String, allot_core::QuantityState), i64>,
    allocations: BTreeMap<String, Allocation>,
    holds: BTreeMap<String, Hold>,
    bookings: BTreeMap<String, bookings::Booking>,
    /// Resources put (capacity, slots, pools, rules); one never put is capacity 1.
    resources: BTreeMap<String, capacity::Resource>,
    /// Pools put.
    pools: BTreeMap<String, capacity::Pool>,
    /// `(resource, slot start µs)` → the capacity put for that slot.
    slot_caps: BTreeMap<(String, i64), i64>,
    /// The unit-tracked SKUs (made by their first receipt).
    unit_skus: std::collections::BTreeSet<String>,
    /// Backorder limits by SKU (none: 0).
    backorder_limits: BTreeMap<String, i64>,
    /// The owed lines, oldest first: `(allocation id, line)` (what a fill walks).
    backorder_queue: Vec<(String, usize)>,
    /// Kits by name ([`Op::PutKit`]).
    kits: BTreeMap<&'static str, kits::Components>,
    /// Their units, by id.
    units: Vec<units::UnitRow>,
    /// Jobs by id (1, 2, … in the order made; a completed job of a queue that does not keep
    /// them is gone).
    jobs: BTreeMap<i64, jobs::Job>,
    /// Jobs made so far: the last id handed out (a deleted job's id is never given again).
    jobs_made: i64,
    /// Who waits for each job until it finishes (`depends_on` edges not settled yet).
    dependents: BTreeMap<i64, Vec<i64>>,
    /// Batches by id: their callback job and how their members ended.
    batches: BTreeMap<String, depend::BatchRow>,
    /// Lease tokens handed out.
    tokens: u64,
    /// Each queue's settings (none stored: the defaults).
    queue_settings: BTreeMap<String, allot_core::job::queue::QueueSettings>,
    /// The starts claims recorded (the rates' windows).
    starts: Vec<queues::Start>,
    /// Each fair queue's round: the group visited last and what its turn took.
    fair_cursors: BTreeMap<String, allot_core::job::fair::FairCursor>,
    /// Schedules by name.
    schedules: BTreeMap<String, schedules::Sched>,
    /// Every hold's own events but expiries, in order: type, hold id, lines (SKU, quantity),
    /// booking lines ([`Op::HoldEvents`]).
    hold_events: Vec<holds::HoldEvent>,
    /// The events of the stock writes a client gives a reason and a reference to, in order,
    /// as [`crate::view::stock_event`] shapes them ([`Op::StockEvents`]).
    stock_events: Vec<Value>,
    /// Key → the request it is bound to and the answer stored with it.
    keys: BTreeMap<&'static str, (String, Answer)>,
    made: u64,
    /// What this tenant's ids start with (the other tenant's are told apart by it).
    id_prefix: &'static str,
    /// The other tenant ([`crate::ops::OTHER_TENANT`]): a model of its own on the same clock.
    other: Option<Box<Model>>,
}

/// Whether `op` is validated by [`Model::validate_orders`].
fn orders(op: &Op) -> bool {
    matches!(
        op,
        Op::Allocate { .. } | Op::Hold { .. } | Op::PutKit { .. } | Op::GetKit { .. } | Op::SetBackorderLimit { .. }
    )
}

/// What a step did: its status and answer view, and what it handed out.
type Done = (u16, Value, Option<Noted>);

impl Model {
    /// An empty model on `clock`, with an empty model of the other tenant beside it.
    pub fn new(clock: Arc<ManualClock>) -> Self {
        let other = Model::tenant(clock.clone(), "other-");
        Model {
            other: Some(Box::new(other)),
            ..Model::tenant(clock, "")
        }
    }

    /// An empty model of one tenant, its ids starting with `id_prefix`.
    fn tenant(clock: Arc<ManualClock>, id_prefix: &'static str) -> Self {
        Model {
            clock,
            mutation: None,
            limits: limits(),
            skus: BTreeMap::new(),
            locations: BTreeMap::new(),
            incoming: BTreeMap::new(),
            states: BTreeMap::new(),
            allocations: BTreeMap::new(),
            holds: BTreeMap::new(),
            bookings: BTreeMap::new(),
            resources: BTreeMap::new(),
            pools: BTreeMap::new(),
            slot_caps: BTreeMap::new(),
            unit_skus: Default::default(),
            backorder_limits: BTreeMap::new(),
            backorder_queue: Vec::new(),
            kits: BTreeMap::new(),
            units: Vec::new(),
            jobs: BTreeMap::new(),
            jobs_made: 0,
            dependents: BTreeMap::new(),
            batches: BTreeMap::new(),
            tokens: 0,
            queue_settings: BTreeMap::new(),
            starts: Vec::new(),
            fair_cursors: BTreeMap::new(),
            schedules: BTreeMap::new(),
            hold_events: Vec::new(),
            stock_events: Vec::new(),
            keys: BTreeMap::new(),
            made: 0,
            id_prefix,
            other: None,
        }
    }

    /// The same model with `mutation` planted.
    pub fn mutated(mut self, mutation: Option<Mutation>) -> Self {
        self.mutation = mutation;
        self
    }

    fn now_us(&self) -> i64 {
        self.clock.now_us()
    }

    fn new_id(&mut self, prefix: &str) -> String {
        self.made += 1;
        format!("{}{prefix}{}", self.id_prefix, self.made)
    }

    /// Apply `op` (what it names `resolved` by the model's own [`crate::made::Made`]): the
    /// answer, and what it handed out. A clock advance or a sweep is the runner's, not a
    /// request: `None`.
    pub fn apply(&mut self, op: &Op, resolved: &Resolved) -> Option<(Answer, Option<Noted>)> {
        if let Op::OtherTenant { op } = op {
            return self.other.as_mut()?.apply(op, resolved);
        }
        let req = request::of(op, resolved)?;
        let fingerprint = req.key.map(|_| req.fingerprint());
        let done = match self.keyed(&req, fingerprint.as_deref(), op) {
            Ok(KeyState::Replay(answer)) => return Some((answer, None)),
            Ok(KeyState::Fresh) => self.execute(op, resolved),
            Err(e) => Err(e),
        };
        Some(match done {
            Ok((status, view, made)) => {
                let answer = Answer {
                    status,
                    replayed: false,
                    view,
                };
                if let (Some(key), Some(fingerprint)) = (req.key, fingerprint) {
                    self.keys.insert(key, (fingerprint, answer.clone()));
                }
                (answer, made)
            }
            Err(e) => {
                if std::env::var_os("ALLOT_SIM_TRACE").is_some() {
                    eprintln!("  model refuses: {e}");
                }
                (error_answer(&e), None)
            }
        })
    }

    /// The request's body is valid and its key free (or bound to this very request, whose
    /// `fingerprint` it carries).
    fn keyed(&self, req: &Request, fingerprint: Option<&str>, op: &Op) -> Result<KeyState, AllotError> {
        self.validate(op, req)?;
        let (Some(key), Some(fingerprint)) = (req.key, fingerprint) else {
            return Ok(KeyState::Fresh);
        };
        match self.keys.get(key) {
            None => Ok(KeyState::Fresh),
            Some((stored, answer)) if stored == fingerprint => Ok(KeyState::Replay(Answer {
                replayed: true,
                ..answer.clone()
            })),
            Some(_) => Err(AllotError::IdempotencyKeyReused),
        }
    }

    /// What core's validation says of the request's body (and a SKU named in the path).
    fn validate(&self, op: &Op, req: &Request) -> Result<(), AllotError> {
        let body = || req.body.clone().unwrap_or(Value::Null);
        let l = &self.limits;
        match op {
            Op::CreateSku { .. } => allot_core::validate::create_sku(parse(body())?, l).map(drop),
            Op::GetSku { sku } => allot_core::validate::name("sku", sku, l),
            Op::CreateLocation { .. } => allot_core::validate::location(parse(body())?, l).map(drop),
            Op::Transfer { .. } => allot_core::validate::transfer("x".into(), parse(body())?, l).map(drop),
            Op::SetLevel { sku, location, .. } => {
                allot_core::validate::set_level(sku, location, parse(body())?, l).map(drop)
            }
            Op::AddIncoming { sku, .. } => allot_core::validate::incoming("x".into(), sku, parse(body())?, l).map(drop),
            Op::Receive { sku, .. } => allot_core::validate::receipt("x".into(), sku, parse(body())?, l).map(drop),
            Op::Move { sku, .. } => allot_core::validate::movement("x".into(), sku, parse(body())?, l).map(drop),
            Op::Adjust { sku, .. } => allot_core::validate::adjustment(sku, parse(body())?, l).map(drop),
            op if orders(op) => self.validate_orders(op, body()),
            Op::Confirm { .. } => allot_core::validate::confirm(parse(body())?, l).map(drop),
            Op::Return { .. } => allot_core::validate::returns("x".into(), "x", parse(body())?, l).map(drop),
            Op::Extend { .. } => allot_core::validate::extend(&parse(body())?, l).map(drop),
            Op::Enqueue { queue, .. } => {
                allot_core::validate::enqueue(queue, parse(body())?, self.clock.now(), l).map(drop)
            }
            Op::Claim { queue, .. } => {
                let claim = allot_core::job::ClaimStrategy::Serialized;
                allot_core::validate::claim(queue, parse(body())?, claim, l).map(drop)
            }
            Op::Complete { .. } => allot_core::validate::complete(parse(body())?, l).map(drop),
            Op::Fail { .. } => allot_core::validate::fail(parse(body())?, l).map(drop),
            Op::Snooze { .. } => allot_core::validate::snooze(parse(body())?, l).map(drop),
            Op::Reschedule { .. } => allot_core::validate::reschedule(parse(body())?, l).map(drop),
            Op::Heartbeat { lease_ms, .. } => {
                let b: allot_core::job::LeaseBody = parse(body())?;
                allot_core::validate::lease_token(&b.lease_token, l)?;
                allot_core::validate::lease_ms(*lease_ms, l).map(drop)
            }
            Op::GetQueue { queue } => allot_core::validate::name("queue", queue, l),
            Op::QueueSettings { queue, settings } => {
                allot_core::validate::queue_settings(queue, parse(settings.json())?, l).map(drop)
            }
            Op::PauseQueue { queue, .. } => allot_core::validate::name("queue", queue, l),
            Op::Book { resource, .. } => {
                let any = allot_core::BookingStrategy::Serialized;
                allot_core::validate::booking("x".into(), resource, parse(body())?, any, l).map(drop)
            }
            Op::ExtendBooking { .. } => allot_core::validate::extend(&parse(body())?, l).map(drop),
            Op::RescheduleBooking { .. } => allot_core::validate::reschedule_booking(parse(body())?, l).map(drop),
            Op::PutResource { resource, .. } => {
                allot_core::booking::capacity::resource(resource, parse(body())?, self.clock.now(), l).map(drop)
            }
            Op::PutPool { pool, .. } => {
                allot_core::booking::capacity::pool(pool, parse(body())?, self.clock.now(), l).map(drop)
            }
            Op::PutSlots { resource, .. } | Op::Explain { resource, .. } => {
                allot_core::validate::name("resource", resource, l)
            }
            Op::Availability { resource } => allot_core::validate::name("resource", resource, l),
            Op::ReceiveUnits { sku, .. } => {
                allot_core::validate::add_units(sku, parse(body())?, self.clock.now(), l).map(drop)
            }
            Op::ClaimUnits { .. } => {
                let any = allot_core::UnitStrategy::Serialized;
                allot_core::validate::unit_claim("x".into(), parse(body())?, any, l).map(drop)
            }
            Op::GetUnits { sku } | Op::GetUnit { sku, .. } => allot_core::validate::name("sku", sku, l),
            Op::CreateSchedule { .. } => allot_core::validate::schedule(parse(body())?, self.clock.now(), l).map(drop),
            Op::DeleteSchedule { name } | Op::PauseSchedule { name, .. } => allot_core::validate::name("name", name, l),
            _ => Ok(()),
        }
    }

    /// [`Model::validate`] of allocations, holds (their kit lines expanded with the model's
    /// kits) and kits.
    fn validate_orders(&self, op: &Op, body: Value) -> Result<(), AllotError> {
        let (l, strategy) = (&self.limits, allot_core::Strategy::Atomic);
        match op {
            Op::Allocate { .. } => {
                allot_core::validate::allocation_with("x".into(), parse(body)?, strategy, l, &self.core_kits())
                    .map(drop)
            }
            Op::Hold { .. } => {
                allot_core::validate::hold_with("x".into(), parse(body)?, strategy, l, &self.core_kits()).map(drop)
            }
            Op::PutKit { kit, .. } => allot_core::validate::kit(kit, parse(body)?, l).map(drop),
            Op::GetKit { kit } => allot_core::validate::name("kit", kit, l),
            Op::SetBackorderLimit { sku, .. } => {
                allot_core::validate::name("sku", sku, l)?;
                allot_core::model::validate::sku_settings(parse(body)?, l).map(drop)
            }
            _ => Ok(()),
        }
    }

    /// `Op::ClaimUnits` as the model's claim.
    fn claim_units_op(&mut self, op: &Op) -> Result<Done, AllotError> {
        let Op::ClaimUnits {
            sku,
            quantity,
            order_by,
            allow_partial,
            hold_ttl_ms,
            ..
        } = op
        else {
            return Err(AllotError::Internal("not a unit claim".into()));
        };
        self.claim_units(&units::ClaimOf {
            sku,
            quantity: *quantity,
            order_by,
            allow_partial: *allow_partial,
            hold_ttl_ms: *hold_ttl_ms,
        })
    }

    /// The steps on a SKU's levels: create, read, adjust, locations, transfers, levels set.
    fn execute_levels(&mut self, op: &Op) -> Result<Done, AllotError> {
        match op {
            Op::CreateSku {
                sku, on_hand, location, ..
            } => self.create_sku(sku, *on_hand, *location),
            Op::GetSku { sku } => Ok((200, self.sku_view(sku)?, None)),
            Op::Adjust {
                sku, delta, location, ..
            } => self.adjust(sku, *delta, *location),
            Op::CreateLocation { location, priority } => self.create_location(location, *priority),
            Op::Transfer {
                sku,
                from,
                to,
                quantity,
                ..
            } => self.transfer(sku, from, to, *quantity),
            Op::SetLevel {
                sku,
                location,
                on_hand,
                compare_on_hand,
                ..
            } => self.set_level(sku, location, *on_hand, *compare_on_hand),
            Op::AddIncoming {
                sku,
                quantity,
                location,
                ..
            } => self.add_incoming(sku, *quantity, *location),
            Op::Move {
                sku,
                from,
                to,
                quantity,
                location,
                ..
            } => self.move_stock(sku, (*from, *to), *quantity, *location),
            _ => Err(AllotError::Internal("not a step on levels".into())),
        }
    }

    /// The steps on levels and receipts (`id`: the incoming a receipt names), each success's
    /// stock events noted.
    fn execute_noted(&mut self, op: &Op, id: &str) -> Result<Done, AllotError> {
        let done = match op {
            Op::Receive {
                sku,
                quantity,
                incoming,
                location,
                ..
            } => self.receive(sku, *quantity, (incoming.is_some(), id), *location)?,
            _ => self.execute_levels(op)?,
        };
        self.note_stock_events(op, &done);
        Ok(done)
    }

    /// The steps on bookings and capacity (`id`: the booking a step names).
    fn execute_bookings(&mut self, op: &Op, id: &str) -> Result<Done, AllotError> {
        match op {
            Op::Book {
                resource,
                start_h,
                hours,
                quantity,
                hold_ttl_ms,
                ..
            } => self.book(
                resource,
                (hour_us(*start_h), hour_us(start_h + hours)),
                *quantity,
                *hold_ttl_ms,
            ),
            Op::RescheduleBooking {
                start_h,
                hours,
                quantity,
                ..
            } => self.reschedule_booking(id, (hour_us(*start_h), hour_us(start_h + hours)), *quantity),
            Op::PutResource { resource, put } => self.put_resource(resource, resource_of(put)),
            Op::PutPool {
                pool,
                capacity,
                slot_hours,
            } => self.put_pool(
                pool,
                capacity::Pool {
                    capacity: *capacity,
                    slot_us: slot_hours * 3_600_000_000,
                },
            ),
            Op::PutSlots {
                resource,
                from_h,
                to_h,
                capacity,
            } => self.put_slots(resource, (hour_us(*from_h), hour_us(*to_h)), *capacity),
            Op::Explain {
                resource,
                start_h,
                hours,
                quantity,
            } => self.explain(resource, (hour_us(*start_h), hour_us(start_h + hours)), *quantity),
            Op::GetBooking { .. } => self.get_booking(id),
            Op::CancelBooking { .. } => self.cancel_booking(id),
            Op::ConfirmBooking { .. } => self.confirm_booking(id),
            Op::ReleaseBooking { .. } => self.release_booking(id),
            Op::ExtendBooking { ttl_ms, .. } => self.extend_booking(id, *ttl_ms),
            Op::Availability { resource } => Ok((
                200,
                self.availability(resource, (hour_us(0), hour_us(crate::ops::WINDOW_HOURS))),
                None,
            )),
            _ => Err(AllotError::Internal("not a step on bookings".into())),
        }
    }

    /// `Op::Hold` as the model's hold.
    fn hold_op(&mut self, op: &Op) -> Result<Done, AllotError> {
        let Op::Hold {
            lines,
            units,
            bookings,
            ttl_ms,
            place,
            ..
        } = op
        else {
            return Err(AllotError::Internal("not a hold".into()));
        };
        // The request lists the stock lines, then the unit lines, then these.
        let first = lines.len() + units.len();
        let bookings: Vec<holds::BookingLine> = bookings
            .iter()
            .enumerate()
            .map(|(k, (r, start_h, hours, q))| (*r, (hour_us(*start_h), hour_us(start_h + hours)), *q, first + k))
            .collect();
        self.hold((&self.expand_kits(lines), units, &bookings), *ttl_ms, place)
    }

    fn execute(&mut self, op: &Op, resolved: &Resolved) -> Result<Done, AllotError> {
        let (id, token) = (resolved.id.as_str(), resolved.token.as_str());
        match op {
            Op::CreateSku { .. }
            | Op::GetSku { .. }
            | Op::Adjust { .. }
            | Op::CreateLocation { .. }
            | Op::Transfer { .. }
            | Op::AddIncoming { .. }
            | Op::Move { .. }
            | Op::SetLevel { .. }
            | Op::Receive { .. } => self.execute_noted(op, id),
            Op::Allocate { lines, place, .. } => self.allocate(&self.expand_kits(lines), place),
            Op::PutKit { kit, components } => self.put_kit(kit, components),
            Op::GetKit { kit } => self.get_kit(kit),
            Op::SetBackorderLimit { sku, limit } => self.set_backorder_limit(sku, *limit),
            Op::GetAllocation { .. } => Ok((200, self.allocation_view(id)?, None)),
            Op::Cancel { .. } => self.cancel(id),
            Op::Return { lines, location, .. } => self.return_lines(id, lines, *location),
            Op::Hold { .. } => self.hold_op(op),
            Op::GetHold { .. } => Ok((200, self.hold_view(id)?, None)),
            Op::Confirm { part, .. } => self.confirm(id, part.as_ref()),
            Op::Release { .. } => self.release(id),
            Op::Extend { ttl_ms, .. } => self.extend(id, *ttl_ms),
            Op::Enqueue { queue, jobs, batch, .. } => self.enqueue(queue, jobs, &resolved.depends_on, *batch),
            Op::Claim {
                queue, max, lease_ms, ..
            } => self.claim(queue, *max, *lease_ms),
            Op::Complete { .. } => self.complete(id, token),
            Op::Fail { retry_in_ms, .. } => self.fail(id, token, *retry_in_ms),
            Op::Heartbeat { lease_ms, .. } => self.heartbeat(id, token, *lease_ms),
            Op::CancelJob { .. } => self.cancel_job(id),
            Op::Snooze { delay_ms, .. } => self.snooze(id, token, *delay_ms),
            Op::Reschedule { delay_ms, .. } => self.reschedule(id, *delay_ms),
            Op::RetryJob { .. } => self.retry_job(id),
            Op::GetQueue { queue } => Ok((200, self.queue_view(queue), None)),
            Op::QueueSettings { queue, settings } => self.put_settings(queue, settings),
            Op::PauseQueue { queue, pause } => self.pause_queue(queue, *pause),
            Op::CreateSchedule { .. } | Op::ListSchedules | Op::DeleteSchedule { .. } | Op::PauseSchedule { .. } => {
                self.execute_schedules(op)
            }
            Op::Book { .. }
            | Op::RescheduleBooking { .. }
            | Op::PutResource { .. }
            | Op::PutPool { .. }
            | Op::PutSlots { .. }
            | Op::Explain { .. }
            | Op::GetBooking { .. }
            | Op::CancelBooking { .. }
            | Op::ConfirmBooking { .. }
            | Op::ReleaseBooking { .. }
            | Op::ExtendBooking { .. }
            | Op::Availability { .. } => self.execute_bookings(op, id),
            Op::ReceiveUnits { sku, units, .. } => self.receive_units(sku, units),
            Op::ClaimUnits { .. } => self.claim_units_op(op),
            Op::GetUnits { sku } => Ok((200, self.units_view(sku)?, None)),
            Op::GetUnit { sku, serial } => Ok((200, self.unit_by_serial(sku, *serial)?, None)),
            Op::Audit => Ok((200, json!({"clean": true}), None)),
            Op::HoldEvents => Ok((200, self.hold_events_view(), None)),
            Op::StockEvents => Ok((200, self.stock_events_view(), None)),
            Op::Advance { .. } | Op::Sweep | Op::RunSchedules | Op::Batch { .. } | Op::OtherTenant { .. } => {
                Err(AllotError::Internal("not a request of this tenant".into()))
            }
        }
    }
}

/// The instant `hours` into the bookings' window, µs since the epoch.
fn hour_us(hours: i64) -> i64 {
    (crate::ops::start() + chrono::Duration::days(1) + chrono::Duration::hours(hours)).timestamp_micros()
}

/// `v` as the request type `T` (a body the generator made always reads as one).
fn parse<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, AllotError> {
    serde_json::from_value(v).map_err(|e| AllotError::InvalidRequest(e.to_string()))
}

/// Whether a keyed request runs or replays.
enum KeyState {
    Fresh,
    Replay(Answer),
}

/// The model's resource of a generated put.
fn resource_of(put: &crate::ops::ResourcePut) -> capacity::Resource {
    capacity::Resource {
        capacity: put.capacity,
        slot_us: (put.slot_hours > 0).then_some(put.slot_hours * 3_600_000_000),
        pools: put.pools.iter().map(|p| p.to_string()).collect(),
        min_slots: put.min_slots,
        max_slots: put.max_slots,
        closed: put.closed.map(|(f, t)| (hour_us(f), hour_us(t))),
        lead_time_ms: put.lead_time_ms,
        horizon_ms: put.horizon_ms,
        zone: put.time_zone.parse().ok(),
        closed_to_arrival: put.closed_to_arrival.and_then(capacity::Day::parse),
        closed_to_departure: put.closed_to_departure.and_then(capacity::Day::parse),
        buffer_us: put.buffer_ms.map(|b| b * 1000),
    }
}

/// A refusal as the simulation compares it: the status, the code, the figures an
/// `insufficient_stock` names, and the line a hold's booking line's refusal names.
pub fn error_answer(e: &AllotError) -> Answer {
    let status = allot_server::status_of(e).as_u16();
    let line = e.line();
    let e = e.unlined();
    let mut view = json!({"code": e.code()});
    if let Some(line) = line {
        view["line"] = json!(line);
    }
    let figures = match e {
        AllotError::InsufficientStock {
            sku,
            requested,
            available,
        } => Some((sku, requested, available)),
        AllotError::ExceedsAllocation { sku, requested, left }
        | AllotError::ExceedsIncoming {
            sku, requested, left, ..
        }
        | AllotError::ExceedsState {
            sku, requested, left, ..
        } => Some((sku, requested, left)),
        _ => None,
    };
    if let Some((sku, requested, available)) = figures {
        view["sku"] = json!(sku);
        view["requested"] = json!(requested);
        view["available"] = json!(available);
    }
    if let AllotError::CapacityExceeded(r) | AllotError::RuleViolated(r) = e {
        view["reason"] = capacity::reason_view(r);
    }
    Answer {
        status,
        replayed: false,
        view,
    }
}
