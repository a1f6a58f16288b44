//! What the capacity rule reads on SQLite (see `allot_core::audit::slots`).

use crate::engine::clock::{from_us, now_us};
use crate::engine::errors::map_error;
use allot_core::audit::slots::{CapacityAuditInput, SlotBookingRow};
use allot_core::booking::capacity::{Pool, Resource};
use allot_core::{AllotError, Result};
use rusqlite::Connection;

fn parsed<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| AllotError::Internal(format!("a stored configuration: {e}")))
}

/// Every put resource with slots, pool, slot capacity and blocking booking of a put resource
/// (made by the capacity path or not), of `tenant` or of all.
pub(super) fn capacity_rows(c: &Connection, tenant: Option<&str>) -> Result<CapacityAuditInput> {
    let mut input = CapacityAuditInput::default();
    let rows: Vec<(String, String)> = c
        .prepare_cached("SELECT tenant, config FROM resources WHERE ?1 IS NULL OR tenant = ?1")
        .and_then(|mut s| s.query_map([tenant], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .map_err(map_error)?;
    for (t, text) in rows {
        let r: Resource = parsed(&text)?;
        if r.slot_ms.is_some() {
            input.resources.push((t, r));
        }
    }
    let rows: Vec<(String, String, String)> = c
        .prepare_cached(
            "SELECT p.tenant, p.config, COALESCE((SELECT json_group_array(resource) FROM resource_pools m
                                                  WHERE m.tenant = p.tenant AND m.pool = p.pool), '[]')
               FROM pools p WHERE ?1 IS NULL OR p.tenant = ?1",
        )
        .and_then(|mut s| {
            s.query_map([tenant], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .map_err(map_error)?;
    for (t, text, members) in rows {
        let p: Pool = parsed(&text)?;
        input.pools.push((t, p, parsed(&members)?));
    }
    input.overrides = c
        .prepare_cached(
            "SELECT tenant, resource, slot_start_us, capacity, changed_at_us FROM slot_capacity WHERE ?1 IS NULL OR tenant = ?1",
        )
        .and_then(|mut s| {
            s.query_map([tenant], |r| {
                Ok((r.get(0)?, r.get(1)?, from_us(r.get(2)?), r.get(3)?, from_us(r.get(4)?)))
            })?
            .collect()
        })
        .map_err(map_error)?;
    input.bookings = c
        .prepare_cached(
            "SELECT tenant, resource, start_us, end_us, quantity, max(created_at_us, COALESCE(rescheduled_at_us, 0))
               FROM bookings
              WHERE (?1 IS NULL OR tenant = ?1)
                AND EXISTS (SELECT 1 FROM resources r WHERE r.tenant = bookings.tenant AND r.resource = bookings.resource)
                AND (status = 'confirmed' OR (status = 'held' AND expires_at_us > ?2))",
        )
        .and_then(|mut s| {
            s.query_map(rusqlite::params![tenant, now_us()], |r| {
                Ok(SlotBookingRow {
                    tenant: r.get(0)?,
                    resource: r.get(1)?,
                    start: from_us(r.get(2)?),
                    end: from_us(r.get(3)?),
                    quantity: r.get(4)?,
                    counted_at: from_us(r.get(5)?),
                })
            })?
            .collect()
        })
        .map_err(map_error)?;
    Ok(input)
}
