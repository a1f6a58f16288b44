//! Jobs on SQLite: every call one serialized write transaction; claims take the best
//! runnable jobs in exact (priority, run_at, id) order.

mod batch;
mod bulk;
mod depend;
mod fair;
mod limited;
mod picked;
mod queues;
mod schedules;
mod wake;

use crate::engine::clock::{from_us, now_us, us};
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::job::{
    after_failure, retry_delay_ms, Claim, Complete, Completion, Completions, Enqueue, Enqueued, Fail, JobFilter,
    JobState, JobStatus, JobView, LeasedJob, QueueCounts, Snooze,
};
use allot_core::store::{Executed, JobStore, Keyed};
use allot_core::support::limits::Limits;
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Result};
use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension};
use wake::Released;

fn status(c: &Connection, tenant: &str, id: i64) -> Result<JobStatus> {
    c.prepare_cached(
        "SELECT id, state, attempt, run_at_us, lease_expires_at_us FROM jobs WHERE tenant = ?2 AND id = ?1",
    )
    .and_then(|mut s| {
        s.query_row(params![id, tenant], |r| {
            Ok(JobStatus {
                id: r.get("id")?,
                state: crate::engine::errors::stored_name(r, "state", JobState::parse)?,
                attempt: r.get("attempt")?,
                run_at: from_us(r.get("run_at_us")?),
                lease_expires_at: r.get::<_, Option<i64>>("lease_expires_at_us")?.map(from_us),
            })
        })
        .optional()
    })
    .map_err(map_error)?
    .ok_or_else(|| AllotError::not_found("job", id.to_string()))
}

/// Whether `queue` keeps its completed jobs (its settings' `keep_completed`; true without
/// settings).
fn keeps_completed(c: &Connection, tenant: &str, queue: &str) -> Result<bool> {
    Ok(limited::settings(c, tenant, queue)?.is_none_or(|s| s.keep_completed))
}

/// Whether the queue of job `id` keeps its completed jobs.
fn job_keeps_completed(c: &Connection, tenant: &str, id: i64) -> Result<bool> {
    let queue: String = c
        .prepare_cached("SELECT queue FROM jobs WHERE tenant = ?2 AND id = ?1")
        .and_then(|mut s| s.query_row(params![id, tenant], |r| r.get(0)))
        .map_err(map_error)?;
    keeps_completed(c, tenant, &queue)
}

/// The running attempt of `id` holding `token`: `(attempt, max_attempts)`; else `lease_lost`
/// (or `not_found`).
fn leased(c: &Connection, tenant: &str, id: i64, token: &str) -> Result<(i32, i32)> {
    let row: Option<(i32, i32)> = c
        .prepare_cached(
            "SELECT attempt, max_attempts FROM jobs WHERE tenant = ?3 AND id = ?1 AND state = 'running' AND lease_token = ?2",
        )
        .and_then(|mut s| {
            s.query_row(params![id, token, tenant], |r| Ok((r.get("attempt")?, r.get("max_attempts")?)))
                .optional()
        })
        .map_err(map_error)?;
    match row {
        Some(v) => Ok(v),
        None => {
            status(c, tenant, id)?;
            Err(AllotError::LeaseLost { id })
        }
    }
}

/// Insert `req`'s jobs in `tx` for `tenant`, in request order; a `unique_key` held by an
/// unfinished job of the queue gives that job's id instead. As on PostgreSQL, every job's
/// dependencies are read (and refused) before any job is inserted, and the jobs that wait
/// take their start after all are inserted (so a later job of the request with the same
/// unique key meets the earlier one unfinished, whatever its start).
pub(crate) fn insert_jobs(tx: &Connection, t: &str, req: &Enqueue, limits: &Limits) -> Result<Enqueued> {
    if let Some(b) = &req.batch {
        batch::unused(tx, t, b)?;
    }
    let mut done = insert_members(tx, t, req, limits)?;
    if let Some(b) = &req.batch {
        done.batch = Some(batch::make(tx, t, req, b, &done.ids, limits)?);
    }
    Ok(done)
}

/// `req`'s jobs (see [`insert_jobs`]), without its batch.
fn insert_members(tx: &Connection, t: &str, req: &Enqueue, limits: &Limits) -> Result<Enqueued> {
    let now = us(req.now);
    let starts = depend::starts(tx, t, req, limits)?;
    let mut ids = Vec::with_capacity(req.jobs.len());
    let mut inserted = Vec::new();
    for (i, j) in req.jobs.iter().enumerate() {
        match unfinished_with_key(tx, t, &req.queue, j.unique_key.as_deref())? {
            Some(id) => ids.push(id),
            None => {
                let id = insert_job(tx, t, req, j, now)?;
                ids.push(id);
                inserted.push((i, id));
            }
        }
    }
    for (i, id) in inserted {
        if let Some(s) = starts.get(i).and_then(Option::as_ref) {
            depend::record(tx, t, id, &req.jobs[i], s, now)?;
        }
    }
    Ok(Enqueued { ids, batch: None })
}

