//! The `*_in` functions on a caller's transaction that writes its own table, against the
//! test PostgreSQL in a schema of its own: an allocation, a hold, its confirm and its
//! release commit with the caller's rows and vanish with its rollback; a refused request
//! leaves the caller's transaction usable and changes nothing; idempotency keys replay
//! inside and outside the transaction; strategies that decide elsewhere are refused.

use crate::engine::test_schema::TestSchema;
use allot_core::hold::{Confirm, HoldStatus, Release};
use allot_core::store::{Executed, HoldStore, Idempotency, StockStore, StoredResponse};
use allot_core::{validate, Allocation, AllocationRequest, Capable, HoldRequest, Limits, Strategy, Tenant};
use serde_json::json;

fn allocation(id: &str, quantity: i64, strategy: Strategy) -> AllocationRequest {
    let body = json!({"lines": [{"sku": "TEE", "quantity": quantity}]});
    validate::allocation(
        id.into(),
        serde_json::from_value(body).unwrap(),
        strategy,
        &Limits::default(),
    )
    .unwrap()
}

fn hold(id: &str, quantity: i64) -> HoldRequest {
    let body = json!({"lines": [{"sku": "TEE", "quantity": quantity}], "ttl_ms": 60_000});
    validate::hold(
        id.into(),
        serde_json::from_value(body).unwrap(),
        Strategy::Atomic,
        &Limits::default(),
    )
    .unwrap()
}

fn keyed(key: &str) -> Option<Idempotency<Allocation>> {
    Some(Idempotency {
        key: key.into(),
        fingerprint: "POST /v1/allocations".into(),
        render: Box::new(|a: &Allocation| StoredResponse {
            code: 201,
            body: serde_json::to_vec(a).unwrap(),
        }),
    })
}

/// A store on `schema` with the SKU `TEE`, 10 on hand.
async fn with_tee(schema: &TestSchema) -> crate::engine::store::PgStore {
    let store = schema.store().await;
    let body = json!({"sku": "TEE", "on_hand": 10});
    let sku = validate::create_sku(serde_json::from_value(body).unwrap(), &Limits::default()).unwrap();
    store.create_sku(&Tenant::default_tenant(), sku, None).await.unwrap();
    store
}

