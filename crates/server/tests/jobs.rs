//! The job queue on both backends through the HTTP API: exclusive leases under concurrency,
//! lease-conditional transitions, retries and dead letters, order, unique jobs, rescue.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

static T: std::sync::LazyLock<allot_core::Tenant> = std::sync::LazyLock::new(allot_core::Tenant::default_tenant);
use common::{Api, TestServer};
use serde_json::{json, Value};
use std::collections::HashSet;

conformance!(
    concurrent_claimers_never_share_a_job,
    stale_tokens_are_refused,
    priority_and_run_at_order,
    unique_jobs_under_concurrent_enqueue,
    retries_then_dead_letter,
    bad_job_inputs,
    batch_completion_cancel_and_dead_letters,
    worker_pool_completes_each_job_once,
    keyed_claims_and_transitions_replay,
    queue_settings_and_the_operators_view,
    fair_claims_over_http,
    waiting_for_a_job_to_finish,
    dependencies_over_http,
    a_batch_and_its_callback_over_http,
    schedules_over_http,
    queues_listed_and_bulk_actions,
);

// With the lease sweeper every 5 ms.
conformance!(mod sweeping, |c| c.hold_sweep_interval_ms = 5; abandoned_jobs_come_back_after_their_lease_only);

// With the fallback poll of waiting claims far beyond the test: only a wake-up can end a wait
// early.
conformance!(mod small_pages, |c| c.limits.max_page_bytes = 10_000; pages_are_bounded_by_bytes);
conformance!(mod no_poll, |c| c.limits.job_poll_interval_ms = 600_000; long_poll_wakes_on_enqueue);

fn code(b: &Value) -> &str {
    b["error"]["code"].as_str().unwrap_or("")
}

