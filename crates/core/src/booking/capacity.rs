//! Capacity: resources that sell a count per slot (`PUT /v1/resources/{resource}`), pools
//! shared by several resources (`PUT /v1/pools/{pool}`, pretix's quotas: a resource is
//! bookable only while every pool it is in has room), per-slot capacity (allotment changes,
//! `0` a stop-sell) and the rules a booking must meet. A resource never put is capacity 1
//! without slots or rules, as before: the exclusion path.

use crate::booking::rules::{Rules, RulesBody};
use crate::booking::slots::{check_slot_ms, parse_zone, SlotGrid};
use crate::support::error::{AllotError, Result, Rule};
use crate::support::limits::Limits;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::booking::MAX_CAPACITY;
/// At most this many pools per resource.
pub const MAX_POOLS_PER_RESOURCE: usize = 8;
/// At most this many slots in one booking, one availability answer or one slot-capacity put.
pub const MAX_SLOTS_PER_REQUEST: usize = 2_000;
/// At most this many resources in one pool (each booking on a pool reads its members'
/// bookings).
pub const MAX_RESOURCES_PER_POOL: usize = 200;

/// `PUT /v1/resources/{resource}` body.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ResourceBody {
    /// Bookable quantity per slot, 0..=1 000 000 (default 1); more than 1 needs `slot_ms`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 1_000_000))]
    pub capacity: Option<u32>,
    /// Slot length, ms, dividing a day (86 400 000 a night, 3 600 000 an hour).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 60_000, maximum = 86_400_000))]
    pub slot_ms: Option<u64>,
    /// IANA time zone whose midnights align the slots and whose dates the rules name
    /// (default `UTC`).
    #[serde(default)]
    pub time_zone: Option<String>,
    /// Pools this resource counts against (each must exist, with `slot_ms`); needs `slot_ms`.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_items = 8))]
    pub pools: Option<Vec<String>>,
    /// Rules every booking must meet.
    #[serde(default, deserialize_with = "crate::support::input::object_only")]
    pub rules: Option<RulesBody>,
}

/// A resource as stored and answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Resource {
    /// The resource.
    pub resource: String,
    /// Bookable quantity per slot (per range without slots: then 1).
    pub capacity: u32,
    /// Slot length, ms; `None`: no slots (capacity 1, bookings never overlap).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slot_ms: Option<u64>,
    /// IANA time zone.
    pub time_zone: String,
    /// Pools it counts against, sorted.
    pub pools: Vec<String>,
    /// Its rules.
    pub rules: Rules,
    /// When it was last put (`None`: never put, the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub updated_at: Option<DateTime<Utc>>,
    /// When a put last lowered what it sells — made it, lowered its capacity, changed its
    /// slots or time zone, or joined a pool (the audit's leniency: see `audit::slots`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub lowered_at: Option<DateTime<Utc>>,
}

/// `PUT /v1/pools/{pool}` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PoolBody {
    /// Bookable quantity per slot, 0..=1 000 000, shared by every resource in the pool.
    #[cfg_attr(feature = "openapi", schema(maximum = 1_000_000))]
    pub capacity: u32,
    /// Slot length, ms, dividing a day.
    #[cfg_attr(feature = "openapi", schema(minimum = 60_000, maximum = 86_400_000))]
    pub slot_ms: u64,
    /// IANA time zone (default `UTC`).
    #[serde(default)]
    pub time_zone: Option<String>,
}

/// A pool as stored and answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Pool {
    /// The pool.
    pub pool: String,
    /// Bookable quantity per slot.
    pub capacity: u32,
    /// Slot length, ms.
    pub slot_ms: u64,
    /// IANA time zone.
    pub time_zone: String,
    /// When it was last put.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub updated_at: DateTime<Utc>,
    /// When a put last made it, lowered its capacity or changed its slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub lowered_at: Option<DateTime<Utc>>,
}

/// `PUT /v1/resources/{resource}/slots` body: the capacity of every slot starting in
/// `[from, to)`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SlotCapacityBody {
    /// RFC 3339 with offset, inclusive.
    pub from: String,
    /// RFC 3339 with offset, exclusive.
    pub to: String,
    /// The slots' capacity, 0..=1 000 000 (`0`: stop-sell).
    #[cfg_attr(feature = "openapi", schema(maximum = 1_000_000))]
    pub capacity: u32,
}

/// A validated slot-capacity put: the slot starts it sets.
#[derive(Debug, Clone, PartialEq)]
pub struct SlotCapacity {
    /// The resource.
    pub resource: String,
    /// Every slot start in the range, in order.
    pub starts: Vec<DateTime<Utc>>,
    /// Their capacity.
    pub capacity: u32,
}

