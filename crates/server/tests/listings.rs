//! Cursor listings on both backends: every item once when walking pages with `next`, in the
//! documented order, with the filters applied; bad cursors and filters refused.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};

conformance!(skus_allocations_and_holds_page_through, units_list_and_lookup_by_serial);

/// Walk `path` (with `?` already in it) page by page; every item of `field`.
async fn walk(ts: &TestServer, path: &str, field: &str, limit: u32) -> Vec<Value> {
    let (mut out, mut after) = (Vec::new(), None::<String>);
    for _ in 0..100 {
        let cursor = after.as_ref().map(|a| format!("&after={a}")).unwrap_or_default();
        let (s, page) = ts.get(&format!("{path}&limit={limit}{cursor}")).await;
        assert_eq!(s, 200, "{path}: {page}");
        let items = page[field].as_array().unwrap().clone();
        assert!(items.len() <= limit as usize);
        out.extend(items);
        match page["next"].as_str() {
            Some(n) => after = Some(n.to_string()),
            None => return out,
        }
    }
    panic!("{path} never ended");
}

async fn skus_allocations_and_holds_page_through(ts: &TestServer) {
    for i in 0..7 {
        ts.create_sku(&format!("K{i}"), i * 10, 1).await;
    }
    let skus = walk(ts, "/v1/skus?", "skus", 3).await;
    let names: Vec<&str> = skus.iter().map(|s| s["sku"].as_str().unwrap()).collect();
    assert_eq!(names, ["K0", "K1", "K2", "K3", "K4", "K5", "K6"]);
    let low = walk(ts, "/v1/skus?available_below=25", "skus", 2).await;
    let names: Vec<&str> = low.iter().map(|s| s["sku"].as_str().unwrap()).collect();
    assert_eq!(names, ["K0", "K1", "K2"], "low stock");
    let mut made = Vec::new();
    for _ in 0..5 {
        let a = ts
            .ok("/v1/allocations", json!({"lines": [{"sku": "K6", "quantity": 1}]}))
            .await;
        made.push(a["id"].as_str().unwrap().to_string());
    }
    let listed: Vec<String> = walk(ts, "/v1/allocations?", "allocations", 2)
        .await
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    let (mut a, mut b) = (listed.clone(), made.clone());
    a.sort();
    b.sort();
    assert_eq!(a, b, "every allocation once");
    // Holds expiring soonest first; an expired one lists as expired, a released one as released.
    let mut holds = Vec::new();
    for ttl in [300_000, 100_000, 200_000, 400_000] {
        let h = ts
            .ok(
                "/v1/holds",
                json!({"lines": [{"sku": "K5", "quantity": 1}], "ttl_ms": ttl}),
            )
            .await;
        holds.push(h);
    }
    let first = holds[1].clone();
    ts.ok(
        &format!("/v1/holds/{}/release", holds[3]["id"].as_str().unwrap()),
        json!({}),
    )
    .await;
    let held = walk(ts, "/v1/holds?status=held", "holds", 1).await;
    let ids: Vec<&str> = held.iter().map(|h| h["id"].as_str().unwrap()).collect();
    let want: Vec<&str> = [1, 2, 0].iter().map(|i| holds[*i]["id"].as_str().unwrap()).collect();
    assert_eq!(ids, want, "expiring soonest first");
    ts.advance_past(&first["expires_at"]);
    let expired = walk(ts, "/v1/holds?status=expired", "holds", 10).await;
    assert_eq!(expired.len(), 1);
    assert_eq!(
        (&expired[0]["id"], &expired[0]["status"]),
        (&first["id"], &json!("expired"))
    );
    assert_eq!(walk(ts, "/v1/holds?status=released", "holds", 10).await.len(), 1);
    assert_eq!(walk(ts, "/v1/holds?status=held", "holds", 10).await.len(), 2);
    for bad in [
        "/v1/skus?limit=0",
        "/v1/skus?available_below=x",
        "/v1/holds?status=nope",
        "/v1/allocations?after=%20",
        "/v1/skus?limit=100000",
    ] {
        let (s, b) = ts.get(bad).await;
        assert_eq!(s, 400, "{bad}: {b}");
    }
}

async fn units_list_and_lookup_by_serial(ts: &TestServer) {
    let units: Vec<Value> = (0..6)
        .map(|i| json!({"serial": format!("S{i}"), "location": if i % 2 == 0 { "A1" } else { "B2" }, "lot": "L1"}))
        .collect();
    ts.ok("/v1/skus/U/units", json!({ "units": units })).await;
    let claim = ts
        .ok(
            "/v1/unit-allocations",
            json!({"sku": "U", "quantity": 2, "hold_ttl_ms": 600_000}),
        )
        .await;
    let all = walk(ts, "/v1/skus/U/units?", "units", 4).await;
    assert_eq!(all.len(), 6);
    let ids: Vec<i64> = all.iter().map(|u| u["id"].as_i64().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "by id: {ids:?}");
    let held = walk(ts, "/v1/skus/U/units?status=held", "units", 10).await;
    assert_eq!(held.len(), 2);
    assert!(held.iter().all(|u| u["claim_id"] == claim["id"]), "{held:?}");
    let a1 = walk(ts, "/v1/skus/U/units?location=A1&status=available", "units", 10).await;
    assert!(a1.iter().all(|u| u["location"] == "A1" && u["status"] == "available"));
    let one = ts.get("/v1/skus/U/units/S3").await;
    assert_eq!(
        (one.0, &one.1["serial"], &one.1["lot"]),
        (200, &json!("S3"), &json!("L1"))
    );
    assert_eq!(ts.get("/v1/skus/U/units/NOPE").await.0, 404);
    assert_eq!(ts.get("/v1/skus/NOSKU/units").await.0, 404);
    ts.create_sku("C", 1, 1).await;
    let (s, none) = ts.get("/v1/skus/C/units").await;
    assert_eq!(
        (s, &none["units"]),
        (200, &json!([])),
        "a count-tracked SKU has no units"
    );
    for bad in [
        "/v1/skus/U/units?status=lost",
        "/v1/skus/U/units?after=-1",
        "/v1/skus/U/units?after=x",
    ] {
        assert_eq!(ts.get(bad).await.0, 400, "{bad}");
    }
}
