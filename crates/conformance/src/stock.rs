//! Stock: SKUs, the ledger, allocations, adjustments, cancels, returns, locations.

use crate::fixture::{body, fresh, key, replayed, reused, Fixture, T};
use allot_core::hold::{Confirm, Release};
use allot_core::Cancel;
use allot_core::{validate, Allocation, AllotError, Executed, SkuFilter, Strategy};
use serde_json::json;

/// `health`, reads and listings: a SKU as created, a missing one `not_found`; SKUs paged by
/// name, filtered by availability and searched by a name prefix; an allocation read back and listed; the ledger of a SKU
/// from its first entry and after one.
pub async fn stock_reads_and_lists(f: Fixture) {
    let s = &f.store;
    s.health().await.unwrap();
    for (sku, on_hand) in [("A", 5), ("B", 3), ("C", 0), ("BOX-1", 1), ("BOX-2", 0), ("BOX", 2)] {
        f.create_sku(sku, on_hand).await;
    }
    assert_eq!(s.get_sku(&T, "A").await.unwrap().on_hand, 5);
    assert!(matches!(s.get_sku(&T, "Z").await, Err(AllotError::NotFound { .. })));
    let names = |v: Vec<allot_core::Sku>| v.into_iter().map(|x| x.sku).collect::<Vec<_>>();
    let list = |after: Option<&'static str>, below: Option<i64>, prefix: Option<&str>, limit: u32| {
        let filter = SkuFilter {
            available_below: below,
            prefix: prefix.map(str::to_string),
        };
        async move {
            names(
                s.list_skus(&T, &filter, allot_core::Page::new(after, limit))
                    .await
                    .unwrap()
                    .items,
            )
        }
    };
    assert_eq!(list(None, None, None, 2).await, ["A", "B"]);
    assert_eq!(list(Some("BOX-2"), None, None, 10).await, ["C"]);
    assert_eq!(list(None, Some(1), None, 10).await, ["BOX-2", "C"]);
    assert_eq!(list(None, None, Some("BOX"), 10).await, ["BOX", "BOX-1", "BOX-2"]);
    assert_eq!(list(Some("BOX"), None, Some("BOX-"), 1).await, ["BOX-1"]);
    assert_eq!(list(None, Some(1), Some("BOX"), 10).await, ["BOX-2"]);
    assert!(list(None, None, Some("BOY"), 10).await.is_empty());
    let a = f.allocate("A", 2).await;
    assert_eq!(s.get_allocation(&T, &a.id).await.unwrap().lines[0].quantity, 2);
    assert!(matches!(
        s.get_allocation(&T, "nope").await,
        Err(AllotError::NotFound { .. })
    ));
    let listed = s
        .list_allocations(&T, allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items;
    assert_eq!(
        listed.iter().map(|x| x.id.as_str()).collect::<Vec<_>>(),
        [a.id.as_str()]
    );
    let ledger = s.ledger(&T, "A", allot_core::Page::new(0, 10)).await.unwrap().items;
    let deltas: Vec<i64> = ledger.iter().map(|e| e.delta).collect();
    assert_eq!(deltas, [5, -2]);
    assert_eq!(
        s.ledger(&T, "A", allot_core::Page::new(ledger[0].id, 10))
            .await
            .unwrap()
            .items
            .len(),
        1
    );
    f.finish().await;
}
/// 200 concurrent allocations of 1 on 50: exactly 50 succeed, the rest are refused for stock
/// (or contention), and on_hand is 0.
pub async fn exact_successes_under_contention(f: Fixture) {
    f.create_sku("HOT", 50).await;
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let (store, req) = (f.store.clone(), f.allocation("HOT", 1));
        set.spawn(async move { store.allocate(&T, req, None).await });
    }
    let (mut ok, mut refused) = (0, 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(_)) => ok += 1,
            Err(AllotError::InsufficientStock { .. }) | Err(AllotError::Contention { .. }) => refused += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, refused), (50, 150));
    assert_eq!(f.store.get_sku(&T, "HOT").await.unwrap().on_hand, 0);
    f.finish().await;
}

