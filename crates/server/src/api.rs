//! Routes and handlers of the HTTP API (service, SKUs, ledger, allocations, audit).

use crate::error::{ApiError, ErrorBody};
use crate::extract::{IdempotencyKey, JsonBody};
use crate::metrics_layer;
use crate::state::AppState;
use allot_core::booking::BookingStrategy;
use allot_core::store::{Executed, Idempotency, StoredResponse};
use allot_core::*;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;
use utoipa::{OpenApi, ToSchema};
use utoipa_swagger_ui::SwaggerUi;

/// The OpenAPI document served at `/openapi.json`, generated from the handlers.
#[derive(OpenApi)]
#[openapi(
    info(title = "allot", description = "Allocation of scarce things under contention."),
    paths(
        healthz,
        create_sku,
        get_sku,
        adjust_sku,
        ledger,
        create_allocation,
        get_allocation,
        create_hold,
        get_hold,
        confirm_hold,
        release_hold,
        add_units,
        claim_units,
        create_booking,
        list_bookings,
        availability,
        get_booking,
        cancel_booking,
        confirm_booking,
        release_booking,
        enqueue_jobs,
        claim_jobs,
        complete_job,
        fail_job,
        heartbeat_job,
        queue_counts,
        complete_jobs,
        cancel_job,
        retry_job,
        list_jobs,
        audit
    ),
    components(schemas(
        Sku,
        LedgerEntry,
        LedgerPage,
        Allocation,
        AllocationLine,
        AllocationBody,
        CreateSkuBody,
        AdjustmentBody,
        ErrorBody,
        Health,
        AuditReport,
        AuditViolation,
        allot_core::JobViolation,
        Hold,
        HoldBody,
        HoldStatus,
        HoldKind,
        Unit,
        NewUnit,
        UnitsBody,
        UnitsCreated,
        UnitAllocationBody,
        UnitAllocation,
        Booking,
        BookingBody,
        BookingStatus,
        BookingList,
        Availability,
        FreeSlot,
        BookingOverlap,
        NewJob,
        EnqueueBody,
        Enqueued,
        ClaimBody,
        Claimed,
        LeasedJob,
        LeaseBody,
        JobStatus,
        JobState,
        QueueCounts,
        Completion,
        CompletionsBody,
        Completions,
        JobView,
        JobList
    ))
)]
pub struct ApiDoc;

/// Build the router with every route, the body limit and the metrics middleware.
pub fn router(state: Arc<AppState>) -> Router {
    let body_limit = state.limits.max_body_bytes;
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics))
        .route("/v1/skus", post(create_sku))
        .route("/v1/skus/{sku}", get(get_sku))
        .route("/v1/skus/{sku}/adjustments", post(adjust_sku))
        .route("/v1/skus/{sku}/ledger", get(ledger))
        .route("/v1/allocations", post(create_allocation))
        .route("/v1/allocations/{id}", get(get_allocation))
        .route("/v1/holds", post(create_hold))
        .route("/v1/holds/{id}", get(get_hold))
        .route("/v1/holds/{id}/confirm", post(confirm_hold))
        .route("/v1/holds/{id}/release", post(release_hold))
        .route("/v1/skus/{sku}/units", post(add_units))
        .route("/v1/unit-allocations", post(claim_units))
        .route(
            "/v1/resources/{resource}/bookings",
            post(create_booking).get(list_bookings),
        )
        .route("/v1/resources/{resource}/availability", get(availability))
        .route("/v1/bookings/{id}", get(get_booking).delete(cancel_booking))
        .route("/v1/bookings/{id}/confirm", post(confirm_booking))
        .route("/v1/bookings/{id}/release", post(release_booking))
        .route("/v1/queues/{queue}", get(queue_counts))
        .route("/v1/queues/{queue}/jobs", post(enqueue_jobs).get(list_jobs))
        .route("/v1/queues/{queue}/completions", post(complete_jobs))
        .route("/v1/jobs/{id}/cancel", post(cancel_job))
        .route("/v1/jobs/{id}/retry", post(retry_job))
        .route("/v1/queues/{queue}/claims", post(claim_jobs))
        .route("/v1/jobs/{id}/complete", post(complete_job))
        .route("/v1/jobs/{id}/fail", post(fail_job))
        .route("/v1/jobs/{id}/heartbeat", post(heartbeat_job))
        .route("/v1/audit", get(audit))
        .merge(SwaggerUi::new("/docs").url("/openapi.json", ApiDoc::openapi()))
        .fallback(not_found)
        .layer(axum::middleware::from_fn(metrics_layer::track))
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(state)
}

