//! Keys and scopes on both backends. The authorization matrix walks the server's own route
//! table (`allot_server::scopes()`, read from the router's own document): every `/v1` operation ×
//! {no key, malformed key, unknown key, revoked key, a key without the scope} must get its
//! 401 or 403 before any work, and nothing may change; a key with the scope gets through.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use allot_core::access::Scope;
use common::TestServer;
use serde_json::{json, Value};

conformance!(
    authorization_matrix,
    keys_over_http_and_revocation,
    a_key_is_held_to_its_rate,
    the_ledger_names_the_key
);

async fn key(ts: &TestServer, scopes: &[Scope]) -> (String, String) {
    key_with_rate(ts, scopes, None).await
}

async fn key_with_rate(ts: &TestServer, scopes: &[Scope], rate_per_s: Option<u32>) -> (String, String) {
    common::make_key(ts, "default", "test", scopes, rate_per_s).await
}

async fn send(ts: &TestServer, method: &str, path: &str, bearer: Option<&str>) -> (u16, Value) {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = ts.client.request(m.clone(), format!("{}{path}", ts.url));
    if m == reqwest::Method::POST {
        req = req.header("content-type", "application/json").body("{}");
    }
    if let Some(b) = bearer {
        req = req.header("authorization", b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    // An event stream answers at once and never ends: its status is the answer.
    if common::is_event_stream(&resp) {
        return (status, Value::Null);
    }
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn concrete(path: &str) -> String {
    path.replace("{sku}", "S")
        .replace("{resource}", "R")
        .replace("{queue}", "Q")
        .replace("{id}", "1")
}

/// A scope that does not grant `needed`.
fn other_than(needed: Scope) -> Scope {
    if needed == Scope::EventsRead {
        Scope::StockRead
    } else {
        Scope::EventsRead
    }
}

async fn state(ts: &TestServer, admin: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for p in [
        "/v1/skus/S",
        "/v1/skus/S/ledger",
        "/v1/queues/Q",
        "/v1/audit",
        "/v1/keys",
    ] {
        out.push(send(ts, "GET", p, Some(admin)).await.1);
    }
    out
}

async fn authorization_matrix(ts: &TestServer) {
    let (_, admin) = key(ts, &[Scope::Admin]).await;
    let admin = format!("Bearer {admin}");
    let (revoked_id, revoked) = key(ts, &[Scope::Admin]).await;
    let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    store.revoke_key(None, &revoked_id).await.unwrap();
    let mut scoped = std::collections::HashMap::new();
    for s in Scope::ALL {
        scoped.insert(s, format!("Bearer {}", key(ts, &[s]).await.1));
    }
    let (s, b) = send(ts, "POST", "/v1/skus", Some(&admin)).await;
    assert_eq!(s, 400, "the admin key passes the guard: {b}");
    ts.ok_with(&admin, "/v1/skus", json!({"sku": "S", "on_hand": 10})).await;
    let before = state(ts, &admin).await;
    let unknown = format!("Bearer allot_sk_{}", "0".repeat(64));
    let revoked = format!("Bearer {revoked}");
    for (method, path, needed) in &allot_server::scopes() {
        let path = concrete(path);
        for (what, bearer) in [
            ("no key", None),
            ("malformed key", Some("Bearer nope")),
            ("not a bearer", Some("Basic YWxsb3Q6eA==")),
            ("unknown key", Some(unknown.as_str())),
            ("revoked key", Some(revoked.as_str())),
        ] {
            let (s, b) = send(ts, method, &path, bearer).await;
            assert_eq!(
                (s, b["error"]["code"].as_str()),
                (401, Some("unauthenticated")),
                "{method} {path} with {what}: {b}"
            );
        }
        let wrong = &scoped[&other_than(*needed)];
        let (s, b) = send(ts, method, &path, Some(wrong)).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (403, Some("forbidden")),
            "{method} {path}: {b}"
        );
        assert_eq!(b["error"]["missing_scope"], needed.name(), "{method} {path}");
        let (s, b) = send(ts, method, &path, Some(&scoped[needed])).await;
        assert!(s != 401 && s != 403, "{method} {path} with {needed}: {s} {b}");
    }
    assert_eq!(state(ts, &admin).await, before, "a refused request changed something");
}

async fn keys_over_http_and_revocation(ts: &TestServer) {
    let (_, admin) = key(ts, &[Scope::Admin]).await;
    let admin = format!("Bearer {admin}");
    let created = ts
        .ok_with(
            &admin,
            "/v1/keys",
            json!({"name": "checkout", "scopes": ["stock:write"]}),
        )
        .await;
    let secret = created["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("allot_sk_") && secret.len() == 9 + 64, "{secret}");
    let bearer = format!("Bearer {secret}");
    ts.ok_with(&bearer, "/v1/skus", json!({"sku": "K", "on_hand": 3})).await;
    let (s, list) = send(ts, "GET", "/v1/keys", Some(&admin)).await;
    assert_eq!(s, 200);
    assert!(!list.to_string().contains(&secret[9..]), "a listing shows a secret");
    assert_eq!(
        send(ts, "GET", "/v1/keys", Some(&bearer)).await.0,
        403,
        "stock:write is not admin"
    );
    let id = created["id"].as_str().unwrap();
    let (s, b) = send(ts, "DELETE", &format!("/v1/keys/{id}"), Some(&admin)).await;
    assert_eq!(s, 200, "{b}");
    assert!(b["revoked_at"].is_string());
    // Revocation takes effect within the cache's TTL on this instance.
    let deadline = std::time::Instant::now() + allot_server::access::CACHE_TTL * 3;
    loop {
        let (s, _) = send(ts, "GET", "/v1/skus/K", Some(&bearer)).await;
        if s == 401 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "a revoked key still works");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(ts.get("/healthz").await.0, 200, "public routes need no key");
}

/// Listening beyond loopback with no key refuses to start, and says how to make one.
#[tokio::test]
async fn non_loopback_without_keys_refuses_to_start() {
    let file = std::env::temp_dir().join(format!("allot-access-{}.db", uuid::Uuid::new_v4().simple()));
    let cfg = allot_server::ServerConfig {
        listen: "0.0.0.0:0".into(),
        database_url: format!("sqlite://{}", file.display()),
        ..Default::default()
    };
    let err = allot_server::spawn(&cfg).await.err().expect("refused");
    assert!(err.to_string().contains("allot keys create"), "{err}");
    assert!(err.to_string().contains("--insecure-no-auth"), "{err}");
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
    }
}

/// A key of 1 request per second gets one request in, then `429 rate_limited` with
/// `Retry-After`, and nothing it was refused changed anything; another key is unaffected.
async fn a_key_is_held_to_its_rate(ts: &TestServer) {
    let (_, slow) = key_with_rate(ts, &[Scope::StockWrite], Some(1)).await;
    let (_, other) = key(ts, &[Scope::StockWrite]).await;
    let slow = format!("Bearer {slow}");
    let started = std::time::Instant::now();
    let mut statuses = Vec::new();
    for i in 0..5 {
        let resp = ts
            .client
            .post(format!("{}/v1/skus", ts.url))
            .header("content-type", "application/json")
            .header("authorization", &slow)
            .body(json!({"sku": format!("R{i}"), "on_hand": 1}).to_string())
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        if status == 429 {
            assert!(resp.headers().contains_key("retry-after"));
            let b: Value = resp.json().await.unwrap();
            assert_eq!(b["error"]["code"], "rate_limited");
            assert!(b["error"]["retry_after_ms"].as_u64().unwrap() >= 1);
        }
        statuses.push(status);
    }
    assert_eq!(statuses[0], 201, "{statuses:?}");
    if started.elapsed() < std::time::Duration::from_millis(900) {
        assert_eq!(statuses[1..], [429, 429, 429, 429], "one request per second");
    } else {
        assert!(statuses.contains(&429), "{statuses:?}");
    }
    // Another key is not slowed down, and sees exactly what the admitted requests made.
    let other = format!("Bearer {other}");
    for (i, status) in statuses.iter().enumerate() {
        let (s, b) = send(ts, "GET", &format!("/v1/skus/R{i}"), Some(&other)).await;
        let expected = if *status == 201 { 200 } else { 404 };
        assert_eq!(s, expected, "R{i} after {status}: {b}");
    }
}

/// Every ledger entry names the key that made the change (the actor): creation, adjustment,
/// allocation, hold and its confirmation — through the backend's default strategy
/// (`batched` on PostgreSQL) — and units received and claimed.
async fn the_ledger_names_the_key(ts: &TestServer) {
    let (ops_id, ops) = key(ts, &[Scope::StockWrite, Scope::UnitsWrite]).await;
    let (shop_id, shop) = key(ts, &[Scope::StockWrite]).await;
    let (ops, shop) = (format!("Bearer {ops}"), format!("Bearer {shop}"));
    ts.ok_with(&ops, "/v1/skus", json!({"sku": "A", "on_hand": 10})).await;
    ts.ok_with(
        &ops,
        "/v1/skus/A/adjustments",
        json!({"delta": 5, "reason": "cycle_count"}),
    )
    .await;
    ts.ok_with(
        &shop,
        "/v1/allocations",
        json!({"lines": [{"sku": "A", "quantity": 2}]}),
    )
    .await;
    let hold = ts
        .ok_with(
            &shop,
            "/v1/holds",
            json!({"lines": [{"sku": "A", "quantity": 1}], "ttl_ms": 60000}),
        )
        .await;
    let confirm = format!("/v1/holds/{}/confirm", hold["id"].as_str().unwrap());
    let (s, b) = send(ts, "POST", &confirm, Some(&ops)).await;
    assert_eq!(s, 200, "{b}");
    let (_, ledger) = send(ts, "GET", "/v1/skus/A/ledger", Some(&ops)).await;
    let actors: Vec<(String, String)> = ledger["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["actor"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect();
    let expect = |kind: &str, who: &str| (kind.to_string(), who.to_string());
    assert_eq!(
        actors,
        vec![
            expect("created", &ops_id),
            expect("adjustment", &ops_id),
            expect("allocation", &shop_id),
            expect("hold", &shop_id),
            expect("hold_confirmed", &ops_id),
        ]
    );
    ts.ok_with(
        &ops,
        "/v1/skus/U/units",
        json!({"units": [{"serial": "1"}, {"serial": "2"}]}),
    )
    .await;
    ts.ok_with(&ops, "/v1/unit-allocations", json!({"sku": "U", "quantity": 1}))
        .await;
    let (_, ledger) = send(ts, "GET", "/v1/skus/U/ledger", Some(&ops)).await;
    for e in ledger["entries"].as_array().unwrap() {
        assert_eq!(e["actor"], ops_id.as_str(), "{e}");
    }
}
