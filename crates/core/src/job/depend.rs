//! Job dependencies: a job enqueued with `depends_on: [ids]` waits in state `pending`
//! (`blocked_by: dependencies`) until every one of those jobs completed; then it becomes
//! `available` (or `scheduled`, when its `run_at` is still ahead). A dependency that ends
//! `discarded` or `cancelled` discards its dependents, each with the reason in its
//! `dependency_failure` (`"job 7 discarded"`, the job whose end started it: not an entry of
//! `errors`, which lists attempts), and so on down the chain, unless a dependent says
//! `on_failed_dependency: "run"`: then that dependency counts as finished. The pattern of
//! pg-boss's `dependsOn` (PR #777) and River Pro's workflows (`pending` until the
//! dependencies are done).
//!
//! Dependencies name jobs that already exist (their ids come from earlier enqueues), so the
//! graph cannot have a cycle: a job can only wait for jobs older than itself. Each job's depth
//! (the longest chain of dependencies ending at it) is bounded by `max_dependency_depth`, which
//! bounds how far one discard reaches down a chain in one step.
//!
//! The rules are here; each store applies them where a job finishes, in the transaction that
//! finishes it (PostgreSQL and SQLite: a trigger on the job's state), so a dependent is
//! released exactly once whichever of its dependencies finishes last, on any instance.

use crate::job::{JobSpec, JobState};
use crate::support::error::{AllotError, Result, Rule};
use crate::support::limits::Limits;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What a dependency that ends `discarded` or `cancelled` does to a job waiting for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum OnFailedDependency {
    /// The job is discarded too, with the reason in its `dependency_failure` (the default).
    #[default]
    Discard,
    /// The failed dependency counts as finished: the job runs once every dependency is.
    Run,
}

impl OnFailedDependency {
    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            OnFailedDependency::Discard => "discard",
            OnFailedDependency::Run => "run",
        }
    }

    /// Parse a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [OnFailedDependency::Discard, OnFailedDependency::Run]
            .into_iter()
            .find(|p| p.as_str() == s)
    }
}

/// Validate `depends_on`: at most `max_job_dependencies` ids, each positive; the answer is
/// distinct and ascending (the order in which stores lock them).
pub fn depends_on(mut ids: Vec<i64>, limits: &Limits) -> Result<Vec<i64>> {
    if ids.len() > limits.max_job_dependencies {
        return Err(AllotError::LimitExceeded {
            limit: "max_job_dependencies",
            max: limits.max_job_dependencies as u64,
            message: format!("depends_on has {} ids", ids.len()),
        });
    }
    if let Some(bad) = ids.iter().find(|id| **id < 1) {
        return Err(AllotError::invalid(format!(
            "depends_on: a job id is positive, got {bad}"
        )));
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// What a store reads of one dependency when a job naming it is enqueued (under a lock that
/// keeps it from finishing meanwhile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dependency {
    /// Its id.
    pub id: i64,
    /// Its state.
    pub state: JobState,
    /// Its own depth (0 without dependencies).
    pub depth: i32,
}

/// How a job with dependencies is inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Start {
    /// `pending`, or (nothing left to wait for) `available`/`scheduled`, or `discarded`.
    pub state: JobState,
    /// Dependencies not finished yet.
    pub pending: i32,
    /// Those dependencies, ascending: the edges a store records (a finished dependency is
    /// settled already, and is never settled again, even when it is run again by hand).
    pub waits_for: Vec<i64>,
    /// Its depth: 1 + the deepest dependency's (0 without dependencies).
    pub depth: i32,
    /// Why it starts discarded: the failed dependency, as [`failure`] writes it.
    pub failure: Option<String>,
}

/// The state a job that waits for nothing starts in at `now`.
pub fn runnable(run_at: DateTime<Utc>, now: DateTime<Utc>) -> JobState {
    if run_at > now {
        JobState::Scheduled
    } else {
        JobState::Available
    }
}

/// The job whose end discards dependents: `job 7 discarded`. A cascade keeps the first job's
/// (each discarded dependent passes on what discarded it); a job enqueued naming a failed
/// dependency names that dependency (the smallest id, when several failed).
pub fn failure(id: i64, state: JobState) -> String {
    format!("job {id} {}", state.as_str())
}

