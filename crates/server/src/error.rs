//! The error body of the HTTP API (`{"error": {"code", "message", …}}`) and the mapping from domain errors to HTTP statuses.

use allot_core::error::Unsupported;
use allot_core::AllotError;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

/// `{"error": {"code": "…", "message": "…", …details}}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// The error.
    pub error: ErrorDetail,
}

/// The inner error object; details depend on the code.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Stable snake_case code (listed in README.md, "Errors").
    pub code: String,
    /// Human-readable text.
    pub message: String,
    /// `limit_exceeded`: the limit's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
    /// `limit_exceeded`: the limit's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// `insufficient_stock`: the first short SKU.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku: Option<String>,
    /// `insufficient_stock`: what it asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested: Option<i64>,
    /// `insufficient_stock`: what was available.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available: Option<i64>,
    /// `compare_failed`: the location compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// `compare_failed`: the on hand there now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_on_hand: Option<i64>,
    /// `booking_overlap`: the blocking booking in the way, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflicting_booking_id: Option<String>,
    /// `contention`: suggested wait, ms (also in `Retry-After`, seconds).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// `capacity_exceeded` / `rule_violated`: the rule (`capacity`, `min_slots`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// `capacity_exceeded`: the first slot without room.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "allot_core::support::instant::rfc3339_opt")]
    #[schema(value_type = Option<String>)]
    pub slot_start: Option<chrono::DateTime<chrono::Utc>>,
    /// `capacity_exceeded`: what that slot has free.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub free: Option<i64>,
    /// `capacity_exceeded`: the pool whose slot it is (absent: the resource's own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// `capacity_exceeded` / `rule_violated`: the reason in full, as `explain` lists it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<allot_core::booking::reason::Reason>,
    /// `forbidden` for a key: the scope it lacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_scope: Option<String>,
    /// A hold's refusal about one of its lines (`insufficient_stock`, `wrong_tracking`,
    /// `not_found` of a SKU): that line's index in the request's `lines` (`lines[i]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The request's id (as in the `x-request-id` header): what to quote to an operator, who
    /// finds the details in the server log under it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// Longest error message sent, chars (a message quoting input never grows with it).
pub const MAX_MESSAGE_CHARS: usize = 512;

impl ErrorDetail {
    /// A detail with only `code` and `message` (cut to [`MAX_MESSAGE_CHARS`]).
    pub fn new(code: &str, message: String) -> Self {
        let message = if message.chars().count() > MAX_MESSAGE_CHARS {
            message
                .chars()
                .take(MAX_MESSAGE_CHARS)
                .chain(std::iter::once('…'))
                .collect()
        } else {
            message
        };
        ErrorDetail {
            code: code.to_string(),
            message,
            limit: None,
            max: None,
            sku: None,
            requested: None,
            available: None,
            location: None,
            current_on_hand: None,
            conflicting_booking_id: None,
            retry_after_ms: None,
            rule: None,
            slot_start: None,
            free: None,
            pool: None,
            reason: None,
            missing_scope: None,
            line: None,
            request_id: crate::request_id::request_id(),
        }
    }
}

/// A domain error on its way out as an HTTP response.
#[derive(Debug)]
pub struct ApiError(pub AllotError);

impl From<AllotError> for ApiError {
    fn from(e: AllotError) -> Self {
        ApiError(e)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.0, operator_hint(&self.0))
    }
}

impl std::error::Error for ApiError {}

