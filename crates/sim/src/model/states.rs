//! Quantity states in the model, as docs/api.md ("Quantity states") says: on hand at a
//! location is its sellable rows (available + held) and three unsellable states, which no
//! allocation, hold, transfer or placement ever sees. A move out of `available` takes from
//! what is available there as an adjustment does (`409 insufficient_stock`), one out of an
//! unsellable state at most what it has there (`409 exceeds_state`); into `available` it adds
//! to the rows.

use super::{Done, Model};
use allot_core::{AllotError, QuantityState, DEFAULT_LOCATION};
use serde_json::{json, Value};

impl Model {
    /// What the unsellable `state` holds of `sku` at `location`.
    pub(super) fn state_at(&self, sku: &str, location: &str, state: QuantityState) -> i64 {
        self.states
            .get(&(sku.to_string(), location.to_string(), state))
            .copied()
            .unwrap_or(0)
    }

    /// What the unsellable states hold of `sku` at `location`, together.
    pub(super) fn unsellable_at(&self, sku: &str, location: &str) -> i64 {
        QuantityState::UNSELLABLE
            .iter()
            .map(|s| self.state_at(sku, location, *s))
            .sum()
    }

    /// The locations where `sku` has something in an unsellable state.
    pub(super) fn state_locations(&self, sku: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .states
            .iter()
            .filter(|((s, _, _), n)| s == sku && **n > 0)
            .map(|((_, l, _), _)| l.clone())
            .collect();
        out.dedup();
        out
    }

    /// The unsellable counts of `sku` (at `location`, or in total), as the answers name them.
    pub(super) fn states_view(&self, sku: &str, location: Option<&str>) -> Value {
        let count = |state| {
            self.states
                .iter()
                .filter(|((s, l, st), _)| s == sku && *st == state && location.is_none_or(|at| at == l))
                .map(|(_, n)| n)
                .sum::<i64>()
        };
        json!({"damaged": count(QuantityState::Damaged),
            "quality_control": count(QuantityState::QualityControl),
            "safety_stock": count(QuantityState::SafetyStock)})
    }

    /// `POST /v1/skus/{sku}/moves`.
    pub(super) fn move_stock(
        &mut self,
        sku: &str,
        (from, to): (QuantityState, QuantityState),
        quantity: i64,
        location: Option<&str>,
    ) -> Result<Done, AllotError> {
        let location = location.unwrap_or(DEFAULT_LOCATION);
        self.count_sku_at(sku, location)?;
        if from == QuantityState::Available {
            self.change_at(sku, location, -quantity)?;
        } else {
            let left = self.state_at(sku, location, from);
            if quantity > left {
                return Err(AllotError::ExceedsState {
                    sku: sku.to_string(),
                    state: from.as_str(),
                    requested: quantity,
                    left,
                });
            }
            self.add_state(sku, location, from, -quantity);
        }
        match to {
            QuantityState::Available => self.add_at(sku, location, quantity),
            _ => self.add_state(sku, location, to, quantity),
        }
        let view = json!({"sku": sku, "location": location, "from": from, "to": to, "quantity": quantity,
            "reason": "damaged", "reference": "erp://count/sim"});
        Ok((201, view, None))
    }

    fn add_state(&mut self, sku: &str, location: &str, state: QuantityState, n: i64) {
        *self
            .states
            .entry((sku.to_string(), location.to_string(), state))
            .or_default() += n;
    }
}
