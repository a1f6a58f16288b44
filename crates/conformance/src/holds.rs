//! Holds: made, read, listed, extended, confirmed (whole or in part), released, expired (and
//! the expiry's events).

use crate::fixture::{body, fresh, key, replayed, Fixture, T};
use allot_core::event::EventType;
use allot_core::hold::HoldStatus;
use allot_core::hold::{Confirm, Release};
use allot_core::{validate, AllotError, Executed, Hold};
use serde_json::json;

/// A keyed hold runs once and replays; it is read and listed while held; extending it moves
/// its expiry; listed by SKU, it shows under its own SKU only; a partial confirm allocates part and gives the rest back; a release gives all
/// back, replays with its key, and a released hold cannot be confirmed.
pub async fn hold_lifecycle(f: Fixture) {
    let s = &f.store;
    f.create_sku("H", 10).await;
    f.create_sku("HX", 10).await;
    let hold = |id: &str| {
        let b = body(json!({"lines": [{"sku": "H", "quantity": 4}], "ttl_ms": 60_000}));
        validate::hold(id.into(), b, s.default_strategy(), &f.limits).unwrap()
    };
    let h: Hold = fresh(s.create_hold(&T, hold("h1"), key("hold-1")).await);
    replayed(s.create_hold(&T, hold("h1"), key("hold-1")).await);
    assert_eq!(s.get_hold(&T, "h1").await.unwrap().status, HoldStatus::Held);
    let held = s
        .list_holds(&T, (HoldStatus::Held, None), allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items;
    assert_eq!(held.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(), ["h1"]);
    let of_sku = |sku: &'static str| async move {
        let page = s
            .list_holds(&T, (HoldStatus::Held, Some(sku)), allot_core::Page::new(None, 10))
            .await
            .unwrap()
            .items;
        page.into_iter().map(|x| x.id).collect::<Vec<_>>()
    };
    assert_eq!(of_sku("H").await, ["h1"]);
    assert!(of_sku("HX").await.is_empty(), "a hold of H is not one of HX");
    let ttl = validate::extend(&body(json!({"ttl_ms": 120_000})), &f.limits).unwrap();
    let longer = fresh(s.extend_hold(&T, "h1", ttl, key("extend-1")).await);
    assert!(longer.expires_at > h.expires_at);
    replayed(s.extend_hold(&T, "h1", ttl, key("extend-1")).await);
    let part = validate::confirm(body(json!({"lines": [{"sku": "H", "quantity": 1}]})), &f.limits).unwrap();
    let a = fresh(
        s.confirm_hold(&T, Confirm::new("h1", part, None), key("confirm-1"))
            .await,
    );
    assert_eq!(a.lines[0].quantity, 1);
    let sku = s.get_sku(&T, "H").await.unwrap();
    assert_eq!((sku.on_hand, sku.available), (9, 9), "3 of the 4 came back");
    fresh(s.create_hold(&T, hold("h2"), None).await);
    assert_eq!(s.get_sku(&T, "H").await.unwrap().available, 5);
    let r = fresh(s.release_hold(&T, Release::new("h2", None), key("release-1")).await);
    assert_eq!(r.status, HoldStatus::Released);
    replayed(s.release_hold(&T, Release::new("h2", None), key("release-1")).await);
    assert_eq!(s.get_sku(&T, "H").await.unwrap().available, 9);
    let err = s
        .confirm_hold(&T, Confirm::new("h2", None, None), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "hold_released");
    assert!(matches!(s.get_hold(&T, "nope").await, Err(AllotError::NotFound { .. })));
    assert!(s
        .list_holds(&T, (HoldStatus::Held, None), allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items
        .is_empty());
    f.finish().await;
}

/// A hold reads expired once the clock passes its expiry — no sleeping — and cannot be
/// confirmed; its quantity is available again, and the sweeper finishes it once.
pub async fn holds_expire_by_the_clock(f: Fixture) {
    f.create_sku("H", 10).await;
    let body = serde_json::from_value(json!({"lines": [{"sku": "H", "quantity": 4}], "ttl_ms": 600_000})).unwrap();
    let req = validate::hold("h1".into(), body, f.store.default_strategy(), &f.limits).unwrap();
    let Executed::Fresh(hold) = f.store.create_hold(&T, req, None).await.unwrap() else {
        panic!("fresh")
    };
    assert_eq!(f.store.get_sku(&T, "H").await.unwrap().available, 6);
    f.clock.advance_past(hold.expires_at);
    assert_eq!(
        f.store.get_hold(&T, &hold.id).await.unwrap().status,
        HoldStatus::Expired
    );
    assert_eq!(f.store.get_sku(&T, "H").await.unwrap().available, 10);
    let err = f
        .store
        .confirm_hold(&T, Confirm::new(hold.id.clone(), None, None), None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "hold_expired");
    assert_eq!(f.store.expire_holds(f.store.now(), 100).await.unwrap(), 1);
    assert_eq!(f.store.expire_holds(f.store.now(), 100).await.unwrap(), 0);
    // Its expiry, once written, is its entry's event and then the hold's own, once.
    let about: Vec<EventType> = crate::events::read_all(&f, &T, 0, 100)
        .await
        .into_iter()
        .filter(|e| e.object == hold.id)
        .map(|e| e.kind)
        .collect();
    use EventType::*;
    assert_eq!(about, [StockHeld, HoldCreated, StockHoldExpired, HoldExpired]);
    f.finish().await;
}
