//! The `batched` strategy on PostgreSQL: a combiner per server instance. Allocation, hold,
//! confirm and release requests queue on a lane (chosen by a hash of their first SKU); each
//! lane runs one transaction at a time, and every request that arrived while it ran goes into
//! the next one — no fixed delay, so an idle lane serves a lone request at once and a hot one
//! serves hundreds per commit.
//!
//! One transaction: idempotency keys (try-lock and lookup, in bulk); the rows of the holds
//! being confirmed or released, locked in id order; every stock key of the batch, locked once
//! in (sku, bucket) order (`SELECT … FOR UPDATE`: the same global order as every other
//! strategy — hold rows first, then stock rows — so batches of several instances serialise on
//! the rows and cannot deadlock); [`allot_core::batch::evaluate`]; one statement of
//! data-modifying CTEs for the net change of every bucket, the ledger, allocations, new holds
//! and their lines, finished holds and stored responses; one commit. Then each request gets
//! its own answer. A transaction that fails answers every request in it `503 unavailable`
//! (nothing of it was applied); 40001/40P01 run the batch again first (bounded by
//! `max_tx_retries`).
//!
//! What a batch does not decide itself it *defers*: after the commit, that request runs on
//! the per-request path (`atomic`), which locks and reads on its own. Deferred are holds and
//! hold finishes on a SKU of more than one bucket (a hold's line must record the bucket it
//! took), and confirms or releases of a hold that is not `held` and unexpired when locked, or
//! that an earlier request of the same batch already finished.
//!
//! Bounds: `batch_max_requests` per transaction, `batch_max_queued` waiting per instance
//! (a full lane answers `503 unavailable` at once: back-pressure).

use crate::tx::IDEMPOTENCY_LOCK_CLASS;
use crate::{is_retryable, map_error, PgStore};
use allot_core::batch::{evaluate, spread, Balance, BatchOp, OpKind, Refusal};
use allot_core::hold::{HoldKind, HoldStatus};
use allot_core::store::{Executed, HoldStore, Idempotency, StoredResponse};
use allot_core::strategy::fnv1a_64;
use allot_core::*;
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::{mpsc, oneshot};

type Param = dyn tokio_postgres::types::ToSql + Sync;

/// Lanes per instance: requests whose first SKUs hash apart run their transactions in
/// parallel (on different rows); one hot SKU always lands on one lane.
const LANES: usize = 8;

/// Overdue holds found on a short SKU make the request run again after they are expired, at
/// most this many times (as the other strategies do).
const MAX_EXPIRY_PASSES: u32 = 2;

/// Everything a batch writes, in one statement (one round trip). Data-modifying CTEs all run,
/// to completion, whether or not the outer query reads them (PostgreSQL docs, 7.8.4).
/// - `$1..$4` the net change of every bucket: sku, bucket, on_hand delta, held delta;
/// - `$5..$9` the ledger: sku, delta, held delta, kind, ref;
/// - `$10..$12` allocations (id, strategy, lines), `$13` now;
/// - `$14..$16` new holds (id, lines, expires_at), `$17..$19` their lines (hold, sku, q; bucket 0);
/// - `$20, $21` finished holds (id, new status), conditional on `status = 'held'`;
/// - `$22..$25` stored responses of idempotent requests.
const SQL_BATCH_WRITE: &str = "WITH upd AS (
    UPDATE stock s SET on_hand = s.on_hand + d.d_on, held = s.held + d.d_held, version = s.version + 1
      FROM unnest($1::text[], $2::int4[], $3::int8[], $4::int8[]) AS d(sku, b, d_on, d_held)
     WHERE s.sku = d.sku AND s.bucket = d.b),
led AS (
    INSERT INTO ledger (sku, delta, held_delta, kind, ref)
    SELECT * FROM unnest($5::text[], $6::int8[], $7::int8[], $8::text[], $9::text[])),
alo AS (
    INSERT INTO allocations (id, status, strategy, lines, created_at)
    SELECT t.id, 'allocated', t.st, t.lines, $13 FROM unnest($10::text[], $11::text[], $12::jsonb[]) AS t(id, st, lines)),
hin AS (
    INSERT INTO holds (id, kind, status, strategy, lines, expires_at, created_at)
    SELECT t.id, 'stock', 'held', 'batched', t.lines, t.exp, $13
      FROM unnest($14::text[], $15::jsonb[], $16::timestamptz[]) AS t(id, lines, exp)),
