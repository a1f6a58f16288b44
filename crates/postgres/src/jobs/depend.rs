//! Enqueue with dependencies on PostgreSQL (the rules: `allot_core::job::depend`; the schema
//! and the trigger that settles dependents when a job finishes: V50). The dependencies are
//! locked in id order and marked `has_dependents` before the jobs naming them are inserted,
//! so none of them can finish unseen: a finish waits for the lock, then its trigger sees the
//! new edges.

use super::Tx;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::job::depend::{self, Dependency, Start};
use allot_core::job::{Enqueue, JobState};
use allot_core::support::limits::Limits;
use allot_core::AllotError;
use std::collections::HashSet;

/// Lock the dependencies `$2` of tenant `$1` (id order: two enqueues naming the same jobs
/// cannot deadlock) and mark the unfinished ones `has_dependents`; each one's state and depth.
const SQL_LOCK: &str = "WITH locked AS (
    SELECT id FROM jobs WHERE tenant = $1 AND id = ANY($2) ORDER BY id FOR UPDATE)
 UPDATE jobs j SET has_dependents = j.has_dependents IS TRUE OR j.state NOT IN ('completed', 'discarded', 'cancelled')
   FROM locked WHERE j.tenant = $1 AND j.id = locked.id
 RETURNING j.id, j.state, coalesce(j.dependency_depth, 0)";

/// Start the inserted jobs `$2` of tenant `$1` as their dependencies say (`$3` now).
const SQL_START: &str = "UPDATE jobs j SET state = t.state, dependencies_pending = t.pending,
        dependency_depth = t.depth, on_failed_dependency = t.policy,
        finalized_at = CASE WHEN t.state = 'discarded' THEN $3::timestamptz END, dependency_failure = t.failure
   FROM unnest($2::int8[], $4::text[], $5::int4[], $6::int4[], $7::text[], $8::text[])
        AS t(id, state, pending, depth, policy, failure)
  WHERE j.tenant = $1 AND j.id = t.id";

/// The edges (`$2` job, `$3` the job it waits for) of tenant `$1`.
const SQL_EDGES: &str = "INSERT INTO job_dependencies (tenant, job_id, depends_on)
 SELECT $1, e.job, e.dep FROM unnest($2::int8[], $3::int8[]) AS e(job, dep)";

/// How each job of `req` starts (`None`: it names no dependency; empty when none does), after
/// locking what they name. Errors: `unknown_dependency`, `limit_exceeded` (`max_dependency_depth`).
pub(super) async fn lock(
    tx: &Tx<'_, '_>,
    tenant: &str,
    req: &Enqueue,
    limits: &Limits,
) -> TxResult<Vec<Option<Start>>> {
    let mut named: Vec<i64> = req.jobs.iter().flat_map(|j| j.depends_on.iter().copied()).collect();
    if named.is_empty() {
        // None waits: no start (and no allocation on the queue's hot path).
        return Ok(Vec::new());
    }
    named.sort_unstable();
    named.dedup();
    let found = tx
        .query(SQL_LOCK, &[&tenant, &named])
        .await?
        .iter()
        .map(|r| {
            let state: &str = r.get(1);
            Ok(Dependency {
                id: r.get(0),
                state: JobState::parse(state).ok_or_else(|| AllotError::Internal("bad job state".into()))?,
                depth: r.get(2),
            })
        })
        .collect::<allot_core::Result<Vec<_>>>()
        .map_err(TxErr::Fail)?;
    req.jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if j.depends_on.is_empty() {
                return Ok(None);
            }
            depend::start(j, &found, req.now, limits)
                .map(Some)
                .map_err(|e| TxErr::Fail(e.within(&format!("jobs[{i}]"))))
        })
        .collect()
}

/// Give the inserted jobs (`inserted`, of `ids` in request order) that name dependencies their
/// start, and record their edges.
pub(super) async fn start(
    tx: &Tx<'_, '_>,
    tenant: &str,
    req: &Enqueue,
    ids: &[i64],
    inserted: &HashSet<i64>,
    starts: &[Option<Start>],
) -> TxResult<()> {
    if starts.is_empty() {
        return Ok(());
    }
    let (mut id, mut state, mut pending, mut depth, mut policy, mut error) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut edge_job, mut edge_dep) = (vec![], vec![]);
    for ((job, s), jid) in req.jobs.iter().zip(starts).zip(ids) {
        let Some(s) = s.as_ref().filter(|_| inserted.contains(jid)) else {
            continue;
        };
        id.push(*jid);
        state.push(s.state.as_str());
        pending.push(s.pending);
        depth.push(s.depth);
        policy.push(job.on_failed_dependency.as_str());
        error.push(s.failure.as_deref());
        edge_job.extend(std::iter::repeat_n(*jid, s.waits_for.len()));
        edge_dep.extend(s.waits_for.iter().copied());
    }
    if id.is_empty() {
        return Ok(());
    }
    tx.query(
        SQL_START,
        &[&tenant, &id, &req.now, &state, &pending, &depth, &policy, &error],
    )
    .await?;
    if !edge_job.is_empty() {
        tx.query(SQL_EDGES, &[&tenant, &edge_job, &edge_dep]).await?;
    }
    Ok(())
}
