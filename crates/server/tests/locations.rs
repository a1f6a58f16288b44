//! Stock at locations on both backends, with every safe strategy: per-location levels,
//! placement (priority, most available, a ranked list, a pinned line) and splits, holds and
//! cancels that go back where they came from, transfers, compare-and-set of a level, exact
//! counts per location and in total under concurrency, and bad inputs that change nothing.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::{alloc_body, Kind, TestServer};
use serde_json::{json, Value};
use std::collections::BTreeMap;

conformance!(
    levels_and_placement,
    every_strategy_places_and_splits,
    holds_and_cancels_go_back_where_they_came_from,
    transfers_and_compare_and_set,
    buyers_race_across_locations,
    transfers_race_allocations,
    partial_confirms,
    partial_confirms_race_expiry,
    an_adjustment_takes_what_an_expired_hold_set_aside,
    a_cart_takes_what_expired_holds_set_aside_on_each_sku,
    a_placement_is_not_steered_by_an_expired_hold,
    returns_and_what_is_left,
    returns_and_cancels_race_allocations,
    bad_inputs_change_nothing
);

/// `location -> (on_hand, held, available)` of a SKU.
async fn levels(ts: &TestServer, sku: &str) -> BTreeMap<String, (i64, i64, i64)> {
    let s = ts.sku(sku).await;
    let levels = s["levels"].as_array().unwrap_or_else(|| panic!("no levels: {s}"));
    let map: BTreeMap<String, (i64, i64, i64)> = levels
        .iter()
        .map(|l| {
            let n = |k: &str| l[k].as_i64().unwrap();
            (
                l["location"].as_str().unwrap().to_string(),
                (n("on_hand"), n("held"), n("available")),
            )
        })
        .collect();
    let total = |i: usize| map.values().map(|v| [v.0, v.1, v.2][i]).sum::<i64>();
    assert_eq!(
        (total(0), total(1), total(2)),
        (
            s["on_hand"].as_i64().unwrap(),
            s["held"].as_i64().unwrap(),
            s["available"].as_i64().unwrap()
        ),
        "the totals are the levels' sums: {s}"
    );
    map
}

/// `location -> available` of a SKU.
async fn available(ts: &TestServer, sku: &str) -> BTreeMap<String, i64> {
    levels(ts, sku).await.into_iter().map(|(l, v)| (l, v.2)).collect()
}

fn at(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(l, n)| (l.to_string(), *n)).collect()
}

/// A line's `from` as `(location, quantity)` pairs.
fn from(line: &Value) -> Vec<(String, i64)> {
    line["from"]
        .as_array()
        .unwrap_or_else(|| panic!("no from: {line}"))
        .iter()
        .map(|f| {
            (
                f["location"].as_str().unwrap().to_string(),
                f["quantity"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn pairs(v: &[(&str, i64)]) -> Vec<(String, i64)> {
    v.iter().map(|(l, n)| (l.to_string(), *n)).collect()
}

/// Locations E (priority 2) and W (priority 1); SKU `sku` with `e` at E and `w` at W.
async fn two_locations(ts: &TestServer, sku: &str, e: i64, w: i64) {
    for (l, p) in [("E", 2), ("W", 1)] {
        let (s, b) = ts.post("/v1/locations", json!({"location": l, "priority": p})).await;
        assert!(
            s == 201 || (s == 409 && b["error"]["code"] == "already_exists"),
            "{s} {b}"
        );
    }
    let (s, b) = ts
        .post("/v1/skus", json!({"sku": sku, "on_hand": e, "location": "E"}))
        .await;
    assert_eq!(s, 201, "{b}");
    if w > 0 {
        ts.ok(
            &format!("/v1/skus/{sku}/adjustments"),
            json!({"delta": w, "location": "W"}),
        )
        .await;
    }
}

async fn levels_and_placement(ts: &TestServer) {
    two_locations(ts, "S", 5, 3).await;
    let (s, list) = ts.get("/v1/locations").await;
    let names: Vec<&str> = list["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["location"].as_str().unwrap())
        .collect();
    assert_eq!((s, names), (200, vec!["E", "W", "default"]), "{list}");
    assert_eq!(available(ts, "S").await, at(&[("E", 5), ("W", 3)]));
    // Priority: W (1) before E (2).
    let a = ts
        .ok("/v1/allocations", json!({"lines": [{"sku": "S", "quantity": 2}]}))
        .await;
    assert_eq!(from(&a["lines"][0]), pairs(&[("W", 2)]), "{a}");
    // Most available: E.
    let a = ts
        .ok(
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 2}], "placement": "most_available"}),
        )
        .await;
    assert_eq!(from(&a["lines"][0]), pairs(&[("E", 2)]));
    // A pinned line is only taken there: W has 1.
    let (s, b) = ts
        .post(
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 2, "location": "W"}]}),
        )
        .await;
    assert_eq!(
        (s, &b["error"]["code"], &b["error"]["available"]),
        (409, &json!("insufficient_stock"), &json!(1)),
        "{b}"
    );
    // Without a split a line comes from one location: 4 fits nowhere (E 3, W 1).
    let (s, _) = ts
        .post("/v1/allocations", json!({"lines": [{"sku": "S", "quantity": 4}]}))
        .await;
    assert_eq!(s, 409);
    let a = ts
        .ok(
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 4}], "placement": ["W", "E"], "allow_split": true}),
        )
        .await;
    assert_eq!(from(&a["lines"][0]), pairs(&[("W", 1), ("E", 3)]), "{a}");
    let read = ts
        .get(&format!("/v1/allocations/{}", a["id"].as_str().unwrap()))
        .await
        .1;
    assert_eq!(
        read["lines"], a["lines"],
        "the stored allocation says where it came from"
    );
    assert_eq!(available(ts, "S").await, at(&[("E", 0), ("W", 0)]));
    // The ledger names the location of every entry.
    let ledger = ts.ledger("S").await;
    let split: Vec<(&Value, &Value)> = ledger
        .iter()
        .filter(|e| e["ref"] == a["id"])
        .map(|e| (&e["location"], &e["delta"]))
        .collect();
    assert_eq!(split, vec![(&json!("W"), &json!(-1)), (&json!("E"), &json!(-3))]);
    assert!(ledger.iter().all(|e| e["location"].is_string()), "{ledger:?}");
    ts.assert_audit_clean().await;
}

