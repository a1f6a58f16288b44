//! Units on PostgreSQL: bulk insert (UNNEST), and claims with `skip_locked` (one
//! statement), `nowait_scan` (the classic try-lock walk under savepoints) or `batched`
//! (`batched.rs`: many claims of one SKU in one transaction).

mod batched;
mod reads;

use crate::engine::unit_claims::{locked_ids_sql, run_claim, skip_locked_sql, Attempt, ClaimParams};

use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::store::PgStore;
use crate::engine::tx::{Decided, TxErr, TxResult};
use allot_core::store::{Executed, Idempotency, Keyed, UnitStore};
use allot_core::tenant::Tenant;
use allot_core::unit::order_by_sql;
use allot_core::Capable;
use allot_core::{
    retry, AddUnits, AllocationStatus, AllotError, Result, UnitAllocation, UnitClaim, UnitStrategy, UnitsCreated,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rand::Rng;
use std::collections::HashSet;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::ToSql;

/// Make `sku` a unit-tracked SKU of `tenant` unless it exists; `invalid_request` when it exists
/// and tracks counts.
async fn unit_tracked_sku(tx: &Transaction<'_>, tenant: &str, sku: &str, now: DateTime<Utc>) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "WITH ins AS (INSERT INTO skus (tenant, sku, buckets, tracking, created_at) VALUES ($2, $1, 1, 'units', $3)
                          ON CONFLICT DO NOTHING RETURNING tracking)
             SELECT tracking FROM ins UNION ALL SELECT tracking FROM skus WHERE tenant = $2 AND sku = $1",
        )
        .await?;
    let mut rows = tx.query(&stmt, &[&sku, &tenant, &now]).await?;
    if rows.is_empty() {
        // Another transaction created the SKU while we waited on its row: our statement's
        // snapshot predates that commit, a new statement sees it.
        rows = tx
            .query(
                "SELECT tracking FROM skus WHERE tenant = $2 AND sku = $1",
                &[&sku, &tenant],
            )
            .await?;
    }
    let tracking: String = rows
        .first()
        .ok_or_else(|| AllotError::Internal("sku vanished while adding units".into()))?
        .get(0);
    if tracking != "units" {
        return Err(TxErr::Fail(AllotError::wrong_tracking(sku, false)));
    }
    Ok(())
}

impl PgStore {
    async fn try_add_units(
        &self,
        tenant: &str,
        req: &AddUnits,
        idem: Option<&Idempotency<UnitsCreated>>,
    ) -> TxResult<Executed<UnitsCreated>> {
        let now = self.now();
        self.write(tenant, idem, async |tx| {
            unit_tracked_sku(tx, tenant, &req.sku, now).await?;
            let serials: Vec<&str> = req.units.iter().map(|u| u.serial.as_str()).collect();
            let locations: Vec<Option<&str>> = req.units.iter().map(|u| u.location.as_deref()).collect();
            let lots: Vec<Option<&str>> = req.units.iter().map(|u| u.lot.as_deref()).collect();
            let received: Vec<DateTime<Utc>> = req
                .units
                .iter()
                .map(|u| u.received_at.unwrap_or(now))
                .collect();
            let expires: Vec<Option<DateTime<Utc>>> = req.units.iter().map(|u| u.expires_at).collect();
            // One statement for the whole batch; ON CONFLICT so a serial the SKU has (even one
            // inserted concurrently) is reported, not raised as 23505.
            let stmt = tx
                .prepare_cached(
                    "INSERT INTO units (tenant, sku, serial, location, lot, received_at, expires_at)
                     SELECT $7, $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::timestamptz[])
                     ON CONFLICT (tenant, sku, serial) DO NOTHING RETURNING serial",
                )
                .await?;
            let row: [&(dyn ToSql + Sync); 7] = [&req.sku, &serials, &locations, &lots, &received, &expires, &tenant];
            let inserted: HashSet<String> = tx
                .query(&stmt, &row)
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect();
            if let Some(dup) = serials.iter().find(|s| !inserted.contains(**s)) {
                return Err(TxErr::Fail(AllotError::AlreadyExists {
                    kind: "unit serial",
                    id: format!("{}/{dup}", req.sku),
                }));
            }
            let n = inserted.len() as i64;
            let stmt = tx
                .prepare_cached(
                    "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, actor, at)
                     VALUES ($4, $1, $2, 0, 'units_received', $3, $5)",
                )
                .await?;
            tx.execute(&stmt, &[&req.sku, &n, &req.actor, &tenant, &now]).await?;
            let created = UnitsCreated { created: n as u64 };
            Ok(created)
        })
        .await
    }

    /// One `skip_locked` attempt. Without an idempotency key it is a single statement (one
    /// implicit transaction); with one, the statement runs inside the key's transaction.
    async fn skip_locked_attempt(
        &self,
        tenant: &str,
        req: &UnitClaim,
        sql: &str,
        idem: Option<&Idempotency<UnitAllocation>>,
        p: &ClaimParams,
    ) -> TxResult<Executed<Attempt>> {
        let Some(idem) = idem else {
            let client = self.client().await?;
            return Ok(Executed::Fresh(run_claim(&client, tenant, sql, req, p, None).await?));
        };
        let written = self
            .write_or(tenant, Some(idem), async |tx| {
                Ok(match run_claim(tx, tenant, sql, req, p, None).await? {
                    Attempt::Claimed(a) => Decided::Commit(a),
                    short => Decided::Rollback(short),
                })
            })
            .await?;
        Ok(claimed(written))
    }

    /// One pass of the NOWAIT scan: walk the candidates in order, try-lock each under a
    /// savepoint (55P03 lock_not_available: skip it, remember), stop at `quantity`. Enough:
    /// claim them and commit. Short: roll everything back and report.
    async fn nowait_pass(
        &self,
        tenant: &str,
        req: &UnitClaim,
        order: &str,
        idem: Option<&Idempotency<UnitAllocation>>,
        p: &ClaimParams,
    ) -> TxResult<Executed<Attempt>> {
        let written = self
            .write_or(tenant, idem, async |tx| {
                let got = nowait_walk(tx, tenant, (req, order), p.now).await?;
                // Short: everything rolls back. `run_claim` with the ids we got computes the
                // short report (visible / tracking / overdue) without claiming.
                let sql = locked_ids_sql(order, p.status == AllocationStatus::Held);
                Ok(
                    match run_claim(
                        tx,
                        tenant,
                        &sql,
                        req,
                        p,
                        Some(&got as &(dyn tokio_postgres::types::ToSql + Sync)),
                    )
                    .await?
                    {
                        Attempt::Claimed(a) if (got.len() as i64) >= p.least => Decided::Commit(a),
                        other => Decided::Rollback(other),
                    },
                )
            })
            .await?;
        Ok(claimed(written))
    }
}

