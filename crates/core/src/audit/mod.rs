//! The audit: the invariants of ARCHITECTURE.md checked over what a backend reads in one snapshot.
//!
//! The backends only read rows ([`SkuAuditRow`], [`ClaimAuditRow`], [`JobAuditRow`]); every
//! rule lives here, pure, so both backends judge alike and each rule is tested with plain data.
//!
//! Rules:
//! - per SKU: on_hand = sum of its ledger's `delta`, held = sum of its ledger's `held_delta`,
//!   held = the quantity of its holds still `held`, and `0 <= held <= on_hand` in every bucket
//!   (for a unit-tracked SKU on_hand and held are the counts of its units);
//! - per (count-tracked SKU, location): on_hand there = sum of the ledger's `delta` at that
//!   location, held there = sum of its `held_delta` there (conservation per location; an
//!   entry without a location is reported as such);
//! - per unit claim (allocation or hold of a unit-tracked SKU): the units that point at it are
//!   as many, allocated and held, as its ledger entries say — a unit handed to two claims
//!   leaves one claim short and the other over;
//! - per job: the state machine of [`crate::job`] — a finished job (completed, discarded,
//!   cancelled) has `finalized_at`, a running one a lease, no more attempts than
//!   `max_attempts`, at most one recorded failure per attempt, none for an attempt not yet
//!   made, and a completed job's last attempt did not also fail (two outcomes of one lease:
//!   what a stale worker's completion would leave);
//! - per allocation, hold and transfer: its books ([`crate::audit::books`]);
//! - per resource without slots: no two blocking bookings overlap (read by the backend, see
//!   [`crate::booking::BookingOverlap`]);
//! - per slot of a resource with slots and of a pool: its blocking bookings fit its capacity
//!   ([`crate::audit::slots`]).

pub mod books;
pub mod slots;
pub mod violation;

pub use crate::audit::violation::AuditViolation;
use crate::job::JobState;
use serde::{Deserialize, Serialize};

/// Most overlapping booking pairs a report lists (the count of the rest is not read: one pair
/// is already a broken invariant).
pub const MAX_LISTED_OVERLAPS: usize = 1000;

/// One job's broken rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobViolation {
    /// The tenant the job belongs to.
    pub tenant: String,
    /// The job's id.
    pub id: i64,
    /// Its queue.
    pub queue: String,
    /// What is wrong, in words.
    pub problem: String,
}

/// Result of `allot audit` and `GET /v1/audit`; clean when every list is empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AuditReport {
    /// SKUs checked.
    pub skus_checked: u64,
    /// Ledger entries summed.
    pub ledger_entries: u64,
    /// Jobs checked.
    #[serde(default)]
    pub jobs_checked: u64,
    /// Allocation lines (allocation, SKU) checked against their ledger entries and returns.
    #[serde(default)]
    pub allocations_checked: u64,
    /// Hold lines (hold, SKU) checked against their ledger entries.
    #[serde(default)]
    pub holds_checked: u64,
    /// Transfers checked.
    #[serde(default)]
    pub transfers_checked: u64,
    /// Every SKU and unit-claim violation found (empty when clean).
    pub violations: Vec<AuditViolation>,
    /// Every job violation found (empty when clean).
    #[serde(default)]
    pub job_violations: Vec<JobViolation>,
    /// Pairs of blocking bookings of one resource that overlap (empty when clean; at most
    /// [`MAX_LISTED_OVERLAPS`]).
    #[serde(default)]
    pub booking_overlaps: Vec<crate::booking::BookingOverlap>,
    /// Whether more overlapping pairs exist than `booking_overlaps` lists.
    #[serde(default)]
    pub booking_overlaps_truncated: bool,
    /// Slots of resources and pools that hold a booking, checked against their capacity.
    #[serde(default)]
    pub slots_checked: u64,
    /// Slots over their capacity (empty when clean): see [`slots`].
    #[serde(default)]
    pub slot_overbookings: Vec<slots::SlotOverbooked>,
}

impl AuditReport {
    /// Whether no rule is broken.
    pub fn is_clean(&self) -> bool {
        self.violations.is_empty()
            && self.job_violations.is_empty()
            && self.booking_overlaps.is_empty()
            && self.slot_overbookings.is_empty()
    }
}

