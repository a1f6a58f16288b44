//! Unit claims' statements, shared by the unit claims (`units/`) and the unit lines of holds
//! (`holds/`): one statement picks the units (`FOR UPDATE SKIP LOCKED`, or ids a NOWAIT walk
//! locked), marks them, and writes what the claim records beside them — all only when enough
//! were picked; when short, [`run_claim`] asks why.

use crate::engine::conn::Db;
use crate::engine::records::unit_rows;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::unit::short_claim_should_retry;
use allot_core::{AllocationStatus, AllotError, UnitAllocation, UnitClaim};
use chrono::{DateTime, Utc};
use tokio_postgres::types::ToSql;

/// The claim statement around a `picked` subquery (ids of locked, available units): mark
/// them, write the ledger entry and the allocation (or the hold and its line) — all only when
/// at least `$4` were picked — and return the units in claim order. It is planned afresh on
/// every execution (a custom plan: the generic one cannot see which SKU is hot), so it is kept
/// to what a successful claim needs; the short case asks [`SQL_UNIT_SHORT`] separately.
///
/// Parameters: $1 sku, $2 wanted, $3 claim id, $4 least acceptable, $5 strategy, $6 now,
/// $7 hold expiry (holds) or unused NULL (allocations), $8 actor, $9 tenant [, $10 ids for
/// nowait_scan].
pub(crate) fn claim_sql(picked: &str, order: &str, hold: bool) -> String {
    claim_sql_for(picked, order, if hold { Record::Hold } else { Record::Allocation })
}

/// What a claim statement records beside the units it marks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Record {
    /// An allocation and its ledger entry (the units `allocated`).
    Allocation,
    /// A unit hold, its line (bucket -1) and its ledger entry (the units `held`).
    Hold,
    /// A line (bucket -1) of a hold the caller writes itself, and its ledger entry: a unit
    /// line of a `POST /v1/holds` hold ($5 and $7, the hold's strategy and expiry, must be
    /// given: the statement checks them).
    HoldLine,
}

/// A pick's condition that a unit is within its best-before date at the claim's `$6`
/// (`COALESCE(expires_at, 'infinity') > $6`: [`allot_core::unit::FEFO_KEY`], a range of V40's
/// index in `fefo`'s order).
const UNEXPIRED: &str = "COALESCE(expires_at, 'infinity'::timestamptz) > $6::timestamptz";

/// The statement of a unit line of a hold (see [`Record::HoldLine`]): `skip_locked`'s pick.
pub(crate) fn hold_line_sql(order: &str) -> String {
    claim_sql_for(
        &format!(
            "SELECT id FROM units WHERE tenant = $9::text AND sku = $1 AND status = 'available'
                AND {UNEXPIRED} ORDER BY {order} LIMIT $2 FOR UPDATE SKIP LOCKED"
        ),
        order,
        Record::HoldLine,
    )
}

/// The statement of a unit line of a hold that names its units by serial (`$10`, sorted):
/// those of them still available, locked in id order, waiting for a claim that holds one to
/// end (never skipping it: the line wants that very unit). All or none, as any line.
pub(crate) fn hold_line_by_serials_sql() -> String {
    claim_sql_for(
        &format!(
            "SELECT id FROM units WHERE tenant = $9::text AND sku = $1 AND status = 'available'
                AND serial = ANY($10::text[]) AND {UNEXPIRED} ORDER BY id FOR UPDATE"
        ),
        "id",
        Record::HoldLine,
    )
}

fn claim_sql_for(picked: &str, order: &str, record: Record) -> String {
    let record_of = record;
    let record = if record == Record::HoldLine {
        "hln AS (
    INSERT INTO hold_lines (tenant, hold_id, sku, bucket, quantity) SELECT $9::text, $3::text, $1, -1, n FROM cnt WHERE n > 0),
led AS (
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, at)
    SELECT $9::text, $1, 0, n, 'hold', $3::text, $8::text, $6 FROM cnt
     WHERE n > 0 AND $5::text IS NOT NULL AND $7::timestamptz IS NOT NULL)"
    } else if record == Record::Hold {
        "rec AS (
    INSERT INTO holds (tenant, id, kind, status, strategy, lines, expires_at, created_at)
    SELECT $9::text, $3::text, 'units', 'held', $5::text, jsonb_build_array(jsonb_build_object('sku', $1::text, 'quantity', n)), $7, $6
      FROM cnt WHERE n > 0),
