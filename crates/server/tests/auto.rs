//! `strategy: "auto"`: a hot SKU moves from `atomic` to `batched` under load and back once it
//! cools (on the server's injected clock), shows it on the SKU and in the metrics, and stays
//! exact while `auto`, `atomic` and `batched` requests hit it at once.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::Kind;
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn alloc(sku: &str, strategy: &str) -> Value {
    json!({"lines": [{"sku": sku, "quantity": 1}], "strategy": strategy})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hot_sku_turns_batched_exactly_and_cools_back() {
    let ts = common::start(Kind::Postgres).await;
    ts.create_sku("HOT", 3000, 1).await;
    // 4000 requests from 200 clients: 3400 `auto`, 300 `atomic`, 300 `batched`.
    let mut set = tokio::task::JoinSet::new();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..200 {
        let (api, next) = (ts.api.clone(), next.clone());
        set.spawn(async move {
            let mut seen = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= 4000 {
                    return seen;
                }
                let strategy = match i % 20 {
                    0 | 1 => "atomic",
                    2 | 3 => "batched",
                    _ => "auto",
                };
                let (s, b) = api.post("/v1/allocations", alloc("HOT", strategy)).await;
                seen.push((strategy, s, b));
            }
        });
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut ran_with: BTreeMap<String, usize> = BTreeMap::new();
    while let Some(r) = set.join_next().await {
        for (asked, s, b) in r.unwrap() {
            let outcome = b["error"]["code"]
                .as_str()
                .map_or(s.to_string(), |c| format!("{s} {c}"));
            *counts.entry(outcome).or_default() += 1;
            if asked == "auto" && s == 201 {
                *ran_with.entry(b["strategy"].as_str().unwrap().to_string()).or_default() += 1;
            }
        }
    }
    assert_eq!(counts.get("201"), Some(&3000), "{counts:?}");
    assert_eq!(counts.get("409 insufficient_stock"), Some(&1000), "{counts:?}");
    assert_eq!(ts.sku("HOT").await["on_hand"], 0);
    ts.assert_audit_clean().await;
    // The first auto requests ran alone (atomic); the crowd ran batched.
    assert!(ran_with.get("atomic").copied().unwrap_or(0) >= 1, "{ran_with:?}");
    assert!(ran_with.get("batched").copied().unwrap_or(0) >= 1000, "{ran_with:?}");
    let sku = ts.sku("HOT").await;
    assert_eq!(sku["auto"]["tier"], "hot", "{sku}");
    assert_eq!(sku["auto"]["strategy"], "batched", "{sku}");
    let metrics = ts.metrics().await;
    assert!(
        metrics.contains("allot_auto_switches_total{to=\"batched\"}"),
        "{metrics}"
    );
    // Quiet for longer than the dwell: the next request finds it cold, and runs atomic.
    ts.clock.advance_ms(5_000);
    ts.ok("/v1/skus/HOT/adjustments", json!({"delta": 5, "reason": "restock"}))
        .await;
    let (s, b) = ts.post("/v1/allocations", alloc("HOT", "auto")).await;
    assert_eq!(s, 201, "{b}");
    assert_eq!(b["strategy"], "atomic", "{b}");
    let sku = ts.sku("HOT").await;
    assert_eq!(sku["auto"]["tier"], "cold", "{sku}");
    let metrics = ts.metrics().await;
    assert!(
        metrics.contains("allot_auto_switches_total{to=\"atomic\"}"),
        "{metrics}"
    );
}

/// On SQLite `auto` is accepted and runs with its one strategy.
#[tokio::test]
async fn auto_runs_serialized_on_sqlite() {
    let ts = common::start(Kind::Sqlite).await;
    ts.create_sku("S", 5, 1).await;
    let (s, b) = ts.post("/v1/allocations", alloc("S", "auto")).await;
    assert_eq!((s, b["strategy"].as_str()), (201, Some("serialized")), "{b}");
    let (s, b) = ts
        .post(
            "/v1/holds",
            json!({"lines": [{"sku": "S", "quantity": 1}], "ttl_ms": 60_000, "strategy": "auto"}),
        )
        .await;
    assert_eq!(s, 201, "{b}");
    assert_eq!(ts.sku("S").await["auto"]["strategy"], "serialized");
    assert_eq!(ts.sku("S").await["available"], 3);
}

/// `--default-strategy auto`: requests that name no strategy let the SKU's contention pick.
#[tokio::test]
async fn auto_as_the_server_default() {
    let ts = common::start_with(Kind::Postgres, |c| c.default_auto = true).await;
    ts.create_sku("D", 5, 1).await;
    let (s, b) = ts
        .post("/v1/allocations", json!({"lines": [{"sku": "D", "quantity": 1}]}))
        .await;
    assert_eq!((s, b["strategy"].as_str()), (201, Some("atomic")), "a quiet SKU: {b}");
    let sku = ts.sku("D").await;
    assert_eq!(
        (sku["auto"]["tier"].as_str(), sku["available"].as_i64()),
        (Some("cold"), Some(4)),
        "{sku}"
    );
    let (s, b) = ts.post("/v1/allocations", alloc("D", "batched")).await;
    assert_eq!(
        (s, b["strategy"].as_str()),
        (201, Some("batched")),
        "a named strategy still wins: {b}"
    );
}
