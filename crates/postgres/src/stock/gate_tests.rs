//! The writers' gate (`engine/sku_gate.rs`) in front of a real row lock.

use allot_core::store::StockStore;
use allot_core::{validate, Limits, Strategy, Tenant};
use serde_json::json;
use std::time::Duration;

/// Wait (bounded) until `check` holds, polling every 10 ms.
async fn until(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The gate in front of a real row lock: with the stock row locked by another session, 20
/// `atomic` allocations of it put exactly `sku_writers` (2) backends on the lock, the other
/// 18 wait at the gate with no connection; once the row is free, every one of them succeeds
/// and on hand is exactly what they took.
#[tokio::test]
async fn writers_beyond_the_gate_wait_without_a_connection() {
    let schema = crate::engine::test_schema::TestSchema::new("t_sku_gate").await;
    // The gate's wait is the pool's: long, so a loaded machine cannot time the 18 out.
    let store = schema.store_with(|cfg| cfg.pool_wait_ms = 120_000).await;
    let limits = Limits::default();
    assert_eq!(limits.sku_writers, 2);
    let t = Tenant::stored("t");
    let body = json!({"sku": "HOT", "on_hand": 100});
    let sku = validate::create_sku(serde_json::from_value(body).unwrap(), &limits).unwrap();
    store.create_sku(&t, sku, None).await.unwrap();
    // The first allocation looks up the tenant's ledger sequence, so none of the 20 does.
    let allocation = |i: usize| {
        let body = json!({"lines": [{"sku": "HOT", "quantity": 1}]});
        validate::allocation(
            format!("a{i}"),
            serde_json::from_value(body).unwrap(),
            Strategy::Atomic,
            &limits,
        )
        .unwrap()
    };
    store.allocate(&t, allocation(0), None).await.unwrap();
    let locker = schema.session().await;
    locker
        .batch_execute("BEGIN; SELECT 1 FROM stock WHERE tenant = 't' AND sku = 'HOT' FOR UPDATE")
        .await
        .unwrap();
    let writers: Vec<_> = (1..=20)
        .map(|i| {
            let (store, t, req) = (store.clone(), t.clone(), allocation(i));
            tokio::spawn(async move { store.allocate(&t, req, None).await })
        })
        .collect();
    until("18 writers at the gate", async || store.sku_gate.waiting() == 18).await;
    let locker_pid: i32 = locker.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
    // The sessions waiting on the locker, directly or behind another waiter.
    let behind = "WITH RECURSIVE w(pid) AS (SELECT $1::int4 UNION
                      SELECT a.pid FROM pg_stat_activity a, w WHERE w.pid = ANY(pg_blocking_pids(a.pid)))
                  SELECT count(*) - 1 FROM w";
    until("2 writers on the row lock", async || {
        schema
            .admin
            .query_one(behind, &[&locker_pid])
            .await
            .unwrap()
            .get::<_, i64>(0)
            == 2
    })
    .await;
    assert_eq!(store.sku_gate.waiting(), 18);
    // The lookup's connection and the two writers': the 18 hold none.
    assert!(store.pool().status().size <= 3, "{:?}", store.pool().status());
    locker.batch_execute("COMMIT").await.unwrap();
    for w in writers {
        w.await.unwrap().unwrap();
    }
    assert_eq!(store.sku_gate.waiting(), 0);
    assert_eq!(store.get_sku(&t, "HOT").await.unwrap().on_hand, 79);
    drop(store);
    schema.drop().await;
}