hln AS (
    INSERT INTO hold_lines (hold_id, sku, bucket, quantity)
    SELECT t.h, t.sku, 0, t.q FROM unnest($17::text[], $18::text[], $19::int8[]) AS t(h, sku, q)),
hup AS (
    UPDATE holds h SET status = t.st, finished_at = $13
      FROM unnest($20::text[], $21::text[]) AS t(id, st)
     WHERE h.id = t.id AND h.status = 'held'),
idk AS (
    INSERT INTO idempotency_keys (key, fingerprint, status, body)
    SELECT * FROM unnest($22::text[], $23::text[], $24::int4[], $25::bytea[]))
SELECT 1";

/// The rows of the holds a batch confirms or releases, locked in id order (before any stock
/// row: the lock order of every hold finish).
const SQL_LOCK_HOLDS: &str = "SELECT id, kind, status, strategy, lines, expires_at, created_at
   FROM holds WHERE id = ANY($1) ORDER BY id FOR UPDATE";

/// A hold's kind, strategy and first SKU, read without a lock to route a finish to its lane.
const SQL_HOLD_ROUTE: &str = "SELECT kind, strategy, lines->0->>'sku' FROM holds WHERE id = $1";

/// Where a request's answer goes.
type Reply<T> = oneshot::Sender<Result<Executed<T>>>;

/// One request waiting on a lane.
enum Op {
    Allocate {
        req: AllocationRequest,
        idem: Option<Idempotency<Allocation>>,
        lines_json: serde_json::Value,
        reply: Reply<Allocation>,
    },
    Hold {
        req: HoldRequest,
        idem: Option<Idempotency<Hold>>,
        lines_json: serde_json::Value,
        reply: Reply<Hold>,
    },
    Confirm {
        id: String,
        idem: Option<Idempotency<Allocation>>,
        reply: Reply<Allocation>,
    },
    Release {
        id: String,
        idem: Option<Idempotency<Hold>>,
        reply: Reply<Hold>,
    },
}

/// A decided request's result, before it is sent.
enum Answer {
    Allocation(Allocation),
    Hold(Hold),
}

impl Op {
    /// The idempotency key and fingerprint the request carried.
    fn idem_key(&self) -> Option<(&str, &str)> {
        fn of<T>(idem: &Option<Idempotency<T>>) -> Option<(&str, &str)> {
            idem.as_ref().map(|i| (i.key.as_str(), i.fingerprint.as_str()))
        }
        match self {
            Op::Allocate { idem, .. } | Op::Confirm { idem, .. } => of(idem),
            Op::Hold { idem, .. } | Op::Release { idem, .. } => of(idem),
        }
    }

    /// The response to store for `answer`, when the request carried a key.
    fn render(&self, answer: &Answer) -> Option<StoredResponse> {
        match (self, answer) {
            (Op::Allocate { idem: Some(i), .. } | Op::Confirm { idem: Some(i), .. }, Answer::Allocation(a)) => {
                Some((i.render)(a))
            }
            (Op::Hold { idem: Some(i), .. } | Op::Release { idem: Some(i), .. }, Answer::Hold(h)) => {
                Some((i.render)(h))
            }
            _ => None,
        }
    }

    /// Send the request its answer (a fresh result of the wrong kind cannot be built here).
    fn answer(self, result: Result<Executed<Answer>>) {
        fn pick<T>(r: Result<Executed<Answer>>, f: impl Fn(Answer) -> Option<T>) -> Result<Executed<T>> {
            match r? {
                Executed::Replayed(s) => Ok(Executed::Replayed(s)),
                Executed::Fresh(a) => f(a)
                    .map(Executed::Fresh)
                    .ok_or_else(|| AllotError::Internal("batched: answer of the wrong kind".into())),
            }
        }
        let as_alloc = |a| match a {
            Answer::Allocation(a) => Some(a),
            Answer::Hold(_) => None,
        };
        let as_hold = |a| match a {
            Answer::Hold(h) => Some(h),
            Answer::Allocation(_) => None,
        };
        match self {
            Op::Allocate { reply, .. } | Op::Confirm { reply, .. } => {
                let _ = reply.send(pick(result, as_alloc));
            }
            Op::Hold { reply, .. } | Op::Release { reply, .. } => {
                let _ = reply.send(pick(result, as_hold));
            }
        }
    }

