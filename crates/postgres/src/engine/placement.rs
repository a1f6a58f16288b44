//! Taking a line from a SKU's stock rows across its locations, with every stock strategy
//! (docs/internals.md, "Strategies"; placement: `allot_core::location`). The rows are read once
//! (locked first for `pessimistic`), the core orders them by the line's placement, and then:
//! - the conditional strategies (`atomic`, `segmented`, and the database side of `batched`,
//!   `redis_counter`, `redis_lock`) try a conditional relative UPDATE on each row in that
//!   order — the whole line on the first row that has it, or with `allow_split` as much as
//!   each row has (the row locked by the UPDATE's own CTE, so what it took is exact);
//! - `pessimistic`, `optimistic` and `naive` plan the take in the core on what they read and
//!   write it: relative under the lock, conditional on the version read (another version is a
//!   conflict to retry), or as an absolute value (lost updates oversell: it exists to show it).

use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::tx::{TxErr, TxResult};
use allot_core::location::{available_in, holds_may_steer, plan_take, row_order, RowLevel};
use allot_core::{AllocationLine, AllocationRequest, AllotError, Strategy};

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
    pub(crate) bucket: i32,
    pub(crate) location: String,
    pub(crate) quantity: i64,
}

/// The pieces a request took, flattened to the columns of its `unnest` writes: per piece,
/// its line's SKU, bucket, quantity and location, lines in order.
pub(crate) struct PieceColumns<'a> {
    pub(crate) skus: Vec<&'a str>,
    pub(crate) buckets: Vec<i32>,
    pub(crate) quantities: Vec<i64>,
    pub(crate) locations: Vec<&'a str>,
}

impl<'a> PieceColumns<'a> {
    /// The columns of `taken` (each line's pieces), the lines' SKUs in `skus`.
    pub(crate) fn of(skus: impl Iterator<Item = &'a str>, taken: &'a [Vec<Piece>]) -> Self {
        let pieces: Vec<(&str, &Piece)> = skus
            .zip(taken)
            .flat_map(|(sku, ps)| ps.iter().map(move |p| (sku, p)))
            .collect();
        PieceColumns {
            skus: pieces.iter().map(|(s, _)| *s).collect(),
            buckets: pieces.iter().map(|(_, p)| p.bucket).collect(),
            quantities: pieces.iter().map(|(_, p)| p.quantity).collect(),
            locations: pieces.iter().map(|(_, p)| p.location.as_str()).collect(),
        }
    }
}

/// A SKU's rows with their location's priority (`default` and unknown names: 0), by bucket.
/// `$1` sku, `$2` tenant.
const SQL_ROWS: &str =
    "SELECT st.bucket, st.location, COALESCE(lo.priority, 0) AS priority, st.on_hand, st.held, st.version
   FROM stock st LEFT JOIN locations lo ON lo.tenant = st.tenant AND lo.location = st.location
  WHERE st.tenant = $2 AND st.sku = $1 ORDER BY st.bucket";
const SQL_LOCK_ROWS: &str =
    "SELECT st.bucket, st.location, COALESCE(lo.priority, 0) AS priority, st.on_hand, st.held, st.version
   FROM stock st LEFT JOIN locations lo ON lo.tenant = st.tenant AND lo.location = st.location
  WHERE st.tenant = $2 AND st.sku = $1 ORDER BY st.bucket FOR UPDATE OF st";
pub(crate) const SQL_BUCKETS: &str = "SELECT buckets, tracking = 'units' FROM skus WHERE tenant = $2 AND sku = $1";

// The row writes take (sku, bucket, quantity or value[, version]) and the tenant last.
const SQL_TAKE_CONDITIONAL: &str = "UPDATE stock SET on_hand = on_hand - $3, version = version + 1
     WHERE tenant = $4 AND sku = $1 AND bucket = $2 AND on_hand - held >= $3";
const SQL_HOLD_CONDITIONAL: &str = "UPDATE stock SET held = held + $3, version = version + 1
     WHERE tenant = $4 AND sku = $1 AND bucket = $2 AND on_hand - held >= $3";
