//! allot behind PgBouncer (Debian's 1.18, a process of the test's own on a free port, on a
//! database of the test's own), in transaction mode (with `--direct-database-url`) and in
//! session mode: every domain through the HTTP API under concurrent requests, with no failed
//! request, exact books and a clean audit. Claims wait for a wake-up only (the fallback poll
//! is far beyond the test), so a `LISTEN` that heard nothing would show.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use allot_bench::{PgBouncer, PoolMode};
use common::{Api, Kind};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("")
}

/// A database of its own, a PgBouncer in `mode` in front, and allot serving through it.
struct Deployed {
    api: Api,
    bouncer: PgBouncer,
    server: Option<allot_server::RunningServer>,
    database: String,
}

async fn deploy(mode: PoolMode) -> Deployed {
    let (host, port) = PgBouncer::upstream_of(&common::pg_base_url());
    let database = format!("allot_pgb_http_{}", uuid::Uuid::new_v4().simple());
    common::admin()
        .await
        .batch_execute(&format!("CREATE DATABASE {database}"))
        .await
        .unwrap();
    // Room for the server's pool of 16 in session mode (plus the start-up probe's two).
    let bouncer = PgBouncer::start(mode, (&host, port), 24).expect("pgbouncer");
    let clock = Arc::new(allot_core::TestClock::new());
    let mut cfg = allot_server::ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: bouncer.url(&database),
        direct_database_url: (mode == PoolMode::Transaction)
            .then(|| format!("postgres://postgres@{host}:{port}/{database}")),
        pool_size: 16,
        hold_sweep_interval_ms: 3_600_000,
        webhook_allow_private: true,
        webhook_dispatch_interval_ms: 20,
        ..allot_server::ServerConfig::default()
    };
    cfg.limits.job_poll_interval_ms = 600_000;
    cfg.clock = clock.clone();
    let server = allot_server::spawn(&cfg).await.expect("allot starts behind pgbouncer");
    let api = Api {
        kind: Kind::Postgres,
        url: server.url(),
        client: reqwest::Client::builder().pool_max_idle_per_host(64).build().unwrap(),
        clock,
    };
    Deployed {
        api,
        bouncer,
        server: Some(server),
        database,
    }
}

impl Deployed {
    async fn finish(mut self) {
        if let Some(s) = self.server.take() {
            s.stop().await.unwrap();
        }
        drop(self.bouncer);
        common::admin()
            .await
            .batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.database))
            .await
            .unwrap();
    }
}

/// `n` copies of `POST path body` at once; their (status, body).
async fn at_once(api: &Api, n: usize, path: &str, body: Value) -> Vec<(u16, Value)> {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (api, path, body) = (api.clone(), path.to_string(), body.clone());
        set.spawn(async move { api.post(&path, body).await });
    }
    set.join_all().await
}

/// Of `answers`, how many were `201`; every other one must be `409` with `refusal` (or, for
/// `optimistic`, `contention`: its bounded retries are its answer under contention).
fn won(answers: &[(u16, Value)], refusal: &str, what: &str) -> usize {
    for (s, b) in answers {
        let fine =
            *s == 201 || (*s == 409 && (code(b) == refusal || (what == "optimistic" && code(b) == "contention")));
        assert!(fine, "{what}: a failed request: {s} {b}");
    }
    answers.iter().filter(|(s, _)| *s == 201).count()
}

async fn stock(api: &Api) {
    for strategy in ["atomic", "pessimistic", "optimistic", "segmented", "batched"] {
        let sku = format!("S-{strategy}");
        let buckets = if strategy == "segmented" { 4 } else { 1 };
        let (s, b) = api
            .post("/v1/skus", json!({"sku": sku, "on_hand": 20, "buckets": buckets}))
            .await;
        assert_eq!(s, 201, "{b}");
        let body = json!({"lines": [{"sku": sku, "quantity": 1}], "strategy": strategy});
        let answers = at_once(api, 30, "/v1/allocations", body).await;
        let n = won(&answers, "insufficient_stock", strategy) as i64;
        if strategy != "optimistic" {
            assert_eq!(n, 20, "{strategy}: every unit, and no more");
        }
        let (_, got) = api.get(&format!("/v1/skus/{sku}")).await;
        assert_eq!(got["on_hand"].as_i64(), Some(20 - n), "{strategy}: {got}");
    }
}

