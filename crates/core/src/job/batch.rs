//! Batches with a callback: an enqueue whose body says `"batch": {"id", "callback": {job}}`
//! makes, beside its jobs (the members), a callback job that waits (`pending`) for every
//! member to reach a terminal state (completed, discarded or cancelled, whichever), then
//! becomes runnable once, with `"batch": {"id", "jobs", "completed", "discarded",
//! "cancelled"}` merged into its payload: the pattern of Sidekiq Pro's batches and Solid
//! Queue 1.7's, built on [`crate::job::depend`] (the callback depends on every member with
//! `on_failed_dependency: run`). The callback exists from the enqueue's commit, so it can be
//! neither lost nor made twice: it is released by the member that finishes last, under its
//! row's lock, even when the last members finish at the same instant on several instances.

use crate::job::{Enqueue, JobSpec, NewJob};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// `batch` of `POST /v1/queues/{queue}/jobs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct JobBatchBody {
    /// The batch's id, unique in the tenant (`409 already_exists` while its callback job is
    /// kept), 1..=`max_unit_field_len` chars.
    pub id: String,
    /// The callback's queue (this enqueue's queue when absent).
    #[serde(default)]
    pub queue: Option<String>,
    /// The callback job: an enqueue's job without `unique_key`, `depends_on` or
    /// `on_failed_dependency`; its `payload`, when given, a JSON object (the counts are merged
    /// into it as `batch`).
    pub callback: NewJob,
}

/// A validated batch.
#[derive(Debug, Clone, PartialEq)]
pub struct JobBatch {
    /// Its id.
    pub id: String,
    /// The callback's queue.
    pub queue: String,
    /// The callback job (its payload an object).
    pub callback: JobSpec,
}

impl JobBatch {
    /// The enqueue of this batch's callback for the members `ids` (the batch's answer, in
    /// request order, duplicates possible): one job, in the batch's queue, depending on every
    /// distinct member with `on_failed_dependency: run`. Stores insert it through their own
    /// enqueue path, after the members, in the same transaction.
    pub fn callback_enqueue(&self, ids: &[i64], now: DateTime<Utc>, traceparent: Option<String>) -> Enqueue {
        let mut members = ids.to_vec();
        members.sort_unstable();
        members.dedup();
        let mut callback = self.callback.clone();
        callback.depends_on = members;
        callback.on_failed_dependency = crate::job::depend::OnFailedDependency::Run;
        Enqueue {
            queue: self.queue.clone(),
            jobs: vec![callback],
            now,
            traceparent,
            batch: None,
        }
    }
}

/// What an enqueue with a batch answers beside the members' ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct JobBatchMade {
    /// The batch's id.
    pub id: String,
    /// The callback job's id (`GET /v1/jobs/{id}`: `pending` until every member finished).
    pub callback_id: i64,
}

/// The `batch` object merged into a released callback's payload: the batch's id, its
/// members (distinct jobs) and how each ended.
pub fn counts(id: &str, jobs: i64, completed: i64, discarded: i64, cancelled: i64) -> serde_json::Value {
    serde_json::json!({
        "id": id, "jobs": jobs, "completed": completed, "discarded": discarded, "cancelled": cancelled,
    })
}
