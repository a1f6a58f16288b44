//! Slots: how a resource or a pool with `slot_ms` cuts time. Each local day of the time zone
//! starts a new run of slots at its midnight; the slots of a day follow each other every
//! `slot_ms` of elapsed time, and the day's last one ends at the next local midnight. So a
//! day slot (`86 400 000`) is the local calendar day — 23 or 25 hours long across a DST change
//! — and hourly slots give 23 or 25 slots on those days. `slot_ms` must divide a day. A local
//! midnight that does not exist (a zone that springs forward at 00:00) starts at the first
//! instant after it that does. Time zones are the IANA database's (chrono-tz).

use crate::support::error::{AllotError, Result};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

/// A day in ms: `slot_ms` must divide it.
pub const DAY_MS: u64 = 86_400_000;
/// The shortest slot, ms (a minute).
pub const MIN_SLOT_MS: u64 = 60_000;

/// How a resource or pool cuts time into slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotGrid {
    /// The length of a slot, ms (divides a day).
    pub slot_ms: u64,
    /// The time zone whose midnights align the slots.
    pub zone: Tz,
}

/// One slot: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slot {
    /// Start (UTC), inclusive.
    pub start: DateTime<Utc>,
    /// End (UTC), exclusive.
    pub end: DateTime<Utc>,
}

/// Parse an IANA time zone name (`Europe/Berlin`, `UTC`); `422 unknown_time_zone` naming
/// `field`.
pub fn parse_zone(field: &str, name: &str) -> Result<Tz> {
    name.parse::<Tz>().map_err(|_| {
        AllotError::breaks(
            crate::support::error::Rule::UnknownTimeZone,
            format!(
                "{field}: `{}` is not an IANA time zone (e.g. Europe/Berlin, UTC)",
                crate::support::input::echo(name)
            ),
        )
    })
}

/// Check a `slot_ms`: [`MIN_SLOT_MS`]..=[`DAY_MS`] (`invalid_request`, as the API document
/// bounds it), dividing [`DAY_MS`] (`422 slot_length`), naming `field`.
pub fn check_slot_ms(field: &str, slot_ms: u64) -> Result<()> {
    if !(MIN_SLOT_MS..=DAY_MS).contains(&slot_ms) {
        return Err(AllotError::invalid(format!(
            "{field}: {slot_ms} must be {MIN_SLOT_MS}..={DAY_MS}"
        )));
    }
    if !DAY_MS.is_multiple_of(slot_ms) {
        return Err(AllotError::breaks(crate::support::error::Rule::SlotLength, format!(
            "{field}: {slot_ms} must be at least {MIN_SLOT_MS} and divide a day ({DAY_MS} ms): e.g. 86400000, 3600000, 1800000"
        )));
    }
    Ok(())
}