async fn holds_and_units(api: &Api) {
    assert_eq!(api.post("/v1/skus", json!({"sku": "H", "on_hand": 10})).await.0, 201);
    let body = json!({"lines": [{"sku": "H", "quantity": 1}], "ttl_ms": 600_000});
    let answers = at_once(api, 15, "/v1/holds", body).await;
    assert_eq!(won(&answers, "insufficient_stock", "holds"), 10);
    let held: Vec<&str> = answers
        .iter()
        .filter(|(s, _)| *s == 201)
        .map(|(_, b)| b["id"].as_str().unwrap())
        .collect();
    for (i, id) in held.iter().enumerate() {
        let action = if i % 2 == 0 { "confirm" } else { "release" };
        let (s, b) = api.post(&format!("/v1/holds/{id}/{action}"), json!({})).await;
        assert!(s == 200 || s == 201, "{action}: {s} {b}");
    }
    let (_, h) = api.get("/v1/skus/H").await;
    assert_eq!((h["on_hand"].as_i64(), h["held"].as_i64()), (Some(5), Some(0)), "{h}");

    let units: Vec<Value> = (0..10).map(|i| json!({"serial": format!("SN{i}")})).collect();
    let (s, b) = api.post("/v1/skus/U/units", json!({ "units": units })).await;
    assert_eq!((s, b["created"].as_u64()), (201, Some(10)), "{b}");
    let mut claimed = 0;
    for strategy in ["skip_locked", "nowait_scan", "batched"] {
        let body = json!({"sku": "U", "quantity": 1, "strategy": strategy});
        let answers = at_once(api, 5, "/v1/unit-allocations", body).await;
        claimed += won(&answers, "insufficient_stock", strategy);
    }
    assert_eq!(claimed, 10, "every unit once, and no more");
}

async fn bookings(api: &Api) {
    for strategy in ["exclusion", "batched", "advisory"] {
        let path = format!("/v1/resources/room-{strategy}/bookings");
        let body = json!({"start": "2026-05-01T00:00:00Z", "end": "2026-05-04T00:00:00Z",
                          "holder": "h", "strategy": strategy});
        let answers = at_once(api, 10, &path, body).await;
        assert_eq!(won(&answers, "booking_overlap", strategy), 1, "{strategy}: one of ten");
    }
}

async fn claim(api: &Api, queue: &str, body: Value) -> Vec<Value> {
    let (s, b) = api.post(&format!("/v1/queues/{queue}/claims"), body).await;
    assert_eq!(s, 200, "{b}");
    b["jobs"].as_array().unwrap().clone()
}

