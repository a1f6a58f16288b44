//! Units in the model: receipts, claims in `order_by` order (allocations and holds), and what
//! a unit reads as.
//!
//! A unit is free (no claim), in a hold, or allocated. A claim takes the first free units in
//! its order (NULL first ascending, last descending, ties by id); the units of a hold that
//! expired count as available at once, but rejoin that order only once the hold is
//! finalised: by the sweeper, by a release, or by a claim that finds too few free units
//! (which finalises every overdue hold of the SKU and picks again), as docs/api.md says.

use super::{Allocation, Done, Hold, Model, Stored};
use crate::made::Noted;
use crate::ops::NewUnit;
use allot_core::hold::HoldStatus;
use allot_core::unit::{claim_satisfied, OrderKey, UnitColumn, UnitStatus};
use allot_core::AllotError;
use serde_json::{json, Value};
use std::cmp::Ordering;

/// One unit of a unit-tracked SKU.
#[derive(Debug, Clone)]
pub(super) struct UnitRow {
    /// Insertion order, from 1 (over every SKU, as a store numbers them).
    id: i64,
    sku: String,
    serial: String,
    location: Option<String>,
    lot: Option<String>,
    received_us: i64,
    expires_us: Option<i64>,
    /// The hold or allocation that has it.
    claim: Option<String>,
    /// Allocated for good (else held, when claimed).
    allocated: bool,
}

/// A claim's request, as the model reads it.
pub(super) struct ClaimOf<'a> {
    pub sku: &'a str,
    pub quantity: i64,
    pub order_by: &'a [&'a str],
    pub allow_partial: bool,
    pub hold_ttl_ms: Option<i64>,
}

impl Model {
    /// Whether `sku` tracks units (`None`: no such SKU).
    pub(super) fn tracks_units(&self, sku: &str) -> Option<bool> {
        if self.skus.contains_key(sku) {
            Some(false)
        } else if self.unit_skus.contains(sku) {
            Some(true)
        } else {
            None
        }
    }

    /// A unit-tracked SKU's on hand: its units not allocated.
    pub(super) fn units_on_hand(&self, sku: &str) -> i64 {
        self.units.iter().filter(|u| u.sku == sku && !u.allocated).count() as i64
    }

    /// `POST /v1/skus/{sku}/units`: every unit or none (a serial the SKU has:
    /// `409 already_exists`); a SKU that does not exist is made, unit-tracked.
    pub(super) fn receive_units(&mut self, sku: &str, units: &[NewUnit]) -> Result<Done, AllotError> {
        if self.tracks_units(sku) == Some(false) {
            return Err(AllotError::wrong_tracking(sku, false));
        }
        self.unit_skus.insert(sku.to_string());
        if let Some(u) = units.iter().find(|u| self.serial_taken(sku, u.serial)) {
            return Err(AllotError::AlreadyExists {
                kind: "unit serial",
                id: format!("{sku}/S{}", u.serial),
            });
        }
        let hours = |h: i64| (crate::ops::start() + chrono::Duration::hours(h)).timestamp_micros();
        for u in units {
            let row = UnitRow {
                id: self.units.len() as i64 + 1,
                sku: sku.to_string(),
                serial: format!("S{}", u.serial),
                location: u.location.map(str::to_string),
                lot: u.lot.map(str::to_string),
                received_us: u.received_h.map_or(self.now_us(), hours),
                expires_us: u
                    .expires_min
                    .map(|m| (crate::ops::start() + chrono::Duration::minutes(m)).timestamp_micros()),
                claim: None,
                allocated: false,
            };
            self.units.push(row);
        }
        Ok((201, json!({"created": units.len()}), None))
    }

    fn serial_taken(&self, sku: &str, serial: u32) -> bool {
        let serial = format!("S{serial}");
        self.units.iter().any(|u| u.sku == sku && u.serial == serial)
    }

