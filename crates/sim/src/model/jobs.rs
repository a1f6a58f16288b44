//! The queue in the model: enqueue (unique keys), claims in (priority, run_at, id) order with
//! leases, transitions that carry the lease token, retries until the dead letter, cancel,
//! retry by hand, the sweeper's rescue of expired leases, and the counts by state.
//!
//! A lease that expired is not lost by itself: until a sweep rescues the job, its worker's
//! token still completes, fails or heartbeats it, and no claim takes it (docs/api.md, Jobs:
//! "`allot serve` rescues jobs whose lease expired").

use super::{Done, Model};
use crate::made::Noted;
use crate::ops::NewJob;
use allot_core::job::{after_failure, JobState};
use allot_core::AllotError;
use serde_json::{json, Value};

/// What a new job is made of besides its queue, unique key and start.
#[derive(Debug, Clone)]
pub(super) struct Template {
    /// 1..=4, lower first.
    pub(super) priority: i64,
    /// Attempts before the dead letter.
    pub(super) max_attempts: i64,
    /// The key of per-key limits, rates and FIFO.
    pub(super) partition_key: Option<String>,
}

/// A job as the model keeps it (instants in µs since the epoch).
#[derive(Debug, Clone)]
pub(super) struct Job {
    queue: String,
    pub(super) state: JobState,
    priority: i64,
    max_attempts: i64,
    attempt: i64,
    unique_key: Option<String>,
    pub(super) run_at_us: i64,
    lease_expires_us: Option<i64>,
    token: Option<String>,
    partition_key: Option<String>,
    /// Dependencies it still waits for (while `pending`).
    pub(super) pending: i32,
    /// Its dependency depth.
    pub(super) depth: i32,
    /// Whether a job waits (or waited) for it.
    pub(super) awaited: bool,
    /// What a failed dependency does to it.
    pub(super) policy: allot_core::job::depend::OnFailedDependency,
    /// What discarded it because of its dependencies.
    pub(super) failure: Option<String>,
    /// A batch's callback: the counts merged into its payload as it was released.
    pub(super) batch_counts: Option<Value>,
}

impl Job {
    /// Its queue.
    pub(super) fn queue(&self) -> &str {
        &self.queue
    }

    /// Its state.
    pub(super) fn state(&self) -> JobState {
        self.state
    }

    /// Its `partition_key`.
    pub(super) fn partition_key(&self) -> Option<&str> {
        self.partition_key.as_deref()
    }
}

impl Model {
    /// The jobs `ids` as [`crate::view::made_job`] shows them (the model's ids are the places).
    pub fn made_jobs_view(&self, ids: &[i64]) -> Vec<Value> {
        let view = |id: &i64, j: &Job| {
            json!({
                "job": id, "queue": j.queue, "state": j.state, "priority": j.priority,
                "max_attempts": j.max_attempts, "partition_key": j.partition_key,
                "unique_key": j.unique_key, "run_at_us": j.run_at_us,
            })
        };
        ids.iter()
            .filter_map(|id| self.jobs.get(id).map(|j| view(id, j)))
            .collect()
    }

