//! Locations on PostgreSQL: the `locations` table, a SKU's rows at a location (made when
//! stock first arrives there), transfers and compare-and-set of a level.
//!
//! Lock order: the SKU row (`skus`, only to make a location's rows), then stock rows in
//! bucket order. A transfer locks the rows of both locations in one statement, so two
//! transfers in opposite directions cannot deadlock.

use super::get_sku_with;
use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::location_rows::Entry;
use crate::engine::location_rows::{ensure_rows, location_rows};
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::store::{Executed, Idempotency, Keyed, LocationStore};
use allot_core::tenant::Tenant;
use allot_core::Capable;
use allot_core::{AllotError, LedgerKind, Location, Result, SetLevel, Sku, Transfer, DEFAULT_LOCATION};
use async_trait::async_trait;

/// The rows of two locations (`$3`, `$4`) of a SKU, locked in bucket order.
const SQL_LOCK_TWO: &str = "SELECT 1 FROM stock
  WHERE tenant = $2 AND sku = $1 AND location IN ($3, $4) ORDER BY bucket FOR UPDATE";
/// What the unsellable states hold of SKU `$2` at location `$3`.
const SQL_UNSELLABLE_AT: &str = "SELECT COALESCE(sum(quantity), 0)::int8 FROM stock_states
     WHERE tenant = $1 AND sku = $2 AND location = $3";

impl PgStore {
    async fn try_transfer(
        &self,
        tenant: &str,
        req: &Transfer,
        idem: Option<&Idempotency<Transfer>>,
    ) -> TxResult<Executed<Transfer>> {
        self.write(tenant, idem, async |tx| {
            ensure_rows(tx, tenant, &req.sku, &req.to).await?;
            let stmt = tx.prepare_cached(SQL_LOCK_TWO).await?;
            tx.query(&stmt, &[&req.sku, &tenant, &req.from, &req.to]).await?;
            let entry = Entry::new(
                LedgerKind::Transfer,
                Some(req.id.as_str()),
                req.actor.as_deref(),
                self.now(),
            )
            .because(None, req.reference.as_deref());
            let from = (req.sku.as_str(), req.from.as_str());
            Self::lock_and_rebalance(tx, tenant, from, -req.quantity, entry).await?;
            let to = (req.sku.as_str(), req.to.as_str());
            Self::lock_and_rebalance(tx, tenant, to, req.quantity, entry).await?;
            Ok(req.clone())
        })
        .await
    }

    async fn try_set_level(
        &self,
        tenant: &str,
        req: &SetLevel,
        idem: Option<&Idempotency<Sku>>,
    ) -> TxResult<Executed<Sku>> {
        self.write(tenant, idem, async |tx| {
            let rows = location_rows(tx, tenant, &req.sku, &req.location, req.on_hand > 0).await?;
            // On hand there: the sellable rows (locked) and the unsellable states, which a
            // move changes only under the rows' lock (allot_core::states).
            let stmt = tx.prepare_cached(SQL_UNSELLABLE_AT).await?;
            let unsellable: i64 = tx.query_one(&stmt, &[&tenant, &req.sku, &req.location]).await?.get(0);
            let current: i64 = rows.iter().map(|r| r.on_hand).sum::<i64>() + unsellable;
            if current != req.compare_on_hand {
                return Err(TxErr::Fail(AllotError::CompareFailed {
                    sku: req.sku.clone(),
                    location: req.location.clone(),
                    expected: req.compare_on_hand,
                    current,
                }));
            }
            let delta = req.on_hand - current;
            if delta != 0 {
                let entry = Entry::new(LedgerKind::Adjustment, None, req.actor.as_deref(), self.now())
                    .because(Some(req.reason), req.reference.as_deref());
                let at = (req.sku.as_str(), req.location.as_str());
                Self::lock_and_rebalance(tx, tenant, at, delta, entry).await?;
            }
            Ok(get_sku_with(tx, tenant, &req.sku, self.now()).await?)
        })
        .await
    }
}

#[async_trait]
impl LocationStore for PgStore {
    async fn create_location(&self, tenant: &Tenant, location: Location, max_locations: u32) -> Result<Location> {
        if location.location == DEFAULT_LOCATION {
            return Err(AllotError::AlreadyExists {
                kind: "location",
                id: location.location,
            });
        }
        let now = self.now();
        let mut c = self.client().await?;
        let tx = c.transaction().await.map_err(map_error)?;
        // The tenant's advisory lock (class 'allot.locations') first, then the count in a
        // later statement (a later snapshot): concurrent creations count one after another.
        tx.execute(
            "SELECT pg_advisory_xact_lock(hashtext('allot.locations'), hashtext($1))",
            &[&tenant.as_str()],
        )
        .await
        .map_err(map_error)?;
        let row = tx
            .query_one(
                "WITH ins AS (INSERT INTO locations (tenant, location, priority, created_at)
                              SELECT $1, $2, $3, $4
                               WHERE (SELECT count(*) FROM locations WHERE tenant = $1) < $5
                              ON CONFLICT DO NOTHING RETURNING 1)
                 SELECT (SELECT count(*) FROM ins),
                        EXISTS (SELECT 1 FROM locations WHERE tenant = $1 AND location = $2)",
                &[
                    &tenant.as_str(),
                    &location.location,
                    &location.priority,
                    &now,
                    &i64::from(max_locations),
                ],
            )
            .await
            .map_err(map_error)?;
        tx.commit().await.map_err(map_error)?;
        if row.get::<_, i64>(0) == 1 {
            return Ok(Location {
                created_at: Some(now),
                ..location
            });
        }
        if row.get::<_, bool>(1) {
            return Err(AllotError::AlreadyExists {
                kind: "location",
                id: location.location,
            });
        }
        Err(AllotError::LimitExceeded {
            limit: "max_locations",
            max: u64::from(max_locations),
            message: format!("tenant `{tenant}` has {max_locations} locations"),
        })
    }

    async fn list_locations(&self, tenant: &Tenant) -> Result<Vec<Location>> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT location, priority, created_at FROM locations WHERE tenant = $1 ORDER BY location",
                &[&tenant.as_str()],
            )
            .await
            .map_err(map_error)?;
        let mut out: Vec<Location> = rows
            .iter()
            .map(|r| Location {
                location: r.get("location"),
                priority: r.get("priority"),
                created_at: Some(r.get("created_at")),
            })
            .collect();
        out.push(Location::builtin());
        out.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(out)
    }

    async fn transfer(&self, tenant: &Tenant, req: Transfer, idem: Keyed<Transfer>) -> Result<Executed<Transfer>> {
        self.retrying(|| self.try_transfer(tenant, &req, idem.as_ref())).await
    }

    async fn set_level(&self, tenant: &Tenant, req: SetLevel, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        self.retrying(|| self.try_set_level(tenant, &req, idem.as_ref())).await
    }
}
