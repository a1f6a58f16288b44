//! Answer fields injected into requests, generated from the served OpenAPI document: for every
//! operation with a body, every property of its answer schema that its request schema does not
//! have (at the top level, and inside the items of an array both name, such as `lines`) is sent
//! inside an otherwise valid request. Each must be refused with `400 invalid_request` naming
//! the field, and nothing may change. Because the fields come from the document the server
//! serves, a new answer field cannot be forgotten here; an operation with a body that has no
//! base body below fails the test.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Map, Value};

conformance!(answer_fields_are_refused_in_requests);

/// A valid body for each operation with one (path template, with `{…}` filled in by
/// [`fill`]): the injected field must be the only reason for a refusal.
fn base_body(path: &str) -> Option<Value> {
    let lines = json!([{"sku": "S", "quantity": 1}]);
    Some(match path {
        "/v1/skus" => json!({"sku": "NEW", "on_hand": 1}),
        "/v1/skus/{sku}/adjustments" => json!({"delta": 1}),
        "/v1/allocations" => json!({"lines": lines}),
        "/v1/batch" => json!({"operations": [{"op": "release", "id": "x"}]}),
        "/v1/allocations/{id}/returns" => json!({"lines": lines}),
        "/v1/holds" => json!({"lines": lines, "ttl_ms": 600000}),
        "/v1/holds/{id}/confirm" => json!({"lines": lines}),
        "/v1/holds/{id}/extend" | "/v1/bookings/{id}/extend" => json!({"ttl_ms": 600000}),
        "/v1/resources/{resource}/bookings" => {
            json!({"start": "2030-01-01T00:00:00Z", "end": "2030-01-01T01:00:00Z", "holder": "h"})
        }
        "/v1/queues/{queue}/jobs" => json!({"jobs": [{"payload": {"a": 1}}]}),
        "/v1/queues/{queue}/claims" => json!({"max": 1}),
        "/v1/jobs/{id}/complete" | "/v1/jobs/{id}/fail" | "/v1/jobs/{id}/heartbeat" => {
            json!({"lease_token": "t"})
        }
        "/v1/queues/{queue}/completions" => json!({"jobs": [{"id": 1, "lease_token": "t"}]}),
        "/v1/keys" => json!({"name": "k", "scopes": ["admin"]}),
        "/v1/locations" => json!({"location": "L9", "priority": 1}),
        "/v1/transfers" => json!({"sku": "S", "from": "default", "to": "L9", "quantity": 1}),
        "/v1/skus/{sku}/levels/{location}" => json!({"on_hand": 1, "compare_on_hand": 10}),
        "/v1/skus/{sku}/incoming" => json!({"quantity": 1}),
        "/v1/skus/{sku}/receipts" => json!({"quantity": 1, "location": "default"}),
        "/v1/skus/{sku}/moves" => json!({"from": "available", "to": "damaged", "quantity": 1, "reason": "damaged"}),
        "/v1/skus/{sku}/units" => json!({"units": [{"serial": "Z1"}]}),
        "/v1/unit-allocations" => json!({"sku": "U", "quantity": 1}),
        "/v1/skus/{sku}" => json!({"low_stock_below": 3}),
        "/v1/kits/{kit}" => json!({"components": [{"sku": "S", "quantity": 1}]}),
        // A documentation address: refused as a delivery target, so nothing is ever sent.
        "/v1/webhooks" => json!({"url": "https://hooks.example.invalid/hook", "types": ["*"]}),
        "/v1/webhooks/{id}/redeliver" => json!({"after": 0}),
        "/v1/jobs/{id}/snooze" => json!({"lease_token": "t", "delay_ms": 0}),
        "/v1/jobs/{id}/reschedule" => json!({"delay_ms": 0}),
        "/v1/queues/{queue}" => json!({"paused": false}),
        "/v1/queues/{queue}/jobs/bulk" => json!({"action": "cancel", "dry_run": true}),
        "/v1/schedules" => json!({"name": "inj", "cron": "0 0 * * *", "queue": "q", "job": {}}),
        "/v1/bookings/{id}/reschedule" => json!({"start": "2031-01-01T00:00:00Z", "end": "2031-01-01T02:00:00Z"}),
        "/v1/resources/{resource}" => json!({"capacity": 2, "slot_ms": 3_600_000}),
        "/v1/pools/{pool}" => json!({"capacity": 2, "slot_ms": 3_600_000}),
        "/v1/resources/{resource}/slots" => {
            json!({"from": "2031-01-01T00:00:00Z", "to": "2031-01-01T02:00:00Z", "capacity": 1})
        }
        _ => return None,
    })
}

