//! One batch transaction as a type whose methods are its phases, in order: idempotency keys,
//! hold rows, stock rows (read without a lock first where the batch may be decided that way:
//! [`Read::Optimistic`]), the core's evaluation, the context of refusals, the writes, the
//! commit. Every phase fills `outcomes` for the requests it decides; a request still `None`
//! after the last phase would be a bug (`expect`).
//!
//! The transaction is begun and committed by hand so that `BEGIN` travels with the first
//! query and `COMMIT` with the write (two round trips for a batch of allocations and new holds
//! without idempotency keys; one more when it finishes holds, or when its optimistic read
//! shows it must lock after all).

mod mixed;

use super::writes::{Writes, SQL_BATCH_WRITE, SQL_BATCH_WRITE_UNLOCKED, SQL_HOLD_EVENTS, SQL_MIXED_HOLDS};
use crate::engine::combiner::{Answer, Op, Pending};
use crate::engine::conn::{Conn, Db, Stmt};
use crate::engine::flat::Go;
use crate::engine::pipeline::{begin_with, commit, commit_with, Ended};
use crate::engine::tx::{idempotency_lock_id, IDEMPOTENCY_LOCK_CLASS};
use allot_core::batch::{
    evaluate, spread, Balance, Balances, BatchLine, BatchOp, BatchResult as Evaluation, OpKind, Placed, Refusal,
};
use allot_core::hold::{HoldKind, HoldStatus};
use allot_core::idempotency::{decide, KeyDecision, StoredKey};
use allot_core::store::StoredResponse;
use allot_core::TakenWith;
use allot_core::{Allocation, AllocationLine, AllocationStatus, AllotError, Hold, Placement};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use tokio_postgres::error::SqlState;
use tokio_postgres::{Error, Row};

type Param = dyn tokio_postgres::types::ToSql + Sync;

/// The rows of the holds a batch confirms or releases, locked in id order (before any stock
/// row: the lock order of every hold finish).
/// (Every statement here takes the batch's tenant as its last parameter.)
const SQL_LOCK_HOLDS: &str = "SELECT id, kind, status, strategy, lines, expires_at, created_at
   FROM holds WHERE tenant = $2 AND id = ANY($1) ORDER BY id FOR UPDATE";
const SQL_TRY_LOCK_KEYS: &str =
    "SELECT pg_try_advisory_xact_lock($1, o) FROM unnest($2::int4[]) WITH ORDINALITY AS t(o, n) ORDER BY n";
const SQL_STORED_KEYS: &str =
    "SELECT key, fingerprint, status, body FROM idempotency_keys WHERE tenant = $2 AND key = ANY($1)";
/// The stock rows of SKUs `$1`, in (sku, bucket) order, with their locations' priorities.
macro_rules! stock_rows {
    () => {
        "SELECT st.sku, st.bucket, st.on_hand, st.held, st.location, COALESCE(lo.priority, 0) AS priority
   FROM stock st LEFT JOIN locations lo ON lo.tenant = st.tenant AND lo.location = st.location
  WHERE st.tenant = $2 AND st.sku = ANY($1) ORDER BY st.sku, st.bucket"
    };
}
const SQL_LOCK_STOCK: &str = concat!(stock_rows!(), " FOR UPDATE OF st");
const SQL_READ_STOCK: &str = stock_rows!();
const SQL_UNIT_SKUS: &str = "SELECT sku FROM skus WHERE tenant = $2 AND sku = ANY($1) AND tracking = 'units'";
const SQL_OVERDUE_SKUS: &str = "SELECT DISTINCT hl.sku FROM hold_lines hl
   JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
  WHERE hl.tenant = $3 AND hl.sku = ANY($1) AND h.status = 'held' AND h.expires_at <= $2";
/// Of the short SKUs `$1` (tenant `$3`, now `$2`): whether overdue holds still count as held
/// on each, and whether it takes backorders.
const SQL_SHORT_SKUS: &str = "SELECT s.sku,
       EXISTS (SELECT 1 FROM hold_lines hl JOIN holds h ON h.tenant = hl.tenant AND h.id = hl.hold_id
                WHERE hl.tenant = $3 AND hl.sku = s.sku AND h.status = 'held' AND h.expires_at <= $2),
       s.backorder_limit > 0
  FROM skus s WHERE s.tenant = $3 AND s.sku = ANY($1)";

