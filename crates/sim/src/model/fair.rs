//! A fair queue's claim in the model (`allot_core::job::fair`'s rules, written out again
//! here as the specification the stores are checked against): the groups with runnable jobs
//! in byte order of their names, from the cursor's group while its turn lasts, else from the
//! first group after it, wrapping, each once; at each group, its best jobs while its turn
//! and its key allow; the cursor is the group visited last with what its turn took.

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
        let groups: Vec<String> = self
            .runnable(queue, None)
            .iter()
            .filter_map(|id| self.jobs.get(id))
            .map(|j| j.partition_key().unwrap_or_default().to_string())
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect();
        let mut leases = Vec::new();
        if take == 0 || groups.is_empty() {
            return Ok(leases);
        }
        let cur = self.fair_cursors.get(queue).cloned().unwrap_or_default();
        let (start, mut served) = match cur.turn_left(&weights) {
            Some((g, _)) if groups.iter().any(|n| n == g) => {
                (groups.iter().position(|n| n == g).unwrap_or(0), cur.served)
            }
            _ => {
                let after = cur.group.as_deref();
                let next = groups.iter().position(|n| after.is_none_or(|a| n.as_str() > a));
                (next.unwrap_or(0), 0)
            }
        };
        let mut cursor = cur;
        for step in 0..groups.len().min(MAX_FAIR_VISITS) {
            if leases.len() >= take {
                break;
            }
            let g = &groups[(start + step) % groups.len()];
            let left = (weight(&weights, g) - served).min((take - leases.len()) as i64);
            let mut got = 0;
            for id in self.runnable(queue, Some(g)) {
                if got >= left {
                    break;
                }
                if !g.is_empty() && !self.key_allows(queue, id, Some(g)) {
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
        }
        self.fair_cursors.insert(queue.to_string(), cursor);
        Ok(leases)
    }
}
