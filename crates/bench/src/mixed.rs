//! The mixed part of a fault scenario (`allot chaos`): beside the stock load, unit claims,
//! bookings and jobs, each request with its own `Idempotency-Key`, sent through the same
//! fault; the jobs are worked by an allot-worker pool straight on the database. Then the
//! Jepsen-style checkers:
//!
//! - every answer is 2xx, a 4xx, 503 or none; every request without a final answer is retried
//!   with its key until it has one, and a 503 whose retry is a replay was applied after all (a
//!   failure: 503 promises nothing was applied);
//! - units: no unit handed out twice (the units of every claim are distinct), and the SKU's
//!   count agrees with the claims;
//! - no overlap: every slot was asked for by two requests, exactly one of them won, and the
//!   resource's bookings are exactly the winners; the audit finds no overlap;
//! - total queue: every enqueued job exists exactly once (a retried key enqueued nothing
//!   more) and is completed or still pending; none is lost, and the audit's job rules hold.

use crate::error::BenchError;
use allot_core::job::{JobState, LeasedJob};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Rooms the bookings share; each (room, slot) is asked for by two requests.
const ROOMS: u64 = 8;
/// The queue of the jobs.
const QUEUE: &str = "CHAOSQ";
/// The unit-tracked SKU.
const UNITS: &str = "CHAOSU";
/// How long the worker pool gets to drain the queue after the load.
const DRAIN: Duration = Duration::from_secs(30);
/// The bookings' window (every slot lies in it).
const WINDOW: &str = "from=2031-01-01T00:00:00Z&to=2032-01-01T00:00:00Z";

/// What the mixed load found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MixedReport {
    /// Unit claims applied (one unit each).
    pub unit_claims: u64,
    /// Units found in more than one claim (must be 0).
    pub units_twice: u64,
    /// Booking requests that won their slot.
    pub bookings_won: u64,
    /// Booking requests refused `booking_overlap` (the other one of their slot won).
    pub bookings_refused: u64,
    /// Jobs enqueued (distinct keys applied).
    pub jobs_enqueued: u64,
    /// Of them, completed.
    pub jobs_completed: u64,
    /// Of them, still pending (available, scheduled, retryable or running).
    pub jobs_pending: u64,
    /// Jobs lost or enqueued twice (must be 0).
    pub jobs_lost: u64,
}

/// Request `j`'s kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unit,
    Booking,
    Job,
}

fn kind(j: u64) -> Kind {
    match j % 3 {
        0 => Kind::Unit,
        1 => Kind::Booking,
        _ => Kind::Job,
    }
}

/// How one request ended.
#[derive(Debug, Clone)]
enum Outcome {
    /// 2xx, with its body.
    Done(Value),
    /// A final 4xx, with its code.
    Refused(String),
    /// 503 `unavailable`: nothing was applied (the retry checks it).
    Unavailable,
    /// No answer, a proxy's 502/504, or 503 `outcome_unknown`: the retry decides.
    Unknown,
    /// Anything else (a failure).
    Other(u16),
}

/// The booking request `j` (the `b`-th booking): room `b % ROOMS`, an hour-long slot
/// `b / (2 * ROOMS)`, so `b` and `b + ROOMS` ask for the same one.
fn booking_slot(j: u64) -> (String, u64) {
    let b = j / 3;
    (format!("ROOM-{}", b % ROOMS), b / (2 * ROOMS))
}

fn request(j: u64) -> (String, Value) {
    match kind(j) {
        Kind::Unit => ("/v1/unit-allocations".into(), json!({"sku": UNITS, "quantity": 1})),
        Kind::Booking => {
            let (room, slot) = booking_slot(j);
            let start = chrono::DateTime::parse_from_rfc3339("2031-01-01T00:00:00Z").expect("a date")
                + chrono::Duration::hours(slot as i64);
            let end = start + chrono::Duration::hours(1);
            (
                format!("/v1/resources/{room}/bookings"),
                json!({"start": start.to_rfc3339(), "end": end.to_rfc3339(), "holder": format!("m-{j}")}),
            )
        }
        Kind::Job => (
            format!("/v1/queues/{QUEUE}/jobs"),
            json!({"jobs": [{"payload": {"j": j}, "max_attempts": 25}]}),
        ),
    }
}

