//! Bookings: half-open time ranges `[start, end)` on a named resource that must never
//! overlap while they block (confirmed, or held and not yet expired).
//!
//! Strategies (ARCHITECTURE.md): `exclusion` — a PostgreSQL exclusion constraint
//! (`EXCLUDE USING gist (resource_hash WITH =, during WITH &&)`, PostgreSQL docs 5.4.6
//! "Exclusion Constraints", with btree_gist for the `=` on the 64-bit hash of tenant and
//! resource); `advisory` — a transaction-scoped
//! advisory lock on the FNV-1a hash of the resource (PostgreSQL docs 13.3.5 "Advisory
//! Locks"), then check and insert; `naive` — check then insert, the race kept for the
//! benchmark; `serialized` — SQLite's one writer; `batched` — the bookings waiting on a lane
//! decided together in one transaction under the resources' advisory locks (flat combining,
//! as the stock and unit strategies of that name), the constraint still guarding each row.

pub mod capacity;
pub mod fill;
pub mod judge;
pub mod reason;
pub mod rules;
pub mod slots;
pub mod validate;

use crate::strategy::BookingStrategy;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::status::BookingStatus;

/// The largest capacity of a resource, a pool or a slot, and the largest booking quantity.
pub const MAX_CAPACITY: u32 = 1_000_000;

impl BookingStatus {
    /// What a reader sees at `now`: a held booking past `expires_at` is `expired`.
    pub fn effective(self, expires_at: Option<DateTime<Utc>>, now: DateTime<Utc>) -> Self {
        match (self, expires_at) {
            (BookingStatus::Held, Some(e)) if e <= now => BookingStatus::Expired,
            (s, _) => s,
        }
    }

    /// Whether a booking stored in this status with `expires_at` may be extended at `now`:
    /// only a held one not yet expired; otherwise `booking_*` naming its status.
    pub fn extend_refusal(
        self,
        id: &str,
        expires_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> crate::support::error::Result<()> {
        match self.effective(expires_at, now) {
            BookingStatus::Held => Ok(()),
            status => Err(crate::support::error::AllotError::BookingNotActive {
                id: id.to_string(),
                status,
            }),
        }
    }

    /// Whether a booking in this (effective) status blocks its range.
    pub fn blocks(self) -> bool {
        matches!(self, BookingStatus::Confirmed | BookingStatus::Held)
    }
}

/// `POST /v1/resources/{resource}/bookings` body. Times are RFC 3339 with an offset.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BookingBody {
    /// Start, inclusive (RFC 3339 with offset, e.g. `2026-03-01T14:00:00+01:00`).
    pub start: String,
    /// End, exclusive; must be after `start`.
    pub end: String,
    /// Who books (1..=`max_unit_field_len` chars).
    pub holder: String,
    /// Free-form JSON kept with the booking.
    #[serde(default)]
    pub metadata: Option<serde_json::Value>,
    /// `exclusion` (default on PostgreSQL), `batched`, `advisory`, `naive` (unsafe flag),
    /// `serialized` (SQLite).
    #[serde(default)]
    pub strategy: Option<String>,
    /// Make it a tentative (`held`) booking for this many ms.
    #[serde(default)]
    pub hold_ttl_ms: Option<i64>,
    /// How many of the resource's capacity it takes in each slot (default 1; more needs a
    /// resource with slots).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1_000_000))]
    pub quantity: Option<u32>,
}

/// `POST /v1/bookings/{id}/reschedule` body: the new range (and quantity), taken and the old
/// one freed in one transaction.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RescheduleBookingBody {
    /// New start (RFC 3339 with offset).
    pub start: String,
    /// New end.
    pub end: String,
    /// New quantity (default: the booking's own).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1_000_000))]
    pub quantity: Option<u32>,
}

/// A validated reschedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Reschedule {
    /// New start.
    pub start: DateTime<Utc>,
    /// New end.
    pub end: DateTime<Utc>,
    /// New quantity, if given.
    pub quantity: Option<u32>,
}

/// A validated booking request.
#[derive(Debug, Clone, PartialEq)]
pub struct BookingRequest {
    /// Server-made id.
    pub id: String,
    /// The resource.
    pub resource: String,
    /// Start (UTC), inclusive.
    pub start: DateTime<Utc>,
    /// End (UTC), exclusive.
    pub end: DateTime<Utc>,
    /// Holder.
    pub holder: String,
    /// Metadata.
    pub metadata: Option<serde_json::Value>,
    /// Strategy (resolved).
    pub strategy: BookingStrategy,
    /// `Some(ttl)`: a held booking.
    pub hold_ttl_ms: Option<u64>,
    /// Quantity (1 unless asked; checked against the resource in the store).
    pub quantity: u32,
    /// The hold it is a line of (`HoldRequest::booking_request`); `None` for the booking
    /// endpoints' own.
    pub hold_id: Option<String>,
}

/// A booking as the API returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Booking {
    /// Id (UUID v4 text).
    pub id: String,
    /// The resource.
    pub resource: String,
    /// Start (UTC), inclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub start: DateTime<Utc>,
    /// End (UTC), exclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub end: DateTime<Utc>,
    /// Holder.
    pub holder: String,
    /// How many of the resource's capacity it takes in each slot.
    pub quantity: u32,
    /// Metadata, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Value>,
    /// Effective status.
    pub status: BookingStatus,
    /// The strategy that made it.
    pub strategy: BookingStrategy,
    /// When a held booking lapses.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was made.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub created_at: DateTime<Utc>,
    /// The hold whose booking line it is: it is confirmed, released, extended and expires
    /// with that hold, and only through it (the booking's own endpoints refuse it, `422
    /// held_by_hold`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_id: Option<String>,
}

