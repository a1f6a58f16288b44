//! The route table: every operation once, with the handler (whose `#[utoipa::path]` gives the
//! method, the path and the OpenAPI operation) and the scope it needs. `utoipa-axum`'s
//! `OpenApiRouter` registers a route and its operation together; [`scoped`] writes the scope
//! into the operation (`x-required-scope`), which the edge checks from that same document
//! ([`crate::admit::Admissions`]), so the router, the document and the authorization cannot
//! drift.

use super::{
    batch, bookings, capacity, events, holds, jobs, keys, kits, listings, locations, queues, receiving, schedules,
    service, states, stats, stock, units, webhooks, ApiDoc,
};
use crate::state::AppState;
use allot_core::access::Scope;
use std::sync::Arc;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::path::{Operation, PathItem};
use utoipa::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};
use utoipa_axum::routes;

use crate::admit::{ANY_KEY_EXTENSION, SCOPE_EXTENSION};

type Route = UtoipaMethodRouter<Arc<AppState>>;

/// Every route of the API and its operation (the document's paths come only from here; its
/// components from [`ApiDoc`]). `/metrics` (Prometheus text) is a route without an operation.
pub(crate) fn table() -> OpenApiRouter<Arc<AppState>> {
    use Scope::{Admin, EventsRead, StockRead, StockWrite, UnitsRead, UnitsWrite, WebhooksManage};
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(open(routes!(service::healthz)))
        .routes(open(routes!(service::livez)))
        .routes(open(routes!(service::readyz)))
        .route(
            "/metrics",
            axum::routing::get(service::metrics).route_layer(crate::edge_layer::Routed),
        )
        .routes(scoped(StockWrite, routes!(stock::create_sku)))
        .routes(scoped(StockRead, routes!(listings::list_skus)))
        .routes(scoped(StockRead, routes!(stock::get_sku)))
        .routes(scoped(StockWrite, routes!(stock::patch_sku)))
        .routes(scoped(StockWrite, routes!(stock::adjust_sku)))
        .routes(scoped(StockRead, routes!(stock::ledger)))
        .routes(scoped(StockWrite, routes!(stock::create_allocation)))
        .routes(scoped(StockRead, routes!(listings::list_allocations)))
        .routes(scoped(StockRead, routes!(stock::get_allocation)))
        .routes(scoped(StockWrite, routes!(stock::cancel_allocation)))
        .routes(scoped(StockWrite, routes!(stock::return_allocation)))
        .routes(scoped(StockWrite, routes!(locations::create_location)))
        .routes(scoped(StockRead, routes!(locations::list_locations)))
        .routes(scoped(StockWrite, routes!(locations::create_transfer)))
        .routes(scoped(StockWrite, routes!(locations::set_level)))
        .routes(scoped(StockWrite, routes!(receiving::add_incoming)))
        .routes(scoped(StockWrite, routes!(receiving::receive)))
        .routes(scoped(StockWrite, routes!(states::move_stock)))
        .routes(scoped(StockWrite, routes!(kits::put_kit)))
        .routes(scoped(StockRead, routes!(kits::get_kit)))
        .routes(scoped(StockWrite, routes!(kits::delete_kit)))
        .routes(scoped(StockWrite, routes!(holds::create_hold)))
        .routes(scoped(StockRead, routes!(listings::list_holds)))
        .routes(scoped(StockRead, routes!(holds::get_hold)))
        .routes(scoped(StockWrite, routes!(holds::confirm_hold)))
        .routes(scoped(StockWrite, routes!(holds::extend_hold)))
        .routes(scoped(StockWrite, routes!(holds::release_hold)))
        .routes(scoped(StockWrite, routes!(batch::batch)))
        .routes(scoped(UnitsWrite, routes!(units::add_units)))
        .routes(scoped(UnitsRead, routes!(listings::list_units)))
        .routes(scoped(UnitsRead, routes!(listings::get_unit)))
        .routes(scoped(UnitsWrite, routes!(units::claim_units)))
        .merge(booking_table())
        .merge(queue_table())
        .routes(scoped(EventsRead, routes!(events::list_events)))
        .routes(scoped(EventsRead, routes!(events::stream_events)))
        .routes(scoped(WebhooksManage, routes!(webhooks::create_webhook)))
        .routes(scoped(WebhooksManage, routes!(webhooks::list_webhooks)))
        .routes(scoped(WebhooksManage, routes!(webhooks::delete_webhook)))
        .routes(scoped(WebhooksManage, routes!(webhooks::rotate_webhook)))
        .routes(scoped(WebhooksManage, routes!(webhooks::redeliver)))
        .routes(scoped(Admin, routes!(service::audit)))
        .routes(any_key("admin", routes!(keys::current_key)))
        .routes(any_key("service", routes!(stats::stats)))
        .routes(scoped(Admin, routes!(keys::create_key)))
        .routes(scoped(Admin, routes!(keys::list_keys)))
        .routes(scoped(Admin, routes!(keys::revoke_key)))
}

