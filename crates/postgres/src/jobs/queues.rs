//! The operator's side of the queue on PostgreSQL: settings (the `queue_settings` row the
//! claim reads, V18), listings in any state, and one job in full with why it waits.

use crate::engine::conn::Db;
use crate::engine::errors::{col, map_error};
use crate::engine::store::PgStore;
use allot_core::job::bulk::{Bulk, BulkResult};
use allot_core::job::fair::FairBy;
use allot_core::job::queue::{blocked_by, BlockFacts, JobDetail, QueueSettings, Rate};
use allot_core::job::schedule::{NewSchedule, Schedule};
use allot_core::job::{JobState, JobView, QueueCounts};
use allot_core::store::QueueStore;
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Capable, Result};
use async_trait::async_trait;

const JOB_COLS: &str = "id, queue, state, priority, payload, attempt, max_attempts, errors, run_at, unique_key,
    created_at, finalized_at, partition_key, tags, metadata, output, dependency_failure";

/// A page of a queue's jobs by id (`$1` queue, `$2` state or NULL for all, `$3` after, `$4`
/// limit, `$5` tenant, `$6` most bytes of documents, `$7` a tag or NULL, `$8`/`$9` a metadata
/// key and its value or NULL, `$10`/`$11` a payload key and its value or NULL): it ends at `$4`
/// jobs or at the job that crosses `$6` bytes. A listing of running jobs also says
/// `lease_expires_at IS NOT NULL` (true of every running job), so that its plan, made for the
/// state it is given, can read `jobs_lease` (V25); a listing of every state spells them out
/// as one branch per index that holds them (`jobs_queue_state`, `jobs_fetch`, `jobs_lease`,
/// `jobs_pending`),
/// which a small queue of a big table reads as a bitmap OR.
pub(crate) const SQL_LIST_JOBS: &str = "SELECT id, queue, state, priority, payload, attempt, max_attempts, errors,
        run_at, unique_key, created_at, finalized_at, partition_key, tags, metadata, output, dependency_failure, following
   FROM (SELECT j.*, lead(j.id) OVER (ORDER BY id) AS following, octet_length(payload::text) + octet_length(errors::text)
                     + coalesce(octet_length(output::text), 0) + octet_length(metadata::text) AS size,
                sum(octet_length(payload::text) + octet_length(errors::text)
                    + coalesce(octet_length(output::text), 0) + octet_length(metadata::text)) OVER (ORDER BY id) AS upto
           FROM jobs j WHERE tenant = $5 AND queue = $1 AND ($2::text IS NULL OR state = $2::text) AND id > $3
            AND ($2::text IS DISTINCT FROM 'running' OR lease_expires_at IS NOT NULL)
            AND ($2::text IS NOT NULL OR state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled')
                 OR state = 'available' OR lease_expires_at IS NOT NULL OR state = 'pending')
            AND ($7::text IS NULL OR tags @> ARRAY[$7::text])
            AND ($8::text IS NULL OR (metadata::jsonb -> $8::text) = $9::jsonb)
            AND ($10::text IS NULL OR (CASE WHEN json_typeof(payload) = 'object' THEN payload::jsonb -> $10::text END) = $11::jsonb)
          ORDER BY id LIMIT $4) p
  WHERE upto - size < $6 ORDER BY id";

/// A job row (with [`JOB_COLS`]) as listings show it.
pub(crate) fn job_view(r: &tokio_postgres::Row) -> Result<JobView> {
    Ok(JobView {
        id: col(r, "id")?,
        queue: col(r, "queue")?,
        state: JobState::parse(col(r, "state")?).ok_or_else(|| AllotError::Internal("bad job state".into()))?,
        priority: col(r, "priority")?,
        payload: col(r, "payload")?,
        attempt: col(r, "attempt")?,
        max_attempts: col(r, "max_attempts")?,
        errors: col(r, "errors")?,
        run_at: col(r, "run_at")?,
        unique_key: col(r, "unique_key")?,
        created_at: col(r, "created_at")?,
        finalized_at: col(r, "finalized_at")?,
        partition_key: col(r, "partition_key")?,
        tags: col(r, "tags")?,
        metadata: col(r, "metadata")?,
        output: col(r, "output")?,
        dependency_failure: col(r, "dependency_failure")?,
    })
}

