//! The decision of a booking on a resource that was put (capacity, slots, pools, rules),
//! pure: the backends read a [`Picture`] under the locks of the resource and its pools (or
//! in SQLite's one write transaction), this judges it, and they insert only when it finds no
//! reason. Never a read, a check and an insert without the locks: the picture is exact for
//! as long as they are held. Holds count while live: a held booking past `expires_at` is
//! not in the picture (the backends read blocking bookings at `now`).

use crate::booking::capacity::{Pool, Resource, MAX_SLOTS_PER_REQUEST};
use crate::booking::reason::{Reason, SlotAvailability};
use crate::booking::rules::{self, Asked};
use crate::booking::slots::{Slot, SlotGrid};
use crate::support::error::{AllotError, Result};
use chrono::{DateTime, Duration, Utc};

/// A blocking booking as the judge counts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    /// Its id.
    pub id: String,
    /// Its resource.
    pub resource: String,
    /// Start, inclusive.
    pub start: DateTime<Utc>,
    /// End, exclusive.
    pub end: DateTime<Utc>,
    /// Its quantity.
    pub quantity: i64,
    /// Held (live) rather than confirmed.
    pub held: bool,
}

/// A pool of the resource and the resources in it.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolPicture {
    /// The pool.
    pub pool: Pool,
    /// Every resource that counts against it.
    pub members: Vec<String>,
}

/// What a booking on a put resource is decided on.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The resource.
    pub resource: Resource,
    /// Its pools.
    pub pools: Vec<PoolPicture>,
    /// Its slots' own capacities (slot start, capacity), in the span read.
    pub overrides: Vec<(DateTime<Utc>, u32)>,
    /// The blocking bookings of the resource and of every pool member in the span read.
    pub bookings: Vec<Counted>,
}

/// A booking asked of a picture.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// Start, inclusive.
    pub start: DateTime<Utc>,
    /// End, exclusive.
    pub end: DateTime<Utc>,
    /// Quantity.
    pub quantity: u32,
    /// A booking not to count (a reschedule's own).
    pub ignore: Option<&'a str>,
    /// Now.
    pub now: DateTime<Utc>,
}

