//! Schedules in the model (docs/api.md, Schedules): a cron expression in a time zone that
//! enqueues its job template at each tick. Created once by name (`409 already_exists`),
//! listed by name, deleted (the jobs it made stay), paused (passes skip it) and resumed (from
//! its first tick after now: what passed while paused is not run).
//!
//! A pass of the scheduler at now takes the due schedules (not paused, next tick not after
//! now) by (next tick, name), and for each walks every tick from its next one to now, one at
//! a time: a tick late by more than `schedule_grace_ms` is dropped (`skip`), or the latest of
//! the late ones runs once (`run_once`), before the ticks on time; the newest 100 of them are
//! enqueued, each a job of the template that runs at its tick, with the unique key
//! `schedule:{name}:{tick in ms}`. The schedule's next tick is then the first after now (none:
//! it is paused), its last run the latest tick enqueued. The stores jump over a long outage
//! (`Timetable::due`); the model walks it, which is slower and plainly right.

use super::jobs::Template;
use super::{Done, Model};
use crate::ops::schedules::NewSchedule;
use crate::ops::Op;
use allot_core::job::schedule::{tick_key, Missed, Schedule, Timetable};
use allot_core::{AllotError, Clock};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// Most ticks one pass enqueues for one schedule (the stores' own bound).
const MAX_TICKS: usize = 100;

/// A schedule as the model keeps it.
#[derive(Debug, Clone)]
pub(super) struct Sched {
    cron: String,
    timezone: String,
    queue: String,
    job: Value,
    template: Template,
    missed: Missed,
    paused: bool,
    next: DateTime<Utc>,
    last: Option<DateTime<Utc>>,
}

impl Sched {
    /// The API's answer for schedule `name`.
    fn view(&self, name: &str) -> Value {
        let new = allot_core::job::schedule::NewSchedule {
            name: name.to_string(),
            cron: self.cron.clone(),
            timezone: self.timezone.clone(),
            queue: self.queue.clone(),
            job: self.job.clone(),
            missed: self.missed,
            next_run_at: self.next,
        };
        let shown = serde_json::to_value(Schedule::stored(new, self.paused, self.last)).unwrap_or_default();
        crate::view::schedule(&shown)
    }

    fn table(&self) -> Result<Timetable, AllotError> {
        Timetable::parse(&self.cron, &self.timezone)
    }
}

impl Model {
    /// A request on schedules.
    pub(super) fn execute_schedules(&mut self, op: &Op) -> Result<Done, AllotError> {
        match op {
            Op::CreateSchedule { schedule } => self.create_schedule(schedule),
            Op::ListSchedules => Ok(self.list_schedules()),
            Op::DeleteSchedule { name } => self.delete_schedule(name),
            Op::PauseSchedule { name, pause } => self.pause_schedule(name, *pause),
            _ => Err(AllotError::Internal("not a step on schedules".into())),
        }
    }

    /// `POST /v1/schedules` of `s` (validated by the core): its first tick after now.
    fn create_schedule(&mut self, s: &NewSchedule) -> Result<Done, AllotError> {
        if self.schedules.contains_key(s.name) {
            return Err(AllotError::AlreadyExists {
                kind: "schedule",
                id: s.name.to_string(),
            });
        }
        let timezone = s.timezone.unwrap_or("UTC").to_string();
        let table = Timetable::parse(s.cron, &timezone)?;
        let next = table
            .next_after(self.clock_now())
            .ok_or_else(|| AllotError::Internal("a schedule that never ticks passed validation".into()))?;
        let sched = Sched {
            cron: s.cron.to_string(),
            timezone,
            queue: s.queue.to_string(),
            job: stored_template(s.template())?,
            template: Template {
                priority: s.priority,
                max_attempts: s.max_attempts,
                partition_key: s.partition_key.map(str::to_string),
            },
            missed: s.missed.and_then(Missed::parse).unwrap_or_default(),
            paused: false,
            next,
            last: None,
        };
        let view = sched.view(s.name);
        self.schedules.insert(s.name.to_string(), sched);
        Ok((201, view, None))
    }

