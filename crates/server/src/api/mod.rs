//! The HTTP API: the OpenAPI document, the router, and what every handler shares
//! (idempotency, responses, strategy resolution); the handlers live by resource in the
//! submodules.

mod batch;
mod bookings;
mod capacity;
mod contract;
mod events;
mod holds;
mod jobs;
mod keys;
mod kits;
mod listings;
mod locations;
pub mod openapi30;
mod query;
mod queues;
mod receiving;
pub mod routes;
mod schedules;
mod service;
mod states;
mod stats;
mod stock;
mod units;
mod webhooks;

use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;
use allot_core::store::Executed;
use allot_core::BookingStrategy;
use allot_core::Capable;
use allot_core::{
    AdjustmentBody, Allocation, AllocationBody, AllocationLine, AllocationStatus, AllotError, AuditReport,
    AuditViolation, Booking, BookingBody, BookingOverlap, BookingStatus, ClaimBody, Claimed, Completion, Completions,
    CompletionsBody, ConfirmBody, CreateSkuBody, EnqueueBody, Enqueued, ExtendBody, FreeSlot, Hold, HoldBody, HoldKind,
    HoldStatus, JobList, JobState, JobStatus, JobView, LeaseBody, LeasedJob, LedgerEntry, LedgerKind, Level, LineBody,
    Location, LocationBody, NewJob, NewUnit, PlacementBody, QueueCounts, Result, Return, ReturnBody, ReturnLine,
    ReturnLineBody, ReturnState, SetLevelBody, Sku, Source, Strategy, Transfer, TransferBody, Unit, UnitAllocation,
    UnitAllocationBody, UnitStatus, UnitStrategy, UnitView, UnitsBody, UnitsCreated,
};
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use serde::Serialize;
use std::sync::Arc;
use utoipa::OpenApi;
use utoipa_swagger_ui::SwaggerUi;

/// The OpenAPI document's info and components; its paths come from the route table
/// ([`routes::table`]), so an operation is documented exactly when it is routed.
#[derive(OpenApi)]
#[openapi(
    info(title = "allot", description = "Allocation of scarce things under contention."),
    components(schemas(
        Sku,
        allot_core::auto::AutoView,
        allot_core::auto::Tier,
        allot_core::operations::BatchBody,
        allot_core::operations::OperationBody,
        batch::BatchResults,
        batch::OperationResult,
        allot_core::event::Event,
        allot_core::event::EventType,
        allot_core::event::EventPage,
        allot_core::model::SkuSettingsBody,
        allot_core::webhook::WebhookBody,
        allot_core::webhook::Webhook,
        allot_core::webhook::WebhookStatus,
        allot_core::webhook::CreatedWebhook,
        webhooks::WebhookList,
        webhooks::RedeliverBody,
        webhooks::Redelivered,
        listings::SkuPage,
        listings::AllocationPage,
        listings::HoldPage,
        listings::UnitPage,
        UnitView,
        UnitStatus,
        LedgerEntry,
        LedgerKind,
        AllocationStatus,
        stock::LedgerPage,
        Allocation,
        AllocationLine,
        LineBody,
        AllocationBody,
        CreateSkuBody,
        AdjustmentBody,
        Location,
        LocationBody,
        locations::LocationList,
        Level,
        Source,
        PlacementBody,
        allot_core::PlacementPolicy,
        TransferBody,
        Transfer,
        SetLevelBody,
        ReturnBody,
        ReturnLineBody,
        Return,
        ReturnLine,
        ReturnState,
        ErrorBody,
        service::Health,
        AuditReport,
        AuditViolation,
        allot_core::JobViolation,
        Hold,
        HoldBody,
        ExtendBody,
        ConfirmBody,
        allot_core::hold::ConfirmLine,
        allot_core::hold::ConfirmLineBody,
        allot_core::hold::ConfirmBookingLine,
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
        BookingStrategy,
        UnitStrategy,
        allot_core::Strategy,
        allot_core::TakenWith,
        bookings::BookingList,
        bookings::Availability,
        capacity::SlotsSet,
        allot_core::booking::capacity::Resource,
        allot_core::booking::capacity::ResourceBody,
        allot_core::booking::capacity::Pool,
        allot_core::booking::capacity::PoolBody,
        allot_core::booking::capacity::SlotCapacityBody,
        allot_core::booking::rules::Rules,
        allot_core::booking::rules::RulesBody,
        allot_core::booking::rules::Closed,
        allot_core::booking::rules::ClosedBody,
        allot_core::booking::reason::Reason,
        allot_core::booking::reason::Explain,
        allot_core::booking::reason::SlotAvailability,
        allot_core::booking::RescheduleBookingBody,
        FreeSlot,
        BookingOverlap,
        NewJob,
        allot_core::job::depend::OnFailedDependency,
        allot_core::job::batch::JobBatchBody,
        allot_core::job::batch::JobBatchMade,
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
        JobList,
        allot_core::access::Scope,
        allot_core::access::ApiKey,
        allot_core::access::NewKeyBody,
        keys::CreatedKey,
        keys::KeyList,
        keys::CurrentKey,
        stats::Stats,
        stats::JobTotals,
        stats::ServiceHealth,
        stats::InstanceView,
        allot_core::instance::Instance,
        crate::recent::RequestBucket,
        crate::recent::AllocationOutcomes
    ))
)]
pub struct ApiDoc;

