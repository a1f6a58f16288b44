//! Backorders on PostgreSQL (`allot_core::backorder`): the allocation path that owes what is
//! not there, the fills of the owed lines when stock comes back, and a cancel's share.
//!
//! Lock order: a backordering allocation takes an advisory lock per SKU (`allot_backorders`
//! and the hash of tenant and SKU, in key order: the writers that add to what a SKU owes
//! queue there, and no other writer waits for these locks, so none can hold a row this path
//! waits for while waiting for one of them), then their stock rows (bucket order), then
//! inserts its owed lines. A fill runs where stock came back, with that location's stock rows
//! already locked, and then locks the owed lines it may fill (oldest first). A cancel of a
//! backordered allocation locks the stock rows of all its SKUs (SKU, then bucket order, as
//! every writer does) before its owed lines, so no fill holds one of them while waiting for a
//! row the cancel has.

use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::location_rows::require_location;
use crate::engine::placement::{answered, take_what_there_is, Piece};
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::backorder::BackorderLevel;
use allot_core::location::Placement;
use allot_core::store::{Executed, Idempotency};
use allot_core::{Allocation, AllocationRequest, AllotError, Capable, Result};
use chrono::{DateTime, Utc};
use std::collections::HashMap;

/// The advisory locks of the SKUs `$2` of tenant `$1`, taken in key order (one per SKU;
/// two SKUs sharing a hash share a lock, which only makes them wait for each other).
const SQL_LOCK_SKUS: &str = "SELECT count(pg_advisory_xact_lock(hashtext('allot_backorders'), k))
     FROM (SELECT DISTINCT hashtext($1 || '/' || x) AS k FROM unnest($2::text[]) x ORDER BY k) o";
/// The limits of the SKUs `$2` of tenant `$1` and what each owes now (read after the locks:
/// a statement that waited on a lock keeps the snapshot of before the wait).
const SQL_LIMITS: &str = "SELECT s.sku, s.backorder_limit,
            COALESCE((SELECT sum(b.quantity - b.filled - b.cancelled) FROM backorders b
                       WHERE b.tenant = $1 AND b.sku = s.sku AND b.filled + b.cancelled < b.quantity), 0)::int8
       FROM skus s WHERE s.tenant = $1 AND s.sku = ANY($2)";
/// The owed lines of allocation `$2`: `$3` SKUs, `$4` quantities, `$5` pinned locations.
const SQL_INSERT_OWED: &str = "INSERT INTO backorders (tenant, allocation_id, sku, location, quantity, created_at)
     SELECT $1, $2, t.sku, t.loc, t.q, $6 FROM unnest($3::text[], $4::int8[], $5::text[]) AS t(sku, q, loc)";

impl PgStore {
    /// One attempt of the backorder path of allocation `req`, whose strategy found a line
    /// short (`refusal`) on a SKU with a backorder limit.
    pub(crate) async fn try_backorder(
        &self,
        tenant: &str,
        req: &AllocationRequest,
        idem: Option<&Idempotency<Allocation>>,
        now: DateTime<Utc>,
        refusal: AllotError,
    ) -> TxResult<Executed<Allocation>> {
        if matches!(req.placement, Placement::Ranked(_)) {
            // Owed lines fill at any location or the pinned one, never from a ranked list.
            return Err(TxErr::Fail(refusal));
        }
        let sequence = self.ledger_sequence(tenant).await?;
        self.write(tenant, idem, async |tx| {
            backorder_body(tx, tenant, req, sequence, now).await
        })
        .await
    }

    /// `StockStore::set_backorder_limit`.
    pub(crate) async fn write_backorder_limit(&self, tenant: &str, sku: &str, limit: i64) -> Result<allot_core::Sku> {
        let c = self.client().await?;
        let n = c
            .execute(
                "UPDATE skus SET backorder_limit = $3 WHERE tenant = $1 AND sku = $2 AND tracking <> 'units'",
                &[&tenant, &sku, &limit],
            )
            .await
            .map_err(crate::engine::errors::map_error)?;
        if n == 0 {
            // Unknown, or unit-tracked (a unit has a serial: it cannot be owed).
            let found = super::get_sku_with(&c, tenant, sku, self.now()).await?;
            return Err(AllotError::wrong_tracking(&found.sku, true));
        }
        super::get_sku_with(&c, tenant, sku, self.now()).await
    }
}

