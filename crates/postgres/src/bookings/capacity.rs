//! Capacity on PostgreSQL: resources and pools that were put, per-slot capacities, and the
//! [`Picture`] a booking is judged on. A booking on a put resource takes the
//! transaction-scoped advisory locks of the resource and of every pool it is in, in one
//! global order (the resource, then its pools by ascending key: see [`lock_pools`]), then reads
//! the picture, judges it (`allot_core::booking::judge`) and inserts: the locks make the read
//! exact until the commit. A resource put takes the locks of the resource and of every pool
//! it was or will be in, so no booking counts a pool's members half before and half after.

use super::{resource_key, BOOKING_LOCK_SEED};
use crate::engine::conn::Db;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::booking::capacity::{Pool, Resource, SlotCapacity};
use allot_core::booking::judge::{self, Counted, Picture, PoolPicture};
use allot_core::strategy::fnv1a_64;
use allot_core::AllotError;
use chrono::{DateTime, Utc};

/// The advisory lock key of `pool` of `tenant` (its own namespace beside the resources').
pub(crate) fn pool_key(tenant: &str, pool: &str) -> i64 {
    fnv1a_64(&[BOOKING_LOCK_SEED, b"pool\0", tenant.as_bytes(), b"\0", pool.as_bytes()].concat()) as i64
}

/// Take the locks of `pools`, ascending (one statement: the sorted subquery feeds the
/// aggregate row by row, so the locks are taken in its order). Every booking and every put
/// takes the resource's lock first, then its pools' this way — a resource before any pool,
/// pools ascending — so no two transactions wait on each other in a cycle.
pub(crate) async fn lock_pools(tx: &impl Db, tenant: &str, pools: &[String]) -> TxResult<()> {
    lock_keys(tx, pools.iter().map(|p| pool_key(tenant, p)).collect()).await
}

/// Take the locks of several resources (`(tenant, resource)`), ascending key, then of every
/// pool they are in, ascending key, and read each as put (plain when never put), in the order
/// given: the order a batch of bookings and a hold's booking lines take them in, so that
/// neither holds a pool while waiting for a resource whose own booking waits for that pool.
pub(crate) async fn lock_resources_then_pools(tx: &impl Db, resources: &[(&str, &str)]) -> TxResult<Vec<Resource>> {
    lock_keys(tx, resources.iter().map(|(t, r)| resource_key(t, r)).collect()).await?;
    let mut configs = Vec::with_capacity(resources.len());
    for (t, r) in resources {
        configs.push(resource_or_plain(tx, t, r).await?);
    }
    let pools = resources
        .iter()
        .zip(&configs)
        .flat_map(|((t, _), c)| c.pools.iter().map(|p| pool_key(t, p)))
        .collect();
    lock_keys(tx, pools).await?;
    Ok(configs)
}

/// Take the advisory locks `keys`, ascending, in one statement (none: no statement).
pub(crate) async fn lock_keys(tx: &impl Db, mut keys: Vec<i64>) -> TxResult<()> {
    if keys.is_empty() {
        return Ok(());
    }
    keys.sort_unstable();
    keys.dedup();
    let stmt = tx
        .prepare_cached(
            "SELECT count(pg_advisory_xact_lock(k)) FROM (SELECT k FROM unnest($1::bigint[]) AS k ORDER BY k) s",
        )
        .await?;
    tx.query_one(&stmt, &[&keys]).await?;
    Ok(())
}

async fn config<C: Db, T: serde::de::DeserializeOwned>(
    c: &C,
    sql: &'static str,
    tenant: &str,
    name: &str,
) -> TxResult<Option<T>> {
    let stmt = c.prepare_cached(sql).await?;
    match c.query_opt(&stmt, &[&tenant, &name]).await? {
        None => Ok(None),
        Some(row) => serde_json::from_value(row.get(0))
            .map(Some)
            .map_err(|e| TxErr::Fail(AllotError::Internal(format!("a stored configuration: {e}")))),
    }
}

