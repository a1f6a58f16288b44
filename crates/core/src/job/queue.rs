//! A queue's settings and why a job is not running.
//!
//! Settings (`PUT /v1/queues/{queue}`) pause a queue and limit it: at most `max_running` jobs
//! running at once, at most `max_running_per_key` of one `partition_key`, at most
//! `rate.per_window` started in any `rate.window_ms` (queue-wide, or per key with
//! `rate.per_key`), and with `fifo_per_key` one job of a key at a time in enqueue order,
//! retries included. The limits are enforced by the claim itself (PostgreSQL: one call that
//! locks the queue's settings row, then reads what runs under a fresh snapshot; SQLite: the
//! claim's write transaction), so they are exact across any number of instances. The design
//! is what Oban Pro's Smart engine (`global_limit`, `local_limit`, `rate_limit` partitioned
//! by args) and River Pro's concurrency limits and sequences sell; here it is free.

use super::fair::FairBy;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A start-rate limit: at most `per_window` jobs started in any `window_ms` (a sliding
/// window over the recorded starts, not fixed buckets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Rate {
    /// Starts allowed per window, 1..=`max_queue_limit`.
    pub per_window: i64,
    /// The window, ms (1..=`max_rate_window_ms`).
    pub window_ms: i64,
    /// Count starts per `partition_key` instead of queue-wide (jobs without a key then are
    /// not rate limited). Default false.
    #[serde(default)]
    pub per_key: bool,
}

/// `PUT /v1/queues/{queue}` body: the queue's settings, replaced whole (a field left out is
/// its default: not paused, no limit, no FIFO, completed jobs kept).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct QueueSettingsBody {
    /// A paused queue leases nothing; enqueues still go in. Default false.
    #[serde(default)]
    pub paused: Option<bool>,
    /// Most jobs of the queue running at once, 1..=`max_queue_limit`.
    #[serde(default)]
    pub max_running: Option<i64>,
    /// Most jobs of one `partition_key` running at once, 1..=`max_queue_limit`.
    #[serde(default)]
    pub max_running_per_key: Option<i64>,
    /// Most jobs started per window.
    #[serde(default, deserialize_with = "crate::support::input::object_only")]
    pub rate: Option<Rate>,
    /// Jobs of one `partition_key` run one at a time in enqueue (id) order; a retry keeps its
    /// place. Default false.
    #[serde(default)]
    pub fifo_per_key: Option<bool>,
    /// Keep completed jobs until the server's job retention prunes them. Default true;
    /// false deletes a job in the statement that completes it (as graphile-worker always
    /// does, Que by default, BullMQ's `removeOnComplete`): its id then answers 404 (a second
    /// completion too; a batch completion lists it under `lease_lost`) and the queue's
    /// `completed` count stays put. Failed, discarded and cancelled jobs are kept either way.
    #[serde(default)]
    pub keep_completed: Option<bool>,
    /// Claims take round-robin across the groups this names instead of oldest first (see
    /// [`super::fair`]). Default: none (oldest first).
    #[serde(default)]
    pub fair_by: Option<FairBy>,
    /// Jobs a key's turn takes while the queue has `fair_by`, 1..=1000 (`MAX_FAIR_WEIGHT`),
    /// by key (at most 1000 keys, each a valid `partition_key`); a key not named takes 1, as
    /// do the jobs without a key. Kept as put when the queue is not fair (then unused).
    #[serde(default)]
    pub weights: Option<BTreeMap<String, i64>>,
    /// Write the lifecycle of the queue's jobs to the event feed (and so to webhooks):
    /// `job.completed`, `job.failed` (each failed attempt, with its error), `job.cancelled`,
    /// and `batch.completed` for a batch whose callback is in this queue. Default false, so
    /// that a busy queue does not flood the feed (`job.discarded` is written either way).
    #[serde(default)]
    pub events: Option<bool>,
}

