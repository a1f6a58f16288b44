//! Holds in the model: made, read, confirmed (whole or in part), released, extended, and
//! expired by the clock alone.

use super::places::From;
use super::stock::{from_json, sorted};
use super::{Allocation, Done, Hold, Model, Stored};
use crate::made::Noted;
use crate::ops::Place;
use allot_core::hold::HoldStatus;
use allot_core::AllotError;
use serde_json::{json, Value};

/// Lines of a request: (SKU, quantity).
type Lines<'a> = &'a [(&'a str, i64)];

/// A hold's own event: its type, the hold, its kind, its lines (SKU, quantity), its booking
/// lines.
pub(super) type HoldEvent = (&'static str, String, &'static str, Vec<(String, i64)>, usize);

/// A booking line of a hold: the resource, `[start_us, end_us)`, the quantity, its index in
/// the request's `lines` (which its refusal names).
pub(super) type BookingLine<'a> = (&'a str, (i64, i64), i64, usize);

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

    /// `POST /v1/holds`: the stock lines placed (in SKU order), then the unit lines taken (in
    /// SKU order), then the booking lines booked (in (resource, start, end) order, each held
    /// until the hold's expiry, decided as a booking is), all or nothing.
    pub(super) fn hold(
        &mut self,
        (lines, units, bookings): (Lines<'_>, &[crate::ops::HoldUnits], &[BookingLine<'_>]),
        ttl_ms: i64,
        place: &Place,
    ) -> Result<Done, AllotError> {
        let lines = sorted(lines);
        let from = self.place_lines_finishing(&lines, place)?;
        let id = self.new_id("h");
        let unit_lines: Vec<(&str, i64)> = units.iter().map(|(sku, q, _)| (*sku, *q)).collect();
        let unit_lines = sorted(&unit_lines);
        let named = |sku: &str| units.iter().find(|u| u.0 == sku).and_then(|u| u.2.as_deref());
        let skips = !lines.is_empty() && self.mutation == Some(super::Mutation::MixedHoldSkipsUnits);
        for (i, (sku, q)) in unit_lines.iter().enumerate().filter(|_| !skips) {
            if let Err(e) = self.hold_unit_line(&id, (sku, *q), named(sku)) {
                // Nothing is taken: the lines before give their units back.
                for (sku, _) in &unit_lines[..i] {
                    self.free_units_of(&id, sku);
                }
                return Err(e);
            }
        }
        let expires_us = self.now_us() + ttl_ms * 1000;
        let bookings = match self.mutation {
            Some(super::Mutation::HoldSkipsBookings) => &[],
            _ => bookings,
        };
        if let Err(e) = self.hold_bookings(&id, bookings, expires_us) {
            for (sku, _) in &unit_lines {
                self.free_units_of(&id, sku);
            }
            return Err(e);
        }
        let (mut all, mut all_from): (Vec<(String, i64)>, Vec<From>) = (lines, from);
        for (sku, q) in &unit_lines {
            let at = all.partition_point(|(s, _)| s < sku);
            all.insert(at, (sku.clone(), *q));
            all_from.insert(at, Vec::new());
        }
        let hold = Hold {
            mixed: (!unit_lines.is_empty() && all.len() > unit_lines.len()) || !bookings.is_empty(),
            units: !unit_lines.is_empty(),
            lines: all,
            from: all_from,
            expires_us,
            stored: Stored::Held,
            finalised: false,
        };
        self.holds.insert(id.clone(), hold);
        self.note_hold_event("hold.created", &id);
        let booked = (0..bookings.len())
            .map(|i| allot_core::hold::booking_id(&id, i))
            .collect();
        Ok((201, self.hold_view(&id)?, Some(Noted::Hold { id, bookings: booked })))
    }

    /// The hold as `GET /v1/holds/{id}` reads it; a unit hold that is held or confirmed
    /// lists its units' serials (by id).
    pub(super) fn hold_view(&self, id: &str) -> Result<Value, AllotError> {
        let h = self.find(id)?;
        let status = self.status(h);
        let mut view = json!({
            "status": status.as_str(),
            "kind": h.kind().as_str(),
            "lines": lines_with_from(&h.lines, &h.from),
            "expires_at_us": h.expires_us,
        });
        if (h.units || h.mixed) && matches!(status, HoldStatus::Held | HoldStatus::Confirmed) {
            view["units"] = json!(self.serials_of(id));
        }
        let bookings = self.bookings_of_hold(id);
        if !bookings.is_empty() {
            view["bookings"] = Value::Array(bookings);
        }
        Ok(view)
    }

    /// Confirm whole, or only `part` (at most what the hold holds of each SKU named, a unit
    /// SKU keeping its first units by id; of its bookings those named; the rest is released):
    /// the allocation, with the hold's id.
    pub(super) fn confirm(&mut self, id: &str, part: Option<&crate::ops::Part>) -> Result<Done, AllotError> {
        let h = self.find(id)?;
        match self.status(h) {
            HoldStatus::Held => {}
            HoldStatus::Confirmed => return Ok((200, self.allocation_view(id)?, Some(Noted::Id(id.to_string())))),
            status => return Err(Self::not_active(id, status)),
        }
        let units = h.units;
        // A partial confirm gives back what it does not keep: what is owed there is filled.
        let gave_back = part.map(|_| self.hold_pieces_at(id));
        let (kept, from) = match part {
            None => (h.lines.clone(), h.from.clone()),
            Some(part) => {
                let kept = self.kept(h, &sorted(&part.lines))?;
                self.keep_only(id, &kept.0, &part.bookings)?;
                kept
            }
        };
        if units {
            self.allocate_units(id);
        }
        self.finish_hold_bookings(id, allot_core::booking::BookingStatus::Confirmed);
        // A unit line's `from` is empty: only stock lines leave on hand here.
        for ((sku, _), pieces) in kept.iter().zip(&from) {
            for (l, q) in pieces {
                self.add_at(sku, l, -q);
            }
        }
        if let Some(h) = self.holds.get_mut(id) {
            h.stored = Stored::Confirmed;
            // A hold confirmed in part reads the lines it confirmed.
            h.lines = kept.clone();
            h.from = from.clone();
        }
        self.allocations.insert(id.to_string(), Allocation::of(kept, from));
        if let Some(at) = gave_back {
            self.fill_after_holds(at);
        }
        self.note_hold_event("hold.confirmed", id);
        Ok((200, self.allocation_view(id)?, Some(Noted::Id(id.to_string()))))
    }

    /// A partial confirm of hold `id` gives back what it does not keep: the units of each of
    /// its unit SKUs past the first `kept` (by id; a SKU not kept: all), and its bookings
    /// other than those of its booking lines `bookings` (by index among them),
    /// which read `released` and are the hold's no more. `not_in_hold` (nothing changed) for
    /// an index that is none of its booking lines.
    fn keep_only(&mut self, id: &str, kept: &[(String, i64)], bookings: &[usize]) -> Result<(), AllotError> {
        // Sorted: the first named that is not the hold's is the one refused, as the stores do.
        let mut named: Vec<String> = bookings.iter().map(|i| allot_core::hold::booking_id(id, *i)).collect();
        named.sort();
        if let Some(b) = named
            .iter()
            .find(|b| self.bookings.get(*b).is_none_or(|x| x.hold.as_deref() != Some(id)))
        {
            return Err(AllotError::Unprocessable {
                rule: allot_core::support::error::Rule::NotInHold,
                message: format!("lines: booking `{b}` is not one of hold `{id}`'s bookings"),
            });
        }
        self.free_units_past(id, kept);
        self.release_hold_bookings_except(id, &named);
        Ok(())
    }

    /// A held hold is released; a released or expired one is answered unchanged (it holds
    /// nothing already); a confirmed one is `hold_confirmed`.
    pub(super) fn release(&mut self, id: &str) -> Result<Done, AllotError> {
        match self.status(self.find(id)?) {
            HoldStatus::Held => {
                if let Some(h) = self.holds.get_mut(id) {
                    h.stored = Stored::Released;
                }
                self.fill_after_holds(self.hold_pieces_at(id));
                self.free_units(id);
                self.finish_hold_bookings(id, allot_core::booking::BookingStatus::Released);
                if self.mutation != Some(super::Mutation::ReleaseEventMissing) {
                    self.note_hold_event("hold.released", id);
                }
            }
            // An expired hold is finalised (a unit hold's units rejoin the claims' order).
            HoldStatus::Expired => {
                self.free_units(id);
                if let Some(h) = self.holds.get_mut(id) {
                    h.finalised = true;
                }
                self.fill_after_holds(self.hold_pieces_at(id));
            }
            HoldStatus::Released => {}
            status => return Err(Self::not_active(id, status)),
        }
        Ok((200, self.hold_view(id)?, None))
    }

    /// Hold `id`'s own event `kind`, naming its lines as they are now (a partial confirm's:
    /// what it confirmed) and its booking lines.
    pub(super) fn note_hold_event(&mut self, kind: &'static str, id: &str) {
        if let Some(h) = self.holds.get(id) {
            let bookings = self.bookings.values().filter(|b| b.hold.as_deref() == Some(id)).count();
            let of = h.kind().as_str();
            self.hold_events
                .push((kind, id.to_string(), of, h.lines.clone(), bookings));
        }
    }

    /// The hold events as [`crate::view`] shows the feed's: at most a page of them.
    pub(super) fn hold_events_view(&self) -> Value {
        let said = self
            .hold_events
            .iter()
            .take(crate::view::HOLD_EVENTS_PAGE)
            .map(|(kind, id, of, lines, bookings)| {
                let status = kind
                    .strip_prefix("hold.")
                    .map_or("", |s| if s == "created" { "held" } else { s });
                (
                    id.clone(),
                    crate::view::hold_event((kind, of, status), lines, *bookings),
                )
            })
            .collect();
        crate::view::by_hold(said)
    }

    /// The hold lasts at least `ttl_ms` from now (never shorter than it was).
    pub(super) fn extend(&mut self, id: &str, ttl_ms: i64) -> Result<Done, AllotError> {
        match self.status(self.find(id)?) {
            HoldStatus::Held => {}
            status => return Err(Self::not_active(id, status)),
        }
        let until = self.now_us() + ttl_ms * 1000;
        let Some(h) = self.holds.get_mut(id) else {
            return Err(AllotError::not_found("hold", id));
        };
        h.expires_us = h.expires_us.max(until);
        let expires_us = h.expires_us;
        self.extend_hold_bookings(id, expires_us);
        Ok((200, self.hold_view(id)?, None))
    }
}

