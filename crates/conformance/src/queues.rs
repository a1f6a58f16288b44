//! Queue settings and the operator's view: pause and resume, snooze, output, tags and
//! metadata, listings in every state, `blocked_by`; limits, rates and FIFO per key obeyed by
//! concurrent claimers on several stores (as several instances would be).

use crate::fixture::{body, fresh, Fixture, T};
use allot_core::job::queue::{BlockedBy, QueueSettings};
use allot_core::job::{Claim, Complete, JobFilter, JobState, LeasedJob};
use allot_core::{validate, Database};
use serde_json::json;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A claim of up to `max` jobs of `queue` with a minute's lease.
fn claim(f: &Fixture, queue: &str, max: i64) -> Claim {
    crate::jobs::claim(f, queue, max, 60_000)
}

/// Claim up to `max` jobs of `queue` with a minute's lease.
async fn lease(f: &Fixture, queue: &str, max: i64) -> Vec<LeasedJob> {
    crate::jobs::lease(f, queue, max, 60_000).await
}

pub(crate) async fn enqueue(f: &Fixture, queue: &str, jobs: serde_json::Value) -> Vec<i64> {
    let req = validate::enqueue(queue, body(json!({ "jobs": jobs })), f.store.now(), &f.limits).unwrap();
    fresh(f.store.enqueue(&T, req, None).await).ids
}

pub(crate) async fn settle(f: &Fixture, queue: &str, settings: serde_json::Value) -> QueueSettings {
    let s = validate::queue_settings(queue, body(settings), &f.limits).unwrap();
    f.store.put_queue_settings(&T, s).await.unwrap()
}

async fn blocked(f: &Fixture, id: i64) -> Option<BlockedBy> {
    f.store.job_detail(&T, id).await.unwrap().blocked_by
}

