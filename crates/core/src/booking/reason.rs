//! Why a booking is refused: one [`Reason`] per rule or full slot, as a refusal names its
//! first and `explain` lists them all.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

/// One reason a booking is refused, tagged by `rule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Reason {
    /// A slot (of the resource, or of `pool`) has `free` left, fewer than `requested`.
    Capacity {
        /// The slot's start.
        #[serde(serialize_with = "crate::support::instant::rfc3339")]
        slot_start: DateTime<Utc>,
        /// What it has free.
        free: i64,
        /// What the booking asks.
        requested: i64,
        /// The pool whose slot it is (absent: the resource's own).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pool: Option<String>,
    },
    /// A capacity-1 resource without slots has this blocking booking in the way.
    Overlap {
        /// The booking in the way.
        booking_id: String,
    },
    /// The range overlaps a closure.
    Closed {
        /// The closure's start.
        #[serde(serialize_with = "crate::support::instant::rfc3339")]
        from: DateTime<Utc>,
        /// The closure's end.
        #[serde(serialize_with = "crate::support::instant::rfc3339")]
        to: DateTime<Utc>,
    },
    /// Too few slots.
    MinSlots {
        /// The fewest allowed.
        needed: u32,
        /// The slots asked.
        asked: u32,
    },
    /// Too many slots.
    MaxSlots {
        /// The most allowed.
        allowed: u32,
        /// The slots asked.
        asked: u32,
    },
    /// No booking may start on this local date.
    ClosedToArrival {
        /// The arrival date (resource's time zone).
        date: NaiveDate,
    },
    /// No booking may end on this local date.
    ClosedToDeparture {
        /// The departure date.
        date: NaiveDate,
    },
    /// A blocking booking lies closer than `buffer_ms` to the range.
    Buffer {
        /// The buffer, ms.
        buffer_ms: u64,
        /// The booking too close.
        booking_id: String,
    },
    /// The booking starts sooner than the lead time.
    LeadTime {
        /// The lead time, ms.
        lead_time_ms: u64,
        /// How long from now it starts, ms (negative: in the past).
        starts_in_ms: i64,
    },
    /// The booking starts further ahead than the horizon.
    Horizon {
        /// The horizon, ms.
        horizon_ms: u64,
        /// How long from now it starts, ms.
        starts_in_ms: i64,
    },
}

impl Reason {
    /// The rule's name as the API writes it.
    pub fn rule(&self) -> &'static str {
        match self {
            Reason::Capacity { .. } => "capacity",
            Reason::Overlap { .. } => "overlap",
            Reason::Closed { .. } => "closed",
            Reason::MinSlots { .. } => "min_slots",
            Reason::MaxSlots { .. } => "max_slots",
            Reason::ClosedToArrival { .. } => "closed_to_arrival",
            Reason::ClosedToDeparture { .. } => "closed_to_departure",
            Reason::Buffer { .. } => "buffer",
            Reason::LeadTime { .. } => "lead_time",
            Reason::Horizon { .. } => "horizon",
        }
    }
}

/// `GET /v1/resources/{resource}/explain` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Explain {
    /// Whether the booking would be taken now (no reasons).
    pub bookable: bool,
    /// Every reason it would be refused: the rules, then each full slot of the resource,
    /// then of each pool.
    pub reasons: Vec<Reason>,
    /// The snapshot it was read at: exact then, and only then.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub as_of: DateTime<Utc>,
}

/// One slot of an availability answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SlotAvailability {
    /// Start, inclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub start: DateTime<Utc>,
    /// End, exclusive.
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub end: DateTime<Utc>,
    /// The slot's capacity.
    pub capacity: i64,
    /// Taken by confirmed bookings.
    pub used: i64,
    /// Taken by live held bookings.
    pub held: i64,
    /// What one more booking may take: the capacity less used and held, and no more than
    /// every pool of the resource has free in the slots it overlaps (never below 0).
    pub free: i64,
}
