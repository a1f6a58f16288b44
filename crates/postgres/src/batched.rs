//! The `batched` strategy on PostgreSQL: a combiner per server instance. Allocation requests
//! queue on a lane (chosen by a hash of their first SKU); each lane runs one transaction at a
//! time, and every request that arrived while it ran goes into the next one — no fixed delay,
//! so an idle lane serves a lone request at once and a hot one serves hundreds per commit.
//! One transaction: idempotency keys (try-lock and lookup, in bulk), every key of the batch
//! locked once in (sku, bucket) order (`SELECT … FOR UPDATE`, the same global order as every
//! other strategy, so batches of several instances serialise on the rows and cannot
//! deadlock), [`allot_core::batch::evaluate`], one `UPDATE … FROM unnest(…)` for the net
//! change of every bucket, ledger, allocations and stored responses in bulk, one commit; then
//! each request gets its own answer. A transaction that fails answers every request in it
//! `503 unavailable` (nothing of it was applied); 40001/40P01 run the batch again first
//! (bounded by `max_tx_retries`).
//!
//! Bounds: `batch_max_requests` per transaction, `batch_max_queued` waiting per instance
//! (a full lane answers `503 unavailable` at once: back-pressure).

use crate::stock::IDEMPOTENCY_LOCK_CLASS;
use crate::{is_retryable, map_error, PgStore};
use allot_core::batch::{evaluate, spread, Balance, BatchOp, OpKind, Refusal};
use allot_core::store::{Executed, Idempotency, StoredResponse};
use allot_core::strategy::fnv1a_64;
use allot_core::*;
use chrono::Utc;
use rand::Rng;
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

/// Everything a batch writes, in one statement (one round trip): the net change of every
/// bucket (`$1..$4`: sku, bucket, on_hand delta, held delta), the ledger (`$5..$7`: sku,
/// quantity, allocation id), the allocations (`$8, $9`: id, lines; `$10` created_at) and the
/// stored responses of idempotent requests (`$11..$14`). Data-modifying CTEs all run, to
/// completion, whether or not the outer query reads them (PostgreSQL docs, 7.8.4).
const SQL_BATCH_WRITE: &str = "WITH upd AS (
    UPDATE stock s SET on_hand = s.on_hand + d.d_on, held = s.held + d.d_held, version = s.version + 1
      FROM unnest($1::text[], $2::int4[], $3::int8[], $4::int8[]) AS d(sku, b, d_on, d_held)
     WHERE s.sku = d.sku AND s.bucket = d.b),
led AS (
    INSERT INTO ledger (sku, delta, held_delta, kind, ref)
    SELECT t.sku, -t.q, 0, 'allocation', t.r FROM unnest($5::text[], $6::int8[], $7::text[]) AS t(sku, q, r)),
alo AS (
    INSERT INTO allocations (id, status, strategy, lines, created_at)
    SELECT t.id, 'allocated', 'batched', t.lines, $10 FROM unnest($8::text[], $9::jsonb[]) AS t(id, lines)),
idk AS (
    INSERT INTO idempotency_keys (key, fingerprint, status, body)
    SELECT * FROM unnest($11::text[], $12::text[], $13::int4[], $14::bytea[]))
SELECT 1";

/// One waiting allocation request.
pub(crate) struct Pending {
    req: AllocationRequest,
    idem: Option<Idempotency<Allocation>>,
    lines_json: serde_json::Value,
    reply: oneshot::Sender<Result<Executed<Allocation>>>,
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
    /// clone drops, the senders drop and the task ends.
    fn submit(this: &Arc<Combiner>, store: &PgStore, p: Pending) -> Result<()> {
        let first = p.req.lines.first().map(|l| l.sku.as_str()).unwrap_or("");
        let lane = &this.lanes[(fnv1a_64(first.as_bytes()) % LANES as u64) as usize];
        let rx = lane.rx.lock().map(|mut g| g.take()).unwrap_or(None);
        if let Some(rx) = rx {
            let ctx = LaneCtx {
                store: store.without_combiner(),
                combiner: Arc::downgrade(this),
            };
            tokio::spawn(lane_loop(ctx, rx));
        }
        lane.tx.try_send(p).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => AllotError::Unavailable(format!(
                "batch queue full (batch_max_queued = {})",
                store.limits.batch_max_queued
            )),
            mpsc::error::TrySendError::Closed(_) => AllotError::Unavailable("the batch combiner stopped".into()),
        })
    }
}

