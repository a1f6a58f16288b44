//! One log line per request worth reading, on the target `allot::request`: method, route
//! pattern, status, latency, request id, and for `/v1` requests the tenant and the API key's
//! id — never the secret, a header's value or the body. Written by the edge
//! ([`crate::boundary::edge`]) after the answer, so refusals at the edge are logged too.
//!
//! The level follows the outcome: `warn` for a 5xx (our fault or an unavailable
//! dependency), `info` for a 4xx and for any answer slower than [`SLOW_REQUEST_MS`], `debug`
//! for the rest. A served request's line was an eighth of a request's instructions
//! (`allot bench cost`); metrics and traces count every request, and
//! `ALLOT_LOG=info,allot::request=debug` logs every one.

use crate::metrics_layer::Tracked;
use crate::request_id::RequestId;
use axum::response::Response;
use tracing::Level;

/// An answer slower than this, ms, is logged at `info` whatever its status.
pub(crate) const SLOW_REQUEST_MS: u64 = 1000;

/// Who a `/v1` request was admitted as, by the guard ([`crate::admit::guard`]), for the
/// request's log line and the recent stats.
#[derive(Debug, Clone)]
pub(crate) struct AdmittedAs {
    pub(crate) tenant: allot_core::Tenant,
    pub(crate) key_id: Option<String>,
}

/// The level of the line of an answer with `status` that took `latency_us`.
fn level(status: u16, latency_us: u64) -> Level {
    if status >= 500 {
        Level::WARN
    } else if status >= 400 || latency_us >= SLOW_REQUEST_MS * 1000 {
        Level::INFO
    } else {
        Level::DEBUG
    }
}

/// Log `resp`, the answer to the request `tracked` started timing, with its id and who it
/// was admitted as.
pub(crate) fn log(tracked: &Tracked, resp: &Response, id: &RequestId, admitted: Option<&AdmittedAs>) {
    let status = resp.status().as_u16();
    let latency_us = u64::try_from(tracked.took().as_micros()).unwrap_or(u64::MAX);
    let (tenant, key_id) = (
        admitted.map(|a| a.tenant.as_str()),
        admitted.and_then(|a| a.key_id.as_deref()),
    );
    // tracing's macros take the level as a constant: one arm each, the same fields.
    macro_rules! line {
        ($level:expr) => {
            if tracing::enabled!(target: "allot::request", $level) {
                tracing::event!(
                    target: "allot::request",
                    $level,
                    method = tracked.method(),
                    route = tracked.route(),
                    status,
                    latency_us,
                    request_id = %id,
                    tenant,
                    key_id,
                    "request"
                );
            }
        };
    }
    match level(status, latency_us) {
        Level::WARN => line!(Level::WARN),
        Level::INFO => line!(Level::INFO),
        _ => line!(Level::DEBUG),
    }
}

#[cfg(test)]
mod tests {
    use super::{level, SLOW_REQUEST_MS};
    use tracing::Level;

    /// 5xx warn, 4xx info, a slow success info, a quick success debug.
    #[test]
    fn levels_follow_the_outcome() {
        assert_eq!(level(503, 10), Level::WARN);
        assert_eq!(level(409, 10), Level::INFO);
        assert_eq!(level(201, SLOW_REQUEST_MS * 1000), Level::INFO);
        assert_eq!(level(201, 10), Level::DEBUG);
    }
}
