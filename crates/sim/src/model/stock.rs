//! SKUs, adjustments, allocations and cancels in the model.

use super::places::From;
use super::{Allocation, Done, Model, Stored};
use crate::made::Noted;
use crate::ops::Place;
use allot_core::{AllotError, DEFAULT_LOCATION};
use serde_json::{json, Value};

impl Model {
    /// What the live holds set aside of `sku`: held, and not expired at now.
    pub(super) fn held(&self, sku: &str) -> i64 {
        let now = self.now_us();
        self.holds
            .values()
            .filter(|h| h.stored == Stored::Held && h.expires_us > now)
            .flat_map(|h| h.lines.iter())
            .filter(|(s, _)| s == sku)
            .map(|(_, q)| q)
            .sum()
    }

    /// On hand (a unit-tracked SKU's: its units not allocated), or `not_found`.
    fn on_hand(&self, sku: &str) -> Result<i64, AllotError> {
        match self.tracks_units(sku) {
            Some(true) => Ok(self.units_on_hand(sku)),
            _ => self
                .skus
                .get(sku)
                .map(|rows| rows.iter().map(|(_, q)| q).sum())
                .ok_or_else(|| AllotError::not_found("sku", sku)),
        }
    }

    /// On hand less held, or `not_found`.
    pub(super) fn available(&self, sku: &str) -> Result<i64, AllotError> {
        Ok(self.on_hand(sku)? - self.held(sku))
    }

    pub(super) fn sku_view(&self, sku: &str) -> Result<Value, AllotError> {
        let available = self.available(sku)?;
        let on_hand = self.on_hand(sku)?;
        let levels = self.levels(sku);
        let incoming: i64 = self.incoming_at(sku).values().sum();
        let states = self.states_view(sku, None);
        let unsellable: i64 = states
            .as_object()
            .into_iter()
            .flatten()
            .filter_map(|(_, n)| n.as_i64())
            .sum();
        let mut view = json!({"sku": sku, "on_hand": on_hand + unsellable, "held": on_hand - available,
            "available": available, "incoming": incoming, "levels": levels,
            "backorder_limit": self.backorder_limit(sku), "backordered": self.owed(sku)});
        super::places::merge(&mut view, states);
        Ok(view)
    }

    /// `POST /v1/skus`: its stock at `location` (`default` when none; a location that does
    /// not exist: `not_found`, before `already_exists`).
    pub(super) fn create_sku(&mut self, sku: &str, on_hand: i64, location: Option<&str>) -> Result<Done, AllotError> {
        let location = location.unwrap_or(DEFAULT_LOCATION);
        if location != DEFAULT_LOCATION && !self.locations.contains_key(location) {
            return Err(AllotError::not_found("location", location));
        }
        if self.tracks_units(sku).is_some() {
            return Err(AllotError::AlreadyExists {
                kind: "sku",
                id: sku.to_string(),
            });
        }
        self.skus.insert(sku.to_string(), vec![(location.to_string(), on_hand)]);
        Ok((201, self.sku_view(sku)?, None))
    }

    /// `POST /v1/skus/{sku}/adjustments` at `location` (`default` when none).
    pub(super) fn adjust(&mut self, sku: &str, delta: i64, location: Option<&str>) -> Result<Done, AllotError> {
        self.change_at(sku, location.unwrap_or(DEFAULT_LOCATION), delta)?;
        Ok((200, self.sku_view(sku)?, None))
    }

    /// The lines placed as a store's writer places them: before a line whose place holds
    /// could steer, or that its store's rows (where an expired hold not finished yet still
    /// counts) find short, the overdue holds of its SKU are finished (a mixed hold's units
    /// then rejoin the claims' order), whatever the request's outcome (SQLite's `take_line`,
    /// PostgreSQL's `steered` and short lines, the `batched` lane's refusals).
    pub(super) fn place_lines_finishing(
        &mut self,
        lines: &[(String, i64)],
        place: &Place,
    ) -> Result<Vec<From>, AllotError> {
        let mut out = Vec::new();
        for (sku, q) in lines {
            match self.tracks_units(sku) {
                None => return Err(AllotError::not_found("sku", sku)),
                Some(true) => return Err(AllotError::wrong_tracking(sku, true)),
                Some(false) => {}
            }
            // What the store's rows say decides, where an expired hold not finished yet still
            // counts as held.
            let steers = self.holds_may_steer(sku, place);
            if (steers || !self.stored_fits(sku, *q, place)) && self.overdue_on(sku) {
                self.finalise_overdue(Some(sku));
            }
            out.push(self.place_line(sku, *q, place)?);
        }
        Ok(out)
    }

    pub(super) fn allocate(&mut self, lines: &[(&str, i64)], place: &Place) -> Result<Done, AllotError> {
        let lines = sorted(lines);
        let from = match self.place_lines_finishing(&lines, place) {
            Ok(from) => from,
            // Short where its SKU may owe: the backorder path decides (`backorders.rs`).
            Err(AllotError::InsufficientStock { sku, .. }) if self.may_owe(&sku, place) => {
                return self.backorder(lines, place)
            }
            Err(e) => return Err(e),
        };
        for ((sku, _), pieces) in lines.iter().zip(&from) {
            for (l, q) in pieces {
                self.add_at(sku, l, -q);
            }
        }
        let id = self.new_id("a");
        self.allocations.insert(id.clone(), Allocation::of(lines, from));
        Ok((201, self.allocation_view(&id)?, Some(Noted::Id(id))))
    }

