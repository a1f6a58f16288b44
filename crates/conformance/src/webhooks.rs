//! Webhook endpoints: made, listed and deleted per tenant; a rotated secret signs next to the
//! new one; each attempt is in the endpoint's health, at the store's clock; a `410` disables
//! it and it leaves the dispatch; the hand-over cursor moves only from where it is.

use crate::fixture::{Fixture, T};
use allot_core::webhook::{Attempt, NewWebhook, WebhookStatus};
use allot_core::{AllotError, Clock, Tenant};

fn endpoint(url: &str, secret: u8) -> NewWebhook {
    NewWebhook {
        url: url.into(),
        types: Vec::new(),
        secret: vec![secret; 32],
    }
}

/// Each tenant sees and changes only its own endpoints; an endpoint starts after the
/// tenant's cursor when it was made; rotation keeps the old key next to the new one.
pub async fn endpoints_by_tenant(f: Fixture) {
    let s = &f.store;
    let other = Tenant::stored("other-tenant");
    f.create_sku("W", 1).await;
    while s.sequence_events(1000).await.unwrap() > 0 {}
    let made = s
        .create_webhook(&T, "w1", endpoint("https://a.example/1", 1))
        .await
        .unwrap();
    assert_eq!((made.status, made.types.len()), (WebhookStatus::Enabled, 0));
    s.create_webhook(&T, "w2", endpoint("https://a.example/2", 2))
        .await
        .unwrap();
    s.create_webhook(&other, "w1", endpoint("https://b.example/1", 3))
        .await
        .unwrap();
    let again = s.create_webhook(&T, "w1", endpoint("https://a.example/3", 4)).await;
    assert!(matches!(again, Err(AllotError::AlreadyExists { .. })), "{again:?}");
    let ids = |list: Vec<allot_core::webhook::Webhook>| list.into_iter().map(|w| w.id).collect::<Vec<_>>();
    assert_eq!(ids(s.list_webhooks(&T).await.unwrap()), ["w1", "w2"]);
    assert_eq!(ids(s.list_webhooks(&other).await.unwrap()), ["w1"]);
    s.rotate_webhook_secret(&T, "w1", vec![9; 32]).await.unwrap();
    let target = s.webhook_target(&T, "w1").await.unwrap().unwrap();
    assert_eq!(
        target.keys,
        [vec![9; 32], vec![1; 32]],
        "the new key first, the old one still signs"
    );
    assert_eq!(
        s.webhook_target(&other, "w2").await.unwrap(),
        None,
        "another tenant's is not found"
    );
    health_follows_the_attempts(&f).await;
    s.record_attempt(&T, "w2", Attempt::Gone, None).await.unwrap();
    let dispatch = s.webhook_dispatch().await.unwrap();
    let mine: Vec<_> = dispatch.iter().filter(|(t, _, _)| t.tenant == *T).collect();
    assert_eq!(mine.len(), 1, "the disabled endpoint leaves the dispatch");
    assert_eq!(
        (mine[0].1, mine[0].2),
        (0, 1),
        "nothing handed over; it starts after sku.created"
    );
    assert!(s.advance_webhook_dispatch(&T, 0, 5).await.unwrap());
    assert!(
        !s.advance_webhook_dispatch(&T, 0, 7).await.unwrap(),
        "it is no longer at 0"
    );
    assert!(s.advance_webhook_dispatch(&T, 5, 7).await.unwrap());
    s.delete_webhook(&T, "w1").await.unwrap();
    assert!(matches!(
        s.delete_webhook(&T, "w1").await,
        Err(AllotError::NotFound { .. })
    ));
    assert!(matches!(
        s.rotate_webhook_secret(&T, "nope", vec![1; 32]).await,
        Err(AllotError::NotFound { .. })
    ));
    assert_eq!(ids(s.list_webhooks(&other).await.unwrap()), ["w1"], "untouched");
    f.finish().await;
}

/// Endpoint `w1` of [`T`]: failures count up from the first one's instant, a `2xx` clears
/// them; another tenant's endpoint of the same id is untouched.
async fn health_follows_the_attempts(f: &Fixture) {
    let s = &f.store;
    let health = |tenant: Tenant| async move {
        let list = f.store.list_webhooks(&tenant).await.unwrap();
        list.into_iter().find(|w| w.id == "w1").unwrap().health
    };
    assert_eq!(health(T.clone()).await, Default::default(), "no attempt yet");
    let before = f.clock.now();
    s.record_attempt(&T, "w1", Attempt::Failed(Some(500)), Some("answered 500"))
        .await
        .unwrap();
    let first = health(T.clone()).await;
    assert_eq!(
        (
            first.last_status,
            first.consecutive_failures,
            first.last_error.as_deref()
        ),
        (Some(500), 1, Some("answered 500"))
    );
    f.clock.advance_ms(1_000);
    s.record_attempt(&T, "w1", Attempt::Failed(None), Some(&"x".repeat(1000)))
        .await
        .unwrap();
    let h = health(T.clone()).await;
    assert_eq!(
        (
            h.consecutive_failures,
            h.failing_since,
            h.last_status,
            h.last_success_at
        ),
        (2, first.last_attempt_at, None, None),
        "failing since the first failure"
    );
    assert_eq!(
        h.last_error.as_deref(),
        Some("x".repeat(allot_core::webhook::MAX_ERROR_LEN).as_str()),
        "the last reason, cut at its limit"
    );
    let (since, last) = (h.failing_since.unwrap(), h.last_attempt_at.unwrap());
    assert!(
        since >= before && last >= since + chrono::Duration::seconds(1),
        "the store's clock"
    );
    assert!(s
        .webhook_dispatch()
        .await
        .unwrap()
        .iter()
        .any(|(t, _, _)| t.tenant == *T && t.id == "w1" && t.failing));
    s.record_attempt(&T, "w1", Attempt::Delivered(204), None).await.unwrap();
    let h = health(T.clone()).await;
    assert_eq!(
        (
            h.consecutive_failures,
            h.failing_since,
            h.last_status,
            h.last_success_at
        ),
        (0, None, Some(204), h.last_attempt_at)
    );
    assert_eq!(h.last_error, None, "a delivered attempt clears the reason");
    let other = Tenant::stored("other-tenant");
    assert_eq!(
        health(other).await,
        Default::default(),
        "another tenant's w1 is untouched"
    );
    s.record_attempt(&T, "nope", Attempt::Delivered(200), None)
        .await
        .unwrap();
}
