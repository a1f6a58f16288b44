//! Locations, transfers between them, and compare-and-set of a level.

use super::respond;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, IdempotencyKey, JsonBody};
use crate::state::AppState;
use crate::write::{StockWrite, Write};
use allot_core::Result;
use allot_core::{AllotError, Location, LocationBody, SetLevelBody, Sku, Transfer, TransferBody};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

/// `GET /v1/locations` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LocationList {
    /// Every location of the caller's tenant by name, the built-in `default` included.
    pub locations: Vec<Location>,
}

/// `POST /v1/locations`. It takes no `Idempotency-Key` (`400` naming it) rather than ignore
/// one: a location is named by its client, so a retry after a lost answer gets `409
/// already_exists`, which says it was made.
#[utoipa::path(post, path = "/v1/locations", request_body = LocationBody,
    responses((status = 201, body = Location), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already_exists")))]
pub(super) async fn create_location(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    IdempotencyKey(idem): IdempotencyKey,
    body: JsonBody<LocationBody>,
) -> Result<Response, ApiError> {
    if idem.is_some() {
        return Err(AllotError::invalid(
            "Idempotency-Key: POST /v1/locations takes none (a location is named by its client: \
             a retry after a lost answer gets 409 already_exists)",
        )
        .into());
    }
    let location = allot_core::validate::location(body.value, &st.limits)?;
    let made = st
        .stores
        .locations
        .create_location(&tenant, location, st.limits.max_locations)
        .await?;
    Ok((StatusCode::CREATED, Json(made)).into_response())
}

#[utoipa::path(get, path = "/v1/locations", responses((status = 200, body = LocationList)))]
pub(super) async fn list_locations(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
) -> Result<Json<LocationList>, ApiError> {
    Ok(Json(LocationList {
        locations: st.stores.locations.list_locations(&tenant).await?,
    }))
}

#[utoipa::path(post, path = "/v1/transfers", request_body = TransferBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Transfer), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the SKU or a location"),
        (status = 409, body = ErrorBody, description = "insufficient_stock at `from`"),
        (status = 422, body = ErrorBody, description = "same_location: from and to are one location")))]
pub(super) async fn create_transfer(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<TransferBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let id = super::new_object_id();
    let mut req = allot_core::validate::transfer(id, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    Ok(respond(
        StatusCode::CREATED,
        st.stores.locations.transfer(&tenant, req, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/skus/{sku}/levels/{location}", request_body = SetLevelBody,
    params(("sku" = String, Path), ("location" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Sku), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the SKU or the location"),
        (status = 409, body = ErrorBody,
            description = "compare_failed (with `current_on_hand`), or insufficient_stock below what is held there")))]
pub(super) async fn set_level(
    State(st): State<Arc<AppState>>,
    Path((sku, location)): Path<(String, String)>,
    Caller { tenant, actor }: Caller,
    write: Write<JsonBody<SetLevelBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::set_level(&sku, &location, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.locations.set_level(&tenant, req, idem).await?,
    ))
}