async fn not_found(uri: Uri) -> ApiError {
    AllotError::not_found("route", uri.path()).into()
}

/// `GET /healthz` body.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` or `unavailable`.
    status: &'static str,
    /// `postgres` or `sqlite`.
    backend: &'static str,
    /// `ok` or `unavailable`, when Redis is configured (it does not make the service
    /// unhealthy: only the Redis strategies need it).
    #[serde(skip_serializing_if = "Option::is_none")]
    redis: Option<&'static str>,
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, body = Health), (status = 503, body = Health)))]
async fn healthz(State(st): State<Arc<AppState>>) -> Response {
    let backend = st.store.backend().name();
    let redis = match &st.redis {
        None => None,
        Some(g) => Some(if g.health().await.is_ok() { "ok" } else { "unavailable" }),
    };
    match st.store.health().await {
        Ok(()) => Json(Health {
            status: "ok",
            backend,
            redis,
        })
        .into_response(),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "unavailable",
                backend,
                redis,
            }),
        )
            .into_response(),
    }
}

async fn metrics(State(st): State<Arc<AppState>>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4"),
        )],
        st.metrics.render(),
    )
        .into_response()
}

/// Build the idempotency context of a request: the key, a fingerprint of method, path and
/// canonical body, and the renderer of the success response (`status`, JSON of the value).
fn idempotency<T: Serialize + 'static>(
    key: Option<String>,
    method: &Method,
    uri: &Uri,
    canonical: &str,
    status: StatusCode,
) -> Option<Idempotency<T>> {
    key.map(|key| Idempotency {
        key,
        fingerprint: format!("{method} {} {canonical}", uri.path()),
        render: Box::new(move |v: &T| StoredResponse {
            status: status.as_u16(),
            body: serde_json::to_vec(v).unwrap_or_default(),
        }),
    })
}

/// The response of an idempotent request: fresh (rendered exactly as it was stored) or
/// replayed (stored status and body, `Idempotent-Replayed: true`).
fn respond<T: Serialize>(status: StatusCode, ex: Executed<T>) -> Response {
    let (status, body, replayed) = match ex {
        Executed::Fresh(v) => (status, serde_json::to_vec(&v).unwrap_or_default(), false),
        Executed::Replayed(r) => (StatusCode::from_u16(r.status).unwrap_or(StatusCode::OK), r.body, true),
    };
    let mut resp = (
        status,
        [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))],
        body,
    )
        .into_response();
    if replayed {
        resp.headers_mut()
            .insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    resp
}

fn sku_path(sku: &str, st: &AppState) -> Result<(), ApiError> {
    allot_core::validate::name("sku", sku, &st.limits).map_err(ApiError::from)
}

#[utoipa::path(post, path = "/v1/skus", request_body = CreateSkuBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Sku), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_sku(
    State(st): State<Arc<AppState>>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<CreateSkuBody>,
) -> Result<Response, ApiError> {
    let req = allot_core::validate::create_sku(body.value, &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    Ok(respond(StatusCode::CREATED, st.store.create_sku(req, idem).await?))
}

#[utoipa::path(get, path = "/v1/skus/{sku}", params(("sku" = String, Path)),
    responses((status = 200, body = Sku), (status = 404, body = ErrorBody)))]
async fn get_sku(State(st): State<Arc<AppState>>, Path(sku): Path<String>) -> Result<Json<Sku>, ApiError> {
    sku_path(&sku, &st)?;
    Ok(Json(st.store.get_sku(&sku).await?))
}

#[utoipa::path(post, path = "/v1/skus/{sku}/adjustments", request_body = AdjustmentBody, params(("sku" = String, Path)),
    responses((status = 200, body = Sku), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn adjust_sku(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<AdjustmentBody>,
) -> Result<Response, ApiError> {
    let req = allot_core::validate::adjustment(&sku, body.value, &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::OK);
    let result = st.store.adjust(req, idem).await?;
    Ok(respond(StatusCode::OK, result))
}

/// `GET /v1/skus/{sku}/ledger` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct LedgerPage {
    /// Entries with `id > after`, oldest first.
    pub entries: Vec<LedgerEntry>,
}

