//! Confirming part of a hold on PostgreSQL: before the confirm, the hold is shrunk to what is
//! confirmed — the rest of each stock piece leaves `held` at its own row, with a
//! `hold_released` entry at its location; a unit line's units past those kept become
//! available, with a `hold_released` entry; the bookings not named are released and belong to
//! the hold no more — inside the confirm's transaction, after the hold's row is locked (so a
//! partial confirm racing the hold's expiry has one outcome). Locks follow the global order of
//! a hold's finish: the hold's row, its stock rows (sku, bucket), its bookings (by id), then
//! its units (held by this hold alone). SKUs are ordered byte-wise (`COLLATE "C"`), as the
//! lines are everywhere else (the model, SQLite), whatever the database's collation.

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::tx::TxResult;
use allot_core::hold::{plan_part, ConfirmPart, PartPlan};
use allot_core::AllotError;

/// The hold's stock pieces `(sku, bucket, quantity, location)` in (sku, bucket) order.
const SQL_PIECES: &str = "SELECT hl.sku, hl.bucket, hl.quantity, st.location FROM hold_lines hl
   JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
  WHERE hl.tenant = $2 AND hl.hold_id = $1 ORDER BY hl.sku COLLATE \"C\", hl.bucket FOR UPDATE OF st";

/// Where the hold's stock pieces are, of SKUs that owe (backorders): every stock row at those
/// locations, locked in the global order before the hold's own, since what the released part
/// gives back fills there after (`allot_fill_backorders` locks the location's rows).
const SQL_LOCK_OWING: &str = "SELECT 1 FROM stock s
   JOIN (SELECT DISTINCT hl.sku, st.location FROM hold_lines hl
           JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
          WHERE hl.tenant = $2 AND hl.hold_id = $1 AND hl.bucket >= 0
            AND EXISTS (SELECT 1 FROM backorders b WHERE b.tenant = $2 AND b.sku = hl.sku
                           AND b.filled + b.cancelled < b.quantity)) d
     ON s.tenant = $2 AND s.sku = d.sku AND s.location = d.location
  ORDER BY s.sku COLLATE \"C\", s.bucket FOR UPDATE OF s";

/// The hold's unit lines `(sku, quantity)` in SKU order.
const SQL_UNIT_LINES: &str = "SELECT sku, quantity FROM hold_lines
  WHERE tenant = $2 AND hold_id = $1 AND bucket = -1 ORDER BY sku COLLATE \"C\"";

/// The hold's bookings' ids, locked in id order.
const SQL_BOOKINGS: &str = "SELECT id FROM bookings WHERE tenant = $2 AND hold_id = $1 ORDER BY id FOR UPDATE";

/// A stock piece's release: `$4` of `$3` at bucket `$5` leaves `held`; the piece keeps `$6`.
const SQL_RELEASE_PIECE: &str = "WITH st AS (UPDATE stock SET held = held - $4, version = version + 1
                  WHERE tenant = $1 AND sku = $3 AND bucket = $5),
          del AS (DELETE FROM hold_lines
                  WHERE tenant = $1 AND hold_id = $2 AND sku = $3 AND bucket = $5 AND $6::int8 = 0),
          upd AS (UPDATE hold_lines SET quantity = $6::int8
                  WHERE tenant = $1 AND hold_id = $2 AND sku = $3 AND bucket = $5 AND $6 > 0)
     INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
     VALUES ($1, $3, 0, -$4, 'hold_released', $2, $7, $8, $9)";

/// A unit line's release: of the hold `$2`'s units of `$3`, those after the first `$6` (by
/// id) become available; the line keeps `$6` of its `$6 + $4`.
const SQL_RELEASE_UNITS: &str = "WITH gone AS (UPDATE units SET status = 'available', claim_id = NULL
                  WHERE tenant = $1 AND id IN (SELECT id FROM units
                        WHERE tenant = $1 AND claim_id = $2 AND sku = $3 AND status = 'held'
                        ORDER BY id OFFSET $6)),
          del AS (DELETE FROM hold_lines
                  WHERE tenant = $1 AND hold_id = $2 AND sku = $3 AND bucket = -1 AND $6::int8 = 0),
          upd AS (UPDATE hold_lines SET quantity = $6::int8
                  WHERE tenant = $1 AND hold_id = $2 AND sku = $3 AND bucket = -1 AND $6 > 0)
     INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, at)
     VALUES ($1, $3, 0, -($4::int8), 'hold_released', $2, $5, $7)";

/// The hold's booking `$3` released at `$4`: the hold's no more.
const SQL_RELEASE_BOOKING: &str = "UPDATE bookings SET status = 'released', status_at = $4, hold_id = NULL
  WHERE tenant = $1 AND hold_id = $2 AND id = $3 AND status = 'held'";

