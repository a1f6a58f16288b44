//! Who may call a route, decided by the edge before the router runs: the route table's
//! operations ([`Admissions`], made from the document the table gives, so the router, the
//! document and the authorization cannot drift) say which route a request names and what it
//! needs; for a `/v1` route the guard ([`guard`]) finds the principal its key names, which
//! must hold the route's scope (else `403 missing_scope`) and whose rate must admit the
//! request (else `429`). A request without a principal never reaches a `/v1` handler.
//!
//! Checked in the edge rather than as each route's own tower layer: a route layer wraps the
//! route in another boxed route, cloned and boxed again on every request, where one lookup
//! of the path here costs a fraction of it (`allot bench cost`), and tells the edge the route
//! for its metrics and log line besides.

use crate::access::{Access, Principal};
use crate::error::ApiError;
use crate::request_log::AdmittedAs;
use allot_core::access::{allows, Scope};
use allot_core::AllotError;
use axum::http::{header, HeaderMap, Method};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The extension of an operation that names the scope it needs (written by the route table,
/// read here).
pub const SCOPE_EXTENSION: &str = "x-required-scope";

/// The extension of a `/v1` operation any valid key may call (it reads only about the key
/// itself or shows each part by the key's own scopes): `true`.
pub const ANY_KEY_EXTENSION: &str = "x-any-key";

/// What an operation asks of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Needs {
    /// Nothing: the service checks.
    Open,
    /// Any valid key (its rate applies).
    AnyKey,
    /// A key holding this scope (its rate applies).
    Scope(Scope),
}

/// A route of the table: its pattern, and what each of its methods needs.
struct Entry {
    route: &'static str,
    methods: Vec<(Method, Needs)>,
}

/// The route table's operations by path pattern (matchit, the router axum itself uses).
pub(crate) struct Admissions(matchit::Router<Entry>);

/// What the table says of one request: the route it names, and what its method needs
/// (`None`: the route has no such method — the router answers `405`).
pub(crate) struct Found {
    /// The route pattern (`/v1/skus/{sku}`).
    pub(crate) route: &'static str,
    /// What the request's method needs.
    pub(crate) needs: Option<Needs>,
}

impl Admissions {
    /// The operations of `doc` (the route table's document): each operation's scope
    /// extension ([`SCOPE_EXTENSION`]), its any-key mark, or open.
    pub(crate) fn of(doc: &utoipa::openapi::OpenApi) -> Self {
        let doc = serde_json::to_value(doc).expect("the document serializes");
        let mut table = matchit::Router::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            let methods = item.as_object().into_iter().flatten().filter_map(|(method, op)| {
                let method = Method::from_bytes(method.to_uppercase().as_bytes()).ok()?;
                Some((method, needs_of(op)))
            });
            let entry = Entry {
                route: crate::metrics_layer::interned(path),
                methods: methods.collect(),
            };
            table
                .insert(path.as_str(), entry)
                .expect("the table's paths are distinct patterns");
        }
        Admissions(table)
    }

    /// What the table says of `method` on `path`; `None` for a path it does not know.
    pub(crate) fn find(&self, method: &Method, path: &str) -> Option<Found> {
        let entry = self.0.at(path).ok()?.value;
        let needs = entry.methods.iter().find(|(m, _)| m == method).map(|(_, n)| *n);
        Some(Found {
            route: entry.route,
            needs,
        })
    }
}

/// What one operation of the document needs.
fn needs_of(op: &serde_json::Value) -> Needs {
    let scope = op[SCOPE_EXTENSION].as_str().and_then(|s| s.parse().ok());
    match scope {
        Some(scope) => Needs::Scope(scope),
        None if op[ANY_KEY_EXTENSION] == serde_json::Value::Bool(true) => Needs::AnyKey,
        None => Needs::Open,
    }
}

/// The guard, run by the edge ([`crate::boundary::edge`]) before the router for a request
/// (its `headers`) the table found (`found`): a `/v1` route needs a principal (a valid key, or none on an
/// open server), which must hold what its method needs; the principal is kept on the
/// request's task for the handlers, and named for the request's log line (`Ok(Some(…))`).
/// Other routes, and paths the table does not know, pass (`Ok(None)`). A refusal is the
/// answer (`Err`).
pub(crate) async fn guard(
    access: &Arc<Access>,
    headers: &HeaderMap,
    found: Option<&Found>,
) -> Result<Option<AdmittedAs>, Response> {
    let Some(found) = found.filter(|f| f.route.starts_with("/v1/")) else {
        return Ok(None);
    };
    let mut given = headers.get_all(header::AUTHORIZATION).iter();
    let auth = given.next().and_then(|v| v.to_str().ok());
    if given.next().is_some() {
        let e = AllotError::invalid("two Authorization headers: send one");
        return Err(ApiError(e).into_response());
    }
    let principal = access.principal(auth).await.map_err(|e| ApiError(e).into_response())?;
    if let Some(needs) = found.needs {
        admit(access, &principal, needs).map_err(|e| ApiError(e).into_response())?;
    }
    let admitted = AdmittedAs {
        tenant: principal.tenant.clone(),
        key_id: principal.key_id.clone(),
    };
    let _ = crate::request_id::REQUEST_ID.try_with(|t| t.principal.set(principal));
    Ok(Some(admitted))
}

/// `principal` may call an operation that `needs` it: its scope, then its rate.
fn admit(access: &Access, principal: &Principal, needs: Needs) -> Result<(), AllotError> {
    match needs {
        Needs::Open => Ok(()),
        Needs::AnyKey => access.admit(principal),
        Needs::Scope(scope) if !allows(&principal.scopes, scope) => {
            Err(AllotError::MissingScope { scope: scope.name() })
        }
        Needs::Scope(_) => access.admit(principal),
    }
}
