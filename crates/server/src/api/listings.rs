//! Cursor listings: SKUs (with a low-stock filter), allocations, holds (by status, expiring
//! soonest first), a SKU's units (by status, location, lot) and one unit by serial. A page
//! carries `next`, the cursor of the page after it (`null` on the last page): pass it back
//! as `after`.

use super::{query, stock};
use crate::error::{ApiError, ErrorBody};
use crate::extract::Caller;
use crate::state::AppState;
use allot_core::Result;
use allot_core::{Allocation, AllotError, Hold, HoldStatus, Listed, Page, Sku, UnitStatus, UnitView};
use axum::extract::{Path, State};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

/// `GET /v1/skus` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct SkuPage {
    /// SKUs by name.
    pub skus: Vec<Sku>,
    /// The cursor of the next page (its `after`), `null` on the last.
    pub next: Option<String>,
}

#[utoipa::path(get, path = "/v1/skus",
    params(("after" = Option<String>, Query, description = "the cursor: the previous page's next"),
        ("limit" = Option<u32>, Query), ("available_below" = Option<i64>, Query, description = "low stock: only SKUs with available below this (1: sold out)"),
        ("prefix" = Option<String>, Query, description = "search: only SKUs whose name starts with this")),
    responses((status = 200, body = SkuPage), (status = 400, body = ErrorBody)))]
pub(super) async fn list_skus(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    query::Q(q): query::Q<query::SkuListQuery>,
) -> Result<Json<SkuPage>, ApiError> {
    let (after, limit, filter) = (q.after(&st.limits)?, q.limit(&st.limits)?, q.filter(&st.limits)?);
    let page = Page::new(after.as_deref(), limit);
    let Listed { items: skus, next } = st.stores.stock.list_skus(&tenant, &filter, page).await?;
    Ok(Json(SkuPage { skus, next }))
}

/// `GET /v1/allocations` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct AllocationPage {
    /// Allocations, oldest first.
    pub allocations: Vec<Allocation>,
    /// The cursor of the next page (its `after`), `null` on the last.
    pub next: Option<String>,
}

#[utoipa::path(get, path = "/v1/allocations",
    params(("after" = Option<String>, Query, description = "the cursor: the previous page's next"), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = AllocationPage), (status = 400, body = ErrorBody)))]
pub(super) async fn list_allocations(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    query::Q(q): query::Q<query::CursorQuery>,
) -> Result<Json<AllocationPage>, ApiError> {
    let (after, limit) = (q.after(&st.limits)?, q.limit(&st.limits)?);
    let page = Page::new(after.as_deref(), limit);
    let Listed {
        items: allocations,
        next,
    } = st.stores.stock.list_allocations(&tenant, page).await?;
    Ok(Json(AllocationPage { allocations, next }))
}

/// `GET /v1/holds` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct HoldPage {
    /// Holds, expiring soonest first.
    pub holds: Vec<Hold>,
    /// The cursor of the next page (its `after`), `null` on the last.
    pub next: Option<String>,
}

#[utoipa::path(get, path = "/v1/holds",
    params(("status" = Option<HoldStatus>, Query, description = "held (default: active, unexpired), expired, released or confirmed"),
        ("sku" = Option<String>, Query, description = "only holds with a line of this SKU"),
        ("after" = Option<String>, Query, description = "the cursor: the previous page's next"), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = HoldPage), (status = 400, body = ErrorBody)))]
pub(super) async fn list_holds(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    query::Q(q): query::Q<query::HoldListQuery>,
) -> Result<Json<HoldPage>, ApiError> {
    let (status, after, limit) = (q.status()?, q.page().after(&st.limits)?, q.page().limit(&st.limits)?);
    let sku = q.sku(&st.limits)?;
    let page = Page::new(after.as_deref(), limit);
    let Listed { items: holds, next } = st.stores.holds.list_holds(&tenant, (status, sku), page).await?;
    Ok(Json(HoldPage { holds, next }))
}

/// `GET /v1/skus/{sku}/units` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct UnitPage {
    /// Units by id.
    pub units: Vec<UnitView>,
    /// The cursor of the next page (its `after`: the last unit's id), `null` on the last.
    pub next: Option<String>,
}

#[utoipa::path(get, path = "/v1/skus/{sku}/units",
    params(("sku" = String, Path), ("status" = Option<UnitStatus>, Query, description = "available, held or allocated"),
        ("location" = Option<String>, Query), ("lot" = Option<String>, Query),
        ("after" = Option<i64>, Query, description = "the cursor: the previous page's next"), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = UnitPage), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub(super) async fn list_units(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(sku): Path<String>,
    query::Q(q): query::Q<query::UnitListQuery>,
) -> Result<Json<UnitPage>, ApiError> {
    stock::sku_path(&sku, &st)?;
    let (filter, after, limit) = (q.filter(&st.limits)?, q.after()?, q.limit(&st.limits)?);
    let page = Page::new(after, limit);
    let Listed { items: units, next } = st.stores.units.list_units(&tenant, &sku, &filter, page).await?;
    Ok(Json(UnitPage {
        units,
        next: next.map(|id| id.to_string()),
    }))
}

#[utoipa::path(get, path = "/v1/skus/{sku}/units/{serial}", params(("sku" = String, Path), ("serial" = String, Path)),
    responses((status = 200, body = UnitView), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub(super) async fn get_unit(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path((sku, serial)): Path<(String, String)>,
) -> Result<Json<UnitView>, ApiError> {
    stock::sku_path(&sku, &st)?;
    // Looked up as stored: an identifier in NFC (a serial that cannot be one is no unit's).
    let serial = allot_core::input::identifier("serial", &serial, "max_unit_field_len", st.limits.max_unit_field_len)
        .map_err(|_| AllotError::not_found("unit", &serial))?;
    Ok(Json(st.stores.units.get_unit(&tenant, &sku, &serial).await?))
}
