//! Capacity on SQLite: resources and pools that were put, per-slot capacities, and the
//! [`Picture`] a booking is judged on. The one writer thread runs the read, the judge and the
//! insert in one transaction, so the picture is exact while it decides.

use crate::engine::clock::{from_us, us};
use crate::engine::errors::map_error;
use allot_core::booking::capacity::{Pool, Resource, SlotCapacity};
use allot_core::booking::judge::{self, Counted, Picture, PoolPicture};
use allot_core::{AllotError, Result};
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

fn config<T: serde::de::DeserializeOwned>(c: &Connection, sql: &str, tenant: &str, name: &str) -> Result<Option<T>> {
    let text: Option<String> = c
        .prepare_cached(sql)
        .and_then(|mut s| s.query_row([tenant, name], |r| r.get(0)).optional())
        .map_err(map_error)?;
    text.map(|t| serde_json::from_str(&t).map_err(|e| AllotError::Internal(format!("a stored configuration: {e}"))))
        .transpose()
}

/// The resource as put, if it was.
pub(crate) fn resource_of(c: &Connection, tenant: &str, resource: &str) -> Result<Option<Resource>> {
    config(
        c,
        "SELECT config FROM resources WHERE tenant = ?1 AND resource = ?2",
        tenant,
        resource,
    )
}

/// The resource as put, or the plain one.
pub(crate) fn resource_or_plain(c: &Connection, tenant: &str, resource: &str) -> Result<Resource> {
    Ok(resource_of(c, tenant, resource)?.unwrap_or_else(|| Resource::plain(resource)))
}

pub(crate) fn pool_of(c: &Connection, tenant: &str, pool: &str) -> Result<Option<Pool>> {
    config(
        c,
        "SELECT config FROM pools WHERE tenant = ?1 AND pool = ?2",
        tenant,
        pool,
    )
}

fn members(c: &Connection, tenant: &str, pool: &str) -> Result<Vec<String>> {
    c.prepare_cached("SELECT resource FROM resource_pools WHERE tenant = ?1 AND pool = ?2 ORDER BY resource")
        .and_then(|mut s| s.query_map([tenant, pool], |r| r.get(0))?.collect())
        .map_err(map_error)
}

/// The blocking bookings at `now_us` of `resources` overlapping `[from, to)`, in one query.
fn counted(
    c: &Connection,
    tenant: &str,
    resources: &[&str],
    (from, to): (i64, i64),
    now_us: i64,
) -> Result<Vec<Counted>> {
    let names = json(&resources)?;
    c.prepare_cached(
        "SELECT id, resource, start_us, end_us, quantity, status FROM bookings
          WHERE tenant = ?1 AND resource IN (SELECT value FROM json_each(?2)) AND start_us < ?4 AND end_us > ?3
            AND (status = 'confirmed' OR (status = 'held' AND expires_at_us > ?5))",
    )
    .and_then(|mut s| {
        s.query_map(params![tenant, names, from, to, now_us], |r| {
            Ok(Counted {
                id: r.get(0)?,
                resource: r.get(1)?,
                start: from_us(r.get(2)?),
                end: from_us(r.get(3)?),
                quantity: r.get(4)?,
                held: r.get::<_, String>(5)? == "held",
            })
        })?
        .collect()
    })
    .map_err(map_error)
}

