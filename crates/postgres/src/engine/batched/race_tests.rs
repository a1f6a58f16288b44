//! An optimistic batch ([`super::txn::Read::Optimistic`]) against a writer of its stock row
//! that commits between the batch's read and its write, on a real PostgreSQL: the batch's
//! relative change lands on top of the writer's, and where the two no longer fit the stock,
//! the stock table's CHECK refuses it and the batch runs again locking, exact.

use crate::engine::store::PgStore;
use allot_core::store::{Maintenance, StockStore};
use allot_core::{validate, AllotError, Limits, Strategy, Tenant};
use serde_json::json;
use std::time::Duration;

/// SKU `S` with `on_hand`, then a session that takes 5 of it (an adjustment, with its ledger
/// entry) and keeps the row locked while a `batched` allocation of `quantity` reads the stock
/// and blocks writing it; then that session commits. The allocation's result, and the SKU's
/// on hand and allocation rows after.
async fn allocate_behind_a_writer(on_hand: i64, quantity: i64) -> (Result<(), AllotError>, i64, i64) {
    let schema = crate::engine::test_schema::TestSchema::new("t_batch_race").await;
    let store = schema.store().await;
    let (limits, t) = (Limits::default(), Tenant::stored("t"));
    let sku = validate::create_sku(
        serde_json::from_value(json!({"sku": "S", "on_hand": on_hand})).unwrap(),
        &limits,
    );
    store.create_sku(&t, sku.unwrap(), None).await.unwrap();
    let (writer, writer_pid) = schema
        .writer_holding(
            "BEGIN;
             UPDATE stock SET on_hand = on_hand - 5 WHERE tenant = 't' AND sku = 'S';
             INSERT INTO ledger (tenant, sku, delta, held_delta, kind, location, at)
                  VALUES ('t', 'S', -5, 0, 'adjustment', 'default', now());",
        )
        .await;
    let allocating = tokio::spawn(allocate(store.clone(), quantity));
    let waiting = schema.wait_blocked_by(writer_pid).await;
    // The batch read without a lock and waits in its write (which begins with its allocation
    // rows: `pg_stat_activity` keeps only the first 1 kB), not in a `SELECT … FOR UPDATE`.
    assert!(
        waiting.contains("INSERT INTO allocations") && !waiting.contains("FOR UPDATE"),
        "{waiting}"
    );
    writer.batch_execute("COMMIT").await.unwrap();
    let result = tokio::time::timeout(Duration::from_secs(30), allocating)
        .await
        .expect("the allocation ends once the writer commits")
        .unwrap();
    let c = schema.session().await;
    let row = c
        .query_one(
            "SELECT (SELECT on_hand FROM stock WHERE tenant = 't' AND sku = 'S'),
                    (SELECT count(*) FROM allocations WHERE tenant = 't')",
            &[],
        )
        .await
        .unwrap();
    let audit = store.audit(Some(&t)).await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    let found = (result, row.get(0), row.get(1));
    drop((c, writer, store));
    schema.drop().await;
    found
}

/// One `batched` allocation `a1` of `quantity` of `S`.
async fn allocate(store: PgStore, quantity: i64) -> Result<(), AllotError> {
    let limits = Limits::default();
    let body = json!({"lines": [{"sku": "S", "quantity": quantity}]});
    let req = validate::allocation(
        "a1".into(),
        serde_json::from_value(body).unwrap(),
        Strategy::Batched,
        &limits,
    )?;
    store.allocate(&Tenant::stored("t"), req, None).await.map(drop)
}

/// 20 on hand, 5 taken by the writer while the batch of 10 waits: the batch's change applies
/// on top of the writer's (5 left, one allocation), not over it.
#[tokio::test]
async fn an_optimistic_batch_lands_on_top_of_a_writer() {
    let (result, on_hand, allocations) = allocate_behind_a_writer(20, 10).await;
    result.unwrap();
    assert_eq!((on_hand, allocations), (5, 1));
}

/// 10 on hand, 5 taken by the writer while the batch of 10 waits: the CHECK refuses the
/// batch's write, it runs again locking and answers what the stock holds (5 available),
/// with nothing of its first run left (no allocation row, 5 on hand).
#[tokio::test]
async fn an_optimistic_batch_that_no_longer_fits_runs_again_locking() {
    let (result, on_hand, allocations) = allocate_behind_a_writer(10, 10).await;
    match result {
        Err(AllotError::InsufficientStock {
            requested, available, ..
        }) => assert_eq!((requested, available), (10, 5)),
        other => panic!("expected insufficient stock, got {other:?}"),
    }
    assert_eq!((on_hand, allocations), (5, 0));
}
