//! Incoming stock and receipts (see `allot_core::receiving`).

use crate::fixture::{body, fresh, key, replayed, Fixture, T};
use allot_core::{validate, AllotError, Executed, LedgerKind, Page};
use serde_json::json;

/// Incoming is shown beside on hand (in total and at its location, even one where the SKU has
/// no stock) and never counted as available; a receipt against it arrives at its location,
/// replays with its key, and takes no more than is still expected (`exceeds_incoming`,
/// nothing changed); a receipt at a location needs no incoming; each receipt is one
/// `received` ledger entry naming it; unknown incoming and unit-tracked SKUs are refused.
pub async fn incoming_and_receipts(f: Fixture) {
    let s = &f.store;
    f.create_sku("A", 4).await;
    let loc = validate::location(body(json!({"location": "dock", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, loc, 10).await.unwrap();
    let incoming = |q: i64| {
        let b = body(json!({"quantity": q, "location": "dock", "reference": "erp://po/1"}));
        validate::incoming(format!("in-{q}"), "A", b, &f.limits).unwrap()
    };
    let made = fresh(s.add_incoming(&T, incoming(5), key("incoming-1")).await);
    assert_eq!((made.location.as_str(), made.received), ("dock", 0));
    replayed(s.add_incoming(&T, incoming(5), key("incoming-1")).await);
    let sku = s.get_sku(&T, "A").await.unwrap();
    assert_eq!((sku.on_hand, sku.available, sku.incoming), (4, 4, 5));
    let dock = sku.levels.iter().find(|l| l.location == "dock").unwrap();
    assert_eq!((dock.on_hand, dock.incoming), (0, 5));
    let receipt = |id: &str, q: i64, incoming: Option<&str>| {
        let b = body(json!({"quantity": q, "incoming_id": incoming}));
        validate::receipt(id.into(), "A", b, &f.limits).unwrap()
    };
    let r = fresh(s.receive(&T, receipt("r1", 3, Some("in-5")), key("receipt-1")).await);
    assert_eq!(r.location.as_deref(), Some("dock"));
    replayed(s.receive(&T, receipt("r1", 3, Some("in-5")), key("receipt-1")).await);
    let over = s.receive(&T, receipt("r2", 3, Some("in-5")), None).await.unwrap_err();
    assert!(
        matches!(
            &over,
            AllotError::ExceedsIncoming {
                left: 2,
                requested: 3,
                ..
            }
        ),
        "{over:?}"
    );
    let sku = s.get_sku(&T, "A").await.unwrap();
    assert_eq!(
        (sku.on_hand, sku.available, sku.incoming),
        (7, 7, 2),
        "one receipt of 3"
    );
    fresh(s.receive(&T, receipt("r3", 2, Some("in-5")), None).await);
    fresh(s.receive(&T, receipt("r4", 1, None), None).await);
    let sku = s.get_sku(&T, "A").await.unwrap();
    assert_eq!(
        (sku.on_hand, sku.incoming),
        (10, 0),
        "all 5 received at dock, 1 at default"
    );
    let entries = s.ledger(&T, "A", Page::new(0, 100)).await.unwrap().items;
    let received: Vec<_> = entries.iter().filter(|e| e.kind == LedgerKind::Received).collect();
    let refs: Vec<_> = received.iter().map(|e| e.reference.as_deref().unwrap_or("")).collect();
    assert_eq!(refs, ["r1", "r3", "r4"]);
    assert_eq!(received.iter().map(|e| e.delta).sum::<i64>(), 6);
    let nowhere = s.receive(&T, receipt("r5", 1, Some("no-such")), None).await;
    assert!(
        matches!(nowhere, Err(AllotError::NotFound { kind: "incoming", .. })),
        "{nowhere:?}"
    );
    let add = validate::add_units("U", body(json!({"units": [{"serial": "S1"}]})), s.now(), &f.limits).unwrap();
    fresh(s.add_units(&T, add, None).await);
    let b = body(json!({"quantity": 1}));
    let units = s
        .add_incoming(&T, validate::incoming("in-u".into(), "U", b, &f.limits).unwrap(), None)
        .await;
    assert!(matches!(units, Err(AllotError::WrongTracking { .. })), "{units:?}");
    f.finish().await;
}

/// Thirty receipts of one unit race against an incoming of ten: exactly ten are received,
/// the rest refused `exceeds_incoming`, and on hand rose by exactly ten.
pub async fn receipts_never_exceed_their_incoming(f: Fixture) {
    f.create_sku("HOT", 0).await;
    let b = body(json!({"quantity": 10}));
    let made = validate::incoming("in-hot".into(), "HOT", b, &f.limits).unwrap();
    fresh(f.store.add_incoming(&T, made, None).await);
    let mut set = tokio::task::JoinSet::new();
    for n in 0..30 {
        let b = body(json!({"quantity": 1, "incoming_id": "in-hot"}));
        let req = validate::receipt(format!("r{n}"), "HOT", b, &f.limits).unwrap();
        let store = f.store.clone();
        set.spawn(async move { store.receive(&T, req, None).await });
    }
    let (mut ok, mut refused) = (0, 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(_)) => ok += 1,
            Err(AllotError::ExceedsIncoming { .. }) => refused += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, refused), (10, 20));
    let sku = f.store.get_sku(&T, "HOT").await.unwrap();
    assert_eq!((sku.on_hand, sku.incoming), (10, 0));
    f.finish().await;
}
