//! What every handler shares: the store, the limits, the default strategy, Redis, metrics.

use crate::config::ServerConfig;
use crate::error::ApiError;
use crate::metrics_layer;
use allot_core::*;
use metrics_exporter_prometheus::PrometheusHandle;
use std::sync::Arc;

/// Shared state of the handlers.
pub struct AppState {
    /// The stock store of the configured backend.
    pub store: Arc<dyn Store>,
    /// Named limits.
    pub limits: Limits,
    /// Strategy for requests that name none.
    pub default_strategy: Strategy,
    /// The Redis side of `redis_counter` / `redis_lock`, when `--redis-url` is set.
    pub redis: Option<Arc<allot_redis::RedisGate>>,
    pub(crate) metrics: PrometheusHandle,
}

impl AppState {
    /// State for `store` under `cfg`. Errors with `unsupported_strategy` when the configured
    /// default strategy cannot run on the store's backend.
    pub fn new(store: Arc<dyn Store>, cfg: &ServerConfig) -> Result<Self, ApiError> {
        let default_strategy = cfg.default_strategy.unwrap_or_else(|| store.default_strategy());
        store.require(default_strategy)?;
        let redis = crate::config::open_redis(cfg)?;
        if default_strategy.needs_redis() && redis.is_none() {
            return Err(AllotError::UnsupportedStrategy {
                strategy: default_strategy.name().to_string(),
                backend: store.backend().name(),
                hint: " without Redis (--redis-url)".into(),
            }
            .into());
        }
        Ok(AppState {
            store,
            limits: cfg.limits.clone(),
            default_strategy,
            redis,
            metrics: metrics_layer::handle(),
        })
    }
}
