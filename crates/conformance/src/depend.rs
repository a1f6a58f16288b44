//! Job dependencies (`depends_on`, `allot_core::job::depend`): a job waits `pending` until
//! every dependency completed; a discarded or cancelled dependency discards its dependents
//! down the chain (naming the job that started it) unless they say `run`; an unknown id is
//! refused with nothing enqueued; and under many workers on several stores nothing runs
//! before its dependencies and nothing is lost.

use crate::fixture::{body, fresh, Fixture, T};
use crate::queues::{enqueue, settle};
use allot_core::job::queue::BlockedBy;
use allot_core::job::{Complete, JobState, LeasedJob};
use allot_core::Database;
use allot_core::{validate, AllotError};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;

async fn state(f: &Fixture, id: i64) -> JobState {
    f.store.job_detail(&T, id).await.unwrap().job.state
}

/// What discarded a job because of its dependencies.
async fn last_error(f: &Fixture, id: i64) -> String {
    let d = f.store.job_detail(&T, id).await.unwrap();
    d.job.dependency_failure.unwrap_or_default()
}

async fn lease(f: &Fixture, queue: &str) -> Vec<LeasedJob> {
    crate::jobs::lease(f, queue, 20, 60_000).await
}

async fn complete(f: &Fixture, j: &LeasedJob) {
    fresh(
        f.store
            .complete_job(&T, j.id, Complete::new(&j.lease_token), None)
            .await,
    );
}

async fn fail(f: &Fixture, j: &LeasedJob) {
    let fail = validate::fail(body(json!({"lease_token": j.lease_token, "error": "boom"})), &f.limits).unwrap();
    fresh(f.store.fail_job(&T, j.id, fail, None).await);
}

/// One job of `queue` naming `deps`, with `extra` fields.
async fn after(f: &Fixture, queue: &str, deps: &[i64], extra: serde_json::Value) -> i64 {
    let mut j = json!({"depends_on": deps});
    j.as_object_mut()
        .unwrap()
        .extend(extra.as_object().cloned().unwrap_or_default());
    enqueue(f, queue, json!([j])).await[0]
}

/// A diamond's middle waits for both tops; completing one is not enough; a failed job
/// discards its dependents and theirs (each naming the job that failed), a `run` dependent
/// runs anyway; a job enqueued after a failed dependency starts discarded; a cancel and a
/// bulk delete of a dependency discard as a failure does; an unknown id changes nothing; a
/// retry leaves a pending job pending; a job starting discarded still holds its unique key
/// for a later job of its request.
pub async fn dependencies_wait_and_propagate(f: Fixture) {
    let q = "dep";
    let tops = enqueue(&f, q, json!([{}, {}])).await;
    let mid = after(&f, q, &tops, json!({"max_attempts": 1})).await;
    let low = after(&f, q, &[mid], json!({})).await;
    let runs = after(&f, q, &[mid], json!({"on_failed_dependency": "run"})).await;
    let lowest = after(&f, q, &[low], json!({})).await;
    assert_eq!(state(&f, mid).await, JobState::Pending);
    let d = f.store.job_detail(&T, mid).await.unwrap();
    assert_eq!(d.blocked_by, Some(BlockedBy::Dependencies));
    let pending = f
        .store
        .list_jobs(&T, q, JobState::Pending.into(), allot_core::Page::new(0, 10))
        .await;
    assert_eq!(pending.unwrap().items.len(), 4);
    let counts = f.store.queue_counts(&T, q).await.unwrap();
    assert_eq!((counts.counts[&JobState::Pending], counts.open()), (4, 6));
    let unknown = validate::enqueue(
        q,
        body(json!({"jobs": [{}, {"depends_on": [tops[0], 999_999]}]})),
        f.store.now(),
        &f.limits,
    )
    .unwrap();
    match f.store.enqueue(&T, unknown, None).await {
        Err(AllotError::Unprocessable { rule, message }) => {
            assert_eq!(rule.code(), "unknown_dependency");
            assert!(message.contains("jobs[1].depends_on"), "{message}");
        }
        other => panic!("an unknown dependency: {other:?}"),
    }
    assert_eq!(f.store.queue_counts(&T, q).await.unwrap().open(), 6, "nothing enqueued");
    let first = lease(&f, q).await;
    assert_eq!(first.iter().map(|j| j.id).collect::<Vec<_>>(), tops);
    complete(&f, &first[0]).await;
    assert_eq!(state(&f, mid).await, JobState::Pending, "one of two tops done");
    complete(&f, &first[1]).await;
    assert_eq!(state(&f, mid).await, JobState::Available);
    let second = lease(&f, q).await;
    assert_eq!(second.iter().map(|j| j.id).collect::<Vec<_>>(), [mid]);
    fail(&f, &second[0]).await;
    assert_eq!(state(&f, mid).await, JobState::Discarded);
    let origin = format!("job {mid} discarded");
    for id in [low, lowest] {
        assert_eq!(state(&f, id).await, JobState::Discarded, "job {id}");
        assert_eq!(last_error(&f, id).await, origin, "job {id}");
    }
    assert_eq!(state(&f, runs).await, JobState::Available, "`run` runs anyway");
    let late = after(&f, q, &[low], json!({})).await;
    assert_eq!(state(&f, late).await, JobState::Discarded);
    assert_eq!(last_error(&f, late).await, format!("job {low} discarded"));
    let late_run = after(&f, q, &[low, runs], json!({"on_failed_dependency": "run"})).await;
    assert_eq!(state(&f, late_run).await, JobState::Pending, "waits for `runs` only");
    // A retry by hand leaves a pending job as it is.
    let retried = fresh(f.store.retry_job(&T, late_run, None).await);
    assert_eq!(retried.state, JobState::Pending);
    // Two jobs of one request with one unique key, the first starting discarded: both are it.
    let twice = json!([{"depends_on": [low], "unique_key": "u"}, {"unique_key": "u"}]);
    let ids = enqueue(&f, q, twice).await;
    assert_eq!(ids[0], ids[1]);
    assert_eq!(state(&f, ids[0]).await, JobState::Discarded);
    cancelled_and_deleted_dependencies(&f).await;
    f.finish().await;
}

