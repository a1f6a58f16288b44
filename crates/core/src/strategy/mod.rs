//! Allocation strategies (docs/internals.md, "Strategies") and backends.

pub mod auto;

use crate::support::error::{AllotError, Unsupported};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The storage backend a server runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// PostgreSQL via tokio-postgres + deadpool-postgres.
    Postgres,
    /// Embedded SQLite (the default), one writer thread.
    Sqlite,
}

impl Backend {
    /// `"postgres"` or `"sqlite"`, as in `GET /healthz`.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Postgres => "postgres",
            Backend::Sqlite => "sqlite",
        }
    }
}

/// How a stock allocation takes its rows. See README.md's table for each one's price.
/// Sent as its wire name ([`Strategy::name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// Relative conditional update: `SET on_hand = on_hand - q WHERE on_hand - held >= q`.
    Atomic,
    /// `SELECT … FOR UPDATE`, check in the transaction, update.
    Pessimistic,
    /// Read `version`, `UPDATE … WHERE version = v`, bounded jittered retries.
    Optimistic,
    /// Stock split over N buckets; bucket chosen by a hash of the request, the others tried in order.
    Segmented,
    /// Read, check in the application, write the absolute value. The bug, kept for the benchmark.
    Naive,
    /// SQLite: every request is one `BEGIN IMMEDIATE` transaction on one writer thread.
    Serialized,
    /// PostgreSQL: requests that arrive while a transaction on their keys is in flight wait
    /// for the next one, which serves them all (see `batch.rs`).
    Batched,
    /// Redis admission gate: a Lua check-and-decrement of a per-SKU counter in Redis answers
    /// sold-out requests; admitted ones run the `atomic` path on PostgreSQL, the record and
    /// the final check (a refusal there gives the counter back). Needs `--redis-url`.
    RedisCounter,
    /// Redis lock per SKU (`SET NX PX`, compare-and-delete unlock, watchdog renewal), with a
    /// fencing token per acquisition that PostgreSQL checks against the SKU row, so a holder
    /// paused past its TTL changes nothing (Kleppmann, "How to do distributed locking", 2016).
    /// Needs `--redis-url`.
    RedisLock,
}

impl Strategy {
    /// Every strategy, in the order reports list them.
    pub const ALL: [Strategy; 9] = [
        Strategy::Atomic,
        Strategy::Pessimistic,
        Strategy::Optimistic,
        Strategy::Segmented,
        Strategy::Naive,
        Strategy::Serialized,
        Strategy::Batched,
        Strategy::RedisCounter,
        Strategy::RedisLock,
    ];