async fn enqueue(ts: &Api, queue: &str, jobs: Value) -> Vec<i64> {
    let (s, b) = ts
        .post(&format!("/v1/queues/{queue}/jobs"), json!({ "jobs": jobs }))
        .await;
    assert_eq!(s, 201, "{b}");
    b["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_i64().unwrap())
        .collect()
}

async fn claim(ts: &Api, queue: &str, max: i64, lease_ms: i64) -> Vec<Value> {
    let (s, b) = ts
        .post(
            &format!("/v1/queues/{queue}/claims"),
            json!({"max": max, "lease_ms": lease_ms, "worker": "t"}),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    b["jobs"].as_array().unwrap().clone()
}

async fn claim_with(ts: &Api, queue: &str, body: Value) -> Vec<Value> {
    let (s, b) = ts.post(&format!("/v1/queues/{queue}/claims"), body).await;
    assert_eq!(s, 200, "{b}");
    b["jobs"].as_array().unwrap().clone()
}

fn claim_strategies(ts: &Api) -> Vec<&'static str> {
    match ts.kind {
        common::Kind::Postgres => vec!["skip_locked", "advisory"],
        common::Kind::Sqlite => vec!["serialized"],
    }
}

async fn counts(ts: &Api, queue: &str) -> Value {
    let (s, b) = ts.get(&format!("/v1/queues/{queue}")).await;
    assert_eq!(s, 200, "{b}");
    b["counts"].clone()
}

async fn concurrent_claimers_never_share_a_job(ts: &TestServer) {
    for strategy in claim_strategies(ts) {
        let queue = format!("q-{strategy}");
        let jobs: Vec<Value> = (0..200).map(|i| json!({"payload": {"n": i}})).collect();
        let ids = enqueue(ts, &queue, Value::Array(jobs)).await;
        assert_eq!(ids.iter().collect::<HashSet<_>>().len(), 200);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..16 {
            let (api, queue) = (ts.api.clone(), queue.clone());
            set.spawn(async move {
                let mut got = Vec::new();
                let mut empty = 0;
                while empty < 3 {
                    let body = json!({"max": 5, "lease_ms": 60_000, "strategy": strategy});
                    let jobs = claim_with(&api, &queue, body).await;
                    if jobs.is_empty() {
                        // advisory may come back empty while others hold the window's locks
                        empty += 1;
                        continue;
                    }
                    empty = 0;
                    for j in jobs {
                        let id = j["id"].as_i64().unwrap();
                        let (s, b) = api
                            .post(
                                &format!("/v1/jobs/{id}/complete"),
                                json!({"lease_token": j["lease_token"]}),
                            )
                            .await;
                        assert_eq!((s, b["state"].as_str()), (200, Some("completed")), "{b}");
                        got.push(id);
                    }
                }
                got
            });
        }
        let mut all = Vec::new();
        while let Some(r) = set.join_next().await {
            all.extend(r.unwrap());
        }
        // Whatever a racing claimer left behind, drain it alone.
        loop {
            let jobs = claim_with(ts, &queue, json!({"max": 100, "strategy": strategy})).await;
            if jobs.is_empty() {
                break;
            }
            for j in jobs {
                ts.ok(
                    &format!("/v1/jobs/{}/complete", j["id"]),
                    json!({"lease_token": j["lease_token"]}),
                )
                .await;
                all.push(j["id"].as_i64().unwrap());
            }
        }
        let distinct: HashSet<i64> = all.iter().copied().collect();
        assert_eq!(
            (all.len(), distinct.len()),
            (200, 200),
            "{strategy}: a job was leased twice"
        );
        let c = counts(ts, &queue).await;
        assert_eq!(
            (c["completed"].as_i64(), c["running"].as_i64(), c["available"].as_i64()),
            (Some(200), Some(0), Some(0))
        );
    }
}

async fn long_poll_wakes_on_enqueue(ts: &TestServer) {
    // A first wait starts the backend's listener (PostgreSQL: LISTEN on its own connection).
    assert!(claim_with(ts, "lp", json!({"wait_ms": 100})).await.is_empty());
    let api = ts.api.clone();
    let waiter = tokio::spawn(async move {
        let t0 = std::time::Instant::now();
        let jobs = claim_with(&api, "lp", json!({"max": 1, "wait_ms": 20_000})).await;
        (jobs, t0.elapsed())
    });
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    enqueue(ts, "lp", json!([{"payload": "wake"}])).await;
    let (jobs, waited) = tokio::time::timeout(std::time::Duration::from_secs(30), waiter)
        .await
        .expect("the long poll never returned")
        .unwrap();
    assert_eq!(jobs.len(), 1, "the long poll returned empty");
    // The poll interval is 10 minutes and the wait 20 s: returning within 10 s means the
    // enqueue woke the waiter.
    assert!(
        waited < std::time::Duration::from_secs(10),
        "not woken by the enqueue: {waited:?}"
    );
    // Nothing to get: an empty answer after about wait_ms, not before.
    let t0 = std::time::Instant::now();
    assert!(claim_with(ts, "lp", json!({"wait_ms": 200})).await.is_empty());
    assert!(t0.elapsed() >= std::time::Duration::from_millis(200));
}

async fn stale_tokens_are_refused(ts: &TestServer) {
    let id = enqueue(ts, "s", json!([{"payload": {}}])).await[0];
    let j = &claim(ts, "s", 1, 60_000).await[0];
    let token = j["lease_token"].as_str().unwrap();
    for path in ["complete", "fail", "heartbeat"] {
        let other = "00000000-0000-4000-8000-000000000000";
        let (s, b) = ts
            .post(&format!("/v1/jobs/{id}/{path}"), json!({"lease_token": other}))
            .await;
        assert_eq!((s, code(&b)), (409, "lease_lost"), "{path}: {b}");
        // Not a token at all: the request is malformed, not late.
        for bad in ["not-it", &token.to_uppercase()] {
            let (s, b) = ts
                .post(&format!("/v1/jobs/{id}/{path}"), json!({"lease_token": bad}))
                .await;
            assert_eq!((s, code(&b)), (400, "invalid_request"), "{path} {bad}: {b}");
        }
    }
    let (s, b) = ts
        .post(
            &format!("/v1/jobs/{id}/heartbeat"),
            json!({"lease_token": token, "lease_ms": 120_000}),
        )
        .await;
    assert_eq!((s, b["state"].as_str()), (200, Some("running")), "{b}");
    let (s, _) = ts
        .post(&format!("/v1/jobs/{id}/complete"), json!({"lease_token": token}))
        .await;
    assert_eq!(s, 200);
    let (s, b) = ts
        .post(&format!("/v1/jobs/{id}/complete"), json!({"lease_token": token}))
        .await;
    assert_eq!((s, code(&b)), (409, "lease_lost"));
    let (s, b) = ts.post("/v1/jobs/999999/complete", json!({"lease_token": token})).await;
    assert_eq!((s, code(&b)), (404, "not_found"));
}

async fn priority_and_run_at_order(ts: &TestServer) {
    let ids = enqueue(
        ts,
        "o",
        json!([
            {"payload": "p3", "priority": 3},
            {"payload": "p1", "priority": 1},
            {"payload": "later", "priority": 1, "run_at": "2099-01-01T00:00:00Z"},
            {"payload": "p2", "priority": 2},
            {"payload": "p1b", "priority": 1}
        ]),
    )
    .await;
    let c = counts(ts, "o").await;
    assert_eq!((c["available"].as_i64(), c["scheduled"].as_i64()), (Some(4), Some(1)));
    let metrics = ts.metrics().await;
    // The label is a hash of tenant and queue, never the tenant's queue name.
    let label = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(b"default\0o");
        format!("q{}", d.iter().take(8).map(|b| format!("{b:02x}")).collect::<String>())
    };
    assert!(
        metrics.lines().any(|l| l.starts_with("allot_queue_jobs{")
            && l.contains(&format!("queue=\"{label}\""))
            && l.contains("state=\"available\"")
            && l.ends_with(" 4")),
        "queue depth gauge missing: {metrics}"
    );
    assert!(!metrics.contains("queue=\"o\""), "a tenant's queue name in /metrics");
    let got: Vec<Value> = claim(ts, "o", 10, 60_000)
        .await
        .iter()
        .map(|j| j["payload"].clone())
        .collect();
    assert_eq!(got, [json!("p1"), json!("p1b"), json!("p2"), json!("p3")]);
    assert_eq!(ids.len(), 5);
}

async fn unique_jobs_under_concurrent_enqueue(ts: &TestServer) {
    let mut set = tokio::task::JoinSet::new();
    for i in 0..10 {
        let api = ts.api.clone();
        set.spawn(
            async move { enqueue(&api, "u", json!([{"payload": {"try": i}, "unique_key": "report-42"}])).await[0] },
        );
    }
    let mut ids = HashSet::new();
    while let Some(r) = set.join_next().await {
        ids.insert(r.unwrap());
    }
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(counts(ts, "u").await["available"], 1);
    // Once finished, the key is free again.
    let j = &claim(ts, "u", 1, 60_000).await[0];
    ts.ok(
        &format!("/v1/jobs/{}/complete", j["id"]),
        json!({"lease_token": j["lease_token"]}),
    )
    .await;
    let again = enqueue(ts, "u", json!([{"payload": {}, "unique_key": "report-42"}])).await[0];
    assert!(!ids.contains(&again));
}

