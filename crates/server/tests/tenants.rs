//! Tenants on both backends: another tenant's objects are `404` on every operation that names
//! one (the walk covers the server's own route table, so a new route cannot be forgotten),
//! listings show nothing of them, names and idempotency keys are per tenant, and two tenants
//! fighting over a SKU of the same name under load stay exact and invisible to each other.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use allot_core::access::Scope;
use common::TestServer;
use serde_json::{json, Value};
use std::collections::HashMap;

conformance!(other_tenants_objects_are_not_found, two_tenants_one_sku_name_under_load);

/// An admin key of `tenant`: (key id, `Bearer …`).
async fn admin_of(ts: &TestServer, tenant: &str) -> (String, String) {
    let (id, secret) = common::make_key(ts, tenant, &format!("{tenant}-admin"), &[Scope::Admin], None).await;
    (id, format!("Bearer {secret}"))
}

async fn send(ts: &TestServer, method: &str, path: &str, bearer: &str, body: Option<Value>) -> (u16, Value) {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = ts
        .client
        .request(m, format!("{}{path}", ts.url))
        .header("authorization", bearer);
    if let Some(b) = body {
        req = req.header("content-type", "application/json").body(b.to_string());
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    // An event stream answers at once and never ends: its status is the answer.
    if common::is_event_stream(&resp) {
        return (status, Value::Null);
    }
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn ok(ts: &TestServer, method: &str, path: &str, bearer: &str, body: Option<Value>) -> Value {
    let (s, b) = send(ts, method, path, bearer, body).await;
    assert!((200..300).contains(&s), "{method} {path}: {s} {b}");
    b
}

/// What tenant A made, by the ids B will aim at.
struct Made {
    allocation: String,
    hold: String,
    booking: String,
    job: i64,
    lease_token: String,
    key: String,
    webhook: String,
}

const WINDOW: &str = "from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z";

/// One of everything in tenant A: a SKU `S` with an allocation and a hold, a unit-tracked
/// `U`, a held booking on `R`, a running and an available job in `Q`.
async fn make_everything(ts: &TestServer, a: &str, key: String) -> Made {
    ok(ts, "POST", "/v1/skus", a, Some(json!({"sku": "S", "on_hand": 10}))).await;
    let kit = json!({"components": [{"sku": "S", "quantity": 2}]});
    ok(ts, "PUT", "/v1/kits/K", a, Some(kit)).await;
    ok(
        ts,
        "POST",
        "/v1/locations",
        a,
        Some(json!({"location": "WH-A", "priority": 1})),
    )
    .await;
    let at = json!({"delta": 2, "location": "WH-A"});
    ok(ts, "POST", "/v1/skus/S/adjustments", a, Some(at)).await;
    let lines = json!([{"sku": "S", "quantity": 1}]);
    let alloc = ok(ts, "POST", "/v1/allocations", a, Some(json!({ "lines": lines }))).await;
    let hold = ok(
        ts,
        "POST",
        "/v1/holds",
        a,
        Some(json!({"lines": lines, "ttl_ms": 600_000})),
    )
    .await;
    let units = json!({"units": [{"serial": "S1"}, {"serial": "S2"}]});
    ok(ts, "POST", "/v1/skus/U/units", a, Some(units)).await;
    let range = json!({"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z",
                       "holder": "a", "hold_ttl_ms": 600_000});
    let booking = ok(ts, "POST", "/v1/resources/R/bookings", a, Some(range)).await;
    let hall = json!({"capacity": 3, "slot_ms": 3_600_000});
    ok(ts, "PUT", "/v1/resources/RC", a, Some(hall)).await;
    let jobs = json!({"jobs": [{"payload": {"n": 1}}, {"payload": {"n": 2}}]});
    ok(ts, "POST", "/v1/queues/Q/jobs", a, Some(jobs)).await;
    let claim = json!({"max": 1, "lease_ms": 600_000});
    let claimed = ok(ts, "POST", "/v1/queues/Q/claims", a, Some(claim)).await;
    ok(ts, "PUT", "/v1/queues/Q", a, Some(json!({"max_running": 5}))).await;
    // Yearly: no pass moves it during the test.
    let nightly = json!({"name": "nightly", "cron": "0 0 1 1 *", "queue": "Q", "job": {}});
    ok(ts, "POST", "/v1/schedules", a, Some(nightly)).await;
    // A documentation address: refused as a delivery target, so nothing is ever sent.
    let hook = json!({"url": "https://hooks.example.invalid/a", "types": ["*"]});
    let webhook = ok(ts, "POST", "/v1/webhooks", a, Some(hook)).await;
    Made {
        allocation: alloc["id"].as_str().unwrap().into(),
        hold: hold["id"].as_str().unwrap().into(),
        booking: booking["id"].as_str().unwrap().into(),
        job: claimed["jobs"][0]["id"].as_i64().unwrap(),
        lease_token: claimed["jobs"][0]["lease_token"].as_str().unwrap().into(),
        key,
        webhook: webhook["id"].as_str().unwrap().into(),
    }
}

/// Everything tenant A can see of what it made.
async fn view(ts: &TestServer, a: &str, m: &Made) -> Vec<Value> {
    let paths = [
        "/v1/skus/S".to_string(),
        "/v1/skus/S/ledger".into(),
        "/v1/skus/U".into(),
        "/v1/kits/K".into(),
        "/v1/locations".into(),
        format!("/v1/allocations/{}", m.allocation),
        format!("/v1/holds/{}", m.hold),
        format!("/v1/bookings/{}", m.booking),
        format!("/v1/resources/R/bookings?{WINDOW}"),
        "/v1/resources/RC".into(),
        "/v1/queues/Q".into(),
        "/v1/queues/Q/jobs?state=running".into(),
        "/v1/queues/Q/jobs?state=available".into(),
        "/v1/queues/Q/settings".into(),
        "/v1/queues".into(),
        "/v1/schedules".into(),
        format!("/v1/jobs/{}", m.job),
        "/v1/audit".into(),
        "/v1/keys".into(),
        "/v1/webhooks".into(),
    ];
    let mut out = Vec::new();
    for p in paths {
        let mut got = ok(ts, "GET", &p, a, None).await;
        // An endpoint's health moves with the server's own delivery attempts (its refused
        // address fails each one), not with anyone's requests.
        for w in got["webhooks"].as_array_mut().into_iter().flatten() {
            w.as_object_mut().map(|w| w.remove("health"));
        }
        out.push(got);
    }
    out
}

/// What B's request on a route of A's objects must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Expect {
    /// `404 not_found`: the object is another tenant's.
    NotFound,
    /// `200` showing nothing of tenant A's.
    Nothing,
    /// `2xx` in B's own namespace (the same name is free there).
    Own,
}

/// For every route of the table: the concrete path B sends (aimed at A's objects), its body,
/// and what it must get.
fn plan(m: &Made) -> HashMap<(&'static str, &'static str), (String, Option<Value>, Expect)> {
    use Expect::*;
    let tok = json!({"lease_token": m.lease_token});
    let (a, h, b, j, k) = (&m.allocation, &m.hold, &m.booking, m.job, &m.key);
    let w = &m.webhook;
    let line = json!([{"sku": "S", "quantity": 1}]);
    let range = json!({"start": "2030-01-01T10:00:00Z", "end": "2030-01-01T11:00:00Z", "holder": "b"});
    let rows: Vec<(&str, &str, String, Option<Value>, Expect)> = vec![
        (
            "POST",
            "/v1/skus",
            "/v1/skus".into(),
            Some(json!({"sku": "S", "on_hand": 5})),
            Own,
        ),
        ("GET", "/v1/skus/{sku}", "/v1/skus/S".into(), None, NotFound),
        ("GET", "/v1/skus", "/v1/skus".into(), None, Nothing),
        (
            "POST",
            "/v1/allocations/{id}/cancel",
            format!("/v1/allocations/{a}/cancel"),
            None,
            NotFound,
        ),
        ("GET", "/v1/allocations", "/v1/allocations".into(), None, Nothing),
        // 200, each operation aimed at A's objects `not_found` (A's objects are compared
        // unchanged after the pass).
        (
            "POST",
            "/v1/batch",
            "/v1/batch".into(),
            Some(json!({"operations": [
                {"op": "cancel", "id": a},
                {"op": "confirm", "id": h},
                {"op": "release", "id": h},
            ]})),
            Own,
        ),
        (
            "POST",
            "/v1/allocations/{id}/returns",
            format!("/v1/allocations/{a}/returns"),
            Some(json!({"lines": [{"sku": "S", "quantity": 1}]})),
            NotFound,
        ),
        (
            "POST",
            "/v1/locations",
            "/v1/locations".into(),
            Some(json!({"location": "WH-A"})),
            Own,
        ),
        ("GET", "/v1/locations", "/v1/locations".into(), None, Nothing),
        (
            "POST",
            "/v1/transfers",
            "/v1/transfers".into(),
            Some(json!({"sku": "S", "from": "WH-A", "to": "default", "quantity": 1})),
            NotFound,
        ),
        (
            "POST",
            "/v1/skus/{sku}/levels/{location}",
            "/v1/skus/S/levels/WH-A".into(),
            Some(json!({"on_hand": 1, "compare_on_hand": 2})),
            NotFound,
        ),
        (
            "POST",
            "/v1/skus/{sku}/incoming",
            "/v1/skus/S/incoming".into(),
            Some(json!({"quantity": 1})),
            NotFound,
        ),
        (
            "POST",
            "/v1/skus/{sku}/receipts",
            "/v1/skus/S/receipts".into(),
            Some(json!({"quantity": 1})),
            NotFound,
        ),
        (
            "POST",
            "/v1/skus/{sku}/moves",
            "/v1/skus/S/moves".into(),
            Some(json!({"from": "available", "to": "damaged", "quantity": 1, "reason": "damaged"})),
            NotFound,
        ),
        (
            "PUT",
            "/v1/kits/{kit}",
            "/v1/kits/K".into(),
            Some(json!({"components": [{"sku": "S", "quantity": 1}]})),
            NotFound,
        ),
        ("GET", "/v1/kits/{kit}", "/v1/kits/K".into(), None, NotFound),
        ("DELETE", "/v1/kits/{kit}", "/v1/kits/K".into(), None, NotFound),
        ("GET", "/v1/holds", "/v1/holds".into(), None, Nothing),
        ("GET", "/v1/skus/{sku}/units", "/v1/skus/U/units".into(), None, NotFound),
        (
            "GET",
            "/v1/skus/{sku}/units/{serial}",
            "/v1/skus/U/units/S1".into(),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/skus/{sku}/adjustments",
            "/v1/skus/S/adjustments".into(),
            Some(json!({"delta": 1})),
            NotFound,
        ),
        (
            "GET",
            "/v1/skus/{sku}/ledger",
            "/v1/skus/S/ledger".into(),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/allocations",
            "/v1/allocations".into(),
            Some(json!({ "lines": line })),
            NotFound,
        ),
        (
            "GET",
            "/v1/allocations/{id}",
            format!("/v1/allocations/{a}"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/holds",
            "/v1/holds".into(),
            Some(json!({"lines": line, "ttl_ms": 60_000})),
            NotFound,
        ),
        ("GET", "/v1/holds/{id}", format!("/v1/holds/{h}"), None, NotFound),
        (
            "POST",
            "/v1/holds/{id}/confirm",
            format!("/v1/holds/{h}/confirm"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/holds/{id}/release",
            format!("/v1/holds/{h}/release"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/holds/{id}/extend",
            format!("/v1/holds/{h}/extend"),
            Some(json!({"ttl_ms": 60_000})),
            NotFound,
        ),
        (
            "POST",
            "/v1/skus/{sku}/units",
            "/v1/skus/U/units".into(),
            Some(json!({"units": [{"serial": "S1"}]})),
            Own,
        ),
        (
            "POST",
            "/v1/unit-allocations",
            "/v1/unit-allocations".into(),
            Some(json!({"sku": "U", "quantity": 1})),
            NotFound,
        ),
        (
            "POST",
            "/v1/resources/{resource}/bookings",
            "/v1/resources/R/bookings".into(),
            Some(range),
            Own,
        ),
        (
            "GET",
            "/v1/resources/{resource}/bookings",
            format!("/v1/resources/R/bookings?{WINDOW}"),
            None,
            Nothing,
        ),
        (
            "GET",
            "/v1/resources/{resource}/availability",
            format!("/v1/resources/R/availability?{WINDOW}"),
            None,
            Nothing,
        ),
        ("GET", "/v1/bookings/{id}", format!("/v1/bookings/{b}"), None, NotFound),
        (
            "POST",
            "/v1/bookings/{id}/reschedule",
            format!("/v1/bookings/{b}/reschedule"),
            Some(json!({"start": "2030-01-01T12:00:00Z", "end": "2030-01-01T13:00:00Z"})),
            NotFound,
        ),
        // A's `RC` was put; to B it is a resource never put.
        (
            "GET",
            "/v1/resources/{resource}",
            "/v1/resources/RC".into(),
            None,
            Nothing,
        ),
        (
            "GET",
            "/v1/resources/{resource}/explain",
            "/v1/resources/RC/explain?start=2030-01-01T10:00:00Z&end=2030-01-01T11:00:00Z".into(),
            None,
            Nothing,
        ),
        (
            "PUT",
            "/v1/resources/{resource}/slots",
            "/v1/resources/RC/slots".into(),
            Some(json!({"from": "2030-01-01T00:00:00Z", "to": "2030-01-01T02:00:00Z", "capacity": 0})),
            NotFound,
        ),
        (
            "PUT",
            "/v1/resources/{resource}",
            "/v1/resources/RC".into(),
            Some(json!({"capacity": 2, "slot_ms": 3_600_000})),
            Own,
        ),
        (
            "PUT",
            "/v1/pools/{pool}",
            "/v1/pools/P".into(),
            Some(json!({"capacity": 2, "slot_ms": 3_600_000})),
            Own,
        ),
        (
            "DELETE",
            "/v1/bookings/{id}",
            format!("/v1/bookings/{b}"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/bookings/{id}/confirm",
            format!("/v1/bookings/{b}/confirm"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/bookings/{id}/release",
            format!("/v1/bookings/{b}/release"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/bookings/{id}/extend",
            format!("/v1/bookings/{b}/extend"),
            Some(json!({"ttl_ms": 60_000})),
            NotFound,
        ),
        ("GET", "/v1/queues/{queue}", "/v1/queues/Q".into(), None, Nothing),
        ("GET", "/v1/queues", "/v1/queues".into(), None, Nothing),
        ("GET", "/v1/jobs/{id}", format!("/v1/jobs/{j}"), None, NotFound),
        (
            "POST",
            "/v1/jobs/{id}/snooze",
            format!("/v1/jobs/{j}/snooze"),
            Some(json!({"lease_token": m.lease_token, "delay_ms": 1000})),
            NotFound,
        ),
        (
            "GET",
            "/v1/queues/{queue}/settings",
            "/v1/queues/Q/settings".into(),
            None,
            Nothing,
        ),
        (
            "PUT",
            "/v1/queues/{queue}",
            "/v1/queues/Q".into(),
            Some(json!({"paused": true})),
            Own,
        ),
        (
            "POST",
            "/v1/queues/{queue}/pause",
            "/v1/queues/Q/pause".into(),
            None,
            Own,
        ),
        (
            "POST",
            "/v1/queues/{queue}/resume",
            "/v1/queues/Q/resume".into(),
            None,
            Own,
        ),
        (
            "POST",
            "/v1/queues/{queue}/jobs/bulk",
            "/v1/queues/Q/jobs/bulk".into(),
            Some(json!({"action": "cancel"})),
            Nothing,
        ),
        ("GET", "/v1/schedules", "/v1/schedules".into(), None, Nothing),
        (
            "POST",
            "/v1/schedules",
            "/v1/schedules".into(),
            Some(json!({"name": "nightly", "cron": "0 0 1 1 *", "queue": "Q", "job": {}})),
            Own,
        ),
        (
            "DELETE",
            "/v1/schedules/{name}",
            "/v1/schedules/nightly".into(),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/schedules/{name}/pause",
            "/v1/schedules/nightly/pause".into(),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/schedules/{name}/resume",
            "/v1/schedules/nightly/resume".into(),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/queues/{queue}/jobs",
            "/v1/queues/Q/jobs".into(),
            Some(json!({"jobs": [{"payload": {}}]})),
            Own,
        ),
        (
            "GET",
            "/v1/queues/{queue}/jobs",
            "/v1/queues/Q/jobs?state=running".into(),
            None,
            Nothing,
        ),
        (
            "POST",
            "/v1/queues/{queue}/completions",
            "/v1/queues/Q/completions".into(),
            Some(json!({"jobs": [{"id": j, "lease_token": m.lease_token}]})),
            Nothing,
        ),
        (
            "POST",
            "/v1/jobs/{id}/cancel",
            format!("/v1/jobs/{j}/cancel"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/jobs/{id}/retry",
            format!("/v1/jobs/{j}/retry"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/jobs/{id}/reschedule",
            format!("/v1/jobs/{j}/reschedule"),
            Some(json!({"delay_ms": 60_000})),
            NotFound,
        ),
        (
            "POST",
            "/v1/queues/{queue}/claims",
            "/v1/queues/Q/claims".into(),
            Some(json!({"max": 10})),
            Nothing,
        ),
        (
            "POST",
            "/v1/jobs/{id}/complete",
            format!("/v1/jobs/{j}/complete"),
            Some(tok.clone()),
            NotFound,
        ),
        (
            "POST",
            "/v1/jobs/{id}/fail",
            format!("/v1/jobs/{j}/fail"),
            Some(json!({"lease_token": m.lease_token, "error": "x"})),
            NotFound,
        ),
        (
            "POST",
            "/v1/jobs/{id}/heartbeat",
            format!("/v1/jobs/{j}/heartbeat"),
            Some(json!({"lease_token": m.lease_token, "lease_ms": 60_000})),
            NotFound,
        ),
        ("GET", "/v1/audit", "/v1/audit".into(), None, Nothing),
        (
            "POST",
            "/v1/keys",
            "/v1/keys".into(),
            Some(json!({"name": "b2", "scopes": ["stock:read"]})),
            Own,
        ),
        ("GET", "/v1/keys", "/v1/keys".into(), None, Nothing),
        ("DELETE", "/v1/keys/{id}", format!("/v1/keys/{k}"), None, NotFound),
        (
            "PATCH",
            "/v1/skus/{sku}",
            "/v1/skus/S".into(),
            Some(json!({"low_stock_below": 3})),
            NotFound,
        ),
        ("GET", "/v1/events", "/v1/events".into(), None, Nothing),
        ("GET", "/v1/events/stream", "/v1/events/stream".into(), None, Nothing),
        ("GET", "/v1/webhooks", "/v1/webhooks".into(), None, Nothing),
        (
            "POST",
            "/v1/webhooks",
            "/v1/webhooks".into(),
            Some(json!({"url": "https://hooks.example.invalid/b", "types": ["*"]})),
            Own,
        ),
        (
            "DELETE",
            "/v1/webhooks/{id}",
            format!("/v1/webhooks/{w}"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/webhooks/{id}/rotate",
            format!("/v1/webhooks/{w}/rotate"),
            None,
            NotFound,
        ),
        (
            "POST",
            "/v1/webhooks/{id}/redeliver",
            format!("/v1/webhooks/{w}/redeliver"),
            Some(json!({"after": 0})),
            NotFound,
        ),
    ];
    rows.into_iter()
        .map(|(m, r, p, b, e)| {
            let body = b.or_else(|| (m == "POST").then(|| json!({})));
            ((m, r), (p, body, e))
        })
        .collect()
}

/// A `Nothing` answer must show none of A's objects.
fn shows_nothing(route: &str, body: &Value, m: &Made) {
    let text = body.to_string();
    for id in [&m.allocation, &m.hold, &m.booking, &m.key, &m.webhook] {
        assert!(!text.contains(id.as_str()), "{route} shows tenant A's {id}: {text}");
    }
    let empty = |v: &Value| v.as_array().is_some_and(|a| a.is_empty());
    match route {
        "/v1/resources/{resource}/bookings" => assert!(empty(&body["bookings"]), "{text}"),
        "/v1/resources/{resource}/availability" => assert_eq!(body["free"].as_array().map(Vec::len), Some(1), "{text}"),
        "/v1/resources/{resource}" => {
            assert_eq!(
                (body["capacity"].as_i64(), body.get("updated_at")),
                (Some(1), None),
                "{text}"
            )
        }
        "/v1/resources/{resource}/explain" => assert_eq!(body["bookable"], true, "{text}"),
        "/v1/queues/{queue}" => assert!(body["counts"].as_object().unwrap().values().all(|n| n == 0), "{text}"),
        "/v1/queues/{queue}/jobs" | "/v1/queues/{queue}/claims" => assert!(empty(&body["jobs"]), "{text}"),
        "/v1/queues/{queue}/completions" => assert!(empty(&body["completed"]), "{text}"),
        "/v1/queues" => assert!(empty(&body["queues"]), "{text}"),
        "/v1/queues/{queue}/settings" => assert_eq!(body["max_running"], Value::Null, "{text}"),
        "/v1/queues/{queue}/jobs/bulk" => assert_eq!(body["matched"], 0, "{text}"),
        "/v1/schedules" => assert!(empty(&body["schedules"]), "{text}"),
        "/v1/skus" => assert!(empty(&body["skus"]), "{text}"),
        "/v1/allocations" => assert!(empty(&body["allocations"]), "{text}"),
        "/v1/holds" => assert!(empty(&body["holds"]), "{text}"),
        "/v1/locations" => assert_eq!(
            body["locations"].as_array().map(Vec::len),
            Some(1),
            "only default: {text}"
        ),
        "/v1/audit" => assert_eq!(
            (body["skus_checked"].as_u64(), body["jobs_checked"].as_u64()),
            (Some(0), Some(0))
        ),
        "/v1/events" => assert!(empty(&body["events"]), "B's feed shows none of A's events: {text}"),
        // The stream answers at once and never ends; tests/events.rs reads its events.
        "/v1/events/stream" => {}
        "/v1/webhooks" => assert!(empty(&body["webhooks"]), "{text}"),
        "/v1/keys" => assert!(
            body["keys"].as_array().unwrap().iter().all(|k| k["tenant"] == "globex"),
            "{text}"
        ),
        other => panic!("no check for {other}"),
    }
}

async fn other_tenants_objects_are_not_found(ts: &TestServer) {
    let (a_key, a) = admin_of(ts, "acme").await;
    let (_, b) = admin_of(ts, "globex").await;
    let made = make_everything(ts, &a, a_key).await;
    let before = view(ts, &a, &made).await;
    let plan = plan(&made);
    let scopes = allot_server::scopes();
    let table: Vec<(&str, &str)> = scopes.iter().map(|(m, p, _)| (m.as_str(), p.as_str())).collect();
    for route in &table {
        assert!(plan.contains_key(route), "no tenant expectation for {route:?}");
    }
    assert_eq!(
        plan.len(),
        table.len(),
        "the plan names a route the server does not have"
    );
    // Everything aimed at A's objects first, then B's own creations under A's names.
    let mut counts: HashMap<Expect, usize> = HashMap::new();
    for pass in [[Expect::NotFound, Expect::Nothing], [Expect::Own, Expect::Own]] {
        for (method, route) in &table {
            let (path, body, expect) = &plan[&(*method, *route)];
            if !pass.contains(expect) {
                continue;
            }
            *counts.entry(*expect).or_default() += 1;
            let (s, got) = send(ts, method, path, &b, body.clone()).await;
            match expect {
                Expect::NotFound => assert_eq!(
                    (s, got["error"]["code"].as_str()),
                    (404, Some("not_found")),
                    "{method} {path} as another tenant: {got}"
                ),
                Expect::Nothing => {
                    assert_eq!(s, 200, "{method} {path}: {got}");
                    shows_nothing(route, &got, &made);
                }
                Expect::Own => {
                    assert!((200..300).contains(&s), "{method} {path} in B's own space: {s} {got}");
                    for r in got["results"].as_array().into_iter().flatten() {
                        assert_eq!(r["status"], 404, "a batch reached A's object: {got}");
                    }
                }
            }
        }
    }
    assert_eq!(counts[&Expect::NotFound], 46, "{counts:?}");
    assert_eq!(
        view(ts, &a, &made).await,
        before,
        "another tenant's requests changed tenant A's objects"
    );
    // B's `S` is B's own (5 on hand, not A's 10 - 2), and A's booking never blocked B's.
    assert_eq!(ok(ts, "GET", "/v1/skus/S", &b, None).await["on_hand"], 5);
    let booked = ok(ts, "GET", &format!("/v1/resources/R/bookings?{WINDOW}"), &b, None).await;
    assert_eq!(booked["bookings"].as_array().unwrap().len(), 1, "{booked}");
    for who in [&a, &b] {
        let audit = ok(ts, "GET", "/v1/audit", who, None).await;
        assert_eq!(audit["violations"], json!([]), "{audit}");
        assert_eq!(audit["booking_overlaps"], json!([]), "{audit}");
    }
}

/// Both tenants sell a SKU named `HOT` at once (A has 100, B 60), 150 buyers each, one unit
/// per request, each request with an Idempotency-Key that the other tenant uses too: exactly
/// 100 and 60 are sold, every refusal is `insufficient_stock`, each ledger holds only its own
/// tenant's allocations (by the tenant's key), neither sees the other's allocations, both
/// audits are clean.
async fn two_tenants_one_sku_name_under_load(ts: &TestServer) {
    let (a_key, a) = admin_of(ts, "acme").await;
    let (b_key, b) = admin_of(ts, "globex").await;
    ok(ts, "POST", "/v1/skus", &a, Some(json!({"sku": "HOT", "on_hand": 100}))).await;
    ok(ts, "POST", "/v1/skus", &b, Some(json!({"sku": "HOT", "on_hand": 60}))).await;
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..150 {
        for (tenant, bearer) in [("acme", a.clone()), ("globex", b.clone())] {
            let (client, url) = (ts.client.clone(), ts.url.clone());
            tasks.spawn(async move {
                let resp = client
                    .post(format!("{url}/v1/allocations"))
                    .header("authorization", bearer)
                    .header("idempotency-key", format!("order-{i}"))
                    .header("content-type", "application/json")
                    .body(json!({"lines": [{"sku": "HOT", "quantity": 1}]}).to_string())
                    .send()
                    .await
                    .unwrap();
                let status = resp.status().as_u16();
                (tenant, status, resp.json::<Value>().await.unwrap())
            });
        }
    }
    let mut sold: HashMap<&str, Vec<String>> = HashMap::new();
    let mut refused: HashMap<&str, usize> = HashMap::new();
    while let Some(r) = tasks.join_next().await {
        let (tenant, status, body) = r.unwrap();
        match status {
            201 => sold
                .entry(tenant)
                .or_default()
                .push(body["id"].as_str().unwrap().into()),
            409 => {
                assert_eq!(body["error"]["code"], "insufficient_stock", "{body}");
                *refused.entry(tenant).or_default() += 1;
            }
            s => panic!("{tenant}: {s} {body}"),
        }
    }
    assert_eq!((sold["acme"].len(), refused["acme"]), (100, 50));
    assert_eq!((sold["globex"].len(), refused["globex"]), (60, 90));
    for (bearer, key, own, other) in [
        (&a, &a_key, &sold["acme"], &sold["globex"]),
        (&b, &b_key, &sold["globex"], &sold["acme"]),
    ] {
        let sku = ok(ts, "GET", "/v1/skus/HOT", bearer, None).await;
        assert_eq!(
            (sku["on_hand"].as_i64(), sku["available"].as_i64()),
            (Some(0), Some(0)),
            "{sku}"
        );
        let ledger = ok(ts, "GET", "/v1/skus/HOT/ledger?limit=1000", bearer, None).await;
        let allocations: Vec<&Value> = ledger["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["kind"] == "allocation")
            .collect();
        assert_eq!(allocations.len(), own.len());
        assert!(
            allocations.iter().all(|e| e["actor"] == key.as_str()),
            "an entry of another key"
        );
        for id in other.iter().take(5) {
            let (s, _) = send(ts, "GET", &format!("/v1/allocations/{id}"), bearer, None).await;
            assert_eq!(s, 404, "another tenant's allocation {id} is visible");
        }
        let audit = ok(ts, "GET", "/v1/audit", bearer, None).await;
        assert_eq!(
            (audit["skus_checked"].as_u64(), audit["violations"].clone()),
            (Some(1), json!([]))
        );
    }
}