    /// The strategy's wire name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Atomic => "atomic",
            Strategy::Pessimistic => "pessimistic",
            Strategy::Optimistic => "optimistic",
            Strategy::Segmented => "segmented",
            Strategy::Naive => "naive",
            Strategy::Serialized => "serialized",
            Strategy::Batched => "batched",
            Strategy::RedisCounter => "redis_counter",
            Strategy::RedisLock => "redis_lock",
        }
    }

    /// Whether the strategy runs through Redis (and so needs `--redis-url`).
    pub fn needs_redis(self) -> bool {
        matches!(self, Strategy::RedisCounter | Strategy::RedisLock)
    }

    /// Whether the strategy can oversell (only `naive`).
    pub fn is_unsafe(self) -> bool {
        matches!(self, Strategy::Naive)
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether `name` is a strategy that exists to show a race (stock `naive` or booking
/// `naive`): reports expect it to break its invariants.
pub fn is_unsafe_name(name: &str) -> bool {
    name.parse::<Strategy>().is_ok_and(|s| s.is_unsafe())
        || BookingStrategy::parse(name) == Some(BookingStrategy::Naive)
}

impl FromStr for Strategy {
    type Err = AllotError;

    /// Parses a wire name. An unknown name is `unsupported_strategy`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Strategy::ALL
            .into_iter()
            .find(|st| st.name() == s)
            // Not `AllotError::unsupported_strategy`: that one parses the name for its hint.
            .ok_or_else(|| AllotError::UnsupportedStrategy {
                strategy: crate::support::input::echo(s),
                backend: "any",
                reason: crate::support::error::Unsupported::Other,
            })
    }
}

/// How a unit claim takes its rows. Sent as its wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum UnitStrategy {
    /// One statement: `… ORDER BY … LIMIT n FOR UPDATE SKIP LOCKED`, bounded retries when
    /// rows were skipped (PostgreSQL docs, "The Locking Clause").
    SkipLocked,
    /// Try-lock candidates one by one with `FOR UPDATE NOWAIT` under savepoints (55P03 =
    /// skip); if short and something was locked, roll back, sleep with jitter, start over.
    NowaitScan,
    /// SQLite: one serialized write transaction, exact order.
    Serialized,
    /// PostgreSQL: claims of one SKU (and order) that arrive while a claim transaction of
    /// it is in flight wait for the next one, which locks the units they need in one
    /// `FOR UPDATE SKIP LOCKED` statement, hands them out one request after another in
    /// arrival order, and writes every claim in one statement (flat combining: the first
    /// waiter runs the batch). Holds and requests with an idempotency key run as
    /// `skip_locked`.
    Batched,
}

impl UnitStrategy {
    /// Every unit strategy.
    pub const ALL: [UnitStrategy; 4] = [
        UnitStrategy::SkipLocked,
        UnitStrategy::NowaitScan,
        UnitStrategy::Serialized,
        UnitStrategy::Batched,
    ];

    /// Wire name.
    pub fn name(self) -> &'static str {
        match self {
            UnitStrategy::SkipLocked => "skip_locked",
            UnitStrategy::NowaitScan => "nowait_scan",
            UnitStrategy::Serialized => "serialized",
            UnitStrategy::Batched => "batched",
        }
    }

    /// Parse a wire name; `None` when unknown.
    pub fn parse(s: &str) -> Option<Self> {
        UnitStrategy::ALL.into_iter().find(|u| u.name() == s)
    }
}

/// How a booking is protected against overlaps. Sent as its wire name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BookingStrategy {
    /// PostgreSQL exclusion constraint; 23P01 exclusion_violation is `booking_overlap`.
    Exclusion,
    /// `pg_advisory_xact_lock(fnv1a_64(resource))`, then check and insert.
    Advisory,
    /// Check, then insert, without a lock: double-books under concurrency (bench only).
    Naive,
    /// SQLite: one serialized write transaction.
    Serialized,
    /// PostgreSQL: flat combining across resources. The bookings waiting on a lane are decided
    /// together in one transaction (the resources' advisory locks, one read of what is in the
    /// way, one insert), in arrival order; the exclusion constraint still guards every row.
    Batched,
}

impl BookingStrategy {
    /// Every booking strategy.
    pub const ALL: [BookingStrategy; 5] = [
        BookingStrategy::Exclusion,
        BookingStrategy::Advisory,
        BookingStrategy::Naive,
        BookingStrategy::Serialized,
        BookingStrategy::Batched,
    ];

    /// Wire name.
    pub fn name(self) -> &'static str {
        match self {
            BookingStrategy::Exclusion => "exclusion",
            BookingStrategy::Advisory => "advisory",
            BookingStrategy::Naive => "naive",
            BookingStrategy::Serialized => "serialized",
            BookingStrategy::Batched => "batched",
        }
    }

    /// Parse a wire name.
    pub fn parse(s: &str) -> Option<Self> {
        BookingStrategy::ALL.into_iter().find(|b| b.name() == s)
    }
}

