//! Per-slot events on SQLite (`resource.sold_out`, `resource.back_in_stock`): in the same
//! write transaction as the change (the one writer orders them), the fill of the slots it
//! touched is compared with the slots `slots_sold_out` says were announced (V23), and each
//! edge is written with its event (`allot_core::booking::fill`).

use super::capacity;
use crate::engine::clock::{from_us, us};
use crate::engine::errors::map_error;
use allot_core::booking::fill::{self, FillEdge};
use allot_core::booking::judge::Picture;
use allot_core::{AllotError, Result};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection};

type Range = (DateTime<Utc>, DateTime<Utc>);

/// Write the edges of `p`'s fill over `range` (`p` read in this transaction, with every
/// change it made counted), each with its event at `now_us`.
pub(super) fn announce(c: &Connection, tenant: &str, p: &Picture, (from, to): Range, now_us: i64) -> Result<()> {
    let resource = p.resource.resource.as_str();
    let seen: Vec<DateTime<Utc>> = c
        .prepare_cached(
            "SELECT slot_start_us FROM slots_sold_out
              WHERE tenant = ?1 AND resource = ?2 AND slot_start_us >= ?3 AND slot_start_us < ?4",
        )
        .and_then(|mut s| {
            s.query_map(params![tenant, resource, us(from), us(to)], |r| Ok(from_us(r.get(0)?)))?
                .collect()
        })
        .map_err(map_error)?;
    for change in fill::changes(&fill::own_fill(p, from, to), &seen) {
        let level = match change.edge {
            FillEdge::SoldOut => {
                "INSERT OR IGNORE INTO slots_sold_out (tenant, resource, slot_start_us) VALUES (?1, ?2, ?3)"
            }
            FillEdge::BackInStock => {
                "DELETE FROM slots_sold_out WHERE tenant = ?1 AND resource = ?2 AND slot_start_us = ?3"
            }
        };
        let changed = c
            .prepare_cached(level)
            .and_then(|mut s| s.execute(params![tenant, resource, us(change.slot.start)]))
            .map_err(map_error)?;
        if changed == 1 {
            c.prepare_cached("INSERT INTO events (tenant, type, object, data, at_us) VALUES (?1, ?2, ?3, ?4, ?5)")
                .and_then(|mut s| {
                    s.execute(params![
                        tenant,
                        change.edge.event_type().as_str(),
                        resource,
                        change.data(resource).to_string(),
                        now_us
                    ])
                })
                .map_err(map_error)?;
        }
    }
    Ok(())
}

/// Announce the slots of `resource` that `[start, end)` touches, read afresh in this
/// transaction (after a cancel, a release, an expiry or a reschedule in it). Nothing for a
/// resource without slots, or a range the picture refuses (more slots than one request may
/// touch: the next writer on those slots announces them).
pub(super) fn announce_range(
    c: &Connection,
    tenant: &str,
    resource: &str,
    (start, end): Range,
    now_us: i64,
) -> Result<()> {
    let Some(r) = capacity::resource_of(c, tenant, resource)? else {
        return Ok(());
    };
    if r.slot_ms.is_none() {
        return Ok(());
    }
    let p = match capacity::picture(c, tenant, r, (start, end), now_us) {
        Err(AllotError::InvalidRequest(_)) => return Ok(()),
        p => p?,
    };
    match fill::cover(&p, start, end) {
        Some(cover) => announce(c, tenant, &p, cover, now_us),
        None => Ok(()),
    }
}