impl SlotGrid {
    /// The first instant of local date `date` (its midnight, or the first instant after a
    /// midnight the zone skips).
    fn day_start(&self, date: NaiveDate) -> DateTime<Utc> {
        let midnight = date.and_hms_opt(0, 0, 0).unwrap_or_default();
        // A skipped midnight: try each minute after it (a DST gap is at most a few hours).
        (0..=24 * 60)
            .find_map(|m| {
                self.zone
                    .from_local_datetime(&(midnight + Duration::minutes(m)))
                    .earliest()
            })
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|| Utc.from_utc_datetime(&midnight))
    }

    /// The slots of local date `date`, in order.
    fn day(&self, date: NaiveDate) -> Vec<Slot> {
        let (start, end) = (self.day_start(date), self.day_start(date + Duration::days(1)));
        if self.slot_ms == DAY_MS {
            // A day slot is the local day, however long DST makes it.
            return vec![Slot { start, end }];
        }
        let step = Duration::milliseconds(self.slot_ms as i64);
        let mut out = Vec::new();
        let mut at = start;
        while at < end {
            let next = (at + step).min(end);
            out.push(Slot { start: at, end: next });
            at = next;
        }
        out
    }

    /// Every slot that `[from, to)` touches, in order, at most `max` (`None` past it, so a
    /// caller can refuse a range too long without cutting all of it).
    pub fn slots(&self, from: DateTime<Utc>, to: DateTime<Utc>, max: usize) -> Option<Vec<Slot>> {
        let (slots, whole) = self.first_slots(from, to, max);
        whole.then_some(slots)
    }

    /// The first `max` slots that `[from, to)` touches, in order, and whether that is all of
    /// them.
    pub fn first_slots(&self, from: DateTime<Utc>, to: DateTime<Utc>, max: usize) -> (Vec<Slot>, bool) {
        let mut date = from.with_timezone(&self.zone).date_naive() - Duration::days(1);
        let mut out: Vec<Slot> = Vec::new();
        loop {
            for s in self.day(date) {
                if s.start >= to {
                    return (out, true);
                }
                if s.end > from {
                    if out.len() == max {
                        return (out, false);
                    }
                    out.push(s);
                }
            }
            date += Duration::days(1);
        }
    }

    /// The slot holding instant `t`.
    pub fn slot_at(&self, t: DateTime<Utc>) -> Slot {
        let next = t + Duration::microseconds(1);
        self.slots(t, next, 1)
            .and_then(|v| v.into_iter().next())
            .unwrap_or(Slot { start: t, end: next })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn grid(slot_ms: u64, zone: &str) -> SlotGrid {
        SlotGrid {
            slot_ms,
            zone: parse_zone("time_zone", zone).unwrap(),
        }
    }

    #[test]
    fn nights_in_utc() {
        let g = grid(DAY_MS, "UTC");
        let s = g
            .slots(at("2026-03-01T14:00:00Z"), at("2026-03-03T10:00:00Z"), 10)
            .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].start, at("2026-03-01T00:00:00Z"));
        assert_eq!(s[2].end, at("2026-03-04T00:00:00Z"));
        // Half-open: a range ending at midnight does not touch the next day.
        let s = g
            .slots(at("2026-03-01T00:00:00Z"), at("2026-03-02T00:00:00Z"), 10)
            .unwrap();
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn a_dst_day_is_23_or_25_hours() {
        let g = grid(DAY_MS, "Europe/Berlin");
        // 2026-03-29: clocks go 02:00 -> 03:00 in Berlin; the local day is 23 h long.
        let s = g.slot_at(at("2026-03-29T12:00:00+02:00"));
        assert_eq!(s.start, at("2026-03-29T00:00:00+01:00"));
        assert_eq!(s.end, at("2026-03-30T00:00:00+02:00"));
        assert_eq!((s.end - s.start).num_hours(), 23);
        // 2026-10-25: 03:00 -> 02:00; 25 hours, and 25 hourly slots.
        let s = g.slot_at(at("2026-10-25T12:00:00+01:00"));
        assert_eq!((s.end - s.start).num_hours(), 25);
        let hours = grid(3_600_000, "Europe/Berlin").slots(s.start, s.end, 100).unwrap();
        assert_eq!(hours.len(), 25);
    }

    #[test]
    fn a_range_too_long_is_none() {
        let g = grid(3_600_000, "UTC");
        assert!(g
            .slots(at("2026-03-01T00:00:00Z"), at("2026-03-02T00:00:00Z"), 23)
            .is_none());
        assert_eq!(
            g.slots(at("2026-03-01T00:00:00Z"), at("2026-03-02T00:00:00Z"), 24)
                .unwrap()
                .len(),
            24
        );
    }

    #[test]
    fn slot_ms_must_divide_a_day() {
        assert!(check_slot_ms("slot_ms", 1_800_000).is_ok());
        assert!(check_slot_ms("slot_ms", 7_000_000).is_err());
        assert!(check_slot_ms("slot_ms", 1_000).is_err());
        assert!(parse_zone("time_zone", "Mars/Olympus").is_err());
    }
}
