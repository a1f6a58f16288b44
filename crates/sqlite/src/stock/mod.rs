//! Stock on SQLite: the counts per SKU and every stock write, in one `BEGIN IMMEDIATE`
//! transaction each on the writer thread (strategy `serialized`).

pub(crate) mod backorders;
mod cancel;
mod kits;
mod listings;
mod locations;
mod receiving;
mod returns;
mod states;

use crate::engine::clock::{from_us, now_us};
use crate::engine::errors::map_error;
use crate::engine::location_rows::{lock_and_rebalance, tracks_units, Entry};
use crate::engine::placement::answered;
use crate::engine::records::read_allocation;
use crate::engine::store::SqliteStore;
use allot_core::store::{Executed, Keyed, StockStore};
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::Cancel;
use allot_core::Capable;
use allot_core::{
    split_even, Adjustment, Allocation, AllocationRequest, AllotError, CreateSku, Incoming, LedgerEntry, LedgerKind,
    Move, Receipt, Result, Return, Sku, StockReason,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

/// A SKU's counts as a reader must see them at `now_us`: from its stock rows, or derived
/// from its units when unit-tracked; held minus what overdue holds still hold.
pub(crate) fn get_sku_with(c: &Connection, tenant: &str, sku: &str, now_us: i64) -> Result<Sku> {
    c.prepare_cached(SQL_GET_SKU)
        .and_then(|mut s| {
            s.query_row(params![sku, now_us, tenant], |r| sku_of(r, sku.to_string()))
                .optional()
        })
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("sku", sku))
}

/// SKUs of `tenant` by name after `after`, those with available below `below` when given, at
/// most `limit`, in one statement (see `StockStore::list_skus`).
pub(crate) fn list_skus_with(
    c: &Connection,
    tenant: &str,
    after: &str,
    filter: &allot_core::SkuFilter,
    limit: u32,
    now_us: i64,
) -> Result<Vec<Sku>> {
    c.prepare_cached(SQL_LIST_SKUS)
        .and_then(|mut s| {
            let p = params![after, now_us, tenant, filter.available_below, limit, filter.prefix];
            s.query_map(p, |r| sku_of(r, r.get("sku")?))?.collect()
        })
        .map_err(map_error)
}

