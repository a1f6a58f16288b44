//! Locations in the model: a count-tracked SKU's stock per location (one row each, in the
//! order the SKU first got stock there), the placement of a line across them, transfers,
//! compare-and-set of a level, and the levels a SKU reads.
//!
//! As docs/api.md ("Locations and transfers") says: every SKU has `default` (priority 0);
//! other locations are created with a priority. A line may use the locations where its SKU
//! has a row: only its pinned one, or those of the request's placement: by priority (lower
//! first, ties by name), most available first (ties by priority, then name), or a ranked
//! list (only those, in that order). Without `allow_split` the whole line comes from the
//! first of them that has it; with it, as much as each has, in that order. A line that
//! cannot be placed is `insufficient_stock` with what its locations have in all.

use super::{Done, Model, Stored};
use crate::ops::{Place, Placing};
use allot_core::{AllotError, DEFAULT_LOCATION};
use serde_json::{json, Value};

/// Pieces of a line: `(location, quantity)`.
pub(super) type From = Vec<(String, i64)>;

impl Model {
    /// On hand at `location` (0 without a row there).
    pub(super) fn on_hand_at(&self, sku: &str, location: &str) -> i64 {
        self.skus
            .get(sku)
            .and_then(|rows| rows.iter().find(|(l, _)| l == location))
            .map_or(0, |(_, q)| *q)
    }

    /// What the live holds set aside of `sku` at `location`.
    pub(super) fn held_at(&self, sku: &str, location: &str) -> i64 {
        let now = self.now_us();
        self.held_by(sku, location, |h| h.stored == Stored::Held && h.expires_us > now)
    }

    /// What the holds `counts` selects hold of `sku` at `location`.
    fn held_by(&self, sku: &str, location: &str, counts: impl Fn(&super::Hold) -> bool) -> i64 {
        self.holds
            .values()
            .filter(|h| counts(h))
            .flat_map(|h| h.lines.iter().zip(&h.from))
            .filter(|((s, _), _)| s == sku)
            .flat_map(|(_, from)| from.iter())
            .filter(|(l, _)| l == location)
            .map(|(_, q)| q)
            .sum()
    }

    /// Held at `location` in a store's rows: by every hold not finished, expired or not.
    pub(super) fn stored_held_at(&self, sku: &str, location: &str) -> i64 {
        self.held_by(sku, location, |h| h.stored == Stored::Held && !h.finalised)
    }

    /// Whether a line of `quantity` of `sku` placed by `place` fits in the store's rows
    /// (available there = on hand less what every hold not finished holds, expired or not):
    /// at one location it may use, or over them all when it may split.
    pub(super) fn stored_fits(&self, sku: &str, quantity: i64, place: &Place) -> bool {
        let have: Vec<i64> = self
            .candidates(sku, place)
            .iter()
            .map(|l| self.on_hand_at(sku, l) - self.stored_held_at(sku, l))
            .collect();
        match place.split {
            true => have.iter().map(|a| (*a).max(0)).sum::<i64>() >= quantity,
            false => have.iter().any(|a| *a >= quantity),
        }
    }

    /// Whether holds could steer where a line of `sku` placed by `place` goes
    /// (`allot_core::location::holds_may_steer` over the store's rows): several locations
    /// it may use, something held at one of them.
    pub(super) fn holds_may_steer(&self, sku: &str, place: &Place) -> bool {
        let rows = self.skus.get(sku).cloned().unwrap_or_default();
        let usable = |l: &str| match (place.pin, &place.placing) {
            (Some(pin), _) => l == pin,
            (None, Placing::Ranked(list)) => list.contains(&l),
            (None, _) => true,
        };
        let usable: Vec<&str> = rows.iter().map(|(l, _)| l.as_str()).filter(|l| usable(l)).collect();
        usable.len() > 1 && usable.iter().any(|l| self.stored_held_at(sku, l) > 0)
    }

    pub(super) fn available_at(&self, sku: &str, location: &str) -> i64 {
        self.on_hand_at(sku, location) - self.held_at(sku, location)
    }

