//! Capacity in the model: resources put with a capacity per slot of whole hours in a time
//! zone (each local day's slots start at its midnight and follow every slot length, the last
//! ending at the next midnight), pools several resources count against (UTC), per-slot
//! capacities, and the rules the simulation generates (a closure, stay length in slots,
//! closed to arrival or departure on a weekday or date of the zone, lead time, horizon, a
//! buffer around bookings of a capacity-1 resource). A booking is refused by its first rule
//! (`422 rule_violated`), else by its first full slot or overlap of the resource in time
//! order, a booking inside its buffer, then each pool's full slot by pool name (`409`);
//! explain lists every reason in that order. A resource never put is capacity 1 without slots: two of its bookings never
//! overlap (`bookings.rs`). Holds count while live, as everywhere.

use super::{Done, Model};
use allot_core::booking::reason::Reason;
use allot_core::error::Rule;
use allot_core::AllotError;
use chrono::{DateTime, Datelike, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
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
    /// Its time zone (`None`: UTC).
    pub(super) zone: Option<Tz>,
    /// A weekday or date of the zone no booking starts on; one no booking ends on.
    pub(super) closed_to_arrival: Option<Day>,
    pub(super) closed_to_departure: Option<Day>,
    /// The least time between two bookings of a capacity-1 resource, µs.
    pub(super) buffer_us: Option<i64>,
}

/// A day a closed-to rule names.
#[derive(Debug, Clone, Copy)]
pub(super) enum Day {
    Weekday(chrono::Weekday),
    Date(NaiveDate),
}

impl Day {
    /// `mon`..`sun` or `YYYY-MM-DD` (what the generator writes).
    pub(super) fn parse(text: &str) -> Option<Day> {
        NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(Day::Date)
            .ok()
            .or_else(|| text.parse().ok().map(Day::Weekday))
    }

    fn is(self, date: NaiveDate) -> bool {
        match self {
            Day::Weekday(w) => date.weekday() == w,
            Day::Date(d) => d == date,
        }
    }
}

/// A pool: capacity per slot of `slot_us`.
#[derive(Debug, Clone)]
pub(super) struct Pool {
    pub(super) capacity: i64,
    pub(super) slot_us: i64,
}

pub(super) fn at(us: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_micros(us).unwrap_or_default()
}

/// The first instant of local `date` in `zone`, µs (its midnight, or the first whole hour
/// after one the zone skips).
fn midnight(zone: Tz, date: NaiveDate) -> i64 {
    (0..24)
        .find_map(|h| zone.from_local_datetime(&date.and_hms_opt(h, 0, 0)?).earliest())
        .map_or(0, |t| t.timestamp_micros())
}

/// The slots of length `slot_us` in `zone` that `[s, e)` touches, as `(start, end)`: each
/// local day's run from its midnight, the last cut at the next.
pub(super) fn slots(zone: Option<Tz>, slot_us: i64, (s, e): (i64, i64)) -> Vec<(i64, i64)> {
    let zone = zone.unwrap_or(Tz::UTC);
    let mut date = at(s).with_timezone(&zone).date_naive() - chrono::Duration::days(1);
    let mut out = Vec::new();
    loop {
        let (mut start, next) = (midnight(zone, date), midnight(zone, date + chrono::Duration::days(1)));
        while start < next {
            if start >= e {
                return out;
            }
            let end = (start + slot_us).min(next);
            if end > s {
                out.push((start, end));
            }
            start = end;
        }
        date += chrono::Duration::days(1);
    }
}