/// What the hold holds, read and locked: its stock pieces, unit lines and bookings.
struct Held {
    pieces: Vec<(String, i32, i64, String)>,
    units: Vec<(String, i64)>,
    bookings: Vec<String>,
}

async fn read_held(tx: &Transaction<'_>, tenant: &str, id: &str) -> TxResult<Held> {
    let stmt = tx.prepare_cached(SQL_LOCK_OWING).await?;
    tx.query(&stmt, &[&id, &tenant]).await?;
    let stmt = tx.prepare_cached(SQL_PIECES).await?;
    let pieces = tx.query(&stmt, &[&id, &tenant]).await?;
    let stmt = tx.prepare_cached(SQL_UNIT_LINES).await?;
    let units = tx.query(&stmt, &[&id, &tenant]).await?;
    let stmt = tx.prepare_cached(SQL_BOOKINGS).await?;
    let bookings = tx.query(&stmt, &[&id, &tenant]).await?;
    Ok(Held {
        pieces: pieces
            .iter()
            .map(|r| (r.get("sku"), r.get("bucket"), r.get("quantity"), r.get("location")))
            .collect(),
        units: units.iter().map(|r| (r.get("sku"), r.get("quantity"))).collect(),
        bookings: bookings.iter().map(|r| r.get("id")).collect(),
    })
}

/// Shrink the locked, held hold `id` to `part` (see `HoldStore::confirm_hold`), its ledger
/// entries made by `actor` at `at`. Returns its lines as kept (stock lines with `from`, unit
/// lines, in SKU order), also written to the hold's row.
pub(crate) async fn shrink_hold(
    tx: &Transaction<'_>,
    tenant: &str,
    (id, part): (&str, &ConfirmPart),
    (actor, at): (Option<&str>, chrono::DateTime<chrono::Utc>),
) -> TxResult<serde_json::Value> {
    let held = read_held(tx, tenant, id).await?;
    let stock: Vec<(String, i64)> = held.pieces.iter().map(|p| (p.0.clone(), p.2)).collect();
    let plan = plan_part(id, (&stock, &held.units, &held.bookings), part)?;
    release_rest(tx, tenant, id, (&held, &plan), (actor, at)).await?;
    let lines = plan.lines(
        held.pieces.iter().map(|p| (p.0.as_str(), p.3.as_str())),
        held.units.iter().map(|u| u.0.as_str()),
    );
    let json = serde_json::to_value(&lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    let stmt = tx
        .prepare_cached("UPDATE holds SET lines = $3 WHERE tenant = $1 AND id = $2")
        .await?;
    tx.execute(&stmt, &[&tenant, &id, &json]).await?;
    Ok(json)
}

/// Give back what `plan` does not keep of `held`: stock pieces, units, bookings.
async fn release_rest(
    tx: &Transaction<'_>,
    tenant: &str,
    id: &str,
    (held, plan): (&Held, &PartPlan),
    (actor, at): (Option<&str>, chrono::DateTime<chrono::Utc>),
) -> TxResult<()> {
    let mut gave_back: (Vec<&str>, Vec<&str>) = Default::default();
    for ((sku, bucket, q, location), k) in held.pieces.iter().zip(&plan.stock) {
        let released = q - k;
        if released == 0 {
            continue;
        }
        let stmt = tx.prepare_cached(SQL_RELEASE_PIECE).await?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 9] =
            [&tenant, &id, sku, &released, bucket, k, &actor, location, &at];
        tx.execute(&stmt, &params).await?;
        gave_back.0.push(sku);
        gave_back.1.push(location);
    }
    if !gave_back.0.is_empty() {
        // What the released part gave back fills what its SKUs owe there, as a release does.
        let (skus, locations) = (&gave_back.0[..], &gave_back.1[..]);
        crate::engine::fills::fill_backorders(tx, tenant, (skus, locations), (actor, at)).await?;
    }
    for ((sku, q), k) in held.units.iter().zip(&plan.units) {
        let released = q - k;
        if released == 0 {
            continue;
        }
        let stmt = tx.prepare_cached(SQL_RELEASE_UNITS).await?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [&tenant, &id, sku, &released, &actor, k, &at];
        tx.execute(&stmt, &params).await?;
    }
    // One by one, in id order: their `booking.released` events in that order, as SQLite's.
    for b in &plan.released_bookings {
        let stmt = tx.prepare_cached(SQL_RELEASE_BOOKING).await?;
        tx.execute(&stmt, &[&tenant, &id, b, &at]).await?;
    }
    Ok(())
}