fn cut(grid: &SlotGrid, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Vec<Slot>> {
    grid.slots(from, to, MAX_SLOTS_PER_REQUEST).ok_or_else(|| {
        AllotError::invalid(format!(
            "end: the range touches more than {MAX_SLOTS_PER_REQUEST} slots"
        ))
    })
}

/// The range whose bookings a decision on `[start, end)` needs: every slot it touches, of the
/// resource and of each pool, and the resource's buffer on both sides.
pub fn span(
    r: &Resource,
    pools: &[Pool],
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> Result<(DateTime<Utc>, DateTime<Utc>)> {
    let buffer = Duration::milliseconds(r.rules.buffer_ms.unwrap_or(0) as i64);
    let (mut from, mut to) = (start - buffer, end + buffer);
    let grids = r.grid().into_iter().chain(pools.iter().map(Pool::grid));
    for g in grids {
        let s = cut(&g, start, end)?;
        if let (Some(a), Some(b)) = (s.first(), s.last()) {
            from = from.min(a.start);
            to = to.max(b.end);
        }
    }
    Ok((from, to))
}

/// `(used, held)` of `[s.start, s.end)` by the bookings of `members`, less `ignore`.
pub(crate) fn taken(bookings: &[Counted], members: &[&str], s: &Slot, ignore: Option<&str>) -> (i64, i64) {
    let mut out = (0, 0);
    for b in bookings {
        if Some(b.id.as_str()) == ignore || !members.contains(&b.resource.as_str()) {
            continue;
        }
        if b.start < s.end && s.start < b.end {
            if b.held {
                out.1 += b.quantity;
            } else {
                out.0 += b.quantity;
            }
        }
    }
    out
}

/// The capacity of slot `s` of `p`'s resource: its own put, else the resource's.
pub(crate) fn slot_capacity(p: &Picture, s: &Slot) -> i64 {
    p.overrides
        .iter()
        .find(|(at, _)| *at == s.start)
        .map_or(p.resource.capacity, |(_, c)| *c) as i64
}

/// The reasons the resource itself (no pools) refuses `a`.
fn own_reasons(p: &Picture, a: &Ask<'_>, slots: Option<&[Slot]>) -> Vec<Reason> {
    let me = [p.resource.resource.as_str()];
    let mut out = Vec::new();
    match slots {
        None => {
            // By start (then id): the order does not depend on how a backend read them.
            let mut overlaps: Vec<&Counted> = p
                .bookings
                .iter()
                .filter(|b| b.resource == me[0] && Some(b.id.as_str()) != a.ignore)
                .filter(|b| b.start < a.end && a.start < b.end)
                .collect();
            overlaps.sort_by(|x, y| (x.start, &x.id).cmp(&(y.start, &y.id)));
            out.extend(overlaps.into_iter().map(|b| Reason::Overlap {
                booking_id: b.id.clone(),
            }));
        }
        Some(slots) => {
            for s in slots {
                let (used, held) = taken(&p.bookings, &me, s, a.ignore);
                let free = (slot_capacity(p, s) - used - held).max(0);
                if free < a.quantity as i64 {
                    out.push(Reason::Capacity {
                        slot_start: s.start,
                        free,
                        requested: a.quantity as i64,
                        pool: None,
                    });
                }
            }
        }
    }
    out
}

/// Bookings of a capacity-1 resource closer than its buffer to `a` (overlapping ones are
/// the capacity's or the overlap's reason, not the buffer's).
fn buffer_reasons(p: &Picture, a: &Ask<'_>) -> Vec<Reason> {
    let Some(buffer_ms) = p
        .resource
        .rules
        .buffer_ms
        .filter(|b| *b > 0 && p.resource.capacity == 1)
    else {
        return Vec::new();
    };
    let pad = Duration::milliseconds(buffer_ms as i64);
    let mut near: Vec<&Counted> = p
        .bookings
        .iter()
        .filter(|b| b.resource == p.resource.resource && Some(b.id.as_str()) != a.ignore)
        .filter(|b| !(b.start < a.end && a.start < b.end))
        .filter(|b| b.start < a.end + pad && a.start - pad < b.end)
        .collect();
    near.sort_by(|x, y| (x.start, &x.id).cmp(&(y.start, &y.id)));
    near.into_iter()
        .map(|b| Reason::Buffer {
            buffer_ms,
            booking_id: b.id.clone(),
        })
        .collect()
}

/// Every reason `p` refuses `a`: the rules, the resource's slots (or its overlaps), the
/// buffer, then each pool's slots. Empty: book it. `invalid_request` when the range
/// touches more than [`MAX_SLOTS_PER_REQUEST`] slots of one grid.
pub fn judge(p: &Picture, a: &Ask<'_>) -> Result<Vec<Reason>> {
    let slots = p.resource.grid().map(|g| cut(&g, a.start, a.end)).transpose()?;
    let asked = Asked {
        start: a.start,
        end: a.end,
        slots: slots.as_deref(),
        zone: p.resource.zone(),
        now: a.now,
    };
    let mut out = rules::reasons(&p.resource.rules, &asked);
    out.extend(own_reasons(p, a, slots.as_deref()));
    out.extend(buffer_reasons(p, a));
    for pp in &p.pools {
        let members: Vec<&str> = pp.members.iter().map(String::as_str).collect();
        for s in cut(&pp.pool.grid(), a.start, a.end)? {
            let (used, held) = taken(&p.bookings, &members, &s, a.ignore);
            let free = (pp.pool.capacity as i64 - used - held).max(0);
            if free < a.quantity as i64 {
                out.push(Reason::Capacity {
                    slot_start: s.start,
                    free,
                    requested: a.quantity as i64,
                    pool: Some(pp.pool.pool.clone()),
                });
            }
        }
    }
    Ok(out)
}

/// The resource's slots in `[from, to)` with their capacity, use and what is free (bounded
/// by each pool's free in the pool slots a slot overlaps). `invalid_request` for a resource
/// without slots or a window of more than [`MAX_SLOTS_PER_REQUEST`] slots.
pub fn availability(p: &Picture, from: DateTime<Utc>, to: DateTime<Utc>) -> Result<Vec<SlotAvailability>> {
    let grid = p.resource.grid().ok_or_else(|| {
        AllotError::invalid(format!(
            "resource `{}` has no slot_ms: its free ranges are in `free`",
            p.resource.resource
        ))
    })?;
    let me = [p.resource.resource.as_str()];
    let mut out = Vec::new();
    for s in cut(&grid, from, to)? {
        let (used, held) = taken(&p.bookings, &me, &s, None);
        let capacity = slot_capacity(p, &s);
        let mut free = (capacity - used - held).max(0);
        for pp in &p.pools {
            let members: Vec<&str> = pp.members.iter().map(String::as_str).collect();
            for ps in cut(&pp.pool.grid(), s.start, s.end)? {
                let (u, h) = taken(&p.bookings, &members, &ps, None);
                free = free.min((pp.pool.capacity as i64 - u - h).max(0));
            }
        }
        out.push(SlotAvailability {
            start: s.start,
            end: s.end,
            capacity,
            used,
            held,
            free,
        });
    }
    Ok(out)
}

/// The refusal one reason makes: capacity is `409 capacity_exceeded`, an overlap `409
/// booking_overlap`, every rule `422 rule_violated`.
fn refusal_of(r: Reason) -> AllotError {
    match r {
        Reason::Overlap { booking_id } => AllotError::BookingOverlap {
            conflicting_booking_id: Some(booking_id),
        },
        r @ Reason::Capacity { .. } => AllotError::CapacityExceeded(Box::new(r)),
        r => AllotError::RuleViolated(Box::new(r)),
    }
}

/// The refusal of a booking with these reasons (its first rule before any capacity or
/// overlap), if any.
pub fn refusal(reasons: Vec<Reason>) -> Result<()> {
    match reasons
        .into_iter()
        .min_by_key(|r| matches!(r, Reason::Capacity { .. } | Reason::Overlap { .. }))
    {
        None => Ok(()),
        Some(r) => Err(refusal_of(r)),
    }
}

#[cfg(test)]
mod tests;
