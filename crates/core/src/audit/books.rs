//! The audit's rules per object: every allocation, hold and transfer is proved against the
//! ledger entries that point at it (`ledger.ref`) and, for allocations, its return records —
//! so a ledger entry that gives back more than was taken is found even when it was written
//! together with the stock it gives back (the per-SKU rule, on_hand = ledger sum, cannot see
//! it). Pure: the backends read the rows in the audit's one snapshot, the rules judge here.
//!
//! Rules, per (allocation, SKU):
//! - what went out when it was made (`-delta` of its `allocation` and `hold_confirmed`
//!   entries) is the line's quantity less what it backordered;
//! - what was filled since (`crate::backorder`) agrees three ways: its `backorder_filled`
//!   entries, the owed line's `filled`, the fills it lists; and filled (by the ledger) + still
//!   owed + dropped by a cancel is what it backordered; only a cancelled allocation dropped
//!   any, and a cancelled one owes nothing;
//! - what came back (`allocation_cancelled` + `returned` entries + damaged returns) is
//!   `>= 0` and at most what went out (fills included);
//! - its `returned` entries add up to its sellable return records;
//! - a cancelled allocation has given back exactly what was left; one that is not has no
//!   `allocation_cancelled` entry;
//! - a `returned` kept in the stored line (written before it was derived) agrees with the
//!   return records.
//!
//! Per (hold, SKU), from the `hold`, `hold_confirmed`, `hold_released` and `hold_expired`
//! entries: a confirm takes from on_hand exactly what it stops holding; what was held is what
//! was confirmed plus what was released plus, while `held`, what its lines still hold; a
//! `confirmed` hold's lines are what was confirmed; a released or expired hold confirmed
//! nothing and gave everything back; a `held` hold has neither.
//!
//! Per booking of a hold (a booking line): the hold exists, and the booking stands as the hold
//! does — `held` (or `expired`, its expiry being the hold's) while the hold is held, and
//! `confirmed`, `released` or `expired` once the hold is.
//!
//! Per transfer: exactly two entries, of one SKU, at two locations, that cancel out.

use crate::audit::violation::AuditViolation;
pub use crate::audit::violation::{AuditObject, AuditObjectKind};
use crate::hold::HoldStatus;
use crate::model::AllocationStatus;

/// One (allocation, SKU) as the audit reads it: what the allocation row says and what the
/// ledger entries and return records pointing at it add up to. A side that has no row reads
/// as zero (an entry pointing at an allocation that does not exist has `status: None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllocationAuditRow {
    /// The tenant.
    pub tenant: String,
    /// The allocation's id.
    pub id: String,
    /// The SKU.
    pub sku: String,
    /// The allocation's status (`None`: no such allocation, or one of unknown status).
    pub status: Option<AllocationStatus>,
    /// The line's quantity, as the allocation row says.
    pub quantity: i64,
    /// The `returned` kept in the stored line (0 when none is kept).
    pub stored_returned: i64,
    /// `-sum(delta)` of its `allocation` and `hold_confirmed` entries.
    pub out: i64,
    /// `sum(delta)` of its `allocation_cancelled` entries.
    pub cancelled_back: i64,
    /// `sum(delta)` of its `returned` entries.
    pub returned_back: i64,
    /// Sum of its sellable return records.
    pub sellable: i64,
    /// Sum of its damaged return records.
    pub damaged: i64,
    /// What its owed line backordered (0: it owed nothing).
    pub backordered: i64,
    /// The owed line's `filled`.
    pub filled: i64,
    /// What the owed line's fills list adds up to.
    pub fills_listed: i64,
    /// `-sum(delta)` of its `backorder_filled` entries.
    pub fill_entries: i64,
    /// What a cancel dropped of the owed line.
    pub dropped: i64,
    /// What the owed line still owes (`backordered - filled - dropped`, as stored).
    pub owed: i64,
}

