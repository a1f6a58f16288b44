//! The edges of the boundary a fuzzer does not reach: every name a request gives for its
//! target is held to the Host allow-list, one Authorization header and a case-insensitive
//! scheme, look-alike identifiers (format characters refused, NFC and NFD one), keys that take
//! no Idempotency-Key, and request ids in the edge's own refusals. Both backends.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

conformance!(look_alike_identifiers);
conformance!(keyed mod keyed; authorization_headers);

/// Send `raw` on a fresh connection; the status line's code and the body.
async fn raw(ts: &TestServer, raw: &str) -> (u16, Value) {
    let mut s = tokio::net::TcpStream::connect(ts.url.trim_start_matches("http://"))
        .await
        .unwrap();
    s.write_all(raw.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), s.read_to_end(&mut got)).await;
    let text = String::from_utf8_lossy(&got).to_string();
    let status = text.get(9..12).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_name_of_the_target_is_held_to_the_allow_list() {
    let ts = common::start(common::Kind::Sqlite).await;
    let close = "Connection: close\r\n";
    // Malformed (RFC 9112 §3.2: a server MUST answer 400) or naming a host not allowed (403).
    for (what, req, expected) in [
        (
            "no Host",
            format!("GET /v1/skus HTTP/1.1\r\n{close}\r\n"),
            (400, "invalid_request"),
        ),
        (
            "absolute-form target",
            format!("GET http://rebound.example/v1/skus HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n"),
            (403, "forbidden"),
        ),
        (
            "a second Host",
            format!("GET /v1/skus HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: rebound.example\r\n{close}\r\n"),
            (400, "invalid_request"),
        ),
    ] {
        let (status, body) = raw(&ts, &req).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (expected.0, Some(expected.1)),
            "{what}: {body}"
        );
        assert!(
            body["error"]["request_id"].is_string(),
            "{what}: the refusal names its request: {body}"
        );
    }
    let (status, body) = raw(&ts, &format!("GET /v1/skus HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n")).await;
    assert_eq!(status, 200, "{body}");
    // HTTP/1.0 has no Host (load balancers' health checks).
    let (status, _) = raw(&ts, "GET /healthz HTTP/1.0\r\n\r\n").await;
    assert_eq!(status, 200);
    // Over-long targets and headers: the API's JSON, with the limit named.
    let long = "a".repeat(9000);
    let (status, body) = raw(
        &ts,
        &format!("GET /v1/skus?x={long} HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n"),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (414, Some("limit_exceeded")),
        "{body}"
    );
    assert!(
        body["error"]["message"].as_str().unwrap().contains("max_uri_bytes"),
        "{body}"
    );
    let big = "b".repeat(17_000);
    let req = format!("GET /v1/skus HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: {big}\r\n{close}\r\n");
    let (status, body) = raw(&ts, &req).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (431, Some("limit_exceeded")),
        "{body}"
    );
    assert!(body["error"]["request_id"].is_string(), "{body}");
    // 405 is the edge's too: JSON with its request id.
    let (status, body) = raw(
        &ts,
        &format!("DELETE /v1/skus HTTP/1.1\r\nHost: 127.0.0.1\r\n{close}\r\n"),
    )
    .await;
    assert_eq!(status, 405, "{body}");
    assert!(body["error"]["request_id"].is_string(), "{body}");
    ts.finish().await;
}