/// A refusal names a figure that shows it: with every strategy the store has, 40 two-line
/// allocations (a hot SKU and a cold one, so that none takes a single-line fast path) race
/// 10 cancels that give the hot SKU's stock back; each `insufficient_stock` names an
/// `available` below what it was asked for, and the books balance. (`allot sim --faults`
/// found `atomic` refusing 2 with `available: 4`: its conditional UPDATE had failed on a row
/// newer than the read its figure came from, after a cancel gave stock back.)
pub async fn a_refusal_never_contradicts_its_figure(f: Fixture) {
    let strategies = [
        Strategy::Atomic,
        Strategy::Pessimistic,
        Strategy::Optimistic,
        Strategy::Segmented,
        Strategy::Serialized,
    ];
    for (i, strategy) in strategies.into_iter().filter(|s| f.store.supports(*s)).enumerate() {
        let (hot, cold) = (format!("HOT{i}"), format!("COLD{i}"));
        f.create_sku(&hot, 12).await;
        f.create_sku(&cold, 1000).await;
        let request = |q: i64| {
            let b = body(json!({"lines": [{"sku": hot, "quantity": q}, {"sku": cold, "quantity": 1}]}));
            validate::allocation(uuid::Uuid::new_v4().to_string(), b, strategy, &f.limits).unwrap()
        };
        let mut earlier = Vec::new();
        for _ in 0..10 {
            earlier.push(fresh(f.store.allocate(&T, request(1), None).await).id);
        }
        let mut set = tokio::task::JoinSet::new();
        for n in 0..50 {
            let store = f.store.clone();
            if n % 5 == 0 {
                let id = earlier.pop().unwrap();
                set.spawn(async move {
                    store
                        .cancel_allocation(&T, Cancel::new(id, None), None)
                        .await
                        .map(|_| 0)
                });
            } else {
                let q = 1 + n % 2;
                let req = request(q);
                set.spawn(async move { store.allocate(&T, req, None).await.map(|_| q) });
            }
        }
        let mut taken = 0;
        while let Some(r) = set.join_next().await {
            match r.unwrap() {
                Ok(q) => taken += q,
                Err(AllotError::InsufficientStock {
                    requested, available, ..
                }) => assert!(
                    available < requested,
                    "{strategy:?}: refused {requested} with available {available}"
                ),
                Err(AllotError::Contention { .. }) => {}
                other => panic!("{strategy:?}: {other:?}"),
            }
        }
        assert_eq!(
            f.store.get_sku(&T, &hot).await.unwrap().on_hand,
            12 - taken,
            "{strategy:?}"
        );
    }
    f.finish().await;
}

/// 20 concurrent requests with one idempotency key: one effect; the others replay it or find
/// the key in use; a later retry replays the first answer byte for byte.
pub async fn one_key_one_effect(f: Fixture) {
    f.create_sku("K", 100).await;
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (store, req) = (f.store.clone(), f.allocation("K", 3));
        set.spawn(async move { store.allocate(&T, req, key("order-1")).await });
    }
    let mut fresh = Vec::new();
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(a)) => fresh.push(a.id),
            Ok(Executed::Replayed(resp)) => assert_eq!(resp.code, 200),
            Err(AllotError::IdempotencyKeyInUse) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(fresh.len(), 1, "one effect");
    assert_eq!(f.store.get_sku(&T, "K").await.unwrap().on_hand, 97);
    let again = f
        .store
        .allocate(&T, f.allocation("K", 3), key("order-1"))
        .await
        .unwrap();
    let Executed::Replayed(resp) = again else {
        panic!("replayed")
    };
    let first: Allocation = serde_json::from_slice(&resp.body).unwrap();
    assert_eq!(first.id, fresh[0], "the first answer, as stored");
    f.finish().await;
}