/// The unfinished job of `queue` holding unique key `key`.
fn unfinished_with_key(tx: &Connection, t: &str, queue: &str, key: Option<&str>) -> Result<Option<i64>> {
    let Some(k) = key else {
        return Ok(None);
    };
    tx.prepare_cached(
        "SELECT id FROM jobs WHERE tenant = ?3 AND queue = ?1 AND unique_key = ?2
                AND state NOT IN ('completed', 'discarded', 'cancelled')",
    )
    .and_then(|mut s| s.query_row(params![queue, k, t], |r| r.get(0)).optional())
    .map_err(map_error)
}

/// Insert job `j` of `req` (`available`, or `scheduled` until its `run_at`); its id.
fn insert_job(tx: &Connection, t: &str, req: &Enqueue, j: &allot_core::job::JobSpec, now: i64) -> Result<i64> {
    let state = if us(j.run_at) > now { "scheduled" } else { "available" };
    tx.prepare_cached(
        "INSERT INTO jobs (tenant, queue, state, priority, payload, run_at_us, max_attempts, unique_key,
                               created_at_us, partition_key, tags, metadata, traceparent)
             VALUES (?9, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?10, ?11, ?12, ?13)",
    )
    .and_then(|mut s| {
        s.execute(params![
            req.queue,
            state,
            j.priority,
            j.payload.to_string(),
            us(j.run_at),
            j.max_attempts,
            j.unique_key,
            now,
            t,
            j.partition_key,
            serde_json::json!(j.tags).to_string(),
            j.metadata.to_string(),
            req.traceparent
        ])
    })
    .map_err(map_error)?;
    // The tenant's id, given by the jobs_id trigger (migration V11).
    tx.prepare_cached("SELECT id FROM jobs WHERE rid = last_insert_rowid()")
        .and_then(|mut s| s.query_row([], |r| r.get(0)))
        .map_err(map_error)
}

#[async_trait]
impl JobStore for SqliteStore {
    async fn enqueue(&self, tenant: &Tenant, req: Enqueue, idem: Keyed<Enqueued>) -> Result<Executed<Enqueued>> {
        let t = tenant.to_string();
        let limits = self.limits.clone();
        let result = self
            .write(tenant, idem, move |tx| insert_jobs(tx, &t, &req, &limits))
            .await;
        if result.is_ok() {
            self.job_signal.notify_waiters();
        }
        result
    }

    async fn claim_jobs(
        &self,
        tenant: &Tenant,
        req: Claim,
        idem: Keyed<Vec<LeasedJob>>,
    ) -> Result<Executed<Vec<LeasedJob>>> {
        let t = tenant.to_string();
        let keep: fn(&Vec<LeasedJob>) -> bool = if req.final_try {
            |_| true
        } else {
            |jobs| !jobs.is_empty()
        };
        self.write_if(tenant, idem, keep, move |tx| {
            let now = now_us();
            let (picked, log) = limited::pick(tx, &t, &req, now)?;
            if log {
                limited::log_starts(tx, &t, &req.queue, &picked, now)?;
            }
            let expires = now + req.lease_ms * 1000;
            let mut jobs = Vec::with_capacity(picked.len());
            for (id, payload, attempt, max_attempts, priority, _) in picked {
                let token = uuid::Uuid::new_v4().to_string();
                let traceparent: Option<String> = tx
                    .prepare_cached(
                        "UPDATE jobs SET state = 'running', attempt = attempt + 1, lease_token = ?2,
                                lease_expires_at_us = ?3, worker = ?4, attempted_at_us = ?5 WHERE tenant = ?6 AND id = ?1
                         RETURNING traceparent",
                    )
                    .and_then(|mut s| s.query_row(params![id, token, expires, req.worker, now, t], |r| r.get(0)))
                    .map_err(map_error)?;
                jobs.push(LeasedJob {
                    id,
                    // Decoded inside the claim's transaction: a payload that cannot be read
                    // fails the claim and rolls it back, so no job is leased to nobody (one
                    // that is not JSON at all is never picked, so it cannot block the queue).
                    payload: serde_json::from_str(&payload)
                        .map_err(|_| AllotError::Internal(format!("job {id}: its payload could not be decoded")))?,
                    attempt: attempt + 1,
                    max_attempts,
                    priority,
                    lease_token: token,
                    lease_expires_at: from_us(expires),
                    traceparent,
                });
            }
            Ok(jobs)
        })
        .await
    }

