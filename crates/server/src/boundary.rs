//! The edge every request crosses before a handler: a request id (`x-request-id`, echoed
//! when the client sent a sane one, else a new UUID), the Host and Origin allow-lists, load
//! shedding beyond `max_concurrent_requests` (a permit of one shared tokio `Semaphore`, taken
//! without waiting: `503` at once), the request timeout (`tokio::time::timeout`: `408`), and
//! the rule that every error leaves as the JSON error form of docs/api.md — also those axum makes itself
//! (an undecodable path, 405). One middleware for all of it: tower's per-route layers clone
//! their state for every request (a concurrency limit allocates anew each time), which cost
//! several percent on the hot path.
//!
//! Host and Origin (DNS rebinding and cross-site requests, OWASP "Cross-Site Request Forgery
//! Prevention Cheat Sheet", "Verifying Origin With Standard Headers"): a browser always
//! sends `Host`, and `Origin` on any cross-origin or state-changing request. A request whose
//! Host is not allowed, or whose Origin is present and not allowed, is `403 forbidden`
//! before it reaches a handler. Clients that are not browsers send no Origin and pass.

use crate::error::{ErrorBody, ErrorDetail};
use crate::request_id::{new_request_id, request_id, OnTask, RequestId, REQUEST_ID};
use crate::request_log::AdmittedAs;
use allot_core::input::echo;
use axum::body::to_bytes;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;
use tracing::Instrument;

/// Which `Host` and `Origin` values are allowed. `*` in a list allows any value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    /// Host names (no port), lower case, e.g. `localhost`, `127.0.0.1`, `[::1]`, `allot.example.com`.
    pub hosts: Vec<String>,
    /// Origins as browsers send them, without port, e.g. `http://localhost`, `https://shop.example.com`.
    pub origins: Vec<String>,
}

impl Default for Origins {
    /// Loopback names only: what `allot serve` on a laptop needs, and nothing a web page
    /// elsewhere can reach through a rebound DNS name.
    fn default() -> Self {
        let hosts = ["localhost", "127.0.0.1", "[::1]"];
        Origins {
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            origins: hosts
                .iter()
                .flat_map(|h| [format!("http://{h}"), format!("https://{h}")])
                .collect(),
        }
    }
}

impl Origins {
    fn host_allowed(&self, host: &str) -> bool {
        let name = strip_port(host);
        self.hosts.iter().any(|h| h == "*" || h.eq_ignore_ascii_case(name))
    }

    /// Whether `origin` names `target` (the request's Host, or its HTTP/2 `:authority`), a
    /// name the Host list allows by name (not by `*`): a page this server served (the
    /// console) calling it. A rebound DNS name is not in the list, so it gains nothing.
    fn same_origin(&self, origin: &str, target: Option<&str>) -> bool {
        let Some(target) = target else { return false };
        let named = self
            .hosts
            .iter()
            .any(|h| h != "*" && h.eq_ignore_ascii_case(strip_port(target)));
        named
            && origin
                .split_once("://")
                .is_some_and(|(_, a)| a.eq_ignore_ascii_case(target))
    }

    fn origin_allowed(&self, origin: &str) -> bool {
        let o = strip_port(origin);
        self.origins.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(o))
    }

    /// `Err(message)` when the request's Host or Origin is not allowed (an Origin naming the
    /// request's own allowed Host is: a page of this server calling it). Every name the
    /// request gives for its target is checked: its one `Host` header (a second one is
    /// refused, so a permitted first cannot cover another), and the authority of its URI (an
    /// HTTP/2 `:authority`, or an HTTP/1.1 absolute-form target); a request naming none is
    /// refused unless it is HTTP/1.0, which has no `Host` (RFC 9112 §3.2: HTTP/1.1 requires
    /// it; a browser always sends it, so the DNS-rebinding defence loses nothing; load
    /// balancers' HTTP/1.0 health checks keep working).
    ///
    /// The refusal is `400 invalid_request` for a malformed request (no host, two `Host`
    /// headers: RFC 9112 §3.2 says a server MUST answer those 400) and `403 forbidden` for a
    /// well-formed one naming a host or origin this server does not allow.
    pub fn check(&self, req: &Request) -> Result<(), (StatusCode, &'static str, String)> {
        let malformed = |m: &str| (StatusCode::BAD_REQUEST, "invalid_request", m.to_string());
        let forbidden = |m: String| (StatusCode::FORBIDDEN, "forbidden", m);
        let (uri, headers) = (req.uri(), req.headers());
        let mut hosts = headers.get_all(header::HOST).iter();
        let host = hosts.next().map(|h| h.to_str().unwrap_or("\u{fffd}"));
        if hosts.next().is_some() {
            return Err(malformed("two Host headers: send one"));
        }
        // An authority may carry user info (`user@host`): the host is after the last `@`.
        let authority = uri.authority().map(|a| a.as_str().rsplit('@').next().unwrap_or(""));
        if host.is_none() && authority.is_none() && req.version() != axum::http::Version::HTTP_10 {
            return Err(malformed("the request names no host (Host header or :authority)"));
        }
        if let Some(h) = host.into_iter().chain(authority).find(|h| !self.host_allowed(h)) {
            return Err(forbidden(format!(
                "Host `{}` is not allowed (see --allowed-hosts)",
                echo(h)
            )));
        }
        if let Some(o) = headers.get(header::ORIGIN) {
            let o = o.to_str().unwrap_or("");
            if !self.same_origin(o, host.or(authority)) && !self.origin_allowed(o) {
                return Err(forbidden(format!(
                    "Origin `{}` is not allowed (see --allowed-origins)",
                    echo(o)
                )));
            }
        }
        Ok(())
    }
}

