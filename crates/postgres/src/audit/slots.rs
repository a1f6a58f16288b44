//! What the capacity rule reads on PostgreSQL (see `allot_core::audit::slots`), in the
//! audit's one snapshot.

use crate::engine::conn::{Db, Tx};
use crate::engine::errors::map_error;
use allot_core::audit::slots::{CapacityAuditInput, SlotBookingRow};
use allot_core::booking::capacity::{Pool, Resource};
use allot_core::{AllotError, Result};
use chrono::{DateTime, Utc};

fn parsed<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| AllotError::Internal(format!("a stored configuration: {e}")))
}

const RESOURCES: &str = "SELECT tenant, config FROM resources WHERE $1::text IS NULL OR tenant = $1";
const POOLS: &str = "SELECT p.tenant, p.config,
        ARRAY(SELECT m.resource FROM resource_pools m WHERE m.tenant = p.tenant AND m.pool = p.pool) AS members
   FROM pools p WHERE $1::text IS NULL OR p.tenant = $1";
const OVERRIDES: &str = "SELECT tenant, resource, slot_start, capacity, changed_at FROM slot_capacity
  WHERE $1::text IS NULL OR tenant = $1";
const BOOKINGS: &str = "SELECT tenant, resource, lower(during) AS start, upper(during) AS \"end\", quantity,
        GREATEST(created_at, rescheduled_at) AS counted_at
   FROM bookings
  WHERE ($1::text IS NULL OR tenant = $1)
    AND EXISTS (SELECT 1 FROM resources r WHERE r.tenant = bookings.tenant AND r.resource = bookings.resource)
    AND (status = 'confirmed' OR (status = 'held' AND expires_at > $2))";

/// Every put resource with slots, pool, slot capacity and blocking booking of a put resource
/// (made by the capacity path or not), of `tenant` or of all.
pub(super) async fn capacity_rows(tx: &Tx<'_>, tenant: Option<&str>, now: DateTime<Utc>) -> Result<CapacityAuditInput> {
    let mut input = CapacityAuditInput::default();
    for r in tx.query(RESOURCES, &[&tenant]).await.map_err(map_error)? {
        let res: Resource = parsed(r.get(1))?;
        if res.slot_ms.is_some() {
            input.resources.push((r.get(0), res));
        }
    }
    for r in tx.query(POOLS, &[&tenant]).await.map_err(map_error)? {
        let p: Pool = parsed(r.get(1))?;
        input.pools.push((r.get(0), p, r.get(2)));
    }
    for r in tx.query(OVERRIDES, &[&tenant]).await.map_err(map_error)? {
        let cap: i32 = r.get(3);
        input
            .overrides
            .push((r.get(0), r.get(1), r.get(2), cap.max(0) as u32, r.get(4)));
    }
    for r in tx.query(BOOKINGS, &[&tenant, &now]).await.map_err(map_error)? {
        input.bookings.push(SlotBookingRow {
            tenant: r.get(0),
            resource: r.get(1),
            start: r.get(2),
            end: r.get(3),
            quantity: i64::from(r.get::<_, i32>(4)),
            counted_at: r.get(5),
        });
    }
    Ok(input)
}