async fn every_strategy_places_and_splits(ts: &TestServer) {
    two_locations(ts, "seed", 0, 0).await;
    for strategy in ts.safe_strategies() {
        let sku = format!("P-{strategy}");
        let (s, b) = ts
            .post("/v1/skus", json!({"sku": sku, "on_hand": 2, "location": "E"}))
            .await;
        assert_eq!(s, 201, "{b}");
        ts.ok(
            &format!("/v1/skus/{sku}/adjustments"),
            json!({"delta": 2, "location": "W"}),
        )
        .await;
        let body = |q: i64, split: bool| json!({"lines": [{"sku": sku, "quantity": q}], "strategy": strategy, "allow_split": split});
        let a = ts.ok("/v1/allocations", body(3, true)).await;
        assert_eq!(from(&a["lines"][0]), pairs(&[("W", 2), ("E", 1)]), "{strategy}: {a}");
        let (s, b) = ts.post("/v1/allocations", body(2, true)).await;
        assert_eq!(
            (s, &b["error"]["code"]),
            (409, &json!("insufficient_stock")),
            "{strategy}: {b}"
        );
        let h = ts
            .ok(
                "/v1/holds",
                json!({"lines": [{"sku": sku, "quantity": 1}], "ttl_ms": 60_000, "strategy": strategy}),
            )
            .await;
        assert_eq!(from(&h["lines"][0]), pairs(&[("E", 1)]), "{strategy}: {h}");
        assert_eq!(levels(ts, &sku).await["E"], (1, 1, 0), "{strategy}");
    }
    ts.assert_audit_clean().await;
}

async fn holds_and_cancels_go_back_where_they_came_from(ts: &TestServer) {
    two_locations(ts, "H", 4, 2).await;
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "H", "quantity": 5}], "ttl_ms": 60_000, "allow_split": true}),
        )
        .await;
    assert_eq!(from(&h["lines"][0]), pairs(&[("W", 2), ("E", 3)]));
    assert_eq!(
        levels(ts, "H").await,
        [("E".into(), (4, 3, 1)), ("W".into(), (2, 2, 0))].into()
    );
    let hid = h["id"].as_str().unwrap();
    let alloc = ts.ok(&format!("/v1/holds/{hid}/confirm"), json!({})).await;
    assert_eq!(from(&alloc["lines"][0]), pairs(&[("W", 2), ("E", 3)]));
    assert_eq!(
        levels(ts, "H").await,
        [("E".into(), (1, 0, 1)), ("W".into(), (0, 0, 0))].into()
    );
    ts.ok(&format!("/v1/allocations/{hid}/cancel"), json!({})).await;
    assert_eq!(
        available(ts, "H").await,
        at(&[("E", 4), ("W", 2)]),
        "back where it came from"
    );
    // A released hold gives back to its locations too.
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "H", "quantity": 3, "location": "E"}], "ttl_ms": 60_000}),
        )
        .await;
    assert_eq!(available(ts, "H").await, at(&[("E", 1), ("W", 2)]));
    ts.ok(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(available(ts, "H").await, at(&[("E", 4), ("W", 2)]));
    ts.assert_audit_clean().await;
}

