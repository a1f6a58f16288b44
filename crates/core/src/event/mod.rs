//! The change feed: every change an event, written in the transaction of the change (the
//! transactional outbox, Chris Richardson's "Transactional outbox" pattern), numbered by one
//! gap-free cursor per tenant.
//!
//! A reader that has seen cursor N of its tenant has seen every event <= N, and no event
//! <= N can appear later: cursors are handed out in commit order (how each backend does it is
//! in docs/internals.md, "The change feed"). The cursor is the event's id everywhere: the pull
//! API's `after`, the stream's `id:`/`Last-Event-ID`, and a webhook's `webhook-id`.

use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub mod derive;

/// What happened. The wire name is `object.verb` (`allocation.created`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum EventType {
    /// A SKU was created with its initial stock (ledger `created`).
    #[serde(rename = "sku.created")]
    SkuCreated,
    /// On hand was adjusted or set (ledger `adjustment`).
    #[serde(rename = "stock.adjusted")]
    StockAdjusted,
    /// Units were received into a unit-tracked SKU (ledger `units_received`).
    #[serde(rename = "units.received")]
    UnitsReceived,
    /// Stock was allocated, one event per ledger entry (ledger `allocation`).
    #[serde(rename = "allocation.created")]
    AllocationCreated,
    /// Units were claimed (ledger `allocation` of a unit-tracked SKU).
    #[serde(rename = "unit_claim.created")]
    UnitClaimCreated,
    /// An allocation was cancelled (ledger `allocation_cancelled`).
    #[serde(rename = "allocation.cancelled")]
    AllocationCancelled,
    /// Part of an allocation came back (ledger `returned`).
    #[serde(rename = "return.created")]
    ReturnCreated,
    /// Stock or units were set aside by a hold, one event per ledger entry (ledger `hold`).
    #[serde(rename = "stock.held")]
    StockHeld,
    /// Held stock or units were confirmed, one event per ledger entry (ledger
    /// `hold_confirmed`).
    #[serde(rename = "stock.hold_confirmed")]
    StockHoldConfirmed,
    /// Held stock or units went back to available, one event per ledger entry (ledger
    /// `hold_released`: a release, or the part a partial confirm left).
    #[serde(rename = "stock.hold_released")]
    StockHoldReleased,
    /// Held stock or units went back to available as their hold expired, one event per ledger
    /// entry (ledger `hold_expired`).
    #[serde(rename = "stock.hold_expired")]
    StockHoldExpired,
    /// A hold was made: one event per hold, naming every line (after its lines' own events).
    #[serde(rename = "hold.created")]
    HoldCreated,
    /// A hold was confirmed, whole or in part: one event per hold, naming what it confirmed.
    #[serde(rename = "hold.confirmed")]
    HoldConfirmed,
    /// A hold was released: one event per hold, naming every line.
    #[serde(rename = "hold.released")]
    HoldReleased,
    /// A hold expired (its expiry written: by the sweeper or by a write that found it
    /// overdue): one event per hold, naming every line.
    #[serde(rename = "hold.expired")]
    HoldExpired,
    /// A hold's expiry moved later.
    #[serde(rename = "hold.extended")]
    HoldExtended,
    /// One side of a transfer (ledger `transfer`).
    #[serde(rename = "transfer.created")]
    TransferCreated,
    /// Stock was received at a location (ledger `received`; `object` is the receipt's id).
    #[serde(rename = "stock.received")]
    StockReceived,
    /// Units moved between quantity states at a location (ledger `moved`; `object` is the
    /// move's id).
    #[serde(rename = "stock.moved")]
    StockMoved,
    /// Stock that came back filled part of a backordered allocation line (ledger
    /// `backorder_filled`; `object` is the allocation's id, `data.delta` minus what was filled).
    #[serde(rename = "allocation.filled")]
    AllocationFilled,
    /// Available stock reached 0 (of the SKU, or of one location: `data.location`).
    #[serde(rename = "sku.sold_out")]
    SkuSoldOut,
    /// Available stock left 0 (of the SKU, or of one location).
    #[serde(rename = "sku.back_in_stock")]
    SkuBackInStock,
    /// Available stock went below the SKU's `low_stock_below`.
    #[serde(rename = "sku.low_stock")]
    SkuLowStock,
    /// A booking was made (held or confirmed).
    #[serde(rename = "booking.created")]
    BookingCreated,
    /// A held booking was confirmed.
    #[serde(rename = "booking.confirmed")]
    BookingConfirmed,
    /// A booking was cancelled.
    #[serde(rename = "booking.cancelled")]
    BookingCancelled,
    /// A held booking was released.
    #[serde(rename = "booking.released")]
    BookingReleased,
    /// A held booking expired.
    #[serde(rename = "booking.expired")]
    BookingExpired,
    /// A booking was moved to a new range or quantity (`data.from` has the old ones).
    #[serde(rename = "booking.rescheduled")]
    BookingRescheduled,
    /// A slot of a resource with slots had all its own capacity taken (`data`: `resource`,
    /// `slot_start`, `slot_end`, `capacity`, `used`, `held`).
    #[serde(rename = "resource.sold_out")]
    ResourceSoldOut,
    /// A slot announced sold out has room again (a cancel, a release, an expiry, a
    /// reschedule, a capacity raised); `data` as `resource.sold_out`.
    #[serde(rename = "resource.back_in_stock")]
    ResourceBackInStock,
    /// A job ran out of attempts or was failed for good: a dead letter.
    #[serde(rename = "job.discarded")]
    JobDiscarded,
    /// A job completed (queues with `events: true`).
    #[serde(rename = "job.completed")]
    JobCompleted,
    /// An attempt of a job failed, by its worker or by its lease expiring (queues with
    /// `events: true`).
    #[serde(rename = "job.failed")]
    JobFailed,
    /// A job was cancelled (queues with `events: true`).
    #[serde(rename = "job.cancelled")]
    JobCancelled,
    /// Every member of a batch finished and its callback was released (its queue with
    /// `events: true`).
    #[serde(rename = "batch.completed")]
    BatchCompleted,
    /// A bulk action ran on a queue's jobs (the audit trail: `data` has the `queue`,
    /// `action`, `filter`, `matched`, `changed` and the `actor`, the API key's id). Dry runs
    /// leave none.
    #[serde(rename = "queue.bulk_applied")]
    QueueBulkApplied,
}