fn query_i64(q: &HashMap<String, String>, name: &str, default: i64) -> Result<i64, ApiError> {
    match q.get(name) {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|_| AllotError::invalid(format!("query parameter `{name}` must be an integer")).into()),
    }
}

#[utoipa::path(get, path = "/v1/skus/{sku}/ledger",
    params(("sku" = String, Path), ("after" = Option<i64>, Query), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = LedgerPage), (status = 404, body = ErrorBody)))]
async fn ledger(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<LedgerPage>, ApiError> {
    sku_path(&sku, &st)?;
    let after = query_i64(&q, "after", 0)?;
    let limit = allot_core::validate::page_size(query_i64(&q, "limit", 100)?, &st.limits)?;
    Ok(Json(LedgerPage {
        entries: st.store.ledger(&sku, after, limit).await?,
    }))
}

#[utoipa::path(post, path = "/v1/allocations", request_body = AllocationBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Allocation), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody), (status = 503, body = ErrorBody)))]
async fn create_allocation(
    State(st): State<Arc<AppState>>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<AllocationBody>,
) -> Result<Response, ApiError> {
    let strategy = stock_strategy(&st, body.value.strategy.as_deref())?;
    let id = uuid::Uuid::new_v4().to_string();
    let req = allot_core::validate::allocation(id, body.value, strategy, &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    let result = st.store.allocate(req, idem).await;
    count_outcome("allot_allocations_total", strategy.name(), "allocated", &result);
    Ok(respond(StatusCode::CREATED, result?))
}

/// The request's stock strategy, or the server default; one the store cannot run (a Redis
/// strategy without Redis, `naive` without the flag) is `unsupported_strategy`.
fn stock_strategy(st: &AppState, named: Option<&str>) -> Result<Strategy, ApiError> {
    let Some(s) = named else {
        return Ok(st.default_strategy);
    };
    let strategy = s
        .parse::<Strategy>()
        .map_err(|_| AllotError::unsupported_strategy(s, st.store.backend().name()))?;
    st.store.require(strategy)?;
    Ok(strategy)
}

/// Ids in paths are server-made UUIDs; anything longer is simply unknown.
fn id_path(kind: &'static str, id: &str) -> Result<(), ApiError> {
    if id.len() > 64 {
        return Err(AllotError::not_found(kind, id).into());
    }
    Ok(())
}

#[utoipa::path(post, path = "/v1/holds", request_body = HoldBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Hold), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 422, body = ErrorBody), (status = 503, body = ErrorBody)))]
async fn create_hold(
    State(st): State<Arc<AppState>>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<HoldBody>,
) -> Result<Response, ApiError> {
    let strategy = stock_strategy(&st, body.value.strategy.as_deref())?;
    let id = uuid::Uuid::new_v4().to_string();
    let req = allot_core::validate::hold(id, body.value, strategy, &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    let result = st.store.create_hold(req, idem).await;
    count_outcome("allot_holds_total", strategy.name(), "held", &result);
    Ok(respond(StatusCode::CREATED, result?))
}

fn count_outcome<T>(
    metric: &'static str,
    strategy: &'static str,
    ok: &'static str,
    result: &allot_core::Result<Executed<T>>,
) {
    let outcome = match result {
        Ok(Executed::Fresh(_)) => ok,
        Ok(Executed::Replayed(_)) => "replayed",
        Err(e) => e.code(),
    };
    metrics::counter!(metric, "strategy" => strategy, "outcome" => outcome).increment(1);
}

#[utoipa::path(get, path = "/v1/holds/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Hold, description = "status is effective: an overdue hold reads `expired`"),
        (status = 404, body = ErrorBody)))]