async fn orders(c: &tokio_postgres::Client) -> i64 {
    c.query_one("SELECT count(*) FROM orders", &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn writes_commit_and_roll_back_with_the_callers_rows() {
    let schema = TestSchema::new("t_stock_in").await;
    let (store, t) = (with_tee(&schema).await, Tenant::default_tenant());
    let mut c = schema.session().await;
    c.batch_execute("CREATE TABLE orders (id text PRIMARY KEY)")
        .await
        .unwrap();
    let on_hand = async || store.get_sku(&t, "TEE").await.unwrap().on_hand;

    // Rolled back: neither the order nor the allocation.
    let mut tx = c.transaction().await.unwrap();
    tx.execute("INSERT INTO orders VALUES ('o1')", &[]).await.unwrap();
    let a = store
        .allocate_in(&mut tx, &t, allocation("a1", 4, Strategy::Atomic), None)
        .await;
    assert!(matches!(a, Ok(Executed::Fresh(_))), "{a:?}");
    assert_eq!(on_hand().await, 10, "nothing is seen before the commit");
    tx.rollback().await.unwrap();
    assert_eq!((on_hand().await, orders(&c).await), (10, 0));
    assert_eq!(store.get_allocation(&t, "a1").await.unwrap_err().code(), "not_found");

    // Committed: both; a refusal in between leaves the transaction usable.
    let mut tx = c.transaction().await.unwrap();
    let a = store
        .allocate_in(&mut tx, &t, allocation("a2", 4, Strategy::Pessimistic), None)
        .await;
    assert!(a.is_ok(), "{a:?}");
    let short = store
        .allocate_in(&mut tx, &t, allocation("a3", 100, Strategy::Atomic), None)
        .await;
    assert_eq!(short.unwrap_err().code(), "insufficient_stock");
    let batched = store
        .allocate_in(&mut tx, &t, allocation("a4", 1, Strategy::Batched), None)
        .await;
    assert_eq!(batched.unwrap_err().code(), "invalid_request");
    tx.execute("INSERT INTO orders VALUES ('o2')", &[]).await.unwrap();
    tx.commit().await.unwrap();
    assert_eq!((on_hand().await, orders(&c).await), (6, 1));
    assert_eq!(store.get_allocation(&t, "a2").await.unwrap().lines[0].quantity, 4);

    // A hold and its confirm in one transaction with the order.
    let mut tx = c.transaction().await.unwrap();
    store.hold_in(&mut tx, &t, hold("h1", 2), None).await.unwrap();
    tx.execute("INSERT INTO orders VALUES ('o3')", &[]).await.unwrap();
    let confirmed = store
        .confirm_in(&mut tx, &t, Confirm::new("h1", None, None), None)
        .await;
    assert!(
        matches!(confirmed, Ok(Executed::Fresh(ref a)) if a.id == "h1"),
        "{confirmed:?}"
    );
    tx.commit().await.unwrap();
    assert_eq!(store.get_hold(&t, "h1").await.unwrap().status, HoldStatus::Confirmed);
    assert_eq!((on_hand().await, orders(&c).await), (4, 2));

    // A release rolled back leaves the hold held; committed, released.
    store.create_hold(&t, hold("h2", 1), None).await.unwrap();
    for commit in [false, true] {
        let mut tx = c.transaction().await.unwrap();
        let released = store.release_in(&mut tx, &t, Release::new("h2", None), None).await;
        assert!(released.is_ok(), "{released:?}");
        if commit {
            tx.commit().await.unwrap();
        } else {
            tx.rollback().await.unwrap();
        }
        let expect = if commit { HoldStatus::Released } else { HoldStatus::Held };
        assert_eq!(store.get_hold(&t, "h2").await.unwrap().status, expect);
    }
    let sku = store.get_sku(&t, "TEE").await.unwrap();
    assert_eq!((sku.on_hand, sku.held), (4, 0));
    schema.drop().await;
}

#[tokio::test]
async fn idempotency_keys_replay_inside_and_outside_the_transaction() {
    let schema = TestSchema::new("t_keys_in").await;
    let (store, t) = (with_tee(&schema).await, Tenant::default_tenant());
    let mut c = schema.session().await;
    let mut tx = c.transaction().await.unwrap();
    let first = store
        .allocate_in(&mut tx, &t, allocation("k1", 3, Strategy::Atomic), keyed("key-1"))
        .await;
    assert!(matches!(first, Ok(Executed::Fresh(_))), "{first:?}");
    let again = store
        .allocate_in(&mut tx, &t, allocation("k2", 3, Strategy::Atomic), keyed("key-1"))
        .await;
    assert!(matches!(again, Ok(Executed::Replayed(_))), "{again:?}");
    tx.commit().await.unwrap();
    let outside = store
        .allocate(&t, allocation("k3", 3, Strategy::Atomic), keyed("key-1"))
        .await;
    assert!(matches!(outside, Ok(Executed::Replayed(_))), "{outside:?}");
    assert_eq!(store.get_sku(&t, "TEE").await.unwrap().on_hand, 7, "taken once");
    schema.drop().await;
}

fn booking(id: &str, resource: &str, hours: (u32, u32), quantity: u32) -> allot_core::BookingRequest {
    let body = json!({
        "start": format!("2030-03-01T{:02}:00:00Z", hours.0),
        "end": format!("2030-03-01T{:02}:00:00Z", hours.1),
        "holder": "h", "quantity": quantity,
    });
    let strategy = allot_core::BookingStrategy::Exclusion;
    validate::booking(
        id.into(),
        resource,
        serde_json::from_value(body).unwrap(),
        strategy,
        &Limits::default(),
    )
    .unwrap()
}

/// Bookings on a plain resource and on one put with a capacity, in the caller's transaction:
/// rolled back, none; committed, all; a refusal names the booking in the way (or the
/// capacity) and leaves the transaction usable.
#[tokio::test]
async fn bookings_commit_and_roll_back_with_the_callers_rows() {
    use allot_core::store::BookingStore;
    let schema = TestSchema::new("t_book_in").await;
    let (store, t) = (schema.store().await, Tenant::default_tenant());
    let body = serde_json::from_value(json!({"capacity": 2, "slot_ms": 3_600_000})).unwrap();
    let hall = allot_core::booking::capacity::resource("hall", body, store.now(), &Limits::default()).unwrap();
    store.put_resource(&t, hall).await.unwrap();
    let mut c = schema.session().await;
    c.batch_execute("CREATE TABLE orders (id text PRIMARY KEY)")
        .await
        .unwrap();

    let mut tx = c.transaction().await.unwrap();
    store
        .book_in(&mut tx, &t, booking("b1", "room", (9, 11), 1), None)
        .await
        .unwrap();
    tx.rollback().await.unwrap();
    assert_eq!(store.get_booking(&t, "b1").await.unwrap_err().code(), "not_found");

    let mut tx = c.transaction().await.unwrap();
    tx.execute("INSERT INTO orders VALUES ('o1')", &[]).await.unwrap();
    store
        .book_in(&mut tx, &t, booking("b2", "room", (9, 11), 1), None)
        .await
        .unwrap();
    let overlap = store
        .book_in(&mut tx, &t, booking("b3", "room", (10, 12), 1), None)
        .await;
    match overlap {
        Err(allot_core::AllotError::BookingOverlap { conflicting_booking_id }) => {
            assert_eq!(conflicting_booking_id.as_deref(), Some("b2"))
        }
        other => panic!("{other:?}"),
    }
    store
        .book_in(&mut tx, &t, booking("b4", "hall", (9, 11), 2), None)
        .await
        .unwrap();
    let full = store
        .book_in(&mut tx, &t, booking("b5", "hall", (10, 12), 1), None)
        .await;
    assert_eq!(full.unwrap_err().code(), "capacity_exceeded");
    let batched = booking("b6", "room", (13, 14), 1);
    let batched = allot_core::BookingRequest {
        strategy: allot_core::BookingStrategy::Batched,
        ..batched
    };
    assert_eq!(
        store.book_in(&mut tx, &t, batched, None).await.unwrap_err().code(),
        "invalid_request"
    );
    tx.commit().await.unwrap();
    // A snapshot older than the resource's lock could miss a booking: refused.
    let mut tx = c
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await
        .unwrap();
    let refused = store
        .book_in(&mut tx, &t, booking("b7", "hall", (13, 14), 1), None)
        .await
        .unwrap_err();
    assert!(
        refused.code() == "invalid_request" && refused.to_string().contains("READ COMMITTED"),
        "{refused}"
    );
    tx.rollback().await.unwrap();
    assert_eq!(orders(&c).await, 1);
    for id in ["b2", "b4"] {
        assert!(store.get_booking(&t, id).await.is_ok(), "{id}");
    }
    schema.drop().await;
}

/// A refused write leaves no savepoint of its own behind in the caller's transaction (each
/// attempt would otherwise nest another subtransaction): releasing `allot_in` after refusals
/// finds none (3B001 invalid_savepoint_specification).
#[tokio::test]
async fn refusals_leave_no_savepoint_behind() {
    let schema = TestSchema::new("t_sp_in").await;
    let (store, t) = (with_tee(&schema).await, Tenant::default_tenant());
    let mut c = schema.session().await;
    let mut tx = c.transaction().await.unwrap();
    for i in 0..3 {
        let short = store
            .allocate_in(&mut tx, &t, allocation(&format!("s{i}"), 100, Strategy::Atomic), None)
            .await;
        assert_eq!(short.unwrap_err().code(), "insufficient_stock");
    }
    store
        .allocate_in(&mut tx, &t, allocation("ok", 1, Strategy::Atomic), None)
        .await
        .unwrap();
    let none = tx.batch_execute("RELEASE SAVEPOINT allot_in").await.unwrap_err();
    assert_eq!(none.code().map(|c| c.code()), Some("3B001"), "{none}");
    tx.rollback().await.unwrap();
    schema.drop().await;
}
