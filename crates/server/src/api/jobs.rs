//! The job queue: enqueue, claims, completions, failures, heartbeats, dead letters.

use super::{family_strategy, query, respond};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, JsonBody};
use crate::metrics_layer;
use crate::state::AppState;
use crate::write::{NoBody, Write};
use allot_core::job::{CompleteBody, RescheduleBody, SnoozeBody};
use allot_core::long_poll::FirstTry;
use allot_core::store::Executed;
use allot_core::Capable;
use allot_core::Result;
use allot_core::{
    AllotError, ClaimBody, ClaimStrategy, Claimed, Completions, CompletionsBody, EnqueueBody, Enqueued, JobList,
    JobStatus, LeaseBody, LeasedJob, QueueCounts,
};
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use std::sync::Arc;
use tracing::Instrument;

/// What a key told it already holds its long-polls is asked to wait before trying again, ms.
const LONG_POLL_RETRY_AFTER_MS: u64 = 1000;

#[utoipa::path(post, path = "/v1/queues/{queue}/jobs", request_body = EnqueueBody,
    params(("queue" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Enqueued), (status = 400, body = ErrorBody)))]
pub(super) async fn enqueue_jobs(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
    write: Write<JsonBody<EnqueueBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let mut req = allot_core::validate::enqueue(&queue, body.value, st.stores.now(), &st.limits)?;
    let n = req.jobs.len() as u64;
    let idem = key.idempotency(StatusCode::CREATED);
    let span = super::store_span("store.enqueue", "-");
    // The jobs carry this span's context: their runs continue the enqueuing trace.
    req.traceparent = crate::telemetry::traceparent_of(&span);
    let result = st.stores.jobs.enqueue(&tenant, req, idem).instrument(span).await?;
    metrics::counter!("allot_jobs_enqueued_total", "queue" => metrics_layer::queue_label(&tenant, &queue)).increment(n);
    Ok(respond(StatusCode::CREATED, result))
}

const KEY: &str = "1..=255 printable ASCII; a retry with it gets the first answer";

#[utoipa::path(post, path = "/v1/queues/{queue}/claims", request_body = ClaimBody,
    params(("queue" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = Claimed), (status = 400, body = ErrorBody)))]
pub(super) async fn claim_jobs(
    State(st): State<Arc<AppState>>,
    Caller { tenant, actor }: Caller,
    Path(queue): Path<String>,
    write: Write<JsonBody<ClaimBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let named = body.value.strategy.as_deref();
    let default = st.stores.default_claim_strategy();
    let strategy = family_strategy(&st, named, default, ClaimStrategy::parse, |c| {
        st.stores.supports_claim(c)
    })?;
    let req = allot_core::validate::claim(&queue, body.value, strategy, &st.limits)?;
    // A waiting claim holds one of the server's `max_long_polls` permits, and one of its
    // key's, for as long as it waits.
    let _permits = if req.wait_ms > 0 {
        Some((
            long_poll_permits(&st, actor.as_deref())?,
            metrics_layer::InProgress::claim_waiting(),
        ))
    } else {
        None
    };
    let started = std::time::Instant::now();
    let wait = std::time::Duration::from_millis(req.wait_ms as u64);
    let wrap = |jobs: &Vec<LeasedJob>| Claimed { jobs: jobs.clone() };
    let claim = allot_core::long_poll::claim_waiting(
        &*st.stores.jobs,
        &tenant,
        (req, FirstTry::Now),
        (wait, st.stopped()),
        || key.wrapped(StatusCode::OK, wrap),
    );
    let executed = claim
        .instrument(super::store_span("store.claim_jobs", strategy.name()))
        .await?;
    metrics::histogram!("allot_job_claim_seconds", "strategy" => strategy.name())
        .record(started.elapsed().as_secs_f64());
    if let Executed::Fresh(jobs) = &executed {
        metrics::counter!("allot_jobs_claimed_total", "queue" => metrics_layer::queue_label(&tenant, &queue))
            .increment(jobs.len() as u64);
    }
    Ok(respond(StatusCode::OK, executed.map(|jobs| Claimed { jobs })))
}

/// The permits a long poll (a waiting claim, a wait for a job to finish) holds while it
/// waits: one of the server's `max_long_polls` (else `503 unavailable`) and one of its key's
/// (else `429 rate_limited`).
pub(super) fn long_poll_permits(
    st: &AppState,
    actor: Option<&str>,
) -> Result<(tokio::sync::OwnedSemaphorePermit, impl Sized), ApiError> {
    let server = st
        .long_polls
        .clone()
        .try_acquire_owned()
        .map_err(|_| AllotError::Unavailable("max_long_polls waiting already; retry shortly".into()))?;
    let per_key = st.access.long_poll(actor).ok_or(AllotError::RateLimited {
        retry_after_ms: LONG_POLL_RETRY_AFTER_MS,
    })?;
    Ok((server, per_key))
}

pub(super) fn job_id(id: &str) -> Result<i64, ApiError> {
    id.parse::<i64>().map_err(|_| AllotError::not_found("job", id).into())
}

pub(super) fn job_outcome<T>(outcome: &'static str, result: &allot_core::Result<Executed<T>>) {
    let outcome = match result {
        Ok(Executed::Fresh(_)) => outcome,
        Ok(Executed::Replayed(_)) => "replayed",
        Err(e) => e.code(),
    };
    metrics::counter!("allot_job_outcomes_total", "outcome" => outcome).increment(1);
}