impl PgStore {
    /// Allocate with the `batched` strategy: queue the request on its lane and wait for the
    /// answer of the transaction that served it.
    pub(crate) async fn allocate_batched(
        &self,
        req: AllocationRequest,
        idem: Option<Idempotency<Allocation>>,
        lines_json: serde_json::Value,
    ) -> Result<Executed<Allocation>> {
        let combiner = self
            .combiner
            .as_ref()
            .ok_or_else(|| AllotError::Internal("batched request on a lane's own store".into()))?;
        let (reply, answer) = oneshot::channel();
        let p = Pending {
            req,
            idem,
            lines_json,
            reply,
            expiry_passes: 0,
        };
        Combiner::submit(combiner, self, p)?;
        answer
            .await
            .map_err(|_| AllotError::Unavailable("the batch combiner stopped".into()))?
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
    Fresh(Allocation),
    Replayed(StoredResponse),
    Fail(AllotError),
    /// Short while overdue holds count as held on `sku`: expire them, run it again.
    Overdue(String, AllotError),
}

async fn run_batch(ctx: &LaneCtx, batch: Vec<Pending>) {
    let now = Utc::now();
    let started = std::time::Instant::now();
    let limits = &ctx.store.limits;
    let mut tries = 0u32;
    let outcomes = loop {
        match try_batch(&ctx.store, &batch, now).await {
            Ok(o) => break Ok(o),
            Err(e) if is_retryable(&e) && tries < limits.max_tx_retries => {
                tries += 1;
                let r: u64 = rand::rng().random();
                let backoff = retry::Backoff::default();
                tokio::time::sleep(std::time::Duration::from_micros(backoff.delay_us(tries - 1, r))).await;
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
                let _ = p.reply.send(Err(AllotError::Unavailable(msg.clone())));
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
            Outcome::Overdue(sku, err) => match ctx.combiner.upgrade() {
                Some(combiner) if p.expiry_passes < MAX_EXPIRY_PASSES => {
                    // Expire on the side and queue the request again; its answer comes from
                    // a later batch.
                    let store = ctx.store.clone();
                    tokio::spawn(async move {
                        if let Err(e) = store.expire_overdue_on(&sku, Utc::now()).await {
                            let _ = p.reply.send(Err(e));
                            return;
                        }
                        let again = Pending {
                            expiry_passes: p.expiry_passes + 1,
                            ..p
                        };
                        if let Err(e) = Combiner::submit(&combiner, &store, again) {
                            tracing::warn!(error = %e, "requeue after hold expiry failed");
                        }
                    });
                    continue;
                }
                _ => Err(err),
            },
        };
        let _ = p.reply.send(answer);
    }
}

async fn try_batch(
    store: &PgStore,
    batch: &[Pending],
    now: chrono::DateTime<Utc>,
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

/// One batch transaction on `c`, begun and committed by hand so that `BEGIN` travels with
/// the first query and `COMMIT` with the write (two round trips for a batch without
/// idempotency keys). A failed write turns the pipelined `COMMIT` into a rollback.
async fn batch_tx(
    tx: &deadpool_postgres::ClientWrapper,
    batch: &[Pending],
    now: chrono::DateTime<Utc>,
) -> std::result::Result<Vec<Outcome>, tokio_postgres::Error> {
    let begun = batch.iter().any(|p| p.idem.is_some());
    if begun {
        tx.batch_execute("BEGIN").await?;
    }
    let mut outcomes: Vec<Option<Outcome>> = (0..batch.len()).map(|_| None).collect();

    // Idempotency keys: try-lock all (a busy one is another request still running: in use),
    // then read the stored responses, in two statements.
    let keyed: Vec<usize> = (0..batch.len()).filter(|&i| batch[i].idem.is_some()).collect();
    if !keyed.is_empty() {
        let mut seen = HashSet::new();
        let mut lock_idx = Vec::new();
        for &i in &keyed {
            let key = &batch[i].idem.as_ref().expect("keyed").key;
            if !seen.insert(key.clone()) {
                outcomes[i] = Some(Outcome::Fail(AllotError::IdempotencyKeyInUse));
            } else {
                lock_idx.push(i);
            }
        }
        let objids: Vec<i32> = lock_idx
            .iter()
            .map(|&i| fnv1a_64(batch[i].idem.as_ref().expect("keyed").key.as_bytes()) as u32 as i32)
            .collect();
        let stmt = tx
            .prepare_cached(
                "SELECT pg_try_advisory_xact_lock($1, o) FROM unnest($2::int4[]) WITH ORDINALITY AS t(o, n) ORDER BY n",
            )
            .await?;
        let got: Vec<bool> = tx
            .query(&stmt, &[&IDEMPOTENCY_LOCK_CLASS as &Param, &objids])
            .await?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let keys: Vec<&str> = lock_idx
            .iter()
            .map(|&i| batch[i].idem.as_ref().expect("keyed").key.as_str())
            .collect();
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
            let idem = batch[i].idem.as_ref().expect("keyed");
            outcomes[i] = if !got[n] {
                Some(Outcome::Fail(AllotError::IdempotencyKeyInUse))
            } else {
                match stored.get(&idem.key) {
                    None => None,
                    Some((fp, _, _)) if *fp != idem.fingerprint => {
                        Some(Outcome::Fail(AllotError::IdempotencyKeyReused))
                    }
                    Some((_, status, body)) => Some(Outcome::Replayed(StoredResponse {
                        status: *status as u16,
                        body: body.clone(),
                    })),
                }
            };
        }
    }

    // Lock every key of the requests still open, once, in (sku, bucket) order.
    let open: Vec<usize> = (0..batch.len()).filter(|&i| outcomes[i].is_none()).collect();
    let skus: Vec<String> = open
        .iter()
        .flat_map(|&i| batch[i].req.lines.iter().map(|l| l.sku.clone()))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let stmt = tx
        .prepare_cached(
            "SELECT sku, bucket, on_hand, held FROM stock WHERE sku = ANY($1) ORDER BY sku, bucket FOR UPDATE",
        )
        .await?;
    let mut buckets: BTreeMap<String, Vec<(u32, i64, i64)>> = BTreeMap::new();
    let rows = if begun {
        tx.query(&stmt, &[&skus]).await?
    } else {
        let params: [&Param; 1] = [&skus];
        let (began, rows) = tokio::join!(tx.batch_execute("BEGIN"), tx.query(&stmt, &params));
        began?;
        rows?
    };
    for r in rows {
        let b: i32 = r.get(1);
        buckets
            .entry(r.get(0))
            .or_default()
            .push((b as u32, r.get(2), r.get(3)));
    }
    let balances: BTreeMap<String, Balance> = buckets
        .iter()
        .map(|(k, rows)| {
            let (on_hand, held) = rows.iter().fold((0, 0), |(a, b), r| (a + r.1, b + r.2));
            (k.clone(), Balance { on_hand, held })
        })
        .collect();
    let ops: Vec<BatchOp> = open
        .iter()
        .map(|&i| BatchOp {
            kind: OpKind::Allocate,
            lines: batch[i].req.lines.iter().map(|l| (l.sku.clone(), l.quantity)).collect(),
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

    // Apply the net change of every bucket in one statement.
    let (mut u_sku, mut u_bucket, mut u_on, mut u_held) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (sku, net) in &result.net {
        let rows = &buckets[sku];
        let changes = spread(rows, *net).unwrap_or_else(|| {
            // evaluate() only asks what the totals allow, and spread() fits any such net.
            panic!("batched: net {net:?} does not fit the buckets of {sku}: {rows:?}")
        });
        for (b, d_on, d_held) in changes {
            u_sku.push(sku.clone());
            u_bucket.push(b as i32);
            u_on.push(d_on);
            u_held.push(d_held);
        }
    }
    // Ledger, allocations and stored responses of the successes, in bulk.
    let (mut l_sku, mut l_q, mut l_ref) = (Vec::new(), Vec::new(), Vec::new());
    let (mut a_id, mut a_lines) = (Vec::new(), Vec::new());
    let (mut k_key, mut k_fp, mut k_status, mut k_body) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (n, &i) in open.iter().enumerate() {
        let p = &batch[i];
        outcomes[i] = Some(match &result.outcomes[n] {
            Ok(()) => {
                for l in &p.req.lines {
                    l_sku.push(l.sku.clone());
                    l_q.push(l.quantity);
                    l_ref.push(p.req.id.clone());
                }
                a_id.push(p.req.id.clone());
                a_lines.push(p.lines_json.clone());
                let alloc = p.req.to_allocation(now);
                if let Some(idem) = &p.idem {
                    let resp = (idem.render)(&alloc);
                    k_key.push(idem.key.clone());
                    k_fp.push(idem.fingerprint.clone());
                    k_status.push(i32::from(resp.status));
                    k_body.push(resp.body);
                }
                Outcome::Fresh(alloc)
            }
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
    if !u_sku.is_empty() || !k_key.is_empty() {
        let stmt = tx.prepare_cached(SQL_BATCH_WRITE).await?;
        let params: [&Param; 14] = [
            &u_sku, &u_bucket, &u_on, &u_held, &l_sku, &l_q, &l_ref, &a_id, &a_lines, &now, &k_key, &k_fp, &k_status,
            &k_body,
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