async fn transfers_and_compare_and_set(ts: &TestServer) {
    two_locations(ts, "T", 5, 0).await;
    let t = ts
        .ok(
            "/v1/transfers",
            json!({"sku": "T", "from": "E", "to": "W", "quantity": 2}),
        )
        .await;
    assert_eq!(
        (&t["from"], &t["to"], &t["quantity"]),
        (&json!("E"), &json!("W"), &json!(2)),
        "{t}"
    );
    assert_eq!(available(ts, "T").await, at(&[("E", 3), ("W", 2)]));
    let entries: Vec<(Value, Value)> = ts
        .ledger("T")
        .await
        .into_iter()
        .filter(|e| e["ref"] == t["id"])
        .map(|e| (e["location"].clone(), e["delta"].clone()))
        .collect();
    assert_eq!(entries, vec![(json!("E"), json!(-2)), (json!("W"), json!(2))]);
    let (s, b) = ts
        .post(
            "/v1/transfers",
            json!({"sku": "T", "from": "E", "to": "W", "quantity": 4}),
        )
        .await;
    assert_eq!((s, &b["error"]["code"]), (409, &json!("insufficient_stock")), "{b}");
    // Compare-and-set: a stale count is refused with the current one.
    let (s, b) = ts
        .post(
            "/v1/skus/T/levels/W",
            json!({"on_hand": 10, "compare_on_hand": 5, "reason": "cycle_count"}),
        )
        .await;
    assert_eq!(
        (s, &b["error"]["code"], &b["error"]["current_on_hand"]),
        (409, &json!("compare_failed"), &json!(2)),
        "{b}"
    );
    let sku = ts
        .ok(
            "/v1/skus/T/levels/W",
            json!({"on_hand": 10, "compare_on_hand": 2, "reference": "erp://count/9"}),
        )
        .await;
    assert_eq!(sku["on_hand"], 13, "{sku}");
    let last = ts.ledger("T").await.last().cloned().unwrap();
    assert_eq!(
        (
            &last["kind"],
            &last["delta"],
            &last["location"],
            &last["reason"],
            &last["reference"]
        ),
        (
            &json!("adjustment"),
            &json!(8),
            &json!("W"),
            &json!("cycle_count"),
            &json!("erp://count/9")
        )
    );
    // A location where the SKU has nothing reads as 0; below what is held is refused.
    ts.ok("/v1/locations", json!({"location": "N"})).await;
    ts.ok("/v1/skus/T/levels/N", json!({"on_hand": 1, "compare_on_hand": 0}))
        .await;
    ts.ok(
        "/v1/holds",
        json!({"lines": [{"sku": "T", "quantity": 1, "location": "N"}], "ttl_ms": 60_000}),
    )
    .await;
    let (s, b) = ts
        .post("/v1/skus/T/levels/N", json!({"on_hand": 0, "compare_on_hand": 1}))
        .await;
    assert_eq!((s, &b["error"]["code"]), (409, &json!("insufficient_stock")), "{b}");
    assert_eq!(levels(ts, "T").await["N"], (1, 1, 0));
    ts.assert_audit_clean().await;
}

/// With every safe strategy: 60 buyers of one or two units, with alternating placements and
/// splits, race for 3 locations of 10: nothing is made or lost (sold + left = 30), the stock
/// runs out (at most one unit left, short of a two-unit line), every refusal is
/// `insufficient_stock`, and the `from` of the successes add up, location by location, to
/// exactly what left it.
async fn buyers_race_across_locations(ts: &TestServer) {
    two_locations(ts, "seed", 0, 0).await;
    ts.ok("/v1/locations", json!({"location": "N", "priority": 3})).await;
    for strategy in ts.safe_strategies() {
        buyers_race(ts, &format!("R-{strategy}"), strategy).await;
    }
    ts.assert_audit_clean().await;
}

