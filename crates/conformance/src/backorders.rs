//! Backorders (see `allot_core::backorder`): a SKU with a `backorder_limit` sells up to that
//! many units beyond stock; what a line owes is filled oldest first in the very write that
//! brings stock back where it may use it (adjustment, receipt, cancel, return, transfer in);
//! a cancel gives back what the line took, fills included, and drops what it owed; holds
//! never backorder; the limit is never passed.

use crate::fixture::{body, fresh, Fixture, T};
use allot_core::hold::{Confirm, Release};
use allot_core::store::Executed;
use allot_core::{validate, Allocation, AllotError, Cancel, LedgerKind, Strategy};
use serde_json::json;

/// An allocation of `quantity` of `sku` with `strategy`.
fn owing(f: &Fixture, sku: &str, quantity: i64, strategy: Strategy) -> allot_core::AllocationRequest {
    let b = body(json!({"lines": [{"sku": sku, "quantity": quantity}]}));
    validate::allocation(uuid::Uuid::new_v4().to_string(), b, strategy, &f.limits).unwrap()
}

/// What a line took (its `from`, fills included) and what it still owes.
fn took(a: &Allocation) -> (i64, Option<i64>) {
    let l = &a.lines[0];
    (l.from.iter().map(|s| s.quantity).sum(), l.backordered)
}

/// The per-request strategies the store has that write stock where they decide (the storms
/// rotate over them).
fn per_request(s: &dyn allot_core::Database) -> Vec<Strategy> {
    [
        Strategy::Atomic,
        Strategy::Pessimistic,
        Strategy::Optimistic,
        Strategy::Segmented,
        Strategy::Serialized,
    ]
    .into_iter()
    .filter(|st| s.supports(*st))
    .collect()
}

/// Add `delta` to `sku`'s on hand by an adjustment.
async fn restock(f: &Fixture, sku: &str, delta: i64) -> allot_core::Sku {
    let adj = validate::adjustment(sku, body(json!({"delta": delta, "reason": "restock"})), &f.limits).unwrap();
    fresh(f.store.adjust(&T, adj, None).await)
}

/// The lifecycle, in order: lines beyond stock owe up to the limit and no further (a refusal
/// changes nothing); an adjustment fills the oldest first; a cancel of a partly filled line
/// gives back what it took and the next owed line takes it; a return refuses what was never
/// handed over; the limit is read per SKU, unit SKUs and unknown ones refused; a hold never
/// owes.
pub async fn backorders_fill_oldest_first(f: Fixture) {
    let s = &f.store;
    let strategy = s.default_strategy();
    f.create_sku("PRE", 2).await;
    let plain = s.allocate(&T, owing(&f, "PRE", 3, strategy), None).await.unwrap_err();
    assert!(
        matches!(plain, AllotError::InsufficientStock { .. }),
        "no limit: {plain:?}"
    );
    let sku = s.set_backorder_limit(&T, "PRE", 5).await.unwrap();
    assert_eq!((sku.backorder_limit, sku.backordered), (5, 0));
    assert!(matches!(
        s.set_backorder_limit(&T, "NOPE", 5).await,
        Err(AllotError::NotFound { .. })
    ));
    let a1 = fresh(s.allocate(&T, owing(&f, "PRE", 3, strategy), None).await);
    assert_eq!(took(&a1), (2, Some(1)), "what there was, and owes the rest");
    let a2 = fresh(s.allocate(&T, owing(&f, "PRE", 3, strategy), None).await);
    assert_eq!(took(&a2), (0, Some(3)));
    let over = s.allocate(&T, owing(&f, "PRE", 2, strategy), None).await.unwrap_err();
    assert!(
        matches!(
            over,
            AllotError::InsufficientStock {
                requested: 2,
                available: 0,
                ..
            }
        ),
        "{over:?}"
    );
    let a3 = fresh(s.allocate(&T, owing(&f, "PRE", 1, strategy), None).await);
    let sku = s.get_sku(&T, "PRE").await.unwrap();
    assert_eq!((sku.on_hand, sku.available, sku.backordered), (0, 0, 5), "at the limit");
    let hold = body(json!({"lines": [{"sku": "PRE", "quantity": 1}], "ttl_ms": 60_000}));
    let hold = validate::hold("h1".into(), hold, strategy, &f.limits).unwrap();
    assert!(matches!(
        s.create_hold(&T, hold, None).await,
        Err(AllotError::InsufficientStock { .. })
    ));

    let sku = restock(&f, "PRE", 2).await;
    assert_eq!((sku.on_hand, sku.backordered), (0, 3), "a1 filled whole, a2 by 1");
    let read = |id: String| async move { s.get_allocation(&T, &id).await.unwrap() };
    assert_eq!(took(&read(a1.id.clone()).await), (3, Some(0)));
    assert_eq!(took(&read(a2.id.clone()).await), (1, Some(2)));
    assert_eq!(took(&read(a3.id.clone()).await), (0, Some(1)), "younger: waits");

    let c = fresh(s.cancel_allocation(&T, Cancel::new(&*a2.id, None), None).await);
    assert_eq!(took(&c), (1, Some(0)), "gave back its fill, dropped what it owed");
    assert_eq!(
        took(&read(a3.id.clone()).await),
        (1, Some(0)),
        "the cancel's unit filled a3"
    );
    let sku = s.get_sku(&T, "PRE").await.unwrap();
    assert_eq!((sku.on_hand, sku.available, sku.backordered), (0, 0, 0));

    let over = validate::returns(
        "r1".into(),
        &a1.id,
        body(json!({"lines": [{"sku": "PRE", "quantity": 4, "state": "sellable"}]})),
        &f.limits,
    );
    assert!(matches!(
        s.return_allocation(&T, over.unwrap(), None).await,
        Err(AllotError::ExceedsAllocation { left: 3, .. })
    ));
    let fills: Vec<String> = s
        .ledger(&T, "PRE", allot_core::Page::new(0, 100))
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|e| e.kind == LedgerKind::BackorderFilled)
        .filter_map(|e| e.reference)
        .collect();
    assert_eq!(
        fills,
        [a1.id.clone(), a2.id.clone(), a3.id.clone()],
        "one entry per fill, in order"
    );
    s.set_backorder_limit(&T, "PRE", 0).await.unwrap();
    assert!(
        s.allocate(&T, owing(&f, "PRE", 1, strategy), None).await.is_err(),
        "limit 0: none"
    );
    s.set_backorder_limit(&T, "PRE", 5).await.unwrap();
    let none = fresh(s.allocate(&T, owing(&f, "PRE", 2, strategy), None).await);
    assert_eq!(took(&none), (0, Some(2)));
    let c = fresh(s.cancel_allocation(&T, Cancel::new(&*none.id, None), None).await);
    assert_eq!(took(&c), (0, Some(0)), "took nothing, gives nothing back");
    let sku = s.get_sku(&T, "PRE").await.unwrap();
    assert_eq!((sku.on_hand, sku.backordered), (0, 0));
    f.finish().await;
}