    /// Run the request on the per-request path of `store` (a lane's store, which has no
    /// combiner, so nothing comes back here) and send its answer.
    async fn run_direct(self, store: PgStore) {
        match self {
            Op::Allocate { req, idem, reply, .. } => {
                let _ = reply.send(allot_core::store::StockStore::allocate(&store, req, idem).await);
            }
            Op::Hold { req, idem, reply, .. } => {
                let _ = reply.send(store.create_hold(req, idem).await);
            }
            Op::Confirm { id, idem, reply } => {
                let _ = reply.send(store.confirm_hold(&id, idem).await);
            }
            Op::Release { id, idem, reply } => {
                let _ = reply.send(store.release_hold(&id, idem).await);
            }
        }
    }
}

/// One waiting request and the SKU that picks its lane.
pub(crate) struct Pending {
    op: Op,
    lane_sku: String,
    expiry_passes: u32,
}

struct Lane {
    tx: mpsc::Sender<Pending>,
    rx: Mutex<Option<mpsc::Receiver<Pending>>>,
}

/// The combiner of one store: its lanes, each started on first use.
pub(crate) struct Combiner {
    lanes: Vec<Lane>,
}

impl std::fmt::Debug for Combiner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Combiner").field("lanes", &self.lanes.len()).finish()
    }
}

impl Combiner {
    /// Lanes sized so that all of them together queue at most `limits.batch_max_queued`.
    pub(crate) fn new(limits: &Limits) -> Self {
        let per_lane = (limits.batch_max_queued / LANES).max(1);
        Combiner {
            lanes: (0..LANES)
                .map(|_| {
                    let (tx, rx) = mpsc::channel(per_lane);
                    Lane {
                        tx,
                        rx: Mutex::new(Some(rx)),
                    }
                })
                .collect(),
        }
    }

    /// Queue `p` on its lane, starting the lane's task on first use. The task holds a store
    /// without a combiner and only a weak reference to this one, so when the last store
    /// clone drops, the senders drop and the task ends. A full lane hands the request back.
    fn submit(
        this: &Arc<Combiner>,
        store: &PgStore,
        p: Pending,
    ) -> std::result::Result<(), Box<(Pending, AllotError)>> {
        let lane = &this.lanes[(fnv1a_64(p.lane_sku.as_bytes()) % LANES as u64) as usize];
        let rx = lane.rx.lock().map(|mut g| g.take()).unwrap_or(None);
        if let Some(rx) = rx {
            let ctx = LaneCtx {
                store: store.without_combiner(),
                combiner: Arc::downgrade(this),
            };
            tokio::spawn(lane_loop(ctx, rx));
        }
        lane.tx.try_send(p).map_err(|e| match e {
            mpsc::error::TrySendError::Full(p) => Box::new((
                p,
                AllotError::Unavailable(format!(
                    "batch queue full (batch_max_queued = {})",
                    store.limits.batch_max_queued
                )),
            )),
            mpsc::error::TrySendError::Closed(p) => {
                Box::new((p, AllotError::Unavailable("the batch combiner stopped".into())))
            }
        })
    }
}

impl PgStore {
    /// Queue the request `make` builds around its reply channel on the lane of `lane_sku`,
    /// and wait for the answer of the transaction that served it.
    async fn submit_batched<T>(&self, lane_sku: String, make: impl FnOnce(Reply<T>) -> Op) -> Result<Executed<T>> {
        let combiner = self
            .combiner
            .as_ref()
            .ok_or_else(|| AllotError::Internal("batched request on a lane's own store".into()))?;
        let (reply, answer) = oneshot::channel();
        let p = Pending {
            op: make(reply),
            lane_sku,
            expiry_passes: 0,
        };
        Combiner::submit(combiner, self, p).map_err(|b| b.1)?;
        answer
            .await
            .map_err(|_| AllotError::Unavailable("the batch combiner stopped".into()))?
    }

    /// Whether this store coalesces (`false` on a lane's own store, which runs `batched`
    /// requests on the per-request path).
    pub(crate) fn coalesces(&self) -> bool {
        self.combiner.is_some()
    }

    /// Allocate with the `batched` strategy.
    pub(crate) async fn allocate_batched(
        &self,
        req: AllocationRequest,
        idem: Option<Idempotency<Allocation>>,
        lines_json: serde_json::Value,
    ) -> Result<Executed<Allocation>> {
        let lane_sku = req.lines.first().map(|l| l.sku.clone()).unwrap_or_default();
        self.submit_batched(lane_sku, |reply| Op::Allocate {
            req,
            idem,
            lines_json,
            reply,
        })
        .await
    }

    /// Create a hold with the `batched` strategy.
    pub(crate) async fn hold_batched(
        &self,
        req: HoldRequest,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        let lines_json = serde_json::to_value(&req.take.lines).map_err(|e| AllotError::Internal(e.to_string()))?;
        let lane_sku = req.take.lines.first().map(|l| l.sku.clone()).unwrap_or_default();
        self.submit_batched(lane_sku, |reply| Op::Hold {
            req,
            idem,
            lines_json,
            reply,
        })
        .await
    }

