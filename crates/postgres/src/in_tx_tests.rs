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
    hold_of(
        id,
        json!({"lines": [{"sku": "TEE", "quantity": quantity}], "ttl_ms": 60_000}),
    )
}

/// The `atomic` hold request `id` of `body`.
fn hold_of(id: &str, body: serde_json::Value) -> HoldRequest {
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

/// A `REPEATABLE READ` transaction on `c` (a booking is refused in it).
async fn repeatable_read(c: &mut tokio_postgres::Client) -> tokio_postgres::Transaction<'_> {
    c.build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await
        .unwrap()
}

/// The refusal of a booking in a transaction that is not `READ COMMITTED`.
fn refused_outside_read_committed(refused: &allot_core::AllotError) {
    assert!(
        refused.code() == "invalid_request" && refused.to_string().contains("READ COMMITTED"),
        "{refused}"
    );
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
    let mut tx = repeatable_read(&mut c).await;
    let refused = store
        .book_in(&mut tx, &t, booking("b7", "hall", (13, 14), 1), None)
        .await
        .unwrap_err();
    refused_outside_read_committed(&refused);
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

/// A hold of 2 `TEE`, 2 `SEAT` units and the bay from 18:00 to 20:00.
fn mixed(id: &str) -> HoldRequest {
    let body = json!({"lines": [{"sku": "TEE", "quantity": 2}, {"units": {"sku": "SEAT", "quantity": 2}},
        {"booking": {"resource": "bay", "start": "2030-03-01T18:00:00Z", "end": "2030-03-01T20:00:00Z"}}],
        "ttl_ms": 60_000});
    hold_of(id, body)
}

/// A store on `schema` with `TEE` (10 on hand) and the `SEAT` units `A1`..`A3`.
async fn with_tee_and_seats(schema: &TestSchema) -> crate::engine::store::PgStore {
    use allot_core::store::UnitStore;
    let store = with_tee(schema).await;
    let units = json!({"units": [{"serial": "A1"}, {"serial": "A2"}, {"serial": "A3"}]});
    let units = allot_core::unit::validate::add_units(
        "SEAT",
        serde_json::from_value(units).unwrap(),
        store.now(),
        &Limits::default(),
    );
    store
        .add_units(&Tenant::default_tenant(), units.unwrap(), None)
        .await
        .unwrap();
    store
}

/// `TEE`'s on hand * 100 + held, and the units allocated and held.
async fn books(store: &crate::engine::store::PgStore, c: &tokio_postgres::Client) -> (i64, i64, i64) {
    let sku = store.get_sku(&Tenant::default_tenant(), "TEE").await.unwrap();
    let units =
        "SELECT count(*) FILTER (WHERE status = 'allocated'), count(*) FILTER (WHERE status = 'held') FROM units";
    let r = c.query_one(units, &[]).await.unwrap();
    (sku.on_hand * 100 + sku.held, r.get::<_, i64>(0), r.get::<_, i64>(1))
}

/// A mixed hold through the `*_in` functions: `hold_in` takes a stock line, two units and a
/// booking line in the caller's transaction beside its order row, `confirm_in` keeps the
/// stock and one unit and gives back the rest, and the commit shows all of it at once (a
/// rollback, none of it); a `hold_in` with a booking line in a `REPEATABLE READ`
/// transaction is refused and changes nothing.
#[tokio::test]
async fn mixed_holds_commit_and_roll_back_with_the_callers_rows() {
    use allot_core::store::BookingStore;
    let schema = TestSchema::new("t_mixed_in").await;
    let (store, t) = (with_tee_and_seats(&schema).await, Tenant::default_tenant());
    let limits = Limits::default();
    let mut c = schema.session().await;
    c.batch_execute("CREATE TABLE orders (id text PRIMARY KEY)")
        .await
        .unwrap();
    let books = async |c: &tokio_postgres::Client| books(&store, c).await;
    let mut bay = String::new();
    for commit in [false, true] {
        let mut tx = c.transaction().await.unwrap();
        tx.execute("INSERT INTO orders VALUES ('o1')", &[]).await.unwrap();
        let Executed::Fresh(h) = store.hold_in(&mut tx, &t, mixed("h1"), None).await.unwrap() else {
            panic!("no key: a fresh hold")
        };
        let taken = |v: &Option<Vec<_>>| v.as_ref().map_or(0, Vec::len);
        assert_eq!(
            (taken(&h.units), h.bookings.as_ref().map_or(0, Vec::len)),
            (2, 1),
            "{h:?}"
        );
        bay.clone_from(&h.bookings.as_ref().expect("a booking line")[0].id);
        let keep = json!({"lines": [{"sku": "TEE", "quantity": 2}, {"sku": "SEAT", "quantity": 1}]});
        let part = allot_core::hold::validate::confirm(serde_json::from_value(keep).unwrap(), &limits).unwrap();
        store
            .confirm_in(&mut tx, &t, Confirm::new("h1", part, None), None)
            .await
            .unwrap();
        if !commit {
            tx.rollback().await.unwrap();
            assert_eq!(
                (books(&c).await, orders(&c).await),
                ((1000, 0, 0), 0),
                "rolled back: nothing"
            );
            assert_eq!(store.get_hold(&t, "h1").await.unwrap_err().code(), "not_found");
            continue;
        }
        tx.commit().await.unwrap();
    }
    assert_eq!(
        (books(&c).await, orders(&c).await),
        ((800, 1, 0), 1),
        "TEE 8 on hand, one seat sold"
    );
    let h = store.get_hold(&t, "h1").await.unwrap();
    assert_eq!(h.status, HoldStatus::Confirmed);
    let booking = store.get_booking(&t, &bay).await.unwrap();
    assert_eq!(
        booking.status,
        allot_core::BookingStatus::Released,
        "the bay was given back"
    );

    let mut tx = repeatable_read(&mut c).await;
    let refused = store.hold_in(&mut tx, &t, mixed("h2"), None).await.unwrap_err();
    refused_outside_read_committed(&refused);
    tx.rollback().await.unwrap();
    assert_eq!(books(&c).await, (800, 1, 0));
    schema.drop().await;
}

/// The `*_in` futures are `Send`: a caller awaits them in a spawned task (a web handler's,
/// a worker's). Until the bodies became `AsyncFnOnce` per attempt, this did not compile
/// ("implementation of `Send` is not general enough", rust-lang/rust#100013).
#[tokio::test]
async fn the_in_tx_futures_are_send() {
    let schema = TestSchema::new("t_send_in").await;
    let store = std::sync::Arc::new(with_tee(&schema).await);
    let c = schema.session().await;
    let spawned = tokio::spawn(async move {
        let (mut c, t) = (c, Tenant::default_tenant());
        let mut tx = c.transaction().await.unwrap();
        store
            .allocate_in(&mut tx, &t, allocation("s1", 1, Strategy::Atomic), None)
            .await
            .unwrap();
        store.hold_in(&mut tx, &t, hold("s2", 1), None).await.unwrap();
        store
            .confirm_in(&mut tx, &t, Confirm::new("s2", None, None), None)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        store.get_sku(&t, "TEE").await.unwrap().on_hand
    });
    assert_eq!(spawned.await.unwrap(), 8);
    schema.drop().await;
}

/// The `hold.*` events of hold `id`, by type, in the order they were written.
async fn hold_events(c: &tokio_postgres::Client, id: &str) -> Vec<String> {
    let rows = c
        .query(
            "SELECT type FROM events WHERE object = $1 AND type LIKE 'hold.%' ORDER BY id",
            &[&id],
        )
        .await
        .unwrap();
    rows.iter().map(|r| r.get(0)).collect()
}

#[tokio::test]
async fn hold_events_are_written_once_by_every_writer() {
    let schema = TestSchema::new("t_hold_events_in").await;
    let (store, t) = (with_tee(&schema).await, Tenant::default_tenant());
    let c = schema.session().await;
    store.create_hold(&t, hold("h0", 1), None).await.unwrap();
    store.create_hold(&t, hold("h2", 1), None).await.unwrap();

    // The server writes h1's event and puts the setting back: a status changed by hand later
    // in the same transaction still has its event written by the trigger.
    let mut c2 = schema.session().await;
    let mut tx = c2.transaction().await.unwrap();
    store.hold_in(&mut tx, &t, hold("h1", 1), None).await.unwrap();
    tx.execute(
        "UPDATE holds SET status = 'released', finished_at = now() WHERE id = 'h0'",
        &[],
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    assert_eq!(hold_events(&c, "h1").await, ["hold.created"]);
    assert_eq!(hold_events(&c, "h0").await, ["hold.created", "hold.released"]);

    // The sweeper's expiry, through allot_finish_holds: one event.
    let later = chrono::Utc::now() + chrono::Duration::minutes(5);
    assert_eq!(store.run_expire_holds(later, 100).await.unwrap(), 2);
    assert_eq!(hold_events(&c, "h2").await, ["hold.created", "hold.expired"]);
    assert_eq!(hold_events(&c, "h1").await, ["hold.created", "hold.expired"]);
    // A session's own value of the setting does not stop the trigger.
    c.batch_execute("SET allot.hold_events = 'written'").await.unwrap();
    c.batch_execute("UPDATE holds SET status = 'confirmed' WHERE id = 'h0'")
        .await
        .unwrap();
    assert_eq!(
        hold_events(&c, "h0").await,
        ["hold.created", "hold.released", "hold.confirmed"]
    );
    schema.drop().await;
}
