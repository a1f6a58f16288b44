//! Mixed holds on a `batched` lane, on a real PostgreSQL in a schema of its own: a writer
//! keeps the stock row locked while one hold's batch waits on it and more queue behind, in a
//! known order; once the writer commits, those share one batch transaction, and each gets the
//! answer it would get one at a time: one refused for its booking line gives its stock to a
//! hold the first evaluation found short; pipelined unit lines run out in order.

use crate::engine::store::PgStore;
use crate::engine::test_schema::TestSchema;
use allot_core::store::{HoldStore, Maintenance, StockStore, UnitStore};
use allot_core::{validate, AllotError, Capable, Hold, HoldRequest, Limits, Strategy, Tenant};
use serde_json::json;
use std::time::Duration;

/// A `batched` hold of one `S`, one unit of `U` and, with an `hour`, the bay from `hour` to
/// `hour + 1` on 2030-01-01.
fn mixed_hold(id: &str, hour: Option<u32>) -> HoldRequest {
    let slot = |h: u32| format!("2030-01-01T{h:02}:00:00Z");
    let mut lines = vec![
        json!({"sku": "S", "quantity": 1}),
        json!({"units": {"sku": "U", "quantity": 1}}),
    ];
    if let Some(h) = hour {
        lines.push(json!({"booking": {"resource": "bay", "start": slot(h), "end": slot(h + 1)}}));
    }
    hold_of(id, json!(lines))
}

