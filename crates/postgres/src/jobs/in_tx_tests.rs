//! Transactional enqueue, against the test PostgreSQL (`ALLOT_TEST_DATABASE_URL`) in a schema
//! of its own: through `enqueue_in` on the caller's `tokio_postgres` transaction and through
//! the SQL function from `psql`, a rolled-back enqueue leaves no job and wakes no one; a
//! committed one is claimable at once and wakes a waiting claimer (whose poll is a minute,
//! so only the NOTIFY can wake it). The channel is the database's, shared by every schema,
//! so each test has a queue name of its own.

use crate::engine::config::PgConfig;
use crate::engine::store::PgStore;
use crate::engine::test_schema::TestSchema;
use allot_core::store::JobStore;
use allot_core::{validate, Capable, Tenant};
use futures::FutureExt;
use serde_json::json;
use std::time::Duration;

fn store(url: &str) -> PgStore {
    let mut cfg = PgConfig::new(url.to_string());
    cfg.limits.job_poll_interval_ms = 60_000;
    PgStore::connect(&cfg).unwrap()
}

/// Wait until `store`'s LISTEN connection is up: NOTIFY a priming queue until a waiter on it
/// is woken (bounded).
async fn listening(store: &PgStore, admin: &tokio_postgres::Client) {
    let t = Tenant::default_tenant();
    for _ in 0..100 {
        let mut w = Box::pin(store.wait_for_jobs(&t, "prime", Duration::from_millis(100)));
        assert!(futures::poll!(&mut w).is_pending());
        admin.batch_execute("NOTIFY allot_jobs, 'default/prime'").await.unwrap();
        let started = std::time::Instant::now();
        w.await;
        if started.elapsed() < Duration::from_millis(90) {
            return;
        }
    }
    panic!("the listener never came up");
}

async fn claimed(store: &PgStore, queue: &str) -> Vec<i64> {
    let body = serde_json::from_value(json!({"max": 10, "lease_ms": 60_000})).unwrap();
    let req = validate::claim(
        queue,
        body,
        store.default_claim_strategy(),
        &allot_core::Limits::default(),
    )
    .unwrap();
    let jobs = store.claim_jobs(&Tenant::default_tenant(), req, None).await.unwrap();
    jobs.fresh().unwrap().iter().map(|j| j.id).collect()
}

/// Run `enqueue` (which enqueues in the transaction it opens and commits when `commit`)
/// while a claimer of `queue` waits; whether the waiter was woken, then what a claim gets.
async fn around<F, Fut>(store: &PgStore, queue: &str, commit: bool, enqueue: F) -> (bool, Vec<i64>)
where
    F: FnOnce(bool) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let t = Tenant::default_tenant();
    let mut waiter = Box::pin(store.wait_for_jobs(&t, queue, Duration::from_secs(30)));
    assert!(
        futures::poll!(&mut waiter).is_pending(),
        "registered before the enqueue"
    );
    enqueue(commit).await;
    let woken = if commit {
        tokio::time::timeout(Duration::from_secs(10), waiter).await.is_ok()
    } else {
        // Nothing may wake it: give a stray notification a bounded moment to arrive.
        tokio::time::sleep(Duration::from_millis(300)).await;
        (&mut waiter).now_or_never().is_some()
    };
    (woken, claimed(store, queue).await)
}

#[tokio::test]
async fn enqueue_in_the_callers_transaction() {
    let schema = TestSchema::new("t_in_tx").await;
    crate::migrate(&schema.url).await.unwrap();
    let store = store(&schema.url);
    listening(&store, &schema.admin).await;
    let mut caller = schema.session().await;
    let limits = allot_core::Limits::default();
    let body = serde_json::from_value(json!({"jobs": [{"payload": {"order": 1}, "tags": ["mail"]}]})).unwrap();
    let req = validate::enqueue("in-tx-rs", body, store.now(), &limits).unwrap();
    for commit in [false, true] {
        let (req, caller) = (req.clone(), &mut caller);
        let (woken, got) = around(&store, "in-tx-rs", commit, |commit| async move {
            let tx = caller.transaction().await.unwrap();
            let ids = crate::enqueue_in(&tx, &Tenant::default_tenant(), &req)
                .await
                .unwrap()
                .ids;
            assert_eq!(ids.len(), 1);
            if commit {
                tx.commit().await.unwrap();
            } else {
                tx.rollback().await.unwrap();
            }
        })
        .await;
        assert_eq!((woken, got.len()), (commit, usize::from(commit)), "commit: {commit}");
    }
    drop(store);
    schema.drop().await;
}