/// The local date of instant `us` in `zone`.
fn local_date(zone: Option<Tz>, us: i64) -> NaiveDate {
    at(us).with_timezone(&zone.unwrap_or(Tz::UTC)).date_naive()
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
            let asked = slots(r.zone, slot_us, a.range).len() as u32;
            if let Some(needed) = r.min_slots.filter(|m| asked < *m) {
                out.push(Reason::MinSlots { needed, asked });
            }
            if let Some(allowed) = r.max_slots.filter(|m| asked > *m) {
                out.push(Reason::MaxSlots { allowed, asked });
            }
        }
        let arrival = local_date(r.zone, s);
        if r.closed_to_arrival.is_some_and(|d| d.is(arrival)) {
            out.push(Reason::ClosedToArrival { date: arrival });
        }
        let departure = local_date(r.zone, e);
        if r.closed_to_departure.is_some_and(|d| d.is(departure)) {
            out.push(Reason::ClosedToDeparture { date: departure });
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
                for slot in slots(r.zone, slot_us, a.range) {
                    let (used, held) = self.taken(&[resource], slot, a.ignore);
                    let free = (self.slot_capacity(resource, &r, slot.0) - used - held).max(0);
                    if free < a.quantity {
                        out.push(capacity(slot.0, free, a.quantity, None));
                    }
                }
            }
        }
        out.extend(self.buffer_reasons(resource, &r, a));
        for name in &r.pools {
            let Some(pool) = self.pools.get(name) else { continue };
            let members = self.members(name);
            for slot in slots(None, pool.slot_us, a.range) {
                let (used, held) = self.taken(&members, slot, a.ignore);
                let free = (pool.capacity - used - held).max(0);
                if free < a.quantity {
                    out.push(capacity(slot.0, free, a.quantity, Some(name.clone())));
                }
            }
        }
        out
    }

    /// Blocking bookings of a capacity-1 resource with a buffer that do not overlap `a` but
    /// come closer than the buffer, by start.
    fn buffer_reasons(&self, resource: &str, r: &Resource, a: &Asked<'_>) -> Vec<Reason> {
        let Some(pad) = r.buffer_us.filter(|b| *b > 0 && r.capacity == 1) else {
            return Vec::new();
        };
        let (s, e) = a.range;
        let mut near: Vec<(i64, &String)> = self
            .bookings
            .iter()
            .filter(|(id, b)| Some(id.as_str()) != a.ignore && b.resource == resource && self.effective(b).blocks())
            .filter(|(_, b)| !(b.start_us < e && s < b.end_us) && b.start_us < e + pad && s - pad < b.end_us)
            .map(|(id, b)| (b.start_us, id))
            .collect();
        near.sort();
        near.into_iter()
            .map(|(_, id)| Reason::Buffer {
                buffer_ms: (pad / 1000) as u64,
                booking_id: id.clone(),
            })
            .collect()
    }

    /// The slots of `resource` in `[s, e)` as availability lists them: `[start, end,
    /// capacity, used, held, free]`, free also bounded by each pool.
    pub(super) fn slot_view(&self, resource: &str, (s, e): (i64, i64)) -> Value {
        let r = self.resource_or_plain(resource);
        let Some(slot_us) = r.slot_us else { return Value::Null };
        let mut out = Vec::new();
        for slot in slots(r.zone, slot_us, (s, e)) {
            let (used, held) = self.taken(&[resource], slot, None);
            let capacity = self.slot_capacity(resource, &r, slot.0);
            let mut free = (capacity - used - held).max(0);
            for name in &r.pools {
                let Some(pool) = self.pools.get(name) else { continue };
                let members = self.members(name);
                for ps in slots(None, pool.slot_us, slot) {
                    let (u, h) = self.taken(&members, ps, None);
                    free = free.min((pool.capacity - u - h).max(0));
                }
            }
            out.push(json!([slot.0, slot.1, capacity, used, held, free]));
        }
        Value::Array(out)
    }

    /// `PUT /v1/resources/{resource}`: every pool named must have been put. A put that cuts
    /// time otherwise (another slot length or zone) is refused while a capacity put for an
    /// old slot that has not ended differs from the old capacity; else it drops them all.
    pub(super) fn put_resource(&mut self, resource: &str, r: Resource) -> Result<Done, AllotError> {
        let regrids = self.regrids(resource, &r)?;
        if let Some(p) = r.pools.iter().find(|p| !self.pools.contains_key(*p)) {
            return Err(AllotError::not_found("pool", p.clone()));
        }
        if regrids {
            self.slot_caps.retain(|(name, _), _| name != resource);
        }
        let view = json!({"capacity": r.capacity, "slot_us": r.slot_us, "pools": r.pools});
        self.resources.insert(resource.to_string(), r);
        Ok((200, view, None))
    }

    /// Whether `r` cuts `resource`'s time otherwise than it was (another slot length or
    /// zone); `422 slot_grid_in_use` while a capacity put for an old slot that has not ended
    /// differs from the old capacity.
    fn regrids(&self, resource: &str, r: &Resource) -> Result<bool, AllotError> {
        let Some(old) = self.resources.get(resource) else {
            return Ok(false);
        };
        let Some(old_us) = old.slot_us.filter(|o| Some(*o) != r.slot_us || old.zone != r.zone) else {
            return Ok(false);
        };
        let now = self.now_us();
        let live = self.slot_caps.iter().any(|((name, start), c)| {
            let ends = slots(old.zone, old_us, (*start, start + 1)).first().map_or(0, |s| s.1);
            name == resource && *c != old.capacity && ends > now
        });
        if live {
            return Err(AllotError::breaks(Rule::SlotGridInUse, "slot_ms: old slot capacities"));
        }
        Ok(true)
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
        let set: Vec<(i64, i64)> = slots(r.zone, slot_us, (s, e))
            .into_iter()
            .filter(|x| x.0 >= s)
            .collect();
        for x in &set {
            self.slot_caps.insert((resource.to_string(), x.0), capacity);
        }
        let view = match (set.first(), set.last()) {
            (Some(f), Some(l)) => self.slot_view(resource, (f.0, l.1)),
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