async fn buyers_race(ts: &TestServer, sku: &str, strategy: &str) {
    ts.ok("/v1/skus", json!({"sku": sku, "on_hand": 10, "location": "E"}))
        .await;
    for l in ["W", "N"] {
        ts.ok(
            &format!("/v1/skus/{sku}/adjustments"),
            json!({"delta": 10, "location": l}),
        )
        .await;
    }
    let placements = [json!("priority"), json!("most_available"), json!(["N", "E", "W"])];
    let mut tasks = Vec::new();
    for i in 0..60 {
        let api = (**ts).clone();
        // Two units for a third of them, so that splits touch several rows at once.
        let q = 1 + i64::from(i % 3 == 2);
        let body = json!({"lines": [{"sku": sku, "quantity": q}], "placement": placements[i % 3],
                          "allow_split": i % 2 == 0, "strategy": strategy});
        tasks.push(tokio::spawn(async move { api.post("/v1/allocations", body).await }));
    }
    let mut got: BTreeMap<String, i64> = BTreeMap::new();
    for t in tasks {
        let (s, b) = t.await.unwrap();
        match (s, b["error"]["code"].as_str()) {
            (201, _) => {
                for (l, q) in from(&b["lines"][0]) {
                    *got.entry(l).or_default() += q;
                }
            }
            (409, Some("insufficient_stock")) => {}
            _ => panic!("{strategy}: {s} {b}"),
        }
    }
    let left = available(ts, sku).await;
    let sold: i64 = got.values().sum();
    assert_eq!(
        sold + left.values().sum::<i64>(),
        30,
        "{strategy}: nothing made or lost"
    );
    assert!(
        left.values().sum::<i64>() <= 1,
        "{strategy}: 80 units asked of 30: {left:?}"
    );
    for (l, n) in &left {
        assert_eq!(got.get(l).copied().unwrap_or(0) + n, 10, "{strategy} at {l}");
    }
}

/// Transfers back and forth between two locations race 40 buyers of 20 units: the buyers
/// get exactly 20, the transfers never make or lose a unit, and the audit's per-location
/// conservation holds.
async fn transfers_race_allocations(ts: &TestServer) {
    two_locations(ts, "X", 10, 10).await;
    let mut tasks = Vec::new();
    for i in 0..40 {
        let api = (**ts).clone();
        tasks.push(tokio::spawn(async move {
            let (s, b) = api
                .post(
                    "/v1/allocations",
                    json!({"lines": [{"sku": "X", "quantity": 1}], "allow_split": i % 2 == 0}),
                )
                .await;
            assert!(s == 201 || s == 409, "{s} {b}");
            i64::from(s == 201)
        }));
        let api = (**ts).clone();
        let (a, b) = if i % 2 == 0 { ("E", "W") } else { ("W", "E") };
        tasks.push(tokio::spawn(async move {
            let (s, body) = api
                .post("/v1/transfers", json!({"sku": "X", "from": a, "to": b, "quantity": 1}))
                .await;
            assert!(s == 201 || s == 409, "{s} {body}");
            0
        }));
    }
    let mut bought = 0;
    for t in tasks {
        bought += t.await.unwrap();
    }
    assert_eq!(bought, 20);
    let s = ts.sku("X").await;
    assert_eq!((&s["on_hand"], &s["available"]), (&json!(0), &json!(0)), "{s}");
    ts.assert_audit_clean().await;
}

