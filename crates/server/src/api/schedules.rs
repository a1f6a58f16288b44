//! Schedules over HTTP (scope `jobs:manage`): a cron expression in a time zone that enqueues a
//! job template at each tick, exactly once across instances (`allot_core::job::schedule`).

use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use allot_core::job::schedule::{Schedule, ScheduleBody, ScheduleList};
use allot_core::Capable;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::response::Response;
use axum::Json;
use std::sync::Arc;

#[utoipa::path(post, path = "/v1/schedules", request_body = ScheduleBody,
    responses((status = 201, body = Schedule), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already_exists: the name is taken")))]
pub(super) async fn create_schedule(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    body: JsonBody<ScheduleBody>,
) -> Result<Response, ApiError> {
    let new = allot_core::validate::schedule(body.value, st.stores.now(), &st.limits)?;
    let made = st.stores.queues.create_schedule(&tenant, new).await?;
    Ok((StatusCode::CREATED, Json(made)).into_response())
}

#[utoipa::path(get, path = "/v1/schedules", responses((status = 200, body = ScheduleList)))]
pub(super) async fn list_schedules(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
) -> Result<Json<ScheduleList>, ApiError> {
    Ok(Json(ScheduleList {
        schedules: st.stores.queues.list_schedules(&tenant).await?,
    }))
}

#[utoipa::path(delete, path = "/v1/schedules/{name}", params(("name" = String, Path)),
    responses((status = 204, description = "deleted; jobs it enqueued stay"), (status = 404, body = ErrorBody)))]
pub(super) async fn delete_schedule(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(name): Path<String>,
) -> Result<StatusCode, ApiError> {
    allot_core::validate::name("name", &name, &st.limits)?;
    st.stores.queues.delete_schedule(&tenant, &name).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[utoipa::path(post, path = "/v1/schedules/{name}/pause", params(("name" = String, Path)),
    responses((status = 200, body = Schedule), (status = 404, body = ErrorBody)))]
pub(super) async fn pause_schedule(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(name): Path<String>,
) -> Result<Json<Schedule>, ApiError> {
    allot_core::validate::name("name", &name, &st.limits)?;
    Ok(Json(st.stores.queues.pause_schedule(&tenant, &name, true).await?))
}

#[utoipa::path(post, path = "/v1/schedules/{name}/resume", params(("name" = String, Path)),
    responses((status = 200, body = Schedule, description = "runs from its next tick after now"),
        (status = 404, body = ErrorBody)))]
pub(super) async fn resume_schedule(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(name): Path<String>,
) -> Result<Json<Schedule>, ApiError> {
    allot_core::validate::name("name", &name, &st.limits)?;
    Ok(Json(st.stores.queues.pause_schedule(&tenant, &name, false).await?))
}
