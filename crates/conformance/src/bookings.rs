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

/// A booking of `resource` over hours `[from_h, to_h)` counted from 1970-01-01, under `strategy`.
fn hours(f: &Fixture, id: &str, resource: &str, (from_h, to_h): (i64, i64), strategy: &str) -> BookingRequest {
    let at = |h: i64| (chrono::DateTime::<chrono::Utc>::UNIX_EPOCH + chrono::Duration::hours(h)).to_rfc3339();
    let b = json!({"start": at(from_h), "end": at(to_h), "holder": id, "strategy": strategy});
    let strategy = allot_core::BookingStrategy::parse(strategy).unwrap();
    validate::booking(id.into(), resource, body(b), strategy, &f.limits).unwrap()
}

/// Under every safe booking strategy the store runs, 60 bookings at once over two
/// resources: overlapping staggered ranges, ten identical ones, one over an overdue hold and
/// one over a live booking. What is made never overlaps; each refusal names a live booking
/// that overlaps it (so nothing is refused without cause); exactly one of the identical ten
/// is made; the overdue hold gives way; the live booking refuses.
pub async fn never_overlapping_under_every_strategy(f: Fixture) {
    let safe = allot_core::BookingStrategy::ALL
        .into_iter()
        .filter(|s| f.store.supports_booking(*s) && *s != allot_core::BookingStrategy::Naive);
    for strategy in safe.map(|s| s.name()) {
        let (r1, r2) = (format!("{strategy}-1"), format!("{strategy}-2"));
        let lapsing = hours(&f, &format!("{strategy}-hold"), &r1, (100, 101), strategy);
        let lapsing = BookingRequest {
            hold_ttl_ms: Some(60_000),
            ..lapsing
        };
        let hold = fresh(f.store.book(&T, lapsing, None).await);
        fresh(
            f.store
                .book(
                    &T,
                    hours(&f, &format!("{strategy}-live"), &r2, (200, 201), strategy),
                    None,
                )
                .await,
        );
        f.clock.advance_past(hold.expires_at.unwrap());
        let mut wanted: Vec<BookingRequest> = Vec::new();
        for n in 0..48 {
            let r = if n % 2 == 0 { &r1 } else { &r2 };
            wanted.push(hours(&f, &format!("{strategy}-s{n}"), r, (n, n + 3), strategy));
        }
        for n in 0..10 {
            wanted.push(hours(&f, &format!("{strategy}-same{n}"), &r2, (300, 301), strategy));
        }
        wanted.push(hours(&f, &format!("{strategy}-over-hold"), &r1, (100, 102), strategy));
        wanted.push(hours(&f, &format!("{strategy}-over-live"), &r2, (200, 202), strategy));
        let answers = book_all(&f, wanted.clone()).await;
        check_no_overlap(&f, &wanted, &answers).await;
        let made = |prefix: &str| {
            wanted
                .iter()
                .zip(&answers)
                .filter(|(w, a)| w.id.starts_with(prefix) && a.is_ok())
                .count()
        };
        assert_eq!(made(&format!("{strategy}-same")), 1, "{strategy}: one of ten identical");
        assert_eq!(
            made(&format!("{strategy}-over-hold")),
            1,
            "{strategy}: the overdue hold gave way"
        );
        let refused = answers.last().unwrap().as_ref().unwrap_err();
        assert_eq!(
            refused,
            &Some(format!("{strategy}-live")),
            "{strategy}: the live one refuses"
        );
    }
    f.finish().await;
}

/// Book every request at once; each answer is the booking made, or the id an overlap named.
async fn book_all(f: &Fixture, wanted: Vec<BookingRequest>) -> Vec<Result<allot_core::Booking, Option<String>>> {
    let mut set = tokio::task::JoinSet::new();
    for (i, req) in wanted.into_iter().enumerate() {
        let store = f.store.clone();
        set.spawn(async move { (i, store.book(&T, req, None).await) });
    }
    let mut answers = Vec::new();
    while let Some(r) = set.join_next().await {
        let (i, r) = r.unwrap();
        answers.push((
            i,
            match r {
                Ok(Executed::Fresh(b)) => Ok(b),
                Err(AllotError::BookingOverlap { conflicting_booking_id }) => Err(conflicting_booking_id),
                other => panic!("{other:?}"),
            },
        ));
    }
    answers.sort_by_key(|(i, _)| *i);
    answers.into_iter().map(|(_, a)| a).collect()
}

/// What was made is pairwise disjoint per resource, and every refusal names a live booking
/// on its resource overlapping it.
async fn check_no_overlap(
    f: &Fixture,
    wanted: &[BookingRequest],
    answers: &[Result<allot_core::Booking, Option<String>>],
) {
    let made: Vec<&allot_core::Booking> = answers.iter().filter_map(|a| a.as_ref().ok()).collect();
    for (i, a) in made.iter().enumerate() {
        for b in &made[i + 1..] {
            let apart = a.resource != b.resource || a.end <= b.start || b.end <= a.start;
            assert!(apart, "{} and {} overlap", a.id, b.id);
        }
    }
    for (w, a) in wanted.iter().zip(answers) {
        let Err(named) = a else { continue };
        let id = named
            .as_deref()
            .unwrap_or_else(|| panic!("{}: refused without a name", w.id));
        let b = f.store.get_booking(&T, id).await.unwrap();
        assert!(b.status.blocks(), "{}: refused by {id}, which is {:?}", w.id, b.status);
        let overlaps = b.resource == w.resource && b.start < w.end && w.start < b.end;
        assert!(overlaps, "{}: refused by {id}, which is not in its way", w.id);
    }
}
