//! Jobs: a work queue where each job is leased to exactly one worker at a time (ARCHITECTURE.md,
//! the queue row; the pattern of River, Oban, graphile-worker). States:
//! `available` → `running` (claimed with a lease) → `completed`, or on failure `retryable`
//! (runs again at its `run_at`) until `max_attempts`, then `discarded` (the dead letter).
//! `scheduled` jobs wait for their `run_at`. Every transition of a running job is conditional
//! on its lease token and state, so a stale worker changes nothing (`lease_lost`).

pub mod batch;
pub mod bulk;
pub mod depend;
pub mod fair;
pub mod queue;
pub mod schedule;
pub mod validate;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// A job's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting for its dependencies (`depends_on`) to complete (`blocked_by: dependencies`).
    Pending,
    /// Ready to be claimed.
    Available,
    /// Waiting for its `run_at`.
    Scheduled,
    /// Leased to a worker until `lease_expires_at`.
    Running,
    /// Failed an attempt; runs again at `run_at`.
    Retryable,
    /// Done.
    Completed,
    /// Out of attempts: the dead letter.
    Discarded,
    /// Cancelled by hand.
    Cancelled,
}

impl JobState {
    /// Every state, in the order queue counts list them.
    pub const ALL: [JobState; 8] = [
        JobState::Pending,
        JobState::Available,
        JobState::Scheduled,
        JobState::Running,
        JobState::Retryable,
        JobState::Completed,
        JobState::Discarded,
        JobState::Cancelled,
    ];

    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Pending => "pending",
            JobState::Available => "available",
            JobState::Scheduled => "scheduled",
            JobState::Running => "running",
            JobState::Retryable => "retryable",
            JobState::Completed => "completed",
            JobState::Discarded => "discarded",
            JobState::Cancelled => "cancelled",
        }
    }

    /// Parse a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        JobState::ALL.into_iter().find(|j| j.as_str() == s)
    }

    /// Whether the job is done with (completed, discarded, cancelled).
    pub fn is_finished(self) -> bool {
        matches!(self, JobState::Completed | JobState::Discarded | JobState::Cancelled)
    }
}

/// One job to enqueue.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewJob {
    /// Any JSON, at most `max_payload_bytes` serialized.
    #[serde(default)]
    pub payload: serde_json::Value,
    /// 1..=4, lower runs first. Default 1.
    #[serde(default)]
    pub priority: Option<i64>,
    /// Not before this time (RFC 3339 with offset); now when absent.
    #[serde(default)]
    pub run_at: Option<String>,
    /// Attempts before the job is discarded, 1..=`max_job_attempts`. Default 25.
    #[serde(default)]
    pub max_attempts: Option<i64>,
    /// While a job with this key is unfinished in the queue, enqueuing another returns it.
    #[serde(default)]
    pub unique_key: Option<String>,
    /// The key the queue's per-key limits and FIFO order apply to (a customer, an account),
    /// 1..=`max_unit_field_len` chars; a job without one is limited only queue-wide.
    #[serde(default)]
    pub partition_key: Option<String>,
    /// Labels to filter listings by: at most `max_job_tags`, each 1..=`max_unit_field_len`
    /// chars.
    #[serde(default)]
    pub tags: Option<Vec<String>>,
    /// Any JSON object kept with the job, at most `max_metadata_bytes` serialized.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// Ids of jobs of the tenant (any queue) this one waits for: at most
    /// `max_job_dependencies`, each an existing job (`422 unknown_dependency` otherwise). The
    /// job is `pending` until every one completed (see [`depend`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<i64>>,
    /// What a dependency that ends discarded or cancelled does to this job: `discard` it too
    /// (the default) or `run` it anyway once every dependency finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_failed_dependency: Option<depend::OnFailedDependency>,
}

/// `POST /v1/queues/{queue}/jobs` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct EnqueueBody {
    /// 1..=`max_batch_insert` jobs.
    pub jobs: Vec<NewJob>,
    /// Make the jobs a batch with a callback job, released once when every one of them has
    /// finished (see [`batch`]).
    #[serde(default)]
    pub batch: Option<batch::JobBatchBody>,
}

