//! Holds and units, the same bodies against PostgreSQL and SQLite through the HTTP API.
//! Concurrency tests assert exact counts and that no unit or hold is counted twice.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Api, Kind, TestServer};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

conformance!(
    hold_lifecycle,
    hold_expiry_is_exact_before_the_sweeper,
    units_order_partial_and_unit_holds,
    units_bad_inputs_change_nothing,
    units_concurrent_claimers_never_share,
    units_scarce_pool_every_unit_once,
    units_null_sorts_smallest_on_every_backend,
    unit_claim_idempotency_key_one_effect,
    units_fefo_and_never_past_best_before,
);

fn lines(l: &[(&str, i64)]) -> Value {
    Value::Array(l.iter().map(|(s, q)| json!({"sku": s, "quantity": q})).collect())
}

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("")
}

fn hold_strategies(ts: &Api) -> Vec<&'static str> {
    ts.safe_strategies()
}

fn unit_strategies(ts: &Api) -> Vec<&'static str> {
    match ts.kind {
        Kind::Postgres => vec!["skip_locked", "nowait_scan", "batched"],
        Kind::Sqlite => vec!["serialized"],
    }
}

async fn hold_lifecycle(ts: &TestServer) {
    for strategy in hold_strategies(ts) {
        let sku = format!("H-{strategy}");
        ts.create_sku(&sku, 10, if strategy == "segmented" { 3 } else { 1 })
            .await;
        let (s, h) = ts
            .post(
                "/v1/holds",
                json!({"lines": lines(&[(&sku, 3)]), "ttl_ms": 60_000, "strategy": strategy}),
            )
            .await;
        assert_eq!(s, 201, "{strategy}: {h}");
        assert_eq!(h["status"], "held");
        let id = h["id"].as_str().unwrap().to_string();
        let v = ts.sku(&sku).await;
        assert_eq!(
            (v["on_hand"].as_i64(), v["held"].as_i64(), v["available"].as_i64()),
            (Some(10), Some(3), Some(7))
        );
        // More than available is refused and changes nothing.
        let (s, b) = ts
            .post(
                "/v1/holds",
                json!({"lines": lines(&[(&sku, 8)]), "ttl_ms": 60_000, "strategy": strategy}),
            )
            .await;
        assert_eq!((s, code(&b)), (409, "insufficient_stock"), "{b}");
        assert_eq!(b["error"]["available"], 7);

        let (s, a) = ts.post(&format!("/v1/holds/{id}/confirm"), json!({})).await;
        assert_eq!(s, 200, "{a}");
        assert_eq!(
            (a["id"].as_str(), a["status"].as_str()),
            (Some(id.as_str()), Some("allocated"))
        );
        let placed = json!([{"sku": sku, "quantity": 3, "from": [{"location": "default", "quantity": 3}]}]);
        assert_eq!(a["lines"], placed, "the allocation says where its hold took from");
        let v = ts.sku(&sku).await;
        assert_eq!((v["on_hand"].as_i64(), v["held"].as_i64()), (Some(7), Some(0)));
        // Confirm is idempotent; release of a confirmed hold is refused.
        let (s, again) = ts.post(&format!("/v1/holds/{id}/confirm"), json!({})).await;
        assert_eq!((s, &again["id"]), (200, &a["id"]));
        let (s, b) = ts.post(&format!("/v1/holds/{id}/release"), json!({})).await;
        assert_eq!((s, code(&b)), (409, "hold_confirmed"));
        assert_eq!(ts.get(&format!("/v1/allocations/{id}")).await.0, 200);
        assert_eq!(ts.get(&format!("/v1/holds/{id}")).await.1["status"], "confirmed");

        let (s, h2) = ts
            .post(
                "/v1/holds",
                json!({"lines": lines(&[(&sku, 2)]), "ttl_ms": 60_000, "strategy": strategy}),
            )
            .await;
        assert_eq!(s, 201, "{h2}");
        let id2 = h2["id"].as_str().unwrap();
        let (s, r) = ts.post(&format!("/v1/holds/{id2}/release"), json!({})).await;
        assert_eq!((s, r["status"].as_str()), (200, Some("released")), "{r}");
        let (s, r) = ts.post(&format!("/v1/holds/{id2}/release"), json!({})).await;
        assert_eq!((s, r["status"].as_str()), (200, Some("released")));
        let (s, b) = ts.post(&format!("/v1/holds/{id2}/confirm"), json!({})).await;
        assert_eq!((s, code(&b)), (409, "hold_released"));
        let v = ts.sku(&sku).await;
        assert_eq!((v["on_hand"].as_i64(), v["held"].as_i64()), (Some(7), Some(0)));
        let kinds: Vec<String> = ts
            .ledger(&sku)
            .await
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(kinds, ["created", "hold", "hold_confirmed", "hold", "hold_released"]);
    }
    // Bad inputs.
    let (s, b) = ts
        .post("/v1/holds", json!({"lines": lines(&[("NOPE", 1)]), "ttl_ms": 1000}))
        .await;
    assert_eq!((s, code(&b)), (404, "not_found"));
    let sku = format!("H-{}", hold_strategies(ts)[0]);
    let (s, b) = ts
        .post("/v1/holds", json!({"lines": lines(&[(&sku, 1)]), "ttl_ms": 10}))
        .await;
    assert_eq!((s, code(&b)), (400, "invalid_request"), "{b}");
    let (s, b) = ts
        .post("/v1/holds", json!({"lines": lines(&[(&sku, 1)]), "ttl_ms": 86_400_001}))
        .await;
    assert_eq!(
        (s, code(&b), b["error"]["limit"].as_str()),
        (400, "limit_exceeded", Some("max_hold_ttl_ms"))
    );
    let (s, b) = ts
        .post("/v1/holds", json!({"lines": lines(&[(&sku, 0)]), "ttl_ms": 1000}))
        .await;
    assert_eq!((s, code(&b)), (400, "invalid_request"));
    assert_eq!(ts.get("/v1/holds/nope").await.0, 404);
    assert_eq!(ts.post("/v1/holds/nope/confirm", json!({})).await.0, 404);
    ts.assert_audit_clean().await;
}