/// A cancelled dependency and one deleted by a bulk call discard their dependents; a
/// dependency run again by hand is not counted twice; a completed job another waits for is
/// kept in a queue that drops completed jobs.
async fn cancelled_and_deleted_dependencies(f: &Fixture) {
    let q = "dep2";
    let c = enqueue(f, q, json!([{}])).await[0];
    let waits = after(f, q, &[c], json!({})).await;
    fresh(f.store.cancel_job(&T, c, None).await);
    assert_eq!(last_error(f, waits).await, format!("job {c} cancelled"));
    let del = enqueue(f, q, json!([{"tags": ["gone"]}])).await[0];
    let waits = after(f, q, &[del], json!({})).await;
    let bulk = validate::bulk(
        q,
        body(json!({"action": "delete", "filter": {"tag": "gone"}})),
        &f.limits,
    )
    .unwrap();
    assert_eq!(f.store.bulk_jobs(&T, bulk).await.unwrap().changed, 1);
    assert_eq!(state(f, waits).await, JobState::Discarded);
    assert_eq!(last_error(f, waits).await, format!("job {del} cancelled"));
    // A dependency cancelled, run again by hand and completed counts once: the `run`
    // dependent still waits for its other dependency.
    let two = enqueue(f, "dep3", json!([{}, {}])).await;
    let both = after(f, "dep3", &two, json!({"on_failed_dependency": "run"})).await;
    fresh(f.store.cancel_job(&T, two[0], None).await);
    fresh(f.store.retry_job(&T, two[0], None).await);
    let again = lease(f, "dep3").await;
    let first = again.iter().find(|j| j.id == two[0]).unwrap();
    complete(f, first).await;
    assert_eq!(
        state(f, both).await,
        JobState::Pending,
        "still waits for job {}",
        two[1]
    );
    let second = again.iter().find(|j| j.id == two[1]).unwrap();
    complete(f, second).await;
    assert_eq!(state(f, both).await, JobState::Available);
    settle(f, "drop2", json!({"keep_completed": false})).await;
    let kept = enqueue(f, "drop2", json!([{}])).await[0];
    let waits = after(f, "drop2", &[kept], json!({})).await;
    let j = lease(f, "drop2").await;
    complete(f, &j[0]).await;
    assert_eq!(state(f, kept).await, JobState::Completed, "kept: a job waits for it");
    assert_eq!(state(f, waits).await, JobState::Available);
}

