//! The rules of a resource, as hotels and booking sites keep them apart from capacity:
//! closures, length of stay in slots (`min_slots` / `max_slots`), closed to arrival or
//! departure (weekdays or dates of the resource's time zone), buffers around bookings of a
//! capacity-1 resource, lead time and horizon. Each rule that refuses a booking gives one
//! [`Reason`] with its figures; `explain` lists them all.

use crate::booking::reason::Reason;
use crate::booking::slots::Slot;
use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;
use chrono::{DateTime, Datelike, NaiveDate, Utc, Weekday};
use serde::{Deserialize, Serialize};

/// At most this many closures, and this many days in each closed-to list.
pub const MAX_RULE_ENTRIES: usize = 366;

/// The longest buffer, lead time or horizon, ms (ten years of 365 days).
pub const MAX_RULE_MS: u64 = 315_360_000_000;

/// The most slots a stay-length rule may name (a booking touches at most
/// [`crate::booking::capacity::MAX_SLOTS_PER_REQUEST`]).
pub const MAX_STAY_SLOTS: u32 = 2_000;

/// A closed range as put: RFC 3339 instants with offsets.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ClosedBody {
    /// Start, inclusive.
    pub from: String,
    /// End, exclusive.
    pub to: String,
}

/// `rules` of a resource put.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RulesBody {
    /// Ranges nothing may overlap.
    #[serde(default, deserialize_with = "crate::support::input::objects_only")]
    #[cfg_attr(feature = "openapi", schema(max_items = 366))]
    pub closed: Option<Vec<ClosedBody>>,
    /// The fewest slots a booking may touch.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 2000))]
    pub min_slots: Option<u32>,
    /// The most slots a booking may touch.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 2000))]
    pub max_slots: Option<u32>,
    /// Weekdays (`mon`..`sun`) or dates (`2026-12-24`) on which no booking may start.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_items = 366))]
    pub closed_to_arrival: Option<Vec<String>>,
    /// Weekdays or dates on which no booking may end.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(max_items = 366))]
    pub closed_to_departure: Option<Vec<String>>,
    /// The least time between two bookings (capacity-1 resources), ms.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 315_360_000_000_u64))]
    pub buffer_ms: Option<u64>,
    /// A booking starts at least this long after it is made, ms.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 315_360_000_000_u64))]
    pub lead_time_ms: Option<u64>,
    /// A booking starts at most this long after it is made, ms.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(maximum = 315_360_000_000_u64))]
    pub horizon_ms: Option<u64>,
}

/// A closed range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Closed {
    /// Start (UTC), inclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub from: DateTime<Utc>,
    /// End (UTC), exclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub to: DateTime<Utc>,
}

/// A day a closed-to rule names: a weekday or a date, in the resource's time zone. Written
/// `mon`..`sun` or `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Day {
    /// Every such weekday.
    Weekday(Weekday),
    /// That date.
    Date(NaiveDate),
}

impl TryFrom<String> for Day {
    type Error = String;
    fn try_from(s: String) -> std::result::Result<Self, String> {
        const DAYS: [(&str, Weekday); 7] = [
            ("mon", Weekday::Mon),
            ("tue", Weekday::Tue),
            ("wed", Weekday::Wed),
            ("thu", Weekday::Thu),
            ("fri", Weekday::Fri),
            ("sat", Weekday::Sat),
            ("sun", Weekday::Sun),
        ];
        if let Some((_, w)) = DAYS.iter().find(|(n, _)| *n == s) {
            return Ok(Day::Weekday(*w));
        }
        NaiveDate::parse_from_str(&s, "%Y-%m-%d").map(Day::Date).map_err(|_| {
            format!(
                "`{}` is neither a weekday (mon..sun) nor a date (YYYY-MM-DD)",
                crate::support::input::echo(&s)
            )
        })
    }
}

impl From<Day> for String {
    fn from(d: Day) -> String {
        match d {
            Day::Weekday(w) => w.to_string().to_lowercase(),
            Day::Date(d) => d.format("%Y-%m-%d").to_string(),
        }
    }
}

impl Day {
    fn matches(self, date: NaiveDate) -> bool {
        match self {
            Day::Weekday(w) => date.weekday() == w,
            Day::Date(d) => d == date,
        }
    }
}

/// A resource's rules, validated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Rules {
    /// Closed ranges.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed: Vec<Closed>,
    /// Fewest slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_slots: Option<u32>,
    /// Most slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_slots: Option<u32>,
    /// Closed to arrival.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub closed_to_arrival: Vec<Day>,
    /// Closed to departure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub closed_to_departure: Vec<Day>,
    /// Buffer, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_ms: Option<u64>,
    /// Lead time, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead_time_ms: Option<u64>,
    /// Horizon, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub horizon_ms: Option<u64>,
}