async fn look_alike_identifiers(ts: &TestServer) {
    let units = "/v1/skus/LA/units";
    ts.ok(units, json!({"units": [{"serial": "caf\u{e9}", "lot": "L\u{e9}"}]}))
        .await;
    // The same serial written decomposed is the same serial.
    let (s, b) = ts.post(units, json!({"units": [{"serial": "cafe\u{301}"}]})).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("already_exists")), "{b}");
    for (field, value) in [
        ("serial", "ca\u{200b}fe"),
        ("serial", "\u{202e}efac"),
        ("lot", "L\u{feff}"),
    ] {
        let mut unit = json!({"serial": "other"});
        unit[field] = json!(value);
        let (s, b) = ts.post(units, json!({ "units": [unit] })).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (400, Some("invalid_request")),
            "{field}: {b}"
        );
        assert!(b["error"]["message"].as_str().unwrap().contains(field), "{b}");
    }
    let (s, b) = ts
        .post("/v1/keys", json!({"name": "ops\u{200d}", "scopes": ["admin"]}))
        .await;
    assert_eq!((s, b["error"]["code"].as_str()), (400, Some("invalid_request")), "{b}");
    // One unique key, however it is written.
    let a = ts
        .ok(
            "/v1/queues/u/jobs",
            json!({"jobs": [{"payload": 1, "unique_key": "k\u{e9}"}]}),
        )
        .await;
    let b = ts
        .ok(
            "/v1/queues/u/jobs",
            json!({"jobs": [{"payload": 1, "unique_key": "ke\u{301}"}]}),
        )
        .await;
    assert_eq!(a["ids"], b["ids"]);
    let (s, page) = ts.get("/v1/skus/LA/units?limit=10").await;
    assert_eq!((s, page["units"].as_array().map(Vec::len)), (200, Some(1)), "{page}");
    assert_eq!(page["units"][0]["serial"], json!("caf\u{e9}"), "kept in NFC");
    // Looked up and filtered as stored, however the client writes it.
    for path in ["/v1/skus/LA/units/caf%C3%A9", "/v1/skus/LA/units/cafe%CC%81"] {
        let (s, u) = ts.get(path).await;
        assert_eq!((s, &u["serial"]), (200, &json!("caf\u{e9}")), "{path}: {u}");
    }
    let (s, page) = ts.get("/v1/skus/LA/units?lot=Le%CC%81").await;
    assert_eq!((s, page["units"].as_array().map(Vec::len)), (200, Some(1)), "{page}");
}

async fn authorization_headers(ts: &TestServer) {
    let made = ts.ok("/v1/keys", json!({"name": "second", "scopes": ["admin"]})).await;
    let secret = made["secret"].as_str().unwrap();
    let client = reqwest::Client::new();
    let get = |auth: Vec<String>| {
        let mut r = client.get(format!("{}/v1/audit", ts.url));
        for a in auth {
            r = r.header("authorization", a);
        }
        r.send()
    };
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let r = get(vec![format!("{scheme} {secret}")]).await.unwrap();
        assert_eq!(r.status(), 200, "{scheme}");
    }
    let r = get(vec![format!("Bearer {secret}"), "Bearer allot_sk_x".into()])
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "two Authorization headers");
    let r = get(vec![format!("Basic {secret}")]).await.unwrap();
    assert_eq!(r.status(), 401);
    // Keys take no Idempotency-Key: a replay would need the secret, which is never stored.
    let before = ts.get("/v1/keys").await.1["keys"].as_array().unwrap().len();
    let (s, b, _) = {
        let r = ts
            .client
            .post(format!("{}/v1/keys", ts.url))
            .header("idempotency-key", "k1")
            .json(&json!({"name": "third", "scopes": ["admin"]}))
            .send()
            .await
            .unwrap();
        let s = r.status().as_u16();
        (s, r.json::<Value>().await.unwrap(), ())
    };
    assert_eq!((s, b["error"]["code"].as_str()), (400, Some("invalid_request")), "{b}");
    assert!(
        b["error"]["message"].as_str().unwrap().contains("Idempotency-Key"),
        "{b}"
    );
    assert_eq!(ts.get("/v1/keys").await.1["keys"].as_array().unwrap().len(), before);
    // Nor do locations (a retry is 409 already_exists): refused, not ignored, and not made.
    let body = json!({"location": "north", "priority": 1}).to_string();
    let (s, b) = ts.post_with("/v1/locations", body, Some("k2")).await;
    assert_eq!((s, b["error"]["code"].as_str()), (400, Some("invalid_request")), "{b}");
    assert!(
        b["error"]["message"].as_str().unwrap().contains("Idempotency-Key"),
        "{b}"
    );
    let names = ts.get("/v1/locations").await.1["locations"].to_string();
    assert!(!names.contains("north"), "{names}");
}
