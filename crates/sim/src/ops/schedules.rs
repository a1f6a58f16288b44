//! The scheduler's steps: two schedule names, expressions whose ticks the clock's advances
//! cross (every 5 s, every 30 s, every minute) or that never tick within a run (hourly), in UTC
//! or Europe/Paris, skipping or running late ticks once; now and then one the rules refuse (an
//! expression that does not parse or never matches, an unknown zone, a template giving
//! `unique_key`); pauses, resumes, deletes, listings, and the scheduler's passes.

use super::{Generator, Op, QUEUES};
use rand::Rng;
use serde_json::{json, Value};

/// The schedule names steps share (the second also the one deleted most).
pub const NAMES: [&str; 2] = ["s1", "s2"];

/// A schedule name the name rule refuses (a space): `invalid_request`.
pub const BAD_NAME: &str = "no good";

/// A schedule as `POST /v1/schedules` sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSchedule {
    /// Its name.
    pub name: &'static str,
    /// 5 or 6 fields.
    pub cron: &'static str,
    /// `timezone` (absent: UTC).
    pub timezone: Option<&'static str>,
    /// The queue its jobs go to.
    pub queue: &'static str,
    /// The template's `priority` (1..=4).
    pub priority: i64,
    /// The template's `max_attempts`.
    pub max_attempts: i64,
    /// The template's `partition_key`.
    pub partition_key: Option<&'static str>,
    /// A `unique_key` in the template, which the rules refuse (`template_field`).
    pub unique_key: bool,
    /// `missed` (absent: `skip`).
    pub missed: Option<&'static str>,
}

impl NewSchedule {
    /// The job template, as the request names it.
    pub fn template(&self) -> Value {
        let mut j = json!({"payload": {"n": 1}, "priority": self.priority, "max_attempts": self.max_attempts});
        if let Some(k) = self.partition_key {
            j["partition_key"] = json!(k);
        }
        if self.unique_key {
            j["unique_key"] = json!("u1");
        }
        j
    }

    /// The request's body.
    pub fn json(&self) -> Value {
        let mut b = json!({"name": self.name, "cron": self.cron, "queue": self.queue, "job": self.template()});
        if let Some(z) = self.timezone {
            b["timezone"] = json!(z);
        }
        if let Some(m) = self.missed {
            b["missed"] = json!(m);
        }
        b
    }
}

impl Generator {
    /// A step on schedules, mostly creations and the scheduler's passes.
    pub(super) fn schedule_op(&mut self) -> Op {
        match self.rng.random_range(0..100) {
            0..=34 => Op::CreateSchedule {
                schedule: self.new_schedule(),
            },
            35..=69 => Op::RunSchedules,
            70..=79 => Op::DeleteSchedule {
                name: self.schedule_name(),
            },
            80..=91 => Op::PauseSchedule {
                name: self.schedule_name(),
                pause: self.rng.random_range(0..2) == 0,
            },
            _ => Op::ListSchedules,
        }
    }

    fn schedule_name(&mut self) -> &'static str {
        match self.rng.random_range(0..20) {
            0 => BAD_NAME,
            n => NAMES[n as usize % NAMES.len()],
        }
    }

    fn new_schedule(&mut self) -> NewSchedule {
        let cron = match self.rng.random_range(0..16) {
            // Does not parse; never matches (30 February).
            0 => self.pick(&["61 * * * *", "0 0 30 2 *"]),
            _ => self.pick(&["*/5 * * * * *", "*/30 * * * * *", "0 * * * * *", "0 * * * *"]),
        };
        let timezone = match self.rng.random_range(0..12) {
            0 => Some("Mars/Olympus"),
            1..=4 => Some("Europe/Paris"),
            5..=7 => Some("UTC"),
            _ => None,
        };
        NewSchedule {
            name: self.schedule_name(),
            cron,
            timezone,
            queue: QUEUES[self.rng.random_range(0..QUEUES.len())],
            priority: self.pick(&[1, 2, 3]),
            max_attempts: self.pick(&[1, 2]),
            partition_key: [None, Some("p1")][self.rng.random_range(0..2)],
            unique_key: self.rng.random_range(0..16) == 0,
            missed: [None, Some("skip"), Some("run_once"), Some("run_once")][self.rng.random_range(0..4)],
        }
    }
}