/// One SKU's figures as an audit reads them in one snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkuAuditRow {
    /// The tenant it belongs to.
    pub tenant: String,
    /// The SKU.
    pub sku: String,
    /// Sum of its buckets' on_hand.
    pub on_hand: i64,
    /// Sum of its buckets' held.
    pub held: i64,
    /// Smallest `on_hand - held` of any bucket.
    pub min_bucket_available: i64,
    /// Smallest `held` of any bucket.
    pub min_bucket_held: i64,
    /// Sum of its ledger's `delta`.
    pub ledger_delta: i64,
    /// Sum of its ledger's `held_delta`.
    pub ledger_held_delta: i64,
    /// Number of ledger entries.
    pub ledger_entries: i64,
    /// Sum of the quantities of its holds that are still `held` (swept or not).
    pub active_hold_quantity: i64,
}

/// One (count-tracked SKU, location) as the audit reads it: its rows' sums there and its
/// ledger's sums there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocationAuditRow {
    /// The tenant.
    pub tenant: String,
    /// The SKU.
    pub sku: String,
    /// The location (`None`: ledger entries that name none).
    pub location: Option<String>,
    /// Sum of on_hand of its rows there.
    pub on_hand: i64,
    /// Sum of held of its rows there.
    pub held: i64,
    /// Sum of the ledger's `delta` there.
    pub ledger_delta: i64,
    /// Sum of the ledger's `held_delta` there.
    pub ledger_held_delta: i64,
}

/// The per-location rule: a location's rows hold what its ledger entries add up to.
pub fn location_violation(r: &LocationAuditRow) -> Option<AuditViolation> {
    if r.on_hand == r.ledger_delta && r.held == r.ledger_held_delta {
        return None;
    }
    let at = match &r.location {
        Some(l) => format!("at {l}"),
        None => "in ledger entries without a location".to_string(),
    };
    Some(AuditViolation {
        tenant: r.tenant.clone(),
        sku: r.sku.clone(),
        object: None,
        problem: format!(
            "{at}: on_hand {} held {} != ledger sums {} and {}",
            r.on_hand, r.held, r.ledger_delta, r.ledger_held_delta
        ),
    })
}

/// One quantity state of a (count-tracked SKU, location), as the audit reads it: what is
/// kept of it and what the moves add up to (see [`crate::states`]). For an unsellable state
/// `kept` is its stored count; for `available` it is the sum of the `delta` of the location's
/// `moved` ledger entries, which must be what the moves did to the sellable part. A backend
/// reads only the rows where the two differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateAuditRow {
    /// The tenant.
    pub tenant: String,
    /// The SKU.
    pub sku: String,
    /// The location.
    pub location: String,
    /// The state's stored name (`damaged`, or `available` for the ledger's side).
    pub state: String,
    /// What is kept of it.
    pub kept: i64,
    /// What the moves into it less the moves out of it add up to.
    pub moved: i64,
}

/// The per-state rule: every unsellable state holds what its moves add up to, and the
/// ledger's `moved` entries changed the sellable part by what the moves say.
pub fn state_violation(r: &StateAuditRow) -> Option<AuditViolation> {
    if r.kept == r.moved {
        return None;
    }
    let problem = match r.state.as_str() {
        "available" => format!(
            "at {}: moved ledger entries add up to {} where the moves say {}",
            r.location, r.kept, r.moved
        ),
        state => format!(
            "at {}: {state} holds {} where its moves add up to {}",
            r.location, r.kept, r.moved
        ),
    };
    Some(AuditViolation {
        tenant: r.tenant.clone(),
        sku: r.sku.clone(),
        object: None,
        problem,
    })
}

/// One unit claim (the id of an allocation or hold of a unit-tracked SKU) as its ledger
/// entries and its units tell it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimAuditRow {
    /// The tenant it belongs to.
    pub tenant: String,
    /// The SKU.
    pub sku: String,
    /// The allocation or hold id (`ledger.ref`, `units.claim_id`).
    pub claim: String,
    /// Units the ledger says the claim took for good: `-sum(delta)` of its entries.
    pub ledger_allocated: i64,
    /// Units the ledger says the claim holds: `sum(held_delta)` of its entries.
    pub ledger_held: i64,
    /// Units with `claim_id` = the claim and status `allocated`.
    pub units_allocated: i64,
    /// Units with `claim_id` = the claim and status `held`.
    pub units_held: i64,
}

