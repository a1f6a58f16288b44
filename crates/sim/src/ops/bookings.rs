//! The bookings' steps: two resources (and a name the rule refuses), ranges of whole hours in
//! one 24-hour window a day after the run's start (now and then empty), confirmed or held
//! with TTLs around both limits, and the transitions of bookings made earlier.

use super::{Generator, Op};
use rand::Rng;

/// The resources steps fight over.
pub const RESOURCES: [&str; 2] = ["R1", "R2"];

/// A resource name the name rule refuses (a space): `invalid_request`.
pub const BAD_RESOURCE: &str = "no good";

/// The window every range falls in, and the availability read after every step: from a day
/// after the run's start, hours long.
pub const WINDOW_HOURS: i64 = 24;

/// The instant `hours` into the window (ms precision, UTC), as a request names it.
pub fn window_at(hours: i64) -> String {
    let at = crate::ops::start() + chrono::Duration::days(1) + chrono::Duration::hours(hours);
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Generator {
    /// A step on the bookings, biased toward overlapping ranges of few resources.
    pub(super) fn booking_op(&mut self) -> Op {
        match self.rng.random_range(0..100) {
            0..=39 => Op::Book {
                resource: self.resource(),
                start_h: self.rng.random_range(0..WINDOW_HOURS),
                hours: self.rare(&[1, 1, 2, 3], &[0, -1]),
                hold_ttl_ms: match self.rng.random_range(0..2) {
                    0 => None,
                    _ => Some(self.ttl_ms()),
                },
                key: self.key(),
            },
            40..=49 => Op::GetBooking {
                booking: self.reference(),
            },
            50..=64 => Op::CancelBooking {
                booking: self.reference(),
                key: self.key(),
            },
            65..=79 => Op::ConfirmBooking {
                booking: self.reference(),
                key: self.key(),
            },
            80..=87 => Op::ReleaseBooking {
                booking: self.reference(),
                key: self.key(),
            },
            88..=95 => Op::ExtendBooking {
                booking: self.reference(),
                ttl_ms: self.ttl_ms(),
            },
            _ => Op::Availability {
                resource: self.resource(),
            },
        }
    }

    fn resource(&mut self) -> &'static str {
        match self.rng.random_range(0..30) {
            0 => BAD_RESOURCE,
            n => RESOURCES[n as usize % RESOURCES.len()],
        }
    }
}
