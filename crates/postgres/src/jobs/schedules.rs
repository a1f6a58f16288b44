//! Schedules on PostgreSQL (V19): stored per tenant, and the pass that enqueues due ticks —
//! each due row locked `FOR UPDATE SKIP LOCKED`, its ticks inserted by the enqueue's own
//! statements, `next_run_at` moved past now, one transaction for the whole pass.

use super::{insert_batch, Tx};
use crate::engine::conn::Db;
use crate::engine::errors::{col, map_error};
use crate::engine::store::PgStore;
use crate::engine::tx::TxResult;
use allot_core::job::schedule::{Missed, NewSchedule, Schedule, Timetable};
use allot_core::job::validate::tick_job;
use allot_core::job::Enqueue;
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Capable, Result};
use chrono::{DateTime, Utc};

const COLS: &str = "name, cron, timezone, queue, job, missed, paused, next_run_at, last_run_at";

fn schedule_of(r: &tokio_postgres::Row) -> Result<Schedule> {
    let missed: String = col(r, "missed")?;
    let new = NewSchedule {
        name: col(r, "name")?,
        cron: col(r, "cron")?,
        timezone: col(r, "timezone")?,
        queue: col(r, "queue")?,
        job: col(r, "job")?,
        missed: Missed::parse(&missed).ok_or_else(|| AllotError::Internal("bad schedule missed".into()))?,
        next_run_at: col(r, "next_run_at")?,
    };
    Ok(Schedule::stored(new, col(r, "paused")?, col(r, "last_run_at")?))
}

impl PgStore {
    pub(crate) async fn run_create_schedule(&self, tenant: &Tenant, s: NewSchedule) -> Result<Schedule> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(map_error)?;
        // One tenant's creations one at a time, so the count below is exact.
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtext('allot_schedules'), hashtext($1))",
            &[&tenant.as_str()],
        )
        .await
        .map_err(map_error)?;
        let n: i64 = tx
            .query_one("SELECT count(*) FROM schedules WHERE tenant = $1", &[&tenant.as_str()])
            .await
            .map_err(map_error)?
            .get(0);
        let max = self.limits.max_schedules;
        if n >= i64::from(max) {
            return Err(AllotError::LimitExceeded {
                limit: "max_schedules",
                max: u64::from(max),
                message: format!("the tenant has {n} schedules"),
            });
        }
        let sql = format!(
            "INSERT INTO schedules (tenant, name, cron, timezone, queue, job, missed, next_run_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING {COLS}"
        );
        let row = tx
            .query_one(
                &sql,
                &[
                    &tenant.as_str(),
                    &s.name,
                    &s.cron,
                    &s.timezone,
                    &s.queue,
                    &s.job,
                    &s.missed.as_str(),
                    &s.next_run_at,
                    &self.now(),
                ],
            )
            .await
            .map_err(|e| match e.code() {
                Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => AllotError::AlreadyExists {
                    kind: "schedule",
                    id: s.name.clone(),
                },
                _ => map_error(e),
            })?;
        tx.commit().await.map_err(map_error)?;
        schedule_of(&row)
    }

    pub(crate) async fn run_list_schedules(&self, tenant: &Tenant) -> Result<Vec<Schedule>> {
        let c = self.client().await?;
        let sql = format!("SELECT {COLS} FROM schedules WHERE tenant = $1 ORDER BY name");
        let rows = c.query(&sql, &[&tenant.as_str()]).await.map_err(map_error)?;
        rows.iter().map(schedule_of).collect()
    }

    pub(crate) async fn run_delete_schedule(&self, tenant: &Tenant, name: &str) -> Result<()> {
        let c = self.client().await?;
        let n = c
            .execute(
                "DELETE FROM schedules WHERE tenant = $1 AND name = $2",
                &[&tenant.as_str(), &name],
            )
            .await
            .map_err(map_error)?;
        if n == 0 {
            return Err(AllotError::not_found("schedule", name));
        }
        Ok(())
    }

    pub(crate) async fn run_pause_schedule(&self, tenant: &Tenant, name: &str, paused: bool) -> Result<Schedule> {
        let c = self.client().await?;
        let sql = format!("SELECT {COLS} FROM schedules WHERE tenant = $1 AND name = $2");
        let row = c
            .query_opt(&sql, &[&tenant.as_str(), &name])
            .await
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("schedule", name))?;
        let s = schedule_of(&row)?;
        // Resumed: from the next tick after now; what passed while paused is not run.
        let next = match paused {
            true => s.next_run_at,
            false => Timetable::parse(&s.cron, &s.timezone)?
                .next_after(self.now())
                .unwrap_or(s.next_run_at),
        };
        let sql = format!(
            "UPDATE schedules SET paused = $3, next_run_at = $4 WHERE tenant = $1 AND name = $2 RETURNING {COLS}"
        );
        let row = c
            .query_opt(&sql, &[&tenant.as_str(), &name, &paused, &next])
            .await
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("schedule", name))?;
        schedule_of(&row)
    }

    pub(crate) async fn run_run_schedules(&self, now: DateTime<Utc>, max: u32) -> Result<u64> {
        self.retrying(|| self.write("", None, async |tx| pass(self, &Tx::Pooled(tx), now, max).await))
            .await?
            .fresh()
    }
}

/// One pass in `tx`: the due schedules, locked, by (next tick, tenant, name) so that their jobs
/// are made in one order a replay can repeat, each enqueued and moved on.
async fn pass(store: &PgStore, tx: &Tx<'_, '_>, now: DateTime<Utc>, max: u32) -> TxResult<u64> {
    let rows = tx
        .query(
            "SELECT tenant, name, cron, timezone, queue, job, missed, next_run_at, last_run_at FROM schedules
              WHERE NOT paused AND next_run_at <= $1 ORDER BY next_run_at, tenant, name LIMIT $2 FOR UPDATE SKIP LOCKED",
            &[&now, &i64::from(max)],
        )
        .await?;
    let mut enqueued = 0;
    for r in &rows {
        let tenant: String = col(r, "tenant")?;
        let name: String = col(r, "name")?;
        let table = Timetable::parse(&col::<String>(r, "cron")?, &col::<String>(r, "timezone")?)?;
        let missed = Missed::parse(&col::<String>(r, "missed")?).unwrap_or_default();
        let (ticks, next) = table.due(col(r, "next_run_at")?, now, missed, store.limits.schedule_grace_ms, 100);
        let template: serde_json::Value = col(r, "job")?;
        let jobs = ticks
            .iter()
            .map(|t| tick_job(&name, &template, *t, &store.limits))
            .collect::<Result<Vec<_>>>();
        match jobs {
            Ok(jobs) if !jobs.is_empty() => {
                let req = Enqueue {
                    queue: col(r, "queue")?,
                    jobs,
                    now,
                    traceparent: None,
                    batch: None,
                };
                enqueued += insert_batch(tx, &tenant, &req, &store.limits).await?.ids.len() as u64;
            }
            Ok(_) => {}
            // A template today's limits refuse: the tick is skipped, the schedule moves on.
            Err(e) => tracing::warn!(schedule = %name, error = %e, "a schedule's job template is refused"),
        }
        let last: Option<DateTime<Utc>> = ticks.last().copied().or(col(r, "last_run_at")?);
        tx.query(
            "UPDATE schedules SET next_run_at = coalesce($3, next_run_at), last_run_at = $4,
                    paused = paused OR $3::timestamptz IS NULL
              WHERE tenant = $1 AND name = $2",
            &[&tenant, &name, &next, &last],
        )
        .await?;
    }
    Ok(enqueued)
}
