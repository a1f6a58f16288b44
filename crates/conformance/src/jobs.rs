//! Jobs: enqueued, claimed, heartbeated, failed, retried, completed (one or in bulk),
//! cancelled, listed, rescued, pruned; never leased twice.

use crate::fixture::{body, fresh, key, replayed, Fixture, T};
use allot_core::job::{Claim, Complete, JobState, LeasedJob};
use allot_core::Tenant;
use allot_core::{validate, AllotError, Executed};
use serde_json::json;
use std::time::Duration;

/// A claim of up to `max` jobs of `queue` leased for `lease_ms`.
pub(crate) fn claim(f: &Fixture, queue: &str, max: i64, lease_ms: i64) -> Claim {
    let b = body(json!({"max": max, "lease_ms": lease_ms}));
    validate::claim(queue, b, f.store.default_claim_strategy(), &f.limits).unwrap()
}

/// Claim up to `max` jobs of `queue` in [`T`].
pub(crate) async fn lease(f: &Fixture, queue: &str, max: i64, lease_ms: i64) -> Vec<LeasedJob> {
    fresh(f.store.claim_jobs(&T, claim(f, queue, max, lease_ms), None).await)
}

/// The jobs of `queue` in `state`, by id.
async fn ids_in(f: &Fixture, queue: &str, state: JobState) -> Vec<i64> {
    let jobs = f
        .store
        .list_jobs(&T, queue, state.into(), allot_core::Page::new(0, 100))
        .await
        .unwrap()
        .items;
    jobs.into_iter().map(|j| j.id).collect()
}

/// A keyed enqueue runs once and replays; a heartbeat moves a lease on; a failed attempt is
/// retryable with its error; a job out of attempts is discarded and `retry_job` makes it
/// available; completions in bulk finish several leases; a lease that ran out is rescued;
/// finished jobs are pruned; the gauge counts what is open; a wait with nothing enqueued
/// returns by its bound.
pub async fn job_lifecycle(f: Fixture) {
    let s = &f.store;
    let jobs = |n: usize, attempts: i64| {
        let jobs: Vec<serde_json::Value> = (0..n)
            .map(|i| json!({"payload": i, "max_attempts": attempts}))
            .collect();
        validate::enqueue("lq", body(json!({ "jobs": jobs })), s.now(), &f.limits).unwrap()
    };
    assert_eq!(fresh(s.enqueue(&T, jobs(2, 1), key("enqueue-1")).await).ids, [1, 2]);
    replayed(s.enqueue(&T, jobs(2, 1), key("enqueue-1")).await);
    let leased = lease(&f, "lq", 1, 1_000).await;
    let j = &leased[0];
    let beat = fresh(s.heartbeat_job(&T, j.id, &j.lease_token, 60_000, key("beat-1")).await);
    assert!(beat.lease_expires_at > Some(s.now() + chrono::Duration::seconds(30)));
    let fail = validate::fail(body(json!({"lease_token": j.lease_token, "error": "boom"})), &f.limits).unwrap();
    let failed = fresh(s.fail_job(&T, j.id, fail.clone(), key("fail-1")).await);
    assert_eq!(failed.state, JobState::Discarded, "one attempt, used");
    replayed(s.fail_job(&T, j.id, fail, key("fail-1")).await);
    let again = fresh(s.retry_job(&T, j.id, key("retry-1")).await);
    assert_eq!(again.state, JobState::Available);
    replayed(s.retry_job(&T, j.id, key("retry-1")).await);
    assert_eq!(ids_in(&f, "lq", JobState::Available).await, [1, 2]);
    let both = lease(&f, "lq", 2, 60_000).await;
    let done: Vec<allot_core::job::Completion> = both
        .iter()
        .map(|j| allot_core::job::Completion {
            id: j.id,
            lease_token: j.lease_token.clone(),
        })
        .collect();
    let bulk = fresh(s.complete_jobs(&T, "lq", done.clone(), key("bulk-1")).await);
    assert_eq!(bulk.completed.len(), 2, "{bulk:?}");
    replayed(s.complete_jobs(&T, "lq", done, key("bulk-1")).await);
    assert_eq!(ids_in(&f, "lq", JobState::Completed).await, [1, 2]);
    fresh(s.enqueue(&T, jobs(1, 3), None).await);
    let stalled = lease(&f, "lq", 1, 1_000).await;
    assert_eq!(
        s.rescue_jobs(s.now(), 100).await.unwrap(),
        0,
        "a live lease is not rescued"
    );
    f.clock.advance_ms(2_000);
    assert_eq!(s.rescue_jobs(s.now(), 100).await.unwrap(), 1);
    assert_eq!(ids_in(&f, "lq", JobState::Retryable).await, [stalled[0].id]);
    let depths = s.queue_depths().await.unwrap();
    assert!(
        depths.contains(&(T.to_string(), "lq".to_string(), JobState::Retryable, 1)),
        "{depths:?}"
    );
    f.clock.advance_ms(1_000);
    assert_eq!(s.prune_jobs(s.now(), 100).await.unwrap(), 2, "the two completed");
    assert!(ids_in(&f, "lq", JobState::Completed).await.is_empty());
    let waited = std::time::Instant::now();
    s.wait_for_jobs(&T, "empty", Duration::from_millis(50)).await;
    assert!(waited.elapsed() < Duration::from_secs(5), "a wait is bounded");
    assert!(matches!(
        s.cancel_job(&T, 999, None).await,
        Err(AllotError::NotFound { .. })
    ));
    f.finish().await;
}

