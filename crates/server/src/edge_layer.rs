//! The edge ([`crate::boundary::edge`]) as a tower service in front of the whole router. As
//! `Router::layer` it wrapped each route and so was boxed again with it on every request,
//! and `axum::middleware::from_fn` boxed a clone of the route as `Next` and `Next`'s future
//! again; this calls the router straight from the edge's one boxed future (`allot bench
//! cost`: the atomic allocation's instructions and heap allocations per request). Since it
//! runs before routing, it learns which pattern a request names from the route table
//! ([`crate::admit::Admissions`]), or from the route itself ([`Routed`]) for the routes
//! outside the table.

use crate::boundary::{Edge, Inner, Route};
use axum::extract::Request;
use axum::response::Response;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

/// What `allot serve` answers with (`crate::api::router`): the edge in front of the router.
#[derive(Clone)]
pub struct App {
    edge: Arc<Edge>,
    inner: Inner,
}

impl App {
    /// `router` behind `edge`, its panics caught as 500s.
    pub(crate) fn new(edge: Arc<Edge>, router: axum::Router) -> Self {
        let inner = tower::Layer::layer(
            &tower_http::catch_panic::CatchPanicLayer::custom(crate::error::Panicked),
            router,
        );
        App { edge, inner }
    }
}

impl<B> tower::Service<axum::http::Request<B>> for App
where
    B: axum::body::HttpBody<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        tower::Service::<Request>::poll_ready(&mut self.inner, cx)
    }

    fn call(&mut self, req: axum::http::Request<B>) -> Self::Future {
        let req = req.map(axum::body::Body::new);
        // tower's rule: the service polled ready is the one called; a clone stays behind.
        let clone = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, clone);
        let edge = self.edge.clone();
        Box::pin(async move { Ok(crate::boundary::edge(&edge, req, Route(inner)).await) })
    }
}

/// The route layer of the routes outside the route table (the documents, the console,
/// `/metrics`): it tells the edge which route matched ([`crate::request_id::routed`]), as
/// the table does for the others.
#[derive(Clone, Copy)]
pub struct Routed;

impl<S> tower::Layer<S> for Routed {
    type Service = RoutedService<S>;

    fn layer(&self, inner: S) -> RoutedService<S> {
        RoutedService(inner)
    }
}

/// A route behind [`Routed`].
#[derive(Clone)]
pub struct RoutedService<S>(S);

impl<S: tower::Service<Request>> tower::Service<Request> for RoutedService<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> S::Future {
        crate::request_id::routed(&req);
        self.0.call(req)
    }
}
