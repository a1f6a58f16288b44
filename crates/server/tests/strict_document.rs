//! The served OpenAPI document is as strict as the server: every object a request sends is
//! closed (`additionalProperties: false`), every array says what its items are, every
//! parameter has a typed schema; and what the document cannot state is refused `422` with
//! the rule's own code, on both backends (docs/api.md, "Errors").
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};

conformance!(request_objects_are_closed, rules_are_422_with_their_code);

/// `#/components/schemas/X` → the schema X.
fn resolve<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    match v["$ref"].as_str().and_then(|r| r.strip_prefix("#/components/schemas/")) {
        Some(name) => &doc["components"]["schemas"][name],
        None => v,
    }
}

/// Every schema reachable from `v`, each named schema once, with its path.
fn walk(doc: &Value, v: &Value, at: String, seen: &mut Vec<String>, problems: &mut Vec<String>) {
    if let Some(r) = v["$ref"].as_str() {
        if seen.iter().any(|s| s == r) {
            return;
        }
        seen.push(r.to_string());
        return walk(doc, resolve(doc, v), r.to_string(), seen, problems);
    }
    let types = v["type"].to_string();
    if v.get("properties").is_some() && v["additionalProperties"] != json!(false) {
        problems.push(format!("{at}: an object open to unknown members"));
    }
    if types.contains("array") {
        let items = &v["items"];
        let said = ["type", "$ref", "enum", "oneOf", "anyOf", "const"]
            .iter()
            .any(|k| items.get(k).is_some());
        if !said {
            problems.push(format!("{at}: an array whose items are not described ({items})"));
        }
    }
    for (name, child) in v["properties"].as_object().into_iter().flatten() {
        walk(doc, child, format!("{at}.{name}"), seen, problems);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for (i, child) in v[key].as_array().into_iter().flatten().enumerate() {
            walk(doc, child, format!("{at}/{key}[{i}]"), seen, problems);
        }
    }
    if v["items"].is_object() {
        walk(doc, &v["items"], format!("{at}[]"), seen, problems);
    }
}

async fn request_objects_are_closed(ts: &TestServer) {
    let (s, doc) = ts.get("/openapi.json").await;
    assert_eq!(s, 200);
    let (mut problems, mut seen, mut bodies) = (Vec::new(), Vec::new(), 0);
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let at = format!("{method} {path}");
            for p in op["parameters"].as_array().into_iter().flatten() {
                if p["schema"]["type"].is_null() {
                    problems.push(format!("{at}: parameter {} has no type", p["name"]));
                }
            }
            let schema = &op["requestBody"]["content"]["application/json"]["schema"];
            if !schema.is_null() {
                bodies += 1;
                walk(&doc, schema, at, &mut seen, &mut problems);
            }
        }
    }
    assert!(bodies >= 25, "only {bodies} request bodies found");
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Requests the document admits that break one rule each: `422`, the rule's code, the field
/// named, and nothing changed.
async fn rules_are_422_with_their_code(ts: &TestServer) {
    let job = json!({"payload": {"report": "daily"}});
    let schedule = |cron: &str, tz: &str, job: &Value| json!({"name": "nightly", "cron": cron, "timezone": tz, "queue": "ticks", "job": job});
    let cases: Vec<(&str, &str, Option<Value>, &str, &str)> = vec![
        (
            "POST",
            "/v1/skus/UNITS/units",
            Some(json!({"units": [{"serial": "A"}, {"serial": "B"}, {"serial": "A"}]})),
            "duplicate_serial",
            "serial",
        ),
        (
            "POST",
            "/v1/unit-allocations",
            Some(json!({"sku": "UNITS", "quantity": 1, "order_by": ["lot", "-lot"]})),
            "duplicate_order_by",
            "order_by",
        ),
        (
            "POST",
            "/v1/resources/room/bookings",
            Some(json!({"start": "1969-12-31T23:00:00Z", "end": "1970-01-01T01:00:00Z", "holder": "h"})),
            "instant_out_of_range",
            "start",
        ),
        (
            "GET",
            "/v1/resources/room/availability?from=2030-01-01T00:00:00Z&to=2030-01-01T00:00:60Z",
            None,
            "instant_out_of_range",
            "to",
        ),
        (
            "POST",
            "/v1/schedules",
            Some(schedule("0 0 31 2 *", "UTC", &job)),
            "invalid_cron",
            "cron",
        ),
        (
            "POST",
            "/v1/schedules",
            Some(schedule("0 0 * * *", "Europe/Atlantis", &job)),
            "unknown_time_zone",
            "timezone",
        ),
        (
            "POST",
            "/v1/schedules",
            Some(schedule("0 0 * * *", "UTC", &json!({"unique_key": "k"}))),
            "template_field",
            "unique_key",
        ),
        (
            "GET",
            "/v1/queues/ticks/jobs?payload=%5B1%5D",
            None,
            "invalid_filter",
            "payload",
        ),
        (
            "POST",
            "/v1/queues/ticks/jobs/bulk",
            Some(json!({"action": "delete", "filter": {"state": "running"}})),
            "state_not_applicable",
            "filter.state",
        ),
        (
            "POST",
            "/v1/queues/ticks/jobs",
            Some(json!({"jobs": [{"payload": {"k": "nul\u{0}"}}]})),
            "nul_character",
            "payload",
        ),
        (
            "POST",
            "/v1/batch",
            Some(json!({"operations": [
                {"op": "release", "id": "h1", "idempotency_key": "same"},
                {"op": "release", "id": "h2", "idempotency_key": "same"}
            ]})),
            "duplicate_idempotency_key",
            "operations[1].idempotency_key",
        ),
    ];
    for (method, path, body, code, field) in cases {
        let (s, b) = match &body {
            Some(body) => ts.send_json(method, path, body.clone()).await,
            None => ts.get(path).await,
        };
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (422, Some(code)),
            "{method} {path}: {b}"
        );
        let message = b["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(field), "{code} must name {field}: {b}");
    }
    // Nothing of the above was made.
    let (_, schedules) = ts.get("/v1/schedules").await;
    assert_eq!(schedules["schedules"], json!([]), "{schedules}");
    let (_, jobs) = ts.get("/v1/queues/ticks/jobs").await;
    assert_eq!(jobs["jobs"], json!([]), "{jobs}");
    let (s, _) = ts.get("/v1/skus/UNITS").await;
    assert_eq!(s, 404);
}