/// What a decision on `r` about `[start, end)` needs, read at `now_us`.
pub(crate) fn picture(
    c: &Connection,
    tenant: &str,
    r: Resource,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    now_us: i64,
) -> Result<Picture> {
    let mut pools = Vec::new();
    for name in &r.pools {
        let pool = pool_of(c, tenant, name)?.ok_or_else(|| AllotError::not_found("pool", name))?;
        pools.push(PoolPicture {
            members: members(c, tenant, name)?,
            pool,
        });
    }
    let bare: Vec<Pool> = pools.iter().map(|p| p.pool.clone()).collect();
    let (from, to) = judge::span(&r, &bare, start, end)?;
    let span = (us(from), us(to));
    let mut names: Vec<&str> = pools
        .iter()
        .flat_map(|p| p.members.iter().map(String::as_str))
        .collect();
    names.push(&r.resource);
    names.sort_unstable();
    names.dedup();
    let bookings = counted(c, tenant, &names, span, now_us)?;
    let overrides = c
        .prepare_cached(
            "SELECT slot_start_us, capacity FROM slot_capacity
              WHERE tenant = ?1 AND resource = ?2 AND slot_start_us >= ?3 AND slot_start_us < ?4",
        )
        .and_then(|mut s| {
            s.query_map(params![tenant, r.resource, span.0, span.1], |row| {
                Ok((from_us(row.get(0)?), row.get::<_, u32>(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()
        })
        .map_err(map_error)?;
    Ok(Picture {
        resource: r,
        pools,
        overrides,
        bookings,
    })
}

fn json<T: serde::Serialize>(v: &T) -> Result<String> {
    serde_json::to_string(v).map_err(|e| AllotError::Internal(e.to_string()))
}

/// A put that changes the resource's slots: refused while a capacity put for an old slot
/// still matters (`Resource::check_regrid`), else the old slots' capacities and announced
/// sold-out levels are dropped (they name slots that no longer exist).
pub(crate) fn regrid(c: &Connection, tenant: &str, r: &Resource, old: Option<&Resource>, now_us: i64) -> Result<()> {
    const DAY_AND_MORE_US: i64 = 26 * 3_600_000_000;
    let overrides: Vec<(DateTime<Utc>, u32)> = c
        .prepare_cached(
            "SELECT slot_start_us, capacity FROM slot_capacity
              WHERE tenant = ?1 AND resource = ?2 AND slot_start_us > ?3",
        )
        .and_then(|mut s| {
            s.query_map(params![tenant, r.resource, now_us - DAY_AND_MORE_US], |row| {
                Ok((from_us(row.get(0)?), row.get::<_, u32>(1)?))
            })?
            .collect()
        })
        .map_err(map_error)?;
    r.check_regrid(old, &overrides, from_us(now_us))?;
    for sql in [
        "DELETE FROM slot_capacity WHERE tenant = ?1 AND resource = ?2",
        "DELETE FROM slots_sold_out WHERE tenant = ?1 AND resource = ?2",
    ] {
        c.execute(sql, params![tenant, r.resource]).map_err(map_error)?;
    }
    Ok(())
}

/// Store a resource and its pool memberships (every pool must have been put).
pub(crate) fn put_resource(c: &Connection, tenant: &str, r: &Resource, now_us: i64) -> Result<()> {
    for p in &r.pools {
        if pool_of(c, tenant, p)?.is_none() {
            return Err(AllotError::not_found("pool", p));
        }
    }
    c.execute(
        "INSERT INTO resources (tenant, resource, config, updated_at_us) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (tenant, resource) DO UPDATE SET config = excluded.config, updated_at_us = excluded.updated_at_us",
        params![tenant, r.resource, json(r)?, now_us],
    )
    .map_err(map_error)?;
    c.execute(
        "DELETE FROM resource_pools WHERE tenant = ?1 AND resource = ?2",
        params![tenant, r.resource],
    )
    .map_err(map_error)?;
    for p in &r.pools {
        c.execute(
            "INSERT INTO resource_pools (tenant, pool, resource) VALUES (?1, ?2, ?3)",
            params![tenant, p, r.resource],
        )
        .map_err(map_error)?;
    }
    Ok(())
}

/// Store a pool.
pub(crate) fn put_pool(c: &Connection, tenant: &str, p: &Pool, now_us: i64) -> Result<()> {
    c.execute(
        "INSERT INTO pools (tenant, pool, config, updated_at_us) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (tenant, pool) DO UPDATE SET config = excluded.config, updated_at_us = excluded.updated_at_us",
        params![tenant, p.pool, json(p)?, now_us],
    )
    .map(|_| ())
    .map_err(map_error)
}

/// Store the capacity of each slot start of `s` (of a resource whose own capacity is
/// `default`). `changed_at_us` is when a slot's capacity was last lowered (the audit's
/// leniency): now for a slot set below what it had, else what it was (0 for a slot set at or
/// above the resource's capacity for the first time).
pub(crate) fn put_slots(c: &Connection, tenant: &str, s: &SlotCapacity, default: u32, now_us: i64) -> Result<()> {
    let mut stmt = c
        .prepare_cached(
            "INSERT INTO slot_capacity (tenant, resource, slot_start_us, capacity, changed_at_us) VALUES (?1, ?2, ?3, ?4, ?6)
             ON CONFLICT (tenant, resource, slot_start_us) DO UPDATE SET capacity = excluded.capacity,
               changed_at_us = CASE WHEN excluded.capacity < slot_capacity.capacity THEN ?5 ELSE slot_capacity.changed_at_us END",
        )
        .map_err(map_error)?;
    let first = if s.capacity < default { now_us } else { 0 };
    for at in &s.starts {
        stmt.execute(params![tenant, s.resource, us(*at), s.capacity, now_us, first])
            .map_err(map_error)?;
    }
    Ok(())
}
