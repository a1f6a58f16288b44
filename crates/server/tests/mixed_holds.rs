//! One hold across kinds on both backends: stock lines, unit lines and booking lines taken
//! together or not at all (`kind: mixed`), confirmed into one allocation, released and expired
//! as one (the bookings with it, and only through it); and a
//! storm of mixed holds in which the stock and the units run out at different moments, every
//! hold all or nothing, with no unit in two holds and no deadlock reaching a client; a storm in
//! which every kind (stock, units, slots) runs out; confirms in part; and, on PostgreSQL in a
//! database of its own, lines of every kind in opposite orders with no deadlock detected.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{Api, TestServer};
use serde_json::{json, Value};
use std::collections::HashSet;

conformance!(
    a_mixed_hold_takes_every_line_or_none,
    booking_lines_are_held_with_the_hold,
    holds_of_every_kind_under_a_storm_never_overbook,
    mixed_holds_under_a_storm_are_all_or_nothing,
    lines_in_opposite_orders_never_deadlock,
    booking_lines_sharing_a_pool_with_bookings_never_deadlock,
    unit_lines_by_serial_take_those_units_or_none,
    holds_expiring_mid_storm_free_every_line_at_once,
    a_mixed_hold_is_confirmed_in_part,
    every_kind_runs_out_in_one_storm,
    kinds_in_opposite_orders
);

async fn receive(api: &Api, sku: &str, n: usize) {
    let units: Vec<Value> = (0..n).map(|i| json!({"serial": format!("{sku}-{i:03}")})).collect();
    let (s, b) = api
        .post(&format!("/v1/skus/{sku}/units"), json!({ "units": units }))
        .await;
    assert_eq!(s, 201, "{b}");
}

fn mixed(stock: (&str, i64), units: (&str, i64)) -> Value {
    json!({"lines": [
        {"sku": stock.0, "quantity": stock.1},
        {"units": {"sku": units.0, "quantity": units.1}}
    ], "ttl_ms": 60_000})
}

/// The serials of `sku`'s units in `status` (`held`, `allocated`, `available`).
async fn serials(api: &Api, sku: &str, status: &str) -> Vec<String> {
    let (s, b) = api.get(&format!("/v1/skus/{sku}/units?limit=1000")).await;
    assert_eq!(s, 200, "{b}");
    b["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["status"] == status)
        .map(|u| u["serial"].as_str().unwrap().to_string())
        .collect()
}

fn held_and_available(sku: &Value) -> (i64, i64) {
    (sku["held"].as_i64().unwrap(), sku["available"].as_i64().unwrap())
}

async fn a_mixed_hold_takes_every_line_or_none(ts: &TestServer) {
    ts.create_sku("TEE", 10, 1).await;
    receive(ts, "SEAT", 5).await;

    // All or nothing: 6 seats of 5 refuses the whole hold, naming the unit line's SKU.
    let (s, b) = ts.post("/v1/holds", mixed(("TEE", 2), ("SEAT", 6))).await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("insufficient_stock")),
        "{b}"
    );
    assert_eq!(
        (&b["error"]["sku"], &b["error"]["line"]),
        (&json!("SEAT"), &json!(1)),
        "{b}"
    );
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, 10), "nothing taken");
    // The same in a batch: the operation's result names the line too.
    let op = json!({"operations": [{"op": "hold", "body": mixed(("TEE", 2), ("SEAT", 6))}]});
    let (s, b) = ts.post("/v1/batch", op).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        (&b["results"][0]["status"], &b["results"][0]["body"]["error"]["line"]),
        (&json!(409), &json!(1)),
        "{b}"
    );
    assert!(serials(ts, "SEAT", "held").await.is_empty());

    let h = ts.ok("/v1/holds", mixed(("TEE", 2), ("SEAT", 2))).await;
    assert_eq!(
        (h["kind"].as_str(), h["status"].as_str()),
        (Some("mixed"), Some("held")),
        "{h}"
    );
    let lines: Vec<(&str, i64)> = h["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["sku"].as_str().unwrap(), l["quantity"].as_i64().unwrap()))
        .collect();
    assert_eq!(lines, [("SEAT", 2), ("TEE", 2)]);
    let held: Vec<&str> = h["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["serial"].as_str().unwrap())
        .collect();
    assert_eq!(held, ["SEAT-000", "SEAT-001"]);
    assert_eq!(serials(ts, "SEAT", "held").await, held);
    assert_eq!(held_and_available(&ts.sku("TEE").await), (2, 8));
    let id = h["id"].as_str().unwrap();
    let (s, b) = ts
        .post(
            &format!("/v1/holds/{id}/confirm"),
            json!({"lines": [{"sku": "TEE", "quantity": 3}]}),
        )
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("insufficient_stock")),
        "{b}"
    );
    let (_, got) = ts.get(&format!("/v1/holds/{id}")).await;
    assert_eq!(got, h, "a refused part changed nothing");

    // Confirmed: one allocation of both lines; the seats allocated, the tees gone.
    let a = ts.ok(&format!("/v1/holds/{id}/confirm"), json!({})).await;
    assert_eq!(a["id"], h["id"]);
    assert_eq!(a["lines"].as_array().unwrap().len(), 2, "{a}");
    assert_eq!(serials(ts, "SEAT", "allocated").await, held);
    let tee = ts.sku("TEE").await;
    assert_eq!(
        (tee["on_hand"].as_i64(), tee["held"].as_i64()),
        (Some(8), Some(0)),
        "{tee}"
    );

    // A key replays a mixed hold (one effect), and the batch API confirms one in part.
    let body = mixed(("TEE", 1), ("SEAT", 1)).to_string();
    let (s1, r1, k1) = ts.post_raw("/v1/holds", body.clone(), Some("mixed-1")).await;
    let (s2, r2, k2) = ts.post_raw("/v1/holds", body, Some("mixed-1")).await;
    assert_eq!((s1, r1, s2, r2), (201, false, 201, true), "{k1} {k2}");
    assert_eq!(k1, k2, "the stored answer, units and all");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (1, 7), "one hold taken");
    let keep = json!({"lines": [{"sku": "SEAT", "quantity": 1}]});
    let op = json!({"operations": [{"op": "confirm", "id": k1["id"], "body": keep}]});
    let (s, b) = ts.post("/v1/batch", op).await;
    assert_eq!((s, &b["results"][0]["status"]), (200, &json!(200)), "{b}");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, 8), "the tee given back");
    assert_eq!(serials(ts, "SEAT", "allocated").await.len(), 3, "the seat kept");

    // Released: both lines back.
    let r = ts.ok("/v1/holds", mixed(("TEE", 3), ("SEAT", 1))).await;
    let released = ts
        .ok(&format!("/v1/holds/{}/release", r["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(released["status"], "released");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, 8));
    assert_eq!(serials(ts, "SEAT", "available").await.len(), 2);

    // Expired: both lines free at once, before any sweeper; a claim of every free seat
    // gets the expired hold's too.
    let e = ts.ok("/v1/holds", mixed(("TEE", 4), ("SEAT", 2))).await;
    ts.advance_past(&e["expires_at"]);
    let (_, now) = ts.get(&format!("/v1/holds/{}", e["id"].as_str().unwrap())).await;
    assert_eq!(now["status"], "expired");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, 8));
    let claim = ts
        .ok("/v1/unit-allocations", json!({"sku": "SEAT", "quantity": 2}))
        .await;
    assert_eq!(claim["units"].as_array().unwrap().len(), 2, "{claim}");
    // Unit lines alone make a unit hold; a line of both kinds, or a SKU twice, is refused.
    receive(ts, "BIKE", 2).await;
    let u = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"units": {"sku": "BIKE", "quantity": 1}}], "ttl_ms": 60_000}),
        )
        .await;
    assert_eq!(
        (u["kind"].as_str(), u["units"].as_array().map(Vec::len)),
        (Some("units"), Some(1)),
        "{u}"
    );
    let both =
        json!({"lines": [{"sku": "TEE", "quantity": 1, "units": {"sku": "BIKE", "quantity": 1}}], "ttl_ms": 60_000});
    let (s, b) = ts.post("/v1/holds", both).await;
    assert_eq!(s, 400, "{b}");
    assert!(b["error"]["message"].as_str().unwrap().contains("lines[0]"), "{b}");
    let (s, b) = ts.post("/v1/holds", mixed(("TEE", 1), ("TEE", 1))).await;
    assert_eq!((s, b["error"]["code"].as_str()), (422, Some("duplicate_sku")), "{b}");
    let (s, b) = ts.post("/v1/holds", mixed(("SEAT", 1), ("BIKE", 1))).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("wrong_tracking")), "{b}");
    assert_eq!(b["error"]["line"], 0, "{b}");
    ts.assert_audit_clean().await;
}