async fn retries_then_dead_letter(ts: &TestServer) {
    let id = enqueue(ts, "r", json!([{"payload": {}, "max_attempts": 2}])).await[0];
    let j = &claim(ts, "r", 1, 60_000).await[0];
    assert_eq!(j["attempt"], 1);
    let (s, b) = ts
        .post(
            &format!("/v1/jobs/{id}/fail"),
            json!({"lease_token": j["lease_token"], "error": "boom", "retry_in_ms": 0}),
        )
        .await;
    assert_eq!((s, b["state"].as_str()), (200, Some("retryable")), "{b}");
    let j = &claim(ts, "r", 1, 60_000).await[0];
    assert_eq!((j["id"].as_i64(), j["attempt"].as_i64()), (Some(id), Some(2)));
    let (s, b) = ts
        .post(
            &format!("/v1/jobs/{id}/fail"),
            json!({"lease_token": j["lease_token"], "error": "boom again"}),
        )
        .await;
    assert_eq!((s, b["state"].as_str()), (200, Some("discarded")), "{b}");
    assert!(claim(ts, "r", 1, 60_000).await.is_empty());
    assert_eq!(counts(ts, "r").await["discarded"], 1);
    // Exponential backoff without retry_in_ms: the job is not runnable at once.
    let id = enqueue(ts, "r2", json!([{"payload": {}}])).await[0];
    let j = &claim(ts, "r2", 1, 60_000).await[0];
    let (s, b) = ts
        .post(&format!("/v1/jobs/{id}/fail"), json!({"lease_token": j["lease_token"]}))
        .await;
    assert_eq!((s, b["state"].as_str()), (200, Some("retryable")));
    assert!(claim(ts, "r2", 1, 60_000).await.is_empty());
}

async fn bad_job_inputs(ts: &TestServer) {
    let bad = [
        ("/v1/queues/q/claims", json!({"lease_ms": 10}), "invalid_request"),
        ("/v1/queues/q/claims", json!({"lease_ms": 3_600_001}), "limit_exceeded"),
        ("/v1/queues/q/claims", json!({"max": 101}), "limit_exceeded"),
        ("/v1/queues/q/claims", json!({"max": 0}), "invalid_request"),
        (
            "/v1/queues/q/claims",
            json!({"strategy": "bogus"}),
            "unsupported_strategy",
        ),
        (
            "/v1/queues/bad%20name/jobs",
            json!({"jobs": [{"payload": {}}]}),
            "invalid_request",
        ),
        ("/v1/queues/q/jobs", json!({"jobs": []}), "invalid_request"),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"payload": "x".repeat(70_000)}]}),
            "limit_exceeded",
        ),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"priority": 9}]}),
            "invalid_request",
        ),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"max_attempts": 0}]}),
            "invalid_request",
        ),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"run_at": "tomorrow"}]}),
            "invalid_request",
        ),
    ];
    for (path, body, c) in bad {
        let (s, b) = ts.post(path, body.clone()).await;
        assert_eq!((s, code(&b)), (400, c), "{path} {body}: {b}");
    }
    let c = counts(ts, "q").await;
    assert!(c.as_object().unwrap().values().all(|v| v == 0), "{c}");
}

async fn batch_completion_cancel_and_dead_letters(ts: &TestServer) {
    enqueue(ts, "b", json!([{"payload": 1}, {"payload": 2}, {"payload": 3}])).await;
    let jobs = claim(ts, "b", 3, 60_000).await;
    let body = json!({"jobs": [
        {"id": jobs[0]["id"], "lease_token": jobs[0]["lease_token"]},
        {"id": jobs[1]["id"], "lease_token": "00000000-0000-4000-8000-000000000000"},
    ]});
    let (s, b) = ts.post("/v1/queues/b/completions", body).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        (b["completed"].clone(), b["lease_lost"].clone()),
        (json!([jobs[0]["id"]]), json!([jobs[1]["id"]]))
    );
    // Cancel a running job: its worker's token stops working.
    let id = &jobs[1]["id"];
    let (s, c) = ts.post(&format!("/v1/jobs/{id}/cancel"), json!({})).await;
    assert_eq!((s, c["state"].as_str()), (200, Some("cancelled")), "{c}");
    let (s, b) = ts
        .post(
            &format!("/v1/jobs/{id}/complete"),
            json!({"lease_token": jobs[1]["lease_token"]}),
        )
        .await;
    assert_eq!((s, code(&b)), (409, "lease_lost"));
    // Dead letters: list, then retry by hand.
    let id3 = &jobs[2]["id"];
    enqueue(ts, "d", json!([{"payload": "x", "max_attempts": 1}])).await;
    let j = &claim(ts, "d", 1, 60_000).await[0];
    ts.ok(
        &format!("/v1/jobs/{}/fail", j["id"]),
        json!({"lease_token": j["lease_token"], "error": "bad input"}),
    )
    .await;
    let (s, list) = ts.get("/v1/queues/d/jobs?state=discarded").await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["jobs"][0]["id"], j["id"]);
    assert_eq!(list["jobs"][0]["errors"][0]["error"], "bad input");
    let (s, r) = ts.post(&format!("/v1/jobs/{}/retry", j["id"]), json!({})).await;
    assert_eq!((s, r["state"].as_str()), (200, Some("available")), "{r}");
    let again = claim(ts, "d", 1, 60_000).await;
    assert_eq!(
        (again[0]["id"].clone(), again[0]["attempt"].as_i64()),
        (j["id"].clone(), Some(2))
    );
    let (s, _) = ts
        .post(
            &format!("/v1/jobs/{id3}/complete"),
            json!({"lease_token": jobs[2]["lease_token"]}),
        )
        .await;
    assert_eq!(s, 200);
    let c = counts(ts, "b").await;
    assert_eq!((c["completed"].as_i64(), c["cancelled"].as_i64()), (Some(2), Some(1)));
}

