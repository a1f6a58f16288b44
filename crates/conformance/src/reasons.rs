//! Reasons and references on every stock change (see `allot_core::model::reason`): the
//! reason a request said (or its kind's) and the document URI it named are kept on the ledger
//! entry and carried in its event, with the levels of the SKU and of the location before and
//! after it.

use crate::events::read_all;
use crate::fixture::{body, fresh, Fixture, T};
use allot_core::event::{Event, EventType};
use allot_core::{validate, LedgerKind, Page, StockReason};
use serde_json::{json, Value};

/// The data of the one event of `kind` at `location` (the last, if several).
fn data_of(events: &[Event], kind: EventType, location: &str) -> Value {
    events
        .iter()
        .rev()
        .find(|e| e.kind == kind && e.data["location"] == location)
        .unwrap_or_else(|| panic!("no {kind:?} at {location}: {events:?}"))
        .data
        .clone()
}

/// `{"on_hand","held","available"}`.
fn level(on_hand: i64, held: i64) -> Value {
    json!({"on_hand": on_hand, "held": held, "available": on_hand - held})
}

/// An adjustment, a transfer, a receipt, a move, a level set, a return and an allocation, each
/// with the reason said or its kind's and the reference named: the ledger keeps both, each
/// event carries both with `before`/`after` of the SKU and of its location (`before` +
/// `delta` = `after`), and the flat totals are `after`'s.
pub async fn every_change_carries_its_reason(f: Fixture) {
    let s = &f.store;
    f.create_sku("R", 10).await;
    let north = validate::location(body(json!({"location": "north", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, north, 10).await.unwrap();
    let b = body(json!({"delta": -2, "reason": "shrinkage", "reference": "erp://count/1"}));
    fresh(
        s.adjust(&T, validate::adjustment("R", b, &f.limits).unwrap(), None)
            .await,
    );
    let b = body(json!({"sku": "R", "from": "default", "to": "north", "quantity": 3, "reference": "erp://to/1"}));
    fresh(
        s.transfer(&T, validate::transfer("t1".into(), b, &f.limits).unwrap(), None)
            .await,
    );
    let b = body(json!({"quantity": 4, "location": "north", "reference": "erp://asn/1"}));
    fresh(
        s.receive(&T, validate::receipt("rc1".into(), "R", b, &f.limits).unwrap(), None)
            .await,
    );
    let b = body(json!({"from": "available", "to": "quality_control", "quantity": 1, "reason": "quality_control"}));
    fresh(
        s.move_stock(&T, validate::movement("m1".into(), "R", b, &f.limits).unwrap(), None)
            .await,
    );
    let b = body(json!({"on_hand": 9, "compare_on_hand": 7}));
    fresh(
        s.set_level(&T, validate::set_level("R", "north", b, &f.limits).unwrap(), None)
            .await,
    );
    let a = f.allocate("R", 1).await;
    let b = body(json!({"lines": [{"sku": "R", "quantity": 1}], "reference": "erp://rma/1"}));
    fresh(
        s.return_allocation(&T, validate::returns("ret1".into(), &a.id, b, &f.limits).unwrap(), None)
            .await,
    );

    let events = read_all(&f, &T, 0, 100).await;
    let adjusted = data_of(&events, EventType::StockAdjusted, "default");
    assert_eq!(
        (adjusted["reason"].as_str(), adjusted["reference"].as_str()),
        (Some("shrinkage"), Some("erp://count/1"))
    );
    assert_eq!(
        (adjusted["before"].clone(), adjusted["after"].clone()),
        (level(10, 0), level(8, 0))
    );
    assert_eq!(adjusted["location_after"], level(8, 0));
    assert_eq!(adjusted["available"], 8, "the flat totals are after's");
    let into_north = data_of(&events, EventType::TransferCreated, "north");
    assert_eq!(
        (into_north["reason"].as_str(), into_north["reference"].as_str()),
        (Some("transfer"), Some("erp://to/1"))
    );
    assert_eq!(
        (into_north["before"].clone(), into_north["after"].clone()),
        (level(5, 0), level(8, 0)),
        "{into_north}"
    );
    assert_eq!(
        (
            into_north["location_before"].clone(),
            into_north["location_after"].clone()
        ),
        (level(0, 0), level(3, 0))
    );
    let received = data_of(&events, EventType::StockReceived, "north");
    assert_eq!(
        (received["reason"].as_str(), received["reference"].as_str()),
        (Some("received"), Some("erp://asn/1"))
    );
    assert_eq!(received["location_after"], level(7, 0));
    let moved = data_of(&events, EventType::StockMoved, "default");
    assert_eq!(
        (moved["reason"].as_str(), moved["reference"].as_str()),
        (Some("quality_control"), None)
    );
    assert_eq!(
        (moved["delta"].as_i64(), moved["location_after"].clone()),
        (Some(-1), level(4, 0))
    );
    let set = data_of(&events, EventType::StockAdjusted, "north");
    assert_eq!(
        (set["reason"].as_str(), set["delta"].as_i64()),
        (Some("cycle_count"), Some(2))
    );
    assert_eq!(
        (set["before"].clone(), set["after"].clone()),
        (level(11, 0), level(13, 0))
    );
    let sold = events.iter().find(|e| e.kind == EventType::AllocationCreated).unwrap();
    assert_eq!(
        (sold.data["reason"].as_str(), sold.data["reference"].as_str()),
        (Some("sold"), None)
    );
    let back = events.iter().find(|e| e.kind == EventType::ReturnCreated).unwrap();
    assert_eq!(
        (back.data["reason"].as_str(), back.data["reference"].as_str()),
        (Some("returned"), Some("erp://rma/1"))
    );
    for e in events.iter().filter(|e| e.data["before"].is_object()) {
        let d = &e.data;
        let sum = d["before"]["on_hand"].as_i64().unwrap() + d["delta"].as_i64().unwrap();
        assert_eq!(Some(sum), d["after"]["on_hand"].as_i64(), "before + delta = after: {d}");
    }

    let ledger = s.ledger(&T, "R", Page::new(0, 100)).await.unwrap().items;
    let said: Vec<(LedgerKind, StockReason, Option<&str>)> = ledger
        .iter()
        .map(|e| (e.kind, e.reason, e.document.as_deref()))
        .collect();
    assert_eq!(said[0], (LedgerKind::Created, StockReason::Received, None));
    assert_eq!(
        said[1],
        (LedgerKind::Adjustment, StockReason::Shrinkage, Some("erp://count/1"))
    );
    assert!(said.contains(&(LedgerKind::Transfer, StockReason::Transfer, Some("erp://to/1"))));
    assert!(said.contains(&(LedgerKind::Moved, StockReason::QualityControl, None)));
    assert!(said.contains(&(LedgerKind::Adjustment, StockReason::CycleCount, None)));
    assert!(said.contains(&(LedgerKind::Returned, StockReason::Returned, Some("erp://rma/1"))));
    f.finish().await;
}
