//! Bookings in the model: half-open ranges on a resource, two of which never overlap while
//! both block (confirmed, or held and not yet expired — an expired hold stops blocking the
//! instant its expiry is not after now, before any sweeper); cancel, confirm, release and
//! extend; and a resource's free gaps over a window.

use super::{Done, Model};
use crate::made::Noted;
use allot_core::booking::BookingStatus;
use allot_core::AllotError;
use serde_json::{json, Value};

/// A booking as the model keeps it (instants in µs since the epoch; `status` as last
/// written: a held one past its expiry reads `expired`).
#[derive(Debug, Clone)]
pub(super) struct Booking {
    pub(super) resource: String,
    pub(super) start_us: i64,
    pub(super) end_us: i64,
    pub(super) quantity: i64,
    status: BookingStatus,
    expires_us: Option<i64>,
    /// The hold whose line it is: only that hold decides it.
    pub(super) hold: Option<String>,
}

impl Model {
    pub(super) fn effective(&self, b: &Booking) -> BookingStatus {
        match (b.status, b.expires_us) {
            (BookingStatus::Held, Some(e)) if e <= self.now_us() => BookingStatus::Expired,
            (s, _) => s,
        }
    }

    fn booking_view(&self, id: &str) -> Result<Value, AllotError> {
        let b = self
            .bookings
            .get(id)
            .ok_or_else(|| AllotError::not_found("booking", id))?;
        Ok(json!({
            "resource": b.resource, "start_us": b.start_us, "end_us": b.end_us, "quantity": b.quantity,
            "status": self.effective(b).as_str(), "expires_at_us": b.expires_us,
        }))
    }

    /// `[start_us, end_us)` × `quantity` on `resource`, held until now + `hold_ttl_ms` or
    /// confirmed, unless the resource refuses it (`capacity.rs`: on a resource never put, a
    /// blocking booking that overlaps it is `409 booking_overlap`).
    pub(super) fn book(
        &mut self,
        resource: &str,
        (start_us, end_us): (i64, i64),
        quantity: i64,
        hold_ttl_ms: Option<i64>,
    ) -> Result<Done, AllotError> {
        let asked = super::capacity::Asked {
            range: (start_us, end_us),
            quantity,
            ignore: None,
        };
        self.decide(resource, &asked)?;
        let id = self.new_id("b");
        let booking = Booking {
            resource: resource.to_string(),
            start_us,
            end_us,
            quantity,
            status: if hold_ttl_ms.is_some() {
                BookingStatus::Held
            } else {
                BookingStatus::Confirmed
            },
            expires_us: hold_ttl_ms.map(|ms| self.now_us() + ms * 1000),
            hold: None,
        };
        self.bookings.insert(id.clone(), booking);
        Ok((201, self.booking_view(&id)?, Some(Noted::Id(id))))
    }

    /// The booking's status now, or `not_found`.
    fn booking_status(&self, id: &str) -> Result<BookingStatus, AllotError> {
        let b = self
            .bookings
            .get(id)
            .ok_or_else(|| AllotError::not_found("booking", id))?;
        Ok(self.effective(b))
    }

    fn set_booking(&mut self, id: &str, status: BookingStatus, keep_expiry: bool) {
        if let Some(b) = self.bookings.get_mut(id) {
            b.status = status;
            if !keep_expiry {
                b.expires_us = None;
            }
        }
    }

    pub(super) fn get_booking(&self, id: &str) -> Result<Done, AllotError> {
        Ok((200, self.booking_view(id)?, None))
    }

    /// A blocking booking is cancelled (its range free at once); any other answered as it is.
    pub(super) fn cancel_booking(&mut self, id: &str) -> Result<Done, AllotError> {
        self.not_held_by_hold(id)?;
        if self.booking_status(id)?.blocks() {
            self.set_booking(id, BookingStatus::Cancelled, false);
        }
        Ok((200, self.booking_view(id)?, None))
    }

