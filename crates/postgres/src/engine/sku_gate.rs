//! The writers' gate of a SKU: at most `sku_writers` per-request writers of one SKU's stock
//! rows run in the database at once on this instance; the others wait here, in arrival order
//! (tokio's semaphore is fair), holding no connection.
//!
//! Why: every per-request writer of a hot SKU (`atomic`, `pessimistic`, `optimistic`, the
//! database side of the Redis strategies) queues on one row lock, and PostgreSQL serves that
//! queue worse the longer it is: each waiter sleeps on the tuple lock and then on the holder's
//! transaction lock, is woken, follows the update chain and re-checks the row (EvalPlanQual,
//! PostgreSQL docs 13.2.1) while the others wait behind it. On this 2-core machine allot's
//! single-statement allocation on one row ran at 3 200–4 100 tps from 2 clients against 1 050
//! from 64 (pgbench, synchronous commit; docs/strategies.md, "The writers' gate"). Two writers
//! keep the row busy: one commits while the next one's statement is already waiting on it.
//!
//! Exactness does not rest on the gate: the database's row lock and conditional statements
//! decide every outcome as before, and several instances each have their own gate. The gate
//! only decides who waits where. A writer of several SKUs (a cart) takes their gates in
//! sorted order, so two carts can never each hold a gate the other waits for. In the lock
//! order of the whole service a gate comes after the Redis locks (`redis_lock`, which does not
//! pass the gate) and before a pool connection and any row lock.
//!
//! A sold-out SKU's refusals write nothing and take no row lock, so once a writer through a
//! gate is refused `insufficient_stock`, the gate stands open (writers go straight on) until
//! one succeeds again: the refusals of a sold-out flash sale run side by side, as without a
//! gate.

use allot_core::{AllocationRequest, AllotError, Result, Strategy};
// Keyed by what clients name (tenants, SKUs): foldhash's seeded hasher, a fraction of
// SipHash's cost on names this short, and still seeded per process against chosen collisions.
use foldhash::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

/// Most SKUs whose gates one instance keeps; at it, the gates nobody holds or waits on are
/// dropped (a gate is made again on the SKU's next request).
pub(crate) const MAX_GATED_SKUS: usize = 100_000;

/// Whether the per-request writes of `take` pass the gate: those whose writers of one SKU all
/// meet on one row. `segmented` spreads them over buckets, `batched` writes a SKU from one
/// lane already, `redis_lock`'s Redis lock lets one writer of a SKU through at a time, and a
/// line pinned to a location or placed by a ranked list may write another location's row.
pub(crate) fn passes_gate(take: &AllocationRequest) -> bool {
    matches!(
        take.strategy,
        Strategy::Atomic | Strategy::Pessimistic | Strategy::Optimistic | Strategy::RedisCounter
    ) && take.placed_by_policy()
}

/// One SKU's gate: its places, whether it stands open (the last writer through it was
/// refused short), and the wake-up of the writers waiting when it opens.
struct Gate {
    places: Arc<Semaphore>,
    open: AtomicBool,
    opened: Notify,
}

impl Gate {
    /// A place, or none once the gate stands open (at once, or while waiting for a place).
    async fn pass(&self) -> Option<OwnedSemaphorePermit> {
        // Without a wait, no wake-up to register: an open gate, or a free place.
        if self.open.load(Ordering::Relaxed) {
            return None;
        }
        if let Ok(place) = self.places.clone().try_acquire_owned() {
            return Some(place);
        }
        let opened = self.opened.notified();
        tokio::pin!(opened);
        // Registered before the check, so an opening after it is not missed.
        opened.as_mut().enable();
        if self.open.load(Ordering::Relaxed) {
            return None;
        }
        tokio::select! {
            // The semaphores are never closed.
            p = self.places.clone().acquire_owned() => Some(p.expect("a SKU gate is never closed")),
            () = opened => None,
        }
    }
}

/// Every SKU's gate on this instance, by tenant and SKU.
pub(crate) struct SkuGate {
    writers: usize,
    wait: Duration,
    /// By tenant, then SKU: looked up by `&str`, with no key made per request.
    gates: Mutex<HashMap<String, HashMap<String, Arc<Gate>>>>,
    /// Writers waiting for their places now (`allot_sku_gate_waiting`).
    waiting: AtomicU64,
}

/// One writer counted in [`SkuGate::waiting`] until this drops (its wait ended, or its
/// request went away).
struct Waiting<'a>(&'a AtomicU64);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The places of one request in its SKUs' gates (none in a gate that stood open); given back
/// when dropped.
pub(crate) struct Admitted {
    gates: Vec<Arc<Gate>>,
    _permits: Vec<OwnedSemaphorePermit>,
}