fn days(field: &str, v: Option<Vec<String>>) -> Result<Vec<Day>> {
    let v = v.unwrap_or_default();
    if v.len() > MAX_RULE_ENTRIES {
        return Err(AllotError::invalid(format!(
            "rules.{field}: at most {MAX_RULE_ENTRIES} entries"
        )));
    }
    v.into_iter()
        .enumerate()
        .map(|(i, s)| Day::try_from(s).map_err(|e| AllotError::invalid(format!("rules.{field}[{i}]: {e}"))))
        .collect()
}

fn ms(field: &str, v: Option<u64>) -> Result<Option<u64>> {
    match v {
        Some(x) if x > MAX_RULE_MS => Err(AllotError::invalid(format!(
            "rules.{field}: {x} is over {MAX_RULE_MS} ms"
        ))),
        v => Ok(v),
    }
}

/// Validate the rules of a resource put: `invalid_request` naming `rules.<field>`.
pub fn validate(body: RulesBody, limits: &Limits) -> Result<Rules> {
    let closed = body.closed.unwrap_or_default();
    if closed.len() > MAX_RULE_ENTRIES {
        return Err(AllotError::invalid(format!(
            "rules.closed: at most {MAX_RULE_ENTRIES} ranges"
        )));
    }
    let closed = closed
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (f, t) = (format!("rules.closed[{i}].from"), format!("rules.closed[{i}].to"));
            crate::booking::validate::window(&f, &c.from, &t, &c.to, limits).map(|(from, to)| Closed { from, to })
        })
        .collect::<Result<Vec<_>>>()?;
    if let (Some(lo), Some(hi)) = (body.min_slots, body.max_slots) {
        if lo > hi {
            return Err(AllotError::invalid(format!(
                "rules.max_slots: {hi} is below min_slots {lo}"
            )));
        }
    }
    for (f, v) in [("min_slots", body.min_slots), ("max_slots", body.max_slots)] {
        if v.is_some_and(|n| !(1..=MAX_STAY_SLOTS).contains(&n)) {
            return Err(AllotError::invalid(format!("rules.{f}: must be 1..={MAX_STAY_SLOTS}")));
        }
    }
    Ok(Rules {
        closed,
        min_slots: body.min_slots,
        max_slots: body.max_slots,
        closed_to_arrival: days("closed_to_arrival", body.closed_to_arrival)?,
        closed_to_departure: days("closed_to_departure", body.closed_to_departure)?,
        buffer_ms: ms("buffer_ms", body.buffer_ms)?,
        lead_time_ms: ms("lead_time_ms", body.lead_time_ms)?,
        horizon_ms: ms("horizon_ms", body.horizon_ms)?,
    })
}

/// What the rules are asked about: a range, the slots it touches (`None` without slots),
/// the zone its dates are read in, and the instant it is asked at.
pub struct Asked<'a> {
    /// Start, inclusive.
    pub start: DateTime<Utc>,
    /// End, exclusive.
    pub end: DateTime<Utc>,
    /// The resource's slots it touches.
    pub slots: Option<&'a [Slot]>,
    /// The resource's time zone.
    pub zone: chrono_tz::Tz,
    /// Now.
    pub now: DateTime<Utc>,
}

/// Every rule of `rules` that refuses `a`, in the rules' order (closed, stay length,
/// arrival, departure, lead time, horizon). Buffers need the other bookings: see
/// [`crate::booking::judge`].
pub fn reasons(rules: &Rules, a: &Asked<'_>) -> Vec<Reason> {
    let mut out = Vec::new();
    for c in &rules.closed {
        if c.from < a.end && a.start < c.to {
            out.push(Reason::Closed { from: c.from, to: c.to });
        }
    }
    if let Some(slots) = a.slots {
        let asked = slots.len() as u32;
        if let Some(needed) = rules.min_slots.filter(|m| asked < *m) {
            out.push(Reason::MinSlots { needed, asked });
        }
        if let Some(allowed) = rules.max_slots.filter(|m| asked > *m) {
            out.push(Reason::MaxSlots { allowed, asked });
        }
    }
    let arrival = a.start.with_timezone(&a.zone).date_naive();
    if rules.closed_to_arrival.iter().any(|d| d.matches(arrival)) {
        out.push(Reason::ClosedToArrival { date: arrival });
    }
    let departure = a.end.with_timezone(&a.zone).date_naive();
    if rules.closed_to_departure.iter().any(|d| d.matches(departure)) {
        out.push(Reason::ClosedToDeparture { date: departure });
    }
    let starts_in_ms = (a.start - a.now).num_milliseconds();
    if let Some(lead) = rules.lead_time_ms.filter(|l| starts_in_ms < *l as i64) {
        out.push(Reason::LeadTime {
            lead_time_ms: lead,
            starts_in_ms,
        });
    }
    if let Some(h) = rules.horizon_ms.filter(|h| starts_in_ms > *h as i64) {
        out.push(Reason::Horizon {
            horizon_ms: h,
            starts_in_ms,
        });
    }
    out
}
