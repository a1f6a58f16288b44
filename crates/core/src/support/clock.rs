//! The clock every store and sweeper reads "now" from, so that time can be injected.
//!
//! Every instant allot decides with (hold and booking expiry, job `run_at` and leases, the
//! sweepers' cut-offs, idempotency retention) is taken from one [`Clock`] in Rust and passed
//! to SQL as a parameter; SQL's own `now()` is never a decision input. The server and the
//! stores take an `Arc<dyn Clock>`: [`SystemClock`] in production, [`TestClock`] in tests
//! that move time on purpose instead of sleeping against a TTL (the "injectable clock"
//! pattern, as Java's `java.time.Clock` or tokio's `time::pause`).

use chrono::{DateTime, SubsecRound, Utc};
use std::sync::atomic::{AtomicI64, Ordering};

/// A source of the current instant, UTC, at microsecond precision (what both backends store).
pub trait Clock: Send + Sync + std::fmt::Debug + 'static {
    /// Now.
    fn now(&self) -> DateTime<Utc>;

    /// Now as microseconds since the Unix epoch.
    fn now_us(&self) -> i64 {
        self.now().timestamp_micros()
    }
}

/// The system's wall clock, truncated to microseconds.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now().trunc_subsecs(6)
    }
}

/// The system clock plus an offset that only grows: time goes on as usual (leases, TTLs and
/// backoffs still run out by themselves), and a test jumps it forward past an expiry instead
/// of sleeping until then. Never goes backwards.
#[derive(Debug, Default)]
pub struct TestClock {
    offset_us: AtomicI64,
}

impl TestClock {
    /// A clock at the system's time (offset 0).
    pub fn new() -> Self {
        Self::default()
    }

    /// Jump forward by `ms` milliseconds.
    pub fn advance_ms(&self, ms: i64) {
        self.offset_us
            .fetch_add(ms.max(0).saturating_mul(1000), Ordering::SeqCst);
    }

    /// Jump to just after `at` (1 µs past it), unless the clock is already past it.
    pub fn advance_past(&self, at: DateTime<Utc>) {
        let needed = at.timestamp_micros() + 1 - SystemClock.now_us();
        self.offset_us.fetch_max(needed, Ordering::SeqCst);
    }
}

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        let us = SystemClock
            .now_us()
            .saturating_add(self.offset_us.load(Ordering::SeqCst));
        DateTime::from_timestamp_micros(us).unwrap_or_default()
    }
}

/// A clock that moves only when told: it starts at a given instant and stands still between
/// [`ManualClock::advance_ms`] calls, so a run that drives it (the differential simulation,
/// `allot sim`) sees the same instants every time, as TigerBeetle's simulator drives its
/// replicas' time.
#[derive(Debug)]
pub struct ManualClock {
    now_us: AtomicI64,
}

impl ManualClock {
    /// A clock standing at `start` (microseconds are kept, finer digits cut).
    pub fn new(start: DateTime<Utc>) -> Self {
        ManualClock {
            now_us: AtomicI64::new(start.timestamp_micros()),
        }
    }

    /// Move forward by `ms` milliseconds (a negative `ms` is taken as 0: it never goes back).
    pub fn advance_ms(&self, ms: i64) {
        self.now_us.fetch_add(ms.max(0).saturating_mul(1000), Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        DateTime::from_timestamp_micros(self.now_us.load(Ordering::SeqCst)).unwrap_or_default()
    }
}

/// `t` as every answer writes an instant: RFC 3339 in UTC with `Z` and as many fraction
/// digits as it needs (0, 3, 6 or 9) — chrono's serde form, for the instants that are built
/// as text inside a stored document (a job's `errors[].at`) rather than serialized.
pub fn wire_instant(t: DateTime<Utc>) -> String {
    crate::support::instant::text(&t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_clock_jumps_forward_only() {
        let c = TestClock::new();
        let t0 = c.now();
        c.advance_ms(60_000);
        let t1 = c.now();
        assert!((t1 - t0).num_milliseconds() >= 60_000);
        let later = t1 + chrono::Duration::hours(1);
        c.advance_past(later);
        assert!(c.now() > later);
        let t2 = c.now();
        c.advance_past(t0);
        c.advance_ms(-5);
        assert!(c.now() >= t2, "never backwards");
    }

    #[test]
    fn system_clock_is_microsecond_precise() {
        assert_eq!(SystemClock.now().timestamp_subsec_nanos() % 1000, 0);
    }
}