async fn hold_expiry_is_exact_before_the_sweeper(ts: &TestServer) {
    ts.create_sku("EXP", 5, 1).await;
    let (s, h) = ts
        .post("/v1/holds", json!({"lines": lines(&[("EXP", 5)]), "ttl_ms": 600_000}))
        .await;
    assert_eq!(s, 201, "{h}");
    let id = h["id"].as_str().unwrap();
    let (s, b) = ts.post("/v1/allocations", json!({"lines": lines(&[("EXP", 1)])})).await;
    assert_eq!((s, code(&b)), (409, "insufficient_stock"));
    ts.advance_past(&h["expires_at"]);
    // Readers see it expired although no sweeper ran (it is off in tests).
    let v = ts.sku("EXP").await;
    assert_eq!((v["held"].as_i64(), v["available"].as_i64()), (Some(0), Some(5)), "{v}");
    assert_eq!(ts.get(&format!("/v1/holds/{id}")).await.1["status"], "expired");
    let (s, b) = ts.post(&format!("/v1/holds/{id}/confirm"), json!({})).await;
    assert_eq!((s, code(&b)), (409, "hold_expired"));
    // A writer that needs the stock finalises the expired hold first.
    let (s, b) = ts.post("/v1/allocations", json!({"lines": lines(&[("EXP", 5)])})).await;
    assert_eq!(s, 201, "{b}");
    let (s, r) = ts.post(&format!("/v1/holds/{id}/release"), json!({})).await;
    assert_eq!((s, r["status"].as_str()), (200, Some("expired")));
    let ledger = ts.ledger("EXP").await;
    let expired: Vec<&Value> = ledger.iter().filter(|e| e["kind"] == "hold_expired").collect();
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0]["ref"], id);
    assert_eq!(ts.sku("EXP").await["on_hand"], 0);
    ts.assert_audit_clean().await;
}

async fn add_units(ts: &Api, sku: &str, serials: impl IntoIterator<Item = String>) {
    let units: Vec<Value> = serials.into_iter().map(|s| json!({"serial": s})).collect();
    let n = units.len();
    let (s, b) = ts
        .post(&format!("/v1/skus/{sku}/units"), json!({ "units": units }))
        .await;
    assert_eq!((s, b["created"].as_u64()), (201, Some(n as u64)), "{b}");
}

