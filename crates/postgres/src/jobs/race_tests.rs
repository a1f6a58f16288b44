//! Job statements against a concurrent writer of the same row, on a real PostgreSQL: what
//! READ COMMITTED's re-check (EvalPlanQual) must carry through.

use super::ops::{complete_batch, SQL_HEARTBEAT};
use allot_core::job::Completion;
use std::time::Duration;

/// A batch completion whose statement began before a heartbeat of the same job committed
/// (so it waits on the row, then locks the heartbeat's newer version) still completes the
/// job: the write finds it by key and follows it to the locked version. Written by the
/// `ctid` the lock returned, it found nothing (that version is newer than the statement's
/// snapshot) and answered `lease_lost` for a lease the worker held.
#[tokio::test]
async fn a_completion_behind_a_heartbeat_completes() {
    completion_behind_a_heartbeat(true).await;
}

/// The same where the queue drops completed jobs (`keep_completed = false`): the completion's
/// DELETE.
#[tokio::test]
async fn a_dropping_completion_behind_a_heartbeat_completes() {
    completion_behind_a_heartbeat(false).await;
}

/// One job running with token `t1` in queue `q`, a heartbeat of it left open in one session, a
/// completion of it started in another, then the heartbeat committed: the job is completed
/// (kept as `completed`, or deleted when `keep` is false).
async fn completion_behind_a_heartbeat(keep: bool) {
    let schema = crate::engine::test_schema::TestSchema::new("t_job_race").await;
    let store = schema.store().await;
    let (a, b) = (schema.session().await, store.client().await.unwrap());
    a.execute(
        "INSERT INTO queue_settings (tenant, queue, keep_completed) VALUES ('default', 'q', $1)",
        &[&keep],
    )
    .await
    .unwrap();
    let id: i64 = a
        .query_one(
            "INSERT INTO jobs (tenant, queue, state, payload, run_at, max_attempts, created_at, attempt,
                               lease_token, lease_expires_at)
             VALUES ('default', 'q', 'running', '{}', now(), 3, now(), 1, 't1', now() + interval '1 minute')
             RETURNING id",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let a_pid: i32 = a.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
    a.batch_execute("BEGIN").await.unwrap();
    let now = chrono::Utc::now();
    let beat = a
        .execute(SQL_HEARTBEAT, &[&id, &"t1", &now, &60_000i64, &"default"])
        .await
        .unwrap();
    assert_eq!(beat, 1);
    let completing = tokio::spawn(async move {
        let done = vec![Completion {
            id,
            lease_token: "t1".into(),
        }];
        complete_batch(&b, "default", "q", &done, chrono::Utc::now()).await
    });
    // Until the completion waits on the heartbeat's lock (bounded): b is the only other
    // session of the schema.
    schema.wait_blocked_by(a_pid).await;
    a.batch_execute("COMMIT").await.unwrap();
    let done = tokio::time::timeout(Duration::from_secs(30), completing)
        .await
        .expect("the completion ends once the heartbeat commits")
        .unwrap()
        .unwrap();
    assert_eq!((done.completed, done.lease_lost), (vec![id], vec![]));
    let state: Option<String> = a
        .query_opt("SELECT state FROM jobs WHERE id = $1", &[&id])
        .await
        .unwrap()
        .map(|r| r.get(0));
    let expected = if keep { Some("completed".to_string()) } else { None };
    assert_eq!(state, expected);
    drop((a, store));
    schema.drop().await;
}
