//! The job transitions on PostgreSQL, each one function over any client — a pooled
//! connection when the request has no idempotency key, the write envelope's transaction when
//! it has one (see `keyed!` in `jobs.rs`) — and the statements they run: claims with
//! `FOR UPDATE SKIP LOCKED` or try-locks re-checking the state in the UPDATE, and
//! lease-conditional transitions (`… WHERE state = 'running' AND lease_token = $2`).

use crate::engine::conn::Db;
use crate::engine::errors::{col, map_error};
use allot_core::job::{
    Claim, ClaimStrategy, Complete, Completion, Completions, Fail, JobState, JobStatus, LeasedJob, Snooze,
    RETRY_BASE_MS, RETRY_CAP_MS,
};
use allot_core::{AllotError, Result};
use chrono::{DateTime, Utc};
use std::collections::HashSet;
use std::sync::LazyLock;

/// `MATERIALIZED`: the picking subquery must run exactly once. Inlined, it could become the
/// inner side of a nested loop and be rescanned, each rescan locking and returning other rows,
/// so one claim would lease more than `$3` jobs. The UPDATE's re-check says `NOT IN` the
/// other states rather than `IN` the runnable ones, so it cannot imply the predicate of
/// `jobs_fetch`: with statistics that believe no job is runnable, the planner would otherwise
/// scan that whole partial index as the outer side of the join.
/// A queue with settings that gate claims (paused, limited, FIFO: `gates_claims`, V24) is
/// claimed by `allot_claim_limited` (V18) instead, in the same statement: both branches test
/// the settings row with an uncorrelated `EXISTS`, a one-time filter, so exactly one of them
/// runs and an unlimited queue pays one primary-key probe. `$6`: the tenant.
///
/// The UPDATE finds each picked row by its `ctid` (a TID scan, PostgreSQL docs 5.5 "System
/// Columns"), not by a second descent of the primary key. Where another transaction updated
/// a job after this statement's snapshot and it is still runnable (a reschedule, say), the
/// pick locks its newest version, which the UPDATE cannot see: that job is left available
/// for the next claim. A claim may so return fewer jobs than it could, never one twice.
pub(crate) const SQL_CLAIM: &str = "WITH picked AS MATERIALIZED (
    SELECT id, ctid FROM jobs
     WHERE tenant = $6 AND queue = $1 AND state IN ('available', 'scheduled', 'retryable') AND run_at <= $2
       AND NOT EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $6 AND s.queue = $1 AND s.gates_claims)
     ORDER BY priority, run_at, id LIMIT $3 FOR UPDATE SKIP LOCKED),
claimed AS (
UPDATE jobs j SET state = 'running', attempt = j.attempt + 1, lease_token = gen_random_uuid()::text,
       lease_expires_at = $2 + $4::int8 * interval '1 millisecond', worker = $5, attempted_at = $2
  FROM picked WHERE j.ctid = picked.ctid AND j.tenant = $6 AND j.state NOT IN ('running', 'completed', 'discarded', 'cancelled')
RETURNING j.id, j.payload, j.attempt, j.max_attempts, j.priority, j.lease_token, j.lease_expires_at, j.run_at,
          j.traceparent)
SELECT * FROM claimed
UNION ALL
SELECT * FROM allot_claim_limited($6, $1, $2, $3, $4, $5::text)
 WHERE EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $6 AND s.queue = $1 AND s.gates_claims)";

/// The `advisory` claim: try-lock candidates of a bounded window (`$6` rows) with
/// `pg_try_advisory_xact_lock(class, key)`; the lock lives only as long as the statement's
/// implicit transaction, so none can leak; the UPDATE re-checks the state (another claimer
/// may have won the row after this statement's snapshot). Ids count per tenant, so the key
/// is the id XOR a hash of the tenant (31 bits): distinct ids of one tenant get distinct
/// keys, and two tenants claiming their own job 7 at once do not skip each other's. A key
/// collision (ids past 2^31, or two tenants' keys meeting) only makes a claimer skip a free
/// job this time. Both CTEs are `MATERIALIZED` so each runs once: a
/// rescanned `locked` (as the inner side of a nested loop, which the planner picks on a
/// freshly created table) would try-lock again and could lease more than `$3` jobs. A queue
/// with settings goes to `allot_claim_limited`, as in [`SQL_CLAIM`]. `$8`: the tenant.
pub(crate) const SQL_CLAIM_ADVISORY: &str = "WITH candidates AS MATERIALIZED (
    SELECT id FROM jobs
     WHERE tenant = $8 AND queue = $1 AND state IN ('available', 'scheduled', 'retryable') AND run_at <= $2
       AND NOT EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $8 AND s.queue = $1 AND s.gates_claims)
     ORDER BY priority, run_at, id LIMIT $6),