async fn get_hold(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Hold>, ApiError> {
    id_path("hold", &id)?;
    Ok(Json(st.store.get_hold(&id).await?))
}

#[utoipa::path(post, path = "/v1/holds/{id}/confirm", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Allocation, description = "the allocation (same id as the hold); again for a confirmed hold"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "hold_expired or hold_released")))]
async fn confirm_hold(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
) -> Result<Response, ApiError> {
    id_path("hold", &id)?;
    let idem = idempotency(key, &method, &uri, "", StatusCode::OK);
    let result = st.store.confirm_hold(&id, idem).await;
    let outcome = result.as_ref().map(|_| "confirmed").unwrap_or_else(|e| e.code());
    metrics::counter!("allot_hold_finishes_total", "outcome" => outcome).increment(1);
    Ok(respond(StatusCode::OK, result?))
}

#[utoipa::path(post, path = "/v1/holds/{id}/release", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Hold, description = "released (or already released / expired)"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "hold_confirmed")))]
async fn release_hold(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
) -> Result<Response, ApiError> {
    id_path("hold", &id)?;
    let idem = idempotency(key, &method, &uri, "", StatusCode::OK);
    let result = st.store.release_hold(&id, idem).await;
    let outcome = result.as_ref().map(|_| "released").unwrap_or_else(|e| e.code());
    metrics::counter!("allot_hold_finishes_total", "outcome" => outcome).increment(1);
    Ok(respond(StatusCode::OK, result?))
}

#[utoipa::path(post, path = "/v1/skus/{sku}/units", request_body = UnitsBody, params(("sku" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = UnitsCreated), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "already_exists: a serial the SKU has")))]
async fn add_units(
    State(st): State<Arc<AppState>>,
    Path(sku): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<UnitsBody>,
) -> Result<Response, ApiError> {
    let req = allot_core::validate::add_units(&sku, body.value, st.store.now(), &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    Ok(respond(StatusCode::CREATED, st.store.add_units(req, idem).await?))
}

#[utoipa::path(post, path = "/v1/unit-allocations", request_body = UnitAllocationBody,
    params(("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = UnitAllocation), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "insufficient_stock or contention"), (status = 503, body = ErrorBody)))]
async fn claim_units(
    State(st): State<Arc<AppState>>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<UnitAllocationBody>,
) -> Result<Response, ApiError> {
    let strategy = match body.value.strategy.as_deref() {
        None => st.store.default_unit_strategy(),
        Some(s) => UnitStrategy::parse(s)
            .filter(|u| st.store.supports_units(*u))
            .ok_or_else(|| AllotError::unsupported_strategy(s, st.store.backend().name()))?,
    };
    let id = uuid::Uuid::new_v4().to_string();
    let req = allot_core::validate::unit_claim(id, body.value, strategy, &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    let result = st.store.claim_units(req, idem).await;
    count_outcome("allot_unit_claims_total", strategy.name(), "claimed", &result);
    Ok(respond(StatusCode::CREATED, result?))
}

#[utoipa::path(post, path = "/v1/resources/{resource}/bookings", request_body = BookingBody,
    params(("resource" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Booking), (status = 400, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "booking_overlap, with conflicting_booking_id when known")))]
async fn create_booking(
    State(st): State<Arc<AppState>>,
    Path(resource): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<BookingBody>,
) -> Result<Response, ApiError> {
    let strategy = match body.value.strategy.as_deref() {
        None => st.store.default_booking_strategy(),
        Some(s) => BookingStrategy::parse(s)
            .filter(|b| st.store.supports_booking(*b))
            .ok_or_else(|| AllotError::unsupported_strategy(s, st.store.backend().name()))?,
    };
    let id = uuid::Uuid::new_v4().to_string();
    let req = allot_core::validate::booking(id, &resource, body.value, strategy, &st.limits)?;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    let result = st.store.book(req, idem).await;
    count_outcome("allot_bookings_total", strategy.name(), "booked", &result);
    Ok(respond(StatusCode::CREATED, result?))
}

/// `GET /v1/resources/{resource}/bookings` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct BookingList {
    /// Blocking bookings overlapping the window, by start.
    pub bookings: Vec<Booking>,
}

/// `GET /v1/resources/{resource}/availability` body.
#[derive(Serialize, Deserialize, ToSchema)]
pub struct Availability {
    /// The resource.
    pub resource: String,
    /// Window start (UTC).
    pub from: chrono::DateTime<chrono::Utc>,
    /// Window end (UTC).
    pub to: chrono::DateTime<chrono::Utc>,
    /// The free half-open gaps of the window.
    pub free: Vec<FreeSlot>,
}

fn booking_window(
    resource: &str,
    q: &HashMap<String, String>,
    st: &AppState,
) -> Result<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>), ApiError> {
    allot_core::validate::name("resource", resource, &st.limits)?;
    let get = |k: &str| {
        q.get(k)
            .map(String::as_str)
            .ok_or_else(|| ApiError::from(AllotError::invalid(format!("query parameter `{k}` is required"))))
    };
    Ok(allot_core::validate::window(
        "from",
        get("from")?,
        "to",
        get("to")?,
        &st.limits,
    )?)
}

#[utoipa::path(get, path = "/v1/resources/{resource}/bookings",
    params(("resource" = String, Path), ("from" = String, Query, description = "RFC 3339 with offset"),
        ("to" = String, Query, description = "RFC 3339 with offset")),
    responses((status = 200, body = BookingList), (status = 400, body = ErrorBody)))]
