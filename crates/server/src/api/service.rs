//! Service routes: health, metrics, the audit.

use crate::error::ApiError;
use crate::extract::Caller;
use crate::state::AppState;
use allot_core::AuditReport;
use allot_core::Capable;
use allot_core::Result;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use std::sync::Arc;
use utoipa::ToSchema;

/// `GET /healthz` body.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok` or `unavailable`.
    status: &'static str,
    /// `postgres` or `sqlite`.
    backend: &'static str,
    /// `ok` or `unavailable`, when Redis is configured (it does not make the service
    /// unhealthy: only the Redis strategies need it).
    #[serde(skip_serializing_if = "Option::is_none")]
    redis: Option<&'static str>,
}

#[utoipa::path(get, path = "/healthz", responses((status = 200, body = Health), (status = 503, body = Health)))]
pub(super) async fn healthz(State(st): State<Arc<AppState>>) -> Response {
    let backend = st.stores.backend().name();
    let redis = match &st.redis {
        None => None,
        Some(g) => Some(if g.health().await.is_ok() { "ok" } else { "unavailable" }),
    };
    match st.stores.stock.health().await {
        Ok(()) => Json(Health {
            status: "ok",
            backend,
            redis,
        })
        .into_response(),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(Health {
                status: "unavailable",
                backend,
                redis,
            }),
        )
            .into_response(),
    }
}

/// `GET /livez` body: the process serves HTTP (nothing else is checked, so a database
/// outage never makes an orchestrator restart allot).
#[derive(Serialize, ToSchema)]
pub struct Live {
    /// Always `ok`.
    status: &'static str,
}

#[utoipa::path(get, path = "/livez", responses((status = 200, body = Live)))]
pub(super) async fn livez() -> Json<Live> {
    Json(Live { status: "ok" })
}

/// How long each readiness check may take before it counts as failed.
pub const READINESS_CHECK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// `GET /readyz` body: whether this instance should get traffic.
#[derive(Serialize, ToSchema)]
pub struct Ready {
    /// `ready`, or `not_ready` (status 503).
    status: &'static str,
    /// `postgres` or `sqlite`.
    backend: &'static str,
    /// What keeps it from being ready, in words (empty when ready): the database
    /// unreachable, its schema at another version than this build's (and what to run), Redis
    /// unreachable when configured, the server shutting down.
    problems: Vec<String>,
}

#[utoipa::path(get, path = "/readyz", responses((status = 200, body = Ready), (status = 503, body = Ready)))]
pub(super) async fn readyz(State(st): State<Arc<AppState>>) -> Response {
    let problems = readiness(&st).await.problems;
    let ready = problems.is_empty();
    let body = Json(Ready {
        status: if ready { "ready" } else { "not_ready" },
        backend: st.stores.backend().name(),
        problems,
    });
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, body).into_response()
}

/// The checks of `/readyz`, each bounded by [`READINESS_CHECK_TIMEOUT`].
pub(super) struct Readiness {
    /// What keeps this instance from being ready, in words (empty: ready).
    pub(super) problems: Vec<String>,
    /// Whether the database answered at this build's schema version.
    pub(super) database_ok: bool,
    /// Whether Redis answered; `None` when none is configured.
    pub(super) redis_ok: Option<bool>,
}

pub(super) async fn readiness(st: &AppState) -> Readiness {
    let mut problems = Vec::new();
    if *st.stopping.borrow() {
        problems.push("shutting down".to_string());
    }
    let database_ok = match tokio::time::timeout(READINESS_CHECK_TIMEOUT, st.maintenance.schema_version()).await {
        Ok(Ok(version)) => {
            let problem = version.problem();
            let ok = problem.is_none();
            problems.extend(problem);
            ok
        }
        Ok(Err(_)) | Err(_) => {
            problems.push("the database is unreachable".to_string());
            false
        }
    };
    let mut redis_ok = None;
    if let Some(gate) = &st.redis {
        let ok = matches!(
            tokio::time::timeout(READINESS_CHECK_TIMEOUT, gate.health()).await,
            Ok(Ok(()))
        );
        if !ok {
            problems.push("Redis is unreachable".to_string());
        }
        redis_ok = Some(ok);
    }
    Readiness {
        problems,
        database_ok,
        redis_ok,
    }
}

pub(super) async fn metrics(State(st): State<Arc<AppState>>) -> Response {
    crate::metrics_catalog::sample(st.maintenance.pool_status());
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4"),
        )],
        st.metrics.render(),
    )
        .into_response()
}

#[utoipa::path(get, path = "/v1/audit",
    responses((status = 200, body = AuditReport, description = "every invariant (SKU conservation, unit claims, job states, booking overlaps) in one snapshot")))]
pub(super) async fn audit(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
) -> Result<Json<AuditReport>, ApiError> {
    Ok(Json(st.maintenance.audit(Some(&tenant)).await?))
}