    /// The allocation: its status and its lines, each with how much of it came back.
    pub(super) fn allocation_view(&self, id: &str) -> Result<Value, AllotError> {
        let a = self
            .allocations
            .get(id)
            .ok_or_else(|| AllotError::not_found("allocation", id))?;
        let status = if a.cancelled { "cancelled" } else { "allocated" };
        let lines: Vec<Value> = a
            .lines
            .iter()
            .zip(&a.returned)
            .zip(&a.from)
            .zip(&a.owed)
            .map(|((((sku, q), r), from), owed)| {
                json!({"sku": sku, "quantity": q, "returned": r, "from": from_json(from), "backordered": owed})
            })
            .collect();
        Ok(json!({"status": status, "lines": lines}))
    }

    /// `POST /v1/allocations/{id}/returns`: line by line in SKU order, never more than is
    /// left of the allocation's line for its SKU (`409 exceeds_allocation`; a cancelled
    /// allocation has nothing left), then `wrong_tracking` for a unit-tracked SKU's line; a
    /// sellable line goes back on hand, a damaged one stays out. All lines or none.
    pub(super) fn return_lines(
        &mut self,
        id: &str,
        lines: &[(&str, i64, bool)],
        location: Option<&str>,
    ) -> Result<Done, AllotError> {
        let a = self
            .allocations
            .get(id)
            .ok_or_else(|| AllotError::not_found("allocation", id))?;
        let mut lines = lines.to_vec();
        lines.sort_by(|x, y| x.0.cmp(y.0));
        let mut returned = a.returned.clone();
        // Where each line goes back: where its allocation's line came from first.
        let mut back = Vec::new();
        for (sku, q, _) in &lines {
            let at = a.lines.iter().position(|(s, _)| s == sku);
            let left = match at {
                // What is still owed was never handed over.
                Some(i) if !a.cancelled => a.lines[i].1 - returned[i] - a.owed[i].unwrap_or(0),
                _ => 0,
            };
            if *q > left {
                return Err(AllotError::ExceedsAllocation {
                    sku: sku.to_string(),
                    requested: *q,
                    left,
                });
            }
            if self.tracks_units(sku) == Some(true) {
                return Err(AllotError::wrong_tracking(sku, true));
            }
            if let Some(i) = at {
                returned[i] += q;
                let first = a.from[i].first().map_or(DEFAULT_LOCATION, |(l, _)| l.as_str());
                back.push(location.unwrap_or(first).to_string());
            }
        }
        // Every line checked, then each goes where it goes: a location that does not exist
        // is `not_found`, for a damaged line too.
        if let Some(at) = back.iter().find(|at| self.priority(at).is_none()) {
            return Err(AllotError::not_found("location", at));
        }
        if let Some(a) = self.allocations.get_mut(id) {
            a.returned = returned;
        }
        for ((sku, q, damaged), at) in lines.iter().zip(&back) {
            if !damaged {
                self.add_at(sku, at, *q);
            }
        }
        let view: Vec<Value> = lines
            .iter()
            .zip(&back)
            .map(|((sku, q, damaged), at)| {
                let state = match damaged {
                    true => allot_core::ReturnState::Damaged,
                    false => allot_core::ReturnState::Sellable,
                };
                json!({"sku": sku, "quantity": q, "state": state.as_str(), "location": at})
            })
            .collect();
        Ok((201, json!({ "lines": view }), None))
    }

    pub(super) fn cancel(&mut self, id: &str) -> Result<Done, AllotError> {
        let a = self
            .allocations
            .get_mut(id)
            .ok_or_else(|| AllotError::not_found("allocation", id))?;
        if !a.cancelled {
            a.cancelled = true;
            // What it still owes is dropped before its stock goes back (and fills others).
            for o in a.owed.iter_mut().flatten() {
                *o = 0;
            }
            let more = i64::from(self.mutation == Some(super::Mutation::CancelGivesOneMore));
            let a = a.clone();
            for (i, (sku, _)) in a.lines.iter().enumerate() {
                if self.tracks_units(sku) == Some(true) {
                    // A unit claim's units become free (a count is not given back).
                    self.free_units(id);
                    continue;
                }
                // Only what is left of the line comes back, where it came from.
                for (j, (l, q)) in left_of(&a.from[i], a.returned[i]).into_iter().enumerate() {
                    let more = if i == 0 && j == 0 { more } else { 0 };
                    self.add_at(sku, &l, q + more);
                }
            }
        }
        Ok((200, self.allocation_view(id)?, None))
    }
}

/// Lines in SKU order (the order the API answers them in).
pub(super) fn sorted(lines: &[(&str, i64)]) -> Vec<(String, i64)> {
    let mut v: Vec<(String, i64)> = lines.iter().map(|(s, q)| (s.to_string(), *q)).collect();
    v.sort();
    v
}

/// What is left of a line taken from `from` once `returned` came back: the pieces less what
/// was returned, taken off the last pieces first (pieces left at 0 dropped).
fn left_of(from: &From, returned: i64) -> From {
    let mut left = from.clone();
    let mut returned = returned;
    for (_, q) in left.iter_mut().rev() {
        let r = returned.min(*q);
        *q -= r;
        returned -= r;
    }
    left.retain(|(_, q)| *q > 0);
    left
}

/// A line's `from` as an answer lists it.
pub(super) fn from_json(from: &From) -> Value {
    Value::Array(
        from.iter()
            .map(|(l, q)| json!({"location": l, "quantity": q}))
            .collect(),
    )
}