/// An abandoned job comes back after its lease and never before (claims poll every 20 ms
/// and every answer that holds it must come after its `lease_expires_at`); a heartbeating
/// one is never taken away.
async fn abandoned_jobs_come_back_after_their_lease_only(ts: &TestServer) {
    let id = enqueue(ts, "k", json!([{"payload": {}}, {"payload": {}}])).await;
    let jobs = claim(ts, "k", 2, 300).await;
    assert_eq!(jobs.len(), 2);
    let (dead, alive) = (&jobs[0], &jobs[1]);
    let lease_end: chrono::DateTime<chrono::Utc> = dead["lease_expires_at"].as_str().unwrap().parse().unwrap();
    let hb = |j: &Value| {
        let (api, id, token) = (ts.api.clone(), j["id"].clone(), j["lease_token"].clone());
        async move {
            api.post(
                &format!("/v1/jobs/{id}/heartbeat"),
                json!({"lease_token": token, "lease_ms": 300}),
            )
            .await
        }
    };
    let mut back = Vec::new();
    let mut polls_before_lease_end = 0;
    for _ in 0..250 {
        let (s, b) = hb(alive).await;
        assert_eq!(s, 200, "the heartbeating worker lost its job: {b}");
        let before = chrono::Utc::now();
        back.extend(claim(ts, "k", 2, 60_000).await);
        if !back.is_empty() {
            assert!(
                chrono::Utc::now() >= lease_end,
                "came back before its lease ended ({lease_end}): {back:?}"
            );
            break;
        }
        polls_before_lease_end += i32::from(before < lease_end);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(polls_before_lease_end >= 3, "too few claims ran before the lease ended");
    assert_eq!(back.len(), 1, "{back:?}");
    assert_eq!(back[0]["id"], dead["id"]);
    assert_eq!(back[0]["attempt"], 2);
    let (s, b) = ts
        .post(
            &format!("/v1/jobs/{}/complete", dead["id"]),
            json!({"lease_token": dead["lease_token"]}),
        )
        .await;
    assert_eq!((s, code(&b)), (409, "lease_lost"), "the dead worker's token is stale");
    let (s, _) = ts
        .post(
            &format!("/v1/jobs/{}/complete", alive["id"]),
            json!({"lease_token": alive["lease_token"]}),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(id.len(), 2);
    ts.assert_audit_clean().await;
}

/// The library's worker pool straight on each backend's store: 500 jobs, every tenth fails
/// once; all end completed exactly once, none discarded.
async fn worker_pool_completes_each_job_once(ts: &TestServer) {
    use allot_core::job::{Enqueue, JobSpec, LeasedJob};
    use allot_core::Store;
    use allot_worker::{Handler, WorkerConfig, WorkerPool};
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    struct FailTenth;

    #[async_trait::async_trait]
    impl Handler for FailTenth {
        async fn run(&self, job: &LeasedJob) -> Result<(), allot_worker::JobError> {
            if job.attempt == 1 && job.payload["n"].as_i64().unwrap_or(0) % 10 == 0 {
                return Err("first attempt fails".into());
            }
            Ok(())
        }
    }

    let store: Arc<dyn Store> = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    let jobs = (0..500)
        .map(|n| JobSpec {
            max_attempts: 3,
            ..JobSpec::new(json!({ "n": n }), chrono::Utc::now())
        })
        .collect();
    let req = Enqueue {
        queue: "pool".into(),
        jobs,
        now: chrono::Utc::now(),
        traceparent: None,
        batch: None,
    };
    store.enqueue(&T, req, None).await.unwrap();
    let strategy = store.default_claim_strategy();
    let mut wc = WorkerConfig::new("pool", strategy);
    wc.concurrency = 20;
    wc.claim_batch = 25;
    let pool = WorkerPool::start(store.clone(), wc, Arc::new(FailTenth));
    let mut done = false;
    // Failed first attempts retry after the backoff (0.5..1 s); bounded at 10 s.
    for _ in 0..1000 {
        if store.queue_counts(&T, "pool").await.unwrap().counts[&allot_core::JobState::Completed] == 500 {
            done = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let stats = pool.stats.clone();
    pool.shutdown().await;
    assert!(
        done,
        "not drained: {:?}",
        store.queue_counts(&T, "pool").await.unwrap().counts
    );
    assert_eq!(stats.completed.load(Ordering::Relaxed), 500);
    assert_eq!(stats.failed.load(Ordering::Relaxed), 50);
    assert_eq!(stats.lease_lost.load(Ordering::Relaxed), 0);
    let c = store.queue_counts(&T, "pool").await.unwrap().counts;
    assert_eq!(
        (c[&allot_core::JobState::Discarded], c[&allot_core::JobState::Running]),
        (0, 0)
    );
    drop(store);
    ts.assert_audit_clean().await;
}

/// Through HTTP, with `Idempotency-Key`: a claim whose answer was lost is retried with its
/// key and gets the same jobs and tokens, byte for byte, marked replayed; a complete retried
/// with its key replays instead of `lease_lost`; the same key on another body is 422.
async fn keyed_claims_and_transitions_replay(ts: &TestServer) {
    enqueue(ts, "kq", json!([{"payload": 1}, {"payload": 2}, {"payload": 3}])).await;
    let claim = json!({"max": 2, "lease_ms": 60000}).to_string();
    let (s1, r1, b1) = ts
        .post_raw("/v1/queues/kq/claims", claim.clone(), Some("claim-1"))
        .await;
    let (s2, r2, b2) = ts.post_raw("/v1/queues/kq/claims", claim, Some("claim-1")).await;
    assert_eq!((s1, r1, s2, r2), (200, false, 200, true));
    assert_eq!(b1, b2, "the same jobs and tokens");
    assert_eq!(b1["jobs"].as_array().unwrap().len(), 2);
    let (_, counts) = ts.get("/v1/queues/kq").await;
    assert_eq!(counts["counts"]["running"], 2, "nothing more leased: {counts}");
    let job = &b1["jobs"][0];
    let path = format!("/v1/jobs/{}/complete", job["id"]);
    let body = json!({"lease_token": job["lease_token"]}).to_string();
    let (s, replayed, _) = ts.post_raw(&path, body.clone(), Some("done-1")).await;
    assert_eq!((s, replayed), (200, false));
    let (s, replayed, again) = ts.post_raw(&path, body, Some("done-1")).await;
    assert_eq!((s, replayed, again["state"].as_str()), (200, true, Some("completed")));
    let other = json!({"lease_token": b1["jobs"][1]["lease_token"]}).to_string();
    let (s, _, b) = ts.post_raw(&path, other, Some("done-1")).await;
    assert_eq!((s, code(&b)), (422, "idempotency_key_reused"));
    ts.assert_audit_clean().await;
}

/// A page ends at `max_page_bytes` of documents as well as at `limit`: 20 jobs of ~3 kB with
/// 10 kB pages come 4 to a page (the job that crosses the bound is the page's last), and
/// paging on by `next` gives every job once, never an empty page (the last page, ended by its
/// bytes, has `next` null); a last page of small jobs, short or exactly full, has `next` null.
async fn pages_are_bounded_by_bytes(ts: &TestServer) {
    let big = "x".repeat(3000);
    let jobs: Vec<Value> = (0..20).map(|i| json!({"payload": {"n": i, "pad": big}})).collect();
    enqueue(ts, "big", json!(jobs)).await;
    let (mut after, mut seen, mut pages) = (0i64, Vec::new(), 0);
    loop {
        let (s, page) = ts
            .get(&format!("/v1/queues/big/jobs?state=available&after={after}&limit=100"))
            .await;
        assert_eq!(s, 200, "{page}");
        let got = page["jobs"].as_array().unwrap();
        assert!(!got.is_empty(), "no empty page: {page}");
        pages += 1;
        assert!(got.len() <= 4, "a page of {} jobs of 3 kB with 10 kB pages", got.len());
        seen.extend(got.iter().map(|j| j["payload"]["n"].as_i64().unwrap()));
        if page["next"].is_null() {
            break;
        }
        assert_eq!(page["next"], got.last().unwrap()["id"], "next is the page's last id");
        after = got.last().unwrap()["id"].as_i64().unwrap();
    }
    assert_eq!(seen, (0..20).collect::<Vec<i64>>());
    assert_eq!(pages, 5);
    // A last page short of both bounds says so: `next` null, no empty page to fetch.
    enqueue(ts, "small", json!([{}, {}, {}])).await;
    let (_, page) = ts.get("/v1/queues/small/jobs?limit=100").await;
    let n = page["jobs"].as_array().map(Vec::len);
    assert_eq!((n, &page["next"]), (Some(3), &Value::Null), "{page}");
    let (_, page) = ts.get("/v1/queues/small/jobs?limit=2").await;
    assert_eq!(page["next"], page["jobs"][1]["id"], "a full page carries next: {page}");
    let (_, page) = ts.get("/v1/queues/small/jobs?limit=3").await;
    let n = page["jobs"].as_array().map(Vec::len);
    assert_eq!(
        (n, &page["next"]),
        (Some(3), &Value::Null),
        "an exactly full last page: {page}"
    );
}

/// Settings over HTTP (FIFO and a per-key limit, pause, resume), `blocked_by`, snooze,
/// output, listings of every state and by tag, and the 400s of each new field.
async fn queue_settings_and_the_operators_view(ts: &TestServer) {
    let bad = [
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"tags": vec!["t"; 17]}]}),
            "limit_exceeded",
        ),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"metadata": [1]}]}),
            "invalid_request",
        ),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"partition_key": ""}]}),
            "invalid_request",
        ),
        (
            "/v1/queues/q/jobs",
            json!({"jobs": [{"tags": [""]}]}),
            "invalid_request",
        ),
    ];
    for (path, body, c) in bad {
        let (s, b) = ts.post(path, body.clone()).await;
        assert_eq!((s, code(&b)), (400, c), "{path} {body}: {b}");
    }
    for (body, c) in [
        (json!({"max_running": 0}), "invalid_request"),
        (
            json!({"rate": {"per_window": 5, "window_ms": 86_400_001}}),
            "limit_exceeded",
        ),
        (json!({"rate": {"per_window": 5}}), "invalid_request"),
        (json!({"paused": true, "speed": 2}), "invalid_request"),
    ] {
        let (s, b) = ts.send_json("PUT", "/v1/queues/q", body.clone()).await;
        assert_eq!((s, code(&b)), (400, c), "{body}: {b}");
    }
    let ids = enqueue(
        ts,
        "ops",
        json!([{"partition_key": "c1", "tags": ["mail"], "metadata": {"order": 1}},
               {"partition_key": "c1"}, {"partition_key": "c2"}]),
    )
    .await;
    let (s, set) = ts
        .send_json(
            "PUT",
            "/v1/queues/ops",
            json!({"fifo_per_key": true, "max_running_per_key": 1}),
        )
        .await;
    assert_eq!(
        (
            s,
            set["fifo_per_key"].as_bool(),
            set["paused"].as_bool(),
            set["keep_completed"].as_bool()
        ),
        (200, Some(true), Some(false), Some(true)),
        "{set}"
    );
    assert_eq!(ts.get("/v1/queues/ops/settings").await.1, set);
    let leased = claim(ts, "ops", 10, 60_000).await;
    let got: Vec<i64> = leased.iter().map(|j| j["id"].as_i64().unwrap()).collect();
    assert_eq!(got, [ids[0], ids[2]], "one job per key, the first of c1");
    let (s, detail) = ts.get(&format!("/v1/jobs/{}", ids[1])).await;
    assert_eq!(
        (s, detail["blocked_by"].as_str(), detail["state"].as_str()),
        (200, Some("fifo"), Some("available")),
        "{detail}"
    );
    let (_, running) = ts.get(&format!("/v1/jobs/{}", ids[0])).await;
    assert_eq!(
        (running["state"].as_str(), running["worker"].as_str()),
        (Some("running"), Some("t")),
        "{running}"
    );
    assert_eq!(running["metadata"], json!({"order": 1}));
    let (s, p) = ts.post("/v1/queues/ops/pause", json!({})).await;
    assert_eq!(
        (s, p["paused"].as_bool(), p["fifo_per_key"].as_bool()),
        (200, Some(true), Some(true)),
        "{p}"
    );
    ts.ok("/v1/queues/ops/resume", json!({})).await;
    // Snooze the first of c1: its attempt is given back and it keeps its place.
    let snooze = json!({"lease_token": leased[0]["lease_token"], "delay_ms": 60_000});
    let (s, z) = ts.post(&format!("/v1/jobs/{}/snooze", ids[0]), snooze).await;
    assert_eq!(
        (s, z["state"].as_str(), z["attempt"].as_i64()),
        (200, Some("scheduled"), Some(0)),
        "{z}"
    );
    assert_eq!(
        ts.get(&format!("/v1/jobs/{}", ids[0])).await.1["blocked_by"],
        "scheduled"
    );
    assert_eq!(ts.get(&format!("/v1/jobs/{}", ids[1])).await.1["blocked_by"], "fifo");
    let (s, b) = ts
        .post(
            &format!("/v1/jobs/{}/snooze", ids[2]),
            json!({"lease_token": leased[1]["lease_token"], "delay_ms": -1}),
        )
        .await;
    assert_eq!((s, code(&b)), (400, "invalid_request"), "{b}");
    let done = json!({"lease_token": leased[1]["lease_token"], "output": {"sent": 3}});
    ts.ok(&format!("/v1/jobs/{}/complete", ids[2]), done).await;
    let (_, out) = ts.get(&format!("/v1/jobs/{}", ids[2])).await;
    assert_eq!(
        (out["state"].as_str(), out["output"].clone()),
        (Some("completed"), json!({"sent": 3})),
        "{out}"
    );
    let all = ts.get("/v1/queues/ops/jobs").await.1;
    assert_eq!(
        all["jobs"].as_array().unwrap().len(),
        3,
        "every state without ?state: {all}"
    );
    let tagged = ts.get("/v1/queues/ops/jobs?tag=mail").await.1;
    assert_eq!(tagged["jobs"].as_array().unwrap().len(), 1, "{tagged}");
    let by_meta = ts.get("/v1/queues/ops/jobs?metadata=%7B%22order%22%3A1%7D").await.1;
    assert_eq!(by_meta["jobs"][0]["id"], json!(ids[0]), "{by_meta}");
    let (s, b) = ts.get("/v1/queues/ops/jobs?metadata=order").await;
    assert_eq!((s, code(&b)), (422, "invalid_filter"), "{b}");
    let (s, b) = ts.get("/v1/jobs/424242").await;
    assert_eq!((s, code(&b)), (404, "not_found"));
    let (s, b) = ts.get("/v1/queues/ops/jobs?state=lost").await;
    assert_eq!((s, code(&b)), (400, "invalid_request"));
}

