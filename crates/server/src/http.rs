//! HTTP hygiene: the named HTTP limits and the connection loop that enforces them, built
//! from well-kept parts — hyper-util's server builder (with its timer, for the header-read
//! timeout) and its graceful-shutdown watcher — and TLS with rustls (`--tls-cert`,
//! `--tls-key`: PEM files; the handshake must finish within the header-read timeout).

use crate::boundary::Origins;
use crate::conn::{watchdog, Activity, Guarded, PeerGuard, Peers};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
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
    /// Serve HTTPS with this certificate chain and key (PEM files), for deployments without a
    /// proxy in front. `None`: plain HTTP.
    pub tls: Option<TlsFiles>,
    /// A connection that moves no byte for this long while none of its requests is being
    /// served is dropped, ms — from its first byte on (a socket that sends nothing, or part of
    /// the HTTP/2 preface, included). Default 10 000.
    pub idle_timeout_ms: u64,
    /// A request's body must have arrived this long after its headers, ms, else `408
    /// request_timeout`; the body is read before the request takes one of the
    /// `max_concurrent_requests` slots, so a trickled body holds no slot. Default 10 000.
    pub body_read_timeout_ms: u64,
    /// Streams one HTTP/2 connection may have open at once (its SETTINGS_MAX_CONCURRENT_STREAMS).
    /// Default 100.
    pub max_streams_per_connection: u32,
    /// Longest request target (path and query), bytes; longer is `414 limit_exceeded` in the
    /// API's JSON form (hyper itself refuses, without a body, targets over 64 KiB). Default
    /// 8192.
    pub max_uri_bytes: usize,
    /// Most bytes of request headers (names, values and their separators); more is `431
    /// limit_exceeded` in the API's JSON form (hyper itself refuses, without a body, what
    /// overflows its read buffer). Default 16 384.
    pub max_header_bytes: usize,
    /// Connections one peer address may have open at once; past it, the peer's oldest idle
    /// connection is shed for a new one, and with none idle the new one is closed (0: no
    /// bound). Applied as at most half the bound in all, so one address cannot hold every
    /// place. Behind a proxy every client is the proxy: raise it there. Default 1024.
    pub max_connections_per_peer: u32,
    /// Connections open at once in all; past it, the oldest idle connection is shed for a new
    /// one, and with none idle the new one is closed, so silent or slow peers cannot take
    /// every file descriptor (0: the process's descriptor limit less
    /// [`DESCRIPTOR_RESERVE`], read at start). Default 0.
    pub max_connections: u32,
}

/// File descriptors kept out of `max_connections`' default: the database pool, the
/// listener, log and TLS files, Redis.
pub const DESCRIPTOR_RESERVE: u32 = 128;

/// The connection bound `serve` applies: `max_connections`, or when 0 the soft limit on open
/// files (`/proc/self/limits`, Linux) less [`DESCRIPTOR_RESERVE`]; no bound when neither is
/// known.
pub fn connection_bound(limits: &HttpLimits) -> u32 {
    if limits.max_connections > 0 {
        return limits.max_connections;
    }
    let text = std::fs::read_to_string("/proc/self/limits").unwrap_or_default();
    let soft = text
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse::<u32>().ok());
    soft.map_or(0, |n| n.saturating_sub(DESCRIPTOR_RESERVE).max(1))
}

/// Where a server's certificate chain and private key are (PEM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, leaf first.
    pub cert: std::path::PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: std::path::PathBuf,
}

impl TlsFiles {
    /// A rustls acceptor from the files (ring provider; HTTP/2 and HTTP/1.1 by ALPN).
    pub fn acceptor(&self) -> Result<tokio_rustls::TlsAcceptor, String> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let certs = CertificateDer::pem_file_iter(&self.cert)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("--tls-cert {}: {e}", self.cert.display()))?;
        let key =
            PrivateKeyDer::from_pem_file(&self.key).map_err(|e| format!("--tls-key {}: {e}", self.key.display()))?;
        let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
        let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| format!("TLS certificate and key: {e}"))?;
        cfg.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(cfg)))
    }
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
            tls: None,
            idle_timeout_ms: 10_000,
            body_read_timeout_ms: 10_000,
            max_streams_per_connection: 100,
            max_connections_per_peer: 1024,
            max_connections: 0,
            max_uri_bytes: 8192,
            max_header_bytes: 16_384,
        }
    }
}

