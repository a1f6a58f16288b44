//! Allocation strategies (ARCHITECTURE.md, "Strategies") and backends.

use crate::error::AllotError;
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// for the next one, which serves them all (see [`crate::batch`]).
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
        || crate::booking::BookingStrategy::parse(name) == Some(crate::booking::BookingStrategy::Naive)
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
                strategy: s.to_string(),
                backend: "any",
                reason: crate::error::Unsupported::Other,
            })
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

#[cfg(test)]
mod tests {
    use super::*;

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
