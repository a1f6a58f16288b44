//! Kits (see `allot_core::kit`): written only over count-tracked SKUs of the tenant; a kit
//! line takes every component with the request's other lines, the demand for a component
//! from several lines summed before it is checked, by every strategy; a cancel or a release
//! gives each component back.

use crate::fixture::{body, fresh, Fixture, T};
use allot_core::hold::Release;
use allot_core::kit::Kits;
use allot_core::store::Executed;
use allot_core::{validate, AllotError, Cancel, Strategy};
use serde_json::json;

/// Make kit `kit` of `(sku, quantity)` components; the kits as the store reads them back.
async fn put(f: &Fixture, kit: &str, components: &[(&str, i64)]) -> Kits {
    let c: Vec<_> = components
        .iter()
        .map(|(s, q)| json!({"sku": s, "quantity": q}))
        .collect();
    let k = validate::kit(kit, body(json!({ "components": c })), &f.limits).unwrap();
    f.store.put_kit(&T, k).await.unwrap();
    f.store.kits(&T, &[kit.to_string()]).await.unwrap()
}

/// A kit is written only over SKUs of the tenant, read back by name, replaced whole, and
/// removed; a kit line and a plain line sharing a component are one line of their summed
/// demand; a hold of a kit sets every component aside and its release gives them back; a
/// cancel of a kit's allocation gives back each component.
pub async fn kits_take_and_give_back_every_component(f: Fixture) {
    let s = &f.store;
    f.create_sku("MUG", 10).await;
    f.create_sku("TRAY", 5).await;
    let stray = validate::kit(
        "BAD",
        body(json!({"components": [{"sku": "NOPE", "quantity": 1}]})),
        &f.limits,
    );
    assert!(matches!(
        s.put_kit(&T, stray.unwrap()).await,
        Err(AllotError::NotFound { .. })
    ));
    assert!(s.kits(&T, &["BAD".into()]).await.unwrap().is_empty(), "nothing written");
    put(&f, "BOX", &[("MUG", 1)]).await;
    let kits = put(&f, "BOX", &[("TRAY", 1), ("MUG", 2)]).await;
    assert_eq!(kits["BOX"].components.len(), 2, "replaced whole: {kits:?}");
    let b = body(json!({"lines": [{"kit": "BOX", "quantity": 2}, {"sku": "MUG", "quantity": 1}]}));
    let req = validate::allocation_with("a1".into(), b, s.default_strategy(), &f.limits, &kits).unwrap();
    let a = fresh(s.allocate(&T, req, None).await);
    let took: Vec<(&str, i64)> = a.lines.iter().map(|l| (l.sku.as_str(), l.quantity)).collect();
    assert_eq!(took, [("MUG", 5), ("TRAY", 2)]);
    let b = body(json!({"lines": [{"kit": "BOX", "quantity": 3}], "ttl_ms": 60_000}));
    let req = validate::hold_with("h1".into(), b, s.default_strategy(), &f.limits, &kits).unwrap();
    let short = s.create_hold(&T, req, None).await.unwrap_err();
    assert!(
        matches!(short, AllotError::InsufficientStock { ref sku, .. } if sku == "MUG"),
        "{short:?}"
    );
    let b = body(json!({"lines": [{"kit": "BOX", "quantity": 2}], "ttl_ms": 60_000}));
    let req = validate::hold_with("h2".into(), b, s.default_strategy(), &f.limits, &kits).unwrap();
    fresh(s.create_hold(&T, req, None).await);
    let (mug, tray) = (
        s.get_sku(&T, "MUG").await.unwrap(),
        s.get_sku(&T, "TRAY").await.unwrap(),
    );
    assert_eq!((mug.available, mug.held, tray.available, tray.held), (1, 4, 1, 2));
    fresh(s.release_hold(&T, Release::new("h2", None), None).await);
    fresh(s.cancel_allocation(&T, Cancel::new("a1", None), None).await);
    let (mug, tray) = (
        s.get_sku(&T, "MUG").await.unwrap(),
        s.get_sku(&T, "TRAY").await.unwrap(),
    );
    assert_eq!((mug.available, tray.available), (10, 5), "every component back");
    s.delete_kit(&T, "BOX").await.unwrap();
    assert!(matches!(
        s.delete_kit(&T, "BOX").await,
        Err(AllotError::NotFound { .. })
    ));
    f.finish().await;
}