/// Build the router: every route, then (inside out) a panic of a route caught as a 500 in the API's error form (never a dropped connection), and the edge (request id,
/// Host/Origin allow-lists, load shedding beyond `max_concurrent_requests`, the access guard
/// — outside the panic catch, as the rest of the edge —, the request timeout, JSON errors,
/// request metrics, the body read in full within `max_body_bytes`, which the body extractors
/// take from there) — see [`crate::boundary`] and [`crate::http`].
pub fn router(state: Arc<AppState>) -> crate::edge_layer::App {
    // One table: the routes and the operations served at /openapi.json come from it together.
    let (routes, api) = routes::table().split_for_parts();
    let admissions = crate::admit::Admissions::of(&api);
    let documents = Router::new()
        .merge(SwaggerUi::new("/docs").config(utoipa_swagger_ui::Config::new(["/openapi.json"])))
        .merge(
            Router::new()
                .route("/openapi.json", get(served_document))
                .route("/openapi-3.0.json", get(served_document_30))
                .with_state(Arc::new((state.access.clone(), contract::Documents::of(&state, api)))),
        )
        .merge(crate::console::routes())
        .route_layer(crate::edge_layer::Routed);
    let edge = edge(&state, admissions);
    let routes = routes
        .merge(documents)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    // In front of the router: the edge, then a panic caught as a 500. Not `Router::layer`,
    // which boxes each route again per call (`allot bench cost`); no `DefaultBodyLimit`: the
    // edge reads every body within `max_body_bytes` before the route.
    crate::edge_layer::App::new(edge, routes)
}

/// The edge's configuration ([`crate::boundary::Edge`]) from the server's.
fn edge(state: &Arc<AppState>, admissions: crate::admit::Admissions) -> Arc<crate::boundary::Edge> {
    let http = state.http.clone();
    Arc::new(crate::boundary::Edge {
        origins: http.origins,
        permits: Arc::new(tokio::sync::Semaphore::new(http.max_concurrent_requests)),
        request_timeout: std::time::Duration::from_millis(http.request_timeout_ms),
        body_timeout: std::time::Duration::from_millis(http.body_read_timeout_ms),
        max_body_bytes: state.limits.max_body_bytes,
        body_permits: Arc::new(tokio::sync::Semaphore::new(http.max_concurrent_requests)),
        max_uri_bytes: http.max_uri_bytes,
        max_header_bytes: http.max_header_bytes,
        recent: state.recent.clone(),
        access: state.access.clone(),
        admissions,
    })
}

