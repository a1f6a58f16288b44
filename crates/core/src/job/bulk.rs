//! Bulk actions on a queue's jobs by filter (`POST /v1/queues/{queue}/jobs/bulk`): retry,
//! cancel or delete every job a filter matches, at most `max` per call (oldest first), with a
//! dry run that only counts. A call that leaves more matching jobs says so (`more`); the
//! operator calls again. Rows another transaction holds are passed over this call
//! (`SKIP LOCKED`).

use crate::job::JobState;
use serde::{Deserialize, Serialize};

/// What a bulk call does to the jobs it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BulkAction {
    /// Discarded or cancelled jobs become `available` now, with at least one attempt left.
    Retry,
    /// Unfinished jobs become `cancelled` (a running one's worker gets `lease_lost`).
    Cancel,
    /// Jobs that are not running are deleted (an unfinished one that other jobs wait for is
    /// first cancelled, so that they learn of it: see [`crate::job::depend`]).
    Delete,
}

impl BulkAction {
    /// The states a job must be in for the action to apply to it.
    pub fn states(self) -> &'static [JobState] {
        use JobState::*;
        match self {
            BulkAction::Retry => &[Discarded, Cancelled],
            BulkAction::Cancel => &[Pending, Available, Scheduled, Retryable, Running],
            BulkAction::Delete => &[
                Pending, Available, Scheduled, Retryable, Completed, Discarded, Cancelled,
            ],
        }
    }
}

/// Which jobs of the queue a bulk call matches (every field optional: all match).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BulkFilter {
    /// Only jobs in this state (it must be one the action applies to).
    #[serde(default)]
    pub state: Option<JobState>,
    /// Only jobs with this tag.
    #[serde(default)]
    pub tag: Option<String>,
    /// Only jobs of this partition key.
    #[serde(default)]
    pub partition_key: Option<String>,
}

/// `POST /v1/queues/{queue}/jobs/bulk` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BulkBody {
    /// `retry`, `cancel` or `delete`.
    pub action: BulkAction,
    /// Which jobs.
    #[serde(default, deserialize_with = "crate::support::input::object_only")]
    pub filter: Option<BulkFilter>,
    /// Only count what would change. Default false.
    #[serde(default)]
    pub dry_run: Option<bool>,
    /// Most jobs this call acts on, 1..=`max_bulk_jobs`. Default `max_bulk_jobs`.
    #[serde(default)]
    pub max: Option<i64>,
}

/// A validated bulk call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bulk {
    /// The queue.
    pub queue: String,
    /// The action.
    pub action: BulkAction,
    /// The states matched: the filter's state, or every state the action applies to.
    pub states: Vec<JobState>,
    /// A tag the jobs must carry.
    pub tag: Option<String>,
    /// A partition key the jobs must have.
    pub partition_key: Option<String>,
    /// Only count.
    pub dry_run: bool,
    /// Most jobs acted on.
    pub max: i64,
    /// Who asks (the API key's id; `None` on a server without keys), for the audit trail
    /// (`queue.bulk_applied`). Set by the server from the caller, never from the body.
    pub actor: Option<String>,
}

impl Bulk {
    /// The `data` of the `queue.bulk_applied` event of this call: what it asked, what it
    /// did, who asked.
    pub fn audit(&self, matched: i64, changed: i64) -> serde_json::Value {
        let state = (self.states.len() == 1).then(|| self.states[0].as_str());
        serde_json::json!({
            "queue": self.queue,
            "action": self.action,
            "filter": {"state": state, "tag": self.tag, "partition_key": self.partition_key},
            "max": self.max,
            "matched": matched,
            "changed": changed,
            "actor": self.actor,
        })
    }
}

/// `POST /v1/queues/{queue}/jobs/bulk` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BulkResult {
    /// Jobs this call matched (at most `max`).
    pub matched: i64,
    /// Jobs it changed (0 on a dry run).
    pub changed: i64,
    /// More jobs match beyond `max`: call again.
    pub more: bool,
}