/// `host:port` → `host`, `[v6]:port` → `[v6]`, `scheme://host:port` → `scheme://host`.
fn strip_port(s: &str) -> &str {
    // Bytes, not `str::find`: the pattern machinery cost more than the rest of the check on
    // names this short (`allot bench cost`). Every index found is of an ASCII byte, so a
    // boundary of `s`.
    let b = s.as_bytes();
    let first = b.iter().position(|&c| c == b':');
    let start = match first {
        Some(i) if b[i..].starts_with(b"://") => i + 3,
        _ => 0,
    };
    let tail = &b[start..];
    let colon = if tail.first() == Some(&b'[') {
        let close = tail.iter().position(|&c| c == b']');
        close.and_then(|i| tail[i..].iter().position(|&c| c == b':').map(|j| i + j))
    } else {
        tail.iter().rposition(|&c| c == b':')
    };
    match colon {
        Some(i) => &s[..start + i],
        None => s,
    }
}

/// What the edge needs: the allow-lists, the permits, the timeout.
pub struct Edge {
    /// Host and Origin allow-lists.
    pub origins: Origins,
    /// `max_concurrent_requests` permits.
    pub permits: Arc<tokio::sync::Semaphore>,
    /// `request_timeout_ms`.
    pub request_timeout: std::time::Duration,
    /// `body_read_timeout_ms`: how long a body may take to arrive, before any slot is taken.
    pub body_timeout: std::time::Duration,
    /// `max_body_bytes`: a longer body is `413`, before the route (the only check of it).
    pub max_body_bytes: usize,
    /// `max_uri_bytes`: a longer request target is `414`.
    pub max_uri_bytes: usize,
    /// `max_header_bytes`: more header bytes are `431`.
    pub max_header_bytes: usize,
    /// Bodies being read at once (`max_concurrent_requests` of them, apart from the request
    /// slots): what bodies waiting to arrive may hold in memory is bounded like what requests
    /// being served may; beyond it a request with a body is `503` at once.
    pub body_permits: Arc<tokio::sync::Semaphore>,
    /// Where each admitted request is counted for `GET /v1/stats`.
    pub recent: Arc<crate::recent::Recent>,
    /// The route table's operations: which route a request names and what it needs.
    pub admissions: crate::admit::Admissions,
    /// Keys and rates: the guard ([`crate::admit::guard`]) each request passes before its
    /// route.
    pub access: Arc<crate::access::Access>,
}