/// What a partial confirm keeps: the lines, and where each is from.
type Kept = (Vec<(String, i64)>, Vec<From>);

/// Lines with their `from`, as a hold's answer lists them.
fn lines_with_from(lines: &[(String, i64)], from: &[From]) -> Value {
    let lines: Vec<Value> = lines
        .iter()
        .zip(from)
        .map(|((sku, q), f)| json!({"sku": sku, "quantity": q, "from": from_json(f)}))
        .collect();
    Value::Array(lines)
}

impl Model {
    /// What a partial confirm keeps of hold `h`: of each SKU named, at most what the hold
    /// holds of it (else `insufficient_stock` with the held quantity as `available`, a SKU
    /// not held holding 0), taken from its pieces in the order of the SKU's rows (the order
    /// its locations first got stock); lines kept at 0 are left out. The kept lines and
    /// where each is from.
    fn kept(&self, h: &Hold, part: &[(String, i64)]) -> Result<Kept, AllotError> {
        let (mut lines, mut froms) = (Vec::new(), Vec::new());
        for (sku, q) in part {
            let have: i64 = h.lines.iter().filter(|(s, _)| s == sku).map(|(_, n)| n).sum();
            if *q > have {
                return Err(AllotError::InsufficientStock {
                    sku: sku.clone(),
                    requested: *q,
                    available: have,
                });
            }
        }
        for (sku, q) in part {
            let Some(i) = h.lines.iter().position(|(s, _)| s == sku) else {
                continue;
            };
            let rows: Vec<String> = self
                .skus
                .get(sku)
                .into_iter()
                .flatten()
                .map(|(l, _)| l.clone())
                .collect();
            let mut pieces = h.from[i].clone();
            pieces.sort_by_key(|(l, _)| rows.iter().position(|r| r == l));
            let (mut left, mut from) = (*q, Vec::new());
            for (l, n) in pieces {
                let k = left.min(n);
                if k > 0 {
                    from.push((l, k));
                    left -= k;
                }
            }
            if *q > 0 {
                lines.push((sku.clone(), *q));
                froms.push(from);
            }
        }
        Ok((lines, froms))
    }
}