    /// The lane SKU of a stock hold made by `batched`, or `None` when its finish takes the
    /// per-request path (no such hold, a unit hold, another strategy). One read, no lock.
    pub(crate) async fn batched_hold_lane(&self, id: &str) -> Result<Option<String>> {
        if !self.coalesces() {
            return Ok(None);
        }
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_HOLD_ROUTE).await.map_err(map_error)?;
        let row = c.query_opt(&stmt, &[&id]).await.map_err(map_error)?;
        Ok(row.and_then(|r| {
            let (kind, strategy, sku): (String, String, Option<String>) = (r.get(0), r.get(1), r.get(2));
            (kind == HoldKind::Stock.as_str() && strategy == Strategy::Batched.name())
                .then_some(sku)
                .flatten()
        }))
    }

    /// Confirm a `batched` stock hold on the lane of `lane_sku`.
    pub(crate) async fn confirm_batched(
        &self,
        id: &str,
        idem: Option<Idempotency<Allocation>>,
        lane_sku: String,
    ) -> Result<Executed<Allocation>> {
        let id = id.to_string();
        self.submit_batched(lane_sku, |reply| Op::Confirm { id, idem, reply })
            .await
    }

    /// Release a `batched` stock hold on the lane of `lane_sku`.
    pub(crate) async fn release_batched(
        &self,
        id: &str,
        idem: Option<Idempotency<Hold>>,
        lane_sku: String,
    ) -> Result<Executed<Hold>> {
        let id = id.to_string();
        self.submit_batched(lane_sku, |reply| Op::Release { id, idem, reply })
            .await
    }
}

/// What a lane's task owns.
struct LaneCtx {
    store: PgStore,
    combiner: Weak<Combiner>,
}

async fn lane_loop(ctx: LaneCtx, mut rx: mpsc::Receiver<Pending>) {
    let max = ctx.store.limits.batch_max_requests.max(1);
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while batch.len() < max {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        run_batch(&ctx, batch).await;
    }
}

/// How a request of the batch ends, before commit.
enum Outcome {
    Fresh(Answer),
    Replayed(StoredResponse),
    Fail(AllotError),
    /// Short while overdue holds count as held on `sku`: expire them, run it again.
    Overdue(String, AllotError),
    /// Not decided by the batch: run it on the per-request path after the commit.
    Deferred,
}

async fn run_batch(ctx: &LaneCtx, batch: Vec<Pending>) {
    let now = ctx.store.now();
    let started = std::time::Instant::now();
    let limits = &ctx.store.limits;
    let mut tries = 0u32;
    let outcomes = loop {
        match try_batch(&ctx.store, &batch, now).await {
            Ok(o) => break Ok(o),
            Err(e) if is_retryable(&e) && tries < limits.max_tx_retries => {
                tries += 1;
                crate::tx::backoff_sleep(tries).await;
            }
            Err(e) => break Err(e),
        }
    };
    let outcomes = match outcomes {
        Ok(o) => o,
        Err(e) => {
            let msg = format!("batch transaction failed: {}", map_error(e));
            tracing::warn!(requests = batch.len(), "{msg}");
            for p in batch {
                p.op.answer(Err(AllotError::Unavailable(msg.clone())));
            }
            return;
        }
    };
    tracing::debug!(
        requests = batch.len(),
        elapsed_us = started.elapsed().as_micros() as u64,
        "batch committed"
    );
    for (p, o) in batch.into_iter().zip(outcomes) {
        let answer = match o {
            Outcome::Fresh(a) => Ok(Executed::Fresh(a)),
            Outcome::Replayed(r) => Ok(Executed::Replayed(r)),
            Outcome::Fail(e) => Err(e),
            Outcome::Deferred => {
                tokio::spawn(p.op.run_direct(ctx.store.clone()));
                continue;
            }
            Outcome::Overdue(sku, err) => match ctx.combiner.upgrade() {
                Some(combiner) if p.expiry_passes < MAX_EXPIRY_PASSES => {
                    // Expire on the side and queue the request again; its answer comes from
                    // a later batch.
                    let store = ctx.store.clone();
                    tokio::spawn(async move {
                        if let Err(e) = store.expire_overdue_on(&sku, store.now()).await {
                            p.op.answer(Err(e));
                            return;
                        }
                        let again = Pending {
                            expiry_passes: p.expiry_passes + 1,
                            ..p
                        };
                        if let Err(refused) = Combiner::submit(&combiner, &store, again) {
                            let (p, e) = *refused;
                            p.op.answer(Err(e));
                        }
                    });
                    continue;
                }
                _ => Err(err),
            },
        };
        p.op.answer(answer);
    }
}