async fn mixed_holds_under_a_storm_are_all_or_nothing(ts: &TestServer) {
    const TEES: i64 = 14;
    const SEATS: usize = 9;
    const HOLDS: usize = 24;
    ts.create_sku("TEE", TEES, 1).await;
    receive(ts, "SEAT", SEATS).await;
    // Half the holds want more tees, half more seats: each kind runs out at its own moment.
    let bodies: Vec<Value> = (0..HOLDS)
        .map(|i| match i % 2 {
            0 => mixed(("TEE", 2), ("SEAT", 1)),
            _ => mixed(("TEE", 1), ("SEAT", 2)),
        })
        .collect();
    let mut set = tokio::task::JoinSet::new();
    for body in bodies {
        let api = ts.api.clone();
        set.spawn(async move {
            // `contention` is the store saying "again": retried, bounded.
            for _ in 0..50 {
                let (s, b) = api.post("/v1/holds", body.clone()).await;
                if !(s == 409 && b["error"]["code"] == "contention") {
                    return (s, b, body);
                }
            }
            panic!("contention past 50 tries");
        });
    }
    let (mut tees, mut seats, mut seen) = (0, 0, HashSet::new());
    let mut asks_refused = Vec::new();
    while let Some(r) = set.join_next().await {
        let (s, b, body) = r.unwrap();
        let want = (
            body["lines"][0]["quantity"].as_i64().unwrap(),
            body["lines"][1]["units"]["quantity"].as_i64().unwrap(),
        );
        match s {
            201 => {
                let units = b["units"].as_array().unwrap();
                assert_eq!(units.len() as i64, want.1, "{b}");
                for u in units {
                    assert!(
                        seen.insert(u["serial"].as_str().unwrap().to_string()),
                        "a seat twice: {u}"
                    );
                }
                tees += want.0;
                seats += want.1;
            }
            409 => {
                assert_eq!(b["error"]["code"], "insufficient_stock", "{b}");
                asks_refused.push(want);
            }
            other => panic!("{other}: {b}"),
        }
    }
    assert!(
        tees <= TEES && seats <= SEATS as i64,
        "oversold: {tees} tees, {seats} seats"
    );
    let tee = ts.sku("TEE").await;
    assert_eq!(held_and_available(&tee), (tees, TEES - tees), "{tee}");
    assert_eq!(serials(ts, "SEAT", "held").await.len() as i64, seats);
    // Every refusal was right when it was made, so at the end no refused ask fits either.
    for (t, u) in &asks_refused {
        assert!(
            *t > TEES - tees || *u > SEATS as i64 - seats,
            "an ask of {t} tees and {u} seats fits, yet was refused"
        );
    }
    // The holds lapse: every line of every one is free at once.
    let (_, page) = ts.get("/v1/holds?status=held&limit=1000").await;
    let last = page["holds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["expires_at"].clone())
        .max_by_key(|v| v.to_string());
    if let Some(at) = last {
        ts.advance_past(&at);
    }
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, TEES));
    let all = ts
        .ok("/v1/unit-allocations", json!({"sku": "SEAT", "quantity": SEATS}))
        .await;
    assert_eq!(all["units"].as_array().unwrap().len(), SEATS, "{all}");
    ts.assert_audit_clean().await;
}

