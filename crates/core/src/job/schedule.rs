//! Schedules: a cron expression in a time zone that enqueues a job template at each tick (River's
//! PeriodicJob, Oban's Cron plugin, pg-boss schedules), kept in the database so every instance
//! shares them. A scheduler pass takes each due schedule's row (locked), enqueues its due ticks
//! and moves `next_run_at` past now in the same transaction, so each tick is enqueued exactly
//! once however many instances run passes. Each tick's job carries the unique key
//! `schedule:{name}:{tick in ms}`.
//!
//! Cron expressions are parsed by the `croner` crate (5 fields from minutes, or 6 with seconds
//! first; names of months and weekdays, ranges, steps, `L`, `#`, `W`), time zones by
//! `chrono-tz` (the IANA database: `Europe/Paris`, `UTC`).

use crate::job::NewJob;
use crate::support::error::{AllotError, Result, Rule};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What a pass does with ticks that are more than `schedule_grace_ms` late (the service was
/// down, or the schedule was paused).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Missed {
    /// Late ticks are dropped; the schedule runs again at its next tick.
    #[default]
    Skip,
    /// Late ticks collapse into one job, enqueued for the latest of them.
    RunOnce,
}

impl Missed {
    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Missed::Skip => "skip",
            Missed::RunOnce => "run_once",
        }
    }

    /// Parse a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [Missed::Skip, Missed::RunOnce].into_iter().find(|m| m.as_str() == s)
    }
}

/// `POST /v1/schedules` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ScheduleBody {
    /// The schedule's name, unique in the tenant (`[A-Za-z0-9._:-]`, 1..=`max_name_len`).
    pub name: String,
    /// 5 fields from minutes (`"0 9 * * MON-FRI"`), or 6 with seconds first (`"*/5 * * * * *"`).
    pub cron: String,
    /// IANA time zone the expression is read in. Default `UTC`.
    #[serde(default)]
    pub timezone: Option<String>,
    /// The queue its jobs go to.
    pub queue: String,
    /// The job each tick enqueues (as in an enqueue, without `run_at` or `unique_key`: the
    /// tick gives both).
    #[serde(deserialize_with = "crate::support::input::object")]
    pub job: NewJob,
    /// Late ticks: `skip` (default) or `run_once`.
    #[serde(default)]
    pub missed: Option<Missed>,
}

/// A validated schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSchedule {
    /// Name.
    pub name: String,
    /// The expression as given.
    pub cron: String,
    /// The time zone's IANA name.
    pub timezone: String,
    /// The queue.
    pub queue: String,
    /// The job template: the validated job read back, a field not given `null`.
    pub job: serde_json::Value,
    /// Late ticks.
    pub missed: Missed,
    /// The first tick after now.
    pub next_run_at: DateTime<Utc>,
}

/// A schedule as the API shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Schedule {
    /// Name.
    pub name: String,
    /// The cron expression.
    pub cron: String,
    /// IANA time zone.
    pub timezone: String,
    /// The queue.
    pub queue: String,
    /// The job template.
    pub job: serde_json::Value,
    /// Late ticks.
    pub missed: Missed,
    /// Whether passes skip it.
    pub paused: bool,
    /// Its next tick.
    pub next_run_at: DateTime<Utc>,
    /// The latest tick a pass enqueued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run_at: Option<DateTime<Utc>>,
    /// The next ticks after `next_run_at` (up to 4), to check an expression.
    pub then: Vec<DateTime<Utc>>,
}

impl Schedule {
    /// A stored schedule with its next ticks computed (none when the stored expression no
    /// longer parses, which validation prevents).
    pub fn stored(new: NewSchedule, paused: bool, last_run_at: Option<DateTime<Utc>>) -> Self {
        let mut then = Vec::new();
        if let Ok(t) = Timetable::parse(&new.cron, &new.timezone) {
            let mut at = new.next_run_at;
            while then.len() < 4 {
                match t.next_after(at) {
                    Some(n) => {
                        then.push(n);
                        at = n;
                    }
                    None => break,
                }
            }
        }
        Schedule {
            name: new.name,
            cron: new.cron,
            timezone: new.timezone,
            queue: new.queue,
            job: new.job,
            missed: new.missed,
            paused,
            next_run_at: new.next_run_at,
            last_run_at,
            then,
        }
    }
}

/// `GET /v1/schedules` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ScheduleList {
    /// Every schedule of the tenant, by name.
    pub schedules: Vec<Schedule>,
}

/// A parsed expression in its zone.
#[derive(Debug, Clone)]
pub struct Timetable {
    cron: croner::Cron,
    zone: chrono_tz::Tz,
}