/// Send request `j` once; the outcome and whether a 2xx was a replay.
async fn send(client: &reqwest::Client, url: &str, j: u64) -> (Outcome, bool) {
    let (path, body) = request(j);
    let sent = client
        .post(format!("{url}{path}"))
        .header("idempotency-key", format!("mixed-{j}"))
        .json(&body)
        .send()
        .await;
    let Ok(r) = sent else { return (Outcome::Unknown, false) };
    let replayed = r.headers().contains_key("idempotent-replayed");
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap_or(Value::Null);
    let outcome = match status {
        200..=299 => Outcome::Done(body),
        503 if body["error"]["code"] == "outcome_unknown" => Outcome::Unknown,
        503 => Outcome::Unavailable,
        502 | 504 => Outcome::Unknown,
        409 => Outcome::Refused(body["error"]["code"].as_str().unwrap_or("").to_string()),
        s => Outcome::Other(s),
    };
    (outcome, replayed)
}

/// The mixed load in flight: each request's outcome.
pub(crate) struct Mixed {
    outcomes: Mutex<Vec<Option<Outcome>>>,
    requests: u64,
    /// Units the SKU was given.
    units: i64,
}

/// The jobs' work: nothing but succeeding (the checkers read the queue's own states).
struct Work;

#[async_trait::async_trait]
impl allot_worker::Handler for Work {
    async fn run(&self, _job: &LeasedJob) -> Result<(), allot_worker::JobError> {
        Ok(())
    }
}

/// The pool working the queue, on its own connection to the database.
pub(crate) struct Workers {
    pool: allot_worker::WorkerPool,
}

/// Make the unit-tracked SKU with a unit for every claim (so a claim is never short) and start
/// the worker pool on `database_url`.
pub(crate) async fn prepare(url: &str, database_url: &str, requests: u64) -> Result<(Arc<Mixed>, Workers), BenchError> {
    let client = reqwest::Client::new();
    let made = requests / 3 + 1;
    let units: Vec<Value> = (0..made).map(|i| json!({"serial": format!("S{i}")})).collect();
    for chunk in units.chunks(1000) {
        let (s, b) = crate::load::post(
            &client,
            &format!("{url}/v1/skus/{UNITS}/units"),
            &json!({"units": chunk}),
        )
        .await?;
        if s != 201 {
            return Err(BenchError::Setup(format!("units: {s} {b}")));
        }
    }
    let store = allot_store::open(database_url, &Default::default())
        .await
        .map_err(|e| BenchError::Setup(format!("the workers' store: {e}")))?;
    let mut cfg = allot_worker::WorkerConfig::new(QUEUE, store.default_claim_strategy());
    cfg.concurrency = 8;
    cfg.lease_ms = 2_000;
    cfg.poll_ms = 20;
    let pool = allot_worker::WorkerPool::start(store, cfg, Arc::new(Work));
    let mixed = Arc::new(Mixed {
        outcomes: Mutex::new(vec![None; requests as usize]),
        requests,
        units: made as i64,
    });
    Ok((mixed, Workers { pool }))
}

/// Send every request once, `clients` at a time.
pub(crate) async fn drive(url: String, clients: usize, mixed: Arc<Mixed>) {
    let n = mixed.requests;
    crate::load::each_index(clients, n, move |client, j| {
        let (url, mixed) = (url.clone(), mixed.clone());
        async move {
            let (outcome, _) = send(&client, &url, j).await;
            if !matches!(outcome, Outcome::Done(_) | Outcome::Refused(_)) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            mixed.outcomes.lock().unwrap_or_else(|p| p.into_inner())[j as usize] = Some(outcome);
        }
    })
    .await
}