/// What the refusals of a batch need to be told apart (see `Batch::refusal_context`): the
/// unknown SKUs that are unit-tracked, the short ones with overdue holds, the short ones that
/// take backorders.
#[derive(Default)]
struct RefusalContext {
    unit_skus: HashSet<String>,
    overdue: HashSet<String>,
    backorders: HashSet<String>,
}

/// How a batch reads its stock rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Read {
    /// Without a lock (optimistic concurrency control: Kung and Robinson, "On optimistic
    /// methods for concurrency control", TODS 1981): a batch of allocations and new holds
    /// only, all on one SKU of one stock row (a hot SKU), where every request fits what was
    /// read, writes its other records first, then its stock row, then its ledger, with a
    /// relative change that the stock table's CHECKs refuse should it oversell. The row lock
    /// is then held only from that UPDATE to `COMMIT`, so the batches of a lane write their
    /// records side by side. One row only: an UPDATE of several would lock them in its join's order,
    /// not the (sku, bucket) order every other writer keeps. A batch of several SKUs locks
    /// first without reading; one that finds several rows, or a request that does not fit,
    /// goes on as [`Read::Locking`] in the same transaction.
    Optimistic,
    /// `SELECT … FOR UPDATE` before deciding anything.
    Locking,
}

/// How a batch transaction failed; nothing of it was applied.
#[derive(Debug)]
pub(super) enum Failed {
    /// A database error (the lane runs the batch again on 40001/40P01).
    Db(Error),
    /// A [`Read::Optimistic`] batch found, writing its stock rows, that they no longer held
    /// what it took (23514), or not all of them: it must run again as [`Read::Locking`].
    Raced,
}

impl From<Error> for Failed {
    fn from(e: Error) -> Self {
        Failed::Db(e)
    }
}

/// How a request of the batch ends, before commit.
pub(super) enum Outcome {
    Fresh(Answer),
    Replayed(StoredResponse),
    Fail(AllotError),
    /// Short while overdue holds count as held on `sku`: expire them, run it again.
    Overdue(String, AllotError),
    /// Not decided by the batch: run it on the per-request path after the commit.
    Deferred,
}

/// A hold a request of the batch may finish, as locked.
struct LockedHold {
    status: HoldStatus,
    strategy: TakenWith,
    lines: Vec<AllocationLine>,
    lines_json: serde_json::Value,
    expires_at: DateTime<Utc>,
    created_at: DateTime<Utc>,
    stock: bool,
}

/// One batch transaction in progress.
struct BatchTx<'a> {
    tx: &'a Conn,
    tenant: String,
    batch: &'a [Pending],
    now: DateTime<Utc>,
    /// The tenant's ledger sequence (OID): the batch draws its ledger ids itself.
    ledger_sequence: u32,
    begun: bool,
    outcomes: Vec<Option<Outcome>>,
    holds: HashMap<String, LockedHold>,
    rows: BTreeMap<String, Vec<LockedRow>>,
    /// The unit and booking lines the batch's mixed holds took, by request ([`mixed`]).
    parts: HashMap<usize, mixed::Parts>,
}

/// One stock row as the batch read it (locked, or not: [`Read`]).
#[derive(Debug)]
struct LockedRow {
    bucket: u32,
    on_hand: i64,
    held: i64,
    location: String,
    priority: i32,
}

/// Run one batch transaction on `tx` (every request of `batch` is of one tenant) at `now`,
/// drawing ledger ids from `ledger_sequence`, reading its stock rows as `read` says; the
/// outcome of every request, in order. `go` is sent (taken) once the batch holds its stock
/// rows, or has read them without a lock: the lane's next batch may begin. `several_rows` is
/// set to the SKU an optimistic read found with several stock rows (buckets or locations),
/// which it will always have: the lane then locks its batches at once.
pub(super) async fn batch_tx(
    tx: &Conn,
    batch: &[Pending],
    (now, ledger_sequence, read): (DateTime<Utc>, u32, Read),
    (go, several_rows): (&mut Option<Go>, &mut Option<String>),
) -> std::result::Result<Vec<Outcome>, Failed> {
    let tenant = batch
        .first()
        .map_or(allot_core::access::DEFAULT_TENANT, |p| p.tenant.as_str())
        .to_string();
    let mut b = BatchTx {
        tx,
        tenant,
        batch,
        now,
        ledger_sequence,
        begun: false,
        outcomes: (0..batch.len()).map(|_| None).collect(),
        holds: HashMap::new(),
        rows: BTreeMap::new(),
        parts: HashMap::new(),
    };
    b.idempotency_keys().await?;
    b.lock_holds().await?;
    b.defer_unfit_finishes();
    if read == Read::Optimistic && b.only_takes_from_one_sku() {
        let decided = b.optimistic(go).await?;
        *several_rows = b
            .rows
            .iter()
            .find(|(_, rows)| rows.len() > 1)
            .map(|(sku, _)| sku.clone());
        if let Some(w) = decided {
            return match b.write_and_commit(&w, Read::Optimistic).await {
                Err(Ended::Refused(e)) if raced(&e) => Err(Failed::Raced),
                ended => b.ended(ended),
            };
        }
    }
    b.lock_stock().await?;
    if let Some(go) = go.take() {
        let _ = go.send(());
    }
    b.defer_steered().await?;
    let (open, result) = b.evaluate_mixed().await?;
    let context = b.refusal_context(&result).await?;
    let mut w = b.net_changes(&result);
    for (n, &i) in open.iter().enumerate() {
        let outcome = match &result.outcomes[n] {
            Ok(placed) => Outcome::Fresh(b.record(i, placed, &mut w)),
            Err(refusal) => b.refused(i, refusal, &context),
        };
        b.outcomes[i] = Some(outcome);
    }
    let ended = b.write_and_commit(&w, Read::Locking).await;
    b.ended(ended)
}