/// The conditional take of one row that skips it when another transaction has it locked
/// (and so never waits, and holds no lock when it takes nothing).
macro_rules! unlocked {
    ($set:literal) => {
        concat!(
            "WITH r AS (SELECT 1 FROM stock WHERE tenant = $4 AND sku = $1 AND bucket = $2
                          AND on_hand - held >= $3 FOR UPDATE SKIP LOCKED)
             UPDATE stock SET ",
            $set,
            ", version = version + 1
              WHERE tenant = $4 AND sku = $1 AND bucket = $2 AND EXISTS (SELECT 1 FROM r)"
        )
    };
}
const SQL_TAKE_UNLOCKED: &str = unlocked!("on_hand = on_hand - $3");
const SQL_HOLD_UNLOCKED: &str = unlocked!("held = held + $3");
/// Rows `$3` of a SKU, locked in bucket order (a split's rows, before it plans on them).
const SQL_LOCK_SOME: &str = "SELECT bucket, on_hand, held FROM stock
  WHERE tenant = $2 AND sku = $1 AND bucket = ANY($3) ORDER BY bucket FOR UPDATE";
const SQL_TAKE: &str = "UPDATE stock SET on_hand = on_hand - $3, version = version + 1
     WHERE tenant = $4 AND sku = $1 AND bucket = $2";
const SQL_HOLD: &str = "UPDATE stock SET held = held + $3, version = version + 1
     WHERE tenant = $4 AND sku = $1 AND bucket = $2";
const SQL_TAKE_VERSIONED: &str = "UPDATE stock SET on_hand = on_hand - $3, version = version + 1
     WHERE tenant = $5 AND sku = $1 AND bucket = $2 AND version = $4";
const SQL_HOLD_VERSIONED: &str = "UPDATE stock SET held = held + $3, version = version + 1
     WHERE tenant = $5 AND sku = $1 AND bucket = $2 AND version = $4";
const SQL_TAKE_ABSOLUTE: &str = "UPDATE stock SET on_hand = $3, version = version + 1
     WHERE tenant = $4 AND sku = $1 AND bucket = $2";
const SQL_HOLD_ABSOLUTE: &str = "UPDATE stock SET held = $3, version = version + 1
     WHERE tenant = $4 AND sku = $1 AND bucket = $2";

/// The statement of `take`: out of `on_hand` for an allocation, into `held` for a hold.
fn pick(take: Take, alloc: &'static str, hold: &'static str) -> &'static str {
    if take == Take::Hold {
        hold
    } else {
        alloc
    }
}

/// A row as read, with its version.
struct ReadRow {
    level: RowLevel,
    version: i64,
}

/// The rows of `sku` (locked when `lock`); `not_found` or `invalid_request` (unit-tracked)
/// when it has none.
async fn read_rows(tx: &Transaction<'_>, tenant: &str, sku: &str, lock: bool) -> TxResult<Vec<ReadRow>> {
    let stmt = tx.prepare_cached(if lock { SQL_LOCK_ROWS } else { SQL_ROWS }).await?;
    let rows: Vec<ReadRow> = tx
        .query(&stmt, &[&sku, &tenant])
        .await?
        .iter()
        .map(|r| ReadRow {
            level: RowLevel {
                bucket: r.get::<_, i32>("bucket") as u32,
                location: r.get("location"),
                priority: r.get("priority"),
                on_hand: r.get("on_hand"),
                held: r.get("held"),
            },
            version: r.get("version"),
        })
        .collect();
    if rows.is_empty() {
        let stmt = tx.prepare_cached(SQL_BUCKETS).await?;
        return Err(TxErr::Fail(match tx.query_opt(&stmt, &[&sku, &tenant]).await? {
            Some(r) if r.get::<_, bool>(1) => AllotError::wrong_tracking(sku, true),
            _ => AllotError::not_found("sku", sku),
        }));
    }
    Ok(rows)
}

/// Most tries of one line on rows read anew, when a take failed on rows that changed after
/// they were read (see [`take_line`]); past them the line is `409 contention`.
pub(crate) const MAX_LINE_TRIES: u32 = 4;

