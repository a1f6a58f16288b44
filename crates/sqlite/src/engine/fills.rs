//! Backorders filled where stock comes back (`allot_core::backorder`): the one fill of the
//! owed lines of a SKU at a location, oldest first, that every writer bringing stock back runs
//! inside its transaction — a rebalance upwards (`location_rows`), a hold finished as released
//! or expired (`overdue`), the part a partial confirm gives back — and the bucket counts it
//! and a rebalance read. Plumbing below both: it uses no other engine module.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use allot_core::backorder::plan_fills;
use allot_core::{plan_rebalance, BucketCounts, Result};
use rusqlite::{params, Connection};

/// The buckets of `sku` at `location`, in bucket order.
pub(crate) fn bucket_counts(tx: &Connection, tenant: &str, sku: &str, location: &str) -> Result<Vec<BucketCounts>> {
    tx.prepare_cached(
        "SELECT bucket, on_hand, held FROM stock WHERE tenant = ?2 AND sku = ?1 AND location = ?3 ORDER BY bucket",
    )
    .and_then(|mut s| {
        s.query_map([sku, tenant, location], |r| {
            Ok(BucketCounts {
                bucket: r.get::<_, i64>("bucket")? as u32,
                on_hand: r.get("on_hand")?,
                held: r.get("held")?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()
    })
    .map_err(map_error)
}

/// Fill the owed lines of `sku` that may use `location` from what is available there now,
/// oldest first (the writer brought stock back there): the stock taken, each fill on its
/// line and one `backorder_filled` ledger entry each, by `actor`.
pub(crate) fn fill_backorders(
    tx: &Connection,
    tenant: &str,
    (sku, location): (&str, &str),
    actor: Option<&str>,
) -> Result<()> {
    let owed: Vec<(String, i64)> = tx
        .prepare_cached(
            "SELECT allocation_id, quantity - filled - cancelled FROM backorders
              WHERE tenant = ?1 AND sku = ?2 AND filled + cancelled < quantity AND (location IS NULL OR location = ?3)
              ORDER BY rid",
        )
        .and_then(|mut s| {
            s.query_map([tenant, sku, location], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(map_error)?;
    if owed.is_empty() {
        return Ok(());
    }
    let counts = bucket_counts(tx, tenant, sku, location)?;
    let available: i64 = counts.iter().map(|c: &BucketCounts| c.on_hand - c.held).sum();
    let fills = plan_fills(&owed.iter().map(|o| o.1).collect::<Vec<_>>(), available);
    let total: i64 = fills.iter().sum();
    if total == 0 {
        return Ok(());
    }
    for (b, d) in plan_rebalance(sku, &counts, -total)? {
        tx.prepare_cached(
            "UPDATE stock SET on_hand = on_hand + ?3, version = version + 1 WHERE tenant = ?4 AND sku = ?1 AND bucket = ?2",
        )
        .and_then(|mut s| s.execute(params![sku, b, d, tenant]))
        .map_err(map_error)?;
    }
    for ((id, _), f) in owed.iter().zip(fills).filter(|(_, f)| *f > 0) {
        tx.prepare_cached(
            "UPDATE backorders SET filled = filled + ?4,
                    fills = json_insert(fills, '$[#]', json_object('location', ?3, 'quantity', ?4))
              WHERE tenant = ?1 AND allocation_id = ?2 AND sku = ?5",
        )
        .and_then(|mut s| s.execute(params![tenant, id, location, f, sku]))
        .map_err(map_error)?;
        tx.prepare_cached(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
             VALUES (?1, ?2, ?3, 0, 'backorder_filled', ?4, ?5, ?6, ?7)",
        )
        .and_then(|mut s| s.execute(params![tenant, sku, -f, id, now_us(), actor, location]))
        .map_err(map_error)?;
    }
    Ok(())
}

/// The (SKU, location) of each stock piece of the holds `ids` of `tenant` whose SKU owes
/// anything: where what a release or an expiry gave back may fill.
pub(crate) fn released_at(tx: &Connection, tenant: &str, ids: &[&str]) -> Result<Vec<(String, String)>> {
    let mut at = Vec::new();
    for id in ids {
        let rows: Vec<(String, String)> = tx
            .prepare_cached(
                "SELECT hl.sku, st.location FROM hold_lines hl
                   JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
                  WHERE hl.tenant = ?1 AND hl.hold_id = ?2 AND hl.bucket >= 0
                    AND EXISTS (SELECT 1 FROM backorders b WHERE b.tenant = ?1 AND b.sku = hl.sku
                                   AND b.filled + b.cancelled < b.quantity)",
            )
            .and_then(|mut s| s.query_map([tenant, id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .map_err(map_error)?;
        at.extend(rows);
    }
    Ok(at)
}

/// Fill what the SKUs owe at each (SKU, location) of `at` (stock a hold gave back there), in
/// byte order of SKU then location, each pair once: the order PostgreSQL's
/// `allot_fill_backorders` (V48) and the model fill in.
pub(crate) fn fill_after_holds(
    tx: &Connection,
    tenant: &str,
    at: Vec<(String, String)>,
    actor: Option<&str>,
) -> Result<()> {
    let at: std::collections::BTreeSet<(String, String)> = at.into_iter().collect();
    for (sku, location) in &at {
        fill_backorders(tx, tenant, (sku, location), actor)?;
    }
    Ok(())
}
