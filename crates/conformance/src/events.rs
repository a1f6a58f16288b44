//! The change feed: every kind of change writes its event with the ledger's facts; cursors
//! run 1, 2, 3… per tenant without a gap, also under concurrent writers; pages, filters and
//! thresholds; a tenant never reads another's events.

use crate::fixture::{body, fresh, Fixture, T};
use allot_core::event::{query, Event, EventType};
use allot_core::hold::Release;
use allot_core::{validate, Cancel, Tenant};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Every event of `tenant` after `after`, read page by page (`limit` a page) once the
/// sequencer has numbered all that was written.
pub(crate) async fn read_all(f: &Fixture, tenant: &Tenant, after: i64, limit: i64) -> Vec<Event> {
    while f.store.sequence_events(1000).await.unwrap() > 0 {}
    let mut out = Vec::new();
    let mut q = query(after, limit, None, (None, None), &f.limits).unwrap();
    loop {
        let page = f.store.events(tenant, &q).await.unwrap();
        let done = page.events.is_empty();
        out.extend(page.events);
        if done {
            return out;
        }
        q.after = page.next;
    }
}

/// The types of `events`, in order.
fn types(events: &[Event]) -> Vec<EventType> {
    events.iter().map(|e| e.kind).collect()
}

/// Cursors are exactly 1..=n, in order.
fn assert_gap_free(events: &[Event]) {
    let cursors: Vec<i64> = events.iter().map(|e| e.cursor).collect();
    let expected: Vec<i64> = (1..=events.len() as i64).collect();
    assert_eq!(cursors, expected, "cursors without a gap, in order");
}

/// A hold of `quantity` of `sku`, a minute long.
fn hold(f: &Fixture, id: &str, sku: &str, quantity: i64) -> allot_core::HoldRequest {
    let b = body(json!({"lines": [{"sku": sku, "quantity": quantity}], "ttl_ms": 60_000}));
    validate::hold(id.into(), b, f.store.default_strategy(), &f.limits).unwrap()
}

/// Each stock change is one event with the entry's facts and the SKU's totals after it;
/// reaching 0 available is `sku.sold_out`, leaving 0 `sku.back_in_stock`; holds extended,
/// bookings made and cancelled, and jobs discarded are events too; cursors run 1..=n.
pub async fn every_change_is_an_event(f: Fixture) {
    let s = &f.store;
    f.create_sku("E", 3).await;
    let a = f.allocate("E", 2).await;
    fresh(s.create_hold(&T, hold(&f, "h1", "E", 1), None).await);
    let ttl = validate::extend(&body(json!({"ttl_ms": 120_000})), &f.limits).unwrap();
    fresh(s.extend_hold(&T, "h1", ttl, None).await);
    fresh(s.release_hold(&T, Release::new("h1", None), None).await);
    fresh(s.cancel_allocation(&T, Cancel::new(&a.id, None), None).await);
    let b = json!({"start": "2030-05-01T00:00:00Z", "end": "2030-05-01T12:00:00Z", "holder": "h"});
    let booking = validate::booking("b1".into(), "room", body(b), s.default_booking_strategy(), &f.limits).unwrap();
    fresh(s.book(&T, booking, None).await);
    fresh(s.cancel_booking(&T, "b1", None).await);
    let job = validate::enqueue(
        "q",
        body(json!({"jobs": [{"payload": 1, "max_attempts": 1}]})),
        s.now(),
        &f.limits,
    );
    fresh(s.enqueue(&T, job.unwrap(), None).await);
    let claim = validate::claim("q", body(json!({"max": 1})), s.default_claim_strategy(), &f.limits).unwrap();
    let leased = fresh(s.claim_jobs(&T, claim, None).await);
    let fail = validate::fail(
        body(json!({"lease_token": leased[0].lease_token, "error": "boom"})),
        &f.limits,
    );
    fresh(s.fail_job(&T, leased[0].id, fail.unwrap(), None).await);

    let events = read_all(&f, &T, 0, 3).await;
    assert_gap_free(&events);
    use EventType::*;
    assert_eq!(
        types(&events),
        [
            SkuCreated,
            AllocationCreated,
            StockHeld,
            SkuSoldOut,
            HoldCreated,
            HoldExtended,
            StockHoldReleased,
            SkuBackInStock,
            HoldReleased,
            AllocationCancelled,
            BookingCreated,
            BookingCancelled,
            JobDiscarded
        ]
    );
    let facts = |i: usize| &events[i].data;
    assert_eq!(events[1].object, a.id, "an allocation's event is about the allocation");
    assert_eq!(
        (facts(1)["delta"].as_i64(), facts(1)["available"].as_i64()),
        (Some(-2), Some(1))
    );
    assert_eq!(
        (facts(2)["held_delta"].as_i64(), facts(2)["available"].as_i64()),
        (Some(1), Some(0))
    );
    assert_eq!(
        (facts(3)["sku"].as_str(), facts(3)["location"].as_str()),
        (Some("E"), None)
    );
    let made = facts(4);
    assert_eq!(
        (made["kind"].as_str(), made["status"].as_str(), &made["bookings"]),
        (Some("stock"), Some("held"), &json!([])),
        "one hold.created names the hold's lines, after the events of its stock"
    );
    let line = &made["lines"][0];
    assert_eq!((line["sku"].as_str(), line["quantity"].as_i64()), (Some("E"), Some(1)));
    assert_eq!(events[8].object, events[4].object);
    assert_eq!(facts(8)["status"].as_str(), Some("released"));
    assert_eq!(facts(9)["available"].as_i64(), Some(3), "the cancel gave 2 back");
    assert_eq!(facts(11)["status"].as_str(), Some("cancelled"));
    assert_eq!(events[12].object, leased[0].id.to_string());
    for e in &events {
        let age = (s.now() - e.at).num_seconds();
        assert!((0..3600).contains(&age), "{e:?} is stamped by the store's clock");
    }
    f.finish().await;
}

