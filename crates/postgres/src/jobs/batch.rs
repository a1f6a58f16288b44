//! Batches with a callback on PostgreSQL (the rules: `allot_core::job::batch`; the schema:
//! V50). The callback is inserted in the enqueue's transaction as a job that depends on every
//! member with `on_failed_dependency: run`, through the dependencies' own path; the batch's
//! row counts how its members ended, and the trigger that settles dependents adds to it and
//! merges the counts into the callback's payload when it releases it.

use super::{insert_members, Tx};
use crate::engine::tx::{TxErr, TxResult};
use allot_core::job::batch::{JobBatch, JobBatchMade};
use allot_core::job::Enqueue;
use allot_core::support::limits::Limits;
use allot_core::AllotError;

/// Record batch `$2` of tenant `$1` with callback `$3` over members `$4` (`$5` now): how many
/// members there are and how those already finished ended; nothing when the id is taken.
const SQL_BATCH: &str = "INSERT INTO batches (tenant, id, job_id, jobs, completed, discarded, cancelled, created_at)
 SELECT $1, $2, $3, count(*), count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'discarded'),
        count(*) FILTER (WHERE state = 'cancelled'), $5
   FROM jobs WHERE tenant = $1 AND id = ANY($4)
 ON CONFLICT (tenant, id) DO NOTHING
 RETURNING jobs, completed, discarded, cancelled";

/// A callback `$2` of tenant `$1` that waits for nothing (every member had finished): the
/// counts `$3` in its payload now.
const SQL_COUNTS_NOW: &str =
    "UPDATE jobs SET payload = (payload::jsonb || jsonb_build_object('batch', $3::jsonb))::json
  WHERE tenant = $1 AND id = $2 AND state <> 'pending'";

/// The batch id's lock (`$1` tenant, `$2` id), held to the transaction's end: two enqueues of
/// one id take turns, and the second's check below sees the first's committed row.
const SQL_LOCK_ID: &str = "SELECT pg_advisory_xact_lock(hashtext('allot_batches'), hashtext($1 || '/' || $2))";

/// Refuse a batch id the tenant has (`already_exists`) before anything is inserted, so that a
/// caller's transaction (`enqueue_in`) that goes on after the refusal holds none of it. Two
/// enqueues racing for one id take turns on the id's advisory lock, so the later one is
/// refused here too, never after its members are in (the batches row's key stays the
/// backstop). Each check reads after the lock is granted (its own statement, own snapshot).
pub(super) async fn unused(tx: &Tx<'_, '_>, tenant: &str, b: &JobBatch) -> TxResult<()> {
    tx.query(SQL_LOCK_ID, &[&tenant, &b.id]).await?;
    let taken = tx
        .query("SELECT 1 FROM batches WHERE tenant = $1 AND id = $2", &[&tenant, &b.id])
        .await?;
    if taken.is_empty() {
        Ok(())
    } else {
        Err(TxErr::Fail(AllotError::AlreadyExists {
            kind: "batch",
            id: b.id.clone(),
        }))
    }
}

/// Insert `b`'s callback for the members `ids` (request order, duplicates possible) and record
/// the batch. Errors: `already_exists` for a batch id the tenant has.
pub(super) async fn make(
    tx: &Tx<'_, '_>,
    tenant: &str,
    req: &Enqueue,
    b: &JobBatch,
    ids: &[i64],
    limits: &Limits,
) -> TxResult<JobBatchMade> {
    let sub = b.callback_enqueue(ids, req.now, req.traceparent.clone());
    let members = sub.jobs[0].depends_on.clone();
    let callback_id = insert_members(tx, tenant, &sub, limits).await?.ids[0];
    let rows = tx
        .query(SQL_BATCH, &[&tenant, &b.id, &callback_id, &members, &req.now])
        .await?;
    let Some(r) = rows.first() else {
        return Err(TxErr::Fail(AllotError::AlreadyExists {
            kind: "batch",
            id: b.id.clone(),
        }));
    };
    let counts = allot_core::job::batch::counts(
        &b.id,
        r.get::<_, i32>(0).into(),
        r.get::<_, i32>(1).into(),
        r.get::<_, i32>(2).into(),
        r.get::<_, i32>(3).into(),
    );
    tx.query(SQL_COUNTS_NOW, &[&tenant, &callback_id, &counts]).await?;
    Ok(JobBatchMade {
        id: b.id.clone(),
        callback_id,
    })
}
