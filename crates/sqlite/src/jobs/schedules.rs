//! Schedules on SQLite (V15): stored per tenant, and the pass that enqueues due ticks in one
//! write transaction (one writer: a tick is enqueued once).

use super::insert_jobs;
use crate::engine::clock::{from_us, now_us, us};
use crate::engine::errors::{map_error, stored_json};
use crate::engine::store::SqliteStore;
use allot_core::job::schedule::{Missed, NewSchedule, Schedule, Timetable};
use allot_core::job::validate::tick_job;
use allot_core::job::Enqueue;
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Limits, Result};
use rusqlite::{params, Connection, OptionalExtension};

const COLS: &str = "name, cron, timezone, queue, job, missed, paused, next_run_at_us, last_run_at_us";

fn schedule_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Schedule> {
    let missed: String = r.get("missed")?;
    let new = NewSchedule {
        name: r.get("name")?,
        cron: r.get("cron")?,
        timezone: r.get("timezone")?,
        queue: r.get("queue")?,
        job: stored_json(r, "job")?.unwrap_or_default(),
        missed: Missed::parse(&missed).unwrap_or_default(),
        next_run_at: from_us(r.get("next_run_at_us")?),
    };
    let last: Option<i64> = r.get("last_run_at_us")?;
    Ok(Schedule::stored(new, r.get("paused")?, last.map(from_us)))
}

fn one(c: &Connection, tenant: &str, name: &str) -> Result<Schedule> {
    c.query_row(
        &format!("SELECT {COLS} FROM schedules WHERE tenant = ?1 AND name = ?2"),
        params![tenant, name],
        schedule_of,
    )
    .optional()
    .map_err(map_error)?
    .ok_or_else(|| AllotError::not_found("schedule", name))
}

fn create(c: &Connection, tenant: &str, s: &NewSchedule, max: u32) -> Result<Schedule> {
    let n: i64 = c
        .query_row("SELECT count(*) FROM schedules WHERE tenant = ?1", [tenant], |r| {
            r.get(0)
        })
        .map_err(map_error)?;
    if n >= i64::from(max) {
        return Err(AllotError::LimitExceeded {
            limit: "max_schedules",
            max: u64::from(max),
            message: format!("the tenant has {n} schedules"),
        });
    }
    c.execute(
        "INSERT INTO schedules (tenant, name, cron, timezone, queue, job, missed, next_run_at_us, created_at_us)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            tenant,
            s.name,
            s.cron,
            s.timezone,
            s.queue,
            s.job.to_string(),
            s.missed.as_str(),
            us(s.next_run_at),
            now_us()
        ],
    )
    .map_err(|e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::ConstraintViolation) => AllotError::AlreadyExists {
            kind: "schedule",
            id: s.name.clone(),
        },
        _ => map_error(e),
    })?;
    one(c, tenant, &s.name)
}

/// One pass at `now_us`: the due schedules' ticks enqueued, by (next tick, tenant, name), each
/// schedule moved on.
fn pass(c: &Connection, limits: &Limits, now: i64, max: u32) -> Result<u64> {
    type Due = (String, String, String, String, String, String, String, i64);
    let due: Vec<Due> = c
        .prepare(
            "SELECT tenant, name, cron, timezone, queue, job, missed, next_run_at_us FROM schedules
              WHERE paused = 0 AND next_run_at_us <= ?1 ORDER BY next_run_at_us, tenant, name LIMIT ?2",
        )
        .and_then(|mut st| {
            st.query_map(params![now, max], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })?
            .collect()
        })
        .map_err(map_error)?;
    let mut enqueued = 0;
    for (tenant, name, cron, timezone, queue, job, missed, next_us) in due {
        let table = Timetable::parse(&cron, &timezone)?;
        let missed = Missed::parse(&missed).unwrap_or_default();
        let (ticks, next) = table.due(from_us(next_us), from_us(now), missed, limits.schedule_grace_ms, 100);
        let template: serde_json::Value =
            serde_json::from_str(&job).map_err(|_| AllotError::Internal(format!("schedule {name}: bad template")))?;
        match ticks
            .iter()
            .map(|t| tick_job(&name, &template, *t, limits))
            .collect::<Result<Vec<_>>>()
        {
            Ok(jobs) if !jobs.is_empty() => {
                let req = Enqueue {
                    queue,
                    jobs,
                    now: from_us(now),
                    traceparent: None,
                    batch: None,
                };
                enqueued += insert_jobs(c, &tenant, &req, limits)?.ids.len() as u64;
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(schedule = %name, error = %e, "a schedule's job template is refused"),
        }
        c.execute(
            "UPDATE schedules SET next_run_at_us = coalesce(?3, next_run_at_us),
                    last_run_at_us = coalesce(?4, last_run_at_us), paused = paused OR ?3 IS NULL
              WHERE tenant = ?1 AND name = ?2",
            params![tenant, name, next.map(us), ticks.last().map(|t| us(*t))],
        )
        .map_err(map_error)?;
    }
    Ok(enqueued)
}

impl SqliteStore {
    pub(crate) async fn run_create_schedule(&self, tenant: &Tenant, s: NewSchedule) -> Result<Schedule> {
        let (t, max) = (tenant.to_string(), self.limits.max_schedules);
        self.call(move |c| {
            let tx = c
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(map_error)?;
            let done = create(&tx, &t, &s, max)?;
            tx.commit().map_err(map_error)?;
            Ok(done)
        })
        .await
    }

    pub(crate) async fn run_list_schedules(&self, tenant: &Tenant) -> Result<Vec<Schedule>> {
        let t = tenant.to_string();
        self.call(move |c| {
            c.prepare(&format!("SELECT {COLS} FROM schedules WHERE tenant = ?1 ORDER BY name"))
                .and_then(|mut st| st.query_map([&t], schedule_of)?.collect())
                .map_err(map_error)
        })
        .await
    }

    pub(crate) async fn run_delete_schedule(&self, tenant: &Tenant, name: &str) -> Result<()> {
        let (t, name) = (tenant.to_string(), name.to_string());
        self.call(move |c| {
            let n = c
                .execute(
                    "DELETE FROM schedules WHERE tenant = ?1 AND name = ?2",
                    params![t, name],
                )
                .map_err(map_error)?;
            if n == 0 {
                return Err(AllotError::not_found("schedule", name));
            }
            Ok(())
        })
        .await
    }

    pub(crate) async fn run_pause_schedule(&self, tenant: &Tenant, name: &str, paused: bool) -> Result<Schedule> {
        let (t, name) = (tenant.to_string(), name.to_string());
        self.call(move |c| {
            let s = one(c, &t, &name)?;
            let next = match paused {
                true => s.next_run_at,
                false => Timetable::parse(&s.cron, &s.timezone)?
                    .next_after(from_us(now_us()))
                    .unwrap_or(s.next_run_at),
            };
            c.execute(
                "UPDATE schedules SET paused = ?3, next_run_at_us = ?4 WHERE tenant = ?1 AND name = ?2",
                params![t, name, paused, us(next)],
            )
            .map_err(map_error)?;
            one(c, &t, &name)
        })
        .await
    }

    pub(crate) async fn run_run_schedules(&self, now: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64> {
        let limits = self.limits.clone();
        let result = self
            .call(move |c| {
                let tx = c
                    .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                    .map_err(map_error)?;
                let n = pass(&tx, &limits, us(now), max)?;
                tx.commit().map_err(map_error)?;
                Ok(n)
            })
            .await;
        if matches!(result, Ok(n) if n > 0) {
            self.job_signal.notify_waiters();
        }
        result
    }
}
