//! Kits (see `allot_core::kit`): written and read here; allocations and holds (alone or in
//! a batch) read the kits their lines name before they are validated ([`kits_named`]).

use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use allot_core::kit::{Kit, KitAvailability, KitBody, Kits, OrderLineBody};
use allot_core::Tenant;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use std::sync::Arc;

/// The kits `lines` name, read from the store in one call (none read when no line names a
/// kit: the plain path pays nothing). A kit the store does not hold is left out; the
/// validation that expands the lines refuses it (`404 not_found`).
pub(super) async fn kits_named<'a>(
    st: &AppState,
    tenant: &Tenant,
    lines: impl IntoIterator<Item = &'a OrderLineBody>,
) -> allot_core::Result<Kits> {
    // Only names the name rule takes are looked up (a NUL cannot reach the database): the
    // validation that expands the lines refuses the others, naming the line.
    let mut names = allot_core::kit::named(lines);
    names.retain(|n| allot_core::validate::name("kit", n, &st.limits).is_ok());
    if names.is_empty() {
        return Ok(Kits::new());
    }
    st.stores.stock.kits(tenant, &names).await
}

#[utoipa::path(put, path = "/v1/kits/{kit}", params(("kit" = String, Path)), request_body = KitBody,
    responses((status = 200, body = Kit), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody, description = "a component SKU"),
        (status = 409, body = ErrorBody, description = "wrong_tracking: a unit-tracked component")))]
pub(super) async fn put_kit(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(kit): Path<String>,
    body: JsonBody<KitBody>,
) -> Result<Json<Kit>, ApiError> {
    let kit = allot_core::validate::kit(&kit, body.value, &st.limits)?;
    Ok(Json(st.stores.stock.put_kit(&tenant, kit).await?))
}

#[utoipa::path(get, path = "/v1/kits/{kit}", params(("kit" = String, Path)),
    responses((status = 200, body = KitAvailability), (status = 404, body = ErrorBody)))]
pub(super) async fn get_kit(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(kit): Path<String>,
) -> Result<Json<KitAvailability>, ApiError> {
    allot_core::validate::name("kit", &kit, &st.limits)?;
    let kits = st.stores.stock.kits(&tenant, std::slice::from_ref(&kit)).await?;
    let found = kits
        .get(&kit)
        .ok_or_else(|| allot_core::AllotError::not_found("kit", &kit))?;
    let mut skus = Vec::with_capacity(found.components.len());
    for c in &found.components {
        skus.push(st.stores.stock.get_sku(&tenant, &c.sku).await?);
    }
    Ok(Json(allot_core::kit::availability(found, &skus)))
}

#[utoipa::path(delete, path = "/v1/kits/{kit}", params(("kit" = String, Path)),
    responses((status = 204), (status = 404, body = ErrorBody)))]
pub(super) async fn delete_kit(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(kit): Path<String>,
) -> Result<StatusCode, ApiError> {
    allot_core::validate::name("kit", &kit, &st.limits)?;
    st.stores.stock.delete_kit(&tenant, &kit).await?;
    Ok(StatusCode::NO_CONTENT)
}
