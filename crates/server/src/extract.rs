//! Request extractors that answer in the API's error format instead of axum's plain text.

use crate::error::ApiError;
use crate::state::AppState;
use allot_core::AllotError;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// A JSON body: the parsed value and its canonical form (keys sorted, no whitespace), which
/// is the body's part of an idempotency fingerprint.
pub struct JsonBody<T> {
    /// The parsed body.
    pub value: T,
    /// Canonical JSON text of the body.
    pub canonical: String,
}

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        // The body is parsed as JSON whatever the Content-Type says (curl's `-d` sends a form
        // type); malformed JSON is `invalid_request`.
        let bytes = Bytes::from_request(req, state).await.map_err(|r| {
            if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
                AllotError::LimitExceeded {
                    limit: "max_body_bytes",
                    max: state.limits.max_body_bytes as u64,
                    message: "request body too large".into(),
                }
            } else {
                AllotError::invalid(format!("cannot read body: {r}"))
            }
        })?;
        let raw: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| AllotError::invalid(format!("malformed JSON: {e}")))?;
        let canonical = raw.to_string();
        let value = serde_json::from_value(raw).map_err(|e| AllotError::invalid(format!("invalid body: {e}")))?;
        Ok(JsonBody { value, canonical })
    }
}

/// The `Idempotency-Key` header, validated (1..=255 printable ASCII), if present.
pub struct IdempotencyKey(pub Option<String>);

impl FromRequestParts<Arc<AppState>> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        match parts.headers.get("idempotency-key") {
            None => Ok(IdempotencyKey(None)),
            Some(v) => {
                let s = v
                    .to_str()
                    .map_err(|_| AllotError::invalid("Idempotency-Key must be printable ASCII"))?;
                allot_core::validate::idempotency_key(s, &state.limits)?;
                Ok(IdempotencyKey(Some(s.to_string())))
            }
        }
    }
}
