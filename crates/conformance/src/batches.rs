//! Batches with a callback (`allot_core::job::batch`): the callback waits for every member
//! and is released exactly once, by the member that finishes last, with the counts in its
//! payload, even when the last members finish together on three stores; a batch id is taken
//! once.

use crate::fixture::{body, fresh, Fixture, T};
use allot_core::job::{Complete, Completion, JobState, LeasedJob};
use allot_core::{validate, AllotError, Database};
use serde_json::json;
use std::sync::Arc;

async fn lease(f: &Fixture, queue: &str, max: i64) -> Vec<LeasedJob> {
    crate::jobs::lease(f, queue, max, 600_000).await
}

/// Enqueue `n` jobs of `queue` as batch `id` (every 97th with one attempt), its callback in
/// `cb_queue`; the ids and the callback's id.
async fn enqueue_batch(
    f: &Fixture,
    queue: &str,
    id: &str,
    n: usize,
    cb_queue: &str,
) -> Result<(Vec<i64>, i64), AllotError> {
    let jobs: Vec<serde_json::Value> = (0..n)
        .map(|i| json!({"payload": {"i": i}, "max_attempts": if i % 97 == 0 { 1 } else { 3 }}))
        .collect();
    let b =
        json!({"jobs": jobs, "batch": {"id": id, "queue": cb_queue, "callback": {"payload": {"report": "nightly"}}}});
    let req = validate::enqueue(queue, body(b), f.store.now(), &f.limits).unwrap();
    let done = f.store.enqueue(&T, req, None).await?;
    let e = fresh(Ok(done));
    let made = e.batch.expect("the batch is answered");
    assert_eq!(made.id, id);
    Ok((e.ids, made.callback_id))
}

/// Finish `jobs`: fail those with one attempt (discarded), cancel every 101st, complete the
/// rest in one batch completion.
async fn finish(f: &Fixture, s: &Arc<dyn Database>, queue: &str, jobs: &[LeasedJob]) -> (usize, usize) {
    let (mut discarded, mut cancelled) = (0, 0);
    let mut done = Vec::new();
    for j in jobs {
        if j.max_attempts == 1 {
            let fail = validate::fail(body(json!({"lease_token": j.lease_token})), &f.limits).unwrap();
            fresh(s.fail_job(&T, j.id, fail, None).await);
            discarded += 1;
        } else if j.payload["i"].as_i64().unwrap() % 101 == 0 {
            fresh(s.cancel_job(&T, j.id, None).await);
            cancelled += 1;
        } else {
            done.push(Completion {
                id: j.id,
                lease_token: j.lease_token.clone(),
            });
        }
    }
    if !done.is_empty() {
        let r = fresh(s.complete_jobs(&T, queue, done, None).await);
        assert!(r.lease_lost.is_empty(), "{:?}", r.lease_lost);
    }
    (discarded, cancelled)
}

/// A batch of 10 000: the callback is `pending` while any member is unfinished; the last
/// 100 members, leased at once, finish concurrently one by one (24 workers on three stores); the callback
/// is then claimable exactly once, its payload carrying how the 10 000 ended; the id is
/// taken.
pub async fn one_callback_per_batch(f: Fixture) {
    let n = 10_000;
    let (ids, cb) = enqueue_batch(&f, "bat", "nightly", n, "batcb").await.unwrap();
    assert_eq!(ids.len(), n);
    let (mut discarded, mut cancelled) = (0, 0);
    while f.store.queue_counts(&T, "bat").await.unwrap().open() > 100 {
        let jobs = lease(&f, "bat", 100).await;
        let keep = jobs
            .len()
            .min(f.store.queue_counts(&T, "bat").await.unwrap().open() as usize - 100);
        let (d, c) = finish(&f, &f.store, "bat", &jobs[..keep]).await;
        (discarded, cancelled) = (discarded + d, cancelled + c);
        let back: Vec<i64> = jobs[keep..].iter().map(|j| j.id).collect();
        for id in back {
            fresh(f.store.cancel_job(&T, id, None).await);
            fresh(f.store.retry_job(&T, id, None).await);
        }
    }
    assert_eq!(f.store.job_detail(&T, cb).await.unwrap().job.state, JobState::Pending);
    let last = lease(&f, "bat", 100).await;
    assert_eq!(last.len(), 100);
    // 24 workers on three stores (a session pooler's connections are few) take them.
    let stores = [f.store.clone(), f.reopen().await, f.reopen().await];
    let last = Arc::new(std::sync::Mutex::new(last));
    let mut set = tokio::task::JoinSet::new();
    for i in 0..24 {
        let (s, last) = (stores[i % 3].clone(), last.clone());
        set.spawn(async move {
            loop {
                let Some(j) = last.lock().unwrap().pop() else {
                    return;
                };
                fresh(s.complete_job(&T, j.id, Complete::new(&j.lease_token), None).await);
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    let got = lease(&f, "batcb", 10).await;
    assert_eq!(got.iter().map(|j| j.id).collect::<Vec<_>>(), [cb], "one callback");
    let counts = &got[0].payload["batch"];
    let completed = (n - discarded - cancelled) as i64;
    assert_eq!(
        counts,
        &json!({"id": "nightly", "jobs": n, "completed": completed, "discarded": discarded, "cancelled": cancelled})
    );
    assert_eq!(got[0].payload["report"], "nightly");
    assert!(lease(&f, "batcb", 10).await.is_empty(), "released once");
    match enqueue_batch(&f, "bat", "nightly", 1, "batcb").await {
        Err(AllotError::AlreadyExists { kind: "batch", .. }) => {}
        other => panic!("a batch id twice: {other:?}"),
    }
    f.finish().await;
}
