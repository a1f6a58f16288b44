//! The life cycles of holds and bookings as closed sets, with their stored and wire names:
//! the domains add their rules to them (`hold`, `booking`), and an error can name a status
//! (`AllotError::HoldNotActive`) without depending on a domain.

use serde::{Deserialize, Serialize};

/// The life cycle of a hold. `held` is the only state with quantity set aside; the others
/// are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HoldStatus {
    /// Quantity moved from available to held, until `expires_at`.
    Held,
    /// Turned into an allocation (same id): on_hand and held both dropped.
    Confirmed,
    /// Given back by the client before expiry.
    Released,
    /// Given back because `expires_at` passed.
    Expired,
}

impl HoldStatus {
    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            HoldStatus::Held => "held",
            HoldStatus::Confirmed => "confirmed",
            HoldStatus::Released => "released",
            HoldStatus::Expired => "expired",
        }
    }

    /// Parse a stored name; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        [
            HoldStatus::Held,
            HoldStatus::Confirmed,
            HoldStatus::Released,
            HoldStatus::Expired,
        ]
        .into_iter()
        .find(|h| h.as_str() == s)
    }
}

/// A booking's life cycle. `confirmed` and (unexpired) `held` block their range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BookingStatus {
    /// Booked for good.
    Confirmed,
    /// Tentative until `expires_at` (then `expired`), confirm or release.
    Held,
    /// Cancelled by the client (`DELETE /v1/bookings/{id}`); the range is free.
    Cancelled,
    /// A held booking given back before expiry.
    Released,
    /// A held booking whose `expires_at` passed.
    Expired,
}

impl BookingStatus {
    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            BookingStatus::Confirmed => "confirmed",
            BookingStatus::Held => "held",
            BookingStatus::Cancelled => "cancelled",
            BookingStatus::Released => "released",
            BookingStatus::Expired => "expired",
        }
    }

    /// Parse a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [
            BookingStatus::Confirmed,
            BookingStatus::Held,
            BookingStatus::Cancelled,
            BookingStatus::Released,
            BookingStatus::Expired,
        ]
        .into_iter()
        .find(|b| b.as_str() == s)
    }
}
