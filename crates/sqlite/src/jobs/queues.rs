//! The operator's side of the queue on SQLite: settings (the `queue_settings` row the claim
//! reads, V14), listings in any state, and one job in full with why it waits.

use super::limited;
use crate::engine::clock::{from_us, now_us};
use crate::engine::errors::{map_error, stored_json, stored_name};
use crate::engine::store::SqliteStore;
use allot_core::job::bulk::{Bulk, BulkResult};
use allot_core::job::queue::{blocked_by, BlockFacts, JobDetail, QueueSettings};
use allot_core::job::schedule::{NewSchedule, Schedule};
use allot_core::job::{JobState, JobView, QueueCounts};
use allot_core::store::QueueStore;
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Result};
use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension};

/// A page of a queue's jobs by id (`?1` queue, `?2` state or NULL for all, `?3` after, `?4`
/// limit, `?5` tenant, `?6` most bytes of documents, `?7` a tag or NULL, `?8`/`?9` a metadata
/// key and its value as JSON, or NULL, `?10`/`?11` the same of the payload). A value matches
/// with its JSON type, as PostgreSQL's `jsonb` equality does: `true` is not `1` (which
/// `json_extract` alone would say), `1` is `1.0`.
macro_rules! list_jobs {
    ($queue:literal, $state:literal) => {
        concat!(
            "SELECT * FROM (
    SELECT *, lead(id) OVER (ORDER BY id) AS following, length(CAST(payload AS BLOB)) + length(CAST(errors AS BLOB)) + coalesce(length(CAST(output AS BLOB)), 0)
              + length(CAST(metadata AS BLOB)) AS size,
           sum(length(CAST(payload AS BLOB)) + length(CAST(errors AS BLOB)) + coalesce(length(CAST(output AS BLOB)), 0)
               + length(CAST(metadata AS BLOB))) OVER (ORDER BY id) AS upto
      FROM jobs WHERE tenant = ?5 AND ",
            $queue,
            $state,
            " AND id > ?3
       AND (?7 IS NULL OR EXISTS (SELECT 1 FROM json_each(jobs.tags) WHERE value = ?7))
       AND (?8 IS NULL OR (json_extract(metadata, '$.\"' || ?8 || '\"') IS json_extract(?9, '$')
                           AND replace(replace(json_type(metadata, '$.\"' || ?8 || '\"'), 'integer', 'number'), 'real', 'number')
                            IS replace(replace(json_type(?9, '$'), 'integer', 'number'), 'real', 'number')))
       AND (?10 IS NULL OR (json_type(payload) = 'object'
                            AND json_extract(payload, '$.\"' || ?10 || '\"') IS json_extract(?11, '$')
                            AND replace(replace(json_type(payload, '$.\"' || ?10 || '\"'), 'integer', 'number'), 'real', 'number')
                             IS replace(replace(json_type(?11, '$'), 'integer', 'number'), 'real', 'number')))
     ORDER BY id LIMIT ?4)
  WHERE upto - size < ?6 ORDER BY id"
        )
    };
}
/// The listing without a state (every state), and with one (`?2`): two statements, so that
/// the one with a state walks the `(tenant, queue, state, id)` index (V19) in id order instead
/// of every job of the tenant (`?2 IS NULL OR state = ?2` can use no index). Without a state,
/// `+queue` keeps the planner on the `(tenant, id)` key, already in the page's order, rather
/// than sorting the whole queue read through the state index.
pub(super) const SQL_LIST_JOBS: [&str; 2] = [
    list_jobs!("+queue = ?1", ""),
    list_jobs!("queue = ?1", " AND state = ?2"),
];

