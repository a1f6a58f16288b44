//! What the task serving a request knows of it ([`OnTask`], a tokio task-local the edge
//! sets): its id — the client's `x-request-id` when it is sane, else a new UUID — so error
//! bodies and logs can quote it without passing it through every call; the route it matched;
//! its body as the edge read it; who calls, for the handlers. Kept here rather than as extensions of the request: each of
//! those is a boxed insert into a map that grows past three (`allot bench cost`).

use axum::http::{HeaderMap, HeaderName, HeaderValue};

/// `x-request-id`, parsed once (a name given as text is parsed again on every use).
pub(crate) const X_REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

tokio::task_local! {
    /// The id of the request this task serves (set by the edge).
    /// In an `Arc`: the task-local is moved in and out at every poll of the request's task,
    /// which for the id itself (48 bytes) was a `memcpy` call each time (`allot bench cost`).
    pub(crate) static REQUEST_ID: std::sync::Arc<OnTask>;
}

/// What the request's task knows of it: its id; the route pattern it matched, set by the
/// route table ([`crate::admit::Admissions`]) or the route itself ([`routed`]); its body as the edge
/// read it; and who calls, for the handlers ([`crate::extract::Caller`]).
pub(crate) struct OnTask {
    /// The request's id.
    pub(crate) id: RequestId,
    /// The matched route pattern (`/v1/skus/{sku}`), once routed.
    pub(crate) route: std::sync::OnceLock<&'static str>,
    /// The body, once the edge read it in full ([`crate::extract`] takes it from here).
    pub(crate) body: std::sync::OnceLock<axum::body::Bytes>,
    /// Who calls, once the guard admitted a `/v1` request ([`crate::admit::guard`]).
    pub(crate) principal: std::sync::OnceLock<crate::access::Principal>,
}

impl OnTask {
    /// A request with id `id`, not routed yet.
    pub(crate) fn new(id: RequestId) -> Self {
        OnTask {
            id,
            route: std::sync::OnceLock::new(),
            body: std::sync::OnceLock::new(),
            principal: std::sync::OnceLock::new(),
        }
    }
}

/// The body the edge read for the request this task serves, if it read one.
pub(crate) fn read_body() -> Option<axum::body::Bytes> {
    REQUEST_ID.try_with(|t| t.body.get().cloned()).ok().flatten()
}

/// `f` of who calls the `/v1` request this task serves; `None` off the edge's task or before
/// the guard admitted it.
pub(crate) fn with_principal<T>(f: impl FnOnce(&crate::access::Principal) -> T) -> Option<T> {
    REQUEST_ID.try_with(|t| t.principal.get().map(f)).ok().flatten()
}

/// Tell the request's task which route pattern `req` matched (its label in the metrics, the
/// recent stats and the log line); a no-op off the edge's task or for an unrouted request.
pub(crate) fn routed(req: &axum::extract::Request) {
    if let Some(path) = req.extensions().get::<axum::extract::MatchedPath>() {
        let _ = REQUEST_ID.try_with(|t| t.route.set(crate::metrics_layer::interned(path.as_str())));
    }
}

/// A request's id: the client's (its header value, shared with the request) or a new UUID
/// (16 bytes, copied freely): neither allocates to be kept on the task.
pub(crate) enum RequestId {
    Echoed(HeaderValue),
    Generated(uuid::Uuid),
}

impl RequestId {
    pub(crate) fn header(&self) -> HeaderValue {
        match self {
            RequestId::Echoed(v) => v.clone(),
            RequestId::Generated(u) => {
                let mut buf = uuid::Uuid::encode_buffer();
                HeaderValue::from_str(u.hyphenated().encode_lower(&mut buf)).expect("a UUID is a header value")
            }
        }
    }

    fn text(&self) -> String {
        self.to_string()
    }
}

impl std::fmt::Display for RequestId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestId::Echoed(v) => f.write_str(v.to_str().unwrap_or_default()),
            RequestId::Generated(u) => u.hyphenated().fmt(f),
        }
    }
}

/// The id of the request being served on this task, if any (error bodies and logs carry it).
pub fn request_id() -> Option<String> {
    REQUEST_ID.try_with(|t| t.id.text()).ok()
}

/// Longest `x-request-id` echoed from a client, bytes; a longer or odd one is replaced.
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// The client's `x-request-id` when it is 1..=[`MAX_REQUEST_ID_LEN`] visible ASCII
/// characters, else a new UUID.
pub(crate) fn new_request_id(headers: &HeaderMap) -> RequestId {
    let sane = |v: &&HeaderValue| {
        let b = v.as_bytes();
        !b.is_empty() && b.len() <= MAX_REQUEST_ID_LEN && b.iter().all(u8::is_ascii_graphic)
    };
    match headers.get(X_REQUEST_ID).filter(sane) {
        Some(v) => RequestId::Echoed(v.clone()),
        None => RequestId::Generated(uuid::Uuid::new_v4()),
    }
}
