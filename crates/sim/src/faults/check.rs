//! The checks of a faults run's history: every SKU's and every job's history linearizable
//! against its sequential specification (stateright's `LinearizabilityTester`), every
//! operation settled with an answer its specification can give, and the books: what the
//! acknowledged operations add up to is what each SKU holds.

use super::client::{INITIAL_ON_HAND, SKUS};
use super::history::{Call, Event, Outcome};
use super::spec::{JobOp, JobRet, JobSpec, SkuOp, SkuRet, SkuSpec};
use stateright::semantics::{ConsistencyTester, LinearizabilityTester};
use std::collections::BTreeMap;

/// Each invocation with its return (`None`: never returned), in the log's order.
pub struct Paired {
    events: Vec<Event>,
    /// For the invocation at an event's index: its outcome and when it came back.
    returns: BTreeMap<usize, (Outcome, i64)>,
}

impl Paired {
    /// Pair every return with its client's invocation in flight.
    pub fn new(events: Vec<Event>) -> Paired {
        let mut pending: BTreeMap<usize, usize> = BTreeMap::new();
        let mut returns = BTreeMap::new();
        for (i, e) in events.iter().enumerate() {
            match e {
                Event::Invoke { client, .. } => {
                    pending.insert(*client, i);
                }
                Event::Return { client, outcome, at_ms } => {
                    if let Some(at) = pending.remove(client) {
                        returns.insert(at, (outcome.clone(), *at_ms));
                    }
                }
            }
        }
        Paired { events, returns }
    }

    /// Every invocation and its settled outcome.
    pub fn calls(&self) -> impl Iterator<Item = (usize, &Call, Option<&Outcome>)> {
        self.events.iter().enumerate().filter_map(|(i, e)| match e {
            Event::Invoke { client, call } => Some((*client, call, self.returns.get(&i).map(|r| &r.0))),
            Event::Return { .. } => None,
        })
    }
}

/// The allocation `n` of `client`, unique over the run.
fn allocation_key(client: usize, n: u64) -> u64 {
    ((client as u64) << 32) | n
}

fn sku_op(client: usize, call: &Call) -> SkuOp {
    match *call {
        Call::Allocate { quantity, n, .. } => SkuOp::Allocate {
            n: allocation_key(client, n),
            quantity,
        },
        Call::Cancel { quantity, of, .. } => SkuOp::Cancel {
            n: allocation_key(client, of),
            quantity,
        },
        Call::Adjust { delta, .. } => SkuOp::Adjust { delta },
        _ => SkuOp::Read,
    }
}

fn sku_ret(call: &Call, outcome: &Outcome) -> SkuRet {
    match (call, outcome) {
        (_, Outcome::Allocated { .. }) => SkuRet::Allocated,
        (_, Outcome::Short { available }) => SkuRet::Short { available: *available },
        (_, Outcome::Cancelled) => SkuRet::Cancelled,
        (Call::Adjust { .. }, Outcome::Level { on_hand, .. }) => SkuRet::Adjusted { on_hand: *on_hand },
        (_, Outcome::Level { on_hand, available }) => SkuRet::Level {
            on_hand: *on_hand,
            available: *available,
        },
        (_, other) => SkuRet::Other(format!("{other:?}")),
    }
}

/// The history of `sku`, fed to a linearizability tester.
pub fn sku_tester(p: &Paired, sku: &str) -> Result<LinearizabilityTester<usize, SkuSpec>, String> {
    let mut t = LinearizabilityTester::new(SkuSpec::new(INITIAL_ON_HAND));
    let mut in_flight: BTreeMap<usize, Call> = BTreeMap::new();
    for e in &p.events {
        match e {
            Event::Invoke { client, call } if call.sku() == Some(sku) => {
                t.on_invoke(*client, sku_op(*client, call))?;
                in_flight.insert(*client, call.clone());
            }
            Event::Return { client, outcome, .. } => {
                if let Some(call) = in_flight.remove(client) {
                    t.on_return(*client, sku_ret(&call, outcome))?;
                }
            }
            Event::Invoke { .. } => {}
        }
    }
    Ok(t)
}