/// One (hold, SKU) as the audit reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HoldAuditRow {
    /// The tenant.
    pub tenant: String,
    /// The hold's id.
    pub id: String,
    /// The SKU.
    pub sku: String,
    /// The stored status (`None`: no such hold, or one of unknown status).
    pub status: Option<HoldStatus>,
    /// What its lines (`hold_lines`) hold of the SKU.
    pub lines: i64,
    /// `sum(held_delta)` of its `hold` entries.
    pub held: i64,
    /// `-sum(delta)` of its `hold_confirmed` entries.
    pub confirmed: i64,
    /// `-sum(held_delta)` of its `hold_confirmed` entries.
    pub confirmed_held: i64,
    /// `-sum(held_delta)` of its `hold_released` and `hold_expired` entries.
    pub released: i64,
}

/// One transfer as its ledger entries tell it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferAuditRow {
    /// The tenant.
    pub tenant: String,
    /// The transfer's id.
    pub id: String,
    /// Its SKU (the smallest, if its entries name several).
    pub sku: String,
    /// How many entries point at it.
    pub entries: i64,
    /// How many SKUs they name.
    pub skus: i64,
    /// How many locations they name.
    pub locations: i64,
    /// `sum(delta)` of its entries.
    pub delta: i64,
    /// `sum(held_delta)` of its entries.
    pub held_delta: i64,
}

fn violation(tenant: &str, sku: &str, kind: AuditObjectKind, id: &str, problem: String) -> AuditViolation {
    AuditViolation {
        tenant: tenant.to_string(),
        sku: sku.to_string(),
        object: Some(AuditObject {
            kind,
            id: id.to_string(),
        }),
        problem,
    }
}

/// The allocation rules (module docs) over one row; every broken one.
pub fn allocation_violations(r: &AllocationAuditRow) -> Vec<AuditViolation> {
    let mut p = Vec::new();
    let back = r.cancelled_back + r.returned_back + r.damaged;
    let Some(status) = r.status else {
        p.push(format!(
            "ledger entries point at allocation {}, which does not exist",
            r.id
        ));
        return as_violations(r, p);
    };
    if r.out != r.quantity - r.backordered {
        p.push(format!(
            "its line says {} ({} backordered) but its entries took {}",
            r.quantity, r.backordered, r.out
        ));
    }
    backorder_problems(r, status, &mut p);
    let out = r.out + r.fill_entries;
    if r.cancelled_back < 0 || r.returned_back < 0 || r.sellable < 0 || r.damaged < 0 {
        p.push(format!(
            "something came back negative (cancelled {}, returned {}, sellable {}, damaged {})",
            r.cancelled_back, r.returned_back, r.sellable, r.damaged
        ));
    }
    if back > out {
        p.push(format!("{back} came back of the {out} that went out"));
    }
    if r.returned_back != r.sellable {
        p.push(format!(
            "its returned entries give back {} but its sellable returns say {}",
            r.returned_back, r.sellable
        ));
    }
    match status {
        AllocationStatus::Cancelled if back != out => {
            p.push(format!("cancelled, yet {back} of the {out} that went out came back"))
        }
        AllocationStatus::Allocated | AllocationStatus::Held if r.cancelled_back != 0 => {
            p.push(format!("not cancelled, yet a cancel gave back {}", r.cancelled_back))
        }
        _ => {}
    }
    if r.stored_returned != 0 && r.stored_returned != r.sellable + r.damaged {
        p.push(format!(
            "its stored line says {} came back, its returns {}",
            r.stored_returned,
            r.sellable + r.damaged
        ));
    }
    as_violations(r, p)
}

/// The backorder rules of one (allocation, SKU) (module docs).
fn backorder_problems(r: &AllocationAuditRow, status: AllocationStatus, p: &mut Vec<String>) {
    if r.fill_entries != r.filled || r.fills_listed != r.filled {
        p.push(format!(
            "its fills disagree: ledger {}, owed line {}, listed {}",
            r.fill_entries, r.filled, r.fills_listed
        ));
    }
    if r.fill_entries + r.owed + r.dropped != r.backordered {
        p.push(format!(
            "filled {} + owed {} + dropped {} is not the {} it backordered",
            r.fill_entries, r.owed, r.dropped, r.backordered
        ));
    }
    let cancelled = status == AllocationStatus::Cancelled;
    if (r.dropped > 0 && !cancelled) || (cancelled && r.owed > 0) {
        p.push(format!(
            "{status:?} with {} dropped and {} still owed",
            r.dropped, r.owed
        ));
    }
}