/// Mixed holds naming the same stock rows and units in opposite line orders, many at once,
/// each released at once: every one is made (the lock order is the store's, not the
/// request's: stock rows by SKU, then units), so no deadlock, retry or error reaches a client.
async fn lines_in_opposite_orders_never_deadlock(ts: &TestServer) {
    ts.create_sku("A", 1_000, 1).await;
    ts.create_sku("B", 1_000, 1).await;
    receive(ts, "U", 200).await;
    let mut set = tokio::task::JoinSet::new();
    for i in 0..16 {
        let api = ts.api.clone();
        set.spawn(async move {
            for _ in 0..8 {
                let (first, last) = if i % 2 == 0 { ("A", "B") } else { ("B", "A") };
                let body = json!({"lines": [
                    {"sku": first, "quantity": 1},
                    {"units": {"sku": "U", "quantity": 2}},
                    {"sku": last, "quantity": 1}
                ], "ttl_ms": 60_000});
                let (s, h) = api.post("/v1/holds", body).await;
                assert_eq!(s, 201, "{h}");
                let id = h["id"].as_str().unwrap();
                let (s, r) = api.post(&format!("/v1/holds/{id}/release"), json!({})).await;
                assert_eq!(s, 200, "{r}");
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    for sku in ["A", "B"] {
        assert_eq!(held_and_available(&ts.sku(sku).await), (0, 1_000));
    }
    assert_eq!(serials(ts, "U", "available").await.len(), 200);
    ts.assert_audit_clean().await;
}

fn booking_line(resource: &str, hours: (u32, u32), quantity: u32) -> Value {
    json!({"booking": {"resource": resource, "start": format!("2031-05-01T{:02}:00:00Z", hours.0),
                       "end": format!("2031-05-01T{:02}:00:00Z", hours.1), "quantity": quantity}})
}

fn with_booking(tee: i64, booking: Value) -> Value {
    json!({"lines": [{"sku": "TEE", "quantity": tee}, booking], "ttl_ms": 60_000})
}

/// The one booking of hold `h`: its id and status.
fn booking_of(h: &Value) -> (String, String) {
    let b = &h["bookings"][0];
    assert_eq!(b["hold_id"], h["id"], "{h}");
    (
        b["id"].as_str().unwrap().to_string(),
        b["status"].as_str().unwrap().to_string(),
    )
}

async fn booking_lines_are_held_with_the_hold(ts: &TestServer) {
    ts.create_sku("TEE", 10, 1).await;
    let h = ts
        .ok("/v1/holds", with_booking(2, booking_line("bay-1", (18, 23), 1)))
        .await;
    assert_eq!(h["kind"], "mixed", "{h}");
    let (bid, status) = booking_of(&h);
    assert_eq!(status, "held");
    assert_eq!(h["bookings"][0]["expires_at"], h["expires_at"], "{h}");
    let (_, got) = ts.get(&format!("/v1/holds/{}", h["id"].as_str().unwrap())).await;
    assert_eq!(got, h, "a read answers what the hold answered");
    // A listing reads the page's units and bookings together: each hold as it reads alone.
    let other = ts
        .ok("/v1/holds", with_booking(1, booking_line("bay-9", (8, 9), 1)))
        .await;
    let (_, page) = ts.get("/v1/holds?status=held&limit=10").await;
    let listed = page["holds"].as_array().unwrap();
    for one in [&h, &other] {
        let found = listed.iter().find(|x| x["id"] == one["id"]).expect("listed");
        assert_eq!(found, one, "listed as read alone");
    }
    ts.ok(
        &format!("/v1/holds/{}/release", other["id"].as_str().unwrap()),
        json!({}),
    )
    .await;
    // Only the hold decides its bookings.
    for path in ["confirm", "release"] {
        let (s, b) = ts.post(&format!("/v1/bookings/{bid}/{path}"), json!({})).await;
        assert_eq!((s, b["error"]["code"].as_str()), (422, Some("held_by_hold")), "{b}");
    }
    // All or nothing: a second hold over the range takes no stock, naming its booking line;
    // a plain booking over it is refused too.
    let (s, b) = ts
        .post("/v1/holds", with_booking(3, booking_line("bay-1", (20, 21), 1)))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str(), &b["error"]["line"]),
        (409, Some("booking_overlap"), &json!(1)),
        "{b}"
    );
    assert_eq!(held_and_available(&ts.sku("TEE").await), (2, 8), "nothing taken");
    // Of several booking lines, the refused one is named, in the request's order (lines are
    // decided by resource, so `bay-0`'s comes first, and is free).
    let two = json!({"lines": [{"sku": "TEE", "quantity": 1}, booking_line("bay-1", (20, 21), 1),
                               booking_line("bay-0", (8, 9), 1)], "ttl_ms": 60_000});
    let (s, b) = ts.post("/v1/holds", two).await;
    assert_eq!(
        (s, b["error"]["code"].as_str(), &b["error"]["line"]),
        (409, Some("booking_overlap"), &json!(1)),
        "{b}"
    );
    let op = json!({"operations": [{"op": "hold", "body": {"lines": [{"sku": "TEE", "quantity": 1},
        booking_line("bay-0", (8, 9), 1), booking_line("bay-1", (20, 21), 1)], "ttl_ms": 60_000}}]});
    let (_, b) = ts.post("/v1/batch", op).await;
    assert_eq!(b["results"][0]["body"]["error"]["line"], json!(2), "{b}");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (2, 8), "nothing taken");
    let plain = json!({"start": "2031-05-01T19:00:00Z", "end": "2031-05-01T20:00:00Z", "holder": "x"});
    let (s, b) = ts.post("/v1/resources/bay-1/bookings", plain.clone()).await;
    assert_eq!((s, b["error"]["code"].as_str()), (409, Some("booking_overlap")), "{b}");

    // Confirmed: the stock allocated and the booking confirmed at once.
    ts.ok(&format!("/v1/holds/{}/confirm", h["id"].as_str().unwrap()), json!({}))
        .await;
    let (_, b) = ts.get(&format!("/v1/bookings/{bid}")).await;
    assert_eq!(
        (b["status"].as_str(), &b["expires_at"]),
        (Some("confirmed"), &Value::Null),
        "{b}"
    );

    // Released, then expired: the range is free again each time.
    let r = ts
        .ok("/v1/holds", with_booking(1, booking_line("bay-2", (18, 23), 1)))
        .await;
    let released = ts
        .ok(&format!("/v1/holds/{}/release", r["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(booking_of(&released).1, "released", "{released}");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, 8));
    let e = ts
        .ok("/v1/holds", with_booking(1, booking_line("bay-2", (18, 23), 1)))
        .await;
    let extended = ts
        .ok(
            &format!("/v1/holds/{}/extend", e["id"].as_str().unwrap()),
            json!({"ttl_ms": 120_000}),
        )
        .await;
    assert_eq!(
        extended["bookings"][0]["expires_at"], extended["expires_at"],
        "{extended}"
    );
    ts.advance_past(&extended["expires_at"]);
    let (eid, _) = booking_of(&e);
    let (_, b) = ts.get(&format!("/v1/bookings/{eid}")).await;
    assert_eq!(b["status"], "expired", "{b}");
    ts.ok("/v1/resources/bay-2/bookings", plain).await;

    // A quantity above 1 on a resource never put is refused, naming its line.
    let (s, b) = ts
        .post("/v1/holds", with_booking(1, booking_line("bay-5", (8, 9), 2)))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str(), &b["error"]["line"]),
        (422, Some("needs_slots"), &json!(1)),
        "{b}"
    );
    // A resource with slots: its capacity counts the hold's quantity.
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/hall",
            json!({"capacity": 3, "slot_ms": 3_600_000}),
        )
        .await;
    assert!(s == 200 || s == 201, "{b}");
    let two = ts
        .ok("/v1/holds", with_booking(1, booking_line("hall", (10, 12), 2)))
        .await;
    assert_eq!(two["bookings"][0]["quantity"], 2, "{two}");
    let (s, b) = ts
        .post("/v1/holds", with_booking(1, booking_line("hall", (11, 12), 2)))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("capacity_exceeded")),
        "{b}"
    );
    ts.ok("/v1/holds", with_booking(1, booking_line("hall", (11, 12), 1)))
        .await;
    // Bookings alone are a held booking's job; a line of booking and SKU is refused.
    let alone = json!({"lines": [booking_line("hall", (13, 14), 1)], "ttl_ms": 60_000});
    let (s, b) = ts.post("/v1/holds", alone).await;
    assert_eq!(s, 400, "{b}");
    let mut both = booking_line("hall", (13, 14), 1);
    both["sku"] = json!("TEE");
    let (s, b) = ts.post("/v1/holds", json!({"lines": [both], "ttl_ms": 60_000})).await;
    assert!(
        s == 400 && b["error"]["message"].as_str().unwrap().contains("lines[0]"),
        "{b}"
    );
    ts.assert_audit_clean().await;
}

