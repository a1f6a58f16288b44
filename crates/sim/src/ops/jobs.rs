//! The queue's steps: what they name and how the generator makes them — two queues, jobs
//! with priorities, few attempts, shared unique keys and start times that the clock crosses,
//! claims with leases the clock outlives, transitions with the current, the previous or a
//! made-up lease token.

use super::{Generator, Op, Ref};
use rand::Rng;
use serde_json::{json, Value};

/// The queues steps fight over.
pub const QUEUES: [&str; 2] = ["q1", "q2"];

/// A queue name the name rule refuses (a space): `invalid_request`.
pub const BAD_QUEUE: &str = "no good";

/// Which job a step names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobRef {
    /// The job of the `n`-th latest lease a claim handed out (0: the latest; wrapping): most
    /// transitions name a job a worker holds.
    Leased(usize),
    /// Any job made so far (by place), or an unknown id ([`Ref`]).
    Made(Ref),
}

/// Which lease token a transition carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// The token of the job's latest claim (a live worker; stale once the job was rescued,
    /// failed or reclaimed).
    Current,
    /// The token of the claim before the latest (a worker whose lease was lost).
    Previous,
    /// A well-formed token no claim gave.
    Unknown,
}

/// One job of an enqueue: `priority` 1..=4 (0 and 5 refused), `max_attempts`, a unique key
/// shared by the steps, and `run_at_ms` — when it may run, in ms after the run's start (the
/// clock crosses it; `None`: now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewJob {
    /// 1..=4, lower first.
    pub priority: i64,
    /// Attempts before the dead letter.
    pub max_attempts: i64,
    /// `unique_key`: while a job of the queue with it is unfinished, an enqueue gets that job.
    pub unique_key: Option<&'static str>,
    /// `run_at`, as ms after the run's start.
    pub run_at_ms: Option<i64>,
    /// `partition_key`: the key of per-key limits, rates and FIFO.
    pub partition_key: Option<&'static str>,
    /// `depends_on`: jobs made so far (by place), or an unknown id.
    pub depends_on: Vec<Ref>,
    /// `on_failed_dependency: run` (else the default, `discard`).
    pub run_on_failed_dependency: bool,
}