fn settings_of(queue: &str, r: Option<&tokio_postgres::Row>) -> Result<QueueSettings> {
    let Some(r) = r else {
        return Ok(QueueSettings {
            queue: queue.to_string(),
            ..QueueSettings::default()
        });
    };
    let per_window: Option<i32> = col(r, "rate_per_window")?;
    let window_ms: Option<i64> = col(r, "rate_window_ms")?;
    Ok(QueueSettings {
        queue: queue.to_string(),
        paused: col(r, "paused")?,
        max_running: col::<Option<i32>>(r, "max_running")?.map(i64::from),
        max_running_per_key: col::<Option<i32>>(r, "max_running_per_key")?.map(i64::from),
        rate: per_window.zip(window_ms).map(|(p, w)| Rate {
            per_window: i64::from(p),
            window_ms: w,
            per_key: r.get("rate_per_key"),
        }),
        fifo_per_key: col(r, "fifo_per_key")?,
        keep_completed: col(r, "keep_completed")?,
        fair_by: col::<Option<String>>(r, "fair_by")?.as_deref().and_then(FairBy::parse),
        weights: serde_json::from_value(col(r, "fair_weights")?)
            .map_err(|_| AllotError::Internal("bad fair_weights".into()))?,
        events: col(r, "events")?,
    })
}

/// Write `s` for `tenant` in `c`: settings that change nothing delete the row; a queue
/// without a rate forgets its starts; with `new_round` (a `PUT`, not a pause or resume) a
/// fair queue's round starts again (V49's cursor cleared). (The claim takes the unlimited
/// path unless the row `gates_claims`, V24.)
async fn store_settings<C: Db>(c: &C, tenant: &str, s: &QueueSettings, new_round: bool) -> Result<()> {
    let to_i32 = |v: Option<i64>| v.map(|n| n as i32);
    if s.is_default() {
        c.execute(
            "DELETE FROM queue_settings WHERE tenant = $1 AND queue = $2",
            &[&tenant, &s.queue],
        )
        .await
        .map_err(map_error)?;
    } else {
        c.execute(
            "INSERT INTO queue_settings (tenant, queue, paused, max_running, max_running_per_key, rate_per_window,
                                         rate_window_ms, rate_per_key, fifo_per_key, keep_completed, fair_by,
                                         fair_weights, events)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $14)
             ON CONFLICT (tenant, queue) DO UPDATE SET paused = $3, max_running = $4, max_running_per_key = $5,
                rate_per_window = $6, rate_window_ms = $7, rate_per_key = $8, fifo_per_key = $9, keep_completed = $10,
                fair_by = $11, fair_weights = $12, events = $14,
                fair_cursor = CASE WHEN $13 THEN NULL ELSE queue_settings.fair_cursor END,
                fair_served = CASE WHEN $13 THEN 0 ELSE queue_settings.fair_served END",
            &[
                &tenant,
                &s.queue,
                &s.paused,
                &to_i32(s.max_running),
                &to_i32(s.max_running_per_key),
                &to_i32(s.rate.map(|r| r.per_window)),
                &s.rate.map(|r| r.window_ms),
                &s.rate.is_some_and(|r| r.per_key),
                &s.fifo_per_key,
                &s.keep_completed,
                &s.fair_by.map(FairBy::as_str),
                &serde_json::json!(s.weights),
                &new_round,
                &s.events,
            ],
        )
        .await
        .map_err(map_error)?;
    }
    if s.rate.is_none() {
        c.execute(
            "DELETE FROM job_starts WHERE tenant = $1 AND queue = $2",
            &[&tenant, &s.queue],
        )
        .await
        .map_err(map_error)?;
    }
    Ok(())
}