locked AS MATERIALIZED (
    SELECT id FROM candidates WHERE pg_try_advisory_xact_lock($7::int4, ((id # hashtext($8::text)) & 2147483647)::int4) LIMIT $3),
claimed AS (
UPDATE jobs j SET state = 'running', attempt = j.attempt + 1, lease_token = gen_random_uuid()::text,
       lease_expires_at = $2 + $4::int8 * interval '1 millisecond', worker = $5, attempted_at = $2
  FROM locked WHERE j.tenant = $8 AND j.id = locked.id AND j.state NOT IN ('running', 'completed', 'discarded', 'cancelled')
RETURNING j.id, j.payload, j.attempt, j.max_attempts, j.priority, j.lease_token, j.lease_expires_at, j.run_at,
          j.traceparent)
SELECT * FROM claimed
UNION ALL
SELECT * FROM allot_claim_limited($8, $1, $2, $3, $4, $5::text)
 WHERE EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $8 AND s.queue = $1 AND s.gates_claims)";

/// Heartbeat: extend the lease of a running job whose token matches (`$1` id, `$2` token,
/// `$3` now, `$4` lease_ms, `$5` tenant). Found by the primary key whatever the statistics say
/// (V5).
pub(crate) const SQL_HEARTBEAT: &str =
    "UPDATE jobs SET lease_expires_at = $3::timestamptz + $4::int8 * interval '1 millisecond'
  WHERE tenant = $5 AND id = $1 AND state = 'running' AND lease_token = $2 RETURNING id, state, attempt, run_at, lease_expires_at";

/// Batch completion (`$1` queue, `$2` ids, `$3` lease tokens, `$4` now, `$5` tenant). Rows are locked in id
/// order first, so two batches that share a job (one of them holding a stale token) cannot
/// deadlock on each other. A matching lease token means `running` (CHECK on the table); the
/// CTE does not say `state = 'running'` so that no index by state is ever a candidate (before
/// V25, `jobs_queue_state` held running jobs): with statistics that believe no job runs, the
/// planner would read every running job of the queue.
///
/// A queue that does not keep completed jobs (`keep_completed = false`, V24) has them deleted
/// instead (except those other jobs wait for: `has_dependents`, V50): the two writes test its settings with an uncorrelated `EXISTS`, a one-time filter,
/// so exactly one of them runs. They find their rows by the primary key, not by the `ctid`
/// `mine` locked: a heartbeat that commits after this statement's snapshot and before its
/// lock makes `mine` lock (and return the `ctid` of) a version the statement cannot see, so
/// a write by that `ctid` would find nothing and report a held lease as lost; by the key,
/// the write finds the version it sees and EvalPlanQual follows it to the one locked.
pub(crate) const SQL_COMPLETE_BATCH: &str = "WITH mine AS MATERIALIZED (
     SELECT j.id, j.has_dependents IS TRUE AS awaited FROM jobs j JOIN unnest($2::int8[], $3::text[]) AS t(id, token)
         ON j.tenant = $5 AND j.id = t.id AND j.lease_token = t.token
      WHERE j.tenant = $5 AND j.queue = $1
      ORDER BY j.id FOR UPDATE OF j),
 kept AS (
 UPDATE jobs j SET state = 'completed', finalized_at = $4, lease_token = NULL, lease_expires_at = NULL
   FROM mine WHERE j.tenant = $5 AND j.id = mine.id AND j.state = 'running'
    AND (mine.awaited
         OR NOT EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $5 AND s.queue = $1 AND NOT s.keep_completed))
 RETURNING j.id),
 dropped AS (
 DELETE FROM jobs j USING mine WHERE j.tenant = $5 AND j.id = mine.id AND j.state = 'running' AND NOT mine.awaited
    AND EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $5 AND s.queue = $1 AND NOT s.keep_completed)
 RETURNING j.id)
 SELECT id FROM kept UNION ALL SELECT id FROM dropped";

/// Advisory lock class of job claims (two-int form, apart from every other lock).
pub(crate) const JOB_LOCK_CLASS: i32 = 0x0a11_0c02;