    /// `POST /v1/unit-allocations`.
    pub(super) fn claim_units(&mut self, c: &ClaimOf<'_>) -> Result<Done, AllotError> {
        match self.tracks_units(c.sku) {
            None => return Err(AllotError::not_found("sku", c.sku)),
            Some(false) => return Err(AllotError::wrong_tracking(c.sku, false)),
            Some(true) => {}
        }
        let keys = order_keys(c.order_by);
        let mut picked = self.pick(c.sku, &keys, c.quantity);
        if (picked.len() as i64) < c.quantity && self.finalise_overdue(Some(c.sku)) > 0 {
            picked = self.pick(c.sku, &keys, c.quantity);
        }
        let got = picked.len() as i64;
        if !claim_satisfied(got, c.quantity, c.allow_partial) {
            return Err(AllotError::InsufficientStock {
                sku: c.sku.to_string(),
                requested: c.quantity,
                available: got,
            });
        }
        let held = c.hold_ttl_ms.is_some();
        let id = self.new_id(if held { "h" } else { "a" });
        for &i in &picked {
            self.units[i].claim = Some(id.clone());
            self.units[i].allocated = !held;
        }
        let lines = vec![(c.sku.to_string(), got)];
        let expires_us = c.hold_ttl_ms.map(|ttl| self.now_us() + ttl * 1000);
        match expires_us {
            Some(expires_us) => {
                let hold = Hold {
                    from: vec![Vec::new(); lines.len()],
                    lines,
                    expires_us,
                    stored: Stored::Held,
                    units: true,
                    mixed: false,
                    finalised: false,
                };
                self.holds.insert(id.clone(), hold);
                self.note_hold_event("hold.created", &id);
            }
            None => {
                self.allocations
                    .insert(id.clone(), Allocation::of(lines.clone(), vec![Vec::new(); lines.len()]));
            }
        }
        let serials: Vec<&str> = picked.iter().map(|&i| self.units[i].serial.as_str()).collect();
        let status = match held {
            true => allot_core::AllocationStatus::Held,
            false => allot_core::AllocationStatus::Allocated,
        };
        let view = json!({
            "status": status,
            "sku": c.sku,
            "units": serials,
            "expires_at_us": expires_us,
        });
        Ok((201, view, Some(Noted::Id(id))))
    }

    /// The places of `sku`'s first `quantity` free units in the order of `keys`, then id
    /// (never one past its best-before date).
    fn pick(&self, sku: &str, keys: &[OrderKey], quantity: i64) -> Vec<usize> {
        let mut free: Vec<usize> = (0..self.units.len())
            .filter(|&i| self.units[i].sku == sku && self.claimable(&self.units[i]))
            .collect();
        free.sort_by(|&a, &b| compare(&self.units[a], &self.units[b], keys));
        free.truncate(quantity.max(0) as usize);
        free
    }

    /// Whether a unit may be handed out now: free, and not past its `expires_at`.
    fn claimable(&self, u: &UnitRow) -> bool {
        u.claim.is_none() && u.expires_us.is_none_or(|e| e > self.now_us())
    }

    /// The places of those of `sku`'s units named by `serials` (`S{n}`) that may be handed
    /// out (free, not past their best-before date).
    fn pick_named(&self, sku: &str, serials: &[u32]) -> Vec<usize> {
        let names: Vec<String> = serials.iter().map(|n| format!("S{n}")).collect();
        (0..self.units.len())
            .filter(|&i| {
                let u = &self.units[i];
                u.sku == sku && self.claimable(u) && names.contains(&u.serial)
            })
            .collect()
    }

