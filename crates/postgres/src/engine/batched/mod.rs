//! The `batched` strategy on PostgreSQL: a combiner per server instance. Allocation, hold,
//! confirm and release requests queue on a lane (chosen by a hash of their first SKU); a
//! lane's batch takes what queued, and the next takes what arrived meanwhile (after a full
//! batch, as soon as that one has read its stock rows: two in flight, `lane.rs`) — no fixed
//! delay, so an idle lane serves a lone request at once (a lone allocation on its
//! per-request path, `atomic`'s one statement: nothing waits to share its commit) and a hot
//! one serves hundreds per commit.
//!
//! A batch serves one tenant: what a lane took from its queue runs as one transaction per
//! tenant, in arrival order within each.
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
//! Bounds: `batch_max_requests` per transaction, `batch_max_queued` waiting per instance, all
//! lanes together (beyond it a request is answered `503 unavailable` at once: back-pressure).

mod lane;
#[cfg(test)]
mod mixed_tests;
#[cfg(test)]
mod race_tests;
mod txn;
mod writes;

use crate::engine::combiner::{Op, Pending, Reply};
use crate::engine::store::PgStore;
use allot_core::store::{Executed, Keyed};
use allot_core::Capable;
use allot_core::{Allocation, AllocationRequest, AllotError, Hold, HoldRequest, Result, Strategy};
use tokio::sync::oneshot;

/// The one write statement of a batch that read its stock rows without a lock (the form a
/// batch of allocations and new holds on one SKU of one stock row takes): every row a batch
/// writes (the net change of each stock row, the ledger entries, the allocation records, new
/// holds and their lines, finished holds, stored responses) from 30 parameters, as
/// `writes.rs` documents them; it fails with 22012 (division_by_zero) unless it updated
/// `$30` stock rows. Public for `allot bench batch`, which runs it alone through pgbench
/// (PostgreSQL's own cost of a batch's rows, without HTTP or the server) as the batch API's
/// reference.
pub fn batch_write_sql() -> &'static str {
    writes::SQL_BATCH_WRITE_UNLOCKED
}

/// How many batch transactions one lane (one SKU's) runs at once, at most: the clients
/// `allot bench batch`'s reference gives one hot SKU.
pub fn batches_in_flight_per_lane() -> usize {
    lane::STOCK_BATCHES_IN_FLIGHT
}