async fn list_bookings(
    State(st): State<Arc<AppState>>,
    Path(resource): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<BookingList>, ApiError> {
    let (from, to) = booking_window(&resource, &q, &st)?;
    let limit = allot_core::validate::page_size(query_i64(&q, "limit", 100)?, &st.limits)?;
    Ok(Json(BookingList {
        bookings: st.store.list_bookings(&resource, from, to, limit).await?,
    }))
}

#[utoipa::path(get, path = "/v1/resources/{resource}/availability",
    params(("resource" = String, Path), ("from" = String, Query, description = "RFC 3339 with offset"),
        ("to" = String, Query, description = "RFC 3339 with offset")),
    responses((status = 200, body = Availability), (status = 400, body = ErrorBody)))]
async fn availability(
    State(st): State<Arc<AppState>>,
    Path(resource): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Availability>, ApiError> {
    let (from, to) = booking_window(&resource, &q, &st)?;
    let max = st.limits.max_page_size;
    let bookings = st.store.list_bookings(&resource, from, to, max + 1).await?;
    if bookings.len() > max as usize {
        return Err(AllotError::LimitExceeded {
            limit: "max_page_size",
            max: u64::from(max),
            message: "the window holds more bookings than that; ask for a shorter one".into(),
        }
        .into());
    }
    let blocking: Vec<_> = bookings.iter().map(|b| (b.start, b.end)).collect();
    Ok(Json(Availability {
        free: allot_core::booking::free_gaps(from, to, &blocking),
        resource,
        from,
        to,
    }))
}

#[utoipa::path(get, path = "/v1/bookings/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Booking), (status = 404, body = ErrorBody)))]
async fn get_booking(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Booking>, ApiError> {
    id_path("booking", &id)?;
    Ok(Json(st.store.get_booking(&id).await?))
}

#[utoipa::path(delete, path = "/v1/bookings/{id}", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking, description = "cancelled (the range is free); unchanged if it no longer blocked"),
        (status = 404, body = ErrorBody)))]
async fn cancel_booking(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
) -> Result<Response, ApiError> {
    id_path("booking", &id)?;
    let idem = idempotency(key, &method, &uri, "", StatusCode::OK);
    Ok(respond(StatusCode::OK, st.store.cancel_booking(&id, idem).await?))
}

#[utoipa::path(post, path = "/v1/bookings/{id}/confirm", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "booking_expired, booking_cancelled or booking_released")))]
async fn confirm_booking(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
) -> Result<Response, ApiError> {
    id_path("booking", &id)?;
    let idem = idempotency(key, &method, &uri, "", StatusCode::OK);
    Ok(respond(StatusCode::OK, st.store.confirm_booking(&id, idem).await?))
}

#[utoipa::path(post, path = "/v1/bookings/{id}/release", params(("id" = String, Path),
        ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 200, body = Booking, description = "released (or unchanged if it no longer blocked)"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "booking_confirmed")))]
async fn release_booking(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
) -> Result<Response, ApiError> {
    id_path("booking", &id)?;
    let idem = idempotency(key, &method, &uri, "", StatusCode::OK);
    Ok(respond(StatusCode::OK, st.store.release_booking(&id, idem).await?))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/jobs", request_body = EnqueueBody,
    params(("queue" = String, Path), ("Idempotency-Key" = Option<String>, Header, description = "1..=255 printable ASCII")),
    responses((status = 201, body = Enqueued), (status = 400, body = ErrorBody)))]