/// Holds of a tee, a seat and an hour of the hall (capacity 3), every other one with the bay
/// (a plain resource) too, many at once: exactly three are made (the hall is full after
/// them), at most one with the bay; every other is refused whole (`capacity_exceeded` or
/// `booking_overlap`), taking nothing; the stock, the units and the slots agree.
async fn holds_of_every_kind_under_a_storm_never_overbook(ts: &TestServer) {
    const HOLDS: usize = 16;
    ts.create_sku("TEE", 100, 1).await;
    receive(ts, "SEAT", HOLDS).await;
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/hall",
            json!({"capacity": 3, "slot_ms": 3_600_000}),
        )
        .await;
    assert!(s == 200 || s == 201, "{b}");
    let mut set = tokio::task::JoinSet::new();
    for i in 0..HOLDS {
        let mut lines = vec![
            json!({"sku": "TEE", "quantity": 1}),
            json!({"units": {"sku": "SEAT", "quantity": 1}}),
            booking_line("hall", (10, 11), 1),
        ];
        if i % 2 == 1 {
            lines.push(booking_line("bay", (10, 12), 1));
        }
        let (api, body) = (ts.api.clone(), json!({"lines": lines, "ttl_ms": 60_000}));
        set.spawn(async move {
            for _ in 0..50 {
                let (s, b) = api.post("/v1/holds", body.clone()).await;
                if !(s == 409 && b["error"]["code"] == "contention") {
                    return (s, b, i % 2 == 1);
                }
            }
            panic!("contention past 50 tries");
        });
    }
    let (mut made, mut with_bay, mut seats) = (0, 0, HashSet::new());
    while let Some(r) = set.join_next().await {
        let (s, b, bay) = r.unwrap();
        match s {
            201 => {
                made += 1;
                with_bay += usize::from(bay);
                assert_eq!(
                    b["bookings"].as_array().map(Vec::len),
                    Some(1 + usize::from(bay)),
                    "{b}"
                );
                assert!(seats.insert(b["units"][0]["serial"].to_string()), "a seat twice: {b}");
            }
            409 => assert!(
                ["capacity_exceeded", "booking_overlap"].contains(&b["error"]["code"].as_str().unwrap()),
                "{b}"
            ),
            other => panic!("{other}: {b}"),
        }
    }
    assert_eq!((made, with_bay <= 1), (3, true), "made {made}, {with_bay} with the bay");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (3, 97));
    assert_eq!(serials(ts, "SEAT", "held").await.len(), 3);
    let (_, a) = ts
        .get("/v1/resources/hall/availability?from=2031-05-01T10:00:00Z&to=2031-05-01T11:00:00Z")
        .await;
    assert_eq!(
        (&a["slots"][0]["held"], &a["slots"][0]["free"]),
        (&json!(3), &json!(0)),
        "{a}"
    );
    ts.assert_audit_clean().await;
}

/// Holds with booking lines on two resources of one pool, and plain bookings on each of the
/// two, many at once: a hold takes the locks of both resources before either's pool (as a
/// booking takes its resource's before its pool's), so no hold waits for a resource while
/// holding the pool a booking of that resource waits for. Every request is made; none is
/// refused for contention.
async fn booking_lines_sharing_a_pool_with_bookings_never_deadlock(ts: &TestServer) {
    pool_storm(ts).await;
}

/// The storm above, on PostgreSQL, in a database of its own: besides every request being made,
/// PostgreSQL detected no deadlock at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn booking_lines_sharing_a_pool_deadlock_nowhere() {
    let deadlocks = deadlocks_in_a_database_of_its_own(pool_storm).await;
    assert_eq!(deadlocks, 0, "PostgreSQL broke deadlocks between holds and bookings");
}

/// [`kinds_in_opposite_orders`] on PostgreSQL in a database of its own: PostgreSQL detected
/// no deadlock at all between holds listing stock, unit and booking lines in opposite orders,
/// their confirms (whole and in part), releases, and plain bookings beside them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lines_of_every_kind_in_opposite_orders_deadlock_nowhere() {
    let deadlocks = deadlocks_in_a_database_of_its_own(kinds_in_opposite_orders).await;
    assert_eq!(
        deadlocks, 0,
        "PostgreSQL broke deadlocks between holds of several kinds"
    );
}