impl BatchTx<'_> {
    /// Run `stmt` with `params`, sending `BEGIN` in the same round trip unless begun.
    async fn query_begin(&mut self, stmt: &Stmt, params: &[&Param]) -> std::result::Result<Vec<Row>, Error> {
        if self.begun {
            return self.tx.query(stmt, params).await;
        }
        self.begun = true;
        begin_with(self.tx, "BEGIN", self.tx.query(stmt, params)).await
    }

    /// Requests not decided yet, by index.
    fn open(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.batch.len()).filter(|&i| self.outcomes[i].is_none())
    }

    /// Idempotency keys: try-lock all (a busy one is another request still running: in use),
    /// then read the stored responses, in two statements. A key twice in one batch: the
    /// second is in use.
    async fn idempotency_keys(&mut self) -> std::result::Result<(), Error> {
        let batch = self.batch;
        let key_of = |i: usize| batch[i].op.idem_key();
        let mut seen = HashSet::new();
        let mut lock_idx = Vec::new();
        for i in 0..batch.len() {
            let Some((key, _)) = key_of(i) else { continue };
            if seen.insert(key) {
                lock_idx.push(i);
            } else {
                self.outcomes[i] = Some(Outcome::Fail(AllotError::IdempotencyKeyInUse));
            }
        }
        if lock_idx.is_empty() {
            return Ok(());
        }
        let keys: Vec<&str> = lock_idx.iter().filter_map(|&i| key_of(i)).map(|k| k.0).collect();
        let objids: Vec<i32> = keys.iter().map(|k| idempotency_lock_id(&self.tenant, k)).collect();
        let stmt = self.tx.prepare_cached(SQL_TRY_LOCK_KEYS).await?;
        let got: Vec<bool> = self
            .query_begin(&stmt, &[&IDEMPOTENCY_LOCK_CLASS, &objids])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let stmt = self.tx.prepare_cached(SQL_STORED_KEYS).await?;
        let stored: HashMap<String, (String, i32, Vec<u8>)> = self
            .tx
            .query(&stmt, &[&keys, &self.tenant])
            .await?
            .iter()
            .map(|r| (r.get("key"), (r.get("fingerprint"), r.get("status"), r.get("body"))))
            .collect();
        for (n, &i) in lock_idx.iter().enumerate() {
            let Some((key, fingerprint)) = key_of(i) else { continue };
            let record = stored.get(key).map(|(fp, status, body)| StoredKey {
                fingerprint: fp.clone(),
                response: StoredResponse {
                    code: *status as u16,
                    body: body.clone(),
                },
            });
            self.outcomes[i] = match decide(got[n], record, fingerprint) {
                KeyDecision::Run => None,
                KeyDecision::Replay(response) => Some(Outcome::Replayed(response)),
                KeyDecision::Refuse(e) => Some(Outcome::Fail(e)),
            };
        }
        Ok(())
    }

    /// The holds to finish: their rows first, locked in id order. An unreadable row is left
    /// out (the per-request path reports it).
    async fn lock_holds(&mut self) -> std::result::Result<(), Error> {
        let ids: Vec<String> = self
            .open()
            .filter_map(|i| match &self.batch[i].op {
                Op::Confirm { id, .. } | Op::Release { id, .. } => Some(id.clone()),
                _ => None,
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if ids.is_empty() {
            return Ok(());
        }
        let stmt = self.tx.prepare_cached(SQL_LOCK_HOLDS).await?;
        let tenant = self.tenant.clone();
        for r in self.query_begin(&stmt, &[&ids, &tenant]).await? {
            let lines_json: serde_json::Value = r.get("lines");
            let (Some(status), Some(strategy), Ok(lines)) = (
                HoldStatus::parse(r.get("status")),
                TakenWith::parse(r.get("strategy")),
                serde_json::from_value::<Vec<AllocationLine>>(lines_json.clone()),
            ) else {
                continue;
            };
            let hold = LockedHold {
                status,
                strategy,
                lines,
                lines_json,
                expires_at: r.get("expires_at"),
                created_at: r.get("created_at"),
                stock: HoldKind::parse(r.get("kind")) == Some(HoldKind::Stock),
            };
            self.holds.insert(r.get("id"), hold);
        }
        Ok(())
    }

    /// A finish the batch can make: a stock hold, `held` and unexpired, not finished by an
    /// earlier request of this batch. The rest are deferred (or, without a row, not found
    /// by the per-request path).
    fn defer_unfit_finishes(&mut self) {
        let mut finishing = HashSet::new();
        for i in self.open().collect::<Vec<_>>() {
            if let Op::Confirm { id, .. } | Op::Release { id, .. } = &self.batch[i].op {
                let fits = self
                    .holds
                    .get(id)
                    .is_some_and(|h| h.stock && h.status == HoldStatus::Held && h.expires_at > self.now);
                if !fits || !finishing.insert(id.clone()) {
                    self.outcomes[i] = Some(Outcome::Deferred);
                }
            }
        }
    }

    /// The lines request `i` moves.
    fn lines_of(&self, i: usize) -> &[AllocationLine] {
        match &self.batch[i].op {
            Op::Allocate { req, .. } => &req.lines,
            Op::Hold { req, .. } => &req.take.lines,
            Op::Confirm { id, .. } | Op::Release { id, .. } => &self.holds[id].lines,
        }
    }

    /// Lock every stock key of the requests still open, once, in (sku, bucket) order. Holds
    /// and finishes record bucket 0: one on a SKU of several rows (buckets or locations) is
    /// deferred.
    async fn lock_stock(&mut self) -> std::result::Result<(), Error> {
        self.read_stock(SQL_LOCK_STOCK).await?;
        for i in self.open().collect::<Vec<_>>() {
            let segmented = self
                .lines_of(i)
                .iter()
                .any(|l| self.rows.get(&l.sku).is_some_and(|rows| rows.len() > 1));
            if segmented && !matches!(self.batch[i].op, Op::Allocate { .. }) {
                self.outcomes[i] = Some(Outcome::Deferred);
            }
        }
        Ok(())
    }

    /// The stock rows of every SKU of the requests still open, by `sql` ([`SQL_LOCK_STOCK`]
    /// or [`SQL_READ_STOCK`]), into `rows` (emptied first).
    async fn read_stock(&mut self, sql: &'static str) -> std::result::Result<(), Error> {
        self.rows.clear();
        let skus: Vec<String> = self
            .open()
            .flat_map(|i| self.lines_of(i).iter().map(|l| l.sku.clone()))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let stmt = self.tx.prepare_cached(sql).await?;
        let tenant = self.tenant.clone();
        for r in self.query_begin(&stmt, &[&skus, &tenant]).await? {
            let b: i32 = r.get("bucket");
            self.rows.entry(r.get("sku")).or_default().push(LockedRow {
                bucket: b as u32,
                on_hand: r.get("on_hand"),
                held: r.get("held"),
                location: r.get("location"),
                priority: r.get("priority"),
            });
        }
        Ok(())
    }

    /// The core's evaluation of the open requests, in arrival order, over the totals read
    /// per (SKU, location).
    fn evaluate(&self, open: &[usize]) -> Evaluation {
        let mut balances: Balances = BTreeMap::new();
        for (sku, rows) in &self.rows {
            let locs = balances.entry(sku.clone()).or_default();
            for r in rows {
                match locs.iter_mut().find(|(l, _, _)| *l == r.location) {
                    Some((_, _, b)) => {
                        b.on_hand += r.on_hand;
                        b.held += r.held;
                    }
                    None => locs.push((
                        r.location.clone(),
                        r.priority,
                        Balance {
                            on_hand: r.on_hand,
                            held: r.held,
                        },
                    )),
                }
            }
        }
        let ops: Vec<BatchOp> = open.iter().map(|&i| self.op_of(i)).collect();
        evaluate(&balances, &ops)
    }

    /// Requests with a line that overdue holds could steer
    /// ([`allot_core::location::holds_may_steer`]) run again once those holds are expired
    /// ([`Outcome::Overdue`]), so an expired hold stops counting for where a line goes as
    /// for whether it fits; once per SKU and request (a hold that expires after that pass is
    /// counted as held by this batch: the next one places without it). One more statement
    /// only when such a line is in the batch.
    async fn defer_steered(&mut self) -> std::result::Result<(), Error> {
        let mut steered: Vec<(usize, String)> = Vec::new();
        // By index, not `open()` collected: no allocation on a batch without such a line.
        for i in 0..self.batch.len() {
            if self.outcomes[i].is_some() {
                continue;
            }
            let (placement, allow_split) = match &self.batch[i].op {
                Op::Allocate { req, .. } => (&req.placement, req.allow_split),
                Op::Hold { req, .. } => (&req.take.placement, req.take.allow_split),
                _ => continue,
            };
            for line in self.lines_of(i) {
                let rule = allot_core::location::LineRule {
                    pin: line.location.as_deref(),
                    placement,
                    allow_split,
                };
                let rows = self.rows.get(&line.sku).into_iter().flatten();
                let steers = allot_core::location::holds_may_steer(rows.map(|r| (r.location.as_str(), r.held)), rule);
                if steers && !self.batch[i].expired.contains(&line.sku) {
                    steered.push((i, line.sku.clone()));
                }
            }
        }
        if steered.is_empty() {
            return Ok(());
        }
        let skus: Vec<String> = steered.iter().map(|(_, s)| s.clone()).collect();
        let stmt = self.tx.prepare_cached(SQL_OVERDUE_SKUS).await?;
        let rows = self
            .tx
            .query(&stmt, &[&skus as &Param, &self.now, &self.tenant])
            .await?;
        let overdue: HashSet<String> = rows.iter().map(|r| r.get(0)).collect();
        for (i, sku) in steered {
            if self.outcomes[i].is_none() && overdue.contains(&sku) {
                let err = AllotError::Contention {
                    attempts: crate::engine::tx::MAX_EXPIRY_PASSES as u32,
                    retry_after_ms: 10,
                };
                self.outcomes[i] = Some(Outcome::Overdue(sku, err));
            }
        }
        Ok(())
    }

    /// Request `i` as the core's evaluator takes it.
    fn op_of(&self, i: usize) -> BatchOp {
        let (kind, placement, allow_split) = match &self.batch[i].op {
            Op::Allocate { req, .. } => (OpKind::Allocate, req.placement.clone(), req.allow_split),
            Op::Hold { req, .. } => (OpKind::Hold, req.take.placement.clone(), req.take.allow_split),
            Op::Confirm { .. } => (OpKind::Confirm, Placement::Priority, false),
            Op::Release { .. } => (OpKind::Release, Placement::Priority, false),
        };
        let lines = self
            .lines_of(i)
            .iter()
            .map(|l| BatchLine {
                sku: l.sku.clone(),
                quantity: l.quantity,
                pin: l.location.clone(),
            })
            .collect();
        BatchOp {
            kind,
            lines,
            placement,
            allow_split,
        }
    }

    /// What refusals need to be told apart: which unknown SKUs are unit-tracked, which
    /// short SKUs have overdue holds (the request runs again once they are expired) and which
    /// take backorders (an allocation short there runs on the per-request path, which owes).
    async fn refusal_context(&self, result: &Evaluation) -> std::result::Result<RefusalContext, Error> {
        let (mut unknown, mut short) = (Vec::new(), Vec::new());
        for o in &result.outcomes {
            match o {
                Err(Refusal::UnknownKey { sku }) => unknown.push(sku.clone()),
                Err(Refusal::Short { sku, .. }) => short.push(sku.clone()),
                _ => {}
            }
        }
        let mut c = RefusalContext::default();
        if !unknown.is_empty() {
            let stmt = self.tx.prepare_cached(SQL_UNIT_SKUS).await?;
            c.unit_skus = self
                .tx
                .query(&stmt, &[&unknown, &self.tenant])
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect();
        }
        if !short.is_empty() {
            let stmt = self.tx.prepare_cached(SQL_SHORT_SKUS).await?;
            let rows = self
                .tx
                .query(&stmt, &[&short as &Param, &self.now, &self.tenant])
                .await?;
            for r in rows {
                let sku: String = r.get(0);
                if r.get::<_, bool>(2) {
                    c.backorders.insert(sku.clone());
                }
                if r.get::<_, bool>(1) {
                    c.overdue.insert(sku);
                }
            }
        }
        Ok(c)
    }

    /// The net change of every bucket, as the first columns of the writes: each (SKU,
    /// location)'s net spread over that location's buckets.
    fn net_changes(&self, result: &Evaluation) -> Writes {
        let mut w = Writes::default();
        for ((sku, location), net) in &result.net {
            let rows: Vec<(u32, i64, i64)> = self.rows[sku]
                .iter()
                .filter(|r| r.location == *location)
                .map(|r| (r.bucket, r.on_hand, r.held))
                .collect();
            let changes = spread(&rows, *net).unwrap_or_else(|| {
                // evaluate() only asks what the totals allow, and spread() fits any such net.
                panic!("batched: net {net:?} does not fit the buckets of {sku} at {location}: {rows:?}")
            });
            for (b, d_on, d_held) in changes {
                w.u_sku.push(sku.clone());
                w.u_bucket.push(b as i32);
                w.u_on.push(d_on);
                w.u_held.push(d_held);
            }
        }
        w
    }

    /// Record the success of request `i` in the writes (ledger, allocation, hold and its
    /// lines, finish, stored response) and build its answer.
    fn record(&self, i: usize, placed: &Placed, w: &mut Writes) -> Answer {
        let op = &self.batch[i].op;
        let lines = self.lines_of(i);
        let pieces: Vec<(&str, &str, i64)> = lines
            .iter()
            .zip(placed)
            .flat_map(|(l, ps)| ps.iter().map(move |(loc, q)| (l.sku.as_str(), loc.as_str(), *q)))
            .collect();
        let answered: Vec<AllocationLine> = lines
            .iter()
            .zip(placed)
            .map(|(l, ps)| AllocationLine {
                from: allot_core::location::sources(ps.iter().map(|(loc, q)| (loc.as_str(), *q))),
                ..l.clone()
            })
            .collect();
        // Plain strings and numbers: serializing them cannot fail.
        let json = serde_json::to_value(&answered).unwrap_or_default();
        let answer = match op {
            Op::Allocate { req, .. } => {
                w.ledger(&pieces, OpKind::Allocate, &req.id, req.actor.as_deref());
                w.allocation(&req.id, req.strategy.into(), json);
                let mut alloc = req.to_allocation(self.now);
                alloc.lines = answered;
                Answer::Allocation(alloc)
            }
            Op::Hold { req, .. } => {
                let mut hold = req.to_hold(answered, self.now);
                let json = match self.parts.get(&i) {
                    Some(parts) => with_parts(&mut hold, parts),
                    None => json,
                };
                w.ledger(&pieces, OpKind::Hold, &hold.id, req.take.actor.as_deref());
                w.new_hold(&hold, lines, json);
                Answer::Hold(hold)
            }
            Op::Confirm { id, actor, .. } => {
                let h = &self.holds[id];
                w.ledger(&pieces, OpKind::Confirm, id, actor.as_deref());
                w.finish(id, HoldStatus::Confirmed, (&h.lines_json, &h.expires_at));
                w.allocation(id, h.strategy, h.lines_json.clone());
                Answer::Allocation(Allocation {
                    id: id.clone(),
                    status: AllocationStatus::Allocated,
                    lines: h.lines.clone(),
                    strategy: h.strategy,
                    created_at: self.now,
                })
            }
            Op::Release { id, actor, .. } => {
                let h = &self.holds[id];
                w.ledger(&pieces, OpKind::Release, id, actor.as_deref());
                w.finish(id, HoldStatus::Released, (&h.lines_json, &h.expires_at));
                Answer::Hold(Hold {
                    id: id.clone(),
                    status: HoldStatus::Released,
                    kind: HoldKind::Stock,
                    lines: h.lines.clone(),
                    units: None,
                    bookings: None,
                    strategy: h.strategy,
                    expires_at: h.expires_at,
                    created_at: h.created_at,
                })
            }
        };
        if let (Some((key, fp)), Some(resp)) = (op.idem_key(), op.render(&answer)) {
            w.stored_response(key, fp, resp);
        }
        answer
    }

    /// The outcome of request `i`, refused by the evaluation.
    fn refused(&self, i: usize, refusal: &Refusal, context: &RefusalContext) -> Outcome {
        let RefusalContext {
            unit_skus,
            overdue,
            backorders,
        } = context;
        match refusal {
            // A locked `held` hold always has its quantity held: only the per-request path
            // can say what went wrong.
            _ if matches!(self.batch[i].op, Op::Confirm { .. } | Op::Release { .. }) => Outcome::Deferred,
            Refusal::UnknownKey { sku } if unit_skus.contains(sku) => {
                Outcome::Fail(AllotError::wrong_tracking(sku, true))
            }
            Refusal::UnknownKey { sku } => Outcome::Fail(AllotError::not_found("sku", sku.clone())),
            Refusal::BadQuantity { sku } => {
                Outcome::Fail(AllotError::invalid(format!("quantity of `{sku}` must be positive")))
            }
            Refusal::Short {
                sku,
                requested,
                available,
            } => {
                let err = AllotError::InsufficientStock {
                    sku: sku.clone(),
                    requested: *requested,
                    available: *available,
                };
                if overdue.contains(sku) {
                    Outcome::Overdue(sku.clone(), err)
                } else if backorders.contains(sku) && matches!(self.batch[i].op, Op::Allocate { .. }) {
                    // The per-request path takes what there is and owes the rest.
                    Outcome::Deferred
                } else {
                    Outcome::Fail(err)
                }
            }
        }
    }

    /// Whether every open request only takes stock (allocations and new holds without unit
    /// or booking lines), all from one SKU: what a [`Read::Optimistic`] batch may decide.
    fn only_takes_from_one_sku(&self) -> bool {
        if self.has_mixed() {
            return false;
        }
        let mut skus = self
            .open()
            .flat_map(|i| self.lines_of(i).iter().map(|l| l.sku.as_str()));
        let first = skus.next();
        first.is_some_and(|first| skus.all(|s| s == first))
            && self
                .open()
                .all(|i| matches!(self.batch[i].op, Op::Allocate { .. } | Op::Hold { .. }))
    }

    /// The [`Read::Optimistic`] decision: read the SKU's stock rows without a lock; where it
    /// has one and every open request fits what was read, send `go`, decide them all and
    /// return the writes. Otherwise `None`, with nothing decided: the batch goes on locking.
    async fn optimistic(&mut self, go: &mut Option<Go>) -> std::result::Result<Option<Writes>, Error> {
        self.read_stock(SQL_READ_STOCK).await?;
        let open: Vec<usize> = self.open().collect();
        let result = self.evaluate(&open);
        let one_row = self.rows.len() == 1 && self.rows.values().all(|rows| rows.len() == 1);
        if !one_row || result.outcomes.iter().any(std::result::Result::is_err) {
            return Ok(None);
        }
        if let Some(go) = go.take() {
            let _ = go.send(());
        }
        let mut w = self.net_changes(&result);
        for (n, &i) in open.iter().enumerate() {
            if let Ok(placed) = &result.outcomes[n] {
                self.outcomes[i] = Some(Outcome::Fresh(self.record(i, placed, &mut w)));
            }
        }
        Ok(Some(w))
    }

    /// The outcomes once the writes ended as `ended`: a batch that failed applied nothing; a
    /// broken connection during `COMMIT` leaves every write of the batch in doubt.
    fn ended(self, ended: std::result::Result<(), Ended>) -> std::result::Result<Vec<Outcome>, Failed> {
        let mut outcomes = self.outcomes;
        match ended {
            Ok(()) => {}
            Err(Ended::Refused(e) | Ended::CommitFailed(e)) => return Err(Failed::Db(e)),
            Err(Ended::Unknown) => {
                for o in outcomes.iter_mut() {
                    if matches!(o, Some(Outcome::Fresh(_))) {
                        *o = Some(Outcome::Fail(AllotError::OutcomeUnknown));
                    }
                }
            }
        }
        Ok(outcomes
            .into_iter()
            .map(|o| o.expect("every request decided"))
            .collect())
    }

    /// One statement for every write, as the batch `read` its stock rows
    /// ([`SQL_BATCH_WRITE`], [`SQL_BATCH_WRITE_UNLOCKED`]), pipelined with `COMMIT`. Every
    /// success writes ledger lines (stored responses belong to successes only); a batch with
    /// none has nothing to write, even where its net changes cancel out. The rows of its
    /// mixed holds ([`SQL_MIXED_HOLDS`]) go first, in a statement of their own; the events of
    /// the holds it makes and finishes ([`SQL_HOLD_EVENTS`]) last, in the same round trip as
    /// the write, after [`EVENTS_WRITTEN`] (before any hold's row is written) tells
    /// V39's triggers that they are written.
    async fn write_and_commit(&self, w: &Writes, read: Read) -> std::result::Result<(), Ended> {
        if w.has_mixed_holds() {
            // Its holds' events are the batch's to write: say so before their rows.
            let stmt = self.tx.prepare_cached(SQL_MIXED_HOLDS).await.map_err(Ended::Refused)?;
            let params = w.mixed_params(&self.now, &self.tenant);
            let (set, written) =
                tokio::join!(biased; self.tx.batch_execute(EVENTS_WRITTEN), self.tx.execute(&stmt, &params));
            set.and(written).map_err(Ended::Refused)?;
        }
        if w.l_sku.is_empty() {
            // Only holds with stock lines reach a lane, so a batch that makes or finishes one
            // writes ledger lines: its events go with them, below.
            debug_assert!(!w.has_hold_events(), "a batch's holds without ledger lines");
            return commit(self.tx).await;
        }
        let (sql, n) = match read {
            Read::Locking => (SQL_BATCH_WRITE, 29),
            Read::Optimistic => (SQL_BATCH_WRITE_UNLOCKED, 30),
        };
        let stmt = self.tx.prepare_cached(sql).await.map_err(Ended::Refused)?;
        let events = match w.has_hold_events() {
            true => Some(self.tx.prepare_cached(SQL_HOLD_EVENTS).await.map_err(Ended::Refused)?),
            false => None,
        };
        let rows = w.u_sku.len() as i64;
        let params = w.params(&self.now, &self.tenant, (&self.ledger_sequence, &rows));
        let event_params = w.hold_event_params(&self.now, &self.tenant);
        // Unless the mixed holds' statement said it already.
        let set_first = events.is_some() && !w.has_mixed_holds();
        // What the releases gave back fills what their SKUs owe there (a lane's fills name
        // no actor: several requests' releases may share them), in the same round trip.
        let released = w.released_at();
        let fill = match released.0.is_empty() {
            true => None,
            false => Some(
                self.tx
                    .prepare_cached(crate::engine::fills::SQL_FILL)
                    .await
                    .map_err(Ended::Refused)?,
            ),
        };
        let no_actor: Option<&str> = None;
        let fill_params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] =
            [&self.tenant, &released.0, &released.1, &no_actor, &self.now];
        let last = async {
            let (set, written, evented, filled) = tokio::join!(biased;
                async { if set_first { self.tx.batch_execute(EVENTS_WRITTEN).await } else { Ok(()) } },
                self.tx.execute(&stmt, &params[..n]),
                async { match &events { Some(e) => self.tx.execute(e, &event_params).await.map(drop), None => Ok(()) } },
                async { match &fill { Some(f) => self.tx.execute(f, &fill_params).await.map(drop), None => Ok(()) } });
            set?;
            let written = written?;
            evented?;
            filled.map(|()| written)
        };
        commit_with(self.tx, last).await.map(drop)
    }
}