impl EventType {
    /// Every type, in the order of the docs.
    pub const ALL: [EventType; 37] = [
        EventType::SkuCreated,
        EventType::StockAdjusted,
        EventType::UnitsReceived,
        EventType::AllocationCreated,
        EventType::UnitClaimCreated,
        EventType::AllocationCancelled,
        EventType::ReturnCreated,
        EventType::StockHeld,
        EventType::StockHoldConfirmed,
        EventType::StockHoldReleased,
        EventType::StockHoldExpired,
        EventType::HoldCreated,
        EventType::HoldConfirmed,
        EventType::HoldReleased,
        EventType::HoldExpired,
        EventType::HoldExtended,
        EventType::TransferCreated,
        EventType::StockReceived,
        EventType::StockMoved,
        EventType::AllocationFilled,
        EventType::SkuSoldOut,
        EventType::SkuBackInStock,
        EventType::SkuLowStock,
        EventType::BookingCreated,
        EventType::BookingConfirmed,
        EventType::BookingCancelled,
        EventType::BookingReleased,
        EventType::BookingExpired,
        EventType::BookingRescheduled,
        EventType::ResourceSoldOut,
        EventType::ResourceBackInStock,
        EventType::JobDiscarded,
        EventType::JobCompleted,
        EventType::JobFailed,
        EventType::JobCancelled,
        EventType::BatchCompleted,
        EventType::QueueBulkApplied,
    ];

