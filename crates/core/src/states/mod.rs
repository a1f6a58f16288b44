//! Quantity states: what is on hand at a location splits into `available` (sellable, what
//! allocations and holds take), `held` (set aside by holds) and three unsellable states,
//! `damaged`, `quality_control` and `safety_stock`, which no allocation or hold ever takes
//! (Shopify's inventory states, API 2026-04). On hand = available + held + damaged +
//! quality_control + safety_stock; `incoming` (see [`crate::receiving`]) is beside it, not in it.
//!
//! A move (`POST /v1/skus/{sku}/moves`) takes units from one state to another at one
//! location: out of `available` it is a conditional decrement like an allocation's (never
//! below zero, `409 insufficient_stock`); out of an unsellable state it takes at most what that
//! state has (`409 exceeds_state`). Each move is one ledger entry of kind `moved`, whose `ref` is
//! the move; the ledger's `delta` counts the sellable part of on hand (available + held), so a
//! move out of `available` reads `-quantity`, one into it `+quantity`, one between two
//! unsellable states `0`.

pub mod validate;

use crate::model::reason::StockReason;
use serde::{Deserialize, Serialize};

/// A quantity state a move names: `available` or one of the unsellable three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum QuantityState {
    /// Sellable: allocations and holds take from it.
    Available,
    /// Broken or spoiled; never sold.
    Damaged,
    /// Waiting for inspection; never sold until moved back.
    QualityControl,
    /// Kept back as a buffer; never sold until moved back.
    SafetyStock,
}

impl QuantityState {
    /// The unsellable states, in the order of the answers.
    pub const UNSELLABLE: [QuantityState; 3] = [
        QuantityState::Damaged,
        QuantityState::QualityControl,
        QuantityState::SafetyStock,
    ];

    /// The wire and stored name (`quality_control`).
    pub fn as_str(self) -> &'static str {
        match self {
            QuantityState::Available => "available",
            QuantityState::Damaged => "damaged",
            QuantityState::QualityControl => "quality_control",
            QuantityState::SafetyStock => "safety_stock",
        }
    }

    /// Parse a stored name; `None` for a name no state has.
    pub fn parse(name: &str) -> Option<QuantityState> {
        [QuantityState::Available]
            .into_iter()
            .chain(QuantityState::UNSELLABLE)
            .find(|s| s.as_str() == name)
    }
}

/// `POST /v1/skus/{sku}/moves` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    /// The state the units leave.
    pub from: QuantityState,
    /// The state they enter; not `from` (`422 same_state`).
    pub to: QuantityState,
    /// Units moved, 1..=`max_quantity`.
    pub quantity: i64,
    /// Where (default `default`); it must exist.
    #[serde(default)]
    pub location: Option<String>,
    /// Why.
    pub reason: StockReason,
    /// An absolute URI naming the document behind it (at most 2048 bytes).
    #[serde(default)]
    pub reference: Option<String>,
}

/// A move between quantity states: a validated request, and (as answered) the move made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Move {
    /// Server-generated id (UUIDv7 text), the `ref` of its `moved` ledger entry.
    pub id: String,
    /// The SKU (count-tracked).
    pub sku: String,
    /// Where.
    pub location: String,
    /// The state the units left.
    pub from: QuantityState,
    /// The state they entered.
    pub to: QuantityState,
    /// Units moved.
    pub quantity: i64,
    /// Why.
    pub reason: StockReason,
    /// The document behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Who asked (the API key's id), for the ledger; not sent.
    #[serde(skip)]
    pub actor: Option<String>,
}

impl Move {
    /// What the move does to the sellable part of on hand (its ledger entry's `delta`):
    /// `-quantity` out of `available`, `+quantity` into it, 0 between unsellable states.
    pub fn sellable_delta(&self) -> i64 {
        match (self.from, self.to) {
            (QuantityState::Available, _) => -self.quantity,
            (_, QuantityState::Available) => self.quantity,
            _ => 0,
        }
    }
}