/// Twenty lines owe in a known order; then, at once, ten receipts of one unit each and
/// twenty more allocations (each strategy the store has, a receipt between them): the ten
/// oldest owed lines and only they are filled, the newcomers never jump the queue (stock
/// comes back only to fill), the limit is never passed, and on hand = stock in - taken.
pub async fn a_storm_never_jumps_the_queue(f: Fixture) {
    let s = &f.store;
    let strategies = per_request(s.as_ref());
    f.create_sku("Q", 0).await;
    s.set_backorder_limit(&T, "Q", 30).await.unwrap();
    let mut first = Vec::new();
    for _ in 0..20 {
        first.push(fresh(s.allocate(&T, owing(&f, "Q", 1, strategies[0]), None).await).id);
    }
    let mut set = tokio::task::JoinSet::new();
    for n in 0..30 {
        let store = s.clone();
        if n % 3 == 0 {
            let b = body(json!({"quantity": 1}));
            let receipt = validate::receipt(format!("r{n}"), "Q", b, &f.limits).unwrap();
            set.spawn(async move { (None, store.receive(&T, receipt, None).await.map(drop)) });
        } else {
            let req = owing(&f, "Q", 1, strategies[n % strategies.len()]);
            set.spawn(async move {
                match store.allocate(&T, req, None).await {
                    Ok(Executed::Fresh(a)) => (Some(a), Ok(())),
                    Ok(other) => panic!("{other:?}"),
                    Err(e) => (None, Err(e)),
                }
            });
        }
    }
    let (mut later, mut refused) = (Vec::new(), 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            (Some(a), _) => later.push(a),
            (None, Ok(())) => {}
            (None, Err(AllotError::InsufficientStock { .. } | AllotError::Contention { .. })) => refused += 1,
            (None, Err(e)) => panic!("{e:?}"),
        }
    }
    assert_eq!(later.len() + refused, 20);
    for (i, id) in first.iter().enumerate() {
        let a = s.get_allocation(&T, id).await.unwrap();
        let want = if i < 10 { (1, Some(0)) } else { (0, Some(1)) };
        assert_eq!(took(&a), want, "owed line {i} of the first twenty");
    }
    for a in &later {
        let a = s.get_allocation(&T, &a.id).await.unwrap();
        assert_eq!(took(&a), (0, Some(1)), "a newcomer waits behind the older lines");
    }
    let sku = s.get_sku(&T, "Q").await.unwrap();
    assert_eq!((sku.on_hand, sku.available), (0, 0), "ten in, ten out");
    assert_eq!(sku.backordered, 10 + later.len() as i64);
    assert!(sku.backordered <= 30, "never past the limit: {}", sku.backordered);
    f.finish().await;
}