/// A storm of kit lines and plain lines sharing a component, under every strategy the store
/// has: a third of the requests take a kit (2 mugs, 1 tray), a third a plain mug, a third a
/// kit and a plain mug (3 mugs summed, 1 tray). Each success took exactly its demand, each
/// refusal names a component short, and what was taken of each component is what its stock
/// fell by, never below zero (Medusa #16502: two lines sharing a component checked alone).
pub async fn a_storm_of_kits_never_oversells_a_component(f: Fixture) {
    let strategies = [
        Strategy::Atomic,
        Strategy::Pessimistic,
        Strategy::Optimistic,
        Strategy::Segmented,
        Strategy::Serialized,
        Strategy::Batched,
    ];
    for (i, strategy) in strategies.into_iter().filter(|s| f.store.supports(*s)).enumerate() {
        let (mug, tray, kit) = (format!("MUG{i}"), format!("TRAY{i}"), format!("BOX{i}"));
        f.create_sku(&mug, 31).await;
        f.create_sku(&tray, 9).await;
        let kits = put(&f, &kit, &[(&mug, 2), (&tray, 1)]).await;
        let mut set = tokio::task::JoinSet::new();
        for n in 0..60 {
            let (lines, demand) = match n % 3 {
                0 => (json!([{"kit": kit, "quantity": 1}]), (2, 1)),
                1 => (json!([{"sku": mug, "quantity": 1}]), (1, 0)),
                _ => (
                    json!([{"sku": mug, "quantity": 1}, {"kit": kit, "quantity": 1}]),
                    (3, 1),
                ),
            };
            let id = uuid::Uuid::new_v4().to_string();
            let req = validate::allocation_with(id, body(json!({ "lines": lines })), strategy, &f.limits, &kits);
            let store = f.store.clone();
            set.spawn(async move { (demand, store.allocate(&T, req.unwrap(), None).await) });
        }
        let (mut taken_mug, mut taken_tray) = (0, 0);
        while let Some(r) = set.join_next().await {
            match r.unwrap() {
                ((m, t), Ok(Executed::Fresh(a))) => {
                    let got: Vec<(&str, i64)> = a.lines.iter().map(|l| (l.sku.as_str(), l.quantity)).collect();
                    let want: Vec<(&str, i64)> = [(mug.as_str(), m), (tray.as_str(), t)]
                        .into_iter()
                        .filter(|(_, q)| *q > 0)
                        .collect();
                    assert_eq!(got, want, "{strategy:?}: a success took each component's summed demand");
                    (taken_mug, taken_tray) = (taken_mug + m, taken_tray + t);
                }
                (_, Err(AllotError::InsufficientStock { sku, .. })) => assert!(sku == mug || sku == tray, "{sku}"),
                (_, Err(AllotError::Contention { .. })) => {}
                other => panic!("{strategy:?}: {other:?}"),
            }
        }
        let (m, t) = (
            f.store.get_sku(&T, &mug).await.unwrap(),
            f.store.get_sku(&T, &tray).await.unwrap(),
        );
        assert_eq!((m.on_hand, t.on_hand), (31 - taken_mug, 9 - taken_tray), "{strategy:?}");
        assert!(m.available >= 0 && t.available >= 0, "{strategy:?}: {m:?} {t:?}");
        assert!(
            taken_tray > 0 && taken_mug > 0,
            "{strategy:?}: the storm took something"
        );
    }
    f.finish().await;
}
