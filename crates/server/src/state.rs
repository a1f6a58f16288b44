//! What every handler shares: the store, the limits, the default strategy, Redis, metrics.

use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::metrics_layer;
use allot_core::{Capable, Database, Limits, Maintenance, Result, Store, Stores, Strategy};
use metrics_exporter_prometheus::PrometheusHandle;
use std::sync::Arc;

/// Shared state of the handlers.
pub struct AppState {
    /// The configured backend's domain stores; with `--redis-url`, stock, locations and
    /// holds are wrapped by `allot_redis::RedisGated`, which runs the Redis strategies
    /// (handlers never choose).
    pub stores: Stores,
    /// The same backend's maintenance (the audit of `GET /v1/audit`), never wrapped.
    pub maintenance: Arc<dyn Maintenance>,
    /// Named limits.
    pub limits: Limits,
    /// Strategy for requests that name none (unless `default_auto`).
    pub default_strategy: Strategy,
    /// Requests that name no stock strategy run as `auto`.
    pub default_auto: bool,
    /// The Redis gate, when `--redis-url` is set: for `/healthz` only.
    pub redis: Option<Arc<allot_redis::RedisGate>>,
    pub(crate) metrics: PrometheusHandle,
    /// HTTP limits (the router's layers read them).
    pub http: crate::http::HttpLimits,
    /// Permits for waiting job claims (`max_long_polls`).
    pub(crate) long_polls: Arc<tokio::sync::Semaphore>,
    /// Keys, scopes, and whether keys are required.
    pub(crate) access: Arc<crate::access::Access>,
    /// Each SKU's contention, for `strategy: "auto"`.
    pub(crate) auto: crate::auto::AutoChooser,
    /// Set when the server starts shutting down: waiting claims claim once more and answer,
    /// event streams end, so the graceful shutdown does not wait out long-polls.
    pub(crate) stopping: Arc<tokio::sync::watch::Sender<bool>>,
    /// What this instance served in the last minutes, per tenant (`GET /v1/stats`).
    pub(crate) recent: Arc<crate::recent::Recent>,
    /// Whether webhook endpoints may be loopback or private addresses
    /// (`--webhook-allow-private`).
    pub(crate) webhook_allow_private: bool,
    /// Whether a stock write must carry an `Idempotency-Key` (`--require-idempotency-key`).
    pub(crate) require_idempotency_key: bool,
}

impl AppState {
    /// State for `database` under `cfg`. Errors with `unsupported_strategy` when the configured
    /// default strategy cannot run on the store's backend.
    pub fn new(database: Arc<dyn Database>, cfg: &ServerConfig) -> Result<Self, ApiError> {
        let redis = crate::config::open_redis(cfg)?;
        let maintenance: Arc<dyn Maintenance> = database.clone();
        let backend: Arc<dyn Store> = database;
        let stores = match &redis {
            Some(gate) => allot_redis::RedisGated::wrap(Stores::of(backend), gate.clone()),
            None => Stores::of(backend),
        };
        let default_strategy = cfg.default_strategy.unwrap_or_else(|| stores.default_strategy());
        stores.require(default_strategy)?;
        let access = Arc::new(
            crate::access::Access::new(
                stores.keys.clone(),
                cfg.listens_on_loopback() || cfg.insecure_no_auth,
                cfg.key_rate_per_s,
                cfg.key_long_polls,
            )
            .with_streams_per_key(cfg.limits.max_streams_per_key as usize)
            .with_cache_ttl(
                cfg.background_interval_ms
                    .map_or(crate::access::CACHE_TTL, std::time::Duration::from_millis),
            ),
        );
        let recent = Arc::new(crate::recent::Recent::new(allot_core::Capable::now(&stores)));
        Ok(AppState {
            stores,
            maintenance,
            limits: cfg.limits.clone(),
            default_strategy,
            default_auto: cfg.default_auto,
            redis,
            metrics: metrics_layer::handle(),
            http: cfg.http.clone(),
            long_polls: Arc::new(tokio::sync::Semaphore::new(cfg.http.max_long_polls)),
            access,
            auto: crate::auto::AutoChooser::new(cfg.clock.clone()),
            stopping: Arc::new(tokio::sync::watch::Sender::new(false)),
            recent,
            webhook_allow_private: cfg.webhook_allow_private,
            require_idempotency_key: cfg.require_idempotency_key,
        })
    }

    /// Ready once the server has started shutting down.
    pub(crate) fn stopped(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let mut stopping = self.stopping.subscribe();
        async move {
            let _ = stopping.wait_for(|s| *s).await;
        }
    }
}
