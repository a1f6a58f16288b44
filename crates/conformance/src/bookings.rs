//! Bookings: made, read, confirmed, extended, released, cancelled, listed, expired; never
//! overlapping.

use crate::fixture::{body, fresh, key, replayed, Fixture, T};
use allot_core::{validate, AllotError, BookingRequest, BookingStatus, Executed};
use serde_json::json;

/// A tentative booking (`hold_ttl_ms`) of `resource` on day `day` of May 2030.
fn tentative(f: &Fixture, id: &str, day: u32, hold: bool) -> BookingRequest {
    let mut b = json!({"start": format!("2030-05-{day:02}T00:00:00Z"), "end": format!("2030-05-{day:02}T12:00:00Z"),
                       "holder": "h"});
    if hold {
        b["hold_ttl_ms"] = json!(60_000);
    }
    validate::booking(
        id.into(),
        "room",
        body(b),
        f.store.default_booking_strategy(),
        &f.limits,
    )
    .unwrap()
}

/// A keyed booking runs once and replays; a tentative one is confirmed, another extended
/// then released, a confirmed one cancelled (its range free again); the window lists what
/// is live in it; a tentative one past its expiry is expired by the sweeper, once.
pub async fn booking_lifecycle(f: Fixture) {
    let s = &f.store;
    fresh(s.book(&T, tentative(&f, "b1", 1, true), key("book-1")).await);
    replayed(s.book(&T, tentative(&f, "b1", 1, true), key("book-1")).await);
    assert_eq!(s.get_booking(&T, "b1").await.unwrap().status, BookingStatus::Held);
    let c = fresh(s.confirm_booking(&T, "b1", key("confirm-1")).await);
    assert_eq!((c.status, c.expires_at), (BookingStatus::Confirmed, None));
    replayed(s.confirm_booking(&T, "b1", key("confirm-1")).await);
    let b2 = fresh(s.book(&T, tentative(&f, "b2", 2, true), None).await);
    let longer = fresh(s.extend_booking(&T, "b2", 120_000, key("extend-1")).await);
    assert!(longer.expires_at > b2.expires_at);
    let released = fresh(s.release_booking(&T, "b2", key("release-1")).await);
    assert_eq!(released.status, BookingStatus::Released);
    replayed(s.release_booking(&T, "b2", key("release-1")).await);
    fresh(s.book(&T, tentative(&f, "b3", 2, false), None).await);
    let cancelled = fresh(s.cancel_booking(&T, "b1", key("cancel-1")).await);
    assert_eq!(cancelled.status, BookingStatus::Cancelled);
    replayed(s.cancel_booking(&T, "b1", key("cancel-1")).await);
    fresh(s.book(&T, tentative(&f, "b4", 1, false), None).await);
    let from = "2030-05-01T00:00:00Z".parse().unwrap();
    let to = "2030-05-03T00:00:00Z".parse().unwrap();
    let live: Vec<String> = s
        .list_bookings(&T, "room", from, to, 10)
        .await
        .unwrap()
        .into_iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(live, ["b4", "b3"]);
    let b5 = fresh(s.book(&T, tentative(&f, "b5", 4, true), None).await);
    f.clock.advance_past(b5.expires_at.unwrap());
    assert_eq!(s.expire_bookings(s.now(), 100).await.unwrap(), 1);
    assert_eq!(s.expire_bookings(s.now(), 100).await.unwrap(), 0);
    assert!(matches!(
        s.get_booking(&T, "nope").await,
        Err(AllotError::NotFound { .. })
    ));
    f.finish().await;
}

/// Ten identical bookings at once: exactly one is made, nine overlap it.
pub async fn one_booking_of_ten(f: Fixture) {
    let mut set = tokio::task::JoinSet::new();
    for n in 0..10 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let body = serde_json::from_value(
                json!({"start": "2030-05-01T00:00:00Z", "end": "2030-05-02T00:00:00Z", "holder": format!("h{n}")}),
            )
            .unwrap();
            let strategy = store.default_booking_strategy();
            let req = validate::booking(format!("b{n}"), "room", body, strategy, &limits).unwrap();
            store.book(&T, req, None).await
        });
    }
    let (mut ok, mut overlap) = (0, 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(_)) => ok += 1,
            Err(AllotError::BookingOverlap { .. }) => overlap += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, overlap), (1, 9));
    f.finish().await;
}
