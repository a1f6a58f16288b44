//! Cancelling allocations on both backends: the stock (or the units) comes back once, the
//! ledger points at the allocation, a second cancel changes nothing, and cancels racing new
//! allocations (and each other) never give back more than was taken.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};

conformance!(a_cancel_gives_back_once, cancels_race_allocations);

fn cancel_path(a: &Value) -> String {
    format!("/v1/allocations/{}/cancel", a["id"].as_str().unwrap())
}

async fn a_cancel_gives_back_once(ts: &TestServer) {
    ts.create_sku("X", 10, 1).await;
    let a = ts
        .ok("/v1/allocations", json!({"lines": [{"sku": "X", "quantity": 3}]}))
        .await;
    assert_eq!(ts.sku("X").await["available"], 7);
    let c = ts.ok(&cancel_path(&a), json!({})).await;
    assert_eq!((&c["id"], &c["status"]), (&a["id"], &json!("cancelled")), "{c}");
    assert_eq!(ts.sku("X").await["available"], 10);
    let again = ts.ok(&cancel_path(&a), json!({})).await;
    assert_eq!(again["status"], "cancelled");
    assert_eq!(ts.sku("X").await["available"], 10, "a second cancel gives nothing back");
    let read = ts
        .get(&format!("/v1/allocations/{}", a["id"].as_str().unwrap()))
        .await
        .1;
    assert_eq!(read["status"], "cancelled");
    let last = ts.ledger("X").await.last().cloned().unwrap();
    assert_eq!(
        (&last["kind"], &last["delta"], &last["ref"]),
        (&json!("allocation_cancelled"), &json!(3), &a["id"]),
        "{last}"
    );
    // A confirmed hold is an allocation like any other.
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "X", "quantity": 2}], "ttl_ms": 600_000}),
        )
        .await;
    let confirmed = ts
        .ok(&format!("/v1/holds/{}/confirm", h["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(ts.sku("X").await["available"], 8);
    ts.ok(&cancel_path(&confirmed), json!({})).await;
    assert_eq!(ts.sku("X").await["available"], 10);
    // A segmented SKU: the quantity comes back spread over its buckets, as an adjustment's.
    ts.create_sku("Z", 9, 3).await;
    let z = ts
        .ok("/v1/allocations", json!({"lines": [{"sku": "Z", "quantity": 2}]}))
        .await;
    ts.ok(&cancel_path(&z), json!({})).await;
    let sku = ts.sku("Z").await;
    assert_eq!((&sku["available"], &sku["buckets"]), (&json!(9), &json!(3)), "{sku}");
    // A unit allocation: its units are available again.
    let units: Vec<Value> = (0..3).map(|i| json!({"serial": format!("S{i}")})).collect();
    ts.ok("/v1/skus/U/units", json!({ "units": units })).await;
    let claim = ts.ok("/v1/unit-allocations", json!({"sku": "U", "quantity": 2})).await;
    assert_eq!(ts.sku("U").await["available"], 1);
    ts.ok(&cancel_path(&claim), json!({})).await;
    assert_eq!(ts.sku("U").await["available"], 3);
    let (s, page) = ts.get("/v1/skus/U/units?status=available").await;
    assert_eq!((s, page["units"].as_array().map(Vec::len)), (200, Some(3)), "{page}");
    let (s, _) = ts.post("/v1/allocations/nope/cancel", json!({})).await;
    assert_eq!(s, 404);
    ts.assert_audit_clean().await;
}

/// Five allocations of a sold-out SKU are each cancelled twice while ten buyers try to take
/// one unit each: what the buyers got plus what is left is exactly the five given back.
async fn cancels_race_allocations(ts: &TestServer) {
    ts.create_sku("R", 5, 1).await;
    let mut taken = Vec::new();
    for _ in 0..5 {
        taken.push(
            ts.ok("/v1/allocations", json!({"lines": [{"sku": "R", "quantity": 1}]}))
                .await,
        );
    }
    assert_eq!(ts.sku("R").await["available"], 0);
    let mut tasks = tokio::task::JoinSet::new();
    for a in taken.iter().chain(taken.iter()) {
        let (client, url, path) = (ts.client.clone(), ts.url.clone(), cancel_path(a));
        tasks.spawn(async move {
            let r = client
                .post(format!("{url}{path}"))
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            (true, r.status().as_u16())
        });
    }
    for _ in 0..10 {
        let (client, url) = (ts.client.clone(), ts.url.clone());
        tasks.spawn(async move {
            let body = json!({"lines": [{"sku": "R", "quantity": 1}]});
            let r = client
                .post(format!("{url}/v1/allocations"))
                .json(&body)
                .send()
                .await
                .unwrap();
            (false, r.status().as_u16())
        });
    }
    let mut bought = 0;
    while let Some(r) = tasks.join_next().await {
        match r.unwrap() {
            (true, s) => assert_eq!(s, 200, "a cancel"),
            (false, 201) => bought += 1,
            (false, s) => assert!(s == 409, "a buyer got {s}"),
        }
    }
    let left = ts.sku("R").await["available"].as_i64().unwrap();
    assert_eq!(bought + left, 5, "bought {bought}, left {left}");
    ts.assert_audit_clean().await;
}