/// What `job` waits on, read in one statement (`$1` tenant, `$2` queue, `$3` key, `$4` id,
/// `$5` now, `$6` rate window ms, `$7` whether the rate counts per key). What runs in the queue
/// says `lease_expires_at IS NOT NULL` so that it reads `jobs_lease` (V25).
const SQL_BLOCK_FACTS: &str = "SELECT
    (SELECT count(*) FROM jobs WHERE tenant = $1 AND queue = $2 AND state = 'running' AND lease_expires_at IS NOT NULL)
        AS running_in_queue,
    (SELECT count(*) FROM jobs WHERE tenant = $1 AND queue = $2 AND partition_key = $3 AND state = 'running')
        AS running_of_key,
    (SELECT count(*) FROM job_starts WHERE tenant = $1 AND queue = $2
        AND started_at > $5::timestamptz - $6::int8 * interval '1 millisecond'
        AND (NOT $7::bool OR partition_key = $3)) AS started_in_window,
    EXISTS (SELECT 1 FROM jobs WHERE tenant = $1 AND queue = $2 AND partition_key = $3 AND id < $4
        AND state IN ('available', 'scheduled', 'retryable', 'running')) AS fifo_predecessor";

impl PgStore {
    async fn block_facts(&self, tenant: &str, job: &JobView, s: &QueueSettings) -> Result<BlockFacts> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_BLOCK_FACTS).await.map_err(map_error)?;
        let window = s.rate.map_or(0, |r| r.window_ms);
        let per_key = s.rate.is_some_and(|r| r.per_key);
        let r = c
            .query_one(
                &stmt,
                &[
                    &tenant,
                    &job.queue,
                    &job.partition_key,
                    &job.id,
                    &self.now(),
                    &window,
                    &per_key,
                ],
            )
            .await
            .map_err(map_error)?;
        Ok(BlockFacts {
            running_in_queue: col(&r, "running_in_queue")?,
            running_of_key: col(&r, "running_of_key")?,
            started_in_window: col(&r, "started_in_window")?,
            fifo_predecessor: col(&r, "fifo_predecessor")?,
        })
    }
}

/// Jobs per queue and state of tenant `$1` (queue `$2`, or every queue after `$3` when `$2` is
/// NULL): the folded totals and the changes not folded yet, summed in one snapshot (V20).
pub(crate) const SQL_COUNTS: &str = "SELECT queue, state, sum(n)::int8 AS jobs FROM (
        SELECT queue, state, jobs AS n FROM queue_counts
         WHERE tenant = $1 AND ($2::text IS NULL OR queue = $2) AND queue > $3
        UNION ALL
        SELECT queue, state, delta FROM queue_count_deltas
         WHERE tenant = $1 AND ($2::text IS NULL OR queue = $2) AND queue > $3) c
  GROUP BY queue, state ORDER BY queue, state";

impl PgStore {
    /// `(queue, state, jobs)` rows of [`SQL_COUNTS`].
    pub(crate) async fn count_rows(
        &self,
        tenant: &str,
        queue: Option<&str>,
        after: &str,
    ) -> Result<Vec<(String, String, i64)>> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_COUNTS).await.map_err(map_error)?;
        let rows = c.query(&stmt, &[&tenant, &queue, &after]).await.map_err(map_error)?;
        rows.iter()
            .map(|r| Ok((col(r, "queue")?, col(r, "state")?, col(r, "jobs")?)))
            .collect()
    }

    /// Fold at most `max` appended changes into `queue_counts` (V20), in one statement.
    pub(crate) async fn run_fold_queue_counts(&self, max: u32) -> Result<u64> {
        let c = self.client().await?;
        let rows = c
            .query(
                "WITH d AS (
                     DELETE FROM queue_count_deltas WHERE ctid IN (SELECT ctid FROM queue_count_deltas LIMIT $1)
                     RETURNING tenant, queue, state, delta),
                 s AS (SELECT tenant, queue, state, sum(delta) AS delta, count(*) AS n FROM d GROUP BY 1, 2, 3),
                 up AS (
                     INSERT INTO queue_counts AS q (tenant, queue, state, jobs)
                     SELECT tenant, queue, state, delta FROM s
                     ON CONFLICT (tenant, queue, state) DO UPDATE SET jobs = q.jobs + excluded.jobs)
                 SELECT coalesce(sum(n), 0)::int8 FROM s",
                &[&i64::from(max)],
            )
            .await
            .map_err(map_error)?;
        // Queues that emptied leave no rows behind (a later change makes its row again).
        c.execute("DELETE FROM queue_counts WHERE jobs = 0", &[])
            .await
            .map_err(map_error)?;
        Ok(rows.first().map_or(0, |r| r.get::<_, i64>(0)) as u64)
    }
}

