//! The conformance suite: the same test bodies against PostgreSQL and SQLite, through the
//! HTTP API. Concurrency tests assert exact counts, not "no error".
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{alloc_body, Api, Kind, TestServer};
use serde_json::{json, Value};
use std::collections::BTreeMap;

conformance!(
    basic_flow,
    exact_successes_under_contention,
    carts_in_both_orders,
    idempotency_parallel_one_effect,
    idempotency_reuse_and_replay,
    bad_inputs_change_nothing,
    segmented_fragmentation_and_adjustments,
    ledger_paging,
);

// The same bodies on servers that require keys (an admin key sent with every request).
conformance!(
    keyed mod with_keys;
    basic_flow,
    exact_successes_under_contention,
    carts_in_both_orders,
    idempotency_parallel_one_effect,
    idempotency_reuse_and_replay,
    bad_inputs_change_nothing,
    segmented_fragmentation_and_adjustments,
    ledger_paging,
);

async fn basic_flow(ts: &TestServer) {
    let (s, b) = ts.get("/healthz").await;
    assert_eq!(s, 200);
    assert_eq!(
        b["backend"],
        if ts.kind == Kind::Postgres {
            "postgres"
        } else {
            "sqlite"
        }
    );
    ts.create_sku("HOT", 10, 1).await;
    let (s, b) = ts.post("/v1/skus", json!({"sku": "HOT", "on_hand": 5})).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("already_exists")));
    assert_eq!(
        ts.sku("HOT").await,
        json!({"sku":"HOT","on_hand":10,"held":0,"available":10,"incoming":0,"version":1,"buckets":1,
               "damaged":0,"quality_control":0,"safety_stock":0,
               "levels":[{"location":"default","on_hand":10,"held":0,"available":10,"incoming":0,
                          "damaged":0,"quality_control":0,"safety_stock":0}]})
    );

    // Default strategy of the backend.
    let (s, a) = ts
        .post("/v1/allocations", json!({"lines": [{"sku": "HOT", "quantity": 3}]}))
        .await;
    assert_eq!(s, 201, "{a}");
    assert_eq!(a["status"], "allocated");
    assert_eq!(
        a["strategy"],
        if ts.kind == Kind::Postgres {
            "batched"
        } else {
            "serialized"
        }
    );
    let (s, got) = ts.get(&format!("/v1/allocations/{}", a["id"].as_str().unwrap())).await;
    assert_eq!(s, 200);
    let placed = json!([{"sku": "HOT", "quantity": 3, "from": [{"location": "default", "quantity": 3}]}]);
    assert_eq!(
        (&got["lines"], &a["lines"]),
        (&placed, &placed),
        "where it came from, answered and stored"
    );
    let sku = ts.sku("HOT").await;
    assert_eq!((sku["on_hand"].as_i64(), sku["available"].as_i64()), (Some(7), Some(7)));
    assert!(sku["version"].as_i64().unwrap() > 1);

    let (s, b) = ts
        .post("/v1/skus/HOT/adjustments", json!({"delta": 5, "reason": "restock"}))
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["on_hand"], 12);
    let ledger = ts.ledger("HOT").await;
    let kinds: Vec<&str> = ledger.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["created", "allocation", "adjustment"]);
    assert_eq!(ledger[1]["ref"], a["id"]);
    assert_eq!(
        (&ledger[2]["ref"], &ledger[2]["reason"]),
        (&json!(null), &json!("restock"))
    );
    assert_eq!(
        (&ledger[1]["reason"], &ledger[0]["reason"]),
        (&json!("sold"), &json!("received"))
    );
    assert_eq!(ledger.iter().map(|e| e["delta"].as_i64().unwrap()).sum::<i64>(), 12);

    assert_eq!(ts.get("/v1/skus/NOPE").await.0, 404);
    assert_eq!(ts.get("/v1/allocations/nope").await.1["error"]["code"], "not_found");
    assert_eq!(ts.get("/v1/skus/NOPE/ledger").await.0, 404);
    let (s, b) = ts.get("/no/such/route").await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")));
    let (s, doc) = ts.get("/openapi.json").await;
    assert_eq!(s, 200);
    assert!(doc["paths"]["/v1/allocations"]["post"].is_object());
    // Every POST but these says it takes an Idempotency-Key: a location's and a schedule's
    // retry is 409 already_exists; a key, a webhook and a rotated webhook secret are shown
    // once, never replayed; a redelivery repeated queues the same messages again, which
    // receivers drop by their webhook-id; pause and resume set a flag (repeating one changes
    // nothing more); a bulk call acts on what matches when it runs (repeated, it finds what is
    // left); a batch's operations carry their own keys.
    let mut keyless: Vec<&str> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, item)| {
            item["post"].is_object()
                && !item["post"]["parameters"].as_array().into_iter().flatten().any(|p| {
                    p["name"]
                        .as_str()
                        .is_some_and(|n| n.eq_ignore_ascii_case("idempotency-key"))
                })
        })
        .map(|(path, _)| path.as_str())
        .collect();
    keyless.retain(|p| *p != "/v1/keys");
    assert_eq!(
        keyless,
        [
            "/v1/batch",
            "/v1/locations",
            "/v1/queues/{queue}/jobs/bulk",
            "/v1/queues/{queue}/pause",
            "/v1/queues/{queue}/resume",
            "/v1/schedules",
            "/v1/schedules/{name}/pause",
            "/v1/schedules/{name}/resume",
            "/v1/webhooks",
            "/v1/webhooks/{id}/redeliver",
            "/v1/webhooks/{id}/rotate"
        ]
    );
    // Counted by the route each request matched (the edge runs before the router: each
    // route tells it), a method the route lacks included; a path that names none, unmatched.
    assert_eq!(ts.get("/healthz").await.0, 200);
    assert_eq!(ts.send_json("DELETE", "/v1/skus", json!({})).await.0, 405);
    assert_eq!(ts.get("/v1/skus/NO-SUCH-SKU").await.0, 404);
    assert_eq!(ts.get("/nowhere").await.0, 404);
    let metrics = ts.metrics().await;
    for line in [
        r#"allot_http_requests_total{method="GET",route="/healthz",status="200"}"#,
        r#"allot_http_requests_total{method="DELETE",route="/v1/skus",status="405"}"#,
        r#"allot_http_requests_total{method="GET",route="/v1/skus/{sku}",status="404"}"#,
        r#"allot_http_requests_total{method="GET",route="unmatched",status="404"}"#,
    ] {
        assert!(metrics.contains(line), "{line} in:\n{metrics}");
    }
    assert!(metrics.contains("allot_allocations_total"));
    ts.assert_audit_clean().await;
}

