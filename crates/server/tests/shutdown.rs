//! Graceful shutdown: stopping the server while allocations are in flight leaves nothing
//! half-applied — exactly the requests that got a 201 are in the ledger, and the books balance.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

static T: std::sync::LazyLock<allot_core::Tenant> = std::sync::LazyLock::new(allot_core::Tenant::default_tenant);
use common::TestServer;
use serde_json::json;

conformance!(
    stop_during_load_leaves_books_balanced,
    idempotency_keys_are_pruned_by_age
);

/// 50 clients each send allocations one after another (at most 200 each) until one fails;
/// the server is stopped at the first answer. Every 201 must be in the books and nothing
/// else, and the stop must have cut the load short.
async fn stop_during_load_leaves_books_balanced(ts: &TestServer) {
    ts.create_sku("S", 1_000_000, 1).await;
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let first_tx = std::sync::Mutex::new(Some(first_tx));
    let first_tx = std::sync::Arc::new(first_tx);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let (client, url, signal) = (ts.client.clone(), ts.url.clone(), first_tx.clone());
        tasks.spawn(async move {
            let (mut ok, mut cut) = (0i64, false);
            for _ in 0..200 {
                let r = client
                    .post(format!("{url}/v1/allocations"))
                    .json(&json!({"lines": [{"sku": "S", "quantity": 1}]}))
                    .send()
                    .await;
                if let Some(s) = signal.lock().unwrap().take() {
                    let _ = s.send(());
                }
                match r {
                    Ok(resp) if resp.status().as_u16() == 201 => ok += 1,
                    Ok(resp) => panic!("only 201 before the stop, got {}", resp.status()),
                    Err(_) => {
                        cut = true;
                        break;
                    }
                }
            }
            (ok, cut)
        });
    }
    first_rx.await.unwrap();
    ts.stop().await;
    let (mut ok, mut cut) = (0i64, 0);
    while let Some(r) = tasks.join_next().await {
        let (n, c) = r.unwrap();
        ok += n;
        cut += i32::from(c);
    }
    assert!((1..50 * 200).contains(&ok), "ok {ok}");
    assert!(cut >= 1, "the stop came after the load ended");
    let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    let sku = store.get_sku(&T, "S").await.unwrap();
    let ledger = store
        .ledger(&T, "S", allot_core::Page::new(0, 1000))
        .await
        .unwrap()
        .items;
    let allocations = ledger
        .iter()
        .filter(|e| e.kind == allot_core::LedgerKind::Allocation)
        .count() as i64;
    assert!(ledger.len() < 1000, "one ledger page holds everything");
    // Every 201 the clients saw is in the books, and nothing they did not see.
    assert_eq!(allocations, ok, "ledger allocations vs 201 answers");
    assert_eq!(sku.on_hand, 1_000_000 - allocations);
    assert!(store.audit(None).await.unwrap().is_clean());
}

/// Stored idempotency responses are pruned by age: after pruning, the same key runs again.
async fn idempotency_keys_are_pruned_by_age(ts: &TestServer) {
    {
        ts.create_sku("P", 10, 1).await;
        let body = json!({"lines": [{"sku": "P", "quantity": 1}]}).to_string();
        assert_eq!(ts.post_raw("/v1/allocations", body.clone(), Some("p")).await.0, 201);
        assert!(
            ts.post_raw("/v1/allocations", body.clone(), Some("p")).await.1,
            "replayed"
        );
        let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
        let old = chrono::Utc::now() - chrono::Duration::hours(1);
        assert_eq!(
            store.prune_idempotency_keys(old, 100).await.unwrap(),
            0,
            "young keys stay"
        );
        let later = chrono::Utc::now() + chrono::Duration::seconds(5);
        assert_eq!(store.prune_idempotency_keys(later, 100).await.unwrap(), 1);
        let (s, replayed, _) = ts.post_raw("/v1/allocations", body, Some("p")).await;
        assert_eq!((s, replayed), (201, false));
        assert_eq!(ts.sku("P").await["on_hand"], 8);
        drop(store);
    }
}
