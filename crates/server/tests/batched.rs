//! The `batched` strategy (PostgreSQL): many requests per transaction, each with its own
//! outcome; two allot instances on one database stay exact.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::Kind;
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn alloc(lines: &[(&str, i64)]) -> Value {
    let lines: Vec<Value> = lines.iter().map(|(s, q)| json!({"sku": s, "quantity": q})).collect();
    json!({"lines": lines, "strategy": "batched"})
}

/// Fire `bodies` at the servers (round robin), all at once; count answers by status/code.
/// The backend that `pid` blocks, polled every 10 ms for up to 5 s through `watcher`; `None`
/// when none waits on it by then.
async fn blocked_by(watcher: &tokio_postgres::Client, pid: i32) -> Option<i32> {
    for _ in 0..500 {
        let rows = watcher
            .query(
                "SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))",
                &[&pid],
            )
            .await
            .unwrap();
        if let Some(r) = rows.first() {
            return Some(r.get::<_, i32>(0));
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    None
}

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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
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
    cfg.clock = ts.api.clock.clone();
    let second = allot_server::spawn(&cfg).await.expect("second instance starts");
    let other = common::Api {
        kind: Kind::Postgres,
        url: second.url(),
        client: reqwest::Client::new(),
        clock: ts.api.clock.clone(),
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

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_full_queue_answers_503_and_changes_nothing() {
    // One request in flight; eight may wait on the instance's lanes, all of them together,
    // and one lane may take half of that: four wait; the rest of a burst is refused at once.
    let ts = common::start_with(Kind::Postgres, |c| {
        c.limits.batch_max_queued = 8;
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
    let admin_pid: i32 = admin.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let send = |tx: tokio::sync::mpsc::UnboundedSender<(u16, Value)>| {
        let api = ts.api.clone();
        tokio::spawn(async move {
            let _ = tx.send(api.post("/v1/allocations", alloc(&[("Q", 1)])).await);
        });
    };
    // The first request is in flight once its transaction waits on our lock.
    send(tx.clone());
    assert!(
        blocked_by(&admin, admin_pid).await.is_some(),
        "the first batch never reached the locked row"
    );
    // Nineteen more at once: exactly four find a place on the one lane (the next batch
    // begins only once the first holds the row), 15 are refused while the row is still locked.
    for _ in 0..19 {
        send(tx.clone());
    }
    for _ in 0..15 {
        let (s, b) = recv_within(&mut rx).await;
        assert_eq!((s, b["error"]["code"].as_str()), (503, Some("unavailable")), "{b}");
    }
    admin.batch_execute("COMMIT").await.unwrap();
    for _ in 0..5 {
        let (s, b) = recv_within(&mut rx).await;
        assert_eq!(s, 201, "the one in flight and the four waiting all succeed: {b}");
    }
    assert_eq!(ts.sku("Q").await["on_hand"], 995, "refused requests took nothing");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// With a backlog, a lane's next batch begins once the one before it has read its stock rows,
/// and a batch that read them without a lock takes them only at the end of its write. Every
/// batch here is full (one request each). The lane is kept busy by a request waiting on the
/// SKU's row (locked by the test) while one `POST /v1/batch` queues A (keyed) then B. Once the
/// row is free, A's batch reads it, and its write waits on an uncommitted row of A's
/// idempotency key (held by the test) without holding the SKU's row; B's batch meanwhile takes
/// the row and commits. Then A commits: both succeed, B's entry first.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_next_batch_of_a_lane_passes_one_that_waits_on_its_key() {
    let ts = common::start_with(Kind::Postgres, |c| c.limits.batch_max_requests = 1).await;
    ts.create_sku("P", 10, 1).await;
    let connect = || async {
        let (client, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let pid: i32 = client.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
        (client, pid)
    };
    let (row_holder, row_pid) = connect().await;
    let (key_holder, key_pid) = connect().await;
    key_holder
        .batch_execute(
            "BEGIN; INSERT INTO idempotency_keys (tenant, key, fingerprint, status, body, created_at)
             VALUES ('default', 'k-first', 'x', 201, ''::bytea, now())",
        )
        .await
        .unwrap();
    row_holder
        .batch_execute("BEGIN; SELECT 1 FROM stock WHERE sku = 'P' FOR UPDATE")
        .await
        .unwrap();
    let api = ts.api.clone();
    let first = tokio::spawn(async move { api.post("/v1/allocations", alloc(&[("P", 1)])).await });
    blocked_by(&row_holder, row_pid)
        .await
        .expect("the first batch waits on the row");
    let op = |key: Option<&str>| {
        let mut op = json!({"op": "allocate", "body": alloc(&[("P", 1)])});
        if let Some(k) = key {
            op["idempotency_key"] = json!(k);
        }
        op
    };
    let api = ts.api.clone();
    let body = json!({"operations": [op(Some("k-first")), op(None)]});
    let pair = tokio::spawn(async move { api.post("/v1/batch", body).await });
    // Let A and B queue behind the waiting batch, then free the row.
    let mut queued = false;
    for _ in 0..500 {
        let m = ts.api.metrics().await;
        if m.lines().any(|l| l == "allot_batch_queued 2") {
            queued = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(queued, "A and B wait on the lane (allot_batch_queued 2)");
    row_holder.batch_execute("COMMIT").await.unwrap();
    let writer = blocked_by(&row_holder, key_pid)
        .await
        .expect("A's write waits on the key's row");
    let mut passed = false;
    for _ in 0..500 {
        if ts.sku("P").await["on_hand"] == 8 {
            passed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(passed, "B's batch takes P and commits while A's waits on its key");
    assert_eq!(blocked_by(&row_holder, key_pid).await, Some(writer), "A still waits");
    key_holder.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(first.await.unwrap().0, 201);
    let (s, b) = pair.await.unwrap();
    assert_eq!(s, 200, "{b}");
    let (a, b2) = (&b["results"][0], &b["results"][1]);
    assert_eq!(
        (a["status"].as_u64(), b2["status"].as_u64()),
        (Some(201), Some(201)),
        "{b}"
    );
    assert_eq!(ts.sku("P").await["on_hand"], 7);
    let refs: Vec<Value> = ts.ledger("P").await.iter().map(|e| e["ref"].clone()).collect();
    let (ra, rb) = (a["body"]["id"].clone(), b2["body"]["id"].clone());
    // Each entry's id is drawn when its write runs, which is not when it commits: both are
    // among the last two, in either order.
    let last: Vec<&Value> = refs[refs.len() - 2..].iter().collect();
    assert!(last.contains(&&ra) && last.contains(&&rb), "{refs:?}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// The next answer, within 10 s (a regression fails instead of hanging).
async fn recv_within(rx: &mut tokio::sync::mpsc::UnboundedReceiver<(u16, Value)>) -> (u16, Value) {
    tokio::time::timeout(std::time::Duration::from_secs(10), rx.recv())
        .await
        .expect("an answer within 10 s")
        .unwrap()
}

fn hold(sku: &str, q: i64) -> Value {
    json!({"lines": [{"sku": sku, "quantity": q}], "ttl_ms": 600_000, "strategy": "batched"})
}

/// `n` batched holds of one unit on `sku`, all at once: the ids of those held (each answered
/// `held` by `batched`) and how many were refused `insufficient_stock` (nothing else allowed).
async fn hold_all(api: &common::Api, sku: &str, n: usize) -> (Vec<String>, usize) {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (api, body) = (api.clone(), hold(sku, 1));
        set.spawn(async move { api.post("/v1/holds", body).await });
    }
    let (mut ids, mut short) = (Vec::new(), 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            (201, b) => {
                assert_eq!(
                    (b["status"].as_str(), b["strategy"].as_str()),
                    (Some("held"), Some("batched"))
                );
                ids.push(b["id"].as_str().unwrap().to_string());
            }
            (409, b) if b["error"]["code"] == "insufficient_stock" => short += 1,
            other => panic!("{other:?}"),
        }
    }
    (ids, short)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn batched_holds_confirms_and_releases_each_finish_once() {
    let ts = common::start(Kind::Postgres).await;
    ts.create_sku("H", 40, 1).await;
    // 60 holds of one unit against 40, all at once: exactly 40 are held.
    let (ids, short) = hold_all(&ts.api, "H", 60).await;
    assert_eq!((ids.len(), short), (40, 20));
    let s = ts.sku("H").await;
    assert_eq!((s["on_hand"].as_i64(), s["held"].as_i64()), (Some(40), Some(40)));
    // Every hold gets two confirms and two releases at once, racing in the same batches:
    // each hold finishes exactly once, and every answer agrees with how it finished.
    let mut set = tokio::task::JoinSet::new();
    for id in &ids {
        for action in ["confirm", "release", "confirm", "release"] {
            let (api, id) = (ts.api.clone(), id.clone());
            set.spawn(async move {
                let (s, b) = api.post(&format!("/v1/holds/{id}/{action}"), json!({})).await;
                (id, action, s, b)
            });
        }
    }
    let mut by_hold: BTreeMap<String, Vec<(&str, u16, String)>> = BTreeMap::new();
    while let Some(r) = set.join_next().await {
        let (id, action, s, b) = r.unwrap();
        let what = if s == 200 {
            b["status"].as_str().unwrap_or("?").to_string()
        } else {
            b["error"]["code"].as_str().unwrap_or("?").to_string()
        };
        by_hold.entry(id).or_default().push((action, s, what));
    }
    let mut confirmed = 0;
    for id in &ids {
        let answers = &by_hold[id];
        let (_, final_state) = ts.api.get(&format!("/v1/holds/{id}")).await;
        match final_state["status"].as_str() {
            Some("confirmed") => {
                confirmed += 1;
                for (action, s, what) in answers {
                    let want = if *action == "confirm" {
                        (200, "allocated")
                    } else {
                        (409, "hold_confirmed")
                    };
                    assert_eq!((*s, what.as_str()), want, "{id}: {answers:?}");
                }
            }
            Some("released") => {
                for (action, s, what) in answers {
                    let want = if *action == "confirm" {
                        (409, "hold_released")
                    } else {
                        (200, "released")
                    };
                    assert_eq!((*s, what.as_str()), want, "{id}: {answers:?}");
                }
            }
            other => panic!("{id} ended {other:?}: {answers:?}"),
        }
    }
    let s = ts.sku("H").await;
    assert_eq!(
        (s["on_hand"].as_i64(), s["held"].as_i64()),
        (Some(40 - confirmed), Some(0))
    );
    let entries = ts.ledger("H").await;
    assert_eq!(
        entries.iter().filter(|e| e["kind"] == "hold_confirmed").count() as i64,
        confirmed
    );
    assert_eq!(
        entries.iter().filter(|e| e["kind"] == "hold_released").count() as i64,
        40 - confirmed
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn batched_holds_on_a_segmented_sku_take_the_per_request_path() {
    let ts = common::start(Kind::Postgres).await;
    ts.create_sku("SEG", 8, 4).await;
    let (ids, short) = hold_all(&ts.api, "SEG", 12).await;
    assert_eq!((ids.len(), short), (8, 4));
    // The per-request path took each hold from a bucket that had stock and recorded it; a
    // batch would have recorded bucket 0 for all of them (it decides single-bucket SKUs only).
    let (db, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let per_bucket: Vec<(i32, i64)> = db
        .query(
            "SELECT bucket, sum(quantity)::int8 FROM hold_lines WHERE sku = 'SEG' GROUP BY bucket ORDER BY bucket",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(per_bucket, vec![(0, 2), (1, 2), (2, 2), (3, 2)]);
    for (n, id) in ids.iter().enumerate() {
        let action = if n % 2 == 0 { "confirm" } else { "release" };
        let (s, b) = ts.api.post(&format!("/v1/holds/{id}/{action}"), json!({})).await;
        assert_eq!(s, 200, "{b}");
    }
    let s = ts.sku("SEG").await;
    assert_eq!((s["on_hand"].as_i64(), s["held"].as_i64()), (Some(4), Some(0)));
    ts.assert_audit_clean().await;
    ts.finish().await;
}
