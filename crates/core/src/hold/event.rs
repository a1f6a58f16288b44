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

/// The `data` of a hold's own event (`hold.created`, `.confirmed`, `.released`, `.expired`;
/// see [`crate::event::Event::data`]): what PostgreSQL's `allot_hold_event` (V39) builds from the hold's
/// row, built here for a writer that writes its holds' events itself (a `batched` lane, one
/// statement per batch). Bookings in (resource, start, end, id) order, strings byte-wise as
/// V41's `COLLATE "C"`; instants as
/// [`crate::support::instant::feed_text`] writes them.
pub fn hold_event_data(h: HoldFacts<'_>) -> serde_json::Value {
    use crate::support::instant::feed_text;
    let mut bookings: Vec<&crate::booking::Booking> = h.bookings.iter().collect();
    bookings.sort_by(|a, b| (&a.resource, a.start, a.end, &a.id).cmp(&(&b.resource, b.start, b.end, &b.id)));
    let bookings: Vec<serde_json::Value> = bookings
        .into_iter()
        .map(|b| {
            serde_json::json!({"id": b.id, "resource": b.resource, "start": feed_text(&b.start),
                "end": feed_text(&b.end), "quantity": b.quantity})
        })
        .collect();
    serde_json::json!({
        "id": h.id,
        "kind": h.kind.as_str(),
        "status": h.status.as_str(),
        "expires_at": feed_text(h.expires_at),
        "lines": h.lines,
        "bookings": bookings,
    })
}