/// A queue's settings (the answer of `PUT /v1/queues/{queue}`, `GET
/// /v1/queues/{queue}/settings` and pause/resume; what the stores keep).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QueueSettings {
    /// The queue.
    pub queue: String,
    /// Whether claims lease nothing.
    pub paused: bool,
    /// Most running at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_running: Option<i64>,
    /// Most running at once per key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_running_per_key: Option<i64>,
    /// Start-rate limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<Rate>,
    /// One at a time per key, in enqueue order.
    pub fifo_per_key: bool,
    /// Whether completed jobs are kept (false: deleted as they complete).
    pub keep_completed: bool,
    /// Round-robin claims across these groups (see [`super::fair`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fair_by: Option<FairBy>,
    /// Jobs per turn by key, with `fair_by` (a key not named takes 1).
    #[serde(skip_serializing_if = "BTreeMap::is_empty", default)]
    pub weights: BTreeMap<String, i64>,
    /// Whether the jobs' lifecycle goes to the event feed.
    #[serde(default)]
    pub events: bool,
}

impl Default for QueueSettings {
    /// No queue named; not paused, no limit, no FIFO, completed jobs kept: what a queue
    /// without stored settings has.
    fn default() -> Self {
        QueueSettings {
            queue: String::new(),
            paused: false,
            max_running: None,
            max_running_per_key: None,
            rate: None,
            fifo_per_key: false,
            keep_completed: true,
            fair_by: None,
            weights: BTreeMap::new(),
            events: false,
        }
    }
}

impl QueueSettings {
    /// Whether a claim must count what runs (any limit or FIFO): only then does it lock the
    /// queue's settings row, so an unlimited queue pays nothing.
    pub fn is_limited(&self) -> bool {
        self.max_running.is_some() || self.max_running_per_key.is_some() || self.rate.is_some() || self.fifo_per_key
    }

    /// How many more jobs of one key may start now under the key's bounds (`fifo_per_key`,
    /// `max_running_per_key`, a per-key rate), given `running` jobs of the key and `started`
    /// starts of it in the rate's window; `i64::MAX` when none bounds it. May be negative.
    pub fn key_room(&self, running: i64, started: i64) -> i64 {
        let mut room = i64::MAX;
        if self.fifo_per_key {
            room = room.min(1 - running);
        }
        if let Some(n) = self.max_running_per_key {
            room = room.min(n - running);
        }
        if let Some(r) = self.rate.filter(|r| r.per_key) {
            room = room.min(r.per_window - started);
        }
        room
    }

    /// Whether a claim of the queue goes through the limited path (paused, limited or
    /// fair); a queue that only drops its completed jobs is claimed as one without settings.
    pub fn gates_claims(&self) -> bool {
        self.paused || self.is_limited() || self.fair_by.is_some()
    }

    /// Whether these are the settings of a queue without stored settings (the stores then
    /// keep no row). Weights count: they are kept as put, fair or not.
    pub fn is_default(&self) -> bool {
        !self.gates_claims() && self.keep_completed && !self.events && self.weights.is_empty()
    }
}

/// Why a job that is not running is not running (`GET /v1/jobs/{id}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BlockedBy {
    /// A job it depends on has not completed yet (state `pending`).
    Dependencies,
    /// Its `run_at` is still ahead (scheduled, or a retry or snooze waiting).
    Scheduled,
    /// The queue is paused.
    Paused,
    /// An earlier job of its key is unfinished, or one of its key runs (`fifo_per_key`).
    Fifo,
    /// `max_running` or `max_running_per_key` is reached.
    Limit,
    /// The rate's window is full.
    Rate,
}

/// What a store reads about a job and its queue to say why it waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockFacts {
    /// Jobs of the queue running.
    pub running_in_queue: i64,
    /// Jobs of the job's key running (0 without a key).
    pub running_of_key: i64,
    /// Starts counted by the rate's window (queue-wide or of the key, as the rate says).
    pub started_in_window: i64,
    /// An unfinished job of the same key has a smaller id.
    pub fifo_predecessor: bool,
}

