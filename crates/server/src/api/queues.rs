//! The operator's side of the queue over HTTP: one job in full with why it waits
//! (`GET /v1/jobs/{id}`, scope `jobs:read`), and a queue's settings — limits, rates, FIFO per
//! key, pause and resume (scope `jobs:manage`).

use super::jobs::job_id;
use super::query;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::state::AppState;
use allot_core::job::bulk::{BulkBody, BulkResult};
use allot_core::job::queue::{JobDetail, QueueSettings, QueueSettingsBody};
use allot_core::job::QueueList;
use axum::extract::{Path, State};
use axum::Json;
use std::sync::Arc;

#[utoipa::path(get, path = "/v1/queues",
    params(("after" = Option<String>, Query, description = "the cursor: the previous page's next"),
        ("limit" = Option<u32>, Query)),
    responses((status = 200, body = QueueList, description = "queues with jobs, by name, each with its counts by state"),
        (status = 400, body = ErrorBody)))]
pub(super) async fn list_queues(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    query::Q(q): query::Q<query::CursorQuery>,
) -> Result<Json<QueueList>, ApiError> {
    let (after, limit) = (q.after(&st.limits)?, q.limit(&st.limits)?);
    let page = allot_core::Page::new(after.as_deref(), limit);
    let allot_core::Listed { items: queues, next } = st.stores.queues.list_queues(&tenant, page).await?;
    Ok(Json(QueueList { queues, next }))
}

#[utoipa::path(get, path = "/v1/jobs/{id}", params(("id" = i64, Path),
        ("wait_ms" = Option<i64>, Query, description = "wait up to this long (0..=max_wait_ms, default 0) for the job to \
            reach a terminal state (completed, discarded, cancelled); the answer is the job as it is then")),
    responses((status = 200, body = JobDetail, description = "the job, its lease, and `blocked_by` when it waits"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 429, body = ErrorBody, description = "the key's long polls are all waiting"),
        (status = 503, body = ErrorBody, description = "the server's long polls are all waiting")))]
pub(super) async fn get_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    Path(id): Path<String>,
    query::Q(q): query::Q<query::WaitQuery>,
) -> Result<Json<JobDetail>, ApiError> {
    let id = job_id(&id)?;
    let wait = q.wait(&st.limits)?;
    let detail = st.stores.queues.job_detail(&tenant, id).await?;
    if wait.is_zero() || detail.job.state.is_finished() {
        return Ok(Json(detail));
    }
    let _permits = super::jobs::long_poll_permits(&st, actor.as_deref())?;
    Ok(Json(wait_for_job(&st, &tenant, id, wait).await?))
}

/// Job `id` of `tenant` once it is finished, or as it is after `wait` (or once the server
/// stops): read again every `job_poll_interval_ms` (a completion on any instance is seen
/// within it). A queue that does not keep completed jobs answers 404 once its job completed.
async fn wait_for_job(
    st: &AppState,
    tenant: &allot_core::Tenant,
    id: i64,
    wait: std::time::Duration,
) -> allot_core::Result<JobDetail> {
    let deadline = tokio::time::Instant::now() + wait;
    let poll = std::time::Duration::from_millis(st.limits.job_poll_interval_ms);
    let mut stop = std::pin::pin!(st.stopped());
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let last = tokio::select! {
            () = tokio::time::sleep(poll.min(left)) => left <= poll,
            () = &mut stop => true,
        };
        let detail = st.stores.queues.job_detail(tenant, id).await?;
        if last || detail.job.state.is_finished() {
            return Ok(detail);
        }
    }
}

#[utoipa::path(put, path = "/v1/queues/{queue}", request_body = QueueSettingsBody, params(("queue" = String, Path)),
    responses((status = 200, body = QueueSettings, description = "the settings now in force (replaced whole)"),
        (status = 400, body = ErrorBody)))]
pub(super) async fn put_settings(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
    body: JsonBody<QueueSettingsBody>,
) -> Result<Json<QueueSettings>, ApiError> {
    let settings = allot_core::validate::queue_settings(&queue, body.value, &st.limits)?;
    Ok(Json(st.stores.queues.put_queue_settings(&tenant, settings).await?))
}

#[utoipa::path(get, path = "/v1/queues/{queue}/settings", params(("queue" = String, Path)),
    responses((status = 200, body = QueueSettings), (status = 400, body = ErrorBody)))]
pub(super) async fn get_settings(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
) -> Result<Json<QueueSettings>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    Ok(Json(st.stores.queues.queue_settings(&tenant, &queue).await?))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/pause", params(("queue" = String, Path)),
    responses((status = 200, body = QueueSettings, description = "paused: claims lease nothing, enqueues go in"),
        (status = 400, body = ErrorBody)))]
pub(super) async fn pause_queue(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
) -> Result<Json<QueueSettings>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    Ok(Json(st.stores.queues.pause_queue(&tenant, &queue, true).await?))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/resume", params(("queue" = String, Path)),
    responses((status = 200, body = QueueSettings), (status = 400, body = ErrorBody)))]
pub(super) async fn resume_queue(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
) -> Result<Json<QueueSettings>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    Ok(Json(st.stores.queues.pause_queue(&tenant, &queue, false).await?))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/jobs/bulk", request_body = BulkBody, params(("queue" = String, Path)),
    responses((status = 200, body = BulkResult, description = "what matched (at most max), what changed, whether more match"),
        (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already_exists: a job to retry has a unique_key another unfinished job holds; nothing changed")))]
pub(super) async fn bulk_jobs(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    Path(queue): Path<String>,
    body: JsonBody<BulkBody>,
) -> Result<Json<BulkResult>, ApiError> {
    let mut req = allot_core::validate::bulk(&queue, body.value, &st.limits)?;
    req.actor = actor;
    Ok(Json(st.stores.queues.bulk_jobs(&tenant, req).await?))
}
