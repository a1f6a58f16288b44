//! Each `/v1` route's own layer, after the guard ([`crate::access::guard`]): the principal
//! the guard set must hold the route's scope (else `403 missing_scope`), then the key's rate
//! admits the request (else `429`). A request without a principal never passes.
//!
//! A tower layer of its own rather than `axum::middleware::from_fn`: the check is
//! synchronous, so the route's service is called straight through, where `from_fn` boxes a
//! clone of it and its future on every request (`allot bench cost`).

use crate::access::Principal;
use crate::error::ApiError;
use allot_core::access::{allows, Scope};
use allot_core::AllotError;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use futures::future::Either;
use std::convert::Infallible;
use std::future::Ready;
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
        match refusal(self.scope, &req) {
            Some(resp) => Either::Left(std::future::ready(Ok(resp))),
            None => Either::Right(self.inner.call(req)),
        }
    }
}

/// The answer refusing `req`, or `None` when its principal holds `scope` and its rate
/// admits it.
fn refusal(scope: Option<Scope>, req: &Request) -> Option<Response> {
    let (Some(principal), Some(access)) = (req.extensions().get::<Principal>(), crate::request_id::access()) else {
        return Some(ApiError(AllotError::Internal("a keyed route outside the guard".into())).into_response());
    };
    if let Some(scope) = scope.filter(|s| !allows(&principal.scopes, *s)) {
        return Some(ApiError(AllotError::MissingScope { scope: scope.name() }).into_response());
    }
    access.admit(principal).err().map(|e| ApiError(e).into_response())
}
