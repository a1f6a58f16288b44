//! Incoming stock and receipts (see `allot_core::receiving`).

use super::respond;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::write::StockWrite;
use allot_core::{Incoming, IncomingBody, Receipt, ReceiptBody};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;

#[utoipa::path(post, path = "/v1/skus/{sku}/incoming", request_body = IncomingBody,
    params(("sku" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Incoming), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the SKU or the location"),
        (status = 409, body = ErrorBody, description = "wrong_tracking: a unit-tracked SKU")))]
pub(super) async fn add_incoming(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<IncomingBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::incoming(super::new_object_id(), &sku, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    Ok(respond(
        StatusCode::CREATED,
        st.stores.stock.add_incoming(&tenant, req, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/skus/{sku}/receipts", request_body = ReceiptBody,
    params(("sku" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Receipt), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the SKU, the location or the incoming"),
        (status = 409, body = ErrorBody,
            description = "exceeds_incoming: more than is still expected of the incoming (`available`); wrong_tracking")))]
pub(super) async fn receive(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<ReceiptBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::receipt(super::new_object_id(), &sku, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    Ok(respond(
        StatusCode::CREATED,
        st.stores.stock.receive(&tenant, req, idem).await?,
    ))
}
