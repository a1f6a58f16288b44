//! Capacity in the model: resources put with a capacity per slot (UTC slots of whole hours:
//! a slot of `t` starts at `t` rounded down to a multiple of its length since the epoch),
//! pools several resources count against, per-slot capacities, and the rules the simulation
//! generates (a closure, stay length in slots, lead time, horizon). A booking is refused by
//! its first rule (`422 rule_violated`), else by its first full slot — the resource's in time
//! order, then each pool's by pool name (`409 capacity_exceeded`); explain lists every reason
//! in that order. A resource never put is capacity 1 without slots: two of its bookings never
//! overlap (`bookings.rs`). Holds count while live, as everywhere.

use super::{Done, Model};
use allot_core::booking::reason::Reason;
use allot_core::error::Rule;
use allot_core::AllotError;
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// A resource as put.
#[derive(Debug, Clone, Default)]
pub(super) struct Resource {
    pub(super) capacity: i64,
    /// Slot length, µs (`None`: capacity 1, no slots).
    pub(super) slot_us: Option<i64>,
    pub(super) pools: Vec<String>,
    pub(super) min_slots: Option<u32>,
    pub(super) max_slots: Option<u32>,
    /// A closed `[from, to)`, µs.
    pub(super) closed: Option<(i64, i64)>,
    pub(super) lead_time_ms: Option<i64>,
    pub(super) horizon_ms: Option<i64>,
}

/// A pool: capacity per slot of `slot_us`.
#[derive(Debug, Clone)]
pub(super) struct Pool {
    pub(super) capacity: i64,
    pub(super) slot_us: i64,
}

fn at(us: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(us).unwrap_or_default()
}

/// The slots of length `slot_us` that `[s, e)` touches, as `(start, end)`.
pub(super) fn slots(slot_us: i64, (s, e): (i64, i64)) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let mut start = s.div_euclid(slot_us) * slot_us;
    while start < e {
        out.push((start, start + slot_us));
        start += slot_us;
    }
    out
}

/// A booking asked of the model: range (µs), quantity, and a booking not to count.
pub(super) struct Asked<'a> {
    pub(super) range: (i64, i64),
    pub(super) quantity: i64,
    pub(super) ignore: Option<&'a str>,
}

impl Model {
    /// `resource` as put, or the plain one.
    pub(super) fn resource_or_plain(&self, resource: &str) -> Resource {
        self.resources.get(resource).cloned().unwrap_or(Resource {
            capacity: 1,
            ..Resource::default()
        })
    }

    /// `(used, held)` of `[s, e)` by the blocking bookings of `members`, less `ignore`.
    fn taken(&self, members: &[&str], (s, e): (i64, i64), ignore: Option<&str>) -> (i64, i64) {
        let mut out = (0, 0);
        for (id, b) in &self.bookings {
            let status = self.effective(b);
            if Some(id.as_str()) == ignore || !status.blocks() || !members.contains(&b.resource.as_str()) {
                continue;
            }
            if b.start_us < e && s < b.end_us {
                if status == allot_core::BookingStatus::Held {
                    out.1 += b.quantity;
                } else {
                    out.0 += b.quantity;
                }
            }
        }
        out
    }

    fn slot_capacity(&self, resource: &str, r: &Resource, start: i64) -> i64 {
        *self
            .slot_caps
            .get(&(resource.to_string(), start))
            .unwrap_or(&r.capacity)
    }

    fn members(&self, pool: &str) -> Vec<&str> {
        self.resources
            .iter()
            .filter(|(_, r)| r.pools.iter().any(|p| p == pool))
            .map(|(n, _)| n.as_str())
            .collect()
    }