/// One job as the audit reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobAuditRow {
    /// The tenant it belongs to.
    pub tenant: String,
    /// The job's id.
    pub id: i64,
    /// Its queue.
    pub queue: String,
    /// Its state (a stored name no state has is reported too).
    pub state: Option<JobState>,
    /// Attempts made (claims).
    pub attempt: i64,
    /// Most attempts allowed.
    pub max_attempts: i64,
    /// Whether `lease_expires_at` is set.
    pub leased: bool,
    /// Whether `finalized_at` is set.
    pub finalized: bool,
    /// The `attempt` of every recorded failure, in order.
    pub error_attempts: Vec<i64>,
}

/// The SKU rules over `rows` (see the module docs).
pub fn sku_violations(rows: &[SkuAuditRow]) -> Vec<AuditViolation> {
    let mut out = Vec::new();
    for r in rows {
        let mut v = |problem: String| {
            out.push(AuditViolation {
                tenant: r.tenant.clone(),
                sku: r.sku.clone(),
                object: None,
                problem,
            })
        };
        if r.on_hand != r.ledger_delta {
            v(format!("on_hand {} != ledger sum {}", r.on_hand, r.ledger_delta));
        }
        if r.held != r.ledger_held_delta {
            v(format!("held {} != ledger held sum {}", r.held, r.ledger_held_delta));
        }
        if r.held != r.active_hold_quantity {
            v(format!(
                "held {} != quantity of active holds {}",
                r.held, r.active_hold_quantity
            ));
        }
        if r.min_bucket_held < 0 {
            v(format!("a bucket has negative held ({})", r.min_bucket_held));
        }
        if r.min_bucket_available < 0 {
            v(format!(
                "a bucket has held > on_hand (available {})",
                r.min_bucket_available
            ));
        }
    }
    out
}

/// The unit-claim rule: the units pointing at a claim are what its ledger says.
pub fn claim_violation(r: &ClaimAuditRow) -> Option<AuditViolation> {
    if r.ledger_allocated == r.units_allocated && r.ledger_held == r.units_held {
        return None;
    }
    Some(AuditViolation {
        tenant: r.tenant.clone(),
        sku: r.sku.clone(),
        object: None,
        problem: format!(
            "claim {}: ledger says {} allocated and {} held, units say {} allocated and {} held",
            r.claim, r.ledger_allocated, r.ledger_held, r.units_allocated, r.units_held
        ),
    })
}

/// The job rules (see the module docs); every broken one, in words.
pub fn job_problems(r: &JobAuditRow) -> Vec<String> {
    let mut p = Vec::new();
    let Some(state) = r.state else {
        return vec!["unknown state".into()];
    };
    let finished = matches!(state, JobState::Completed | JobState::Discarded | JobState::Cancelled);
    if finished != r.finalized {
        p.push(format!(
            "{} but finalized_at is {}",
            state.as_str(),
            if r.finalized { "set" } else { "empty" }
        ));
    }
    if (state == JobState::Running) != r.leased {
        p.push(format!(
            "{} but lease_expires_at is {}",
            state.as_str(),
            if r.leased { "set" } else { "empty" }
        ));
    }
    if r.attempt < 0 || r.attempt > r.max_attempts {
        p.push(format!("attempt {} outside 0..={}", r.attempt, r.max_attempts));
    }
    let mut seen = std::collections::BTreeSet::new();
    for &a in &r.error_attempts {
        if !seen.insert(a) {
            p.push(format!("attempt {a} failed twice"));
        } else if a < 1 || a > r.attempt {
            p.push(format!("a failure recorded for attempt {a}, which was not made"));
        }
    }
    if state == JobState::Completed && seen.contains(&r.attempt) {
        p.push(format!("attempt {} both failed and completed", r.attempt));
    }
    p
}

/// Builds one report from what a backend streams out of one snapshot.
#[derive(Debug, Default)]
pub struct Auditor {
    report: AuditReport,
}

impl Auditor {
    /// An empty audit.
    pub fn new() -> Self {
        Self::default()
    }