/// Every job's history (claims that handed it out, completions of it), each fed to a
/// linearizability tester.
pub fn job_testers(p: &Paired) -> Result<BTreeMap<i64, LinearizabilityTester<usize, JobSpec>>, String> {
    let mut testers: BTreeMap<i64, LinearizabilityTester<usize, JobSpec>> = BTreeMap::new();
    let mut in_flight: BTreeMap<usize, i64> = BTreeMap::new();
    for (i, e) in p.events.iter().enumerate() {
        match e {
            Event::Invoke { client, call } => {
                let Some((op, job)) = job_op(call, p.returns.get(&i)) else {
                    continue;
                };
                testers
                    .entry(job)
                    .or_insert_with(|| LinearizabilityTester::new(JobSpec::default()))
                    .on_invoke(*client, op)?;
                in_flight.insert(*client, job);
            }
            Event::Return { client, outcome, .. } => {
                let Some(job) = in_flight.remove(client) else {
                    continue;
                };
                let ret = match outcome {
                    Outcome::Leased(Some(_)) => JobRet::Leased,
                    Outcome::Completed => JobRet::Completed,
                    Outcome::LeaseLost => JobRet::LeaseLost,
                    other => JobRet::Other(format!("{other:?}")),
                };
                if let Some(t) = testers.get_mut(&job) {
                    t.on_return(*client, ret)?;
                }
            }
        }
    }
    Ok(testers)
}

/// The job operation `call` is, given how it returned, and its job (a claim that handed out
/// nothing, or never returned, is no job's).
fn job_op(call: &Call, returned: Option<&(Outcome, i64)>) -> Option<(JobOp, i64)> {
    let at_ms = returned.map_or(i64::MAX, |r| r.1);
    match (call, returned) {
        // A lease was granted when its server's clock read its expiry less the lease: the
        // earlier lease must have expired by then (not merely by the time the answer came
        // back, which a lost answer retried can put seconds later).
        (Call::Claim, Some((Outcome::Leased(Some(l)), _))) => Some((
            JobOp::Lease {
                attempt: l.attempt,
                expires_ms: l.expires_ms,
                at_ms: l.expires_ms - super::client::LEASE_MS,
            },
            l.job,
        )),
        (Call::Complete { job, attempt, .. }, _) => Some((
            JobOp::Complete {
                attempt: *attempt,
                at_ms,
            },
            *job,
        )),
        _ => None,
    }
}

/// What the acknowledged operations leave of each SKU: the initial stock, plus every
/// adjustment, less every allocation not cancelled.
pub fn expected_on_hand(p: &Paired) -> BTreeMap<&'static str, i64> {
    let mut on_hand: BTreeMap<&'static str, i64> = SKUS.iter().map(|s| (*s, INITIAL_ON_HAND)).collect();
    for (_, call, outcome) in p.calls() {
        let delta = match (call, outcome) {
            (Call::Allocate { quantity, .. }, Some(Outcome::Allocated { .. })) => -quantity,
            (Call::Adjust { delta, .. }, Some(Outcome::Level { .. })) => *delta,
            _ => 0,
        };
        if let Some(sku) = call.sku() {
            *on_hand.entry(sku).or_default() += delta;
        }
    }
    // A cancel gives back once: the allocations acknowledged cancelled, each counted once.
    let mut cancelled = std::collections::BTreeSet::new();
    for (client, call, outcome) in p.calls() {
        if let (Call::Cancel { sku, quantity, of }, Some(Outcome::Cancelled)) = (call, outcome) {
            if cancelled.insert(allocation_key(client, *of)) {
                *on_hand.entry(sku).or_default() += quantity;
            }
        }
    }
    on_hand
}

/// Where `sku`'s history stops being linearizable: the shortest prefix of the log that is
/// not (found by bisection: a prefix of a linearizable history is linearizable), and its last
/// `context` events concerning `sku`, in words.
pub fn first_unexplained(p: &Paired, sku: &str, context: usize) -> Option<String> {
    let prefix = |k: usize| Paired {
        events: p.events[..k].to_vec(),
        returns: p.returns.clone(),
    };
    let consistent = |k: usize| sku_tester(&prefix(k), sku).is_ok_and(|t| t.is_consistent());
    if consistent(p.events.len()) {
        return None;
    }
    let (mut good, mut bad) = (0, p.events.len());
    while bad - good > 1 {
        let mid = (good + bad) / 2;
        if consistent(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    let mut in_flight: BTreeMap<usize, Call> = BTreeMap::new();
    let mut lines: Vec<String> = Vec::new();
    for e in &p.events[..bad] {
        match e {
            Event::Invoke { client, call } if call.sku() == Some(sku) => {
                lines.push(format!("client {client} invokes {call:?}"));
                in_flight.insert(*client, call.clone());
            }
            Event::Return { client, outcome, .. } if in_flight.remove(client).is_some() => {
                lines.push(format!("client {client} returns {outcome:?}"));
            }
            _ => {}
        }
    }
    let from = lines.len().saturating_sub(context);
    Some(lines[from..].join("\n    "))
}
