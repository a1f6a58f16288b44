//! Confirming part of a stock hold on PostgreSQL: before the confirm, the hold is shrunk to
//! what is confirmed — the rest of each piece leaves `held` at its own row, with a
//! `hold_released` entry at its location — inside the confirm's transaction, after the hold's
//! row is locked (so a partial confirm racing the hold's expiry has one outcome).

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::tx::TxResult;
use allot_core::hold::keep_of;
use allot_core::AllotError;

/// The hold's pieces `(sku, bucket, quantity, location)` in (sku, bucket) order.
const SQL_PIECES: &str = "SELECT hl.sku, hl.bucket, hl.quantity, st.location FROM hold_lines hl
   JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
  WHERE hl.tenant = $2 AND hl.hold_id = $1 ORDER BY hl.sku, hl.bucket FOR UPDATE OF st";

/// Shrink the locked, held stock hold `id` to `part` (see `HoldStore::confirm_hold`), its
/// ledger entries made by `actor` at `at`.
/// Returns its lines as kept (with `from`), also written to the hold's row.
pub(crate) async fn shrink_hold(
    tx: &Transaction<'_>,
    tenant: &str,
    (id, part): (&str, &[(String, i64)]),
    (actor, at): (Option<&str>, chrono::DateTime<chrono::Utc>),
) -> TxResult<serde_json::Value> {
    let stmt = tx.prepare_cached(SQL_PIECES).await?;
    let rows = tx.query(&stmt, &[&id, &tenant]).await?;
    let pieces: Vec<(String, i32, i64, String)> = rows
        .iter()
        .map(|r| (r.get("sku"), r.get("bucket"), r.get("quantity"), r.get("location")))
        .collect();
    let held: Vec<(String, i64)> = pieces.iter().map(|p| (p.0.clone(), p.2)).collect();
    let keep = keep_of(&held, part)?;
    for ((sku, bucket, q, location), k) in pieces.iter().zip(&keep) {
        let released = q - k;
        if released == 0 {
            continue;
        }
        let stmt = tx
            .prepare_cached(
                "WITH st AS (UPDATE stock SET held = held - $4, version = version + 1
                              WHERE tenant = $1 AND sku = $3 AND bucket = $5),
                      del AS (DELETE FROM hold_lines
                              WHERE tenant = $1 AND hold_id = $2 AND sku = $3 AND bucket = $5 AND $6::int8 = 0),
                      upd AS (UPDATE hold_lines SET quantity = $6::int8
                              WHERE tenant = $1 AND hold_id = $2 AND sku = $3 AND bucket = $5 AND $6 > 0)
                 INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
                 VALUES ($1, $3, 0, -$4, 'hold_released', $2, $7, $8, $9)",
            )
            .await?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] =
            [&tenant, &id, sku, &released, bucket, k, &actor, location, &at];
        tx.execute(&stmt, &params).await?;
    }
    let kept = pieces.iter().zip(&keep).map(|(p, k)| (p.0.as_str(), p.3.as_str(), *k));
    let lines = allot_core::hold::kept_lines(kept);
    let json = serde_json::to_value(&lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    let stmt = tx
        .prepare_cached("UPDATE holds SET lines = $3 WHERE tenant = $1 AND id = $2")
        .await?;
    tx.execute(&stmt, &[&tenant, &id, &json]).await?;
    Ok(json)
}
