//! The change feed across a SIGKILL of allot, on both backends: writers allocate with
//! idempotency keys (retrying through the outage), a reader follows the Server-Sent Events
//! stream and reconnects with `Last-Event-ID`; allot is killed mid-load and started again.
//! The reader must see every event exactly once, cursors 1..=n without a gap, one
//! `allocation.created` per allocation.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

#[path = "../../server/tests/common/mod.rs"]
mod common;

use serde_json::{json, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

const WRITERS: usize = 4;
const PER_WRITER: usize = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_feed_survives_a_kill() {
    let (url, schema) = common::fresh_pg_url().await;
    survives_a_kill(url).await;
    let _ = common::admin()
        .await
        .batch_execute(&format!(
            "DROP SCHEMA {schema} CASCADE; DROP SCHEMA IF EXISTS {schema}_allot CASCADE"
        ))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_feed_survives_a_kill() {
    let path = std::env::temp_dir().join(format!("allot-feed-kill-{}.db", uuid::Uuid::new_v4().simple()));
    survives_a_kill(format!("sqlite://{}", path.display())).await;
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

/// `allot serve` on `port` and `database_url`, up (the chaos scenarios' starter), killed when
/// dropped.
async fn serve(port: u16, database_url: &str) -> allot_bench::Server {
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_allot"));
    allot_bench::start_server(&bin, port, database_url, None)
        .await
        .expect("allot serve comes up")
}

/// Allocate one unit under `key`, retrying through the outage until an answer comes: a
/// replay of a key whose first try committed is the same allocation, never a second.
async fn allocate(client: &reqwest::Client, base: &str, key: &str) -> String {
    for _ in 0..800 {
        let sent = client
            .post(format!("{base}/v1/allocations"))
            .header("idempotency-key", key)
            .json(&json!({"lines": [{"sku": "K", "quantity": 1}]}))
            .send()
            .await;
        if let Ok(r) = sent {
            if r.status() == 201 {
                let body: Value = r.json().await.unwrap();
                return body["id"].as_str().unwrap().to_string();
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{key}: no answer through the outage");
}

/// Follow the stream from the start, reconnecting with `Last-Event-ID` after every break,
/// until the cursor `until` (set once the writers are done) is seen. Every (cursor, type,
/// object) read, in order.
async fn follow(base: String, until: Arc<AtomicI64>) -> Vec<(i64, String, String)> {
    let client = reqwest::Client::new();
    let mut seen: Vec<(i64, String, String)> = Vec::new();
    loop {
        let last = seen.last().map_or(0, |e| e.0);
        let target = until.load(Ordering::Acquire);
        if target > 0 && last >= target {
            return seen;
        }
        let resp = client
            .get(format!("{base}/v1/events/stream"))
            .header("last-event-id", last.to_string())
            .send()
            .await;
        let Ok(mut resp) = resp else {
            tokio::time::sleep(Duration::from_millis(25)).await;
            continue;
        };
        let mut text = String::new();
        // Read until the connection breaks or the target is reached.
        while let Ok(Ok(Some(chunk))) = tokio::time::timeout(Duration::from_millis(500), resp.chunk()).await {
            text.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = text.find("\n\n") {
                let block: String = text.drain(..end + 2).collect();
                let field = |n: &str| {
                    block
                        .lines()
                        .find_map(|l| l.strip_prefix(n).map(|v| v.trim().to_string()))
                };
                if let (Some(id), Some(kind), Some(data)) = (field("id:"), field("event:"), field("data:")) {
                    let data: Value = serde_json::from_str(&data).unwrap();
                    seen.push((id.parse().unwrap(), kind, data["object"].as_str().unwrap().to_string()));
                }
            }
            let target = until.load(Ordering::Acquire);
            if target > 0 && seen.last().is_some_and(|e| e.0 >= target) {
                return seen;
            }
        }
    }
}

async fn survives_a_kill(database_url: String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::new();
    let mut server = serve(port, &database_url).await;
    let made = client
        .post(format!("{base}/v1/skus"))
        .json(&json!({"sku": "K", "on_hand": 1000}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let until = Arc::new(AtomicI64::new(0));
    let reader = tokio::spawn(follow(base.clone(), until.clone()));
    let done = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let (client, base, done) = (client.clone(), base.clone(), done.clone());
            tokio::spawn(async move {
                let mut ids = Vec::new();
                for i in 0..PER_WRITER {
                    ids.push(allocate(&client, &base, &format!("kill-{w}-{i}")).await);
                    done.fetch_add(1, Ordering::AcqRel);
                }
                ids
            })
        })
        .collect();
    // Mid-load (a quarter of the allocations answered): SIGKILL, then the same command again.
    while done.load(Ordering::Acquire) < WRITERS * PER_WRITER / 4 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.child.kill().await.unwrap();
    let _ = server.child.wait().await;
    let answered_before_restart = done.load(Ordering::Acquire);
    assert!(
        answered_before_restart < WRITERS * PER_WRITER,
        "the kill came mid-load: {answered_before_restart} answered"
    );
    let mut server = serve(port, &database_url).await;
    let mut allocations = Vec::new();
    for w in writers {
        allocations.extend(w.await.unwrap());
    }
    allocations.sort();
    allocations.dedup();
    assert_eq!(allocations.len(), WRITERS * PER_WRITER, "one allocation per key");
    // Everything written: sku.created, then one event per allocation.
    until.store(1 + (WRITERS * PER_WRITER) as i64, Ordering::Release);
    let seen = tokio::time::timeout(Duration::from_secs(60), reader)
        .await
        .expect("the reader catches up")
        .unwrap();
    let cursors: Vec<i64> = seen.iter().map(|e| e.0).collect();
    let expected: Vec<i64> = (1..=1 + (WRITERS * PER_WRITER) as i64).collect();
    assert_eq!(cursors, expected, "every cursor once, in order, across the kill");
    let mut objects: Vec<&str> = seen
        .iter()
        .filter(|e| e.1 == "allocation.created")
        .map(|e| e.2.as_str())
        .collect();
    objects.sort_unstable();
    assert_eq!(objects, allocations.iter().map(String::as_str).collect::<Vec<_>>());
    server.child.kill().await.unwrap();
}
