//! Holds on PostgreSQL: create (the stock strategies, into `held`), confirm, release, and
//! expiry (by writers that find a line short, and by the sweeper).
//!
//! Lock order, everywhere: a hold's row first (`holds`, by id), then stock rows in
//! `(sku, bucket)` order. Allocations and new holds take only stock rows (in SKU order) and
//! insert new hold rows, so no cycle can form; a deadlock that still happens (40P01) is
//! retried, bounded.

use crate::map_error;
use crate::placement::{answered, Take};
use crate::store::PgStore;
use crate::tx::{TxErr, TxResult};
use allot_core::hold::{confirm_refusal, HoldKind, HoldStatus};
use allot_core::store::{Executed, HoldStore, Idempotency, StockStore};
use allot_core::TakenWith;
use allot_core::*;
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use deadpool_postgres::{GenericClient, Transaction};

// These take (id, tenant).
const SQL_HOLD_ROW: &str =
    "SELECT id, kind, status, strategy, lines, expires_at, created_at FROM holds WHERE tenant = $2 AND id = $1";
const SQL_HOLD_ROW_LOCKED: &str =
    "SELECT id, kind, status, strategy, lines, expires_at, created_at FROM holds WHERE tenant = $2 AND id = $1 FOR UPDATE";
const SQL_HOLD_UNITS: &str = "SELECT id, serial, location, lot, received_at, expires_at FROM units
     WHERE tenant = $2 AND claim_id = $1 ORDER BY id";

/// Finish holds that the caller has locked and found `held`: mark them `to`, give their
/// stock back to its buckets (or, for `confirmed`, take it out of `on_hand` too), return or
/// allocate their units, and write one ledger entry per line. Conditional on
/// `status = 'held'`, so each hold is finished exactly once.
pub(crate) async fn finish_holds(
    tx: &Transaction<'_>,
    tenant: &str,
    ids: &[String],
    to: HoldStatus,
    now: DateTime<Utc>,
    actor: Option<&str>,
) -> TxResult<u64> {
    if ids.is_empty() {
        return Ok(0);
    }
    let stmt = tx
        .prepare_cached(
            "UPDATE holds SET status = $2, finished_at = $3
              WHERE tenant = $4 AND id = ANY($1) AND status = 'held' RETURNING id",
        )
        .await?;
    let done: Vec<String> = tx
        .query(&stmt, &[&ids, &to.as_str(), &now, &tenant])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if done.is_empty() {
        return Ok(0);
    }
    let confirm = to == HoldStatus::Confirmed;
    give_back_stock(tx, tenant, &done, confirm).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE units SET status = CASE WHEN $2 THEN 'allocated' ELSE 'available' END,
                    claim_id = CASE WHEN $2 THEN claim_id END
              WHERE tenant = $3 AND claim_id = ANY($1) AND status = 'held'",
        )
        .await?;
    tx.execute(&stmt, &[&done, &confirm, &tenant]).await?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location)
             SELECT hl.tenant, hl.sku, CASE WHEN $2 THEN -hl.quantity ELSE 0 END, -hl.quantity, $3, hl.hold_id, $4,
                    st.location
               FROM hold_lines hl
               LEFT JOIN stock st ON st.tenant = hl.tenant AND st.sku = hl.sku AND st.bucket = hl.bucket
              WHERE hl.tenant = $5 AND hl.hold_id = ANY($1) ORDER BY hl.hold_id, hl.sku, hl.bucket",
        )
        .await?;
    tx.execute(&stmt, &[&done, &confirm, &to.ledger_kind().as_str(), &actor, &tenant])
        .await?;
    Ok(done.len() as u64)
}