/// `GET /openapi.json`: the document of what this server enforces now — security optional
/// while it answers without keys, required once it needs them (the same check the guard makes).
async fn served_document(State(docs): State<Arc<(Arc<crate::access::Access>, contract::Documents)>>) -> Response {
    let (access, docs) = &*docs;
    let body = match access.keys_required().await {
        Ok(false) => docs.open.clone(),
        _ => docs.keyed.clone(),
    };
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `GET /openapi-3.0.json`: the same document as OpenAPI 3.0.3, for generators that cannot
/// read 3.1.
async fn served_document_30(State(docs): State<Arc<(Arc<crate::access::Access>, contract::Documents)>>) -> Response {
    let (access, docs) = &*docs;
    let body = match access.keys_required().await {
        Ok(false) => docs.open_30.clone(),
        _ => docs.keyed_30.clone(),
    };
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `405` for a path that exists without the request's method (axum adds `Allow`; the edge
/// makes it the JSON error form), counted under the route it matched (the route layer that
/// tells the edge, `Routed`, wraps only the methods a route has).
async fn method_not_allowed(req: axum::extract::Request) -> StatusCode {
    crate::request_id::routed(&req);
    StatusCode::METHOD_NOT_ALLOWED
}

async fn not_found(uri: Uri) -> ApiError {
    AllotError::not_found("route", uri.path()).into()
}

/// The response of an idempotent request: fresh (rendered exactly as it was stored) or
/// replayed (stored status and body, `Idempotent-Replayed: true`).
fn respond<T: Serialize>(status: StatusCode, ex: Executed<T>) -> Response {
    let (status, body, replayed) = answer_parts(status, ex);
    // Made directly: `(status, headers, Vec<u8>).into_response()` set the bytes' own content
    // type first, then replaced it; room for the headers the edge adds (`allot bench cost`).
    let mut resp = Response::new(axum::body::Body::from(body));
    *resp.status_mut() = status;
    let headers = resp.headers_mut();
    headers.reserve(ANSWER_HEADERS);
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if replayed {
        headers.insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    resp
}

/// Headers an idempotent write's answer has room for from the start: its content type, a
/// replay's mark, the request id the edge adds.
const ANSWER_HEADERS: usize = 3;

/// Bytes reserved for an answer's body before it is written (an allocation of one line is
/// about 250).
const ANSWER_CAPACITY_BYTES: usize = 512;

/// The status, body and replay flag of an idempotent write's answer: fresh, `status` and the
/// value; replayed, the stored status and body.
fn answer_parts<T: Serialize>(status: StatusCode, ex: Executed<T>) -> (StatusCode, Vec<u8>, bool) {
    match ex {
        Executed::Fresh(v) => {
            // Room for a typical answer up front: growing from empty copies it several times.
            let mut body = Vec::with_capacity(ANSWER_CAPACITY_BYTES);
            match serde_json::to_writer(&mut body, &v) {
                Ok(()) => (status, body, false),
                Err(_) => (status, Vec::new(), false),
            }
        }
        Executed::Replayed(r) => (StatusCode::from_u16(r.code).unwrap_or(StatusCode::OK), r.body, true),
    }
}

/// The request's stock strategy, or the server default; one the store cannot run (a Redis
/// strategy without Redis, `naive` without the flag) is `unsupported_strategy`.
fn stock_strategy(st: &AppState, named: Option<&str>) -> Result<Strategy, ApiError> {
    let Some(s) = named else {
        return Ok(st.default_strategy);
    };
    let strategy = s
        .parse::<Strategy>()
        .map_err(|_| AllotError::unsupported_strategy(s, st.stores.backend().name()))?;
    st.stores.require(strategy)?;
    Ok(strategy)
}

/// A stock request's strategy: the one it names (or the server default) as
/// [`stock_strategy`] resolves it, or `None` for `auto` (named, or the server's default),
/// which [`pick_auto`] resolves once the request is valid.
fn named_strategy(st: &AppState, named: Option<&str>) -> allot_core::Result<Option<Strategy>> {
    let named = named.or(st.default_auto.then_some(allot_core::auto::AUTO));
    if named == Some(allot_core::auto::AUTO) {
        return Ok(None);
    }
    Ok(Some(stock_strategy(st, named).map_err(|e| e.0)?))
}

/// A validated stock request and the strategy it names (or the server default); `None` for
/// `auto`, picked only once the request is valid ([`pick`]).
type Valid<R> = (R, Option<Strategy>);

/// A validated stock request, the strategy it runs with, and (for `auto`) its place in
/// flight, held until it is answered.
type Picked<R> = (R, Strategy, Option<crate::auto::InFlight>);

/// A validated stock request as `auto` sees it: the allocation it takes.
trait TakesStock {
    /// The allocation (an allocation itself, or what a hold takes).
    fn take_mut(&mut self) -> &mut allot_core::AllocationRequest;
}

impl TakesStock for allot_core::AllocationRequest {
    fn take_mut(&mut self) -> &mut allot_core::AllocationRequest {
        self
    }
}

impl TakesStock for allot_core::HoldRequest {
    fn take_mut(&mut self) -> &mut allot_core::AllocationRequest {
        &mut self.take
    }
}

/// The strategy of a valid stock request: the one it names, or for `auto` its first SKU's
/// (in lock order) contention now (`crate::auto`), written into it, with the request's place
/// in flight.
fn pick<R: TakesStock>(st: &AppState, tenant: &allot_core::Tenant, (mut req, named): Valid<R>) -> Picked<R> {
    let take = req.take_mut();
    let picked = match (named, take.lines.first()) {
        (None, Some(first)) => st
            .auto
            .pick(tenant.as_str(), &first.sku, auto_supported(st), st.default_strategy),
        // A named strategy, or no stock line to pick for (a hold of unit lines only).
        (named, _) => {
            let strategy = named.unwrap_or(take.strategy);
            return (req, strategy, None);
        }
    };
    let (strategy, in_flight) = picked;
    take.strategy = strategy;
    (req, strategy, Some(in_flight))
}

/// The strategies `auto` may choose on this server: those its store runs, never Redis's.
fn auto_supported(st: &AppState) -> impl Fn(Strategy) -> bool + '_ {
    |s: Strategy| st.stores.require(s).is_ok() && !s.needs_redis()
}

/// How `auto` stands for `tenant`'s `sku` on this instance.
fn auto_view(st: &AppState, tenant: &allot_core::Tenant, sku: &str) -> Option<allot_core::auto::AutoView> {
    st.auto
        .view(tenant.as_str(), sku, auto_supported(st), st.default_strategy)
}

/// A unit, booking or claim strategy named by a request, or the store's `default` when none
/// is: a name that does not `parse` or that the store does not `support` is
/// `unsupported_strategy`.
fn family_strategy<S: Copy>(
    st: &AppState,
    named: Option<&str>,
    default: S,
    parse: fn(&str) -> Option<S>,
    supported: impl Fn(S) -> bool,
) -> Result<S, ApiError> {
    let Some(s) = named else { return Ok(default) };
    parse(s)
        .filter(|x| supported(*x))
        .ok_or_else(|| AllotError::unsupported_strategy(s, st.stores.backend().name()).into())
}

/// `400` naming the header when a request that takes no `Idempotency-Key` carries one.
pub(super) fn refuse_key<T>(idem: Option<T>, why: &str) -> Result<(), ApiError> {
    match idem {
        Some(_) => Err(AllotError::invalid(format!("Idempotency-Key: {why}")).into()),
        None => Ok(()),
    }
}

/// A new object's id (allocation, return, hold, unit claim, booking, transfer): a UUIDv7
/// (RFC 9562, 5.7), ordered by creation within this process (`Uuid::now_v7`), the rest
/// random. Each new row's primary-key entry lands at the B-tree's right edge instead of on a
/// random leaf page: 500 allocation rows into 60 000 took 1.9–2.3 ms against 3.6–5.3 ms with
/// random (v4) ids. Ids that must not be guessed (API keys, lease tokens) stay v4.
fn new_object_id() -> String {
    // Encoded into a buffer (the same text as `to_string`, without the formatting machinery).
    let mut buf = uuid::Uuid::encode_buffer();
    uuid::Uuid::now_v7().hyphenated().encode_lower(&mut buf).to_string()
}

/// Ids in paths are server-made UUIDs; anything longer, or not printable ASCII, is simply
/// unknown (and never reaches a database).
fn id_path(kind: &'static str, id: &str) -> Result<(), ApiError> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(AllotError::not_found(kind, id).into());
    }
    Ok(())
}

/// The span of a store call (`otel.name` such as `store.allocate`), at `debug`: exported
/// only when traces are on ([`crate::telemetry`]); `strategy` is the one the call runs.
pub(super) fn store_span(name: &'static str, strategy: &'static str) -> tracing::Span {
    tracing::debug_span!("store", otel.name = name, allot.strategy = strategy)
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
    crate::metrics_layer::count(metric, [("strategy", strategy), ("outcome", outcome)]);
}
