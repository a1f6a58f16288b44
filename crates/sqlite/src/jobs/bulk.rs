//! Bulk actions on SQLite: the matching jobs picked oldest first (one more than the call's
//! bound, to know whether more remain), then one statement for the action, in one write
//! transaction; a dry run rolls back.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::job::bulk::{Bulk, BulkAction, BulkResult};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, Result};
use rusqlite::params;

/// The ids a bulk call acts on (`?1` tenant, `?2` queue, `?3` states as a JSON array, `?4` a
/// tag, `?5` a partition key, at most `?6`), oldest first. `ORDER BY +id`: the jobs are found through the `(tenant, queue, state, id)` index (V19) and
/// only they are sorted, rather than walking every job of the tenant in id order.
const SQL_PICK: &str = "SELECT id FROM jobs
  WHERE tenant = ?1 AND queue = ?2 AND state IN (SELECT value FROM json_each(?3))
    AND (?4 IS NULL OR EXISTS (SELECT 1 FROM json_each(jobs.tags) WHERE value = ?4))
    AND (?5 IS NULL OR partition_key = ?5)
  ORDER BY +id LIMIT ?6";

/// The action's statement over the `?2` ids (a JSON array) of tenant `?1` (`?3` now, µs).
fn action_sql(action: BulkAction) -> &'static str {
    match action {
        BulkAction::Retry => {
            "UPDATE jobs SET state = 'available', run_at_us = ?3, finalized_at_us = NULL, dependency_failure = NULL,
                    max_attempts = max(max_attempts, attempt + 1)
              WHERE tenant = ?1 AND id IN (SELECT value FROM json_each(?2)) AND state IN ('discarded', 'cancelled')"
        }
        BulkAction::Cancel => {
            "UPDATE jobs SET state = 'cancelled', finalized_at_us = ?3, lease_token = NULL, lease_expires_at_us = NULL
              WHERE tenant = ?1 AND id IN (SELECT value FROM json_each(?2))
                AND state NOT IN ('completed', 'discarded', 'cancelled')"
        }
        BulkAction::Delete => {
            "DELETE FROM jobs WHERE tenant = ?1 AND id IN (SELECT value FROM json_each(?2)) AND state <> 'running'
                AND ?3 IS NOT NULL"
        }
    }
}

/// Before a delete: cancel the unfinished jobs of `?2` that other jobs wait for, so that the
/// trigger of V33 settles their dependents (a deleted row fires no update trigger).
const SQL_CANCEL_AWAITED: &str = "UPDATE jobs SET state = 'cancelled', finalized_at_us = ?3
  WHERE tenant = ?1 AND id IN (SELECT value FROM json_each(?2)) AND has_dependents
    AND state NOT IN ('running', 'completed', 'discarded', 'cancelled')";

/// The audit trail of a bulk call: a `queue.bulk_applied` event in the same transaction
/// (the `events_cursor` trigger gives it its cursor).
const SQL_AUDIT: &str = "INSERT INTO events (tenant, type, object, data, at_us)
     VALUES (?1, 'queue.bulk_applied', ?2, ?3, ?4)";

impl SqliteStore {
    pub(crate) async fn run_bulk_jobs(&self, tenant: &Tenant, req: Bulk) -> Result<BulkResult> {
        let t = tenant.to_string();
        self.call(move |c| {
            let tx = c
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(map_error)?;
            let states = serde_json::json!(req.states.iter().map(|s| s.as_str()).collect::<Vec<_>>()).to_string();
            let mut ids: Vec<i64> = tx
                .prepare_cached(SQL_PICK)
                .and_then(|mut s| {
                    s.query_map(
                        params![t, req.queue, states, req.tag, req.partition_key, req.max + 1],
                        |r| r.get(0),
                    )?
                    .collect()
                })
                .map_err(map_error)?;
            let more = ids.len() as i64 > req.max;
            ids.truncate(req.max as usize);
            let matched = ids.len() as i64;
            if req.dry_run {
                return Ok(BulkResult {
                    matched,
                    changed: 0,
                    more,
                });
            }
            let (ids, now) = (serde_json::json!(ids).to_string(), now_us());
            if req.action == BulkAction::Delete {
                tx.execute(SQL_CANCEL_AWAITED, params![t, ids, now])
                    .map_err(map_error)?;
            }
            let changed =
                tx.execute(action_sql(req.action), params![t, ids, now])
                    .map_err(|e| match e.sqlite_error_code() {
                        Some(rusqlite::ErrorCode::ConstraintViolation) => AllotError::AlreadyExists {
                            kind: "unfinished job with the unique_key of a job to retry",
                            id: req.queue.clone(),
                        },
                        _ => map_error(e),
                    })?;
            let audit = req.audit(matched, changed as i64).to_string();
            tx.execute(SQL_AUDIT, params![t, req.queue, audit, now])
                .map_err(map_error)?;
            tx.commit().map_err(map_error)?;
            Ok(BulkResult {
                matched,
                changed: changed as i64,
                more,
            })
        })
        .await
    }
}