/// Run `storm` on a server whose database is made for it, and count the deadlocks
/// PostgreSQL detected there (its own count, read once the server's sessions have ended and
/// flushed their statistics; a deadlock retried out of a client's sight still counts).
async fn deadlocks_in_a_database_of_its_own(storm: impl AsyncFnOnce(&TestServer)) -> i64 {
    let name = format!("allot_dl_{}", uuid::Uuid::new_v4().simple());
    let admin = common::admin().await;
    admin.batch_execute(&format!("CREATE DATABASE {name}")).await.unwrap();
    let base = common::pg_base_url();
    let (head, query) = base.split_once('?').map_or((base.as_str(), ""), |(h, q)| (h, q));
    let url = format!(
        "{}/{name}{}{query}",
        head.rsplit_once('/').unwrap().0,
        if query.is_empty() { "" } else { "?" }
    );
    let ts = common::start_with(common::Kind::Postgres, |cfg| cfg.database_url = url).await;
    storm(&ts).await;
    ts.stop().await;
    // Sessions the server leaves behind (a listener) end too: each flushes its statistics as
    // it exits.
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1",
            &[&name],
        )
        .await
        .unwrap();
    let mut left = 1;
    for _ in 0..500 {
        let row = admin
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", &[&name])
            .await
            .unwrap();
        left = row.get::<_, i64>(0);
        if left == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(left, 0, "the server's sessions ended");
    admin.batch_execute("SELECT pg_stat_clear_snapshot()").await.unwrap();
    let deadlocks: i64 = admin
        .query_one("SELECT deadlocks FROM pg_stat_database WHERE datname = $1", &[&name])
        .await
        .unwrap()
        .get(0);
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .await
        .unwrap();
    ts.finish().await;
    deadlocks
}