/// Take the locks of `resource` and its pools and read it as put (the resource's lock first:
/// its pools cannot change while it is held).
pub(crate) async fn locked_resource(tx: &impl Db, tenant: &str, resource: &str, naive: bool) -> TxResult<Resource> {
    if naive {
        return resource_or_plain(tx, tenant, resource).await;
    }
    let stmt = tx.prepare_cached("SELECT pg_advisory_xact_lock($1)").await?;
    tx.execute(&stmt, &[&resource_key(tenant, resource)]).await?;
    let r = resource_or_plain(tx, tenant, resource).await?;
    lock_pools(tx, tenant, &r.pools).await?;
    Ok(r)
}

/// The resource as put, if it was.
pub(crate) async fn resource_of<C: Db>(c: &C, tenant: &str, resource: &str) -> TxResult<Option<Resource>> {
    config(
        c,
        "SELECT config FROM resources WHERE tenant = $1 AND resource = $2",
        tenant,
        resource,
    )
    .await
}

/// The resource as put, or the plain one.
pub(crate) async fn resource_or_plain<C: Db>(c: &C, tenant: &str, resource: &str) -> TxResult<Resource> {
    Ok(resource_of(c, tenant, resource)
        .await?
        .unwrap_or_else(|| Resource::plain(resource)))
}

async fn pool_of<C: Db>(c: &C, tenant: &str, pool: &str) -> TxResult<Option<Pool>> {
    config(
        c,
        "SELECT config FROM pools WHERE tenant = $1 AND pool = $2",
        tenant,
        pool,
    )
    .await
}

/// The bookings of `resources` overlapping `[from, to)` that block at `now`, and the ids of
/// the held ones among them past their expiry (which no longer count, but which only a write
/// may rule out: see [`expire_overdue`]). The inner query reads what the GiST index serves,
/// as the conflict check does.
async fn counted<C: Db>(
    c: &C,
    tenant: &str,
    resources: &[String],
    (from, to): (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
) -> TxResult<(Vec<Counted>, Vec<String>)> {
    let stmt = c
        .prepare_cached(
            "SELECT id, resource, lower(during) AS start, upper(during) AS \"end\", quantity, status,
                    status = 'held' AND expires_at <= $5 AS overdue FROM (
                 SELECT * FROM bookings
                  WHERE resource_hash = ANY(ARRAY(SELECT allot_resource_hash($1, r) FROM unnest($2::text[]) r))
                    AND during && tstzrange($3, $4, '[)')
                    AND status IN ('confirmed', 'held')
                 OFFSET 0) b
              WHERE tenant = $1 AND resource = ANY($2)",
        )
        .await?;
    let rows = c.query(&stmt, &[&tenant, &resources, &from, &to, &now]).await?;
    let (mut live, mut overdue) = (Vec::with_capacity(rows.len()), Vec::new());
    for r in &rows {
        if r.get::<_, bool>("overdue") {
            overdue.push(r.get("id"));
            continue;
        }
        live.push(Counted {
            id: r.get("id"),
            resource: r.get("resource"),
            start: r.get("start"),
            end: r.get("end"),
            quantity: i64::from(r.get::<_, i32>("quantity")),
            held: r.get::<_, &str>("status") == "held",
        });
    }
    Ok((live, overdue))
}

/// Expire the held bookings `ids` that a decision at `now` left out as past their expiry,
/// before it writes: each must still be held and overdue when its row is locked. One that a
/// confirm or extend (of its booking or of its hold) kept alive meanwhile — decided on an
/// earlier clock, under its row's lock rather than the resource's — is not expired, and the
/// decision, which did not count it, runs again (`Retry`, bounded): never a double booking
/// across the instant of an expiry.
pub(crate) async fn expire_overdue(tx: &impl Db, tenant: &str, ids: &[String], now: DateTime<Utc>) -> TxResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let stmt = tx
        .prepare_cached(
            "UPDATE bookings SET status = 'expired', status_at = $2
              WHERE tenant = $3 AND id = ANY($1) AND status = 'held' AND expires_at <= $2",
        )
        .await?;
    let expired = tx.execute(&stmt, &[&ids, &now, &tenant]).await?;
    if expired < ids.len() as u64 {
        return Err(TxErr::Retry);
    }
    Ok(())
}

