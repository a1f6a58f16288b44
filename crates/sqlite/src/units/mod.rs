//! Units on SQLite: bulk insert and claims in `order_by` order, on the writer thread (so the
//! order is exact), as allocations or as unit holds.

mod reads;

use crate::engine::clock::{from_us, now_us, us};
use crate::engine::errors::map_error;
use crate::engine::location_rows::tracks_units;
use crate::engine::records::{hold_event, insert_hold, insert_hold_line, HoldKey};
use crate::engine::store::SqliteStore;
use crate::engine::unit_picks::take_units;
use allot_core::event::EventType;
use allot_core::store::{Executed, Keyed, UnitStore};
use allot_core::tenant::Tenant;
use allot_core::Capable;
use allot_core::{
    AddUnits, AllocationLine, AllocationStatus, AllotError, HoldKind, Result, UnitAllocation, UnitClaim, UnitFilter,
    UnitView, UnitsCreated,
};
use async_trait::async_trait;
use rusqlite::{params, Connection};

#[async_trait]
impl UnitStore for SqliteStore {
    async fn add_units(
        &self,
        tenant: &Tenant,
        req: AddUnits,
        idem: Keyed<UnitsCreated>,
    ) -> Result<Executed<UnitsCreated>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            tx.prepare_cached(
                "INSERT INTO skus (tenant, sku, buckets, created_at_us, tracking) VALUES (?3, ?1, 1, ?2, 'units')
                 ON CONFLICT DO NOTHING",
            )
            .and_then(|mut s| s.execute(params![req.sku, now, t]))
            .map_err(map_error)?;
            if tracks_units(tx, &t, &req.sku)? != Some(true) {
                return Err(AllotError::wrong_tracking(&req.sku, false));
            }
            let mut created = 0u64;
            for u in &req.units {
                let n = tx
                    .prepare_cached(
                        "INSERT INTO units (tenant, sku, serial, location, lot, received_at, expires_at)
                         VALUES (?7, ?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (tenant, sku, serial) DO NOTHING",
                    )
                    .and_then(|mut s| {
                        s.execute(params![
                            req.sku,
                            u.serial,
                            u.location,
                            u.lot,
                            u.received_at.map(us).unwrap_or(now),
                            u.expires_at.map(us),
                            t
                        ])
                    })
                    .map_err(map_error)?;
                if n == 0 {
                    return Err(AllotError::AlreadyExists {
                        kind: "unit serial",
                        id: format!("{}/{}", req.sku, u.serial),
                    });
                }
                created += 1;
            }
            tx.prepare_cached(
                "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, at_us, actor)
                 VALUES (?5, ?1, ?2, 0, 'units_received', ?3, ?4)",
            )
            .and_then(|mut s| s.execute(params![req.sku, created as i64, now, req.actor, t]))
            .map_err(map_error)?;
            Ok(UnitsCreated { created })
        })
        .await
    }

    async fn list_units(
        &self,
        tenant: &Tenant,
        sku: &str,
        filter: &UnitFilter,
        page: allot_core::Page<i64>,
    ) -> Result<allot_core::Listed<UnitView, i64>> {
        self.units_page(tenant, sku, filter, page).await
    }

    async fn get_unit(&self, tenant: &Tenant, sku: &str, serial: &str) -> Result<UnitView> {
        self.unit_by_serial(tenant, sku, serial).await
    }

    async fn claim_units(
        &self,
        tenant: &Tenant,
        req: UnitClaim,
        idem: Keyed<UnitAllocation>,
    ) -> Result<Executed<UnitAllocation>> {
        if !self.supports_units(req.strategy) {
            return Err(AllotError::unsupported_strategy(req.strategy.name(), "sqlite"));
        }
        let t = tenant.to_string();
        // A refusal rolls back, but the overdue holds it finished are finished again in a
        // transaction of their own (`transact`), so that their units rejoin the claims'
        // order whatever this claim's outcome, as on PostgreSQL (found by the simulation).
        self.write(tenant, idem, move |tx| claim_in(tx, &t, &req)).await
    }
}

/// One claim in its write transaction: the units picked in order (overdue holds of the SKU
/// finalised and the pick run again when too few are free), marked and recorded, or the
/// refusal.
fn claim_in(tx: &Connection, t: &str, req: &UnitClaim) -> Result<UnitAllocation> {
    let now = now_us();
    let units = take_units(tx, t, req, now)?;
    let got = units.len() as i64;
    let held = req.hold_ttl_ms.is_some();
    let expires_at = req.hold_ttl_ms.map(|t| allot_core::hold::expires_at(from_us(now), t));
    record_claim(tx, t, req, got, expires_at, now)?;
    Ok(UnitAllocation {
        id: req.id.clone(),
        sku: req.sku.clone(),
        status: if held {
            AllocationStatus::Held
        } else {
            AllocationStatus::Allocated
        },
        strategy: req.strategy,
        units,
        expires_at,
        created_at: from_us(now),
    })
}

/// The record of a claim of `got` units: a unit hold and its line (bucket -1) when it holds
/// until `expires_at`, else the allocation and its ledger entry.
fn record_claim(
    tx: &Connection,
    tenant: &str,
    req: &UnitClaim,
    got: i64,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
    now: i64,
) -> Result<()> {
    let lines = vec![AllocationLine::new(req.sku.clone(), got)];
    if let Some(exp) = expires_at {
        let key = HoldKey { tenant, id: &req.id };
        insert_hold(tx, key, HoldKind::Units, req.strategy.name(), &lines, us(exp), now)?;
        insert_hold_line(tx, key, (&req.sku, -1, None), got, now, req.actor.as_deref())?;
        return hold_event(tx, key, EventType::HoldCreated, now);
    }
    let json = serde_json::to_string(&lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    tx.prepare_cached(
        "INSERT INTO allocations (tenant, id, status, strategy, lines, created_at_us)
         VALUES (?5, ?1, 'allocated', ?2, ?3, ?4)",
    )
    .and_then(|mut s| s.execute(params![req.id, req.strategy.name(), json, now, tenant]))
    .map_err(map_error)?;
    tx.prepare_cached(
        "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor)
         VALUES (?6, ?1, ?2, 0, 'allocation', ?3, ?4, ?5)",
    )
    .and_then(|mut s| s.execute(params![req.sku, -got, req.id, now, req.actor, tenant]))
    .map_err(map_error)?;
    Ok(())
}