/// `POST /v1/queues/{queue}/jobs` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Enqueued {
    /// The id of each job, in request order (an existing id for a `unique_key` duplicate).
    pub ids: Vec<i64>,
    /// The batch and its callback job, when the enqueue made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch: Option<batch::JobBatchMade>,
}

/// A validated job to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Payload.
    pub payload: serde_json::Value,
    /// Priority 1..=4.
    pub priority: i16,
    /// When it may run.
    pub run_at: DateTime<Utc>,
    /// Attempts allowed.
    pub max_attempts: i32,
    /// Dedup key.
    pub unique_key: Option<String>,
    /// Key of per-key limits and FIFO order.
    pub partition_key: Option<String>,
    /// Labels (distinct, in request order).
    pub tags: Vec<String>,
    /// A JSON object (`{}` when not given).
    pub metadata: serde_json::Value,
    /// The jobs it waits for: distinct ids, ascending.
    pub depends_on: Vec<i64>,
    /// What a failed dependency does to it.
    pub on_failed_dependency: depend::OnFailedDependency,
}

impl JobSpec {
    /// A job of `payload` runnable at `run_at`: priority 1, 25 attempts, no keys, tags or
    /// metadata.
    pub fn new(payload: serde_json::Value, run_at: DateTime<Utc>) -> Self {
        JobSpec {
            payload,
            priority: 1,
            run_at,
            max_attempts: 25,
            unique_key: None,
            partition_key: None,
            tags: Vec::new(),
            metadata: serde_json::json!({}),
            depends_on: Vec::new(),
            on_failed_dependency: depend::OnFailedDependency::Discard,
        }
    }
}

/// A validated enqueue.
#[derive(Debug, Clone, PartialEq)]
pub struct Enqueue {
    /// The queue.
    pub queue: String,
    /// The jobs, in request order.
    pub jobs: Vec<JobSpec>,
    /// When the request was made (jobs without `run_at` run from then).
    pub now: DateTime<Utc>,
    /// The W3C `traceparent` of the span that enqueued the jobs (set by the server from its
    /// own span, never from the body), stored with each job so its runs continue the trace.
    pub traceparent: Option<String>,
    /// The batch the jobs make, with its callback.
    pub batch: Option<batch::JobBatch>,
}

/// `POST /v1/queues/{queue}/claims` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ClaimBody {
    /// Most jobs to claim, 1..=`max_claim`. Default 1.
    #[serde(default)]
    pub max: Option<i64>,
    /// Lease (visibility timeout), `min_lease_ms..=max_lease_ms`. Default 30 000.
    #[serde(default)]
    pub lease_ms: Option<i64>,
    /// Who claims (for operators).
    #[serde(default)]
    pub worker: Option<String>,
    /// `skip_locked` (default) or `advisory` on PostgreSQL; `serialized` on SQLite.
    #[serde(default)]
    pub strategy: Option<String>,
    /// Long-poll: when nothing is runnable, wait up to this long (0..=`max_wait_ms`) for a
    /// job before answering empty. Default 0.
    #[serde(default)]
    pub wait_ms: Option<i64>,
}

/// How a claim picks its jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClaimStrategy {
    /// One statement: `ORDER BY priority, run_at, id LIMIT n FOR UPDATE SKIP LOCKED`, the
    /// UPDATE re-checking the state.
    SkipLocked,
    /// `pg_try_advisory_xact_lock` over a bounded `LIMIT` window of candidates, in one
    /// statement (transaction-scoped: no lock outlives it), the UPDATE re-checking the state.
    Advisory,
    /// SQLite: one serialized write transaction.
    Serialized,
}

impl ClaimStrategy {
    /// Every claim strategy.
    pub const ALL: [ClaimStrategy; 3] = [
        ClaimStrategy::SkipLocked,
        ClaimStrategy::Advisory,
        ClaimStrategy::Serialized,
    ];

