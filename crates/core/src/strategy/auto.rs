//! `strategy: "auto"`: a strategy that picks itself per SKU, from the contention the SKU
//! meets now.
//!
//! The signal is the number of this SKU's `auto` requests already in flight on this
//! instance when one arrives — its waiters: under `atomic` every one of them queues on the SKU's row lock,
//! so the count is the lock's queue as the server sees it, with no query. It is smoothed
//! into a time-decayed average (an exponentially weighted moving average whose weight
//! depends on the time since the last arrival — at least [`MIN_WEIGHT`] — so an idle SKU's
//! average fades without traffic).
//! The SKU turns hot when the average reaches [`AutoPolicy::enter_hot`] and cold again once
//! it falls to [`AutoPolicy::leave_hot`] after at least [`AutoPolicy::min_dwell_ms`] hot —
//! two thresholds and a dwell, the hysteresis that keeps a SKU near the line from flapping.
//! Cold requests run `atomic` (one statement, the cheapest alone); hot ones `batched` (one
//! transaction for everything that queued). Both take the same row locks, so requests of
//! either kind on one SKU at once stay exact; the choice changes speed, never outcomes.
//! AliSQL's hot-row detection inside MySQL is the nearest relative; this does it per key in
//! the application.

use crate::strategy::Strategy;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The least weight of one arrival in the average.
pub const MIN_WEIGHT: f64 = 0.01;

/// The name a request gives to let the server choose.
pub const AUTO: &str = "auto";

/// A SKU's contention tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    /// Few waiters: `atomic`.
    Cold,
    /// Many waiters: `batched`.
    Hot,
}

/// The thresholds of the tiers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoPolicy {
    /// Average waiters at which a cold SKU turns hot.
    pub enter_hot: f64,
    /// Average waiters at or below which a hot SKU turns cold (after the dwell).
    pub leave_hot: f64,
    /// Least time a SKU stays hot, ms.
    pub min_dwell_ms: i64,
    /// Time constant of the average, ms: a sample's weight halves every `tau_ms · ln 2`.
    pub tau_ms: f64,
}

impl Default for AutoPolicy {
    fn default() -> Self {
        AutoPolicy {
            enter_hot: 4.0,
            leave_hot: 1.0,
            min_dwell_ms: 2_000,
            tau_ms: 250.0,
        }
    }
}

/// One SKU's contention as one instance sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contention {
    average: f64,
    at: DateTime<Utc>,
    tier: Tier,
    since: DateTime<Utc>,
}

impl Contention {
    /// A SKU first seen at `now`: cold, no waiters.
    pub fn new(now: DateTime<Utc>) -> Self {
        Contention {
            average: 0.0,
            at: now,
            tier: Tier::Cold,
            since: now,
        }
    }

    /// A request arrives at `now` with `waiters` of the SKU's requests in flight: the new
    /// tier, and whether it changed.
    pub fn observe(&mut self, waiters: u32, now: DateTime<Utc>, p: &AutoPolicy) -> (Tier, bool) {
        self.average = self.average_at(now, p);
        let dt_ms = (now - self.at).num_microseconds().unwrap_or(i64::MAX).max(0) as f64 / 1000.0;
        // The sample's weight grows with the time it stood for, and is at least
        // `MIN_WEIGHT`: arrivals closer together than the clock's resolution still count,
        // so under a fast stream the average spans about the last 100 arrivals when those
        // take less than `tau_ms`.
        let weight = (1.0 - (-dt_ms / p.tau_ms).exp()).max(MIN_WEIGHT);
        self.average += weight * (f64::from(waiters) - self.average);
        self.at = now;
        let before = self.tier;
        let dwelt = (now - self.since).num_milliseconds() >= p.min_dwell_ms;
        self.tier = match self.tier {
            Tier::Cold if self.average >= p.enter_hot => Tier::Hot,
            Tier::Hot if self.average <= p.leave_hot && dwelt => Tier::Cold,
            t => t,
        };
        if self.tier != before {
            self.since = now;
        }
        (self.tier, self.tier != before)
    }

    /// The average decayed to `now` (no sample since the last one: it fades toward 0).
    pub fn average_at(&self, now: DateTime<Utc>, p: &AutoPolicy) -> f64 {
        let dt_ms = (now - self.at).num_microseconds().unwrap_or(i64::MAX).max(0) as f64 / 1000.0;
        self.average * (-dt_ms / p.tau_ms).exp()
    }

    /// The tier as of the last request, and since when.
    pub fn tier(&self) -> (Tier, DateTime<Utc>) {
        (self.tier, self.since)
    }

