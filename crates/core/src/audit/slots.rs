//! The capacity rule, from the bookings themselves: no slot of a resource with slots, and
//! no slot of a pool, holds more blocking bookings (by quantity) than its capacity — unless
//! its capacity was lowered below what it held (`lowered_at`: a put that lowered the
//! capacity, changed the slots or joined a pool; a slot capacity set below what it was), and
//! no booking was made or moved into the slot since (a stop-sell leaves what was sold
//! standing; a booking taken after it must fit). Every blocking booking of a put resource
//! counts, whether or not it was made by the capacity path.
//! Pure: the backends read every put resource, pool, slot capacity and blocking booking of a
//! resource with slots in the audit's one snapshot; the rule judges here.

use crate::booking::capacity::{Pool, Resource};
use crate::booking::slots::SlotGrid;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A slot over its capacity (the audit's finding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SlotOverbooked {
    /// The tenant.
    pub tenant: String,
    /// The resource whose slot it is (absent for a pool's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// The pool whose slot it is (absent for a resource's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// The slot's start.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub slot_start: DateTime<Utc>,
    /// Its capacity.
    pub capacity: i64,
    /// The quantity its blocking bookings take.
    pub booked: i64,
}

/// One blocking booking of a resource with slots, as the audit reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotBookingRow {
    /// The tenant.
    pub tenant: String,
    /// The resource.
    pub resource: String,
    /// Start, inclusive.
    pub start: DateTime<Utc>,
    /// End, exclusive.
    pub end: DateTime<Utc>,
    /// Quantity.
    pub quantity: i64,
    /// When it was made or last moved.
    pub counted_at: DateTime<Utc>,
}

/// A slot capacity set: `(tenant, resource, slot start, capacity, changed at)`.
pub type SlotCapacityRow = (String, String, DateTime<Utc>, u32, DateTime<Utc>);

/// What the capacity rule reads, for all tenants.
#[derive(Debug, Clone, Default)]
pub struct CapacityAuditInput {
    /// `(tenant, resource)` of every put resource with slots.
    pub resources: Vec<(String, Resource)>,
    /// `(tenant, pool, members)` of every pool.
    pub pools: Vec<(String, Pool, Vec<String>)>,
    /// `(tenant, resource, slot start, capacity, changed at)` of every slot capacity set.
    pub overrides: Vec<SlotCapacityRow>,
    /// Every blocking booking of a resource with slots.
    pub bookings: Vec<SlotBookingRow>,
}

/// Per slot start: the quantity booked and the latest instant a booking in it was counted.
type Fill = BTreeMap<DateTime<Utc>, (i64, DateTime<Utc>)>;

/// The most slots of one booking the audit counts (a year of one-minute slots): a booking
/// longer than that — one put there behind allot's back, or one whose resource's slots were
/// made shorter since — is counted on its first ones.
pub const MAX_AUDITED_SLOTS: usize = 530_000;

/// Add `b` to every slot of `grid` it touches (at most [`MAX_AUDITED_SLOTS`]).
fn fill(into: &mut Fill, grid: &SlotGrid, b: &SlotBookingRow) {
    let (slots, _) = grid.first_slots(b.start, b.end, MAX_AUDITED_SLOTS);
    for s in slots {
        let e = into.entry(s.start).or_insert((0, b.counted_at));
        e.0 += b.quantity;
        e.1 = e.1.max(b.counted_at);
    }
}

/// Every slot over its capacity. `slots_checked` counts the slots that hold a booking.
pub fn overbooked(input: &CapacityAuditInput) -> (Vec<SlotOverbooked>, u64) {
    let mut out = Vec::new();
    let mut checked = 0;
    for (tenant, r) in &input.resources {
        let Some(grid) = r.grid() else { continue };
        let mut f = Fill::new();
        for b in input
            .bookings
            .iter()
            .filter(|b| &b.tenant == tenant && b.resource == r.resource)
        {
            fill(&mut f, &grid, b);
        }
        for (start, (booked, last)) in f {
            checked += 1;
            let set = input
                .overrides
                .iter()
                .find(|o| &o.0 == tenant && o.1 == r.resource && o.2 == start);
            let lowered = r.lowered_at.unwrap_or(DateTime::<Utc>::MIN_UTC);
            let (capacity, changed) = match set {
                Some(o) => (i64::from(o.3), o.4.max(lowered)),
                None => (i64::from(r.capacity), lowered),
            };
            if booked > capacity && last > changed {
                out.push(SlotOverbooked {
                    tenant: tenant.clone(),
                    resource: Some(r.resource.clone()),
                    pool: None,
                    slot_start: start,
                    capacity,
                    booked,
                });
            }
        }
    }
    for (tenant, p, members) in &input.pools {
        // Joining a pool is a change of its capacity for the members' earlier bookings.
        let joined = input
            .resources
            .iter()
            .filter(|(t, r)| t == tenant && members.contains(&r.resource))
            .filter_map(|(_, r)| r.lowered_at)
            .fold(p.lowered_at.unwrap_or(DateTime::<Utc>::MIN_UTC), DateTime::max);
        let mut f = Fill::new();
        for b in input
            .bookings
            .iter()
            .filter(|b| &b.tenant == tenant && members.contains(&b.resource))
        {
            fill(&mut f, &p.grid(), b);
        }
        for (start, (booked, last)) in f {
            checked += 1;
            if booked > i64::from(p.capacity) && last > joined {
                out.push(SlotOverbooked {
                    tenant: tenant.clone(),
                    resource: None,
                    pool: Some(p.pool.clone()),
                    slot_start: start,
                    capacity: i64::from(p.capacity),
                    booked,
                });
            }
        }
    }
    (out, checked)
}