async fn units_order_partial_and_unit_holds(ts: &TestServer) {
    let units: Vec<Value> = (0..6)
        .map(|i| {
            json!({"serial": format!("S{i}"), "location": format!("L{}", i % 2), "lot": "lot-1",
                   "received_at": format!("2026-01-0{}T00:00:00+02:00", 6 - i)})
        })
        .collect();
    let (s, b) = ts.post("/v1/skus/SHOE/units", json!({ "units": units })).await;
    assert_eq!((s, b["created"].as_u64()), (201, Some(6)), "{b}");
    let v = ts.sku("SHOE").await;
    assert_eq!((v["on_hand"].as_i64(), v["available"].as_i64()), (Some(6), Some(6)));

    // Oldest first: S5 (Jan 1), S4 (Jan 2).
    let (s, a) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 2, "order_by": ["received_at"]}),
        )
        .await;
    assert_eq!(s, 201, "{a}");
    let serials: Vec<&str> = a["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["serial"].as_str().unwrap())
        .collect();
    assert_eq!(serials, ["S5", "S4"]);
    assert_eq!(a["units"][0]["received_at"], "2025-12-31T22:00:00Z");
    // Newest first, by location descending then received_at.
    let (s, a) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 1, "order_by": ["-received_at"]}),
        )
        .await;
    assert_eq!((s, a["units"][0]["serial"].as_str()), (201, Some("S0")), "{a}");

    // A unit hold: held, then released, then held again and confirmed.
    let (s, h) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 2, "order_by": ["location", "received_at"], "hold_ttl_ms": 60_000}),
        )
        .await;
    assert_eq!((s, h["status"].as_str()), (201, Some("held")), "{h}");
    let serials: Vec<&str> = h["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["serial"].as_str().unwrap())
        .collect();
    assert_eq!(serials, ["S2", "S3"]);
    let v = ts.sku("SHOE").await;
    assert_eq!(
        (v["on_hand"].as_i64(), v["held"].as_i64(), v["available"].as_i64()),
        (Some(3), Some(2), Some(1))
    );
    let hid = h["id"].as_str().unwrap();
    let (s, g) = ts.get(&format!("/v1/holds/{hid}")).await;
    assert_eq!(
        (s, g["kind"].as_str(), g["units"].as_array().map(|u| u.len())),
        (200, Some("units"), Some(2))
    );
    let (s, r) = ts.post(&format!("/v1/holds/{hid}/release"), json!({})).await;
    assert_eq!((s, r["status"].as_str()), (200, Some("released")));
    assert_eq!(ts.sku("SHOE").await["available"], 3);
    let (s, h) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 1, "hold_ttl_ms": 60_000}),
        )
        .await;
    assert_eq!(s, 201, "{h}");
    let (s, c) = ts
        .post(&format!("/v1/holds/{}/confirm", h["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!((s, c["lines"][0]["quantity"].as_i64()), (200, Some(1)), "{c}");

    // Partial: two left, ask for five.
    let (s, b) = ts
        .post("/v1/unit-allocations", json!({"sku": "SHOE", "quantity": 5}))
        .await;
    assert_eq!(
        (s, code(&b), b["error"]["available"].as_i64()),
        (409, "insufficient_stock", Some(2)),
        "{b}"
    );
    let (s, a) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 5, "allow_partial": true}),
        )
        .await;
    assert_eq!((s, a["units"].as_array().map(|u| u.len())), (201, Some(2)), "{a}");
    let v = ts.sku("SHOE").await;
    assert_eq!((v["on_hand"].as_i64(), v["held"].as_i64()), (Some(0), Some(0)));
    let (s, b) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 1, "allow_partial": true}),
        )
        .await;
    assert_eq!((s, code(&b)), (409, "insufficient_stock"));

    // An expired unit hold frees its units for the next claim, before any sweeper.
    add_units(ts, "SHOE", ["X1".to_string()]).await;
    let (s, h) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "SHOE", "quantity": 1, "hold_ttl_ms": 600_000}),
        )
        .await;
    assert_eq!(s, 201, "{h}");
    ts.advance_past(&h["expires_at"]);
    assert_eq!(ts.sku("SHOE").await["available"], 1);
    let (s, a) = ts
        .post("/v1/unit-allocations", json!({"sku": "SHOE", "quantity": 1}))
        .await;
    assert_eq!((s, a["units"][0]["serial"].as_str()), (201, Some("X1")), "{a}");
    ts.assert_audit_clean().await;
}