#[tokio::test]
async fn the_sql_function_from_psql() {
    let schema = TestSchema::new("t_psql").await;
    crate::migrate(&schema.url).await.unwrap();
    let store = store(&schema.url);
    listening(&store, &schema.admin).await;
    let function = format!("{}_allot.enqueue", schema.name);
    for commit in [false, true] {
        let (url, function) = (schema.url.clone(), function.clone());
        let (woken, got) = around(&store, "in-tx-sql", commit, |commit| async move {
            let end = if commit { "COMMIT" } else { "ROLLBACK" };
            let sql = format!(
                "BEGIN; SELECT {function}('in-tx-sql', '{{\"order\": 2}}', partition_key => 'c1', tags => '{{mail}}'); {end};"
            );
            let out = tokio::process::Command::new("psql")
                .args([url.as_str(), "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", &sql])
                .output()
                .await
                .expect("psql runs");
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        })
        .await;
        assert_eq!((woken, got.len()), (commit, usize::from(commit)), "commit: {commit}");
    }
    // A name no tenant can have is refused with 22023 invalid_parameter_value.
    let bad = schema
        .admin
        .query(&format!("SELECT {function}('mail', tenant => 'allot/webhooks')"), &[])
        .await
        .unwrap_err();
    assert_eq!(
        bad.code(),
        Some(&tokio_postgres::error::SqlState::INVALID_PARAMETER_VALUE)
    );
    // So are too many tags, and a priority out of 1..=4 or NULL: the parameter named, before
    // any insert (never the table's check_violation with the INSERT's text).
    for args in [
        "tags => array_fill('t'::text, ARRAY[17])",
        "priority => 5",
        "priority => NULL",
    ] {
        let bad = schema
            .admin
            .query(&format!("SELECT {function}('mail', {args})"), &[])
            .await
            .unwrap_err();
        let db = bad.as_db_error().expect("a database error");
        assert_eq!(
            (db.code(), db.message().starts_with("allot.enqueue: ")),
            (&tokio_postgres::error::SqlState::INVALID_PARAMETER_VALUE, true),
            "{args}: {db:?}"
        );
        assert!(db.where_().is_none_or(|w| !w.contains("INSERT")), "{args}: {db:?}");
    }
    drop(store);
    schema.drop().await;
}