/// Holds of two stock SKUs, a unit and two booking lines (on two resources with slots),
/// listed in opposite orders by half of the clients, each then confirmed whole, confirmed in
/// part (one SKU and one booking kept) or released; beside them, plain bookings on the same
/// slots, cancelled again. On PostgreSQL the holds go by each path at once: the default
/// `batched` lane, and the per-request path (`atomic`, `pessimistic`), whose lock orders must
/// agree. Every request is made.
async fn kinds_in_opposite_orders(ts: &TestServer) {
    ts.create_sku("TEE", 1_000, 1).await;
    ts.create_sku("CAP", 1_000, 1).await;
    receive(ts, "SEAT", 100).await;
    for bay in ["bay-a", "bay-b"] {
        let body = json!({"capacity": 1_000, "slot_ms": 3_600_000});
        let (s, b) = ts.send_json("PUT", &format!("/v1/resources/{bay}"), body).await;
        assert!(s == 200 || s == 201, "{b}");
    }
    let mut set = tokio::task::JoinSet::new();
    for i in 0..12 {
        let api = ts.api.clone();
        set.spawn(async move {
            for j in 0..6 {
                if i % 3 == 2 {
                    book_and_cancel(&api, if j % 2 == 0 { "bay-a" } else { "bay-b" }, i * 10 + j).await;
                    continue;
                }
                let (first, last) = if i % 2 == 0 {
                    (("TEE", "bay-a"), ("CAP", "bay-b"))
                } else {
                    (("CAP", "bay-b"), ("TEE", "bay-a"))
                };
                let mut body = json!({"lines": [{"sku": first.0, "quantity": 1}, booking_line(first.1, (10, 11), 1),
                    {"units": {"sku": "SEAT", "quantity": 1}}, booking_line(last.1, (10, 11), 1),
                    {"sku": last.0, "quantity": 1}], "ttl_ms": 60_000});
                if api.kind == common::Kind::Postgres && i % 3 != 0 {
                    body["strategy"] = json!(["atomic", "pessimistic"][(i + j) % 2]);
                }
                let h = api.ok("/v1/holds", body).await;
                let id = h["id"].as_str().unwrap();
                let (path, part) = match j % 3 {
                    0 => ("confirm", json!({})),
                    1 => (
                        "confirm",
                        json!({"lines": [{"sku": "TEE", "quantity": 1}, {"booking": h["bookings"][0]["id"]}]}),
                    ),
                    _ => ("release", json!({})),
                };
                api.ok(&format!("/v1/holds/{id}/{path}"), part).await;
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    // Exact books: 8 clients hold; each confirms 2 whole (a TEE, a CAP, a seat, both bays),
    // 2 in part (a TEE and bay-a's booking, the first in resource order) and releases 2.
    let tee = ts.sku("TEE").await;
    assert_eq!(
        (tee["on_hand"].as_i64(), held_and_available(&tee)),
        (Some(968), (0, 968)),
        "{tee}"
    );
    let cap = ts.sku("CAP").await;
    assert_eq!(
        (cap["on_hand"].as_i64(), held_and_available(&cap)),
        (Some(984), (0, 984)),
        "{cap}"
    );
    assert_eq!(serials(ts, "SEAT", "held").await.len(), 0);
    assert_eq!(serials(ts, "SEAT", "allocated").await.len(), 16);
    assert_eq!(serials(ts, "SEAT", "available").await.len(), 84);
    for (bay, taken) in [("bay-a", 32), ("bay-b", 16)] {
        let (_, a) = ts
            .get(&format!(
                "/v1/resources/{bay}/availability?from=2031-05-01T10:00:00Z&to=2031-05-01T11:00:00Z"
            ))
            .await;
        assert_eq!(a["slots"][0]["free"], json!(1_000 - taken), "{bay}: {a}");
    }
    ts.assert_audit_clean().await;
}

/// A plain booking of `bay` at 10:00–11:00 by holder `n`, cancelled again.
async fn book_and_cancel(api: &Api, bay: &str, n: usize) {
    let body = json!({"start": "2031-05-01T10:00:00Z", "end": "2031-05-01T11:00:00Z", "holder": format!("w{n}")});
    let b = api.ok(&format!("/v1/resources/{bay}/bookings"), body).await;
    let id = b["id"].as_str().unwrap();
    let (s, c) = api.send_json("DELETE", &format!("/v1/bookings/{id}"), json!({})).await;
    assert_eq!(s, 200, "{c}");
}

async fn pool_storm(ts: &TestServer) {
    ts.create_sku("TEE", 1_000, 1).await;
    let hour = 3_600_000;
    for (path, body) in [
        ("/v1/pools/bays", json!({"capacity": 1_000, "slot_ms": hour})),
        (
            "/v1/resources/bay-a",
            json!({"capacity": 1_000, "slot_ms": hour, "pools": ["bays"]}),
        ),
        (
            "/v1/resources/bay-b",
            json!({"capacity": 1_000, "slot_ms": hour, "pools": ["bays"]}),
        ),
    ] {
        let (s, b) = ts.send_json("PUT", path, body).await;
        assert!(s == 200 || s == 201, "{path}: {b}");
    }
    let mut set = tokio::task::JoinSet::new();
    for i in 0..12 {
        let api = ts.api.clone();
        set.spawn(async move {
            for j in 0..6 {
                if i % 2 == 0 {
                    let body = json!({"lines": [{"sku": "TEE", "quantity": 1},
                        booking_line("bay-b", (10, 11), 1), booking_line("bay-a", (10, 11), 1)],
                        "ttl_ms": 60_000});
                    let (s, h) = api.post("/v1/holds", body).await;
                    assert_eq!(s, 201, "{h}");
                    let id = h["id"].as_str().unwrap();
                    let (s, r) = api.post(&format!("/v1/holds/{id}/release"), json!({})).await;
                    assert_eq!(s, 200, "{r}");
                } else {
                    let bay = if (i / 2 + j) % 2 == 0 { "bay-a" } else { "bay-b" };
                    let body = json!({"start": "2031-05-01T10:00:00Z", "end": "2031-05-01T11:00:00Z",
                                      "holder": format!("w{i}-{j}")});
                    let (s, b) = api.post(&format!("/v1/resources/{bay}/bookings"), body).await;
                    assert_eq!(s, 201, "{b}");
                }
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    assert_eq!(held_and_available(&ts.sku("TEE").await), (0, 1_000));
    ts.assert_audit_clean().await;
}

fn by_serials(tee: i64, serials: &[&str]) -> Value {
    json!({"lines": [{"sku": "TEE", "quantity": tee},
                     {"units": {"sku": "SEAT", "quantity": serials.len(), "serials": serials}}],
           "ttl_ms": 60_000})
}

/// A unit line naming its units by serial holds those very units, or refuses the whole hold
/// (`409 insufficient_stock` counting how many of them are free, the stock untouched); its
/// shape is checked first (`400` naming the line). Holds racing for overlapping pairs of
/// seats: each seat in at most one hold, every hold all or nothing.
async fn unit_lines_by_serial_take_those_units_or_none(ts: &TestServer) {
    ts.create_sku("TEE", 100, 1).await;
    receive(ts, "SEAT", 12).await;
    let h = ts.ok("/v1/holds", by_serials(1, &["SEAT-007", "SEAT-003"])).await;
    let taken: Vec<&str> = h["units"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["serial"].as_str().unwrap())
        .collect();
    assert_eq!(taken, ["SEAT-003", "SEAT-007"], "{h}");
    assert_eq!(serials(ts, "SEAT", "held").await, ["SEAT-003", "SEAT-007"]);
    // One of them taken, one unknown: refused whole, nothing else held.
    for named in [&["SEAT-001", "SEAT-003"][..], &["SEAT-001", "NOPE"][..]] {
        let (s, b) = ts.post("/v1/holds", by_serials(2, named)).await;
        assert_eq!(
            (s, b["error"]["code"].as_str(), &b["error"]["line"]),
            (409, Some("insufficient_stock"), &json!(1)),
            "{b}"
        );
        assert_eq!(b["error"]["available"], 1, "{b}");
    }
    assert_eq!(held_and_available(&ts.sku("TEE").await), (1, 99), "nothing more taken");
    assert_eq!(serials(ts, "SEAT", "held").await.len(), 2);
    // Shapes: a count that is not `quantity`, a serial twice, serials with `order_by`.
    for units in [
        json!({"sku": "SEAT", "quantity": 2, "serials": ["SEAT-001"]}),
        json!({"sku": "SEAT", "quantity": 2, "serials": ["SEAT-001", "SEAT-001"]}),
        json!({"sku": "SEAT", "quantity": 1, "serials": ["SEAT-001"], "order_by": ["serial"]}),
    ] {
        let body = json!({"lines": [{"sku": "TEE", "quantity": 1}, {"units": units}], "ttl_ms": 60_000});
        let (s, b) = ts.post("/v1/holds", body).await;
        assert!(
            (s == 400 || s == 422) && b["error"]["message"].as_str().unwrap().contains("lines[1]"),
            "{b}"
        );
    }
    // Released: the same seats again; confirmed: allocated.
    ts.ok(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
        .await;
    let again = ts.ok("/v1/holds", by_serials(1, &["SEAT-003", "SEAT-007"])).await;
    ts.ok(
        &format!("/v1/holds/{}/confirm", again["id"].as_str().unwrap()),
        json!({}),
    )
    .await;
    assert_eq!(serials(ts, "SEAT", "allocated").await, ["SEAT-003", "SEAT-007"]);

    // The race: pairs (i, i+1) of the free seats 008..=011 and 000..=002, many at once.
    let free = [
        "SEAT-000", "SEAT-001", "SEAT-002", "SEAT-008", "SEAT-009", "SEAT-010", "SEAT-011",
    ];
    let mut set = tokio::task::JoinSet::new();
    for i in 0..free.len() - 1 {
        for _ in 0..3 {
            let api = ts.api.clone();
            let pair = [free[i], free[i + 1]];
            set.spawn(async move { (pair, api.post("/v1/holds", by_serials(1, &pair)).await) });
        }
    }
    let mut held: Vec<String> = Vec::new();
    let mut made = 0;
    while let Some(r) = set.join_next().await {
        let (pair, (s, b)) = r.unwrap();
        match s {
            201 => {
                made += 1;
                held.extend(pair.iter().map(|p| p.to_string()));
            }
            409 => assert_eq!(b["error"]["code"], "insufficient_stock", "{b}"),
            _ => panic!("{s}: {b}"),
        }
    }
    held.sort();
    let unique: HashSet<&String> = held.iter().collect();
    assert_eq!(unique.len(), held.len(), "a seat in two holds: {held:?}");
    assert_eq!(serials(ts, "SEAT", "held").await, held, "the held seats are the holds'");
    assert_eq!(
        held_and_available(&ts.sku("TEE").await),
        (made, 99 - made),
        "one tee per hold made"
    );
    ts.assert_audit_clean().await;
}

/// Two holds of a tee, a seat and an hour of the hall (capacity 2) take the last seats and the
/// hall's hour; a storm of such holds then finds them full until the clock passes their expiry
/// in its midst: from that instant every line of both is free at once, so exactly two of the
/// storm are made, with both seats and the hour; the first two read expired with their bookings.
async fn holds_expiring_mid_storm_free_every_line_at_once(ts: &TestServer) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    ts.create_sku("TEE", 10, 1).await;
    receive(ts, "SEAT", 2).await;
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/hall",
            json!({"capacity": 2, "slot_ms": 3_600_000}),
        )
        .await;
    assert!(s == 200 || s == 201, "{b}");
    let body = json!({"lines": [{"sku": "TEE", "quantity": 1}, {"units": {"sku": "SEAT", "quantity": 1}},
                                booking_line("hall", (10, 11), 1)], "ttl_ms": 60_000});
    let first = [
        ts.ok("/v1/holds", body.clone()).await,
        ts.ok("/v1/holds", body.clone()).await,
    ];
    // The storm's holds last 10 minutes: a request that read the clock before the jump below
    // and was made after it (once another finalised the first two) still outlives the jump.
    let mut body = body;
    body["ttl_ms"] = json!(600_000);
    let (refused, made) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (api, body) = (ts.api.clone(), body.clone());
        let (refused, made) = (refused.clone(), made.clone());
        set.spawn(async move {
            for _ in 0..2_000 {
                let (s, b) = api.post("/v1/holds", body.clone()).await;
                match (s, b["error"]["code"].as_str()) {
                    (201, _) => {
                        made.fetch_add(1, Ordering::SeqCst);
                        return Some(b);
                    }
                    (409, Some("insufficient_stock" | "capacity_exceeded" | "contention")) => {
                        refused.fetch_add(1, Ordering::SeqCst);
                    }
                    _ => panic!("{s}: {b}"),
                }
                if made.load(Ordering::SeqCst) == 2 {
                    return None;
                }
                tokio::task::yield_now().await;
            }
            panic!("the storm never ended");
        });
    }
    // The storm is under way (refused while the first two hold everything): now they lapse.
    for _ in 0..5_000 {
        if refused.load(Ordering::SeqCst) >= 8 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    ts.advance_past(&first[1]["expires_at"]);
    let mut storm = Vec::new();
    while let Some(r) = set.join_next().await {
        storm.extend(r.unwrap());
    }
    assert_eq!(storm.len(), 2, "exactly two of the storm made");
    let mut seats: Vec<String> = storm
        .iter()
        .map(|h| h["units"][0]["serial"].as_str().unwrap().to_string())
        .collect();
    seats.sort();
    assert_eq!(seats, ["SEAT-000", "SEAT-001"], "both seats, once each");
    assert_eq!(serials(ts, "SEAT", "held").await, seats);
    assert_eq!(held_and_available(&ts.sku("TEE").await), (2, 8));
    for h in &first {
        let (_, now) = ts.get(&format!("/v1/holds/{}", h["id"].as_str().unwrap())).await;
        assert_eq!(now["status"], "expired", "{now}");
        let (_, b) = ts.get(&format!("/v1/bookings/{}", booking_of(h).0)).await;
        assert_eq!(b["status"], "expired", "{b}");
    }
    for h in &storm {
        assert_eq!(booking_of(h).1, "held", "{h}");
    }
    ts.assert_audit_clean().await;
}

/// A confirm names what it keeps of a hold of every kind: a quantity of a stock SKU (from its
/// pieces), of a unit SKU (its first units by id), bookings by id; everything else is given
/// back in the same transaction (stock to available, units to available, bookings released
/// and no longer the hold's). A part the hold cannot bear changes nothing.
async fn a_mixed_hold_is_confirmed_in_part(ts: &TestServer) {
    ts.create_sku("TEE", 10, 1).await;
    receive(ts, "SEAT", 3).await;
    let body = json!({"lines": [
        {"sku": "TEE", "quantity": 3},
        {"units": {"sku": "SEAT", "quantity": 2, "order_by": ["serial"]}},
        booking_line("bay-1", (18, 19), 1),
        booking_line("bay-2", (20, 21), 1)
    ], "ttl_ms": 60_000});
    let h = ts.ok("/v1/holds", body).await;
    let id = h["id"].as_str().unwrap().to_string();
    let bookings: Vec<String> = h["bookings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(bookings.len(), 2, "{h}");
    let confirm = format!("/v1/holds/{id}/confirm");
    // Refusals change nothing: more units than held, a booking not the hold's, a line of two
    // kinds, a booking named twice.
    let refusals = [
        (
            json!({"lines": [{"sku": "SEAT", "quantity": 3}]}),
            409,
            "insufficient_stock",
        ),
        (
            json!({"lines": [{"sku": "BIKE", "quantity": 1}]}),
            409,
            "insufficient_stock",
        ),
        (json!({"lines": [{"booking": "no-such-booking"}]}), 422, "not_in_hold"),
        (
            json!({"lines": [{"booking": bookings[0], "sku": "TEE", "quantity": 1}]}),
            400,
            "invalid_request",
        ),
        (
            json!({"lines": [{"booking": bookings[0]}, {"booking": bookings[0]}]}),
            400,
            "invalid_request",
        ),
    ];
    for (part, status, code) in refusals {
        let (s, b) = ts.post(&confirm, part.clone()).await;
        assert_eq!((s, b["error"]["code"].as_str()), (status, Some(code)), "{part}: {b}");
    }
    let (_, still) = ts.get(&format!("/v1/holds/{id}")).await;
    assert_eq!(still, h, "a refused part changed nothing");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (3, 7));

    let part = json!({"lines": [{"sku": "TEE", "quantity": 1}, {"sku": "SEAT", "quantity": 1},
                                {"booking": bookings[1]}]});
    let a = ts.ok(&confirm, part.clone()).await;
    let lines: Vec<(&str, i64)> = a["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["sku"].as_str().unwrap(), l["quantity"].as_i64().unwrap()))
        .collect();
    assert_eq!(lines, [("SEAT", 1), ("TEE", 1)], "{a}");
    let tee = ts.sku("TEE").await;
    assert_eq!(
        (tee["on_hand"].as_i64(), held_and_available(&tee)),
        (Some(9), (0, 9)),
        "{tee}"
    );
    assert_eq!(serials(ts, "SEAT", "allocated").await, ["SEAT-000"]);
    assert_eq!(serials(ts, "SEAT", "available").await, ["SEAT-001", "SEAT-002"]);
    let (_, released) = ts.get(&format!("/v1/bookings/{}", bookings[0])).await;
    assert_eq!(released["status"], "released", "{released}");
    assert!(released.get("hold_id").is_none(), "the hold's no more: {released}");
    let (_, kept) = ts.get(&format!("/v1/bookings/{}", bookings[1])).await;
    assert_eq!(
        (&kept["status"], &kept["hold_id"]),
        (&json!("confirmed"), &json!(id)),
        "{kept}"
    );
    let (_, done) = ts.get(&format!("/v1/holds/{id}")).await;
    assert_eq!(done["status"], "confirmed", "{done}");
    assert_eq!(done["units"].as_array().map(Vec::len), Some(1), "{done}");
    let listed: Vec<&str> = done["bookings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, [bookings[1].as_str()], "{done}");
    // The range given back is free again; the confirm again answers the allocation.
    ts.ok("/v1/holds", with_booking(1, booking_line("bay-1", (18, 19), 1)))
        .await;
    let (s, again) = ts.post(&confirm, part).await;
    assert_eq!((s, &again), (200, &a), "{again}");
    ts.assert_audit_clean().await;
}

/// The shapes of [`every_kind_runs_out_in_one_storm`]'s holds: which of TEE (stock), a SEAT
/// (unit), an hour of the hall (a slot) and CAP (plentiful stock) each takes.
const SHAPES: [(bool, bool, bool); 6] = [
    (true, false, true),
    (false, true, true),
    (true, true, false),
    (true, false, false),
    (false, true, false),
    (false, false, true),
];

/// Holds of six shapes over three scarce kinds — 4 TEE, 4 seats, an hour of the hall of
/// capacity 4 — many at once, each shape tried more often than any kind can bear: every kind
/// runs out (a shape of one kind alone is refused only once that kind is gone), no kind is
/// taken beyond what it has, each made hold took exactly its lines, and each refusal names a
/// kind that ran out (refusals are final here: nothing is given back during the storm).
async fn every_kind_runs_out_in_one_storm(ts: &TestServer) {
    const EACH: usize = 4;
    const TRIES: usize = 6;
    ts.create_sku("TEE", EACH as i64, 1).await;
    ts.create_sku("CAP", 1_000, 1).await;
    receive(ts, "SEAT", EACH).await;
    let (s, b) = ts
        .send_json(
            "PUT",
            "/v1/resources/hall",
            json!({"capacity": EACH, "slot_ms": 3_600_000}),
        )
        .await;
    assert!(s == 200 || s == 201, "{b}");
    let mut set = tokio::task::JoinSet::new();
    for (shape, &(tee, seat, hall)) in SHAPES.iter().enumerate() {
        let mut lines = Vec::new();
        if tee {
            lines.push(json!({"sku": "TEE", "quantity": 1}));
        }
        if seat {
            lines.push(json!({"units": {"sku": "SEAT", "quantity": 1}}));
        }
        if hall {
            lines.push(json!({"sku": "CAP", "quantity": 1}));
            lines.push(booking_line("hall", (10, 11), 1));
        }
        for _ in 0..TRIES {
            let (api, body) = (ts.api.clone(), json!({"lines": lines.clone(), "ttl_ms": 60_000}));
            set.spawn(async move {
                for _ in 0..50 {
                    let (s, b) = api.post("/v1/holds", body.clone()).await;
                    if !(s == 409 && b["error"]["code"] == "contention") {
                        return (shape, s, b);
                    }
                }
                panic!("contention past 50 tries");
            });
        }
    }
    let (mut used, mut refused, mut seats) = ([0usize; 3], HashSet::new(), HashSet::new());
    while let Some(r) = set.join_next().await {
        let (shape, s, b) = r.unwrap();
        let (tee, seat, hall) = SHAPES[shape];
        match s {
            201 => {
                for (n, took) in used.iter_mut().zip([tee, seat, hall]) {
                    *n += usize::from(took);
                }
                if seat {
                    assert!(seats.insert(b["units"][0]["serial"].to_string()), "a seat twice: {b}");
                }
                assert_eq!(b["bookings"].as_array().map_or(0, Vec::len), usize::from(hall), "{b}");
            }
            409 => {
                let code = b["error"]["code"].as_str().unwrap();
                let kind = match (code, b["error"]["sku"].as_str()) {
                    ("insufficient_stock", Some("TEE")) => 0,
                    ("insufficient_stock", Some("SEAT")) => 1,
                    ("capacity_exceeded", _) => 2,
                    _ => panic!("refused for another reason: {b}"),
                };
                assert!([tee, seat, hall][kind], "refused for a kind it does not take: {b}");
                refused.insert(kind);
            }
            other => panic!("{other}: {b}"),
        }
    }
    assert_eq!(used, [EACH; 3], "every kind ran out, none beyond");
    assert!(refused.iter().all(|k| used[*k] == EACH), "{refused:?}");
    assert_eq!(held_and_available(&ts.sku("TEE").await), (EACH as i64, 0));
    assert_eq!(serials(ts, "SEAT", "held").await.len(), EACH);
    let cap = ts.sku("CAP").await;
    assert_eq!(held_and_available(&cap), (EACH as i64, 1_000 - EACH as i64), "{cap}");
    let (_, a) = ts
        .get("/v1/resources/hall/availability?from=2031-05-01T10:00:00Z&to=2031-05-01T11:00:00Z")
        .await;
    assert_eq!(
        (&a["slots"][0]["held"], &a["slots"][0]["free"]),
        (&json!(EACH), &json!(0)),
        "{a}"
    );
    ts.assert_audit_clean().await;
}