async fn enqueue_jobs(
    State(st): State<Arc<AppState>>,
    Path(queue): Path<String>,
    method: Method,
    uri: Uri,
    IdempotencyKey(key): IdempotencyKey,
    body: JsonBody<EnqueueBody>,
) -> Result<Response, ApiError> {
    let req = allot_core::validate::enqueue(&queue, body.value, st.store.now(), &st.limits)?;
    let n = req.jobs.len() as u64;
    let idem = idempotency(key, &method, &uri, &body.canonical, StatusCode::CREATED);
    let result = st.store.enqueue(req, idem).await?;
    metrics::counter!("allot_jobs_enqueued_total", "queue" => queue).increment(n);
    Ok(respond(StatusCode::CREATED, result))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/claims", request_body = ClaimBody, params(("queue" = String, Path)),
    responses((status = 200, body = Claimed), (status = 400, body = ErrorBody)))]
async fn claim_jobs(
    State(st): State<Arc<AppState>>,
    Path(queue): Path<String>,
    body: JsonBody<ClaimBody>,
) -> Result<Json<Claimed>, ApiError> {
    let strategy = match body.value.strategy.as_deref() {
        None => st.store.default_claim_strategy(),
        Some(s) => ClaimStrategy::parse(s)
            .filter(|c| st.store.supports_claim(*c))
            .ok_or_else(|| AllotError::unsupported_strategy(s, st.store.backend().name()))?,
    };
    let req = allot_core::validate::claim(&queue, body.value, strategy, &st.limits)?;
    let started = std::time::Instant::now();
    let deadline = started + std::time::Duration::from_millis(req.wait_ms as u64);
    // Long-poll: claim, and while empty and before the deadline, wait for a signal and retry.
    let jobs = loop {
        let jobs = st.store.claim_jobs(req.clone()).await?;
        let now = std::time::Instant::now();
        if !jobs.is_empty() || now >= deadline {
            break jobs;
        }
        st.store.wait_for_jobs(&queue, deadline - now).await;
    };
    metrics::histogram!("allot_job_claim_seconds", "strategy" => strategy.name())
        .record(started.elapsed().as_secs_f64());
    metrics::counter!("allot_jobs_claimed_total", "queue" => queue).increment(jobs.len() as u64);
    Ok(Json(Claimed { jobs }))
}

fn job_id(id: &str) -> Result<i64, ApiError> {
    id.parse::<i64>().map_err(|_| AllotError::not_found("job", id).into())
}

fn job_outcome(outcome: &'static str, result: &allot_core::Result<JobStatus>) {
    let outcome = match result {
        Ok(_) => outcome,
        Err(e) => e.code(),
    };
    metrics::counter!("allot_job_outcomes_total", "outcome" => outcome).increment(1);
}

#[utoipa::path(post, path = "/v1/jobs/{id}/complete", request_body = LeaseBody, params(("id" = i64, Path)),
    responses((status = 200, body = JobStatus), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "lease_lost: the token is stale; nothing changed")))]