/// A queue's settings as `PUT /v1/queues/{queue}` sends them (a field left out is its
/// default): `rate` is `(per_window, window_ms, per_key)`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[allow(missing_docs)]
pub struct Settings {
    pub paused: Option<bool>,
    pub max_running: Option<i64>,
    pub max_running_per_key: Option<i64>,
    pub rate: Option<(i64, i64, bool)>,
    pub fifo_per_key: Option<bool>,
    pub keep_completed: Option<bool>,
    /// `fair_by: partition_key`, with `weights` (key, jobs per turn) when some.
    pub fair: Option<Vec<(&'static str, i64)>>,
    /// `events`: the jobs' lifecycle on the feed.
    pub events: Option<bool>,
}

impl Settings {
    /// The body of the `PUT`.
    pub fn json(&self) -> Value {
        let mut b = json!({});
        if let Some(p) = self.paused {
            b["paused"] = json!(p);
        }
        if let Some(n) = self.max_running {
            b["max_running"] = json!(n);
        }
        if let Some(n) = self.max_running_per_key {
            b["max_running_per_key"] = json!(n);
        }
        if let Some((per_window, window_ms, per_key)) = self.rate {
            b["rate"] = json!({"per_window": per_window, "window_ms": window_ms, "per_key": per_key});
        }
        if let Some(f) = self.fifo_per_key {
            b["fifo_per_key"] = json!(f);
        }
        if let Some(k) = self.keep_completed {
            b["keep_completed"] = json!(k);
        }
        if let Some(e) = self.events {
            b["events"] = json!(e);
        }
        if let Some(weights) = &self.fair {
            b["fair_by"] = json!("partition_key");
            if !weights.is_empty() {
                b["weights"] = weights.iter().map(|(k, w)| (k.to_string(), json!(w))).collect();
            }
        }
        b
    }
}

impl NewJob {
    /// The job as a request body names it (`run_at` from `start`, its dependencies' ids
    /// `depends_on` as the target resolved them).
    pub fn json(&self, start: chrono::DateTime<chrono::Utc>, depends_on: &[i64]) -> Value {
        let mut j = json!({"payload": {"n": 1}, "priority": self.priority, "max_attempts": self.max_attempts});
        if !self.depends_on.is_empty() {
            j["depends_on"] = json!(depends_on);
        }
        if self.run_on_failed_dependency {
            j["on_failed_dependency"] = json!("run");
        }
        if let Some(k) = self.unique_key {
            j["unique_key"] = json!(k);
        }
        if let Some(k) = self.partition_key {
            j["partition_key"] = json!(k);
        }
        if let Some(ms) = self.run_at_ms {
            let at = start + chrono::Duration::milliseconds(ms);
            j["run_at"] = json!(at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        }
        j
    }
}

impl Generator {
    /// A step on the queue, biased toward claims and transitions of the few jobs there are.
    pub(super) fn job_op(&mut self) -> Op {
        match self.rng.random_range(0..100) {
            0..=19 => Op::Enqueue {
                queue: self.queue(),
                jobs: (0..self.rng.random_range(1..=3)).map(|_| self.new_job()).collect(),
                // One enqueue in eight is a batch (from the `deps` draws), of two ids so
                // that one is now and then taken.
                batch: (self.deps.random_range(0..8) == 0).then(|| ["b1", "b2"][self.deps.random_range(0..2)]),
                key: self.key(),
            },
            20..=39 => Op::Claim {
                queue: self.queue(),
                max: self.rare(&[1, 1, 1, 2, 3], &[0, 101]),
                lease_ms: self.lease_ms(),
                key: self.key(),
            },
            40..=55 => Op::Complete {
                job: self.job_ref(),
                token: self.token(),
                key: self.key(),
            },
            56..=69 => Op::Fail {
                job: self.job_ref(),
                token: self.token(),
                retry_in_ms: self.rare(&[0, 0, 1000, 5000], &[-1]),
                key: self.key(),
            },
            70..=77 => Op::Heartbeat {
                job: self.job_ref(),
                token: self.token(),
                lease_ms: self.lease_ms(),
            },
            78..=81 => Op::CancelJob {
                job: self.job_ref(),
                key: self.key(),
            },
            82..=83 => Op::RetryJob {
                job: self.job_ref(),
                key: self.key(),
            },
            84..=85 => Op::Snooze {
                job: self.job_ref(),
                token: self.token(),
                delay_ms: self.delay_ms(),
                key: self.key(),
            },
            86 => Op::Reschedule {
                job: self.job_ref(),
                delay_ms: self.delay_ms(),
                key: self.key(),
            },
            87 => Op::GetQueue { queue: self.queue() },
            88..=90 => Op::QueueSettings {
                queue: self.queue(),
                settings: self.settings(),
            },
            91 => Op::PauseQueue {
                queue: self.queue(),
                pause: self.rng.random_range(0..2) == 0,
            },
            92..=94 => self.schedule_op(),
            _ => Op::Sweep,
        }
    }

    /// What a worker does right after `op` when it is a claim, two times in three: finishes
    /// the job of the latest lease with its current token, completing it three times in four
    /// and failing it otherwise. Without it a run's completions are few (the transitions name
    /// leases at random, most of them finished already), and a queue that does not keep
    /// completed jobs is rarely met by one.
    pub(super) fn worker_step(&mut self, op: &Op) -> Option<Op> {
        if !matches!(op, Op::Claim { .. }) || self.rng.random_range(0..3) == 0 {
            return None;
        }
        let (job, token) = (JobRef::Leased(0), Token::Current);
        Some(match self.rng.random_range(0..4) {
            0 => Op::Fail {
                job,
                token,
                retry_in_ms: self.pick(&[0, 1000]),
                key: self.key(),
            },
            _ => Op::Complete {
                job,
                token,
                key: self.key(),
            },
        })
    }

    fn queue(&mut self) -> &'static str {
        match self.rng.random_range(0..30) {
            0 => BAD_QUEUE,
            n => QUEUES[n as usize % QUEUES.len()],
        }
    }

    /// One of `usual`, or one in twelve times one of `edge` (a value a rule refuses).
    pub(super) fn rare(&mut self, usual: &[i64], edge: &[i64]) -> i64 {
        if self.rng.random_range(0..12) == 0 {
            self.pick(edge)
        } else {
            self.pick(usual)
        }
    }

