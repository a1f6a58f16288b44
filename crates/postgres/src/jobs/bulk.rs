//! Bulk actions on PostgreSQL: the matching jobs picked oldest first `FOR UPDATE SKIP LOCKED`
//! (one more than the call's bound, to know whether more remain), then one statement for the
//! action, in one transaction; a dry run rolls back.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::job::bulk::{Bulk, BulkAction, BulkResult};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Capable, Result};

/// `$1` tenant, `$2` queue, `$3` states, `$4` tag or NULL, `$5` partition key or NULL,
/// `$6` how many. The states `$3` are tested in three branches, one per index that holds
/// them (V25): `jobs_queue_state` (off the common path), `jobs_fetch` (available), `jobs_lease`
/// (running), `jobs_pending` (V50), so that a pick in a small queue of a big table reads indexes (a bitmap OR).
const SQL_PICK: &str = "SELECT id FROM jobs
  WHERE tenant = $1 AND queue = $2
    AND ((state = ANY($3) AND state IN ('scheduled', 'retryable', 'completed', 'discarded', 'cancelled'))
         OR ('available' = ANY($3) AND state = 'available')
         OR ('running' = ANY($3) AND state = 'running' AND lease_expires_at IS NOT NULL)
         OR ('pending' = ANY($3) AND state = 'pending'))
    AND ($4::text IS NULL OR tags @> ARRAY[$4::text])
    AND ($5::text IS NULL OR partition_key = $5)
  ORDER BY id LIMIT $6 FOR UPDATE SKIP LOCKED";

/// The action's statement over `$2` ids of tenant `$1` (`$3` now), re-checking each state.
fn action_sql(action: BulkAction) -> &'static str {
    match action {
        BulkAction::Retry => {
            "UPDATE jobs SET state = 'available', run_at = $3, finalized_at = NULL, dependency_failure = NULL,
                    max_attempts = GREATEST(max_attempts, attempt + 1)
              WHERE tenant = $1 AND id = ANY($2)
                AND state NOT IN ('pending', 'available', 'scheduled', 'retryable', 'running', 'completed')"
        }
        BulkAction::Cancel => {
            "UPDATE jobs SET state = 'cancelled', finalized_at = $3, lease_token = NULL, lease_expires_at = NULL
              WHERE tenant = $1 AND id = ANY($2) AND state NOT IN ('completed', 'discarded', 'cancelled')"
        }
        BulkAction::Delete => {
            "DELETE FROM jobs WHERE tenant = $1 AND id = ANY($2) AND state <> 'running' AND $3::timestamptz IS NOT NULL"
        }
    }
}

/// Before a delete: cancel the unfinished jobs of `$2` that other jobs wait for, so that the
/// trigger of V50 settles their dependents (a deleted row fires no update trigger).
const SQL_CANCEL_AWAITED: &str = "UPDATE jobs SET state = 'cancelled', finalized_at = $3
  WHERE tenant = $1 AND id = ANY($2) AND has_dependents AND state NOT IN ('running', 'completed', 'discarded', 'cancelled')";

/// The audit trail of a bulk call: a `queue.bulk_applied` event in the same transaction
/// (the feed's sequencer gives it its cursor).
const SQL_AUDIT: &str = "INSERT INTO events (tenant, type, object, data, at)
     VALUES ($1, 'queue.bulk_applied', $2, $3::text::json, $4)";

impl PgStore {
    pub(crate) async fn run_bulk_jobs(&self, tenant: &Tenant, req: Bulk) -> Result<BulkResult> {
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(map_error)?;
        let states: Vec<&str> = req.states.iter().map(|s| s.as_str()).collect();
        let mut ids: Vec<i64> = tx
            .query(
                SQL_PICK,
                &[
                    &tenant.as_str(),
                    &req.queue,
                    &states,
                    &req.tag,
                    &req.partition_key,
                    &(req.max + 1),
                ],
            )
            .await
            .map_err(map_error)?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let more = ids.len() as i64 > req.max;
        ids.truncate(req.max as usize);
        let matched = ids.len() as i64;
        if req.dry_run {
            tx.rollback().await.map_err(map_error)?;
            return Ok(BulkResult {
                matched,
                changed: 0,
                more,
            });
        }
        if req.action == BulkAction::Delete {
            tx.execute(SQL_CANCEL_AWAITED, &[&tenant.as_str(), &ids, &self.now()])
                .await
                .map_err(map_error)?;
        }
        let changed = tx
            .execute(action_sql(req.action), &[&tenant.as_str(), &ids, &self.now()])
            .await
            .map_err(|e| match e.code() {
                Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION) => AllotError::AlreadyExists {
                    kind: "unfinished job with the unique_key of a job to retry",
                    id: req.queue.clone(),
                },
                _ => map_error(e),
            })?;
        let audit = req.audit(matched, changed as i64).to_string();
        tx.execute(SQL_AUDIT, &[&tenant.as_str(), &req.queue, &audit, &self.now()])
            .await
            .map_err(map_error)?;
        tx.commit().await.map_err(map_error)?;
        Ok(BulkResult {
            matched,
            changed: changed as i64,
            more,
        })
    }
}