/// The routes of bookings, resources, pools and their slots.
fn booking_table() -> OpenApiRouter<Arc<AppState>> {
    use Scope::{BookingsRead, BookingsWrite};
    OpenApiRouter::new()
        .routes(scoped(BookingsWrite, routes!(bookings::create_booking)))
        .routes(scoped(BookingsRead, routes!(bookings::list_bookings)))
        .routes(scoped(BookingsRead, routes!(bookings::availability)))
        .routes(scoped(BookingsRead, routes!(bookings::get_booking)))
        .routes(scoped(BookingsWrite, routes!(bookings::cancel_booking)))
        .routes(scoped(BookingsWrite, routes!(bookings::confirm_booking)))
        .routes(scoped(BookingsWrite, routes!(bookings::extend_booking)))
        .routes(scoped(BookingsWrite, routes!(bookings::release_booking)))
        .routes(scoped(BookingsWrite, routes!(capacity::put_resource)))
        .routes(scoped(BookingsRead, routes!(capacity::get_resource)))
        .routes(scoped(BookingsWrite, routes!(capacity::put_pool)))
        .routes(scoped(BookingsWrite, routes!(capacity::put_slots)))
        .routes(scoped(BookingsRead, routes!(capacity::explain)))
        .routes(scoped(BookingsWrite, routes!(capacity::reschedule_booking)))
}

/// The queue's routes: jobs, queues, their settings and schedules.
fn queue_table() -> OpenApiRouter<Arc<AppState>> {
    use Scope::{JobsEnqueue, JobsManage, JobsRead, JobsWork};
    OpenApiRouter::new()
        .routes(scoped(JobsRead, routes!(queues::list_queues)))
        .routes(scoped(JobsRead, routes!(jobs::queue_counts)))
        .routes(scoped(JobsEnqueue, routes!(jobs::enqueue_jobs)))
        .routes(scoped(JobsRead, routes!(jobs::list_jobs)))
        .routes(scoped(JobsWork, routes!(jobs::complete_jobs)))
        .routes(scoped(JobsEnqueue, routes!(jobs::cancel_job)))
        .routes(scoped(JobsEnqueue, routes!(jobs::retry_job)))
        .routes(scoped(JobsManage, routes!(jobs::reschedule_job)))
        .routes(scoped(JobsWork, routes!(jobs::claim_jobs)))
        .routes(scoped(JobsWork, routes!(jobs::complete_job)))
        .routes(scoped(JobsWork, routes!(jobs::fail_job)))
        .routes(scoped(JobsWork, routes!(jobs::heartbeat_job)))
        .routes(scoped(JobsWork, routes!(jobs::snooze_job)))
        .routes(scoped(JobsRead, routes!(queues::get_job)))
        .routes(scoped(JobsManage, routes!(queues::put_settings)))
        .routes(scoped(JobsRead, routes!(queues::get_settings)))
        .routes(scoped(JobsManage, routes!(queues::pause_queue)))
        .routes(scoped(JobsManage, routes!(queues::resume_queue)))
        .routes(scoped(JobsManage, routes!(queues::bulk_jobs)))
        .routes(scoped(JobsManage, routes!(schedules::create_schedule)))
        .routes(scoped(JobsManage, routes!(schedules::list_schedules)))
        .routes(scoped(JobsManage, routes!(schedules::delete_schedule)))
        .routes(scoped(JobsManage, routes!(schedules::pause_schedule)))
        .routes(scoped(JobsManage, routes!(schedules::resume_schedule)))
}

