//! Graceful shutdown: stopping the server while allocations are in flight leaves nothing
//! half-applied — exactly the requests that got a 201 are in the ledger, and the books balance.

mod common;

use allot_server::{open_store, ServerConfig};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_during_load_leaves_books_balanced() {
    for kind in [common::Kind::Sqlite, common::Kind::Postgres] {
        let mut ts = common::start(kind).await;
        ts.create_sku("S", 1000, 1).await;

        let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
        let mut first_tx = Some(first_tx);
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..100 {
            let (client, url, signal) = (ts.client.clone(), ts.url.clone(), first_tx.take());
            tasks.spawn(async move {
                let r = client
                    .post(format!("{url}/v1/allocations"))
                    .json(&json!({"lines": [{"sku": "S", "quantity": 1}]}))
                    .send()
                    .await;
                if let Some(s) = signal {
                    let _ = s.send(());
                }
                matches!(r, Ok(ref resp) if resp.status().as_u16() == 201)
            });
        }
        // Stop once the load is under way (signalled by the first answer).
        let _ = first_rx.await;
        ts.stop().await;
        let mut ok = 0i64;
        while let Some(r) = tasks.join_next().await {
            if r.unwrap() {
                ok += 1;
            }
        }
        assert!(ok >= 1);
        let cfg = ServerConfig {
            database_url: ts.database_url.clone(),
            ..ServerConfig::default()
        };
        let store = open_store(&cfg).await.unwrap();
        let sku = store.get_sku("S").await.unwrap();
        let ledger = store.ledger("S", 0, 1000).await.unwrap();
        let allocations = ledger.iter().filter(|e| e.kind == "allocation").count() as i64;
        // Every 201 the clients saw is in the books, and nothing they did not see.
        assert_eq!(allocations, ok, "ledger allocations vs 201 answers");
        assert_eq!(sku.on_hand, 1000 - allocations);
        assert!(store.audit().await.unwrap().violations.is_empty());
        drop(store);
        ts.finish().await;
    }
}

/// Stored idempotency responses are pruned by age: after pruning, the same key runs again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_keys_are_pruned_by_age() {
    for kind in [common::Kind::Sqlite, common::Kind::Postgres] {
        let ts = common::start(kind).await;
        ts.create_sku("P", 10, 1).await;
        let body = json!({"lines": [{"sku": "P", "quantity": 1}]}).to_string();
        assert_eq!(ts.post_raw("/v1/allocations", body.clone(), Some("p")).await.0, 201);
        assert!(
            ts.post_raw("/v1/allocations", body.clone(), Some("p")).await.1,
            "replayed"
        );
        let cfg = ServerConfig {
            database_url: ts.database_url.clone(),
            ..ServerConfig::default()
        };
        let store = open_store(&cfg).await.unwrap();
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
        ts.finish().await;
    }
}
