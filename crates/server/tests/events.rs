//! The change feed over HTTP on both backends: pages and filters, the Server-Sent Events
//! stream (events as they happen, resumed with `Last-Event-ID` without a loss or a repeat),
//! refused queries, streams bounded per key, tenants that never see each other's events, and
//! a hold's own events naming all its lines.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Api, TestServer};
use serde_json::{json, Value};
use std::time::Duration;

conformance!(
    pages_and_filters,
    a_holds_own_event_names_every_line,
    the_stream_resumes_without_loss_or_repeat,
    bad_queries_are_refused
);
conformance!(mod bounded, |c| c.limits.max_streams_per_key = 2; streams_are_bounded_per_key_and_tenants_apart);

/// The events after `after` once `n` of them are there (the PostgreSQL sequencer numbers
/// events every few ms): polled, bounded.
async fn events_after(api: &Api, after: i64, n: usize) -> Vec<Value> {
    for _ in 0..400 {
        let (s, page) = api.get(&format!("/v1/events?after={after}&limit=1000")).await;
        assert_eq!(s, 200, "{page}");
        let events = page["events"].as_array().unwrap().clone();
        if events.len() >= n {
            return events;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("fewer than {n} events after {after}");
}

/// Allocate one of `sku`.
async fn allocate(api: &Api, sku: &str) -> Value {
    api.ok("/v1/allocations", json!({"lines": [{"sku": sku, "quantity": 1}]}))
        .await
}

async fn pages_and_filters(ts: &TestServer) {
    ts.create_sku("F1", 2, 1).await;
    ts.create_sku("F2", 5, 1).await;
    let a = allocate(ts, "F1").await;
    allocate(ts, "F1").await;
    let all = events_after(ts, 0, 5).await;
    let cursors: Vec<i64> = all.iter().map(|e| e["cursor"].as_i64().unwrap()).collect();
    assert_eq!(cursors, [1, 2, 3, 4, 5]);
    let types: Vec<&str> = all.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "sku.created",
            "sku.created",
            "allocation.created",
            "allocation.created",
            "sku.sold_out"
        ]
    );
    assert_eq!(all[2]["object"], a["id"]);
    assert_eq!(all[2]["data"]["available"], 1);
    assert_eq!(all[3]["data"]["available"], 0);
    let (s, page) = ts.get("/v1/events?after=0&limit=2").await;
    assert_eq!((s, page["next"].as_i64()), (200, Some(2)));
    let (_, page) = ts.get("/v1/events?after=0&types=sku.sold_out").await;
    assert_eq!(page["events"].as_array().unwrap().len(), 1);
    assert_eq!(page["next"], 5, "next moves past what the filter skipped");
    let (_, page) = ts.get("/v1/events?object=F2").await;
    assert_eq!(page["events"][0]["type"], "sku.created");
    assert_eq!(page["events"].as_array().unwrap().len(), 1);
    sku_filter(ts).await;
}