/// What a decision on `r` about `[start, end)` needs, read at `now` (a read: a decision
/// that writes takes [`picture_and_overdue`]).
pub(crate) async fn picture<C: Db>(
    c: &C,
    tenant: &str,
    r: Resource,
    range: (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
) -> TxResult<Picture> {
    Ok(picture_and_overdue(c, tenant, r, range, now).await?.0)
}

/// [`picture`], and the ids of the held bookings in its span it left out as past their
/// expiry: the decision expires them ([`expire_overdue`]) before it writes.
pub(crate) async fn picture_and_overdue<C: Db>(
    c: &C,
    tenant: &str,
    r: Resource,
    (start, end): (DateTime<Utc>, DateTime<Utc>),
    now: DateTime<Utc>,
) -> TxResult<(Picture, Vec<String>)> {
    let mut pools = Vec::new();
    let members_stmt = c
        .prepare_cached("SELECT resource FROM resource_pools WHERE tenant = $1 AND pool = $2 ORDER BY resource")
        .await?;
    for name in &r.pools {
        let pool = pool_of(c, tenant, name)
            .await?
            .ok_or_else(|| AllotError::not_found("pool", name))?;
        let members = c.query(&members_stmt, &[&tenant, name]).await?;
        pools.push(PoolPicture {
            members: members.iter().map(|m| m.get(0)).collect(),
            pool,
        });
    }
    let bare: Vec<Pool> = pools.iter().map(|p| p.pool.clone()).collect();
    let span = judge::span(&r, &bare, start, end)?;
    let mut names: Vec<String> = pools.iter().flat_map(|p| p.members.iter().cloned()).collect();
    names.push(r.resource.clone());
    names.sort_unstable();
    names.dedup();
    let stmt = c
        .prepare_cached(
            "SELECT slot_start, capacity FROM slot_capacity
              WHERE tenant = $1 AND resource = $2 AND slot_start >= $3 AND slot_start < $4",
        )
        .await?;
    // Both reads in one round trip (the connection pipelines them).
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [&tenant, &r.resource, &span.0, &span.1];
    let (bookings, overrides) = tokio::join!(counted(c, tenant, &names, span, now), c.query(&stmt, &params));
    let (bookings, overdue) = bookings?;
    let overrides = overrides?
        .iter()
        .map(|row| (row.get(0), row.get::<_, i32>(1).max(0) as u32))
        .collect();
    let p = Picture {
        resource: r,
        pools,
        overrides,
        bookings,
    };
    Ok((p, overdue))
}

fn json<T: serde::Serialize>(v: &T) -> TxResult<serde_json::Value> {
    serde_json::to_value(v).map_err(|e| TxErr::Fail(AllotError::Internal(e.to_string())))
}

/// A put that changes the resource's slots: refused while a capacity put for an old slot
/// still matters (`Resource::check_regrid`), else the old slots' capacities and announced
/// sold-out levels are dropped (they name slots that no longer exist).
async fn regrid(tx: &impl Db, tenant: &str, r: &Resource, old: Option<&Resource>, now: DateTime<Utc>) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "SELECT slot_start, capacity FROM slot_capacity
              WHERE tenant = $1 AND resource = $2 AND slot_start > $3::timestamptz - interval '26 hours'",
        )
        .await?;
    let overrides: Vec<(DateTime<Utc>, u32)> = tx
        .query(&stmt, &[&tenant, &r.resource, &now])
        .await?
        .iter()
        .map(|row| (row.get(0), row.get::<_, i32>(1).max(0) as u32))
        .collect();
    r.check_regrid(old, &overrides, now)?;
    for sql in [
        "DELETE FROM slot_capacity WHERE tenant = $1 AND resource = $2",
        "DELETE FROM slots_sold_out WHERE tenant = $1 AND resource = $2",
    ] {
        let stmt = tx.prepare_cached(sql).await?;
        tx.execute(&stmt, &[&tenant, &r.resource]).await?;
    }
    Ok(())
}