/// A job row as listings show it.
pub(super) fn job_view(r: &rusqlite::Row<'_>) -> rusqlite::Result<JobView> {
    let tags = stored_json(r, "tags")?.unwrap_or_default();
    Ok(JobView {
        id: r.get("id")?,
        queue: r.get("queue")?,
        state: stored_name(r, "state", JobState::parse)?,
        priority: r.get("priority")?,
        payload: stored_json(r, "payload")?.unwrap_or_default(),
        attempt: r.get("attempt")?,
        max_attempts: r.get("max_attempts")?,
        errors: stored_json(r, "errors")?.unwrap_or_default(),
        run_at: from_us(r.get("run_at_us")?),
        unique_key: r.get("unique_key")?,
        created_at: from_us(r.get("created_at_us")?),
        finalized_at: r.get::<_, Option<i64>>("finalized_at_us")?.map(from_us),
        partition_key: r.get("partition_key")?,
        tags: serde_json::from_value(tags).unwrap_or_default(),
        metadata: stored_json(r, "metadata")?.unwrap_or_default(),
        output: stored_json(r, "output")?,
        dependency_failure: r.get("dependency_failure")?,
    })
}

/// Write `s`: settings that change nothing delete the row; a queue without a rate forgets its
/// starts; with `new_round` (a `PUT`, not a pause or resume) a fair queue's round starts
/// again (V32's cursor cleared).
fn store_settings(c: &Connection, tenant: &str, s: &QueueSettings, new_round: bool) -> Result<()> {
    if s.is_default() {
        c.execute(
            "DELETE FROM queue_settings WHERE tenant = ?1 AND queue = ?2",
            params![tenant, s.queue],
        )
        .map_err(map_error)?;
    } else {
        c.execute(
            "INSERT INTO queue_settings (tenant, queue, paused, max_running, max_running_per_key, rate_per_window,
                                         rate_window_ms, rate_per_key, fifo_per_key, keep_completed, fair_by,
                                         fair_weights, events)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?14)
             ON CONFLICT (tenant, queue) DO UPDATE SET paused = ?3, max_running = ?4, max_running_per_key = ?5,
                rate_per_window = ?6, rate_window_ms = ?7, rate_per_key = ?8, fifo_per_key = ?9, keep_completed = ?10,
                fair_by = ?11, fair_weights = ?12, events = ?14,
                fair_cursor = CASE WHEN ?13 THEN NULL ELSE fair_cursor END,
                fair_served = CASE WHEN ?13 THEN 0 ELSE fair_served END",
            params![
                tenant,
                s.queue,
                s.paused,
                s.max_running,
                s.max_running_per_key,
                s.rate.map(|r| r.per_window),
                s.rate.map(|r| r.window_ms),
                s.rate.is_some_and(|r| r.per_key),
                s.fifo_per_key,
                s.keep_completed,
                s.fair_by.map(allot_core::job::fair::FairBy::as_str),
                serde_json::json!(s.weights).to_string(),
                new_round,
                s.events
            ],
        )
        .map_err(map_error)?;
    }
    if s.rate.is_none() {
        c.execute(
            "DELETE FROM job_starts WHERE tenant = ?1 AND queue = ?2",
            params![tenant, s.queue],
        )
        .map_err(map_error)?;
    }
    Ok(())
}

fn settings_or_default(c: &Connection, tenant: &str, queue: &str) -> Result<QueueSettings> {
    Ok(limited::settings(c, tenant, queue)?.unwrap_or_else(|| QueueSettings {
        queue: queue.to_string(),
        ..QueueSettings::default()
    }))
}