/// The strategy that took a hold's or an allocation's quantity: a stock [`Strategy`] for
/// stock lines, a [`UnitStrategy`] for units. On the wire it is the bare name; `serialized`
/// (SQLite's name in both families) reads back as the stock one, so a reader that needs the
/// family takes it from the hold's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum TakenWith {
    /// A stock allocation or hold.
    Stock(Strategy),
    /// A unit claim or unit hold.
    Units(UnitStrategy),
}

impl TakenWith {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            TakenWith::Stock(s) => s.name(),
            TakenWith::Units(u) => u.name(),
        }
    }

    /// Parse a stored name: a stock strategy first, then a unit strategy; `None` when neither.
    pub fn parse(s: &str) -> Option<Self> {
        s.parse::<Strategy>()
            .ok()
            .map(TakenWith::Stock)
            .or_else(|| UnitStrategy::parse(s).map(TakenWith::Units))
    }
}

impl From<Strategy> for TakenWith {
    fn from(s: Strategy) -> Self {
        TakenWith::Stock(s)
    }
}

impl From<UnitStrategy> for TakenWith {
    fn from(u: UnitStrategy) -> Self {
        TakenWith::Units(u)
    }
}

impl fmt::Display for TakenWith {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The order in which a request walks a SKU's buckets: starting at `start`, then the
/// following ones, wrapping around. With one bucket it is `[0]`.
pub fn bucket_order(start: u32, buckets: u32) -> impl Iterator<Item = u32> {
    let n = buckets.max(1);
    (0..n).map(move |i| (start % n + i) % n)
}

/// 64-bit FNV-1a hash (Fowler–Noll–Vo, the public-domain reference constants). Used to pick a
/// segmented bucket from a request id and, later, advisory lock keys. Stable across versions.
pub fn fnv1a_64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The strategy errors, here so that the error type needs no strategy.
impl AllotError {
    /// `unsupported_strategy` for `strategy` (a wire name) on `backend`, with the reason: a
    /// Redis strategy without Redis, the unsafe `naive` not allowed, SQLite's `serialized`
    /// only, or none of those.
    pub fn unsupported_strategy(strategy: &str, backend: &'static str) -> Self {
        let parsed = strategy.parse::<Strategy>();
        let reason = if parsed.as_ref().is_ok_and(|s| s.needs_redis()) && backend == "postgres" {
            Unsupported::NeedsRedis
        } else if parsed.is_ok_and(|s| s.is_unsafe()) {
            Unsupported::Unsafe
        } else if backend == "sqlite" {
            Unsupported::SqliteSerializedOnly
        } else {
            Unsupported::Other
        };
        AllotError::UnsupportedStrategy {
            strategy: crate::support::error::echo(strategy),
            backend,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_with_is_the_bare_name() {
        for s in Strategy::ALL {
            let t = TakenWith::from(s);
            assert_eq!(serde_json::to_value(t).unwrap(), serde_json::json!(s.name()));
            assert_eq!(
                serde_json::from_value::<TakenWith>(serde_json::json!(s.name())).unwrap(),
                t
            );
        }
        let u = TakenWith::from(UnitStrategy::SkipLocked);
        assert_eq!(serde_json::to_value(u).unwrap(), serde_json::json!("skip_locked"));
        assert_eq!(TakenWith::parse("skip_locked"), Some(u));
        assert_eq!(TakenWith::parse("nope"), None);
    }

    #[test]
    fn parse_roundtrip() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
        }
        assert_eq!("nope".parse::<Strategy>().unwrap_err().code(), "unsupported_strategy");
    }

    #[test]
    fn bucket_order_wraps() {
        assert_eq!(bucket_order(2, 4).collect::<Vec<_>>(), vec![2, 3, 0, 1]);
        assert_eq!(bucket_order(7, 1).collect::<Vec<_>>(), vec![0]);
        assert_eq!(bucket_order(5, 0).collect::<Vec<_>>(), vec![0]);
    }

    #[test]
    fn fnv_reference_values() {
        assert_eq!(fnv1a_64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63dc4c8601ec8c);
    }
}