/// A `batched` hold `id` of `lines`.
fn hold_of(id: &str, lines: serde_json::Value) -> HoldRequest {
    let body = json!({"lines": lines, "ttl_ms": 60_000});
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
    req: HoldRequest,
    queued: usize,
) -> tokio::task::JoinHandle<Result<Hold, AllotError>> {
    let (s, id) = (store.clone(), req.take.id.clone());
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
/// `S` with `on_hand` and `units` units of `U`; then, while a writer keeps `S`'s row locked,
/// the first of `holds` waits in a batch of its own on it and the others queue behind, in
/// their order; then the writer commits. Every answer, in order, with the schema and store
/// (for the checks after).
async fn queued_behind_a_writer(
    (on_hand, units): (i64, usize),
    holds: Vec<HoldRequest>,
) -> (Vec<Result<Hold, AllotError>>, TestSchema, PgStore) {
    let schema = TestSchema::new("t_batch_mixed").await;
    let store = schema.store().await;
    let (limits, t) = (Limits::default(), Tenant::stored("t"));
    let sku = validate::create_sku(
        serde_json::from_value(json!({"sku": "S", "on_hand": on_hand})).unwrap(),
        &limits,
    );
    store.create_sku(&t, sku.unwrap(), None).await.unwrap();
    let units = json!({"units": (0..units).map(|i| json!({"serial": format!("u{i}")})).collect::<Vec<_>>()});
    let units = validate::add_units("U", serde_json::from_value(units).unwrap(), store.now(), &limits).unwrap();
    store.add_units(&t, units, None).await.unwrap();
    let (writer, writer_pid) = schema
        .writer_holding("BEGIN; SELECT 1 FROM stock WHERE tenant = 't' AND sku = 'S' FOR UPDATE")
        .await;
    let mut holds = holds.into_iter();
    let first = holds.next().expect("a hold");
    let mut made = vec![spawn_queued(&store, first, 0).await];
    // The first batch waits on the writer's lock; what queues meanwhile waits for it.
    schema.wait_blocked_by(writer_pid).await;
    for (n, hold) in holds.enumerate() {
        made.push(spawn_queued(&store, hold, n + 1).await);
    }
    writer.batch_execute("COMMIT").await.unwrap();
    let mut answers = Vec::new();
    for h in made {
        answers.push(tokio::time::timeout(Duration::from_secs(30), h).await.unwrap().unwrap());
    }
    (answers, schema, store)
}

/// The held `S`, held units, held bookings, the transactions the mixed holds were written in
/// and the holds, of tenant `t`; the audit clean.
async fn books(schema: &TestSchema, store: &PgStore) -> (i64, i64, i64, i64, i64) {
    let c = schema.session().await;
    let row = c
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
    let audit = store.audit(Some(&Tenant::stored("t"))).await.unwrap();
    assert!(audit.is_clean(), "{audit:?}");
    (row.get(0), row.get(1), row.get(2), row.get(3), row.get(4))
}

/// 3 `S`, 5 units: `a` alone in a first batch (the bay 10–11), then `b` (10–11 too), `c`
/// (11–12), `d` (12–13) and `e` (13–14) in one batch. Serially, `b` is refused
/// `booking_overlap` and gives back what it took, so `c` and `d` get the two `S` left and `e`
/// is short: exactly what the batch answers, though its first evaluation placed `b` and
/// found `d` short.
#[tokio::test]
async fn a_batch_of_mixed_holds_answers_each_as_if_one_at_a_time() {
    let holds = [("a", 10), ("b", 10), ("c", 11), ("d", 12), ("e", 13)];
    let holds = holds.map(|(id, hour)| mixed_hold(id, Some(hour))).into();
    let (answers, schema, store) = queued_behind_a_writer((3, 5), holds).await;
    match &answers[1] {
        Err(e) => assert_eq!(e.code(), "booking_overlap", "{e:?}"),
        Ok(h) => panic!("b overlaps a, yet was made: {h:?}"),
    }
    for i in [0, 2, 3] {
        let h = answers[i].as_ref().unwrap();
        assert_eq!(
            (h.units.as_ref().map(Vec::len), h.bookings.as_ref().map(Vec::len)),
            (Some(1), Some(1))
        );
    }
    match &answers[4] {
        Err(AllotError::InsufficientStock { sku, available, .. }) => assert_eq!((sku.as_str(), *available), ("S", 0)),
        other => panic!("e finds no S left, got {other:?}"),
    }
    // Three holds, in two transactions: `a`'s, and the one of `c` and `d`.
    assert_eq!(books(&schema, &store).await, (3, 3, 3, 2, 3));
    drop(store);
    schema.drop().await;
}

/// 10 `S`, 3 units: `a` alone, then `b`, `c` and `d` (a unit line each, no booking: their
/// claims pipelined in one round trip) in one batch: `b` and `c` take the last units in that
/// one transaction, `d` is short of units and takes no `S`.
#[tokio::test]
async fn pipelined_unit_lines_run_out_in_order() {
    let holds = ["a", "b", "c", "d"].map(|id| mixed_hold(id, None)).into();
    let (answers, schema, store) = queued_behind_a_writer((10, 3), holds).await;
    for (i, made) in answers.iter().enumerate() {
        match (i, made) {
            (0..=2, Ok(h)) => assert_eq!(h.units.as_ref().map(Vec::len), Some(1)),
            (3, Err(AllotError::InsufficientStock { sku, available, .. })) => {
                assert_eq!((sku.as_str(), *available), ("U", 0));
            }
            other => panic!("{other:?}"),
        }
    }
    // Three holds, in two transactions: `a`'s, and the one of `b` and `c`.
    assert_eq!(books(&schema, &store).await, (3, 3, 0, 2, 3));
    drop(store);
    schema.drop().await;
}

/// 10 `S`, 1 unit: `a` (1 `S`) alone, then `q` (3 `S` and a unit of `W`, a SKU that does not
/// exist), `r` (9 `S`), `p` (2 `S`, a unit) and `b` (1 `S`, a unit) in one batch. The first
/// round places `q`, `p` and `b` (`r` short); `q` is refused for `W` and `b` finds no unit
/// (`p` took it); the second places `r`, which leaves `p` short though it took the unit: the
/// batch gives every mixed hold's lines back and runs them on the per-request path, where `p`
/// and `b` are short of `S`. No answer names the unit that `p` gave back.
#[tokio::test]
async fn a_hold_that_took_its_lines_and_is_no_longer_placed_gives_every_line_back() {
    let stock = |id: &str, q: i64| hold_of(id, json!([{"sku": "S", "quantity": q}]));
    let with_unit = |id: &str, q: i64, unit: &str| {
        hold_of(
            id,
            json!([{"sku": "S", "quantity": q}, {"units": {"sku": unit, "quantity": 1}}]),
        )
    };
    let holds = vec![
        stock("a", 1),
        with_unit("q", 3, "W"),
        stock("r", 9),
        with_unit("p", 2, "U"),
        with_unit("b", 1, "U"),
    ];
    let (answers, schema, store) = queued_behind_a_writer((10, 1), holds).await;
    assert!(answers[0].is_ok() && answers[2].is_ok(), "{answers:?}");
    for i in [1, 3, 4] {
        match &answers[i] {
            Err(AllotError::InsufficientStock { sku, .. }) => assert_eq!(sku, "S", "{:?}", answers[i]),
            other => panic!("hold {i}: {other:?}"),
        }
    }
    assert_eq!(books(&schema, &store).await, (10, 0, 0, 0, 2));
    drop(store);
    schema.drop().await;
}
