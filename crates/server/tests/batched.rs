//! The `batched` strategy (PostgreSQL): many requests per transaction, each with its own
//! outcome; two allot instances on one database stay exact.

mod common;

use common::Kind;
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn alloc(lines: &[(&str, i64)]) -> Value {
    let lines: Vec<Value> = lines.iter().map(|(s, q)| json!({"sku": s, "quantity": q})).collect();
    json!({"lines": lines, "strategy": "batched"})
}

/// Fire `bodies` at the servers (round robin), all at once; count answers by status/code.
async fn fire(apis: &[common::Api], bodies: Vec<Value>) -> BTreeMap<String, usize> {
    let mut set = tokio::task::JoinSet::new();
    for (i, body) in bodies.into_iter().enumerate() {
        let api = apis[i % apis.len()].clone();
        set.spawn(async move { api.post("/v1/allocations", body).await });
    }
    let mut counts = BTreeMap::new();
    while let Some(r) = set.join_next().await {
        let (s, b) = r.unwrap();
        let key = if s == 201 {
            "201".to_string()
        } else {
            format!("{s} {}", b["error"]["code"].as_str().unwrap_or("?"))
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

#[tokio::test]
async fn mixed_batches_decide_each_request_on_its_own() {
    let ts = common::start(Kind::Postgres).await;
    ts.create_sku("A", 30, 1).await;
    ts.create_sku("B", 10, 4).await;
    // 40 singles on A, 40 carts A+B (B runs out after 10), 10 on an unknown SKU, in one go.
    let mut bodies = Vec::new();
    for i in 0..40 {
        bodies.push(alloc(&[("A", 1)]));
        bodies.push(alloc(&[("A", 1), ("B", 1)]));
        if i % 4 == 0 {
            bodies.push(alloc(&[("NOPE", 1)]));
        }
    }
    let counts = fire(std::slice::from_ref(&ts.api), bodies).await;
    // A has 30: every success takes one A, so exactly 30 succeed whatever the interleaving;
    // B (10 units over 4 buckets) caps the carts at 10.
    assert_eq!(counts.get("201"), Some(&30), "{counts:?}");
    assert_eq!(counts.get("409 insufficient_stock"), Some(&50), "{counts:?}");
    assert_eq!(counts.get("404 not_found"), Some(&10), "{counts:?}");
    assert_eq!(ts.sku("A").await["on_hand"], 0);
    let b_left = ts.sku("B").await["on_hand"].as_i64().unwrap();
    assert!((0..=10).contains(&b_left));
    let carts = 10 - b_left;
    let a_ledger: i64 = ts.ledger("A").await.iter().map(|e| e["delta"].as_i64().unwrap()).sum();
    assert_eq!(a_ledger, 0, "ledger of A sums to on_hand (30 created, 30 taken)");
    let b_ledger = ts.ledger("B").await;
    assert_eq!(
        b_ledger.len() as i64,
        1 + carts,
        "one ledger entry per cart that took B"
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test]
async fn two_instances_on_one_database_never_oversell() {
    let ts = common::start(Kind::Postgres).await;
    // A second instance on the same schema: its own combiner, the same rows.
    let mut cfg = allot_server::ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: ts.database_url.clone(),
        pool_size: 16,
        hold_sweep_interval_ms: 3_600_000,
        ..allot_server::ServerConfig::default()
    };
    cfg.limits.min_hold_ttl_ms = 50;
    let second = allot_server::spawn(&cfg).await.expect("second instance starts");
    let other = common::Api {
        kind: Kind::Postgres,
        url: second.url(),
        client: reqwest::Client::new(),
    };
    ts.create_sku("HOT", 50, 1).await;
    let bodies = (0..300).map(|_| alloc(&[("HOT", 1)])).collect();
    let counts = fire(&[ts.api.clone(), other.clone()], bodies).await;
    assert_eq!(counts.get("201"), Some(&50), "{counts:?}");
    assert_eq!(counts.get("409 insufficient_stock"), Some(&250), "{counts:?}");
    assert_eq!(ts.sku("HOT").await["on_hand"], 0);
    let (_, via_other) = other.get("/v1/skus/HOT").await;
    assert_eq!(via_other["on_hand"], 0);
    let entries = ts.ledger("HOT").await;
    assert_eq!(entries.iter().filter(|e| e["kind"] == "allocation").count(), 50);
    ts.assert_audit_clean().await;
    second.stop().await.unwrap();
    ts.finish().await;
}

#[tokio::test]
async fn a_full_queue_answers_503_and_changes_nothing() {
    // One request in flight and one waiting per lane; the rest of a burst is refused at once.
    let ts = common::start_with(Kind::Postgres, |c| {
        c.limits.batch_max_queued = 8; // one waiting request per lane
        c.limits.batch_max_requests = 1;
    })
    .await;
    ts.create_sku("Q", 1_000, 1).await;
    // Hold the SKU's row so the lane's first transaction waits for it.
    let (admin, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    admin
        .batch_execute("BEGIN; SELECT 1 FROM stock WHERE sku = 'Q' FOR UPDATE")
        .await
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for _ in 0..20 {
        let (api, tx) = (ts.api.clone(), tx.clone());
        tokio::spawn(async move {
            let _ = tx.send(api.post("/v1/allocations", alloc(&[("Q", 1)])).await);
        });
    }
    // At most two are accepted (one in flight, one waiting): the first 18 answers are
    // refusals, and they come while the row is still locked.
    for _ in 0..18 {
        let (s, b) = rx.recv().await.unwrap();
        assert_eq!((s, b["error"]["code"].as_str()), (503, Some("unavailable")), "{b}");
    }
    admin.batch_execute("COMMIT").await.unwrap();
    let (mut ok, mut refused) = (0, 18);
    for _ in 0..2 {
        match rx.recv().await.unwrap() {
            (201, _) => ok += 1,
            (503, _) => refused += 1,
            other => panic!("{other:?}"),
        }
    }
    assert!(
        (1..=2).contains(&ok) && ok + refused == 20,
        "ok {ok}, refused {refused}"
    );
    assert_eq!(
        ts.sku("Q").await["on_hand"],
        1_000 - ok,
        "refused requests took nothing"
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}