/// In a database whose tables are in `public`, the function is `allot.enqueue`.
#[tokio::test]
async fn in_public_the_function_is_allot_enqueue() {
    let schema = TestSchema::new("t_public").await;
    let db = schema.name.clone();
    schema
        .admin
        .batch_execute(&format!("CREATE DATABASE {db}"))
        .await
        .unwrap();
    let base = std::env::var("ALLOT_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
    let url = format!("{}/{db}", base.rsplit_once('/').unwrap().0);
    crate::migrate(&url).await.unwrap();
    let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
    let task = tokio::spawn(conn);
    let id: i64 = c
        .query_one("SELECT allot.enqueue('mail', '{}')", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(id, 1);
    drop(c);
    task.abort();
    schema
        .admin
        .batch_execute(&format!("DROP DATABASE {db} WITH (FORCE)"))
        .await
        .unwrap();
    schema.drop().await;
}

/// `allot.enqueue` takes `depends_on`: the job waits `pending`; an unknown id raises 23503
/// with DETAIL `unknown_dependency` and enqueues nothing; the dependency's end (here a
/// cancel written by hand) reaches the dependent through the trigger, as through the API.
#[tokio::test]
async fn the_sql_function_takes_dependencies() {
    let schema = TestSchema::new("t_deps").await;
    crate::migrate(&schema.url).await.unwrap();
    let (f, s) = (format!("{}_allot.enqueue", schema.name), schema.name.clone());
    let one = |sql: String| {
        let c = &schema.admin;
        async move { c.query_one(&sql, &[]).await }
    };
    let top: i64 = one(format!("SELECT {f}('deps')")).await.unwrap().get(0);
    let waits: i64 = one(format!("SELECT {f}('deps', depends_on => ARRAY[{top}]::bigint[])"))
        .await
        .unwrap()
        .get(0);
    let state = |id: i64| {
        one(format!(
            "SELECT state, dependency_failure FROM {s}.jobs WHERE id = {id}"
        ))
    };
    let r = state(waits).await.unwrap();
    assert_eq!(r.get::<_, &str>(0), "pending");
    let bad = one(format!("SELECT {f}('deps', depends_on => ARRAY[999999]::bigint[])"))
        .await
        .unwrap_err();
    let db = bad.as_db_error().expect("a database error");
    assert_eq!(
        (db.code(), db.detail()),
        (
            &tokio_postgres::error::SqlState::FOREIGN_KEY_VIOLATION,
            Some("unknown_dependency")
        )
    );
    let n: i64 = one(format!("SELECT count(*) FROM {s}.jobs")).await.unwrap().get(0);
    assert_eq!(n, 2, "nothing enqueued");
    // allot's triggers find its tables by the search_path, as allot's connections and its SQL
    // functions set it.
    schema
        .admin
        .batch_execute(&format!("SET search_path TO {s}"))
        .await
        .unwrap();
    one(format!(
        "UPDATE {s}.jobs SET state = 'cancelled', finalized_at = now() WHERE id = {top} RETURNING id"
    ))
    .await
    .unwrap();
    let r = state(waits).await.unwrap();
    let want = format!("job {top} cancelled");
    assert_eq!(
        (r.get::<_, &str>(0), r.get::<_, Option<&str>>(1)),
        ("discarded", Some(want.as_str()))
    );
    schema.drop().await;
}

/// Two callers' transactions enqueue a batch of one id at once: the second waits for the
/// first's commit and is refused `already_exists` before it inserts anything, so a caller
/// that ignores the refusal and commits adds no half-made batch (a callback without its
/// batch row, released without counts).
#[tokio::test]
async fn a_batch_id_raced_by_two_callers() {
    let schema = TestSchema::new("t_batch_race").await;
    crate::migrate(&schema.url).await.unwrap();
    let store = store(&schema.url);
    let body = json!({"jobs": [{}], "batch": {"id": "b1", "callback": {"payload": {"done": true}}}});
    let req = validate::enqueue(
        "race",
        serde_json::from_value(body).unwrap(),
        store.now(),
        &Default::default(),
    )
    .unwrap();
    let t = Tenant::default_tenant();
    let (mut first, mut second) = (schema.session().await, schema.session().await);
    let a = first.transaction().await.unwrap();
    crate::enqueue_in(&a, &t, &req).await.unwrap();
    let b = second.transaction().await.unwrap();
    let mut raced = Box::pin(crate::enqueue_in(&b, &t, &req));
    // It waits for the first transaction (a bounded look: it must not have an answer yet).
    assert!(tokio::time::timeout(Duration::from_millis(300), &mut raced)
        .await
        .is_err());
    a.commit().await.unwrap();
    let refused = tokio::time::timeout(Duration::from_secs(10), raced).await.unwrap();
    assert!(
        matches!(
            refused,
            Err(allot_core::AllotError::AlreadyExists { kind: "batch", .. })
        ),
        "{refused:?}"
    );
    b.commit().await.unwrap();
    let jobs: i64 = schema
        .admin
        .query_one(&format!("SELECT count(*) FROM {}.jobs", schema.name), &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(jobs, 2, "the first batch's member and callback only");
    drop(store);
    schema.drop().await;
}