/// The request with its body read in full: within `body_timeout` (else `408`) and
/// `max_body_bytes` (else `413`). A request is served only once its body is here, so a client
/// that trickles its body waits without one of the `max_concurrent_requests` slots.
async fn with_body(edge: &Edge, req: &mut Request) -> Result<(), Response> {
    use axum::body::HttpBody;
    if req.body().is_end_stream() {
        return Ok(());
    }
    let Ok(_reading) = edge.body_permits.try_acquire() else {
        return Err(busy());
    };
    // The body taken out of the request, which is not moved (a copy of its head).
    let mut reading = std::pin::pin!(to_bytes(std::mem::take(req.body_mut()), edge.max_body_bytes));
    // A body that came with its head (most do) is read at the first poll, its bound made
    // only if it waits (`at_once`).
    let read = match allot_core::support::at_once::at_once(reading.as_mut()).await {
        Some(read) => Ok(read),
        None => tokio::time::timeout(edge.body_timeout, reading).await,
    };
    match read {
        Ok(Ok(bytes)) => {
            // Its one home: the body extractors take it from the request's task.
            let _ = REQUEST_ID.try_with(|t| t.body.set(bytes));
            Ok(())
        }
        Err(_) => Err(error_response(
            StatusCode::REQUEST_TIMEOUT,
            "request_timeout",
            "the request body did not arrive within body_read_timeout_ms; nothing was applied".into(),
        )),
        Ok(Err(e)) if too_long(&e) => Err(error_response(
            StatusCode::PAYLOAD_TOO_LARGE,
            "limit_exceeded",
            format!("request body too large (max_body_bytes is {})", edge.max_body_bytes),
        )),
        Ok(Err(_)) => Err(error_response(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "cannot read the request body".into(),
        )),
    }
}

/// `414` for a request target over `max_uri_bytes`, `431` for headers over
/// `max_header_bytes` (each header counted as `name: value` and its line break), as the
/// API's JSON errors with the limit named; `None` for a request within both.
fn oversized(edge: &Edge, req: &Request) -> Option<Response> {
    let target = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if target > edge.max_uri_bytes {
        let message = format!(
            "the request target is {target} bytes long (max_uri_bytes is {})",
            edge.max_uri_bytes
        );
        return Some(error_response(StatusCode::URI_TOO_LONG, "limit_exceeded", message));
    }
    let headers: usize = req.headers().iter().map(|(n, v)| n.as_str().len() + v.len() + 4).sum();
    if headers > edge.max_header_bytes {
        let message = format!(
            "the request headers are {headers} bytes (max_header_bytes is {})",
            edge.max_header_bytes
        );
        return Some(error_response(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "limit_exceeded",
            message,
        ));
    }
    None
}

/// `503 unavailable` with `Retry-After`: every slot (or every body read) is taken.
fn busy() -> Response {
    let mut r = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        "unavailable",
        "the server is at max_concurrent_requests; nothing was applied, retry shortly".into(),
    );
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(1u64));
    r
}