/// POST an allocation; a `contention` answer is retried (bounded) as a client honouring
/// Retry-After would, so the final count is exact for the optimistic strategy too.
async fn allocate_retrying(ts: &Api, body: Value) -> (u16, Value) {
    for _ in 0..50 {
        let (s, b) = ts.post("/v1/allocations", body.clone()).await;
        if b["error"]["code"] != "contention" {
            return (s, b);
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("still contention after 50 tries");
}

async fn run_concurrently(ts: &TestServer, bodies: Vec<Value>) -> BTreeMap<String, u64> {
    let mut set = tokio::task::JoinSet::new();
    for body in bodies {
        let api = ts.api.clone();
        set.spawn(async move { allocate_retrying(&api, body).await });
    }
    let mut counts = BTreeMap::new();
    while let Some(r) = set.join_next().await {
        let (s, b) = r.unwrap();
        assert!(s < 500, "5xx: {s} {b}");
        let key = if s == 201 {
            "allocated".to_string()
        } else {
            b["error"]["code"].as_str().unwrap().to_string()
        };
        *counts.entry(key).or_default() += 1;
    }
    counts
}

async fn exact_successes_under_contention(ts: &TestServer) {
    for strategy in ts.safe_strategies() {
        let sku = format!("HOT-{strategy}");
        ts.create_sku(&sku, 50, if strategy == "segmented" { 4 } else { 1 })
            .await;
        let bodies = (0..200).map(|_| alloc_body(&[(&sku, 1)], strategy)).collect();
        let counts = run_concurrently(ts, bodies).await;
        assert_eq!(counts.get("allocated"), Some(&50), "{strategy}: {counts:?}");
        assert_eq!(counts.get("insufficient_stock"), Some(&150), "{strategy}: {counts:?}");
        let s = ts.sku(&sku).await;
        assert_eq!(
            (s["on_hand"].as_i64(), s["available"].as_i64()),
            (Some(0), Some(0)),
            "{strategy}"
        );
        let ledger = ts.ledger(&sku).await;
        assert_eq!(ledger.len(), 51, "{strategy}: one entry per allocation plus creation");
    }
    ts.assert_audit_clean().await;
}

async fn carts_in_both_orders(ts: &TestServer) {
    for strategy in ts.safe_strategies() {
        let (a, b) = (format!("A-{strategy}"), format!("B-{strategy}"));
        ts.create_sku(&a, 30, 1).await;
        ts.create_sku(&b, 30, 1).await;
        let bodies = (0..100)
            .map(|i| {
                if i % 2 == 0 {
                    alloc_body(&[(&a, 1), (&b, 1)], strategy)
                } else {
                    alloc_body(&[(&b, 1), (&a, 1)], strategy)
                }
            })
            .collect();
        let counts = run_concurrently(ts, bodies).await;
        assert_eq!(counts.get("allocated"), Some(&30), "{strategy}: {counts:?}");
        assert_eq!(counts.get("insufficient_stock"), Some(&70), "{strategy}: {counts:?}");
        assert_eq!(ts.sku(&a).await["on_hand"], 0);
        assert_eq!(ts.sku(&b).await["on_hand"], 0);
    }
    ts.assert_audit_clean().await;
}

async fn idempotency_parallel_one_effect(ts: &TestServer) {
    for strategy in ts.safe_strategies() {
        idempotency_parallel_one_effect_with(ts, strategy).await;
    }
    ts.assert_audit_clean().await;
}

async fn idempotency_parallel_one_effect_with(ts: &TestServer, strategy: &str) {
    let sku = format!("IDEM-{strategy}");
    let key = format!("key-{strategy}");
    ts.create_sku(&sku, 100, 1).await;
    let body = alloc_body(&[(&sku, 3)], strategy).to_string();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let ts = ts.api.clone();
        let (body, key) = (body.clone(), key.clone());
        set.spawn(async move {
            // A retry while the first is running is 409 idempotency_key_in_use: retry it.
            for _ in 0..200 {
                let (s, replayed, b) = ts.post_raw("/v1/allocations", body.clone(), Some(&key)).await;
                if b["error"]["code"] == "idempotency_key_in_use" {
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                    continue;
                }
                return (s, replayed, b);
            }
            panic!("key stayed in use");
        });
    }
    let mut bodies = Vec::new();
    let mut fresh = 0;
    while let Some(r) = set.join_next().await {
        let (s, replayed, b) = r.unwrap();
        assert_eq!(s, 201, "{b}");
        if !replayed {
            fresh += 1;
        }
        bodies.push(b);
    }
    assert_eq!(fresh, 1, "{strategy}: exactly one request ran");
    assert!(bodies.iter().all(|b| *b == bodies[0]), "{strategy}: identical bodies");
    assert_eq!(ts.sku(&sku).await["on_hand"], 97, "{strategy}: one effect");
    assert_eq!(ts.ledger(&sku).await.len(), 2, "{strategy}");
}

async fn idempotency_reuse_and_replay(ts: &TestServer) {
    ts.create_sku("K", 10, 1).await;
    let body = alloc_body(&[("K", 1)], ts.safe_strategies()[0]).to_string();
    let (s1, r1, b1) = ts.post_raw("/v1/allocations", body.clone(), Some("k")).await;
    let (s2, r2, b2) = ts.post_raw("/v1/allocations", body.clone(), Some("k")).await;
    assert_eq!((s1, r1, s2, r2), (201, false, 201, true));
    assert_eq!(b1, b2);
    // Same key, different body.
    let other = alloc_body(&[("K", 2)], ts.safe_strategies()[0]).to_string();
    let (s, b) = ts.post_with("/v1/allocations", other, Some("k")).await;
    assert_eq!((s, b["error"]["code"].as_str()), (422, Some("idempotency_key_reused")));
    // Same key on another endpoint is another request too.
    let (s, _) = ts
        .post_with("/v1/skus", json!({"sku": "K2", "on_hand": 1}).to_string(), Some("k"))
        .await;
    assert_eq!(s, 422);
    // Key order in the JSON does not matter (canonical form).
    let reordered = format!(
        r#"{{"strategy":"{}","lines":[{{"quantity":1,"sku":"K"}}]}}"#,
        ts.safe_strategies()[0]
    );
    let (s, replayed, _) = ts.post_raw("/v1/allocations", reordered, Some("k")).await;
    assert_eq!((s, replayed), (201, true));
    // A failed request stores nothing: after a restock the same key runs.
    let big = alloc_body(&[("K", 50)], ts.safe_strategies()[0]).to_string();
    let (s, _) = ts.post_with("/v1/allocations", big.clone(), Some("big")).await;
    assert_eq!(s, 409);
    ts.ok("/v1/skus/K/adjustments", json!({"delta": 100})).await;
    let (s, replayed, _) = ts.post_raw("/v1/allocations", big, Some("big")).await;
    assert_eq!((s, replayed), (201, false));
    // Idempotent SKU creation and adjustment.
    let create = json!({"sku": "K3", "on_hand": 4}).to_string();
    assert_eq!(ts.post_raw("/v1/skus", create.clone(), Some("c3")).await.0, 201);
    assert!(ts.post_raw("/v1/skus", create, Some("c3")).await.1);
    let adj = json!({"delta": -1}).to_string();
    let a1 = ts.post_raw("/v1/skus/K3/adjustments", adj.clone(), Some("a3")).await;
    let a2 = ts.post_raw("/v1/skus/K3/adjustments", adj, Some("a3")).await;
    assert_eq!((a1.0, a1.1, a2.0, a2.1), (200, false, 200, true));
    assert_eq!(a1.2, a2.2);
    assert_eq!(ts.sku("K3").await["on_hand"], 3);
    ts.assert_audit_clean().await;
}

async fn bad_inputs_change_nothing(ts: &TestServer) {
    ts.create_sku("A", 10, 1).await;
    ts.create_sku("B", 1, 1).await;
    let strategy = ts.safe_strategies()[0];
    let snapshot = || async {
        (
            ts.sku("A").await,
            ts.sku("B").await,
            ts.ledger("A").await.len(),
            ts.ledger("B").await.len(),
        )
    };
    let before = snapshot().await;
    let long_key = "k".repeat(256);
    let too_many: Vec<Value> = (0..101)
        .map(|i| json!({"sku": format!("S{i}"), "quantity": 1}))
        .collect();
    let cases: Vec<(&str, String, Option<&str>, u16, &str)> = vec![
        ("/v1/allocations", "{not json".into(), None, 400, "invalid_request"),
        (
            "/v1/allocations",
            json!({"lines": "A"}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "A", "quantity": "1"}]}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "A", "quantity": 1.5}]}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 0)], strategy).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", -1)], strategy).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            r#"{"lines":[{"sku":"A","quantity":99999999999999999999}]}"#.into(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            json!({"lines": []}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("bad name", 1)], strategy).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 1), ("A", 1)], strategy).to_string(),
            None,
            422,
            "duplicate_sku",
        ),
        (
            "/v1/allocations",
            json!({"lines": too_many}).to_string(),
            None,
            400,
            "limit_exceeded",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 2_000_000_000_000)], strategy).to_string(),
            None,
            400,
            "limit_exceeded",
        ),
        (
            "/v1/allocations",
            alloc_body(&[(&"x".repeat(129), 1)], strategy).to_string(),
            None,
            400,
            "limit_exceeded",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 1)], "bogus").to_string(),
            None,
            400,
            "unsupported_strategy",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 1)], "naive").to_string(),
            None,
            400,
            "unsupported_strategy",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 1), ("ZZ", 1)], strategy).to_string(),
            None,
            404,
            "not_found",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("ZZ", 1)], strategy).to_string(),
            None,
            404,
            "not_found",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("B", 2)], strategy).to_string(),
            None,
            409,
            "insufficient_stock",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 1), ("B", 2)], strategy).to_string(),
            None,
            409,
            "insufficient_stock",
        ),
        (
            "/v1/allocations",
            alloc_body(&[("A", 1)], strategy).to_string(),
            Some(long_key.as_str()),
            400,
            "limit_exceeded",
        ),
        (
            "/v1/allocations",
            format!("{{\"pad\":\"{}\"}}", "x".repeat(1 << 20)),
            None,
            413,
            "limit_exceeded",
        ),
        (
            "/v1/skus",
            json!({"sku": "A", "on_hand": 1}).to_string(),
            None,
            409,
            "already_exists",
        ),
        (
            "/v1/skus",
            json!({"sku": "N", "on_hand": -1}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/skus",
            json!({"sku": "N", "on_hand": 1, "buckets": 0}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/skus",
            json!({"sku": "N", "on_hand": 1, "buckets": 1000}).to_string(),
            None,
            400,
            "limit_exceeded",
        ),
        (
            "/v1/skus",
            json!({"on_hand": 1}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/skus/A/adjustments",
            json!({"delta": 0}).to_string(),
            None,
            400,
            "invalid_request",
        ),
        (
            "/v1/skus/A/adjustments",
            json!({"delta": -11}).to_string(),
            None,
            409,
            "insufficient_stock",
        ),
        (
            "/v1/skus/ZZ/adjustments",
            json!({"delta": 1}).to_string(),
            None,
            404,
            "not_found",
        ),
        (
            "/v1/skus/a%20b/adjustments",
            json!({"delta": 1}).to_string(),
            None,
            400,
            "invalid_request",
        ),
    ];
    for (path, body, key, status, code) in cases {
        let (s, b) = ts.post_with(path, body.clone(), key).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (status, Some(code)),
            "{path} {}: {b}",
            &body[..body.len().min(120)]
        );
        assert!(b["error"]["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert_eq!(
            snapshot().await,
            before,
            "state changed by {path} {}",
            &body[..body.len().min(120)]
        );
    }
    // The first short line's details, for a cart (general path) and a single line (the
    // single-statement path on PostgreSQL).
    for lines in [&[("A", 1), ("B", 2)][..], &[("B", 2)][..]] {
        let (s, b) = ts.post("/v1/allocations", alloc_body(lines, strategy)).await;
        assert_eq!(s, 409);
        assert_eq!(
            (
                b["error"]["sku"].as_str(),
                b["error"]["requested"].as_i64(),
                b["error"]["available"].as_i64()
            ),
            (Some("B"), Some(2), Some(1))
        );
    }
    let (s, b) = ts.post("/v1/allocations", alloc_body(&[("A", 1)], "bogus")).await;
    assert_eq!(s, 400, "{b}");
    let (s, b) = ts.get("/v1/skus/A/ledger?limit=100000").await;
    assert_eq!(
        (s, b["error"]["code"].as_str(), b["error"]["limit"].as_str()),
        (400, Some("limit_exceeded"), Some("max_page_size"))
    );
    assert_eq!(ts.get("/v1/skus/A/ledger?after=x").await.0, 400);
    ts.assert_audit_clean().await;
}

async fn segmented_fragmentation_and_adjustments(ts: &TestServer) {
    let strategy = if ts.kind == Kind::Postgres {
        "segmented"
    } else {
        "serialized"
    };
    ts.create_sku("SEG", 8, 4).await;
    let s = ts.sku("SEG").await;
    assert_eq!((s["on_hand"].as_i64(), s["buckets"].as_i64()), (Some(8), Some(4)));
    // Buckets hold 2 each: a request for 3 cannot be served by one bucket (the documented
    // price of segmentation), though 8 are available in total.
    let (st, b) = ts.post("/v1/allocations", alloc_body(&[("SEG", 3)], strategy)).await;
    assert_eq!(
        (st, b["error"]["code"].as_str(), b["error"]["available"].as_i64()),
        (409, Some("insufficient_stock"), Some(8))
    );
    // Single units drain every bucket.
    for _ in 0..8 {
        assert_eq!(
            ts.post("/v1/allocations", alloc_body(&[("SEG", 1)], strategy)).await.0,
            201
        );
    }
    assert_eq!(
        ts.post("/v1/allocations", alloc_body(&[("SEG", 1)], strategy)).await.0,
        409
    );
    // A restock spreads evenly: 12 over 4 buckets with no bucket holding 4 is 3 in each,
    // so four requests of 3 succeed and then nothing is left.
    let (st, b) = ts.post("/v1/skus/SEG/adjustments", json!({"delta": 12})).await;
    assert_eq!((st, b["on_hand"].as_i64()), (200, Some(12)));
    let (st, b) = ts.post("/v1/allocations", alloc_body(&[("SEG", 4)], strategy)).await;
    assert_eq!(
        (st, b["error"]["available"].as_i64()),
        (409, Some(12)),
        "no bucket holds 4: {b}"
    );
    for n in 0..4 {
        let (st, b) = ts.post("/v1/allocations", alloc_body(&[("SEG", 3)], strategy)).await;
        assert_eq!(st, 201, "request {n} of 3: {b}");
    }
    assert_eq!(ts.sku("SEG").await["on_hand"], 0);
    ts.assert_audit_clean().await;
}

async fn ledger_paging(ts: &TestServer) {
    ts.create_sku("L", 100, 1).await;
    for _ in 0..5 {
        assert_eq!(
            ts.post("/v1/allocations", alloc_body(&[("L", 1)], ts.safe_strategies()[0]))
                .await
                .0,
            201
        );
    }
    let (_, page1) = ts.get("/v1/skus/L/ledger?limit=4").await;
    let p1 = page1["entries"].as_array().unwrap().clone();
    assert_eq!(p1.len(), 4);
    let last = p1[3]["id"].as_i64().unwrap();
    assert_eq!(page1["next"], json!(last), "a full page carries next: {page1}");
    let (_, page2) = ts.get(&format!("/v1/skus/L/ledger?after={last}&limit=4")).await;
    let p2 = page2["entries"].as_array().unwrap().clone();
    assert_eq!(p2.len(), 2);
    assert_eq!(page2["next"], Value::Null, "the last page: {page2}");
    // A last page exactly full says so too: no empty page to fetch after it.
    let (_, whole) = ts.get("/v1/skus/L/ledger?limit=6").await;
    let n = whole["entries"].as_array().map(Vec::len);
    assert_eq!((n, &whole["next"]), (Some(6), &Value::Null), "{whole}");
    let sum: i64 = p1.iter().chain(p2.iter()).map(|e| e["delta"].as_i64().unwrap()).sum();
    assert_eq!(sum, ts.sku("L").await["on_hand"].as_i64().unwrap());
}
