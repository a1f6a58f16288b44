//! A lane's task: it takes what queued (up to `batch_max_requests`), runs one batch
//! transaction ([`super::txn`]), retries it on 40001/40P01 (bounded), and answers every
//! request; what the batch deferred runs on the per-request path, what was short because of
//! overdue holds is queued again after they are expired. An allocation the lane finds alone
//! (nothing else of its tenant waited) that fits `atomic`'s single statement (one line, no
//! idempotency key) runs it at once: one statement and one round trip where a batch of one pays
//! BEGIN, a read, a write and COMMIT (`allot bench cost`'s `batched` row).
//!
//! Up to [`STOCK_BATCHES_IN_FLIGHT`] batches of a lane run at once when a backlog waits (the
//! batch before took `batch_max_requests` and more wait): the next begins once that one has
//! read its stock rows (its [`Go`]), so its `BEGIN`, key and hold locks and its own read
//! travel while the first writes and commits. A batch of allocations and new holds on one
//! SKU's one row, that all fit what it read ([`Read::Optimistic`]), reads without a lock and
//! takes the row only near the end of its one write statement, after its other records and
//! before its ledger, with a
//! relative change that the stock table's CHECKs refuse should it oversell: the batches of a
//! lane then write their records side by side and hold the hot row only from that UPDATE to
//! `COMMIT`.
//! Any other batch locks its rows (`SELECT … FOR UPDATE`) before deciding, and its lock is
//! granted at the commit of the one before (READ COMMITTED re-reads a row locked after a
//! wait: PostgreSQL docs, 13.2.1). Without a backlog the next batch begins when the one
//! before ends, with everything that arrived meanwhile. Three consequences of the overlap,
//! each exact but no longer in arrival order across batches: an optimistic batch whose
//! write is refused (the stock no longer holds what it took: 23514; 22012 for a row not
//! found) runs again locking,
//! behind the batches that began meanwhile; a batch that fails after its `Go` (40001/40P01)
//! runs again likewise; and an optimistic batch that waits on something else (an
//! idempotency key's row) does not hold the SKU's row meanwhile, so the next batch may
//! commit first. A request whose idempotency key the batch before still holds is `409` in
//! use, as any request whose key a running request holds, where one batch at a time would
//! have replayed it.

use super::txn::{batch_tx, Failed, Outcome, Read};
use super::{fits_one_statement, AllocatePerRequest, HoldPerRequest};
use crate::engine::combiner::{Combiner, Op, Pending, Queued, LANE_SHARE_DIVISOR};
use crate::engine::errors::{is_retryable, map_error};
use crate::engine::flat::{Go, InFlight};
use crate::engine::pipeline::HandTx;
use crate::engine::store::PgStore;
use allot_core::store::Executed;
use allot_core::AllotError;
use allot_core::Capable;
use chrono::{DateTime, Utc};
use std::collections::HashSet;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::mpsc;

/// Batches of one lane in flight at once (see the module's doc).
pub(super) const STOCK_BATCHES_IN_FLIGHT: usize = 2;

/// Queue `p` on its lane, starting the lane's task on first use. The task holds a store
/// without a combiner and only a weak reference to this one, so when the last store clone
/// drops, the senders drop and the task ends. With `batch_max_queued` requests already
/// waiting on the instance's lanes (all of them together), or its lane's share of that, the
/// request is handed back.
pub(super) fn submit(
    this: &Arc<Combiner>,
    store: &PgStore,
    p: Pending,
) -> std::result::Result<(), Box<(Pending, AllotError)>> {
    let lane = this.lane(&p.tenant, &p.lane_sku);
    let rx = lane.rx.lock().map(|mut g| g.take()).unwrap_or(None);
    if let Some(rx) = rx {
        let ctx = LaneCtx {
            store: store.without_combiner(),
            combiner: Arc::downgrade(this),
            several_rows: Mutex::new(HashSet::new()),
        };
        tokio::spawn(lane_loop(ctx, rx));
    }
    let places = this.queued.clone().try_acquire_owned().and_then(|instance| {
        let lane = lane.places.clone().try_acquire_owned()?;
        Ok((instance, lane))
    });
    let Ok(places) = places else {
        let e = AllotError::Unavailable(format!(
            "batch queue full (batch_max_queued = {}, at most 1/{LANE_SHARE_DIVISOR} of it on one lane)",
            store.limits.batch_max_queued
        ));
        return Err(Box::new((p, e)));
    };
    lane.tx.send((p, places)).map_err(|e| {
        let p = e.0 .0;
        Box::new((p, AllotError::Unavailable("the batch combiner stopped".into())))
    })
}