/// Schedules over HTTP: bad bodies are 400 naming the field (422 with the rule's code for
/// a cron expression, a time zone and a template's run_at), a taken name 409; the server's
/// scheduler enqueues the ticks of a per-second schedule; pause, delete, delete again (404).
async fn schedules_over_http(ts: &TestServer) {
    let job = json!({"payload": {"report": "daily"}});
    for (body, expected) in [
        (
            json!({"name": "r", "cron": "61 * * * *", "queue": "ticks", "job": job}),
            (422, "invalid_cron", "cron"),
        ),
        (
            json!({"name": "r", "cron": "* * * * *", "timezone": "Mars/Base", "queue": "ticks", "job": job}),
            (422, "unknown_time_zone", "timezone"),
        ),
        (
            json!({"name": "r", "cron": "* * * * *", "queue": "ticks", "job": {"run_at": "2030-01-01T00:00:00Z"}}),
            (422, "template_field", "run_at"),
        ),
        (
            json!({"name": "r", "cron": "* * * * *", "queue": "ticks", "job": job, "missed": "later"}),
            (400, "invalid_request", "missed"),
        ),
        (
            json!({"name": "bad name", "cron": "* * * * *", "queue": "ticks", "job": job}),
            (400, "invalid_request", "name"),
        ),
    ] {
        let (status, error, needle) = expected;
        let (s, b) = ts.post("/v1/schedules", body.clone()).await;
        assert_eq!((s, code(&b)), (status, error), "{body}: {b}");
        assert!(
            b["error"]["message"].as_str().unwrap_or("").contains(needle),
            "{needle}: {b}"
        );
    }
    let every = json!({"name": "tick", "cron": "* * * * * *", "timezone": "Europe/Paris", "queue": "ticks", "job": job, "missed": "run_once"});
    let (s, made) = ts.post("/v1/schedules", every.clone()).await;
    assert_eq!((s, made["then"].as_array().map(Vec::len)), (201, Some(4)), "{made}");
    let (s, b) = ts.post("/v1/schedules", every).await;
    assert_eq!((s, code(&b)), (409, "already_exists"));
    let mut seen = 0;
    for _ in 0..100 {
        seen = ts.get("/v1/queues/ticks/jobs").await.1["jobs"]
            .as_array()
            .map_or(0, Vec::len);
        if seen >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(seen >= 2, "the scheduler enqueued {seen} ticks in 10 s");
    let (_, list) = ts.get("/v1/schedules").await;
    assert_eq!(list["schedules"][0]["name"], "tick");
    let (s, p) = ts.post("/v1/schedules/tick/pause", json!({})).await;
    assert_eq!((s, p["paused"].as_bool()), (200, Some(true)));
    let (s, _) = ts.send_json("DELETE", "/v1/schedules/tick", json!(null)).await;
    assert_eq!(s, 204);
    let (s, b) = ts.send_json("DELETE", "/v1/schedules/tick", json!(null)).await;
    assert_eq!((s, code(&b)), (404, "not_found"));
}

/// `GET /v1/queues` lists the queues with their counts; a bulk cancel by tag, dry run first;
/// a filter state the action does not apply to is 422 `state_not_applicable`.
async fn queues_listed_and_bulk_actions(ts: &TestServer) {
    enqueue(ts, "list-a", json!([{"tags": ["t"]}, {"tags": ["t"]}, {}])).await;
    enqueue(ts, "list-b", json!([{}])).await;
    let (s, list) = ts.get("/v1/queues").await;
    assert_eq!(s, 200, "{list}");
    let names: Vec<&str> = list["queues"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|q| q["queue"].as_str())
        .collect();
    assert_eq!(names, ["list-a", "list-b"]);
    assert_eq!(list["queues"][0]["counts"]["available"], 3);
    let (_, page) = ts.get("/v1/queues?limit=1").await;
    assert_eq!(
        (page["queues"].as_array().unwrap().len(), page["next"].as_str()),
        (1, Some("list-a"))
    );
    let dry = json!({"action": "cancel", "filter": {"tag": "t"}, "dry_run": true});
    let (s, b) = ts.post("/v1/queues/list-a/jobs/bulk", dry).await;
    assert_eq!(
        (s, b["matched"].as_i64(), b["changed"].as_i64()),
        (200, Some(2), Some(0)),
        "{b}"
    );
    let (s, b) = ts
        .post(
            "/v1/queues/list-a/jobs/bulk",
            json!({"action": "cancel", "filter": {"tag": "t"}}),
        )
        .await;
    assert_eq!(
        (s, b["changed"].as_i64(), b["more"].as_bool()),
        (200, Some(2), Some(false)),
        "{b}"
    );
    assert_eq!(counts(ts, "list-a").await["cancelled"], 2);
    let bad = json!({"action": "retry", "filter": {"state": "available"}});
    let (s, b) = ts.post("/v1/queues/list-a/jobs/bulk", bad).await;
    assert_eq!((s, code(&b)), (422, "state_not_applicable"), "{b}");
    assert!(
        b["error"]["message"].as_str().unwrap_or("").contains("filter.state"),
        "{b}"
    );
}

/// A fair queue over HTTP: its settings refused where they break a rule (naming the field),
/// answered as put; claims of one alternate between the keys with work, the weighted key's
/// turn taking two.
async fn fair_claims_over_http(ts: &TestServer) {
    for (body, c, field) in [
        (
            json!({"fair_by": "partition_key", "weights": {"a": 0}}),
            "invalid_request",
            "weights.a",
        ),
        (
            json!({"fair_by": "partition_key", "weights": {"a": 1001}}),
            "limit_exceeded",
            "weights.a",
        ),
        (
            json!({"fair_by": "partition_key", "weights": {"": 2}}),
            "invalid_request",
            "weights",
        ),
        (json!({"fair_by": "tenant"}), "invalid_request", "fair_by"),
    ] {
        let (s, b) = ts.send_json("PUT", "/v1/queues/fq", body.clone()).await;
        assert_eq!((s, code(&b)), (400, c), "{body}: {b}");
        assert!(
            b["error"]["message"].as_str().unwrap_or("").contains(field),
            "{body}: {b}"
        );
    }
    // Weights alone are kept as put (they apply once the queue is fair): the settings read
    // back what the PUT answered (the stores once kept no row for them).
    let (s, alone) = ts.send_json("PUT", "/v1/queues/wq", json!({"weights": {"a": 3}})).await;
    assert_eq!((s, &alone["weights"]), (200, &json!({"a": 3})), "{alone}");
    assert_eq!(ts.get("/v1/queues/wq/settings").await.1, alone);
    let jobs: Vec<Value> = (0..6)
        .map(|i| json!({"partition_key": if i < 4 { "a" } else { "b" }, "payload": {"i": i}}))
        .collect();
    let ids = enqueue(ts, "fq", json!(jobs)).await;
    let put = json!({"fair_by": "partition_key", "weights": {"a": 2}});
    let (s, set) = ts.send_json("PUT", "/v1/queues/fq", put).await;
    assert_eq!(
        (s, &set["fair_by"], &set["weights"]),
        (200, &json!("partition_key"), &json!({"a": 2})),
        "{set}"
    );
    assert_eq!(ts.get("/v1/queues/fq/settings").await.1, set);
    let mut order = Vec::new();
    for _ in 0..6 {
        let got = claim(ts, "fq", 1, 60_000).await;
        order.push(got[0]["id"].as_i64().unwrap());
    }
    assert_eq!(
        order,
        [ids[0], ids[1], ids[4], ids[2], ids[3], ids[5]],
        "a, a, b, a, a, b"
    );
}

/// `depends_on` over HTTP: refusals name the field (an unknown id 422 `unknown_dependency`,
/// too many 400 `limit_exceeded`, a schedule's template may not say it); a job waits
/// `pending` with `blocked_by: dependencies`, runs once its dependency completed, and a
/// failed dependency's dependent reads `discarded` with the job that discarded it.
async fn dependencies_over_http(ts: &TestServer) {
    let top = enqueue(ts, "dq", json!([{"max_attempts": 1}])).await[0];
    let too_many: Vec<i64> = (1..=101).collect();
    for (deps, status, c) in [
        (json!([999_999]), 422, "unknown_dependency"),
        (json!([0]), 400, "invalid_request"),
        (json!(too_many), 400, "limit_exceeded"),
    ] {
        let body = json!({"jobs": [{}, {"depends_on": deps}]});
        let (s, b) = ts.post("/v1/queues/dq/jobs", body).await;
        assert_eq!((s, code(&b)), (status, c), "{b}");
        let message = b["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains("depends_on"), "{b}");
    }
    let (_, counts) = ts.get("/v1/queues/dq").await;
    assert_eq!(counts["counts"]["available"], 1, "nothing enqueued: {counts}");
    let waits = enqueue(ts, "dq", json!([{"depends_on": [top]}])).await[0];
    let runs = enqueue(ts, "dq", json!([{"depends_on": [top], "on_failed_dependency": "run"}])).await[0];
    let (_, d) = ts.get(&format!("/v1/jobs/{waits}")).await;
    assert_eq!(
        (&d["state"], &d["blocked_by"]),
        (&json!("pending"), &json!("dependencies")),
        "{d}"
    );
    let got = claim(ts, "dq", 10, 60_000).await;
    assert_eq!(got.len(), 1, "only the dependency runs: {got:?}");
    let token = got[0]["lease_token"].as_str().unwrap();
    let (s, _) = ts
        .post(
            &format!("/v1/jobs/{top}/fail"),
            json!({"lease_token": token, "error": "boom"}),
        )
        .await;
    assert_eq!(s, 200);
    let (_, d) = ts.get(&format!("/v1/jobs/{waits}")).await;
    let failure = format!("job {top} discarded");
    assert_eq!(
        (&d["state"], &d["dependency_failure"]),
        (&json!("discarded"), &json!(failure)),
        "{d}"
    );
    let (_, d) = ts.get(&format!("/v1/jobs/{runs}")).await;
    assert_eq!(d["state"], "available", "{d}");
    let schedule = json!({"name": "dep", "cron": "* * * * *", "queue": "dq", "job": {"depends_on": [top]}});
    let (s, b) = ts.post("/v1/schedules", schedule).await;
    assert_eq!((s, code(&b)), (422, "template_field"), "{b}");
}

/// A batch over HTTP: the answer names the callback, `pending` until both members finished;
/// then claimable once in its queue with the counts merged into its payload; refusals name
/// `batch.…`; an id twice is 409.
async fn a_batch_and_its_callback_over_http(ts: &TestServer) {
    for (batch, status, c) in [
        (json!({"id": "", "callback": {}}), 400, "invalid_request"),
        (
            json!({"id": "b", "callback": {"unique_key": "u"}}),
            422,
            "template_field",
        ),
        (json!({"id": "b", "callback": {"payload": [1]}}), 422, "template_field"),
        (
            json!({"id": "b", "queue": "no good", "callback": {}}),
            400,
            "invalid_request",
        ),
    ] {
        let (s, b) = ts
            .post("/v1/queues/bq/jobs", json!({"jobs": [{}], "batch": batch}))
            .await;
        assert_eq!((s, code(&b)), (status, c), "{b}");
        assert!(b["error"]["message"].as_str().unwrap_or("").contains("batch."), "{b}");
    }
    let body = json!({"jobs": [{"max_attempts": 1}, {}],
                      "batch": {"id": "import-7", "queue": "bqcb", "callback": {"payload": {"notify": "ops"}}}});
    let (s, b) = ts.post("/v1/queues/bq/jobs", body.clone()).await;
    assert_eq!(s, 201, "{b}");
    let callback = b["batch"]["callback_id"].as_i64().unwrap();
    assert_eq!(b["batch"]["id"], "import-7");
    let (_, d) = ts.get(&format!("/v1/jobs/{callback}")).await;
    assert_eq!((&d["state"], &d["queue"]), (&json!("pending"), &json!("bqcb")), "{d}");
    let got = claim(ts, "bq", 10, 60_000).await;
    assert_eq!(got.len(), 2);
    let (first, second) = (&got[0], &got[1]);
    let fail = json!({"lease_token": first["lease_token"], "error": "boom"});
    let (s, _) = ts.post(&format!("/v1/jobs/{}/fail", first["id"]), fail).await;
    assert_eq!(s, 200);
    assert!(claim(ts, "bqcb", 10, 60_000).await.is_empty(), "one member left");
    let done = json!({"lease_token": second["lease_token"]});
    let (s, _) = ts.post(&format!("/v1/jobs/{}/complete", second["id"]), done).await;
    assert_eq!(s, 200);
    let cb = claim(ts, "bqcb", 10, 60_000).await;
    assert_eq!(cb.len(), 1);
    assert_eq!(
        cb[0]["payload"],
        json!({"notify": "ops", "batch": {"id": "import-7", "jobs": 2, "completed": 1, "discarded": 1, "cancelled": 0}})
    );
    let (s, b) = ts.post("/v1/queues/bq/jobs", body).await;
    assert_eq!((s, code(&b)), (409, "already_exists"), "{b}");
}

/// `GET /v1/jobs/{id}?wait_ms=`: a finished job answers at once; a running one is answered
/// once a completion sent meanwhile has finished it (long before the wait); a job still
/// running at the deadline is answered as it is; a wait out of bounds is refused naming it.
async fn waiting_for_a_job_to_finish(ts: &TestServer) {
    for q in ["wait_ms=-1", "wait_ms=30001", "wait_ms=soon"] {
        let (s, b) = ts.get(&format!("/v1/jobs/1?{q}")).await;
        assert_eq!(s, 400, "{q}: {b}");
        assert!(
            b["error"]["message"].as_str().unwrap_or("").contains("wait_ms"),
            "{q}: {b}"
        );
    }
    let ids = enqueue(ts, "waits", json!([{"payload": {"n": 1}}, {"payload": {"n": 2}}])).await;
    let leased = claim(ts, "waits", 2, 60_000).await;
    let token = |id: i64| leased.iter().find(|j| j["id"] == json!(id)).unwrap()["lease_token"].clone();
    let started = std::time::Instant::now();
    let wait_path = format!("/v1/jobs/{}?wait_ms=20000", ids[0]);
    let complete_path = format!("/v1/jobs/{}/complete", ids[0]);
    let (waited, completed) = tokio::join!(ts.get(&wait_path), async {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        ts.post(&complete_path, json!({"lease_token": token(ids[0])})).await
    });
    assert_eq!(completed.0, 200, "{}", completed.1);
    assert_eq!(
        (waited.0, waited.1["state"].as_str()),
        (200, Some("completed")),
        "{}",
        waited.1
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let (s, again) = ts.get(&format!("/v1/jobs/{}?wait_ms=20000", ids[0])).await;
    assert_eq!((s, again["state"].as_str()), (200, Some("completed")));
    let (s, running) = ts.get(&format!("/v1/jobs/{}?wait_ms=300", ids[1])).await;
    assert_eq!((s, running["state"].as_str()), (200, Some("running")), "{running}");
    assert_eq!(ts.get("/v1/jobs/999999?wait_ms=300").await.0, 404);
}