/// The stock side of finishing the holds `done`: their quantity leaves `held` in the
/// buckets they took (and, when `confirm`, leaves `on_hand` too), rows locked in (sku, bucket)
/// order first.
async fn give_back_stock(tx: &Transaction<'_>, tenant: &str, done: &[String], confirm: bool) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "SELECT sku, bucket, sum(quantity)::int8 FROM hold_lines
              WHERE tenant = $2 AND hold_id = ANY($1) AND bucket >= 0 GROUP BY sku, bucket ORDER BY sku, bucket",
        )
        .await?;
    let lines = tx.query(&stmt, &[&done, &tenant]).await?;
    if lines.is_empty() {
        return Ok(());
    }
    let skus: Vec<String> = lines.iter().map(|r| r.get(0)).collect();
    let buckets: Vec<i32> = lines.iter().map(|r| r.get(1)).collect();
    let qs: Vec<i64> = lines.iter().map(|r| r.get(2)).collect();
    // Lock in (sku, bucket) order first: UPDATE … FROM does not promise an order.
    let stmt = tx
        .prepare_cached(
            "SELECT 1 FROM stock s JOIN unnest($1::text[], $2::int4[]) AS d(sku, bucket)
                 ON s.tenant = $3 AND s.sku = d.sku AND s.bucket = d.bucket
              ORDER BY s.sku, s.bucket FOR UPDATE OF s",
        )
        .await?;
    tx.query(&stmt, &[&skus, &buckets, &tenant]).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE stock s SET held = s.held - d.q,
                    on_hand = s.on_hand - CASE WHEN $4 THEN d.q ELSE 0 END,
                    version = s.version + 1
               FROM unnest($1::text[], $2::int4[], $3::int8[]) AS d(sku, bucket, q)
              WHERE s.tenant = $5 AND s.sku = d.sku AND s.bucket = d.bucket",
        )
        .await?;
    tx.execute(&stmt, &[&skus, &buckets, &qs, &confirm, &tenant]).await?;
    Ok(())
}

/// Lock a hold's row (the first lock of every finish; see the module's lock order) and read
/// its stored status and expiry. `not_found` when there is no such hold.
async fn lock_hold(
    tx: &Transaction<'_>,
    tenant: &str,
    id: &str,
) -> TxResult<(tokio_postgres::Row, HoldStatus, DateTime<Utc>)> {
    let stmt = tx.prepare_cached(SQL_HOLD_ROW_LOCKED).await?;
    let row = tx
        .query_opt(&stmt, &[&id, &tenant])
        .await?
        .ok_or_else(|| AllotError::not_found("hold", id))?;
    let stored = HoldStatus::parse(row.get(2)).ok_or_else(|| AllotError::Internal("bad hold status".into()))?;
    let expires_at: DateTime<Utc> = row.get(5);
    Ok((row, stored, expires_at))
}

/// A unit from its columns (id, serial, location, lot, received_at, expires_at) starting at
/// `first`.
pub(crate) fn unit_at(r: &tokio_postgres::Row, first: usize) -> Unit {
    Unit {
        id: r.get(first),
        serial: r.get(first + 1),
        location: r.get(first + 2),
        lot: r.get(first + 3),
        received_at: r.get(first + 4),
        expires_at: r.get(first + 5),
    }
}

fn units_of(rows: &[tokio_postgres::Row]) -> Vec<Unit> {
    rows.iter().map(|r| unit_at(r, 0)).collect()
}

pub(crate) fn unit_rows(rows: &[tokio_postgres::Row], first: usize) -> Vec<Unit> {
    rows.iter()
        .filter(|r| r.get::<_, Option<i64>>(first).is_some())
        .map(|r| unit_at(r, first))
        .collect()
}

/// Read a hold (the row, and its units when it is a unit hold that still has them).
async fn read_hold<C: GenericClient>(
    c: &C,
    tenant: &str,
    row: &tokio_postgres::Row,
    now: DateTime<Utc>,
) -> Result<Hold> {
    let kind = HoldKind::parse(row.get(1)).ok_or_else(|| AllotError::Internal("a hold of unknown kind".into()))?;
    let stored = HoldStatus::parse(row.get(2)).ok_or_else(|| AllotError::Internal("bad hold status".into()))?;
    let expires_at: DateTime<Utc> = row.get(5);
    let status = stored.effective(expires_at, now);
    let id: String = row.get(0);
    let units = if kind == HoldKind::Units && matches!(stored, HoldStatus::Held | HoldStatus::Confirmed) {
        let stmt = c.prepare_cached(SQL_HOLD_UNITS).await.map_err(map_error)?;
        Some(units_of(&c.query(&stmt, &[&id, &tenant]).await.map_err(map_error)?))
    } else if kind == HoldKind::Units {
        Some(Vec::new())
    } else {
        None
    };
    let lines: serde_json::Value = row.get(4);
    Ok(Hold {
        id,
        status,
        kind,
        lines: serde_json::from_value(lines).map_err(|e| AllotError::Internal(e.to_string()))?,
        units,
        strategy: kind
            .strategy(row.get(3))
            .ok_or_else(|| AllotError::Internal("a hold of unknown strategy".into()))?,
        expires_at,
        created_at: row.get(6),
    })
}