/// A line that owes first takes everything the locations it may use have, split or not (so
/// nothing is left for a newcomer to take while it waits), and a line that then fits owes
/// nothing; a line pinned where there is no such location is refused, nothing owed; a cancel
/// of a cart whose other line owes gives that line's stock back and drops what is owed.
pub async fn owed_lines_take_every_location(f: Fixture) {
    let s = &f.store;
    let strategy = s.default_strategy();
    let east = validate::location(body(json!({"location": "east", "priority": 1})), &f.limits).unwrap();
    s.create_location(&T, east, 10).await.unwrap();
    f.create_sku("SPL", 1).await;
    f.create_sku("CRT", 1).await;
    let limits = &f.limits;
    let at_east = |d: i64| async move {
        let b = body(json!({"delta": d, "location": "east", "reason": "restock"}));
        fresh(
            s.adjust(&T, validate::adjustment("SPL", b, limits).unwrap(), None)
                .await,
        )
    };
    at_east(1).await;
    s.set_backorder_limit(&T, "SPL", 5).await.unwrap();
    let a = fresh(s.allocate(&T, owing(&f, "SPL", 2, strategy), None).await);
    assert_eq!(took(&a), (2, None), "fits across locations: owes nothing");
    restock(&f, "SPL", 1).await;
    at_east(1).await;
    let a = fresh(s.allocate(&T, owing(&f, "SPL", 3, strategy), None).await);
    assert_eq!(took(&a), (2, Some(1)), "every location's unit, then owes");
    let pinned = body(json!({"lines": [{"sku": "SPL", "quantity": 1, "location": "nowhere"}]}));
    let pinned = validate::allocation("pin".into(), pinned, strategy, &f.limits).unwrap();
    let refused = s.allocate(&T, pinned, None).await.unwrap_err();
    assert!(matches!(refused, AllotError::InsufficientStock { .. }), "{refused:?}");
    let cart = body(json!({"lines": [{"sku": "CRT", "quantity": 1}, {"sku": "SPL", "quantity": 2}]}));
    let cart = validate::allocation("cart".into(), cart, strategy, &f.limits).unwrap();
    let cart = fresh(s.allocate(&T, cart, None).await);
    assert_eq!(cart.lines[1].backordered, Some(2), "{cart:?}");
    assert_eq!(s.get_sku(&T, "SPL").await.unwrap().backordered, 3);
    fresh(s.cancel_allocation(&T, Cancel::new(&*cart.id, None), None).await);
    let (crt, spl) = (s.get_sku(&T, "CRT").await.unwrap(), s.get_sku(&T, "SPL").await.unwrap());
    assert_eq!((crt.available, spl.backordered), (1, 1), "given back, dropped");
    at_east(1).await;
    let read = s.get_allocation(&T, &a.id).await.unwrap();
    assert_eq!(took(&read), (3, Some(0)), "filled at east");
    f.finish().await;
}

/// A hold of `quantity` of `sku` for `ttl_ms`, named `id`.
async fn hold(f: &Fixture, id: &str, sku: &str, quantity: i64, ttl_ms: u64) -> allot_core::hold::Hold {
    let b = body(json!({"lines": [{"sku": sku, "quantity": quantity}], "ttl_ms": ttl_ms}));
    let req = validate::hold(id.into(), b, f.store.default_strategy(), &f.limits).unwrap();
    fresh(f.store.create_hold(&T, req, None).await)
}