/// A page is at most `limit`, `next` resumes after it; `types` and `object` filter and
/// `next` still moves past what they skipped; another tenant's feed has its own cursors
/// (and its own newest cursor);
/// retention deletes in bounded batches and never lets a cursor be given twice.
pub async fn pages_filters_and_tenants(f: Fixture) {
    let s = &f.store;
    for sku in ["P1", "P2", "P3"] {
        f.create_sku(sku, 1).await;
    }
    let other = Tenant::stored("other-tenant");
    f.create_sku_of(&other, "P1", 5).await;
    // Before the sequencer (PostgreSQL), the oldest waiting event is one just written.
    if let Some(at) = s.oldest_unsequenced_event().await.unwrap() {
        assert!((s.now() - at).num_seconds().abs() < 60, "{at}");
    }
    while s.sequence_events(1000).await.unwrap() > 0 {}
    assert_eq!(
        s.oldest_unsequenced_event().await.unwrap(),
        None,
        "none waits once numbered"
    );
    let first = s
        .events(&T, &query(0, 2, None, (None, None), &f.limits).unwrap())
        .await
        .unwrap();
    assert_eq!(first.events.iter().map(|e| e.cursor).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(first.next, 2);
    let rest = s
        .events(&T, &query(2, 2, None, (None, None), &f.limits).unwrap())
        .await
        .unwrap();
    assert_eq!(
        rest.events.iter().map(|e| e.object.as_str()).collect::<Vec<_>>(),
        ["P3"]
    );
    let about = query(0, 10, Some("sku.created"), (Some("P2"), None), &f.limits).unwrap();
    let page = s.events(&T, &about).await.unwrap();
    assert_eq!(page.events.iter().map(|e| e.cursor).collect::<Vec<_>>(), [2]);
    assert_eq!(page.next, 3, "next moves past the events the filter skipped");
    let none = query(0, 10, Some("job.discarded"), (None, None), &f.limits).unwrap();
    assert_eq!(s.events(&T, &none).await.unwrap().next, 3);
    let theirs = read_all(&f, &other, 0, 10).await;
    assert_eq!(theirs.len(), 1, "another tenant reads only its own");
    assert_eq!(s.last_cursor(&T).await.unwrap(), 3, "the newest cursor of the tenant");
    assert_eq!(s.last_cursor(&other).await.unwrap(), 1);
    assert_eq!(
        s.last_cursor(&Tenant::stored("nobody")).await.unwrap(),
        0,
        "0 before the first"
    );
    assert_eq!((theirs[0].cursor, theirs[0].data["on_hand"].as_i64()), (1, Some(5)));
    // Retention: what happened before the cut goes; the cursor goes on after it.
    f.clock.advance_ms(60_000);
    assert_eq!(s.prune_events(s.now(), 2).await.unwrap(), 2, "bounded by its batch");
    assert_eq!(s.prune_events(s.now(), 100).await.unwrap(), 2);
    f.create_sku("P4", 1).await;
    let after = read_all(&f, &T, 0, 10).await;
    assert_eq!(
        after.iter().map(|e| e.cursor).collect::<Vec<_>>(),
        [4],
        "no cursor given twice"
    );
    f.finish().await;
}

/// Writers allocate a hot SKU to nothing while a reader follows the feed (and, on
/// PostgreSQL, the sequencer numbers as they go): the reader sees every allocation exactly
/// once, cursors without a gap, and exactly one `sku.sold_out`.
pub async fn exactly_once_by_cursor_under_writers(f: Fixture) {
    const STOCK: i64 = 40;
    f.create_sku("HOT", STOCK).await;
    let (store, limits) = (f.store.clone(), f.limits.clone());
    let (stop, writing) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicBool::new(true)));
    let sequencer = {
        let (store, writing) = (store.clone(), writing.clone());
        tokio::spawn(async move {
            while writing.load(Ordering::Acquire) {
                store.sequence_events(7).await.unwrap();
                tokio::task::yield_now().await;
            }
        })
    };
    let reader = {
        let (store, stop, limits) = (store.clone(), stop.clone(), limits.clone());
        tokio::spawn(async move {
            let (mut seen, mut q) = (Vec::new(), query(0, 5, None, (None, None), &limits).unwrap());
            loop {
                let finished = stop.load(Ordering::Acquire);
                let page = store.events(&T, &q).await.unwrap();
                q.after = page.next;
                let empty = page.events.is_empty();
                seen.extend(page.events);
                if finished && empty {
                    return seen;
                }
                tokio::task::yield_now().await;
            }
        })
    };
    let writers: Vec<_> = (0..8)
        .map(|_| {
            let requests: Vec<_> = (0..8).map(|_| f.allocation("HOT", 1)).collect();
            let store = store.clone();
            tokio::spawn(async move {
                let mut won = 0;
                for r in requests {
                    if let Ok(allot_core::Executed::Fresh(_)) = store.allocate(&T, r, None).await {
                        won += 1;
                    }
                }
                won
            })
        })
        .collect();
    let mut won = 0;
    for w in writers {
        won += w.await.unwrap();
    }
    assert_eq!(won, STOCK, "64 tries for 40 units: exactly 40 win");
    writing.store(false, Ordering::Release);
    sequencer.await.unwrap();
    while store.sequence_events(1000).await.unwrap() > 0 {}
    stop.store(true, Ordering::Release);
    let seen = reader.await.unwrap();
    assert_gap_free(&seen);
    let count = |t: EventType| seen.iter().filter(|e| e.kind == t).count();
    assert_eq!(count(EventType::AllocationCreated), STOCK as usize);
    assert_eq!(count(EventType::SkuSoldOut), 1);
    let mut ids: Vec<&str> = seen
        .iter()
        .filter(|e| e.kind == EventType::AllocationCreated)
        .map(|e| e.object.as_str())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), STOCK as usize, "each allocation once");
    drop(store);
    f.finish().await;
}

