//! Locations on PostgreSQL: the `locations` table, a SKU's rows at a location (made when
//! stock first arrives there), transfers and compare-and-set of a level.
//!
//! Lock order: the SKU row (`skus`, only to make a location's rows), then stock rows in
//! bucket order. A transfer locks the rows of both locations in one statement, so two
//! transfers in opposite directions cannot deadlock.

use crate::map_error;
use crate::stock::{get_sku_with, read_buckets, BucketRow};
use crate::store::PgStore;
use crate::tx::{TxErr, TxResult};
use allot_core::store::{Executed, Idempotency, LocationStore};
use allot_core::*;
use async_trait::async_trait;
use deadpool_postgres::Transaction;

/// `$1` sku, `$2` tenant, `$3` location.
const SQL_LOCK_LOCATION: &str = "SELECT bucket, on_hand, held FROM stock
  WHERE tenant = $2 AND sku = $1 AND location = $3 ORDER BY bucket FOR UPDATE";
/// The rows of two locations (`$3`, `$4`) of a SKU, locked in bucket order.
const SQL_LOCK_TWO: &str = "SELECT 1 FROM stock
  WHERE tenant = $2 AND sku = $1 AND location IN ($3, $4) ORDER BY bucket FOR UPDATE";
/// Make a SKU's `buckets` rows at location `$3`, numbered after its last (the SKU row is
/// locked by the caller).
const SQL_MAKE_ROWS: &str = "INSERT INTO stock (tenant, sku, bucket, on_hand, location)
  SELECT $2, $1, m.last + g, 0, $3
    FROM (SELECT COALESCE(max(bucket), -1) AS last FROM stock WHERE tenant = $2 AND sku = $1) m,
         generate_series(1, $4::int4) AS g";

/// `not_found` unless `location` is `default` or a location of `tenant`.
pub(crate) async fn require_location(tx: &Transaction<'_>, tenant: &str, location: &str) -> TxResult<()> {
    if location == DEFAULT_LOCATION {
        return Ok(());
    }
    let stmt = tx
        .prepare_cached("SELECT 1 FROM locations WHERE tenant = $1 AND location = $2")
        .await?;
    match tx.query_opt(&stmt, &[&tenant, &location]).await? {
        Some(_) => Ok(()),
        None => Err(TxErr::Fail(AllotError::not_found("location", location))),
    }
}

/// Make sure `sku` has rows at `location` (made, `buckets` of them with nothing on hand,
/// under the SKU row's lock when it has none). `not_found` for an unknown SKU or location,
/// `invalid_request` for a unit-tracked SKU.
pub(crate) async fn ensure_rows(tx: &Transaction<'_>, tenant: &str, sku: &str, location: &str) -> TxResult<()> {
    let stmt = tx
        .prepare_cached("SELECT 1 FROM stock WHERE tenant = $2 AND sku = $1 AND location = $3 LIMIT 1")
        .await?;
    if tx.query_opt(&stmt, &[&sku, &tenant, &location]).await?.is_some() {
        return Ok(());
    }
    let buckets = lock_count_sku(tx, tenant, sku).await?;
    require_location(tx, tenant, location).await?;
    if tx.query_opt(&stmt, &[&sku, &tenant, &location]).await?.is_none() {
        let stmt = tx.prepare_cached(SQL_MAKE_ROWS).await?;
        tx.execute(&stmt, &[&sku, &tenant, &location, &buckets]).await?;
    }
    Ok(())
}

/// Lock a count-tracked SKU's row; its buckets per location.
async fn lock_count_sku(tx: &Transaction<'_>, tenant: &str, sku: &str) -> TxResult<i32> {
    let stmt = tx
        .prepare_cached("SELECT buckets, tracking = 'units' FROM skus WHERE tenant = $2 AND sku = $1 FOR UPDATE")
        .await?;
    let row = tx
        .query_opt(&stmt, &[&sku, &tenant])
        .await?
        .ok_or_else(|| AllotError::not_found("sku", sku))?;
    if row.get::<_, bool>(1) {
        return Err(TxErr::Fail(AllotError::wrong_tracking(sku, true)));
    }
    Ok(row.get(0))
}

/// The rows of `sku` at `location`, locked in bucket order; made first when `make` and there
/// are none. Without rows there: `not_found` (SKU or location), `invalid_request`
/// (unit-tracked), or an empty list (a known location where the SKU has no stock).
pub(crate) async fn location_rows(
    tx: &Transaction<'_>,
    tenant: &str,
    sku: &str,
    location: &str,
    make: bool,
) -> TxResult<Vec<BucketRow>> {
    if make {
        ensure_rows(tx, tenant, sku, location).await?;
    }
    let stmt = tx.prepare_cached(SQL_LOCK_LOCATION).await?;
    let rows = read_buckets(&tx.query(&stmt, &[&sku, &tenant, &location]).await?);
    if rows.is_empty() {
        let stmt = tx
            .prepare_cached("SELECT tracking = 'units' FROM skus WHERE tenant = $2 AND sku = $1")
            .await?;
        match tx.query_opt(&stmt, &[&sku, &tenant]).await? {
            None => return Err(TxErr::Fail(AllotError::not_found("sku", sku))),
            Some(r) if r.get::<_, bool>(0) => return Err(TxErr::Fail(AllotError::wrong_tracking(sku, true))),
            Some(_) => require_location(tx, tenant, location).await?,
        }
    }
    Ok(rows)
}

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
            let entry = (LedgerKind::Transfer, Some(req.id.as_str()));
            let actor = req.actor.as_deref();
            let from = (req.sku.as_str(), req.from.as_str());
            Self::lock_and_rebalance(tx, tenant, from, -req.quantity, entry, actor).await?;
            let to = (req.sku.as_str(), req.to.as_str());
            Self::lock_and_rebalance(tx, tenant, to, req.quantity, entry, actor).await?;
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
            let current: i64 = rows.iter().map(|r| r.on_hand).sum();
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
                let entry = (LedgerKind::Adjustment, req.reason.as_deref());
                let at = (req.sku.as_str(), req.location.as_str());
                Self::lock_and_rebalance(tx, tenant, at, delta, entry, req.actor.as_deref()).await?;
            }
            Ok(get_sku_with(tx, tenant, &req.sku, self.now()).await?)
        })
        .await
    }
}

#[async_trait]
impl LocationStore for PgStore {
    async fn create_location(&self, tenant: &str, location: Location, max_locations: u32) -> Result<Location> {
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
            &[&tenant],
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
                    &tenant,
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

    async fn list_locations(&self, tenant: &str) -> Result<Vec<Location>> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT location, priority, created_at FROM locations WHERE tenant = $1 ORDER BY location",
                &[&tenant],
            )
            .await
            .map_err(map_error)?;
        let mut out: Vec<Location> = rows
            .iter()
            .map(|r| Location {
                location: r.get(0),
                priority: r.get(1),
                created_at: Some(r.get(2)),
            })
            .collect();
        out.push(Location::builtin());
        out.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(out)
    }

    async fn transfer(
        &self,
        tenant: &str,
        req: Transfer,
        idem: Option<Idempotency<Transfer>>,
    ) -> Result<Executed<Transfer>> {
        self.retrying(|| self.try_transfer(tenant, &req, idem.as_ref())).await
    }

    async fn set_level(&self, tenant: &str, req: SetLevel, idem: Option<Idempotency<Sku>>) -> Result<Executed<Sku>> {
        self.retrying(|| self.try_set_level(tenant, &req, idem.as_ref())).await
    }
}
