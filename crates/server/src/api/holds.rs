//! Holds: create, read, confirm, release.

use super::{
    count_outcome, id_path, respond, stock_strategy, Allocation, ApiError, AppState, Arc, Caller, ConfirmBody,
    ErrorBody, ExtendBody, Hold, HoldBody, Json, JsonBody, NoBody, OptionalJsonBody, Path, Response, Result, State,
    StatusCode, Write,
};

#[utoipa::path(post, path = "/v1/holds", request_body = HoldBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Hold), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody), (status = 503, body = ErrorBody)))]
pub(super) async fn create_hold(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    write: Write<JsonBody<HoldBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let strategy = stock_strategy(&st, body.value.strategy.as_deref())?;
    let id = uuid::Uuid::new_v4().to_string();
    let mut req = allot_core::validate::hold(id, body.value, strategy, &st.limits)?;
    req.take.actor = actor;
    let idem = key.idempotency(StatusCode::CREATED);
    let result = st.stores.holds.create_hold(&tenant, req, idem).await;
    count_outcome("allot_holds_total", strategy.name(), "held", &result);
    Ok(respond(StatusCode::CREATED, result?))
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
    write: Write<OptionalJsonBody<ConfirmBody>>,
) -> Result<Response, ApiError> {
    let (OptionalJsonBody(body), key) = write.split();
    id_path("hold", &id)?;
    let part = allot_core::validate::confirm(body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    let result = st
        .stores
        .holds
        .confirm_hold(&tenant, allot_core::hold::Confirm { id, part, actor }, idem)
        .await;
    let outcome = result.as_ref().map(|_| "confirmed").unwrap_or_else(|e| e.code());
    metrics::counter!("allot_hold_finishes_total", "outcome" => outcome).increment(1);
    Ok(respond(StatusCode::OK, result?))
}

#[utoipa::path(post, path = "/v1/holds/{id}/release", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Hold, description = "released (or already released / expired)"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "hold_confirmed")))]
pub(super) async fn release_hold(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    Caller { tenant, actor }: Caller,
    write: Write<NoBody>,
) -> Result<Response, ApiError> {
    id_path("hold", &id)?;
    let idem = write.idempotency(StatusCode::OK);
    let result = st
        .stores
        .holds
        .release_hold(&tenant, allot_core::hold::Release { id, actor }, idem)
        .await;
    let outcome = result.as_ref().map(|_| "released").unwrap_or_else(|e| e.code());
    metrics::counter!("allot_hold_finishes_total", "outcome" => outcome).increment(1);
    Ok(respond(StatusCode::OK, result?))
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
    write: Write<JsonBody<ExtendBody>>,
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