    /// `GET /v1/schedules`: every schedule, by name.
    fn list_schedules(&self) -> Done {
        let all: Vec<Value> = self.schedules.iter().map(|(n, s)| s.view(n)).collect();
        (200, json!({ "schedules": all }), None)
    }

    /// `DELETE /v1/schedules/{name}`.
    fn delete_schedule(&mut self, name: &str) -> Result<Done, AllotError> {
        match self.schedules.remove(name) {
            Some(_) => Ok((204, Value::Null, None)),
            None => Err(AllotError::not_found("schedule", name)),
        }
    }

    /// `POST /v1/schedules/{name}/pause` or `/resume` (from its first tick after now).
    fn pause_schedule(&mut self, name: &str, pause: bool) -> Result<Done, AllotError> {
        let now = self.clock_now();
        let s = (self.schedules.get_mut(name)).ok_or_else(|| AllotError::not_found("schedule", name))?;
        if !pause {
            if let Some(next) = s.table()?.next_after(now) {
                s.next = next;
            }
        }
        s.paused = pause;
        Ok((200, s.view(name), None))
    }

    /// A pass of the scheduler at now: the ids of the jobs it made, in the order made.
    pub fn run_schedules(&mut self) -> Vec<i64> {
        let now = self.clock_now();
        let mut due: Vec<(DateTime<Utc>, String)> = (self.schedules.iter())
            .filter(|(_, s)| !s.paused && s.next <= now)
            .map(|(n, s)| (s.next, n.clone()))
            .collect();
        due.sort();
        let mut made = Vec::new();
        for (_, name) in due {
            let Some(s) = self.schedules.get(&name).cloned() else {
                continue;
            };
            let Ok(table) = s.table() else { continue };
            let (ticks, next) = self.ticks(&table, &s, now);
            for &tick in &ticks {
                let before = self.jobs_made;
                let id = self.enqueue_one(
                    &s.queue,
                    s.template.clone(),
                    Some(tick_key(&name, tick)),
                    match self.mutation == Some(super::Mutation::ScheduleIgnoresTick) {
                        true => now.timestamp_micros(),
                        false => tick.timestamp_micros(),
                    },
                );
                if self.jobs_made > before {
                    made.push(id);
                }
            }
            if let Some(kept) = self.schedules.get_mut(&name) {
                kept.last = ticks.last().copied().or(kept.last);
                match next {
                    Some(n) => kept.next = n,
                    None => kept.paused = true,
                }
            }
        }
        made
    }

    /// The ticks a pass at `now` enqueues for `s` (walked one by one from its next tick), and
    /// its first tick after now.
    fn ticks(&self, table: &Timetable, s: &Sched, now: DateTime<Utc>) -> (Vec<DateTime<Utc>>, Option<DateTime<Utc>>) {
        let grace_from = now - chrono::Duration::milliseconds(self.limits.schedule_grace_ms);
        let (mut late, mut on_time) = (None, Vec::new());
        let mut t = Some(s.next);
        while let Some(tick) = t.filter(|t| *t <= now) {
            match tick < grace_from {
                true => late = Some(tick),
                false => on_time.push(tick),
            }
            t = table.next_after(tick);
        }
        let mut ticks: Vec<DateTime<Utc>> = match (s.missed, late) {
            (Missed::RunOnce, Some(l)) => std::iter::once(l).chain(on_time).collect(),
            _ => on_time,
        };
        if ticks.len() > MAX_TICKS {
            ticks.drain(..ticks.len() - MAX_TICKS);
        }
        (ticks, t)
    }

    fn clock_now(&self) -> DateTime<Utc> {
        self.clock.now()
    }
}

/// The template as the stores keep and show it: read as the core's job and written back, so
/// a field not given reads `null`.
fn stored_template(given: Value) -> Result<Value, AllotError> {
    let job: allot_core::job::NewJob =
        serde_json::from_value(given).map_err(|e| AllotError::Internal(e.to_string()))?;
    serde_json::to_value(job).map_err(|e| AllotError::Internal(e.to_string()))
}