/// A storm that sells a SKU out yields exactly one `sku.low_stock` (its threshold set by
/// `set_low_stock`) and one `sku.sold_out`; a restock one `sku.back_in_stock`.
pub async fn thresholds_once_under_a_storm(f: Fixture) {
    f.create_sku("T", 10).await;
    let sku = f.store.set_low_stock(&T, "T", Some(4)).await.unwrap();
    assert_eq!(sku.low_stock_below, Some(4));
    assert_eq!(f.store.get_sku(&T, "T").await.unwrap().low_stock_below, Some(4));
    assert!(f.store.set_low_stock(&T, "nope", Some(4)).await.is_err(), "not_found");
    let tries: Vec<_> = (0..16)
        .map(|_| {
            let (store, req) = (f.store.clone(), f.allocation("T", 1));
            tokio::spawn(
                async move { matches!(store.allocate(&T, req, None).await, Ok(allot_core::Executed::Fresh(_))) },
            )
        })
        .collect();
    let mut won = 0;
    for t in tries {
        won += usize::from(t.await.unwrap());
    }
    assert_eq!(won, 10, "16 tries for 10 units");
    let adjust = validate::adjustment("T", body(json!({"delta": 3})), &f.limits).unwrap();
    fresh(f.store.adjust(&T, adjust, None).await);
    let events = read_all(&f, &T, 0, 100).await;
    let count = |t: EventType| events.iter().filter(|e| e.kind == t).count();
    assert_eq!(
        (
            count(EventType::SkuLowStock),
            count(EventType::SkuSoldOut),
            count(EventType::SkuBackInStock)
        ),
        (1, 1, 1)
    );
    let low = events.iter().find(|e| e.kind == EventType::SkuLowStock).unwrap();
    assert_eq!(
        (low.data["available"].as_i64(), low.data["low_stock_below"].as_i64()),
        (Some(3), Some(4))
    );
    f.finish().await;
}