/// Run the request on its named per-request path ([`super::AllocatePerRequest`],
/// [`super::HoldPerRequest`]) and send its answer.
async fn run_direct(tenant: String, op: Op, store: PgStore) {
    let t = tenant.as_str();
    match op {
        Op::Allocate { req, idem, reply, .. } => {
            let _ = reply.send(store.allocate_per_request(t, req, idem).await);
        }
        // Boxed: a hold's per-request path (its unit and booking lines) is a future of
        // kilobytes, which would otherwise size every batch this lane runs — each one moved
        // into the set of batches in flight (`allot bench cost`: +24 000 instructions per
        // batched allocation, all in memcpy, before these were boxed).
        Op::Hold { req, idem, reply, .. } => {
            let _ = reply.send(Box::pin(store.hold_per_request(t, req, idem)).await);
        }
        Op::Confirm { id, actor, idem, reply } => {
            let _ = reply.send(Box::pin(store.confirm_per_request(t, (&id, None), actor, idem)).await);
        }
        Op::Release { id, actor, idem, reply } => {
            let _ = reply.send(Box::pin(store.release_per_request(t, &id, actor, idem)).await);
        }
    }
}

/// What a lane's task owns.
struct LaneCtx {
    store: PgStore,
    combiner: Weak<Combiner>,
    /// The lane's SKUs (tenant, SKU) known to have several stock rows, at most
    /// [`MAX_SEVERAL_ROWS_KNOWN`]: a SKU never loses a row, so their batches lock at once
    /// instead of reading first ([`Read::Optimistic`] takes one row only).
    several_rows: Mutex<HashSet<(String, String)>>,
}

/// How many SKUs of several stock rows a lane remembers (beyond, a batch of another such SKU
/// reads before it locks: one round trip more, nothing else).
const MAX_SEVERAL_ROWS_KNOWN: usize = 1024;

/// The lane's task: batches of what queued, up to [`STOCK_BATCHES_IN_FLIGHT`] at once (see
/// the module's doc), until every sender is gone; then the batches in flight finish.
async fn lane_loop(ctx: LaneCtx, mut rx: mpsc::UnboundedReceiver<Queued>) {
    let max = ctx.store.limits.batch_max_requests.max(1);
    let mut batches = InFlight::new(STOCK_BATCHES_IN_FLIGHT, "stock");
    loop {
        let first = match batches.is_empty() {
            true => rx.recv().await,
            false => tokio::select! {
                p = rx.recv() => p,
                _ = batches.next() => continue,
            },
        };
        let Some((first, place)) = first else { break };
        // A request taken off the queue gives its place back at once.
        drop(place);
        let mut batch = vec![first];
        while batch.len() < max {
            match rx.try_recv() {
                Ok((p, place)) => {
                    drop(place);
                    batch.push(p);
                }
                Err(_) => break,
            }
        }
        // A full batch with more waiting: the next may begin once this one has read its rows.
        // Otherwise this one took all that waited, and the next begins when it ends, with all
        // that came meanwhile (a few requests begun early would pay a commit of their own).
        let backlog = batch.len() >= max && !rx.is_empty();
        for batch in by_tenant(batch) {
            batches.start(|go| run_batch(&ctx, batch, go), backlog).await;
        }
    }
    while batches.next().await.is_some() {}
}

/// The requests of one drained batch split by tenant (in order of each tenant's first
/// request, arrival order within each): a batch transaction serves one tenant.
fn by_tenant(batch: Vec<Pending>) -> Vec<Vec<Pending>> {
    let mut groups: Vec<Vec<Pending>> = Vec::new();
    for p in batch {
        match groups.iter_mut().find(|g| g[0].tenant == p.tenant) {
            Some(g) => g.push(p),
            None => groups.push(vec![p]),
        }
    }
    groups
}