/// Tags, metadata and a key are kept and filter listings (and so do payload fields); a listing without a state shows
/// every state; a paused queue leases nothing and says so; a snooze gives the attempt back
/// and schedules the job; a completion keeps its output; settings that change nothing are
/// the defaults again.
pub async fn pause_snooze_output_and_detail(f: Fixture) {
    let s = &f.store;
    let ids = enqueue(
        &f,
        "ops",
        json!([{"payload": 1, "tags": ["red", "big"], "metadata": {"order": 7}, "partition_key": "k1"},
               {"payload": 2, "tags": ["blue"]}, {"payload": 3}]),
    )
    .await;
    let red = s
        .list_jobs(
            &T,
            "ops",
            JobFilter {
                tag: Some("red".into()),
                ..JobFilter::default()
            },
            allot_core::Page::new(0, 10),
        )
        .await
        .unwrap()
        .items;
    assert_eq!(red.iter().map(|j| j.id).collect::<Vec<_>>(), [ids[0]]);
    assert_eq!(
        (red[0].metadata.clone(), red[0].partition_key.as_deref()),
        (json!({"order": 7}), Some("k1"))
    );
    assert_eq!(red[0].tags, ["red", "big"]);
    let by_meta = |m: &str| JobFilter {
        metadata: Some(validate::metadata_filter(m, &f.limits).unwrap()),
        ..JobFilter::default()
    };
    let order7 = s
        .list_jobs(&T, "ops", by_meta(r#"{"order": 7}"#), allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items;
    assert_eq!(order7.iter().map(|j| j.id).collect::<Vec<_>>(), [ids[0]]);
    assert!(
        s.list_jobs(&T, "ops", by_meta(r#"{"order": "7"}"#), allot_core::Page::new(0, 10))
            .await
            .unwrap()
            .items
            .is_empty(),
        "a string is not the number"
    );
    let by_payload = |p: &str| JobFilter {
        payload: Some(validate::payload_filter(p, &f.limits).unwrap()),
        ..JobFilter::default()
    };
    let to_ada = enqueue(
        &f,
        "ops-p",
        json!([{"payload": {"to": "ada", "n": 1}}, {"payload": {"to": "bob", "n": true}, "metadata": {"vip": true}},
               {"payload": "ada"}]),
    )
    .await;
    let truth = s
        .list_jobs(&T, "ops-p", by_payload(r#"{"n": true}"#), allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items;
    assert_eq!(
        truth.iter().map(|j| j.id).collect::<Vec<_>>(),
        [to_ada[1]],
        "true is not 1"
    );
    let vip = JobFilter {
        metadata: Some(validate::metadata_filter(r#"{"vip": 1}"#, &f.limits).unwrap()),
        ..JobFilter::default()
    };
    assert!(
        s.list_jobs(&T, "ops-p", vip, allot_core::Page::new(0, 10))
            .await
            .unwrap()
            .items
            .is_empty(),
        "1 is not true"
    );
    let ada = s
        .list_jobs(
            &T,
            "ops-p",
            by_payload(r#"{"to": "ada"}"#),
            allot_core::Page::new(0, 10),
        )
        .await
        .unwrap()
        .items;
    assert_eq!(
        ada.iter().map(|j| j.id).collect::<Vec<_>>(),
        [to_ada[0]],
        "by a payload field; a scalar payload has none"
    );
    let one = s
        .list_jobs(&T, "ops-p", by_payload(r#"{"n": 1}"#), allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items;
    assert_eq!(one.len(), 1);
    assert!(validate::payload_filter(r#"{"to": {"x": 1}}"#, &f.limits).is_err());
    assert!(validate::metadata_filter(r#"{"a": 1, "b": 2}"#, &f.limits).is_err());
    assert!(validate::metadata_filter(r#"{"a": [1]}"#, &f.limits).is_err());
    let paused = s.pause_queue(&T, "ops", true).await.unwrap();
    assert!(paused.paused && !paused.is_limited());
    assert!(lease(&f, "ops", 3).await.is_empty(), "a paused queue leases nothing");
    assert_eq!(blocked(&f, ids[0]).await, Some(BlockedBy::Paused));
    assert_eq!(
        s.pause_queue(&T, "ops", false).await.unwrap(),
        QueueSettings {
            queue: "ops".into(),
            ..Default::default()
        }
    );
    let first = lease(&f, "ops", 1).await;
    assert_eq!((first[0].id, first[0].attempt), (ids[0], 1));
    let snooze = validate::snooze(
        body(json!({"lease_token": first[0].lease_token, "delay_ms": 5000})),
        &f.limits,
    )
    .unwrap();
    let snoozed = fresh(s.snooze_job(&T, ids[0], snooze, None).await);
    assert_eq!((snoozed.state, snoozed.attempt), (JobState::Scheduled, 0));
    assert_eq!(blocked(&f, ids[0]).await, Some(BlockedBy::Scheduled));
    let rest = lease(&f, "ops", 3).await;
    assert_eq!(
        rest.iter().map(|j| j.id).collect::<Vec<_>>(),
        [ids[1], ids[2]],
        "the snoozed job waits"
    );
    f.clock.advance_ms(5001);
    let again = lease(&f, "ops", 3).await;
    assert_eq!(
        (again[0].id, again[0].attempt),
        (ids[0], 1),
        "a snooze spends no attempt"
    );
    let done = Complete {
        lease_token: again[0].lease_token.clone(),
        output: Some(json!({"sent": true})),
    };
    fresh(s.complete_job(&T, ids[0], done, None).await);
    let detail = s.job_detail(&T, ids[0]).await.unwrap();
    assert_eq!(
        (detail.job.state, detail.job.output, detail.blocked_by),
        (JobState::Completed, Some(json!({"sent": true})), None)
    );
    let running = s.job_detail(&T, ids[1]).await.unwrap();
    assert_eq!(
        (
            running.job.state,
            running.worker.is_none(),
            running.lease_expires_at.is_some()
        ),
        (JobState::Running, true, true)
    );
    let all = s
        .list_jobs(&T, "ops", JobFilter::default(), allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items;
    let states: Vec<JobState> = all.iter().map(|j| j.state).collect();
    assert_eq!(states, [JobState::Completed, JobState::Running, JobState::Running]);
    f.finish().await;
}

/// A rate of 3 per second: 3 start, the rest wait (`blocked_by: rate`) until the window
/// moves on; per key, each key has its own 3. `max_running` and a FIFO predecessor say
/// `limit` and `fifo`.
pub async fn rates_limits_and_reasons(f: Fixture) {
    let jobs: Vec<serde_json::Value> = (0..8).map(|i| json!({"payload": i})).collect();
    let ids = enqueue(&f, "rate", json!(jobs)).await;
    settle(&f, "rate", json!({"rate": {"per_window": 3, "window_ms": 1000}})).await;
    assert_eq!(lease(&f, "rate", 10).await.len(), 3);
    assert!(lease(&f, "rate", 10).await.is_empty());
    assert_eq!(blocked(&f, ids[7]).await, Some(BlockedBy::Rate));
    f.clock.advance_ms(1001);
    assert_eq!(lease(&f, "rate", 10).await.len(), 3, "the window moved on");
    // 32 claims at once on three stores, twice: exactly the window's 5 each time.
    let burst: Vec<serde_json::Value> = (0..40).map(|i| json!({ "payload": i })).collect();
    enqueue(&f, "burst", json!(burst)).await;
    settle(&f, "burst", json!({"rate": {"per_window": 5, "window_ms": 60_000}})).await;
    let stores = [f.store.clone(), f.reopen().await, f.reopen().await];
    for round in 0..2 {
        let mut set = tokio::task::JoinSet::new();
        for i in 0..32 {
            let (store, c) = (stores[i % 3].clone(), claim(&f, "burst", 2));
            set.spawn(async move { store.claim_jobs(&T, c, None).await.unwrap().fresh().unwrap().len() });
        }
        let started: usize = set.join_all().await.into_iter().sum();
        assert_eq!(started, 5, "round {round}");
        f.clock.advance_ms(60_001);
    }
    let keyed: Vec<serde_json::Value> = (0..8)
        .map(|i| json!({"payload": i, "partition_key": if i % 2 == 0 { "a" } else { "b" }}))
        .collect();
    enqueue(&f, "per-key", json!(keyed)).await;
    settle(
        &f,
        "per-key",
        json!({"rate": {"per_window": 3, "window_ms": 1000, "per_key": true}}),
    )
    .await;
    assert_eq!(lease(&f, "per-key", 10).await.len(), 6, "3 of each key");
    let fifo = enqueue(
        &f,
        "limited",
        json!([{"partition_key": "k"}, {"partition_key": "k"}, {}, {}]),
    )
    .await;
    settle(&f, "limited", json!({"max_running": 2, "fifo_per_key": true})).await;
    let got: Vec<i64> = lease(&f, "limited", 10).await.iter().map(|j| j.id).collect();
    assert_eq!(
        got,
        [fifo[0], fifo[2]],
        "one of key k, then the best without a key; two at most"
    );
    assert_eq!(blocked(&f, fifo[1]).await, Some(BlockedBy::Fifo));
    assert_eq!(blocked(&f, fifo[3]).await, Some(BlockedBy::Limit));
    f.finish().await;
}

/// Shared record of a concurrent run: per key, how many of its jobs a worker holds now (an
/// attempt counts from the claim's answer to just before its completion is sent, inside the
/// job's true running time, so two overlapping here overlapped in the database), the most
/// seen, and the order in which each key's attempts were claimed.
#[derive(Default)]
pub(crate) struct Record {
    holding: HashMap<String, i64>,
    pub(crate) most: HashMap<String, i64>,
    pub(crate) claimed: HashMap<String, Vec<i64>>,
    /// Attempts held now, all keys, and the most seen.
    all: i64,
    pub(crate) most_all: i64,
}

/// One worker: claim up to 3, hold, then fail the first attempt of every third job (retry at
/// once) or complete; until the queue has nothing open.
async fn work(store: Arc<dyn Database>, f_limits: allot_core::Limits, queue: &'static str, rec: Arc<Mutex<Record>>) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        assert!(Instant::now() < deadline, "the queue did not drain");
        let b = body(json!({"max": 3, "lease_ms": 60_000}));
        let c = validate::claim(queue, b, store.default_claim_strategy(), &f_limits).unwrap();
        let jobs = store
            .claim_jobs(&crate::fixture::T, c, None)
            .await
            .unwrap()
            .fresh()
            .unwrap();
        if jobs.is_empty() {
            if store.queue_counts(&crate::fixture::T, queue).await.unwrap().open() == 0 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
            continue;
        }
        let keys: Vec<String> = jobs
            .iter()
            .map(|j| j.payload["key"].as_str().unwrap().to_string())
            .collect();
        {
            let mut r = rec.lock().unwrap();
            r.all += jobs.len() as i64;
            r.most_all = r.most_all.max(r.all);
            for (j, k) in jobs.iter().zip(&keys) {
                let n = r.holding.entry(k.clone()).or_insert(0);
                *n += 1;
                let n = *n;
                let most = r.most.entry(k.clone()).or_insert(0);
                *most = (*most).max(n);
                r.claimed.entry(k.clone()).or_default().push(j.id);
            }
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
        for (j, k) in jobs.iter().zip(&keys) {
            {
                let mut r = rec.lock().unwrap();
                *r.holding.get_mut(k).unwrap() -= 1;
                r.all -= 1;
            }
            if j.id % 3 == 0 && j.attempt == 1 {
                let fail =
                    validate::fail(body(json!({"lease_token": j.lease_token, "retry_in_ms": 0})), &f_limits).unwrap();
                store.fail_job(&crate::fixture::T, j.id, fail, None).await.unwrap();
            } else {
                store
                    .complete_job(&crate::fixture::T, j.id, Complete::new(&j.lease_token), None)
                    .await
                    .unwrap();
            }
        }
    }
}

/// Run 32 workers over three stores on `queue` until it drains; the record.
pub(crate) async fn run_workers(f: &Fixture, queue: &'static str) -> Record {
    let stores = [f.store.clone(), f.reopen().await, f.reopen().await];
    let rec = Arc::new(Mutex::new(Record::default()));
    let mut set = tokio::task::JoinSet::new();
    for i in 0..32 {
        set.spawn(work(stores[i % 3].clone(), f.limits.clone(), queue, rec.clone()));
    }
    while let Some(r) = set.join_next().await {
        r.unwrap();
    }
    Arc::try_unwrap(rec).ok().unwrap().into_inner().unwrap()
}

/// 32 workers on three stores: at most 2 jobs of a key and 5 of the queue run at once, with
/// failures and retries mixed in, and every job completes.
pub async fn per_key_limit_under_claimers(f: Fixture) {
    // Runs of ten jobs of one key, so an unlimited claim of 3 would take three of one key.
    let jobs: Vec<serde_json::Value> = (0..90)
        .map(|i| json!({"payload": {"key": format!("k{}", i / 10 % 3)}, "partition_key": format!("k{}", i / 10 % 3)}))
        .collect();
    enqueue(&f, "lim", json!(jobs)).await;
    settle(&f, "lim", json!({"max_running_per_key": 2, "max_running": 5})).await;
    let rec = run_workers(&f, "lim").await;
    for (k, most) in &rec.most {
        assert!(*most <= 2, "key {k}: {most} running at once");
    }
    assert!(rec.most_all <= 5, "{} running at once in the queue", rec.most_all);
    assert_eq!(
        f.store.queue_counts(&T, "lim").await.unwrap().counts[&JobState::Completed],
        90
    );
    f.finish().await;
}

/// FIFO per key under 32 workers on three stores: a key's attempts are claimed in enqueue
/// order, a failed job's retry before any later job of its key, one at a time.
pub async fn fifo_per_key_keeps_order(f: Fixture) {
    let jobs: Vec<serde_json::Value> = (0..60)
        .map(|i| json!({"payload": {"key": format!("k{}", i % 4)}, "partition_key": format!("k{}", i % 4)}))
        .collect();
    enqueue(&f, "fifo", json!(jobs)).await;
    settle(&f, "fifo", json!({"fifo_per_key": true})).await;
    let rec = run_workers(&f, "fifo").await;
    for (k, order) in &rec.claimed {
        assert!(
            order.windows(2).all(|w| w[0] <= w[1]),
            "key {k} out of order: {order:?}"
        );
        assert_eq!(rec.most[k], 1, "key {k}: more than one at once");
        let retried = order.windows(2).filter(|w| w[0] == w[1]).count();
        assert_eq!(
            retried,
            order.iter().filter(|id| *id % 3 == 0).count() / 2,
            "key {k}: {order:?}"
        );
    }
    assert_eq!(
        f.store.queue_counts(&T, "fifo").await.unwrap().counts[&JobState::Completed],
        60
    );
    f.finish().await;
}

/// A schedule ticking every second, with passes racing on three stores at each of 30 ticks
/// (the clock moved just past each):
/// each tick enqueued exactly once (one job per tick, its own unique key). A taken name is
/// `already_exists`; a paused schedule enqueues nothing and resumes from its next tick after
/// now; a deleted one is gone.
pub async fn schedules_tick_once_across_stores(f: Fixture) {
    let s = &f.store;
    let body =
        body(json!({"name": "every", "cron": "* * * * * *", "queue": "cron", "job": {"payload": {"report": 1}}}));
    let new = validate::schedule(body, s.now(), &f.limits).unwrap();
    // The other stores first: opening them takes real time, which the test clock runs with.
    let stores = [f.store.clone(), f.reopen().await, f.reopen().await];
    let made = s.create_schedule(&T, new.clone()).await.unwrap();
    assert_eq!((made.then.len(), made.paused), (4, false));
    assert!(matches!(
        s.create_schedule(&T, new).await,
        Err(allot_core::AllotError::AlreadyExists { .. })
    ));
    for tick in 0..30 {
        // Just past the next tick: the test clock also runs with real time, so a fixed step
        // of a second could, after a slow setup, cross two ticks.
        let next = s.list_schedules(&T).await.unwrap()[0].next_run_at;
        f.clock.advance_past(next);
        let mut set = tokio::task::JoinSet::new();
        for st in &stores {
            let st = st.clone();
            set.spawn(async move { st.run_schedules(st.now(), 10).await.unwrap() });
        }
        let enqueued: u64 = set.join_all().await.into_iter().sum();
        assert_eq!(enqueued, 1, "tick {tick}");
    }
    let jobs = s
        .list_jobs(&T, "cron", JobFilter::default(), allot_core::Page::new(0, 100))
        .await
        .unwrap()
        .items;
    let keys: std::collections::BTreeSet<String> = jobs.iter().filter_map(|j| j.unique_key.clone()).collect();
    assert_eq!((jobs.len(), keys.len()), (30, 30));
    assert!(jobs.iter().all(|j| j.payload == json!({"report": 1})));
    let paused = s.pause_schedule(&T, "every", true).await.unwrap();
    assert!(paused.paused);
    f.clock.advance_ms(10_000);
    assert_eq!(s.run_schedules(s.now(), 10).await.unwrap(), 0, "paused");
    let resumed = s.pause_schedule(&T, "every", false).await.unwrap();
    assert!(resumed.next_run_at > s.now(), "what passed while paused is not run");
    assert_eq!(s.list_schedules(&T).await.unwrap().len(), 1);
    s.delete_schedule(&T, "every").await.unwrap();
    assert!(matches!(
        s.delete_schedule(&T, "every").await,
        Err(allot_core::AllotError::NotFound { .. })
    ));
    f.finish().await;
}

/// The maintained counts equal the jobs' states after enqueues, claims, completions,
/// failures and pruning, before and after a fold; `list_queues` pages by name.
pub async fn queue_counts_are_maintained(f: Fixture) {
    let s = &f.store;
    enqueue(&f, "qa", json!([{}, {}, {}, {}, {}])).await;
    let later = (s.now() + chrono::Duration::hours(1)).to_rfc3339();
    enqueue(&f, "qb", json!([{}, {}, {"run_at": later}])).await;
    let leased = lease(&f, "qa", 2).await;
    fresh(
        s.complete_job(&T, leased[0].id, Complete::new(&leased[0].lease_token), None)
            .await,
    );
    let fail = validate::fail(
        body(json!({"lease_token": leased[1].lease_token, "retry_in_ms": 60_000})),
        &f.limits,
    )
    .unwrap();
    fresh(s.fail_job(&T, leased[1].id, fail, None).await);
    let truth = |queue: String| {
        let store = f.store.clone();
        async move {
            let mut by_state: HashMap<JobState, i64> = HashMap::new();
            for j in store
                .list_jobs(&T, &queue, JobFilter::default(), allot_core::Page::new(0, 100))
                .await
                .unwrap()
                .items
            {
                *by_state.entry(j.state).or_default() += 1;
            }
            by_state
        }
    };
    for round in ["before the fold", "after the fold"] {
        let listed = s.list_queues(&T, allot_core::Page::new(None, 10)).await.unwrap().items;
        assert_eq!(
            listed.iter().map(|q| q.queue.as_str()).collect::<Vec<_>>(),
            ["qa", "qb"],
            "{round}"
        );
        for q in &listed {
            let expected = truth(q.queue.clone()).await;
            for (state, n) in &q.counts {
                assert_eq!(
                    *n,
                    expected.get(state).copied().unwrap_or(0),
                    "{round}: {} {state:?}",
                    q.queue
                );
            }
            assert_eq!(&s.queue_counts(&T, &q.queue).await.unwrap(), q, "{round}");
        }
        s.fold_queue_counts(1000).await.unwrap();
    }
    assert_eq!(
        s.list_queues(&T, allot_core::Page::new(Some("qa"), 10))
            .await
            .unwrap()
            .items[0]
            .queue,
        "qb"
    );
    assert_eq!(
        s.list_queues(&T, allot_core::Page::new(None, 1))
            .await
            .unwrap()
            .items
            .len(),
        1
    );
    f.clock.advance_ms(1000);
    assert_eq!(s.prune_jobs(s.now(), 100).await.unwrap(), 1);
    s.fold_queue_counts(1000).await.unwrap();
    assert_eq!(s.queue_counts(&T, "qa").await.unwrap().counts[&JobState::Completed], 0);
    f.finish().await;
}

/// Bulk actions by filter, bounded per call: a dry run counts, `more` says when to call again;
/// cancel, retry and delete change exactly the jobs matched, each call but the dry run
/// leaving a `queue.bulk_applied` event naming its actor; a filter state the action does not
/// apply to is refused.
pub async fn bulk_actions_by_filter(f: Fixture) {
    let s = &f.store;
    let old = json!({"tags": ["old"]});
    enqueue(
        &f,
        "bk",
        json!([old, old, old, old, {"partition_key": "p"}, {"partition_key": "p"}]),
    )
    .await;
    let bulk = |b: serde_json::Value| validate::bulk("bk", body(b), &f.limits);
    let run = |b: serde_json::Value| {
        let (store, mut req) = (f.store.clone(), bulk(b).unwrap());
        req.actor = Some("key-ops".into());
        async move { store.bulk_jobs(&T, req).await.unwrap() }
    };
    let dry = run(json!({"action": "cancel", "filter": {"tag": "old"}, "dry_run": true, "max": 3})).await;
    assert_eq!((dry.matched, dry.changed, dry.more), (3, 0, true));
    let first = run(json!({"action": "cancel", "filter": {"tag": "old"}, "max": 3})).await;
    assert_eq!((first.matched, first.changed, first.more), (3, 3, true));
    let rest = run(json!({"action": "cancel", "filter": {"tag": "old"}, "max": 3})).await;
    assert_eq!((rest.matched, rest.changed, rest.more), (1, 1, false));
    let counts = s.queue_counts(&T, "bk").await.unwrap().counts;
    assert_eq!((counts[&JobState::Cancelled], counts[&JobState::Available]), (4, 2));
    let retried = run(json!({"action": "retry", "filter": {"state": "cancelled"}})).await;
    assert_eq!((retried.changed, retried.more), (4, false));
    let deleted = run(json!({"action": "delete", "filter": {"partition_key": "p"}})).await;
    assert_eq!(deleted.changed, 2);
    assert_eq!(s.queue_counts(&T, "bk").await.unwrap().counts[&JobState::Available], 4);
    assert!(bulk(json!({"action": "retry", "filter": {"state": "running"}})).is_err());
    assert!(bulk(json!({"action": "delete", "max": 0})).is_err());
    while s.sequence_events(1000).await.unwrap() > 0 {}
    let types = Some("queue.bulk_applied");
    let q = allot_core::event::query(0, 100, types, (Some("bk"), None), &f.limits).unwrap();
    let trail: Vec<_> = s
        .events(&T, &q)
        .await
        .unwrap()
        .events
        .into_iter()
        .map(|e| e.data)
        .collect();
    let seen: Vec<_> = trail
        .iter()
        .map(|d| (d["action"].as_str(), d["changed"].as_i64()))
        .collect();
    let expected = [
        (Some("cancel"), Some(3)),
        (Some("cancel"), Some(1)),
        (Some("retry"), Some(4)),
        (Some("delete"), Some(2)),
    ];
    assert_eq!(seen, expected, "one event per call that was not a dry run");
    assert_eq!(trail[0]["actor"], "key-ops");
    assert_eq!(trail[0]["filter"]["tag"], "old");
    assert_eq!(trail[2]["filter"]["state"], "cancelled");
    f.finish().await;
}

/// The trace context an enqueue carries comes back with the claimed job, through the plain
/// claim and the claim of a queue with settings (its own path on PostgreSQL); a job enqueued
/// without one comes back without one.
pub async fn trace_context_travels_with_the_job(f: Fixture) {
    const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    settle(&f, "limited", json!({"max_running": 5})).await;
    for queue in ["plain", "limited"] {
        let mut req =
            validate::enqueue(queue, body(json!({"jobs": [{"payload": 1}]})), f.store.now(), &f.limits).unwrap();
        req.traceparent = Some(TRACEPARENT.into());
        fresh(f.store.enqueue(&T, req, None).await);
        enqueue(&f, queue, json!([{"payload": 2}])).await;
        let leased = lease(&f, queue, 2).await;
        let carried: Vec<Option<&str>> = leased.iter().map(|j| j.traceparent.as_deref()).collect();
        assert_eq!(carried, [Some(TRACEPARENT), None], "queue {queue}");
    }
    f.finish().await;
}

/// An operator moves a waiting job's next run: later (`scheduled`, claims pass it over), then
/// now (`available`, the next claim takes it), its attempts unchanged; a running job is
/// answered as it is; the queue's counts follow.
pub async fn reschedule_moves_a_waiting_job(f: Fixture) {
    let s = &f.store;
    let ids = enqueue(&f, "rq", json!([{"payload": 1}, {"payload": 2}])).await;
    let later = fresh(s.reschedule_job(&T, ids[0], 3_600_000, None).await);
    assert_eq!((later.state, later.attempt), (JobState::Scheduled, 0));
    let ahead = (later.run_at - s.now()).num_seconds();
    assert!((3_500..=3_700).contains(&ahead), "an hour from now: {ahead} s");
    let counts = s.queue_counts(&T, "rq").await.unwrap().counts;
    assert_eq!((counts[&JobState::Scheduled], counts[&JobState::Available]), (1, 1));
    let first = lease(&f, "rq", 2).await;
    assert_eq!(
        first.iter().map(|j| j.id).collect::<Vec<_>>(),
        [ids[1]],
        "the rescheduled job waits"
    );
    let running = fresh(s.reschedule_job(&T, ids[1], 0, None).await);
    assert_eq!(running.state, JobState::Running, "a running job is answered as it is");
    let now = fresh(s.reschedule_job(&T, ids[0], 0, None).await);
    assert_eq!(now.state, JobState::Available);
    let second = lease(&f, "rq", 2).await;
    assert_eq!(
        second.iter().map(|j| (j.id, j.attempt)).collect::<Vec<_>>(),
        [(ids[0], 1)]
    );
    assert!(s.reschedule_job(&T, 999_999, 0, None).await.is_err(), "no such job");
    assert!(validate::reschedule(body(json!({"delay_ms": -1})), &f.limits).is_err());
    f.finish().await;
}

/// The counts of `queue` by state (the maintained counts), without zeros.
async fn counted(f: &Fixture, queue: &str) -> std::collections::BTreeMap<JobState, i64> {
    let mut c = f.store.queue_counts(&T, queue).await.unwrap().counts;
    c.retain(|_, n| *n != 0);
    c
}

/// A queue with `keep_completed: false` deletes each job as it completes, one at a time or in
/// a batch (its id is then not found: a second completion is `not_found`, or `lease_lost` in
/// a batch), while
/// a failed job stays; its claims are the plain ones (every job leased), a limited one still
/// obeys its limit; the counts follow; `keep_completed: true` alone is the defaults again.
pub async fn completed_jobs_dropped_when_not_kept(f: Fixture) {
    let s = &f.store;
    let set = settle(&f, "drop", json!({"keep_completed": false})).await;
    assert!(!set.keep_completed && !set.gates_claims());
    assert_eq!(s.queue_settings(&T, "drop").await.unwrap(), set);
    let ids = enqueue(&f, "drop", json!([{}, {}, {}, {}])).await;
    let leased = lease(&f, "drop", 10).await;
    assert_eq!(leased.iter().map(|j| j.id).collect::<Vec<_>>(), ids);
    let done = Complete {
        lease_token: leased[0].lease_token.clone(),
        output: Some(json!({"sent": true})),
    };
    let one = fresh(s.complete_job(&T, ids[0], done, None).await);
    assert_eq!((one.id, one.state, one.attempt), (ids[0], JobState::Completed, 1));
    assert!(matches!(
        s.job_detail(&T, ids[0]).await,
        Err(allot_core::AllotError::NotFound { .. })
    ));
    let batch = leased[..3]
        .iter()
        .map(|j| allot_core::job::Completion {
            id: j.id,
            lease_token: j.lease_token.clone(),
        })
        .collect();
    let r = fresh(s.complete_jobs(&T, "drop", batch, None).await);
    assert_eq!((r.completed, r.lease_lost), (vec![ids[1], ids[2]], vec![ids[0]]));
    let twice = s
        .complete_job(&T, ids[1], Complete::new(&leased[1].lease_token), None)
        .await;
    assert!(
        matches!(twice, Err(allot_core::AllotError::NotFound { .. })),
        "{twice:?}"
    );
    let fail = validate::fail(
        body(json!({"lease_token": leased[3].lease_token, "retry_in_ms": 60_000})),
        &f.limits,
    )
    .unwrap();
    fresh(s.fail_job(&T, ids[3], fail, None).await);
    let listed = s
        .list_jobs(&T, "drop", JobFilter::default(), allot_core::Page::new(0, 10))
        .await
        .unwrap()
        .items;
    assert_eq!(
        listed.iter().map(|j| (j.id, j.state)).collect::<Vec<_>>(),
        [(ids[3], JobState::Retryable)]
    );
    assert_eq!(counted(&f, "drop").await, [(JobState::Retryable, 1)].into());
    settle(&f, "capped", json!({"keep_completed": false, "max_running": 1})).await;
    let capped = enqueue(&f, "capped", json!([{}, {}])).await;
    let first = lease(&f, "capped", 2).await;
    assert_eq!(
        first.iter().map(|j| j.id).collect::<Vec<_>>(),
        [capped[0]],
        "the limit holds"
    );
    fresh(
        s.complete_job(&T, capped[0], Complete::new(&first[0].lease_token), None)
            .await,
    );
    assert_eq!(counted(&f, "capped").await, [(JobState::Available, 1)].into());
    let kept = settle(&f, "drop", json!({"keep_completed": true})).await;
    assert_eq!(
        kept,
        QueueSettings {
            queue: "drop".into(),
            ..Default::default()
        }
    );
    let again = enqueue(&f, "drop", json!([{}])).await;
    let leased = lease(&f, "drop", 1).await;
    assert_eq!(leased[0].id, again[0]);
    fresh(
        s.complete_job(&T, again[0], Complete::new(&leased[0].lease_token), None)
            .await,
    );
    assert_eq!(s.job_detail(&T, again[0]).await.unwrap().job.state, JobState::Completed);
    f.finish().await;
}