    /// The wire name (`allocation.created`), also the stored one.
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::SkuCreated => "sku.created",
            EventType::StockAdjusted => "stock.adjusted",
            EventType::UnitsReceived => "units.received",
            EventType::AllocationCreated => "allocation.created",
            EventType::UnitClaimCreated => "unit_claim.created",
            EventType::AllocationCancelled => "allocation.cancelled",
            EventType::ReturnCreated => "return.created",
            EventType::StockHeld => "stock.held",
            EventType::StockHoldConfirmed => "stock.hold_confirmed",
            EventType::StockHoldReleased => "stock.hold_released",
            EventType::StockHoldExpired => "stock.hold_expired",
            EventType::HoldCreated => "hold.created",
            EventType::HoldConfirmed => "hold.confirmed",
            EventType::HoldReleased => "hold.released",
            EventType::HoldExpired => "hold.expired",
            EventType::HoldExtended => "hold.extended",
            EventType::TransferCreated => "transfer.created",
            EventType::StockReceived => "stock.received",
            EventType::StockMoved => "stock.moved",
            EventType::AllocationFilled => "allocation.filled",
            EventType::SkuSoldOut => "sku.sold_out",
            EventType::SkuBackInStock => "sku.back_in_stock",
            EventType::SkuLowStock => "sku.low_stock",
            EventType::BookingCreated => "booking.created",
            EventType::BookingConfirmed => "booking.confirmed",
            EventType::BookingCancelled => "booking.cancelled",
            EventType::BookingReleased => "booking.released",
            EventType::BookingExpired => "booking.expired",
            EventType::BookingRescheduled => "booking.rescheduled",
            EventType::ResourceSoldOut => "resource.sold_out",
            EventType::ResourceBackInStock => "resource.back_in_stock",
            EventType::JobDiscarded => "job.discarded",
            EventType::JobCompleted => "job.completed",
            EventType::JobFailed => "job.failed",
            EventType::JobCancelled => "job.cancelled",
            EventType::BatchCompleted => "batch.completed",
            EventType::QueueBulkApplied => "queue.bulk_applied",
        }
    }

    /// Parse a wire or stored name; `None` for a name no type has.
    pub fn parse(name: &str) -> Option<EventType> {
        EventType::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// One event as the feed serves it (pull, stream and webhook bodies alike).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Event {
    /// The tenant's gap-free position of this event, from 1.
    pub cursor: i64,
    /// What happened.
    #[serde(rename = "type")]
    pub kind: EventType,
    /// The id of what it happened to: the allocation, hold, transfer, claim, booking or job,
    /// or the SKU for `sku.*`, `stock.adjusted` and `units.received`.
    pub object: String,
    /// The facts. A stock event (every type from the ledger): `sku`, `location` (`null` for
    /// unit-tracked SKUs), `delta` and `held_delta` (the entry's change of on hand and of
    /// held), `kind` (the ledger kind), `ref`, `reason` (a stock reason: `sold`, `shrinkage`, …) and
    /// `reference` (the document URI the request named, or `null`), `before`, `after`,
    /// `location_before`, `location_after` (each `{on_hand, held, available}` of the SKU or of
    /// the entry's location; `null` for unit-tracked SKUs), `on_hand`, `held` and `available` after the
    /// change (lazily expired holds count as held until their expiry is written, which every
    /// write of the SKU does first; `null` for unit-tracked SKUs, whose totals would count
    /// their pool on every claim), `actor`, `ledger_id`. `sku.*`: `sku`, `location` (`null`:
    /// the SKU as a whole), `available`, and `low_stock_below` for `sku.low_stock`. Bookings:
    /// `id`, `resource`, `start`, `end`, `holder`, `status`, `quantity` (and `from`: the old
    /// `start`, `end` and `quantity` of `booking.rescheduled`). `job.discarded`: `id`, `queue`,
    /// `attempt`, `max_attempts`. `job.completed`, `job.cancelled`: `id`, `queue`, `attempt`.
    /// `job.failed`: `id`, `queue`, `attempt`, `max_attempts`, `error`, `retry_at` (`null` when
    /// the job was discarded). `batch.completed`: `id` (the batch's), `callback_id`, `queue`,
    /// `jobs`, `completed`, `discarded`, `cancelled`. `hold.extended`: `id`, `expires_at`. `hold.created`,
    /// `hold.confirmed`, `hold.released`, `hold.expired`: `id`, `kind` (`stock`, `units`,
    /// `mixed`), `status`, `expires_at`, `lines` (its stock and unit lines as the hold answers
    /// them: `sku`, `quantity`, `from`) and `bookings` (its booking lines: `id`, `resource`,
    /// `start`, `end`, `quantity`; `[]` without any).
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub data: serde_json::Value,
    /// When the change happened (the store's clock).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub at: DateTime<Utc>,
}

/// `GET /v1/events` answer: a page, and the cursor to ask after for the next one (the last
/// event's, or the `after` asked when the page is empty).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EventPage {
    /// Events in cursor order.
    pub events: Vec<Event>,
    /// Ask `after=next` for what follows.
    pub next: i64,
}

