//! Kits over HTTP on both backends: `PUT`/`GET`/`DELETE /v1/kits/{kit}`, kit lines in
//! allocations, holds and the batch API under every safe strategy, the availability of a kit,
//! and a storm of kit and plain lines sharing a component that never oversells it.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::json;

conformance!(kits_over_http, a_kit_storm_over_http);

/// A kit is written over count-tracked SKUs only, read with what is available of it, taken
/// by an allocation (its demand summed with a plain line's), a hold and a batch, and
/// removed; refusals name what refused them and change nothing.
async fn kits_over_http(ts: &TestServer) {
    ts.create_sku("MUG", 10, 1).await;
    ts.create_sku("TRAY", 4, 1).await;
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/kits/BOX",
            json!({"components": [{"sku": "NOPE", "quantity": 1}]}),
        )
        .await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")), "{b}");
    let (s, b) = ts.send_json("PUT", "/v1/kits/BOX", json!({"components": []})).await;
    assert_eq!(s, 400, "{b}");
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/kits/BOX",
            json!({"components": [{"sku": "TRAY", "quantity": 1}, {"sku": "MUG", "quantity": 2}]}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["components"][0]["sku"], "MUG", "components by SKU: {b}");
    let (s, b) = ts.get("/v1/kits/BOX").await;
    assert_eq!((s, b["available"].as_i64()), (200, Some(4)), "{b}");
    let (s, b) = ts.get("/v1/kits/NONE").await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")));
    for strategy in ts.safe_strategies() {
        let lines = json!([{"kit": "BOX", "quantity": 1}, {"sku": "MUG", "quantity": 1}]);
        let a = ts
            .ok("/v1/allocations", json!({"lines": lines, "strategy": strategy}))
            .await;
        let took: Vec<(&str, i64)> = a["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["sku"].as_str().unwrap(), l["quantity"].as_i64().unwrap()))
            .collect();
        assert_eq!(took, [("MUG", 3), ("TRAY", 1)], "{strategy}: {a}");
        let id = a["id"].as_str().unwrap();
        ts.ok(&format!("/v1/allocations/{id}/cancel"), json!(null)).await;
    }
    for (lines, field) in [
        (json!([{"kit": "a\u{0}b", "quantity": 1}]), "lines[0].kit"),
        (
            json!([{"sku": "MUG", "quantity": -1}, {"kit": "BOX", "quantity": 1}]),
            "lines[0].quantity",
        ),
    ] {
        let (s, b) = ts.post("/v1/allocations", json!({ "lines": lines })).await;
        let message = b["error"]["message"].as_str().unwrap_or_default();
        assert_eq!(s, 400, "{b}");
        assert!(message.contains(field), "names {field}: {b}");
    }
    let (s, b) = ts
        .post("/v1/allocations", json!({"lines": [{"kit": "NONE", "quantity": 1}]}))
        .await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")), "{b}");
    let (s, b) = ts
        .post("/v1/allocations", json!({"lines": [{"kit": "BOX", "quantity": 6}]}))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str(), b["error"]["sku"].as_str()),
        (409, Some("insufficient_stock"), Some("MUG")),
        "{b}"
    );
    let (s, b) = ts
        .post(
            "/v1/allocations",
            json!({"lines": [{"kit": "BOX", "sku": "MUG", "quantity": 1}]}),
        )
        .await;
    assert_eq!(s, 400, "a line names a SKU or a kit: {b}");
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"kit": "BOX", "quantity": 2}], "ttl_ms": 60_000}),
        )
        .await;
    assert_eq!(
        ts.get("/v1/kits/BOX").await.1["available"],
        2,
        "held stock is not available"
    );
    let hid = h["id"].as_str().unwrap();
    ts.ok(&format!("/v1/holds/{hid}/release"), json!(null)).await;
    let ops = json!({"operations": [
        {"op": "allocate", "body": {"lines": [{"kit": "BOX", "quantity": 1}]}},
        {"op": "hold", "body": {"lines": [{"kit": "BOX", "quantity": 1}], "ttl_ms": 60_000}},
        {"op": "allocate", "body": {"lines": [{"kit": "NONE", "quantity": 1}]}}]});
    let (s, b) = ts.post("/v1/batch", ops).await;
    let statuses: Vec<i64> = b["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_i64().unwrap())
        .collect();
    assert_eq!((s, statuses), (200, vec![201, 201, 404]), "{b}");
    let sku = ts.sku("MUG").await;
    assert_eq!(
        (sku["on_hand"].as_i64(), sku["held"].as_i64()),
        (Some(8), Some(2)),
        "{sku}"
    );
    let (s, _) = ts.send_json("DELETE", "/v1/kits/BOX", json!(null)).await;
    assert_eq!(s, 204);
    assert_eq!(ts.get("/v1/kits/BOX").await.0, 404);
}

/// Forty buyers race for a kit of two mugs and a tray and for plain mugs, some taking both in
/// one request: every success took its summed demand, and no component is oversold.
async fn a_kit_storm_over_http(ts: &TestServer) {
    for (i, strategy) in ts.safe_strategies().into_iter().enumerate() {
        let (mug, tray, kit) = (format!("M{i}"), format!("T{i}"), format!("K{i}"));
        ts.create_sku(&mug, 20, 1).await;
        ts.create_sku(&tray, 6, 1).await;
        let comps = json!({"components": [{"sku": mug, "quantity": 2}, {"sku": tray, "quantity": 1}]});
        assert_eq!(ts.send_json("PUT", &format!("/v1/kits/{kit}"), comps).await.0, 200);
        let mut tasks = tokio::task::JoinSet::new();
        for n in 0..40 {
            let api = ts.api.clone();
            let (lines, demand) = match n % 3 {
                0 => (json!([{"kit": kit, "quantity": 1}]), (2, 1)),
                1 => (json!([{"sku": mug, "quantity": 1}]), (1, 0)),
                _ => (
                    json!([{"sku": mug, "quantity": 1}, {"kit": kit, "quantity": 1}]),
                    (3, 1),
                ),
            };
            tasks.spawn(async move {
                let (s, b) = api
                    .post("/v1/allocations", json!({"lines": lines, "strategy": strategy}))
                    .await;
                (s, b, demand)
            });
        }
        let (mut mugs, mut trays) = (0, 0);
        while let Some(r) = tasks.join_next().await {
            let (s, b, (m, t)) = r.unwrap();
            match s {
                201 => (mugs, trays) = (mugs + m, trays + t),
                409 | 503 => assert!(
                    ["insufficient_stock", "contention", "overloaded"]
                        .contains(&b["error"]["code"].as_str().unwrap_or("")),
                    "{b}"
                ),
                _ => panic!("{strategy}: {s} {b}"),
            }
        }
        let (m, t) = (ts.sku(&mug).await, ts.sku(&tray).await);
        assert_eq!(
            (m["on_hand"].as_i64(), t["on_hand"].as_i64()),
            (Some(20 - mugs), Some(6 - trays)),
            "{strategy}"
        );
        assert!(m["available"].as_i64().unwrap() >= 0 && t["available"].as_i64().unwrap() >= 0);
    }
    ts.assert_audit_clean().await;
}