impl BookingRequest {
    /// The booking this request becomes when it succeeds at `now`.
    pub fn to_booking(&self, now: DateTime<Utc>) -> Booking {
        Booking {
            id: self.id.clone(),
            resource: self.resource.clone(),
            start: self.start,
            end: self.end,
            holder: self.holder.clone(),
            quantity: self.quantity,
            metadata: self.metadata.clone(),
            status: if self.hold_ttl_ms.is_some() {
                BookingStatus::Held
            } else {
                BookingStatus::Confirmed
            },
            strategy: self.strategy,
            expires_at: self.hold_ttl_ms.map(|t| crate::support::instant::expires_at(now, t)),
            created_at: now,
            hold_id: self.hold_id.clone(),
        }
    }
}

/// Refuse a booking endpoint's own change (cancel, confirm, release, extend, reschedule) of
/// booking `b` when it is a hold's line: `422 held_by_hold` naming the hold, which alone
/// decides it. Checked after the idempotency protocol, as every other refusal of a write.
pub fn not_held_by_hold(b: &Booking) -> crate::support::error::Result<()> {
    match &b.hold_id {
        Some(hold) => Err(crate::support::error::AllotError::breaks(
            crate::support::error::Rule::HeldByHold,
            format!(
                "booking {} is a line of hold {hold}: confirm, release or extend the hold",
                b.id
            ),
        )),
        None => Ok(()),
    }
}

/// A free gap of a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FreeSlot {
    /// Start (UTC), inclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub start: DateTime<Utc>,
    /// End (UTC), exclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub end: DateTime<Utc>,
}

/// The free gaps of `[from, to)` given the blocking ranges (any order, may overlap each other
/// — e.g. naive double bookings). Half-open: a range ending at `t` and one starting at `t`
/// leave no gap between them.
pub fn free_gaps(from: DateTime<Utc>, to: DateTime<Utc>, blocking: &[(DateTime<Utc>, DateTime<Utc>)]) -> Vec<FreeSlot> {
    let mut ranges: Vec<(DateTime<Utc>, DateTime<Utc>)> = blocking.iter().copied().filter(|(s, e)| s < e).collect();
    ranges.sort();
    let mut gaps = Vec::new();
    let mut cursor = from;
    for (s, e) in ranges {
        if e <= cursor {
            continue;
        }
        if s >= to {
            break;
        }
        if s > cursor {
            gaps.push(FreeSlot { start: cursor, end: s });
        }
        cursor = cursor.max(e);
    }
    if cursor < to {
        gaps.push(FreeSlot { start: cursor, end: to });
    }
    gaps
}

/// Two blocking bookings of one resource that overlap (the audit's finding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct BookingOverlap {
    /// The tenant the resource belongs to.
    pub tenant: String,
    /// The resource.
    pub resource: String,
    /// One booking's id.
    pub first: String,
    /// The other's.
    pub second: String,
}

/// Parse an RFC 3339 instant that must carry an offset (`Z` or `±hh:mm`); answers
/// `invalid_request` naming the field.
pub fn parse_instant(field: &str, value: &str) -> crate::support::error::Result<DateTime<Utc>> {
    let t = DateTime::parse_from_rfc3339(value)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            crate::support::error::AllotError::invalid(format!(
                "{field}: `{}` is not an RFC 3339 time with an offset (e.g. 2026-03-01T14:00:00Z): {e}",
                crate::support::input::echo(value)
            ))
        })?;
    crate::support::input::instant(field, t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(h: i64) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(h * 3600, 0).unwrap()
    }

    #[test]
    fn gaps_examples() {
        assert_eq!(
            free_gaps(t(0), t(10), &[]),
            vec![FreeSlot {
                start: t(0),
                end: t(10)
            }]
        );
        let g = free_gaps(t(0), t(10), &[(t(2), t(4)), (t(4), t(5)), (t(8), t(12))]);
        assert_eq!(
            g,
            vec![FreeSlot { start: t(0), end: t(2) }, FreeSlot { start: t(5), end: t(8) }]
        );
        assert!(free_gaps(t(0), t(10), &[(t(-1), t(11))]).is_empty());
    }

    #[test]
    fn instants_need_an_offset() {
        assert_eq!(
            parse_instant("start", "2026-03-01T14:00:00+01:00")
                .unwrap()
                .to_rfc3339(),
            "2026-03-01T13:00:00+00:00"
        );
        assert!(parse_instant("start", "2026-03-01T14:00:00").is_err());
        assert!(parse_instant("start", "yesterday").is_err());
    }

    #[test]
    fn effective_status() {
        let now = t(5);
        assert_eq!(BookingStatus::Held.effective(Some(t(5)), now), BookingStatus::Expired);
        assert_eq!(BookingStatus::Held.effective(Some(t(6)), now), BookingStatus::Held);
        assert!(!BookingStatus::Cancelled.blocks());
    }

    proptest! {
        #[test]
        fn gaps_are_exactly_the_uncovered_hours(ranges in proptest::collection::vec((0i64..48, 1i64..10), 0..8)) {
            let blocking: Vec<_> = ranges.iter().map(|(s, l)| (t(*s), t(s + l))).collect();
            let gaps = free_gaps(t(0), t(48), &blocking);
            for h in 0..48 {
                let covered = ranges.iter().any(|(s, l)| *s <= h && h < s + l);
                let in_gap = gaps.iter().any(|g| g.start <= t(h) && t(h) < g.end);
                prop_assert_eq!(covered, !in_gap, "hour {}", h);
            }
            prop_assert!(gaps.windows(2).all(|w| w[0].end < w[1].start));
        }
    }
}