/// What a hold gives back fills the owed lines in the same write, oldest first, before any
/// newcomer can take it: a release, the released part of a partial confirm, an expiry the
/// sweeper finishes, and one a newcomer's allocation meets first.
pub async fn holds_give_back_to_owed_lines(f: Fixture) {
    let s = &f.store;
    let strategy = s.default_strategy();
    f.create_sku("HB", 4).await;
    s.set_backorder_limit(&T, "HB", 10).await.unwrap();
    hold(&f, "hb1", "HB", 2, 60_000).await;
    hold(&f, "hb2", "HB", 2, 60_000).await;
    let a1 = fresh(s.allocate(&T, owing(&f, "HB", 2, strategy), None).await);
    let a2 = fresh(s.allocate(&T, owing(&f, "HB", 1, strategy), None).await);
    assert_eq!((took(&a1), took(&a2)), ((0, Some(2)), (0, Some(1))));
    fresh(s.release_hold(&T, Release::new("hb1", None), None).await);
    let read = |id: String| async move { s.get_allocation(&T, &id).await.unwrap() };
    assert_eq!(took(&read(a1.id.clone()).await), (2, Some(0)), "the release filled a1");
    let part = validate::confirm(body(json!({"lines": [{"sku": "HB", "quantity": 1}]})), &f.limits).unwrap();
    fresh(s.confirm_hold(&T, Confirm::new("hb2", part, None), None).await);
    assert_eq!(
        took(&read(a2.id.clone()).await),
        (1, Some(0)),
        "the released part filled a2"
    );
    let sku = s.get_sku(&T, "HB").await.unwrap();
    assert_eq!((sku.on_hand, sku.available, sku.backordered), (0, 0, 0), "{sku:?}");

    f.create_sku("HX", 2).await;
    s.set_backorder_limit(&T, "HX", 10).await.unwrap();
    hold(&f, "hx1", "HX", 1, 1_000).await;
    // The later of the two: the clock may move between them.
    let h = hold(&f, "hx2", "HX", 1, 1_000).await;
    let a3 = fresh(s.allocate(&T, owing(&f, "HX", 1, strategy), None).await);
    assert_eq!(took(&a3), (0, Some(1)));
    f.clock.advance_past(h.expires_at);
    assert!(s.expire_holds(s.now(), 1).await.unwrap() >= 1);
    assert_eq!(
        took(&read(a3.id.clone()).await),
        (1, Some(0)),
        "the sweeper's expiry filled a3"
    );
    let newcomer = fresh(s.allocate(&T, owing(&f, "HX", 1, strategy), None).await);
    assert_eq!(
        took(&newcomer),
        (1, None),
        "the other expired hold's unit: a3 was whole"
    );
    let sku = s.get_sku(&T, "HX").await.unwrap();
    assert_eq!((sku.available, sku.backordered), (0, 0), "{sku:?}");
    f.finish().await;
}

/// Holds released at once with newcomers' allocations on a SKU of four buckets, its stock
/// all held and four lines owed: every release fills the oldest owed lines in its own write
/// (whatever bucket it freed, the location's rows locked in the global order: no deadlock
/// reaches a request), the four older lines are whole, and the books balance: the eight units
/// are all handed over, what is owed is what was asked beyond them.
pub async fn releases_race_newcomers_over_buckets(f: Fixture) {
    let s = &f.store;
    let strategies = per_request(s.as_ref());
    let sku = validate::create_sku(body(json!({"sku": "HS", "on_hand": 8, "buckets": 4})), &f.limits).unwrap();
    fresh(s.create_sku(&T, sku, None).await);
    s.set_backorder_limit(&T, "HS", 100).await.unwrap();
    for n in 0..8 {
        hold(&f, &format!("hs{n}"), "HS", 1, 60_000).await;
    }
    let mut first = Vec::new();
    for _ in 0..4 {
        first.push(fresh(s.allocate(&T, owing(&f, "HS", 1, strategies[0]), None).await).id);
    }
    let mut set = tokio::task::JoinSet::new();
    for n in 0..20 {
        let store = s.clone();
        if n % 5 < 2 {
            // hs0 … hs7, one each, among twelve allocations.
            let id = format!("hs{}", n / 5 * 2 + n % 5);
            set.spawn(async move { store.release_hold(&T, Release::new(id, None), None).await.map(|_| 0) });
        } else {
            let req = owing(&f, "HS", 1, strategies[n % strategies.len()]);
            set.spawn(async move { store.allocate(&T, req, None).await.map(|_| 1) });
        }
    }
    let mut newcomers = 0;
    while let Some(r) = set.join_next().await {
        newcomers += r.unwrap().unwrap_or_else(|e| panic!("{e:?}"));
    }
    for id in &first {
        let a = s.get_allocation(&T, id).await.unwrap();
        assert_eq!(took(&a), (1, Some(0)), "an older owed line is whole");
    }
    let sku = s.get_sku(&T, "HS").await.unwrap();
    assert_eq!((sku.on_hand, sku.held, sku.available), (0, 0, 0), "{sku:?}");
    assert_eq!(sku.backordered, 4 + newcomers - 8, "{sku:?}");
    f.finish().await;
}