/// The path with its parameters filled in with objects the setup made.
fn fill(path: &str, ids: &Ids) -> String {
    let id = if path.starts_with("/v1/holds/") {
        ids.hold.clone()
    } else if path.starts_with("/v1/allocations/") {
        ids.allocation.clone()
    } else if path.starts_with("/v1/bookings/") {
        ids.booking.clone()
    } else {
        ids.job.to_string()
    };
    path.replace("{sku}", "S")
        .replace("{location}", "default")
        .replace("{queue}", "q")
        .replace("{kit}", "K")
        .replace("{resource}", "r")
        .replace("{pool}", "p")
        .replace("{id}", &id)
}

struct Ids {
    hold: String,
    allocation: String,
    booking: String,
    job: i64,
}

/// The schema `v` stands for: `$ref`s followed, and of a `oneOf`/`anyOf`/`allOf` the first
/// branch that is an object or an array (an optional body is `oneOf [null, body]`).
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    if let Some(r) = v["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return resolve(doc, &doc["components"]["schemas"][name]);
    }
    for k in ["oneOf", "anyOf", "allOf"] {
        if let Some(branches) = v[k].as_array() {
            if let Some(b) = branches
                .iter()
                .map(|b| resolve(doc, b))
                .find(|b| b["properties"].is_object() || b["items"].is_object())
            {
                return b;
            }
        }
    }
    v
}

fn properties<'a>(doc: &'a Value, schema: &'a Value) -> Map<String, Value> {
    let mut s = schema;
    while let Some(r) = s["$ref"].as_str() {
        s = &doc["components"]["schemas"][r.trim_start_matches("#/components/schemas/")];
    }
    // A `oneOf` of objects (a hold's line: stock or units) has every variant's properties.
    if let Some(variants) = s["oneOf"].as_array() {
        return variants.iter().flat_map(|v| properties(doc, v)).collect();
    }
    resolve(doc, s)["properties"].as_object().cloned().unwrap_or_default()
}

/// One injection: where (`None`: top level; `Some(p)`: inside `p[0]`) and which field.
#[derive(Debug)]
struct Injection {
    method: String,
    path: String,
    inside: Option<String>,
    field: String,
}

/// Every answer-only field of every operation with a body, from the served document.
fn injections(doc: &Value) -> Vec<Injection> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(req) = op["requestBody"]["content"]["application/json"]["schema"].as_object() else {
                continue;
            };
            let req = Value::Object(req.clone());
            let ok = op["responses"]
                .as_object()
                .unwrap()
                .iter()
                .find(|(status, _)| status.starts_with('2'))
                .map(|(_, r)| r["content"]["application/json"]["schema"].clone())
                .unwrap_or(Value::Null);
            let (rp, ap) = (properties(doc, &req), properties(doc, &ok));
            let mut add = |inside: Option<&str>, field: &str| {
                out.push(Injection {
                    method: method.to_uppercase(),
                    path: path.clone(),
                    inside: inside.map(str::to_string),
                    field: field.to_string(),
                })
            };
            for f in ap.keys().filter(|f| !rp.contains_key(*f)) {
                add(None, f);
            }
            for (name, r) in &rp {
                let (Some(ri), Some(ai)) = (resolve(doc, r)["items"].as_object(), ap.get(name)) else {
                    continue;
                };
                let Some(ai) = resolve(doc, ai)["items"].as_object() else {
                    continue;
                };
                let ri = properties(doc, &Value::Object(ri.clone()));
                let ai = properties(doc, &Value::Object(ai.clone()));
                for f in ai.keys().filter(|f| !ri.contains_key(*f)) {
                    add(Some(name), f);
                }
            }
        }
    }
    out
}