/// Take what each line of `req` can have and owe the rest where its SKU has room, in `tx`;
/// record the allocation, its ledger entries and its owed lines. A line short where its SKU
/// has no room: `insufficient_stock` for it (what it could have as `available`).
async fn backorder_body(
    tx: &Transaction<'_>,
    tenant: &str,
    req: &AllocationRequest,
    sequence: u32,
    now: DateTime<Utc>,
) -> TxResult<Allocation> {
    let skus: Vec<&str> = req.lines.iter().map(|l| l.sku.as_str()).collect();
    let stmt = tx.prepare_cached(SQL_LOCK_SKUS).await?;
    tx.query(&stmt, &[&tenant, &skus]).await?;
    let stmt = tx.prepare_cached(SQL_LIMITS).await?;
    let rows = tx.query(&stmt, &[&tenant, &skus]).await?;
    let limits: HashMap<String, i64> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    let mut owed: HashMap<String, i64> = rows.iter().map(|r| (r.get(0), r.get(2))).collect();
    let mut taken: Vec<Vec<Piece>> = Vec::with_capacity(req.lines.len());
    let mut alloc = req.to_allocation(now);
    let mut owes = (Vec::new(), Vec::new(), Vec::new());
    for (i, line) in req.lines.iter().enumerate() {
        let (pieces, short, available) = take_what_there_is(tx, tenant, req, line, now).await?;
        if short > 0 {
            if let Some(at) = line.location.as_deref() {
                // A line pinned where there is no such location is refused, as elsewhere.
                match require_location(tx, tenant, at).await {
                    Err(TxErr::Fail(_)) => return Err(TxErr::Fail(short_of(line, available))),
                    found => found?,
                }
            }
            let level = BackorderLevel {
                limit: limits.get(&line.sku).copied().unwrap_or(0),
                owed: owed.get(&line.sku).copied().unwrap_or(0),
            };
            if !level.has_room(short) {
                return Err(TxErr::Fail(short_of(line, available)));
            }
            *owed.entry(line.sku.clone()).or_default() += short;
            owes.0.push(line.sku.as_str());
            owes.1.push(short);
            owes.2.push(line.location.as_deref());
        }
        alloc.lines[i] = answered(line, &pieces);
        alloc.lines[i].backordered = (short > 0).then_some(short);
        taken.push(pieces);
    }
    super::record_allocation(tx, tenant, req, (&alloc, &taken), sequence, now).await?;
    let stmt = tx.prepare_cached(SQL_INSERT_OWED).await?;
    tx.execute(&stmt, &[&tenant, &req.id, &owes.0, &owes.1, &owes.2, &now])
        .await?;
    Ok(alloc)
}

/// The refusal of `line`, short with `available` where it may take.
fn short_of(line: &allot_core::AllocationLine, available: i64) -> AllotError {
    AllotError::InsufficientStock {
        sku: line.sku.clone(),
        requested: line.quantity,
        available,
    }
}

/// Before a cancel gives back allocation `id`'s lines: when it still owes anything, lock every
/// stock row of every SKU it names (SKU in byte order, then bucket: the global order), then
/// drop what its lines owe. Returns whether it owed anything (the caller then reads the
/// allocation again, its fills now final).
pub(crate) async fn drop_owed(tx: &Transaction<'_>, tenant: &str, alloc: &Allocation) -> TxResult<bool> {
    if !alloc.lines.iter().any(|l| l.backordered.is_some_and(|o| o > 0)) {
        return Ok(false);
    }
    let skus: Vec<&str> = alloc.lines.iter().map(|l| l.sku.as_str()).collect();
    let stmt = tx
        .prepare_cached(
            "SELECT 1 FROM stock WHERE tenant = $1 AND sku = ANY($2) ORDER BY sku COLLATE \"C\", bucket FOR UPDATE",
        )
        .await?;
    tx.query(&stmt, &[&tenant, &skus]).await?;
    let stmt = tx
        .prepare_cached(
            "UPDATE backorders SET cancelled = quantity - filled
              WHERE tenant = $1 AND allocation_id = $2 AND filled + cancelled < quantity",
        )
        .await?;
    tx.execute(&stmt, &[&tenant, &alloc.id]).await?;
    Ok(true)
}
