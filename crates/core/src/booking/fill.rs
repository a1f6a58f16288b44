//! The fill of a resource's own slots and the events its edges make: `resource.sold_out`
//! when a slot's capacity is all taken (used and held), `resource.back_in_stock` when a slot
//! announced sold out has room again. Edge detection is level-triggered against what was
//! announced (each backend keeps the sold-out slots it announced in a table): a writer holding
//! the resource's lock reads the fill, compares it with the announced set, and writes only the
//! differences. So a hold that expires without a writer (expiry is lazy) is announced by the
//! next transaction that looks at its slots (the sweeper's, a booking's, a cancel's), never
//! twice, and a crash between a change and its announcement is caught up by the next one.
//!
//! Only the resource's own capacity counts here (its slot capacities, its bookings); a pool's
//! fill shows in availability's `free`, not in these events. The event `data`:
//! `{"resource","slot_start","slot_end","capacity","used","held"}`.

use crate::booking::capacity::MAX_SLOTS_PER_REQUEST;
use crate::booking::judge::{self, Counted, Picture};
use crate::booking::reason::SlotAvailability;
use crate::event::EventType;
use crate::Booking;
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// Which edge a slot crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillEdge {
    /// Its capacity is all taken (`resource.sold_out`).
    SoldOut,
    /// It was announced sold out and has room again (`resource.back_in_stock`).
    BackInStock,
}

impl FillEdge {
    /// The event type it makes.
    pub fn event_type(self) -> EventType {
        match self {
            FillEdge::SoldOut => EventType::ResourceSoldOut,
            FillEdge::BackInStock => EventType::ResourceBackInStock,
        }
    }
}

/// One slot whose announcement changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FillChange {
    /// The edge.
    pub edge: FillEdge,
    /// The slot's own fill (its `free` ignores pools).
    pub slot: SlotAvailability,
}

impl FillChange {
    /// The event's `data` for `resource` (instants as the feed writes them).
    pub fn data(&self, resource: &str) -> Value {
        json!({
            "resource": resource,
            "slot_start": crate::support::instant::feed_text(&self.slot.start),
            "slot_end": crate::support::instant::feed_text(&self.slot.end),
            "capacity": self.slot.capacity,
            "used": self.slot.used,
            "held": self.slot.held,
        })
    }
}

/// The resource's own fill of each slot lying wholly inside `[from, to)` (a slot the range
/// cuts is left out: the picture may not hold every booking of it). Empty for a resource
/// without slots, or a range of more than [`MAX_SLOTS_PER_REQUEST`] slots (nothing is
/// announced for it here; the next writer on those slots does).
pub fn own_fill(p: &Picture, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<SlotAvailability> {
    let Some(slots) = p.resource.grid().and_then(|g| g.slots(from, to, MAX_SLOTS_PER_REQUEST)) else {
        return Vec::new();
    };
    let me = [p.resource.resource.as_str()];
    slots
        .into_iter()
        .filter(|s| s.start >= from && s.end <= to)
        .map(|s| {
            let capacity = judge::slot_capacity(p, &s);
            let (used, held) = judge::taken(&p.bookings, &me, &s, None);
            SlotAvailability {
                start: s.start,
                end: s.end,
                capacity,
                used,
                held,
                free: (capacity - used - held).max(0),
            }
        })
        .collect()
}

/// The changes of announcement `fill` makes against the slot starts `announced` sold out:
/// a slot with nothing free not yet announced is [`FillEdge::SoldOut`]; an announced one
/// with room is [`FillEdge::BackInStock`]. In slot order.
pub fn changes(fill: &[SlotAvailability], announced: &[DateTime<Utc>]) -> Vec<FillChange> {
    fill.iter()
        .filter_map(|s| {
            let was = announced.contains(&s.start);
            let edge = match (s.free == 0, was) {
                (true, false) => FillEdge::SoldOut,
                (false, true) => FillEdge::BackInStock,
                _ => return None,
            };
            Some(FillChange { edge, slot: s.clone() })
        })
        .collect()
}

/// `p` with `b` counted too (a booking just written in the transaction that read `p`).
pub fn with_booking(p: &mut Picture, b: &Booking, now: DateTime<Utc>) {
    p.bookings.retain(|c| c.id != b.id);
    if b.status.effective(b.expires_at, now).blocks() {
        p.bookings.push(Counted {
            id: b.id.clone(),
            resource: b.resource.clone(),
            start: b.start,
            end: b.end,
            quantity: i64::from(b.quantity),
            held: b.status == crate::BookingStatus::Held,
        });
    }
}

/// The slots `[start, end)` touches on `p`'s resource, from the first's start to the last's
/// end (the range to announce after a change there); `None` without slots, or for more than
/// [`MAX_SLOTS_PER_REQUEST`] slots.
pub fn cover(p: &Picture, start: DateTime<Utc>, end: DateTime<Utc>) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let slots = p.resource.grid()?.slots(start, end, MAX_SLOTS_PER_REQUEST)?;
    Some((slots.first()?.start, slots.last()?.end))
}

/// The slots a booking of `[start, end)` on a resource with slots takes, as the `slots` of
/// its `booking.*` events: `[{"start","end"}]` (instants as the feed writes them); `None`
/// for a resource without slots.
pub fn slots_document(p: &Picture, start: DateTime<Utc>, end: DateTime<Utc>) -> Option<Value> {
    let slots = p.resource.grid()?.slots(start, end, MAX_SLOTS_PER_REQUEST)?;
    Some(Value::Array(
        slots
            .iter()
            .map(|s| {
                json!({
                    "start": crate::support::instant::feed_text(&s.start),
                    "end": crate::support::instant::feed_text(&s.end),
                })
            })
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(d: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, d, 0, 0, 0).unwrap()
    }

    fn slot(d: u32, capacity: i64, taken: i64) -> SlotAvailability {
        SlotAvailability {
            start: at(d),
            end: at(d + 1),
            capacity,
            used: taken,
            held: 0,
            free: (capacity - taken).max(0),
        }
    }

    #[test]
    fn a_full_slot_is_announced_once_and_back_once() {
        let fill = [slot(1, 3, 3), slot(2, 3, 1), slot(3, 0, 0)];
        let first = changes(&fill, &[]);
        assert_eq!(
            first.iter().map(|c| (c.edge, c.slot.start)).collect::<Vec<_>>(),
            vec![(FillEdge::SoldOut, at(1)), (FillEdge::SoldOut, at(3))]
        );
        assert!(changes(&fill, &[at(1), at(3)]).is_empty());
        let later = [slot(1, 3, 2), slot(2, 3, 1), slot(3, 0, 0)];
        let back = changes(&later, &[at(1), at(3)]);
        assert_eq!(back.len(), 1);
        assert_eq!((back[0].edge, back[0].slot.start), (FillEdge::BackInStock, at(1)));
        assert_eq!(back[0].data("r")["slot_start"], "2026-12-01T00:00:00.000000Z");
    }
}