/// `route` with `scope` written into its operation (the edge checks it:
/// [`crate::admit::Admissions`]), which is tagged by the scope's domain (`stock`,
/// `units`, `bookings`, `jobs`, `admin`).
fn scoped(scope: Scope, route: Route) -> Route {
    let domain = scope.name().split(':').next().unwrap_or("admin");
    let (schemas, mut paths, method_router) = tagged(domain, route);
    for item in paths.paths.values_mut() {
        for op in operations(item) {
            let ext = op.extensions.get_or_insert_with(Extensions::default);
            ext.insert(SCOPE_EXTENSION.into(), scope.name().into());
        }
    }
    (schemas, paths, method_router)
}

/// `route` open to any valid key (the guard still requires one and its rate applies:
/// [`crate::admit::Admissions`]), marked so in its operations ([`ANY_KEY_EXTENSION`]) and
/// tagged `tag`.
fn any_key(tag: &str, route: Route) -> Route {
    let (schemas, mut paths, method_router) = tagged(tag, route);
    for item in paths.paths.values_mut() {
        for op in operations(item) {
            let ext = op.extensions.get_or_insert_with(Extensions::default);
            ext.insert(ANY_KEY_EXTENSION.into(), true.into());
        }
    }
    (schemas, paths, method_router)
}

/// A service route, open to all (no key): tagged `service`.
fn open(route: Route) -> Route {
    tagged("service", route)
}

/// `route` with its operations tagged `tag` (how Swagger UI groups them).
fn tagged(tag: &str, route: Route) -> Route {
    let (schemas, mut paths, method_router) = route;
    for item in paths.paths.values_mut() {
        for op in operations(item) {
            op.tags = Some(vec![tag.to_string()]);
        }
    }
    (schemas, paths, method_router)
}

fn operations(item: &mut PathItem) -> impl Iterator<Item = &mut Operation> {
    [
        &mut item.get,
        &mut item.post,
        &mut item.put,
        &mut item.patch,
        &mut item.delete,
    ]
    .into_iter()
    .filter_map(Option::as_mut)
}

/// The OpenAPI document of [`table`] (paths, operations, scopes), before the served
/// document's bounds are added.
pub fn openapi() -> utoipa::openapi::OpenApi {
    table().into_openapi()
}

/// Every `/v1` operation of the table: method (upper case), path pattern, and the scope it
/// needs. The authorization tests walk it.
pub fn scopes() -> Vec<(String, String, Scope)> {
    let doc = serde_json::to_value(openapi()).expect("the document serializes");
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            if let Some(scope) = op[SCOPE_EXTENSION].as_str().and_then(|s| s.parse().ok()) {
                out.push((method.to_uppercase(), path.clone(), scope));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `/v1` operation of the route table is scoped, or marked for any key (a route
    /// added without either would pass any key unnoticed), and only `/v1` operations are.
    #[test]
    fn every_v1_operation_names_its_scope() {
        let doc = serde_json::to_value(openapi()).unwrap();
        let mut operations = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let scoped = op.get(SCOPE_EXTENSION).is_some();
                let any_key = op.get(ANY_KEY_EXTENSION) == Some(&serde_json::Value::Bool(true));
                assert!(!(scoped && any_key), "{method} {path}: scoped and for any key");
                assert_eq!(scoped || any_key, path.starts_with("/v1/"), "{method} {path}");
                if any_key {
                    assert!(
                        ["/v1/key", "/v1/stats"].contains(&path.as_str()),
                        "{method} {path} for any key"
                    );
                }
                operations += 1;
            }
        }
        assert_eq!(
            scopes().len() + 5,
            operations,
            "healthz, livez and readyz are the open operations; /v1/key and /v1/stats for any key"
        );
    }
}