    /// Wire name.
    pub fn name(self) -> &'static str {
        match self {
            ClaimStrategy::SkipLocked => "skip_locked",
            ClaimStrategy::Advisory => "advisory",
            ClaimStrategy::Serialized => "serialized",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        ClaimStrategy::ALL.into_iter().find(|c| c.name() == s)
    }
}

/// A validated claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    /// The queue.
    pub queue: String,
    /// Most jobs.
    pub max: i64,
    /// Lease, ms.
    pub lease_ms: i64,
    /// Worker name.
    pub worker: Option<String>,
    /// Strategy (resolved).
    pub strategy: ClaimStrategy,
    /// Long-poll bound, ms.
    pub wait_ms: i64,
    /// Whether an empty result is this request's answer (true unless a long-poll will try
    /// again): only then is an empty claim stored with an idempotency key.
    pub final_try: bool,
}

/// A job leased to a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LeasedJob {
    /// Id.
    pub id: i64,
    /// Payload.
    pub payload: serde_json::Value,
    /// This attempt's number (1 for the first).
    pub attempt: i32,
    /// Attempts allowed.
    pub max_attempts: i32,
    /// Priority.
    pub priority: i16,
    /// The token every transition of this attempt must carry.
    pub lease_token: String,
    /// When the lease lapses unless extended by a heartbeat.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub lease_expires_at: DateTime<Utc>,
    /// The W3C `traceparent` of the request that enqueued the job, when traces were on
    /// there: a worker's first attempt continues that trace, a retry links to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
}

/// `POST /v1/queues/{queue}/claims` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Claimed {
    /// The jobs, best first (priority, run_at, id).
    pub jobs: Vec<LeasedJob>,
}

/// `complete` / `fail` / `heartbeat` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LeaseBody {
    /// The lease token of the attempt.
    pub lease_token: String,
    /// `fail`: what went wrong (kept in the job's errors).
    #[serde(default)]
    pub error: Option<String>,
    /// `fail`: retry after this many ms instead of the exponential backoff.
    #[serde(default)]
    pub retry_in_ms: Option<i64>,
    /// `heartbeat`: the new lease from now, ms.
    #[serde(default)]
    pub lease_ms: Option<i64>,
}

/// `POST /v1/jobs/{id}/complete` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CompleteBody {
    /// The lease token of the attempt.
    pub lease_token: String,
    /// What the job produced: any JSON, at most `max_payload_bytes` serialized, kept with the
    /// job (`GET /v1/jobs/{id}`) until it is pruned.
    #[serde(default)]
    pub output: Option<serde_json::Value>,
}

/// A validated `complete`.
#[derive(Debug, Clone, PartialEq)]
pub struct Complete {
    /// The lease token of the attempt.
    pub lease_token: String,
    /// The job's output, if any.
    pub output: Option<serde_json::Value>,
}

impl Complete {
    /// A completion by `lease_token` without output.
    pub fn new(lease_token: impl Into<String>) -> Self {
        Complete {
            lease_token: lease_token.into(),
            output: None,
        }
    }
}

/// `POST /v1/jobs/{id}/reschedule` body: an operator moves a waiting job's next run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RescheduleBody {
    /// Run no earlier than this long from now, ms (0..=`max_snooze_ms`; 0: now).
    pub delay_ms: i64,
}

/// `POST /v1/jobs/{id}/snooze` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SnoozeBody {
    /// The lease token of the attempt.
    pub lease_token: String,
    /// Run again after this long, ms (0..=`max_snooze_ms`).
    pub delay_ms: i64,
}

/// A validated snooze: the running attempt ends without counting (`attempt` goes back by
/// one) and the job is `scheduled` at now + `delay_ms` (Oban's `{:snooze, s}`, River's
/// `JobSnooze`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snooze {
    /// The lease token of the attempt.
    pub lease_token: String,
    /// Delay, ms.
    pub delay_ms: i64,
}

/// A validated `fail`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    /// The lease token of the attempt.
    pub lease_token: String,
    /// What went wrong (empty when not given).
    pub error: String,
    /// Retry after this many ms (0..=`max_retry_in_ms`) instead of the backoff.
    pub retry_in_ms: Option<i64>,
}