/// Holds of tenant `$1` in effective status `$3` as of `$4`, expiring soonest first, after
/// the hold `$2` (the cursor), at most `$5`.
const SQL_LIST_HOLDS: &str = "SELECT id, kind, status, strategy, lines, expires_at, created_at FROM holds h
  WHERE h.tenant = $1
    AND ($2::text IS NULL OR (h.expires_at, h.id) >
         (SELECT p.expires_at, p.id FROM holds p WHERE p.tenant = $1 AND p.id = $2))
    AND CASE $3::text WHEN 'held' THEN h.status = 'held' AND h.expires_at > $4
                      WHEN 'expired' THEN h.status = 'expired' OR (h.status = 'held' AND h.expires_at <= $4)
                      ELSE h.status = $3 END
  ORDER BY h.expires_at, h.id LIMIT $5";

/// Overdue holds of tenant `$4` on `$1` as of `$2`, at most `$3`, locked (waiting for holds
/// another transaction is finishing); (tenant, id).
const SQL_OVERDUE_ON_SKU: &str = "SELECT h.tenant, h.id FROM holds h
  WHERE h.tenant = $4 AND h.status = 'held' AND h.expires_at <= $2
    AND EXISTS (SELECT 1 FROM hold_lines hl WHERE hl.tenant = h.tenant AND hl.hold_id = h.id AND hl.sku = $1)
  ORDER BY h.id LIMIT $3 FOR UPDATE OF h";
/// Overdue holds of every tenant as of `$1`, at most `$2`, skipping those another
/// transaction has locked; (tenant, id).
const SQL_OVERDUE: &str = "SELECT tenant, id FROM holds WHERE status = 'held' AND expires_at <= $1
  ORDER BY tenant, id LIMIT $2 FOR UPDATE SKIP LOCKED";

impl PgStore {
    /// One transaction: the holds `select` (with `params`) picks and locks as (tenant, id),
    /// finished as expired at `now`, tenant by tenant. How many were finished.
    async fn expire_selected(
        &self,
        select: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
        now: DateTime<Utc>,
    ) -> TxResult<u64> {
        let done = self
            .write(allot_core::access::DEFAULT_TENANT, None, async |tx| {
                let stmt = tx.prepare_cached(select).await?;
                let mut by_tenant: std::collections::BTreeMap<String, Vec<String>> = Default::default();
                for r in tx.query(&stmt, params).await? {
                    by_tenant.entry(r.get(0)).or_default().push(r.get(1));
                }
                let mut n = 0;
                for (tenant, ids) in &by_tenant {
                    n += finish_holds(tx, tenant, ids, HoldStatus::Expired, now, None).await?;
                }
                Ok(n)
            })
            .await?;
        match done {
            Executed::Fresh(n) => Ok(n),
            Executed::Replayed(_) => unreachable!("no idempotency key"),
        }
    }

