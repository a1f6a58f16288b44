//! The server's side of `strategy: "auto"` (the policy is `allot_core::auto`): each SKU's
//! requests in flight on this instance, its contention, and the strategy its next `auto`
//! request runs with. Per instance, in memory, bounded ([`MAX_AUTO_SKUS`]); a restart starts
//! every SKU cold, which costs speed for a moment and never exactness.

use allot_core::auto::{strategy_of, AutoPolicy, AutoView, Contention, Tier};
use allot_core::{Clock, Strategy};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Most SKUs whose contention one instance keeps; at it, cold SKUs with nothing in flight are
/// forgotten first, and only if that frees nothing does the map start over.
pub const MAX_AUTO_SKUS: usize = 100_000;

struct Entry {
    contention: Contention,
    in_flight: Arc<AtomicU32>,
}

/// A request of a SKU in flight: counted from the pick until this drops.
pub struct InFlight(Arc<AtomicU32>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Every SKU's contention on this instance, by (tenant, SKU). `allot_auto_hot_skus` counts the
/// SKUs hot as of their last `auto` request (a SKU that went quiet while hot leaves it with
/// its next request); `view` shows the tier the next request would find.
pub struct AutoChooser {
    policy: AutoPolicy,
    clock: Arc<dyn Clock>,
    skus: Mutex<HashMap<(String, String), Entry>>,
}

impl AutoChooser {
    /// A chooser with the default policy on `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        AutoChooser {
            policy: AutoPolicy::default(),
            clock,
            skus: Mutex::new(HashMap::new()),
        }
    }

    /// The strategy of an `auto` request of `tenant`'s `sku` arriving now (among those
    /// `supported`, else `fallback`), and its place in flight. A switch of tier is counted in
    /// `allot_auto_switches_total{to}` and `allot_auto_hot_skus`.
    pub fn pick(
        &self,
        tenant: &str,
        sku: &str,
        supported: impl Fn(Strategy) -> bool,
        fallback: Strategy,
    ) -> (Strategy, InFlight) {
        let now = self.clock.now();
        let mut skus = self.skus.lock().unwrap_or_else(|p| p.into_inner());
        let key = (tenant.to_string(), sku.to_string());
        if !skus.contains_key(&key) && skus.len() >= MAX_AUTO_SKUS {
            forget_cold(&mut skus);
        }
        let entry = skus.entry(key).or_insert_with(|| Entry {
            contention: Contention::new(now),
            in_flight: Arc::new(AtomicU32::new(0)),
        });
        let waiters = entry.in_flight.fetch_add(1, Ordering::Relaxed);
        let (tier, switched) = entry.contention.observe(waiters, now, &self.policy);
        if switched {
            let to = strategy_of(tier, &supported, fallback).name();
            metrics::counter!("allot_auto_switches_total", "to" => to).increment(1);
            let hot = metrics::gauge!("allot_auto_hot_skus");
            match tier {
                Tier::Hot => hot.increment(1.0),
                Tier::Cold => hot.decrement(1.0),
            }
        }
        (
            strategy_of(tier, supported, fallback),
            InFlight(entry.in_flight.clone()),
        )
    }

    /// How `auto` stands for `tenant`'s `sku` here, if an `auto` request of it was seen.
    pub fn view(
        &self,
        tenant: &str,
        sku: &str,
        supported: impl Fn(Strategy) -> bool,
        fallback: Strategy,
    ) -> Option<AutoView> {
        let skus = self.skus.lock().unwrap_or_else(|p| p.into_inner());
        let entry = skus.get(&(tenant.to_string(), sku.to_string()))?;
        let now = self.clock.now();
        let (last, since) = entry.contention.tier();
        let tier = entry.contention.tier_at(now, &self.policy);
        let since = if tier == last { since } else { now };
        let average = entry.contention.average_at(now, &self.policy);
        Some(AutoView {
            tier,
            strategy: strategy_of(tier, supported, fallback),
            since,
            waiters_avg_centi: (average * 100.0).round().clamp(0.0, f64::from(u32::MAX)) as u32,
        })
    }
}

/// Forget the cold SKUs with nothing in flight; if none is, start over (the hot ones' gauge
/// goes with them).
fn forget_cold(skus: &mut HashMap<(String, String), Entry>) {
    skus.retain(|_, e| e.contention.tier().0 == Tier::Hot || e.in_flight.load(Ordering::Relaxed) > 0);
    if skus.len() >= MAX_AUTO_SKUS {
        let hot = skus.values().filter(|e| e.contention.tier().0 == Tier::Hot).count();
        metrics::gauge!("allot_auto_hot_skus").decrement(hot as f64);
        skus.clear();
    }
}
