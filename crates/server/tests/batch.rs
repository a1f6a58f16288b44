//! `POST /v1/batch`: many operations in one request, each decided on its own and exactly,
//! validated whole before anything runs, keys interchangeable with the single endpoints.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Kind, TestServer};
use serde_json::{json, Value};
use std::collections::BTreeMap;

conformance!(
    exact_on_a_hot_sku,
    every_operation,
    keys_are_the_endpoints,
    every_key_is_the_endpoints
);
conformance!(mod small_batches, |c| c.limits.max_batch_operations = 5; validated_whole);

fn allocate(sku: &str, key: Option<String>, strategy: Option<&str>) -> Value {
    let mut body = json!({"lines": [{"sku": sku, "quantity": 1}]});
    if let Some(s) = strategy {
        body["strategy"] = json!(s);
    }
    let mut op = json!({"op": "allocate", "body": body});
    if let Some(k) = key {
        op["idempotency_key"] = json!(k);
    }
    op
}

/// Results by status and error code.
fn tally(results: &[Value]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for r in results {
        let key = match r["body"]["error"]["code"].as_str() {
            Some(code) => format!("{} {code}", r["status"]),
            None => r["status"].to_string(),
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

fn strategies(kind: Kind) -> Vec<Option<&'static str>> {
    match kind {
        Kind::Postgres => vec![Some("batched"), Some("atomic")],
        Kind::Sqlite => vec![None],
    }
}

/// A batch of 1000 single-unit allocations on a SKU of 600: exactly 600 succeed, 400 are
/// short, and the SKU, the ledger and the audit agree.
async fn exact_on_a_hot_sku(ts: &TestServer) {
    for (i, strategy) in strategies(ts.kind).into_iter().enumerate() {
        let sku = format!("HOT{i}");
        ts.create_sku(&sku, 600, 1).await;
        let ops: Vec<Value> = (0..1000).map(|_| allocate(&sku, None, strategy)).collect();
        let (s, b) = ts.post("/v1/batch", json!({"operations": ops})).await;
        assert_eq!(s, 200, "{b}");
        let results = b["results"].as_array().unwrap();
        assert_eq!(results.len(), 1000);
        let counts = tally(results);
        assert_eq!(counts.get("201"), Some(&600), "{strategy:?} {counts:?}");
        assert_eq!(
            counts.get("409 insufficient_stock"),
            Some(&400),
            "{strategy:?} {counts:?}"
        );
        let ids: std::collections::HashSet<&str> = results.iter().filter_map(|r| r["body"]["id"].as_str()).collect();
        assert_eq!(ids.len(), 600, "every allocation has its own id");
        assert_eq!(ts.sku(&sku).await["on_hand"], 0);
        let taken: i64 = ts.ledger(&sku).await.iter().map(|e| e["delta"].as_i64().unwrap()).sum();
        assert_eq!(taken, 0, "600 in, 600 out");
    }
    ts.assert_audit_clean().await;
}

/// Holds, confirms, releases and cancels in batches, each with the status its endpoint gives.
async fn every_operation(ts: &TestServer) {
    ts.create_sku("S", 10, 1).await;
    let hold = json!({"op": "hold", "body": {"lines": [{"sku": "S", "quantity": 2}], "ttl_ms": 60_000}});
    let (s, b) = ts
        .post(
            "/v1/batch",
            json!({"operations": [hold, hold, allocate("S", None, None)]}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let r = b["results"].as_array().unwrap();
    assert_eq!(
        (
            r[0]["status"].as_u64(),
            r[1]["status"].as_u64(),
            r[2]["status"].as_u64()
        ),
        (Some(201), Some(201), Some(201))
    );
    let (h1, h2, a) = (&r[0]["body"]["id"], &r[1]["body"]["id"], &r[2]["body"]["id"]);
    assert_eq!(ts.sku("S").await["available"], 5);
    let (s, b) = ts
        .post(
            "/v1/batch",
            json!({"operations": [
                {"op": "confirm", "id": h1, "body": {"lines": [{"sku": "S", "quantity": 1}]}},
                {"op": "release", "id": h2},
                {"op": "cancel", "id": a},
                {"op": "release", "id": "no-such-hold"},
            ]}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let r = b["results"].as_array().unwrap();
    assert_eq!(r[0]["status"], 200, "{b}");
    assert_eq!(r[0]["body"]["lines"][0]["quantity"], 1, "a partial confirm");
    assert_eq!(
        (r[1]["status"].as_u64(), r[1]["body"]["status"].as_str()),
        (Some(200), Some("released"))
    );
    assert_eq!(
        (r[2]["status"].as_u64(), r[2]["body"]["status"].as_str()),
        (Some(200), Some("cancelled"))
    );
    assert_eq!(
        (r[3]["status"].as_u64(), r[3]["body"]["error"]["code"].as_str()),
        (Some(404), Some("not_found"))
    );
    // 10 - 1 confirmed; the released hold, the unconfirmed unit and the cancel are back.
    let sku = ts.sku("S").await;
    assert_eq!(
        (sku["on_hand"].as_i64(), sku["available"].as_i64()),
        (Some(9), Some(9)),
        "{sku}"
    );
    ts.assert_audit_clean().await;
}

/// A malformed operation refuses the whole batch, naming it, and nothing runs; so do too
/// many operations and a key used twice.
async fn validated_whole(ts: &TestServer) {
    ts.create_sku("V", 10, 1).await;
    let bad = json!({"op": "allocate", "body": {"lines": [{"sku": "V", "quantity": 0}]}});
    let ops = json!([allocate("V", None, None), allocate("V", None, None), bad]);
    let (s, b) = ts.post("/v1/batch", json!({"operations": ops})).await;
    assert_eq!(s, 400, "{b}");
    let message = b["error"]["message"].as_str().unwrap();
    assert!(message.contains("operations[2].body.quantity"), "{message}");
    assert_eq!(ts.sku("V").await["available"], 10, "nothing ran");
    let six: Vec<Value> = (0..6).map(|_| allocate("V", None, None)).collect();
    let (s, b) = ts.post("/v1/batch", json!({"operations": six})).await;
    assert_eq!((s, b["error"]["code"].as_str()), (400, Some("limit_exceeded")), "{b}");
    let twice = json!([
        allocate("V", Some("k".into()), None),
        allocate("V", Some("k".into()), None)
    ]);
    let (s, b) = ts.post("/v1/batch", json!({"operations": twice})).await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (422, Some("duplicate_idempotency_key")),
        "{b}"
    );
    assert!(
        b["error"]["message"]
            .as_str()
            .unwrap()
            .contains("operations[1].idempotency_key"),
        "{b}"
    );
    for body in [
        json!({"operations": []}),
        json!({"operations": [{"op": "steal", "id": "x"}]}),
        json!({"operations": [[]]}),
    ] {
        let (s, b) = ts.post("/v1/batch", body.clone()).await;
        assert_eq!(s, 400, "{body}: {b}");
    }
    assert_eq!(ts.sku("V").await["available"], 10, "nothing ran");
}

/// An operation's key replays in a batch and on the endpoint alike (the same fingerprint);
/// the same key with another body is refused for that operation only.
async fn keys_are_the_endpoints(ts: &TestServer) {
    ts.create_sku("K", 10, 1).await;
    let ops = json!([allocate("K", Some("order-1".into()), None), allocate("K", None, None)]);
    let (s, first) = ts.post("/v1/batch", json!({"operations": ops})).await;
    assert_eq!(s, 200, "{first}");
    let id = first["results"][0]["body"]["id"].clone();
    assert!(first["results"][0].get("replayed").is_none());
    let (s, again) = ts
        .post(
            "/v1/batch",
            json!({"operations": [allocate("K", Some("order-1".into()), None)]}),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(again["results"][0]["replayed"], true, "{again}");
    assert_eq!(again["results"][0]["status"], 201);
    assert_eq!(again["results"][0]["body"]["id"], id);
    // The endpoint, same key and body: the same allocation, replayed.
    let body = json!({"lines": [{"sku": "K", "quantity": 1}]}).to_string();
    let (s, replayed, alone) = ts.post_raw("/v1/allocations", body, Some("order-1")).await;
    assert_eq!((s, replayed), (201, true), "{alone}");
    assert_eq!(alone["id"], id);
    // Another body under the key: that operation is refused, its neighbour runs.
    let other =
        json!({"op": "allocate", "body": {"lines": [{"sku": "K", "quantity": 2}]}, "idempotency_key": "order-1"});
    let (s, b) = ts
        .post("/v1/batch", json!({"operations": [other, allocate("K", None, None)]}))
        .await;
    assert_eq!(s, 200);
    assert_eq!(b["results"][0]["status"], 422, "{b}");
    assert_eq!(b["results"][1]["status"], 201, "{b}");
    assert_eq!(ts.sku("K").await["available"], 7, "three allocations of one");
}

/// A key's rate counts every operation of a batch; a batch bigger than a second's worth can
/// never pass and says so.
#[tokio::test]
async fn a_batch_costs_its_operations_in_rate() {
    let ts = common::start(Kind::Sqlite).await;
    let post = |bearer: String, n: usize| {
        let ops: Vec<Value> = (0..n).map(|_| json!({"op": "release", "id": "x"})).collect();
        ts.client
            .post(format!("{}/v1/batch", ts.url))
            .header("authorization", bearer)
            .json(&json!({"operations": ops}))
            .send()
    };
    let scopes = [allot_core::access::Scope::StockWrite];
    let (_, one) = common::make_key(&ts, "default", "one", &scopes, Some(1)).await;
    let too_big = post(format!("Bearer {one}"), 2).await.unwrap();
    assert_eq!(too_big.status(), 400);
    let b: Value = too_big.json().await.unwrap();
    assert_eq!(
        (b["error"]["limit"].as_str(), b["error"]["max"].as_u64()),
        (Some("rate_per_s"), Some(1)),
        "{b}"
    );
    // A key of 3 a second: a batch of 3 spends the bucket, the next request waits (a token
    // comes back every 333 ms; the two requests follow each other at once).
    let (_, three) = common::make_key(&ts, "default", "three", &scopes, Some(3)).await;
    assert_eq!(post(format!("Bearer {three}"), 3).await.unwrap().status(), 200);
    assert_eq!(post(format!("Bearer {three}"), 1).await.unwrap().status(), 429);
}

/// The batch itself takes no `Idempotency-Key` (its operations do), and an id no object can
/// have is that operation's 404, its neighbours running.
#[tokio::test]
async fn header_key_refused_and_impossible_ids_are_404() {
    let ts = common::start(Kind::Sqlite).await;
    ts.create_sku("I", 5, 1).await;
    let body = json!({"operations": [allocate("I", None, None)]}).to_string();
    let (s, _, b) = ts.post_raw("/v1/batch", body, Some("whole-batch")).await;
    assert_eq!(s, 400, "{b}");
    assert!(
        b["error"]["message"].as_str().unwrap().contains("Idempotency-Key"),
        "{b}"
    );
    assert_eq!(ts.sku("I").await["available"], 5, "nothing ran");
    let long = "x".repeat(300);
    let (s, b) = ts
        .post(
            "/v1/batch",
            json!({"operations": [
                {"op": "confirm", "id": long}, {"op": "release", "id": "bad id\u{1}"},
                {"op": "cancel", "id": ""}, allocate("I", None, None)]}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let statuses: Vec<u64> = b["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_u64().unwrap())
        .collect();
    assert_eq!(statuses, [404, 404, 404, 201], "{b}");
}

/// Keys move between the batch and the endpoints for every operation: a hold, its confirm
/// (without a body), a release and a cancel, each replayed alone after the batch.
async fn every_key_is_the_endpoints(ts: &TestServer) {
    ts.create_sku("E", 10, 1).await;
    let hold = json!({"lines": [{"sku": "E", "quantity": 1}], "ttl_ms": 60_000});
    let ops = json!([
        {"op": "hold", "body": hold, "idempotency_key": "h1"},
        {"op": "hold", "body": hold, "idempotency_key": "h2"},
        {"op": "allocate", "body": {"lines": [{"sku": "E", "quantity": 1}]}, "idempotency_key": "a1"},
    ]);
    let (_, made) = ts.post("/v1/batch", json!({"operations": ops})).await;
    let id = |i: usize| made["results"][i]["body"]["id"].as_str().unwrap().to_string();
    let (h1, h2, a1) = (id(0), id(1), id(2));
    let (s, replayed, b) = ts.post_raw("/v1/holds", hold.to_string(), Some("h1")).await;
    assert_eq!((s, replayed, b["id"].as_str()), (201, true, Some(h1.as_str())), "{b}");
    let ops = json!([
        {"op": "confirm", "id": h1, "idempotency_key": "c1"},
        {"op": "release", "id": h2, "idempotency_key": "r1"},
        {"op": "cancel", "id": a1, "idempotency_key": "x1"},
    ]);
    let (s, done) = ts.post("/v1/batch", json!({"operations": ops})).await;
    assert_eq!(s, 200, "{done}");
    for (path, key, i) in [
        (format!("/v1/holds/{h1}/confirm"), "c1", 0),
        (format!("/v1/holds/{h2}/release"), "r1", 1),
        (format!("/v1/allocations/{a1}/cancel"), "x1", 2),
    ] {
        let (s, replayed, b) = ts.post_raw(&path, String::new(), Some(key)).await;
        assert_eq!((s, replayed), (200, true), "{path}: {b}");
        assert_eq!(b, done["results"][i]["body"], "{path}");
    }
    assert_eq!(ts.sku("E").await["available"], 9, "one confirmed, the rest back");
}

/// `auto` in a batch: a thousand operations on one SKU are its waiters, so they run batched,
/// exactly; a batch refused whole leaves no trace on the SKU's contention.
#[tokio::test]
async fn auto_in_a_batch() {
    let ts = common::start(Kind::Postgres).await;
    ts.create_sku("AB", 700, 1).await;
    let bad = json!({"operations": [
        allocate("AB", None, Some("auto")),
        {"op": "allocate", "body": {"lines": [{"sku": "AB", "quantity": 0}], "strategy": "auto"}}]});
    let (s, _) = ts.post("/v1/batch", bad).await;
    assert_eq!(s, 400);
    assert!(
        ts.sku("AB").await.get("auto").is_none(),
        "a refused batch changed nothing"
    );
    let ops: Vec<Value> = (0..1000).map(|_| allocate("AB", None, Some("auto"))).collect();
    let (s, b) = ts.post("/v1/batch", json!({"operations": ops})).await;
    assert_eq!(s, 200);
    let results = b["results"].as_array().unwrap();
    let counts = tally(results);
    assert_eq!(counts.get("201"), Some(&700), "{counts:?}");
    let batched = results.iter().filter(|r| r["body"]["strategy"] == "batched").count();
    assert!(batched >= 500, "{batched} of 700 ran batched");
    assert_eq!(ts.sku("AB").await["auto"]["tier"], "hot");
    ts.assert_audit_clean().await;
}