async fn units_bad_inputs_change_nothing(ts: &TestServer) {
    add_units(ts, "U", (0..3).map(|i| format!("S{i}"))).await;
    let before = ts.sku("U").await;
    let bad = [
        (
            json!({"sku": "U", "quantity": 1, "order_by": ["price"]}),
            400,
            "invalid_request",
        ),
        (
            json!({"sku": "U", "quantity": 1, "order_by": ["id; DROP TABLE units"]}),
            400,
            "invalid_request",
        ),
        (json!({"sku": "U", "quantity": 0}), 400, "invalid_request"),
        (
            json!({"sku": "U", "quantity": 1, "hold_ttl_ms": 1}),
            400,
            "invalid_request",
        ),
        (
            json!({"sku": "U", "quantity": 1, "hold_ttl_ms": 86_400_001}),
            400,
            "limit_exceeded",
        ),
        (json!({"sku": "U", "quantity": 1001}), 400, "limit_exceeded"),
        (
            json!({"sku": "U", "quantity": 1, "strategy": "bogus"}),
            400,
            "unsupported_strategy",
        ),
        (json!({"sku": "NOPE", "quantity": 1}), 404, "not_found"),
        (json!({"sku": "U", "quantity": "3"}), 400, "invalid_request"),
    ];
    for (body, status, c) in bad {
        let (s, b) = ts.post("/v1/unit-allocations", body.clone()).await;
        assert_eq!((s, code(&b)), (status, c), "{body}: {b}");
    }
    // Duplicate serials: within the batch, and against what the SKU has; nothing inserted.
    let (s, b) = ts
        .post(
            "/v1/skus/U/units",
            json!({"units": [{"serial": "N1"}, {"serial": "N1"}]}),
        )
        .await;
    assert_eq!((s, code(&b)), (422, "duplicate_serial"));
    let (s, b) = ts
        .post(
            "/v1/skus/U/units",
            json!({"units": [{"serial": "N2"}, {"serial": "S1"}]}),
        )
        .await;
    assert_eq!((s, code(&b)), (409, "already_exists"), "{b}");
    let (s, b) = ts.post("/v1/skus/U/units", json!({"units": []})).await;
    assert_eq!((s, code(&b)), (400, "invalid_request"));
    // Units and counts do not mix.
    ts.create_sku("COUNTED", 5, 1).await;
    let (s, b) = ts
        .post("/v1/skus/COUNTED/units", json!({"units": [{"serial": "A"}]}))
        .await;
    assert_eq!((s, code(&b)), (409, "wrong_tracking"));
    let (s, b) = ts
        .post("/v1/unit-allocations", json!({"sku": "COUNTED", "quantity": 1}))
        .await;
    assert_eq!((s, code(&b)), (409, "wrong_tracking"));
    let (s, b) = ts.post("/v1/allocations", json!({"lines": lines(&[("U", 1)])})).await;
    assert_eq!((s, code(&b)), (409, "wrong_tracking"), "{b}");
    let (s, b) = ts.post("/v1/skus/U/adjustments", json!({"delta": 1})).await;
    assert_eq!((s, code(&b)), (409, "wrong_tracking"));
    assert_eq!(ts.sku("U").await, before);
    assert_eq!(ts.ledger("U").await.len(), 1);
    ts.assert_audit_clean().await;
}

