//! Webhook endpoints over HTTP (scope `webhooks:manage`): make (the secret is in the answer,
//! once), list (never a secret), rotate the secret, delete, and redeliver a range of events
//! by hand. Everything in the caller's tenant. Deliveries: [`crate::webhooks`].

use super::{id_path, refuse_key};
use crate::error::{ApiError, ErrorBody};
use crate::extract::{Caller, IdempotencyKey, JsonBody};
use crate::state::AppState;
use allot_core::webhook::{format_secret, new_webhook, CreatedWebhook, Webhook, WebhookBody};
use allot_core::AllotError;
use allot_core::Result;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use utoipa::ToSchema;

/// `GET /v1/webhooks` answer.
#[derive(Serialize, ToSchema)]
pub struct WebhookList {
    /// The tenant's endpoints, oldest first.
    pub webhooks: Vec<Webhook>,
}

/// `POST /v1/webhooks/{id}/redeliver` body: the events after `after` (and up to `until`,
/// when given) go to the endpoint again.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RedeliverBody {
    /// Redeliver the events with a cursor above this, 0..=`MAX_CURSOR` (2^62 - 1).
    #[schema(minimum = 0, maximum = 4611686018427387903_i64)]
    pub after: i64,
    /// And at most this one.
    #[serde(default)]
    pub until: Option<i64>,
}

/// `POST /v1/webhooks/{id}/redeliver` answer: how many deliveries were queued, and where to
/// go on from (a call queues at most one page, `max_page_size` events).
#[derive(Serialize, ToSchema)]
pub struct Redelivered {
    /// Deliveries queued.
    pub queued: u64,
    /// Ask again with `after = next` (while below `until`) for the rest.
    pub next: i64,
}

/// New secret bytes: 32 random bytes (the spec's range is 24..=64).
fn made_secret() -> Vec<u8> {
    rand::random::<[u8; 32]>().to_vec()
}

/// `POST /v1/webhooks`. Like `POST /v1/keys`, it takes no `Idempotency-Key` (the answer holds
/// the secret); after a lost answer, list the endpoints and delete the one you did not get.
#[utoipa::path(post, path = "/v1/webhooks", request_body = WebhookBody,
    responses((status = 201, body = CreatedWebhook), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(super) async fn create_webhook(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    IdempotencyKey(idem): IdempotencyKey,
    body: JsonBody<WebhookBody>,
) -> Result<Response, ApiError> {
    refuse_key(idem, "POST /v1/webhooks takes none (its answer is the secret)")?;
    let new = new_webhook(body.value, made_secret)?;
    if let Some(why) = crate::webhooks::refused_endpoint(&new.url, st.webhook_allow_private).await {
        return Err(allot_core::AllotError::invalid(why).into());
    }
    let secret = format_secret(&new.secret);
    let id = uuid::Uuid::new_v4().to_string();
    let webhook = st.stores.webhooks.create_webhook(&tenant, &id, new).await?;
    Ok((StatusCode::CREATED, Json(CreatedWebhook { webhook, secret })).into_response())
}

#[utoipa::path(get, path = "/v1/webhooks", responses((status = 200, body = WebhookList)))]
pub(super) async fn list_webhooks(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
) -> Result<Json<WebhookList>, ApiError> {
    Ok(Json(WebhookList {
        webhooks: st.stores.webhooks.list_webhooks(&tenant).await?,
    }))
}

#[utoipa::path(delete, path = "/v1/webhooks/{id}", params(("id" = String, Path)),
    responses((status = 204, description = "deleted"), (status = 404, body = ErrorBody)))]
pub(super) async fn delete_webhook(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
) -> Result<StatusCode, ApiError> {
    id_path("webhook", &id)?;
    st.stores.webhooks.delete_webhook(&tenant, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /v1/webhooks/{id}/rotate`: a new secret, shown this once; deliveries carry both
/// signatures for 24 h, so receivers can switch without missing one.
#[utoipa::path(post, path = "/v1/webhooks/{id}/rotate", params(("id" = String, Path)),
    responses((status = 200, body = CreatedWebhook), (status = 404, body = ErrorBody)))]
pub(super) async fn rotate_webhook(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    IdempotencyKey(idem): IdempotencyKey,
) -> Result<Json<CreatedWebhook>, ApiError> {
    refuse_key(idem, "a rotation takes none (its answer is the new secret)")?;
    id_path("webhook", &id)?;
    let bytes = made_secret();
    let secret = format_secret(&bytes);
    let webhook = st.stores.webhooks.rotate_webhook_secret(&tenant, &id, bytes).await?;
    Ok(Json(CreatedWebhook { webhook, secret }))
}

#[utoipa::path(post, path = "/v1/webhooks/{id}/redeliver", params(("id" = String, Path)),
    request_body = RedeliverBody,
    responses((status = 202, body = Redelivered), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub(super) async fn redeliver(
    State(st): State<Arc<AppState>>,
    Caller { tenant, .. }: Caller,
    Path(id): Path<String>,
    IdempotencyKey(idem): IdempotencyKey,
    body: JsonBody<RedeliverBody>,
) -> Result<Response, ApiError> {
    refuse_key(
        idem,
        "a redelivery takes none (repeated, it queues the same messages again, which keep their webhook-id)",
    )?;
    id_path("webhook", &id)?;
    let RedeliverBody { after, until } = body.value;
    let target = st
        .stores
        .webhooks
        .webhook_target(&tenant, &id)
        .await?
        .ok_or_else(|| AllotError::not_found("webhook", &id))?;
    let limit = i64::from(st.limits.max_page_size);
    let query = allot_core::event::query(after, limit, None, (None, None), &st.limits)?;
    let page = st.stores.events.events(&tenant, &query).await?;
    let events: Vec<_> = page
        .events
        .into_iter()
        .take_while(|e| until.is_none_or(|u| e.cursor <= u))
        .collect();
    let next = events
        .last()
        .map_or(page.next, |e| e.cursor)
        .min(until.unwrap_or(i64::MAX))
        .max(after); // an `until` at or below `after` is an empty range
    let pairs: Vec<_> = events
        .iter()
        .filter(|e| target.wants(e.kind))
        .map(|e| (e, &target))
        .collect();
    let queued = crate::webhooks::enqueue(&st.stores, &pairs, None).await?;
    Ok((StatusCode::ACCEPTED, Json(Redelivered { queued, next })).into_response())
}