async fn try_batch(
    store: &PgStore,
    batch: &[Pending],
    now: DateTime<Utc>,
) -> std::result::Result<Vec<Outcome>, tokio_postgres::Error> {
    let client = match store.pool().get().await {
        Ok(c) => c,
        Err(deadpool_postgres::PoolError::Backend(e)) => return Err(e),
        Err(other) => {
            let e = AllotError::Unavailable(format!("no database connection: {other}"));
            return Ok(batch.iter().map(|_| Outcome::Fail(e.clone())).collect());
        }
    };
    let result = batch_tx(&client, batch, now).await;
    if result.is_err() {
        // The transaction is managed by hand (to pipeline BEGIN and COMMIT): end it before
        // the connection goes back to the pool. After a failed pipelined COMMIT there is
        // none left and this only warns.
        let _ = client.batch_execute("ROLLBACK").await;
    }
    result
}

/// Run `stmt` with `params`, sending `BEGIN` in the same round trip unless `begun`.
async fn query_begin(
    tx: &deadpool_postgres::ClientWrapper,
    begun: &mut bool,
    stmt: &tokio_postgres::Statement,
    params: &[&Param],
) -> std::result::Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    if *begun {
        return tx.query(stmt, params).await;
    }
    let (began, rows) = tokio::join!(tx.batch_execute("BEGIN"), tx.query(stmt, params));
    *begun = true;
    began?;
    rows
}

/// A hold a request of the batch may finish, as locked.
struct LockedHold {
    status: HoldStatus,
    strategy: String,
    lines: Vec<AllocationLine>,
    lines_json: serde_json::Value,
    expires_at: DateTime<Utc>,
    created_at: DateTime<Utc>,
    stock: bool,
}

/// What the rows of a batch's writes hold, column by column (see [`SQL_BATCH_WRITE`]).
#[derive(Default)]
struct Writes {
    u_sku: Vec<String>,
    u_bucket: Vec<i32>,
    u_on: Vec<i64>,
    u_held: Vec<i64>,
    l_sku: Vec<String>,
    l_delta: Vec<i64>,
    l_held: Vec<i64>,
    l_kind: Vec<&'static str>,
    l_ref: Vec<String>,
    a_id: Vec<String>,
    a_strategy: Vec<String>,
    a_lines: Vec<serde_json::Value>,
    h_id: Vec<String>,
    h_lines: Vec<serde_json::Value>,
    h_expires: Vec<DateTime<Utc>>,
    hl_hold: Vec<String>,
    hl_sku: Vec<String>,
    hl_q: Vec<i64>,
    f_id: Vec<String>,
    f_status: Vec<&'static str>,
    k_key: Vec<String>,
    k_fp: Vec<String>,
    k_status: Vec<i32>,
    k_body: Vec<Vec<u8>>,
}

impl Writes {
    fn ledger(&mut self, lines: &[AllocationLine], kind: OpKind, reference: &str) {
        let (label, on, held) = match kind {
            OpKind::Allocate => ("allocation", -1, 0),
            OpKind::Hold => ("hold", 0, 1),
            OpKind::Confirm => ("hold_confirmed", -1, -1),
            OpKind::Release => ("hold_released", 0, -1),
        };
        for l in lines {
            self.l_sku.push(l.sku.clone());
            self.l_delta.push(on * l.quantity);
            self.l_held.push(held * l.quantity);
            self.l_kind.push(label);
            self.l_ref.push(reference.to_string());
        }
    }
}