/// POST a unit claim; `contention` is retried (bounded) as a client honouring Retry-After.
async fn claim_retrying(ts: &Api, body: Value) -> (u16, Value) {
    for _ in 0..100 {
        let (s, b) = ts.post("/v1/unit-allocations", body.clone()).await;
        if code(&b) != "contention" {
            return (s, b);
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    panic!("still contention after 100 tries");
}

/// Run claims concurrently; returns the outcome counts and every unit id handed out.
async fn claim_concurrently(ts: &TestServer, bodies: Vec<Value>) -> (BTreeMap<String, u64>, Vec<i64>) {
    let mut set = tokio::task::JoinSet::new();
    for body in bodies {
        let api = ts.api.clone();
        set.spawn(async move { claim_retrying(&api, body).await });
    }
    let (mut counts, mut ids) = (BTreeMap::new(), Vec::new());
    while let Some(r) = set.join_next().await {
        let (s, b) = r.unwrap();
        let key = if s == 201 {
            "ok".to_string()
        } else {
            code(&b).to_string()
        };
        assert!(s == 201 || s == 409, "unexpected {s}: {b}");
        *counts.entry(key).or_insert(0) += 1;
        for u in b["units"].as_array().into_iter().flatten() {
            ids.push(u["id"].as_i64().unwrap());
        }
    }
    (counts, ids)
}

async fn units_concurrent_claimers_never_share(ts: &TestServer) {
    for strategy in unit_strategies(ts) {
        let sku = format!("POOL-{strategy}");
        add_units(ts, &sku, (0..300).map(|i| format!("S{i:04}"))).await;
        let bodies = (0..60)
            .map(|i| json!({"sku": sku, "quantity": 1 + i % 3, "order_by": ["received_at", "location"], "strategy": strategy}))
            .collect();
        let (counts, ids) = claim_concurrently(ts, bodies).await;
        assert_eq!(counts.get("ok"), Some(&60), "{strategy}: {counts:?}");
        let distinct: HashSet<i64> = ids.iter().copied().collect();
        assert_eq!(distinct.len(), ids.len(), "{strategy}: a unit was handed out twice");
        assert_eq!(ids.len(), 120);
        let v = ts.sku(&sku).await;
        assert_eq!(v["on_hand"], 180, "{strategy}");
    }
    ts.assert_audit_clean().await;
}

async fn units_scarce_pool_every_unit_once(ts: &TestServer) {
    for strategy in unit_strategies(ts) {
        let sku = format!("SCARCE-{strategy}");
        add_units(ts, &sku, (0..30).map(|i| format!("S{i:03}"))).await;
        // 25 claimers of 2 units want 50; exactly 15 get theirs and 10 hear "insufficient".
        let bodies = (0..25)
            .map(|_| json!({"sku": sku, "quantity": 2, "strategy": strategy}))
            .collect();
        let (counts, ids) = claim_concurrently(ts, bodies).await;
        assert_eq!(counts.get("ok"), Some(&15), "{strategy}: {counts:?}");
        assert_eq!(counts.get("insufficient_stock"), Some(&10), "{strategy}: {counts:?}");
        let distinct: HashSet<i64> = ids.iter().copied().collect();
        assert_eq!((distinct.len(), ids.len()), (30, 30), "{strategy}");
        let v = ts.sku(&sku).await;
        assert_eq!((v["on_hand"].as_i64(), v["available"].as_i64()), (Some(0), Some(0)));
    }
    ts.assert_audit_clean().await;
}

// With the hold sweeper running every 5 ms.
conformance!(mod sweeping, |c| c.hold_sweep_interval_ms = 5;
    holds_expiring_under_load_return_exactly_once,
    confirm_racing_expiry_has_one_outcome
);

/// Ledger entries of `sku` grouped by (ref, kind) -> count.
async fn ledger_by_ref(ts: &Api, sku: &str) -> BTreeMap<(String, String), u64> {
    let mut m = BTreeMap::new();
    for e in ts.ledger(sku).await {
        let r = e["ref"].as_str().unwrap_or("").to_string();
        *m.entry((r, e["kind"].as_str().unwrap().to_string())).or_insert(0) += 1;
    }
    m
}

async fn holds_expiring_under_load_return_exactly_once(ts: &TestServer) {
    ts.create_sku("LOAD", 200, 1).await;
    let mut set = tokio::task::JoinSet::new();
    for i in 0..40i64 {
        let api = ts.api.clone();
        set.spawn(async move {
            let body = json!({"lines": lines(&[("LOAD", 1 + i % 3)]), "ttl_ms": 50 + (i % 4) * 20});
            let (s, b) = api.post("/v1/holds", body).await;
            (true, s, b)
        });
        let api = ts.api.clone();
        set.spawn(async move {
            let (s, b) = api
                .post("/v1/allocations", json!({"lines": lines(&[("LOAD", 2)])}))
                .await;
            (false, s, b)
        });
    }
    // 79 units held and 80 allocated at most: 200 are enough for every request, so every
    // one must succeed, whatever expires around it.
    let (mut holds, mut allocated) = (Vec::new(), 0i64);
    while let Some(r) = set.join_next().await {
        let (is_hold, s, b) = r.unwrap();
        assert_eq!(s, 201, "every request fits: {b}");
        if is_hold {
            holds.push(b["id"].as_str().unwrap().to_string());
        } else {
            allocated += 2;
        }
    }
    assert_eq!((holds.len(), allocated), (40, 80));
    // The sweeper (or writers) finish every hold; then nothing is held.
    let v = ts.wait_for_sku("LOAD", |v| v["held"] == 0).await;
    assert_eq!(v["on_hand"].as_i64(), Some(200 - 80));
    for _ in 0..500 {
        let by_ref = ledger_by_ref(ts, "LOAD").await;
        if holds
            .iter()
            .all(|h| by_ref.contains_key(&(h.clone(), "hold_expired".into())))
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let by_ref = ledger_by_ref(ts, "LOAD").await;
    for h in &holds {
        assert_eq!(by_ref.get(&(h.clone(), "hold".into())), Some(&1), "{h}");
        assert_eq!(
            by_ref.get(&(h.clone(), "hold_expired".into())),
            Some(&1),
            "{h} returned once"
        );
        let (s, g) = ts.get(&format!("/v1/holds/{h}")).await;
        assert_eq!((s, g["status"].as_str()), (200, Some("expired")));
    }
    ts.assert_audit_clean().await;
}

async fn confirm_racing_expiry_has_one_outcome(ts: &TestServer) {
    ts.create_sku("RACE", 100, 1).await;
    let mut holds = Vec::new();
    for _ in 0..30 {
        let (s, h) = ts
            .post("/v1/holds", json!({"lines": lines(&[("RACE", 2)]), "ttl_ms": 400}))
            .await;
        assert_eq!(s, 201, "{h}");
        holds.push((h["id"].as_str().unwrap().to_string(), h["expires_at"].clone()));
    }
    // Confirm each hold at a moment spread around its expiry — from 200 ms before to 90 ms
    // after — while the sweeper runs every 5 ms: early confirms win, late ones find the hold
    // expired, and those at the edge race the sweeper.
    let mut set = tokio::task::JoinSet::new();
    for (i, (id, at)) in holds.iter().cloned().enumerate() {
        let api = ts.api.clone();
        set.spawn(async move {
            let at: chrono::DateTime<chrono::Utc> = at.as_str().unwrap().parse().unwrap();
            let send_at = at + chrono::Duration::milliseconds(i as i64 * 10 - 200);
            let wait = (send_at - chrono::Utc::now()).num_microseconds().unwrap_or(0).max(0) as u64;
            tokio::time::sleep(std::time::Duration::from_micros(wait)).await;
            let sent_after_expiry = chrono::Utc::now() > at;
            let (s, b) = api.post(&format!("/v1/holds/{id}/confirm"), json!({})).await;
            (id, sent_after_expiry, s, b)
        });
    }
    let mut confirmed = HashSet::new();
    let mut expired = 0;
    while let Some(r) = set.join_next().await {
        let (id, late, s, b) = r.unwrap();
        match s {
            200 => {
                assert!(!late, "{id}: confirmed although sent after it expired: {b}");
                confirmed.insert(id);
            }
            409 => {
                assert_eq!(code(&b), "hold_expired", "{b}");
                expired += 1;
            }
            _ => panic!("{s} {b}"),
        }
    }
    assert!(
        !confirmed.is_empty() && expired > 0,
        "both outcomes must occur: {} confirmed, {expired} expired",
        confirmed.len()
    );
    let v = ts.wait_for_sku("RACE", |v| v["held"] == 0).await;
    assert_eq!(v["on_hand"].as_i64(), Some(100 - 2 * confirmed.len() as i64));
    for _ in 0..500 {
        let by_ref = ledger_by_ref(ts, "RACE").await;
        let finished = holds.iter().filter(|(h, _)| {
            by_ref.contains_key(&(h.clone(), "hold_expired".into()))
                || by_ref.contains_key(&(h.clone(), "hold_confirmed".into()))
        });
        if finished.count() == holds.len() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let by_ref = ledger_by_ref(ts, "RACE").await;
    for (h, _) in &holds {
        let c = by_ref.get(&(h.clone(), "hold_confirmed".into())).copied().unwrap_or(0);
        let e = by_ref.get(&(h.clone(), "hold_expired".into())).copied().unwrap_or(0);
        if confirmed.contains(h) {
            assert_eq!((c, e), (1, 0), "{h}: answered confirmed");
            assert_eq!(ts.get(&format!("/v1/allocations/{h}")).await.0, 200);
        } else {
            assert_eq!((c, e), (0, 1), "{h}: answered expired");
            assert_eq!(ts.get(&format!("/v1/allocations/{h}")).await.0, 404);
        }
    }
    ts.assert_audit_clean().await;
}

async fn units_null_sorts_smallest_on_every_backend(ts: &TestServer) {
    let (s, b) = ts
        .post(
            "/v1/skus/NUL/units",
            json!({"units": [{"serial": "B", "location": "L2"}, {"serial": "N"}, {"serial": "A", "location": "L1"}]}),
        )
        .await;
    assert_eq!(s, 201, "{b}");
    let serials = |b: &Value| -> Vec<String> {
        b["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["serial"].as_str().unwrap().to_string())
            .collect()
    };
    let (s, h) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "NUL", "quantity": 3, "order_by": ["location"], "hold_ttl_ms": 60_000}),
        )
        .await;
    assert_eq!(s, 201, "{h}");
    assert_eq!(serials(&h), ["N", "A", "B"]);
    ts.ok(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
        .await;
    let (s, a) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "NUL", "quantity": 3, "order_by": ["-location"]}),
        )
        .await;
    assert_eq!(s, 201, "{a}");
    assert_eq!(serials(&a), ["B", "A", "N"]);
    ts.assert_audit_clean().await;
}