/// Run a request the lane took alone on its per-request path (as a deferred one runs,
/// [`run_direct`]), in a batch span of its own (so a trace shows it as a batch of one,
/// linked from its request); the next batch need not wait for it to read.
async fn run_alone(ctx: &LaneCtx, p: Pending, go: Go) {
    drop(go);
    let span = crate::engine::trace::batch_span("stock", std::iter::once(&p.span));
    tracing::Instrument::instrument(run_direct(p.tenant, p.op, ctx.store.clone()), span).await;
}

/// Run one batch in its span ([`crate::engine::trace::batch_span`]); an allocation alone
/// runs on its per-request path instead ([`run_alone`]).
async fn run_batch(ctx: &LaneCtx, mut batch: Vec<Pending>, go: Go) {
    let alone_fits = |op: &Op| matches!(op, Op::Allocate { req, idem, .. } if fits_one_statement(req, idem));
    if batch.len() == 1 && alone_fits(&batch[0].op) {
        if let Some(alone) = batch.pop() {
            // Nothing to share a commit with: the allocation's per-request path is one
            // statement (one round trip) where a batch of one is BEGIN, a read, a write and
            // COMMIT. (A keyed one's, a hold's or a confirm's is a transaction of more
            // statements than a batch's, and would hold the SKU's row while it waits on its
            // key's: they stay in batches.)
            return run_alone(ctx, alone, go).await;
        }
    }
    let span = crate::engine::trace::batch_span("stock", batch.iter().map(|p| &p.span));
    tracing::Instrument::instrument(decide_batch(ctx, batch, go), span).await;
}

/// Decide one batch (retried on 40001/40P01, bounded) and answer every request in it. A
/// transaction that fails for good answers all `503 unavailable`: nothing of it was applied.
async fn decide_batch(ctx: &LaneCtx, batch: Vec<Pending>, go: Go) {
    let now = ctx.store.now();
    let started = std::time::Instant::now();
    let mut tries = 0u32;
    let mut go = Some(go);
    let mut read = ctx.first_read(&batch);
    let mut several_rows = None;
    let outcomes = loop {
        let result = try_batch(&ctx.store, &batch, (now, read), (&mut go, &mut several_rows)).await;
        if let Some(sku) = several_rows.take() {
            ctx.learn_several_rows(&batch, sku);
        }
        match result {
            Ok(o) => break o,
            // Once: a locking batch never races.
            Err(Failed::Raced) => {
                tracing::debug!(
                    requests = batch.len(),
                    "an optimistic batch raced; it runs again locking"
                );
                read = Read::Locking;
            }
            Err(Failed::Db(e)) if is_retryable(&e) && tries < ctx.store.limits.max_tx_retries => {
                tries += 1;
                crate::engine::tx::backoff_sleep(tries).await;
            }
            Err(Failed::Db(e)) => {
                let msg = format!("batch transaction failed: {}", map_error(e));
                tracing::warn!(requests = batch.len(), "{msg}");
                for p in batch {
                    p.op.answer(Err(AllotError::Unavailable(msg.clone())));
                }
                return;
            }
        }
    };
    tracing::debug!(
        requests = batch.len(),
        elapsed_us = started.elapsed().as_micros() as u64,
        "batch committed"
    );
    // The requests deferred to the per-request path run there one after another, in the
    // batch's order (two allocations owing on one SKU meet the limit in the order they came).
    let mut deferred = Vec::new();
    for (p, o) in batch.into_iter().zip(outcomes) {
        match o {
            Outcome::Deferred => deferred.push(p),
            o => ctx.settle(p, o),
        }
    }
    if !deferred.is_empty() {
        let store = ctx.store.clone();
        tokio::spawn(async move {
            for p in deferred {
                run_direct(p.tenant, p.op, store.clone()).await;
            }
        });
    }
}

