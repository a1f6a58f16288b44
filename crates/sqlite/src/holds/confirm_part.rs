//! Confirming part of a hold on SQLite: before the confirm, the hold is shrunk to what is
//! confirmed — the rest of each stock piece leaves `held` at its own row, with a
//! `hold_released` entry at its location; a unit line's units past those kept become
//! available, with a `hold_released` entry; the bookings not named are released and belong to
//! the hold no more (their events by trigger) — inside the confirm's transaction.

use crate::engine::errors::map_error;
use allot_core::hold::{plan_part, ConfirmPart, PartPlan};
use allot_core::{AllotError, Result};
use rusqlite::{params, Connection};

/// What the hold holds: its stock pieces `(sku, bucket, quantity, location)` in (sku,
/// bucket) order, its unit lines `(sku, quantity)` in SKU order, its bookings' ids in order.
struct Held {
    pieces: Vec<(String, i64, i64, String)>,
    units: Vec<(String, i64)>,
    bookings: Vec<String>,
}

fn read_held(c: &Connection, (tenant, id): (&str, &str)) -> Result<Held> {
    let pieces = c
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
    let units = c
        .prepare_cached(
            "SELECT sku, quantity FROM hold_lines WHERE tenant = ?2 AND hold_id = ?1 AND bucket = -1 ORDER BY sku",
        )
        .and_then(|mut s| s.query_map([id, tenant], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .map_err(map_error)?;
    let bookings = c
        .prepare_cached("SELECT id FROM bookings WHERE tenant = ?2 AND hold_id = ?1 ORDER BY id")
        .and_then(|mut s| s.query_map([id, tenant], |r| r.get(0))?.collect())
        .map_err(map_error)?;
    Ok(Held {
        pieces,
        units,
        bookings,
    })
}

/// Shrink the held hold `id` to `part` (see `HoldStore::confirm_hold`). Returns its lines as
/// kept (stock lines with `from`, unit lines, in SKU order), also written to the hold's row.
pub(crate) fn shrink_hold(
    c: &Connection,
    (tenant, id): (&str, &str),
    part: &ConfirmPart,
    now_us: i64,
    actor: Option<&str>,
) -> Result<String> {
    let held = read_held(c, (tenant, id))?;
    let stock: Vec<(String, i64)> = held.pieces.iter().map(|p| (p.0.clone(), p.2)).collect();
    let plan = plan_part(id, (&stock, &held.units, &held.bookings), part)?;
    release_rest(c, (tenant, id), (&held, &plan), now_us, actor).map_err(map_error)?;
    // What the released part gave back fills what its SKUs owe there, as a release does.
    let gave_back = held
        .pieces
        .iter()
        .zip(&plan.stock)
        .filter(|((_, _, q, _), k)| q > k)
        .map(|((sku, _, _, location), _)| (sku.clone(), location.clone()))
        .collect();
    crate::engine::fills::fill_after_holds(c, tenant, gave_back, actor)?;
    let lines = plan.lines(
        held.pieces.iter().map(|p| (p.0.as_str(), p.3.as_str())),
        held.units.iter().map(|u| u.0.as_str()),
    );
    let json = serde_json::to_string(&lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    c.prepare_cached("UPDATE holds SET lines = ?3 WHERE tenant = ?1 AND id = ?2")
        .and_then(|mut s| s.execute(params![tenant, id, json]))
        .map_err(map_error)?;
    Ok(json)
}

/// Give back what `plan` does not keep of `held`: stock pieces, units, bookings.
fn release_rest(
    c: &Connection,
    (tenant, id): (&str, &str),
    (held, plan): (&Held, &PartPlan),
    now_us: i64,
    actor: Option<&str>,
) -> rusqlite::Result<()> {
    let run = |sql: &str, p: &[&dyn rusqlite::ToSql]| c.prepare_cached(sql).and_then(|mut s| s.execute(p));
    for ((sku, bucket, q, location), k) in held.pieces.iter().zip(&plan.stock) {
        let released = q - k;
        if released == 0 {
            continue;
        }
        run(
            "UPDATE stock SET held = held - ?3, version = version + 1 WHERE tenant = ?1 AND sku = ?2 AND bucket = ?4",
            params![tenant, sku, released, bucket],
        )?;
        shrink_line(c, (tenant, id), (sku, *bucket), *k)?;
        released_entry(
            c,
            (tenant, id),
            (sku, Some(location.as_str())),
            released,
            (now_us, actor),
        )?;
    }
    for ((sku, q), k) in held.units.iter().zip(&plan.units) {
        let released = q - k;
        if released == 0 {
            continue;
        }
        run(
            "UPDATE units SET status = 'available', claim_id = NULL
              WHERE tenant = ?1 AND id IN (SELECT id FROM units
                    WHERE tenant = ?1 AND claim_id = ?2 AND sku = ?3 AND status = 'held'
                    ORDER BY id LIMIT -1 OFFSET ?4)",
            params![tenant, id, sku, k],
        )?;
        shrink_line(c, (tenant, id), (sku, -1), *k)?;
        released_entry(c, (tenant, id), (sku, None), released, (now_us, actor))?;
    }
    for b in &plan.released_bookings {
        run(
            "UPDATE bookings SET status = 'released', status_at_us = ?4, hold_id = NULL
              WHERE tenant = ?1 AND hold_id = ?2 AND id = ?3 AND status = 'held'",
            params![tenant, id, b, now_us],
        )?;
    }
    Ok(())
}

/// The hold's line of `sku` at `bucket` (-1: a unit line) keeps `kept` (none: it goes).
fn shrink_line(
    c: &Connection,
    (tenant, id): (&str, &str),
    (sku, bucket): (&str, i64),
    kept: i64,
) -> rusqlite::Result<()> {
    let sql = if kept == 0 {
        "DELETE FROM hold_lines WHERE tenant = ?1 AND hold_id = ?2 AND sku = ?3 AND bucket = ?4 AND ?5 = 0"
    } else {
        "UPDATE hold_lines SET quantity = ?5 WHERE tenant = ?1 AND hold_id = ?2 AND sku = ?3 AND bucket = ?4"
    };
    c.prepare_cached(sql)
        .and_then(|mut s| s.execute(params![tenant, id, sku, bucket, kept]))
        .map(drop)
}

/// A `hold_released` ledger entry of `released` of `sku` (at `location`, none for units).
fn released_entry(
    c: &Connection,
    (tenant, id): (&str, &str),
    (sku, location): (&str, Option<&str>),
    released: i64,
    (now_us, actor): (i64, Option<&str>),
) -> rusqlite::Result<()> {
    c.prepare_cached(
        "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
         VALUES (?1, ?2, 0, ?3, 'hold_released', ?4, ?5, ?6, ?7)",
    )
    .and_then(|mut s| s.execute(params![tenant, sku, -released, id, now_us, actor, location]))
    .map(drop)
}
