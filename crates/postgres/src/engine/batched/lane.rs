//! A lane's task: it takes what queued while the last batch ran (up to
//! `batch_max_requests`), runs one batch transaction ([`super::txn`]), retries it on
//! 40001/40P01 (bounded), and answers every request; what the batch deferred runs on the
//! per-request path, what was short because of overdue holds is queued again after they are
//! expired.

use super::txn::{batch_tx, Outcome};
use super::{AllocatePerRequest, HoldPerRequest};
use crate::engine::combiner::{Combiner, Op, Pending};
use crate::engine::errors::{is_retryable, map_error};
use crate::engine::store::PgStore;
use allot_core::store::Executed;
use allot_core::AllotError;
use allot_core::Capable;
use chrono::{DateTime, Utc};
use std::sync::{Arc, Weak};
use tokio::sync::mpsc;

/// Overdue holds found on a short SKU make the request run again after they are expired, at
/// most this many times (as the other strategies do).
const MAX_EXPIRY_PASSES: u32 = 2;

/// Queue `p` on its lane, starting the lane's task on first use. The task holds a store
/// without a combiner and only a weak reference to this one, so when the last store clone
/// drops, the senders drop and the task ends. A full lane hands the request back.
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

/// Run the request on its named per-request path ([`super::AllocatePerRequest`],
/// [`super::HoldPerRequest`]) and send its answer.
async fn run_direct(tenant: String, op: Op, store: PgStore) {
    let t = tenant.as_str();
    match op {
        Op::Allocate { req, idem, reply, .. } => {
            let _ = reply.send(store.allocate_per_request(t, req, idem).await);
        }
        Op::Hold { req, idem, reply, .. } => {
            let _ = reply.send(store.hold_per_request(t, req, idem).await);
        }
        Op::Confirm { id, actor, idem, reply } => {
            let _ = reply.send(store.confirm_per_request(t, (&id, None), actor, idem).await);
        }
        Op::Release { id, actor, idem, reply } => {
            let _ = reply.send(store.release_per_request(t, &id, actor, idem).await);
        }
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
        for batch in by_tenant(batch) {
            run_batch(&ctx, batch).await;
        }
    }
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

/// Run one batch in its span ([`crate::engine::trace::batch_span`]).
async fn run_batch(ctx: &LaneCtx, batch: Vec<Pending>) {
    let span = crate::engine::trace::batch_span("stock", batch.iter().map(|p| &p.span));
    tracing::Instrument::instrument(decide_batch(ctx, batch), span).await;
}

/// Decide one batch (retried on 40001/40P01, bounded) and answer every request in it. A
/// transaction that fails for good answers all `503 unavailable`: nothing of it was applied.
async fn decide_batch(ctx: &LaneCtx, batch: Vec<Pending>) {
    let now = ctx.store.now();
    let started = std::time::Instant::now();
    let mut tries = 0u32;
    let outcomes = loop {
        match try_batch(&ctx.store, &batch, now).await {
            Ok(o) => break o,
            Err(e) if is_retryable(&e) && tries < ctx.store.limits.max_tx_retries => {
                tries += 1;
                crate::engine::tx::backoff_sleep(tries).await;
            }
            Err(e) => {
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
    for (p, o) in batch.into_iter().zip(outcomes) {
        ctx.settle(p, o);
    }
}

impl LaneCtx {
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
                Some(combiner) if p.expiry_passes < MAX_EXPIRY_PASSES => {
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
    let again = Pending {
        expiry_passes: p.expiry_passes + 1,
        ..p
    };
    if let Err(refused) = submit(&combiner, &store, again) {
        let (p, e) = *refused;
        p.op.answer(Err(e));
    }
}

async fn try_batch(
    store: &PgStore,
    batch: &[Pending],
    now: DateTime<Utc>,
) -> std::result::Result<Vec<Outcome>, tokio_postgres::Error> {
    // Before the batch's connection: a first use takes one of its own.
    let tenant = batch
        .first()
        .map_or(allot_core::access::DEFAULT_TENANT, |p| p.tenant.as_str());
    let sequence = match store.ledger_sequence(tenant).await {
        Ok(oid) => oid,
        Err(e) => return Ok(batch.iter().map(|_| Outcome::Fail(e.clone())).collect()),
    };
    let client = match store.pool().get().await {
        Ok(c) => c,
        Err(deadpool_postgres::PoolError::Backend(e)) => return Err(e),
        Err(other) => {
            let e = AllotError::Unavailable(format!("no database connection: {other}"));
            return Ok(batch.iter().map(|_| Outcome::Fail(e.clone())).collect());
        }
    };
    let result = batch_tx(&client, batch, now, sequence).await;
    if result.is_err() {
        // The transaction is managed by hand (to pipeline BEGIN and COMMIT): end it before
        // the connection goes back to the pool. After a failed pipelined COMMIT there is
        // none left and this only warns.
        let _ = client.batch_execute("ROLLBACK").await;
    }
    result
}