#[utoipa::path(post, path = "/v1/jobs/{id}/complete", request_body = CompleteBody,
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "lease_lost: the token is stale; nothing changed")))]
pub(super) async fn complete_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<CompleteBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let id = job_id(&id)?;
    let req = allot_core::validate::complete(body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    let result = st
        .stores
        .jobs
        .complete_job(&tenant, id, req, idem)
        .instrument(super::store_span("store.complete_job", "-"))
        .await;
    job_outcome("completed", &result);
    Ok(respond(StatusCode::OK, result?))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/snooze", request_body = SnoozeBody,
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus, description = "scheduled at now + delay_ms; the attempt is not spent"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn snooze_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<SnoozeBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let id = job_id(&id)?;
    let req = allot_core::validate::snooze(body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    let result = st.stores.jobs.snooze_job(&tenant, id, req, idem).await;
    job_outcome("snoozed", &result);
    Ok(respond(StatusCode::OK, result?))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/fail", request_body = LeaseBody,
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus, description = "retryable at run_at, or discarded when out of attempts"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn fail_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<LeaseBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let id = job_id(&id)?;
    let fail = allot_core::validate::fail(body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    let result = st.stores.jobs.fail_job(&tenant, id, fail, idem).await;
    job_outcome("failed", &result);
    Ok(respond(StatusCode::OK, result?))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/heartbeat", request_body = LeaseBody,
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn heartbeat_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<LeaseBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let id = job_id(&id)?;
    allot_core::validate::lease_token(&body.value.lease_token, &st.limits)?;
    let lease = allot_core::validate::lease_ms(
        body.value.lease_ms.unwrap_or(allot_core::job::DEFAULT_LEASE_MS),
        &st.limits,
    )?;
    let idem = key.idempotency(StatusCode::OK);
    let result = st
        .stores
        .jobs
        .heartbeat_job(&tenant, id, &body.value.lease_token, lease, idem)
        .await?;
    Ok(respond(StatusCode::OK, result))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/completions", request_body = CompletionsBody,
    params(("queue" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = Completions, description = "each job completed or lease_lost on its own")))]
pub(super) async fn complete_jobs(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
    write: Write<JsonBody<CompletionsBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let jobs = allot_core::validate::completions(&queue, body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    let done = st.stores.jobs.complete_jobs(&tenant, &queue, jobs, idem).await?;
    if let Executed::Fresh(done) = &done {
        let counter = |outcome| metrics::counter!("allot_job_outcomes_total", "outcome" => outcome);
        counter("completed").increment(done.completed.len() as u64);
        counter("lease_lost").increment(done.lease_lost.len() as u64);
    }
    Ok(respond(StatusCode::OK, done))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/cancel",
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus), (status = 404, body = ErrorBody)))]
pub(super) async fn cancel_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<NoBody>,
) -> Result<Response, ApiError> {
    let idem = write.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.jobs.cancel_job(&tenant, job_id(&id)?, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/retry",
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus, description = "a discarded or cancelled job is available again"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn retry_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<NoBody>,
) -> Result<Response, ApiError> {
    let idem = write.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.jobs.retry_job(&tenant, job_id(&id)?, idem).await?,
    ))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/reschedule", request_body = RescheduleBody,
    params(("id" = i64, Path), ("Idempotency-Key" = Option<String>, Header, description = KEY)),
    responses((status = 200, body = JobStatus, description = "a waiting job runs no earlier than now + delay_ms; another state is answered as it is"),
        (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub(super) async fn reschedule_job(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    write: Write<JsonBody<RescheduleBody>>,
) -> Result<Response, ApiError> {
    let (body, key) = write.split();
    let id = job_id(&id)?;
    let delay_ms = allot_core::validate::reschedule(body.value, &st.limits)?;
    let idem = key.idempotency(StatusCode::OK);
    Ok(respond(
        StatusCode::OK,
        st.stores.jobs.reschedule_job(&tenant, id, delay_ms, idem).await?,
    ))
}

#[utoipa::path(get, path = "/v1/queues/{queue}/jobs",
    params(("queue" = String, Path), ("state" = Option<String>, Query, description = "one state; every state when absent"),
        ("tag" = Option<String>, Query, description = "only jobs with this tag"),
        ("metadata" = Option<String>, Query, description = "only jobs whose metadata has this key and value: a JSON object of one key, e.g. {\"order\":42}"),
        ("payload" = Option<String>, Query, description = "only jobs whose payload has this top-level key and value: a JSON object of one key, e.g. {\"to\":\"ada@example.com\"}"),
        ("after" = Option<i64>, Query), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = JobList), (status = 400, body = ErrorBody)))]
pub(super) async fn list_jobs(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
    query::Q(q): query::Q<query::JobListQuery>,
) -> Result<Json<JobList>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    let filter = q.filter(&st.limits)?;
    let (after, limit) = (q.page().after()?, q.page().limit(&st.limits)?);
    let page = allot_core::Page::new(after, limit);
    let allot_core::Listed { items: jobs, next } = st.stores.jobs.list_jobs(&tenant, &queue, filter, page).await?;
    Ok(Json(JobList { next, jobs }))
}

#[utoipa::path(get, path = "/v1/queues/{queue}", params(("queue" = String, Path)),
    responses((status = 200, body = QueueCounts), (status = 400, body = ErrorBody)))]
pub(super) async fn queue_counts(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(queue): Path<String>,
) -> Result<Json<QueueCounts>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    let counts = st.stores.jobs.queue_counts(&tenant, &queue).await?;
    let label = metrics_layer::queue_label(&tenant, &queue);
    // A queue under `other` shares its gauge: only the sampler, which sums them, sets it.
    for (state, n) in counts.counts.iter().filter(|_| label != "other") {
        if !state.is_finished() {
            metrics::gauge!("allot_queue_jobs", "queue" => label.clone(), "state" => state.as_str()).set(*n as f64);
        }
    }
    Ok(Json(counts))
}