pub(crate) const STATUS_COLS: &str = "id, state, attempt, run_at, lease_expires_at";

pub(crate) fn status_of(r: &tokio_postgres::Row) -> Result<JobStatus> {
    Ok(JobStatus {
        id: r.get("id"),
        state: JobState::parse(r.get("state")).ok_or_else(|| AllotError::Internal("bad job state".into()))?,
        attempt: r.get("attempt"),
        run_at: r.get("run_at"),
        lease_expires_at: r.get("lease_expires_at"),
    })
}

pub(crate) async fn job_status<C: Db>(c: &C, tenant: &str, id: i64) -> Result<JobStatus> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("SELECT {STATUS_COLS} FROM jobs WHERE tenant = $2 AND id = $1"));
    let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
    match c.query_opt(&stmt, &[&id, &tenant]).await.map_err(map_error)? {
        Some(r) => status_of(&r),
        None => Err(AllotError::not_found("job", id.to_string())),
    }
}

/// Run a lease-conditional transition; no row changed means `not_found` or `lease_lost`.
pub(crate) async fn transition<C: Db>(
    c: &C,
    tenant: &str,
    sql: &'static str,
    id: i64,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<JobStatus> {
    let stmt = c.prepare_cached(sql).await.map_err(map_error)?;
    match c.query_opt(&stmt, params).await.map_err(map_error)? {
        Some(r) => status_of(&r),
        None => {
            let stmt = c
                .prepare_cached("SELECT 1 FROM jobs WHERE tenant = $2 AND id = $1")
                .await
                .map_err(map_error)?;
            if c.query_opt(&stmt, &[&id, &tenant]).await.map_err(map_error)?.is_some() {
                Err(AllotError::LeaseLost { id })
            } else {
                Err(AllotError::not_found("job", id.to_string()))
            }
        }
    }
}

/// Lease up to `req.max` runnable jobs (see `JobStore::claim_jobs`), best first.
pub(crate) async fn claim<C: Db>(c: &C, tenant: &str, req: &Claim, now: DateTime<Utc>) -> Result<Vec<LeasedJob>> {
    let rows = if req.strategy == ClaimStrategy::Advisory {
        let stmt = c.prepare_cached(SQL_CLAIM_ADVISORY).await.map_err(map_error)?;
        let window = req.max * 4 + 16;
        c.query(
            &stmt,
            &[
                &req.queue,
                &now,
                &req.max,
                &req.lease_ms,
                &req.worker,
                &window,
                &JOB_LOCK_CLASS,
                &tenant,
            ],
        )
        .await
    } else {
        let stmt = c.prepare_cached(SQL_CLAIM).await.map_err(map_error)?;
        c.query(
            &stmt,
            &[&req.queue, &now, &req.max, &req.lease_ms, &req.worker, &tenant],
        )
        .await
    }
    .map_err(map_error)?;
    if rows.len() as i64 > req.max {
        tracing::error!(
            got = rows.len(),
            max = req.max,
            strategy = req.strategy.name(),
            "claim leased more jobs than asked"
        );
    }
    let mut jobs: Vec<(LeasedJob, chrono::DateTime<chrono::Utc>)> = rows
        .iter()
        .map(|r| {
            Ok((
                LeasedJob {
                    id: col(r, "id")?,
                    payload: col(r, "payload")?,
                    attempt: col(r, "attempt")?,
                    max_attempts: col(r, "max_attempts")?,
                    priority: col(r, "priority")?,
                    lease_token: col(r, "lease_token")?,
                    lease_expires_at: col(r, "lease_expires_at")?,
                    traceparent: col(r, "traceparent")?,
                },
                col(r, "run_at")?,
            ))
        })
        .collect::<Result<_>>()?;
    jobs.sort_by(|(a, ar), (b, br)| (a.priority, ar, a.id).cmp(&(b.priority, br, b.id)));
    Ok(jobs.into_iter().map(|(j, _)| j).collect())
}

/// Complete a running job whose token matches, keeping its output.
pub(crate) async fn complete<C: Db>(
    c: &C,
    tenant: &str,
    id: i64,
    req: &Complete,
    now: DateTime<Utc>,
) -> Result<JobStatus> {
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [&id, &req.lease_token, &now, &tenant, &req.output];
    transition(c, tenant, SQL_COMPLETE, id, &params).await
}

/// Complete one running job whose token matches (`$1` id, `$2` token, `$3` now, `$4` tenant,
/// `$5` output): kept with its output, or deleted when its queue does not keep completed jobs
/// (the answer then still says `completed`), unless jobs wait for it (`has_dependents`, V50:
/// its finish must reach them through the trigger on its state). In such a queue the job's
/// row is locked first (`awaited`: an uncorrelated one-time filter, so a queue that keeps its
/// jobs locks nothing), so `has_dependents` is read from its newest version: an enqueue that
/// names the job meanwhile cannot make both writes miss it. Both writes read the settings in the statement's
/// one snapshot (and re-check the job's row if another transaction changed it, READ
/// COMMITTED), so exactly one of them can match.
const SQL_COMPLETE: &str = "WITH awaited AS MATERIALIZED (
 SELECT j.has_dependents IS TRUE AS awaited FROM jobs j
  WHERE j.tenant = $4 AND j.id = $1 AND j.state = 'running' AND j.lease_token = $2
    AND EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $4 AND s.queue = j.queue AND NOT s.keep_completed)
  FOR UPDATE),
 kept AS (
 UPDATE jobs j SET state = 'completed', finalized_at = $3, lease_token = NULL, lease_expires_at = NULL, output = $5::json
  WHERE j.tenant = $4 AND j.id = $1 AND j.state = 'running' AND j.lease_token = $2
    AND (NOT EXISTS (SELECT 1 FROM queue_settings s WHERE s.tenant = $4 AND s.queue = j.queue AND NOT s.keep_completed)
         OR EXISTS (SELECT 1 FROM awaited WHERE awaited))
 RETURNING j.id, j.state, j.attempt, j.run_at, j.lease_expires_at),
 dropped AS (
 DELETE FROM jobs j
  WHERE j.tenant = $4 AND j.id = $1 AND j.state = 'running' AND j.lease_token = $2
    AND EXISTS (SELECT 1 FROM awaited WHERE NOT awaited)
 RETURNING j.id, 'completed'::text AS state, j.attempt, j.run_at, NULL::timestamptz AS lease_expires_at)
 SELECT * FROM kept UNION ALL SELECT * FROM dropped";