/// What the graph storm enqueued: each job's dependencies, and the jobs that fail.
#[derive(Default)]
struct Graph {
    deps: HashMap<i64, Vec<i64>>,
    completed: usize,
    discarded: usize,
}

/// 12 chains of 10 and 8 diamonds (a top, four middles, a bottom); the head of every third
/// chain fails its only attempt, so its whole chain is discarded.
async fn build_graph(f: &Fixture, q: &str) -> Graph {
    let mut g = Graph::default();
    let mut heads: Vec<i64> = Vec::new();
    for c in 0..12 {
        let fails = c % 3 == 0;
        let id = enqueue(f, q, json!([{"payload": {"fail": fails}, "max_attempts": 1}])).await[0];
        g.deps.insert(id, vec![]);
        heads.push(id);
        let mut prev = id;
        for _ in 1..10 {
            let id = after(f, q, &[prev], json!({"payload": {"deps": [prev]}})).await;
            g.deps.insert(id, vec![prev]);
            prev = id;
        }
        if fails {
            g.discarded += 10;
        } else {
            g.completed += 10;
        }
    }
    for _ in 0..8 {
        let top = enqueue(f, q, json!([{}])).await[0];
        g.deps.insert(top, vec![]);
        let mut ms = Vec::new();
        for _ in 0..4 {
            let m = after(f, q, &[top], json!({"payload": {"deps": [top]}})).await;
            g.deps.insert(m, vec![top]);
            ms.push(m);
        }
        let bottom = after(f, q, &ms, json!({"payload": {"deps": ms}})).await;
        g.deps.insert(bottom, ms);
        g.completed += 6;
    }
    g
}

/// One worker: claim, check every dependency of each job completed (the store says so),
/// fail the jobs that say so, complete the rest; until nothing is open.
async fn dependency_worker(store: Arc<dyn Database>, f_limits: allot_core::Limits, q: &'static str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        assert!(std::time::Instant::now() < deadline, "the graph did not drain");
        let claim = validate::claim(
            q,
            body(json!({"max": 3, "lease_ms": 60_000})),
            store.default_claim_strategy(),
            &f_limits,
        )
        .unwrap();
        let jobs = fresh(store.claim_jobs(&T, claim, None).await);
        if jobs.is_empty() {
            if store.queue_counts(&T, q).await.unwrap().open() == 0 {
                return;
            }
            tokio::task::yield_now().await;
            continue;
        }
        for j in jobs {
            for dep in j.payload["deps"].as_array().cloned().unwrap_or_default() {
                let d = store.job_detail(&T, dep.as_i64().unwrap()).await.unwrap();
                assert_eq!(
                    d.job.state,
                    JobState::Completed,
                    "job {} ran before dependency {dep}",
                    j.id
                );
            }
            if j.payload["fail"] == json!(true) {
                let fail = validate::fail(body(json!({"lease_token": j.lease_token})), &f_limits).unwrap();
                fresh(store.fail_job(&T, j.id, fail, None).await);
            } else {
                fresh(store.complete_job(&T, j.id, Complete::new(&j.lease_token), None).await);
            }
        }
    }
}

/// Chains and diamonds under 16 workers on three stores: nothing runs before its
/// dependencies, each chain behind a failed head is discarded whole, everything else
/// completes, nothing is left pending.
pub async fn dependency_graphs_under_workers(f: Fixture) {
    let q = "graph";
    let g = build_graph(&f, q).await;
    let stores = [f.store.clone(), f.reopen().await, f.reopen().await];
    let mut set = tokio::task::JoinSet::new();
    for i in 0..16 {
        set.spawn(dependency_worker(stores[i % 3].clone(), f.limits.clone(), q));
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    let counts = f.store.queue_counts(&T, q).await.unwrap().counts;
    assert_eq!(counts[&JobState::Completed] as usize, g.completed);
    assert_eq!(counts[&JobState::Discarded] as usize, g.discarded);
    assert_eq!(counts[&JobState::Pending], 0);
    assert_eq!(g.deps.len(), g.completed + g.discarded);
    f.finish().await;
}
