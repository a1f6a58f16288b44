//! Locations in the generated steps: two locations besides `default` (one placed before it,
//! one after), one that is never created, and how an allocation or a hold asks to be placed.

use super::{Generator, Op};
use rand::Rng;
use serde_json::{json, Value};

/// The locations the run creates first, with their priorities: `WEST` is placed before
/// `default` (priority 0), `EAST` after it.
pub const LOCATIONS: [(&str, i32); 2] = [("WEST", -1), ("EAST", 2)];
/// A well-formed location no step creates.
pub const UNKNOWN_LOCATION: &str = "NOWHERE";

/// A request's placement policy (`Default`: the field left out, the server's `priority`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Placing {
    /// No `placement` field.
    #[default]
    Default,
    /// `"priority"`.
    Priority,
    /// `"most_available"`.
    MostAvailable,
    /// A ranked list of locations.
    Ranked(Vec<&'static str>),
}

/// How an allocation's or a hold's lines may be placed: every line pinned to `pin`, or the
/// request's `placing`; `split` is `allow_split`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// Each line's `location`.
    pub pin: Option<&'static str>,
    /// The request's `placement`.
    pub placing: Placing,
    /// `allow_split`.
    pub split: bool,
}

impl Place {
    /// `body` (with `lines`) asking for this placement.
    pub fn apply(&self, body: &mut Value) {
        if let Some(pin) = self.pin {
            for l in body["lines"].as_array_mut().into_iter().flatten() {
                l["location"] = json!(pin);
            }
        }
        match &self.placing {
            Placing::Default => {}
            Placing::Priority => body["placement"] = json!("priority"),
            Placing::MostAvailable => body["placement"] = json!("most_available"),
            Placing::Ranked(list) => body["placement"] = json!(list),
        }
        if self.split {
            body["allow_split"] = json!(true);
        }
    }
}

impl Generator {
    /// Mostly the default placement; otherwise a pinned location, a policy or a ranked list,
    /// split half the time.
    pub(super) fn place(&mut self) -> Place {
        if self.rng.random_range(0..2) == 0 {
            return Place::default();
        }
        let mut place = Place {
            split: self.rng.random_range(0..2) == 0,
            ..Place::default()
        };
        match self.rng.random_range(0..8) {
            0 | 1 => place.pin = Some(self.location()),
            2 => place.placing = Placing::Priority,
            3 | 4 => place.placing = Placing::MostAvailable,
            _ => {
                let n = self.rng.random_range(1..=3);
                let mut list: Vec<&'static str> = (0..n).map(|_| self.location()).collect();
                list.dedup();
                place.placing = Placing::Ranked(list);
            }
        }
        place
    }

    /// `default`, a created location, or now and then one that does not exist.
    pub(super) fn location(&mut self) -> &'static str {
        match self.rng.random_range(0..13) {
            0 => UNKNOWN_LOCATION,
            1..=4 => allot_core::DEFAULT_LOCATION,
            n => LOCATIONS[n as usize % LOCATIONS.len()].0,
        }
    }

    /// A location or `None` (the request leaves it out: `default`).
    pub(super) fn maybe_location(&mut self) -> Option<&'static str> {
        match self.rng.random_range(0..2) {
            0 => None,
            _ => Some(self.location()),
        }
    }

    /// A transfer, a compare-and-set of a level, a location created again, incoming stock,
    /// a receipt or a move between quantity states.
    pub(super) fn place_op(&mut self) -> Op {
        match self.rng.random_range(0..22) {
            18..=21 => self.move_op(),
            10..=13 => Op::AddIncoming {
                sku: self.sku(),
                quantity: self.rare(&[1, 3, 5], &[0]),
                location: self.maybe_location(),
                key: self.key(),
            },
            14..=17 => self.receive_op(),
            0 => {
                let (location, priority) = LOCATIONS[self.rng.random_range(0..LOCATIONS.len())];
                Op::CreateLocation { location, priority }
            }
            1..=5 => Op::Transfer {
                sku: self.sku(),
                from: self.location(),
                to: self.location(),
                quantity: self.rare(&[1, 2, 3], &[0, 30]),
                key: self.key(),
            },
            6..=9 => Op::SetLevel {
                sku: self.sku(),
                location: self.location(),
                on_hand: self.pick(&[0, 1, 4, 10]),
                compare_on_hand: self.pick(&[0, 0, 1, 2, 3, 5, 8]),
                key: self.key(),
            },
            _ => unreachable!("a draw of 0..22"),
        }
    }

    /// A receipt: mostly against an incoming made (sometimes more than it still expects),
    /// else at a location; now and then naming both, which the core refuses.
    fn receive_op(&mut self) -> Op {
        let against = self.rng.random_range(0..3) > 0;
        Op::Receive {
            sku: self.sku(),
            quantity: self.rare(&[1, 2, 3], &[0, 6]),
            incoming: against.then(|| self.reference()),
            location: match against && self.rng.random_range(0..8) > 0 {
                true => None,
                false => self.maybe_location(),
            },
            key: self.key(),
        }
    }

    /// A move between quantity states: mostly out of `available` or back into it, sometimes
    /// between two unsellable states, now and then from a state to itself (refused).
    fn move_op(&mut self) -> Op {
        use allot_core::QuantityState::{Available, Damaged, QualityControl, SafetyStock};
        let unsellable = self.pick(&[Damaged, QualityControl, SafetyStock]);
        let (from, to) = match self.rng.random_range(0..10) {
            0..=4 => (Available, unsellable),
            5..=7 => (unsellable, Available),
            8 => (unsellable, self.pick(&[Damaged, QualityControl, SafetyStock])),
            _ => (Available, Available),
        };
        Op::Move {
            sku: self.sku(),
            from,
            to,
            quantity: self.rare(&[1, 2, 3], &[0, 9]),
            location: self.maybe_location(),
            key: self.key(),
        }
    }
}
