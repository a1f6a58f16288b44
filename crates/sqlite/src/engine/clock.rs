//! "Now" on the writer thread: every statement runs there, so each store's thread keeps its
//! store's clock (see [`allot_core::clock`]) and the helpers read it without passing it
//! around. Times are stored as microseconds since the Unix epoch (`*_us` columns).

use allot_core::{Clock, SystemClock};
use chrono::{DateTime, TimeZone, Utc};

std::thread_local! {
    /// The clock of the store whose writer thread this is (set once, when the thread starts).
    static WRITER_CLOCK: std::cell::RefCell<Option<std::sync::Arc<dyn Clock>>> = const { std::cell::RefCell::new(None) };
}

/// Now, in µs since the epoch, from the clock of the store this writer thread belongs to.
/// Every statement runs on that thread, so each store reads its own (injectable) clock; off
/// the writer thread (never, by construction) it would be the system clock.
pub(crate) fn now_us() -> i64 {
    WRITER_CLOCK.with(|c| match &*c.borrow() {
        Some(clock) => clock.now_us(),
        None => {
            debug_assert!(false, "now_us() off the SQLite writer thread");
            SystemClock.now_us()
        }
    })
}

pub(crate) fn from_us(us: i64) -> DateTime<Utc> {
    Utc.timestamp_micros(us).single().unwrap_or_default()
}

/// Give this (writer) thread its store's clock.
pub(crate) fn set_writer_clock(clock: std::sync::Arc<dyn Clock>) {
    WRITER_CLOCK.with(|c| *c.borrow_mut() = Some(clock));
}

/// An instant as stored: microseconds since the epoch.
pub(crate) fn us(t: DateTime<Utc>) -> i64 {
    t.timestamp_micros()
}
