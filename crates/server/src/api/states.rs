//! Moves between quantity states (see `allot_core::states`).

use super::respond;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::write::StockWrite;
use allot_core::{Move, MoveBody};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;

#[utoipa::path(post, path = "/v1/skus/{sku}/moves", request_body = MoveBody,
    params(("sku" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Move), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the SKU or the location"),
        (status = 409, body = ErrorBody,
            description = "insufficient_stock: out of `available`, more than is available there; \
                           exceeds_state: out of an unsellable state, more than it has there (`available`); \
                           wrong_tracking: a unit-tracked SKU"),
        (status = 422, body = ErrorBody, description = "same_state: `from` and `to` are one state")))]
pub(super) async fn move_stock(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<MoveBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::movement(super::new_object_id(), &sku, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    Ok(respond(
        StatusCode::CREATED,
        st.stores.stock.move_stock(&tenant, req, idem).await?,
    ))
}
