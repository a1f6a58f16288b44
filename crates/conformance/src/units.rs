//! Units: added, listed, read, claimed (allocated or held), never twice.

use crate::fixture::{body, fresh, key, replayed, Fixture, T};
use allot_core::hold::Release;
use allot_core::unit::{UnitFilter, UnitStatus};
use allot_core::{validate, AllotError, Executed};
use serde_json::json;

/// A keyed batch of units is added once and replays; a serial the SKU has is
/// `already_exists`; units page by id and read one by one; a held claim takes them until it
/// is released.
pub async fn units_listed_and_read(f: Fixture) {
    let s = &f.store;
    let add = |serials: &[&str]| {
        let units: Vec<serde_json::Value> = serials.iter().map(|x| json!({"serial": x, "lot": "L1"})).collect();
        validate::add_units("U", body(json!({ "units": units })), s.now(), &f.limits).unwrap()
    };
    assert_eq!(
        fresh(s.add_units(&T, add(&["A", "B", "C"]), key("units-1")).await).created,
        3
    );
    replayed(s.add_units(&T, add(&["A", "B", "C"]), key("units-1")).await);
    assert!(matches!(
        s.add_units(&T, add(&["C"]), None).await,
        Err(AllotError::AlreadyExists { .. })
    ));
    let filter = UnitFilter::default();
    let first = s
        .list_units(&T, "U", &filter, allot_core::Page::new(0, 2))
        .await
        .unwrap()
        .items;
    assert_eq!(
        first.iter().map(|u| u.unit.serial.as_str()).collect::<Vec<_>>(),
        ["A", "B"]
    );
    let rest = s
        .list_units(&T, "U", &filter, allot_core::Page::new(first[1].unit.id, 2))
        .await
        .unwrap()
        .items;
    assert_eq!(rest.iter().map(|u| u.unit.serial.as_str()).collect::<Vec<_>>(), ["C"]);
    let b = s.get_unit(&T, "U", "B").await.unwrap();
    assert_eq!((b.unit.lot.as_deref(), b.status), (Some("L1"), UnitStatus::Available));
    assert!(matches!(
        s.get_unit(&T, "U", "Z").await,
        Err(AllotError::NotFound { .. })
    ));
    let claim = body(json!({"sku": "U", "quantity": 2, "hold_ttl_ms": 60_000}));
    let req = validate::unit_claim("uc1".into(), claim, s.default_unit_strategy(), &f.limits).unwrap();
    let held = fresh(s.claim_units(&T, req, key("claim-1")).await);
    assert_eq!(held.units.len(), 2);
    assert_eq!(s.get_sku(&T, "U").await.unwrap().available, 1);
    s.release_hold(&T, Release::new("uc1", None), None).await.unwrap();
    assert_eq!(
        s.get_sku(&T, "U").await.unwrap().available,
        3,
        "released units are available again"
    );
    f.finish().await;
}

