//! Holds: create, read, confirm, release.

use super::{count_outcome, id_path, named_strategy, pick, respond, Picked, Valid};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody, OptionalJsonBody};
use crate::state::AppState;
use crate::write::WriteKey;
use crate::write::{NoBody, StockWrite};
use allot_core::store::Executed;
use allot_core::Result;
use allot_core::{Allocation, ConfirmBody, ExtendBody, Hold, HoldBody};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use std::sync::Arc;
use tracing::Instrument;

#[utoipa::path(post, path = "/v1/holds", request_body = HoldBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Hold), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub(super) async fn create_hold(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<HoldBody>>,
) -> Result<Response, crate::error::LineError> {
    let (body, key) = write.split();
    let skus = line_skus(&body.value);
    let kits = super::kits::kits_named(&st, &tenant, &kit_lines(&body.value)).await?;
    let req = pick(&st, &tenant, hold_request(&st, body.value, actor, &kits)?);
    match hold(&st, &tenant, req, &key).await {
        Ok(done) => Ok(respond(StatusCode::CREATED, done)),
        Err(e) => Err(crate::error::LineError::new(e, &skus)),
    }
}

/// The SKU of each line of a hold's body, in its order (a unit line's: its units' SKU; a
/// booking line's: empty, as no SKU is).
pub(super) fn line_skus(body: &HoldBody) -> Vec<String> {
    body.lines
        .iter()
        .map(|l| l.sku().unwrap_or_default().to_string())
        .collect()
}

/// The kit lines of a hold's body, as order lines (to read the kits they name).
pub(super) fn kit_lines(body: &HoldBody) -> Vec<allot_core::kit::OrderLineBody> {
    body.lines
        .iter()
        .filter_map(|l| match l {
            allot_core::hold::HoldLineBody::Kit(k) => Some(allot_core::kit::OrderLineBody::Kit(k.clone())),
            _ => None,
        })
        .collect()
}

/// A hold from its body: the strategy resolved (`None` for `auto`), a new id, validated,
/// made by `actor`.
pub(super) fn hold_request(
    st: &AppState,
    body: HoldBody,
    actor: Option<String>,
    kits: &allot_core::kit::Kits,
) -> allot_core::Result<Valid<allot_core::HoldRequest>> {
    let named = named_strategy(st, body.strategy.as_deref())?;
    let id = super::new_object_id();
    let strategy = named.unwrap_or(st.default_strategy);
    let mut req = allot_core::validate::hold_with(id, body, strategy, &st.limits, kits)?;
    req.take.actor = actor;
    Ok((req, named))
}

/// Make a validated hold under `key`, counted in `allot_holds_total`.
pub(super) async fn hold(
    st: &AppState,
    tenant: &allot_core::Tenant,
    (req, strategy, in_flight): Picked<allot_core::HoldRequest>,
    key: &WriteKey,
) -> allot_core::Result<Executed<Hold>> {
    let result = st
        .stores
        .holds
        .create_hold(tenant, req, key.idempotency(StatusCode::CREATED))
        .instrument(super::store_span("store.hold", strategy.name()))
        .await;
    drop(in_flight);
    count_outcome("allot_holds_total", strategy.name(), "held", &result);
    result
}

#[utoipa::path(get, path = "/v1/holds/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Hold, description = "status is effective: an overdue hold reads `expired`"),
        (status = 404, body = ErrorBody)))]
pub(super) async fn get_hold(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
) -> Result<Json<Hold>, ApiError> {
    id_path("hold", &id)?;
    Ok(Json(st.stores.holds.get_hold(&tenant, &id).await?))
}

#[utoipa::path(post, path = "/v1/holds/{id}/confirm", request_body(content = Option<ConfirmBody>,
        description = "optional: confirm only these quantities; the rest is released"),
    params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Allocation, description = "the allocation (same id as the hold); again for a confirmed hold"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "hold_expired or hold_released")))]
pub(super) async fn confirm_hold(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<OptionalJsonBody<ConfirmBody>>,
) -> Result<Response, ApiError> {
    let (OptionalJsonBody(body), key) = write.split();
    let part = allot_core::validate::confirm(body.value, &st.limits)?;
    let confirm = allot_core::hold::Confirm { id, part, actor };
    Ok(respond(
        StatusCode::OK,
        confirm_hold_as(&st, &tenant, confirm, &key).await?,
    ))
}

/// Confirm a hold (its `part` validated) under `key` (an id no hold can have is `not_found`),
/// counted in `allot_hold_finishes_total`.
pub(super) async fn confirm_hold_as(
    st: &AppState,
    tenant: &allot_core::Tenant,
    confirm: allot_core::hold::Confirm,
    key: &WriteKey,
) -> allot_core::Result<Executed<Allocation>> {
    id_path("hold", &confirm.id).map_err(|e| e.0)?;
    let result = st
        .stores
        .holds
        .confirm_hold(tenant, confirm, key.idempotency(StatusCode::OK))
        .await;
    count_finish("confirmed", &result);
    result
}

fn count_finish<T>(done: &'static str, result: &allot_core::Result<T>) {
    let outcome = result.as_ref().map(|_| done).unwrap_or_else(|e| e.code());
    metrics::counter!("allot_hold_finishes_total", "outcome" => outcome).increment(1);
}

#[utoipa::path(post, path = "/v1/holds/{id}/release", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Hold, description = "released (or already released / expired)"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "hold_confirmed")))]
pub(super) async fn release_hold(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<NoBody>,
) -> Result<Response, ApiError> {
    let (_, key) = write.split();
    Ok(respond(StatusCode::OK, release(&st, &tenant, id, actor, &key).await?))
}

/// Release `tenant`'s hold `id` under `key` (an id no hold can have is `not_found`), counted
/// in `allot_hold_finishes_total`.
pub(super) async fn release(
    st: &AppState,
    tenant: &allot_core::Tenant,
    id: String,
    actor: Option<String>,
    key: &WriteKey,
) -> allot_core::Result<Executed<Hold>> {
    id_path("hold", &id).map_err(|e| e.0)?;
    let result = st
        .stores
        .holds
        .release_hold(
            tenant,
            allot_core::hold::Release { id, actor },
            key.idempotency(StatusCode::OK),
        )
        .await;
    count_finish("released", &result);
    result
}

#[utoipa::path(post, path = "/v1/holds/{id}/extend", request_body = ExtendBody, params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Hold, description = "held, lasting at least ttl_ms from now (never shortened)"),
        (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "hold_expired, hold_released or hold_confirmed")))]
pub(super) async fn extend_hold(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    StockWrite(write): StockWrite<JsonBody<ExtendBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    id_path("hold", &id)?;
    let ttl_ms = allot_core::validate::extend(&body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.holds.extend_hold(&tenant, &id, ttl_ms, idem).await?,
    ))
}