/// Why a job in `state`, due at `run_at`, with `partition_key`, does not run at `now` under
/// `settings` and `facts`; `None` when it is running, finished, or the next claim may take it.
pub fn blocked_by(
    job: &super::JobView,
    now: DateTime<Utc>,
    settings: &QueueSettings,
    facts: &BlockFacts,
) -> Option<BlockedBy> {
    use super::JobState::*;
    if job.state == Pending {
        return Some(BlockedBy::Dependencies);
    }
    if !matches!(job.state, Available | Scheduled | Retryable) {
        return None;
    }
    let keyed = job.partition_key.is_some();
    if job.run_at > now {
        Some(BlockedBy::Scheduled)
    } else if settings.paused {
        Some(BlockedBy::Paused)
    } else if settings.fifo_per_key && keyed && (facts.fifo_predecessor || facts.running_of_key > 0) {
        Some(BlockedBy::Fifo)
    } else if settings.max_running.is_some_and(|n| facts.running_in_queue >= n)
        || (keyed && settings.max_running_per_key.is_some_and(|n| facts.running_of_key >= n))
    {
        Some(BlockedBy::Limit)
    } else if settings
        .rate
        .is_some_and(|r| (keyed || !r.per_key) && facts.started_in_window >= r.per_window)
    {
        Some(BlockedBy::Rate)
    } else {
        None
    }
}

/// `GET /v1/jobs/{id}` answer: the job, its lease, and why it waits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobDetail {
    /// The job as listings show it.
    #[serde(flatten)]
    pub job: super::JobView,
    /// Lease expiry while running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lease_expires_at: Option<DateTime<Utc>>,
    /// The worker of the current or last attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worker: Option<String>,
    /// When the current or last attempt started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempted_at: Option<DateTime<Utc>>,
    /// Why it is not running, when it could be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<BlockedBy>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{JobState, JobView};

    fn job(state: JobState, key: Option<&str>, run_at: DateTime<Utc>) -> JobView {
        JobView {
            id: 2,
            queue: "q".into(),
            state,
            priority: 1,
            payload: serde_json::json!({}),
            attempt: 0,
            max_attempts: 3,
            errors: serde_json::json!([]),
            run_at,
            unique_key: None,
            created_at: run_at,
            finalized_at: None,
            partition_key: key.map(str::to_string),
            tags: vec![],
            metadata: serde_json::json!({}),
            output: None,
            dependency_failure: None,
        }
    }

    #[test]
    fn the_first_reason_in_order_is_given() {
        let now = Utc::now();
        let later = now + chrono::Duration::seconds(5);
        let mut s = QueueSettings {
            queue: "q".into(),
            paused: true,
            max_running: Some(2),
            max_running_per_key: Some(1),
            rate: Some(Rate {
                per_window: 3,
                window_ms: 1000,
                per_key: false,
            }),
            fifo_per_key: true,
            keep_completed: true,
            ..QueueSettings::default()
        };
        let busy = BlockFacts {
            running_in_queue: 2,
            running_of_key: 1,
            started_in_window: 3,
            fifo_predecessor: true,
        };
        let j = job(JobState::Available, Some("k"), now);
        assert_eq!(
            blocked_by(&job(JobState::Retryable, Some("k"), later), now, &s, &busy),
            Some(BlockedBy::Scheduled)
        );
        assert_eq!(blocked_by(&j, now, &s, &busy), Some(BlockedBy::Paused));
        s.paused = false;
        assert_eq!(blocked_by(&j, now, &s, &busy), Some(BlockedBy::Fifo));
        s.fifo_per_key = false;
        assert_eq!(blocked_by(&j, now, &s, &busy), Some(BlockedBy::Limit));
        let free_key = BlockFacts {
            running_in_queue: 1,
            running_of_key: 0,
            ..busy
        };
        assert_eq!(blocked_by(&j, now, &s, &free_key), Some(BlockedBy::Rate));
        assert_eq!(blocked_by(&j, now, &s, &BlockFacts::default()), None);
        assert_eq!(blocked_by(&job(JobState::Running, None, now), now, &s, &busy), None);
        // Without a key, only the queue-wide limits apply.
        s.rate = Some(Rate {
            per_window: 3,
            window_ms: 1000,
            per_key: true,
        });
        let j = job(JobState::Available, None, now);
        assert_eq!(blocked_by(&j, now, &s, &free_key), None);
    }
}