/// What `job` waits on under `s`, at `now` µs.
fn block_facts(c: &Connection, tenant: &str, job: &JobView, s: &QueueSettings, now: i64) -> Result<BlockFacts> {
    let since = now - s.rate.map_or(0, |r| r.window_ms) * 1000;
    let per_key = s.rate.is_some_and(|r| r.per_key);
    c.query_row(
        "SELECT
            (SELECT count(*) FROM jobs WHERE tenant = ?1 AND queue = ?2 AND state = 'running'),
            (SELECT count(*) FROM jobs WHERE tenant = ?1 AND queue = ?2 AND partition_key = ?3 AND state = 'running'),
            (SELECT count(*) FROM job_starts WHERE tenant = ?1 AND queue = ?2 AND started_at_us > ?5
                AND (NOT ?6 OR partition_key = ?3)),
            EXISTS (SELECT 1 FROM jobs WHERE tenant = ?1 AND queue = ?2 AND partition_key = ?3 AND id < ?4
                AND state IN ('available', 'scheduled', 'retryable', 'running'))",
        params![tenant, job.queue, job.partition_key, job.id, since, per_key],
        |r| {
            Ok(BlockFacts {
                running_in_queue: r.get(0)?,
                running_of_key: r.get(1)?,
                started_in_window: r.get(2)?,
                fifo_predecessor: r.get(3)?,
            })
        },
    )
    .map_err(map_error)
}

#[async_trait]
impl QueueStore for SqliteStore {
    async fn list_queues(&self, tenant: &Tenant, page: Page<Option<&str>>) -> Result<Listed<QueueCounts, String>> {
        let (t, after) = (tenant.to_string(), page.after.unwrap_or_default().to_string());
        let rows: Vec<(String, String, i64)> = self
            .call(move |c| {
                c.prepare_cached(
                    "SELECT queue, state, jobs FROM queue_counts WHERE tenant = ?1 AND queue > ?2 ORDER BY queue, state",
                )
                .and_then(|mut s| {
                    s.query_map(params![t, after], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                        .collect()
                })
                .map_err(map_error)
            })
            .await?;
        let all = QueueCounts::many(rows)?;
        Ok(Listed::from_probe(all, &page, |q| q.queue.clone()))
    }

    async fn put_queue_settings(&self, tenant: &Tenant, settings: QueueSettings) -> Result<QueueSettings> {
        let t = tenant.to_string();
        self.call(move |c| {
            store_settings(c, &t, &settings, true)?;
            Ok(settings)
        })
        .await
    }

    async fn queue_settings(&self, tenant: &Tenant, queue: &str) -> Result<QueueSettings> {
        let (t, q) = (tenant.to_string(), queue.to_string());
        self.call(move |c| settings_or_default(c, &t, &q)).await
    }

    async fn pause_queue(&self, tenant: &Tenant, queue: &str, paused: bool) -> Result<QueueSettings> {
        let (t, q) = (tenant.to_string(), queue.to_string());
        self.call(move |c| {
            let tx = c
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(map_error)?;
            let settings = QueueSettings {
                paused,
                ..settings_or_default(&tx, &t, &q)?
            };
            store_settings(&tx, &t, &settings, false)?;
            tx.commit().map_err(map_error)?;
            Ok(settings)
        })
        .await
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
        let t = tenant.to_string();
        self.call(move |c| {
            let found = c
                .query_row(
                    "SELECT * FROM jobs WHERE tenant = ?1 AND id = ?2",
                    params![t, id],
                    |r| {
                        Ok((
                            job_view(r)?,
                            r.get::<_, Option<i64>>("lease_expires_at_us")?.map(from_us),
                            r.get::<_, Option<String>>("worker")?,
                            r.get::<_, Option<i64>>("attempted_at_us")?.map(from_us),
                        ))
                    },
                )
                .optional()
                .map_err(map_error)?;
            let (job, lease_expires_at, worker, attempted_at) =
                found.ok_or_else(|| AllotError::not_found("job", id.to_string()))?;
            let settings = settings_or_default(c, &t, &job.queue)?;
            let now = now_us();
            let waiting = matches!(
                job.state,
                JobState::Available | JobState::Scheduled | JobState::Retryable
            );
            let facts = if waiting && settings.is_limited() {
                block_facts(c, &t, &job, &settings, now)?
            } else {
                BlockFacts::default()
            };
            Ok(JobDetail {
                blocked_by: blocked_by(&job, from_us(now), &settings, &facts),
                lease_expires_at,
                worker,
                attempted_at,
                job,
            })
        })
        .await
    }
}
