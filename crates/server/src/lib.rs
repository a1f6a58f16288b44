//! # allot-server
//!
//! The HTTP API of allot (its OpenAPI document is served at `/openapi.json`) on axum: handlers, the error body, the `Idempotency-Key`
//! protocol, Prometheus metrics and the OpenAPI document (utoipa). This is the only crate
//! that knows HTTP or JSON; it talks to the backends through the store traits of [`allot_core::store`].

pub mod access;
mod admit;
mod api;
pub mod auto;
mod background;
mod boundary;
mod config;
mod conn;
pub mod console;
mod edge_layer;
mod error;
mod extract;
pub mod http;
mod json_numbers;
mod json_plain;
mod metrics_catalog;
mod metrics_layer;
pub mod recent;
mod request_id;
mod request_log;
mod state;
mod sweepers;
pub mod telemetry;
mod webhooks;
mod write;

pub use api::openapi30::to_openapi_30 as openapi_30;
pub use api::routes::{openapi, scopes};
pub use api::{router, ApiDoc};
pub use boundary::Origins;
pub use config::{open_store, ServerConfig};
pub use edge_layer::App;
pub use error::{status_of, ApiError, ErrorBody};
pub use http::HttpLimits;
pub use state::AppState;

use std::net::SocketAddr;
use std::sync::Arc;

/// A server started with [`spawn`]: its address and a handle to stop it.
pub struct RunningServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// Whether it serves HTTPS.
    pub tls: bool,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl RunningServer {
    /// `http://addr`, or `https://addr` with TLS.
    pub fn url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// Stop accepting, let in-flight requests finish (within `shutdown_grace_ms`), and wait
    /// for it.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.task.await.unwrap_or(Ok(()))
    }
}

/// Open the store of `cfg` (running migrations), bind `cfg.listen` and serve in a
/// background task until [`RunningServer::stop`].
pub async fn spawn(cfg: &ServerConfig) -> Result<RunningServer, ApiError> {
    // Bound first: a busy address fails before the store is opened, so a failed start
    // creates and migrates no database file.
    let listener = bind(&cfg.listen).await?;
    let store = open_store(cfg).await?;
    if !cfg.listens_on_loopback() && !cfg.insecure_no_auth && !store.any_key().await? {
        return Err(allot_core::AllotError::Unauthenticated(format!(
            "refusing to serve {} without keys: create one first (allot keys create --database-url … \
             --tenant T --name N --scopes admin), listen on a loopback address, or pass --insecure-no-auth",
            cfg.listen
        ))
        .into());
    }
    let state = AppState::new(store.clone(), cfg)?;
    let addr = listener
        .local_addr()
        .map_err(|e| ApiError::from(allot_core::AllotError::Internal(e.to_string())))?;
    // Started only once the server can run, so a failed start leaves no task behind.
    // Listed among the instances from its first answer.
    sweepers::beat(store.as_ref(), &state.recent).await;
    let background = background::Background::start(store, &state.stores, cfg, state.recent.clone())?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let (stop_http, http_stopped) = tokio::sync::oneshot::channel::<()>();
    let stopping = state.stopping.clone();
    let app = router(Arc::new(state));
    let http = cfg.http.clone();
    let task = tokio::spawn(async move {
        // Waiting claims and event streams answer first, so the graceful shutdown that
        // follows does not wait them out.
        tokio::spawn(async move {
            let _ = rx.await;
            stopping.send_replace(true);
            let _ = stop_http.send(());
        });
        let result = http::serve(listener, app, &http, http_stopped).await;
        background.stop().await;
        result
    });
    Ok(RunningServer {
        addr,
        tls: cfg.http.tls.is_some(),
        shutdown: Some(tx),
        task,
    })
}

/// Bind `listen`, or say what to do: another process holds a busy address (another `allot
/// serve`?), so the message names `--listen` (`ALLOT_LISTEN`) to choose another.
async fn bind(listen: &str) -> Result<tokio::net::TcpListener, ApiError> {
    tokio::net::TcpListener::bind(listen).await.map_err(|e| {
        let hint = match e.kind() {
            std::io::ErrorKind::AddrInUse => {
                " (another process listens there, perhaps another allot serve: stop it, or choose \
                 another address with --listen HOST:PORT or ALLOT_LISTEN)"
            }
            std::io::ErrorKind::PermissionDenied => {
                " (a port below 1024 needs privileges: choose one above with --listen)"
            }
            _ => " (choose another address with --listen HOST:PORT or ALLOT_LISTEN)",
        };
        // The operator's address, not the store: said as a bad setting, not as `unavailable`.
        ApiError::from(allot_core::AllotError::InvalidRequest(format!(
            "cannot bind {listen}: {e}{hint}"
        )))
    })
}

/// How [`serve_until_signal`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// In-flight requests finished (or `shutdown_grace_ms` ran out).
    Gracefully,
    /// A second signal came during the graceful shutdown: the caller should exit at once
    /// (requests still in flight are cut off; each is one transaction, so none is
    /// half-applied, and a client retries with its Idempotency-Key).
    Forced,
}

/// Serve until Ctrl-C or SIGTERM, then shut down gracefully: stop accepting, end long-polls
/// and event streams, let in-flight requests finish (each is one transaction, so nothing is
/// half-applied), and return; a second signal meanwhile returns [`Stopped::Forced`] at once.
pub async fn serve_until_signal(cfg: &ServerConfig) -> Result<Stopped, ApiError> {
    let server = spawn(cfg).await?;
    tracing::info!(addr = %server.addr, backend = %cfg.backend_name(), "allot listening");
    shutdown_signal().await;
    tracing::info!("shutting down: finishing in-flight requests (a second Ctrl-C exits at once)");
    tokio::select! {
        stopped = server.stop() => {
            stopped.map_err(|e| ApiError::from(allot_core::AllotError::Internal(e.to_string())))?;
            tracing::info!("stopped");
            Ok(Stopped::Gracefully)
        }
        () = shutdown_signal() => {
            tracing::warn!("second signal: stopped at once, cutting off the requests in flight");
            Ok(Stopped::Forced)
        }
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
