//! Taking a line from a SKU's stock rows across its locations on SQLite (placement:
//! `allot_core::location`). Every write runs alone on the writer thread inside `BEGIN
//! IMMEDIATE`, so the rows read are the rows written: the core plans the take on them and
//! each piece is written as a relative UPDATE that still checks what is available.

use crate::engine::errors::map_error;
use crate::engine::location_rows::tracks_units;
use crate::engine::overdue::expire_overdue_on;
use allot_core::location::{available_in, holds_may_steer, plan_take, row_order, RowLevel};
use allot_core::{AllocationLine, AllocationRequest, AllotError, Result};
use rusqlite::{params, Connection};

/// What [`take_line`] does with the quantity it takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Take {
    /// Out of `on_hand` (an allocation).
    Allocate,
    /// Into `held` (a hold).
    Hold,
}

/// Quantity taken from one stock row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Piece {
    pub(crate) bucket: i64,
    pub(crate) location: String,
    pub(crate) quantity: i64,
}

/// A SKU's rows with their location's priority (`default`: 0), by bucket.
const SQL_ROWS: &str = "SELECT st.bucket, st.location, COALESCE(lo.priority, 0) AS priority, st.on_hand, st.held
   FROM stock st LEFT JOIN locations lo ON lo.tenant = st.tenant AND lo.location = st.location
  WHERE st.tenant = ?2 AND st.sku = ?1 ORDER BY st.bucket";

/// The rows of `sku`; `not_found` or `invalid_request` (unit-tracked) when it has none.
fn read_rows(tx: &Connection, tenant: &str, sku: &str) -> Result<Vec<RowLevel>> {
    let rows: Vec<RowLevel> = tx
        .prepare_cached(SQL_ROWS)
        .and_then(|mut s| {
            s.query_map([sku, tenant], |r| {
                Ok(RowLevel {
                    bucket: r.get::<_, i64>("bucket")? as u32,
                    location: r.get("location")?,
                    priority: r.get("priority")?,
                    on_hand: r.get("on_hand")?,
                    held: r.get("held")?,
                })
            })?
            .collect()
        })
        .map_err(map_error)?;
    if rows.is_empty() {
        return Err(match tracks_units(tx, tenant, sku)? {
            Some(true) => AllotError::wrong_tracking(sku, true),
            _ => AllotError::not_found("sku", sku),
        });
    }
    Ok(rows)
}

/// Take `line` of `req` with its placement inside the write transaction. Over rows at
/// several locations with something held, overdue holds on the SKU are finalised first
/// ([`allot_core::location::holds_may_steer`]). A short line first
/// finalises overdue holds on its SKU (inside this transaction, so a failing request still
/// changes nothing) and tries once more; then it is `insufficient_stock` with what the rows
/// it may use had.
pub(crate) fn take_line(
    tx: &Connection,
    tenant: &str,
    req: &AllocationRequest,
    line: &AllocationLine,
    take: Take,
    now_us: i64,
) -> Result<Vec<Piece>> {
    for pass in 0..2 {
        let mut rows = read_rows(tx, tenant, &line.sku)?;
        let steer = holds_may_steer(rows.iter().map(|r| (r.location.as_str(), r.held)), req.rule(line));
        if pass == 0 && steer && expire_overdue_on(tx, tenant, &line.sku, now_us)? > 0 {
            rows = read_rows(tx, tenant, &line.sku)?;
        }
        let order = row_order(&rows, req.rule(line), 0);
        if let Some(plan) = plan_take(&rows, &order, line.quantity, req.allow_split) {
            return write_plan(tx, tenant, &line.sku, &rows, &plan, take);
        }
        if pass == 1 || expire_overdue_on(tx, tenant, &line.sku, now_us)? == 0 {
            return Err(AllotError::InsufficientStock {
                sku: line.sku.clone(),
                requested: line.quantity,
                available: available_in(&rows, &order),
            });
        }
    }
    unreachable!("the second pass returns")
}

/// Write each piece of `plan` as a relative UPDATE that still checks what is available.
fn write_plan(
    tx: &Connection,
    tenant: &str,
    sku: &str,
    rows: &[RowLevel],
    plan: &[(usize, i64)],
    take: Take,
) -> Result<Vec<Piece>> {
    let sql = match take {
        Take::Allocate => {
            "UPDATE stock SET on_hand = on_hand - ?3, version = version + 1
              WHERE tenant = ?4 AND sku = ?1 AND bucket = ?2 AND on_hand - held >= ?3"
        }
        Take::Hold => {
            "UPDATE stock SET held = held + ?3, version = version + 1
              WHERE tenant = ?4 AND sku = ?1 AND bucket = ?2 AND on_hand - held >= ?3"
        }
    };
    let mut pieces = Vec::with_capacity(plan.len());
    for &(i, q) in plan {
        let b = i64::from(rows[i].bucket);
        let n = tx
            .prepare_cached(sql)
            .and_then(|mut s| s.execute(params![sku, b, q, tenant]))
            .map_err(map_error)?;
        if n != 1 {
            return Err(AllotError::Internal(format!(
                "{sku}: bucket {b} changed under the writer"
            )));
        }
        pieces.push(Piece {
            bucket: b,
            location: rows[i].location.clone(),
            quantity: q,
        });
    }
    Ok(pieces)
}

/// Take every line of `req` in SKU order inside the write transaction; the pieces of each.
pub(crate) fn take_lines(
    tx: &Connection,
    tenant: &str,
    req: &AllocationRequest,
    take: Take,
    now_us: i64,
) -> Result<Vec<Vec<Piece>>> {
    req.lines
        .iter()
        .map(|line| take_line(tx, tenant, req, line, take, now_us))
        .collect()
}

/// What `line` of `req` can take now when it may owe the rest (the backorder path, after
/// [`take_line`] found it short): what its placement gives of the rows
/// ([`allot_core::backorder::partial_take`]), written. Returns the pieces and what the line
/// is short of them.
pub(crate) fn take_what_there_is(
    tx: &Connection,
    tenant: &str,
    req: &AllocationRequest,
    line: &AllocationLine,
) -> Result<(Vec<Piece>, i64)> {
    let rows = read_rows(tx, tenant, &line.sku)?;
    let order = row_order(&rows, req.rule(line), 0);
    let plan = allot_core::backorder::partial_take(&rows, &order, line.quantity);
    let got: i64 = plan.iter().map(|&(_, q)| q).sum();
    Ok((
        write_plan(tx, tenant, &line.sku, &rows, &plan, Take::Allocate)?,
        line.quantity - got,
    ))
}

/// A line as answered: what came from each location.
pub(crate) fn answered(line: &AllocationLine, pieces: &[Piece]) -> AllocationLine {
    let mut l = line.clone();
    l.from = allot_core::location::sources(pieces.iter().map(|p| (p.location.as_str(), p.quantity)));
    l
}
