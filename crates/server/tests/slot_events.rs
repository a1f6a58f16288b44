//! Per-slot events of capacity on both backends: `booking.*` events carry the slots a booking
//! takes; `resource.sold_out` when a slot's own capacity is all taken and
//! `resource.back_in_stock` when it has room again — once per edge, whoever causes it (a
//! booking, a cancel, a release, a reschedule, a stop-sell put, the sweeper's expiry of a
//! hold), and once under a storm of concurrent bookings.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Api, Kind, TestServer};
use serde_json::{json, Value};
use std::time::Duration;

conformance!(every_edge_is_announced_once, a_storm_announces_a_sold_out_slot_once);
// With the sweeper running every 5 ms.
conformance!(mod sweeping, |c| c.hold_sweep_interval_ms = 5; an_expired_hold_is_back_in_stock);

const TYPES: &str = "resource.sold_out,resource.back_in_stock";

fn night(n: u32) -> String {
    format!("2030-04-{:02}T00:00:00Z", n + 1)
}

/// How the feed writes `night(n)`.
fn feed_night(n: u32) -> String {
    format!("2030-04-{:02}T00:00:00.000000Z", n + 1)
}

async fn put(ts: &TestServer, path: &str, body: Value) {
    let (s, b) = ts.send_json("PUT", path, body).await;
    assert_eq!(s, 200, "{path}: {b}");
}