/// A SKU row `s`'s counts as a reader sees them at `?2` (tenant `?3`): buckets, on_hand,
/// held, version, and what overdue holds still hold (it leaves `held`).
macro_rules! sku_counts {
    () => {
        "s.buckets, s.low_stock_below, s.backorder_limit,
        (SELECT COALESCE(sum(b.quantity - b.filled - b.cancelled), 0) FROM backorders b
          WHERE b.tenant = ?3 AND b.sku = s.sku AND b.filled + b.cancelled < b.quantity) AS backordered,
        CASE WHEN s.tracking = 'units'
             THEN (SELECT count(*) FROM units u WHERE u.tenant = ?3 AND u.sku = s.sku AND u.status <> 'allocated')
             ELSE (SELECT sum(on_hand) FROM stock st WHERE st.tenant = ?3 AND st.sku = s.sku) END AS on_hand,
        CASE WHEN s.tracking = 'units'
             THEN (SELECT count(*) FROM units u WHERE u.tenant = ?3 AND u.sku = s.sku AND u.status = 'held')
             ELSE (SELECT sum(held) FROM stock st WHERE st.tenant = ?3 AND st.sku = s.sku) END AS held,
        CASE WHEN s.tracking = 'units'
             THEN (SELECT COALESCE(max(id), 0) FROM ledger l WHERE l.tenant = ?3 AND l.sku = s.sku)
             ELSE (SELECT sum(version) FROM stock st WHERE st.tenant = ?3 AND st.sku = s.sku) END AS version,
        COALESCE((SELECT sum(hl.quantity) FROM hold_lines hl
                    JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
                   WHERE hl.tenant = ?3 AND hl.sku = s.sku AND h.status = 'held' AND h.expires_at_us <= ?2), 0) AS overdue,
        CASE WHEN s.tracking = 'units' THEN (
            SELECT json_group_array(json_array(loc, on_hand, held)) FROM (
                SELECT COALESCE(u.location, 'default') AS loc, sum(u.status <> 'allocated') AS on_hand,
                       sum(u.status = 'held' AND NOT EXISTS (
                           SELECT 1 FROM holds h WHERE h.tenant = u.tenant AND h.id = u.claim_id
                              AND h.expires_at_us <= ?2)) AS held
                  FROM units u WHERE u.tenant = ?3 AND u.sku = s.sku GROUP BY 1))
        ELSE (
            SELECT json_group_array(json_array(st.location, st.on_hand, st.held - COALESCE(od.q, 0)))
              FROM (SELECT location, sum(on_hand) AS on_hand, sum(held) AS held FROM stock
                     WHERE tenant = ?3 AND sku = s.sku GROUP BY location) st
              LEFT JOIN (SELECT so.location, sum(hl.quantity) AS q FROM hold_lines hl
                           JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
                           JOIN stock so ON so.tenant = hl.tenant AND so.sku = hl.sku AND so.bucket = hl.bucket
                          WHERE hl.tenant = ?3 AND hl.sku = s.sku AND h.status = 'held' AND h.expires_at_us <= ?2
                          GROUP BY so.location) od ON od.location = st.location) END AS levels,
        (SELECT json_group_array(json_array(i.location, i.n)) FROM (
            SELECT location, sum(quantity - received) AS n FROM incoming
             WHERE tenant = ?3 AND sku = s.sku AND received < quantity GROUP BY location ORDER BY location) i) AS incoming,
        (SELECT json_group_array(json_array(ss.location, ss.state, ss.quantity)) FROM (
            SELECT location, state, quantity FROM stock_states
             WHERE tenant = ?3 AND sku = s.sku AND quantity > 0 ORDER BY location, state) ss) AS states"
    };
}
/// One SKU (`?1`).
const SQL_GET_SKU: &str = concat!(
    "SELECT ",
    sku_counts!(),
    " FROM skus s WHERE s.tenant = ?3 AND s.sku = ?1"
);
/// SKUs after the name `?1`, available below `?4` when given, at most `?5`.
const SQL_LIST_SKUS: &str = concat!(
    "SELECT sku, buckets, low_stock_below, backorder_limit, backordered, on_hand, held, version, overdue, levels, incoming, states FROM (SELECT s.sku, ",
    sku_counts!(),
    " FROM skus s WHERE s.tenant = ?3 AND s.sku > ?1
        AND (?6 IS NULL OR (s.sku >= ?6 AND substr(s.sku, 1, length(?6)) = ?6)))
      WHERE ?4 IS NULL OR COALESCE(on_hand, 0) - (COALESCE(held, 0) - overdue) < ?4
      ORDER BY sku LIMIT ?5"
);

/// A SKU from its counts' columns, by name (see `sku_counts!`).
fn sku_of(r: &rusqlite::Row<'_>, sku: String) -> rusqlite::Result<Sku> {
    let overdue: i64 = r.get("overdue")?;
    let mut s = Sku::from_counts(
        sku,
        r.get::<_, Option<i64>>("on_hand")?.unwrap_or(0),
        r.get::<_, Option<i64>>("held")?.unwrap_or(0) - overdue,
        r.get::<_, Option<i64>>("version")?.unwrap_or(0),
        r.get::<_, i64>("buckets")? as u32,
    );
    let levels: Vec<(String, i64, i64)> = match crate::engine::errors::stored_json(r, "levels")? {
        Some(v) => serde_json::from_value(v)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))?,
        None => Vec::new(),
    };
    s.levels = allot_core::location::levels(levels.iter().map(|(l, a, h)| (l.as_str(), *a, *h)));
    s.low_stock_below = r.get("low_stock_below")?;
    s.backorder_limit = r.get("backorder_limit")?;
    s.backordered = r.get("backordered")?;
    let incoming: Vec<(String, i64)> = match crate::engine::errors::stored_json(r, "incoming")? {
        Some(v) => serde_json::from_value(v)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))?,
        None => Vec::new(),
    };
    allot_core::receiving::with_incoming(&mut s, incoming.iter().map(|(l, n)| (l.as_str(), *n)));
    let states: Vec<(String, String, i64)> = match crate::engine::errors::stored_json(r, "states")? {
        Some(v) => serde_json::from_value(v)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e)))?,
        None => Vec::new(),
    };
    allot_core::states::with_states(
        &mut s,
        states
            .iter()
            .filter_map(|(l, st, n)| Some((l.as_str(), allot_core::QuantityState::parse(st)?, *n))),
    );
    Ok(s)
}

