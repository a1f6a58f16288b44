//! The reference model: allot's stock semantics, pure and in memory, on an injected clock.
//! It is the specification the backends are held to, written to be checked against
//! docs/api.md line by line, and shares nothing with them but core's types and the
//! validation of request bodies (a request the core refuses is refused the same everywhere).
//!
//! What it knows (the rest of the API is not yet modelled, and not yet generated):
//! - SKUs of one bucket at the `default` location: `on_hand`, `held` (the live holds' lines), `available`
//!   (`on_hand − held`); created once (`409 already_exists` after), adjusted by a non-zero
//!   delta that never takes more than is available (`409 insufficient_stock`).
//! - Allocations: every line or none (`404 not_found` for a SKU that does not exist,
//!   `409 insufficient_stock` naming the first short line in SKU order); a cancel gives every
//!   line back once (a second cancel answers the cancelled allocation and changes nothing).
//! - Holds: like an allocation, set aside until `expires_at` (`now + ttl_ms`); a hold whose
//!   expiry is not after now is `expired` at once, its quantity available again, before any
//!   sweeper. Confirm (whole, or `lines` — at most what it holds of each SKU, the rest
//!   released) makes the allocation with the hold's id, and the hold then reads the lines
//!   it confirmed; confirming a confirmed hold answers that allocation; release gives a held hold back and answers a released or expired one
//!   unchanged (`409 hold_confirmed` for a confirmed one); extend acts on a held hold only
//!   (`409 hold_<status>`) and never shortens it.
//! - Idempotency keys: a 2xx answer is stored with the request's method, path and body; the
//!   same request again gets the stored answer (replayed), another request under the key
//!   `422 idempotency_key_reused`; a refused request stores nothing.

mod holds;
mod stock;

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

/// An allocation: its lines (SKU order) and whether it was cancelled.
#[derive(Debug, Clone)]
struct Allocation {
    lines: Vec<(String, i64)>,
    cancelled: bool,
}

/// What a hold was last written as (its effective status also reads the clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stored {
    Held,
    Confirmed,
    Released,
}

/// A hold: its lines (SKU order), its expiry (µs since the epoch) and its stored status.
#[derive(Debug, Clone)]
struct Hold {
    lines: Vec<(String, i64)>,
    expires_us: i64,
    stored: Stored,
}

/// A deliberate fault planted in the model, to show that the runner finds and shrinks a
/// divergence (mutation testing of the oracle: a fault in the model and the same fault in a
/// backend diverge alike).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    /// A cancel gives back one unit more than its first line took.
    CancelGivesOneMore,
}

/// The model's whole state.
#[derive(Debug)]
pub struct Model {
    clock: Arc<ManualClock>,
    mutation: Option<Mutation>,
    limits: Limits,
    /// SKU → on hand.
    skus: BTreeMap<String, i64>,
    allocations: BTreeMap<String, Allocation>,
    holds: BTreeMap<String, Hold>,
    /// Key → the request it is bound to and the answer stored with it.
    keys: BTreeMap<&'static str, (String, Answer)>,
    made: u64,
}

/// What a step did: its status and answer view, and the id of what it made.
type Done = (u16, Value, Option<String>);

impl Model {
    /// An empty model on `clock`.
    pub fn new(clock: Arc<ManualClock>) -> Self {
        Model {
            clock,
            mutation: None,
            limits: limits(),
            skus: BTreeMap::new(),
            allocations: BTreeMap::new(),
            holds: BTreeMap::new(),
            keys: BTreeMap::new(),
            made: 0,
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
        format!("{prefix}{}", self.made)
    }

    /// Apply `op` (its allocation or hold resolved to `id`): the answer, and the id of what it
    /// made. A clock advance is the runner's, not a request: `None`.
    pub fn apply(&mut self, op: &Op, id: &str) -> Option<(Answer, Option<String>)> {
        let req = request::of(op, id)?;
        let fingerprint = req.key.map(|_| req.fingerprint());
        let done = match self.keyed(&req, fingerprint.as_deref(), op) {
            Ok(KeyState::Replay(answer)) => return Some((answer, None)),
            Ok(KeyState::Fresh) => self.execute(op, id),
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
            Err(e) => (error_answer(&e), None),
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
        let strategy = allot_core::Strategy::Atomic;
        match op {
            Op::CreateSku { .. } => allot_core::validate::create_sku(parse(body())?, l).map(drop),
            Op::GetSku { sku } => allot_core::validate::name("sku", sku, l),
            Op::Adjust { sku, .. } => allot_core::validate::adjustment(sku, parse(body())?, l).map(drop),
            Op::Allocate { .. } => allot_core::validate::allocation("x".into(), parse(body())?, strategy, l).map(drop),
            Op::Hold { .. } => allot_core::validate::hold("x".into(), parse(body())?, strategy, l).map(drop),
            Op::Confirm { .. } => allot_core::validate::confirm(parse(body())?, l).map(drop),
            Op::Extend { .. } => allot_core::validate::extend(&parse(body())?, l).map(drop),
            _ => Ok(()),
        }
    }

    fn execute(&mut self, op: &Op, id: &str) -> Result<Done, AllotError> {
        match op {
            Op::CreateSku { sku, on_hand, .. } => self.create_sku(sku, *on_hand),
            Op::GetSku { sku } => Ok((200, self.sku_view(sku)?, None)),
            Op::Adjust { sku, delta, .. } => self.adjust(sku, *delta),
            Op::Allocate { lines, .. } => self.allocate(lines),
            Op::GetAllocation { .. } => Ok((200, self.allocation_view(id)?, None)),
            Op::Cancel { .. } => self.cancel(id),
            Op::Hold { lines, ttl_ms, .. } => self.hold(lines, *ttl_ms),
            Op::GetHold { .. } => Ok((200, self.hold_view(id)?, None)),
            Op::Confirm { part, .. } => self.confirm(id, part.as_deref()),
            Op::Release { .. } => self.release(id),
            Op::Extend { ttl_ms, .. } => self.extend(id, *ttl_ms),
            Op::Audit => Ok((200, json!({"clean": true}), None)),
            Op::Advance { .. } => Err(AllotError::Internal("a clock advance is not a request".into())),
        }
    }
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

/// A refusal as the simulation compares it: the status, the code and the figures an
/// `insufficient_stock` names.
pub fn error_answer(e: &AllotError) -> Answer {
    let mut view = json!({"code": e.code()});
    if let AllotError::InsufficientStock {
        sku,
        requested,
        available,
    } = e
    {
        view["sku"] = json!(sku);
        view["requested"] = json!(requested);
        view["available"] = json!(available);
    }
    Answer {
        status: allot_server::status_of(e).as_u16(),
        replayed: false,
        view,
    }
}