fn as_violations(r: &AllocationAuditRow, problems: Vec<String>) -> Vec<AuditViolation> {
    let kind = AuditObjectKind::Allocation;
    problems
        .into_iter()
        .map(|p| violation(&r.tenant, &r.sku, kind, &r.id, format!("allocation {}: {p}", r.id)))
        .collect()
}

/// The hold rules (module docs) over one row; every broken one.
pub fn hold_violations(r: &HoldAuditRow) -> Vec<AuditViolation> {
    let mut p = Vec::new();
    match r.status {
        None => p.push("ledger entries point at a hold that does not exist".to_string()),
        Some(status) => {
            if r.confirmed != r.confirmed_held {
                p.push(format!(
                    "a confirm took {} from on_hand but stopped holding {}",
                    r.confirmed, r.confirmed_held
                ));
            }
            let still = if status == HoldStatus::Held { r.lines } else { 0 };
            if r.held != r.confirmed_held + r.released + still {
                p.push(format!(
                    "held {}, but confirmed {} + released {} + still held {} differ",
                    r.held, r.confirmed_held, r.released, still
                ));
            }
            let (confirmed, released) = match status {
                HoldStatus::Held => (0, 0),
                HoldStatus::Confirmed => (r.lines, r.released),
                HoldStatus::Released | HoldStatus::Expired => (0, r.held),
            };
            if (r.confirmed_held, r.released) != (confirmed, released) {
                p.push(format!(
                    "{} with lines of {}, yet confirmed {} and released {}",
                    status.as_str(),
                    r.lines,
                    r.confirmed_held,
                    r.released
                ));
            }
        }
    }
    let kind = AuditObjectKind::Hold;
    p.into_iter()
        .map(|p| violation(&r.tenant, &r.sku, kind, &r.id, format!("hold {}: {p}", r.id)))
        .collect()
}

/// One booking of a hold (a booking line) as the audit reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldBookingAuditRow {
    /// The tenant.
    pub tenant: String,
    /// The hold it names (`bookings.hold_id`).
    pub hold_id: String,
    /// The booking's id.
    pub booking_id: String,
    /// Its resource.
    pub resource: String,
    /// Its stored status (`None`: unknown).
    pub booking: Option<crate::booking::BookingStatus>,
    /// The hold's stored status (`None`: no such hold, or one of unknown status).
    pub hold: Option<HoldStatus>,
}

/// The rule of a hold's booking (module docs); the broken one, if any.
pub fn hold_booking_violation(r: &HoldBookingAuditRow) -> Option<AuditViolation> {
    use crate::booking::BookingStatus as B;
    let fits = match (r.hold, r.booking) {
        (None, _) => false,
        (Some(HoldStatus::Held), Some(b)) => matches!(b, B::Held | B::Expired),
        (Some(HoldStatus::Confirmed), Some(b)) => b == B::Confirmed,
        (Some(HoldStatus::Released), Some(b)) => b == B::Released,
        (Some(HoldStatus::Expired), Some(b)) => b == B::Expired,
        (Some(_), None) => false,
    };
    let name = |s: Option<&'static str>| s.unwrap_or("missing");
    (!fits).then(|| {
        let problem = format!(
            "hold {}: its booking {} is {} while the hold is {}",
            r.hold_id,
            r.booking_id,
            name(r.booking.map(|b| b.as_str())),
            name(r.hold.map(|h| h.as_str()))
        );
        violation(&r.tenant, &r.resource, AuditObjectKind::Hold, &r.hold_id, problem)
    })
}