hln AS (
    INSERT INTO hold_lines (tenant, hold_id, sku, bucket, quantity) SELECT $9::text, $3::text, $1, -1, n FROM cnt WHERE n > 0),
led AS (
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, at)
    SELECT $9::text, $1, 0, n, 'hold', $3::text, $8::text, $6 FROM cnt WHERE n > 0)"
    } else {
        concat!(
            "rec AS (
    ",
            crate::engine::records::insert_allocation!(),
            "
    SELECT $9::text, $3::text, 'allocated', $5::text, jsonb_build_array(jsonb_build_object('sku', $1::text, 'quantity', n)), $6
      FROM cnt WHERE n > 0 AND $7::timestamptz IS NULL),
led AS (
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, at)
    SELECT $9::text, $1, -n, 0, 'allocation', $3::text, $8::text, $6 FROM cnt WHERE n > 0)"
        )
    };
    let status = if record_of == Record::Allocation {
        "allocated"
    } else {
        "held"
    };
    format!(
        "WITH picked AS MATERIALIZED ({picked}),
upd AS (
    UPDATE units u SET status = '{status}', claim_id = $3::text
      FROM picked WHERE u.tenant = $9::text AND u.id = picked.id AND u.status = 'available'
       AND (SELECT count(*) FROM picked) >= $4::int8 AND $2::int8 > 0
    RETURNING u.id, u.serial, u.location, u.lot, u.received_at, u.expires_at),
cnt AS (SELECT count(*)::int8 AS n FROM upd),
{record}
SELECT id, serial, location, lot, received_at, expires_at FROM upd ORDER BY {order}"
    )
}

/// Why a claim came back short: available units visible now, within their best-before date
/// (capped at `$2`; of a claim by
/// serials, those of the serials `$5` only), the SKU's tracking (NULL: no such SKU), and
/// whether overdue holds still hold units of it. `$4`: the tenant.
pub(crate) const SQL_UNIT_SHORT: &str = "SELECT
    (SELECT count(*) FROM (SELECT 1 FROM units WHERE tenant = $4 AND sku = $1 AND status = 'available'
                             AND COALESCE(expires_at, 'infinity'::timestamptz) > $3
                             AND ($5::text[] IS NULL OR serial = ANY($5)) LIMIT $2) v)::int8
      AS visible,
    (SELECT tracking FROM skus WHERE tenant = $4 AND sku = $1) AS tracking,
    EXISTS (SELECT 1 FROM hold_lines l JOIN holds h ON h.tenant = l.tenant AND h.id = l.hold_id
             WHERE l.tenant = $4 AND l.sku = $1 AND h.status = 'held' AND h.expires_at <= $3) AS overdue";

pub(crate) fn skip_locked_sql(order: &str, hold: bool) -> String {
    claim_sql(
        &format!(
            "SELECT id FROM units WHERE tenant = $9::text AND sku = $1 AND status = 'available'
                AND {UNEXPIRED} ORDER BY {order} LIMIT $2 FOR UPDATE SKIP LOCKED"
        ),
        order,
        hold,
    )
}

pub(crate) fn locked_ids_sql(order: &str, hold: bool) -> String {
    claim_sql("SELECT unnest($10::int8[]) AS id", order, hold)
}

/// What one claim attempt found.
pub(crate) enum Attempt {
    /// Enough units: the claim is made (committed, or in the caller's transaction).
    Claimed(UnitAllocation),
    /// Short. `visible`: available units seen (capped at the quantity); `locked`: some
    /// were locked by others; `overdue`: overdue holds still hold units of the SKU.
    Short { visible: i64, locked: bool, overdue: bool },
}

pub(crate) struct ClaimParams {
    wanted: i64,
    /// How many units satisfy the attempt.
    pub(crate) least: i64,
    /// `held` for a hold's claim, else `allocated`.
    pub(crate) status: AllocationStatus,
    expires_at: Option<DateTime<Utc>>,
    /// The claim's instant: a unit past its best-before date then is never taken.
    pub(crate) now: DateTime<Utc>,
}