impl Timetable {
    /// Parse `cron` (5 or 6 fields; no year) in zone `timezone`. Errors name the field.
    pub fn parse(cron: &str, timezone: &str) -> Result<Self> {
        if cron.len() > 256 {
            return Err(AllotError::invalid("cron: longer than 256 chars"));
        }
        let parser = croner::parser::CronParser::builder()
            .seconds(croner::parser::Seconds::Optional)
            .year(croner::parser::Year::Disallowed)
            .build();
        let cron = parser
            .parse(cron)
            .map_err(|e| AllotError::breaks(Rule::InvalidCron, format!("cron: {e}")))?;
        let zone: chrono_tz::Tz = timezone.parse().map_err(|_| {
            AllotError::breaks(
                Rule::UnknownTimeZone,
                format!(
                    "timezone: `{}` is not an IANA time zone",
                    crate::support::error::echo(timezone)
                ),
            )
        })?;
        Ok(Timetable { cron, zone })
    }

    /// The first tick strictly after `t`, or `None` when there is none (an expression that can
    /// never match, such as 30 February).
    pub fn next_after(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = t.with_timezone(&self.zone);
        self.cron
            .find_next_occurrence(&local, false)
            .ok()
            .map(|n| n.with_timezone(&Utc))
    }

    /// The last tick strictly before `t`.
    fn prev_before(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = t.with_timezone(&self.zone);
        self.cron
            .find_previous_occurrence(&local, false)
            .ok()
            .map(|p| p.with_timezone(&Utc))
    }

    /// The ticks a pass at `now` handles for a schedule whose next tick was `next_run_at`:
    /// the ticks to enqueue (at most `max`), and the schedule's next tick after now. Ticks
    /// late by more than `grace_ms` are dropped (`skip`) or collapse into the latest of them
    /// (`run_once`).
    pub fn due(
        &self,
        next_run_at: DateTime<Utc>,
        now: DateTime<Utc>,
        missed: Missed,
        grace_ms: i64,
        max: usize,
    ) -> (Vec<DateTime<Utc>>, Option<DateTime<Utc>>) {
        let grace_from = now - chrono::Duration::milliseconds(grace_ms);
        let (mut late, mut ticks) = (None, Vec::new());
        let mut t = Some(next_run_at);
        while let Some(tick) = t.filter(|t| *t <= now) {
            if tick < grace_from {
                late = self.prev_before(grace_from).filter(|p| *p >= tick).or(Some(tick));
                // Jump over a long outage without walking every tick of it.
                t = self
                    .next_after(grace_from - chrono::Duration::milliseconds(1))
                    .filter(|n| *n > tick);
                continue;
            }
            ticks.push(tick);
            t = self.next_after(tick);
        }
        if let (Missed::RunOnce, Some(late)) = (missed, late) {
            ticks.insert(0, late);
        }
        // The newest `max` ticks, should a pass ever fall that far behind.
        if ticks.len() > max {
            ticks.drain(..ticks.len() - max);
        }
        let next = if t.is_some_and(|n| n > now) {
            t
        } else {
            self.next_after(now)
        };
        (ticks, next)
    }
}

/// The unique key of `name`'s job for `tick`.
pub fn tick_key(name: &str, tick: DateTime<Utc>) -> String {
    format!("schedule:{name}:{}", tick.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn ticks_in_a_zone_and_late_ones() {
        let t = Timetable::parse("0 9 * * *", "Europe/Paris").unwrap();
        assert_eq!(
            t.next_after(at("2026-07-01T06:00:00Z")),
            Some(at("2026-07-01T07:00:00Z"))
        );
        assert_eq!(
            t.next_after(at("2026-12-01T06:00:00Z")),
            Some(at("2026-12-01T08:00:00Z"))
        );
        let every = Timetable::parse("*/5 * * * * *", "UTC").unwrap();
        let start = at("2026-01-01T00:00:00Z");
        // On time: each tick once, the next after now.
        let (ticks, next) = every.due(start, at("2026-01-01T00:00:11Z"), Missed::Skip, 60_000, 100);
        assert_eq!(ticks, [start, at("2026-01-01T00:00:05Z"), at("2026-01-01T00:00:10Z")]);
        assert_eq!(next, Some(at("2026-01-01T00:00:15Z")));
        // A day late: skip drops everything past the grace, run_once keeps one.
        let now = at("2026-01-02T00:00:01Z");
        let (ticks, next) = every.due(start, now, Missed::Skip, 3_000, 100);
        assert_eq!(
            (ticks, next),
            (vec![at("2026-01-02T00:00:00Z")], Some(at("2026-01-02T00:00:05Z")))
        );
        let (ticks, _) = every.due(start, now, Missed::RunOnce, 3_000, 100);
        assert_eq!(ticks, [at("2026-01-01T23:59:55Z"), at("2026-01-02T00:00:00Z")]);
        assert!(Timetable::parse("61 * * * *", "UTC").is_err());
        assert!(Timetable::parse("* * * * *", "Mars/Olympus").is_err());
        assert!(Timetable::parse("* * * * * * 2027", "UTC").is_err());
        assert_eq!(tick_key("n", start), "schedule:n:1767225600000");
    }
}