/// Take `line` of `req` with its strategy and placement inside `tx`. Returns the pieces in
/// the order taken. A short line is `insufficient_stock`, or [`TxErr::Overdue`] when overdue
/// holds on its SKU could be finalised first.
///
/// A refusal names what the line could use at one moment that shows it: the rows as read
/// after the take failed (locked rows as they are; others read again, a new snapshot under
/// READ COMMITTED). A conditional UPDATE decides on the row's newest version while the plan
/// was made on an earlier read: when the rows read again would bear the line (stock came back
/// meanwhile), the line is tried again instead of refused with a figure that contradicts the
/// refusal — the faults phase of `allot sim` found `atomic` refusing 2 with `available: 4`.
pub(crate) async fn take_line(
    tx: &Transaction<'_>,
    tenant: &str,
    req: &AllocationRequest,
    line: &AllocationLine,
    take: Take,
    now: chrono::DateTime<chrono::Utc>,
) -> TxResult<Vec<Piece>> {
    let locked = req.strategy == Strategy::Pessimistic;
    let mut read = read_rows(tx, tenant, &line.sku, locked).await?;
    steered(tx, tenant, (&line.sku, req.rule(line)), &read, now).await?;
    for tries in 1..=MAX_LINE_TRIES {
        if let Some(pieces) = take_once(tx, tenant, req, line, &read, take).await? {
            return Ok(pieces);
        }
        if !locked {
            read = read_rows(tx, tenant, &line.sku, false).await?;
        }
        let rows: Vec<RowLevel> = read.iter().map(|r| r.level.clone()).collect();
        let order = row_order(&rows, req.rule(line), start_of(req));
        if locked || plan_take(&rows, &order, line.quantity, req.allow_split).is_none() {
            let available = available_in(&rows, &order);
            let seen: i64 = rows.iter().map(RowLevel::available).sum();
            let figures = (Some(available), Some(seen));
            return Err(short_line(tx, tenant, (&line.sku, take), line.quantity, figures, now).await);
        }
        if tries == MAX_LINE_TRIES {
            break;
        }
    }
    Err(TxErr::Fail(AllotError::Contention {
        attempts: MAX_LINE_TRIES,
        retry_after_ms: 10,
    }))
}

