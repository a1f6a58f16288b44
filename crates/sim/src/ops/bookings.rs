//! The bookings' steps: two resources (and a name the rule refuses), ranges of whole hours in
//! one 24-hour window a day after the run's start (now and then empty), confirmed or held
//! with TTLs around both limits, and the transitions of bookings made earlier.

use super::{Generator, Op};
use rand::Rng;

/// The resources steps fight over: `R1` and `R2` are never put (capacity 1, the exclusion
/// path), `H1` and `H2` are put now and then with a capacity, slots, the pool and rules.
pub const RESOURCES: [&str; 4] = ["R1", "R2", "H1", "H2"];

/// The resources that are put.
pub const PUT_RESOURCES: [&str; 2] = ["H1", "H2"];

/// The pool `H1` and `H2` may count against, and one never put (`404`).
pub const POOLS: [&str; 2] = ["P", "NOPOOL"];

/// A resource put: its capacity, slot length in hours (0: no slots), pools and rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourcePut {
    /// Capacity per slot.
    pub capacity: i64,
    /// Slot length, hours (0: none).
    pub slot_hours: i64,
    /// Pools.
    pub pools: Vec<&'static str>,
    /// Fewest slots.
    pub min_slots: Option<u32>,
    /// Most slots.
    pub max_slots: Option<u32>,
    /// A closure, hours into the window.
    pub closed: Option<(i64, i64)>,
    /// Lead time, ms.
    pub lead_time_ms: Option<i64>,
    /// Horizon, ms.
    pub horizon_ms: Option<i64>,
    /// Its time zone (IANA): [`ZONES`].
    pub time_zone: &'static str,
    /// A weekday (`wed`) or date of the zone no booking may start on.
    pub closed_to_arrival: Option<&'static str>,
    /// A weekday or date of the zone no booking may end on.
    pub closed_to_departure: Option<&'static str>,
    /// The least time between two bookings (counts on capacity 1 only), ms.
    pub buffer_ms: Option<i64>,
}

/// The time zones resources are put in: UTC, and two whose hours start on the half hour
/// (India, +05:30; Newfoundland, −03:30), so their slots and local days are not UTC's. (The
/// window's day has no DST change anywhere: the server's tests cover DST.)
pub const ZONES: [&str; 3] = ["UTC", "Asia/Kolkata", "America/St_Johns"];

/// The days a closed-to rule names: the window's two UTC dates (a Wednesday and a
/// Thursday), by weekday and by date.
pub const DAYS: [&str; 4] = ["wed", "thu", "2030-01-02", "2030-01-03"];