/// How `spec` starts, given what the store found of its dependencies (`found`, any order).
///
/// Errors: `unknown_dependency` naming the first id of `spec.depends_on` not in `found`;
/// `limit_exceeded` (`max_dependency_depth`) when the job would be deeper than the limit.
pub fn start(spec: &JobSpec, found: &[Dependency], now: DateTime<Utc>, limits: &Limits) -> Result<Start> {
    let mut deps = Vec::with_capacity(spec.depends_on.len());
    for id in &spec.depends_on {
        match found.iter().find(|d| d.id == *id) {
            Some(d) => deps.push(*d),
            None => {
                return Err(AllotError::breaks(
                    Rule::UnknownDependency,
                    format!("depends_on: {id} is not a job of this tenant"),
                ))
            }
        }
    }
    let depth = deps.iter().map(|d| d.depth + 1).max().unwrap_or(0);
    if i64::from(depth) > limits.max_dependency_depth {
        return Err(AllotError::LimitExceeded {
            limit: "max_dependency_depth",
            max: limits.max_dependency_depth as u64,
            message: format!("depends_on: the job would be at depth {depth}"),
        });
    }
    let waits_for: Vec<i64> = deps.iter().filter(|d| !d.state.is_finished()).map(|d| d.id).collect();
    let pending = waits_for.len() as i32;
    let failed = deps
        .iter()
        .find(|d| matches!(d.state, JobState::Discarded | JobState::Cancelled));
    let (state, failure) = match failed {
        Some(d) if spec.on_failed_dependency == OnFailedDependency::Discard => {
            (JobState::Discarded, Some(self::failure(d.id, d.state)))
        }
        _ if pending > 0 => (JobState::Pending, None),
        _ => (runnable(spec.run_at, now), None),
    };
    Ok(Start {
        state,
        pending,
        waits_for,
        depth,
        failure,
    })
}

/// What one dependency finishing in `finished` does to a `pending` dependent that waits for
/// `pending` unfinished dependencies (this one among them), with `policy`, due at `run_at`:
/// its new state and count. Stores run this rule in SQL where a job finishes (V50 on
/// PostgreSQL, V33 on SQLite); the reference model runs it as written.
pub fn settle(
    finished: JobState,
    policy: OnFailedDependency,
    pending: i32,
    run_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> (JobState, i32) {
    let left = pending - 1;
    if finished != JobState::Completed && policy == OnFailedDependency::Discard {
        (JobState::Discarded, left)
    } else if left > 0 {
        (JobState::Pending, left)
    } else {
        (runnable(run_at, now), left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(s, 0).unwrap()
    }

    fn spec(deps: &[i64], policy: OnFailedDependency) -> JobSpec {
        let mut s = JobSpec::new(serde_json::json!({}), at(100));
        s.depends_on = deps.to_vec();
        s.on_failed_dependency = policy;
        s
    }

    fn dep(id: i64, state: JobState, depth: i32) -> Dependency {
        Dependency { id, state, depth }
    }

    #[test]
    fn a_job_starts_by_what_its_dependencies_are() {
        let l = Limits::default();
        let s = spec(&[1, 2], OnFailedDependency::Discard);
        let found = [dep(1, JobState::Completed, 0), dep(2, JobState::Running, 3)];
        let st = start(&s, &found, at(100), &l).unwrap();
        assert_eq!((st.state, st.pending, st.depth), (JobState::Pending, 1, 4));
        assert_eq!(st.waits_for, [2]);
        let done = [dep(1, JobState::Completed, 0), dep(2, JobState::Completed, 0)];
        assert_eq!(start(&s, &done, at(50), &l).unwrap().state, JobState::Scheduled);
        let failed = [dep(1, JobState::Cancelled, 0), dep(2, JobState::Running, 0)];
        let st = start(&s, &failed, at(100), &l).unwrap();
        assert_eq!(st.state, JobState::Discarded);
        assert_eq!(st.failure.as_deref(), Some("job 1 cancelled"));
        let run = spec(&[1, 2], OnFailedDependency::Run);
        assert_eq!(start(&run, &failed, at(100), &l).unwrap().state, JobState::Pending);
        let err = start(&s, &found[..1], at(100), &l).unwrap_err();
        assert!(err.to_string().contains("depends_on: 2"), "{err}");
        let deep = [dep(1, JobState::Running, 100)];
        let err = start(&spec(&[1], OnFailedDependency::Discard), &deep, at(100), &l).unwrap_err();
        assert!(matches!(
            err,
            AllotError::LimitExceeded {
                limit: "max_dependency_depth",
                ..
            }
        ));
    }

    #[test]
    fn settling_counts_down_or_discards() {
        use OnFailedDependency::*;
        let d = JobState::Discarded;
        assert_eq!(
            settle(JobState::Completed, Discard, 2, at(0), at(1)),
            (JobState::Pending, 1)
        );
        assert_eq!(
            settle(JobState::Completed, Discard, 1, at(0), at(1)),
            (JobState::Available, 0)
        );
        assert_eq!(
            settle(JobState::Completed, Discard, 1, at(5), at(1)),
            (JobState::Scheduled, 0)
        );
        assert_eq!(settle(d, Discard, 2, at(0), at(1)), (JobState::Discarded, 1));
        assert_eq!(settle(d, Run, 1, at(0), at(1)), (JobState::Available, 0));
        assert_eq!(depends_on(vec![3, 1, 3], &Limits::default()).unwrap(), vec![1, 3]);
        assert!(depends_on(vec![0], &Limits::default()).is_err());
    }
}
