//! [`Write`]: the one extractor of an idempotent write — its `Idempotency-Key` (validated),
//! method, path and body (read strictly, with its canonical form) — and [`WriteKey`], which
//! turns them into the store's [`Idempotency`] context (the `Idempotency-Key` convention of
//! Stripe-style APIs: the key, a fingerprint of the request, and the renderer of the stored
//! response).

use crate::error::ApiError;
use crate::extract::{Canonical, IdempotencyKey, JsonBody, OptionalJsonBody};
use crate::state::AppState;
use allot_core::store::{Idempotency, Keyed, StoredResponse};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::{Method, StatusCode};
use serde::Serialize;
use std::sync::Arc;

/// A body a write may carry, and its canonical text (the body's part of the fingerprint).
pub trait WriteBody: FromRequest<Arc<AppState>, Rejection = ApiError> {
    /// The canonical text of the body (keys sorted, no whitespace; empty for none).
    fn canonical(&self) -> &Canonical;
}

impl<T: serde::de::DeserializeOwned> WriteBody for JsonBody<T> {
    fn canonical(&self) -> &Canonical {
        &self.canonical
    }
}

impl<T: serde::de::DeserializeOwned + Default> WriteBody for OptionalJsonBody<T> {
    fn canonical(&self) -> &Canonical {
        &self.0.canonical
    }
}

/// A write without a body (a cancel, a release): its canonical text is empty. A body sent
/// anyway is not read.
pub struct NoBody(Canonical);

impl FromRequest<Arc<AppState>> for NoBody {
    type Rejection = ApiError;

    async fn from_request(_: Request, _: &Arc<AppState>) -> Result<Self, ApiError> {
        Ok(NoBody(Canonical::none()))
    }
}

impl WriteBody for NoBody {
    fn canonical(&self) -> &Canonical {
        &self.0
    }
}

/// An idempotent write: its body `B` ([`JsonBody`], [`OptionalJsonBody`] or [`NoBody`]) and
/// what identifies it for its key. The key is read (and refused when malformed) before the
/// body. [`Write::split`] gives the body and the [`WriteKey`].
pub struct Write<B> {
    body: B,
    /// The key, with the method and path its fingerprint covers (kept only when there is a
    /// key: a write without one allocates nothing here).
    key: Option<(String, Method, String)>,
}

impl<B: WriteBody> FromRequest<Arc<AppState>> for Write<B> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let (mut parts, body) = req.into_parts();
        let IdempotencyKey(key) = IdempotencyKey::from_request_parts(&mut parts, state).await?;
        let key = key.map(|k| (k, parts.method.clone(), parts.uri.path().to_string()));
        let body = B::from_request(Request::from_parts(parts, body), state).await?;
        Ok(Write { body, key })
    }
}

/// The paths whose `POST` is a [`StockWrite`] (the document marks their `Idempotency-Key`
/// required on a server that requires one).
pub(crate) const STOCK_WRITES: [&str; 15] = [
    "/v1/skus",
    "/v1/skus/{sku}/adjustments",
    "/v1/allocations",
    "/v1/allocations/{id}/cancel",
    "/v1/allocations/{id}/returns",
    "/v1/holds",
    "/v1/holds/{id}/confirm",
    "/v1/holds/{id}/release",
    "/v1/holds/{id}/extend",
    "/v1/skus/{sku}/units",
    "/v1/unit-allocations",
    "/v1/transfers",
    "/v1/skus/{sku}/incoming",
    "/v1/skus/{sku}/receipts",
    "/v1/skus/{sku}/moves",
];

/// A write that moves stock: a [`Write`] that must carry an `Idempotency-Key` when the server
/// requires one (`--require-idempotency-key`; `400 idempotency_key_required` otherwise, read
/// before the body).
pub struct StockWrite<B>(pub Write<B>);

impl<B: WriteBody> FromRequest<Arc<AppState>> for StockWrite<B> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        if state.require_idempotency_key && !req.headers().contains_key(crate::extract::IDEMPOTENCY_KEY) {
            let field = "Idempotency-Key".to_string();
            return Err(allot_core::AllotError::IdempotencyKeyRequired { field }.into());
        }
        Write::from_request(req, state).await.map(StockWrite)
    }
}

impl<B: WriteBody> Write<B> {
    /// The body, and the request's [`WriteKey`] (its fingerprint is computed here only when
    /// the request carried a key).
    pub fn split(self) -> (B, WriteKey) {
        let key = self.key.map(|(key, method, path)| {
            let fingerprint = fingerprint(&method, &path, self.body.canonical().text());
            (key, fingerprint)
        });
        (self.body, WriteKey(key))
    }
}

impl Write<NoBody> {
    /// The store's idempotency context of a write without a body, whose result is sent as
    /// it is with `status`.
    pub fn idempotency<T: Serialize + 'static>(self, status: StatusCode) -> Keyed<T> {
        self.split().1.idempotency(status)
    }
}

/// A write's key and fingerprint (`None` when it carried no `Idempotency-Key`).
pub struct WriteKey(Option<(String, String)>);

impl WriteKey {
    /// The store's idempotency context for a result sent as it is with `status`.
    pub fn idempotency<T: Serialize + 'static>(&self, status: StatusCode) -> Keyed<T> {
        self.idempotency_as(status, |v: &T| serde_json::to_vec(v).unwrap_or_default())
    }

    /// [`WriteKey::idempotency`] for a result sent wrapped (`wrap` makes the body from the
    /// value; the long-poll claim sends its jobs as `{"jobs": […]}`).
    pub fn wrapped<T: 'static, W: Serialize + 'static>(&self, status: StatusCode, wrap: fn(&T) -> W) -> Keyed<T> {
        self.idempotency_as(status, move |v: &T| serde_json::to_vec(&wrap(v)).unwrap_or_default())
    }

    /// The key of one operation of a batch (`POST /v1/batch`), fingerprinted as the same
    /// request sent alone would be (`POST path` and its body's canonical text, made only
    /// when there is a key): a key is interchangeable between a batch and the endpoint.
    pub fn operation(key: Option<&str>, path: &str, canonical: impl FnOnce() -> String) -> WriteKey {
        WriteKey(key.map(|k| (k.to_string(), fingerprint(&Method::POST, path, &canonical()))))
    }

    fn idempotency_as<T: 'static>(
        &self,
        status: StatusCode,
        body: impl Fn(&T) -> Vec<u8> + Send + Sync + 'static,
    ) -> Keyed<T> {
        let (key, fingerprint) = self.0.clone()?;
        Some(Idempotency {
            key,
            fingerprint,
            render: Box::new(move |v: &T| StoredResponse {
                code: status.as_u16(),
                body: body(v),
            }),
        })
    }
}

/// SHA-256 (hex) of `METHOD path canonical-body`: what identifies a request for its key; a
/// fixed 64 characters whatever the body's size.
fn fingerprint(method: &Method, path: &str, canonical: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::new()
        .chain_update(method.as_str())
        .chain_update(" ")
        .chain_update(path)
        .chain_update(" ")
        .chain_update(canonical)
        .finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}