/// A claim's attempt from what its write decided: committed (or replayed) as claimed, or
/// rolled back with its report.
fn claimed(written: std::result::Result<Executed<UnitAllocation>, Attempt>) -> Executed<Attempt> {
    match written {
        Ok(Executed::Fresh(a)) => Executed::Fresh(Attempt::Claimed(a)),
        Ok(Executed::Replayed(r)) => Executed::Replayed(r),
        Err(attempt) => Executed::Fresh(attempt),
    }
}

/// Walk the candidates in order (never a unit past its best-before date at `now`),
/// try-locking each (see [`try_lock_unit`]), until `quantity` are locked or none are left.
/// Returns the ids locked.
async fn nowait_walk(
    tx: &mut Transaction<'_>,
    tenant: &str,
    (req, order): (&UnitClaim, &str),
    now: DateTime<Utc>,
) -> TxResult<Vec<i64>> {
    let page = (req.quantity * 4).max(32);
    let candidates_sql = format!(
        "SELECT id FROM units WHERE tenant = $4 AND sku = $1 AND status = 'available'
            AND COALESCE(expires_at, 'infinity'::timestamptz) > $5 ORDER BY {order} LIMIT $2 OFFSET $3"
    );
    let mut got: Vec<i64> = Vec::new();
    let mut offset = 0i64;
    loop {
        let stmt = tx.prepare_text(&candidates_sql).await?;
        let ids: Vec<i64> = tx
            .query(&stmt, &[&req.sku, &page, &offset, &tenant, &now])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        for id in &ids {
            if try_lock_unit(tx, tenant, *id).await? {
                got.push(*id);
                if got.len() as i64 == req.quantity {
                    return Ok(got);
                }
            }
        }
        if (ids.len() as i64) < page {
            return Ok(got);
        }
        offset += page;
    }
}

/// `SELECT … FOR UPDATE NOWAIT` one unit under a savepoint. `true`: locked and still
/// available; `false`: taken meanwhile, or locked by another transaction (55P03; the
/// savepoint is rolled back so the transaction stays usable).
async fn try_lock_unit(tx: &mut Transaction<'_>, tenant: &str, id: i64) -> TxResult<bool> {
    let sp = tx.savepoint("nowait_unit").await?;
    let stmt = sp
        .prepare_cached("SELECT id FROM units WHERE tenant = $2 AND id = $1 AND status = 'available' FOR UPDATE NOWAIT")
        .await?;
    match sp.query_opt(&stmt, &[&id, &tenant]).await {
        Ok(row) => {
            sp.commit().await?;
            Ok(row.is_some())
        }
        Err(e) if e.code() == Some(&SqlState::LOCK_NOT_AVAILABLE) => {
            sp.rollback().await?;
            Ok(false)
        }
        Err(e) => Err(e.into()),
    }
}