/// Snooze a running job whose token matches: `scheduled` at now + `delay_ms`, the attempt
/// given back (a snooze is not a failure: Oban's `{:snooze, seconds}`).
pub(crate) async fn snooze<C: Db>(c: &C, tenant: &str, id: i64, req: &Snooze, now: DateTime<Utc>) -> Result<JobStatus> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "UPDATE jobs SET state = 'scheduled', run_at = $3::timestamptz + $4::int8 * interval '1 millisecond',
                attempt = attempt - 1, lease_token = NULL, lease_expires_at = NULL
          WHERE tenant = $5 AND id = $1 AND state = 'running' AND lease_token = $2 RETURNING {STATUS_COLS}"
        )
    });
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [&id, &req.lease_token, &now, &req.delay_ms, &tenant];
    transition(c, tenant, &SQL, id, &params).await
}

/// Fail this attempt: retryable after the delay, or discarded without attempts left.
pub(crate) async fn fail<C: Db>(c: &C, tenant: &str, fail: &Fail, id: i64, now: DateTime<Utc>) -> Result<JobStatus> {
    // The delay mirrors allot_core::job::retry_delay_ms (equal jitter, capped).
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
        "UPDATE jobs SET
             state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
             run_at = CASE WHEN attempt >= max_attempts THEN run_at ELSE $4::timestamptz + COALESCE($5::int8,
                 (least($6::float8, $7::float8 * power(2, least(attempt - 1, 40))) * (0.5 + random() / 2))::int8)
                 * interval '1 millisecond' END,
             errors = errors || jsonb_build_array(jsonb_build_object('attempt', attempt, 'error', $3::text, 'at', $9::text)),
             finalized_at = CASE WHEN attempt >= max_attempts THEN $4 END,
             lease_token = NULL, lease_expires_at = NULL
           WHERE tenant = $8 AND id = $1 AND state = 'running' AND lease_token = $2 RETURNING {STATUS_COLS}"
        )
    });
    let (cap, base) = (RETRY_CAP_MS as f64, RETRY_BASE_MS as f64);
    transition(
        c,
        tenant,
        &SQL,
        id,
        &[
            &id,
            &fail.lease_token,
            &fail.error,
            &now,
            &fail.retry_in_ms,
            &cap,
            &base,
            &tenant,
            &allot_core::clock::wire_instant(now),
        ],
    )
    .await
}