/// A job's state after a transition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobStatus {
    /// Id.
    pub id: i64,
    /// State.
    pub state: JobState,
    /// Attempts made.
    pub attempt: i32,
    /// When it runs next (retryable/scheduled).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub run_at: DateTime<Utc>,
    /// Lease expiry while running.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub lease_expires_at: Option<DateTime<Utc>>,
}

/// `GET /v1/queues/{queue}` answer: jobs per state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QueueCounts {
    /// The queue.
    pub queue: String,
    /// Count per state (every state present, zero when none).
    pub counts: std::collections::BTreeMap<JobState, i64>,
}

impl QueueCounts {
    /// The counts of `queue` from `(stored state name, count)` rows; states without a row
    /// count 0. A stored name no state has is an internal error.
    pub fn from_rows(
        queue: &str,
        rows: impl IntoIterator<Item = (String, i64)>,
    ) -> crate::support::error::Result<Self> {
        let mut counts: std::collections::BTreeMap<JobState, i64> = JobState::ALL.iter().map(|s| (*s, 0)).collect();
        for (state, n) in rows {
            let s = JobState::parse(&state).ok_or_else(|| {
                crate::support::error::AllotError::Internal(format!("job of unknown state `{state}`"))
            })?;
            counts.insert(s, n);
        }
        Ok(QueueCounts {
            queue: queue.to_string(),
            counts,
        })
    }

    /// The counts of several queues from `(queue, stored state name, count)` rows ordered by
    /// queue; a queue whose counts are all 0 is left out.
    pub fn many(rows: impl IntoIterator<Item = (String, String, i64)>) -> crate::support::error::Result<Vec<Self>> {
        let mut by_queue: Vec<(String, Vec<(String, i64)>)> = Vec::new();
        for (queue, state, n) in rows {
            match by_queue.last_mut() {
                Some((q, states)) if *q == queue => states.push((state, n)),
                _ => by_queue.push((queue, vec![(state, n)])),
            }
        }
        let mut out = Vec::with_capacity(by_queue.len());
        for (queue, states) in by_queue {
            let counts = QueueCounts::from_rows(&queue, states)?;
            if counts.counts.values().any(|n| *n != 0) {
                out.push(counts);
            }
        }
        Ok(out)
    }

    /// Jobs not finished yet (pending, available, scheduled, retryable, running).
    pub fn open(&self) -> i64 {
        self.counts
            .iter()
            .filter(|(s, _)| !s.is_finished())
            .map(|(_, n)| n)
            .sum()
    }
}

/// `GET /v1/queues` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct QueueList {
    /// Queues by name, each with its counts by state.
    pub queues: Vec<QueueCounts>,
    /// The last queue of this page, to send as `after` for the next; `null` on the last page.
    pub next: Option<String>,
}

/// A job as listings show it (e.g. the dead letters: `state=discarded`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobView {
    /// Id.
    pub id: i64,
    /// Queue.
    pub queue: String,
    /// State.
    pub state: JobState,
    /// Priority.
    pub priority: i16,
    /// Payload.
    pub payload: serde_json::Value,
    /// Attempts made.
    pub attempt: i32,
    /// Attempts allowed.
    pub max_attempts: i32,
    /// One entry per failed attempt: `{"attempt", "error", "at"}`.
    pub errors: serde_json::Value,
    /// When it may run (next).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub run_at: DateTime<Utc>,
    /// Dedup key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unique_key: Option<String>,
    /// When it was enqueued.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub created_at: DateTime<Utc>,
    /// When it reached a final state.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub finalized_at: Option<DateTime<Utc>>,
    /// Key of per-key limits and FIFO order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition_key: Option<String>,
    /// Labels.
    pub tags: Vec<String>,
    /// The metadata given at enqueue (`{}` when none).
    pub metadata: serde_json::Value,
    /// What the job produced (given on `complete`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<serde_json::Value>,
    /// Set when a failed dependency discarded the job: the job whose end did, as
    /// `job 7 discarded` (or `cancelled`); see [`depend`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dependency_failure: Option<String>,
}