    /// Judge every SKU.
    pub fn skus(&mut self, rows: &[SkuAuditRow]) {
        self.report.skus_checked += rows.len() as u64;
        self.report.ledger_entries += rows.iter().map(|r| r.ledger_entries.max(0) as u64).sum::<u64>();
        self.report.violations.extend(sku_violations(rows));
    }

    /// Judge one (SKU, location).
    pub fn location(&mut self, row: &LocationAuditRow) {
        self.report.violations.extend(location_violation(row));
    }

    /// Judge one quantity state of a (SKU, location).
    pub fn state(&mut self, row: &StateAuditRow) {
        self.report.violations.extend(state_violation(row));
    }

    /// Judge one unit claim.
    pub fn claim(&mut self, row: &ClaimAuditRow) {
        self.report.violations.extend(claim_violation(row));
    }

    /// Judge one allocation's line (see [`crate::audit::books`]).
    pub fn allocation(&mut self, row: &crate::audit::books::AllocationAuditRow) {
        self.report.allocations_checked += 1;
        self.report
            .violations
            .extend(crate::audit::books::allocation_violations(row));
    }

    /// Judge one hold's line (see [`crate::audit::books`]).
    pub fn hold(&mut self, row: &crate::audit::books::HoldAuditRow) {
        self.report.holds_checked += 1;
        self.report.violations.extend(crate::audit::books::hold_violations(row));
    }

    /// Judge one booking of a hold (see [`crate::audit::books`]).
    pub fn hold_booking(&mut self, row: &crate::audit::books::HoldBookingAuditRow) {
        self.report
            .violations
            .extend(crate::audit::books::hold_booking_violation(row));
    }

    /// Judge one transfer (see [`crate::audit::books`]).
    pub fn transfer(&mut self, row: &crate::audit::books::TransferAuditRow) {
        self.report.transfers_checked += 1;
        self.report
            .violations
            .extend(crate::audit::books::transfer_violation(row));
    }

    /// Judge one job.
    pub fn job(&mut self, row: &JobAuditRow) {
        self.report.jobs_checked += 1;
        for problem in job_problems(row) {
            self.report.job_violations.push(JobViolation {
                tenant: row.tenant.clone(),
                id: row.id,
                queue: row.queue.clone(),
                problem,
            });
        }
    }

    /// Judge the slots of every resource with slots and of every pool.
    pub fn capacity(&mut self, input: &slots::CapacityAuditInput) {
        let (found, checked) = slots::overbooked(input);
        self.report.slots_checked += checked;
        self.report.slot_overbookings.extend(found);
    }

    /// Add the overlapping bookings found (a backend reads at most one more than
    /// [`MAX_LISTED_OVERLAPS`], so a cut list is said to be cut).
    pub fn overlaps(&mut self, mut overlaps: Vec<crate::booking::BookingOverlap>) {
        if overlaps.len() > MAX_LISTED_OVERLAPS {
            overlaps.truncate(MAX_LISTED_OVERLAPS);
            self.report.booking_overlaps_truncated = true;
        }
        self.report.booking_overlaps.extend(overlaps);
    }

    /// The report.
    pub fn finish(self) -> AuditReport {
        self.report
    }
}