    fn rule_reasons(&self, r: &Resource, a: &Asked<'_>) -> Vec<Reason> {
        let (s, e) = a.range;
        let mut out = Vec::new();
        if let Some((from, to)) = r.closed.filter(|(f, t)| *f < e && s < *t) {
            out.push(Reason::Closed {
                from: at(from),
                to: at(to),
            });
        }
        if let Some(slot_us) = r.slot_us {
            let asked = slots(slot_us, a.range).len() as u32;
            if let Some(needed) = r.min_slots.filter(|m| asked < *m) {
                out.push(Reason::MinSlots { needed, asked });
            }
            if let Some(allowed) = r.max_slots.filter(|m| asked > *m) {
                out.push(Reason::MaxSlots { allowed, asked });
            }
        }
        let starts_in_ms = (s - self.now_us()) / 1000;
        if let Some(lead) = r.lead_time_ms.filter(|l| starts_in_ms < *l) {
            out.push(Reason::LeadTime {
                lead_time_ms: lead as u64,
                starts_in_ms,
            });
        }
        if let Some(h) = r.horizon_ms.filter(|h| starts_in_ms > *h) {
            out.push(Reason::Horizon {
                horizon_ms: h as u64,
                starts_in_ms,
            });
        }
        out
    }

    /// Every reason `resource` refuses `a`, in the API's order.
    pub(super) fn reasons(&self, resource: &str, a: &Asked<'_>) -> Vec<Reason> {
        let r = self.resource_or_plain(resource);
        let mut out = self.rule_reasons(&r, a);
        match r.slot_us {
            None => {
                let mut overlaps: Vec<(i64, &String)> = self
                    .bookings
                    .iter()
                    .filter(|(id, b)| Some(id.as_str()) != a.ignore && b.resource == resource)
                    .filter(|(_, b)| self.effective(b).blocks() && b.start_us < a.range.1 && a.range.0 < b.end_us)
                    .map(|(id, b)| (b.start_us, id))
                    .collect();
                overlaps.sort();
                out.extend(
                    overlaps
                        .into_iter()
                        .map(|(_, id)| Reason::Overlap { booking_id: id.clone() }),
                );
            }
            Some(slot_us) => {
                for slot in slots(slot_us, a.range) {
                    let (used, held) = self.taken(&[resource], slot, a.ignore);
                    let free = (self.slot_capacity(resource, &r, slot.0) - used - held).max(0);
                    if free < a.quantity {
                        out.push(capacity(slot.0, free, a.quantity, None));
                    }
                }
            }
        }
        for name in &r.pools {
            let Some(pool) = self.pools.get(name) else { continue };
            let members = self.members(name);
            for slot in slots(pool.slot_us, a.range) {
                let (used, held) = self.taken(&members, slot, a.ignore);
                let free = (pool.capacity - used - held).max(0);
                if free < a.quantity {
                    out.push(capacity(slot.0, free, a.quantity, Some(name.clone())));
                }
            }
        }
        out
    }

    /// The slots of `resource` in `[s, e)` as availability lists them: `[start, end,
    /// capacity, used, held, free]`, free also bounded by each pool.
    pub(super) fn slot_view(&self, resource: &str, (s, e): (i64, i64)) -> Value {
        let r = self.resource_or_plain(resource);
        let Some(slot_us) = r.slot_us else { return Value::Null };
        let mut out = Vec::new();
        for slot in slots(slot_us, (s, e)) {
            let (used, held) = self.taken(&[resource], slot, None);
            let capacity = self.slot_capacity(resource, &r, slot.0);
            let mut free = (capacity - used - held).max(0);
            for name in &r.pools {
                let Some(pool) = self.pools.get(name) else { continue };
                let members = self.members(name);
                for ps in slots(pool.slot_us, slot) {
                    let (u, h) = self.taken(&members, ps, None);
                    free = free.min((pool.capacity - u - h).max(0));
                }
            }
            out.push(json!([slot.0, slot.1, capacity, used, held, free]));
        }
        Value::Array(out)
    }

    /// `PUT /v1/resources/{resource}`: every pool named must have been put.
    pub(super) fn put_resource(&mut self, resource: &str, r: Resource) -> Result<Done, AllotError> {
        if let Some(p) = r.pools.iter().find(|p| !self.pools.contains_key(*p)) {
            return Err(AllotError::not_found("pool", p.clone()));
        }
        let view = json!({"capacity": r.capacity, "slot_us": r.slot_us, "pools": r.pools});
        self.resources.insert(resource.to_string(), r);
        Ok((200, view, None))
    }