/// Which jobs of a queue a listing shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobFilter {
    /// Only jobs in this state; every state when `None`.
    pub state: Option<JobState>,
    /// Only jobs carrying this tag.
    pub tag: Option<String>,
    /// Only jobs whose metadata has this top-level key with this scalar value.
    pub metadata: Option<(String, serde_json::Value)>,
    /// Only jobs whose payload (an object) has this top-level key with this scalar value.
    pub payload: Option<(String, serde_json::Value)>,
}

impl From<JobState> for JobFilter {
    fn from(state: JobState) -> Self {
        JobFilter {
            state: Some(state),
            ..JobFilter::default()
        }
    }
}

/// `GET /v1/queues/{queue}/jobs` answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobList {
    /// Jobs with `id > after`, by id: at most `limit`, and at most `max_page_bytes` of
    /// documents (payloads and error lists; the job that crosses the bound ends the page).
    pub jobs: Vec<JobView>,
    /// The last id of this page, to send as `after` for the next; `null` on the last page,
    /// an exactly full one or one ended by `max_page_bytes` included.
    pub next: Option<i64>,
}

/// One entry of a batch completion.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Completion {
    /// Job id.
    pub id: i64,
    /// Its lease token.
    pub lease_token: String,
}

/// `POST /v1/queues/{queue}/completions` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CompletionsBody {
    /// 1..=`max_batch_insert` completions; each succeeds or is `lease_lost` on its own.
    pub jobs: Vec<Completion>,
}

/// `POST /v1/queues/{queue}/completions` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Completions {
    /// Jobs now completed.
    pub completed: Vec<i64>,
    /// Jobs whose token was stale (nothing changed for them).
    pub lease_lost: Vec<i64>,
}

/// Base of the retry backoff, ms.
pub const RETRY_BASE_MS: i64 = 1000;

/// The lease a claim or a heartbeat asks for when its body names none, ms.
pub const DEFAULT_LEASE_MS: i64 = 30_000;
/// Cap of the retry backoff, ms (one hour).
pub const RETRY_CAP_MS: i64 = 3_600_000;

/// Delay before retry number `attempt` (1-based attempt that just failed):
/// `min(cap, base · 2^(attempt-1))`, scaled by `0.5 + jitter/2` with `jitter` in [0, 1)
/// ("equal jitter", AWS Architecture Blog, "Exponential Backoff And Jitter"). An explicit
/// `retry_in_ms` wins.
pub fn retry_delay_ms(attempt: i32, retry_in_ms: Option<i64>, jitter: f64) -> i64 {
    if let Some(ms) = retry_in_ms {
        return ms.max(0);
    }
    let exp = (attempt.max(1) - 1).min(40) as u32;
    let raw = RETRY_BASE_MS.saturating_mul(1i64 << exp.min(40)).min(RETRY_CAP_MS);
    (raw as f64 * (0.5 + jitter.clamp(0.0, 1.0) / 2.0)) as i64
}

/// The state a failed attempt leads to: `discarded` when `attempt >= max_attempts`, else
/// `retryable`.
pub fn after_failure(attempt: i32, max_attempts: i32) -> JobState {
    if attempt >= max_attempts {
        JobState::Discarded
    } else {
        JobState::Retryable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_caps_and_jitters() {
        assert_eq!(retry_delay_ms(1, None, 1.0), 1000);
        assert_eq!(retry_delay_ms(1, None, 0.0), 500);
        assert_eq!(retry_delay_ms(3, None, 1.0), 4000);
        assert_eq!(retry_delay_ms(60, None, 1.0), RETRY_CAP_MS);
        assert_eq!(retry_delay_ms(5, Some(10), 0.3), 10);
        assert_eq!(after_failure(3, 3), JobState::Discarded);
        assert_eq!(after_failure(2, 3), JobState::Retryable);
        for s in JobState::ALL {
            assert_eq!(JobState::parse(s.as_str()), Some(s));
        }
    }
}
