//! The change feed over HTTP: `GET /v1/events` (one page, cursor pagination) and
//! `GET /v1/events/stream` (Server-Sent Events, WHATWG HTML "Server-sent events": `id:` is
//! the cursor, `event:` the type, `data:` the event; a reconnect sends `Last-Event-ID` and
//! resumes after it, so a consumer misses nothing and sees nothing twice).

use super::query;
use crate::error::{ApiError, ErrorBody};
use crate::extract::Caller;
use crate::state::AppState;
use allot_core::event::{EventPage, EventQuery};
use allot_core::tenant::Tenant;
use allot_core::AllotError;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::Json;
use futures::Stream;
use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// How often an idle stream sends a comment line, so proxies keep it open and a client
/// notices a dead connection.
const HEARTBEAT: Duration = Duration::from_secs(15);

// The documents' `maximum` of a cursor (a literal there) is the core's bound.
const _: () = assert!(allot_core::event::MAX_CURSOR == 4_611_686_018_427_387_903);

/// What a key that holds all its streams is told to wait before opening another, ms.
const STREAM_RETRY_AFTER_MS: u64 = 1000;

#[utoipa::path(get, path = "/v1/events",
    params(("after" = Option<i64>, Query, minimum = 0, maximum = 4611686018427387903_i64), ("limit" = Option<u32>, Query),
        ("types" = Option<String>, Query, description = "comma-separated event types; all when absent"),
        ("object" = Option<String>, Query, description = "only events about this id"),
        ("sku" = Option<String>, Query, description = "only events of this SKU: its own, and those of its holds, allocations, returns, transfers and adjustments")),
    responses((status = 200, body = EventPage), (status = 400, body = ErrorBody)))]
pub(super) async fn list_events(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    query::Q(q): query::Q<query::EventsQuery>,
) -> Result<Json<EventPage>, ApiError> {
    let query = q.query(None, &st.limits)?;
    Ok(Json(st.stores.events.events(&tenant, &query).await?))
}

#[utoipa::path(get, path = "/v1/events/stream",
    params(("after" = Option<i64>, Query, minimum = 0, maximum = 4611686018427387903_i64),
        ("limit" = Option<u32>, Query, description = "events per read"),
        ("types" = Option<String>, Query), ("object" = Option<String>, Query), ("sku" = Option<String>, Query),
        ("Last-Event-ID" = Option<i64>, Header, minimum = 0, maximum = 4611686018427387903_i64,
            description = "resume after this cursor (wins over `after`)")),
    responses((status = 200, content_type = "text/event-stream", description = "the events, then more as they happen"),
        (status = 400, body = ErrorBody), (status = 429, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub(super) async fn stream_events(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    headers: HeaderMap,
    query::Q(q): query::Q<query::EventsQuery>,
) -> Result<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>, ApiError> {
    let query = q.query(last_event_id(&headers)?, &st.limits)?;
    // Streams share the server's bound with waiting claims, and each key has its own.
    let server = st.long_polls.clone().try_acquire_owned().map_err(|_| {
        AllotError::Unavailable("max_long_polls streams and waiting claims already; retry shortly".into())
    })?;
    let per_key = st.access.stream(actor.as_deref()).ok_or(AllotError::RateLimited {
        retry_after_ms: STREAM_RETRY_AFTER_MS,
    })?;
    let feed = Feed {
        st,
        tenant,
        query,
        buffered: VecDeque::new(),
        _permits: (server, per_key),
    };
    let events = futures::stream::unfold(feed, |mut feed| async move {
        let event = feed.next().await?;
        Some((Ok(event), feed))
    });
    Ok(Sse::new(events).keep_alive(KeepAlive::new().interval(HEARTBEAT)))
}

/// `Last-Event-ID`: a cursor, or `400` naming the header.
fn last_event_id(headers: &HeaderMap) -> Result<Option<i64>, ApiError> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .filter(|v| *v >= 0)
        .map(Some)
        .ok_or_else(|| AllotError::invalid("Last-Event-ID must be a cursor (an integer >= 0)").into())
}

/// One open stream: where it is, what it read ahead (at most one page), and its permits,
/// given back when the client goes away and the stream is dropped.
struct Feed {
    st: Arc<AppState>,
    tenant: Tenant,
    query: EventQuery,
    buffered: VecDeque<allot_core::event::Event>,
    _permits: (
        tokio::sync::OwnedSemaphorePermit,
        Option<tokio::sync::OwnedSemaphorePermit>,
    ),
}

impl Feed {
    /// The next event, waiting for one as long as it takes (heartbeats keep the connection
    /// meanwhile); `None` ends the stream when the store fails (the client resumes with
    /// `Last-Event-ID`).
    async fn next(&mut self) -> Option<SseEvent> {
        loop {
            if *self.st.stopping.borrow() {
                return None;
            }
            if let Some(e) = self.buffered.pop_front() {
                let data = serde_json::to_string(&e).ok()?;
                return Some(
                    SseEvent::default()
                        .id(e.cursor.to_string())
                        .event(e.kind.as_str())
                        .data(data),
                );
            }
            let page = match self.st.stores.events.events(&self.tenant, &self.query).await {
                Ok(page) => page,
                Err(e) => {
                    tracing::warn!(error = %e, "event stream read failed; the stream ends");
                    return None;
                }
            };
            let moved = page.next > self.query.after;
            self.query.after = page.next;
            self.buffered.extend(page.events);
            if self.buffered.is_empty() && !moved {
                tokio::select! {
                    () = self.st.stores.events.wait_for_events(&self.tenant, HEARTBEAT) => {}
                    // The server shuts down: the stream ends (the client resumes elsewhere
                    // with `Last-Event-ID`).
                    () = self.st.stopped() => return None,
                }
            }
        }
    }
}
