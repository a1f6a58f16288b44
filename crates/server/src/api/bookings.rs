//! Bookings: create, list, availability, confirm, cancel, release.

use super::{count_outcome, family_strategy, id_path, query, respond};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::write::{NoBody, Write};
use allot_core::Capable;
use allot_core::Result;
use allot_core::{AllotError, Booking, BookingBody, BookingStrategy, ExtendBody, FreeSlot};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tracing::Instrument;
use utoipa::ToSchema;

#[utoipa::path(post, path = "/v1/resources/{resource}/bookings", request_body = BookingBody,
    params(("resource" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Booking), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "booking_overlap, with conflicting_booking_id when known"),
        (status = 422, body = ErrorBody, description = "empty_range: end is not after start")))]
pub(super) async fn create_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
    write: Write<JsonBody<BookingBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let named = body.value.strategy.as_deref();
    let default = st.stores.default_booking_strategy();
    let strategy = family_strategy(&st, named, default, BookingStrategy::parse, |b| {
        st.stores.supports_booking(b)
    })?;
    let id = super::new_object_id();
    let req = allot_core::validate::booking(id, &resource, body.value, strategy, &st.limits)?;
    let idem = key.idempotency(StatusCode::CREATED);
    let result = st
        .stores
        .bookings
        .book(&tenant, req, idem)
        .instrument(super::store_span("store.book", strategy.name()))
        .await;
    count_outcome("allot_bookings_total", strategy.name(), "booked", &result);
    Ok(respond(StatusCode::CREATED, result?))
}

/// `GET /v1/resources/{resource}/bookings` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct BookingList {
    /// Blocking bookings overlapping the window, by start.
    pub bookings: Vec<Booking>,
}

/// `GET /v1/resources/{resource}/availability` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Availability {
    /// The resource.
    pub resource: String,
    /// Window start (UTC).
    pub from: chrono::DateTime<chrono::Utc>,
    /// Window end (UTC).
    pub to: chrono::DateTime<chrono::Utc>,
    /// The free half-open gaps of the window (no blocking booking at all).
    pub free: Vec<FreeSlot>,
    /// A resource with slots: each slot of the window with its `capacity`, `used` (confirmed),
    /// `held` (live holds) and `free` (also bounded by its pools), exact at the one snapshot
    /// it was read in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<allot_core::booking::reason::SlotAvailability>>,
}

#[utoipa::path(get, path = "/v1/resources/{resource}/bookings",
    params(("resource" = String, Path), ("from" = String, Query, description = "RFC 3339 with offset"),
        ("to" = String, Query, description = "RFC 3339 with offset")),
    responses((status = 200, body = BookingList), (status = 400, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "empty_range: to is not after from")))]
pub(super) async fn list_bookings(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
    query::Q(q): query::Q<query::WindowQuery>,
) -> Result<Json<BookingList>, ApiError> {
    allot_core::validate::name("resource", &resource, &st.limits)?;
    let (from, to) = q.window(&st.limits)?;
    let limit = q.limit(&st.limits)?;
    Ok(Json(BookingList {
        bookings: st
            .stores
            .bookings
            .list_bookings(&tenant, &resource, from, to, limit)
            .await?,
    }))
}

#[utoipa::path(get, path = "/v1/resources/{resource}/availability",
    params(("resource" = String, Path), ("from" = String, Query, description = "RFC 3339 with offset"),
        ("to" = String, Query, description = "RFC 3339 with offset")),
    responses((status = 200, body = Availability), (status = 400, body = ErrorBody),
        (status = 422, body = ErrorBody, description = "empty_range: to is not after from")))]
pub(super) async fn availability(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
    query::Q(q): query::Q<query::WindowQuery>,
) -> Result<Json<Availability>, ApiError> {
    allot_core::validate::name("resource", &resource, &st.limits)?;
    let (from, to) = q.window(&st.limits)?;
    let max = st.limits.max_page_size;
    let bookings = st
        .stores
        .bookings
        .list_bookings(&tenant, &resource, from, to, max + 1)
        .await?;
    if bookings.len() > max as usize {
        return Err(AllotError::LimitExceeded {
            limit: "max_page_size",
            max: u64::from(max),
            message: "the window holds more bookings than that; ask for a shorter one".into(),
        }
        .into());
    }
    let blocking: Vec<_> = bookings.iter().map(|b| (b.start, b.end)).collect();
    let r = st.stores.bookings.get_resource(&tenant, &resource).await?;
    let slots = match r.slot_ms {
        None => None,
        Some(_) => Some(
            st.stores
                .bookings
                .slot_availability(&tenant, &resource, (from, to))
                .await?,
        ),
    };
    Ok(Json(Availability {
        slots,
        free: allot_core::booking::free_gaps(from, to, &blocking),
        resource,
        from,
        to,
    }))
}

#[utoipa::path(get, path = "/v1/bookings/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Booking), (status = 404, body = ErrorBody)))]
pub(super) async fn get_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
) -> Result<Json<Booking>, ApiError> {
    id_path("booking", &id)?;
    Ok(Json(st.stores.bookings.get_booking(&tenant, &id).await?))
}

#[utoipa::path(delete, path = "/v1/bookings/{id}", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking, description = "cancelled (the range is free); unchanged if it no longer blocked"),
        (status = 404, body = ErrorBody)))]
pub(super) async fn cancel_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<NoBody>,
) -> Result<Response, ApiError> {
    id_path("booking", &id)?;
    let idem = write.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.bookings.cancel_booking(&tenant, &id, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/bookings/{id}/confirm", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "booking_expired, booking_cancelled or booking_released")))]
pub(super) async fn confirm_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<NoBody>,
) -> Result<Response, ApiError> {
    id_path("booking", &id)?;
    let idem = write.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.bookings.confirm_booking(&tenant, &id, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/bookings/{id}/release", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking, description = "released (or unchanged if it no longer blocked)"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "booking_confirmed")))]
pub(super) async fn release_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<NoBody>,
) -> Result<Response, ApiError> {
    id_path("booking", &id)?;
    let idem = write.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.bookings.release_booking(&tenant, &id, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/bookings/{id}/extend", request_body = ExtendBody, params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking, description = "held, lasting at least ttl_ms from now (never shortened)"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "booking_expired, booking_confirmed, booking_released or booking_cancelled")))]
pub(super) async fn extend_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<ExtendBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    id_path("booking", &id)?;
    let ttl_ms = allot_core::validate::extend(&body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.bookings.extend_booking(&tenant, &id, ttl_ms, idem).await?,
    ))
}