/// With keys, job transitions run once: a claim retried with its key gets the same jobs and
/// tokens (and leases nothing more); a waiting claim's empty try stores nothing; complete
/// and cancel replay their first answer.
pub async fn keyed_job_transitions_replay(f: Fixture) {
    let claim = |final_try: bool| {
        let body = serde_json::from_value(json!({"max": 2, "lease_ms": 60_000})).unwrap();
        let mut c = validate::claim("kq", body, f.store.default_claim_strategy(), &f.limits).unwrap();
        c.final_try = final_try;
        c
    };
    let empty = f.store.claim_jobs(&T, claim(false), key("c-wait")).await.unwrap();
    assert_eq!(empty, Executed::Fresh(vec![]), "an empty waiting try");
    let jobs: Vec<serde_json::Value> = (0..3).map(|i| json!({ "payload": i })).collect();
    let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
    f.store
        .enqueue(
            &T,
            validate::enqueue("kq", body, f.store.now(), &f.limits).unwrap(),
            None,
        )
        .await
        .unwrap();
    // The key of the empty try is still free: this claim leases.
    let Executed::Fresh(first) = f.store.claim_jobs(&T, claim(false), key("c-wait")).await.unwrap() else {
        panic!("fresh")
    };
    assert_eq!(first.len(), 2);
    let Executed::Replayed(again) = f.store.claim_jobs(&T, claim(true), key("c-wait")).await.unwrap() else {
        panic!("replayed")
    };
    let again: Vec<LeasedJob> = serde_json::from_slice(&again.body).unwrap();
    assert_eq!(again, first, "the same jobs and tokens");
    let counts = f.store.queue_counts(&T, "kq").await.unwrap();
    assert_eq!(counts.counts[&JobState::Running], 2, "nothing more leased: {counts:?}");
    let j = &first[0];
    let done = f
        .store
        .complete_job(&T, j.id, Complete::new(&j.lease_token), key("done-1"))
        .await
        .unwrap();
    assert!(matches!(done, Executed::Fresh(ref s) if s.state == JobState::Completed));
    let replay = f
        .store
        .complete_job(&T, j.id, Complete::new(&j.lease_token), key("done-1"))
        .await
        .unwrap();
    assert!(
        matches!(replay, Executed::Replayed(_)),
        "a retry replays instead of lease_lost"
    );
    assert!(matches!(
        f.store
            .complete_job(&T, j.id, Complete::new(&j.lease_token), None)
            .await,
        Err(AllotError::LeaseLost { .. })
    ));
    let k = first[1].id;
    let c1 = f.store.cancel_job(&T, k, key("cancel-1")).await.unwrap();
    let c2 = f.store.cancel_job(&T, k, key("cancel-1")).await.unwrap();
    assert!(matches!((c1, c2), (Executed::Fresh(_), Executed::Replayed(_))));
    f.finish().await;
}

/// 50 jobs, 10 concurrent claimers of up to 3 until empty: each job leased and completed once.
pub async fn no_job_leased_twice(f: Fixture) {
    let jobs: Vec<serde_json::Value> = (0..50).map(|i| json!({ "payload": i })).collect();
    let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
    let req = validate::enqueue("q", body, f.store.now(), &f.limits).unwrap();
    f.store.enqueue(&T, req, None).await.unwrap();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let mut got = Vec::new();
            loop {
                let body = serde_json::from_value(json!({"max": 3, "lease_ms": 60_000})).unwrap();
                let claim = validate::claim("q", body, store.default_claim_strategy(), &limits).unwrap();
                let jobs = store.claim_jobs(&T, claim, None).await.unwrap().fresh().unwrap();
                if jobs.is_empty() {
                    return got;
                }
                for j in jobs {
                    store
                        .complete_job(&T, j.id, Complete::new(&j.lease_token), None)
                        .await
                        .unwrap();
                    got.push(j.id);
                }
            }
        });
    }
    let mut ids = Vec::new();
    while let Some(r) = set.join_next().await {
        ids.extend(r.unwrap());
    }
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!((n, ids.len()), (50, 50));
    assert_eq!(
        f.store.queue_counts(&T, "q").await.unwrap().counts[&JobState::Completed],
        50
    );
    f.finish().await;
}