impl Admitted {
    /// Say how the request ended: a writer of one SKU refused `insufficient_stock` opens its
    /// gate, any other outcome of one closes it. A cart's outcome says nothing of one SKU.
    pub(crate) fn ended<T>(&self, result: &Result<T>) {
        if let [gate] = self.gates.as_slice() {
            let short = matches!(result, Err(AllotError::InsufficientStock { .. }));
            if !short {
                gate.open.store(false, Ordering::Relaxed);
            } else if !gate.open.swap(true, Ordering::Relaxed) {
                // Those already waiting go on too.
                gate.opened.notify_waiters();
            }
        }
    }
}

impl SkuGate {
    /// A gate of `writers` places per SKU (0: no gate, every writer goes straight on; at most
    /// tokio's `Semaphore::MAX_PERMITS`); a writer waits at most `wait` for its places.
    pub(crate) fn new(writers: usize, wait: Duration) -> Self {
        SkuGate {
            writers: writers.min(Semaphore::MAX_PERMITS),
            wait,
            gates: Mutex::new(HashMap::default()),
            waiting: AtomicU64::new(0),
        }
    }

    /// Wait for a place in the gate of each of `tenant`'s `skus` (any order, repeats allowed),
    /// taken in sorted order; an open gate is passed without one. Errors: `unavailable` after
    /// waiting longer than `wait` (the store's `pool_wait_ms`, as a writer that waited that
    /// long for a connection is answered); nothing was done, and the places taken so far are
    /// given back.
    pub(crate) async fn admit<'a>(&self, tenant: &str, skus: impl Into<Vec<&'a str>>) -> Result<Admitted> {
        if self.writers == 0 {
            return Ok(Admitted {
                gates: Vec::new(),
                _permits: Vec::new(),
            });
        }
        // Sorted in place: a caller's own list is taken, not copied.
        let mut sorted: Vec<&str> = skus.into();
        sorted.sort_unstable();
        sorted.dedup();
        let gates: Vec<Arc<Gate>> = sorted.iter().map(|sku| self.gate(tenant, sku)).collect();
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let _counted = Waiting(&self.waiting);
        let take_all = async {
            let mut permits = Vec::with_capacity(gates.len());
            for g in &gates {
                permits.extend(g.pass().await);
            }
            permits
        };
        // Free places (the usual case) are taken at the first poll, the bound made only if
        // the writer waits (`at_once`).
        let taken = {
            let mut take_all = std::pin::pin!(take_all);
            match allot_core::support::at_once::at_once(take_all.as_mut()).await {
                Some(permits) => Ok(permits),
                None => tokio::time::timeout(self.wait, take_all).await,
            }
        };
        match taken {
            Ok(permits) => Ok(Admitted {
                gates,
                _permits: permits,
            }),
            Err(_) => Err(AllotError::Unavailable(format!(
                "waited over {} ms behind other writers of one SKU (sku_writers = {})",
                self.wait.as_millis(),
                self.writers
            ))),
        }
    }

    /// A place in the gate of each SKU `take` writes, when it passes the gate
    /// ([`passes_gate`]); `None` otherwise. Taken before a connection, so a writer waiting
    /// here holds none. Errors as [`SkuGate::admit`].
    pub(crate) async fn admit_writer(&self, tenant: &str, take: &AllocationRequest) -> Result<Option<Admitted>> {
        if !passes_gate(take) {
            return Ok(None);
        }
        let skus: Vec<&str> = take.lines.iter().map(|l| l.sku.as_str()).collect();
        self.admit(tenant, skus).await.map(Some)
    }

    /// Writers waiting for their places now.
    pub(crate) fn waiting(&self) -> u64 {
        self.waiting.load(Ordering::Relaxed)
    }

    /// The gate of `tenant`'s `sku`, made on first use.
    fn gate(&self, tenant: &str, sku: &str) -> Arc<Gate> {
        let mut gates = self.gates.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(g) = gates.get(tenant).and_then(|skus| skus.get(sku)) {
            return g.clone();
        }
        if gates.values().map(HashMap::len).sum::<usize>() >= MAX_GATED_SKUS {
            // Held or waited on: a request has a clone of it or of its places.
            for skus in gates.values_mut() {
                skus.retain(|_, g| Arc::strong_count(g) > 1 || Arc::strong_count(&g.places) > 1);
            }
            gates.retain(|_, skus| !skus.is_empty());
        }
        let gate = Gate {
            places: Arc::new(Semaphore::new(self.writers)),
            open: AtomicBool::new(false),
            opened: Notify::new(),
        };
        gates
            .entry(tenant.to_string())
            .or_default()
            .entry(sku.to_string())
            .or_insert_with(|| Arc::new(gate))
            .clone()
    }

    /// How many SKUs have a gate now (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.gates.lock().unwrap().values().map(HashMap::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_third_writer_waits_until_one_of_two_leaves() {
        let gate = SkuGate::new(2, Duration::from_secs(30));
        let a = gate.admit("t", &["HOT"]).await.unwrap();
        let _b = gate.admit("t", &["HOT", "HOT"]).await.unwrap();
        // Another SKU and another tenant's HOT are not behind them.
        let _other = gate.admit("t", &["COLD"]).await.unwrap();
        let _tenant = gate.admit("u", &["HOT"]).await.unwrap();
        let third = gate.admit("t", &["HOT"]);
        tokio::pin!(third);
        assert!(futures::poll!(third.as_mut()).is_pending());
        drop(a);
        assert!(third.await.is_ok());
    }

    #[tokio::test]
    async fn a_refusal_for_short_stock_opens_the_gate_until_a_success() {
        let gate = SkuGate::new(1, Duration::from_secs(30));
        let short: Result<()> = Err(AllotError::InsufficientStock {
            sku: "HOT".into(),
            requested: 1,
            available: 0,
        });
        let a = gate.admit("t", &["HOT"]).await.unwrap();
        a.ended(&short);
        // Open: past a's place, and a cart's outcome does not close it.
        let b = gate.admit("t", &["HOT"]).await.unwrap();
        let cart = gate.admit("t", &["HOT", "X"]).await.unwrap();
        cart.ended(&Ok(()));
        b.ended(&Ok(()));
        let c = gate.admit("t", &["HOT"]);
        tokio::pin!(c);
        assert!(futures::poll!(c.as_mut()).is_pending(), "closed again by b's success");
        // A refusal opens it again, and c and d, waiting, go on while a still holds its place.
        let d = gate.admit("t", &["HOT"]);
        tokio::pin!(d);
        assert!(futures::poll!(d.as_mut()).is_pending());
        b.ended(&short);
        let c = tokio::time::timeout(Duration::from_secs(5), c).await.unwrap().unwrap();
        let _d = tokio::time::timeout(Duration::from_secs(5), d).await.unwrap().unwrap();
        c.ended(&Ok(()));
        let e = gate.admit("t", &["HOT"]);
        tokio::pin!(e);
        assert!(futures::poll!(e.as_mut()).is_pending());
        drop(a);
        assert!(e.await.is_ok());
    }

    #[tokio::test]
    async fn a_writer_that_waits_too_long_is_unavailable() {
        let gate = SkuGate::new(1, Duration::from_millis(20));
        let _a = gate.admit("t", &["HOT"]).await.unwrap();
        let err = gate.admit("t", &["A", "HOT"]).await.err().unwrap();
        assert!(matches!(err, AllotError::Unavailable(_)));
        // It gave back the place it had taken in A's gate.
        let _again = tokio::time::timeout(Duration::from_secs(5), gate.admit("t", &["A"]))
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn carts_take_their_gates_in_one_order_and_never_deadlock() {
        let gate = Arc::new(SkuGate::new(1, Duration::from_secs(30)));
        let mut tasks = Vec::new();
        for i in 0..200 {
            let gate = gate.clone();
            tasks.push(tokio::spawn(async move {
                let skus: &[&str] = if i % 2 == 0 { &["A", "B"] } else { &["B", "A"] };
                let _in = gate.admit("t", skus).await.unwrap();
                tokio::task::yield_now().await;
            }));
        }
        for t in tasks {
            tokio::time::timeout(Duration::from_secs(30), t).await.unwrap().unwrap();
        }
    }

    #[tokio::test]
    async fn no_gate_admits_everyone_and_keeps_nothing() {
        let gate = SkuGate::new(0, Duration::from_millis(1));
        let held: Vec<Admitted> = futures::future::join_all((0..100).map(|_| gate.admit("t", &["HOT"])))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(held.len(), 100);
        assert_eq!(gate.len(), 0);
    }

    #[tokio::test]
    async fn at_the_bound_gates_nobody_holds_are_dropped() {
        let gate = SkuGate::new(1, Duration::from_secs(1));
        let held = gate.admit("t", &["KEPT"]).await.unwrap();
        for i in 1..MAX_GATED_SKUS {
            let sku = format!("S{i}");
            drop(gate.admit("t", [sku.as_str()]).await.unwrap());
        }
        assert_eq!(gate.len(), MAX_GATED_SKUS);
        drop(gate.admit("t", &["ONE_MORE"]).await.unwrap());
        // KEPT (held) and ONE_MORE remain.
        assert_eq!(gate.len(), 2);
        drop(held);
    }
}
