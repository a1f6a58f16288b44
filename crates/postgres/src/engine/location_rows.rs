//! A SKU's stock rows at one location on PostgreSQL: whether a location exists, a
//! location's rows (made, `buckets` of them numbered after the SKU's last, when stock first
//! arrives there), and the relative change of a location's on hand spread over its rows with
//! its ledger entry — what adjustments, transfers, compare-and-set, cancels and returns
//! share. Lock order: the SKU row (`skus`, only to make a location's rows), then stock rows in
//! bucket order.

use crate::engine::conn::Db;
use crate::engine::conn::Tx as Transaction;
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::{plan_rebalance, AllotError, BucketCounts, LedgerKind, StockReason, DEFAULT_LOCATION};

const SQL_APPLY_PLAN: &str = "UPDATE stock s SET on_hand = s.on_hand + d.d, version = s.version + 1
     FROM unnest($2::int4[], $3::int8[]) AS d(b, d) WHERE s.tenant = $4 AND s.sku = $1 AND s.bucket = d.b";

/// A ledger entry to write with a stock change: its kind and reference (a cancelled
/// allocation's id, a transfer's id), the reason said (`None`: its kind's) and the document
/// URI, who made it, and when (the store's clock, never the database's).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry<'a> {
    pub kind: LedgerKind,
    pub reference: Option<&'a str>,
    pub reason: Option<StockReason>,
    pub document: Option<&'a str>,
    pub actor: Option<&'a str>,
    pub at: chrono::DateTime<chrono::Utc>,
}

impl<'a> Entry<'a> {
    /// An entry of `kind` about `reference`, by `actor` at `at`, with no reason said and no
    /// document.
    pub(crate) fn new(
        kind: LedgerKind,
        reference: Option<&'a str>,
        actor: Option<&'a str>,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Self {
        Entry {
            kind,
            reference,
            reason: None,
            document: None,
            actor,
            at,
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

/// One bucket of a location, as locked.
pub(crate) struct BucketRow {
    pub(crate) bucket: i32,
    pub(crate) on_hand: i64,
    pub(crate) held: i64,
}

/// `$1` sku, `$2` tenant, `$3` location.
const SQL_LOCK_LOCATION: &str = "SELECT bucket, on_hand, held FROM stock
  WHERE tenant = $2 AND sku = $1 AND location = $3 ORDER BY bucket FOR UPDATE";
/// Make a SKU's `buckets` rows at location `$3`, numbered after its last (the SKU row is
/// locked by the caller). The new rows take `single_location`'s default, false, and the
/// trigger `stock_shared` clears the SKU's other rows (V29).
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

/// Rows with `bucket`, `on_hand` and `held` columns as bucket counts.
pub(crate) fn read_buckets(rows: &[tokio_postgres::Row]) -> Vec<BucketRow> {
    rows.iter()
        .map(|r| BucketRow {
            bucket: r.get("bucket"),
            on_hand: r.get("on_hand"),
            held: r.get("held"),
        })
        .collect()
}

impl PgStore {
    /// Lock the buckets of `sku` at `location` (in bucket order; made first when the SKU has
    /// none there and `delta > 0`), apply `delta` spread evenly over them (short while holds
    /// are set aside: [`TxErr::Overdue`], so that expired holds are finalised first, as
    /// every writer does), and write the
    /// ledger `entry` at that location when `delta != 0` (an adjustment and its reason, a
    /// cancelled allocation and its id, a transfer's side); when `delta > 0`, fill what is
    /// owed there (`crate::stock::backorders::fill_backorders`). Returns whether any bucket
    /// changed.
    pub(crate) async fn lock_and_rebalance(
        tx: &crate::engine::conn::Tx<'_>,
        tenant: &str,
        (sku, location): (&str, &str),
        delta: i64,
        entry: Entry<'_>,
    ) -> TxResult<bool> {
        let rows = crate::engine::location_rows::location_rows(tx, tenant, sku, location, delta > 0).await?;
        let counts: Vec<BucketCounts> = rows
            .iter()
            .map(|r| BucketCounts {
                bucket: r.bucket as u32,
                on_hand: r.on_hand,
                held: r.held,
            })
            .collect();
        let plan = match plan_rebalance(sku, &counts, delta) {
            // Short while holds are set aside: some may be overdue (expired, not yet
            // finalised); the retry policy finalises them and runs this again (bounded).
            Err(err @ AllotError::InsufficientStock { .. }) if counts.iter().any(|c| c.held > 0) => {
                return Err(TxErr::Overdue {
                    tenant: tenant.to_string(),
                    sku: sku.to_string(),
                    err,
                })
            }
            plan => plan?,
        };
        if !plan.is_empty() {
            let bs: Vec<i32> = plan.iter().map(|(b, _)| *b as i32).collect();
            let ds: Vec<i64> = plan.iter().map(|(_, d)| *d).collect();
            let stmt = tx.prepare_cached(SQL_APPLY_PLAN).await?;
            tx.execute(&stmt, &[&sku, &bs, &ds, &tenant]).await?;
        }
        if delta != 0 {
            write_entry(tx, tenant, (sku, location), delta, entry).await?;
        }
        if delta > 0 {
            // Stock came back here: what is owed and may use it is filled now, oldest first.
            let by = (entry.actor, entry.at);
            crate::engine::fills::fill_backorders(tx, tenant, (&[sku], &[location]), by).await?;
        }
        Ok(!plan.is_empty())
    }
}

/// Write one ledger entry of `delta` on hand at `location` (no change of held).
pub(crate) async fn write_entry(
    tx: &Transaction<'_>,
    tenant: &str,
    (sku, location): (&str, &str),
    delta: i64,
    entry: Entry<'_>,
) -> TxResult<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at, reason, reference)
             VALUES ($5, $1, $2, 0, $6, $3, $4, $7, $8, $9, $10)",
        )
        .await?;
    let reason = entry.reason.map(StockReason::as_str);
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 10] = [
        &sku,
        &delta,
        &entry.reference,
        &entry.actor,
        &tenant,
        &entry.kind.as_str(),
        &location,
        &entry.at,
        &reason,
        &entry.document,
    ];
    tx.execute(&stmt, &params).await?;
    Ok(())
}

/// `not_found` for an unknown SKU, `wrong_tracking` for a unit-tracked one.
pub(crate) async fn require_counted(tx: &Transaction<'_>, tenant: &str, sku: &str) -> TxResult<()> {
    let stmt = tx.prepare_cached(crate::engine::placement::SQL_BUCKETS).await?;
    match tx.query_opt(&stmt, &[&sku, &tenant]).await? {
        None => Err(TxErr::Fail(AllotError::not_found("sku", sku))),
        Some(r) if r.get::<_, bool>(1) => Err(TxErr::Fail(AllotError::wrong_tracking(sku, true))),
        Some(_) => Ok(()),
    }
}