/// What carries counts of the unsellable states: a SKU's answer and each of its levels.
pub trait StateCounts {
    /// The count of one unsellable state, to change (`None` for `available`, which is
    /// derived, not kept).
    fn state_mut(&mut self, state: QuantityState) -> Option<&mut i64>;
    /// On hand, to change.
    fn on_hand_mut(&mut self) -> &mut i64;
}

/// [`StateCounts`] for a type with `on_hand`, `damaged`, `quality_control` and `safety_stock`.
macro_rules! state_counts {
    ($t:ty) => {
        impl StateCounts for $t {
            fn state_mut(&mut self, state: QuantityState) -> Option<&mut i64> {
                match state {
                    QuantityState::Available => None,
                    QuantityState::Damaged => Some(&mut self.damaged),
                    QuantityState::QualityControl => Some(&mut self.quality_control),
                    QuantityState::SafetyStock => Some(&mut self.safety_stock),
                }
            }
            fn on_hand_mut(&mut self) -> &mut i64 {
                &mut self.on_hand
            }
        }
    };
}
state_counts!(crate::model::Sku);
state_counts!(crate::location::Level);

/// Add `n` units in an unsellable `state` to `counts`' on hand and that state's count.
fn add_state(counts: &mut impl StateCounts, state: QuantityState, n: i64) {
    if let Some(c) = counts.state_mut(state) {
        *c += n;
        *counts.on_hand_mut() += n;
    }
}

/// Add each `(location, state, count)` of the unsellable states to `sku`: to the location's
/// level (made, with nothing sellable, where the SKU had none) and to the totals, and to
/// `on_hand` of both; `available` and `held` stay as they are.
pub fn with_states<'a>(sku: &mut crate::model::Sku, states: impl IntoIterator<Item = (&'a str, QuantityState, i64)>) {
    for (location, state, n) in states {
        if n == 0 || state == QuantityState::Available {
            continue;
        }
        let i = match sku.levels.iter().position(|l| l.location == location) {
            Some(i) => i,
            None => {
                sku.levels.push(crate::location::Level::empty(location));
                sku.levels.len() - 1
            }
        };
        add_state(&mut sku.levels[i], state, n);
        add_state(sku, state, n);
    }
    sku.levels.sort_by(|a, b| a.location.cmp(&b.location));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_count_in_on_hand_not_in_available() {
        let mut s = crate::model::Sku::from_counts("A", 10, 2, 1, 1);
        s.levels = crate::location::levels([("default", 10, 2)]);
        with_states(
            &mut s,
            [
                ("default", QuantityState::Damaged, 3),
                ("WEST", QuantityState::SafetyStock, 4),
            ],
        );
        assert_eq!((s.on_hand, s.held, s.available), (17, 2, 8));
        assert_eq!((s.damaged, s.quality_control, s.safety_stock), (3, 0, 4));
        let west = s.levels.iter().find(|l| l.location == "WEST").unwrap();
        assert_eq!((west.on_hand, west.available, west.safety_stock), (4, 0, 4));
        assert_eq!(
            QuantityState::parse("quality_control"),
            Some(QuantityState::QualityControl)
        );
        assert_eq!(QuantityState::parse("held"), None);
    }

    #[test]
    fn a_move_changes_the_sellable_part_only_through_available() {
        let m = |from, to| Move {
            id: "m".into(),
            sku: "A".into(),
            location: "default".into(),
            from,
            to,
            quantity: 3,
            reason: StockReason::Other,
            reference: None,
            actor: None,
        };
        use QuantityState::*;
        assert_eq!(m(Available, Damaged).sellable_delta(), -3);
        assert_eq!(m(QualityControl, Available).sellable_delta(), 3);
        assert_eq!(m(Damaged, SafetyStock).sellable_delta(), 0);
    }
}