    async fn complete_job(
        &self,
        tenant: &Tenant,
        id: i64,
        req: Complete,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let t = tenant.to_string();
        let output = req.output.as_ref().map(|o| o.to_string());
        let released = Released::default();
        let noted = released.clone();
        self.write(tenant, idem, move |tx| {
            leased(tx, &t, id, &req.lease_token)?;
            if !job_keeps_completed(tx, &t, id)? {
                let done = JobStatus {
                    state: JobState::Completed,
                    lease_expires_at: None,
                    ..status(tx, &t, id)?
                };
                // A job other jobs wait for is kept: its finish reaches them through the
                // trigger on its state (V33).
                let n = tx
                    .prepare_cached("DELETE FROM jobs WHERE tenant = ?2 AND id = ?1 AND NOT has_dependents")
                    .and_then(|mut s| s.execute(params![id, t]))
                    .map_err(map_error)?;
                if n == 1 {
                    return Ok(done);
                }
            }
            let sql = "UPDATE jobs SET state = 'completed', finalized_at_us = ?2, lease_token = NULL, lease_expires_at_us = NULL,
                        output = ?4
                  WHERE tenant = ?3 AND id = ?1 RETURNING has_dependents";
            noted.finish(tx, sql, params![id, now_us(), t, output]).map_err(map_error)?;
            status(tx, &t, id)
        })
        .await
        // A finish of a job others wait for (it may have released them: V33) wakes claimers.
        .inspect(|_| self.wake_if(&released))
    }

