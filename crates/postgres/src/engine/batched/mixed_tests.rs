//! Mixed holds on a `batched` lane, on a real PostgreSQL in a schema of its own: a writer
//! keeps the stock row locked while one hold's batch waits on it and four more queue behind,
//! in a known order; once the writer commits, the four share one batch transaction, in which
//! one is refused for its booking line and its stock goes to a hold that the first evaluation
//! found short.

use crate::engine::store::PgStore;
use crate::engine::test_schema::TestSchema;
use allot_core::store::{HoldStore, Maintenance, StockStore, UnitStore};
use allot_core::{validate, AllotError, Capable, Hold, Limits, Strategy, Tenant};
use serde_json::json;
use std::time::Duration;

/// A `batched` hold of one `S`, one unit of `U` and the bay from `hour` to `hour + 1` on
/// 2030-01-01.
fn mixed_hold(id: &str, hour: u32) -> allot_core::HoldRequest {
    let slot = |h: u32| format!("2030-01-01T{h:02}:00:00Z");
    let body = json!({"lines": [
        {"sku": "S", "quantity": 1},
        {"units": {"sku": "U", "quantity": 1}},
        {"booking": {"resource": "bay", "start": slot(hour), "end": slot(hour + 1)}}
    ], "ttl_ms": 60_000});
    validate::hold(
        id.into(),
        serde_json::from_value(body).unwrap(),
        Strategy::Batched,
        &Limits::default(),
    )
    .unwrap()
}

/// Spawn hold `id` on `store` and wait (bounded, 10 s) until `queued` requests wait on the
/// instance's lanes: it has queued behind those before it.
async fn spawn_queued(
    store: &PgStore,
    (id, hour): (&str, u32),
    queued: usize,
) -> tokio::task::JoinHandle<Result<Hold, AllotError>> {
    let (s, req) = (store.clone(), mixed_hold(id, hour));
    let made = tokio::spawn(async move { s.create_hold(&Tenant::stored("t"), req, None).await?.fresh() });
    let combiner = store.combiner.clone().expect("a store with lanes");
    for _ in 0..10_000 {
        if combiner.queued_now() >= queued {
            return made;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("{id} did not queue within 10 s");
}

/// 3 `S`, 5 units: `a` alone in a first batch (the bay 10–11), then `b` (10–11 too), `c`
/// (11–12), `d` (12–13) and `e` (13–14) in one batch. Serially, `b` is refused
/// `booking_overlap` and gives back what it took, so `c` and `d` get the two `S` left and `e`
/// is short: exactly what the batch answers, though its first evaluation placed `b` and
/// found `d` short.
#[tokio::test]
async fn a_batch_of_mixed_holds_answers_each_as_if_one_at_a_time() {
    let schema = TestSchema::new("t_batch_mixed").await;
    let store = schema.store().await;
    let (limits, t) = (Limits::default(), Tenant::stored("t"));
    let sku = validate::create_sku(
        serde_json::from_value(json!({"sku": "S", "on_hand": 3})).unwrap(),
        &limits,
    );
    store.create_sku(&t, sku.unwrap(), None).await.unwrap();
    let units = serde_json::from_value(
        json!({"units": (0..5).map(|i| json!({"serial": format!("u{i}")})).collect::<Vec<_>>()}),
    );
    let units = validate::add_units("U", units.unwrap(), store.now(), &limits).unwrap();
    store.add_units(&t, units, None).await.unwrap();
    let writer = schema.session().await;
    let writer_pid: i32 = writer.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
    writer
        .batch_execute("BEGIN; SELECT 1 FROM stock WHERE tenant = 't' AND sku = 'S' FOR UPDATE")
        .await
        .unwrap();
    let a = spawn_queued(&store, ("a", 10), 0).await;
    let waiting = schema.wait_blocked_by(writer_pid).await;
    assert!(
        waiting.contains("FOR UPDATE"),
        "a mixed batch locks its stock rows first: {waiting}"
    );
    let mut rest = Vec::new();
    for (n, (id, hour)) in [("b", 10), ("c", 11), ("d", 12), ("e", 13)].into_iter().enumerate() {
        rest.push(spawn_queued(&store, (id, hour), n + 1).await);
    }
    writer.batch_execute("COMMIT").await.unwrap();
    let a = a.await.unwrap().unwrap();
    let mut answers = Vec::new();
    for h in rest {
        answers.push(tokio::time::timeout(Duration::from_secs(30), h).await.unwrap().unwrap());
    }
    assert_eq!(a.units.as_ref().map(Vec::len), Some(1));
    match &answers[0] {
        Err(e) => assert_eq!(e.code(), "booking_overlap", "{e:?}"),
        Ok(h) => panic!("b overlaps a, yet was made: {h:?}"),
    }
    for made in &answers[1..3] {
        let h = made.as_ref().unwrap();
        assert_eq!(
            (h.units.as_ref().map(Vec::len), h.bookings.as_ref().map(Vec::len)),
            (Some(1), Some(1))
        );
    }
    match &answers[3] {
        Err(AllotError::InsufficientStock { sku, available, .. }) => assert_eq!((sku.as_str(), *available), ("S", 0)),
        other => panic!("e finds no S left, got {other:?}"),
    }
    let c = schema.session().await;
    let books = c
        .query_one(
            "SELECT (SELECT held FROM stock WHERE tenant = 't' AND sku = 'S'),
                    (SELECT count(*) FROM units WHERE tenant = 't' AND status = 'held'),
                    (SELECT count(*) FROM bookings WHERE tenant = 't' AND status = 'held'),
                    (SELECT count(DISTINCT xmin::text) FROM holds WHERE tenant = 't' AND kind = 'mixed'),
                    (SELECT count(*) FROM holds WHERE tenant = 't')",
            &[],
        )
        .await
        .unwrap();
    let found: (i64, i64, i64, i64, i64) = (books.get(0), books.get(1), books.get(2), books.get(3), books.get(4));
    // Three holds, in two transactions: `a`'s, and the one of `c` and `d`.
    assert_eq!(found, (3, 3, 3, 2, 3));
    let audit = store.audit(Some(&t)).await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    drop((c, writer, store));
    schema.drop().await;
}
