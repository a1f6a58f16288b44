//! The generated client against a live allot (in-process, on an embedded SQLite file of its
//! own): create a SKU, allocate with an idempotency key (the retry replays), read the ledger
//! by cursor, enqueue, claim and complete a job; and the webhook verifier against the
//! server's own signatures.

#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

use allot_client::helpers::{idempotency_key, ledger_entries, verify_webhook, DeliveryHeaders, WebhookError};
use allot_client::{types, Client};
use futures::TryStreamExt;
use serde_json::json;

fn body<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).unwrap()
}

async fn server() -> allot_server::RunningServer {
    let path = std::env::temp_dir().join(format!("allot-client-{}.db", uuid::Uuid::new_v4().simple()));
    let cfg = allot_server::ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", path.display()),
        ..Default::default()
    };
    allot_server::spawn(&cfg).await.unwrap()
}

#[tokio::test]
async fn stock_ledger_and_a_job_through_the_generated_client() {
    let running = server().await;
    let client = Client::new(&running.url());
    let sku = client
        .create_sku()
        .body(body::<types::CreateSkuBody>(json!({"sku": "GEN-1", "on_hand": 10})))
        .send()
        .await
        .unwrap();
    assert_eq!(sku.on_hand, 10);

    let key = idempotency_key();
    let allocate = || {
        client
            .create_allocation()
            .idempotency_key(key.clone())
            .body(body::<types::AllocationBody>(
                json!({"lines": [{"sku": "GEN-1", "quantity": 1}]}),
            ))
            .send()
    };
    let first = allocate().await.unwrap();
    let again = allocate().await.unwrap();
    assert_eq!(first.id, again.id, "a retry with the key replays the first answer");
    assert_eq!(again.headers().get("idempotent-replayed").unwrap(), "true");
    for _ in 0..4 {
        let b = body::<types::AllocationBody>(json!({"lines": [{"sku": "GEN-1", "quantity": 1}]}));
        client
            .create_allocation()
            .idempotency_key(idempotency_key())
            .body(b)
            .send()
            .await
            .unwrap();
    }

    // Pages of 2: every entry once, in id order, the same as one big page.
    let paged: Vec<types::LedgerEntry> = ledger_entries(&client, "GEN-1", 2).try_collect().await.unwrap();
    let whole = client
        .ledger()
        .sku("GEN-1")
        .limit(1000)
        .send()
        .await
        .unwrap()
        .into_inner()
        .entries;
    assert_eq!(paged.len(), 6, "created + 5 allocations");
    assert_eq!(
        paged.iter().map(|e| e.id).collect::<Vec<_>>(),
        whole.iter().map(|e| e.id).collect::<Vec<_>>()
    );

    let enqueued = client
        .enqueue_jobs()
        .queue("gen")
        .body(body::<types::EnqueueBody>(
            json!({"jobs": [{"payload": {"to": "a@example.com"}}]}),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(enqueued.ids.len(), 1);
    let claimed = client
        .claim_jobs()
        .queue("gen")
        .body(body::<types::ClaimBody>(json!({"max": 1})))
        .send()
        .await
        .unwrap()
        .into_inner();
    let job = &claimed.jobs[0];
    client
        .complete_job()
        .id(job.id)
        .body(body::<types::CompleteBody>(
            json!({"lease_token": job.lease_token, "output": {"sent": true}}),
        ))
        .send()
        .await
        .unwrap();
    let detail = client.get_job().id(job.id).send().await.unwrap().into_inner();
    assert_eq!(serde_json::to_value(&detail).unwrap()["state"], "completed");
    running.stop().await.unwrap();
}

#[test]
fn webhook_signatures_made_by_the_server_verify() {
    let secret_bytes = vec![7u8; 32];
    let secret = allot_core::webhook::format_secret(&secret_bytes);
    let body = br#"{"cursor":1,"type":"sku.created"}"#;
    let signature = allot_core::webhook::signature(&[secret_bytes], "1", 1_700_000_000, body);
    let headers = DeliveryHeaders {
        id: "1",
        timestamp: "1700000000",
        signature: &signature,
    };
    assert_eq!(verify_webhook(&secret, headers, body, (1_700_000_010, 300)), Ok(()));
    assert_eq!(
        verify_webhook(&secret, headers, b"{\"cursor\":2}", (1_700_000_010, 300)),
        Err(WebhookError::BadSignature)
    );
    assert_eq!(
        verify_webhook(&secret, headers, body, (1_700_001_000, 300)),
        Err(WebhookError::TooOld)
    );
    let other = allot_core::webhook::format_secret(&[8u8; 32]);
    assert_eq!(
        verify_webhook(&other, headers, body, (1_700_000_010, 300)),
        Err(WebhookError::BadSignature)
    );
}
