//! SKUs, adjustments, the ledger and allocations.

use super::{auto_view, count_outcome, id_path, named_strategy, pick, query, respond, Picked, Valid};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use crate::write::WriteKey;
use crate::write::{NoBody, StockWrite};
use allot_core::store::Executed;
use allot_core::Result;
use allot_core::{AdjustmentBody, Allocation, AllocationBody, CreateSkuBody, LedgerEntry, Return, ReturnBody, Sku};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tracing::Instrument;
use utoipa::ToSchema;

pub(super) fn sku_path(sku: &str, st: &AppState) -> Result<(), ApiError> {
    allot_core::validate::name("sku", sku, &st.limits).map_err(ApiError::from)
}

#[utoipa::path(post, path = "/v1/skus", request_body = CreateSkuBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Sku), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "the location"), (status = 409, body = ErrorBody)))]
pub(super) async fn create_sku(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<CreateSkuBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::create_sku(body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    Ok(respond(
        StatusCode::CREATED,
        st.stores.stock.create_sku(&tenant, req, idem).await?,
    ))
}

#[utoipa::path(get, path = "/v1/skus/{sku}", params(("sku" = String, Path)),
    responses((status = 200, body = Sku), (status = 404, body = ErrorBody)))]
pub(super) async fn get_sku(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(sku): Path<String>,
) -> Result<Json<Sku>, ApiError> {
    sku_path(&sku, &st)?;
    let mut found = st.stores.stock.get_sku(&tenant, &sku).await?;
    found.auto = auto_view(&st, &tenant, &sku);
    Ok(Json(found))
}

/// `PATCH /v1/skus/{sku}`: settings that move no stock (the `sku.low_stock` threshold, the
/// `backorder_limit`), each kept when absent. Setting a value is idempotent by itself: no
/// `Idempotency-Key` is needed. Both are validated before either is written.
#[utoipa::path(patch, path = "/v1/skus/{sku}", params(("sku" = String, Path)),
    request_body = allot_core::model::SkuSettingsBody,
    responses((status = 200, body = Sku), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn patch_sku(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(sku): Path<String>,
    body: JsonBody<allot_core::model::SkuSettingsBody>,
) -> Result<Json<Sku>, ApiError> {
    sku_path(&sku, &st)?;
    let set = allot_core::model::validate::sku_settings(body.value, &st.limits)?;
    let mut answer = None;
    if let Some(limit) = set.backorder_limit {
        answer = Some(st.stores.stock.set_backorder_limit(&tenant, &sku, limit).await?);
    }
    if let Some(below) = set.low_stock_below {
        answer = Some(st.stores.stock.set_low_stock(&tenant, &sku, below).await?);
    }
    answer
        .map(Json)
        .ok_or_else(|| ApiError::from(allot_core::AllotError::Internal("no setting to set".into())))
}

#[utoipa::path(post, path = "/v1/skus/{sku}/adjustments", request_body = AdjustmentBody,
    params(("sku" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Sku), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
        (status = 422, body = ErrorBody)))]
pub(super) async fn adjust_sku(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<AdjustmentBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::adjustment(&sku, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::OK);
    let result = st.stores.stock.adjust(&tenant, req, idem).await?;
    Ok(respond(StatusCode::OK, result))
}

/// `GET /v1/skus/{sku}/ledger` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LedgerPage {
    /// Entries with `id > after`, oldest first.
    pub entries: Vec<LedgerEntry>,
    /// The last entry's id when another page follows (send it as `after` for the next),
    /// `null` on the last page.
    pub next: Option<i64>,
}

#[utoipa::path(get, path = "/v1/skus/{sku}/ledger",
    params(("sku" = String, Path), ("after" = Option<i64>, Query), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = LedgerPage), (status = 404, body = ErrorBody)))]
pub(super) async fn ledger(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(sku): Path<String>,
    query::Q(q): query::Q<query::PageQuery>,
) -> Result<Json<LedgerPage>, ApiError> {
    sku_path(&sku, &st)?;
    let (after, limit) = (q.after()?, q.limit(&st.limits)?);
    let page = allot_core::Page::new(after, limit);
    let allot_core::Listed { items: entries, next } = st.stores.stock.ledger(&tenant, &sku, page).await?;
    Ok(Json(LedgerPage { entries, next }))
}

