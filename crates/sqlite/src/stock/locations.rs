//! Locations on SQLite: the `locations` table, a SKU's rows at a location (made when stock
//! first arrives there), transfers and compare-and-set of a level. Every write runs alone
//! on the writer thread, so no lock order is needed.

use super::get_sku_with;
use crate::engine::clock::{from_us, now_us};
use crate::engine::errors::map_error;
use crate::engine::location_rows::{lock_and_rebalance, require_counted, require_location, Entry};
use crate::engine::store::SqliteStore;
use allot_core::store::{Executed, Keyed, LocationStore};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, LedgerKind, Location, Result, SetLevel, Sku, Transfer, DEFAULT_LOCATION};
use async_trait::async_trait;
use rusqlite::{params, Connection};

/// On hand of `sku` at `location` (0 where it has no rows), checking both exist.
fn on_hand_at(c: &Connection, tenant: &str, sku: &str, location: &str) -> Result<i64> {
    require_counted(c, tenant, sku)?;
    require_location(c, tenant, location)?;
    // On hand there: the sellable rows and the unsellable states (allot_core::states).
    c.prepare_cached(
        "SELECT (SELECT COALESCE(sum(on_hand), 0) FROM stock WHERE tenant = ?2 AND sku = ?1 AND location = ?3)
              + (SELECT COALESCE(sum(quantity), 0) FROM stock_states WHERE tenant = ?2 AND sku = ?1 AND location = ?3)",
    )
    .and_then(|mut s| s.query_row([sku, tenant, location], |r| r.get(0)))
    .map_err(map_error)
}

#[async_trait]
impl LocationStore for SqliteStore {
    async fn create_location(&self, tenant: &Tenant, location: Location, max_locations: u32) -> Result<Location> {
        let t = tenant.to_string();
        self.transact(move |tx| {
            let exists = location.location == DEFAULT_LOCATION || require_location(tx, &t, &location.location).is_ok();
            if exists {
                return Err(AllotError::AlreadyExists {
                    kind: "location",
                    id: location.location,
                });
            }
            let n: i64 = tx
                .query_row("SELECT count(*) FROM locations WHERE tenant = ?1", [&t], |r| r.get(0))
                .map_err(map_error)?;
            if n >= i64::from(max_locations) {
                return Err(AllotError::LimitExceeded {
                    limit: "max_locations",
                    max: u64::from(max_locations),
                    message: format!("tenant `{t}` has {n} locations"),
                });
            }
            let now = now_us();
            tx.execute(
                "INSERT INTO locations (tenant, location, priority, created_at_us) VALUES (?1, ?2, ?3, ?4)",
                params![t, location.location, location.priority, now],
            )
            .map_err(map_error)?;
            Ok(Location {
                created_at: Some(from_us(now)),
                ..location
            })
        })
        .await
    }

    async fn list_locations(&self, tenant: &Tenant) -> Result<Vec<Location>> {
        let t = tenant.to_string();
        self.call(move |c| {
            let mut out: Vec<Location> = c
                .prepare_cached("SELECT location, priority, created_at_us FROM locations WHERE tenant = ?1")
                .and_then(|mut s| {
                    s.query_map([&t], |r| {
                        Ok(Location {
                            location: r.get("location")?,
                            priority: r.get("priority")?,
                            created_at: Some(from_us(r.get("created_at_us")?)),
                        })
                    })?
                    .collect()
                })
                .map_err(map_error)?;
            out.push(Location::builtin());
            out.sort_by(|a, b| a.location.cmp(&b.location));
            Ok(out)
        })
        .await
    }

    async fn transfer(&self, tenant: &Tenant, req: Transfer, idem: Keyed<Transfer>) -> Result<Executed<Transfer>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            require_location(tx, &t, &req.to)?;
            let entry = Entry::new(LedgerKind::Transfer, Some(req.id.as_str()), req.actor.as_deref())
                .because(None, req.reference.as_deref());
            lock_and_rebalance(tx, &t, (&req.sku, &req.from), -req.quantity, entry)?;
            lock_and_rebalance(tx, &t, (&req.sku, &req.to), req.quantity, entry)?;
            Ok(req)
        })
        .await
    }

    async fn set_level(&self, tenant: &Tenant, req: SetLevel, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            let current = on_hand_at(tx, &t, &req.sku, &req.location)?;
            if current != req.compare_on_hand {
                return Err(AllotError::CompareFailed {
                    sku: req.sku,
                    location: req.location,
                    expected: req.compare_on_hand,
                    current,
                });
            }
            let delta = req.on_hand - current;
            if delta != 0 {
                let entry = Entry::new(LedgerKind::Adjustment, None, req.actor.as_deref())
                    .because(Some(req.reason), req.reference.as_deref());
                let at = (req.sku.as_str(), req.location.as_str());
                lock_and_rebalance(tx, &t, at, delta, entry)?;
            }
            get_sku_with(tx, &t, &req.sku, now_us())
        })
        .await
    }
}