/// The transfer rule (module docs).
pub fn transfer_violation(r: &TransferAuditRow) -> Option<AuditViolation> {
    if r.entries == 2 && r.skus == 1 && r.locations == 2 && r.delta == 0 && r.held_delta == 0 {
        return None;
    }
    let problem = format!(
        "transfer {}: {} entries over {} SKUs and {} locations, adding up to {} on hand and {} held \
         (two entries of one SKU at two locations that cancel out)",
        r.id, r.entries, r.skus, r.locations, r.delta, r.held_delta
    );
    Some(violation(&r.tenant, &r.sku, AuditObjectKind::Transfer, &r.id, problem))
}

#[cfg(test)]
mod tests {
    use super::*;

    type Break<R> = (&'static str, fn(&mut R));

    fn allocation_ok() -> AllocationAuditRow {
        AllocationAuditRow {
            tenant: "default".into(),
            id: "A".into(),
            sku: "S".into(),
            status: Some(AllocationStatus::Allocated),
            quantity: 5,
            out: 5,
            returned_back: 2,
            sellable: 2,
            damaged: 1,
            ..Default::default()
        }
    }

    #[test]
    fn each_allocation_rule_flags_alone() {
        assert!(allocation_violations(&allocation_ok()).is_empty());
        let cancelled = AllocationAuditRow {
            status: Some(AllocationStatus::Cancelled),
            cancelled_back: 2,
            ..allocation_ok()
        };
        assert!(allocation_violations(&cancelled).is_empty());
        let breaks: [Break<AllocationAuditRow>; 7] = [
            ("line says 5 (0 backordered) but its entries took 6", |r| r.out = 6),
            ("came back negative", |r| r.damaged = -1),
            ("came back of the 5", |r| {
                r.returned_back = 5;
                r.sellable = 5
            }),
            ("sellable returns say 2", |r| r.returned_back = 4),
            ("not cancelled, yet", |r| r.cancelled_back = 1),
            ("stored line says 9", |r| r.stored_returned = 9),
            ("does not exist", |r| r.status = None),
        ];
        for (want, f) in breaks {
            let mut r = allocation_ok();
            f(&mut r);
            let v = allocation_violations(&r);
            assert_eq!(v.len(), 1, "{want}: {v:?}");
            assert!(v[0].problem.contains(want), "{want}: {}", v[0].problem);
            assert_eq!(v[0].object.as_ref().map(|o| o.id.as_str()), Some("A"));
        }
        let mut short = cancelled;
        short.cancelled_back = 1;
        assert!(allocation_violations(&short)[0].problem.contains("cancelled, yet 4"));
    }

    /// A line of 5 that took 2, backordered 3, was filled 2 and owes 1.
    fn owing_ok() -> AllocationAuditRow {
        AllocationAuditRow {
            out: 2,
            returned_back: 0,
            sellable: 0,
            damaged: 0,
            backordered: 3,
            filled: 2,
            fills_listed: 2,
            fill_entries: 2,
            owed: 1,
            ..allocation_ok()
        }
    }

    #[test]
    fn each_backorder_rule_flags_alone() {
        assert!(allocation_violations(&owing_ok()).is_empty());
        let cancelled = AllocationAuditRow {
            status: Some(AllocationStatus::Cancelled),
            cancelled_back: 4,
            owed: 0,
            dropped: 1,
            ..owing_ok()
        };
        assert!(allocation_violations(&cancelled).is_empty(), "fills go back too");
        let breaks: [Break<AllocationAuditRow>; 5] = [
            ("its fills disagree: ledger 1", |r| r.fill_entries = 1),
            ("listed 3", |r| r.fills_listed = 3),
            ("is not the 3 it backordered", |r| r.owed = 2),
            ("with 1 dropped", |r| {
                r.owed = 0;
                r.dropped = 1
            }),
            ("(2 backordered) but its entries took 2", |r| r.backordered = 2),
        ];
        for (want, f) in breaks {
            let mut r = owing_ok();
            f(&mut r);
            let v = allocation_violations(&r);
            assert!(v.iter().any(|v| v.problem.contains(want)), "{want}: {v:?}");
        }
    }

    fn hold_ok() -> HoldAuditRow {
        HoldAuditRow {
            tenant: "default".into(),
            id: "H".into(),
            sku: "S".into(),
            status: Some(HoldStatus::Confirmed),
            lines: 2,
            held: 5,
            confirmed: 2,
            confirmed_held: 2,
            released: 3,
        }
    }

    #[test]
    fn each_hold_rule_flags() {
        assert!(hold_violations(&hold_ok()).is_empty());
        let held = HoldAuditRow {
            status: Some(HoldStatus::Held),
            lines: 5,
            confirmed: 0,
            confirmed_held: 0,
            released: 0,
            ..hold_ok()
        };
        assert!(hold_violations(&held).is_empty());
        let expired = HoldAuditRow {
            status: Some(HoldStatus::Expired),
            released: 5,
            ..held.clone()
        };
        assert!(hold_violations(&expired).is_empty());
        let breaks: [Break<HoldAuditRow>; 4] = [
            ("took 4 from on_hand but stopped holding 2", |r| r.confirmed = 4),
            ("held 6", |r| r.held = 6),
            ("released with lines of 2, yet", |r| {
                r.status = Some(HoldStatus::Released)
            }),
            ("does not exist", |r| r.status = None),
        ];
        for (want, f) in breaks {
            let mut r = hold_ok();
            f(&mut r);
            let v = hold_violations(&r);
            assert!(!v.is_empty(), "{want}");
            assert!(v.iter().any(|v| v.problem.contains(want)), "{want}: {v:?}");
            assert!(v
                .iter()
                .all(|v| v.object.as_ref().map(|o| o.kind) == Some(AuditObjectKind::Hold)));
        }
    }

    #[test]
    fn a_transfer_is_two_entries_that_cancel_out() {
        let ok = TransferAuditRow {
            tenant: "default".into(),
            id: "T".into(),
            sku: "S".into(),
            entries: 2,
            skus: 1,
            locations: 2,
            delta: 0,
            held_delta: 0,
        };
        assert_eq!(transfer_violation(&ok), None);
        for broken in [
            TransferAuditRow {
                entries: 3,
                delta: 5,
                ..ok.clone()
            },
            TransferAuditRow {
                locations: 1,
                ..ok.clone()
            },
            TransferAuditRow { skus: 2, ..ok.clone() },
        ] {
            let v = transfer_violation(&broken).unwrap();
            assert!(v.problem.starts_with("transfer T:"), "{}", v.problem);
        }
    }
}

#[cfg(test)]
mod hold_booking_tests {
    use super::*;
    use crate::booking::BookingStatus as B;

    #[test]
    fn a_holds_booking_stands_as_the_hold() {
        let row = |hold, booking| HoldBookingAuditRow {
            tenant: "t".into(),
            hold_id: "h".into(),
            booking_id: "b".into(),
            resource: "r".into(),
            booking: Some(booking),
            hold,
        };
        for (hold, booking) in [
            (HoldStatus::Held, B::Held),
            (HoldStatus::Held, B::Expired),
            (HoldStatus::Confirmed, B::Confirmed),
            (HoldStatus::Released, B::Released),
            (HoldStatus::Expired, B::Expired),
        ] {
            assert_eq!(
                hold_booking_violation(&row(Some(hold), booking)),
                None,
                "{hold:?} {booking:?}"
            );
        }
        for (hold, booking) in [
            (Some(HoldStatus::Confirmed), B::Held),
            (Some(HoldStatus::Released), B::Confirmed),
            (Some(HoldStatus::Expired), B::Held),
            (Some(HoldStatus::Held), B::Cancelled),
            (None, B::Held),
        ] {
            let v = hold_booking_violation(&row(hold, booking)).expect("a violation");
            assert!(v.problem.contains("booking b"), "{}", v.problem);
        }
    }
}