/// Confirm part of a hold split over two locations: the kept part is allocated (from where
/// it was held, first pieces first), the rest is released, each with its ledger entries.
async fn partial_confirms(ts: &TestServer) {
    two_locations(ts, "PC", 4, 2).await;
    ts.create_sku("PD", 5, 1).await;
    let lines = json!([{"sku": "PC", "quantity": 5}, {"sku": "PD", "quantity": 2}]);
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": lines, "ttl_ms": 60_000, "allow_split": true}),
        )
        .await;
    let path = format!("/v1/holds/{}/confirm", h["id"].as_str().unwrap());
    for (bad, code) in [
        (json!({"lines": [{"sku": "PC", "quantity": 6}]}), 409),
        (
            json!({"lines": [{"sku": "PC", "quantity": 3}, {"sku": "PC", "quantity": 3}]}),
            422,
        ),
        (json!({"lines": [{"sku": "NOPE", "quantity": 1}]}), 409),
        (json!({"lines": []}), 400),
        (json!({"lines": [{"sku": "PC", "quantity": 1, "location": "E"}]}), 400),
    ] {
        let (s, b) = ts.post(&path, bad).await;
        assert_eq!(s, code, "{b}");
    }
    assert_eq!(
        levels(ts, "PC").await["E"],
        (4, 3, 1),
        "refused confirms changed nothing"
    );
    let a = ts.ok(&path, json!({"lines": [{"sku": "PC", "quantity": 3}]})).await;
    assert_eq!(a["lines"].as_array().unwrap().len(), 1, "PD was released: {a}");
    assert_eq!(a["lines"][0]["quantity"], 3);
    let kept: i64 = from(&a["lines"][0]).iter().map(|f| f.1).sum();
    assert_eq!(kept, 3);
    let s = ts.sku("PC").await;
    assert_eq!(
        (&s["on_hand"], &s["held"], &s["available"]),
        (&json!(3), &json!(0), &json!(3)),
        "{s}"
    );
    assert_eq!(ts.sku("PD").await["available"], 5);
    let again = ts.ok(&path, json!({})).await;
    assert_eq!(
        again["lines"], a["lines"],
        "confirming again answers the same allocation"
    );
    ts.ok(
        &format!("/v1/allocations/{}/cancel", a["id"].as_str().unwrap()),
        json!({}),
    )
    .await;
    assert_eq!(available(ts, "PC").await, at(&[("E", 4), ("W", 2)]));
    ts.assert_audit_clean().await;
}

/// A hold that has expired (no sweeper has run) sets nothing aside for an adjustment either:
/// it finalises the hold first, as an allocation does (`allot sim` found an
/// adjustment refused `insufficient_stock` while the SKU read the quantity available).
async fn an_adjustment_takes_what_an_expired_hold_set_aside(ts: &TestServer) {
    ts.create_sku("EX", 3, 1).await;
    let h = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "EX", "quantity": 3}], "ttl_ms": 60_000}),
        )
        .await;
    let (s, b) = ts.post("/v1/skus/EX/adjustments", json!({"delta": -1})).await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (409, Some("insufficient_stock")),
        "{b}"
    );
    ts.advance_past(&h["expires_at"]);
    assert_eq!(ts.sku("EX").await["available"], 3);
    let (s, b) = ts.post("/v1/skus/EX/adjustments", json!({"delta": -2})).await;
    assert_eq!(
        (s, b["on_hand"].as_i64(), b["held"].as_i64()),
        (200, Some(1), Some(0)),
        "{b}"
    );
    let (s, b) = ts.get(&format!("/v1/holds/{}", h["id"].as_str().unwrap())).await;
    assert_eq!((s, b["status"].as_str()), (200, Some("expired")), "{b}");
    ts.assert_audit_clean().await;
}

/// A hold that has expired (no sweeper has run) does not steer where a line goes: with 3 at
/// `W` (placed first) and 3 at `E`, `W`'s 3 held by a hold that expired, a line of 3 by
/// priority comes from `W`; then, with 3 at each again and 1 of `W`'s held by a hold that
/// expired, a line of 2 by most available comes from `W` too (the tie falls to priority).
/// `allot sim` found `most_available` going to another location, by a `held` that still had
/// the expired hold in it.
async fn a_placement_is_not_steered_by_an_expired_hold(ts: &TestServer) {
    two_locations(ts, "steer-seed", 0, 0).await;
    for strategy in ts.safe_strategies() {
        let sku = format!("ST-{strategy}");
        ts.ok("/v1/skus", json!({"sku": sku, "on_hand": 3, "location": "E"}))
            .await;
        ts.ok(
            &format!("/v1/skus/{sku}/adjustments"),
            json!({"delta": 3, "location": "W"}),
        )
        .await;
        let hold =
            json!({"lines": [{"sku": sku, "quantity": 3, "location": "W"}], "ttl_ms": 1_000, "strategy": strategy});
        let h = ts.ok("/v1/holds", hold).await;
        ts.advance_past(&h["expires_at"]);
        let body = |q: i64, placement: &str| json!({"lines": [{"sku": sku, "quantity": q}], "strategy": strategy, "placement": placement});
        let a = ts.ok("/v1/allocations", body(3, "priority")).await;
        assert_eq!(from(&a["lines"][0]), pairs(&[("W", 3)]), "{strategy}: {a}");
        ts.ok(
            &format!("/v1/skus/{sku}/adjustments"),
            json!({"delta": 3, "location": "W"}),
        )
        .await;
        let h = ts
            .ok(
                "/v1/holds",
                json!({"lines": [{"sku": sku, "quantity": 1, "location": "W"}], "ttl_ms": 1_000, "strategy": strategy}),
            )
            .await;
        ts.advance_past(&h["expires_at"]);
        let a = ts.ok("/v1/allocations", body(2, "most_available")).await;
        assert_eq!(from(&a["lines"][0]), pairs(&[("W", 2)]), "{strategy}: {a}");
        assert_eq!(available(ts, &sku).await, at(&[("E", 3), ("W", 1)]), "{strategy}");
    }
    ts.assert_audit_clean().await;
}

