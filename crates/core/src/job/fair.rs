//! Fair claiming (`"fair_by": "partition_key"` in a queue's settings): a claim takes
//! round-robin across the keys that have runnable jobs instead of oldest first, so one key's
//! 100 000 waiting jobs cannot starve ninety keys with ten each (River #1060, Solid Queue
//! #662). The technique is weighted round-robin with a turn that outlives a claim (as in
//! deficit round-robin, Shreedhar and Varghese, "Efficient Fair Queuing using Deficit
//! Round Robin", SIGCOMM 1995, with one job as the quantum's unit).
//!
//! The rules, the same on every store and in the reference model:
//! - A job's *group* is its `partition_key`; the jobs without a key form one group, named by
//!   the empty string (a key is never empty), which sorts first.
//! - The queue keeps a cursor: the group a claim visited last, and how many jobs it took from
//!   it in its current turn (`served`). A `PUT` of the settings starts a new round (no cursor).
//! - A claim walks the groups that have runnable jobs (waiting, `run_at` not after now) in
//!   byte order of their names, wrapping around as often as it needs: first the cursor's group
//!   if its turn is not over (`served` < its weight) and it has runnable jobs, else the first
//!   group after the cursor (or the first of all).
//! - At each visit a group takes, best first (priority, run_at, id), up to what its turn
//!   leaves (its weight, less `served` when the visit continues the cursor's turn; a later
//!   visit is a new turn) and what the queue's other settings allow: the claim's `max` and
//!   the queue-wide limits over the whole claim; `fifo_per_key`, `max_running_per_key` and a
//!   per-key rate for a keyed group.
//! - The cursor becomes each visited group in turn, with what its turn took.
//! - The claim stops once it has what it may take, after [`MAX_FAIR_VISITS`] visits, or when
//!   the walk comes back to the group a stretch of visits that took nothing began with (a
//!   group's runnable jobs only leave by being taken, so every group then has nothing to
//!   give). So a claim of 10 on a queue with one key's work takes 10 of it.
//!
//! Priority therefore orders jobs within a group, not across groups.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a fair queue takes round-robin across.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum FairBy {
    /// The jobs' `partition_key` (the jobs without one are one group).
    PartitionKey,
}

impl FairBy {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            FairBy::PartitionKey => "partition_key",
        }
    }

    /// The value of a stored name; `None` for any other.
    pub fn parse(s: &str) -> Option<FairBy> {
        (s == "partition_key").then_some(FairBy::PartitionKey)
    }
}

/// Most jobs one group's turn may take (a weight), and the weight of a group without one.
pub const MAX_FAIR_WEIGHT: i64 = 1000;

/// The weight of a group the settings do not name (and of the keyless group).
pub const DEFAULT_FAIR_WEIGHT: i64 = 1;

/// Most keys a queue's `weights` may name.
pub const MAX_FAIR_WEIGHTS: usize = 1000;

/// Most visits of groups one claim makes (a group at its limit is visited and passed over;
/// the next claim goes on after the last group visited, so every group is reached in turn).
pub const MAX_FAIR_VISITS: usize = 1000;

/// The weight of group `group` (`""`: the jobs without a key) under `weights`.
pub fn weight(weights: &BTreeMap<String, i64>, group: &str) -> i64 {
    weights.get(group).copied().unwrap_or(DEFAULT_FAIR_WEIGHT)
}

/// Where a fair queue's round stands: the group a claim visited last and how many jobs its
/// turn has taken so far.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FairCursor {
    /// The group visited last (`""`: the jobs without a key); `None` before the first claim
    /// of a round.
    pub group: Option<String>,
    /// Jobs taken from it in its current turn.
    pub served: i64,
}

impl FairCursor {
    /// The jobs the cursor's group may still take in its turn, when a claim continues it:
    /// `Some(n)` with n > 0, or `None` when its turn is over (or no claim ran yet).
    pub fn turn_left(&self, weights: &BTreeMap<String, i64>) -> Option<(&str, i64)> {
        let g = self.group.as_deref()?;
        let left = weight(weights, g) - self.served;
        (left > 0).then_some((g, left))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_lasts_its_weight() {
        let weights = BTreeMap::from([("big".to_string(), 3)]);
        let c = FairCursor {
            group: Some("big".into()),
            served: 1,
        };
        assert_eq!(c.turn_left(&weights), Some(("big", 2)));
        let c = FairCursor {
            group: Some("small".into()),
            served: 1,
        };
        assert_eq!(c.turn_left(&weights), None);
        assert_eq!(FairCursor::default().turn_left(&weights), None);
        assert_eq!(weight(&weights, ""), DEFAULT_FAIR_WEIGHT);
        assert_eq!(FairBy::parse(FairBy::PartitionKey.as_str()), Some(FairBy::PartitionKey));
    }
}