/// After a replay (or a refusal) the key is free the moment the answer is back: a request
/// with the same key and another body right after it — through a second store on the same
/// database, so on another connection — is `idempotency_key_reused`, never
/// `idempotency_key_in_use` (the transaction ended before the answer), 20 times in a row.
pub async fn a_replay_frees_its_key_at_once(f: Fixture) {
    f.create_sku("R", 1000).await;
    let second = f.reopen().await;
    for n in 0..20 {
        let k = format!("k{n}");
        let first = f.store.allocate(&T, f.allocation("R", 1), key(&k)).await.unwrap();
        assert!(matches!(first, Executed::Fresh(_)));
        let again = f.store.allocate(&T, f.allocation("R", 1), key(&k)).await.unwrap();
        assert!(matches!(again, Executed::Replayed(_)));
        let err = second.allocate(&T, f.allocation("R", 1), reused(&k)).await.unwrap_err();
        assert_eq!(err.code(), "idempotency_key_reused", "after the replay of {k}");
        let err = f
            .store
            .allocate(&T, f.allocation("R", 1), reused(&k))
            .await
            .unwrap_err();
        let err2 = second.allocate(&T, f.allocation("R", 1), reused(&k)).await.unwrap_err();
        assert_eq!(
            (err.code(), err2.code()),
            ("idempotency_key_reused", "idempotency_key_reused"),
            "after the refusal of {k}"
        );
    }
    assert_eq!(f.store.get_sku(&T, "R").await.unwrap().on_hand, 980);
    drop(second);
    f.finish().await;
}

/// The store's clock, ten days ahead of the database's, gives every instant a write records:
/// every ledger entry of every kind of write (the single-statement allocation, the envelope,
/// `batched`, holds and their partial confirm, units, cancels, returns, transfers, levels)
/// is stamped within the writes' window on that clock, and a keyed write's idempotency key
/// is as old as the clock says (pruning before the window keeps it, after it takes it).
pub async fn every_instant_comes_from_the_clock(f: Fixture) {
    f.clock.advance_ms(10 * 86_400_000);
    let from = f.store.now();
    let (s, l) = (&f.store, &f.limits);
    f.create_sku("C", 100).await;
    s.adjust(
        &T,
        validate::adjustment("C", body(json!({"delta": 5})), l).unwrap(),
        None,
    )
    .await
    .unwrap();
    let fast = f.allocation("C", 1);
    let fast_id = fast.id.clone();
    s.allocate(&T, fast, None).await.unwrap();
    s.allocate(&T, f.allocation("C", 1), key("clock-1")).await.unwrap();
    if s.supports(Strategy::Batched) {
        let b = body(json!({"lines": [{"sku": "C", "quantity": 1}], "strategy": "batched"}));
        let req = validate::allocation("b1".into(), b, Strategy::Batched, l).unwrap();
        s.allocate(&T, req, None).await.unwrap();
    }
    let hold = |id: &str| {
        let b = body(json!({"lines": [{"sku": "C", "quantity": 3}], "ttl_ms": 600_000}));
        validate::hold(id.into(), b, s.default_strategy(), l).unwrap()
    };
    s.create_hold(&T, hold("h1"), None).await.unwrap();
    let part = validate::confirm(body(json!({"lines": [{"sku": "C", "quantity": 1}]})), l).unwrap();
    s.confirm_hold(&T, Confirm::new("h1", part, None), None).await.unwrap();
    s.create_hold(&T, hold("h2"), None).await.unwrap();
    s.release_hold(&T, Release::new("h2", None), None).await.unwrap();
    s.cancel_allocation(&T, Cancel::new(&*fast_id, None), None)
        .await
        .unwrap();
    let back = body(json!({"lines": [{"sku": "C", "quantity": 1, "state": "sellable"}]}));
    let ret = validate::returns("r1".into(), "h1", back, l).unwrap();
    s.return_allocation(&T, ret, None).await.unwrap();
    let loc = validate::location(body(json!({"location": "north"})), l).unwrap();
    s.create_location(&T, loc, 10).await.unwrap();
    let t = body(json!({"sku": "C", "from": "default", "to": "north", "quantity": 2}));
    s.transfer(&T, validate::transfer("t1".into(), t, l).unwrap(), None)
        .await
        .unwrap();
    let level = body(json!({"on_hand": 5, "compare_on_hand": 2}));
    s.set_level(&T, validate::set_level("C", "north", level, l).unwrap(), None)
        .await
        .unwrap();
    let units = body(json!({"units": [{"serial": "A"}, {"serial": "B"}]}));
    s.add_units(&T, validate::add_units("U", units, s.now(), l).unwrap(), None)
        .await
        .unwrap();
    let claim = |id: &str, hold: bool| {
        let b = if hold {
            json!({"sku": "U", "quantity": 1, "hold_ttl_ms": 600_000})
        } else {
            json!({"sku": "U", "quantity": 1})
        };
        validate::unit_claim(id.into(), body(b), s.default_unit_strategy(), l).unwrap()
    };
    s.claim_units(&T, claim("uc1", false), None).await.unwrap();
    s.claim_units(&T, claim("uc2", true), None).await.unwrap();
    let to = f.store.now();
    let mut kinds = std::collections::BTreeSet::new();
    for sku in ["C", "U"] {
        for e in s.ledger(&T, sku, allot_core::Page::new(0, 1000)).await.unwrap().items {
            assert!(
                from <= e.at && e.at <= to,
                "{:?} at {} outside {from}..{to}",
                e.kind,
                e.at
            );
            kinds.insert(e.kind.as_str());
        }
    }
    assert!(kinds.len() >= 9, "every kind of write was seen: {kinds:?}");
    assert_eq!(
        s.prune_idempotency_keys(from, 100).await.unwrap(),
        0,
        "the key is not older than the window"
    );
    assert_eq!(
        s.prune_idempotency_keys(to + chrono::Duration::seconds(1), 100)
            .await
            .unwrap(),
        1
    );
    f.finish().await;
}

