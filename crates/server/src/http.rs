//! HTTP hygiene: the named HTTP limits and the connection loop that enforces them, built
//! from well-kept parts — hyper-util's server builder (with its timer, for the header-read
//! timeout) and its graceful-shutdown watcher; tower's load-shed and concurrency limit;
//! tower-http's request timeout.

use crate::boundary::Origins;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::time::Duration;

/// The HTTP limits of a server (flags `--header-read-timeout-ms` … of `allot serve`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpLimits {
    /// Allowed `Host` and `Origin` values (`--allowed-hosts`, `--allowed-origins`).
    pub origins: Origins,
    /// A client has this long to send a request's headers, ms (slow-header clients are
    /// dropped; hyper's `header_read_timeout`). Default 10 000.
    pub header_read_timeout_ms: u64,
    /// A request has this long to be answered, ms, else `408 request_timeout`. Must exceed
    /// the longest long-poll (`max_wait_ms`). Default 60 000.
    pub request_timeout_ms: u64,
    /// Requests served at once; beyond it a request is refused at once with
    /// `503 unavailable` and `Retry-After` (load shedding, not queueing). Default 4096.
    pub max_concurrent_requests: usize,
    /// Job claims waiting at once (`wait_ms > 0`); beyond it such a claim is `503
    /// unavailable` with `Retry-After`. Default 512.
    pub max_long_polls: usize,
    /// On shutdown, in-flight requests have this long to finish before their connections
    /// are dropped, ms. Default 30 000.
    pub shutdown_grace_ms: u64,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            origins: Origins::default(),
            header_read_timeout_ms: 10_000,
            request_timeout_ms: 60_000,
            max_concurrent_requests: 4096,
            max_long_polls: 512,
            shutdown_grace_ms: 30_000,
        }
    }
}

/// Accept connections on `listener` and serve `app` on each (HTTP/1.1 and HTTP/2) until
/// `stop` fires; then stop accepting and give open connections `shutdown_grace_ms` to
/// finish their requests before dropping them.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: &HttpLimits,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) -> std::io::Result<()> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(limits.header_read_timeout_ms));
    let graceful = GracefulShutdown::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    // Out of file descriptors and the like: back off a little, keep serving.
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
                let conn = graceful.watch(conn.into_owned());
                tokio::spawn(async move {
                    let _ = conn.await;
                });
            }
            _ = &mut stop => break,
        }
    }
    drop(listener);
    let grace = Duration::from_millis(limits.shutdown_grace_ms);
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        tracing::warn!(
            grace_ms = limits.shutdown_grace_ms,
            "shutdown grace period over: dropping open connections"
        );
    }
    Ok(())
}
