//! Units: bulk receive and claims.

use super::{count_outcome, family_strategy, respond};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::write::StockWrite;
use allot_core::Capable;
use allot_core::Result;
use allot_core::{UnitAllocation, UnitAllocationBody, UnitStrategy, UnitsBody, UnitsCreated};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use std::sync::Arc;
use tracing::Instrument;

#[utoipa::path(post, path = "/v1/skus/{sku}/units", request_body = UnitsBody, params(("sku" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = UnitsCreated), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already_exists: a serial the SKU has")))]
pub(super) async fn add_units(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<UnitsBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::add_units(&sku, body.value, st.stores.now(), &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    Ok(respond(
        StatusCode::CREATED,
        st.stores.units.add_units(&tenant, req, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/unit-allocations", request_body = UnitAllocationBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = UnitAllocation), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "insufficient_stock or contention"), (status = 503, body = ErrorBody)))]
pub(super) async fn claim_units(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<UnitAllocationBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let named = body.value.strategy.as_deref();
    let default = st.stores.default_unit_strategy();
    let strategy = family_strategy(&st, named, default, UnitStrategy::parse, |u| {
        st.stores.supports_units(u)
    })?;
    let id = super::new_object_id();
    let mut req = allot_core::validate::unit_claim(id, body.value, strategy, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    let result = st
        .stores
        .units
        .claim_units(&tenant, req, idem)
        .instrument(super::store_span("store.claim_units", strategy.name()))
        .await;
    count_outcome("allot_unit_claims_total", strategy.name(), "claimed", &result);
    Ok(respond(StatusCode::CREATED, result?))
}