/// `adjust`: a keyed adjustment runs once and replays; one that would take on hand below
/// what is held or below zero is refused and changes nothing; `rebalance` spreads a
/// segmented SKU's stock over its buckets and keeps its totals.
pub async fn adjustments_and_rebalance(f: Fixture) {
    let s = &f.store;
    f.create_sku("A", 10).await;
    let adj = |delta: i64| {
        validate::adjustment("A", body(json!({"delta": delta, "reason": "cycle_count"})), &f.limits).unwrap()
    };
    let sku = fresh(s.adjust(&T, adj(5), key("adj-1")).await);
    assert_eq!(sku.on_hand, 15);
    replayed(s.adjust(&T, adj(5), key("adj-1")).await);
    assert!(matches!(
        s.adjust(&T, adj(5), reused("adj-1")).await,
        Err(AllotError::IdempotencyKeyReused)
    ));
    let below = s.adjust(&T, adj(-100), None).await.unwrap_err();
    assert_eq!(below.code(), "insufficient_stock", "{below:?}");
    assert_eq!(
        s.get_sku(&T, "A").await.unwrap().on_hand,
        15,
        "a refused adjustment changes nothing"
    );
    let seg = validate::create_sku(body(json!({"sku": "S", "on_hand": 40, "buckets": 4})), &f.limits).unwrap();
    s.create_sku(&T, seg, None).await.unwrap();
    if s.supports(Strategy::Segmented) {
        let b = body(json!({"lines": [{"sku": "S", "quantity": 7}], "strategy": "segmented"}));
        let req = validate::allocation("seg-1".into(), b, Strategy::Segmented, &f.limits).unwrap();
        s.allocate(&T, req, None).await.unwrap();
    }
    s.rebalance(&T, Some("S")).await.unwrap();
    let after = s.get_sku(&T, "S").await.unwrap();
    let allocated: i64 = s
        .list_allocations(&T, allot_core::Page::new(None, 10))
        .await
        .unwrap()
        .items
        .iter()
        .map(|a| a.lines[0].quantity)
        .sum();
    assert_eq!(after.on_hand, 40 - allocated, "a rebalance keeps the SKU's total");
    f.finish().await;
}