async fn jobs(api: &Api) {
    // A first wait starts the listener (on the direct connection behind a transaction pooler).
    assert!(claim(api, "lp", json!({"wait_ms": 100})).await.is_empty());
    let waiter = {
        let api = api.clone();
        tokio::spawn(async move {
            let t0 = std::time::Instant::now();
            (
                claim(&api, "lp", json!({"max": 1, "wait_ms": 20_000})).await,
                t0.elapsed(),
            )
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (s, b) = api
        .post("/v1/queues/lp/jobs", json!({"jobs": [{"payload": "wake"}]}))
        .await;
    assert_eq!(s, 201, "{b}");
    let (got, waited) = waiter.await.unwrap();
    assert_eq!(got.len(), 1);
    assert!(waited < Duration::from_secs(10), "not woken by the enqueue: {waited:?}");

    let jobs: Vec<Value> = (0..60).map(|i| json!({"payload": i})).collect();
    let (s, b) = api.post("/v1/queues/work/jobs", json!({ "jobs": jobs })).await;
    assert_eq!(s, 201, "{b}");
    let done: Arc<Mutex<Vec<i64>>> = Arc::default();
    let mut workers = tokio::task::JoinSet::new();
    for w in 0..4 {
        let (api, done) = (api.clone(), done.clone());
        workers.spawn(async move {
            loop {
                let got = claim(
                    &api,
                    "work",
                    json!({"max": 5, "lease_ms": 30_000, "worker": format!("w{w}")}),
                )
                .await;
                if got.is_empty() {
                    return;
                }
                for job in got {
                    let id = job["id"].as_i64().unwrap();
                    let body = json!({"lease_token": job["lease_token"]});
                    let (s, b) = api.post(&format!("/v1/jobs/{id}/complete"), body).await;
                    assert_eq!(s, 200, "{b}");
                    done.lock().unwrap().push(id);
                }
            }
        });
    }
    workers.join_all().await;
    let done = done.lock().unwrap().clone();
    let unique: HashSet<i64> = done.iter().copied().collect();
    assert_eq!((done.len(), unique.len()), (60, 60), "each job completed exactly once");
}

/// Every change is on the feed once, in cursor order with no gap, and a webhook endpoint
/// gets the allocations after it was made.
async fn events_and_webhooks(api: &Api) {
    let got: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = got.clone();
    let app = axum::Router::new().fallback(move |req: axum::extract::Request| {
        let seen = seen.clone();
        async move {
            let id = req
                .headers()
                .get("webhook-id")
                .map(|v| v.to_str().unwrap_or("").to_string());
            seen.lock().unwrap().extend(id);
            axum::http::StatusCode::NO_CONTENT
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let (s, b) = api
        .post("/v1/webhooks", json!({"url": url, "types": ["allocation.created"]}))
        .await;
    assert_eq!(s, 201, "{b}");
    assert_eq!(api.post("/v1/skus", json!({"sku": "W", "on_hand": 10})).await.0, 201);
    let answers = at_once(
        api,
        5,
        "/v1/allocations",
        json!({"lines": [{"sku": "W", "quantity": 1}]}),
    )
    .await;
    assert_eq!(won(&answers, "insufficient_stock", "webhooks"), 5);
    for _ in 0..400 {
        if got.lock().unwrap().len() >= 5 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let ids: HashSet<String> = got.lock().unwrap().iter().cloned().collect();
    assert_eq!(ids.len(), 5, "each allocation delivered: {ids:?}");

    let mut cursor = 0;
    let mut count = 0;
    loop {
        let (s, page) = api.get(&format!("/v1/events?after={cursor}&limit=1000")).await;
        assert_eq!(s, 200, "{page}");
        let events = page["events"].as_array().unwrap();
        if events.is_empty() {
            break;
        }
        for e in events {
            assert_eq!(e["cursor"].as_i64(), Some(cursor + 1), "a gap or a repeat on the feed");
            cursor += 1;
            count += 1;
        }
    }
    assert!(count > 100, "the feed holds every change: {count}");
}

async fn every_domain(mode: PoolMode) {
    let d = deploy(mode).await;
    let api = d.api.clone();
    stock(&api).await;
    holds_and_units(&api).await;
    bookings(&api).await;
    jobs(&api).await;
    events_and_webhooks(&api).await;
    let (s, audit) = api.get("/v1/audit").await;
    assert_eq!(s, 200, "{audit}");
    for list in ["violations", "job_violations", "booking_overlaps"] {
        assert_eq!(audit[list], json!([]), "audit: {audit}");
    }
    let (s, ready) = api.get("/readyz").await;
    assert_eq!(s, 200, "{ready}");
    d.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_domain_through_pgbouncer_in_transaction_mode() {
    every_domain(PoolMode::Transaction).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_domain_through_pgbouncer_in_session_mode() {
    every_domain(PoolMode::Session).await;
}