/// `(type, resource, slot_start)` of the slot events after cursor 0, once there are `n`
/// (the PostgreSQL sequencer numbers events every few ms): polled, bounded.
async fn slot_events(api: &Api, n: usize) -> Vec<(String, String, String)> {
    let mut last = Vec::new();
    for _ in 0..400 {
        let (s, page) = api.get(&format!("/v1/events?after=0&limit=1000&types={TYPES}")).await;
        assert_eq!(s, 200, "{page}");
        last = page["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["type"].as_str().unwrap().to_string(),
                    e["data"]["resource"].as_str().unwrap().to_string(),
                    e["data"]["slot_start"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        if last.len() >= n {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("fewer than {n} slot events: {last:?}");
}

fn edge(kind: &str, resource: &str, n: u32) -> (String, String, String) {
    (format!("resource.{kind}"), resource.to_string(), feed_night(n))
}

async fn book(ts: &TestServer, resource: &str, (from, to): (u32, u32), quantity: i64, hold: bool) -> Value {
    let mut body = json!({"start": night(from), "end": night(to), "holder": "h", "quantity": quantity});
    if hold {
        body["hold_ttl_ms"] = json!(600_000);
    }
    let (s, b) = ts.post(&format!("/v1/resources/{resource}/bookings"), body).await;
    assert_eq!(s, 201, "{b}");
    b
}

async fn every_edge_is_announced_once(ts: &TestServer) {
    put(ts, "/v1/resources/hall", json!({"capacity": 2, "slot_ms": 86_400_000})).await;
    let a = book(ts, "hall", (0, 2), 2, false).await;
    let mut want = vec![edge("sold_out", "hall", 0), edge("sold_out", "hall", 1)];
    assert_eq!(slot_events(ts, 2).await, want);
    // The booking's own event names its slots.
    let (_, page) = ts.get("/v1/events?after=0&types=booking.created").await;
    let created = &page["events"][0]["data"];
    assert_eq!(created["quantity"], 2, "{created}");
    assert_eq!(
        created["slots"],
        json!([{"start": feed_night(0), "end": feed_night(1)}, {"start": feed_night(1), "end": feed_night(2)}]),
        "{created}"
    );
    // A refusal and a booking on a slot with room announce nothing.
    let (s, _) = ts
        .post(
            "/v1/resources/hall/bookings",
            json!({"start": night(1), "end": night(2), "holder": "x"}),
        )
        .await;
    assert_eq!(s, 409);
    let b = book(ts, "hall", (2, 3), 1, false).await;
    // A cancel frees both nights.
    let (s, _) = ts
        .send_json(
            "DELETE",
            &format!("/v1/bookings/{}", a["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(s, 200);
    want.extend([edge("back_in_stock", "hall", 0), edge("back_in_stock", "hall", 1)]);
    assert_eq!(slot_events(ts, 4).await, want);
    // A hold fills night 2 (with b's 1); its release frees it.
    let h = book(ts, "hall", (2, 3), 1, true).await;
    want.push(edge("sold_out", "hall", 2));
    assert_eq!(slot_events(ts, 5).await, want);
    let (s, _) = ts
        .post(
            &format!("/v1/bookings/{}/release", h["id"].as_str().unwrap()),
            json!({}),
        )
        .await;
    assert_eq!(s, 200);
    want.push(edge("back_in_stock", "hall", 2));
    assert_eq!(slot_events(ts, 6).await, want);
    // A stop-sell puts night 5 sold out; opening it again brings it back.
    let slots = |c: i64| json!({"from": night(5), "to": night(6), "capacity": c});
    put(ts, "/v1/resources/hall/slots", slots(0)).await;
    put(ts, "/v1/resources/hall/slots", slots(2)).await;
    want.extend([edge("sold_out", "hall", 5), edge("back_in_stock", "hall", 5)]);
    assert_eq!(slot_events(ts, 8).await, want);
    // A reschedule fills the night it takes and frees the one it leaves.
    let (s, r) = ts
        .post(
            &format!("/v1/bookings/{}/reschedule", b["id"].as_str().unwrap()),
            json!({"start": night(7), "end": night(8), "quantity": 2}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    want.push(edge("sold_out", "hall", 7));
    let seen = slot_events(ts, 9).await;
    assert_eq!(seen, want);
    let (_, page) = ts.get("/v1/events?after=0&types=booking.rescheduled").await;
    let moved = &page["events"][0]["data"];
    assert_eq!(
        moved["slots"],
        json!([{"start": feed_night(7), "end": feed_night(8)}]),
        "{moved}"
    );
    assert_eq!(moved["from"]["start"], "2030-04-03T00:00:00.000000Z", "{moved}");
    // A resource without slots has no slot events, and its bookings no `slots`.
    put(ts, "/v1/resources/room", json!({"capacity": 1})).await;
    let (s, _) = ts
        .post(
            "/v1/resources/room/bookings",
            json!({"start": night(0), "end": night(1), "holder": "h"}),
        )
        .await;
    assert_eq!(s, 201);
    let (_, page) = ts.get("/v1/events?after=0&types=booking.created").await;
    let events = page["events"].as_array().unwrap();
    assert!(events
        .iter()
        .all(|e| e["data"]["resource"] != "room" || e["data"].get("slots").is_none()));
    assert_eq!(slot_events(ts, 9).await, want);
}

/// 30 concurrent bookings (every strategy) of a session of 12: exactly one `sold_out`.
async fn a_storm_announces_a_sold_out_slot_once(ts: &TestServer) {
    put(ts, "/v1/resources/gig", json!({"capacity": 12, "slot_ms": 86_400_000})).await;
    let strategies = match ts.kind {
        Kind::Postgres => vec!["exclusion", "batched", "advisory"],
        Kind::Sqlite => vec!["serialized"],
    };
    let mut set = tokio::task::JoinSet::new();
    for i in 0..30 {
        let api = ts.api.clone();
        let body = json!({"start": night(0), "end": night(1), "holder": format!("b{i}"),
                          "strategy": strategies[i % strategies.len()]});
        set.spawn(async move { api.post("/v1/resources/gig/bookings", body).await });
    }
    let mut sold = 0;
    while let Some(r) = set.join_next().await {
        let (s, b) = r.unwrap();
        assert!(s == 201 || s == 409, "{s} {b}");
        sold += usize::from(s == 201);
    }
    assert_eq!(sold, 12);
    // A later edge, once numbered, shows every earlier one numbered too: no second gig edge.
    put(
        ts,
        "/v1/resources/marker",
        json!({"capacity": 1, "slot_ms": 86_400_000}),
    )
    .await;
    book(ts, "marker", (0, 1), 1, false).await;
    assert_eq!(
        slot_events(ts, 2).await,
        vec![edge("sold_out", "gig", 0), edge("sold_out", "marker", 0)]
    );
    ts.assert_audit_clean().await;
}

/// A hold that fills a night and expires: the sweeper's expiry announces it back in stock.
async fn an_expired_hold_is_back_in_stock(ts: &TestServer) {
    put(ts, "/v1/resources/cabin", json!({"capacity": 1, "slot_ms": 86_400_000})).await;
    let h = book(ts, "cabin", (0, 1), 1, true).await;
    assert_eq!(slot_events(ts, 1).await, vec![edge("sold_out", "cabin", 0)]);
    ts.advance_past(&h["expires_at"]);
    assert_eq!(
        slot_events(ts, 2).await,
        vec![edge("sold_out", "cabin", 0), edge("back_in_stock", "cabin", 0)]
    );
}