/// `sku=` gathers a SKU's events: its own, and those of the holds, allocations and
/// adjustments that touched it (each line's event names its SKU, and a hold's own event
/// lists its lines), never another SKU's.
async fn sku_filter(ts: &TestServer) {
    let from = events_after(ts, 0, 5).await.len() as i64;
    ts.create_sku("G1", 10, 1).await;
    ts.create_sku("G2", 10, 1).await;
    let two = json!({"lines": [{"sku": "G1", "quantity": 1}, {"sku": "G2", "quantity": 2}], "ttl_ms": 60_000});
    let hold = ts.ok("/v1/holds", two).await;
    let a = allocate(ts, "G1").await;
    ts.ok("/v1/skus/G2/adjustments", json!({"delta": 3})).await;
    events_after(ts, from, 7).await;
    let (s, page) = ts.get(&format!("/v1/events?after={from}&sku=G1")).await;
    assert_eq!(s, 200, "{page}");
    let got: Vec<(&str, &str)> = page["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e["object"].as_str().unwrap()))
        .collect();
    let (h, a) = (hold["id"].as_str().unwrap(), a["id"].as_str().unwrap());
    assert_eq!(
        got,
        [
            ("sku.created", "G1"),
            ("stock.held", h),
            ("hold.created", h),
            ("allocation.created", a)
        ],
        "{page}"
    );
    let (_, page) = ts
        .get(&format!("/v1/events?after={from}&sku=G2&types=stock.adjusted"))
        .await;
    assert_eq!(page["events"].as_array().unwrap().len(), 1, "{page}");
    let (s, page) = ts.get("/v1/events?sku=bad%20name").await;
    assert_eq!(
        (s, page["error"]["code"].as_str()),
        (400, Some("invalid_request")),
        "{page}"
    );
}

/// One Server-Sent Events connection: its response and the text read so far.
struct Stream {
    resp: reqwest::Response,
    text: String,
}

impl Stream {
    async fn open(api: &Api, last_event_id: Option<i64>, bearer: Option<&str>) -> Result<Stream, (u16, Value)> {
        let mut req = api.client.get(format!("{}/v1/events/stream", api.url));
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id.to_string());
        }
        if let Some(b) = bearer {
            req = req.header("authorization", b);
        }
        let resp = req.send().await.unwrap();
        if resp.status() != 200 {
            let s = resp.status().as_u16();
            return Err((s, resp.json().await.unwrap_or(Value::Null)));
        }
        let kind = resp.headers()["content-type"].to_str().unwrap().to_string();
        assert!(kind.starts_with("text/event-stream"), "{kind}");
        Ok(Stream {
            resp,
            text: String::new(),
        })
    }

    /// The next `n` events as (id, type, data), bounded by a deadline.
    async fn next(&mut self, n: usize) -> Vec<(i64, String, Value)> {
        let mut out = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while out.len() < n {
            while let Some(end) = self.text.find("\n\n") {
                let block: String = self.text.drain(..end + 2).collect();
                if let Some(e) = parse(&block) {
                    out.push(e);
                }
            }
            if out.len() >= n {
                break;
            }
            let chunk = tokio::time::timeout_at(deadline, self.resp.chunk())
                .await
                .expect("events within 20 s")
                .unwrap()
                .expect("the stream stays open");
            self.text.push_str(std::str::from_utf8(&chunk).unwrap());
        }
        out
    }
}

/// One SSE block: `id:`, `event:`, `data:` (comments and heartbeats give `None`).
fn parse(block: &str) -> Option<(i64, String, Value)> {
    let field = |name: &str| {
        block
            .lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim_start().to_string()))
    };
    let id = field("id:")?.parse().unwrap();
    let data: Value = serde_json::from_str(&field("data:")?).unwrap();
    assert_eq!(data["cursor"], id, "id: is the cursor");
    Some((id, field("event:")?, data))
}

/// The types and objects of `events`.
fn typed(events: &[Value]) -> Vec<(&str, &str)> {
    events
        .iter()
        .map(|e| (e["type"].as_str().unwrap(), e["object"].as_str().unwrap()))
        .collect()
}