impl EventPage {
    /// The page of `events` a backend read for `query`, and its `next`: the last event's
    /// cursor when the page is full; otherwise every event up to `top` (the tenant's highest
    /// cursor, read in the same snapshot) was looked at, so `next` moves there, never behind
    /// `after`.
    pub fn of(events: Vec<Event>, query: &EventQuery, top: Option<i64>) -> EventPage {
        let next = match events.last() {
            Some(last) if events.len() >= query.limit as usize => last.cursor,
            _ => top.unwrap_or(0).max(query.after),
        };
        EventPage { events, next }
    }
}

/// The highest cursor a reader may name (`after`, `Last-Event-ID`): half of `i64`, so a page's
/// key range (`after` + a page) never overflows. No tenant writes 2^62 events.
pub const MAX_CURSOR: i64 = i64::MAX / 2;

/// What a reader asks for: events after `after`, at most `limit`, of these types (all when
/// empty), about this object (any when `None`). A filtered page still moves `next` past the
/// events it skipped, up to the last event it looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventQuery {
    /// Events with a cursor above this, >= 0.
    pub after: i64,
    /// Page size, 1..=`max_page_size`.
    pub limit: u32,
    /// Only these types; empty: every type.
    pub types: Vec<EventType>,
    /// Only events about this object.
    pub object: Option<String>,
    /// Only events of this SKU: its own (`object` is the SKU) and those of the changes that
    /// touched it (holds, allocations, returns, transfers, adjustments: `data.sku`).
    pub sku: Option<String>,
}

/// Validate a feed query: `after` >= 0, `limit` within `max_page_size`, `types` a
/// comma-separated list of known types (each `400 invalid_request` naming the parameter),
/// `object` and `sku` names ([`crate::support::checks::name`]: SKUs and ids).
pub fn query(
    after: i64,
    limit: i64,
    types: Option<&str>,
    (object, sku): (Option<&str>, Option<&str>),
    limits: &Limits,
) -> Result<EventQuery> {
    if !(0..=MAX_CURSOR).contains(&after) {
        return Err(AllotError::invalid(format!(
            "after must be 0..={MAX_CURSOR}, got {after}"
        )));
    }
    let limit = crate::support::checks::page_size(limit, limits)?;
    let types = match types {
        None | Some("") | Some("*") => Vec::new(),
        Some(list) => list
            .split(',')
            .map(|t| {
                EventType::parse(t.trim())
                    .ok_or_else(|| AllotError::invalid(format!("types: unknown event type `{t}`")))
            })
            .collect::<Result<Vec<_>>>()?,
    };
    let named = |field: &str, v: Option<&str>| -> Result<Option<String>> {
        v.map(|v| crate::support::checks::name(field, v, limits).map(|_| v.to_string()))
            .transpose()
    };
    Ok(EventQuery {
        after,
        limit,
        types,
        object: named("object", object)?,
        sku: named("sku", sku)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips_by_name() {
        for t in EventType::ALL {
            assert_eq!(EventType::parse(t.as_str()), Some(t));
            let wire = serde_json::to_string(&t).unwrap();
            assert_eq!(wire, format!("\"{}\"", t.as_str()));
        }
        assert_eq!(EventType::parse("sku.gone"), None);
    }

    #[test]
    fn after_is_bounded() {
        let limits = Limits::default();
        assert!(query(MAX_CURSOR, 10, None, (None, None), &limits).is_ok());
        for bad in [-1, MAX_CURSOR + 1, i64::MAX] {
            let e = query(bad, 10, None, (None, None), &limits).unwrap_err();
            assert!(e.to_string().contains("after"), "{e}");
        }
    }

    #[test]
    fn queries_are_checked() {
        let l = Limits::default();
        let q = query(5, 10, Some("sku.sold_out, hold.expired"), (Some("HOT"), None), &l).unwrap();
        assert_eq!(q.types, [EventType::SkuSoldOut, EventType::HoldExpired]);
        assert_eq!(q.object.as_deref(), Some("HOT"));
        assert!(query(0, 10, Some("*"), (None, None), &l).unwrap().types.is_empty());
        assert!(query(-1, 10, None, (None, None), &l)
            .unwrap_err()
            .to_string()
            .contains("after"));
        assert!(query(0, 0, None, (None, None), &l).is_err());
        assert!(query(0, 10, Some("sku.gone"), (None, None), &l)
            .unwrap_err()
            .to_string()
            .contains("types"));
        assert!(query(0, 10, None, (Some("a b"), None), &l).is_err());
        assert!(
            query(0, 10, None, (Some(""), None), &l).is_err(),
            "an empty object names nothing"
        );
    }
}
