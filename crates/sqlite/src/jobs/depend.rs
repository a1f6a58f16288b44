//! Enqueue with dependencies on SQLite (the rules: `allot_core::job::depend`; the schema and
//! the trigger that settles dependents when a job finishes: V33). One writer at a time, so
//! reading the dependencies and marking them `has_dependents` in the enqueue's transaction
//! is exact: none can finish in between.

use crate::engine::errors::map_error;
use allot_core::job::depend::{self, Dependency, Start};
use allot_core::job::{Enqueue, JobSpec, JobState};
use allot_core::support::limits::Limits;
use allot_core::Result;
use rusqlite::{params, Connection};

/// How each job of `req` starts (`None`: it names no dependency; empty when none does), after one read of every
/// job the request names, which marks the unfinished ones as waited for. Errors:
/// `unknown_dependency`, `limit_exceeded` (`max_dependency_depth`), named `jobs[i]`.
pub(super) fn starts(tx: &Connection, t: &str, req: &Enqueue, limits: &Limits) -> Result<Vec<Option<Start>>> {
    let mut named: Vec<i64> = req.jobs.iter().flat_map(|j| j.depends_on.iter().copied()).collect();
    if named.is_empty() {
        return Ok(Vec::new()); // none waits: no start for any job
    }
    named.sort_unstable();
    named.dedup();
    let found = mark(tx, t, &named)?;
    req.jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            if j.depends_on.is_empty() {
                return Ok(None);
            }
            depend::start(j, &found, req.now, limits)
                .map(Some)
                .map_err(|e| e.within(&format!("jobs[{i}]")))
        })
        .collect()
}

/// Mark the unfinished jobs of `ids` as waited for; each found job's state and depth.
fn mark(tx: &Connection, t: &str, ids: &[i64]) -> Result<Vec<Dependency>> {
    let mut stmt = tx
        .prepare_cached(
            "UPDATE jobs SET has_dependents = has_dependents OR state NOT IN ('completed', 'discarded', 'cancelled')
              WHERE tenant = ?1 AND id IN (SELECT value FROM json_each(?2))
             RETURNING id, state, dependency_depth",
        )
        .map_err(map_error)?;
    let mut rows = stmt
        .query(params![t, serde_json::json!(ids).to_string()])
        .map_err(map_error)?;
    let mut found = Vec::with_capacity(ids.len());
    while let Some(r) = rows.next().map_err(map_error)? {
        let state = crate::engine::errors::stored_name(r, "state", JobState::parse).map_err(map_error)?;
        found.push(Dependency {
            id: r.get("id").map_err(map_error)?,
            state,
            depth: r.get("dependency_depth").map_err(map_error)?,
        });
    }
    Ok(found)
}

/// Give the job `id` just inserted for `j` its start, and record its edges.
pub(super) fn record(tx: &Connection, t: &str, id: i64, j: &JobSpec, s: &Start, now: i64) -> Result<()> {
    let finalized = (s.state == JobState::Discarded).then_some(now);
    tx.prepare_cached(
        "UPDATE jobs SET state = ?3, dependencies_pending = ?4, dependency_depth = ?5, on_failed_dependency = ?6,
                dependency_failure = ?7, finalized_at_us = ?8
          WHERE tenant = ?1 AND id = ?2",
    )
    .and_then(|mut st| {
        st.execute(params![
            t,
            id,
            s.state.as_str(),
            s.pending,
            s.depth,
            j.on_failed_dependency.as_str(),
            s.failure,
            finalized
        ])
    })
    .map_err(map_error)?;
    let mut edge = tx
        .prepare_cached("INSERT INTO job_dependencies (tenant, job_id, depends_on) VALUES (?1, ?2, ?3)")
        .map_err(map_error)?;
    for dep in &s.waits_for {
        edge.execute(params![t, id, dep]).map_err(map_error)?;
    }
    Ok(())
}