    /// Finish every hold (of `sku`'s, when given) that expired and is not finished yet, as
    /// a store's writer or sweeper does: its units become free. How many holds.
    pub(super) fn finalise_overdue(&mut self, sku: Option<&str>) -> usize {
        let of_sku = |h: &Hold| sku.is_none_or(|s| h.lines.iter().any(|(l, _)| l == s));
        let overdue: Vec<String> = self
            .holds
            .iter()
            .filter(|(_, h)| !h.finalised && of_sku(h) && self.status(h) == HoldStatus::Expired)
            .map(|(id, _)| id.clone())
            .collect();
        let mut gave_back = Vec::new();
        for id in &overdue {
            self.free_units(id);
            gave_back.extend(self.hold_pieces_at(id));
            if let Some(h) = self.holds.get_mut(id) {
                h.finalised = true;
            }
        }
        self.fill_after_holds(gave_back);
        overdue.len()
    }

    /// Whether a hold that expired but is not finished yet holds `sku`.
    pub(super) fn overdue_on(&self, sku: &str) -> bool {
        self.holds
            .values()
            .any(|h| !h.finalised && self.status(h) == HoldStatus::Expired && h.lines.iter().any(|(l, _)| l == sku))
    }

    /// Take the unit line `(sku, quantity)` of hold `id` (its units then name it), as a unit
    /// claim picks, or the units `serials` names (those of them free): overdue holds of the
    /// SKU finished and the pick run again when too few are free. Errors: `not_found`,
    /// `wrong_tracking`, `insufficient_stock` (`available`: how many of those asked for are
    /// free).
    pub(super) fn hold_unit_line(
        &mut self,
        id: &str,
        (sku, quantity): (&str, i64),
        serials: Option<&[u32]>,
    ) -> Result<(), AllotError> {
        match self.tracks_units(sku) {
            None => return Err(AllotError::not_found("sku", sku)),
            Some(false) => return Err(AllotError::wrong_tracking(sku, false)),
            Some(true) => {}
        }
        let pick = |m: &Self| match serials {
            None => m.pick(sku, &[], quantity),
            Some(named) => m.pick_named(sku, named),
        };
        let mut picked = pick(self);
        if (picked.len() as i64) < quantity && self.finalise_overdue(Some(sku)) > 0 {
            picked = pick(self);
        }
        if (picked.len() as i64) < quantity {
            return Err(AllotError::InsufficientStock {
                sku: sku.to_string(),
                requested: quantity,
                available: picked.len() as i64,
            });
        }
        for i in picked {
            self.units[i].claim = Some(id.to_string());
        }
        Ok(())
    }

    /// The units of `sku` that `claim` has become free.
    pub(super) fn free_units_of(&mut self, claim: &str, sku: &str) {
        for u in self
            .units
            .iter_mut()
            .filter(|u| u.claim.as_deref() == Some(claim) && u.sku == sku)
        {
            u.claim = None;
            u.allocated = false;
        }
    }

    /// A partial confirm of hold `claim` keeps of each SKU its first `kept` units (by id; a
    /// SKU not named: none); its other units become free.
    pub(super) fn free_units_past(&mut self, claim: &str, kept: &[(String, i64)]) {
        let mut left: std::collections::HashMap<&str, i64> = kept.iter().map(|(s, q)| (s.as_str(), *q)).collect();
        for u in self.units.iter_mut().filter(|u| u.claim.as_deref() == Some(claim)) {
            match left.get_mut(u.sku.as_str()) {
                Some(k) if *k > 0 => *k -= 1,
                _ => {
                    u.claim = None;
                    u.allocated = false;
                }
            }
        }
    }

    /// The units `claim` has become free.
    pub(super) fn free_units(&mut self, claim: &str) {
        for u in self.units.iter_mut().filter(|u| u.claim.as_deref() == Some(claim)) {
            u.claim = None;
            u.allocated = false;
        }
    }

    /// The units `claim` has are allocated for good (a unit hold confirmed).
    pub(super) fn allocate_units(&mut self, claim: &str) {
        for u in self.units.iter_mut().filter(|u| u.claim.as_deref() == Some(claim)) {
            u.allocated = true;
        }
    }