async fn complete_job(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: JsonBody<LeaseBody>,
) -> Result<Json<JobStatus>, ApiError> {
    let id = job_id(&id)?;
    let result = st.store.complete_job(id, &body.value.lease_token).await;
    job_outcome("completed", &result);
    Ok(Json(result?))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/fail", request_body = LeaseBody, params(("id" = i64, Path)),
    responses((status = 200, body = JobStatus, description = "retryable at run_at, or discarded when out of attempts"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn fail_job(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: JsonBody<LeaseBody>,
) -> Result<Json<JobStatus>, ApiError> {
    let id = job_id(&id)?;
    let b = body.value;
    if let Some(ms) = b.retry_in_ms {
        if ms < 0 {
            return Err(AllotError::invalid("retry_in_ms must be >= 0").into());
        }
    }
    let error = b.error.unwrap_or_default();
    if error.chars().count() > st.limits.max_reason_len {
        return Err(AllotError::LimitExceeded {
            limit: "max_reason_len",
            max: st.limits.max_reason_len as u64,
            message: "error is too long".into(),
        }
        .into());
    }
    let result = st.store.fail_job(id, &b.lease_token, &error, b.retry_in_ms).await;
    job_outcome("failed", &result);
    Ok(Json(result?))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/heartbeat", request_body = LeaseBody, params(("id" = i64, Path)),
    responses((status = 200, body = JobStatus), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn heartbeat_job(
    State(st): State<Arc<AppState>>,
    Path(id): Path<String>,
    body: JsonBody<LeaseBody>,
) -> Result<Json<JobStatus>, ApiError> {
    let id = job_id(&id)?;
    let lease = allot_core::validate::lease_ms(body.value.lease_ms.unwrap_or(30_000), &st.limits)?;
    Ok(Json(st.store.heartbeat_job(id, &body.value.lease_token, lease).await?))
}

#[utoipa::path(post, path = "/v1/queues/{queue}/completions", request_body = CompletionsBody, params(("queue" = String, Path)),
    responses((status = 200, body = Completions, description = "each job completed or lease_lost on its own")))]
async fn complete_jobs(
    State(st): State<Arc<AppState>>,
    Path(queue): Path<String>,
    body: JsonBody<CompletionsBody>,
) -> Result<Json<Completions>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    let jobs = body.value.jobs;
    if jobs.is_empty() {
        return Err(AllotError::invalid("jobs must not be empty").into());
    }
    if jobs.len() > st.limits.max_batch_insert {
        return Err(AllotError::LimitExceeded {
            limit: "max_batch_insert",
            max: st.limits.max_batch_insert as u64,
            message: format!("{} completions", jobs.len()),
        }
        .into());
    }
    let done = st.store.complete_jobs(&queue, jobs).await?;
    metrics::counter!("allot_job_outcomes_total", "outcome" => "completed").increment(done.completed.len() as u64);
    metrics::counter!("allot_job_outcomes_total", "outcome" => "lease_lost").increment(done.lease_lost.len() as u64);
    Ok(Json(done))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/cancel", params(("id" = i64, Path)),
    responses((status = 200, body = JobStatus), (status = 404, body = ErrorBody)))]
async fn cancel_job(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<JobStatus>, ApiError> {
    Ok(Json(st.store.cancel_job(job_id(&id)?).await?))
}

#[utoipa::path(post, path = "/v1/jobs/{id}/retry", params(("id" = i64, Path)),
    responses((status = 200, body = JobStatus, description = "a discarded or cancelled job is available again"),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn retry_job(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<JobStatus>, ApiError> {
    Ok(Json(st.store.retry_job(job_id(&id)?).await?))
}

#[utoipa::path(get, path = "/v1/queues/{queue}/jobs",
    params(("queue" = String, Path), ("state" = String, Query, description = "e.g. discarded (the dead letters)"),
        ("after" = Option<i64>, Query), ("limit" = Option<u32>, Query)),
    responses((status = 200, body = JobList), (status = 400, body = ErrorBody)))]
async fn list_jobs(
    State(st): State<Arc<AppState>>,
    Path(queue): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<JobList>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    let state = q.get("state").map(String::as_str).unwrap_or("discarded");
    let state = JobState::parse(state).ok_or_else(|| AllotError::invalid(format!("unknown job state `{state}`")))?;
    let after = query_i64(&q, "after", 0)?;
    let limit = allot_core::validate::page_size(query_i64(&q, "limit", 100)?, &st.limits)?;
    Ok(Json(JobList {
        jobs: st.store.list_jobs(&queue, state, after, limit).await?,
    }))
}

#[utoipa::path(get, path = "/v1/queues/{queue}", params(("queue" = String, Path)),
    responses((status = 200, body = QueueCounts), (status = 400, body = ErrorBody)))]
async fn queue_counts(
    State(st): State<Arc<AppState>>,
    Path(queue): Path<String>,
) -> Result<Json<QueueCounts>, ApiError> {
    allot_core::validate::name("queue", &queue, &st.limits)?;
    let counts = st.store.queue_counts(&queue).await?;
    for (state, n) in &counts.counts {
        if matches!(state.as_str(), "available" | "scheduled" | "retryable" | "running") {
            metrics::gauge!("allot_queue_jobs", "queue" => queue.clone(), "state" => state.clone()).set(*n as f64);
        }
    }
    Ok(Json(counts))
}

#[utoipa::path(get, path = "/v1/allocations/{id}", params(("id" = String, Path)),
    responses((status = 200, body = Allocation), (status = 404, body = ErrorBody)))]
async fn get_allocation(State(st): State<Arc<AppState>>, Path(id): Path<String>) -> Result<Json<Allocation>, ApiError> {
    id_path("allocation", &id)?;
    Ok(Json(st.store.get_allocation(&id).await?))
}

#[utoipa::path(get, path = "/v1/audit",
    responses((status = 200, body = AuditReport, description = "every invariant (SKU conservation, unit claims, job states, booking overlaps) in one snapshot")))]
async fn audit(State(st): State<Arc<AppState>>) -> Result<Json<AuditReport>, ApiError> {
    Ok(Json(st.store.audit().await?))
}
