//! HTTP hygiene: the named HTTP limits and the connection loop that enforces them, built
//! from well-kept parts — hyper-util's server builder (with its timer, for the header-read
//! timeout) and its graceful-shutdown watcher — and TLS with rustls (`--tls-cert`,
//! `--tls-key`: PEM files; the handshake must finish within the header-read timeout).

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
    /// Serve HTTPS with this certificate chain and key (PEM files), for deployments without a
    /// proxy in front. `None`: plain HTTP.
    pub tls: Option<TlsFiles>,
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
    let tls = match &limits.tls {
        Some(files) => Some(files.acceptor().map_err(std::io::Error::other)?),
        None => None,
    };
    let handshake = Duration::from_millis(limits.header_read_timeout_ms);
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
                let service = TowerToHyperService::new(app.clone());
                match &tls {
                    None => {
                        let conn = graceful.watch(builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned());
                        tokio::spawn(async move {
                            let _ = conn.await;
                        });
                    }
                    Some(acceptor) => {
                        // The handshake runs on the connection's own task, bounded, so a slow
                        // client never holds up the accept loop.
                        let (acceptor, builder, watcher) = (acceptor.clone(), builder.clone(), graceful.watcher());
                        tokio::spawn(async move {
                            let Ok(Ok(stream)) = tokio::time::timeout(handshake, acceptor.accept(stream)).await else {
                                return;
                            };
                            let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), service).into_owned();
                            let _ = watcher.watch(conn).await;
                        });
                    }
                }
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
