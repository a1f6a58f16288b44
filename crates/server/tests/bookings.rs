//! Bookings on both backends through the HTTP API: exact winners under concurrency,
//! half-open ranges, cancellation, offsets, holds that expire, bad ranges.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Kind, TestServer};
use serde_json::{json, Value};

conformance!(
    ten_identical_bookings_one_wins,
    ranges_offsets_cancel_and_availability,
    held_bookings_block_until_they_expire,
    bad_ranges_change_nothing,
);

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("")
}

fn strategies(ts: &TestServer) -> Vec<&'static str> {
    match ts.kind {
        Kind::Postgres => vec!["exclusion", "batched", "advisory"],
        Kind::Sqlite => vec!["serialized"],
    }
}

async fn ten_identical_bookings_one_wins(ts: &TestServer) {
    for strategy in strategies(ts) {
        let path = format!("/v1/resources/server-{strategy}/bookings");
        let body = json!({"start": "2026-05-01T00:00:00Z", "end": "2026-05-04T00:00:00Z",
                          "holder": "h", "strategy": strategy});
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let (api, path, body) = (ts.api.clone(), path.clone(), body.clone());
            set.spawn(async move { api.post(&path, body).await });
        }
        let (mut won, mut lost) = (Vec::new(), Vec::new());
        while let Some(r) = set.join_next().await {
            let (s, b) = r.unwrap();
            match s {
                201 => won.push(b),
                409 => {
                    assert_eq!(code(&b), "booking_overlap", "{b}");
                    lost.push(b)
                }
                _ => panic!("{strategy}: {s} {b}"),
            }
        }
        assert_eq!((won.len(), lost.len()), (1, 9), "{strategy}");
        for l in &lost {
            assert_eq!(l["error"]["conflicting_booking_id"], won[0]["id"], "{strategy}: {l}");
        }
    }
    ts.assert_audit_clean().await;
}