/// HTTP status of a domain error, per the HTTP contract.
pub fn status_of(e: &AllotError) -> StatusCode {
    match e {
        AllotError::OnLine { error, .. } => status_of(error),
        AllotError::InvalidRequest(_)
        | AllotError::UnsupportedStrategy { .. }
        | AllotError::IdempotencyKeyRequired { .. } => StatusCode::BAD_REQUEST,
        AllotError::LimitExceeded { limit, .. } if *limit == "max_body_bytes" => StatusCode::PAYLOAD_TOO_LARGE,
        AllotError::LimitExceeded { .. } => StatusCode::BAD_REQUEST,
        AllotError::NotFound { .. } => StatusCode::NOT_FOUND,
        AllotError::AlreadyExists { .. }
        | AllotError::InsufficientStock { .. }
        | AllotError::CompareFailed { .. }
        | AllotError::WrongTracking { .. }
        | AllotError::ExceedsAllocation { .. }
        | AllotError::ExceedsIncoming { .. }
        | AllotError::ExceedsState { .. }
        | AllotError::Contention { .. }
        | AllotError::HoldNotActive { .. }
        | AllotError::BookingOverlap { .. }
        | AllotError::CapacityExceeded(_)
        | AllotError::BookingNotActive { .. }
        | AllotError::LeaseLost { .. }
        | AllotError::Fenced { .. }
        | AllotError::IdempotencyKeyInUse => StatusCode::CONFLICT,
        AllotError::IdempotencyKeyReused
        | AllotError::SameLocation(_)
        | AllotError::EmptyRange { .. }
        | AllotError::DuplicateSku(_)
        | AllotError::RuleViolated(_)
        | AllotError::Unprocessable { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        AllotError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        AllotError::Forbidden(_) | AllotError::MissingScope { .. } => StatusCode::FORBIDDEN,
        AllotError::Unauthenticated(_) => StatusCode::UNAUTHORIZED,
        AllotError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
        AllotError::Unavailable(_) | AllotError::OutcomeUnknown => StatusCode::SERVICE_UNAVAILABLE,
        AllotError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// How the operator of this server changes what `e` refused, where a flag does it.
fn operator_hint(e: &AllotError) -> &'static str {
    match e {
        AllotError::UnsupportedStrategy { reason, .. } => match reason {
            Unsupported::NeedsRedis => " (start allot serve on PostgreSQL with --redis-url)",
            Unsupported::Unsafe => " (start allot serve with --allow-unsafe-strategies)",
            _ => "",
        },
        _ => "",
    }
}

/// What a client is told of `e`: its own text for a client error; for our faults and an
/// unavailable dependency, a fixed sentence (driver and SQL text stay in the server log).
fn public_message(e: &AllotError) -> String {
    match e {
        AllotError::Internal(_) => "internal error; the server log has the details under this request_id".into(),
        AllotError::Unavailable(_) => "the database or Redis is unavailable; nothing was applied, retry later".into(),
        _ => format!("{e}{}", operator_hint(e)),
    }
}

/// Build the error body of a domain error.
pub fn body_of(e: &AllotError) -> ErrorBody {
    let e = e.unlined();
    let mut d = ErrorDetail::new(e.code(), public_message(e));
    match e {
        AllotError::LimitExceeded { limit, max, .. } => {
            d.limit = Some((*limit).to_string());
            d.max = Some(*max);
        }
        AllotError::InsufficientStock {
            sku,
            requested,
            available,
        } => {
            d.sku = Some(sku.clone());
            d.requested = Some(*requested);
            d.available = Some(*available);
        }
        AllotError::Contention { retry_after_ms, .. } | AllotError::RateLimited { retry_after_ms } => {
            d.retry_after_ms = Some(*retry_after_ms)
        }
        AllotError::WrongTracking { sku, .. } => d.sku = Some(sku.clone()),
        AllotError::ExceedsAllocation { sku, requested, left }
        | AllotError::ExceedsIncoming {
            sku, requested, left, ..
        }
        | AllotError::ExceedsState {
            sku, requested, left, ..
        } => {
            d.sku = Some(sku.clone());
            d.requested = Some(*requested);
            d.available = Some(*left);
        }
        AllotError::CompareFailed {
            sku, location, current, ..
        } => {
            d.sku = Some(sku.clone());
            d.location = Some(location.clone());
            d.current_on_hand = Some(*current);
        }
        AllotError::MissingScope { scope } => d.missing_scope = Some((*scope).to_string()),
        AllotError::BookingOverlap { conflicting_booking_id } => {
            d.conflicting_booking_id = conflicting_booking_id.clone()
        }
        AllotError::CapacityExceeded(r) | AllotError::RuleViolated(r) => {
            d.rule = Some(r.rule().to_string());
            if let allot_core::booking::reason::Reason::Capacity {
                slot_start,
                free,
                requested,
                pool,
            } = r.as_ref()
            {
                d.slot_start = Some(*slot_start);
                d.free = Some(*free);
                d.requested = Some(*requested);
                d.pool = pool.clone();
            }
            d.reason = Some(r.as_ref().clone());
        }
        _ => {}
    }
    ErrorBody { error: d }
}

/// The answer to a panic of a route ([`panicked`]) for `tower_http`'s `CatchPanic`, as a
/// type of its own (a function pointer there trips the compiler's higher-ranked lifetimes
/// in the connection task).
#[derive(Clone, Copy)]
pub struct Panicked;

impl tower_http::catch_panic::ResponseForPanic for Panicked {
    type ResponseBody = axum::body::Body;

    fn response_for_panic(&mut self, panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
        panicked(panic)
    }
}

/// The answer to a request whose handler panicked (tower-http's `CatchPanicLayer`): `500
/// internal` with the request id, as any fault of ours; what the panic said goes to the log
/// only, never to the client.
pub(crate) fn panicked(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let what = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("(not text)");
    ApiError(AllotError::Internal(format!("a handler panicked: {what}"))).into_response()
}

/// The SKU a refusal is about, when it is about one line's SKU.
pub fn sku_of(e: &AllotError) -> Option<&str> {
    match e {
        AllotError::InsufficientStock { sku, .. } | AllotError::WrongTracking { sku, .. } => Some(sku),
        AllotError::NotFound { kind: "sku", id } => Some(id),
        _ => None,
    }
}

/// The index in `skus` (a request's lines' SKUs, in its order) of the line refusal `e` is
/// about: the line it names ([`AllotError::OnLine`]: a hold's booking line), else the line of
/// the SKU it names.
pub fn line_of(e: &AllotError, skus: &[String]) -> Option<usize> {
    match e.line() {
        Some(line) => Some(line).filter(|l| *l < skus.len()),
        None => sku_of(e).and_then(|s| skus.iter().position(|x| x == s)),
    }
}

/// A refusal of a request with lines (a hold), naming the line it is about: the index in
/// `skus` (the request's lines' SKUs, in its order) of the SKU the error names.
#[derive(Debug)]
pub struct LineError {
    /// The refusal.
    pub error: AllotError,
    /// `lines[i]`, when the refusal names one line's SKU.
    pub line: Option<usize>,
}

impl LineError {
    /// `error`, naming its line among `skus` (the request's lines' SKUs, in order).
    pub fn new(error: AllotError, skus: &[String]) -> Self {
        let line = line_of(&error, skus);
        LineError { error, line }
    }
}

impl From<AllotError> for LineError {
    fn from(error: AllotError) -> Self {
        LineError { error, line: None }
    }
}

impl IntoResponse for LineError {
    fn into_response(self) -> Response {
        let mut body = body_of(&self.error);
        body.error.line = self.line;
        error_response(&self.error, body)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = body_of(&self.0);
        error_response(&self.0, body)
    }
}

/// The response of refusal `e` with `body`: its status, and `Retry-After` where it says when
/// to try again; a 5xx is logged with its request id.
fn error_response(e: &AllotError, body: ErrorBody) -> Response {
    let status = status_of(e);
    if status.is_server_error() {
        let request_id = crate::request_id::request_id().unwrap_or_default();
        tracing::error!(error = %e, %request_id, "request failed on our side");
    }
    let mut resp = (status, axum::Json(body)).into_response();
    match e {
        AllotError::Contention { retry_after_ms, .. } | AllotError::RateLimited { retry_after_ms } => {
            let secs = retry_after_ms.div_ceil(1000).max(1);
            resp.headers_mut().insert("retry-after", HeaderValue::from(secs));
        }
        AllotError::IdempotencyKeyInUse | AllotError::Unavailable(_) | AllotError::OutcomeUnknown => {
            resp.headers_mut().insert("retry-after", HeaderValue::from(1u64));
        }
        _ => {}
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panic in a handler is a 500 in the API's error form, and what it said stays in the log.
    #[tokio::test]
    async fn a_panic_is_a_500_without_its_text() {
        let resp = panicked(Box::new("column 3 was NULL: secret detail".to_string()));
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = axum::body::to_bytes(resp.into_body(), 1 << 16).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"]["code"], "internal", "{body}");
        assert!(!body.to_string().contains("secret"), "{body}");
    }
}
