//! Batches with a callback on SQLite (the rules: `allot_core::job::batch`; the schema: V33):
//! the callback inserted in the enqueue's transaction as a job that depends on every member
//! with `on_failed_dependency: run`, the batch's row counting how the members ended.

use super::insert_members;
use crate::engine::clock::us;
use crate::engine::errors::map_error;
use allot_core::job::batch::{JobBatch, JobBatchMade};
use allot_core::job::Enqueue;
use allot_core::support::limits::Limits;
use allot_core::{AllotError, Result};
use rusqlite::{params, Connection, OptionalExtension};

/// Refuse a batch id the tenant has (`already_exists`) before anything is inserted.
pub(super) fn unused(tx: &Connection, t: &str, b: &JobBatch) -> Result<()> {
    let taken: Option<i64> = tx
        .prepare_cached("SELECT 1 FROM batches WHERE tenant = ?1 AND id = ?2")
        .and_then(|mut s| s.query_row(params![t, b.id], |r| r.get(0)).optional())
        .map_err(map_error)?;
    match taken {
        None => Ok(()),
        Some(_) => Err(AllotError::AlreadyExists {
            kind: "batch",
            id: b.id.clone(),
        }),
    }
}

/// Insert `b`'s callback for the members `ids` and record the batch. Errors:
/// `already_exists` for a batch id the tenant has.
pub(super) fn make(
    tx: &Connection,
    t: &str,
    req: &Enqueue,
    b: &JobBatch,
    ids: &[i64],
    limits: &Limits,
) -> Result<JobBatchMade> {
    let sub = b.callback_enqueue(ids, req.now, req.traceparent.clone());
    let members = sub.jobs[0].depends_on.clone();
    let callback_id = insert_members(tx, t, &sub, limits)?.ids[0];
    let members = serde_json::json!(members).to_string();
    let counts: Option<(i64, i64, i64, i64)> = tx
        .prepare_cached(
            "INSERT INTO batches (tenant, id, job_id, jobs, completed, discarded, cancelled, created_at_us)
             SELECT ?1, ?2, ?3, count(*), coalesce(sum(state = 'completed'), 0), coalesce(sum(state = 'discarded'), 0),
                    coalesce(sum(state = 'cancelled'), 0), ?5
               FROM jobs WHERE tenant = ?1 AND id IN (SELECT value FROM json_each(?4))
             ON CONFLICT (tenant, id) DO NOTHING
             RETURNING jobs, completed, discarded, cancelled",
        )
        .and_then(|mut s| {
            s.query_row(params![t, b.id, callback_id, members, us(req.now)], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .optional()
        })
        .map_err(map_error)?;
    let Some((jobs, completed, discarded, cancelled)) = counts else {
        return Err(AllotError::AlreadyExists {
            kind: "batch",
            id: b.id.clone(),
        });
    };
    // A callback that waits for nothing (every member had finished) has its counts now.
    let counts = allot_core::job::batch::counts(&b.id, jobs, completed, discarded, cancelled);
    tx.prepare_cached(
        "UPDATE jobs SET payload = json_set(payload, '$.batch', json(?3))
          WHERE tenant = ?1 AND id = ?2 AND state <> 'pending'",
    )
    .and_then(|mut s| s.execute(params![t, callback_id, counts.to_string()]))
    .map_err(map_error)?;
    Ok(JobBatchMade {
        id: b.id.clone(),
        callback_id,
    })
}