/// A cart of three SKUs, each set aside whole by a hold that has expired (no sweeper has
/// run): every SKU's overdue hold is finalised and the cart is served (PostgreSQL once gave
/// each request two passes in all, not two per SKU: `allot sim`, seed 211).
async fn a_cart_takes_what_expired_holds_set_aside_on_each_sku(ts: &TestServer) {
    let strategies: &[&str] = match ts.kind {
        Kind::Postgres => &["batched", "atomic", "pessimistic"],
        Kind::Sqlite => &["serialized"],
    };
    for strategy in strategies {
        let skus = ["1", "2", "3"].map(|n| format!("X{n}-{strategy}"));
        let mut last = Value::Null;
        for sku in &skus {
            ts.create_sku(sku, 2, 1).await;
            let hold = json!({"lines": [{"sku": sku, "quantity": 2}], "ttl_ms": 60_000, "strategy": strategy});
            last = ts.ok("/v1/holds", hold).await;
        }
        ts.advance_past(&last["expires_at"]);
        let lines: Vec<(&str, i64)> = skus.iter().map(|s| (s.as_str(), 2)).collect();
        let (s, b) = ts.post("/v1/allocations", alloc_body(&lines, strategy)).await;
        assert_eq!(s, 201, "{strategy}: {b}");
        for sku in &skus {
            assert_eq!(ts.sku(sku).await["on_hand"], 0, "{strategy}");
        }
    }
    ts.assert_audit_clean().await;
}

/// 20 holds of 2 units each are confirmed for 1 unit while the clock jumps past their
/// expiry: each hold has exactly one outcome (confirmed with 1 allocated and 1 released, or
/// expired with both back), and the stock adds up.
async fn partial_confirms_race_expiry(ts: &TestServer) {
    ts.create_sku("PX", 40, 1).await;
    let mut holds = Vec::new();
    for _ in 0..20 {
        let h = ts
            .ok(
                "/v1/holds",
                json!({"lines": [{"sku": "PX", "quantity": 2}], "ttl_ms": 60_000}),
            )
            .await;
        holds.push(h);
    }
    let mut tasks = Vec::new();
    for (i, h) in holds.iter().enumerate() {
        if i == 10 {
            ts.advance_past(&h["expires_at"]);
        }
        let api = (**ts).clone();
        let path = format!("/v1/holds/{}/confirm", h["id"].as_str().unwrap());
        tasks.push(tokio::spawn(async move {
            api.post(&path, json!({"lines": [{"sku": "PX", "quantity": 1}]})).await
        }));
    }
    let mut confirmed = 0;
    for t in tasks {
        let (s, b) = t.await.unwrap();
        match s {
            200 => {
                assert_eq!(b["lines"][0]["quantity"], 1, "{b}");
                confirmed += 1;
            }
            409 => assert_eq!(b["error"]["code"], "hold_expired", "{b}"),
            _ => panic!("{s} {b}"),
        }
    }
    let s = ts.wait_for_sku("PX", |v| v["held"] == 0).await;
    assert_eq!(
        (&s["on_hand"], &s["available"]),
        (&json!(40 - confirmed), &json!(40 - confirmed)),
        "{s}"
    );
    let mut statuses: BTreeMap<String, i64> = BTreeMap::new();
    for h in &holds {
        let (_, now) = ts.get(&format!("/v1/holds/{}", h["id"].as_str().unwrap())).await;
        *statuses.entry(now["status"].as_str().unwrap().to_string()).or_default() += 1;
    }
    // Exactly the holds answered `200` read confirmed; every other one expired.
    let want: BTreeMap<String, i64> = [("confirmed", confirmed), ("expired", 20 - confirmed)]
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| (s.to_string(), n))
        .collect();
    assert_eq!(statuses, want);
    ts.assert_audit_clean().await;
}