    /// The serials `claim` has, by id.
    pub(super) fn serials_of(&self, claim: &str) -> Vec<String> {
        self.units
            .iter()
            .filter(|u| u.claim.as_deref() == Some(claim))
            .map(|u| u.serial.clone())
            .collect()
    }

    /// `GET /v1/skus/{sku}/units`: by id, each with what it reads as now (a unit of an
    /// expired hold is available, with no claim).
    pub(super) fn units_view(&self, sku: &str) -> Result<Value, AllotError> {
        if self.tracks_units(sku).is_none() {
            return Err(AllotError::not_found("sku", sku));
        }
        let units: Vec<Value> = self
            .units
            .iter()
            .filter(|u| u.sku == sku)
            .map(|u| self.unit_view(u))
            .collect();
        Ok(json!({ "units": units }))
    }

    /// `GET /v1/skus/{sku}/units/S{serial}`: the unit as a listing shows it, or `not_found`.
    pub(super) fn unit_by_serial(&self, sku: &str, serial: u32) -> Result<Value, AllotError> {
        let serial = format!("S{serial}");
        self.units
            .iter()
            .find(|u| u.sku == sku && u.serial == serial)
            .map(|u| self.unit_view(u))
            .ok_or_else(|| AllotError::not_found("unit", format!("{sku}/{serial}")))
    }

    /// Where each unit of `sku` is (none: `default`; an allocated one too, on hand there no
    /// more), whether it is on hand, and whether a live hold has it.
    pub(super) fn unit_places(&self, sku: &str) -> Vec<(String, bool, bool)> {
        self.units
            .iter()
            .filter(|u| u.sku == sku)
            .map(|u| {
                let held = u
                    .claim
                    .as_ref()
                    .is_some_and(|h| self.holds.get(h).is_some_and(|h| self.status(h) == HoldStatus::Held));
                let at = u
                    .location
                    .clone()
                    .unwrap_or_else(|| allot_core::DEFAULT_LOCATION.to_string());
                (at, !u.allocated, held && !u.allocated)
            })
            .collect()
    }

    fn unit_view(&self, u: &UnitRow) -> Value {
        let status = match (&u.claim, u.allocated) {
            (Some(_), true) => UnitStatus::Allocated,
            (Some(h), false) if self.holds.get(h).is_some_and(|h| self.status(h) == HoldStatus::Held) => {
                UnitStatus::Held
            }
            _ => UnitStatus::Available,
        };
        json!({
            "serial": u.serial,
            "location": u.location,
            "lot": u.lot,
            "status": status.as_str(),
            "claimed": status != UnitStatus::Available,
        })
    }
}

/// The validated order of a claim's `order_by` (validation ran before: every name is known).
fn order_keys(names: &[&str]) -> Vec<OrderKey> {
    names.iter().filter_map(|raw| OrderKey::parse(raw)).collect()
}

/// `a` against `b` by `keys` (NULL the smallest value, the greatest under `fefo`), then by id.
fn compare(a: &UnitRow, b: &UnitRow, keys: &[OrderKey]) -> Ordering {
    for k in keys {
        let o = match k.column {
            UnitColumn::Id => a.id.cmp(&b.id),
            UnitColumn::Serial => a.serial.cmp(&b.serial),
            UnitColumn::Location => a.location.cmp(&b.location),
            UnitColumn::Lot => a.lot.cmp(&b.lot),
            UnitColumn::ReceivedAt => a.received_us.cmp(&b.received_us),
            UnitColumn::ExpiresAt if k.nulls_last && !k.descending => {
                // `fefo`: a date before none.
                (a.expires_us.is_none(), a.expires_us).cmp(&(b.expires_us.is_none(), b.expires_us))
            }
            UnitColumn::ExpiresAt => a.expires_us.cmp(&b.expires_us),
        };
        let o = if k.descending { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.id.cmp(&b.id)
}