/// [`TxErr::Overdue`] when overdue holds on `sku` still count in rows `read` where they could
/// steer a line placed by `rule` ([`allot_core::location::holds_may_steer`]): the caller
/// finalises them and runs again at the same `now` (so the check then finds none), and an
/// expired hold stops counting for where a line goes as for whether it fits. One more
/// statement only for a line with several locations to use and something held there. Past
/// the expiry passes' bound (only with more overdue holds than one pass finalises) the
/// answer is `409 contention`.
async fn steered(
    tx: &Transaction<'_>,
    tenant: &str,
    (sku, rule): (&str, allot_core::location::LineRule<'_>),
    read: &[ReadRow],
    now: chrono::DateTime<chrono::Utc>,
) -> TxResult<()> {
    if !holds_may_steer(read.iter().map(|r| (r.level.location.as_str(), r.level.held)), rule) {
        return Ok(());
    }
    let stmt = tx.prepare_cached(SQL_SHORT).await?;
    if !tx.query_one(&stmt, &[&sku, &now, &tenant]).await?.get::<_, bool>(1) {
        return Ok(());
    }
    Err(TxErr::Overdue {
        tenant: tenant.to_string(),
        sku: sku.to_string(),
        err: AllotError::Contention {
            attempts: crate::engine::tx::MAX_EXPIRY_PASSES as u32,
            retry_after_ms: 10,
        },
    })
}

/// Where a line's row order starts: `segmented` at the bucket the request's hash names.
fn start_of(req: &AllocationRequest) -> u64 {
    if req.strategy == Strategy::Segmented {
        req.spread_hash >> 1
    } else {
        0
    }
}

/// One try of `line` on the rows as `read`: the pieces, or `None` when the line does not fit.
async fn take_once(
    tx: &Transaction<'_>,
    tenant: &str,
    req: &AllocationRequest,
    line: &AllocationLine,
    read: &[ReadRow],
    take: Take,
) -> TxResult<Option<Vec<Piece>>> {
    let rows: Vec<RowLevel> = read.iter().map(|r| r.level.clone()).collect();
    let order = row_order(&rows, req.rule(line), start_of(req));
    Ok(match req.strategy {
        Strategy::Pessimistic | Strategy::Optimistic | Strategy::Naive => {
            match plan_take(&rows, &order, line.quantity, req.allow_split) {
                Some(plan) => Some(write_plan(tx, tenant, req.strategy, line, read, &plan, take).await?),
                None => None,
            }
        }
        Strategy::Serialized => unreachable!("refused by supports()"),
        // `batched` on a lane's own store (what its batch deferred) takes this path too.
        _ => take_conditional(tx, tenant, line, &rows, &order, req.allow_split, take).await?,
    })
}

/// The conditional strategies. A line with one candidate row: one conditional relative
/// UPDATE (a hot SKU at one location: the row is locked only by the UPDATE that takes from
/// it). A line with several: first the rows of its first location, each tried with a
/// conditional UPDATE that skips a locked row instead of waiting for it (so a try that fails
/// holds no lock: an UPDATE that waited and whose re-check failed would keep the row locked,
/// PostgreSQL docs 13.3.2); when none of them takes the whole line, every candidate row is
/// locked in bucket order (the global order: no deadlock with another request's placement
/// order), the core plans on what they hold then, and the plan is written relative. So
/// placement across locations is exact, and only the choice among one location's buckets
/// is free. `None`: short.
async fn take_conditional(
    tx: &Transaction<'_>,
    tenant: &str,
    line: &AllocationLine,
    rows: &[RowLevel],
    order: &[usize],
    split: bool,
    take: Take,
) -> TxResult<Option<Vec<Piece>>> {
    let piece = |i: usize, quantity| Piece {
        bucket: rows[i].bucket as i32,
        location: rows[i].location.clone(),
        quantity,
    };
    let Some(&first) = order.first() else {
        return Ok(None);
    };
    let single = order.len() == 1;
    let sql = if single {
        pick(take, SQL_TAKE_CONDITIONAL, SQL_HOLD_CONDITIONAL)
    } else {
        pick(take, SQL_TAKE_UNLOCKED, SQL_HOLD_UNLOCKED)
    };
    let stmt = tx.prepare_cached(sql).await?;
    for &i in order.iter().take_while(|&&i| rows[i].location == rows[first].location) {
        let b = rows[i].bucket as i32;
        if tx.execute(&stmt, &[&line.sku, &b, &line.quantity, &tenant]).await? == 1 {
            return Ok(Some(vec![piece(i, line.quantity)]));
        }
    }
    if single {
        return Ok(None);
    }
    let buckets: Vec<i32> = order.iter().map(|&i| rows[i].bucket as i32).collect();
    let stmt = tx.prepare_cached(SQL_LOCK_SOME).await?;
    let mut locked = rows.to_vec();
    for r in tx.query(&stmt, &[&line.sku, &tenant, &buckets]).await? {
        if let Some(row) = locked.iter_mut().find(|x| x.bucket as i32 == r.get::<_, i32>("bucket")) {
            (row.on_hand, row.held) = (r.get("on_hand"), r.get("held"));
        }
    }
    let Some(plan) = plan_take(&locked, order, line.quantity, split) else {
        return Ok(None);
    };
    let stmt = tx.prepare_cached(pick(take, SQL_TAKE, SQL_HOLD)).await?;
    let mut pieces = Vec::with_capacity(plan.len());
    for (i, q) in plan {
        let b = rows[i].bucket as i32;
        tx.execute(&stmt, &[&line.sku, &b, &q, &tenant]).await?;
        pieces.push(piece(i, q));
    }
    Ok(Some(pieces))
}

/// Write a plan made on the rows read: relative (`pessimistic`, rows locked), conditional on
/// the version (`optimistic`: another version is [`TxErr::VersionConflict`]), or absolute
/// (`naive`). The rows are written in bucket order (the global lock order: a split written
/// in placement order could deadlock with another); the pieces come back in placement order.
async fn write_plan(
    tx: &Transaction<'_>,
    tenant: &str,
    strategy: Strategy,
    line: &AllocationLine,
    read: &[ReadRow],
    plan: &[(usize, i64)],
    take: Take,
) -> TxResult<Vec<Piece>> {
    let mut writes = plan.to_vec();
    writes.sort_by_key(|&(i, _)| read[i].level.bucket);
    for &(i, q) in &writes {
        let r = &read[i];
        let b = r.level.bucket as i32;
        match strategy {
            Strategy::Pessimistic => {
                let stmt = tx.prepare_cached(pick(take, SQL_TAKE, SQL_HOLD)).await?;
                tx.execute(&stmt, &[&line.sku, &b, &q, &tenant]).await?;
            }
            Strategy::Optimistic => {
                let stmt = tx
                    .prepare_cached(pick(take, SQL_TAKE_VERSIONED, SQL_HOLD_VERSIONED))
                    .await?;
                if tx.execute(&stmt, &[&line.sku, &b, &q, &r.version, &tenant]).await? == 0 {
                    return Err(TxErr::VersionConflict);
                }
            }
            _ => {
                let stmt = tx
                    .prepare_cached(pick(take, SQL_TAKE_ABSOLUTE, SQL_HOLD_ABSOLUTE))
                    .await?;
                let value = if take == Take::Hold {
                    r.level.held + q
                } else {
                    r.level.on_hand - q
                };
                tx.execute(&stmt, &[&line.sku, &b, &value, &tenant]).await?;
            }
        }
    }
    Ok(plan
        .iter()
        .map(|&(i, q)| Piece {
            bucket: read[i].level.bucket as i32,
            location: read[i].level.location.clone(),
            quantity: q,
        })
        .collect())
}

/// Take `line` of `req` for the backorder path ([`crate::stock::backorders`]): its SKU's rows
/// locked in bucket order (the global order), the whole line as its placement has it when
/// it fits, else what there is ([`allot_core::backorder::partial_take`]); written relative
/// under the lock. Overdue holds that could steer it or that it is short by are finalised
/// first ([`TxErr::Overdue`], as [`take_line`] does). Returns the pieces, what the line is
/// short of them, and what the rows it may use have (a refusal's `available`).
pub(crate) async fn take_what_there_is(
    tx: &Transaction<'_>,
    tenant: &str,
    req: &AllocationRequest,
    line: &AllocationLine,
    now: chrono::DateTime<chrono::Utc>,
) -> TxResult<(Vec<Piece>, i64, i64)> {
    let read = read_rows(tx, tenant, &line.sku, true).await?;
    steered(tx, tenant, (&line.sku, req.rule(line)), &read, now).await?;
    let rows: Vec<RowLevel> = read.iter().map(|r| r.level.clone()).collect();
    let order = row_order(&rows, req.rule(line), start_of(req));
    let available = available_in(&rows, &order);
    let plan = match plan_take(&rows, &order, line.quantity, req.allow_split) {
        Some(plan) => plan,
        None => {
            let seen = Some(rows.iter().map(RowLevel::available).sum());
            match short_line(tx, tenant, (&line.sku, Take::Hold), line.quantity, (None, seen), now).await {
                TxErr::Fail(AllotError::InsufficientStock { .. }) => {}
                finalise_or_again => return Err(finalise_or_again),
            }
            allot_core::backorder::partial_take(&rows, &order, line.quantity)
        }
    };
    let got: i64 = plan.iter().map(|&(_, q)| q).sum();
    let pieces = write_plan(tx, tenant, Strategy::Pessimistic, line, &read, &plan, Take::Allocate).await?;
    Ok((pieces, line.quantity - got, available))
}

/// A line as answered: what came from each location.
pub(crate) fn answered(line: &AllocationLine, pieces: &[Piece]) -> AllocationLine {
    let mut l = line.clone();
    l.from = allot_core::location::sources(pieces.iter().map(|p| (p.location.as_str(), p.quantity)));
    l
}

/// A short line's figures: available in the stock rows, whether overdue (not yet
/// finalised) holds still count as held on the SKU, and whether the SKU takes backorders.
/// `$3`: the tenant.
const SQL_SHORT: &str =
    "SELECT COALESCE((SELECT sum(on_hand - held) FROM stock WHERE tenant = $3 AND sku = $1), 0)::int8,
            EXISTS (SELECT 1 FROM hold_lines hl JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
                     WHERE hl.tenant = $3 AND hl.sku = $1 AND h.status = 'held' AND h.expires_at <= $2),
            COALESCE((SELECT backorder_limit > 0 FROM skus WHERE tenant = $3 AND sku = $1), false)";
/// The error of a short line: `insufficient_stock`, or [`TxErr::Overdue`] when overdue
/// holds still count as held on the SKU (the caller expires them and runs again), or
/// [`TxErr::Retry`] when the SKU has more available now than `seen` (its rows' total in the
/// read the refusal rests on): stock came back since that read — an overdue hold finalised
/// by a concurrent request, so the overdue holds this check looks for are gone too, a
/// cancel, an adjustment — and the request runs again rather than be refused on a read the
/// SKU no longer bears out (`allot sim`, seed 6020 on `segmented`: a hold in a batch refused
/// `available: 0` while the batch's allocation of another SKU of the same expired hold
/// finalised it). `available`: what the rows the line could use had (`None`: the SKU's total).
/// An allocation's line (`take`) short on a SKU with a `backorder_limit` is
/// [`TxErr::Backorder`] (no read more: the same statement says it).
pub(crate) async fn short_line<C: Db>(
    c: &C,
    tenant: &str,
    (sku, take): (&str, Take),
    requested: i64,
    (available, seen): (Option<i64>, Option<i64>),
    now: chrono::DateTime<chrono::Utc>,
) -> TxErr {
    let row = match c.prepare_cached(SQL_SHORT).await {
        Ok(stmt) => match c.query_one(&stmt, &[&sku, &now, &tenant]).await {
            Ok(r) => r,
            Err(e) => return e.into(),
        },
        Err(e) => return e.into(),
    };
    let fresh: i64 = row.get(0);
    if seen.is_some_and(|seen| fresh > seen) {
        return TxErr::Retry;
    }
    let err = AllotError::InsufficientStock {
        sku: sku.to_string(),
        requested,
        available: available.unwrap_or(fresh),
    };
    if row.get::<_, bool>(1) {
        TxErr::Overdue {
            tenant: tenant.to_string(),
            sku: sku.to_string(),
            err,
        }
    } else if take == Take::Allocate && row.get::<_, bool>(2) {
        TxErr::Backorder(err)
    } else {
        TxErr::Fail(err)
    }
}

/// Take every line of `req` with its strategy and placement, in SKU order, inside `tx`
/// (see [`crate::engine::placement`]): out of `on_hand` for an allocation, into `held` for a
/// hold. Returns the pieces of each line.
pub(crate) async fn take_lines(
    tx: &crate::engine::conn::Tx<'_>,
    tenant: &str,
    req: &AllocationRequest,
    take: Take,
    now: chrono::DateTime<chrono::Utc>,
) -> TxResult<Vec<Vec<Piece>>> {
    check_fences(tx, tenant, &req.fences).await?;
    let mut taken = Vec::with_capacity(req.lines.len());
    for line in &req.lines {
        taken.push(take_line(tx, tenant, req, line, take, now).await?);
    }
    Ok(taken)
}

/// Record the fencing tokens of a `redis_lock` request on its SKU rows, in SKU order (the
/// rows are locked by the UPDATE), refusing the whole request with `lease_lost` when a token
/// is not newer than the SKU's last one: its lock lapsed and another holder has written since.
/// A SKU that does not exist has no row to fence: its line is refused `not_found` when the
/// lines are taken, in SKU order, so that a short line before it is refused first, as on
/// every other strategy (found by the simulation, seeds 3506 and 3508 of the long run).
pub(crate) async fn check_fences(
    tx: &crate::engine::conn::Tx<'_>,
    tenant: &str,
    fences: &[(String, i64)],
) -> TxResult<()> {
    if fences.is_empty() {
        return Ok(());
    }
    let mut sorted: Vec<&(String, i64)> = fences.iter().collect();
    sorted.sort();
    let stmt = tx
        .prepare_cached(
            "WITH upd AS (UPDATE skus SET fence = $2 WHERE tenant = $3 AND sku = $1 AND fence < $2 RETURNING 1)
             SELECT (SELECT count(*) FROM upd), EXISTS (SELECT 1 FROM skus WHERE tenant = $3 AND sku = $1)",
        )
        .await?;
    for (sku, token) in sorted {
        let row = tx.query_one(&stmt, &[sku, token, &tenant]).await?;
        if row.get::<_, i64>(0) == 1 {
            continue;
        }
        if !row.get::<_, bool>(1) {
            continue;
        }
        return Err(TxErr::Fail(AllotError::Fenced {
            sku: sku.clone(),
            token: *token,
        }));
    }
    Ok(())
}
