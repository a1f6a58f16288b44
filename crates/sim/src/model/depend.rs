//! Job dependencies in the model, by `allot_core::job::depend`'s rules as written: an
//! enqueue reads every job's dependencies before inserting any (an unknown one refuses the
//! whole request), marks the unfinished ones as waited for, inserts, then starts the jobs that
//! wait; a job that finishes settles the jobs waiting for it, once per edge, and a dependent it
//! discards settles its own (each keeping the first job's `job 7 discarded`). A batch's
//! callback is such a job, waiting for every member with `run`, its batch counting how the
//! members ended; claims show the counts merged into a released callback's payload.

use super::capacity::at;
use super::Model;
use allot_core::job::depend::{self, Dependency, OnFailedDependency, Start};
use allot_core::job::{JobSpec, JobState};
use allot_core::AllotError;

/// A batch: its callback job, its members and how those ended.
#[derive(Debug, Clone, Default)]
pub(super) struct BatchRow {
    pub(super) callback: i64,
    jobs: i64,
    completed: i64,
    discarded: i64,
    cancelled: i64,
}

impl BatchRow {
    /// The counts a released callback's payload gets, as `batch`.
    fn counts(&self, id: &str) -> serde_json::Value {
        allot_core::job::batch::counts(id, self.jobs, self.completed, self.discarded, self.cancelled)
    }

    /// Count one member that ended in `state`.
    fn count(&mut self, state: JobState) {
        match state {
            JobState::Completed => self.completed += 1,
            JobState::Discarded => self.discarded += 1,
            JobState::Cancelled => self.cancelled += 1,
            _ => {}
        }
    }
}

impl Model {
    /// Batch `id`'s callback in `queue`, waiting for the members `ids` (the enqueue's answer,
    /// duplicates possible), made after them as the stores make it; its id.
    pub(super) fn make_batch(&mut self, queue: &str, id: &str, ids: &[i64]) -> Result<i64, AllotError> {
        let mut members = ids.to_vec();
        members.sort_unstable();
        members.dedup();
        let now = self.now_us();
        let start = self.dependency_start(0, &members, OnFailedDependency::Run, now)?;
        self.mark_awaited(&members);
        let template = super::jobs::Template {
            priority: 1,
            max_attempts: 25,
            partition_key: None,
        };
        let callback = self.enqueue_one(queue, template, None, now);
        if let Some(start) = start {
            self.start_waiting(callback, OnFailedDependency::Run, start);
        }
        let mut row = BatchRow {
            callback,
            jobs: members.len() as i64,
            ..BatchRow::default()
        };
        for m in &members {
            if let Some(j) = self.jobs.get(m) {
                row.count(j.state());
            }
        }
        if let Some(j) = self.jobs.get_mut(&callback).filter(|j| j.state() != JobState::Pending) {
            j.batch_counts = Some(row.counts(id));
        }
        self.batches.insert(id.to_string(), row);
        Ok(callback)
    }

    /// How a job naming `deps` (ids, as the request gave them) with `policy`, due at
    /// `run_at_us`, starts: `None` when it names none. Errors: `unknown_dependency`,
    /// `limit_exceeded` (`max_dependency_depth`), named `jobs[i]`.
    pub(super) fn dependency_start(
        &self,
        i: usize,
        deps: &[i64],
        policy: OnFailedDependency,
        run_at_us: i64,
    ) -> Result<Option<Start>, AllotError> {
        if deps.is_empty() {
            return Ok(None);
        }
        let mut spec = JobSpec::new(serde_json::json!({}), at(run_at_us));
        // The request's own ids were validated with it; a batch's callback names every
        // member, which no count bounds.
        spec.depends_on = deps.to_vec();
        spec.depends_on.sort_unstable();
        spec.depends_on.dedup();
        spec.on_failed_dependency = match self.mutation {
            Some(super::Mutation::FailedDependencyRuns) => OnFailedDependency::Run,
            _ => policy,
        };
        let found: Vec<Dependency> = spec
            .depends_on
            .iter()
            .filter_map(|id| {
                self.jobs.get(id).map(|j| Dependency {
                    id: *id,
                    state: j.state(),
                    depth: j.depth,
                })
            })
            .collect();
        depend::start(&spec, &found, at(self.now_us()), &self.limits)
            .map(Some)
            .map_err(|e| e.within(&format!("jobs[{i}]")))
    }

    /// Mark the unfinished jobs of `deps` as waited for (a job waited for is kept when it
    /// completes in a queue that drops completed jobs).
    pub(super) fn mark_awaited(&mut self, deps: &[i64]) {
        for id in deps {
            if let Some(j) = self.jobs.get_mut(id) {
                j.awaited |= !j.state().is_finished();
            }
        }
    }

    /// Start the job `id` just made as `start` says, its edges recorded.
    pub(super) fn start_waiting(&mut self, id: i64, policy: OnFailedDependency, start: Start) {
        for dep in &start.waits_for {
            self.dependents.entry(*dep).or_default().push(id);
        }
        if let Some(j) = self.jobs.get_mut(&id) {
            j.state = start.state;
            j.pending = start.pending;
            j.depth = start.depth;
            j.policy = policy;
            j.failure = start.failure;
        }
    }

    /// Job `id` just finished (completed, discarded, cancelled): settle the jobs waiting for
    /// it, and down the chain those it discards.
    pub(super) fn settle_dependents(&mut self, id: i64) {
        let Some(j) = self.jobs.get(&id) else {
            return;
        };
        if !j.awaited || !j.state().is_finished() {
            return;
        }
        let origin = j.failure.clone().unwrap_or_else(|| depend::failure(id, j.state()));
        let now = at(self.now_us());
        let mut frontier = vec![id];
        while let Some(f) = frontier.pop() {
            let Some(finished) = self.jobs.get(&f).map(|j| j.state()) else {
                continue;
            };
            for d in self.dependents.remove(&f).unwrap_or_default() {
                let mut counts = None;
                if let Some((id, b)) = self.batches.iter_mut().find(|(_, b)| b.callback == d) {
                    b.count(finished);
                    counts = Some(b.counts(id));
                }
                let Some(dj) = self.jobs.get_mut(&d).filter(|dj| dj.state() == JobState::Pending) else {
                    continue;
                };
                let policy = match self.mutation {
                    Some(super::Mutation::FailedDependencyRuns) => OnFailedDependency::Run,
                    _ => dj.policy,
                };
                let (state, left) = depend::settle(finished, policy, dj.pending, at(dj.run_at_us), now);
                dj.state = state;
                dj.pending = left;
                if matches!(state, JobState::Available | JobState::Scheduled) {
                    dj.batch_counts = dj.batch_counts.take().or(counts);
                }
                if state == JobState::Discarded {
                    dj.failure = Some(origin.clone());
                    if dj.awaited {
                        frontier.push(d);
                    }
                }
            }
        }
    }
}