    /// A held booking is confirmed; a confirmed one answered as it is; any other
    /// `409 booking_<status>`.
    pub(super) fn confirm_booking(&mut self, id: &str) -> Result<Done, AllotError> {
        self.not_held_by_hold(id)?;
        match self.booking_status(id)? {
            BookingStatus::Held => self.set_booking(id, BookingStatus::Confirmed, false),
            BookingStatus::Confirmed => {}
            status => return Err(not_active(id, status)),
        }
        Ok((200, self.booking_view(id)?, None))
    }

    /// A held booking is released (its expiry kept); a confirmed one `409 booking_confirmed`;
    /// any other answered as it is.
    pub(super) fn release_booking(&mut self, id: &str) -> Result<Done, AllotError> {
        self.not_held_by_hold(id)?;
        match self.booking_status(id)? {
            BookingStatus::Held => self.set_booking(id, BookingStatus::Released, true),
            BookingStatus::Confirmed => return Err(not_active(id, BookingStatus::Confirmed)),
            _ => {}
        }
        Ok((200, self.booking_view(id)?, None))
    }

    /// A held booking lasts at least `ttl_ms` from now (never shorter); any other
    /// `409 booking_<status>`.
    pub(super) fn extend_booking(&mut self, id: &str, ttl_ms: i64) -> Result<Done, AllotError> {
        self.not_held_by_hold(id)?;
        match self.booking_status(id)? {
            BookingStatus::Held => {}
            status => return Err(not_active(id, status)),
        }
        let until = self.now_us() + ttl_ms * 1000;
        if let Some(b) = self.bookings.get_mut(id) {
            b.expires_us = b.expires_us.map(|e| e.max(until));
        }
        Ok((200, self.booking_view(id)?, None))
    }

    /// Move a blocking booking to `range` (and `quantity`), decided as a new booking that does
    /// not count the old one; one that no longer blocks is `409 booking_<status>`.
    pub(super) fn reschedule_booking(
        &mut self,
        id: &str,
        range: (i64, i64),
        quantity: Option<i64>,
    ) -> Result<Done, AllotError> {
        self.not_held_by_hold(id)?;
        let status = self.booking_status(id)?;
        if !status.blocks() {
            return Err(not_active(id, status));
        }
        let (resource, quantity) = {
            let b = &self.bookings[id];
            (b.resource.clone(), quantity.unwrap_or(b.quantity))
        };
        let asked = super::capacity::Asked {
            range,
            quantity,
            ignore: Some(id),
        };
        self.decide(&resource, &asked)?;
        if let Some(b) = self.bookings.get_mut(id) {
            (b.start_us, b.end_us, b.quantity) = (range.0, range.1, quantity);
        }
        Ok((200, self.booking_view(id)?, None))
    }

    /// The free gaps of `resource` within `[from_us, to_us)`: the window less every blocking
    /// booking, in order.
    pub(super) fn availability(&self, resource: &str, (from_us, to_us): (i64, i64)) -> Value {
        let mut busy: Vec<(i64, i64)> = self
            .bookings
            .values()
            .filter(|b| b.resource == resource && self.effective(b).blocks())
            .map(|b| (b.start_us.max(from_us), b.end_us.min(to_us)))
            .filter(|(s, e)| s < e)
            .collect();
        busy.sort();
        let (mut free, mut at) = (Vec::new(), from_us);
        for (s, e) in busy {
            if s > at {
                free.push(json!([at, s]));
            }
            at = at.max(e);
        }
        if at < to_us {
            free.push(json!([at, to_us]));
        }
        json!({ "free": free, "slots": self.slot_view(resource, (from_us, to_us)) })
    }

    /// The sweeper's pass on bookings: a held booking past its expiry is written `expired`
    /// (it already read so).
    pub(super) fn sweep_bookings(&mut self) {
        let now = self.now_us();
        for b in self.bookings.values_mut() {
            if b.status == BookingStatus::Held && b.expires_us.is_some_and(|e| e <= now) {
                b.status = BookingStatus::Expired;
            }
        }
    }
}