#[async_trait]
impl QueueStore for PgStore {
    async fn list_queues(&self, tenant: &Tenant, page: Page<Option<&str>>) -> Result<Listed<QueueCounts, String>> {
        let rows = self.count_rows(tenant.as_str(), None, page.after.unwrap_or("")).await?;
        let all = QueueCounts::many(rows)?;
        Ok(Listed::from_probe(all, &page, |q| q.queue.clone()))
    }

    async fn put_queue_settings(&self, tenant: &Tenant, settings: QueueSettings) -> Result<QueueSettings> {
        let c = self.client().await?;
        store_settings(&c, tenant.as_str(), &settings, true).await?;
        Ok(settings)
    }

    async fn queue_settings(&self, tenant: &Tenant, queue: &str) -> Result<QueueSettings> {
        let c = self.client().await?;
        let row = c
            .query_opt(
                "SELECT * FROM queue_settings WHERE tenant = $1 AND queue = $2",
                &[&tenant.as_str(), &queue],
            )
            .await
            .map_err(map_error)?;
        settings_of(queue, row.as_ref())
    }

    async fn pause_queue(&self, tenant: &Tenant, queue: &str, paused: bool) -> Result<QueueSettings> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(map_error)?;
        let row = tx
            .query_opt(
                "SELECT * FROM queue_settings WHERE tenant = $1 AND queue = $2 FOR UPDATE",
                &[&tenant.as_str(), &queue],
            )
            .await
            .map_err(map_error)?;
        let settings = QueueSettings {
            paused,
            ..settings_of(queue, row.as_ref())?
        };
        store_settings(&tx, tenant.as_str(), &settings, false).await?;
        tx.commit().await.map_err(map_error)?;
        Ok(settings)
    }

    async fn bulk_jobs(&self, tenant: &Tenant, req: Bulk) -> Result<BulkResult> {
        self.run_bulk_jobs(tenant, req).await
    }

    async fn create_schedule(&self, tenant: &Tenant, schedule: NewSchedule) -> Result<Schedule> {
        self.run_create_schedule(tenant, schedule).await
    }

    async fn list_schedules(&self, tenant: &Tenant) -> Result<Vec<Schedule>> {
        self.run_list_schedules(tenant).await
    }

    async fn delete_schedule(&self, tenant: &Tenant, name: &str) -> Result<()> {
        self.run_delete_schedule(tenant, name).await
    }

    async fn pause_schedule(&self, tenant: &Tenant, name: &str, paused: bool) -> Result<Schedule> {
        self.run_pause_schedule(tenant, name, paused).await
    }

    async fn job_detail(&self, tenant: &Tenant, id: i64) -> Result<JobDetail> {
        let c = self.client().await?;
        let sql = format!(
            "SELECT {JOB_COLS}, lease_expires_at, worker, attempted_at FROM jobs WHERE tenant = $1 AND id = $2"
        );
        let r = c
            .query_opt(&sql, &[&tenant.as_str(), &id])
            .await
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("job", id.to_string()))?;
        drop(c);
        let job = job_view(&r)?;
        let settings = self.queue_settings(tenant, &job.queue).await?;
        let waiting = matches!(
            job.state,
            JobState::Available | JobState::Scheduled | JobState::Retryable
        );
        let facts = if waiting && settings.is_limited() {
            self.block_facts(tenant.as_str(), &job, &settings).await?
        } else {
            BlockFacts::default()
        };
        Ok(JobDetail {
            blocked_by: blocked_by(&job, self.now(), &settings, &facts),
            lease_expires_at: col(&r, "lease_expires_at")?,
            worker: col(&r, "worker")?,
            attempted_at: col(&r, "attempted_at")?,
            job,
        })
    }
}