/// Sent (pipelined) before a batch writes its first hold's row: the lane writes the events of
/// the holds it makes and finishes itself ([`SQL_HOLD_EVENTS`]), and V39's triggers skip
/// their rows (V42: the setting names the transaction, so no other one can take it up).
const EVENTS_WRITTEN: &str = "SELECT set_config('allot.hold_events', pg_current_xact_id()::text, true)";

/// Mixed hold `hold` with the units and bookings its lines took (`parts`); its row's `lines`
/// (every line, as its answer lists them).
fn with_parts(hold: &mut Hold, parts: &mixed::Parts) -> serde_json::Value {
    if let Some(units) = hold.units.as_mut() {
        units.clone_from(&parts.units);
    }
    if let Some(bookings) = hold.bookings.as_mut() {
        bookings.clone_from(&parts.bookings);
    }
    // Plain strings and numbers: serializing them cannot fail.
    serde_json::to_value(&hold.lines).unwrap_or_default()
}

/// Whether the write of a [`Read::Optimistic`] batch was refused because its stock rows no
/// longer held what it took (23514) or were not all found (22012): see
/// [`SQL_BATCH_WRITE_UNLOCKED`].
fn raced(e: &Error) -> bool {
    matches!(e.code(), Some(c) if *c == SqlState::CHECK_VIOLATION || *c == SqlState::DIVISION_BY_ZERO)
}
