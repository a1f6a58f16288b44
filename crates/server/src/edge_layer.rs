//! The edge ([`crate::boundary::edge`]) as a tower layer of its own. `axum::middleware::
//! from_fn` would box a clone of the route as `Next` and box `Next`'s future again for
//! every request, and take the request apart and back together for its extractors; this
//! calls the route it wraps straight from the edge's one boxed future (`allot bench cost`:
//! the atomic allocation's instructions and heap allocations per request).

use crate::boundary::Edge;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// Wraps each route of the router in [`EdgeService`].
#[derive(Clone)]
pub struct EdgeLayer(pub Arc<Edge>);

impl<S> tower::Layer<S> for EdgeLayer {
    type Service = EdgeService<S>;

    fn layer(&self, inner: S) -> EdgeService<S> {
        EdgeService {
            edge: self.0.clone(),
            inner,
        }
    }
}

/// A route behind the edge.
#[derive(Clone)]
pub struct EdgeService<S> {
    edge: Arc<Edge>,
    inner: S,
}

impl<S> tower::Service<Request> for EdgeService<S>
where
    S: tower::Service<Request, Error = Infallible> + Clone + Send + 'static,
    S::Response: IntoResponse,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        // tower's rule: the service polled ready is the one called; a clone stays behind.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let edge = self.edge.clone();
        Box::pin(async move { Ok(crate::boundary::edge(&edge, req, Route(inner)).await) })
    }
}

/// The wrapped route, called once the edge admits the request.
pub(crate) struct Route<S>(S);

impl<S> Route<S>
where
    S: tower::Service<Request, Error = Infallible>,
    S::Response: IntoResponse,
{
    /// The route's answer to `req`. Its future is boxed: inline, the route's future (which
    /// holds the request until the route is ready) made every future of the edge that
    /// holds it as large, copied at each await (`allot bench cost`).
    pub(crate) async fn run(mut self, req: Request) -> Response {
        match Box::pin(self.0.call(req)).await {
            Ok(resp) => resp.into_response(),
            Err(never) => match never {},
        }
    }
}