impl ResourcePut {
    /// The request body.
    pub fn json(&self) -> serde_json::Value {
        let mut rules = serde_json::json!({});
        if let Some(m) = self.min_slots {
            rules["min_slots"] = m.into();
        }
        if let Some(m) = self.max_slots {
            rules["max_slots"] = m.into();
        }
        if let Some((f, t)) = self.closed {
            rules["closed"] = serde_json::json!([{"from": window_at(f), "to": window_at(t)}]);
        }
        if let Some(l) = self.lead_time_ms {
            rules["lead_time_ms"] = l.into();
        }
        if let Some(h) = self.horizon_ms {
            rules["horizon_ms"] = h.into();
        }
        if let Some(d) = self.closed_to_arrival {
            rules["closed_to_arrival"] = serde_json::json!([d]);
        }
        if let Some(d) = self.closed_to_departure {
            rules["closed_to_departure"] = serde_json::json!([d]);
        }
        if let Some(b) = self.buffer_ms {
            rules["buffer_ms"] = b.into();
        }
        let mut body = serde_json::json!({"capacity": self.capacity, "pools": self.pools, "rules": rules,
                                          "time_zone": self.time_zone});
        if self.slot_hours > 0 {
            body["slot_ms"] = (self.slot_hours * 3_600_000).into();
        }
        body
    }
}

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
            20..=34 => self.checkout(),
            0..=19 => Op::Book {
                resource: self.resource(),
                start_h: self.rng.random_range(0..WINDOW_HOURS),
                hours: self.rare(&[1, 1, 2, 3], &[0, -1]),
                quantity: self.rare(&[1, 1, 1, 2, 3], &[0]),
                hold_ttl_ms: match self.rng.random_range(0..2) {
                    0 => None,
                    _ => Some(self.ttl_ms()),
                },
                key: self.key(),
            },
            35..=37 => self.put_resource(),
            38 => Op::PutPool {
                pool: POOLS[0],
                capacity: self.rng.random_range(1..=5),
                slot_hours: self.pick(&[1, 1, 2]),
            },
            39 => {
                let from_h = self.rng.random_range(0..WINDOW_HOURS);
                Op::PutSlots {
                    resource: self.resource(),
                    from_h,
                    to_h: from_h + self.rng.random_range(1..4),
                    capacity: self.rng.random_range(0..4),
                }
            }
            40..=45 => Op::GetBooking {
                booking: self.reference(),
            },
            46..=49 => Op::Explain {
                resource: self.resource(),
                start_h: self.rng.random_range(0..WINDOW_HOURS),
                hours: self.pick(&[1, 2, 3]),
                quantity: self.pick(&[1, 1, 2, 3]),
            },
            50..=64 => Op::CancelBooking {
                booking: self.reference(),
                key: self.key(),
            },
            65..=74 => Op::ConfirmBooking {
                booking: self.reference(),
                key: self.key(),
            },
            75..=79 => Op::RescheduleBooking {
                booking: self.reference(),
                start_h: self.rng.random_range(0..WINDOW_HOURS),
                hours: self.rare(&[1, 1, 2, 3], &[0]),
                quantity: match self.rng.random_range(0..3) {
                    0 => Some(self.pick(&[1, 2])),
                    _ => None,
                },
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

    /// A checkout: a hold of one unit of a SKU and one or two booking lines (quantity mostly
    /// 1), within the TTL limits: holds whose bookings the booking steps then meet.
    fn checkout(&mut self) -> Op {
        let bookings = (0..self.rng.random_range(1..=2))
            .map(|_| {
                (
                    self.booking_resource(),
                    self.rng.random_range(0..WINDOW_HOURS),
                    self.pick(&[1, 1, 2]),
                    self.pick(&[1, 1, 1, 1, 2]),
                )
            })
            .collect();
        Op::Hold {
            lines: vec![(self.sku(), 1)],
            units: Vec::new(),
            bookings,
            ttl_ms: self.pick(&[2000, 5000, 60_000, 60_000]),
            place: super::Place::default(),
            key: self.key(),
        }
    }

    /// A put of `H1` or `H2`: mostly hourly slots of capacity 1–3 (UTC, or a zone whose hours
    /// start on the half hour), sometimes in the pool (or one never put), now and then with a
    /// rule; rarely without slots (rules only) or a capacity that needs slots without them
    /// (`400`).
    fn put_resource(&mut self) -> Op {
        let resource = PUT_RESOURCES[self.rng.random_range(0..PUT_RESOURCES.len())];
        let slot_hours = self.rare(&[1, 1, 1, 2], &[0]);
        let capacity = if slot_hours == 0 {
            self.pick(&[1, 1, 1, 2])
        } else {
            self.rng.random_range(1..=3)
        };
        let pools = match self.rng.random_range(0..6) {
            0..=2 => vec![],
            3 | 4 => vec![POOLS[0]],
            _ => vec![POOLS[1]],
        };
        let mut put = ResourcePut {
            capacity,
            slot_hours: slot_hours.max(0),
            pools: if slot_hours > 0 { pools } else { vec![] },
            min_slots: None,
            max_slots: None,
            closed: None,
            lead_time_ms: None,
            horizon_ms: None,
            time_zone: self.pick(&[ZONES[0], ZONES[0], ZONES[1], ZONES[2]]),
            closed_to_arrival: None,
            closed_to_departure: None,
            buffer_ms: None,
        };
        match self.rng.random_range(0..11) {
            0 => put.min_slots = Some(2),
            1 => put.max_slots = Some(2),
            2 => {
                let f = self.rng.random_range(0..WINDOW_HOURS);
                put.closed = Some((f, f + 2));
            }
            3 => put.lead_time_ms = Some(self.pick(&[86_400_000, 100_000_000])),
            4 => put.horizon_ms = Some(self.pick(&[86_400_000, 100_000_000])),
            5 => put.closed_to_arrival = Some(self.pick(&DAYS)),
            6 => put.closed_to_departure = Some(self.pick(&DAYS)),
            7 => put.buffer_ms = Some(self.pick(&[3_600_000, 7_200_000])),
            _ => {}
        }
        Op::PutResource { resource, put }
    }

    /// A resource of the bookings (now and then one of a bad name).
    pub(super) fn booking_resource(&mut self) -> &'static str {
        self.resource()
    }

    fn resource(&mut self) -> &'static str {
        match self.rng.random_range(0..30) {
            0 => BAD_RESOURCE,
            n => RESOURCES[n as usize % RESOURCES.len()],
        }
    }
}
