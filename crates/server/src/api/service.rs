//! Service routes: health, metrics, the audit.

use super::{
    header, ApiError, AppState, Arc, AuditReport, Caller, HeaderValue, IntoResponse, Json, Response, Result, Serialize,
    State, StatusCode, ToSchema,
};
use allot_core::Capable;

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

pub(super) async fn metrics(State(st): State<Arc<AppState>>) -> Response {
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