/// Returns: sellable ones back where asked (or where the line came from), damaged ones only
/// recorded; never more back than is left; a later cancel gives back only what is left.
async fn returns_and_what_is_left(ts: &TestServer) {
    two_locations(ts, "RT", 4, 2).await;
    ts.create_sku("OTHER", 1, 1).await;
    let a = ts
        .ok(
            "/v1/allocations",
            json!({"lines": [{"sku": "RT", "quantity": 5}], "allow_split": true}),
        )
        .await;
    let id = a["id"].as_str().unwrap();
    let path = format!("/v1/allocations/{id}/returns");
    let (s, b) = ts
        .post(
            &path,
            json!({"lines": [{"sku": "RT", "quantity": 3}, {"sku": "RT", "quantity": 3, "state": "damaged"}]}),
        )
        .await;
    assert_eq!(
        (s, &b["error"]["code"]),
        (409, &json!("exceeds_allocation")),
        "the lines add up: {b}"
    );
    let r = ts.ok(&path, json!({"lines": [{"sku": "RT", "quantity": 1}]})).await;
    assert_eq!(
        (&r["allocation_id"], &r["lines"][0]["location"], &r["lines"][0]["state"]),
        (&json!(id), &json!("W"), &json!("sellable")),
        "{r}"
    );
    ts.ok(
        &path,
        json!({"lines": [{"sku": "RT", "quantity": 1, "location": "E", "state": "damaged"}]}),
    )
    .await;
    assert_eq!(
        available(ts, "RT").await,
        at(&[("E", 1), ("W", 1)]),
        "the damaged unit is not on hand"
    );
    let read = ts.get(&format!("/v1/allocations/{id}")).await.1;
    assert_eq!(read["lines"][0]["returned"], 2, "{read}");
    let before = ts.sku("RT").await;
    for (body, status, code) in [
        (
            json!({"lines": [{"sku": "RT", "quantity": 4}]}),
            409,
            "exceeds_allocation",
        ),
        (
            json!({"lines": [{"sku": "OTHER", "quantity": 1}]}),
            409,
            "exceeds_allocation",
        ),
        (
            json!({"lines": [{"sku": "RT", "quantity": 1, "location": "nowhere"}]}),
            404,
            "not_found",
        ),
        (
            json!({"lines": [{"sku": "RT", "quantity": 1, "state": "lost"}]}),
            400,
            "invalid_request",
        ),
        (json!({"lines": []}), 400, "invalid_request"),
    ] {
        let (s, b) = ts.post(&path, body).await;
        assert_eq!((s, b["error"]["code"].as_str()), (status, Some(code)), "{b}");
    }
    assert_eq!(ts.sku("RT").await, before, "refused returns changed nothing");
    assert_eq!(ts.get(&format!("/v1/allocations/{id}")).await.1, read);
    ts.ok(&format!("/v1/allocations/{id}/cancel"), json!({})).await;
    assert_eq!(
        available(ts, "RT").await,
        at(&[("E", 2), ("W", 3)]),
        "what was left went back"
    );
    let (s, b) = ts.post(&path, json!({"lines": [{"sku": "RT", "quantity": 1}]})).await;
    assert_eq!(
        (s, &b["error"]["available"]),
        (409, &json!(0)),
        "nothing is left of a cancelled allocation: {b}"
    );
    let returned: Vec<(Value, Value)> = ts
        .ledger("RT")
        .await
        .into_iter()
        .filter(|e| e["kind"] == "returned")
        .map(|e| (e["location"].clone(), e["delta"].clone()))
        .collect();
    assert_eq!(returned, vec![(json!("W"), json!(1))]);
    ts.assert_audit_clean().await;
}

