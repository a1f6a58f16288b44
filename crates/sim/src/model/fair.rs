//! A fair queue's claim in the model (`allot_core::job::fair`'s rules, written out again
//! here as the specification the stores are checked against): the groups with runnable jobs
//! in byte order of their names, from the cursor's group while its turn lasts, else from the
//! first group after it, wrapping as often as needed; at each visit, a new turn: the group's
//! best jobs while its turn and its key allow; the cursor is the group visited last with what
//! its turn took; the walk stops at the claim's room, at `MAX_FAIR_VISITS`, or back where a
//! stretch of visits that took nothing began.

use super::Model;
use allot_core::job::fair::{weight, FairCursor, MAX_FAIR_VISITS};
use allot_core::AllotError;
use std::collections::BTreeSet;

impl Model {
    /// A fair claim of at most `take` jobs of `queue` (the queue-wide limits applied), each
    /// leased for `lease_ms`: (id, token) in the order taken.
    pub(super) fn fair_claim(
        &mut self,
        queue: &str,
        take: usize,
        lease_ms: i64,
    ) -> Result<Vec<(i64, String)>, AllotError> {
        let weights = self.settings(queue).weights;
        let mut leases = Vec::new();
        let cur = self.fair_cursors.get(queue).cloned().unwrap_or_default();
        let groups = self.groups(queue);
        let (mut group, mut served) = match cur.turn_left(&weights) {
            Some((g, _)) if groups.contains(g) => (Some(g.to_string()), cur.served),
            _ => (next_after(&groups, cur.group.as_deref()), 0),
        };
        if take == 0 {
            return Ok(leases);
        }
        let (mut cursor, mut idle_from, mut visits) = (cur, None, 0);
        while let Some(g) = group {
            if visits >= MAX_FAIR_VISITS || leases.len() >= take {
                break;
            }
            visits += 1;
            let left = (weight(&weights, &g) - served).min((take - leases.len()) as i64);
            let mut got = 0;
            for id in self.runnable(queue, Some(&g)) {
                if got >= left {
                    break;
                }
                if !g.is_empty() && !self.key_allows(queue, id, Some(&g)) {
                    continue;
                }
                leases.push((id, self.lease_one(queue, id, lease_ms)?));
                got += 1;
            }
            cursor = FairCursor {
                group: Some(g.clone()),
                served: served + got,
            };
            served = 0;
            // Back at the group an idle stretch began with, every group has taken nothing.
            if got > 0 {
                idle_from = None;
            } else if idle_from.is_none() {
                idle_from = Some(g.clone());
            }
            group = next_after(&self.groups(queue), Some(&g));
            if group.is_some() && group == idle_from {
                break;
            }
        }
        self.fair_cursors.insert(queue.to_string(), cursor);
        Ok(leases)
    }

    /// The groups of `queue`'s runnable jobs ("" for the jobs without a key), byte order.
    fn groups(&self, queue: &str) -> BTreeSet<String> {
        self.runnable(queue, None)
            .iter()
            .filter_map(|id| self.jobs.get(id))
            .map(|j| j.partition_key().unwrap_or_default().to_string())
            .collect()
    }
}

/// The first group after `after` (the first of all when none is after it, or `after` is
/// `None`).
fn next_after(groups: &BTreeSet<String>, after: Option<&str>) -> Option<String> {
    after
        .and_then(|a| groups.iter().find(|g| g.as_str() > a))
        .or_else(|| groups.iter().next())
        .cloned()
}