impl Mixed {
    /// Retry every request without a final answer with its key until it has one (bounded).
    async fn settle(&self, url: &str, violations: &mut Vec<String>) -> Vec<Outcome> {
        let client = reqwest::Client::new();
        let mut out = self.outcomes.lock().unwrap_or_else(|p| p.into_inner()).clone();
        for (j, o) in out.iter_mut().enumerate() {
            if matches!(o, Some(Outcome::Done(_) | Outcome::Refused(_))) {
                continue;
            }
            let first = o.clone();
            let mut settled = false;
            for _ in 0..50 {
                match send(&client, url, j as u64).await {
                    (Outcome::Other(s), _) => violations.push(format!("mixed request {j}: an answer {s}")),
                    (fin @ (Outcome::Done(_) | Outcome::Refused(_)), replayed) => {
                        if replayed && matches!(first, Some(Outcome::Unavailable)) {
                            violations.push(format!("mixed request {j} answered 503 had been applied"));
                        }
                        *o = Some(fin);
                        settled = true;
                        break;
                    }
                    _ => {}
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            if !settled {
                violations.push(format!("mixed request {j} could not be settled with its key"));
            }
        }
        out.into_iter().flatten().collect()
    }

    /// Settle, let the workers drain the queue, and run every checker.
    pub(crate) async fn check(&self, url: &str, workers: Workers, violations: &mut Vec<String>) -> MixedReport {
        let outcomes = self.settle(url, violations).await;
        let mut report = MixedReport::default();
        for (j, o) in outcomes.iter().enumerate() {
            if let Outcome::Other(s) = o {
                violations.push(format!("mixed request {j}: an answer {s}"));
            }
        }
        units(url, self.units, &outcomes, &mut report, violations).await;
        bookings(url, &outcomes, &mut report, violations).await;
        let deadline = Instant::now() + DRAIN;
        while Instant::now() < deadline && open_jobs(url).await.is_none_or(|n| n > 0) {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        workers.pool.shutdown().await;
        jobs(url, &outcomes, &mut report, violations).await;
        report
    }
}

/// Jobs of the queue not finished yet, if the server answers.
async fn open_jobs(url: &str) -> Option<i64> {
    let counts = crate::load::get(&reqwest::Client::new(), &format!("{url}/v1/queues/{QUEUE}"))
        .await
        .ok()?;
    let c = counts["counts"].as_object()?;
    Some(
        ["available", "scheduled", "retryable", "running"]
            .iter()
            .map(|s| c.get(*s).and_then(Value::as_i64).unwrap_or(0))
            .sum(),
    )
}

/// The outcomes of one kind, by request index.
fn of_kind(outcomes: &[Outcome], k: Kind) -> impl Iterator<Item = (u64, &Outcome)> {
    outcomes
        .iter()
        .enumerate()
        .map(|(j, o)| (j as u64, o))
        .filter(move |(j, _)| kind(*j) == k)
}

/// No unit in two claims; the SKU's count agrees with the claims.
async fn units(url: &str, total: i64, outcomes: &[Outcome], r: &mut MixedReport, violations: &mut Vec<String>) {
    let mut seen = BTreeSet::new();
    for (j, o) in of_kind(outcomes, Kind::Unit) {
        match o {
            Outcome::Done(b) => {
                r.unit_claims += 1;
                for u in b["units"].as_array().into_iter().flatten() {
                    if !seen.insert(u["id"].as_i64().unwrap_or(-1)) {
                        r.units_twice += 1;
                    }
                }
            }
            other => violations.push(format!("unit claim {j}: {other:?}")),
        }
    }
    match crate::load::get(&reqwest::Client::new(), &format!("{url}/v1/skus/{UNITS}")).await {
        Ok(sku) if sku["on_hand"].as_i64() == Some(total - seen.len() as i64) => {}
        Ok(sku) => violations.push(format!("{} units claimed but the SKU says {sku}", seen.len())),
        Err(e) => violations.push(format!("read {UNITS}: {e}")),
    }
    if r.units_twice > 0 {
        violations.push(format!("{} units handed out twice", r.units_twice));
    }
}

/// Exactly one winner per slot; each room's bookings are exactly the winners.
async fn bookings(url: &str, outcomes: &[Outcome], r: &mut MixedReport, violations: &mut Vec<String>) {
    let mut winners: BTreeMap<(String, u64), Vec<String>> = BTreeMap::new();
    for (j, o) in of_kind(outcomes, Kind::Booking) {
        let slot = booking_slot(j);
        match o {
            Outcome::Done(b) => {
                r.bookings_won += 1;
                winners
                    .entry(slot)
                    .or_default()
                    .push(b["id"].as_str().unwrap_or("").to_string());
            }
            Outcome::Refused(code) if code == "booking_overlap" => {
                r.bookings_refused += 1;
                winners.entry(slot).or_default();
            }
            other => violations.push(format!("booking {j}: {other:?}")),
        }
    }
    for (slot, ids) in &winners {
        if ids.len() != 1 {
            violations.push(format!("slot {slot:?}: {} winners", ids.len()));
        }
    }
    let client = reqwest::Client::new();
    for room in 0..ROOMS {
        let path = format!("{url}/v1/resources/ROOM-{room}/bookings?{WINDOW}&limit=1000");
        let listed: BTreeSet<String> = match crate::load::get(&client, &path).await {
            Ok(v) => v["bookings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| b["id"].as_str().map(str::to_string))
                .collect(),
            Err(e) => {
                violations.push(format!("list ROOM-{room}: {e}"));
                continue;
            }
        };
        let won: BTreeSet<String> = winners
            .iter()
            .filter(|((r, _), _)| *r == format!("ROOM-{room}"))
            .flat_map(|(_, ids)| ids.iter().cloned())
            .collect();
        if listed != won {
            violations.push(format!(
                "ROOM-{room}: {} bookings listed, {} won",
                listed.len(),
                won.len()
            ));
        }
    }
}

/// Every enqueued job exists once, completed or pending; none lost, none extra.
async fn jobs(url: &str, outcomes: &[Outcome], r: &mut MixedReport, violations: &mut Vec<String>) {
    let mut enqueued = BTreeSet::new();
    for (j, o) in of_kind(outcomes, Kind::Job) {
        match o {
            Outcome::Done(b) => {
                enqueued.insert(b["ids"][0].as_i64().unwrap_or(-1));
            }
            other => violations.push(format!("enqueue {j}: {other:?}")),
        }
    }
    r.jobs_enqueued = enqueued.len() as u64;
    let states = match job_states(url).await {
        Ok(s) => s,
        Err(e) => return violations.push(format!("list jobs: {e}")),
    };
    for id in &enqueued {
        match states.get(id) {
            Some(JobState::Completed) => r.jobs_completed += 1,
            Some(JobState::Available | JobState::Scheduled | JobState::Retryable | JobState::Running) => {
                r.jobs_pending += 1
            }
            Some(s) => violations.push(format!("job {id} is {}", s.as_str())),
            None => r.jobs_lost += 1,
        }
    }
    let extra = states.keys().filter(|id| !enqueued.contains(id)).count() as u64;
    r.jobs_lost += extra;
    if r.jobs_lost > 0 {
        violations.push(format!("{} jobs lost or enqueued twice ({extra} extra)", r.jobs_lost));
    }
}

/// Every job of the queue and its state, paged through the API.
async fn job_states(url: &str) -> Result<BTreeMap<i64, JobState>, BenchError> {
    let client = reqwest::Client::new();
    let mut out = BTreeMap::new();
    for state in JobState::ALL {
        let mut after = 0;
        loop {
            let path = format!(
                "{url}/v1/queues/{QUEUE}/jobs?state={}&after={after}&limit=1000",
                state.as_str()
            );
            let page = crate::load::get(&client, &path).await?;
            let ids: Vec<i64> = page["jobs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|j| j["id"].as_i64())
                .collect();
            for id in &ids {
                if out.insert(*id, state).is_some() {
                    return Err(BenchError::Setup(format!("job {id} listed in two states")));
                }
            }
            match ids.last() {
                Some(last) if ids.len() == 1000 => after = *last,
                _ => break,
            }
        }
    }
    Ok(out)
}
