//! A hold's own event (`hold.created`, `hold.confirmed`, `hold.released`, `hold.expired`):
//! its data, as a writer that writes its holds' events itself builds it.

use chrono::{DateTime, Utc};

/// What a hold's own event says of it: its kind, its status then, its expiry, its `lines`
/// as its row stores them, its bookings.
#[derive(Debug, Clone, Copy)]
pub struct HoldFacts<'a> {
    /// The hold's id.
    pub id: &'a str,
    /// What it holds.
    pub kind: super::HoldKind,
    /// Its status after the change (`held` for `hold.created`).
    pub status: super::HoldStatus,
    /// When it lapses.
    pub expires_at: &'a DateTime<Utc>,
    /// Its row's `lines`.
    pub lines: &'a serde_json::Value,
    /// Its booking lines' bookings (any order).
    pub bookings: &'a [crate::booking::Booking],
}

/// One of a hold's bookings in its event: what V39's `allot_hold_event_bookings` writes.
#[derive(serde::Serialize)]
struct BookingData<'a> {
    id: &'a str,
    resource: &'a str,
    start: String,
    end: String,
    quantity: u32,
}

/// A hold's event `data`, borrowed from its facts and serialized straight to JSON text (no
/// `serde_json::Value` tree: the lines are written as they are, not copied).
#[derive(serde::Serialize)]
struct EventData<'a> {
    id: &'a str,
    kind: &'static str,
    status: &'static str,
    expires_at: String,
    lines: &'a serde_json::Value,
    bookings: Vec<BookingData<'a>>,
}

/// The `data` of a hold's own event (`hold.created`, `.confirmed`, `.released`, `.expired`;
/// see [`crate::event::Event::data`]) as JSON text: what PostgreSQL's `allot_hold_event`
/// (V39) builds from the hold's row, built here for a writer that writes its holds' events
/// itself (a `batched` lane, one statement per batch; a new hold's `hold.created`). The
/// object `{"id", "kind", "status", "expires_at", "lines", "bookings"}`, its bookings
/// `{"id", "resource", "start", "end", "quantity"}` in (resource, start, end, id) order,
/// strings byte-wise as V41's `COLLATE "C"`; instants as
/// [`crate::support::instant::feed_text`] writes them. Bound as `jsonb`, which orders the keys
/// its own way, so the text's key order does not matter.
pub fn hold_event_data(h: HoldFacts<'_>) -> Box<serde_json::value::RawValue> {
    use crate::support::instant::feed_text;
    let mut bookings: Vec<&crate::booking::Booking> = h.bookings.iter().collect();
    bookings.sort_by(|a, b| (&a.resource, a.start, a.end, &a.id).cmp(&(&b.resource, b.start, b.end, &b.id)));
    let data = EventData {
        id: h.id,
        kind: h.kind.as_str(),
        status: h.status.as_str(),
        expires_at: feed_text(h.expires_at),
        lines: h.lines,
        bookings: bookings
            .into_iter()
            .map(|b| BookingData {
                id: &b.id,
                resource: &b.resource,
                start: feed_text(&b.start),
                end: feed_text(&b.end),
                quantity: b.quantity,
            })
            .collect(),
    };
    // Strings, numbers and a JSON value: serializing them cannot fail.
    serde_json::value::to_raw_value(&data).unwrap_or_default()
}
