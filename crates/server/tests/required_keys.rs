//! `--require-idempotency-key`: every stock write without an `Idempotency-Key` is refused
//! `400 idempotency_key_required` naming what is missing, and changes nothing; with a key it
//! runs as usual; a level set (guarded by its `compare_on_hand`) and writes that move no stock
//! need none. Both backends.

mod common;

use common::{start_with, Kind, TestServer};
use serde_json::{json, Value};

conformance!(mod required, |c| c.require_idempotency_key = true;
    stock_writes_need_a_key,
    units_transfers_and_batches_need_a_key,
);

async fn required(kind: Kind) -> TestServer {
    start_with(kind, |c| c.require_idempotency_key = true).await
}

/// `path` with `body` and no key is refused as required, naming `field`.
async fn refused(ts: &TestServer, path: &str, body: Value, field: &str) {
    let (status, answer) = ts.post(path, body).await;
    assert_eq!(status, 400, "{path}: {answer}");
    assert_eq!(answer["error"]["code"], "idempotency_key_required", "{path}: {answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(field), "{path}: {message}");
}

/// `path` with `body` under `key`: its status and answer.
async fn keyed(ts: &TestServer, path: &str, body: Value, key: &str) -> (u16, Value) {
    ts.post_with(path, body.to_string(), Some(key)).await
}

async fn stock_writes_need_a_key(ts: &TestServer) {
    let header = "Idempotency-Key";
    refused(ts, "/v1/skus", json!({"sku": "A", "on_hand": 10}), header).await;
    assert_eq!(ts.get("/v1/skus/A").await.0, 404, "a refused creation made nothing");
    assert_eq!(
        keyed(ts, "/v1/skus", json!({"sku": "A", "on_hand": 10}), "k1").await.0,
        201
    );

    refused(ts, "/v1/skus/A/adjustments", json!({"delta": 5}), header).await;
    let lines = json!({"lines": [{"sku": "A", "quantity": 2}]});
    refused(ts, "/v1/allocations", lines.clone(), header).await;
    refused(
        ts,
        "/v1/holds",
        json!({"lines": lines["lines"], "ttl_ms": 60_000}),
        header,
    )
    .await;
    assert_eq!(ts.sku("A").await["available"], 10, "refused writes changed nothing");

    let (status, alloc) = keyed(ts, "/v1/allocations", lines.clone(), "k2").await;
    assert_eq!(status, 201, "{alloc}");
    let id = alloc["id"].as_str().unwrap().to_string();
    refused(ts, &format!("/v1/allocations/{id}/cancel"), Value::Null, header).await;
    let ret = json!({"lines": [{"sku": "A", "quantity": 1}]});
    refused(ts, &format!("/v1/allocations/{id}/returns"), ret, header).await;
    assert_eq!(ts.get(&format!("/v1/allocations/{id}")).await.1["status"], "allocated");

    let hold = json!({"lines": lines["lines"], "ttl_ms": 60_000});
    let (status, held) = keyed(ts, "/v1/holds", hold, "k3").await;
    assert_eq!(status, 201, "{held}");
    let hold_id = held["id"].as_str().unwrap().to_string();
    refused(ts, &format!("/v1/holds/{hold_id}/confirm"), json!({}), header).await;
    refused(ts, &format!("/v1/holds/{hold_id}/release"), Value::Null, header).await;
    refused(
        ts,
        &format!("/v1/holds/{hold_id}/extend"),
        json!({"ttl_ms": 60_000}),
        header,
    )
    .await;
    assert_eq!(ts.get(&format!("/v1/holds/{hold_id}")).await.1["status"], "held");
    assert_eq!(ts.sku("A").await["available"], 6);
    ts.assert_audit_clean().await;
}

async fn units_transfers_and_batches_need_a_key(ts: &TestServer) {
    let header = "Idempotency-Key";
    refused(ts, "/v1/skus/U/units", json!({"units": [{"serial": "S1"}]}), header).await;
    let claim = json!({"sku": "U", "quantity": 1});
    refused(ts, "/v1/unit-allocations", claim, header).await;
    assert_eq!(ts.get("/v1/skus/U").await.0, 404, "no unit was received");

    assert_eq!(ts.post("/v1/locations", json!({"location": "EAST"})).await.0, 201);
    assert_eq!(
        keyed(ts, "/v1/skus", json!({"sku": "A", "on_hand": 10}), "k1").await.0,
        201
    );
    let transfer = json!({"sku": "A", "from": "default", "to": "EAST", "quantity": 3});
    refused(ts, "/v1/transfers", transfer.clone(), header).await;
    let east = |sku: Value| {
        sku["levels"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["location"] == "EAST")
    };
    assert!(!east(ts.sku("A").await), "a refused transfer moved nothing");
    assert_eq!(keyed(ts, "/v1/transfers", transfer, "k2").await.0, 201);
    assert!(east(ts.sku("A").await));
    let units = json!({"units": [{"serial": "S1"}]});
    assert_eq!(keyed(ts, "/v1/skus/U/units", units, "k3").await.0, 201);

    // A batch is refused whole, naming its first operation without a key.
    let ops = json!({"operations": [
        {"op": "allocate", "body": {"lines": [{"sku": "A", "quantity": 1}]}, "idempotency_key": "b1"},
        {"op": "allocate", "body": {"lines": [{"sku": "A", "quantity": 1}]}},
    ]});
    refused(ts, "/v1/batch", ops.clone(), "operations[1].idempotency_key").await;
    assert_eq!(ts.sku("A").await["available"], 10, "no operation of the batch ran");
    // Incoming and receipts are stock writes too.
    refused(ts, "/v1/skus/A/incoming", json!({"quantity": 2}), header).await;
    let receipt = json!({"quantity": 2, "location": "EAST"});
    refused(ts, "/v1/skus/A/receipts", receipt.clone(), header).await;
    assert_eq!(ts.sku("A").await["incoming"], 0, "a refused incoming made nothing");
    assert_eq!(keyed(ts, "/v1/skus/A/receipts", receipt, "k4").await.0, 201);
    assert_eq!(ts.sku("A").await["on_hand"], 12);
    // So is a move between quantity states.
    let movement = json!({"from": "available", "to": "damaged", "quantity": 1, "reason": "damaged"});
    refused(ts, "/v1/skus/A/moves", movement.clone(), header).await;
    assert_eq!(ts.sku("A").await["damaged"], 0, "a refused move moved nothing");
    assert_eq!(keyed(ts, "/v1/skus/A/moves", movement, "k5").await.0, 201);
    assert_eq!(ts.sku("A").await["available"], 11);

    // A key that is present but empty is refused as malformed, not as missing.
    let (status, answer) = ts
        .post_with("/v1/allocations", ops["operations"][0]["body"].to_string(), Some(""))
        .await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (400, Some("invalid_request")),
        "{answer}"
    );
    // A level set is guarded by its compare; it needs no key.
    let set = json!({"on_hand": 7, "compare_on_hand": 7});
    assert_eq!(ts.post("/v1/skus/A/levels/default", set).await.0, 200);
    // Nor does a write that moves no stock.
    let (status, _) = ts.post("/v1/queues/q/jobs", json!({"jobs": [{"payload": {}}]})).await;
    assert_eq!(status, 201);
    ts.assert_audit_clean().await;
}

/// The served document marks a `POST`'s `Idempotency-Key` required exactly where the server
/// refuses it keyless: each `POST` that takes the header is sent without it (ids and names
/// filled in: the key is read before anything else).
#[tokio::test]
async fn the_document_says_which_writes_need_a_key() {
    let ts = required(Kind::Sqlite).await;
    let (_, doc) = ts.get("/openapi.json").await;
    let mut checked = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        let params = item["post"]["parameters"].as_array().cloned().unwrap_or_default();
        let Some(key) = params.iter().find(|p| {
            p["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("idempotency-key"))
        }) else {
            continue;
        };
        let concrete = path
            .replace("{sku}", "A")
            .replace("{id}", "x")
            .replace("{queue}", "q")
            .replace("{resource}", "r")
            .replace("{location}", "default")
            .replace("{name}", "n")
            .replace("{pool}", "p");
        let (_, answer) = ts.post(&concrete, json!({})).await;
        let refused = answer["error"]["code"] == "idempotency_key_required";
        assert_eq!(key["required"] == true, refused, "{path}: {answer}");
        checked += usize::from(refused);
    }
    assert_eq!(checked, 15, "every stock write is in the document");
    ts.finish().await;
}
