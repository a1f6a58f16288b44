//! Capacity: put and read resources and pools, set slot capacities, explain a booking,
//! reschedule one.

use super::{id_path, query, respond};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::write::Write;
use allot_core::booking::capacity::{self, Pool, PoolBody, Resource, ResourceBody, SlotCapacityBody};
use allot_core::booking::reason::{Explain, SlotAvailability};
use allot_core::booking::RescheduleBookingBody;
use allot_core::Booking;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

#[utoipa::path(put, path = "/v1/resources/{resource}", request_body = ResourceBody, params(("resource" = String, Path)),
    responses((status = 200, body = Resource), (status = 400, body = ErrorBody, description = "invalid_request naming the field"),
        (status = 404, body = ErrorBody, description = "a pool that was never put")))]
pub(super) async fn put_resource(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
    JsonBody { value, .. }: JsonBody<ResourceBody>,
) -> Result<Json<Resource>, ApiError> {
    let r = capacity::resource(&resource, value, chrono::Utc::now(), &st.limits)?;
    Ok(Json(st.stores.bookings.put_resource(&tenant, r).await?))
}

#[utoipa::path(get, path = "/v1/resources/{resource}", params(("resource" = String, Path)),
    responses((status = 200, body = Resource, description = "as put; never put: capacity 1, no slots, no rules")))]
pub(super) async fn get_resource(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
) -> Result<Json<Resource>, ApiError> {
    allot_core::validate::name("resource", &resource, &st.limits)?;
    Ok(Json(st.stores.bookings.get_resource(&tenant, &resource).await?))
}

#[utoipa::path(put, path = "/v1/pools/{pool}", request_body = PoolBody, params(("pool" = String, Path)),
    responses((status = 200, body = Pool), (status = 400, body = ErrorBody)))]
pub(super) async fn put_pool(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(pool): Path<String>,
    JsonBody { value, .. }: JsonBody<PoolBody>,
) -> Result<Json<Pool>, ApiError> {
    let p = capacity::pool(&pool, value, chrono::Utc::now(), &st.limits)?;
    Ok(Json(st.stores.bookings.put_pool(&tenant, p).await?))
}

/// `PUT /v1/resources/{resource}/slots` answer: the slots set, as availability reads them.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SlotsSet {
    /// Every slot whose capacity was set, with its use.
    pub slots: Vec<SlotAvailability>,
}

#[utoipa::path(put, path = "/v1/resources/{resource}/slots", request_body = SlotCapacityBody, params(("resource" = String, Path)),
    responses((status = 200, body = SlotsSet), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "a resource that was never put")))]
pub(super) async fn put_slots(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
    JsonBody { value, .. }: JsonBody<SlotCapacityBody>,
) -> Result<Json<SlotsSet>, ApiError> {
    allot_core::validate::name("resource", &resource, &st.limits)?;
    let slots = st
        .stores
        .bookings
        .put_slot_capacity(&tenant, &resource, value, &st.limits)
        .await?;
    Ok(Json(SlotsSet { slots }))
}

/// `?start=&end=&quantity=` of explain.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExplainQuery {
    start: Option<String>,
    end: Option<String>,
    quantity: Option<String>,
}

#[utoipa::path(get, path = "/v1/resources/{resource}/explain",
    params(("resource" = String, Path), ("start" = String, Query, description = "RFC 3339 with offset"),
        ("end" = String, Query, description = "RFC 3339 with offset"), ("quantity" = Option<u32>, Query, minimum = 1, maximum = 1000000, description = "default 1")),
    responses((status = 200, body = Explain, description = "every reason the booking would be refused now (exact at `as_of`)"),
        (status = 400, body = ErrorBody)))]
pub(super) async fn explain(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(resource): Path<String>,
    query::Q(q): query::Q<ExplainQuery>,
) -> Result<Json<Explain>, ApiError> {
    allot_core::validate::name("resource", &resource, &st.limits)?;
    let need = |k: &str, v: Option<String>| {
        v.ok_or_else(|| {
            ApiError::from(allot_core::AllotError::invalid(format!(
                "query parameter `{k}` is required"
            )))
        })
    };
    let (start, end) = (need("start", q.start)?, need("end", q.end)?);
    let range = allot_core::validate::window("start", &start, "end", &end, &st.limits)?;
    let quantity = match q.quantity {
        None => 1,
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=capacity::MAX_CAPACITY).contains(n))
            .ok_or_else(|| {
                allot_core::AllotError::invalid(format!("quantity: must be 1..={}", capacity::MAX_CAPACITY))
            })?,
    };
    Ok(Json(
        st.stores.bookings.explain(&tenant, &resource, range, quantity).await?,
    ))
}

#[utoipa::path(post, path = "/v1/bookings/{id}/reschedule", request_body = RescheduleBookingBody, params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking, description = "moved: the new range taken and the old freed in one transaction"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "capacity_exceeded, booking_overlap, booking_expired, booking_cancelled or booking_released"),
        (status = 422, body = ErrorBody, description = "rule_violated naming the rule; empty_range")))]
pub(super) async fn reschedule_booking(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<RescheduleBookingBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    id_path("booking", &id)?;
    let to = allot_core::validate::reschedule_booking(body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.bookings.reschedule_booking(&tenant, &id, to, idem).await?,
    ))
}