/// `order_by: ["fefo"]` takes the earliest best-before first and undated units last; a unit
/// past its `expires_at` is never handed out (by order or by serial), on every unit strategy,
/// as the injected clock crosses the dates; the refusal's `available` counts only units
/// that may be handed out.
async fn units_fefo_and_never_past_best_before(ts: &TestServer) {
    use allot_core::Clock;
    for (i, strategy) in unit_strategies(ts).into_iter().enumerate() {
        let sku = format!("FEFO{i}");
        let at = |min: i64| (ts.clock.now() + chrono::Duration::minutes(min)).to_rfc3339();
        let units = json!({"units": [
            {"serial": "LATE", "expires_at": at(60)}, {"serial": "NONE"},
            {"serial": "SOON", "expires_at": at(5)}, {"serial": "PAST", "expires_at": at(-1)},
            {"serial": "MID", "expires_at": at(10)}]});
        let (s, b) = ts.post(&format!("/v1/skus/{sku}/units"), units).await;
        assert_eq!(s, 201, "{b}");
        let claim = |q: i64, order: &str| json!({"sku": sku, "quantity": q, "order_by": [order], "strategy": strategy, "hold_ttl_ms": 600_000});
        let (s, h) = ts.post("/v1/unit-allocations", claim(4, "fefo")).await;
        assert_eq!(s, 201, "{strategy}: {h}");
        assert_eq!(
            unit_serials(&h),
            ["SOON", "MID", "LATE", "NONE"],
            "{strategy}: PAST never"
        );
        ts.ok(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
            .await;
        let (s, b) = ts.post("/v1/unit-allocations", claim(5, "expires_at")).await;
        assert_eq!(
            (s, code(&b), &b["error"]["available"]),
            (409, "insufficient_stock", &json!(4)),
            "{b}"
        );
        ts.clock.advance_ms(7 * 60_000);
        let (s, b) = ts.post("/v1/unit-allocations", claim(4, "fefo")).await;
        assert_eq!(
            (s, &b["error"]["available"]),
            (409, &json!(3)),
            "{strategy}: SOON is past: {b}"
        );
        let (s, h) = ts.post("/v1/unit-allocations", claim(3, "-expires_at")).await;
        assert_eq!(s, 201, "{strategy}: {h}");
        assert_eq!(unit_serials(&h), ["LATE", "MID", "NONE"], "{strategy}");
        ts.ok(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
            .await;
        let by_serial =
            json!({"lines": [{"units": {"sku": sku, "quantity": 1, "serials": ["SOON"]}}], "ttl_ms": 60_000});
        let (s, b) = ts.post("/v1/holds", by_serial).await;
        assert_eq!(
            (s, code(&b)),
            (409, "insufficient_stock"),
            "a unit past its date by serial: {b}"
        );
    }
    let (s, b) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "FEFO0", "quantity": 1, "order_by": ["fefo", "expires_at"]}),
        )
        .await;
    assert_eq!((s, code(&b)), (422, "duplicate_order_by"), "{b}");
    let (s, b) = ts
        .post(
            "/v1/unit-allocations",
            json!({"sku": "FEFO0", "quantity": 1, "order_by": ["-fefo"]}),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    ts.assert_audit_clean().await;
}

