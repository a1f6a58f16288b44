//! Tenants: every object of one tenant is `not_found` to another, whose own objects may
//! share its names.

use crate::fixture::{body, fresh, Fixture};
use allot_core::hold::HoldStatus;
use allot_core::hold::{Confirm, Release};
use allot_core::job::JobState;
use allot_core::unit::UnitFilter;
use allot_core::Cancel;
use allot_core::Tenant;
use allot_core::{validate, AllotError};
use serde_json::json;

/// Whether `r` is `not_found`.
fn not_found<T: std::fmt::Debug>(r: allot_core::Result<T>) -> bool {
    matches!(r, Err(AllotError::NotFound { .. }))
}

/// Tenant a makes one object of each kind; tenant b reads, lists and writes under the same
/// ids and names: every read is `not_found` or empty, every write to a's objects is
/// `not_found`, and b's own objects of the same names are its own.
pub async fn other_tenants_objects_are_not_found(f: Fixture) {
    let (s, l) = (&f.store, &f.limits);
    let (a, b) = (&Tenant::stored("acme"), &Tenant::stored("globex"));
    f.create_sku_of(a, "S", 10).await;
    let alloc = validate::allocation(
        "al-1".into(),
        body(json!({"lines": [{"sku": "S", "quantity": 1}]})),
        s.default_strategy(),
        l,
    );
    fresh(s.allocate(a, alloc.unwrap(), None).await);
    let hold = body(json!({"lines": [{"sku": "S", "quantity": 1}], "ttl_ms": 60_000}));
    fresh(
        s.create_hold(
            a,
            validate::hold("ho-1".into(), hold, s.default_strategy(), l).unwrap(),
            None,
        )
        .await,
    );
    let units = body(json!({"units": [{"serial": "X"}]}));
    fresh(
        s.add_units(a, validate::add_units("U", units, s.now(), l).unwrap(), None)
            .await,
    );
    let booking = body(json!({"start": "2030-01-01T00:00:00Z", "end": "2030-01-02T00:00:00Z", "holder": "h"}));
    let req = validate::booking("bo-1".into(), "room", booking, s.default_booking_strategy(), l).unwrap();
    fresh(s.book(a, req, None).await);
    let job = validate::enqueue("q", body(json!({"jobs": [{"payload": 1}]})), s.now(), l).unwrap();
    fresh(s.enqueue(a, job, None).await);

    assert!(not_found(s.get_sku(b, "S").await));
    assert!(not_found(s.get_allocation(b, "al-1").await));
    assert!(not_found(s.get_hold(b, "ho-1").await));
    assert!(not_found(s.get_unit(b, "U", "X").await));
    assert!(not_found(s.get_booking(b, "bo-1").await));
    assert!(s
        .list_skus(b, &allot_core::SkuFilter::default(), allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items
        .is_empty());
    assert!(s
        .list_allocations(b, allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items
        .is_empty());
    assert!(s
        .list_holds(b, (HoldStatus::Held, None), allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items
        .is_empty());
    let units = s
        .list_units(b, "U", &UnitFilter::default(), allot_core::Page::new(0, 10))
        .await;
    assert!(
        units
            .as_ref()
            .map_or_else(|e| e.code() == "not_found", |l| l.items.is_empty()),
        "{units:?}"
    );
    assert!(s
        .list_jobs(b, "q", JobState::Available.into(), allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items
        .is_empty());
    let ledger = s.ledger(b, "S", allot_core::Page::new(0, 10)).await;
    assert!(
        ledger
            .as_ref()
            .map_or_else(|e| e.code() == "not_found", |l| l.items.is_empty()),
        "{ledger:?}"
    );
    assert!(not_found(s.cancel_allocation(b, Cancel::new("al-1", None), None).await));
    assert!(not_found(s.release_hold(b, Release::new("ho-1", None), None).await));
    assert!(not_found(
        s.confirm_hold(b, Confirm::new("ho-1", None, None), None).await
    ));
    assert!(not_found(s.cancel_booking(b, "bo-1", None).await));
    assert!(not_found(s.cancel_job(b, 1, None).await));
    let sku = s.get_sku(a, "S").await.unwrap();
    assert_eq!((sku.on_hand, sku.available), (9, 8), "a's objects are as a left them");

    f.create_sku_of(b, "S", 3).await;
    assert_eq!(s.get_sku(b, "S").await.unwrap().on_hand, 3);
    assert_eq!(s.get_sku(a, "S").await.unwrap().on_hand, 9);
    f.finish().await;
}
