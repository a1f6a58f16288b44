//! The `batched` strategy on PostgreSQL: a combiner per server instance. Allocation, hold,
//! confirm and release requests queue on a lane (chosen by a hash of their first SKU); each
//! lane runs one transaction at a time, and every request that arrived while it ran goes into
//! the next one — no fixed delay, so an idle lane serves a lone request at once and a hot one
//! serves hundreds per commit.
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
//! Bounds: `batch_max_requests` per transaction, `batch_max_queued` waiting per instance
//! (a full lane answers `503 unavailable` at once: back-pressure).

mod lane;
mod txn;
mod writes;

use crate::engine::combiner::{Op, Pending, Reply};
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::hold::HoldKind;
use allot_core::store::{Executed, Idempotency};
use allot_core::{Allocation, AllocationRequest, AllotError, Hold, HoldRequest, Result, Strategy};
use tokio::sync::oneshot;

/// A hold's kind, strategy and first SKU, read without a lock to route a finish to its lane.
const SQL_HOLD_ROUTE: &str = "SELECT kind, strategy, lines->0->>'sku' FROM holds WHERE tenant = $2 AND id = $1";

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
            expiry_passes: 0,
        };
        lane::submit(combiner, self, p).map_err(|b| b.1)?;
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
        tenant: &str,
        req: AllocationRequest,
        idem: Option<Idempotency<Allocation>>,
    ) -> Result<Executed<Allocation>> {
        let lane_sku = req.lines.first().map(|l| l.sku.clone()).unwrap_or_default();
        self.submit_batched(tenant, lane_sku, |reply| Op::Allocate { req, idem, reply })
            .await
    }

    /// Create a hold with the `batched` strategy.
    pub(crate) async fn hold_batched(
        &self,
        tenant: &str,
        req: HoldRequest,
        idem: Option<Idempotency<Hold>>,
    ) -> Result<Executed<Hold>> {
        let lane_sku = req.take.lines.first().map(|l| l.sku.clone()).unwrap_or_default();
        self.submit_batched(tenant, lane_sku, |reply| Op::Hold { req, idem, reply })
            .await
    }

    /// The lane SKU of a stock hold made by `batched`, or `None` when its finish takes the
    /// per-request path (no such hold, a unit hold, another strategy). One read, no lock.
    pub(crate) async fn batched_hold_lane(&self, tenant: &str, id: &str) -> Result<Option<String>> {
        if !self.coalesces() {
            return Ok(None);
        }
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_HOLD_ROUTE).await.map_err(map_error)?;
        let row = c.query_opt(&stmt, &[&id, &tenant]).await.map_err(map_error)?;
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
        tenant: &str,
        id: &str,
        actor: Option<String>,
        idem: Option<Idempotency<Allocation>>,
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
        idem: Option<Idempotency<Hold>>,
        lane_sku: String,
    ) -> Result<Executed<Hold>> {
        let id = id.to_string();
        self.submit_batched(tenant, lane_sku, |reply| Op::Release { id, actor, idem, reply })
            .await
    }
}