/// Whether a body read failed because the body is longer than allowed.
fn too_long(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// What the edge wraps: the router, a panic of a route caught as a 500.
pub(crate) type Inner = tower_http::catch_panic::CatchPanic<axum::Router, crate::error::Panicked>;

/// The wrapped route, called once the edge admits the request.
pub(crate) struct Route(pub(crate) Inner);

impl Route {
    /// The route's answer to `req`. Its future is boxed: inline, the route's future (which
    /// holds the request until the route is ready) made every future of the edge that
    /// holds it as large, copied at each await (`allot bench cost`).
    pub(crate) async fn run(mut self, req: Request) -> Response {
        match Box::pin(tower::Service::call(&mut self.0, req)).await {
            Ok(resp) => resp.into_response(),
            Err(never) => match never {},
        }
    }
}

/// The edge: id, allow-lists, a permit, the request on its task with its id and a
/// deadline, JSON errors.
pub(crate) async fn edge(edge: &Edge, req: Request, next: Route) -> Response {
    let on_task = Arc::new(OnTask::new(new_request_id(req.headers())));
    let _in_flight = crate::metrics_layer::InProgress::request();
    let mut tracked = crate::metrics_layer::Tracked::start(&req);
    let span = request_span(&tracked, &req, &on_task.id);
    // Every answer, refusals at the edge included, is made on the request's task with its id.
    let (mut resp, admitted) = REQUEST_ID
        .scope(on_task.clone(), answer(edge, req, next))
        .instrument(span.clone())
        .await;
    tracked.answered(on_task.route.get().copied());
    if !span.is_disabled() {
        span.record("http.route", tracked.route());
        crate::telemetry::name_span(&span, format!("{} {}", tracked.method(), tracked.route()));
    }
    span.record("http.response.status_code", resp.status().as_u16());
    let id = &on_task.id;
    resp.headers_mut().insert(crate::request_id::X_REQUEST_ID, id.header());
    crate::request_log::log(&tracked, &resp, id, admitted.as_ref());
    count_recent(edge, &tracked, &resp, admitted.as_ref());
    tracked.record(&resp);
    resp
}

/// Count an admitted request (one with a tenant) in the recent stats.
fn count_recent(
    edge: &Edge,
    tracked: &crate::metrics_layer::Tracked,
    resp: &Response,
    admitted: Option<&crate::request_log::AdmittedAs>,
) {
    if let Some(admitted) = admitted {
        edge.recent.record(crate::recent::Served {
            tenant: &admitted.tenant,
            method: tracked.method(),
            route: tracked.route(),
            status: resp.status().as_u16(),
            latency_us: u64::try_from(tracked.took().as_micros()).unwrap_or(u64::MAX),
        });
    }
}

/// The request's span (exported only when traces are on: [`crate::telemetry`]), a child of
/// the client's `traceparent` when it sent one (OpenTelemetry's HTTP server conventions).
fn request_span(tracked: &crate::metrics_layer::Tracked, req: &Request, id: &RequestId) -> tracing::Span {
    let span = tracing::debug_span!(
        target: "allot::request",
        "request",
        otel.kind = "server",
        http.request.method = tracked.method(),
        http.route = tracing::field::Empty,
        http.response.status_code = tracing::field::Empty,
        request_id = %id,
    );
    if !span.is_disabled() {
        crate::telemetry::continue_trace(&span, req.headers());
    }
    span
}

/// The edge's answer: a refused Host or Origin (before the body is read), the body, a slot,
/// the guard and the route under the request's deadline; every error as JSON. With it, who
/// the guard admitted the request as (for its log line and the recent stats).
async fn answer(edge: &Edge, req: Request, next: Route) -> (Response, Option<AdmittedAs>) {
    if let Some(resp) = oversized(edge, &req) {
        return (resp, None);
    }
    let (resp, admitted) = admitted(edge, req, next).await;
    (json_errors(resp).await, admitted)
}

/// [`answer`] past the size limits, before its errors become JSON.
async fn admitted(edge: &Edge, mut req: Request, next: Route) -> (Response, Option<AdmittedAs>) {
    if let Err((status, code, message)) = edge.origins.check(&req) {
        return (error_response(status, code, message), None);
    }
    if let Err(refused) = with_body(edge, &mut req).await {
        return (refused, None);
    }
    let Ok(_permit) = edge.permits.try_acquire() else {
        return (busy(), None);
    };
    match tokio::time::timeout(edge.request_timeout, guarded(edge, req, next)).await {
        Ok(answered) => answered,
        Err(_) => (
            error_response(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                "no answer within request_timeout_ms; the request may or may not have been applied: retry it with its Idempotency-Key".into(),
            ),
            None,
        ),
    }
}

/// The route table's word on the request ([`crate::admit::Admissions`]: its route, for the
/// metrics and the log line), the guard ([`crate::admit::guard`]), then the router.
async fn guarded(edge: &Edge, req: Request, next: Route) -> (Response, Option<AdmittedAs>) {
    let found = edge.admissions.find(req.method(), req.uri().path());
    if let Some(found) = &found {
        let _ = REQUEST_ID.try_with(|t| t.route.set(found.route));
    }
    match crate::admit::guard(&edge.access, req.headers(), found.as_ref()).await {
        Ok(admitted) => (next.run(req).await, admitted),
        Err(refused) => (refused, None),
    }
}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// An error response that is not JSON yet (axum's own rejections, 405, a timeout) becomes
/// one, with a code chosen by its status; its text (bounded) becomes the message.
async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&resp) {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let code = match status {
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::REQUEST_TIMEOUT => "request_timeout",
        StatusCode::PAYLOAD_TOO_LARGE => "limit_exceeded",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::SERVICE_UNAVAILABLE => "unavailable",
        s if s.is_server_error() => "internal",
        _ => "invalid_request",
    };
    let message = if text.trim().is_empty() || status.is_server_error() {
        status.canonical_reason().unwrap_or("error").to_ascii_lowercase()
    } else {
        echo(text.trim())
    };
    let mut out = error_response(status, code, message);
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(v) = parts.headers.get(&name) {
            out.headers_mut().insert(name, v.clone());
        }
    }
    out
}