/// One request that takes from several locations (its stock rows all change before its
/// entries are written, on SQLite): each entry carries its own "after", and the SKU sells out
/// once, each location once.
pub async fn one_request_across_locations(f: Fixture) {
    let s = &f.store;
    f.create_sku("SPLIT", 2).await;
    let north = validate::location(body(json!({"location": "north", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, north, 10).await.unwrap();
    let b = body(json!({"sku": "SPLIT", "from": "default", "to": "north", "quantity": 1}));
    fresh(
        s.transfer(&T, validate::transfer("t1".into(), b, &f.limits).unwrap(), None)
            .await,
    );
    let b = body(json!({"lines": [{"sku": "SPLIT", "quantity": 2}], "allow_split": true}));
    let req = validate::allocation("split-1".into(), b, s.default_strategy(), &f.limits).unwrap();
    fresh(s.allocate(&T, req, None).await);
    let events = read_all(&f, &T, 0, 100).await;
    let after: Vec<Option<i64>> = events
        .iter()
        .filter(|e| e.kind == EventType::AllocationCreated)
        .map(|e| e.data["available"].as_i64())
        .collect();
    assert_eq!(after, [Some(1), Some(0)], "each entry's own after");
    let sold_out = |location: Option<&str>| {
        events
            .iter()
            .filter(|e| e.kind == EventType::SkuSoldOut && e.data["location"].as_str() == location)
            .count()
    };
    assert_eq!(
        (sold_out(None), sold_out(Some("default")), sold_out(Some("north"))),
        (1, 1, 1)
    );
    f.finish().await;
}

/// Rounds of one entry each (PostgreSQL's sequencer, `sequence_events(1)`): a change that
/// came later never gets a cursor before one that came earlier (a hold's extension after the
/// allocation made before it), and a location a later round first sees starts from 0 (its
/// `sku.back_in_stock` there).
pub async fn order_kept_across_small_rounds(f: Fixture) {
    let s = &f.store;
    f.create_sku("ORD", 3).await;
    while s.sequence_events(1000).await.unwrap() > 0 {}
    fresh(s.create_hold(&T, hold(&f, "o-h1", "ORD", 1), None).await);
    f.allocate("ORD", 1).await;
    let ttl = validate::extend(&body(json!({"ttl_ms": 120_000})), &f.limits).unwrap();
    fresh(s.extend_hold(&T, "o-h1", ttl, None).await);
    while s.sequence_events(1).await.unwrap() > 0 {}
    let east = validate::location(body(json!({"location": "east", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, east, 10).await.unwrap();
    let b = body(json!({"sku": "ORD", "from": "default", "to": "east", "quantity": 1}));
    fresh(
        s.transfer(&T, validate::transfer("o-t1".into(), b, &f.limits).unwrap(), None)
            .await,
    );
    while s.sequence_events(1).await.unwrap() > 0 {}
    let events = read_all(&f, &T, 1, 100).await;
    assert_gap_free_from(&events, 2);
    let kinds: Vec<EventType> = events.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds[..4],
        [
            EventType::StockHeld,
            EventType::HoldCreated,
            EventType::AllocationCreated,
            EventType::HoldExtended
        ],
        "the extension came after the allocation"
    );
    // The transfer: its two sides, `default` sold out (3 - 1 held - 1 allocated - 1 moved),
    // `east` back in stock from 0, each right after its own side.
    let mut rest: Vec<(EventType, Option<&str>, Option<i64>)> = events[4..]
        .iter()
        .filter(|e| e.kind != EventType::TransferCreated)
        .map(|e| (e.kind, e.data["location"].as_str(), e.data["available"].as_i64()))
        .collect();
    rest.sort_by_key(|r| r.1.map(str::to_string));
    assert_eq!(
        rest,
        [
            (EventType::SkuSoldOut, Some("default"), Some(0)),
            (EventType::SkuBackInStock, Some("east"), Some(1)),
        ]
    );
    assert_eq!(kinds.iter().filter(|k| **k == EventType::TransferCreated).count(), 2);
    f.finish().await;
}

/// Cursors `first..` without a gap, in order.
fn assert_gap_free_from(events: &[Event], first: i64) {
    let cursors: Vec<i64> = events.iter().map(|e| e.cursor).collect();
    let expected: Vec<i64> = (first..first + events.len() as i64).collect();
    assert_eq!(cursors, expected, "cursors without a gap, in order");
}

/// A reader waiting for events is woken by a write (SQLite) or by the sequencer numbering
/// it (PostgreSQL, where a reader on another instance is woken too, by the round's NOTIFY),
/// long before its wait or the poll (a minute in this suite) runs out.
pub async fn a_waiting_reader_is_woken(f: Fixture) {
    while f.store.sequence_events(1000).await.unwrap() > 0 {}
    // PostgreSQL serves several allot instances from one database: a reader on another
    // instance (another store, another pool) is woken by this one's sequencer too. SQLite's
    // file belongs to one process.
    let mut readers = vec![f.store.clone()];
    if f.store.capabilities().backend == allot_core::Backend::Postgres {
        readers.push(f.reopen().await);
    }
    let waiters: Vec<_> = readers
        .into_iter()
        .map(|store| {
            tokio::spawn(async move {
                let started = std::time::Instant::now();
                store.wait_for_events(&T, std::time::Duration::from_secs(30)).await;
                started.elapsed()
            })
        })
        .collect();
    // A write and a round every 100 ms until every waiter is back: whichever write comes
    // after a waiter (and the other instance's LISTEN) is ready wakes it.
    let started = std::time::Instant::now();
    for i in 0..100 {
        if waiters.iter().all(tokio::task::JoinHandle::is_finished) {
            break;
        }
        f.create_sku(&format!("WAKE{i}"), 1).await;
        while f.store.sequence_events(1000).await.unwrap() > 0 {}
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    for waiter in waiters {
        let waited = waiter.await.unwrap();
        // The poll is a minute (Fixture::limits): only a wake-up returns this early.
        assert!(waited < std::time::Duration::from_secs(20), "woken after {waited:?}");
    }
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    f.finish().await;
}

/// A SKU stocked at several locations gets its thresholds per location too: a transfer that
/// stocks an empty location is `sku.back_in_stock` there, one that empties a location is
/// `sku.sold_out` there, and neither changes the SKU as a whole (no SKU-level event).
pub async fn thresholds_per_location(f: Fixture) {
    let s = &f.store;
    f.create_sku("LOC", 3).await;
    let north = validate::location(body(json!({"location": "north", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, north, 10).await.unwrap();
    for (id, quantity) in [("t1", 2), ("t2", 1)] {
        let b = body(json!({"sku": "LOC", "from": "default", "to": "north", "quantity": quantity}));
        fresh(
            s.transfer(&T, validate::transfer(id.into(), b, &f.limits).unwrap(), None)
                .await,
        );
    }
    let events = read_all(&f, &T, 0, 100).await;
    let thresholds: Vec<(EventType, Option<&str>)> = events
        .iter()
        .filter(|e| matches!(e.kind, EventType::SkuSoldOut | EventType::SkuBackInStock))
        .map(|e| (e.kind, e.data["location"].as_str()))
        .collect();
    assert_eq!(
        thresholds,
        [
            (EventType::SkuBackInStock, Some("north")),
            (EventType::SkuSoldOut, Some("default"))
        ]
    );
    f.finish().await;
}