/// Store a resource and its pool memberships under the locks of the resource and of every
/// pool it was or will be in (every pool must have been put); the resource as stored.
pub(crate) async fn put_resource(tx: &impl Db, tenant: &str, r: Resource, now: DateTime<Utc>) -> TxResult<Resource> {
    let stmt = tx.prepare_cached("SELECT pg_advisory_xact_lock($1)").await?;
    tx.execute(&stmt, &[&resource_key(tenant, &r.resource)]).await?;
    let old = resource_of(tx, tenant, &r.resource).await?;
    let mut pools = r.pools.clone();
    pools.extend(old.as_ref().map(|o| o.pools.clone()).unwrap_or_default());
    lock_pools(tx, tenant, &pools).await?;
    if r.regrids(old.as_ref()) {
        regrid(tx, tenant, &r, old.as_ref(), now).await?;
    }
    let r = r.put_over(old.as_ref(), now);
    for p in &r.pools {
        if pool_of(tx, tenant, p).await?.is_none() {
            return Err(TxErr::Fail(AllotError::not_found("pool", p)));
        }
    }
    let stmt = tx
        .prepare_cached(
            "INSERT INTO resources (tenant, resource, config, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (tenant, resource) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at",
        )
        .await?;
    tx.execute(&stmt, &[&tenant, &r.resource, &json(&r)?, &now]).await?;
    let stmt = tx
        .prepare_cached("DELETE FROM resource_pools WHERE tenant = $1 AND resource = $2")
        .await?;
    tx.execute(&stmt, &[&tenant, &r.resource]).await?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO resource_pools (tenant, pool, resource) SELECT $1, p, $2 FROM unnest($3::text[]) p",
        )
        .await?;
    tx.execute(&stmt, &[&tenant, &r.resource, &r.pools]).await?;
    Ok(r)
}

/// Store a pool under its lock; the pool as stored.
pub(crate) async fn put_pool(tx: &impl Db, tenant: &str, p: Pool, now: DateTime<Utc>) -> TxResult<Pool> {
    let stmt = tx.prepare_cached("SELECT pg_advisory_xact_lock($1)").await?;
    tx.execute(&stmt, &[&pool_key(tenant, &p.pool)]).await?;
    let old = pool_of(tx, tenant, &p.pool).await?;
    let p = p.put_over(old.as_ref(), now);
    let stmt = tx
        .prepare_cached(
            "INSERT INTO pools (tenant, pool, config, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (tenant, pool) DO UPDATE SET config = excluded.config, updated_at = excluded.updated_at",
        )
        .await?;
    tx.execute(&stmt, &[&tenant, &p.pool, &json(&p)?, &now]).await?;
    Ok(p)
}

/// Store the capacity of each slot start of `s` (under the resource's lock, taken by the
/// caller; `default`: the resource's own capacity). `changed_at` is when a slot's capacity
/// was last lowered (the audit's leniency): now for a slot set below what it had, else what
/// it was (the epoch for a slot first set at or above the resource's capacity).
pub(crate) async fn put_slots(
    tx: &impl Db,
    tenant: &str,
    s: &SlotCapacity,
    default: u32,
    now: DateTime<Utc>,
) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO slot_capacity (tenant, resource, slot_start, capacity, changed_at)
             SELECT $1, $2, at, $4, $6 FROM unnest($3::timestamptz[]) at
             ON CONFLICT (tenant, resource, slot_start) DO UPDATE SET capacity = excluded.capacity,
               changed_at = CASE WHEN excluded.capacity < slot_capacity.capacity THEN $5 ELSE slot_capacity.changed_at END",
        )
        .await?;
    let cap = s.capacity as i32;
    let first = if s.capacity < default {
        now
    } else {
        DateTime::<Utc>::UNIX_EPOCH
    };
    tx.execute(&stmt, &[&tenant, &s.resource, &s.starts, &cap, &now, &first])
        .await?;
    Ok(())
}