#[async_trait]
impl StockStore for SqliteStore {
    async fn health(&self) -> Result<()> {
        self.call(|c| c.query_row("SELECT 1", [], |_| Ok(())).map_err(map_error))
            .await
    }

    async fn create_sku(&self, tenant: &Tenant, req: CreateSku, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            crate::engine::location_rows::require_location(tx, &t, &req.location)?;
            let n = tx
                .execute(
                    "INSERT INTO skus (tenant, sku, buckets, created_at_us, low_stock_below)
                     VALUES (?4, ?1, ?2, ?3, ?5) ON CONFLICT DO NOTHING",
                    params![req.sku, req.buckets, now_us(), t, req.low_stock_below],
                )
                .map_err(map_error)?;
            if n == 0 {
                return Err(AllotError::AlreadyExists {
                    kind: "sku",
                    id: req.sku,
                });
            }
            for (b, q) in split_even(req.on_hand, req.buckets).into_iter().enumerate() {
                tx.execute(
                    "INSERT INTO stock (tenant, sku, bucket, on_hand, location) VALUES (?4, ?1, ?2, ?3, ?5)",
                    params![req.sku, b as i64, q, t, req.location],
                )
                .map_err(map_error)?;
            }
            tx.execute(
                "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, at_us, actor, location)
                 VALUES (?5, ?1, ?2, 0, 'created', ?3, ?4, ?6)",
                params![req.sku, req.on_hand, now_us(), req.actor, t, req.location],
            )
            .map_err(map_error)?;
            Ok(Sku::created(&req))
        })
        .await
    }

    async fn get_sku(&self, tenant: &Tenant, sku: &str) -> Result<Sku> {
        let (t, sku) = (tenant.to_string(), sku.to_string());
        self.call(move |c| get_sku_with(c, &t, &sku, now_us())).await
    }

    async fn set_backorder_limit(&self, tenant: &Tenant, sku: &str, limit: i64) -> Result<Sku> {
        self.write_backorder_limit(tenant, sku, limit).await
    }

    async fn set_low_stock(&self, tenant: &Tenant, sku: &str, below: Option<i64>) -> Result<Sku> {
        let (t, sku) = (tenant.to_string(), sku.to_string());
        self.transact(move |tx| {
            let n = tx
                .execute(
                    "UPDATE skus SET low_stock_below = ?3 WHERE tenant = ?1 AND sku = ?2",
                    rusqlite::params![t, sku, below],
                )
                .map_err(map_error)?;
            if n == 0 {
                return Err(AllotError::not_found("sku", &sku));
            }
            get_sku_with(tx, &t, &sku, now_us())
        })
        .await
    }

    async fn put_kit(&self, tenant: &Tenant, kit: allot_core::kit::Kit) -> Result<allot_core::kit::Kit> {
        self.write_kit(tenant.as_str(), kit).await
    }

    async fn kits(&self, tenant: &Tenant, names: &[String]) -> Result<allot_core::kit::Kits> {
        self.read_kits(tenant.as_str(), names).await
    }

    async fn delete_kit(&self, tenant: &Tenant, kit: &str) -> Result<()> {
        self.remove_kit(tenant.as_str(), kit).await
    }

    async fn adjust(&self, tenant: &Tenant, req: Adjustment, idem: Keyed<Sku>) -> Result<Executed<Sku>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            let entry = Entry::new(LedgerKind::Adjustment, None, req.actor.as_deref())
                .because(Some(req.reason), req.reference.as_deref());
            let at = (req.sku.as_str(), req.location.as_str());
            lock_and_rebalance(tx, &t, at, req.delta, entry)?;
            get_sku_with(tx, &t, &req.sku, now_us())
        })
        .await
    }

    async fn ledger(&self, tenant: &Tenant, sku: &str, page: Page<i64>) -> Result<Listed<LedgerEntry, i64>> {
        let (t, sku) = (tenant.to_string(), sku.to_string());
        let (after, limit) = (page.after, page.probe_limit());
        let entries = self
            .call(move |c| {
                let rows = c
                    .prepare_cached(
                        "SELECT id, delta, held_delta, kind, ref, at_us, actor, location, reason, reference FROM ledger
                      WHERE tenant = ?4 AND sku = ?1 AND id > ?2 ORDER BY id LIMIT ?3",
                    )
                    .and_then(|mut s| {
                        s.query_map(params![sku, after, limit, t], |r| {
                            let kind: String = r.get("kind")?;
                            let unknown = |what: String| {
                                rusqlite::Error::FromSqlConversionFailure(3, rusqlite::types::Type::Text, what.into())
                            };
                            let kind = LedgerKind::parse(&kind)
                                .ok_or_else(|| unknown(format!("ledger entry of unknown kind `{kind}`")))?;
                            let reason: Option<String> = r.get("reason")?;
                            Ok(LedgerEntry {
                                id: r.get("id")?,
                                delta: r.get("delta")?,
                                held_delta: r.get("held_delta")?,
                                kind,
                                reason: StockReason::read(kind, reason.as_deref())
                                    .ok_or_else(|| unknown(format!("ledger entry with unknown reason {reason:?}")))?,
                                document: r.get("reference")?,
                                reference: r.get("ref")?,
                                location: r.get("location")?,
                                actor: r.get("actor")?,
                                at: from_us(r.get("at_us")?),
                            })
                        })?
                        .collect::<rusqlite::Result<Vec<_>>>()
                    })
                    .map_err(map_error)?;
                if rows.is_empty() {
                    get_sku_with(c, &t, &sku, now_us())?;
                }
                Ok(rows)
            })
            .await?;
        Ok(Listed::from_probe(entries, &page, |e| e.id))
    }

    async fn allocate(
        &self,
        tenant: &Tenant,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        self.require(req.strategy)?;
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            let (taken, owes) = backorders::take_lines_or_owe(tx, &t, &req, now)?;
            for (line, pieces) in req.lines.iter().zip(&taken) {
                for p in pieces {
                    tx.prepare_cached(
                        "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
                         VALUES (?6, ?1, ?2, 0, 'allocation', ?3, ?4, ?5, ?7)",
                    )
                    .and_then(|mut s| s.execute(params![line.sku, -p.quantity, req.id, now, req.actor, t, p.location]))
                    .map_err(map_error)?;
                }
            }
            let mut alloc = req.to_allocation(from_us(now));
            alloc.lines = req.lines.iter().zip(&taken).map(|(l, p)| answered(l, p)).collect();
            for (line, &owed) in alloc.lines.iter_mut().zip(&owes) {
                line.backordered = (owed > 0).then_some(owed);
            }
            let owed: Vec<(&str, Option<&str>, i64)> = req
                .lines
                .iter()
                .zip(&owes)
                .map(|(l, &o)| (l.sku.as_str(), l.location.as_deref(), o))
                .collect();
            backorders::record_owed(tx, &t, &req.id, &owed)?;
            let now = from_us(now);
            let lines = serde_json::to_string(&alloc.lines).map_err(|e| AllotError::Internal(e.to_string()))?;
            tx.prepare_cached(
                "INSERT INTO allocations (tenant, id, status, strategy, lines, created_at_us)
                 VALUES (?5, ?1, 'allocated', ?2, ?3, ?4)",
            )
            .and_then(|mut s| s.execute(params![req.id, req.strategy.name(), lines, now.timestamp_micros(), t]))
            .map_err(map_error)?;
            Ok(alloc)
        })
        .await
    }

    async fn get_allocation(&self, tenant: &Tenant, id: &str) -> Result<Allocation> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.call(move |c| read_allocation(c, &t, &id)).await
    }

    async fn cancel_allocation(
        &self,
        tenant: &Tenant,
        req: Cancel,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        self.cancel(tenant, &req.id, req.actor, idem).await
    }

    async fn return_allocation(&self, tenant: &Tenant, req: Return, idem: Keyed<Return>) -> Result<Executed<Return>> {
        self.return_lines(tenant, req, idem).await
    }

    async fn add_incoming(&self, tenant: &Tenant, req: Incoming, idem: Keyed<Incoming>) -> Result<Executed<Incoming>> {
        self.add_incoming_rows(tenant, req, idem).await
    }

    async fn receive(&self, tenant: &Tenant, req: Receipt, idem: Keyed<Receipt>) -> Result<Executed<Receipt>> {
        self.receive_rows(tenant, req, idem).await
    }

    async fn move_stock(&self, tenant: &Tenant, req: Move, idem: Keyed<Move>) -> Result<Executed<Move>> {
        self.move_rows(tenant, req, idem).await
    }

    async fn list_skus(
        &self,
        tenant: &Tenant,
        filter: &allot_core::SkuFilter,
        page: Page<Option<&str>>,
    ) -> Result<Listed<Sku, String>> {
        self.skus_page(tenant, filter, page).await
    }

    async fn list_allocations(&self, tenant: &Tenant, page: Page<Option<&str>>) -> Result<Listed<Allocation, String>> {
        self.allocations_page(tenant, page).await
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl SqliteStore {
    pub(crate) async fn run_rebalance(&self, tenant: &str, sku: Option<&str>) -> Result<u64> {
        let (t, sku) = (tenant.to_string(), sku.map(str::to_string));
        self.transact(move |tx| {
            let skus: Vec<String> = match sku {
                Some(s) => vec![s],
                None => tx
                    .prepare("SELECT sku FROM skus WHERE tenant = ?1 AND buckets > 1 ORDER BY sku")
                    .and_then(|mut s| s.query_map([&t], |r| r.get(0))?.collect())
                    .map_err(map_error)?,
            };
            let mut changed = 0;
            for s in &skus {
                match tracks_units(tx, &t, s)? {
                    None => return Err(AllotError::not_found("sku", s)),
                    Some(true) => return Err(AllotError::wrong_tracking(s, true)),
                    Some(false) => {}
                }
                let locations: Vec<String> = tx
                    .prepare_cached(
                        "SELECT DISTINCT location FROM stock WHERE tenant = ?2 AND sku = ?1 ORDER BY location",
                    )
                    .and_then(|mut st| st.query_map([s, &t], |r| r.get(0))?.collect())
                    .map_err(map_error)?;
                let mut any = false;
                for loc in &locations {
                    any |= lock_and_rebalance(tx, &t, (s, loc), 0, Entry::new(LedgerKind::Adjustment, None, None))?;
                }
                changed += u64::from(any);
            }
            Ok(changed)
        })
        .await
    }

    pub(crate) async fn run_prune_idempotency_keys(&self, before: DateTime<Utc>, max_rows: u32) -> Result<u64> {
        let before_us = before.timestamp_micros();
        self.call(move |c| {
            c.execute(
                "DELETE FROM idempotency_keys WHERE rowid IN
                    (SELECT rowid FROM idempotency_keys WHERE created_at_us < ?1 LIMIT ?2)",
                params![before_us, max_rows],
            )
            .map(|n| n as u64)
            .map_err(map_error)
        })
        .await
    }
}
