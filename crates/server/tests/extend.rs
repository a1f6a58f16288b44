//! Extending holds (stock and unit holds) and held bookings, on both backends, with the
//! server's clock moved instead of sleeping: an extension keeps the hold past its first expiry,
//! never shortens it, is bounded by `max_hold_ttl_ms` from now, replays with its key, and is
//! refused once the hold expired, was released or confirmed — and a refused extension changes
//! nothing.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};

conformance!(stock_and_unit_holds_extend, held_bookings_extend);

async fn post_key(ts: &TestServer, path: &str, key: &str, body: Value) -> (u16, Value) {
    let resp = ts
        .client
        .post(format!("{}{path}", ts.url))
        .header("idempotency-key", key)
        .json(&body)
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

fn at(v: &Value) -> chrono::DateTime<chrono::Utc> {
    v.as_str().unwrap().parse().unwrap()
}

async fn stock_and_unit_holds_extend(ts: &TestServer) {
    ts.create_sku("X", 10, 1).await;
    let hold = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "X", "quantity": 2}], "ttl_ms": 60_000}),
        )
        .await;
    let id = hold["id"].as_str().unwrap();
    let extend = format!("/v1/holds/{id}/extend");
    // Bad inputs first: each refused, nothing changed.
    for (body, status) in [
        (json!({"ttl_ms": 0}), 400),
        (json!({"ttl_ms": 1_000_000_000_000i64}), 400),
        (json!({}), 400),
        (json!({"ttl_ms": 1000, "x": 1}), 400),
    ] {
        let (s, b) = ts.post(&extend, body.clone()).await;
        assert_eq!(s, status, "{body}: {b}");
    }
    assert_eq!(
        ts.get(&format!("/v1/holds/{id}")).await.1["expires_at"],
        hold["expires_at"]
    );
    // Longer: now + 10 min; shorter than what is left: unchanged.
    let (s, longer) = post_key(ts, &extend, "ext-1", json!({"ttl_ms": 600_000})).await;
    assert_eq!(s, 200, "{longer}");
    assert!(at(&longer["expires_at"]) > at(&hold["expires_at"]), "{longer}");
    let (s, same) = ts.post(&extend, json!({"ttl_ms": 1_000})).await;
    assert_eq!(
        (s, &same["expires_at"]),
        (200, &longer["expires_at"]),
        "never shortened"
    );
    let (s, replay) = post_key(ts, &extend, "ext-1", json!({"ttl_ms": 600_000})).await;
    assert_eq!((s, &replay), (200, &longer), "a retry with its key replays");
    // Past the first expiry it still holds.
    ts.advance_past(&hold["expires_at"]);
    let now = ts.get(&format!("/v1/holds/{id}")).await.1;
    assert_eq!(now["status"], "held", "{now}");
    assert_eq!(ts.sku("X").await["available"], 8);
    // Past the extended one it is expired, and cannot be extended back.
    ts.advance_past(&longer["expires_at"]);
    let (s, b) = ts.post(&extend, json!({"ttl_ms": 600_000})).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("hold_expired")), "{b}");
    assert_eq!(ts.sku("X").await["available"], 10);
    // Released and confirmed holds refuse too.
    for (verb, code) in [("release", "hold_released"), ("confirm", "hold_confirmed")] {
        let h = ts
            .ok(
                "/v1/holds",
                json!({"lines": [{"sku": "X", "quantity": 1}], "ttl_ms": 60_000}),
            )
            .await;
        let hid = h["id"].as_str().unwrap();
        ts.ok(&format!("/v1/holds/{hid}/{verb}"), json!({})).await;
        let (s, b) = ts
            .post(&format!("/v1/holds/{hid}/extend"), json!({"ttl_ms": 60_000}))
            .await;
        assert_eq!((s, b["error"]["code"].as_str()), (409, Some(code)), "{b}");
    }
    let (s, _) = ts.post("/v1/holds/nope/extend", json!({"ttl_ms": 60_000})).await;
    assert_eq!(s, 404);
    // A unit hold extends the same way: its units stay held past the first expiry.
    let units: Vec<Value> = (0..3).map(|i| json!({"serial": format!("S{i}")})).collect();
    ts.ok("/v1/skus/U/units", json!({ "units": units })).await;
    let claim = ts
        .ok(
            "/v1/unit-allocations",
            json!({"sku": "U", "quantity": 2, "hold_ttl_ms": 60_000}),
        )
        .await;
    let cid = claim["id"].as_str().unwrap();
    let ext = ts
        .ok(&format!("/v1/holds/{cid}/extend"), json!({"ttl_ms": 600_000}))
        .await;
    assert_eq!(ext["units"].as_array().unwrap().len(), 2, "{ext}");
    ts.advance_past(&claim["expires_at"]);
    assert_eq!(ts.sku("U").await["available"], 1, "the units stay held");
    let (s, b) = ts
        .post("/v1/unit-allocations", json!({"sku": "U", "quantity": 2}))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("insufficient_stock")),
        "{b}"
    );
    ts.assert_audit_clean().await;
}

async fn held_bookings_extend(ts: &TestServer) {
    let range = json!({"start": "2031-05-01T10:00:00Z", "end": "2031-05-01T11:00:00Z", "holder": "a",
                       "hold_ttl_ms": 60_000});
    let held = ts.ok("/v1/resources/R/bookings", range.clone()).await;
    let id = held["id"].as_str().unwrap();
    let extend = format!("/v1/bookings/{id}/extend");
    let (s, b) = ts.post(&extend, json!({"ttl_ms": -5})).await;
    assert_eq!(s, 400, "{b}");
    let longer = ts.ok(&extend, json!({"ttl_ms": 600_000})).await;
    assert!(at(&longer["expires_at"]) > at(&held["expires_at"]), "{longer}");
    ts.advance_past(&held["expires_at"]);
    // Still blocking past its first expiry.
    let (s, b) = ts.post("/v1/resources/R/bookings", range.clone()).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("booking_overlap")), "{b}");
    ts.advance_past(&longer["expires_at"]);
    let (s, b) = ts.post(&extend, json!({"ttl_ms": 600_000})).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("booking_expired")), "{b}");
    // Expired: the range is free again; a confirmed booking cannot be extended.
    let confirmed = ts
        .ok(
            "/v1/resources/R/bookings",
            json!({"start": "2031-05-01T10:00:00Z",
        "end": "2031-05-01T11:00:00Z", "holder": "b"}),
        )
        .await;
    let cid = confirmed["id"].as_str().unwrap();
    let (s, b) = ts
        .post(&format!("/v1/bookings/{cid}/extend"), json!({"ttl_ms": 60_000}))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("booking_confirmed")),
        "{b}"
    );
    let (s, _) = ts.post("/v1/bookings/nope/extend", json!({"ttl_ms": 60_000})).await;
    assert_eq!(s, 404);
    ts.assert_audit_clean().await;
}
