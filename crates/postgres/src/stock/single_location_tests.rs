//! The `single_location` flag (migration V29): a SKU's rows say it while the SKU is stocked
//! at one location, and stop saying it, every one, when rows at a second location are made;
//! `atomic`'s single statement takes only from a row that says it.

use super::mark_tests::allocation;
use crate::engine::conn::Db;
use crate::engine::store::PgStore;
use crate::engine::test_schema::TestSchema;
use allot_core::store::{Executed, LocationStore, StockStore};
use allot_core::{validate, Limits, Tenant};
use serde_json::json;

/// A schema of its own (`name`) and its store, with SKU `S` of tenant `t` created from
/// `sku` (a SKU body's other fields).
async fn with_sku(name: &str, sku: serde_json::Value) -> (TestSchema, PgStore) {
    let schema = TestSchema::new(name).await;
    let store = schema.store_with(|cfg| cfg.pool_size = 2).await;
    let mut body = json!({"sku": "S"});
    body.as_object_mut().unwrap().extend(sku.as_object().unwrap().clone());
    let sku = validate::create_sku(serde_json::from_value(body).unwrap(), &Limits::default());
    store
        .create_sku(&Tenant::stored("t"), sku.unwrap(), None)
        .await
        .unwrap();
    (schema, store)
}

/// The flags of SKU `S`'s rows of tenant `t`, in bucket order.
async fn flags(store: &PgStore) -> Vec<bool> {
    let c = store.client().await.unwrap();
    let rows = c
        .query(
            "SELECT single_location FROM stock WHERE tenant = 't' AND sku = 'S' ORDER BY bucket",
            &[],
        )
        .await
        .unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

/// What the single statement does with allocation `id`: the location it took from, or
/// `None` when it left the SKU to the general path.
async fn fast(store: &PgStore, id: &str, limits: &Limits) -> Option<String> {
    let req = allocation(id, limits);
    match store.try_fast_allocate("t", &req, chrono::Utc::now()).await {
        Ok(taken) => taken,
        Err(crate::engine::tx::TxErr::Fail(e)) => panic!("allocation {id} failed: {e}"),
        Err(_) => panic!("allocation {id} failed"),
    }
}

/// A SKU made at one location says so on every row and is taken from by the single
/// statement; rows at a second location (a transfer makes them) clear every row, and the
/// SKU goes to the general path.
#[tokio::test]
async fn a_second_location_sends_the_sku_to_the_general_path() {
    let (schema, store) = with_sku("t_single_location", json!({"on_hand": 100, "buckets": 2})).await;
    let (limits, t) = (Limits::default(), Tenant::stored("t"));
    assert_eq!(flags(&store).await, [true, true], "created at one location");
    assert_eq!(fast(&store, "a1", &limits).await.as_deref(), Some("default"));

    let loc = validate::location(serde_json::from_value(json!({"location": "north"})).unwrap(), &limits);
    store.create_location(&t, loc.unwrap(), 10).await.unwrap();
    let move_two = json!({"sku": "S", "from": "default", "to": "north", "quantity": 2});
    let transfer = validate::transfer("t1".into(), serde_json::from_value(move_two).unwrap(), &limits);
    store.transfer(&t, transfer.unwrap(), None).await.unwrap();
    assert_eq!(flags(&store).await, [false; 4], "rows at two locations");
    assert_eq!(fast(&store, "a2", &limits).await, None, "left to the general path");
    let done = store.allocate(&t, allocation("a3", &limits), None).await.unwrap();
    let Executed::Fresh(done) = done else {
        panic!("not keyed, so not replayed")
    };
    assert_eq!(done.lines[0].quantity, 1, "the general path allocates");
    schema.drop().await;
}

/// A one-row SKU whose row does not say `single_location` (as a row inserted by a writer
/// that does not know the flag would) is not sold out: the single statement leaves it to
/// the general path, which allocates.
#[tokio::test]
async fn a_row_that_does_not_say_it_goes_to_the_general_path_not_to_a_refusal() {
    let (schema, store) = with_sku("t_single_location_unsaid", json!({"on_hand": 10})).await;
    let (limits, t) = (Limits::default(), Tenant::stored("t"));
    let c = store.client().await.unwrap();
    c.execute("UPDATE stock SET single_location = false WHERE tenant = 't'", &[])
        .await
        .unwrap();
    drop(c);
    assert_eq!(fast(&store, "a1", &limits).await, None, "left to the general path");
    let done = store.allocate(&t, allocation("a2", &limits), None).await.unwrap();
    let Executed::Fresh(done) = done else {
        panic!("not keyed, so not replayed")
    };
    assert_eq!(done.lines[0].quantity, 1);
    schema.drop().await;
}

/// Rows at a second location inserted by a writer that does not clear the flag (an
/// instance older than V29) still clear it: the trigger `stock_shared` does.
#[tokio::test]
async fn the_trigger_clears_the_flag_behind_a_writer_that_does_not() {
    let (schema, store) = with_sku("t_single_location_trigger", json!({"on_hand": 10, "buckets": 2})).await;
    let limits = Limits::default();
    let c = store.client().await.unwrap();
    let one_location = "INSERT INTO stock (tenant, sku, bucket, on_hand, location) VALUES ('t', 'S', 2, 0, 'default')";
    c.execute(one_location, &[]).await.unwrap();
    assert_eq!(flags(&store).await, [true, true, false], "still one location");
    let second = "INSERT INTO stock (tenant, sku, bucket, on_hand, location) VALUES ('t', 'S', 3, 0, 'north')";
    c.execute(second, &[]).await.unwrap();
    drop(c);
    assert_eq!(flags(&store).await, [false; 4], "a second location");
    assert_eq!(fast(&store, "a1", &limits).await, None);
    schema.drop().await;
}

/// The single statement's own refusals: a sold-out one-row SKU whose row says
/// `single_location` is `insufficient_stock` right there; one whose row the statement could
/// not take though the fresh level has enough (here, the one row is not the statement's
/// bucket) goes to the general path instead.
#[tokio::test]
async fn a_refusal_stands_only_when_the_fresh_level_is_short() {
    let (schema, store) = with_sku("t_single_location_refusal", json!({"on_hand": 0})).await;
    let limits = Limits::default();
    let req = allocation("sold-out", &limits);
    let refused = store.try_fast_allocate("t", &req, chrono::Utc::now()).await;
    let short = matches!(
        refused,
        Err(crate::engine::tx::TxErr::Fail(
            allot_core::AllotError::InsufficientStock { available: 0, .. }
        ))
    );
    assert!(short, "a sold-out one-row SKU is refused by the statement");
    let c = store.client().await.unwrap();
    c.execute(
        "UPDATE stock SET bucket = 1, on_hand = 5 WHERE tenant = 't' AND sku = 'S'",
        &[],
    )
    .await
    .unwrap();
    drop(c);
    assert_eq!(
        fast(&store, "a1", &limits).await,
        None,
        "enough on hand: the general path decides"
    );
    schema.drop().await;
}
