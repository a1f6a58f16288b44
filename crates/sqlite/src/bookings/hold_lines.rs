//! A hold's booking lines (`POST /v1/holds` with `{"booking":{…}}` lines, issue 57), taken in
//! the hold's write transaction after its stock and unit lines, each decided as the booking
//! endpoint decides one (a resource that was put by its capacity and rules, any other by the
//! live bookings in its range), `held` until the hold's expiry with the hold's id. Finishing
//! the hold finishes them (`engine/overdue.rs`).

use super::{book_plain, book_put, booking_of, capacity, COLS};
use crate::engine::errors::map_error;
use allot_core::{Booking, BookingStrategy, HoldRequest, Result};
use rusqlite::Connection;

/// Take every booking line of `req` in `tx` at the hold's `now_us`: the bookings, in the
/// order of the lines. Errors: a line's refusal as a booking's, naming its line
/// ([`allot_core::AllotError::OnLine`]).
pub(crate) fn hold_booking_lines(tx: &Connection, t: &str, req: &HoldRequest, now_us: i64) -> Result<Vec<Booking>> {
    let mut taken = Vec::with_capacity(req.bookings.len());
    for (i, asked) in req.bookings.iter().enumerate() {
        let line = req.booking_request(i, BookingStrategy::Serialized);
        let booked = match capacity::resource_of(tx, t, &line.resource)? {
            Some(r) => book_put(tx, t, &line, r, now_us),
            None => book_plain(tx, t, &line, now_us),
        };
        taken.push(booked.map_err(|e| e.on_booking_line(asked.line))?);
    }
    Ok(taken)
}

/// The bookings of hold `id`, in the order of its lines (resource, start, end).
pub(crate) fn hold_bookings(c: &Connection, t: &str, id: &str, now_us: i64) -> Result<Vec<Booking>> {
    c.prepare_cached(&format!(
        "SELECT {COLS} FROM bookings WHERE tenant = ?2 AND hold_id = ?1 ORDER BY resource, start_us, end_us"
    ))
    .and_then(|mut s| {
        s.query_map([id, t], |r| booking_of(r, now_us))?
            .collect::<rusqlite::Result<Vec<_>>>()
    })
    .map_err(map_error)
}