impl Resource {
    /// A resource never put: capacity 1, no slots, no pools, no rules.
    pub fn plain(resource: &str) -> Resource {
        Resource {
            resource: resource.to_string(),
            capacity: 1,
            slot_ms: None,
            time_zone: "UTC".into(),
            pools: Vec::new(),
            rules: Rules::default(),
            updated_at: None,
            lowered_at: None,
        }
    }

    /// This put of the resource, made at `now` over `old` (what was stored): `updated_at` is
    /// now, `lowered_at` now when it was never put or this put sells less of a slot — a lower
    /// capacity, other slots or time zone, a pool joined — else what it was.
    pub fn put_over(self, old: Option<&Resource>, now: DateTime<Utc>) -> Resource {
        let lowered = match old {
            None => true,
            Some(o) => {
                self.capacity < o.capacity
                    || self.slot_ms != o.slot_ms
                    || self.time_zone != o.time_zone
                    || self.pools.iter().any(|p| !o.pools.contains(p))
            }
        };
        Resource {
            updated_at: Some(now),
            lowered_at: if lowered {
                Some(now)
            } else {
                old.and_then(|o| o.lowered_at)
            },
            ..self
        }
    }

    /// Whether this put cuts time otherwise than `old` did (another `slot_ms` or time zone):
    /// the slot capacities put for `old`'s slots then name slots that no longer exist.
    pub fn regrids(&self, old: Option<&Resource>) -> bool {
        old.is_some_and(|o| o.slot_ms.is_some() && (o.slot_ms != self.slot_ms || o.time_zone != self.time_zone))
    }

    /// Refuse a put over `old` that [regrids](Resource::regrids) while a capacity put for a
    /// slot of the old grid that has not ended at `now` differs from `old`'s capacity
    /// (`overrides`: slot start, capacity): `422 slot_grid_in_use` naming the first. Put
    /// those slots back to the resource's capacity first (or wait until they are past); on
    /// a put that passes, the backends drop the old slots' capacities.
    pub fn check_regrid(
        &self,
        old: Option<&Resource>,
        overrides: &[(DateTime<Utc>, u32)],
        now: DateTime<Utc>,
    ) -> Result<()> {
        let (Some(old), Some(grid)) = (old, old.and_then(Resource::grid)) else {
            return Ok(());
        };
        if !self.regrids(Some(old)) {
            return Ok(());
        }
        let first = overrides
            .iter()
            .filter(|(start, c)| *c != old.capacity && grid.slot_at(*start).end > now)
            .min_by_key(|(start, _)| *start);
        match first {
            None => Ok(()),
            Some((start, c)) => Err(AllotError::breaks(
                crate::support::error::Rule::SlotGridInUse,
                format!(
                    "{}: resource `{}` has a capacity of {c} put for its slot at {} (and maybe more) that has not ended; put those slots back to its capacity ({}) before changing slot_ms or time_zone",
                    if self.slot_ms == old.slot_ms { "time_zone" } else { "slot_ms" },
                    self.resource,
                    crate::support::instant::text(start),
                    old.capacity
                ),
            )),
        }
    }

    /// Its slot grid, if it has slots.
    pub fn grid(&self) -> Option<SlotGrid> {
        let zone = self.time_zone.parse().ok()?;
        self.slot_ms.map(|slot_ms| SlotGrid { slot_ms, zone })
    }

    /// Its time zone (UTC if the stored name no longer parses).
    pub fn zone(&self) -> chrono_tz::Tz {
        self.time_zone.parse().unwrap_or(chrono_tz::UTC)
    }
}

impl Pool {
    /// This put of the pool at `now` over `old`: `lowered_at` moves when it is new, its
    /// capacity is lower or its slots or time zone changed.
    pub fn put_over(self, old: Option<&Pool>, now: DateTime<Utc>) -> Pool {
        let lowered = old
            .is_none_or(|o| self.capacity < o.capacity || self.slot_ms != o.slot_ms || self.time_zone != o.time_zone);
        Pool {
            updated_at: now,
            lowered_at: if lowered {
                Some(now)
            } else {
                old.and_then(|o| o.lowered_at)
            },
            ..self
        }
    }

    /// Its slot grid.
    pub fn grid(&self) -> SlotGrid {
        SlotGrid {
            slot_ms: self.slot_ms,
            zone: self.time_zone.parse().unwrap_or(chrono_tz::UTC),
        }
    }
}

fn capacity(field: &str, c: u32) -> Result<u32> {
    if c > MAX_CAPACITY {
        return Err(AllotError::invalid(format!("{field}: {c} is over {MAX_CAPACITY}")));
    }
    Ok(c)
}

