//! Backorders over HTTP on both backends: `PATCH /v1/skus/{sku}` sets `backorder_limit`
//! (refusals name the field and change nothing), an allocation beyond stock owes the rest
//! under every safe strategy and in the batch API, a receipt fills the oldest owed line in its
//! own write with an `allocation.filled` event, a cancel of a partly filled line gives back
//! what it took, and the audit stays clean.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Api, TestServer};
use serde_json::{json, Value};
use std::time::Duration;

conformance!(limits_are_settings, owed_lines_fill_in_order_over_http);

/// The `allocation.filled` events once `n` of them are on the feed (the PostgreSQL sequencer
/// numbers events every few ms): polled, bounded.
async fn fills(api: &Api, n: usize) -> Vec<Value> {
    for _ in 0..400 {
        let (s, page) = api.get("/v1/events?after=0&limit=1000&types=allocation.filled").await;
        assert_eq!(s, 200, "{page}");
        let events = page["events"].as_array().unwrap().clone();
        if events.len() >= n {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("fewer than {n} allocation.filled events");
}

/// What a line took (its `from`, absent when empty) and what it owes.
fn took(a: &Value) -> (i64, Option<i64>) {
    let l = &a["lines"][0];
    let from = l["from"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| s["quantity"].as_i64().unwrap())
        .sum();
    (from, l["backordered"].as_i64())
}

/// The limit is a setting of a count-tracked SKU: refused with the field named when out of
/// range, absent, of an unknown or a unit-tracked SKU; the threshold beside it kept.
async fn limits_are_settings(ts: &TestServer) {
    ts.create_sku("S", 3, 1).await;
    let patch = |body: Value| ts.send_json("PATCH", "/v1/skus/S", body);
    let (s, b) = patch(json!({})).await;
    assert_eq!(s, 400, "nothing to set: {b}");
    let (s, b) = patch(json!({"backorder_limit": -1})).await;
    assert!(
        s == 400 && b["error"]["message"].as_str().unwrap().contains("backorder_limit"),
        "{b}"
    );
    let (s, b) = patch(json!({"backorder_limit": null, "low_stock_below": 1})).await;
    assert!(
        s == 400 && b["error"]["message"].as_str().unwrap().contains("backorder_limit"),
        "null: {b}"
    );
    let (s, b) = patch(json!({"backorder_limit": 2, "nope": 1})).await;
    assert_eq!(s, 400, "{b}");
    assert!(ts.sku("S").await.get("backorder_limit").is_none(), "nothing changed");
    let (s, b) = ts
        .send_json("PATCH", "/v1/skus/NOPE", json!({"backorder_limit": 2}))
        .await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")), "{b}");
    let (s, b) = patch(json!({"low_stock_below": 2})).await;
    assert_eq!((s, b["low_stock_below"].as_i64()), (200, Some(2)), "{b}");
    let (s, b) = patch(json!({"backorder_limit": 5})).await;
    assert_eq!((s, b["backorder_limit"].as_i64()), (200, Some(5)), "{b}");
    assert_eq!(b["low_stock_below"].as_i64(), Some(2), "an absent setting is kept: {b}");
    ts.ok("/v1/skus/U/units", json!({"units": [{"serial": "U1"}]})).await;
    let (s, b) = ts.send_json("PATCH", "/v1/skus/U", json!({"backorder_limit": 2})).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("wrong_tracking")), "{b}");
    ts.assert_audit_clean().await;
}

/// Under each safe strategy: a line beyond stock owes the rest, one past the limit is
/// refused; a receipt fills the older line first, each fill an event naming its allocation;
/// a cancel of the partly filled line gives back its fill and drops what it owed. A batch's
/// allocation owes too.
async fn owed_lines_fill_in_order_over_http(ts: &TestServer) {
    let mut events = 0;
    for strategy in ts.safe_strategies() {
        let sku = format!("PRE-{strategy}");
        ts.create_sku(&sku, 1, 1).await;
        let path = format!("/v1/skus/{sku}");
        assert_eq!(ts.send_json("PATCH", &path, json!({"backorder_limit": 4})).await.0, 200);
        let body = |q: i64| json!({"lines": [{"sku": sku, "quantity": q}], "strategy": strategy});
        let a1 = ts.ok("/v1/allocations", body(3)).await;
        assert_eq!(took(&a1), (1, Some(2)), "{strategy}: {a1}");
        let (s, b) = ts.post("/v1/allocations", body(3)).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (409, Some("insufficient_stock")),
            "{strategy}: {b}"
        );
        let a2 = ts.ok("/v1/allocations", body(2)).await;
        assert_eq!(took(&a2), (0, Some(2)), "{strategy}: {a2}");
        let sku_now = ts.sku(&sku).await;
        assert_eq!(sku_now["backordered"].as_i64(), Some(4), "{sku_now}");
        ts.ok(
            &format!("/v1/skus/{sku}/receipts"),
            json!({"quantity": 3, "location": "default"}),
        )
        .await;
        let (id1, id2) = (a1["id"].as_str().unwrap(), a2["id"].as_str().unwrap());
        let (_, a1) = ts.get(&format!("/v1/allocations/{id1}")).await;
        let (_, a2) = ts.get(&format!("/v1/allocations/{id2}")).await;
        assert_eq!(
            (took(&a1), took(&a2)),
            ((3, Some(0)), (1, Some(1))),
            "{strategy}: oldest first"
        );
        events += 2;
        let filled = fills(ts, events).await;
        let last: Vec<(&str, i64)> = filled[events - 2..]
            .iter()
            .map(|e| (e["object"].as_str().unwrap(), e["data"]["delta"].as_i64().unwrap()))
            .collect();
        assert_eq!(last, [(id1, -2), (id2, -1)], "{strategy}");
        for e in &filled[events - 2..] {
            let d = &e["data"];
            assert_eq!(d["reason"], "sold", "{e}");
            let (before, after) = (d["before"]["on_hand"].as_i64(), d["after"]["on_hand"].as_i64());
            assert_eq!(before.zip(d["delta"].as_i64()).map(|(b, x)| b + x), after, "{e}");
        }
        let c = ts.ok(&format!("/v1/allocations/{id2}/cancel"), json!(null)).await;
        assert_eq!(took(&c), (1, Some(0)), "{strategy}: {c}");
        let sku_now = ts.sku(&sku).await;
        assert_eq!(
            (sku_now["available"].as_i64(), sku_now.get("backordered")),
            (Some(1), None),
            "{sku_now}"
        );
    }
    ts.create_sku("B", 0, 1).await;
    let patch = ts.send_json("PATCH", "/v1/skus/B", json!({"backorder_limit": 1}));
    assert_eq!(patch.await.0, 200);
    let op = json!({"op": "allocate", "body": {"lines": [{"sku": "B", "quantity": 1}]}});
    let (s, b) = ts.post("/v1/batch", json!({"operations": [op, op]})).await;
    assert_eq!(s, 200, "{b}");
    // No order among a batch's operations is promised: one owes, the other is past the limit.
    let mut statuses: Vec<i64> = b["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_i64().unwrap())
        .collect();
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409], "{b}");
    let owed = b["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["status"] == 201)
        .unwrap();
    assert_eq!(owed["body"]["lines"][0]["backordered"].as_i64(), Some(1), "{b}");
    ts.assert_audit_clean().await;
}