async fn ranges_offsets_cancel_and_availability(ts: &TestServer) {
    let book = |start: &str, end: &str| {
        let body = json!({"start": start, "end": end, "holder": "alice", "metadata": {"order": 7}});
        let api = ts.api.clone();
        async move { api.post("/v1/resources/room-1/bookings", body).await }
    };
    // [a, b) and [b, c) do not overlap.
    let (s, first) = book("2026-03-01T10:00:00Z", "2026-03-01T12:00:00Z").await;
    assert_eq!(s, 201, "{first}");
    assert_eq!(first["status"], "confirmed");
    assert_eq!(first["metadata"], json!({"order": 7}));
    let (s, second) = book("2026-03-01T12:00:00Z", "2026-03-01T14:00:00Z").await;
    assert_eq!(s, 201, "{second}");
    // 13:00+02:00 is 11:00Z: inside the first booking.
    let (s, b) = book("2026-03-01T13:00:00+02:00", "2026-03-01T13:30:00+02:00").await;
    assert_eq!((s, code(&b)), (409, "booking_overlap"), "{b}");
    assert_eq!(b["error"]["conflicting_booking_id"], first["id"]);
    // 09:00-05:00 is 14:00Z: right after the second one.
    let (s, third) = book("2026-03-01T09:00:00-05:00", "2026-03-01T10:00:00-05:00").await;
    assert_eq!(s, 201, "{third}");
    assert_eq!(third["start"], "2026-03-01T14:00:00Z");

    let (s, list) = ts
        .get("/v1/resources/room-1/bookings?from=2026-03-01T00:00:00Z&to=2026-03-02T00:00:00Z")
        .await;
    assert_eq!(s, 200);
    let ids: Vec<&Value> = list["bookings"].as_array().unwrap().iter().map(|b| &b["id"]).collect();
    assert_eq!(ids, [&first["id"], &second["id"], &third["id"]]);
    let (s, av) = ts
        .get("/v1/resources/room-1/availability?from=2026-03-01T08:00:00Z&to=2026-03-01T18:00:00Z")
        .await;
    assert_eq!(s, 200, "{av}");
    assert_eq!(
        av["free"],
        json!([{"start": "2026-03-01T08:00:00Z", "end": "2026-03-01T10:00:00Z"},
               {"start": "2026-03-01T15:00:00Z", "end": "2026-03-01T18:00:00Z"}])
    );

    // Cancelling frees the range at once; cancelling again changes nothing.
    let id = first["id"].as_str().unwrap();
    let resp = ts
        .client
        .delete(format!("{}/v1/bookings/{id}", ts.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let cancelled: Value = resp.json().await.unwrap();
    assert_eq!(cancelled["status"], "cancelled");
    let resp = ts
        .client
        .delete(format!("{}/v1/bookings/{id}", ts.url))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let (s, b) = book("2026-03-01T11:00:00Z", "2026-03-01T12:00:00Z").await;
    assert_eq!(s, 201, "{b}");
    assert_eq!(ts.get(&format!("/v1/bookings/{id}")).await.1["status"], "cancelled");
    assert_eq!(ts.get("/v1/bookings/nope").await.0, 404);
    ts.assert_audit_clean().await;
}

async fn held_bookings_block_until_they_expire(ts: &TestServer) {
    let path = "/v1/resources/seat-9/bookings";
    let range = |extra: Value| {
        let mut b = json!({"start": "2026-07-01T18:00:00Z", "end": "2026-07-01T21:00:00Z", "holder": "bob"});
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };
    let (s, held) = ts.post(path, range(json!({"hold_ttl_ms": 600_000}))).await;
    assert_eq!((s, held["status"].as_str()), (201, Some("held")), "{held}");
    let (s, b) = ts.post(path, range(json!({}))).await;
    assert_eq!((s, code(&b)), (409, "booking_overlap"));
    ts.advance_past(&held["expires_at"]);
    // Expired before any sweeper: it reads expired and no longer blocks.
    let hid = held["id"].as_str().unwrap();
    assert_eq!(ts.get(&format!("/v1/bookings/{hid}")).await.1["status"], "expired");
    let (s, b) = ts.post(&format!("/v1/bookings/{hid}/confirm"), json!({})).await;
    assert_eq!((s, code(&b)), (409, "booking_expired"));
    let (s, won) = ts.post(path, range(json!({"hold_ttl_ms": 60_000}))).await;
    assert_eq!(s, 201, "{won}");
    let wid = won["id"].as_str().unwrap();
    let (s, c) = ts.post(&format!("/v1/bookings/{wid}/confirm"), json!({})).await;
    assert_eq!((s, c["status"].as_str()), (200, Some("confirmed")), "{c}");
    let (s, c) = ts.post(&format!("/v1/bookings/{wid}/confirm"), json!({})).await;
    assert_eq!((s, c["status"].as_str()), (200, Some("confirmed")));
    let (s, b) = ts.post(&format!("/v1/bookings/{wid}/release"), json!({})).await;
    assert_eq!((s, code(&b)), (409, "booking_confirmed"));
    // A held booking released frees its range at once.
    let later =
        json!({"start": "2026-07-02T18:00:00Z", "end": "2026-07-02T21:00:00Z", "holder": "c", "hold_ttl_ms": 60_000});
    let (s, h) = ts.post(path, later.clone()).await;
    assert_eq!(s, 201, "{h}");
    let (s, r) = ts
        .post(
            &format!("/v1/bookings/{}/release", h["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!((s, r["status"].as_str()), (200, Some("released")), "{r}");
    let (s, b) = ts.post(path, later).await;
    assert_eq!(s, 201, "{b}");
    ts.assert_audit_clean().await;
}

async fn bad_ranges_change_nothing(ts: &TestServer) {
    let path = "/v1/resources/r/bookings";
    for empty in [
        json!({"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T10:00:00Z", "holder": "h"}),
        json!({"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T09:00:00Z", "holder": "h"}),
    ] {
        let (s, b) = ts.post(path, empty.clone()).await;
        assert_eq!((s, code(&b)), (422, "empty_range"), "{empty}: {b}");
    }
    let bad = [
        json!({"start": "2026-01-01T10:00:00", "end": "2026-01-01T11:00:00Z", "holder": "h"}),
        json!({"start": "tomorrow", "end": "2026-01-01T11:00:00Z", "holder": "h"}),
        json!({"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00Z", "holder": ""}),
        json!({"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00Z"}),
        json!({"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00Z", "holder": "h", "hold_ttl_ms": 1}),
    ];
    for body in bad {
        let (s, b) = ts.post(path, body.clone()).await;
        assert_eq!((s, code(&b)), (400, "invalid_request"), "{body}: {b}");
    }
    let (s, b) = ts
        .post(
            path,
            json!({"start": "2026-01-01T00:00:00Z", "end": "2027-06-01T00:00:00Z", "holder": "h"}),
        )
        .await;
    assert_eq!(
        (s, code(&b), b["error"]["limit"].as_str()),
        (400, "limit_exceeded", Some("max_booking_ms"))
    );
    let (s, b) = ts
        .post(
            path,
            json!({"start": "2026-01-01T10:00:00Z", "end": "2026-01-01T11:00:00Z", "holder": "h", "strategy": "bogus"}),
        )
        .await;
    assert_eq!((s, code(&b)), (400, "unsupported_strategy"));
    let (s, b) = ts.get("/v1/resources/r/bookings?from=2026-01-01T00:00:00Z").await;
    assert_eq!((s, code(&b)), (400, "invalid_request"));
    let (s, list) = ts
        .get("/v1/resources/r/bookings?from=2025-06-01T00:00:00Z&to=2026-06-01T00:00:00Z")
        .await;
    assert_eq!((s, list["bookings"].as_array().map(|b| b.len())), (200, Some(0)));
    ts.assert_audit_clean().await;
}
