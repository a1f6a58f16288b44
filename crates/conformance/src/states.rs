//! Quantity states and moves between them (see `allot_core::states`).

use crate::fixture::{body, fresh, key, replayed, Fixture, T};
use allot_core::{validate, AllotError, LedgerKind, Move, Page, Sku};
use serde_json::json;

fn movement(f: &Fixture, id: &str, (from, to): (&str, &str), quantity: i64) -> Move {
    let b = body(
        json!({"from": from, "to": to, "quantity": quantity, "reason": "damaged",
        "reference": "erp://count/1"}),
    );
    validate::movement(id.into(), "A", b, &f.limits).unwrap()
}

/// `(on_hand, held, available, damaged, quality_control, safety_stock)` of a SKU.
fn states(s: &Sku) -> (i64, i64, i64, i64, i64, i64) {
    (
        s.on_hand,
        s.held,
        s.available,
        s.damaged,
        s.quality_control,
        s.safety_stock,
    )
}

/// The unsellable states count in on hand, never in available, in total and at their
/// location; a move out of `available` replays with its key and takes only what is
/// available (held stock stays); one out of an unsellable state at most what it has
/// (`exceeds_state`, nothing changed); every move is one `moved` ledger entry naming it, its
/// delta what it did to the sellable part; a compare-and-set of a level compares and sets on
/// hand with the unsellable states in it.
pub async fn moves_between_states(f: Fixture) {
    let s = &f.store;
    f.create_sku("A", 10).await;
    let m = fresh(
        s.move_stock(&T, movement(&f, "m1", ("available", "damaged"), 3), key("move-1"))
            .await,
    );
    assert_eq!((m.location.as_str(), m.quantity), ("default", 3));
    replayed(
        s.move_stock(&T, movement(&f, "m1", ("available", "damaged"), 3), key("move-1"))
            .await,
    );
    assert_eq!(states(&s.get_sku(&T, "A").await.unwrap()), (10, 0, 7, 3, 0, 0));
    let over = s
        .move_stock(&T, movement(&f, "m2", ("damaged", "available"), 4), None)
        .await;
    assert!(
        matches!(
            &over,
            Err(AllotError::ExceedsState {
                left: 3,
                requested: 4,
                state: "damaged",
                ..
            })
        ),
        "{over:?}"
    );
    fresh(
        s.move_stock(&T, movement(&f, "m3", ("damaged", "quality_control"), 2), None)
            .await,
    );
    fresh(
        s.move_stock(&T, movement(&f, "m4", ("quality_control", "available"), 1), None)
            .await,
    );
    let sku = s.get_sku(&T, "A").await.unwrap();
    assert_eq!(states(&sku), (10, 0, 8, 1, 1, 0));
    let level = &sku.levels[0];
    assert_eq!(
        (level.on_hand, level.available, level.damaged, level.quality_control),
        (10, 8, 1, 1)
    );
    f.allocate("A", 6).await;
    let b = body(json!({"lines": [{"sku": "A", "quantity": 2}], "ttl_ms": 60_000}));
    let hold = validate::hold("h1".into(), b, s.default_strategy(), &f.limits).unwrap();
    fresh(s.create_hold(&T, hold, None).await);
    let short = s
        .move_stock(&T, movement(&f, "m5", ("available", "safety_stock"), 1), None)
        .await;
    assert!(
        matches!(&short, Err(AllotError::InsufficientStock { available: 0, .. })),
        "{short:?}"
    );
    assert_eq!(states(&s.get_sku(&T, "A").await.unwrap()), (4, 2, 0, 1, 1, 0));
    let entries = s.ledger(&T, "A", Page::new(0, 100)).await.unwrap().items;
    let moved: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == LedgerKind::Moved)
        .map(|e| (e.reference.as_deref().unwrap_or(""), e.delta))
        .collect();
    assert_eq!(moved, [("m1", -3), ("m3", 0), ("m4", 1)]);
    let set = |on_hand: i64, compare: i64| {
        let b = body(json!({"on_hand": on_hand, "compare_on_hand": compare}));
        validate::set_level("A", "default", b, &f.limits).unwrap()
    };
    let stale = s.set_level(&T, set(9, 2), None).await;
    assert!(
        matches!(&stale, Err(AllotError::CompareFailed { current: 4, .. })),
        "{stale:?}"
    );
    let sku = fresh(s.set_level(&T, set(9, 4), None).await);
    assert_eq!(states(&sku), (9, 2, 5, 1, 1, 0), "the sellable part rose by 5");
    let add = validate::add_units("U", body(json!({"units": [{"serial": "S1"}]})), s.now(), &f.limits).unwrap();
    fresh(s.add_units(&T, add, None).await);
    let b = body(json!({"from": "available", "to": "damaged", "quantity": 1, "reason": "damaged"}));
    let units = s
        .move_stock(&T, validate::movement("mu".into(), "U", b, &f.limits).unwrap(), None)
        .await;
    assert!(matches!(units, Err(AllotError::WrongTracking { .. })), "{units:?}");
    f.finish().await;
}

/// Twenty allocations of one unit and twenty moves of one unit out of `available` race on a
/// SKU of twenty, while ten moves back from `damaged` race too: available never goes below
/// zero, and what succeeded adds up exactly.
pub async fn moves_race_allocations(f: Fixture) {
    f.create_sku("A", 20).await;
    let mut set = tokio::task::JoinSet::new();
    for n in 0..20 {
        let (store, alloc) = (f.store.clone(), f.allocation("A", 1));
        set.spawn(async move { store.allocate(&T, alloc, None).await.map(|_| "allocated") });
        let (store, out) = (
            f.store.clone(),
            movement(&f, &format!("out{n}"), ("available", "damaged"), 1),
        );
        set.spawn(async move { store.move_stock(&T, out, None).await.map(|_| "out") });
        if n % 2 == 0 {
            let (store, back) = (
                f.store.clone(),
                movement(&f, &format!("back{n}"), ("damaged", "available"), 1),
            );
            set.spawn(async move { store.move_stock(&T, back, None).await.map(|_| "back") });
        }
    }
    let mut done = std::collections::HashMap::<&str, i64>::new();
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(what) => *done.entry(what).or_default() += 1,
            Err(AllotError::InsufficientStock { .. } | AllotError::ExceedsState { .. }) => {}
            Err(AllotError::Contention { .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    let n = |k: &str| done.get(k).copied().unwrap_or(0);
    let sku = f.store.get_sku(&T, "A").await.unwrap();
    assert_eq!(sku.damaged, n("out") - n("back"), "{done:?}");
    assert_eq!(sku.available, 20 - n("allocated") - sku.damaged, "{done:?}");
    assert_eq!(sku.on_hand, 20 - n("allocated"), "{done:?}");
    assert!(
        sku.available >= 0 && n("allocated") + n("out") - n("back") <= 20,
        "{done:?}"
    );
    f.finish().await;
}