    async fn snooze_job(
        &self,
        tenant: &Tenant,
        id: i64,
        req: Snooze,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            leased(tx, &t, id, &req.lease_token)?;
            tx.prepare_cached(
                "UPDATE jobs SET state = 'scheduled', run_at_us = ?2, attempt = attempt - 1, lease_token = NULL,
                        lease_expires_at_us = NULL
                  WHERE tenant = ?3 AND id = ?1",
            )
            .and_then(|mut s| s.execute(params![id, now_us() + req.delay_ms * 1000, t]))
            .map_err(map_error)?;
            status(tx, &t, id)
        })
        .await
    }

    async fn fail_job(
        &self,
        tenant: &Tenant,
        id: i64,
        fail: Fail,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let Fail {
            lease_token: token,
            error,
            retry_in_ms,
        } = fail;
        let t = tenant.to_string();
        let released = Released::default();
        let noted = released.clone();
        self.write(tenant, idem, move |tx| {
            let (attempt, max_attempts) = leased(tx, &t, id, &token)?;
            let now = now_us();
            let next = after_failure(attempt, max_attempts);
            let jitter: f64 = rand::random();
            let run_at = now + retry_delay_ms(attempt, retry_in_ms, jitter) * 1000;
            let entry = serde_json::json!({"attempt": attempt, "error": error, "at": from_us(now)}).to_string();
            let sql = "UPDATE jobs SET state = ?2,
                        run_at_us = CASE WHEN ?2 = 'retryable' THEN ?3 ELSE run_at_us END,
                        errors = json_insert(errors, '$[#]', json(?4)),
                        finalized_at_us = CASE WHEN ?2 = 'discarded' THEN ?5 END,
                        lease_token = NULL, lease_expires_at_us = NULL
                  WHERE tenant = ?6 AND id = ?1 RETURNING has_dependents";
            noted
                .finish(tx, sql, params![id, next.as_str(), run_at, entry, now, t])
                .map_err(map_error)?;
            status(tx, &t, id)
        })
        .await
        // A finish of a job others wait for (it may have released them: V33) wakes claimers.
        .inspect(|_| self.wake_if(&released))
    }

    async fn heartbeat_job(
        &self,
        tenant: &Tenant,
        id: i64,
        lease_token: &str,
        lease_ms: i64,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let (t, token) = (tenant.to_string(), lease_token.to_string());
        self.write(tenant, idem, move |tx| {
            leased(tx, &t, id, &token)?;
            tx.prepare_cached("UPDATE jobs SET lease_expires_at_us = ?2 WHERE tenant = ?3 AND id = ?1")
                .and_then(|mut s| s.execute(params![id, now_us() + lease_ms * 1000, t]))
                .map_err(map_error)?;
            status(tx, &t, id)
        })
        .await
    }

    async fn complete_jobs(
        &self,
        tenant: &Tenant,
        queue: &str,
        jobs: Vec<Completion>,
        idem: Keyed<Completions>,
    ) -> Result<Executed<Completions>> {
        let (t, queue) = (tenant.to_string(), queue.to_string());
        let released = Released::default();
        let noted = released.clone();
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            let (mut completed, mut lease_lost) = (Vec::new(), Vec::new());
            let update = "UPDATE jobs SET state = 'completed', finalized_at_us = ?4, lease_token = NULL, lease_expires_at_us = NULL
                  WHERE tenant = ?5 AND id = ?1 AND queue = ?2 AND state = 'running' AND lease_token = ?3
              RETURNING has_dependents";
            // `?4` (now) unused: SQLite counts parameters up to the highest number. A job other
            // jobs wait for is kept (completed) instead: see `complete_job`.
            let delete = "DELETE FROM jobs WHERE tenant = ?5 AND id = ?1 AND queue = ?2 AND state = 'running' AND lease_token = ?3
                  AND NOT has_dependents RETURNING has_dependents";
            let sqls: &[&str] = if keeps_completed(tx, &t, &queue)? { &[update] } else { &[delete, update] };
            for j in &jobs {
                let mut n = 0;
                for sql in sqls {
                    n = noted
                        .finish(tx, sql, params![j.id, queue, j.lease_token, now, t])
                        .map_err(map_error)?;
                    if n == 1 {
                        break;
                    }
                }
                if n == 1 {
                    completed.push(j.id);
                } else {
                    lease_lost.push(j.id);
                }
            }
            Ok(Completions { completed, lease_lost })
        })
        .await
        // A finish of a job others wait for (it may have released them: V33) wakes claimers.
        .inspect(|_| self.wake_if(&released))
    }

    async fn cancel_job(&self, tenant: &Tenant, id: i64, idem: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        let t = tenant.to_string();
        let released = Released::default();
        let noted = released.clone();
        self.write(tenant, idem, move |tx| {
            let sql = "UPDATE jobs SET state = 'cancelled', finalized_at_us = ?2, lease_token = NULL, lease_expires_at_us = NULL
                  WHERE tenant = ?3 AND id = ?1 AND state NOT IN ('completed', 'discarded', 'cancelled')
              RETURNING has_dependents";
            noted.finish(tx, sql, params![id, now_us(), t]).map_err(map_error)?;
            status(tx, &t, id)
        })
        .await
        // A finish of a job others wait for (it may have released them: V33) wakes claimers.
        .inspect(|_| self.wake_if(&released))
    }

    async fn reschedule_job(
        &self,
        tenant: &Tenant,
        id: i64,
        delay_ms: i64,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            tx.prepare_cached(
                "UPDATE jobs SET state = CASE WHEN ?4 = 0 THEN 'available' ELSE 'scheduled' END,
                        run_at_us = ?2 + ?4 * 1000
                  WHERE tenant = ?3 AND id = ?1 AND state IN ('available', 'scheduled', 'retryable')",
            )
            .and_then(|mut s| s.execute(params![id, now_us(), t, delay_ms]))
            .map_err(map_error)?;
            status(tx, &t, id)
        })
        .await
    }

    async fn retry_job(&self, tenant: &Tenant, id: i64, idem: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            tx.prepare_cached(
                "UPDATE jobs SET state = 'available', run_at_us = ?2, finalized_at_us = NULL, dependency_failure = NULL,
                        max_attempts = max(max_attempts, attempt + 1)
                  WHERE tenant = ?3 AND id = ?1 AND state IN ('discarded', 'cancelled')",
            )
            .and_then(|mut s| s.execute(params![id, now_us(), t]))
            .map_err(|e| match e.sqlite_error_code() {
                Some(rusqlite::ErrorCode::ConstraintViolation) => AllotError::AlreadyExists {
                    kind: "unfinished job with this unique_key",
                    id: id.to_string(),
                },
                _ => map_error(e),
            })?;
            status(tx, &t, id)
        })
        .await
    }

    async fn list_jobs(
        &self,
        tenant: &Tenant,
        queue: &str,
        filter: JobFilter,
        page: Page<i64>,
    ) -> Result<Listed<JobView, i64>> {
        let (t, queue) = (tenant.to_string(), queue.to_string());
        let page_bytes = self.limits.max_page_bytes as i64;
        let state = filter.state.map(JobState::as_str);
        let (after, limit) = (page.after, page.limit);
        let (jobs, cut) = self
            .call(move |c| {
                c.prepare_cached(queues::SQL_LIST_JOBS[usize::from(state.is_some())])
                    .and_then(|mut s| {
                        s.query_map(
                            params![
                                queue,
                                state,
                                after,
                                limit,
                                t,
                                page_bytes,
                                filter.tag,
                                filter.metadata.as_ref().map(|(k, _)| k.clone()),
                                filter.metadata.as_ref().map(|(_, v)| v.to_string()),
                                filter.payload.as_ref().map(|(k, _)| k.clone()),
                                filter.payload.as_ref().map(|(_, v)| v.to_string())
                            ],
                            |r| Ok((queues::job_view(r)?, r.get::<_, Option<i64>>("following")?)),
                        )?
                        .collect::<rusqlite::Result<Vec<_>>>()
                    })
                    .map_err(map_error)
                    .map(|rows| {
                        // The job that crosses `max_page_bytes` ends the page: `following` (the
                        // next matching job's id, `lead`) says whether another page has any.
                        let cut = rows.last().is_some_and(|(_, following)| following.is_some());
                        (rows.into_iter().map(|(j, _)| j).collect::<Vec<_>>(), cut)
                    })
            })
            .await?;
        Ok(Listed::with_more(jobs, cut, |j| j.id))
    }

    /// SQLite has no notifications: an enqueue through this store wakes every waiter at once
    /// (in process); jobs whose `run_at` arrives, or enqueued by another process, are seen
    /// within `job_poll_interval_ms`.
    async fn wait_for_jobs(&self, _tenant: &Tenant, _queue: &str, max_wait: std::time::Duration) {
        let poll = std::time::Duration::from_millis(self.limits.job_poll_interval_ms);
        let _ = tokio::time::timeout(max_wait.min(poll), self.job_signal.notified()).await;
    }

    async fn queue_counts(&self, tenant: &Tenant, queue: &str) -> Result<QueueCounts> {
        let (t, queue) = (tenant.to_string(), queue.to_string());
        self.call(move |c| {
            let rows: Vec<(String, i64)> = c
                .prepare_cached("SELECT state, jobs FROM queue_counts WHERE tenant = ?2 AND queue = ?1")
                .and_then(|mut s| {
                    s.query_map([&queue, &t], |r| Ok((r.get("state")?, r.get("jobs")?)))?
                        .collect()
                })
                .map_err(map_error)?;
            QueueCounts::from_rows(&queue, rows)
        })
        .await
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl SqliteStore {
    /// Wake waiting claimers when a finish's triggers acted (it may have released dependents).
    fn wake_if(&self, released: &Released) {
        if released.any() {
            self.job_signal.notify_waiters();
        }
    }

    pub(crate) async fn run_rescue_jobs(&self, now: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64> {
        let now = us(now);
        let at = allot_core::clock::wire_instant(from_us(now));
        self.call(move |c| {
            c.execute(
                "UPDATE jobs SET state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
                        run_at_us = ?1, lease_token = NULL, lease_expires_at_us = NULL,
                        finalized_at_us = CASE WHEN attempt >= max_attempts THEN ?1 END,
                        errors = json_insert(errors, '$[#]', json_object('attempt', attempt, 'error', 'lease expired', 'at', ?3))
                  WHERE rid IN (SELECT rid FROM jobs WHERE state = 'running' AND lease_expires_at_us <= ?1
                                ORDER BY lease_expires_at_us LIMIT ?2)",
                params![now, max.max(1), at],
            )
            .map(|n| n as u64)
            .map_err(map_error)
        })
        .await
    }

    pub(crate) async fn run_prune_jobs(&self, before: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64> {
        let before = us(before);
        self.call(move |c| {
            c.execute(
                "DELETE FROM jobs WHERE rid IN
                    (SELECT rid FROM jobs WHERE state IN ('completed', 'discarded', 'cancelled') AND finalized_at_us < ?1 LIMIT ?2)",
                params![before, max.max(1)],
            )
            .map(|n| n as u64)
            .map_err(map_error)
        })
        .await
    }

    pub(crate) async fn run_queue_depths(&self) -> Result<Vec<(String, String, JobState, i64)>> {
        self.call(|c| {
            let rows: Vec<(String, String, String, i64)> = c
                .prepare_cached(
                    "SELECT tenant, queue, state, jobs AS depth FROM queue_counts
                      WHERE state IN ('pending', 'available', 'scheduled', 'retryable', 'running')",
                )
                .and_then(|mut s| {
                    s.query_map([], |r| {
                        Ok((r.get("tenant")?, r.get("queue")?, r.get("state")?, r.get("depth")?))
                    })?
                    .collect()
                })
                .map_err(map_error)?;
            Ok(rows
                .into_iter()
                .filter_map(|(t, q, s, n)| Some((t, q, JobState::parse(&s)?, n)))
                .collect())
        })
        .await
    }
}
