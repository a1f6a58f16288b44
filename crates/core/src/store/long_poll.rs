//! The long-poll claim, in one place: the HTTP claim (`wait_ms`) and the worker pool
//! (`poll_ms`) both run it. Claim; while nothing was runnable and the deadline is ahead, wait
//! for a wake-up of the queue ([`JobStore::wait_for_jobs`]: a NOTIFY on PostgreSQL, a short
//! poll on SQLite; spurious wake-ups allowed) and claim again. Only the last try is
//! [`Claim::final_try`], so with an idempotency key only the answer is stored, never an empty
//! try before the deadline.

use crate::job::{Claim, LeasedJob};
use crate::store::{Executed, JobStore, Keyed};
use crate::support::error::Result;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

/// When the first try of a long-poll claim runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstTry {
    /// At once (a client's claim).
    Now,
    /// After a wake-up or `wait` (a worker whose last claim found nothing: it has just
    /// tried, so trying again at once would only double its idle queries).
    AfterWait,
}

/// Claim `req` in `tenant`, waiting up to `wait` for a runnable job. `key` makes each try's
/// idempotency context (`None` without a key). Returns the first non-empty claim, or the empty
/// one at the deadline (a replay as soon as the key's answer is stored). Once `stop` is
/// ready (the server shuts down) the wait ends: one last, final try runs and its answer is
/// returned. Errors: those of [`JobStore::claim_jobs`], at once.
pub async fn claim_waiting(
    store: &dyn JobStore,
    tenant: &crate::tenant::Tenant,
    (mut req, first): (Claim, FirstTry),
    (wait, stop): (Duration, impl Future<Output = ()>),
    key: impl Fn() -> Keyed<Vec<LeasedJob>>,
) -> Result<Executed<Vec<LeasedJob>>> {
    let deadline = Instant::now() + wait;
    let mut stop = Stop {
        stop: std::pin::pin!(stop),
        stopped: false,
    };
    if first == FirstTry::AfterWait {
        stop.wait(store.wait_for_jobs(tenant, &req.queue, wait)).await;
    }
    loop {
        req.final_try = stop.stopped || Instant::now() >= deadline;
        let executed = store.claim_jobs(tenant, req.clone(), key()).await?;
        if req.final_try || !matches!(&executed, Executed::Fresh(jobs) if jobs.is_empty()) {
            return Ok(executed);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        stop.wait(store.wait_for_jobs(tenant, &req.queue, left)).await;
    }
}

/// A stop signal, polled beside each wait and never again once ready.
struct Stop<'a, F: Future<Output = ()>> {
    stop: Pin<&'a mut F>,
    stopped: bool,
}

impl<F: Future<Output = ()>> Stop<'_, F> {
    /// Wait for `wait`, or until the stop signal is ready (then `stopped` stays set).
    async fn wait(&mut self, wait: impl Future<Output = ()>) {
        if self.stopped {
            return;
        }
        let mut wait = std::pin::pin!(wait);
        std::future::poll_fn(|cx| {
            if self.stop.as_mut().poll(cx).is_ready() {
                self.stopped = true;
                return Poll::Ready(());
            }
            wait.as_mut().poll(cx)
        })
        .await;
    }
}