    /// The tier the next request would find at `now` if it saw no waiters: a hot SKU whose
    /// average has decayed to `leave_hot` after the dwell reads cold (what a reader is shown;
    /// the state itself moves only when a request arrives).
    pub fn tier_at(&self, now: DateTime<Utc>, p: &AutoPolicy) -> Tier {
        let dwelt = (now - self.since).num_milliseconds() >= p.min_dwell_ms;
        match self.tier {
            Tier::Hot if dwelt && self.average_at(now, p) <= p.leave_hot => Tier::Cold,
            t => t,
        }
    }
}

/// The strategy a tier runs with, among those the store has (`supported`): cold `atomic`,
/// hot `batched`, each falling back to `fallback` (the server's default) where missing.
pub fn strategy_of(tier: Tier, supported: impl Fn(Strategy) -> bool, fallback: Strategy) -> Strategy {
    let wanted = match tier {
        Tier::Cold => Strategy::Atomic,
        Tier::Hot => Strategy::Batched,
    };
    if supported(wanted) {
        wanted
    } else {
        fallback
    }
}

/// How `auto` stands for a SKU on the instance that answered (`GET /v1/skus/{sku}`'s `auto`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AutoView {
    /// The SKU's tier.
    pub tier: Tier,
    /// The strategy `auto` requests of the SKU run with now.
    pub strategy: Strategy,
    /// Since when it has been in this tier.
    pub since: DateTime<Utc>,
    /// Average waiters (requests of the SKU in flight when one arrives), in hundredths.
    pub waiters_avg_centi: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn t0() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap()
    }

    /// Sustained waiters turn a SKU hot; a short burst does not.
    #[test]
    fn waiters_turn_a_sku_hot_and_a_blip_does_not() {
        let p = AutoPolicy::default();
        let mut c = Contention::new(t0());
        // One arrival with 50 waiters after a long idle time weighs little if the next ones
        // a millisecond later see none... but an arrival that stood for a long time counts.
        let mut now = t0();
        for _ in 0..3 {
            now += Duration::microseconds(100);
            assert_eq!(
                c.observe(20, now, &p).0,
                Tier::Cold,
                "three arrivals in 300 µs are a blip"
            );
        }
        for _ in 0..2000 {
            now += Duration::microseconds(100);
            c.observe(8, now, &p);
        }
        assert_eq!(c.tier().0, Tier::Hot, "200 ms of 8 waiters");
    }

    /// A hot SKU stays hot through the dwell even when idle, then cools; no flapping near
    /// the line.
    #[test]
    fn hysteresis_and_dwell() {
        let p = AutoPolicy::default();
        let mut c = Contention::new(t0());
        let mut now = t0();
        while c.tier().0 == Tier::Cold {
            now += Duration::milliseconds(1);
            c.observe(10, now, &p);
        }
        let hot_at = now;
        // Between the thresholds it stays hot, however long.
        for _ in 0..5000 {
            now += Duration::milliseconds(1);
            assert_eq!(c.observe(2, now, &p).0, Tier::Hot);
        }
        // Below leave_hot, but inside the dwell of a fresh switch: a new SKU shows the dwell.
        let mut d = Contention::new(t0());
        let mut m = t0();
        while d.tier().0 == Tier::Cold {
            m += Duration::milliseconds(1);
            d.observe(10, m, &p);
        }
        let (tier, _) = d.observe(0, m + Duration::milliseconds(1500), &p);
        assert_eq!(tier, Tier::Hot, "inside the dwell");
        let (tier, changed) = d.observe(0, m + Duration::milliseconds(2100), &p);
        assert_eq!((tier, changed), (Tier::Cold, true), "after the dwell, idle: cold");
        // The first SKU cools once waiters drop.
        let (tier, _) = c.observe(0, now + Duration::seconds(3), &p);
        assert_eq!(tier, Tier::Cold);
        assert!(now > hot_at);
    }

    #[test]
    fn tiers_map_to_what_the_store_has() {
        let all = |_: Strategy| true;
        let sqlite = |s: Strategy| s == Strategy::Serialized;
        assert_eq!(strategy_of(Tier::Cold, all, Strategy::Batched), Strategy::Atomic);
        assert_eq!(strategy_of(Tier::Hot, all, Strategy::Atomic), Strategy::Batched);
        assert_eq!(
            strategy_of(Tier::Hot, sqlite, Strategy::Serialized),
            Strategy::Serialized
        );
    }
}