/// Validate a resource put: names, capacity, `slot_ms` (needed for a capacity other than 1,
/// pools or stay lengths), the time zone, at most [`MAX_POOLS_PER_RESOURCE`] distinct pools,
/// the rules. Answers `invalid_request` naming the field.
pub fn resource(name: &str, body: ResourceBody, now: DateTime<Utc>, limits: &Limits) -> Result<Resource> {
    crate::support::checks::name("resource", name, limits)?;
    let cap = capacity("capacity", body.capacity.unwrap_or(1))?;
    if let Some(ms) = body.slot_ms {
        check_slot_ms("slot_ms", ms)?;
    }
    let zone = body.time_zone.unwrap_or_else(|| "UTC".into());
    parse_zone("time_zone", &zone)?;
    let mut pools = body.pools.unwrap_or_default();
    if pools.len() > MAX_POOLS_PER_RESOURCE {
        return Err(AllotError::invalid(format!(
            "pools: {} pools, at most {MAX_POOLS_PER_RESOURCE}",
            pools.len()
        )));
    }
    for (i, p) in pools.iter().enumerate() {
        crate::support::checks::name(&format!("pools[{i}]"), p, limits)?;
    }
    pools.sort();
    pools.dedup();
    let rules = crate::booking::rules::validate(body.rules.unwrap_or_default(), limits)?;
    if body.slot_ms.is_none() {
        let needs = if cap != 1 {
            Some("capacity other than 1")
        } else if !pools.is_empty() {
            Some("pools")
        } else if rules.min_slots.is_some() || rules.max_slots.is_some() {
            Some("min_slots / max_slots")
        } else {
            None
        };
        if let Some(what) = needs {
            return Err(AllotError::invalid(format!(
                "slot_ms: a resource with {what} needs slot_ms"
            )));
        }
    }
    Ok(Resource {
        resource: name.to_string(),
        capacity: cap,
        slot_ms: body.slot_ms,
        time_zone: zone,
        pools,
        rules,
        updated_at: Some(now),
        lowered_at: None,
    })
}

/// Validate a pool put.
pub fn pool(name: &str, body: PoolBody, now: DateTime<Utc>, limits: &Limits) -> Result<Pool> {
    crate::support::checks::name("pool", name, limits)?;
    check_slot_ms("slot_ms", body.slot_ms)?;
    let zone = body.time_zone.unwrap_or_else(|| "UTC".into());
    parse_zone("time_zone", &zone)?;
    Ok(Pool {
        pool: name.to_string(),
        capacity: capacity("capacity", body.capacity)?,
        slot_ms: body.slot_ms,
        time_zone: zone,
        updated_at: now,
        lowered_at: None,
    })
}

/// Validate a slot-capacity put against the resource it is for (which must have slots:
/// `422 needs_slots` otherwise):
/// `[from, to)` as a window, at most [`MAX_SLOTS_PER_REQUEST`] slot starts in it.
pub fn slot_capacity(r: &Resource, body: SlotCapacityBody, limits: &Limits) -> Result<SlotCapacity> {
    let grid = r.grid().ok_or_else(|| {
        AllotError::breaks(
            crate::support::error::Rule::NeedsSlots,
            format!("resource `{}` has no slot_ms: put it with slot_ms first", r.resource),
        )
    })?;
    let (from, to) = crate::booking::validate::window("from", &body.from, "to", &body.to, limits)?;
    let cap = capacity("capacity", body.capacity)?;
    let slots = grid
        .slots(from, to, MAX_SLOTS_PER_REQUEST + 1)
        .filter(|s| s.len() <= MAX_SLOTS_PER_REQUEST)
        .ok_or_else(|| AllotError::invalid(format!("to: the range holds more than {MAX_SLOTS_PER_REQUEST} slots")))?;
    Ok(SlotCapacity {
        resource: r.resource.clone(),
        starts: slots.iter().filter(|s| s.start >= from).map(|s| s.start).collect(),
        capacity: cap,
    })
}

/// Whether a booking of `quantity` is allowed on `r` at all: a resource without slots takes
/// quantity 1 only.
pub fn check_quantity(r: &Resource, quantity: u32) -> Result<()> {
    if quantity == 0 || quantity > MAX_CAPACITY {
        return Err(AllotError::invalid(format!(
            "quantity: {quantity} must be 1..={MAX_CAPACITY}"
        )));
    }
    if r.slot_ms.is_none() && quantity != 1 {
        return Err(AllotError::breaks(
            Rule::NeedsSlots,
            format!(
                "quantity: resource `{}` has no slots, so a booking takes it whole (quantity 1)",
                r.resource
            ),
        ));
    }
    Ok(())
}