#[utoipa::path(post, path = "/v1/allocations", request_body = AllocationBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Allocation), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub(super) async fn create_allocation(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<AllocationBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let kits = super::kits::kits_named(&st, &tenant, &body.value.lines).await?;
    let req = pick(&st, &tenant, allocation_request(&st, body.value, actor, &kits)?);
    Ok(respond(StatusCode::CREATED, allocate(&st, &tenant, req, &key).await?))
}

/// An allocation from its body: the strategy resolved (the server default when it names
/// none), a new id, its kit lines turned into their components (`kits`: the kits they name,
/// as read), validated, and made by `actor`. Errors name the body's fields.
pub(super) fn allocation_request(
    st: &AppState,
    body: AllocationBody,
    actor: Option<String>,
    kits: &allot_core::kit::Kits,
) -> allot_core::Result<Valid<allot_core::AllocationRequest>> {
    let named = named_strategy(st, body.strategy.as_deref())?;
    let id = super::new_object_id();
    let strategy = named.unwrap_or(st.default_strategy);
    let mut req = allot_core::validate::allocation_with(id, body, strategy, &st.limits, kits)?;
    req.actor = actor;
    Ok((req, named))
}

/// Run a validated allocation under `key`, counted in `allot_allocations_total`.
pub(super) async fn allocate(
    st: &AppState,
    tenant: &allot_core::Tenant,
    (req, strategy, in_flight): Picked<allot_core::AllocationRequest>,
    key: &WriteKey,
) -> allot_core::Result<Executed<Allocation>> {
    let span = super::store_span("store.allocate", strategy.name());
    let result = st
        .stores
        .stock
        .allocate(tenant, req, key.idempotency(StatusCode::CREATED))
        .instrument(span)
        .await;
    drop(in_flight);
    count_outcome("allot_allocations_total", strategy.name(), "allocated", &result);
    result
}

#[utoipa::path(get, path = "/v1/allocations/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Allocation), (status = 404, body = ErrorBody)))]
pub(super) async fn get_allocation(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
) -> Result<Json<Allocation>, ApiError> {
    id_path("allocation", &id)?;
    Ok(Json(st.stores.stock.get_allocation(&tenant, &id).await?))
}

#[utoipa::path(post, path = "/v1/allocations/{id}/cancel", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Allocation, description = "cancelled: its stock is back (again for a cancelled one)"),
        (status = 404, body = ErrorBody)))]
pub(super) async fn cancel_allocation(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<NoBody>,
) -> Result<Response, ApiError> {
    let (_, key) = write.split();
    Ok(respond(StatusCode::OK, cancel(&st, &tenant, id, actor, &key).await?))
}

/// Cancel `tenant`'s allocation `id` under `key` (an id no allocation can have is `not_found`).
pub(super) async fn cancel(
    st: &AppState,
    tenant: &allot_core::Tenant,
    id: String,
    actor: Option<String>,
    key: &WriteKey,
) -> allot_core::Result<Executed<Allocation>> {
    id_path("allocation", &id).map_err(|e| e.0)?;
    let idem = key.idempotency(StatusCode::OK);
    st.stores
        .stock
        .cancel_allocation(tenant, allot_core::Cancel { id, actor }, idem)
        .await
}

#[utoipa::path(post, path = "/v1/allocations/{id}/returns", request_body = ReturnBody,
    params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Return, description = "what came back, and where"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody, description = "the allocation or a location"),
        (status = 409, body = ErrorBody, description = "exceeds_allocation: more than is left of a line; wrong_tracking")))]
pub(super) async fn return_allocation(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    Caller { tenant, actor }: Caller,
    StockWrite(write): StockWrite<JsonBody<ReturnBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    id_path("allocation", &id)?;
    let return_id = super::new_object_id();
    let mut req = allot_core::validate::returns(return_id, &id, body.value, &st.limits)?;
    req.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    let result = st.stores.stock.return_allocation(&tenant, req, idem).await?;
    Ok(respond(StatusCode::CREATED, result))
}
