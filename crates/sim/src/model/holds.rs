//! Holds in the model: made, read, confirmed (whole or in part), released, extended, and
//! expired by the clock alone.

use super::stock::sorted;
use super::{Allocation, Done, Hold, Model, Stored};
use crate::made::Noted;
use allot_core::hold::{HoldKind, HoldStatus};
use allot_core::AllotError;
use serde_json::{json, Value};

impl Model {
    /// The status a reader sees now: a held hold whose expiry is not after now is expired.
    pub(super) fn status(&self, h: &Hold) -> HoldStatus {
        match h.stored {
            Stored::Held if h.expires_us <= self.now_us() => HoldStatus::Expired,
            Stored::Held => HoldStatus::Held,
            Stored::Confirmed => HoldStatus::Confirmed,
            Stored::Released => HoldStatus::Released,
        }
    }

    fn find(&self, id: &str) -> Result<&Hold, AllotError> {
        self.holds.get(id).ok_or_else(|| AllotError::not_found("hold", id))
    }

    /// A `409 hold_<status>` for a hold that is not held.
    fn not_active(id: &str, status: HoldStatus) -> AllotError {
        AllotError::HoldNotActive {
            id: id.to_string(),
            status,
        }
    }

    pub(super) fn hold(&mut self, lines: &[(&str, i64)], ttl_ms: i64) -> Result<Done, AllotError> {
        let lines = sorted(lines);
        self.check_lines(&lines)?;
        let id = self.new_id("h");
        let hold = Hold {
            lines,
            expires_us: self.now_us() + ttl_ms * 1000,
            stored: Stored::Held,
            units: false,
        };
        self.holds.insert(id.clone(), hold);
        Ok((201, self.hold_view(&id)?, Some(Noted::Id(id))))
    }

    /// The hold as `GET /v1/holds/{id}` reads it; a unit hold that is held or confirmed
    /// lists its units' serials (by id).
    pub(super) fn hold_view(&self, id: &str) -> Result<Value, AllotError> {
        let h = self.find(id)?;
        let status = self.status(h);
        let mut view = json!({
            "status": status.as_str(),
            "kind": if h.units { HoldKind::Units } else { HoldKind::Stock }.as_str(),
            "lines": crate::ops::lines_json(&h.lines),
            "expires_at_us": h.expires_us,
        });
        if h.units && matches!(status, HoldStatus::Held | HoldStatus::Confirmed) {
            view["units"] = json!(self.serials_of(id));
        }
        Ok(view)
    }

    /// Confirm whole, or only `part` (at most what the hold holds of each SKU named; the rest
    /// is released): the allocation, with the hold's id.
    pub(super) fn confirm(&mut self, id: &str, part: Option<&[(&str, i64)]>) -> Result<Done, AllotError> {
        let h = self.find(id)?;
        match self.status(h) {
            HoldStatus::Held => {}
            HoldStatus::Confirmed => return Ok((200, self.allocation_view(id)?, Some(Noted::Id(id.to_string())))),
            status => return Err(Self::not_active(id, status)),
        }
        let units = h.units;
        let kept = match part {
            None => h.lines.clone(),
            Some(_) if units => return Err(AllotError::invalid("a unit hold is confirmed whole")),
            Some(part) => kept(&h.lines, &sorted(part))?,
        };
        if units {
            self.allocate_units(id);
        } else {
            for (sku, q) in &kept {
                *self.skus.entry(sku.clone()).or_default() -= q;
            }
        }
        if let Some(h) = self.holds.get_mut(id) {
            h.stored = Stored::Confirmed;
            // A hold confirmed in part reads the lines it confirmed.
            h.lines = kept.clone();
        }
        self.allocations.insert(id.to_string(), Allocation::of(kept));
        Ok((200, self.allocation_view(id)?, Some(Noted::Id(id.to_string()))))
    }

    /// A held hold is released; a released or expired one is answered unchanged (it holds
    /// nothing already); a confirmed one is `hold_confirmed`.
    pub(super) fn release(&mut self, id: &str) -> Result<Done, AllotError> {
        match self.status(self.find(id)?) {
            HoldStatus::Held => {
                if let Some(h) = self.holds.get_mut(id) {
                    h.stored = Stored::Released;
                }
                self.free_units(id);
            }
            // An expired hold is finalised (a unit hold's units rejoin the claims' order).
            HoldStatus::Expired => self.free_units(id),
            HoldStatus::Released => {}
            status => return Err(Self::not_active(id, status)),
        }
        Ok((200, self.hold_view(id)?, None))
    }

    /// The hold lasts at least `ttl_ms` from now (never shorter than it was).
    pub(super) fn extend(&mut self, id: &str, ttl_ms: i64) -> Result<Done, AllotError> {
        match self.status(self.find(id)?) {
            HoldStatus::Held => {}
            status => return Err(Self::not_active(id, status)),
        }
        let until = self.now_us() + ttl_ms * 1000;
        if let Some(h) = self.holds.get_mut(id) {
            h.expires_us = h.expires_us.max(until);
        }
        Ok((200, self.hold_view(id)?, None))
    }
}

/// What a partial confirm keeps of `held` (SKU order): each SKU named, at most what is held of
/// it (else `insufficient_stock` with the held quantity as `available`, a SKU not held
/// holding 0); lines kept at 0 are left out.
fn kept(held: &[(String, i64)], part: &[(String, i64)]) -> Result<Vec<(String, i64)>, AllotError> {
    let mut out = Vec::new();
    for (sku, q) in part {
        let have: i64 = held.iter().filter(|(s, _)| s == sku).map(|(_, n)| n).sum();
        if *q > have {
            return Err(AllotError::InsufficientStock {
                sku: sku.clone(),
                requested: *q,
                available: have,
            });
        }
        if *q > 0 {
            out.push((sku.clone(), *q));
        }
    }
    Ok(out)
}