/// What a refused request must leave as it was.
async fn snapshot(ts: &TestServer) -> Vec<Value> {
    let mut s = Vec::new();
    for path in [
        "/v1/skus?limit=100",
        "/v1/skus/S/ledger?after=0&limit=100",
        "/v1/allocations?limit=100",
        "/v1/holds?limit=100",
        "/v1/queues/q",
        "/v1/locations",
        "/v1/audit",
    ] {
        let (status, body) = ts.get(path).await;
        s.push(json!({"path": path, "status": status, "body": body}));
    }
    s
}

async fn setup(ts: &TestServer) -> Ids {
    ts.create_sku("S", 10, 1).await;
    ts.ok("/v1/skus/U/units", json!({"units": [{"serial": "U1"}]})).await;
    let allocation = ts
        .ok("/v1/allocations", json!({"lines": [{"sku": "S", "quantity": 2}]}))
        .await;
    let hold = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "S", "quantity": 2}], "ttl_ms": 600000}),
        )
        .await;
    let booking = ts
        .ok(
            "/v1/resources/r/bookings",
            json!({"start": "2031-01-01T00:00:00Z", "end": "2031-01-02T00:00:00Z", "holder": "h", "hold_ttl_ms": 600000}),
        )
        .await;
    let job = ts.ok("/v1/queues/q/jobs", json!({"jobs": [{"payload": {}}]})).await;
    Ids {
        hold: hold["id"].as_str().unwrap().to_string(),
        allocation: allocation["id"].as_str().unwrap().to_string(),
        booking: booking["id"].as_str().unwrap().to_string(),
        job: job["ids"][0].as_i64().unwrap(),
    }
}

async fn answer_fields_are_refused_in_requests(ts: &TestServer) {
    let ids = setup(ts).await;
    let (status, doc) = ts.get("/openapi.json").await;
    assert_eq!(status, 200);
    let all = injections(&doc);
    // The exploit that started this: an allocation line's `returned` and `from`.
    for f in ["returned", "from"] {
        assert!(
            all.iter()
                .any(|i| i.path == "/v1/allocations" && i.inside.as_deref() == Some("lines") && i.field == f),
            "the document does not show {f} as an answer-only field of allocation lines"
        );
    }
    let before = snapshot(ts).await;
    let mut found = Vec::new();
    for inj in &all {
        assert!(["POST", "PATCH", "PUT"].contains(&inj.method.as_str()), "{inj:?}");
        let mut body = base_body(&inj.path).unwrap_or_else(|| panic!("no base body for {}: add one", inj.path));
        let hostile = json!(-5);
        match &inj.inside {
            None => {
                body[&inj.field] = hostile;
            }
            Some(p) => {
                body[p][0][&inj.field] = hostile;
            }
        }
        let (status, answer) = ts.send_json(&inj.method, &fill(&inj.path, &ids), body).await;
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(
            (status, answer["error"]["code"].as_str()),
            (400, Some("invalid_request")),
            "{inj:?}: {answer}"
        );
        assert!(
            message.contains(&format!("unknown field `{}`", inj.field)),
            "{inj:?}: {message}"
        );
        found.push(match &inj.inside {
            None => format!("{} {}", inj.path, inj.field),
            Some(p) => format!("{} {p}[].{}", inj.path, inj.field),
        });
    }
    assert_eq!(snapshot(ts).await, before, "a refused injection changed something");
    assert!(
        found.len() >= 30,
        "only {} injections generated: {found:?}",
        found.len()
    );
    eprintln!("{} answer-only fields refused: {}", found.len(), found.join(", "));
}
