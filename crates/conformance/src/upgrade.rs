//! What a backend's migration tests check after upgrading a database made before tenants
//! had ids of their own (PostgreSQL V14, SQLite V11); the same on every backend.

use allot_core::{Store, Tenant};

/// The default tenant goes on after the old sequences (the ledger of its unit-tracked SKU
/// `U` has the ids `ledger`, and its second job in queue `Q` is 2); a new tenant starts at 1.
pub async fn ids_go_on_per_tenant(store: &dyn Store, ledger: &[i64]) {
    let d = &Tenant::default_tenant();
    let got: Vec<i64> = store
        .ledger(d, "U", allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(got, ledger);
    let enqueue = |n: i64| {
        let body = serde_json::from_value(serde_json::json!({"jobs": [{"payload": n}]})).unwrap();
        allot_core::validate::enqueue("Q", body, store.now(), &Default::default()).unwrap()
    };
    let ids = |e: allot_core::Executed<allot_core::job::Enqueued>| e.fresh().unwrap().ids;
    assert_eq!(ids(store.enqueue(d, enqueue(0), None).await.unwrap()), [2]);
    let acme = Tenant::stored("acme");
    assert_eq!(ids(store.enqueue(&acme, enqueue(1), None).await.unwrap()), [1]);
}