/// One batch transaction on `c`, begun and committed by hand so that `BEGIN` travels with
/// the first query and `COMMIT` with the write (two round trips for a batch of allocations
/// and new holds without idempotency keys; one more when it finishes holds).
async fn batch_tx(
    tx: &deadpool_postgres::ClientWrapper,
    batch: &[Pending],
    now: DateTime<Utc>,
) -> std::result::Result<Vec<Outcome>, tokio_postgres::Error> {
    let mut begun = false;
    let mut outcomes: Vec<Option<Outcome>> = (0..batch.len()).map(|_| None).collect();

    // Idempotency keys: try-lock all (a busy one is another request still running: in use),
    // then read the stored responses, in two statements.
    let keyed: Vec<usize> = (0..batch.len()).filter(|&i| batch[i].op.idem_key().is_some()).collect();
    if !keyed.is_empty() {
        let key_of = |i: usize| batch[i].op.idem_key().expect("keyed");
        let mut seen = HashSet::new();
        let mut lock_idx = Vec::new();
        for &i in &keyed {
            if !seen.insert(key_of(i).0) {
                outcomes[i] = Some(Outcome::Fail(AllotError::IdempotencyKeyInUse));
            } else {
                lock_idx.push(i);
            }
        }
        let objids: Vec<i32> = lock_idx
            .iter()
            .map(|&i| fnv1a_64(key_of(i).0.as_bytes()) as u32 as i32)
            .collect();
        let stmt = tx
            .prepare_cached(
                "SELECT pg_try_advisory_xact_lock($1, o) FROM unnest($2::int4[]) WITH ORDINALITY AS t(o, n) ORDER BY n",
            )
            .await?;
        let got: Vec<bool> = query_begin(tx, &mut begun, &stmt, &[&IDEMPOTENCY_LOCK_CLASS, &objids])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let keys: Vec<&str> = lock_idx.iter().map(|&i| key_of(i).0).collect();
        let stmt = tx
            .prepare_cached("SELECT key, fingerprint, status, body FROM idempotency_keys WHERE key = ANY($1)")
            .await?;
        let stored: HashMap<String, (String, i32, Vec<u8>)> = tx
            .query(&stmt, &[&keys])
            .await?
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
            .collect();
        for (n, &i) in lock_idx.iter().enumerate() {
            let (key, fingerprint) = key_of(i);
            outcomes[i] = if !got[n] {
                Some(Outcome::Fail(AllotError::IdempotencyKeyInUse))
            } else {
                match stored.get(key) {
                    None => None,
                    Some((fp, _, _)) if fp != fingerprint => Some(Outcome::Fail(AllotError::IdempotencyKeyReused)),
                    Some((_, status, body)) => Some(Outcome::Replayed(StoredResponse {
                        status: *status as u16,
                        body: body.clone(),
                    })),
                }
            };
        }
    }

    // The holds to finish: their rows first, locked in id order.
    let finish_ids: Vec<String> = (0..batch.len())
        .filter(|&i| outcomes[i].is_none())
        .filter_map(|i| match &batch[i].op {
            Op::Confirm { id, .. } | Op::Release { id, .. } => Some(id.clone()),
            _ => None,
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut holds: HashMap<String, LockedHold> = HashMap::new();
    if !finish_ids.is_empty() {
        let stmt = tx.prepare_cached(SQL_LOCK_HOLDS).await?;
        for r in query_begin(tx, &mut begun, &stmt, &[&finish_ids]).await? {
            let lines_json: serde_json::Value = r.get(4);
            let (Some(status), Ok(lines)) = (
                HoldStatus::parse(r.get(2)),
                serde_json::from_value::<Vec<AllocationLine>>(lines_json.clone()),
            ) else {
                continue; // unreadable: the per-request path reports it
            };
            holds.insert(
                r.get(0),
                LockedHold {
                    status,
                    strategy: r.get(3),
                    lines,
                    lines_json,
                    expires_at: r.get(5),
                    created_at: r.get(6),
                    stock: HoldKind::parse(r.get(1)) == HoldKind::Stock,
                },
            );
        }
    }
    // A finish the batch can make: a stock hold, `held` and unexpired, not finished by an
    // earlier request of this batch. The rest are deferred (or, without a row, not found).
    let mut finishing = HashSet::new();
    for i in 0..batch.len() {
        if outcomes[i].is_some() {
            continue;
        }
        if let Op::Confirm { id, .. } | Op::Release { id, .. } = &batch[i].op {
            let fits = holds
                .get(id)
                .is_some_and(|h| h.stock && h.status == HoldStatus::Held && h.expires_at > now);
            if !fits || !finishing.insert(id.clone()) {
                outcomes[i] = Some(Outcome::Deferred);
            }
        }
    }

    // Lock every stock key of the requests still open, once, in (sku, bucket) order.
    let lines_of = |i: usize| -> &[AllocationLine] {
        match &batch[i].op {
            Op::Allocate { req, .. } => &req.lines,
            Op::Hold { req, .. } => &req.take.lines,
            Op::Confirm { id, .. } | Op::Release { id, .. } => &holds[id].lines,
        }
    };
    let skus: Vec<String> = (0..batch.len())
        .filter(|&i| outcomes[i].is_none())
        .flat_map(|i| lines_of(i).iter().map(|l| l.sku.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let stmt = tx
        .prepare_cached(
            "SELECT sku, bucket, on_hand, held FROM stock WHERE sku = ANY($1) ORDER BY sku, bucket FOR UPDATE",
        )
        .await?;
    let mut buckets: BTreeMap<String, Vec<(u32, i64, i64)>> = BTreeMap::new();
    for r in query_begin(tx, &mut begun, &stmt, &[&skus]).await? {
        let b: i32 = r.get(1);
        buckets
            .entry(r.get(0))
            .or_default()
            .push((b as u32, r.get(2), r.get(3)));
    }
    // Holds and finishes record bucket 0: a SKU of several buckets takes the per-request path.
    for i in 0..batch.len() {
        if outcomes[i].is_none()
            && !matches!(batch[i].op, Op::Allocate { .. })
            && lines_of(i)
                .iter()
                .any(|l| buckets.get(&l.sku).is_some_and(|rows| rows.len() > 1))
        {
            outcomes[i] = Some(Outcome::Deferred);
        }
    }
    let balances: BTreeMap<String, Balance> = buckets
        .iter()
        .map(|(k, rows)| {
            let (on_hand, held) = rows.iter().fold((0, 0), |(a, b), r| (a + r.1, b + r.2));
            (k.clone(), Balance { on_hand, held })
        })
        .collect();
    let open: Vec<usize> = (0..batch.len()).filter(|&i| outcomes[i].is_none()).collect();
    let kind_of = |i: usize| match &batch[i].op {
        Op::Allocate { .. } => OpKind::Allocate,
        Op::Hold { .. } => OpKind::Hold,
        Op::Confirm { .. } => OpKind::Confirm,
        Op::Release { .. } => OpKind::Release,
    };
    let ops: Vec<BatchOp> = open
        .iter()
        .map(|&i| BatchOp {
            kind: kind_of(i),
            lines: lines_of(i).iter().map(|l| (l.sku.clone(), l.quantity)).collect(),
        })
        .collect();
    let result = evaluate(&balances, &ops);

    // Refusals: an unknown key is a missing or a unit-tracked SKU; a short one may be owed to
    // overdue holds (the caller expires them and runs the request again).
    let unknown: Vec<String> = result
        .outcomes
        .iter()
        .filter_map(|o| match o {
            Err(Refusal::UnknownKey { sku }) => Some(sku.clone()),
            _ => None,
        })
        .collect();
    let units_skus: HashSet<String> = if unknown.is_empty() {
        HashSet::new()
    } else {
        let stmt = tx
            .prepare_cached("SELECT sku FROM skus WHERE sku = ANY($1) AND tracking = 'units'")
            .await?;
        tx.query(&stmt, &[&unknown]).await?.iter().map(|r| r.get(0)).collect()
    };
    let short: Vec<String> = result
        .outcomes
        .iter()
        .filter_map(|o| match o {
            Err(Refusal::Short { sku, .. }) => Some(sku.clone()),
            _ => None,
        })
        .collect();
    let overdue: HashSet<String> = if short.is_empty() {
        HashSet::new()
    } else {
        let stmt = tx
            .prepare_cached(
                "SELECT DISTINCT hl.sku FROM holds h JOIN hold_lines hl ON hl.hold_id = h.id
                  WHERE h.status = 'held' AND h.expires_at <= $2 AND hl.sku = ANY($1)",
            )
            .await?;
        tx.query(&stmt, &[&short as &Param, &now])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect()
    };

    // The net change of every bucket.
    let mut w = Writes::default();
    for (sku, net) in &result.net {
        let rows = &buckets[sku];
        let changes = spread(rows, *net).unwrap_or_else(|| {
            // evaluate() only asks what the totals allow, and spread() fits any such net.
            panic!("batched: net {net:?} does not fit the buckets of {sku}: {rows:?}")
        });
        for (b, d_on, d_held) in changes {
            w.u_sku.push(sku.clone());
            w.u_bucket.push(b as i32);
            w.u_on.push(d_on);
            w.u_held.push(d_held);
        }
    }
    // Ledger, allocations, holds and stored responses of the successes, in bulk.
    for (n, &i) in open.iter().enumerate() {
        let op = &batch[i].op;
        outcomes[i] = Some(match &result.outcomes[n] {
            Ok(()) => {
                let answer = match op {
                    Op::Allocate { req, lines_json, .. } => {
                        w.ledger(&req.lines, OpKind::Allocate, &req.id);
                        w.a_id.push(req.id.clone());
                        w.a_strategy.push(req.strategy.name().to_string());
                        w.a_lines.push(lines_json.clone());
                        Answer::Allocation(req.to_allocation(now))
                    }
                    Op::Hold { req, lines_json, .. } => {
                        let hold = req.to_hold(now);
                        w.ledger(&hold.lines, OpKind::Hold, &hold.id);
                        for l in &hold.lines {
                            w.hl_hold.push(hold.id.clone());
                            w.hl_sku.push(l.sku.clone());
                            w.hl_q.push(l.quantity);
                        }
                        w.h_id.push(hold.id.clone());
                        w.h_lines.push(lines_json.clone());
                        w.h_expires.push(hold.expires_at);
                        Answer::Hold(hold)
                    }
                    Op::Confirm { id, .. } => {
                        let h = &holds[id];
                        w.ledger(&h.lines, OpKind::Confirm, id);
                        w.f_id.push(id.clone());
                        w.f_status.push(HoldStatus::Confirmed.as_str());
                        w.a_id.push(id.clone());
                        w.a_strategy.push(h.strategy.clone());
                        w.a_lines.push(h.lines_json.clone());
                        Answer::Allocation(Allocation {
                            id: id.clone(),
                            status: "allocated".into(),
                            lines: h.lines.clone(),
                            strategy: h.strategy.clone(),
                            created_at: now,
                        })
                    }
                    Op::Release { id, .. } => {
                        let h = &holds[id];
                        w.ledger(&h.lines, OpKind::Release, id);
                        w.f_id.push(id.clone());
                        w.f_status.push(HoldStatus::Released.as_str());
                        Answer::Hold(Hold {
                            id: id.clone(),
                            status: HoldStatus::Released,
                            kind: HoldKind::Stock,
                            lines: h.lines.clone(),
                            units: None,
                            strategy: h.strategy.clone(),
                            expires_at: h.expires_at,
                            created_at: h.created_at,
                        })
                    }
                };
                if let (Some((key, fp)), Some(resp)) = (op.idem_key(), op.render(&answer)) {
                    w.k_key.push(key.to_string());
                    w.k_fp.push(fp.to_string());
                    w.k_status.push(i32::from(resp.status));
                    w.k_body.push(resp.body);
                }
                Outcome::Fresh(answer)
            }
            // A locked `held` hold always has its quantity held: only the per-request path
            // can say what went wrong.
            Err(_) if matches!(op, Op::Confirm { .. } | Op::Release { .. }) => Outcome::Deferred,
            Err(Refusal::UnknownKey { sku }) if units_skus.contains(sku) => {
                Outcome::Fail(AllotError::wrong_tracking(sku, true))
            }
            Err(Refusal::UnknownKey { sku }) => Outcome::Fail(AllotError::not_found("sku", sku.clone())),
            Err(Refusal::BadQuantity { sku }) => {
                Outcome::Fail(AllotError::invalid(format!("quantity of `{sku}` must be positive")))
            }
            Err(Refusal::Short {
                sku,
                requested,
                available,
            }) => {
                let err = AllotError::InsufficientStock {
                    sku: sku.clone(),
                    requested: *requested,
                    available: *available,
                };
                if overdue.contains(sku) {
                    Outcome::Overdue(sku.clone(), err)
                } else {
                    Outcome::Fail(err)
                }
            }
        });
    }
    // Every success writes ledger lines (stored responses belong to successes only); a
    // batch with none has nothing to write, even where its net changes cancel out.
    if !w.l_sku.is_empty() {
        let stmt = tx.prepare_cached(SQL_BATCH_WRITE).await?;
        let params: [&Param; 25] = [
            &w.u_sku,
            &w.u_bucket,
            &w.u_on,
            &w.u_held,
            &w.l_sku,
            &w.l_delta,
            &w.l_held,
            &w.l_kind,
            &w.l_ref,
            &w.a_id,
            &w.a_strategy,
            &w.a_lines,
            &now,
            &w.h_id,
            &w.h_lines,
            &w.h_expires,
            &w.hl_hold,
            &w.hl_sku,
            &w.hl_q,
            &w.f_id,
            &w.f_status,
            &w.k_key,
            &w.k_fp,
            &w.k_status,
            &w.k_body,
        ];
        let write = tx.execute(&stmt, &params);
        let (written, committed) = tokio::join!(write, tx.batch_execute("COMMIT"));
        written?;
        committed?;
    } else {
        tx.batch_execute("COMMIT").await?;
    }
    Ok(outcomes
        .into_iter()
        .map(|o| o.expect("every request decided"))
        .collect())
}
