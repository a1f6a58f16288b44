//! A SKU's stock rows at one location on SQLite: whether the SKU is unit-tracked, whether a
//! location exists, a location's rows (made, `buckets` of them numbered after the SKU's last,
//! when stock first arrives there), and the relative change of a location's on hand spread
//! over its rows with its ledger entry — what adjustments, transfers, compare-and-set,
//! cancels and returns share.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use allot_core::{plan_rebalance, AllotError, LedgerKind, Result, StockReason, DEFAULT_LOCATION};

/// A ledger entry to write with a stock change: its kind and reference (a cancelled
/// allocation's id, a transfer's id), the reason said (`None`: its kind's), the document URI,
/// and who made it. It is written now (the store's clock).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<'a> {
    pub kind: LedgerKind,
    pub reference: Option<&'a str>,
    pub reason: Option<StockReason>,
    pub document: Option<&'a str>,
    pub actor: Option<&'a str>,
}

impl<'a> Entry<'a> {
    /// An entry of `kind` about `reference` by `actor`, with no reason said and no document.
    pub(crate) fn new(kind: LedgerKind, reference: Option<&'a str>, actor: Option<&'a str>) -> Self {
        Entry {
            kind,
            reference,
            reason: None,
            document: None,
            actor,
        }
    }

    /// The same entry with `reason` said and `document` named.
    pub(crate) fn because(self, reason: Option<StockReason>, document: Option<&'a str>) -> Self {
        Entry {
            reason,
            document,
            ..self
        }
    }
}
use rusqlite::{params, Connection, OptionalExtension};

/// Whether `sku` exists and is unit-tracked: `None` when it does not exist.
pub(crate) fn tracks_units(c: &Connection, tenant: &str, sku: &str) -> Result<Option<bool>> {
    c.prepare_cached("SELECT tracking = 'units' FROM skus WHERE tenant = ?2 AND sku = ?1")
        .and_then(|mut s| s.query_row([sku, tenant], |r| r.get(0)).optional())
        .map_err(map_error)
}

/// `not_found` for an unknown SKU, `wrong_tracking` for a unit-tracked one.
pub(crate) fn require_counted(c: &Connection, tenant: &str, sku: &str) -> Result<()> {
    match tracks_units(c, tenant, sku)? {
        None => Err(AllotError::not_found("sku", sku)),
        Some(true) => Err(AllotError::wrong_tracking(sku, true)),
        Some(false) => Ok(()),
    }
}

/// `not_found` unless `location` is `default` or a location of `tenant`.
pub(crate) fn require_location(c: &Connection, tenant: &str, location: &str) -> Result<()> {
    if location == DEFAULT_LOCATION {
        return Ok(());
    }
    c.prepare_cached("SELECT 1 FROM locations WHERE tenant = ?1 AND location = ?2")
        .and_then(|mut s| s.query_row([tenant, location], |_| Ok(())).optional())
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("location", location))
}

/// Make sure `sku` has rows at `location` (made, `buckets` of them with nothing on hand,
/// numbered after the SKU's last). `not_found` for an unknown SKU or location,
/// `invalid_request` for a unit-tracked SKU.
pub(crate) fn ensure_rows(c: &Connection, tenant: &str, sku: &str, location: &str) -> Result<()> {
    let has = c
        .prepare_cached("SELECT 1 FROM stock WHERE tenant = ?2 AND sku = ?1 AND location = ?3 LIMIT 1")
        .and_then(|mut s| s.query_row([sku, tenant, location], |_| Ok(())).optional())
        .map_err(map_error)?;
    if has.is_some() {
        return Ok(());
    }
    match tracks_units(c, tenant, sku)? {
        None => return Err(AllotError::not_found("sku", sku)),
        Some(true) => return Err(AllotError::wrong_tracking(sku, true)),
        Some(false) => {}
    }
    require_location(c, tenant, location)?;
    c.prepare_cached(
        "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g
                                  WHERE i < (SELECT buckets FROM skus WHERE tenant = ?2 AND sku = ?1))
         INSERT INTO stock (tenant, sku, bucket, on_hand, location)
         SELECT ?2, ?1, (SELECT COALESCE(max(bucket), -1) FROM stock WHERE tenant = ?2 AND sku = ?1) + i, 0, ?3 FROM g",
    )
    .and_then(|mut s| s.execute([sku, tenant, location]))
    .map_err(map_error)?;
    Ok(())
}

/// Apply `delta` to `sku` at `location` spread evenly over its buckets there (made first
/// when it has none there and `delta > 0`) and write the ledger `entry` at that location when
/// `delta != 0` (an adjustment, a cancelled allocation, a transfer's side). Returns whether
/// any bucket changed.
pub(crate) fn lock_and_rebalance(
    tx: &Connection,
    tenant: &str,
    (sku, location): (&str, &str),
    delta: i64,
    entry: Entry<'_>,
) -> Result<bool> {
    if delta > 0 {
        ensure_rows(tx, tenant, sku, location)?;
    }
    let mut counts = crate::engine::fills::bucket_counts(tx, tenant, sku, location)?;
    if counts.is_empty() {
        match tracks_units(tx, tenant, sku)? {
            Some(true) => return Err(AllotError::wrong_tracking(sku, true)),
            None => return Err(AllotError::not_found("sku", sku)),
            Some(false) => require_location(tx, tenant, location)?,
        }
    }
    let mut plan = plan_rebalance(sku, &counts, delta);
    // Short while holds are set aside: finalise the overdue ones (expired, not yet swept)
    // and plan again, as every writer does.
    let short = matches!(plan, Err(AllotError::InsufficientStock { .. })) && counts.iter().any(|c| c.held > 0);
    if short && crate::engine::overdue::expire_overdue_on(tx, tenant, sku, now_us())? > 0 {
        counts = crate::engine::fills::bucket_counts(tx, tenant, sku, location)?;
        plan = plan_rebalance(sku, &counts, delta);
    }
    let plan = plan?;
    for (b, d) in &plan {
        tx.prepare_cached(
            "UPDATE stock SET on_hand = on_hand + ?3, version = version + 1 WHERE tenant = ?4 AND sku = ?1 AND bucket = ?2",
        )
        .and_then(|mut s| s.execute(params![sku, b, d, tenant]))
        .map_err(map_error)?;
    }
    if delta != 0 {
        write_entry(tx, tenant, (sku, location), delta, entry)?;
    }
    if delta > 0 {
        // Stock came back here: what is owed and may use it is filled now, oldest first.
        crate::engine::fills::fill_backorders(tx, tenant, (sku, location), entry.actor)?;
    }
    Ok(!plan.is_empty())
}

/// Write one ledger entry of `delta` on hand at `location` (no change of held), now.
pub(crate) fn write_entry(
    tx: &Connection,
    tenant: &str,
    (sku, location): (&str, &str),
    delta: i64,
    entry: Entry<'_>,
) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location, reason, reference)
         VALUES (?6, ?1, ?2, 0, ?7, ?3, ?4, ?5, ?8, ?9, ?10)",
    )
    .and_then(|mut s| {
        s.execute(params![
            sku,
            delta,
            entry.reference,
            now_us(),
            entry.actor,
            tenant,
            entry.kind.as_str(),
            location,
            entry.reason.map(StockReason::as_str),
            entry.document
        ])
    })
    .map_err(map_error)?;
    Ok(())
}
