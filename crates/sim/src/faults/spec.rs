//! The sequential specifications the faults phase checks each history against, with
//! stateright's `LinearizabilityTester`: one SKU (allocations, cancels, adjustments, reads)
//! and one job (leases and completions). They restate, for one object, what the reference
//! model says of the whole API; a history is linearizable when some order of its operations,
//! respecting real time, is one these specs accept.

use stateright::semantics::SequentialSpec;
use std::collections::BTreeMap;

/// An operation on one SKU, as a client invoked it.
#[allow(missing_docs)] // the variants say what their fields are
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkuOp {
    /// An allocation of `quantity`, the client's operation number `n` (its key).
    Allocate { n: u64, quantity: i64 },
    /// The cancel of the allocation made by operation `n`, of `quantity`.
    Cancel { n: u64, quantity: i64 },
    /// An adjustment by `delta` (> 0).
    Adjust { delta: i64 },
    /// A read of the SKU.
    Read,
}

/// What an operation on one SKU answered.
#[allow(missing_docs)] // the variants say what their fields are
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkuRet {
    /// `201`: allocated.
    Allocated,
    /// `409 insufficient_stock` with the `available` it named.
    Short { available: i64 },
    /// `200`: the allocation reads `cancelled`.
    Cancelled,
    /// `200`: the SKU after the adjustment.
    Adjusted { on_hand: i64 },
    /// `200`: the SKU as read.
    Level { on_hand: i64, available: i64 },
    /// Any other answer (no specification gives one).
    Other(String),
}

/// One SKU: on hand (no holds in this phase, so available is on hand) and the allocations
/// made, by operation number, with whether each was cancelled.
#[derive(Debug, Clone)]
pub struct SkuSpec {
    /// On hand.
    pub on_hand: i64,
    allocations: BTreeMap<u64, (i64, bool)>,
}

impl SkuSpec {
    /// A SKU of `on_hand`.
    pub fn new(on_hand: i64) -> Self {
        SkuSpec {
            on_hand,
            allocations: BTreeMap::new(),
        }
    }
}

impl SequentialSpec for SkuSpec {
    type Op = SkuOp;
    type Ret = SkuRet;

    fn invoke(&mut self, op: &SkuOp) -> SkuRet {
        match *op {
            SkuOp::Allocate { n, quantity } if quantity <= self.on_hand => {
                self.on_hand -= quantity;
                self.allocations.insert(n, (quantity, false));
                SkuRet::Allocated
            }
            SkuOp::Allocate { .. } => SkuRet::Short {
                available: self.on_hand,
            },
            SkuOp::Cancel { n, .. } => match self.allocations.get_mut(&n) {
                Some((quantity, cancelled)) => {
                    if !*cancelled {
                        *cancelled = true;
                        self.on_hand += *quantity;
                    }
                    SkuRet::Cancelled
                }
                None => SkuRet::Other("not_found".into()),
            },
            SkuOp::Adjust { delta } => {
                self.on_hand += delta;
                SkuRet::Adjusted { on_hand: self.on_hand }
            }
            SkuOp::Read => SkuRet::Level {
                on_hand: self.on_hand,
                available: self.on_hand,
            },
        }
    }
}

/// An operation on one job, as a worker saw it; `at_ms` (ms since the epoch, on the machine's
/// clock, which the servers share) is when a lease was granted (its expiry less the lease) or
/// when a completion's answer came back (the latest it can have been decided).
#[allow(missing_docs)] // the variants say what their fields are
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOp {
    /// A claim that handed this job out as `attempt`, leased until `expires_ms`.
    Lease { attempt: i32, expires_ms: i64, at_ms: i64 },
    /// A completion by the token of `attempt`.
    Complete { attempt: i32, at_ms: i64 },
}

/// What a job operation answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRet {
    /// The claim's lease.
    Leased,
    /// `200 completed`.
    Completed,
    /// `409 lease_lost`.
    LeaseLost,
    /// Any other answer.
    Other(String),
}

/// One job: its last attempt, whether it runs (and until when its lease lasts) or is done.
/// The sweeper rescues a running job whose lease expired — a step no client sees — so a
/// lease may follow a lease, and a completion may find its lease lost, only once the earlier
/// lease had expired by the time the answer came back.
#[derive(Debug, Clone, Default)]
pub struct JobSpec {
    attempt: i32,
    running_until_ms: Option<i64>,
    completed: bool,
}

impl SequentialSpec for JobSpec {
    type Op = JobOp;
    type Ret = JobRet;

