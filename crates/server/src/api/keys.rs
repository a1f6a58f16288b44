//! API keys over HTTP (scope `admin`): create (the secret is in the answer, once), list
//! (never a secret), revoke. Everything in the caller's tenant.

use super::id_path;
use crate::error::{ApiError, ErrorBody};
use crate::extract::{IdempotencyKey, JsonBody, Who};
use crate::state::AppState;
use allot_core::access::{ApiKey, NewKeyBody};
use allot_core::AllotError;
use allot_core::Capable;
use allot_core::Result;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use std::sync::Arc;
use utoipa::ToSchema;

/// `POST /v1/keys` answer: the key and its secret, shown this once.
#[derive(Serialize, ToSchema)]
pub struct CreatedKey {
    /// The key as listed from now on.
    #[serde(flatten)]
    pub key: ApiKey,
    /// `allot_sk_…`: send it as `Authorization: Bearer …`. Not retrievable later.
    pub secret: String,
}

/// `GET /v1/keys` answer.
#[derive(Serialize, ToSchema)]
pub struct KeyList {
    /// The tenant's keys, newest first, revoked ones included.
    pub keys: Vec<ApiKey>,
}

/// `POST /v1/keys`. It takes no `Idempotency-Key` (`400` naming it): a replay would have to
/// give the secret again, and allot never stores a secret. After a lost answer, list the keys
/// and revoke the one whose secret never arrived.
#[utoipa::path(post, path = "/v1/keys", request_body = NewKeyBody,
    responses((status = 201, body = CreatedKey), (status = 400, body = ErrorBody)))]
pub(super) async fn create_key(
    State(st): State<Arc<AppState>>,
    Who(who): Who,
    IdempotencyKey(idem): IdempotencyKey,
    body: JsonBody<NewKeyBody>,
) -> Result<Response, ApiError> {
    if idem.is_some() {
        return Err(AllotError::invalid(
            "Idempotency-Key: POST /v1/keys takes none (its answer is the secret, which allot never stores); \
             after a lost answer, list the keys and revoke the one you did not receive",
        )
        .into());
    }
    let (key, secret) =
        crate::access::create_key(st.stores.keys.as_ref(), st.stores.now(), &who.tenant, &body.value).await?;
    Ok((StatusCode::CREATED, Json(CreatedKey { key, secret })).into_response())
}

#[utoipa::path(get, path = "/v1/keys", responses((status = 200, body = KeyList)))]
pub(super) async fn list_keys(State(st): State<Arc<AppState>>, Who(who): Who) -> Result<Json<KeyList>, ApiError> {
    Ok(Json(KeyList {
        keys: st.stores.keys.list_keys(&who.tenant).await?,
    }))
}

#[utoipa::path(delete, path = "/v1/keys/{id}", params(("id" = String, Path)),
    responses((status = 200, body = ApiKey, description = "revoked (or already revoked)"), (status = 404, body = ErrorBody)))]
pub(super) async fn revoke_key(
    State(st): State<Arc<AppState>>,
    Who(who): Who,
    Path(id): Path<String>,
) -> Result<Json<ApiKey>, ApiError> {
    id_path("key", &id)?;
    Ok(Json(st.stores.keys.revoke_key(Some(&who.tenant), &id).await?))
}

/// `GET /v1/key` answer: the calling key as the server sees it, so a client (the console, a
/// script) can show only what the key may do.
#[derive(Serialize, ToSchema)]
pub struct CurrentKey {
    /// The key's id; `null` on a server that requires no keys.
    pub id: Option<String>,
    /// The tenant everything the key does lives in.
    pub tenant: String,
    /// The scopes the key was given (`["admin"]` on a server that requires no keys).
    pub scopes: Vec<allot_core::access::Scope>,
    /// Every scope those grant (`admin` is everything of its tenant; a `:write` implies its
    /// `:read`), so a client need not know the rules to hide what the key may not do.
    pub grants: Vec<allot_core::access::Scope>,
    /// Its own rate (requests per second), if it has one.
    pub rate_per_s: Option<u32>,
}

/// `GET /v1/key`: who the caller is. Any valid key may ask; it needs no scope.
#[utoipa::path(get, path = "/v1/key", responses((status = 200, body = CurrentKey), (status = 401, body = ErrorBody)))]
pub(super) async fn current_key(Who(who): Who) -> Json<CurrentKey> {
    use allot_core::access::Scope;
    let grants = Scope::ALL
        .into_iter()
        .filter(|needed| allot_core::access::allows(&who.scopes, *needed))
        .collect();
    Json(CurrentKey {
        grants,
        id: who.key_id,
        tenant: who.tenant.as_str().to_string(),
        scopes: who.scopes,
        rate_per_s: who.rate_per_s,
    })
}