/// Five allocations of 2 units of a sold-out SKU each get three returns of one unit and a
/// cancel, all at once, while ten buyers try to take one unit each: no allocation gives back
/// more than it took (at most 2 returned, the cancel gives the rest), and what the buyers got
/// plus what is left is exactly the 10 given back.
async fn returns_and_cancels_race_allocations(ts: &TestServer) {
    ts.create_sku("RR", 10, 1).await;
    let mut ids = Vec::new();
    for _ in 0..5 {
        let a = ts
            .ok("/v1/allocations", json!({"lines": [{"sku": "RR", "quantity": 2}]}))
            .await;
        ids.push(a["id"].as_str().unwrap().to_string());
    }
    let mut tasks = Vec::new();
    for id in &ids {
        for n in 0..4 {
            let (api, id) = ((**ts).clone(), id.clone());
            tasks.push(tokio::spawn(async move {
                let (path, body) = match n {
                    3 => (format!("/v1/allocations/{id}/cancel"), json!({})),
                    _ => (
                        format!("/v1/allocations/{id}/returns"),
                        json!({"lines": [{"sku": "RR", "quantity": 1}]}),
                    ),
                };
                let (s, b) = api.post(&path, body).await;
                assert!(
                    s == 200 || s == 201 || (s == 409 && b["error"]["code"] == "exceeds_allocation"),
                    "{s} {b}"
                );
                (id, n < 3 && s == 201)
            }));
        }
    }
    let mut buyers = Vec::new();
    for _ in 0..10 {
        let api = (**ts).clone();
        buyers.push(tokio::spawn(async move {
            let (s, b) = api
                .post("/v1/allocations", json!({"lines": [{"sku": "RR", "quantity": 1}]}))
                .await;
            assert!(
                s == 201 || (s == 409 && b["error"]["code"] == "insufficient_stock"),
                "{s} {b}"
            );
            i64::from(s == 201)
        }));
    }
    let mut returned: BTreeMap<String, i64> = BTreeMap::new();
    for t in tasks {
        let (id, ok) = t.await.unwrap();
        *returned.entry(id).or_default() += i64::from(ok);
    }
    assert!(returned.values().all(|n| *n <= 2), "{returned:?}");
    let mut bought = 0;
    for b in buyers {
        bought += b.await.unwrap();
    }
    let left = ts.sku("RR").await["available"].as_i64().unwrap();
    assert_eq!(bought + left, 10, "bought {bought}, left {left}");
    for id in &ids {
        let a = ts.get(&format!("/v1/allocations/{id}")).await.1;
        assert_eq!(a["status"], "cancelled", "{a}");
    }
    ts.assert_audit_clean().await;
}

async fn bad_inputs_change_nothing(ts: &TestServer) {
    two_locations(ts, "B", 3, 0).await;
    let before = ts.sku("B").await;
    let cases = [
        ("/v1/locations", json!({"location": "E"}), 409),
        ("/v1/locations", json!({"location": "default"}), 409),
        ("/v1/locations", json!({"location": "a b"}), 400),
        ("/v1/locations", json!({"location": "Q", "priority": 2_000_000}), 400),
        (
            "/v1/skus",
            json!({"sku": "C", "on_hand": 1, "location": "nowhere"}),
            404,
        ),
        (
            "/v1/skus/B/adjustments",
            json!({"delta": 1, "location": "nowhere"}),
            404,
        ),
        ("/v1/skus/B/adjustments", json!({"delta": -1, "location": "W"}), 409),
        (
            "/v1/transfers",
            json!({"sku": "B", "from": "E", "to": "E", "quantity": 1}),
            422,
        ),
        (
            "/v1/transfers",
            json!({"sku": "B", "from": "E", "to": "nowhere", "quantity": 1}),
            404,
        ),
        (
            "/v1/transfers",
            json!({"sku": "B", "from": "E", "to": "W", "quantity": 0}),
            400,
        ),
        (
            "/v1/transfers",
            json!({"sku": "nope", "from": "E", "to": "W", "quantity": 1}),
            404,
        ),
        (
            "/v1/skus/B/levels/nowhere",
            json!({"on_hand": 1, "compare_on_hand": 0}),
            404,
        ),
        ("/v1/skus/B/levels/E", json!({"on_hand": -1, "compare_on_hand": 3}), 400),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "B", "quantity": 1}], "placement": []}),
            400,
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "B", "quantity": 1}], "placement": "nearest"}),
            400,
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "B", "quantity": 1}], "placement": ["W", "W"]}),
            400,
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "B", "quantity": 1}], "placement": ["W"]}),
            409,
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "B", "quantity": 1, "location": "W"}]}),
            409,
        ),
        (
            "/v1/allocations",
            json!({"lines": [{"sku": "B", "quantity": 1, "from": [{"location": "E", "quantity": 1}]}]}),
            400,
        ),
    ];
    for (path, body, want) in cases {
        let (s, b) = ts.post(path, body.clone()).await;
        assert_eq!(s, want, "{path} {body}: {b}");
        assert!(b["error"]["code"].is_string(), "{b}");
    }
    assert_eq!(ts.sku("B").await, before, "nothing changed");
    let (_, list) = ts.get("/v1/locations").await;
    assert_eq!(list["locations"].as_array().unwrap().len(), 3, "{list}");
    ts.assert_audit_clean().await;
}
