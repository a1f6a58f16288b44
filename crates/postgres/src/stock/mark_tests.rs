//! Ledger marks (migration V28): `atomic`'s single statement marks its own entry, the setting
//! that keeps `ledger_events` from marking it again ends with its transaction, and every other
//! writer is still marked by the trigger.

use crate::engine::conn::Db;
use crate::engine::store::PgStore;
use allot_core::store::{HoldStore, StockStore, UnitStore};
use allot_core::{validate, AllocationRequest, Limits, Strategy, Tenant, UnitStrategy};
use serde_json::json;

/// An `atomic` allocation `id` of one unit of SKU `S`.
pub(super) fn allocation(id: &str, limits: &Limits) -> AllocationRequest {
    let body = json!({"lines": [{"sku": "S", "quantity": 1}]});
    validate::allocation(
        id.into(),
        serde_json::from_value(body).unwrap(),
        Strategy::Atomic,
        limits,
    )
    .unwrap()
}

/// Unit claims of SKU `U` (10 units, received by SQL, so no ledger entry): alone, in a keyed
/// envelope, in a NOWAIT pass; each marked by the trigger.
async fn claim_units(store: &PgStore, t: &Tenant, limits: &Limits) {
    let c = store.client().await.unwrap();
    c.batch_execute(
        "INSERT INTO skus (tenant, sku, buckets, tracking, created_at) VALUES ('t', 'U', 1, 'units', now());
         INSERT INTO units (tenant, sku, serial, location, received_at)
              SELECT 't', 'U', 'SN' || i, 'default', now() FROM generate_series(1, 10) AS i",
    )
    .await
    .unwrap();
    drop(c);
    for (id, strategy, key) in [
        ("u1", UnitStrategy::SkipLocked, None),
        ("u2", UnitStrategy::SkipLocked, Some("k2")),
        ("u3", UnitStrategy::NowaitScan, None),
    ] {
        let body = serde_json::from_value(json!({"sku": "U", "quantity": 2})).unwrap();
        let claim = validate::unit_claim(id.into(), body, strategy, limits).unwrap();
        let idem = key.and_then(allot_conformance::fixture::key);
        store.claim_units(t, claim, idem).await.unwrap();
    }
}

/// Tenant `t`'s ledger entries, those named by exactly one mark of their own transaction,
/// and the session's `allot.ledger_marked` now.
const SQL_MARKED: &str = "SELECT (SELECT count(*) FROM ledger WHERE tenant = 't'),
    (SELECT count(*) FROM ledger l WHERE l.tenant = 't' AND (
        SELECT count(*) FROM ledger_marks m WHERE m.tenant = l.tenant AND m.sku = l.sku
           AND l.id BETWEEN m.first_id AND m.last_id AND m.xact = l.xact) = 1),
    current_setting('allot.ledger_marked', true)";

/// On one connection (a pool of one), so each write runs in the session the fast path set
/// `allot.ledger_marked` in: fast allocations, then a hold and an allocation with an
/// idempotency key (multi-statement transactions, marked by the trigger), then fast ones
/// again, then unit claims (alone, keyed, NOWAIT) and a fast one after them. Every ledger
/// entry is named by exactly one mark of its own transaction.
#[tokio::test]
async fn every_entry_has_exactly_one_mark() {
    let schema = crate::engine::test_schema::TestSchema::new("t_ledger_marks").await;
    let store = schema.store_with(|cfg| cfg.pool_size = 1).await;
    let (limits, t) = (Limits::default(), Tenant::stored("t"));
    let sku = validate::create_sku(
        serde_json::from_value(json!({"sku": "S", "on_hand": 100})).unwrap(),
        &limits,
    );
    store.create_sku(&t, sku.unwrap(), None).await.unwrap();
    for i in 0..3 {
        store
            .allocate(&t, allocation(&format!("fast{i}"), &limits), None)
            .await
            .unwrap();
    }
    let body = json!({"lines": [{"sku": "S", "quantity": 2}], "ttl_ms": 60_000});
    let hold = validate::hold(
        "h1".into(),
        serde_json::from_value(body).unwrap(),
        Strategy::Atomic,
        &limits,
    );
    store.create_hold(&t, hold.unwrap(), None).await.unwrap();
    let keyed = allot_conformance::fixture::key("k1");
    store.allocate(&t, allocation("keyed", &limits), keyed).await.unwrap();
    store.allocate(&t, allocation("fast3", &limits), None).await.unwrap();
    claim_units(&store, &t, &limits).await;
    store.allocate(&t, allocation("fast4", &limits), None).await.unwrap();
    let c = store.client().await.unwrap();
    let row = c.query_one(SQL_MARKED, &[]).await.unwrap();
    let (entries, marked_once): (i64, i64) = (row.get(0), row.get(1));
    let what = "received, 5 fast allocations, a hold, a keyed allocation, 3 unit claims";
    assert_eq!(entries, 11, "{what}");
    assert_eq!(marked_once, entries, "each entry in exactly one mark");
    let setting = row.get::<_, Option<String>>(2);
    let ended = matches!(setting.as_deref(), None | Some(""));
    assert!(ended, "the setting ends with its transaction: {setting:?}");
    drop(c);
    schema.drop().await;
}