    /// `PUT /v1/pools/{pool}`.
    pub(super) fn put_pool(&mut self, pool: &str, p: Pool) -> Result<Done, AllotError> {
        let view = json!({"capacity": p.capacity, "slot_us": p.slot_us});
        self.pools.insert(pool.to_string(), p);
        Ok((200, view, None))
    }

    /// `PUT /v1/resources/{resource}/slots`: every slot starting in `[s, e)` gets `capacity`;
    /// answered with those slots as availability lists them.
    pub(super) fn put_slots(&mut self, resource: &str, (s, e): (i64, i64), capacity: i64) -> Result<Done, AllotError> {
        let r = self
            .resources
            .get(resource)
            .cloned()
            .ok_or_else(|| AllotError::not_found("resource", resource))?;
        let slot_us = r
            .slot_us
            .ok_or_else(|| AllotError::breaks(Rule::NeedsSlots, format!("resource `{resource}` has no slot_ms")))?;
        let starts: Vec<i64> = slots(slot_us, (s, e))
            .into_iter()
            .map(|x| x.0)
            .filter(|x| *x >= s)
            .collect();
        for x in &starts {
            self.slot_caps.insert((resource.to_string(), *x), capacity);
        }
        let view = match (starts.first(), starts.last()) {
            (Some(f), Some(l)) => self.slot_view(resource, (*f, l + slot_us)),
            _ => json!([]),
        };
        Ok((200, json!({ "slots": view }), None))
    }

    /// `GET /v1/resources/{resource}/explain`.
    pub(super) fn explain(&self, resource: &str, range: (i64, i64), quantity: i64) -> Result<Done, AllotError> {
        check_quantity(&self.resource_or_plain(resource), quantity)?;
        let reasons = self.reasons(
            resource,
            &Asked {
                range,
                quantity,
                ignore: None,
            },
        );
        let views: Vec<Value> = reasons.iter().map(reason_view).collect();
        Ok((200, json!({"bookable": views.is_empty(), "reasons": views}), None))
    }

    /// Decide a booking of `resource`: `Ok` when nothing refuses it.
    pub(super) fn decide(&self, resource: &str, a: &Asked<'_>) -> Result<(), AllotError> {
        check_quantity(&self.resource_or_plain(resource), a.quantity)?;
        let reasons = self.reasons(resource, a);
        let first_rule = reasons
            .iter()
            .find(|r| !matches!(r, Reason::Capacity { .. } | Reason::Overlap { .. }));
        match first_rule.or(reasons.first()) {
            None => Ok(()),
            Some(Reason::Overlap { .. }) => Err(AllotError::BookingOverlap {
                conflicting_booking_id: None,
            }),
            Some(r @ Reason::Capacity { .. }) => Err(AllotError::CapacityExceeded(Box::new(r.clone()))),
            Some(r) => Err(AllotError::RuleViolated(Box::new(r.clone()))),
        }
    }
}

fn capacity(slot_us: i64, free: i64, requested: i64, pool: Option<String>) -> Reason {
    Reason::Capacity {
        slot_start: at(slot_us),
        free,
        requested,
        pool,
    }
}

/// A quantity other than 1 needs a resource with slots.
fn check_quantity(r: &Resource, quantity: i64) -> Result<(), AllotError> {
    if r.slot_us.is_none() && quantity != 1 {
        return Err(AllotError::breaks(
            Rule::NeedsSlots,
            "quantity: a resource without slots takes quantity 1",
        ));
    }
    Ok(())
}

/// A reason as the simulation compares it: its rule and figures, instants in µs, the id of a
/// booking in the way left out.
pub fn reason_view(r: &Reason) -> Value {
    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
    normalise_reason(&mut v);
    v
}

/// A reason of an answer as [`reason_view`] writes one.
pub fn normalise_reason(v: &mut Value) {
    if let Some(o) = v.as_object_mut() {
        o.remove("booking_id");
        for k in ["slot_start", "from", "to"] {
            if let Some(t) = o.get(k).and_then(Value::as_str) {
                let us = chrono::DateTime::parse_from_rfc3339(t)
                    .map(|t| t.timestamp_micros())
                    .ok();
                o.insert(k.to_string(), json!(us));
            }
        }
    }
}