/// A hold's booking lines.
impl Model {
    /// Book the booking `lines` of hold `hold`, in (resource, start, end) order, each held
    /// until `expires_us` (the hold's), decided as a booking is (a line sees the lines booked
    /// before it); on a refusal the lines booked before are taken back and the refusal
    /// returned.
    pub(super) fn hold_bookings(
        &mut self,
        hold: &str,
        lines: &[super::holds::BookingLine<'_>],
        expires_us: i64,
    ) -> Result<(), AllotError> {
        let mut lines = lines.to_vec();
        lines.sort_by_key(|(resource, range, _, _)| (*resource, *range));
        for (i, (resource, range, quantity, line)) in lines.into_iter().enumerate() {
            let asked = super::capacity::Asked {
                range,
                quantity,
                ignore: None,
            };
            if let Err(e) = self.decide(resource, &asked) {
                self.bookings.retain(|_, b| b.hold.as_deref() != Some(hold));
                return Err(e.on_booking_line(line));
            }
            let booking = Booking {
                resource: resource.to_string(),
                start_us: range.0,
                end_us: range.1,
                quantity,
                status: BookingStatus::Held,
                expires_us: Some(expires_us),
                hold: Some(hold.to_string()),
            };
            self.bookings.insert(allot_core::hold::booking_id(hold, i), booking);
        }
        Ok(())
    }

    /// The views of hold `hold`'s bookings, in the order of its lines.
    pub(super) fn bookings_of_hold(&self, hold: &str) -> Vec<Value> {
        let mut ids: Vec<(&String, &Booking)> = self
            .bookings
            .iter()
            .filter(|(_, b)| b.hold.as_deref() == Some(hold))
            .collect();
        ids.sort_by_key(|(_, b)| (b.resource.clone(), b.start_us, b.end_us));
        ids.into_iter()
            .filter_map(|(id, _)| self.booking_view(id).ok())
            .collect()
    }

    /// Hold `hold` ends as `to` (confirmed: no expiry; released: its expiry kept): so do its
    /// bookings that still stand held.
    pub(super) fn finish_hold_bookings(&mut self, hold: &str, to: BookingStatus) {
        for b in self.bookings.values_mut().filter(|b| b.hold.as_deref() == Some(hold)) {
            if b.status == BookingStatus::Held {
                b.status = to;
                if to == BookingStatus::Confirmed {
                    b.expires_us = None;
                }
            }
        }
    }

    /// A partial confirm of hold `hold` keeps the bookings `kept` (ids): its others read
    /// `released` and are the hold's no more.
    pub(super) fn release_hold_bookings_except(&mut self, hold: &str, kept: &[String]) {
        for (id, b) in self.bookings.iter_mut() {
            if b.hold.as_deref() == Some(hold) && !kept.contains(id) {
                b.status = BookingStatus::Released;
                b.hold = None;
            }
        }
    }

    /// Hold `hold` now lasts until `expires_us`: so do its held bookings.
    pub(super) fn extend_hold_bookings(&mut self, hold: &str, expires_us: i64) {
        for b in self.bookings.values_mut().filter(|b| b.hold.as_deref() == Some(hold)) {
            if b.status == BookingStatus::Held {
                b.expires_us = Some(expires_us);
            }
        }
    }

    /// A booking endpoint's own change of a booking a hold owns: `422 held_by_hold`.
    fn not_held_by_hold(&self, id: &str) -> Result<(), AllotError> {
        if self.mutation == Some(super::Mutation::HoldBookingsUnguarded) {
            return Ok(());
        }
        match self.bookings.get(id).and_then(|b| b.hold.as_deref()) {
            Some(hold) => Err(AllotError::breaks(
                allot_core::support::error::Rule::HeldByHold,
                format!("booking {id} is a line of hold {hold}"),
            )),
            None => Ok(()),
        }
    }
}

fn not_active(id: &str, status: BookingStatus) -> AllotError {
    AllotError::BookingNotActive {
        id: id.to_string(),
        status,
    }
}