/// A JSON error response with `code` and `message` (and the request id when known).
pub fn error_response(status: StatusCode, code: &str, message: String) -> Response {
    let mut detail = ErrorDetail::new(code, message);
    detail.request_id = request_id();
    (status, axum::Json(ErrorBody { error: detail })).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(status: StatusCode, text: &'static str) -> Response {
        (status, axum::body::Body::from(text)).into_response()
    }

    #[test]
    fn ports_are_stripped() {
        assert_eq!(strip_port("127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(strip_port("[::1]:8080"), "[::1]");
        assert_eq!(strip_port("[::1]"), "[::1]");
        assert_eq!(strip_port("localhost"), "localhost");
        assert_eq!(strip_port("http://localhost:3000"), "http://localhost");
        assert_eq!(strip_port("https://[::1]:3000"), "https://[::1]");
    }

    /// A request to `uri` with `hosts` as its Host headers (and `origin`).
    fn request(uri: &str, hosts: &[&'static str], origin: Option<&'static str>) -> Request {
        let mut b = Request::builder().uri(uri);
        for h in hosts {
            b = b.header(header::HOST, *h);
        }
        if let Some(o) = origin {
            b = b.header(header::ORIGIN, o);
        }
        b.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn defaults_allow_loopback_only() {
        let o = Origins::default();
        let r = |hosts, origin| o.check(&request("/v1/skus", hosts, origin));
        assert!(r(&["127.0.0.1:8080"], None).is_ok());
        assert!(r(&["127.0.0.1:8080"], Some("http://localhost:3000")).is_ok());
        assert!(r(&["127.0.0.1:8080"], Some("https://evil.example")).is_err());
        assert!(r(&["rebound.example:8080"], None).is_err());
    }

    #[test]
    fn a_page_of_the_server_itself_may_call_it() {
        let o = Origins {
            hosts: vec!["allot.example.com".into()],
            origins: vec![],
        };
        let r = |hosts, origin| o.check(&request("/v1/skus", hosts, origin));
        assert!(r(&["allot.example.com"], Some("https://allot.example.com")).is_ok());
        assert!(r(&["allot.example.com:8443"], Some("https://allot.example.com:8443")).is_ok());
        assert!(r(&["allot.example.com"], Some("https://allot.example.com.evil")).is_err());
        assert!(r(&["allot.example.com"], Some("https://evil.example")).is_err());
        assert!(
            r(&["rebound.example"], Some("http://rebound.example")).is_err(),
            "Host first"
        );
        // HTTP/2 (the console over TLS): the target is the :authority.
        let h2 = o.check(&request(
            "https://allot.example.com/v1/skus",
            &[],
            Some("https://allot.example.com"),
        ));
        assert!(h2.is_ok(), "{h2:?}");
        // A Host allowed only by `*` is not an origin of its own.
        let any = Origins {
            hosts: vec!["*".into()],
            origins: vec![],
        };
        let rebound = any.check(&request(
            "/v1/skus",
            &["rebound.example"],
            Some("http://rebound.example"),
        ));
        assert!(rebound.is_err(), "{rebound:?}");
    }

    #[test]
    fn every_name_of_the_target_is_checked() {
        let o = Origins::default();
        let r = |uri, hosts| o.check(&request(uri, hosts, None));
        assert!(r("/v1/skus", &[]).is_err(), "no Host, no authority");
        assert!(
            r("http://rebound.example/v1/skus", &[]).is_err(),
            "an absolute-form target"
        );
        assert!(r("http://127.0.0.1@rebound.example/v1/skus", &[]).is_err(), "user info");
        assert!(
            r("http://localhost:8080/v1/skus", &[]).is_ok(),
            ":authority without Host"
        );
        assert!(
            r("http://rebound.example/v1/skus", &["localhost"]).is_err(),
            "Host does not cover the target"
        );
        assert!(
            r("/v1/skus", &["localhost", "rebound.example"]).is_err(),
            "a second Host header"
        );
        let mut old = request("/healthz", &[], None);
        *old.version_mut() = axum::http::Version::HTTP_10;
        assert!(o.check(&old).is_ok(), "HTTP/1.0 has no Host");
    }

    #[tokio::test]
    async fn plain_errors_become_json() {
        let r = json_errors(plain(StatusCode::METHOD_NOT_ALLOWED, "")).await;
        assert!(is_json(&r));
        let r = json_errors(plain(StatusCode::BAD_REQUEST, "Invalid URL")).await;
        let b = to_bytes(r.into_body(), 4096).await.unwrap();
        let v: serde_json::Value = serde_json::from_slice(&b).unwrap();
        assert_eq!(v["error"]["code"], "invalid_request");
        assert_eq!(v["error"]["message"], "Invalid URL");
    }
}