    /// Add `delta` to on hand at `location`, making the row (last in order) when there is none.
    ///
    /// Stock that comes back (`delta > 0`) fills what is owed there first, oldest first, in
    /// the same write (`backorders.rs`), as every store's writer does.
    pub(super) fn add_at(&mut self, sku: &str, location: &str, delta: i64) {
        self.put_at(sku, location, delta);
        if delta > 0 {
            self.fill_backorders(sku, location);
        }
    }

    /// Add `delta` to on hand at `location` and nothing else.
    pub(super) fn put_at(&mut self, sku: &str, location: &str, delta: i64) {
        let rows = self.skus.entry(sku.to_string()).or_default();
        match rows.iter_mut().find(|(l, _)| l == location) {
            Some((_, q)) => *q += delta,
            None => rows.push((location.to_string(), delta)),
        }
    }

    /// A location's priority (`None`: never created; `default` is always there).
    pub(super) fn priority(&self, location: &str) -> Option<i32> {
        match location {
            DEFAULT_LOCATION => Some(0),
            l => self.locations.get(l).copied(),
        }
    }

    /// The locations a line of `sku` may use, in the order to use them.
    pub(super) fn candidates(&self, sku: &str, place: &Place) -> Vec<String> {
        let rows = self.skus.get(sku).cloned().unwrap_or_default();
        let mut locs: Vec<(String, i32, i64)> = rows
            .iter()
            .map(|(l, _)| (l.clone(), self.priority(l).unwrap_or(0), self.available_at(sku, l)))
            .collect();
        if let Some(pin) = place.pin {
            locs.retain(|(l, _, _)| l == pin);
        } else {
            match &place.placing {
                Placing::Default | Placing::Priority => locs.sort_by(|a, b| (a.1, &a.0).cmp(&(b.1, &b.0))),
                Placing::MostAvailable => locs.sort_by(|a, b| (-a.2, a.1, &a.0).cmp(&(-b.2, b.1, &b.0))),
                Placing::Ranked(list) => {
                    let rank = |l: &str| list.iter().position(|x| *x == l);
                    locs.retain(|(l, _, _)| rank(l).is_some());
                    locs.sort_by_key(|(l, _, _)| rank(l));
                }
            }
        }
        locs.into_iter().map(|(l, _, _)| l).collect()
    }

    /// Where a line of `quantity` of `sku` would come from, or `insufficient_stock` naming
    /// what its locations have in all.
    pub(super) fn place_line(&self, sku: &str, quantity: i64, place: &Place) -> Result<From, AllotError> {
        let order = self.candidates(sku, place);
        let have: Vec<(String, i64)> = order.iter().map(|l| (l.clone(), self.available_at(sku, l))).collect();
        let pieces = if place.split {
            let mut left = quantity;
            let mut pieces = Vec::new();
            for (l, a) in &have {
                let q = left.min(*a);
                if q > 0 {
                    pieces.push((l.clone(), q));
                    left -= q;
                }
            }
            (left == 0).then_some(pieces)
        } else {
            have.iter()
                .find(|(_, a)| *a >= quantity)
                .map(|(l, _)| vec![(l.clone(), quantity)])
        };
        pieces.ok_or_else(|| AllotError::InsufficientStock {
            sku: sku.to_string(),
            requested: quantity,
            available: have.iter().map(|(_, a)| a).sum(),
        })
    }

    /// The levels `sku` reads, by location: a count-tracked SKU's rows, a unit-tracked one's
    /// units by their `location` (none: `default`), on hand those not allocated, held those
    /// a live hold has.
    pub(super) fn levels(&self, sku: &str) -> Value {
        let mut levels: std::collections::BTreeMap<String, (i64, i64)> = Default::default();
        if self.tracks_units(sku) == Some(true) {
            for (location, on_hand, held) in self.unit_places(sku) {
                let e = levels.entry(location).or_default();
                e.0 += i64::from(on_hand);
                e.1 += i64::from(held);
            }
        } else {
            for (l, q) in self.skus.get(sku).into_iter().flatten() {
                levels.insert(l.clone(), (*q, self.held_at(sku, l)));
            }
        }
        let incoming = self.incoming_at(sku);
        for l in incoming.keys().cloned().chain(self.state_locations(sku)) {
            levels.entry(l).or_default();
        }
        let levels: Vec<Value> = levels
            .into_iter()
            .map(|(l, (on_hand, held))| {
                let incoming = incoming.get(&l).copied().unwrap_or(0);
                let unsellable = self.unsellable_at(sku, &l);
                let mut level = json!({"location": l, "on_hand": on_hand + unsellable, "held": held,
                    "available": on_hand - held, "incoming": incoming});
                merge(&mut level, self.states_view(sku, Some(&l)));
                level
            })
            .collect();
        Value::Array(levels)
    }