#[async_trait]
impl UnitStore for PgStore {
    /// Counts the units added towards a background `ANALYZE units` (see `engine::analyze`):
    /// right after a bulk load the statistics still describe an empty table,
    /// and the planner would sort the whole SKU instead of reading the head of the ordered
    /// partial index (autovacuum would fix it only at its next round).
    async fn add_units(
        &self,
        tenant: &Tenant,
        req: AddUnits,
        idem: Keyed<UnitsCreated>,
    ) -> Result<Executed<UnitsCreated>> {
        let result = self
            .retrying(|| self.try_add_units(tenant, &req, idem.as_ref()))
            .await?;
        if let Executed::Fresh(c) = &result {
            self.analyze_in_background(&self.analyzing, "units", c.created);
        }
        Ok(result)
    }

    async fn list_units(
        &self,
        tenant: &Tenant,
        sku: &str,
        filter: &allot_core::unit::UnitFilter,
        page: allot_core::Page<i64>,
    ) -> Result<allot_core::Listed<allot_core::unit::UnitView, i64>> {
        self.units_of(tenant, sku, filter, page).await
    }

    async fn get_unit(&self, tenant: &Tenant, sku: &str, serial: &str) -> Result<allot_core::unit::UnitView> {
        self.unit_by_serial(tenant, sku, serial).await
    }

    /// Bounded: at most `unit_claim_max_attempts` attempts (each a statement or a NOWAIT
    /// pass); between attempts a full-jitter sleep. An attempt that comes back short while
    /// units were locked by others is retried; at the end that is `contention`, never
    /// `insufficient_stock`. Overdue holds on the SKU are finalised and the claim retried. A
    /// claim allowing partial asks for all it wants first and for at least one after (one
    /// attempt more).
    async fn claim_units(
        &self,
        tenant: &Tenant,
        req: UnitClaim,
        idem: Keyed<UnitAllocation>,
    ) -> Result<Executed<UnitAllocation>> {
        if !self.supports_units(req.strategy) {
            return Err(AllotError::unsupported_strategy(req.strategy.name(), "postgres"));
        }
        let order = order_by_sql(&req.order_by, true);
        if req.strategy == UnitStrategy::Batched && idem.is_none() && req.hold_ttl_ms.is_none() {
            if let Some(claimed) = self.claim_batched(tenant.as_str(), req.clone(), &order).await? {
                return Ok(Executed::Fresh(claimed));
            }
        }
        let sql = skip_locked_sql(&order, req.hold_ttl_ms.is_some());
        let backoff = retry::Backoff::default();
        // A claim allowing partial first asks for every unit it wants (an attempt more).
        let max_attempts = self.limits.unit_claim_max_attempts.max(1) + u32::from(req.allow_partial);
        // The units of an expired hold count as available at once, so a partial claim takes
        // less only once no overdue hold has any (found by the simulation).
        let mut least = req.quantity;
        for attempt in 0..max_attempts {
            let p = ClaimParams::new(&req, least, self.now());
            let result = match req.strategy {
                UnitStrategy::NowaitScan => self.nowait_pass(tenant, &req, &order, idem.as_ref(), &p).await,
                _ => self.skip_locked_attempt(tenant, &req, &sql, idem.as_ref(), &p).await,
            };
            let outcome = match result {
                Ok(o) => o,
                Err(TxErr::Fail(e) | TxErr::Backorder(e)) | Err(TxErr::Overdue { err: e, .. }) => return Err(e),
                Err(TxErr::Retry) | Err(TxErr::VersionConflict) => Executed::Fresh(Attempt::Short {
                    visible: 0,
                    locked: true,
                    overdue: false,
                }),
            };
            match outcome {
                Executed::Replayed(r) => return Ok(Executed::Replayed(r)),
                Executed::Fresh(Attempt::Claimed(a)) => return Ok(Executed::Fresh(a)),
                Executed::Fresh(Attempt::Short {
                    visible,
                    locked,
                    overdue,
                }) => {
                    if overdue {
                        self.expire_overdue_on(tenant, &req.sku, self.now()).await?;
                        continue;
                    }
                    if req.allow_partial && least > 1 {
                        least = 1;
                        continue;
                    }
                    if !locked {
                        return Err(AllotError::InsufficientStock {
                            sku: req.sku.clone(),
                            requested: req.quantity,
                            available: visible,
                        });
                    }
                    let r: u64 = rand::rng().random();
                    tokio::time::sleep(std::time::Duration::from_micros(backoff.delay_us(attempt, r))).await;
                }
            }
        }
        Err(AllotError::Contention {
            attempts: max_attempts,
            retry_after_ms: backoff.cap_ms,
        })
    }
}
