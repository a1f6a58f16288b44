//! Backorders in the model (`allot_core::backorder`): a SKU's limit, a short allocation that
//! takes what there is and owes the rest, and the fills, oldest first, when stock comes back
//! at a location an owed line may use (the model's `add_at` of a positive delta, where every
//! store's writer rebalances a location upwards).

use super::places::From;
use super::{Allocation, Done, Model};
use crate::made::Noted;
use crate::ops::{Place, Placing};
use allot_core::AllotError;
use std::collections::BTreeMap;

impl Model {
    /// `PATCH /v1/skus/{sku}` `{"backorder_limit"}`: `not_found`, `wrong_tracking` for a
    /// unit-tracked SKU.
    pub(super) fn set_backorder_limit(&mut self, sku: &str, limit: i64) -> Result<Done, AllotError> {
        match self.tracks_units(sku) {
            None => return Err(AllotError::not_found("sku", sku)),
            Some(true) => return Err(AllotError::wrong_tracking(sku, true)),
            Some(false) => {}
        }
        self.backorder_limits.insert(sku.to_string(), limit);
        Ok((200, self.sku_view(sku)?, None))
    }

    /// A SKU's limit (0: none).
    pub(super) fn backorder_limit(&self, sku: &str) -> i64 {
        self.backorder_limits.get(sku).copied().unwrap_or(0)
    }

    /// What `sku` owes now, over every allocation.
    pub(super) fn owed(&self, sku: &str) -> i64 {
        self.allocations
            .values()
            .flat_map(|a| a.lines.iter().zip(&a.owed))
            .filter(|((s, _), _)| s == sku)
            .filter_map(|(_, o)| *o)
            .sum()
    }

    /// Whether an allocation refused short on `sku` runs the backorder path: a limit, and
    /// no ranked placement.
    pub(super) fn may_owe(&self, sku: &str, place: &Place) -> bool {
        self.backorder_limit(sku) > 0 && !matches!(place.placing, Placing::Ranked(_))
    }

    /// The backorder path of an allocation of `lines` (SKU order): each line, its SKU's
    /// overdue holds finished where a store finishes them, whole where it fits, else what
    /// there is with the rest owed while its SKU has room (else the line's refusal, nothing
    /// changed). Then taken, recorded, and its owed lines queued.
    pub(super) fn backorder(&mut self, lines: Vec<(String, i64)>, place: &Place) -> Result<Done, AllotError> {
        let mut owed_now: BTreeMap<String, i64> = BTreeMap::new();
        let (mut from, mut owes) = (Vec::new(), Vec::new());
        for (sku, q) in &lines {
            match self.tracks_units(sku) {
                None => return Err(AllotError::not_found("sku", sku)),
                Some(true) => return Err(AllotError::wrong_tracking(sku, true)),
                Some(false) => {}
            }
            let steers = self.holds_may_steer(sku, place);
            if (steers || !self.stored_fits(sku, *q, place)) && self.overdue_on(sku) {
                self.finalise_overdue(Some(sku));
            }
            match self.place_line(sku, *q, place) {
                Ok(pieces) => {
                    from.push(pieces);
                    owes.push(0);
                }
                Err(refusal) => {
                    let pieces = self.partial_line(sku, *q, place);
                    let short = q - pieces.iter().map(|(_, n)| n).sum::<i64>();
                    let limit = self.backorder_limit(sku);
                    let owed = *owed_now.entry(sku.clone()).or_insert_with(|| self.owed(sku));
                    let pinned_nowhere = place.pin.is_some_and(|at| self.priority(at).is_none());
                    if short > 0 && (owed + short > limit || pinned_nowhere) {
                        return Err(refusal);
                    }
                    owed_now.insert(sku.clone(), owed + short);
                    from.push(pieces);
                    owes.push(short);
                }
            }
        }
        for ((sku, _), pieces) in lines.iter().zip(&from) {
            for (l, q) in pieces {
                self.put_at(sku, l, -q);
            }
        }
        let id = self.new_id("a");
        let mut a = Allocation::of(lines, from);
        a.owed = owes.iter().map(|&o| (o > 0).then_some(o)).collect();
        a.pin = place.pin.map(str::to_string);
        for (i, &o) in owes.iter().enumerate() {
            if o > 0 {
                self.backorder_queue.push((id.clone(), i));
            }
        }
        self.allocations.insert(id.clone(), a);
        Ok((201, self.allocation_view(&id)?, Some(Noted::Id(id))))
    }

    /// What a short line of `quantity` can take now: as much as each location it may use
    /// has, in its order, split or not (`allot_core::backorder::partial_take`).
    fn partial_line(&self, sku: &str, quantity: i64, place: &Place) -> From {
        let mut left = quantity;
        let mut pieces = Vec::new();
        for l in self.candidates(sku, place) {
            let q = left.min(self.available_at(sku, &l));
            if q > 0 {
                pieces.push((l, q));
                left -= q;
            }
        }
        pieces
    }

    /// The (SKU, location) of each stock piece of hold `id` (as it holds them now).
    pub(super) fn hold_pieces_at(&self, id: &str) -> Vec<(String, String)> {
        let Some(h) = self.holds.get(id) else {
            return Vec::new();
        };
        h.lines
            .iter()
            .zip(&h.from)
            .flat_map(|((sku, _), from)| from.iter().map(move |(l, _)| (sku.clone(), l.clone())))
            .collect()
    }

    /// Fill what is owed at each (SKU, location) of `at` (where holds gave stock back: a
    /// release, an expiry finalised, the released part of a partial confirm), in byte order
    /// of SKU then location, each once, as every store does (PostgreSQL's
    /// `allot_fill_backorders`, V48).
    pub(super) fn fill_after_holds(&mut self, at: Vec<(String, String)>) {
        let at: std::collections::BTreeSet<(String, String)> = at.into_iter().collect();
        for (sku, location) in &at {
            self.fill_backorders(sku, location);
        }
    }

    /// Fill what `sku` owes at `location` from what is available there (on hand less what
    /// every unfinished hold holds, as the store's rows say), oldest first.
    pub(super) fn fill_backorders(&mut self, sku: &str, location: &str) {
        let mut available = self.on_hand_at(sku, location) - self.stored_held_at(sku, location);
        for (id, i) in self.backorder_queue.clone() {
            if available <= 0 {
                break;
            }
            let Some(a) = self.allocations.get_mut(&id) else {
                continue;
            };
            let owed = a.owed[i].unwrap_or(0);
            if a.lines[i].0 != sku || owed == 0 || a.pin.as_deref().is_some_and(|p| p != location) {
                continue;
            }
            let f = owed.min(available);
            available -= f;
            a.owed[i] = Some(owed - f);
            match a.from[i].iter_mut().find(|(l, _)| l == location) {
                Some((_, q)) => *q += f,
                None => a.from[i].push((location.to_string(), f)),
            }
            self.put_at(sku, location, -f);
        }
    }
}