    /// Finalise the overdue holds that hold `sku` (at most `hold_sweep_batch`). Called by a
    /// writer that found the SKU short while such holds existed. Waits for holds that another
    /// transaction is finishing, so after it returns they are finished one way or the other.
    /// Boxed, with `Send` declared: it runs under [`PgStore::retry_plain`], and the retry
    /// policy calls it, so its future's type must not contain itself.
    pub(crate) fn expire_overdue_on<'a>(
        &'a self,
        tenant: &'a str,
        sku: &'a str,
        now: DateTime<Utc>,
    ) -> futures::future::BoxFuture<'a, Result<u64>> {
        Box::pin(async move {
            let batch = i64::from(self.limits.hold_sweep_batch.max(1));
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [&sku, &now, &batch, &tenant];
            self.retry_plain(|| self.expire_selected(SQL_OVERDUE_ON_SKU, &params, now))
                .await
        })
    }

    async fn try_create_hold(
        &self,
        tenant: &str,
        req: &HoldRequest,
        idem: Option<&Idempotency<Hold>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Hold>> {
        self.write(tenant, idem, async |tx| {
            let taken = PgStore::take_lines(tx, tenant, &req.take, Take::Hold, now).await?;
            let mut hold = req.to_hold(now);
            hold.lines = req.take.lines.iter().zip(&taken).map(|(l, p)| answered(l, p)).collect();
            let lines_json = serde_json::to_value(&hold.lines).map_err(|e| AllotError::Internal(e.to_string()))?;
            let stmt = tx
                .prepare_cached(
                    "INSERT INTO holds (tenant, id, kind, status, strategy, lines, expires_at, created_at)
                     VALUES ($6, $1, 'stock', 'held', $2, $3, $4, $5)",
                )
                .await?;
            let row: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
                &hold.id,
                &hold.strategy.name(),
                &lines_json,
                &hold.expires_at,
                &now,
                &tenant,
            ];
            tx.execute(&stmt, &row).await?;
            let pieces: Vec<(&str, &crate::placement::Piece)> = hold
                .lines
                .iter()
                .zip(&taken)
                .flat_map(|(l, ps)| ps.iter().map(move |p| (l.sku.as_str(), p)))
                .collect();
            let skus: Vec<&str> = pieces.iter().map(|(s, _)| *s).collect();
            let buckets: Vec<i32> = pieces.iter().map(|(_, p)| p.bucket).collect();
            let qs: Vec<i64> = pieces.iter().map(|(_, p)| p.quantity).collect();
            let locs: Vec<&str> = pieces.iter().map(|(_, p)| p.location.as_str()).collect();
            let stmt = tx
                .prepare_cached(
                    "WITH l AS (SELECT * FROM unnest($2::text[], $3::int4[], $4::int8[], $7::text[]) AS t(sku, bucket, q, loc)),
                          hl AS (INSERT INTO hold_lines (tenant, hold_id, sku, bucket, quantity)
                                 SELECT $6, $1, sku, bucket, q FROM l)
                     INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location)
                     SELECT $6, sku, 0, q, 'hold', $1, $5, loc FROM l",
                )
                .await?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] =
                [&hold.id, &skus, &buckets, &qs, &req.take.actor, &tenant, &locs];
            tx.execute(&stmt, &params).await?;
            Ok(hold)
        })
        .await
    }

    async fn try_confirm(
        &self,
        tenant: &str,
        (id, part): (&str, Option<&[(String, i64)]>),
        actor: Option<&str>,
        idem: Option<&Idempotency<Allocation>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Allocation>> {
        self.write(tenant, idem, async |tx| {
            let (row, stored, expires_at) = lock_hold(tx, tenant, id).await?;
            let alloc = if stored == HoldStatus::Held && expires_at > now {
                let lines: serde_json::Value = match part {
                    Some(_) if row.get::<_, &str>(1) != "stock" => {
                        return Err(TxErr::Fail(AllotError::invalid("a unit hold is confirmed whole")))
                    }
                    Some(p) => crate::confirm_part::shrink_hold(tx, tenant, id, p, actor).await?,
                    None => row.get(4),
                };
                finish_holds(tx, tenant, &[id.to_string()], HoldStatus::Confirmed, now, actor).await?;
                let name: &str = row.get(3);
                let strategy =
                    TakenWith::parse(name).ok_or_else(|| AllotError::Internal("a hold of unknown strategy".into()))?;
                let stmt = tx
                    .prepare_cached(
                        "INSERT INTO allocations (tenant, id, status, strategy, lines, created_at)
                         VALUES ($5, $1, 'allocated', $2, $3, $4)",
                    )
                    .await?;
                tx.execute(&stmt, &[&id, &strategy.name(), &lines, &now, &tenant])
                    .await?;
                Allocation {
                    id: id.to_string(),
                    status: AllocationStatus::Allocated,
                    lines: serde_json::from_value(lines).map_err(|e| AllotError::Internal(e.to_string()))?,
                    strategy,
                    created_at: now,
                }
            } else {
                confirm_refusal(id, stored, expires_at, now)?;
                // Already confirmed: confirm is idempotent, answer with its allocation.
                crate::stock::read_allocation(tx, tenant, id).await?
            };
            Ok(alloc)
        })
        .await
    }

    async fn try_release(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<&str>,
        idem: Option<&Idempotency<Hold>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Hold>> {
        self.write(tenant, idem, async |tx| {
            let (_, stored, expires_at) = lock_hold(tx, tenant, id).await?;
            match stored.effective(expires_at, now) {
                HoldStatus::Confirmed => {
                    return Err(TxErr::Fail(AllotError::HoldNotActive {
                        id: id.to_string(),
                        status: HoldStatus::Confirmed,
                    }))
                }
                // Overdue but not yet swept: it finishes as what it is, expired.
                HoldStatus::Expired if stored == HoldStatus::Held => {
                    finish_holds(tx, tenant, &[id.to_string()], HoldStatus::Expired, now, None).await?;
                }
                HoldStatus::Held => {
                    finish_holds(tx, tenant, &[id.to_string()], HoldStatus::Released, now, actor).await?;
                }
                // Released or expired already: releasing again changes nothing.
                _ => {}
            }
            let stmt = tx.prepare_cached(SQL_HOLD_ROW).await?;
            let row = tx.query_one(&stmt, &[&id, &tenant]).await?;
            let hold = read_hold(tx, tenant, &row, now).await?;
            Ok(hold)
        })
        .await
    }
}

impl PgStore {
    async fn try_extend(
        &self,
        tenant: &str,
        id: &str,
        ttl_ms: u64,
        idem: Option<&Idempotency<Hold>>,
        now: DateTime<Utc>,
    ) -> TxResult<Executed<Hold>> {
        self.write(tenant, idem, async |tx| {
            let (_, stored, expires_at) = lock_hold(tx, tenant, id).await?;
            allot_core::hold::extend_refusal(id, stored, expires_at, now)?;
            let until = allot_core::hold::extended_expiry(expires_at, now, ttl_ms);
            let stmt = tx
                .prepare_cached("UPDATE holds SET expires_at = $3 WHERE tenant = $2 AND id = $1")
                .await?;
            tx.execute(&stmt, &[&id, &tenant, &until]).await?;
            let stmt = tx.prepare_cached(SQL_HOLD_ROW).await?;
            let row = tx.query_one(&stmt, &[&id, &tenant]).await?;
            let hold = read_hold(tx, tenant, &row, now).await?;
            Ok(hold)
        })
        .await
    }
}

#[async_trait]
impl HoldStore for PgStore {
    async fn create_hold(
        &self,
        tenant: &str,
        req: HoldRequest,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        self.require_database_side(req.take.strategy)?;
        if req.take.strategy == Strategy::Batched && self.coalesces() {
            return self.hold_batched(tenant, req, idem).await;
        }
        let now = self.now();
        self.retrying(|| self.try_create_hold(tenant, &req, idem.as_ref(), now))
            .await
    }

    async fn get_hold(&self, tenant: &str, id: &str) -> Result<Hold> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_HOLD_ROW).await.map_err(map_error)?;
        let row = c
            .query_opt(&stmt, &[&id, &tenant])
            .await
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("hold", id))?;
        read_hold(&c, tenant, &row, self.now()).await
    }

    async fn confirm_hold(
        &self,
        tenant: &str,
        id: &str,
        part: Option<Vec<(String, i64)>>,
        actor: Option<String>,
        idem: Option<Idempotency<Allocation>>,
    ) -> Result<Executed<Allocation>> {
        // A partial confirm runs on the per-request path (a batch finishes holds whole).
        if part.is_none() {
            if let Some(lane_sku) = self.batched_hold_lane(tenant, id).await? {
                return self.confirm_batched(tenant, id, actor, idem, lane_sku).await;
            }
        }
        let now = self.now();
        let target = (id, part.as_deref());
        self.retrying(|| self.try_confirm(tenant, target, actor.as_deref(), idem.as_ref(), now))
            .await
    }

    async fn release_hold(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        if let Some(lane_sku) = self.batched_hold_lane(tenant, id).await? {
            return self.release_batched(tenant, id, actor, idem, lane_sku).await;
        }
        let now = self.now();
        self.retrying(|| self.try_release(tenant, id, actor.as_deref(), idem.as_ref(), now))
            .await
    }

    async fn list_holds(&self, tenant: &str, status: HoldStatus, after: Option<&str>, limit: u32) -> Result<Vec<Hold>> {
        let now = self.now();
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_LIST_HOLDS).await.map_err(map_error)?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
            [&tenant, &after, &status.as_str(), &now, &i64::from(limit)];
        let rows = c.query(&stmt, &params).await.map_err(map_error)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            out.push(read_hold(&c, tenant, r, now).await?);
        }
        Ok(out)
    }

    async fn extend_hold(
        &self,
        tenant: &str,
        id: &str,
        ttl_ms: u64,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        let now = self.now();
        self.retrying(|| self.try_extend(tenant, id, ttl_ms, idem.as_ref(), now))
            .await
    }

    async fn expire_holds(&self, now: DateTime<Utc>, max_holds: u32) -> Result<u64> {
        let limit = i64::from(max_holds.max(1));
        // SKIP LOCKED: a hold being confirmed or released right now is left to that
        // transaction; the next sweep sees what it decided.
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 2] = [&now, &limit];
        self.retry_plain(|| self.expire_selected(SQL_OVERDUE, &params, now))
            .await
    }
}
