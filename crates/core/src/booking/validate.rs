//! Validation of bookings and their windows.

use crate::booking::{parse_instant, BookingBody, BookingRequest};
use crate::strategy::BookingStrategy;
use crate::support::checks::{hold_ttl, name, unit_field};
use crate::support::error::{AllotError, Result};
use crate::support::input::json_document;
use crate::support::limits::Limits;

/// Validate a booking: RFC 3339 times with offsets, `end > start`, a range of at most
/// `max_booking_ms`, a holder of 1..=`max_unit_field_len` chars, `hold_ttl_ms` within the
/// hold limits. The strategy is resolved by the caller.
pub fn booking(
    id: String,
    resource: &str,
    body: BookingBody,
    strategy: BookingStrategy,
    limits: &Limits,
) -> Result<BookingRequest> {
    name("resource", resource, limits)?;
    let (start, end) = window("start", &body.start, "end", &body.end, limits)?;
    if body.holder.is_empty() {
        return Err(AllotError::invalid("holder must not be empty"));
    }
    unit_field("holder", &body.holder, limits)?;
    if let Some(m) = &body.metadata {
        json_document("metadata", m, "max_metadata_bytes", limits.max_metadata_bytes)?;
    }
    let hold_ttl_ms = body
        .hold_ttl_ms
        .map(|t| hold_ttl("hold_ttl_ms", t, limits))
        .transpose()?;
    Ok(BookingRequest {
        id,
        resource: resource.to_string(),
        start,
        end,
        holder: body.holder,
        metadata: body.metadata,
        strategy,
        hold_ttl_ms,
        quantity: quantity(body.quantity)?,
        hold_id: None,
    })
}

pub(crate) fn quantity(q: Option<u32>) -> Result<u32> {
    match q.unwrap_or(1) {
        0 => Err(AllotError::invalid("quantity: must be at least 1")),
        q if q > crate::booking::MAX_CAPACITY => Err(AllotError::invalid(format!(
            "quantity: {q} is over {}",
            crate::booking::MAX_CAPACITY
        ))),
        q => Ok(q),
    }
}

/// Validate a reschedule: the range as a booking's, the quantity 1..=`MAX_CAPACITY`.
pub fn reschedule(body: crate::booking::RescheduleBookingBody, limits: &Limits) -> Result<crate::booking::Reschedule> {
    let (start, end) = window("start", &body.start, "end", &body.end, limits)?;
    Ok(crate::booking::Reschedule {
        start,
        end,
        quantity: body.quantity.map(|q| quantity(Some(q))).transpose()?,
    })
}

/// Validate a half-open window `[from, to)`: both RFC 3339 with offsets, `to > from`, at most
/// `max_booking_ms` long (`limit_exceeded` beyond).
pub fn window(
    from_name: &str,
    from: &str,
    to_name: &str,
    to: &str,
    limits: &Limits,
) -> Result<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)> {
    let start = parse_instant(from_name, from)?;
    let end = parse_instant(to_name, to)?;
    if end <= start {
        return Err(AllotError::EmptyRange {
            from: from_name.to_string(),
            to: to_name.to_string(),
        });
    }
    // Compared in µs (the stored precision): a range 1 µs over the limit is over it.
    let us = (end - start).num_microseconds().unwrap_or(i64::MAX);
    if us > limits.max_booking_ms.saturating_mul(1000) {
        return Err(AllotError::LimitExceeded {
            limit: "max_booking_ms",
            max: limits.max_booking_ms as u64,
            message: format!("the range is {us} µs long"),
        });
    }
    Ok((start, end))
}