/// 5 units, 5 concurrent claims of 2: exactly 2 succeed, no unit twice, 1 left.
pub async fn no_unit_twice(f: Fixture) {
    let units: Vec<serde_json::Value> = (0..5).map(|i| json!({"serial": format!("S{i}")})).collect();
    let body = serde_json::from_value(json!({ "units": units })).unwrap();
    let req = validate::add_units("U", body, f.store.now(), &f.limits).unwrap();
    f.store.add_units(&T, req, None).await.unwrap();
    let mut set = tokio::task::JoinSet::new();
    for n in 0..5 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let body = serde_json::from_value(json!({"sku": "U", "quantity": 2})).unwrap();
            let strategy = store.default_unit_strategy();
            let req = validate::unit_claim(format!("c{n}"), body, strategy, &limits).unwrap();
            store.claim_units(&T, req, None).await
        });
    }
    let (mut ids, mut ok) = (Vec::new(), 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(a)) => {
                ok += 1;
                ids.extend(a.units.iter().map(|u| u.id));
            }
            Err(AllotError::InsufficientStock { .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!((ok, n, ids.len()), (2, 4, 4), "two claims of two, no unit twice");
    assert_eq!(f.store.get_sku(&T, "U").await.unwrap().on_hand, 1);
    f.finish().await;
}

/// Claim `quantity` units of `sku` in id order with `strategy` (`hold_ttl_ms`: a hold;
/// `partial`: at least one).
async fn claim_u(
    f: &Fixture,
    (sku, strategy, id): (&str, allot_core::UnitStrategy, &str),
    (quantity, partial, hold_ttl_ms): (i64, bool, Option<i64>),
) -> allot_core::Result<Vec<String>> {
    let mut b = json!({"sku": sku, "quantity": quantity, "allow_partial": partial});
    if let Some(ttl) = hold_ttl_ms {
        b["hold_ttl_ms"] = json!(ttl);
    }
    let req = validate::unit_claim(id.into(), body(b), strategy, &f.limits).unwrap();
    let claimed = f.store.claim_units(&T, req, None).await?;
    Ok(fresh(Ok(claimed)).units.into_iter().map(|u| u.serial).collect())
}

/// The units of a hold that expired, before any sweeper, with every unit claim strategy the
/// backend has: they read `available` with no claim (as the hold's quantity does), a
/// partial claim takes them rather than fewer, and a refused claim that finalised the hold
/// leaves them first in the claims' order. Each was a divergence the simulation found
/// (`allot sim`), the last seed 5015.
pub async fn units_of_an_expired_hold(f: Fixture) {
    for strategy in allot_core::UnitStrategy::ALL {
        if f.store.supports_units(strategy) {
            expired_hold_units(&f, strategy).await;
        }
    }
    f.finish().await;
}

async fn expired_hold_units(f: &Fixture, strategy: allot_core::UnitStrategy) {
    let s = &f.store;
    let sku = format!("U-{}", strategy.name());
    let add = |serials: &[&str]| {
        let units: Vec<serde_json::Value> = serials.iter().map(|x| json!({ "serial": x })).collect();
        validate::add_units(&sku, body(json!({ "units": units })), s.now(), &f.limits).unwrap()
    };
    let id = |n: &str| format!("{}-{n}", strategy.name());
    let claim = |n: &'static str, what| {
        let (sku, id) = (sku.clone(), id(n));
        async move { claim_u(f, (&sku, strategy, &id), what).await }
    };
    s.add_units(&T, add(&["S1", "S2", "S3"]), None).await.unwrap();
    assert_eq!(claim("h1", (1, false, Some(1000))).await.unwrap(), ["S1"]);
    assert_eq!(claim("a1", (1, false, None)).await.unwrap(), ["S2"]);
    f.clock.advance_ms(1000);
    let s1 = s.get_unit(&T, &sku, "S1").await.unwrap();
    assert_eq!(
        (s1.status, s1.claim_id),
        (UnitStatus::Available, None),
        "{strategy:?}: read at once"
    );
    let held = UnitFilter {
        status: Some(UnitStatus::Held),
        ..UnitFilter::default()
    };
    let page = allot_core::Page::new(0, 10);
    assert!(s.list_units(&T, &sku, &held, page).await.unwrap().items.is_empty());
    // Partial, wanting 3: S1 (its hold finalised) and S3, not S3 alone.
    assert_eq!(
        claim("a2", (3, true, None)).await.unwrap(),
        ["S1", "S3"],
        "{strategy:?}"
    );
    // A refused claim finalises an expired hold for good: its unit comes first after.
    s.add_units(&T, add(&["S4", "S5"]), None).await.unwrap();
    assert_eq!(claim("h2", (1, false, Some(1000))).await.unwrap(), ["S4"]);
    f.clock.advance_ms(1000);
    assert!(matches!(
        claim("a3", (9, false, None)).await,
        Err(AllotError::InsufficientStock { available: 2, .. })
    ));
    s.add_units(&T, add(&["S6"]), None).await.unwrap();
    assert_eq!(claim("a4", (1, false, None)).await.unwrap(), ["S4"], "{strategy:?}");
}
