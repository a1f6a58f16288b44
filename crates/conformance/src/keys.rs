//! API keys: stored by the hash of their secret, listed and revoked per tenant.

use crate::fixture::Fixture;
use allot_core::access::{ApiKey, NewKey, Scope};
use allot_core::AllotError;

/// A key of `tenant` named `name`, hashed as `hash`.
fn new_key(f: &Fixture, tenant: &allot_core::Tenant, name: &str, hash: &str) -> NewKey {
    NewKey {
        key: ApiKey {
            id: uuid::Uuid::new_v4().to_string(),
            tenant: tenant.clone(),
            name: name.into(),
            scopes: vec![Scope::StockRead],
            prefix: "allot_sk_0000".into(),
            rate_per_s: Some(10),
            created_at: f.store.now(),
            revoked_at: None,
        },
        secret_sha256: hash.into(),
    }
}

/// No key at first; a key is found by its hash and listed only in its tenant; another
/// tenant cannot revoke it; its own can, and stays found
/// (revoked) by its hash; a revoked key still counts as "a key was made".
pub async fn keys_by_tenant(f: Fixture) {
    let s = &f.store;
    let (a, b) = (allot_core::Tenant::stored("a"), allot_core::Tenant::stored("b"));
    assert!(!s.any_key().await.unwrap());
    let made = s.create_key(new_key(&f, &a, "ci", &"1".repeat(64))).await.unwrap();
    assert!(s.any_key().await.unwrap());
    assert_eq!(
        s.key_by_hash(&"1".repeat(64)).await.unwrap().map(|k| k.id),
        Some(made.id.clone())
    );
    assert_eq!(s.key_by_hash(&"2".repeat(64)).await.unwrap(), None);
    s.create_key(new_key(&f, &b, "ci", &"4".repeat(64))).await.unwrap();
    let of_a: Vec<String> = s.list_keys(&a).await.unwrap().into_iter().map(|k| k.id).collect();
    assert_eq!(of_a, std::slice::from_ref(&made.id));
    let err = s.revoke_key(Some(&b), &made.id).await.unwrap_err();
    assert!(matches!(err, AllotError::NotFound { .. }), "{err:?}");
    let revoked = s.revoke_key(Some(&a), &made.id).await.unwrap();
    assert!(revoked.revoked_at.is_some());
    let found = s
        .key_by_hash(&"1".repeat(64))
        .await
        .unwrap()
        .expect("still found by its hash");
    assert!(found.revoked_at.is_some());
    assert!(s.any_key().await.unwrap());
    f.finish().await;
}