async fn enqueue_n(f: &Fixture, tenant: &Tenant, n: usize) -> Vec<i64> {
    let jobs: Vec<serde_json::Value> = (0..n).map(|i| json!({ "payload": i })).collect();
    let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
    let req = validate::enqueue("q", body, f.store.now(), &f.limits).unwrap();
    f.store.enqueue(tenant, req, None).await.unwrap().fresh().unwrap().ids
}

async fn ledger_ids(f: &Fixture, tenant: &Tenant, sku: &str) -> Vec<i64> {
    let entries = f
        .store
        .ledger(tenant, sku, allot_core::Page::new(0, 100))
        .await
        .unwrap()
        .items;
    entries.iter().map(|e| e.id).collect()
}

/// Ids count only their tenant's objects (issue 24): a tenant's jobs, ledger entries and
/// units are numbered 1, 2, 3, … whatever other tenants make in between; ten first enqueues
/// at once of a new tenant (its counter made under a race) get exactly 1..=10; and an id two
/// tenants both have names only the caller's object.
pub async fn ids_count_only_their_tenant(f: Fixture) {
    let (a, b) = (&Tenant::stored("tenant-a"), &Tenant::stored("tenant-b"));
    assert_eq!(enqueue_n(&f, a, 1).await, [1]);
    assert_eq!(enqueue_n(&f, b, 7).await, (1..=7).collect::<Vec<_>>());
    assert_eq!(enqueue_n(&f, a, 2).await, [2, 3], "not 9 and 10");
    for (tenant, allocations) in [(a, 1), (b, 3), (a, 1)] {
        if f.store.get_sku(tenant, "S").await.is_err() {
            let body = serde_json::from_value(json!({"sku": "S", "on_hand": 5})).unwrap();
            let req = validate::create_sku(body, &f.limits).unwrap();
            f.store.create_sku(tenant, req, None).await.unwrap();
        }
        for _ in 0..allocations {
            f.store.allocate(tenant, f.allocation("S", 1), None).await.unwrap();
        }
    }
    assert_eq!(ledger_ids(&f, a, "S").await, [1, 2, 3]);
    assert_eq!(ledger_ids(&f, b, "S").await, [1, 2, 3, 4]);
    for (tenant, serials) in [(a, vec!["A1", "A2"]), (b, vec!["B1", "B2", "B3"]), (a, vec!["A3"])] {
        let units: Vec<serde_json::Value> = serials.iter().map(|s| json!({ "serial": s })).collect();
        let body = serde_json::from_value(json!({ "units": units })).unwrap();
        let req = validate::add_units("U", body, f.store.now(), &f.limits).unwrap();
        f.store.add_units(tenant, req, None).await.unwrap();
    }
    let filter = allot_core::unit::UnitFilter::default();
    let units = f
        .store
        .list_units(a, "U", &filter, allot_core::Page::new(0, 100))
        .await
        .unwrap()
        .items;
    let ids: Vec<(i64, &str)> = units.iter().map(|u| (u.unit.id, u.unit.serial.as_str())).collect();
    assert_eq!(ids, [(1, "A1"), (2, "A2"), (3, "A3")]);
    assert_eq!(ledger_ids(&f, a, "U").await, [4, 5], "after the tenant's own 3 on S");

    let mut set = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let body = serde_json::from_value(json!({"jobs": [{"payload": 0}]})).unwrap();
            let req = validate::enqueue("q", body, store.now(), &limits).unwrap();
            store
                .enqueue(&allot_core::Tenant::stored("tenant-c"), req, None)
                .await
                .unwrap()
                .fresh()
                .unwrap()
                .ids
        });
    }
    let mut ids: Vec<i64> = set.join_all().await.into_iter().flatten().collect();
    ids.sort_unstable();
    assert_eq!(ids, (1..=10).collect::<Vec<_>>(), "a new tenant's first ids, at once");

    // Job 1 is both a's and b's: b leasing and completing its 1 leaves a's 1 alone.
    let body = serde_json::from_value(json!({"max": 1, "lease_ms": 60_000})).unwrap();
    let claim = validate::claim("q", body, f.store.default_claim_strategy(), &f.limits).unwrap();
    let leased = f.store.claim_jobs(b, claim, None).await.unwrap().fresh().unwrap();
    assert_eq!(leased[0].id, 1);
    f.store
        .complete_job(b, 1, Complete::new(&leased[0].lease_token), None)
        .await
        .unwrap();
    let counts = f.store.queue_counts(a, "q").await.unwrap();
    assert_eq!(
        (counts.counts[&JobState::Available], counts.open()),
        (3, 3),
        "{counts:?}"
    );
    f.finish().await;
}