impl ClaimParams {
    /// The parameters of an attempt at `now` that takes at least `least` units.
    pub(crate) fn new(req: &UnitClaim, least: i64, now: DateTime<Utc>) -> Self {
        ClaimParams {
            wanted: req.quantity,
            least,
            status: if req.hold_ttl_ms.is_some() {
                AllocationStatus::Held
            } else {
                AllocationStatus::Allocated
            },
            expires_at: req.hold_ttl_ms.map(|t| allot_core::hold::expires_at(now, t)),
            now,
        }
    }
}

/// Run a claim statement and interpret its rows; when short, ask why.
pub(crate) async fn run_claim<C: Db>(
    c: &C,
    tenant: &str,
    sql: &str,
    req: &UnitClaim,
    p: &ClaimParams,
    ids: Option<&(dyn ToSql + Sync)>,
) -> TxResult<Attempt> {
    let stmt = c.prepare_text(sql).await?;
    let strategy = req.strategy.name();
    let mut params: Vec<&(dyn ToSql + Sync)> = vec![
        &req.sku,
        &p.wanted,
        &req.id,
        &p.least,
        &strategy,
        &p.now,
        &p.expires_at,
        &req.actor,
        &tenant,
    ];
    if let Some(ids) = ids {
        params.push(ids);
    }
    let rows = c.query(&stmt, &params).await?;
    if rows.len() as i64 >= p.least {
        return Ok(Attempt::Claimed(UnitAllocation {
            id: req.id.clone(),
            sku: req.sku.clone(),
            status: p.status,
            strategy: req.strategy,
            units: unit_rows(&rows),
            expires_at: p.expires_at,
            created_at: p.now,
        }));
    }
    let named = (!req.serials.is_empty()).then_some(&req.serials);
    let stmt = c.prepare_cached(SQL_UNIT_SHORT).await?;
    let row = c
        .query_one(&stmt, &[&req.sku, &p.wanted, &p.now, &tenant, &named])
        .await?;
    match row.get::<_, Option<&str>>("tracking") {
        None => Err(TxErr::Fail(AllotError::not_found("sku", &req.sku))),
        Some("count") => Err(TxErr::Fail(AllotError::wrong_tracking(&req.sku, false))),
        Some(_) => {
            let visible: i64 = row.get("visible");
            Ok(Attempt::Short {
                visible,
                locked: short_claim_should_retry(rows.len() as i64, visible, p.least),
                overdue: row.get("overdue"),
            })
        }
    }
}

/// Hold the units of unit line `line` of `req` (until the hold's expiry), with its line and
/// ledger entry, in one statement: all of them or none. Short: `Overdue` when overdue holds
/// still hold units of its SKU (finish them and run again), `Retry` when others lock units
/// it could take, else `insufficient_stock`.
pub(crate) async fn hold_unit_line(
    tx: &impl Db,
    tenant: &str,
    (req, line): (&allot_core::HoldRequest, &allot_core::hold::UnitLine),
    now: DateTime<Utc>,
) -> TxResult<Vec<allot_core::Unit>> {
    let claim = req.unit_claim(line, allot_core::UnitStrategy::SkipLocked);
    let (sql, named) = if claim.serials.is_empty() {
        let order = allot_core::unit::order_by_sql(&claim.order_by, true);
        (hold_line_sql(&order), None)
    } else {
        let serials: &(dyn tokio_postgres::types::ToSql + Sync) = &claim.serials;
        (hold_line_by_serials_sql(), Some(serials))
    };
    let p = ClaimParams::new(&claim, claim.quantity, now);
    match run_claim(tx, tenant, &sql, &claim, &p, named).await? {
        Attempt::Claimed(a) => Ok(a.units),
        Attempt::Short {
            visible,
            locked,
            overdue,
        } => {
            let short = AllotError::InsufficientStock {
                sku: line.sku.clone(),
                requested: line.quantity,
                available: visible,
            };
            if overdue {
                return Err(TxErr::Overdue {
                    tenant: tenant.to_string(),
                    sku: line.sku.clone(),
                    err: short,
                });
            }
            Err(if locked { TxErr::Retry } else { TxErr::Fail(short) })
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn claim_sql_only_embeds_whitelisted_order() {
        let sql = super::skip_locked_sql(&allot_core::unit::order_by_sql(&[], true), false);
        assert!(sql.contains("ORDER BY id ASC LIMIT $2 FOR UPDATE SKIP LOCKED"));
    }
}