impl LaneCtx {
    /// How a batch reads its stock first: locking where its SKU is known to have several
    /// rows, else optimistic (the batch itself then sees what it may decide that way).
    fn first_read(&self, batch: &[Pending]) -> Read {
        // One lookup (and one key built) per batch, not per request: only a batch whose
        // requests all share one (tenant, SKU) can be one the lane knows.
        let Some(first) = batch.first() else {
            return Read::Optimistic;
        };
        let one_key = batch
            .iter()
            .all(|p| p.tenant == first.tenant && p.lane_sku == first.lane_sku);
        let known = one_key
            && self.several_rows.lock().is_ok_and(|known| {
                !known.is_empty() && known.contains(&(first.tenant.clone(), first.lane_sku.clone()))
            });
        if known {
            Read::Locking
        } else {
            Read::Optimistic
        }
    }

    /// Remember `sku`, which a batch's optimistic read found with several rows.
    fn learn_several_rows(&self, batch: &[Pending], sku: String) {
        let (Some(p), Ok(mut known)) = (batch.first(), self.several_rows.lock()) else {
            return;
        };
        if known.len() < MAX_SEVERAL_ROWS_KNOWN {
            known.insert((p.tenant.clone(), sku));
        }
    }

    /// Answer `p` as its batch decided: at once, on the per-request path (deferred), or by
    /// a later batch after the overdue holds in its way are expired.
    fn settle(&self, p: Pending, outcome: Outcome) {
        let answer = match outcome {
            Outcome::Fresh(a) => Ok(Executed::Fresh(a)),
            Outcome::Replayed(r) => Ok(Executed::Replayed(r)),
            Outcome::Fail(e) => Err(e),
            Outcome::Deferred => {
                tokio::spawn(run_direct(p.tenant, p.op, self.store.clone()));
                return;
            }
            Outcome::Overdue(sku, err) => match self.combiner.upgrade() {
                // Overdue holds on a short SKU: expired, then the request runs again, as many
                // times per SKU as on the per-request paths.
                Some(combiner) if crate::engine::tx::may_expire_again(&p.expired, &sku) => {
                    tokio::spawn(expire_then_requeue(self.store.clone(), combiner, p, sku));
                    return;
                }
                _ => Err(err),
            },
        };
        p.op.answer(answer);
    }
}

/// Expire the overdue holds on `sku` on the side and queue `p` again; its answer comes from
/// a later batch.
async fn expire_then_requeue(store: PgStore, combiner: Arc<Combiner>, p: Pending, sku: String) {
    if let Err(e) = store.expire_overdue_on(&p.tenant, &sku, store.now()).await {
        p.op.answer(Err(e));
        return;
    }
    let mut again = p;
    again.expired.push(sku);
    if let Err(refused) = submit(&combiner, &store, again) {
        let (p, e) = *refused;
        p.op.answer(Err(e));
    }
}

async fn try_batch(
    store: &PgStore,
    batch: &[Pending],
    (now, read): (DateTime<Utc>, Read),
    go: (&mut Option<Go>, &mut Option<String>),
) -> std::result::Result<Vec<Outcome>, Failed> {
    // Before the batch's connection: a first use takes one of its own.
    let tenant = batch
        .first()
        .map_or(allot_core::access::DEFAULT_TENANT, |p| p.tenant.as_str());
    let sequence = match store.ledger_sequence(tenant).await {
        Ok(oid) => oid,
        Err(e) => return Ok(batch.iter().map(|_| Outcome::Fail(e.clone())).collect()),
    };
    let client = match store.acquire().await {
        Ok(c) => store.wrap(c),
        Err(deadpool_postgres::PoolError::Backend(e)) => return Err(Failed::Db(e)),
        Err(other) => {
            let e = AllotError::Unavailable(format!("no database connection: {other}"));
            return Ok(batch.iter().map(|_| Outcome::Fail(e.clone())).collect());
        }
    };
    // The transaction is run by hand (to pipeline BEGIN and COMMIT): a failed one is rolled
    // back before its connection goes back to the pool.
    let tx = HandTx::new(client);
    let result = batch_tx(&tx, batch, (now, sequence, read), go).await;
    if result.is_err() {
        tx.roll_back().await;
    } else {
        tx.ended();
    }
    result
}
