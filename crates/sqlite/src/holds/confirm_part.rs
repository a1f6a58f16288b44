//! Confirming part of a stock hold on SQLite: before the confirm, the hold is shrunk to what
//! is confirmed — the rest of each piece leaves `held` at its own row, with a
//! `hold_released` entry at its location — inside the confirm's transaction.

use crate::engine::errors::map_error;
use allot_core::hold::keep_of;
use allot_core::{AllotError, Result};
use rusqlite::{params, Connection};

/// Shrink the held stock hold `id` to `part` (see `HoldStore::confirm_hold`). Returns its
/// lines as kept (with `from`), also written to the hold's row.
pub(crate) fn shrink_hold(
    c: &Connection,
    (tenant, id): (&str, &str),
    part: &[(String, i64)],
    now_us: i64,
    actor: Option<&str>,
) -> Result<String> {
    let pieces: Vec<(String, i64, i64, String)> = c
        .prepare_cached(
            "SELECT hl.sku, hl.bucket, hl.quantity, st.location FROM hold_lines hl
               JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
              WHERE hl.tenant = ?2 AND hl.hold_id = ?1 ORDER BY hl.sku, hl.bucket",
        )
        .and_then(|mut s| {
            s.query_map([id, tenant], |r| {
                Ok((r.get("sku")?, r.get("bucket")?, r.get("quantity")?, r.get("location")?))
            })?
            .collect()
        })
        .map_err(map_error)?;
    let held: Vec<(String, i64)> = pieces.iter().map(|p| (p.0.clone(), p.2)).collect();
    let keep = keep_of(&held, part)?;
    for ((sku, bucket, q, location), k) in pieces.iter().zip(&keep) {
        let released = q - k;
        if released == 0 {
            continue;
        }
        let run = |sql: &str, p: &[&dyn rusqlite::ToSql]| c.prepare_cached(sql).and_then(|mut s| s.execute(p));
        run(
            "UPDATE stock SET held = held - ?3, version = version + 1 WHERE tenant = ?1 AND sku = ?2 AND bucket = ?4",
            params![tenant, sku, released, bucket],
        )
        .and_then(|_| {
            run(
                "DELETE FROM hold_lines WHERE tenant = ?1 AND hold_id = ?2 AND sku = ?3 AND bucket = ?4 AND ?5 = 0",
                params![tenant, id, sku, bucket, k],
            )
        })
        .and_then(|_| {
            run(
                "UPDATE hold_lines SET quantity = ?5 WHERE tenant = ?1 AND hold_id = ?2 AND sku = ?3 AND bucket = ?4 AND ?5 > 0",
                params![tenant, id, sku, bucket, k],
            )
        })
        .and_then(|_| {
            run(
                "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
                 VALUES (?1, ?2, 0, ?3, 'hold_released', ?4, ?5, ?6, ?7)",
                params![tenant, sku, -released, id, now_us, actor, location],
            )
        })
        .map_err(map_error)?;
    }
    let kept = pieces.iter().zip(&keep).map(|(p, k)| (p.0.as_str(), p.3.as_str(), *k));
    let lines = allot_core::hold::kept_lines(kept);
    let json = serde_json::to_string(&lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    c.prepare_cached("UPDATE holds SET lines = ?3 WHERE tenant = ?1 AND id = ?2")
        .and_then(|mut s| s.execute(params![tenant, id, json]))
        .map_err(map_error)?;
    Ok(json)
}
