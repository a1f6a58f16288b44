//! The units' steps: one unit-tracked SKU, serials from a small pool (so receipts collide),
//! attributes from few values (so orders tie and break ties by id), claims in every order
//! with quantities around the pool's size, as allocations or holds, whole or partial.

use super::{Generator, Op};
use rand::Rng;
use serde_json::{json, Value};

/// The unit-tracked SKU steps fight over (received first, so it tracks units).
pub const UNIT_SKU: &str = "U";

/// How many serials there are (`S1`..=`S{SERIALS}`): receipts name one already there now and
/// then (`409 already_exists`).
pub const SERIALS: u32 = 40;

/// The `order_by` keys claims pick from (every column, both directions, and `fefo`).
const ORDER_KEYS: [&str; 12] = [
    "id",
    "serial",
    "-serial",
    "location",
    "-location",
    "lot",
    "-lot",
    "received_at",
    "-received_at",
    "expires_at",
    "-expires_at",
    "fefo",
];

/// One unit of a receipt: its serial's number, a location and a lot from few values (mixed
/// case, so a collation other than byte order would show), and its dates after the run's
/// start (`received_h` `None`: now).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewUnit {
    /// `S{serial}`.
    pub serial: u32,
    /// `L1`, `a2` or none.
    pub location: Option<&'static str>,
    /// `X`, `y` or none.
    pub lot: Option<&'static str>,
    /// `received_at`, hours after the run's start (`None`: the server's now).
    pub received_h: Option<i64>,
    /// `expires_at`, minutes after the run's start: some already past, some that the run's
    /// clock crosses (a unit past it is never handed out), some far ahead.
    pub expires_min: Option<i64>,
}

impl NewUnit {
    /// The unit as a request body names it.
    pub fn json(&self) -> Value {
        let at = |d: chrono::Duration| (crate::ops::start() + d).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut u = json!({"serial": format!("S{}", self.serial)});
        if let Some(l) = self.location {
            u["location"] = json!(l);
        }
        if let Some(l) = self.lot {
            u["lot"] = json!(l);
        }
        if let Some(h) = self.received_h {
            u["received_at"] = json!(at(chrono::Duration::hours(h)));
        }
        if let Some(m) = self.expires_min {
            u["expires_at"] = json!(at(chrono::Duration::minutes(m)));
        }
        u
    }
}

impl Generator {
    /// A step on the units: receipts, claims (allocations and holds), a listing, and a unit
    /// by serial (now and then one no receipt names).
    pub(super) fn unit_op(&mut self) -> Op {
        match self.rng.random_range(0..100) {
            0..=24 => {
                let n = self.rng.random_range(1..=3);
                Op::ReceiveUnits {
                    sku: self.unit_sku(true),
                    units: self.new_units(n),
                    key: self.key(),
                }
            }
            25..=94 => Op::ClaimUnits {
                sku: self.unit_sku(false),
                // More than the pool holds, and one more than `max_unit_claim` (the model and
                // the targets run with the default limits).
                quantity: self.rare(
                    &[1, 1, 2, 3],
                    &[
                        0,
                        5,
                        i64::from(SERIALS) + 1,
                        allot_core::Limits::default().max_unit_claim + 1,
                    ],
                ),
                order_by: self.order_by(),
                allow_partial: self.rng.random_range(0..4) == 0,
                hold_ttl_ms: match self.rng.random_range(0..2) {
                    0 => None,
                    _ => Some(self.ttl_ms()),
                },
                key: self.key(),
            },
            95..=97 => Op::GetUnit {
                sku: self.unit_sku(false),
                serial: self.rng.random_range(1..=SERIALS + 1),
            },
            _ => Op::GetUnits {
                sku: self.unit_sku(false),
            },
        }
    }

    /// The first receipt of every sequence: `n` units of distinct serials.
    pub(super) fn first_units(&mut self, n: u32) -> Op {
        let mut units = self.new_units(n as usize);
        for (i, u) in units.iter_mut().enumerate() {
            u.serial = i as u32 + 1;
        }
        Op::ReceiveUnits {
            sku: UNIT_SKU,
            units,
            key: None,
        }
    }

    fn new_units(&mut self, n: usize) -> Vec<NewUnit> {
        (0..n)
            .map(|_| NewUnit {
                serial: self.rng.random_range(1..=SERIALS),
                location: [None, Some("L1"), Some("a2")][self.rng.random_range(0..3)],
                lot: [None, Some("X"), Some("y")][self.rng.random_range(0..3)],
                received_h: match self.rng.random_range(0..4) {
                    0 => None,
                    _ => Some(-self.rng.random_range(0..4)),
                },
                expires_min: match self.rng.random_range(0..3) {
                    0 => None,
                    _ => Some(self.pick(&[-5, 1, 2, 4, 24 * 60, 72 * 60])),
                },
            })
            .collect()
    }

    /// Up to two keys; now and then a column named twice or one the whitelist refuses.
    fn order_by(&mut self) -> Vec<&'static str> {
        let n = self.rng.random_range(0..=2);
        let mut keys: Vec<&'static str> = (0..n)
            .map(|_| ORDER_KEYS[self.rng.random_range(0..ORDER_KEYS.len())])
            .collect();
        if self.rng.random_range(0..30) == 0 {
            keys.push("price");
        }
        keys
    }

    /// Mostly the unit SKU; sometimes a count SKU (`wrong_tracking`), one the name rule
    /// refuses, or (not for a `receipt`, which would make it) one that does not exist.
    pub(super) fn unit_sku(&mut self, receipt: bool) -> &'static str {
        match self.rng.random_range(0..30) {
            0 => super::SKUS[0],
            1 => super::BAD_SKU,
            2 if !receipt => super::UNKNOWN_SKU,
            _ => UNIT_SKU,
        }
    }
}