fn unit_serials(b: &Value) -> Vec<String> {
    b["units"]
        .as_array()
        .expect("units")
        .iter()
        .map(|u| u["serial"].as_str().unwrap().to_string())
        .collect()
}

async fn unit_claim_idempotency_key_one_effect(ts: &TestServer) {
    add_units(ts, "IDU", (0..10).map(|i| format!("S{i}"))).await;
    let body = json!({"sku": "IDU", "quantity": 2}).to_string();
    let (s1, r1, b1) = ts.post_raw("/v1/unit-allocations", body.clone(), Some("claim-1")).await;
    let (s2, r2, b2) = ts.post_raw("/v1/unit-allocations", body, Some("claim-1")).await;
    assert_eq!((s1, r1, s2, r2), (201, false, 201, true), "{b1} {b2}");
    assert_eq!(b1, b2);
    let other = json!({"sku": "IDU", "quantity": 3}).to_string();
    let (s, _, b) = ts.post_raw("/v1/unit-allocations", other, Some("claim-1")).await;
    assert_eq!((s, code(&b)), (422, "idempotency_key_reused"));
    assert_eq!(ts.sku("IDU").await["on_hand"], 8);
    ts.assert_audit_clean().await;
}

/// `batched` unit claims (PostgreSQL) share transactions: 200 concurrent claims of 1..=3
/// units on a pool of 300 get exactly what a one-at-a-time run allows (every unit once, the
/// pool's count exact, audit clean), and their ledger entries were written by far fewer
/// transactions than claims.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn batched_unit_claims_share_transactions() {
    let ts = common::start(Kind::Postgres).await;
    add_units(&ts, "BATCH", (0..300).map(|i| format!("S{i:04}"))).await;
    let bodies = (0..200)
        .map(|i| json!({"sku": "BATCH", "quantity": 1 + i % 3, "order_by": ["received_at"], "strategy": "batched"}))
        .collect();
    let (counts, ids) = claim_concurrently(&ts, bodies).await;
    let ok = counts.get("ok").copied().unwrap_or(0);
    let short = counts.get("insufficient_stock").copied().unwrap_or(0);
    assert_eq!(ok + short, 200, "{counts:?}");
    let distinct: HashSet<i64> = ids.iter().copied().collect();
    assert_eq!(distinct.len(), ids.len(), "a unit was handed out twice");
    let v = ts.sku("BATCH").await;
    assert_eq!(v["on_hand"].as_i64(), Some(300 - ids.len() as i64), "{v}");
    assert!(
        ids.len() >= 298,
        "the pool of 300 is used up but for at most 2: {}",
        ids.len()
    );
    let (client, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let row = client
        .query_one(
            "SELECT count(*) AS entries, count(DISTINCT xact) AS transactions FROM ledger
              WHERE sku = 'BATCH' AND kind = 'allocation'",
            &[],
        )
        .await
        .unwrap();
    let (entries, transactions): (i64, i64) = (row.get("entries"), row.get("transactions"));
    assert_eq!(entries, ok as i64);
    assert!(
        transactions * 2 <= entries,
        "{entries} claims in {transactions} transactions"
    );
    ts.assert_audit_clean().await;
}