/// The per-request path of an allocation, which a lane runs a request on when its batch
/// deferred it: named, so a deferred request never re-enters the store traits. The stock
/// domain implements it (`stock/mod.rs`).
pub(crate) trait AllocatePerRequest {
    /// Allocate `req` on the per-request path (its strategy's statements, or the envelope).
    async fn allocate_per_request(
        &self,
        tenant: &str,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>>;
}

/// The per-request paths of a hold and its finishes, as [`AllocatePerRequest`]; the holds
/// domain implements them.
pub(crate) trait HoldPerRequest {
    /// Create the hold `req` on the per-request path.
    async fn hold_per_request(&self, tenant: &str, req: HoldRequest, idem: Keyed<Hold>) -> Result<Executed<Hold>>;
    /// Confirm hold `target.0` (whole when `target.1` is `None`) on the per-request path.
    async fn confirm_per_request(
        &self,
        tenant: &str,
        target: (&str, Option<allot_core::hold::ConfirmPart>),
        actor: Option<String>,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>>;
    /// Release hold `id` on the per-request path.
    async fn release_per_request(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>>;
}

impl PgStore {
    /// Queue the request of `tenant` that `make` builds around its reply channel on the lane
    /// of `lane_sku`, and wait for the answer of the transaction that served it.
    async fn submit_batched<T>(
        &self,
        tenant: &str,
        lane_sku: String,
        make: impl FnOnce(Reply<T>) -> Op,
    ) -> Result<Executed<T>> {
        let combiner = self
            .combiner
            .as_ref()
            .ok_or_else(|| AllotError::Internal("batched request on a lane's own store".into()))?;
        let (reply, answer) = oneshot::channel();
        let p = Pending {
            op: make(reply),
            tenant: tenant.to_string(),
            lane_sku,
            expired: Vec::new(),
            span: tracing::Span::current(),
        };
        lane::submit(combiner, self, p).map_err(|b| b.1)?;
        answer
            .await
            .map_err(|_| AllotError::Unavailable("the batch combiner stopped".into()))?
    }

    /// Allocate with the `batched` strategy.
    pub(crate) async fn allocate_batched(
        &self,
        tenant: &str,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let lane_sku = req.lines.first().map(|l| l.sku.clone()).unwrap_or_default();
        self.submit_batched(tenant, lane_sku, |reply| Op::Allocate { req, idem, reply })
            .await
    }

    /// Create a hold with the `batched` strategy: its stock lines and (a mixed hold) its unit
    /// and booking lines in one batch transaction of its lane.
    pub(crate) async fn hold_batched(
        &self,
        tenant: &str,
        req: HoldRequest,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>> {
        let lane_sku = req.take.lines.first().map(|l| l.sku.clone()).unwrap_or_default();
        let lane = lane_sku.clone();
        let made = self
            .submit_batched(tenant, lane_sku, |reply| Op::Hold { req, idem, reply })
            .await;
        // A mixed hold is finished on the per-request path (a batch finishes stock holds):
        // its lane is not remembered.
        let stock = matches!(&made, Ok(Executed::Fresh(h)) if h.kind == allot_core::hold::HoldKind::Stock);
        if let (Ok(Executed::Fresh(hold)), Some(combiner), true) = (&made, &self.combiner, stock) {
            combiner.remember_hold((tenant, &hold.id), &lane, (hold.expires_at, self.now()));
        }
        made
    }

    /// The lane SKU of `tenant`'s hold `id` when this instance made it with `batched` and
    /// its finish should queue there; `None` sends it on the per-request path. No database
    /// read: the combiner remembers the lanes of the holds it made
    /// ([`crate::engine::combiner::Combiner::hold_lane`]).
    pub(crate) fn batched_hold_lane(&self, tenant: &str, id: &str) -> Option<String> {
        self.combiner.as_ref()?.hold_lane(tenant, id)
    }

    /// Confirm a `batched` stock hold on the lane of `lane_sku`.
    pub(crate) async fn confirm_batched(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Keyed<Allocation>,
        lane_sku: String,
    ) -> Result<Executed<Allocation>> {
        let id = id.to_string();
        self.submit_batched(tenant, lane_sku, |reply| Op::Confirm { id, actor, idem, reply })
            .await
    }

    /// Release a `batched` stock hold on the lane of `lane_sku`.
    pub(crate) async fn release_batched(
        &self,
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Keyed<Hold>,
        lane_sku: String,
    ) -> Result<Executed<Hold>> {
        let id = id.to_string();
        self.submit_batched(tenant, lane_sku, |reply| Op::Release { id, actor, idem, reply })
            .await
    }
}

/// Whether an allocation takes the single-statement path (`atomic`'s statement, no
/// transaction): one line placed by policy, no idempotency key (a key's row is claimed and
/// stored in a transaction), a strategy whose writes that statement serves.
pub(crate) fn fits_one_statement(req: &AllocationRequest, idem: &Keyed<Allocation>) -> bool {
    idem.is_none()
        && req.lines.len() == 1
        && req.placed_by_policy()
        && matches!(
            req.strategy,
            Strategy::Atomic | Strategy::Segmented | Strategy::RedisCounter | Strategy::Batched
        )
}

#[cfg(test)]
mod routing {
    use allot_core::hold::{Confirm, Release};
    use allot_core::store::{HoldStore, StockStore};
    use allot_core::{validate, Strategy};
    use serde_json::json;

    /// A `batched` hold's finish goes to its lane by what the combiner remembers, with no
    /// read; once finished (or made by another strategy) nothing is remembered, and the
    /// per-request path serves it.
    #[tokio::test]
    async fn a_batched_holds_finish_knows_its_lane_without_a_read() {
        let schema = crate::engine::test_schema::TestSchema::new("t_route").await;
        let t = &allot_core::Tenant::stored("t");
        let store = schema.store().await;
        let limits = allot_core::Limits::default();
        let sku = validate::create_sku(
            serde_json::from_value(json!({"sku": "R", "on_hand": 10})).unwrap(),
            &limits,
        );
        store.create_sku(t, sku.unwrap(), None).await.unwrap();
        let hold = |id: &str, strategy: Strategy| {
            let body = json!({"lines": [{"sku": "R", "quantity": 1}], "ttl_ms": 60_000});
            validate::hold(id.into(), serde_json::from_value(body).unwrap(), strategy, &limits).unwrap()
        };
        store.create_hold(t, hold("hb", Strategy::Batched), None).await.unwrap();
        store.create_hold(t, hold("ha", Strategy::Atomic), None).await.unwrap();
        assert_eq!(store.batched_hold_lane("t", "hb").as_deref(), Some("R"));
        assert_eq!(store.batched_hold_lane("t", "hb"), None, "taken out when routed");
        assert_eq!(store.batched_hold_lane("t", "ha"), None);
        store.create_hold(t, hold("hc", Strategy::Batched), None).await.unwrap();
        store.release_hold(t, Release::new("hc", None), None).await.unwrap();
        assert_eq!(store.batched_hold_lane("t", "hc"), None, "a finished hold is forgotten");
        store
            .confirm_hold(t, Confirm::new("ha", None, None), None)
            .await
            .unwrap();
        store.release_hold(t, Release::new("hb", None), None).await.unwrap();
        assert_eq!(store.get_sku(t, "R").await.unwrap().available, 9);
        drop(store);
        schema.drop().await;
    }
}