/// The connection builder: HTTP/1 with its header-read timeout, HTTP/2 with its stream
/// bound (both protocols, chosen per connection).
fn builder(limits: &HttpLimits) -> auto::Builder<TokioExecutor> {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_millis(limits.header_read_timeout_ms));
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_streams_per_connection);
    builder
}

/// What every connection task needs.
#[derive(Clone)]
struct Conn {
    builder: auto::Builder<TokioExecutor>,
    app: crate::edge_layer::App,
    tls: Option<tokio_rustls::TlsAcceptor>,
    handshake: Duration,
    idle: Duration,
}

impl Conn {
    /// Serve one accepted connection on its own task: TLS handshake (bounded), then HTTP under
    /// the idle watchdog and the graceful-shutdown watcher; `peer` holds its place until the
    /// connection ends.
    fn spawn(&self, stream: tokio::net::TcpStream, (peer, activity, shed): Admitted, watcher: Watcher) {
        let c = self.clone();
        tokio::spawn(async move {
            let _peer = peer;
            let svc = TowerToHyperService::new(c.app);
            let a = activity.clone();
            let service = hyper::service::service_fn(move |req| {
                let in_flight = a.enter();
                let fut = hyper::service::Service::call(&svc, req);
                // In flight until the answer's body is sent: a slow reader is still served.
                async move { fut.await.map(|r| r.map(|body| Guarded::new(body, in_flight))) }
            });
            match c.tls {
                None => {
                    let conn = watcher.watch(
                        c.builder
                            .serve_connection_with_upgrades(TokioIo::new(stream), service)
                            .into_owned(),
                    );
                    watchdog(conn, activity, c.idle, shed).await;
                }
                Some(acceptor) => {
                    let Ok(Ok(io)) = tokio::time::timeout(c.handshake, acceptor.accept(stream)).await else {
                        return;
                    };
                    let conn = watcher.watch(
                        c.builder
                            .serve_connection_with_upgrades(TokioIo::new(io), service)
                            .into_owned(),
                    );
                    watchdog(conn, activity, c.idle, shed).await;
                }
            }
        });
    }
}

/// The per-peer bound `serve` applies: `configured`, but at most half of `total` (when both
/// bound), so one address never holds every place. 0: none.
pub fn per_peer_bound(configured: u32, total: u32) -> u32 {
    match (configured, total) {
        (0, _) => 0,
        (c, 0) => c,
        (c, t) => c.min((t / 2).max(1)),
    }
}

/// An admitted connection: its place, its activity, and what sheds it.
type Admitted = (PeerGuard, std::sync::Arc<Activity>, crate::conn::Shed);

/// Accept connections on `listener` and serve `app` on each (HTTP/1.1 and HTTP/2) until
/// `stop` fires; then stop accepting and give open connections `shutdown_grace_ms` to
/// finish their requests before dropping them.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: crate::edge_layer::App,
    limits: &HttpLimits,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let conn = Conn {
        builder: builder(limits),
        app,
        tls: match &limits.tls {
            Some(files) => Some(files.acceptor().map_err(std::io::Error::other)?),
            None => None,
        },
        handshake: Duration::from_millis(limits.header_read_timeout_ms),
        idle: Duration::from_millis(limits.idle_timeout_ms),
    };
    let peers = Peers::default();
    let max_connections = connection_bound(limits);
    let per_peer = per_peer_bound(limits.max_connections_per_peer, max_connections);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, addr) = match accepted {
                    Ok(a) => a,
                    // Out of file descriptors and the like: back off a little, keep serving.
                    Err(e) => {
                        tracing::warn!(error = %e, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // At a bound (its own, or all connections'), the oldest idle connection under
                // it is shed; with none idle, the new one is closed at once.
                let activity = Activity::new();
                let bounds = (per_peer, max_connections);
                let Some((peer, shed)) = peers.admit(addr.ip(), bounds, &activity) else {
                    continue;
                };
                let _ = stream.set_nodelay(true);
                conn.spawn(stream, (peer, activity, shed), graceful.watcher());
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