/// Every event once one of `kind` about `object` is there (polled, bounded), and its index.
async fn until_event(api: &Api, kind: &str, object: &str) -> (Vec<Value>, usize) {
    for _ in 0..400 {
        let (s, page) = api.get("/v1/events?after=0&limit=1000").await;
        assert_eq!(s, 200, "{page}");
        let events = page["events"].as_array().unwrap().clone();
        if let Some(i) = events.iter().position(|e| e["type"] == kind && e["object"] == object) {
            return (events, i);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no {kind} about {object}");
}

/// A mixed hold (stock, a unit, a booking) is one `hold.created` naming its three lines, after
/// the events of those lines (`stock.held` of each SKU's entry, `booking.created`), and one
/// `hold.confirmed` after theirs at the confirm; a partial confirm's `hold.confirmed` names
/// what it confirmed; a release is one `hold.released`.
async fn a_holds_own_event_names_every_line(ts: &TestServer) {
    ts.create_sku("EV-TEE", 10, 1).await;
    let seat = json!({"units": [{"serial": "EV-A12"}, {"serial": "EV-A13"}]});
    assert_eq!(ts.post("/v1/skus/EV-SEAT/units", seat).await.0, 201);
    let lines = json!({"lines": [
        {"sku": "EV-TEE", "quantity": 2},
        {"units": {"sku": "EV-SEAT", "quantity": 1, "serials": ["EV-A12"]}},
        {"booking": {"resource": "ev-bay", "start": "2031-05-01T18:00:00Z", "end": "2031-05-01T23:00:00Z"}}
    ], "ttl_ms": 60_000});
    let h = ts.ok("/v1/holds", lines).await;
    let (id, bid) = (h["id"].as_str().unwrap(), h["bookings"][0]["id"].as_str().unwrap());
    let (all, i) = until_event(ts, "hold.created", id).await;
    let made = &all[i - 3..=i];
    let mut kinds = typed(made);
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        [
            ("booking.created", bid),
            ("hold.created", id),
            ("stock.held", id),
            ("stock.held", id)
        ],
        "{made:?}"
    );
    let data = &made[3]["data"];
    assert_eq!(
        (&data["kind"], &data["status"]),
        (&json!("mixed"), &json!("held")),
        "{data}"
    );
    let skus: Vec<&str> = data["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["sku"].as_str().unwrap())
        .collect();
    assert_eq!(skus, ["EV-SEAT", "EV-TEE"], "{data}");
    let booked = &data["bookings"][0];
    assert_eq!(
        (&booked["id"], &booked["resource"]),
        (&json!(bid), &json!("ev-bay")),
        "{data}"
    );
    assert_eq!(data["expires_at"], h["expires_at"], "{data}");

    ts.ok(&format!("/v1/holds/{id}/confirm"), json!({})).await;
    let (all, j) = until_event(ts, "hold.confirmed", id).await;
    let mut kinds = typed(&all[i + 1..j]);
    kinds.sort_unstable();
    assert_eq!(
        kinds,
        [
            ("booking.confirmed", bid),
            ("stock.hold_confirmed", id),
            ("stock.hold_confirmed", id)
        ],
        "the hold's own event last: {all:?}"
    );
    assert_eq!(all[j]["data"]["status"], "confirmed", "{all:?}");

    // A partial confirm names what it confirmed; a release is one `hold.released`.
    let three = json!({"lines": [{"sku": "EV-TEE", "quantity": 3}], "ttl_ms": 60_000});
    let part = ts.ok("/v1/holds", three.clone()).await;
    let part_id = part["id"].as_str().unwrap();
    let one = json!({"lines": [{"sku": "EV-TEE", "quantity": 1}]});
    ts.ok(&format!("/v1/holds/{part_id}/confirm"), one).await;
    let gone = ts.ok("/v1/holds", three).await;
    let gone_id = gone["id"].as_str().unwrap();
    ts.ok(&format!("/v1/holds/{gone_id}/release"), json!({})).await;
    let (all, _) = until_event(ts, "hold.released", gone_id).await;
    let said: Vec<(&str, &str, i64)> = all[j + 1..]
        .iter()
        .filter(|e| e["type"].as_str().unwrap().starts_with("hold."))
        .map(|e| {
            let q = e["data"]["lines"][0]["quantity"].as_i64().unwrap();
            (e["type"].as_str().unwrap(), e["object"].as_str().unwrap(), q)
        })
        .collect();
    assert_eq!(
        said,
        [
            ("hold.created", part_id, 3),
            ("hold.confirmed", part_id, 1),
            ("hold.created", gone_id, 3),
            ("hold.released", gone_id, 3)
        ],
        "{all:?}"
    );
    ts.assert_audit_clean().await;
}

async fn the_stream_resumes_without_loss_or_repeat(ts: &TestServer) {
    ts.create_sku("S", 10, 1).await;
    allocate(ts, "S").await;
    allocate(ts, "S").await;
    events_after(ts, 0, 3).await;
    let mut stream = Stream::open(ts, Some(1), None).await.unwrap();
    let first = stream.next(2).await;
    assert_eq!(
        first.iter().map(|e| e.0).collect::<Vec<_>>(),
        [2, 3],
        "after Last-Event-ID"
    );
    assert_eq!(first[0].1, "allocation.created");
    // What happens while it is open arrives on it.
    allocate(ts, "S").await;
    let live = stream.next(1).await;
    assert_eq!(live[0].0, 4);
    drop(stream);
    // Down while two more happen; back with the last id seen: both, once, in order.
    allocate(ts, "S").await;
    allocate(ts, "S").await;
    let mut again = Stream::open(ts, Some(4), None).await.unwrap();
    let resumed = again.next(2).await;
    assert_eq!(resumed.iter().map(|e| e.0).collect::<Vec<_>>(), [5, 6]);
    allocate(ts, "S").await;
    assert_eq!(again.next(1).await[0].0, 7, "nothing seen twice");
}

async fn bad_queries_are_refused(ts: &TestServer) {
    for (query, field) in [
        ("after=-1", "after"),
        ("after=x", "after"),
        ("limit=0", "limit"),
        ("types=sku.gone", "types"),
        ("object=a%20b", "object"),
    ] {
        let (s, body) = ts.get(&format!("/v1/events?{query}")).await;
        assert_eq!(s, 400, "{query}: {body}");
        assert!(body.to_string().contains(field), "{query} names {field}: {body}");
    }
    let err = Stream::open(ts, Some(-1), None).await.err();
    assert_eq!(err.map(|e| e.0), Some(400));
    let resp = ts
        .client
        .get(format!("{}/v1/events/stream", ts.url))
        .header("last-event-id", "soon")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
}

async fn streams_are_bounded_per_key_and_tenants_apart(ts: &TestServer) {
    use allot_core::access::Scope;
    let (_, a) = common::make_key(ts, "acme", "feed", &[Scope::EventsRead, Scope::StockWrite], None).await;
    let (_, b) = common::make_key(ts, "globex", "feed", &[Scope::EventsRead, Scope::StockWrite], None).await;
    let (_, no) = common::make_key(ts, "acme", "no-feed", &[Scope::StockRead], None).await;
    let (a, b) = (format!("Bearer {a}"), format!("Bearer {b}"));
    ts.ok_with(&a, "/v1/skus", json!({"sku": "A1", "on_hand": 3})).await;
    ts.ok_with(&b, "/v1/skus", json!({"sku": "B1", "on_hand": 4})).await;
    let mut one = Stream::open(ts, None, Some(&a)).await.unwrap();
    let _two = Stream::open(ts, None, Some(&a)).await.unwrap();
    let third = Stream::open(ts, None, Some(&a)).await.err();
    assert_eq!(third.map(|e| e.0), Some(429), "max_streams_per_key is 2");
    let denied = Stream::open(ts, None, Some(&format!("Bearer {no}"))).await.err();
    assert_eq!(denied.map(|e| e.0), Some(403), "events:read is needed");
    let mine = one.next(1).await;
    assert_eq!((mine[0].0, mine[0].2["object"].as_str()), (1, Some("A1")));
    ts.ok_with(&b, "/v1/allocations", json!({"lines": [{"sku": "B1", "quantity": 1}]}))
        .await;
    ts.ok_with(&a, "/v1/allocations", json!({"lines": [{"sku": "A1", "quantity": 1}]}))
        .await;
    let next = one.next(1).await;
    assert_eq!(
        (next[0].0, next[0].1.as_str()),
        (2, "allocation.created"),
        "acme's own, cursor 2"
    );
    assert_eq!(next[0].2["data"]["sku"], "A1", "never globex's");
    drop(one);
    // The server notices a client gone when it next writes to it: the next event.
    ts.ok_with(&a, "/v1/allocations", json!({"lines": [{"sku": "A1", "quantity": 1}]}))
        .await;
    for _ in 0..100 {
        if Stream::open(ts, None, Some(&a)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("a closed stream gives its permit back");
}
