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
}

impl NewJob {
    /// The job as a request body names it (`run_at` from `start`).
    pub fn json(&self, start: chrono::DateTime<chrono::Utc>) -> Value {
        let mut j = json!({"payload": {"n": 1}, "priority": self.priority, "max_attempts": self.max_attempts});
        if let Some(k) = self.unique_key {
            j["unique_key"] = json!(k);
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
                key: self.key(),
            },
            20..=39 => Op::Claim {
                queue: self.queue(),
                max: self.rare(&[1, 1, 1, 2, 3], &[0, 101]),
                lease_ms: self.lease_ms(),
                key: self.key(),
            },
            40..=57 => Op::Complete {
                job: self.job_ref(),
                token: self.token(),
                key: self.key(),
            },
            58..=71 => Op::Fail {
                job: self.job_ref(),
                token: self.token(),
                retry_in_ms: self.rare(&[0, 0, 1000, 5000], &[-1]),
                key: self.key(),
            },
            72..=79 => Op::Heartbeat {
                job: self.job_ref(),
                token: self.token(),
                lease_ms: self.lease_ms(),
            },
            80..=83 => Op::CancelJob {
                job: self.job_ref(),
                key: self.key(),
            },
            84..=88 => Op::RetryJob {
                job: self.job_ref(),
                key: self.key(),
            },
            89..=90 => Op::GetQueue { queue: self.queue() },
            _ => Op::Sweep,
        }
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
        }
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