    /// `POST /v1/locations`: a new name (`already_exists` for one there is, `default` too).
    pub(super) fn create_location(&mut self, location: &str, priority: i32) -> Result<Done, AllotError> {
        if self.priority(location).is_some() {
            return Err(AllotError::AlreadyExists {
                kind: "location",
                id: location.to_string(),
            });
        }
        self.locations.insert(location.to_string(), priority);
        Ok((201, json!({"location": location, "priority": priority}), None))
    }

    /// A count-tracked SKU that exists (`not_found`, `wrong_tracking`) and a location that
    /// does (`not_found`).
    pub(super) fn count_sku_at(&self, sku: &str, location: &str) -> Result<(), AllotError> {
        self.counted(sku)?;
        match self.priority(location) {
            Some(_) => Ok(()),
            None => Err(AllotError::not_found("location", location)),
        }
    }

    /// Take `delta` off (or add it to) on hand at `location`: never more than is available
    /// there (`insufficient_stock` with that figure).
    pub(super) fn change_at(&mut self, sku: &str, location: &str, delta: i64) -> Result<(), AllotError> {
        self.count_sku_at(sku, location)?;
        // Short in the store's rows while something is held there: the store finishes the
        // SKU's overdue holds first (`location_rows`), whatever comes of the change.
        let stored_held = self.stored_held_at(sku, location);
        let short = delta < 0 && -delta > self.on_hand_at(sku, location) - stored_held;
        if short && stored_held > 0 && self.overdue_on(sku) {
            self.finalise_overdue(Some(sku));
        }
        let available = self.available_at(sku, location);
        if delta < 0 && -delta > available {
            return Err(AllotError::InsufficientStock {
                sku: sku.to_string(),
                requested: -delta,
                available,
            });
        }
        // A delta of 0 makes no row where there is none.
        if delta != 0 {
            self.add_at(sku, location, delta);
        }
        Ok(())
    }

    /// `POST /v1/transfers`: `quantity` from `from`'s available to `to`, or nothing.
    pub(super) fn transfer(&mut self, sku: &str, from: &str, to: &str, quantity: i64) -> Result<Done, AllotError> {
        self.count_sku_at(sku, to)?;
        self.change_at(sku, from, -quantity)?;
        self.add_at(sku, to, quantity);
        Ok((
            201,
            json!({"sku": sku, "from": from, "to": to, "quantity": quantity}),
            None,
        ))
    }

    /// `POST /v1/skus/{sku}/levels/{location}`: on hand there set to `on_hand` only if it is
    /// still `compare` (`409 compare_failed`), never below what is held there.
    pub(super) fn set_level(
        &mut self,
        sku: &str,
        location: &str,
        on_hand: i64,
        compare: i64,
    ) -> Result<Done, AllotError> {
        self.count_sku_at(sku, location)?;
        let current = self.on_hand_at(sku, location) + self.unsellable_at(sku, location);
        if current != compare {
            return Err(AllotError::CompareFailed {
                sku: sku.to_string(),
                location: location.to_string(),
                expected: compare,
                current,
            });
        }
        self.change_at(sku, location, on_hand - current)?;
        Ok((200, self.sku_view(sku)?, None))
    }
}

/// Add the fields of the object `more` to the object `to`.
pub(super) fn merge(to: &mut Value, more: Value) {
    if let (Some(to), Value::Object(more)) = (to.as_object_mut(), more) {
        to.extend(more);
    }
}