/// Extend a running job's lease to now + `lease_ms`.
pub(crate) async fn heartbeat<C: Db>(
    c: &C,
    tenant: &str,
    id: i64,
    lease_token: &str,
    lease_ms: i64,
    now: DateTime<Utc>,
) -> Result<JobStatus> {
    transition(
        c,
        tenant,
        SQL_HEARTBEAT,
        id,
        &[&id, &lease_token, &now, &lease_ms, &tenant],
    )
    .await
}

/// Complete many jobs of `queue`, each by its own token.
pub(crate) async fn complete_batch<C: Db>(
    c: &C,
    tenant: &str,
    queue: &str,
    jobs: &[Completion],
    now: DateTime<Utc>,
) -> Result<Completions> {
    let ids: Vec<i64> = jobs.iter().map(|j| j.id).collect();
    let tokens: Vec<&str> = jobs.iter().map(|j| j.lease_token.as_str()).collect();
    let stmt = c.prepare_cached(SQL_COMPLETE_BATCH).await.map_err(map_error)?;
    let done: HashSet<i64> = c
        .query(&stmt, &[&queue, &ids, &tokens, &now, &tenant])
        .await
        .map_err(map_error)?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let (completed, lease_lost) = ids.into_iter().partition(|id| done.contains(id));
    Ok(Completions { completed, lease_lost })
}

/// Cancel an unfinished job; a finished one is returned unchanged.
pub(crate) async fn cancel<C: Db>(c: &C, tenant: &str, id: i64, now: DateTime<Utc>) -> Result<JobStatus> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
        "UPDATE jobs SET state = 'cancelled', finalized_at = $2, lease_token = NULL, lease_expires_at = NULL
          WHERE tenant = $3 AND id = $1 AND state NOT IN ('completed', 'discarded', 'cancelled') RETURNING {STATUS_COLS}"
        )
    });
    let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
    match c.query_opt(&stmt, &[&id, &now, &tenant]).await.map_err(map_error)? {
        Some(r) => status_of(&r),
        None => job_status(c, tenant, id).await,
    }
}

/// Move a waiting job's next run to now + `delay_ms` (`available` at 0, else `scheduled`);
/// another state is answered as it is.
pub(crate) async fn reschedule<C: Db>(
    c: &C,
    tenant: &str,
    id: i64,
    delay_ms: i64,
    now: DateTime<Utc>,
) -> Result<JobStatus> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "UPDATE jobs SET state = CASE WHEN $4::int8 = 0 THEN 'available' ELSE 'scheduled' END,
                run_at = $2::timestamptz + $4::int8 * interval '1 millisecond'
          WHERE tenant = $3 AND id = $1 AND state IN ('available', 'scheduled', 'retryable') RETURNING {STATUS_COLS}"
        )
    });
    let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
    match c
        .query_opt(&stmt, &[&id, &now, &tenant, &delay_ms])
        .await
        .map_err(map_error)?
    {
        Some(r) => status_of(&r),
        None => job_status(c, tenant, id).await,
    }
}

/// Make a discarded or cancelled job available again. The state is tested as the complement
/// (`NOT IN` the others): `IN ('discarded', 'cancelled')` would prove the predicate of
/// `jobs_queue_state` (V25), which the planner could then prefer to the primary key.
pub(crate) async fn retry<C: Db>(c: &C, tenant: &str, id: i64, now: DateTime<Utc>) -> Result<JobStatus> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "UPDATE jobs SET state = 'available', run_at = $2, finalized_at = NULL, dependency_failure = NULL,
                max_attempts = GREATEST(max_attempts, attempt + 1)
          WHERE tenant = $3 AND id = $1 AND state NOT IN ('pending', 'available', 'scheduled', 'retryable', 'running', 'completed')
          RETURNING {STATUS_COLS}"
        )
    });
    let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
    match c.query_opt(&stmt, &[&id, &now, &tenant]).await {
        Ok(Some(r)) => status_of(&r),
        Ok(None) => job_status(c, tenant, id).await,
        // Another unfinished job took its unique key meanwhile.
        Err(e) if e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => {
            Err(AllotError::AlreadyExists {
                kind: "unfinished job with this unique_key",
                id: id.to_string(),
            })
        }
        Err(e) => Err(map_error(e)),
    }
}
