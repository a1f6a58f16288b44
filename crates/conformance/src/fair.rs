//! Fair claiming (`fair_by: partition_key`, `allot_core::job::fair`): one heavy key cannot
//! starve the light ones, weights give a key's turn more jobs, a turn outlives a claim, and
//! the fair claim stays exact with per-key limits and FIFO under concurrent claimers on
//! several stores.

use crate::fixture::{Fixture, T};
use crate::queues::{enqueue, run_workers, settle};
use allot_core::job::{JobState, LeasedJob};
use serde_json::json;
use std::collections::{HashMap, HashSet};

/// Claim up to `max` jobs of `queue` with a minute's lease.
async fn lease(f: &Fixture, queue: &str, max: i64) -> Vec<LeasedJob> {
    crate::jobs::lease(f, queue, max, 60_000).await
}

/// The group of each job (its payload's `key`, "" for none), by id.
fn groups(jobs: &[LeasedJob]) -> Vec<String> {
    jobs.iter()
        .map(|j| j.payload["key"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A heavy key enqueued first (2000 jobs), then 90 light keys of 10 and 5 jobs without a
/// key: claims of 10 take one job of each group in turn (the keyless jobs first, then the
/// keys in byte order), so every group's first job starts within the first ten claims; a
/// `PUT` with weights starts a new round in which the heavy key's turn takes 3, one claim of
/// 1 after another.
pub async fn fair_claims_serve_every_key(f: Fixture) {
    let heavy: Vec<serde_json::Value> = (0..2000)
        .map(|_| json!({"payload": {"key": "heavy"}, "partition_key": "heavy"}))
        .collect();
    enqueue(&f, "fair", json!(heavy)).await;
    let light: Vec<serde_json::Value> = (0..900)
        .map(|i| {
            let k = format!("light{:02}", i % 90);
            json!({"payload": {"key": k}, "partition_key": k})
        })
        .collect();
    enqueue(&f, "fair", json!(light)).await;
    enqueue(
        &f,
        "fair",
        json!((0..5).map(|_| json!({"payload": {}})).collect::<Vec<_>>()),
    )
    .await;
    let plain = lease(&f, "fair", 10).await;
    assert!(
        groups(&plain).iter().all(|g| g == "heavy"),
        "oldest first before the setting"
    );
    settle(&f, "fair", json!({"fair_by": "partition_key"})).await;
    // Claims of 10: each takes one job of ten groups in turn (each answer best first).
    let mut claims: Vec<Vec<String>> = Vec::new();
    for _ in 0..10 {
        claims.push(groups(&lease(&f, "fair", 10).await));
    }
    let first_nine: HashSet<&String> = claims[..9].iter().flatten().collect();
    assert_eq!(first_nine.len(), 90, "nine claims of 10, ninety groups: {claims:?}");
    let mut want: HashSet<String> = (0..90).map(|i| format!("light{i:02}")).collect();
    want.extend([String::new(), "heavy".to_string()]);
    let all: HashSet<String> = claims.iter().flatten().cloned().collect();
    assert_eq!(all, want, "every group's first job within the first ten claims");
    let mut tenth = claims[9].clone();
    tenth.sort();
    let mut wrapped: Vec<String> = ["", "heavy", "light88", "light89"].map(String::from).to_vec();
    wrapped.extend((0..6).map(|i| format!("light{i:02}")));
    wrapped.sort();
    assert_eq!(tenth, wrapped, "the tenth claim ends the round and starts the next");
    // Weights: a new round, the heavy key takes 3 a turn, the others 1.
    settle(&f, "fair", json!({"fair_by": "partition_key", "weights": {"heavy": 3}})).await;
    let mut order = Vec::new();
    for _ in 0..(1 + 90 + 3 + 1) {
        order.extend(groups(&lease(&f, "fair", 1).await));
    }
    let mut turn = vec![String::new()];
    turn.extend(["heavy".to_string(), "heavy".into(), "heavy".into()]);
    turn.extend((0..90).map(|i| format!("light{i:02}")));
    turn.push(String::new());
    assert_eq!(
        order, turn,
        "a round: the keyless group, heavy's turn of 3, every light key"
    );
    f.finish().await;
}

/// 120 jobs: a heavy key of 60, six light keys of 10 (every third job fails its first attempt).
fn storm_jobs() -> serde_json::Value {
    let jobs: Vec<serde_json::Value> = (0..120)
        .map(|i| {
            let k = if i < 60 {
                "big".to_string()
            } else {
                format!("k{}", i % 6)
            };
            json!({"payload": {"key": k}, "partition_key": k})
        })
        .collect();
    json!(jobs)
}

/// No attempt claimed twice (every third job twice, its failed first attempt and its retry),
/// and all 120 completed.
async fn each_attempt_once(f: &Fixture, queue: &str, claimed: &HashMap<String, Vec<i64>>) {
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for id in claimed.values().flatten() {
        *seen.entry(*id).or_default() += 1;
    }
    for (id, n) in &seen {
        assert_eq!(*n, if id % 3 == 0 { 2 } else { 1 }, "job {id} claimed {n} times");
    }
    assert_eq!(seen.len(), 120);
    let counts = f.store.queue_counts(&T, queue).await.unwrap().counts;
    assert_eq!(counts[&JobState::Completed], 120);
}

/// 32 workers on three stores over a fair queue with FIFO per key (so one of a key running at
/// once) and at most 8 running in the queue: no attempt claimed twice, each key's attempts in
/// enqueue order one at a time, and every job completes.
pub async fn fair_claims_under_claimers(f: Fixture) {
    enqueue(&f, "fairstorm", storm_jobs()).await;
    settle(
        &f,
        "fairstorm",
        json!({"fair_by": "partition_key", "weights": {"big": 2}, "fifo_per_key": true, "max_running": 8}),
    )
    .await;
    let rec = run_workers(&f, "fairstorm").await;
    for (k, order) in &rec.claimed {
        assert!(
            order.windows(2).all(|w| w[0] <= w[1]),
            "key {k} out of order: {order:?}"
        );
        assert_eq!(rec.most[k], 1, "key {k}: more than one at once");
    }
    assert!(rec.most_all <= 8, "{} running at once in the queue", rec.most_all);
    each_attempt_once(&f, "fairstorm", &rec.claimed).await;
    f.finish().await;
}

/// The same storm with `max_running_per_key: 2` (and at most 8 in the queue) instead of FIFO:
/// no key ever runs more than 2 at once, the heavy key's weight of 3 notwithstanding, no
/// attempt is claimed twice, and every job completes.
pub async fn fair_claims_with_a_per_key_limit(f: Fixture) {
    enqueue(&f, "fairkeyed", storm_jobs()).await;
    settle(
        &f,
        "fairkeyed",
        json!({"fair_by": "partition_key", "weights": {"big": 3}, "max_running_per_key": 2, "max_running": 8}),
    )
    .await;
    let rec = run_workers(&f, "fairkeyed").await;
    for (k, most) in &rec.most {
        assert!(*most <= 2, "key {k}: {most} running at once");
    }
    assert!(rec.most_all <= 8, "{} running at once in the queue", rec.most_all);
    each_attempt_once(&f, "fairkeyed", &rec.claimed).await;
    f.finish().await;
}