    fn job_ref(&mut self) -> JobRef {
        match self.rng.random_range(0..3) {
            0 => JobRef::Made(self.reference()),
            _ => JobRef::Leased(self.rng.random_range(0..3)),
        }
    }

    fn new_job(&mut self) -> NewJob {
        NewJob {
            priority: match self.rng.random_range(0..24) {
                0 => self.pick(&[0, 5]),
                _ => self.pick(&[1, 1, 1, 2, 3, 4]),
            },
            max_attempts: self.pick(&[1, 2, 2, 3]),
            unique_key: match self.rng.random_range(0..4) {
                0 => Some(["u1", "u2"][self.rng.random_range(0..2)]),
                _ => None,
            },
            run_at_ms: match self.rng.random_range(0..4) {
                0 => Some(self.pick(&[0, 5000, 60_000, 600_000])),
                _ => None,
            },
            partition_key: [None, Some("p1"), Some("p2")][self.rng.random_range(0..3)],
            depends_on: self.dependencies(),
            run_on_failed_dependency: self.deps.random_range(0..4) == 0,
        }
    }

    /// A third of the jobs wait for one or two jobs made before (from the `deps` draws),
    /// recent ones mostly (a `Ref` counts from the oldest, so a large one wraps), now and
    /// then one no job has.
    fn dependencies(&mut self) -> Vec<Ref> {
        if self.deps.random_range(0..3) != 0 {
            return Vec::new();
        }
        (0..self.deps.random_range(1..=2))
            .map(|_| match self.deps.random_range(0..16) {
                0 => Ref::Unknown,
                _ => Ref::Nth(self.deps.random_range(0..64)),
            })
            .collect()
    }

    /// Settings with a few small limits (now and then 0, which the rules refuse), rates over
    /// windows the clock's advances cross, FIFO per key, and pauses; a third of them none
    /// at all (the queue back to its defaults).
    fn settings(&mut self) -> Settings {
        if self.rng.random_range(0..3) == 0 {
            return Settings::default();
        }
        let some = |g: &mut Self, n: i64| g.rng.random_range(0..n) == 0;
        Settings {
            paused: some(self, 8).then_some(true),
            max_running: some(self, 3).then(|| self.rare(&[1, 2, 3], &[0])),
            max_running_per_key: some(self, 3).then(|| self.rare(&[1, 2], &[0])),
            rate: some(self, 3).then(|| {
                let per_window = self.rare(&[1, 2, 3], &[0]);
                let window_ms = self.pick(&[1000, 5000, 60_000]);
                (per_window, window_ms, self.rng.random_range(0..2) == 0)
            }),
            fifo_per_key: some(self, 3).then_some(true),
            // Now and then a queue that deletes its jobs as they complete.
            keep_completed: some(self, 2).then_some(false),
            fair: self.fair_settings(),
            events: (self.deps.random_range(0..4) == 0).then_some(true),
        }
    }

    /// Fair claiming two times in three (from the `fair` draws): half of those with weights
    /// (now and then 0, which the rules refuse).
    fn fair_settings(&mut self) -> Option<Vec<(&'static str, i64)>> {
        if self.fair.random_range(0..3) == 0 {
            return None;
        }
        Some(match self.fair.random_range(0..4) {
            0 => vec![("p1", 2)],
            1 => vec![("p1", 3), ("p2", 1)],
            2 if self.fair.random_range(0..8) == 0 => vec![("p2", 0)],
            _ => Vec::new(),
        })
    }

    /// A snooze's or a reschedule's delay: now, within the clock's advances, or far (now and
    /// then −1 or beyond `max_snooze_ms`, 30 days, which the rules refuse).
    fn delay_ms(&mut self) -> i64 {
        self.rare(&[0, 1000, 5000, 60_000], &[-1, 2_592_000_001])
    }

    /// Around both lease limits (1 s and an hour), mostly within.
    fn lease_ms(&mut self) -> i64 {
        self.rare(&[1000, 1001, 2000, 5000, 5000, 30_000, 3_600_000], &[999, 3_600_001])
    }

    fn token(&mut self) -> Token {
        match self.rng.random_range(0..10) {
            0 => Token::Unknown,
            1 | 2 => Token::Previous,
            _ => Token::Current,
        }
    }
}