/// The `attempt` of every entry of a job's `errors` array (entries without one count as 0,
/// which the rules report).
pub fn error_attempts(errors: &serde_json::Value) -> Vec<i64> {
    errors
        .as_array()
        .map(|a| a.iter().map(|e| e["attempt"].as_i64().unwrap_or(0)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a broken rule must say, and how to break a good row.
    type Break<R> = (&'static str, fn(&mut R));

    fn sku_ok() -> SkuAuditRow {
        SkuAuditRow {
            tenant: "default".into(),
            sku: "A".into(),
            on_hand: 5,
            held: 1,
            min_bucket_available: 4,
            min_bucket_held: 1,
            ledger_delta: 5,
            ledger_held_delta: 1,
            ledger_entries: 2,
            active_hold_quantity: 1,
        }
    }

    #[test]
    fn each_sku_rule_flags_alone() {
        assert!(sku_violations(&[sku_ok()]).is_empty());
        let breaks: [Break<SkuAuditRow>; 5] = [
            ("ledger sum", |r| r.on_hand = 6),
            ("ledger held sum", |r| r.ledger_held_delta = 2),
            ("active holds", |r| r.active_hold_quantity = 0),
            ("negative held", |r| r.min_bucket_held = -1),
            ("held > on_hand", |r| r.min_bucket_available = -1),
        ];
        for (want, f) in breaks {
            let mut r = sku_ok();
            f(&mut r);
            let v = sku_violations(&[r]);
            assert_eq!(v.len(), 1, "{want}: {v:?}");
            assert!(v[0].problem.contains(want), "{want}: {}", v[0].problem);
        }
    }

    #[test]
    fn a_unit_in_two_claims_flags_both() {
        let ok = ClaimAuditRow {
            tenant: "default".into(),
            sku: "U".into(),
            claim: "A".into(),
            ledger_allocated: 2,
            ledger_held: 0,
            units_allocated: 2,
            units_held: 0,
        };
        assert_eq!(claim_violation(&ok), None);
        let short = ClaimAuditRow {
            units_allocated: 1,
            ..ok.clone()
        };
        let over = ClaimAuditRow {
            claim: "B".into(),
            units_allocated: 3,
            ..ok.clone()
        };
        assert!(claim_violation(&short).unwrap().problem.contains("claim A"));
        assert!(claim_violation(&over).unwrap().problem.contains("claim B"));
        let held = ClaimAuditRow {
            ledger_allocated: 0,
            ledger_held: 2,
            units_allocated: 0,
            units_held: 1,
            ..ok
        };
        assert!(claim_violation(&held).is_some());
    }

    fn job_ok() -> JobAuditRow {
        JobAuditRow {
            tenant: "default".into(),
            id: 1,
            queue: "q".into(),
            state: Some(JobState::Completed),
            attempt: 2,
            max_attempts: 3,
            leased: false,
            finalized: true,
            error_attempts: vec![1],
        }
    }

    #[test]
    fn each_job_rule_flags_alone() {
        assert!(job_problems(&job_ok()).is_empty());
        let running = JobAuditRow {
            state: Some(JobState::Running),
            leased: true,
            finalized: false,
            ..job_ok()
        };
        assert!(job_problems(&running).is_empty());
        let breaks: [Break<JobAuditRow>; 7] = [
            ("finalized_at is empty", |r| r.finalized = false),
            ("lease_expires_at is set", |r| r.leased = true),
            ("outside 0..=3", |r| r.attempt = 4),
            ("attempt 1 failed twice", |r| r.error_attempts = vec![1, 1]),
            ("not made", |r| r.error_attempts = vec![1, 3]),
            ("both failed and completed", |r| r.error_attempts = vec![1, 2]),
            ("unknown state", |r| r.state = None),
        ];
        for (want, f) in breaks {
            let mut r = job_ok();
            f(&mut r);
            let p = job_problems(&r);
            assert_eq!(p.len(), 1, "{want}: {p:?}");
            assert!(p[0].contains(want), "{want}: {p:?}");
        }
    }

    #[test]
    fn auditor_counts_and_collects() {
        let mut a = Auditor::new();
        a.skus(&[sku_ok(), SkuAuditRow { on_hand: 9, ..sku_ok() }]);
        a.job(&job_ok());
        a.job(&JobAuditRow {
            finalized: false,
            ..job_ok()
        });
        let r = a.finish();
        assert_eq!((r.skus_checked, r.ledger_entries, r.jobs_checked), (2, 4, 2));
        assert_eq!((r.violations.len(), r.job_violations.len()), (1, 1));
        assert!(!r.is_clean());
        assert_eq!(
            error_attempts(&serde_json::json!([{"attempt": 1}, {"x": 1}])),
            vec![1, 0]
        );
    }

    #[test]
    fn a_cut_overlap_list_says_so() {
        let pair = |i: usize| crate::booking::BookingOverlap {
            tenant: "default".into(),
            resource: "R".into(),
            first: format!("a{i}"),
            second: format!("b{i}"),
        };
        let mut a = Auditor::new();
        a.overlaps((0..MAX_LISTED_OVERLAPS).map(pair).collect());
        assert!(!a.finish().booking_overlaps_truncated);
        let mut a = Auditor::new();
        a.overlaps((0..=MAX_LISTED_OVERLAPS).map(pair).collect());
        let r = a.finish();
        assert!(r.booking_overlaps_truncated);
        assert_eq!(r.booking_overlaps.len(), MAX_LISTED_OVERLAPS);
    }
}