    /// Each job in request order: the unfinished job of the queue holding its unique key, or
    /// a new one (`scheduled` when its `run_at` is after now, else `available`). Ids count
    /// from 1 in the order jobs are made, as the views name them; a deleted job's id is never
    /// given again (the stores draw ids from a sequence).
    pub(super) fn enqueue(
        &mut self,
        queue: &str,
        jobs: &[NewJob],
        deps: &[Vec<i64>],
        batch: Option<&str>,
    ) -> Result<Done, AllotError> {
        let now = self.now_us();
        let run_at = |j: &NewJob| {
            j.run_at_ms
                .map_or(now, |ms| crate::ops::start().timestamp_micros() + ms * 1000)
        };
        let policy = |j: &NewJob| match j.run_on_failed_dependency {
            true => allot_core::job::depend::OnFailedDependency::Run,
            false => allot_core::job::depend::OnFailedDependency::Discard,
        };
        if let Some(id) = batch.filter(|b| self.batches.contains_key(*b)) {
            return Err(AllotError::AlreadyExists {
                kind: "batch",
                id: id.to_string(),
            });
        }
        let none = Vec::new();
        let named = |i: usize| deps.get(i).unwrap_or(&none);
        let starts = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| self.dependency_start(i, named(i), policy(j), run_at(j)))
            .collect::<Result<Vec<_>, _>>()?;
        for i in 0..jobs.len() {
            self.mark_awaited(named(i));
        }
        let mut ids = Vec::with_capacity(jobs.len());
        let mut made = Vec::new();
        for (i, j) in jobs.iter().enumerate() {
            let before = self.jobs_made;
            let template = Template {
                priority: j.priority,
                max_attempts: j.max_attempts,
                partition_key: j.partition_key.map(str::to_string),
            };
            let id = self.enqueue_one(queue, template, j.unique_key.map(str::to_string), run_at(j));
            if self.jobs_made > before {
                made.push((i, id));
            }
            ids.push(id);
        }
        let mut starts: Vec<_> = starts.into_iter().map(Some).collect();
        for (i, id) in made {
            if let Some(start) = starts[i].take().flatten() {
                self.start_waiting(id, policy(&jobs[i]), start);
            }
        }
        let mut view = json!({ "jobs": ids });
        let mut noted = ids.clone();
        if let Some(b) = batch {
            let callback = self.make_batch(queue, b, &ids)?;
            view["batch"] = json!({"id": b, "callback": callback});
            noted.push(callback);
        }
        Ok((201, view, Some(Noted::Jobs(noted))))
    }

    /// One job of `template` with `unique_key`, to run at `run_at_us`: the unfinished job of
    /// `queue` holding the key, or a new one (`scheduled` when `run_at_us` is after now, else
    /// `available`); its id.
    pub(super) fn enqueue_one(
        &mut self,
        queue: &str,
        template: Template,
        unique_key: Option<String>,
        run_at_us: i64,
    ) -> i64 {
        if let Some(id) = unique_key.as_ref().and_then(|k| self.unfinished_with(queue, k)) {
            return id;
        }
        let state = if run_at_us > self.now_us() {
            JobState::Scheduled
        } else {
            JobState::Available
        };
        self.jobs_made += 1;
        let id = self.jobs_made;
        self.jobs.insert(
            id,
            Job {
                queue: queue.to_string(),
                state,
                priority: template.priority,
                max_attempts: template.max_attempts,
                attempt: 0,
                unique_key,
                run_at_us,
                lease_expires_us: None,
                token: None,
                partition_key: template.partition_key,
                pending: 0,
                depth: 0,
                awaited: false,
                policy: Default::default(),
                failure: None,
                batch_counts: None,
            },
        );
        id
    }

    /// The unfinished job of `queue` with unique key `key`.
    fn unfinished_with(&self, queue: &str, key: &str) -> Option<i64> {
        self.jobs
            .iter()
            .find(|(_, j)| j.queue == queue && j.unique_key.as_deref() == Some(key) && !j.state.is_finished())
            .map(|(id, _)| *id)
    }

    /// The best `max` runnable jobs of `queue` (waiting, `run_at` not after now; by priority,
    /// run_at, id) the queue's settings let start (`queues.rs`), or a fair queue's round's
    /// (`fair.rs`), each leased for `lease_ms` with a new token and its attempt counted, its
    /// start recorded; answered best first.
    pub(super) fn claim(&mut self, queue: &str, max: i64, lease_ms: i64) -> Result<Done, AllotError> {
        let room = self.room(queue, max) as usize;
        let fair = self.settings(queue).fair_by.is_some();
        let mut leases = if fair && self.mutation != Some(super::Mutation::FairClaimsOldestFirst) {
            self.fair_claim(queue, room, lease_ms)?
        } else {
            self.oldest_first(queue, room, lease_ms)?
        };
        let order = |id: &i64| self.jobs.get(id).map(|j| (j.priority, j.run_at_us));
        leases.sort_by_key(|(id, _)| (order(id), *id));
        let views: Vec<Value> = leases
            .iter()
            .filter_map(|(id, _)| self.jobs.get(id).map(|j| (id, j)))
            .map(|(id, j)| {
                json!({
                    "job": id, "attempt": j.attempt, "max_attempts": j.max_attempts,
                    "priority": j.priority, "lease_expires_at_us": j.lease_expires_us,
                    "batch": j.batch_counts,
                })
            })
            .collect();
        Ok((200, json!({ "jobs": views }), Some(Noted::Leases(leases))))
    }

    /// The runnable jobs of `queue` by (priority, run_at, id), each leased while its key
    /// allows, at most `room`.
    fn oldest_first(&mut self, queue: &str, room: usize, lease_ms: i64) -> Result<Vec<(i64, String)>, AllotError> {
        let mut leases = Vec::new();
        for id in self.runnable(queue, None) {
            if leases.len() >= room {
                break;
            }
            let key = self.jobs.get(&id).and_then(|j| j.partition_key.clone());
            if self.key_allows(queue, id, key.as_deref()) {
                leases.push((id, self.lease_one(queue, id, lease_ms)?));
            }
        }
        Ok(leases)
    }

    /// The runnable jobs of `queue` (of group `group` only, when given: "" for the jobs
    /// without a key), best first.
    pub(super) fn runnable(&self, queue: &str, group: Option<&str>) -> Vec<i64> {
        let now = self.now_us();
        let waiting = [JobState::Available, JobState::Scheduled, JobState::Retryable];
        let mut runnable: Vec<(i64, i64, i64)> = self
            .jobs
            .iter()
            .filter(|(_, j)| j.queue == queue && waiting.contains(&j.state) && j.run_at_us <= now)
            .filter(|(_, j)| group.is_none_or(|g| j.partition_key.as_deref().unwrap_or_default() == g))
            .map(|(id, j)| (j.priority, j.run_at_us, *id))
            .collect();
        runnable.sort();
        runnable.into_iter().map(|(_, _, id)| id).collect()
    }

    /// Lease job `id` of `queue` for `lease_ms`: running, its attempt counted, a new token,
    /// its start recorded while the queue has a rate (a claim without one pays nothing for
    /// them: a rate counts from the claims made under it). The token.
    pub(super) fn lease_one(&mut self, queue: &str, id: i64, lease_ms: i64) -> Result<String, AllotError> {
        let now = self.now_us();
        let key = self.jobs.get(&id).and_then(|j| j.partition_key.clone());
        if self.settings(queue).rate.is_some() {
            self.starts.push((queue.to_string(), key, now));
        }
        self.tokens += 1;
        // A claim gives lower-case UUIDs, and a token of another shape is refused as such.
        let token = format!("00000000-0000-4000-8000-{:012x}", self.tokens);
        let j = self
            .jobs
            .get_mut(&id)
            .ok_or_else(|| AllotError::Internal("a job vanished".into()))?;
        j.state = JobState::Running;
        j.attempt += 1;
        j.lease_expires_us = Some(now + lease_ms * 1000);
        j.token = Some(token.clone());
        Ok(token)
    }

    fn job(&mut self, id: &str) -> Result<(i64, &mut Job), AllotError> {
        let n: i64 = id.parse().map_err(|_| AllotError::not_found("job", id))?;
        match self.jobs.get_mut(&n) {
            Some(j) => Ok((n, j)),
            None => Err(AllotError::not_found("job", id)),
        }
    }

    /// The job running under `token`, or `lease_lost` (`not_found` for no such job).
    fn leased(&mut self, id: &str, token: &str) -> Result<(i64, &mut Job), AllotError> {
        let unchecked = self.mutation == Some(super::Mutation::LeaseCheckRemoved);
        let (n, j) = self.job(id)?;
        if j.state != JobState::Running || (j.token.as_deref() != Some(token) && !unchecked) {
            return Err(AllotError::LeaseLost { id: n });
        }
        Ok((n, j))
    }

    /// The running job under `token` is `completed`, its dependents settled; in a queue with
    /// `keep_completed: false` it is deleted by the completion (answered as completed, then
    /// `not_found` to every request, its queue's `completed` count not grown) unless a job
    /// waits or waited for it.
    pub(super) fn complete(&mut self, id: &str, token: &str) -> Result<Done, AllotError> {
        let (n, j) = self.leased(id, token)?;
        j.state = JobState::Completed;
        j.end_lease();
        let (view, queue, awaited) = (status_view(n, j), j.queue.clone(), j.awaited);
        self.settle_dependents(n);
        if !self.settings(&queue).keep_completed && !awaited {
            self.jobs.remove(&n);
            self.batches.retain(|_, b| b.callback != n);
        }
        Ok((200, view, None))
    }

    /// `retryable` at now + `retry_in_ms`, or `discarded` (its `run_at` kept) once the attempt
    /// was the last.
    pub(super) fn fail(&mut self, id: &str, token: &str, retry_in_ms: i64) -> Result<Done, AllotError> {
        let now = self.now_us();
        let (n, j) = self.leased(id, token)?;
        j.state = after_failure(j.attempt as i32, j.max_attempts as i32);
        if j.state == JobState::Retryable {
            j.run_at_us = now + retry_in_ms * 1000;
        }
        j.end_lease();
        let view = status_view(n, j);
        self.settle_dependents(n);
        Ok((200, view, None))
    }

    pub(super) fn heartbeat(&mut self, id: &str, token: &str, lease_ms: i64) -> Result<Done, AllotError> {
        let now = self.now_us();
        let (n, j) = self.leased(id, token)?;
        j.lease_expires_us = Some(now + lease_ms * 1000);
        Ok((200, status_view(n, j), None))
    }

    /// The running job under `token` is `scheduled` at now + `delay_ms`, its attempt given
    /// back (a snooze is not a failure).
    pub(super) fn snooze(&mut self, id: &str, token: &str, delay_ms: i64) -> Result<Done, AllotError> {
        let now = self.now_us();
        let (n, j) = self.leased(id, token)?;
        j.state = JobState::Scheduled;
        j.attempt -= 1;
        j.run_at_us = now + delay_ms * 1000;
        j.end_lease();
        Ok((200, status_view(n, j), None))
    }

    /// A waiting job (`available`, `scheduled`, `retryable`) runs no earlier than now +
    /// `delay_ms`: `available` at 0, else `scheduled`, its attempts unchanged; any other is
    /// answered as it is.
    pub(super) fn reschedule(&mut self, id: &str, delay_ms: i64) -> Result<Done, AllotError> {
        let now = self.now_us();
        let (n, j) = self.job(id)?;
        if matches!(j.state, JobState::Available | JobState::Scheduled | JobState::Retryable) {
            j.state = if delay_ms == 0 {
                JobState::Available
            } else {
                JobState::Scheduled
            };
            j.run_at_us = now + delay_ms * 1000;
        }
        Ok((200, status_view(n, j), None))
    }

    /// An unfinished job is cancelled; a finished one is answered as it is.
    pub(super) fn cancel_job(&mut self, id: &str) -> Result<Done, AllotError> {
        let (n, j) = self.job(id)?;
        if j.state.is_finished() {
            return Ok((200, status_view(n, j), None));
        }
        j.state = JobState::Cancelled;
        j.end_lease();
        let view = status_view(n, j);
        self.settle_dependents(n);
        Ok((200, view, None))
    }

    /// A discarded or cancelled job is `available` now, with one attempt more allowed if it
    /// had spent them all (`409 already_exists` while another unfinished job holds its unique
    /// key); any other is answered as it is.
    pub(super) fn retry_job(&mut self, id: &str) -> Result<Done, AllotError> {
        let now = self.now_us();
        let (n, j) = self.job(id)?;
        if !matches!(j.state, JobState::Discarded | JobState::Cancelled) {
            return Ok((200, status_view(n, j), None));
        }
        let (queue, key) = (j.queue.clone(), j.unique_key.clone());
        if key.as_deref().and_then(|k| self.unfinished_with(&queue, k)).is_some() {
            return Err(AllotError::AlreadyExists {
                kind: "unfinished job with this unique_key",
                id: n.to_string(),
            });
        }
        let (n, j) = self.job(id)?;
        j.state = JobState::Available;
        j.failure = None;
        j.run_at_us = now;
        j.max_attempts = j.max_attempts.max(j.attempt + 1);
        Ok((200, status_view(n, j), None))
    }

    /// The sweeper's pass: every running job whose lease expired at or before now is
    /// `retryable` at now, or `discarded` when it spent its last attempt (both `run_at` now);
    /// held bookings past their expiry written `expired`; expired unit holds finalised (their
    /// units rejoin the claims' order; a hold needs nothing else: an expired hold already
    /// reads and counts as expired).
    pub fn sweep(&mut self) {
        self.sweep_bookings();
        self.finalise_overdue(None);
        let now = self.now_us();
        let mut discarded = Vec::new();
        for (id, j) in self.jobs.iter_mut() {
            if j.state == JobState::Running && j.lease_expires_us.is_some_and(|e| e <= now) {
                j.state = after_failure(j.attempt as i32, j.max_attempts as i32);
                j.run_at_us = now;
                j.end_lease();
                if j.state == JobState::Discarded {
                    discarded.push(*id);
                }
            }
        }
        for id in discarded {
            self.settle_dependents(id);
        }
    }

    /// Jobs of `queue` by state, every state named.
    pub(super) fn queue_view(&self, queue: &str) -> Value {
        let counts: serde_json::Map<String, Value> = JobState::ALL
            .iter()
            .map(|s| {
                let n = self.jobs.values().filter(|j| j.queue == queue && j.state == *s).count();
                (s.as_str().to_string(), json!(n))
            })
            .collect();
        json!({ "counts": counts })
    }
}

impl Job {
    fn end_lease(&mut self) {
        self.lease_expires_us = None;
        self.token = None;
    }
}

/// A job's status as every transition answers it.
fn status_view(id: i64, j: &Job) -> Value {
    json!({
        "job": id, "state": j.state.as_str(), "attempt": j.attempt,
        "run_at_us": j.run_at_us, "lease_expires_at_us": j.lease_expires_us,
    })
}