/// `cancel_allocation` gives the stock back once (a keyed cancel replays; cancelling again
/// answers the cancelled allocation); `return_allocation` puts sellable units back on hand,
/// replays with its key, and refuses to return more than was allocated.
pub async fn cancels_and_returns(f: Fixture) {
    let s = &f.store;
    f.create_sku("A", 10).await;
    let a = f.allocate("A", 3).await;
    let c: Allocation = fresh(
        s.cancel_allocation(&T, Cancel::new(&*a.id, None), key("cancel-1"))
            .await,
    );
    assert_eq!(c.status, allot_core::AllocationStatus::Cancelled);
    replayed(
        s.cancel_allocation(&T, Cancel::new(&*a.id, None), key("cancel-1"))
            .await,
    );
    let again = fresh(s.cancel_allocation(&T, Cancel::new(&*a.id, None), None).await);
    assert_eq!(again.status, allot_core::AllocationStatus::Cancelled);
    assert_eq!(s.get_sku(&T, "A").await.unwrap().on_hand, 10, "given back once");
    let b = f.allocate("A", 2).await;
    let ret = |id: &str, q: i64| {
        let lines = body(json!({"lines": [{"sku": "A", "quantity": q, "state": "sellable"}]}));
        validate::returns(id.into(), &b.id, lines, &f.limits).unwrap()
    };
    fresh(s.return_allocation(&T, ret("r1", 1), key("return-1")).await);
    replayed(s.return_allocation(&T, ret("r1", 1), key("return-1")).await);
    assert_eq!(s.get_sku(&T, "A").await.unwrap().on_hand, 9);
    let over = s.return_allocation(&T, ret("r2", 2), None).await.unwrap_err();
    assert_eq!(over.code(), "exceeds_allocation", "only 1 is left to return");
    assert_eq!(s.get_sku(&T, "A").await.unwrap().on_hand, 9);
    assert!(matches!(
        s.cancel_allocation(&T, Cancel::new("nope", None), None).await,
        Err(AllotError::NotFound { .. })
    ));
    f.finish().await;
}

/// Locations: made once (`already_exists` after), listed; a transfer moves stock between two
/// and replays with its key; a level is set only when the compared level is the current one.
pub async fn locations_transfers_and_levels(f: Fixture) {
    let s = &f.store;
    f.create_sku("A", 10).await;
    let loc = || validate::location(body(json!({"location": "north", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, loc(), 10).await.unwrap();
    assert!(matches!(
        s.create_location(&T, loc(), 10).await,
        Err(AllotError::AlreadyExists { .. })
    ));
    let names: Vec<String> = s
        .list_locations(&T)
        .await
        .unwrap()
        .into_iter()
        .map(|l| l.location)
        .collect();
    assert!(names.contains(&"north".to_string()), "{names:?}");
    let t = || {
        let b = body(json!({"sku": "A", "from": "default", "to": "north", "quantity": 4}));
        validate::transfer("t1".into(), b, &f.limits).unwrap()
    };
    fresh(s.transfer(&T, t(), key("transfer-1")).await);
    replayed(s.transfer(&T, t(), key("transfer-1")).await);
    let level = |on_hand: i64, compare: i64| {
        let b = body(json!({"on_hand": on_hand, "compare_on_hand": compare}));
        validate::set_level("A", "north", b, &f.limits).unwrap()
    };
    assert!(matches!(
        s.set_level(&T, level(9, 3), None).await,
        Err(AllotError::CompareFailed { .. })
    ));
    let sku = fresh(s.set_level(&T, level(9, 4), None).await);
    assert_eq!(sku.on_hand, 15, "6 at default, 9 at north");
    let at = |name: &str| sku.levels.iter().find(|l| l.location == name).map(|l| l.on_hand);
    assert_eq!((at("default"), at("north")), (Some(6), Some(9)));
    f.finish().await;
}
