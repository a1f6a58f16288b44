//! Who may call a `/v1` route: the guard the edge runs before routing ([`guard`]: the key
//! names a principal), then each `/v1` route's own layer ([`Admit`]): the principal
//! the guard set must hold the route's scope (else `403 missing_scope`), then the key's rate
//! admits the request (else `429`). A request without a principal never passes.
//!
//! `Admit` is a tower layer of its own rather than `axum::middleware::from_fn`: the check is
//! synchronous, so the route's service is called straight through, where `from_fn` boxes a
//! clone of it and its future on every request (`allot bench cost`).

use crate::access::Access;
use crate::error::ApiError;
use crate::request_log::AdmittedAs;
use allot_core::access::{allows, Scope};
use allot_core::AllotError;
use axum::extract::Request;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::future::Either;
use std::convert::Infallible;
use std::future::Ready;
use std::sync::Arc;
use std::task::{Context, Poll};

/// The layer: `Some(scope)` for a scoped route, `None` for a route any valid key may call
/// (its rate still applies).
#[derive(Clone, Copy)]
pub struct Admit(pub Option<Scope>);

impl<S> tower::Layer<S> for Admit {
    type Service = Admitting<S>;

    fn layer(&self, inner: S) -> Admitting<S> {
        Admitting { inner, scope: self.0 }
    }
}

/// The route's service behind [`Admit`].
#[derive(Clone)]
pub struct Admitting<S> {
    inner: S,
    scope: Option<Scope>,
}

impl<S> tower::Service<Request> for Admitting<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<Ready<Result<Response, Infallible>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        crate::request_id::routed(&req);
        match refusal(self.scope) {
            Some(resp) => Either::Left(std::future::ready(Ok(resp))),
            None => Either::Right(self.inner.call(req)),
        }
    }
}

/// The answer refusing the request, or `None` when its principal holds `scope` and its rate
/// admits it.
fn refusal(scope: Option<Scope>) -> Option<Response> {
    let checked = crate::request_id::with_principal(|principal| {
        if let Some(scope) = scope.filter(|s| !allows(&principal.scopes, *s)) {
            return Err(AllotError::MissingScope { scope: scope.name() });
        }
        crate::request_id::admit(principal).unwrap_or_else(|| Err(outside()))
    });
    checked
        .unwrap_or_else(|| Err(outside()))
        .err()
        .map(|e| ApiError(e).into_response())
}

/// The guard, run by the edge ([`crate::boundary::edge`]) before the route: public routes
/// pass (`Ok(None)`); a `/v1` route needs a principal (a valid key, or none on an open
/// server), which it sets on the request for the route's own
/// [`crate::admit::Admit`], and names for the request's log line (`Ok(Some(…))`). A refusal
/// is the answer (`Err`). Run by the edge itself rather than as a middleware of its own:
/// one `from_fn` layer less per request (it boxes a clone of the route and its future).
pub(crate) async fn guard(access: &Arc<Access>, req: &mut Request) -> Result<Option<AdmittedAs>, Response> {
    // Before the router (the edge wraps it): by the path itself, so a `/v1` path that
    // names no route needs a key too before it learns so.
    if !req.uri().path().starts_with("/v1/") {
        return Ok(None);
    }
    let mut given = req.headers().get_all(header::AUTHORIZATION).iter();
    let auth = given.next().and_then(|v| v.to_str().ok());
    if given.next().is_some() {
        let e = AllotError::invalid("two Authorization headers: send one");
        return Err(ApiError(e).into_response());
    }
    let principal = access.principal(auth).await.map_err(|e| ApiError(e).into_response())?;
    let admitted = AdmittedAs {
        tenant: principal.tenant.clone(),
        key_id: principal.key_id.clone(),
    };
    let _ = crate::request_id::REQUEST_ID.try_with(|t| t.principal.set(principal));
    Ok(Some(admitted))
}

/// A keyed route reached without the guard's principal: our fault.
fn outside() -> AllotError {
    AllotError::Internal("a keyed route outside the guard".into())
}