    /// The answer when no rescue came between (an operation still in flight at the end).
    fn invoke(&mut self, op: &JobOp) -> JobRet {
        match *op {
            JobOp::Lease {
                attempt, expires_ms, ..
            } => {
                self.attempt = attempt;
                self.running_until_ms = Some(expires_ms);
                JobRet::Leased
            }
            JobOp::Complete { attempt, .. } if self.running_until_ms.is_some() && attempt == self.attempt => {
                self.running_until_ms = None;
                self.completed = true;
                JobRet::Completed
            }
            JobOp::Complete { .. } => JobRet::LeaseLost,
        }
    }

    fn is_valid_step(&mut self, op: &JobOp, ret: &JobRet) -> bool {
        let expired_by = |until: Option<i64>, at_ms: i64| until.is_none_or(|u| u <= at_ms);
        match (op, ret) {
            (
                &JobOp::Lease {
                    attempt,
                    expires_ms,
                    at_ms,
                },
                JobRet::Leased,
            ) => {
                let free = !self.completed && expired_by(self.running_until_ms, at_ms);
                if !(free && attempt == self.attempt + 1) {
                    return false;
                }
                self.attempt = attempt;
                self.running_until_ms = Some(expires_ms);
                true
            }
            (&JobOp::Complete { attempt, .. }, JobRet::Completed) => {
                if self.completed || self.running_until_ms.is_none() || attempt != self.attempt {
                    return false;
                }
                self.running_until_ms = None;
                self.completed = true;
                true
            }
            (&JobOp::Complete { attempt, at_ms }, JobRet::LeaseLost) => {
                let held = !self.completed && self.running_until_ms.is_some() && attempt == self.attempt;
                if held && !expired_by(self.running_until_ms, at_ms) {
                    return false;
                }
                if held {
                    // Rescued before it came: the job waits again.
                    self.running_until_ms = None;
                }
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stateright::semantics::{ConsistencyTester, LinearizabilityTester};

    #[test]
    fn a_sku_history_is_checked_in_real_time_order() {
        let mut t = LinearizabilityTester::new(SkuSpec::new(2));
        t.on_invoke(0, SkuOp::Allocate { n: 1, quantity: 2 }).unwrap();
        t.on_invret(
            1,
            SkuOp::Read,
            SkuRet::Level {
                on_hand: 2,
                available: 2,
            },
        )
        .unwrap();
        t.on_return(0, SkuRet::Allocated).unwrap();
        assert!(t.is_consistent());
        // After the allocation returned, a read of 2 is a lost write.
        t.on_invret(
            1,
            SkuOp::Read,
            SkuRet::Level {
                on_hand: 2,
                available: 2,
            },
        )
        .unwrap();
        assert!(!t.is_consistent());
    }

    #[test]
    fn two_allocations_of_the_last_unit_cannot_both_succeed() {
        let mut t = LinearizabilityTester::new(SkuSpec::new(1));
        t.on_invoke(0, SkuOp::Allocate { n: 1, quantity: 1 }).unwrap();
        t.on_invoke(1, SkuOp::Allocate { n: 2, quantity: 1 }).unwrap();
        t.on_return(0, SkuRet::Allocated).unwrap();
        t.on_return(1, SkuRet::Allocated).unwrap();
        assert!(!t.is_consistent());
    }

    #[test]
    fn a_job_is_leased_twice_only_after_its_lease_expired() {
        let lease = |attempt, at_ms| JobOp::Lease {
            attempt,
            expires_ms: at_ms + 1000,
            at_ms,
        };
        let mut ok = LinearizabilityTester::new(JobSpec::default());
        ok.on_invret(0, lease(1, 0), JobRet::Leased).unwrap();
        ok.on_invret(1, lease(2, 1500), JobRet::Leased).unwrap();
        ok.on_invret(
            0,
            JobOp::Complete {
                attempt: 1,
                at_ms: 1600,
            },
            JobRet::LeaseLost,
        )
        .unwrap();
        ok.on_invret(
            1,
            JobOp::Complete {
                attempt: 2,
                at_ms: 1700,
            },
            JobRet::Completed,
        )
        .unwrap();
        assert!(ok.is_consistent());
        let mut twice = LinearizabilityTester::new(JobSpec::default());
        twice.on_invret(0, lease(1, 0), JobRet::Leased).unwrap();
        twice.on_invret(1, lease(2, 500), JobRet::Leased).unwrap();
        assert!(!twice.is_consistent());
        let mut lost = LinearizabilityTester::new(JobSpec::default());
        lost.on_invret(0, lease(1, 0), JobRet::Leased).unwrap();
        lost.on_invret(0, JobOp::Complete { attempt: 1, at_ms: 10 }, JobRet::LeaseLost)
            .unwrap();
        assert!(!lost.is_consistent());
    }
}
