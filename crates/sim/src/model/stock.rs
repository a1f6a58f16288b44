//! SKUs, adjustments, allocations and cancels in the model.

use super::{Allocation, Done, Model, Stored};
use crate::made::Noted;
use allot_core::AllotError;
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
                .copied()
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
        Ok(json!({"sku": sku, "on_hand": on_hand, "held": on_hand - available, "available": available}))
    }

    pub(super) fn create_sku(&mut self, sku: &str, on_hand: i64) -> Result<Done, AllotError> {
        if self.tracks_units(sku).is_some() {
            return Err(AllotError::AlreadyExists {
                kind: "sku",
                id: sku.to_string(),
            });
        }
        self.skus.insert(sku.to_string(), on_hand);
        Ok((201, self.sku_view(sku)?, None))
    }

    pub(super) fn adjust(&mut self, sku: &str, delta: i64) -> Result<Done, AllotError> {
        if self.tracks_units(sku) == Some(true) {
            return Err(AllotError::wrong_tracking(sku, true));
        }
        let available = self.available(sku)?;
        if delta < 0 && -delta > available {
            return Err(AllotError::InsufficientStock {
                sku: sku.to_string(),
                requested: -delta,
                available,
            });
        }
        *self.skus.entry(sku.to_string()).or_default() += delta;
        Ok((200, self.sku_view(sku)?, None))
    }

    /// Every line is there, or the first in SKU order that is not: `not_found` for a SKU that
    /// does not exist, `wrong_tracking` for a unit-tracked one, `insufficient_stock` for one
    /// that is short.
    pub(super) fn check_lines(&self, lines: &[(String, i64)]) -> Result<(), AllotError> {
        for (sku, q) in lines {
            if self.tracks_units(sku) == Some(true) {
                return Err(AllotError::wrong_tracking(sku, true));
            }
            let available = self.available(sku)?;
            if *q > available {
                return Err(AllotError::InsufficientStock {
                    sku: sku.clone(),
                    requested: *q,
                    available,
                });
            }
        }
        Ok(())
    }

    pub(super) fn allocate(&mut self, lines: &[(&str, i64)]) -> Result<Done, AllotError> {
        let lines = sorted(lines);
        self.check_lines(&lines)?;
        for (sku, q) in &lines {
            *self.skus.entry(sku.clone()).or_default() -= q;
        }
        let id = self.new_id("a");
        self.allocations.insert(id.clone(), Allocation::of(lines));
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
            .map(|((sku, q), r)| json!({"sku": sku, "quantity": q, "returned": r}))
            .collect();
        Ok(json!({"status": status, "lines": lines}))
    }

    /// `POST /v1/allocations/{id}/returns`: line by line in SKU order, never more than is
    /// left of the allocation's line for its SKU (`409 exceeds_allocation`; a cancelled
    /// allocation has nothing left), then `wrong_tracking` for a unit-tracked SKU's line; a
    /// sellable line goes back on hand, a damaged one stays out. All lines or none.
    pub(super) fn return_lines(&mut self, id: &str, lines: &[(&str, i64, bool)]) -> Result<Done, AllotError> {
        let a = self
            .allocations
            .get(id)
            .ok_or_else(|| AllotError::not_found("allocation", id))?;
        let mut lines = lines.to_vec();
        lines.sort_by(|x, y| x.0.cmp(y.0));
        let mut returned = a.returned.clone();
        for (sku, q, _) in &lines {
            let at = a.lines.iter().position(|(s, _)| s == sku);
            let left = match at {
                Some(i) if !a.cancelled => a.lines[i].1 - returned[i],
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
            }
        }
        if let Some(a) = self.allocations.get_mut(id) {
            a.returned = returned;
        }
        for (sku, q, damaged) in &lines {
            if !damaged {
                *self.skus.entry(sku.to_string()).or_default() += q;
            }
        }
        let view: Vec<Value> = lines
            .iter()
            .map(|(sku, q, damaged)| {
                let state = match damaged {
                    true => allot_core::ReturnState::Damaged,
                    false => allot_core::ReturnState::Sellable,
                };
                json!({"sku": sku, "quantity": q, "state": state.as_str(), "location": allot_core::DEFAULT_LOCATION})
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
            let more = i64::from(self.mutation == Some(super::Mutation::CancelGivesOneMore));
            let lines = a.lines.clone();
            let returned = a.returned.clone();
            for (i, (sku, q)) in lines.iter().enumerate() {
                if self.tracks_units(sku) == Some(true) {
                    // A unit claim's units become free (a count is not given back).
                    self.free_units(id);
                    continue;
                }
                // Only what is left of the line comes back.
                let q = q - returned[i] + if i == 0 { more } else { 0 };
                *self.skus.entry(sku.clone()).or_default() += q;
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
