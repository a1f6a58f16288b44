//! One log line per request, at `info` on the target `allot::request`: method, route
//! pattern, status, latency, request id, and for `/v1` requests the tenant and the API key's
//! id — never the secret, a header's value or the body. Written by the edge
//! ([`crate::boundary::edge`]) after the answer, so refusals at the edge are logged too.

use crate::metrics_layer::Tracked;
use crate::request_id::RequestId;
use axum::response::Response;

/// Who a `/v1` request was admitted as, left on its response by the guard
/// ([`crate::access::guard`]) for the request's log line.
#[derive(Debug, Clone)]
pub(crate) struct AdmittedAs {
    pub(crate) tenant: allot_core::Tenant,
    pub(crate) key_id: Option<String>,
}

/// Log `resp`, the answer to the request `tracked` started timing, with its id.
pub(crate) fn log(tracked: &Tracked, resp: &Response, id: &RequestId) {
    if !tracing::enabled!(target: "allot::request", tracing::Level::INFO) {
        return;
    }
    let admitted = resp.extensions().get::<AdmittedAs>();
    tracing::info!(
        target: "allot::request",
        method = tracked.method(),
        route = tracked.route(),
        status = resp.status().as_u16(),
        latency_us = u64::try_from(tracked.elapsed().as_micros()).unwrap_or(u64::MAX),
        request_id = %id,
        tenant = admitted.map(|a| a.tenant.as_str()),
        key_id = admitted.and_then(|a| a.key_id.as_deref()),
        "request"
    );
}
