//! The conformance suite on the store traits themselves (no HTTP): every backend `open`
//! knows runs the same bodies, each backend its own test, so a new backend is held to the
//! invariants from its first day (the idea of River's `riverdrivertest`). Each test gets a
//! fresh PostgreSQL schema (`ALLOT_TEST_DATABASE_URL`) or SQLite file, and a `TestClock`;
//! each ends with a clean audit.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

const T: &str = allot_core::access::DEFAULT_TENANT;
use allot_core::store::{Executed, Idempotency, StoredResponse};
use allot_core::validate;
use allot_core::*;
use serde_json::json;
use std::sync::Arc;

/// A store under test, what it runs on, and its clock.
struct Fixture {
    store: Arc<dyn Database>,
    /// The database's URL (a second store may open it: another pool, another process).
    url: String,
    clock: Arc<TestClock>,
    limits: Limits,
    schema: Option<String>,
    file: Option<std::path::PathBuf>,
}

fn pg_base_url() -> String {
    std::env::var("ALLOT_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

async fn admin() -> tokio_postgres::Client {
    let (c, conn) = tokio_postgres::connect(&pg_base_url(), tokio_postgres::NoTls)
        .await
        .expect("the test PostgreSQL (ALLOT_TEST_DATABASE_URL)");
    tokio::spawn(conn);
    c
}

impl Fixture {
    async fn new(backend: Backend) -> Fixture {
        let (url, schema, file) = match backend {
            Backend::Postgres => {
                let schema = format!("s_{}", uuid::Uuid::new_v4().simple());
                admin()
                    .await
                    .batch_execute(&format!("CREATE SCHEMA {schema}"))
                    .await
                    .unwrap();
                let base = pg_base_url();
                let sep = if base.contains('?') { '&' } else { '?' };
                (
                    format!("{base}{sep}options=-csearch_path%3D{schema}"),
                    Some(schema),
                    None,
                )
            }
            Backend::Sqlite => {
                let p = std::env::temp_dir().join(format!("allot-store-{}.db", uuid::Uuid::new_v4().simple()));
                (format!("sqlite://{}", p.display()), None, Some(p))
            }
        };
        let clock = Arc::new(TestClock::new());
        let limits = Limits {
            min_hold_ttl_ms: 50,
            ..Default::default()
        };
        let opts = allot_store::OpenOptions {
            limits: limits.clone(),
            pool_size: 16,
            clock: clock.clone(),
            ..Default::default()
        };
        let store = allot_store::open(&url, &opts).await.expect("open");
        Fixture {
            store,
            url,
            clock,
            limits,
            schema,
            file,
        }
    }

    async fn finish(self) {
        let audit = self.store.audit(None).await.unwrap();
        assert!(audit.is_clean(), "audit: {audit:?}");
        drop(self.store);
        if let Some(schema) = &self.schema {
            let _ = admin()
                .await
                .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
                .await;
        }
        if let Some(f) = &self.file {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", f.display()));
            }
        }
    }

    async fn create_sku(&self, sku: &str, on_hand: i64) {
        let body = serde_json::from_value(json!({"sku": sku, "on_hand": on_hand})).unwrap();
        let req = validate::create_sku(body, &self.limits).unwrap();
        self.store.create_sku(T, req, None).await.unwrap();
    }

    fn allocation(&self, sku: &str, quantity: i64) -> AllocationRequest {
        let body = serde_json::from_value(json!({"lines": [{"sku": sku, "quantity": quantity}]})).unwrap();
        let id = uuid::Uuid::new_v4().to_string();
        validate::allocation(id, body, self.store.default_strategy(), &self.limits).unwrap()
    }
}

/// Run each body on every backend: `postgres::name`, `sqlite::name`.
macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod postgres {
            $( #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
               async fn $name() { super::$name(super::Fixture::new(allot_core::Backend::Postgres).await).await } )*
        }
        mod sqlite {
            $( #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
               async fn $name() { super::$name(super::Fixture::new(allot_core::Backend::Sqlite).await).await } )*
        }
    };
}

conformance!(
    exact_successes_under_contention,
    one_key_one_effect,
    a_replay_frees_its_key_at_once,
    holds_expire_by_the_clock,
    no_unit_twice,
    no_job_leased_twice,
    keyed_job_transitions_replay,
    one_booking_of_ten,
    ids_count_only_their_tenant,
    every_instant_comes_from_the_clock
);

fn job_key<T: serde::Serialize + 'static>(key: &str) -> Idempotency<T> {
    Idempotency {
        key: key.into(),
        fingerprint: format!("fp-{key}"),
        render: Box::new(|v: &T| StoredResponse {
            code: 200,
            body: serde_json::to_vec(v).unwrap(),
        }),
    }
}

/// With keys, job transitions run once: a claim retried with its key gets the same jobs and
/// tokens (and leases nothing more); a waiting claim's empty try stores nothing; complete
/// and cancel replay their first answer.
async fn keyed_job_transitions_replay(f: Fixture) {
    let claim = |final_try: bool| {
        let body = serde_json::from_value(json!({"max": 2, "lease_ms": 60_000})).unwrap();
        let mut c = validate::claim("kq", body, f.store.default_claim_strategy(), &f.limits).unwrap();
        c.final_try = final_try;
        c
    };
    let empty = f
        .store
        .claim_jobs(T, claim(false), Some(job_key("c-wait")))
        .await
        .unwrap();
    assert_eq!(empty, Executed::Fresh(vec![]), "an empty waiting try");
    let jobs: Vec<serde_json::Value> = (0..3).map(|i| json!({ "payload": i })).collect();
    let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
    f.store
        .enqueue(
            T,
            validate::enqueue("kq", body, f.store.now(), &f.limits).unwrap(),
            None,
        )
        .await
        .unwrap();
    // The key of the empty try is still free: this claim leases.
    let Executed::Fresh(first) = f
        .store
        .claim_jobs(T, claim(false), Some(job_key("c-wait")))
        .await
        .unwrap()
    else {
        panic!("fresh")
    };
    assert_eq!(first.len(), 2);
    let Executed::Replayed(again) = f
        .store
        .claim_jobs(T, claim(true), Some(job_key("c-wait")))
        .await
        .unwrap()
    else {
        panic!("replayed")
    };
    let again: Vec<LeasedJob> = serde_json::from_slice(&again.body).unwrap();
    assert_eq!(again, first, "the same jobs and tokens");
    let counts = f.store.queue_counts(T, "kq").await.unwrap();
    assert_eq!(counts.counts[&JobState::Running], 2, "nothing more leased: {counts:?}");
    let j = &first[0];
    let done = f
        .store
        .complete_job(T, j.id, &j.lease_token, Some(job_key("done-1")))
        .await
        .unwrap();
    assert!(matches!(done, Executed::Fresh(ref s) if s.state == JobState::Completed));
    let replay = f
        .store
        .complete_job(T, j.id, &j.lease_token, Some(job_key("done-1")))
        .await
        .unwrap();
    assert!(
        matches!(replay, Executed::Replayed(_)),
        "a retry replays instead of lease_lost"
    );
    assert!(matches!(
        f.store.complete_job(T, j.id, &j.lease_token, None).await,
        Err(AllotError::LeaseLost { .. })
    ));
    let k = first[1].id;
    let c1 = f.store.cancel_job(T, k, Some(job_key("cancel-1"))).await.unwrap();
    let c2 = f.store.cancel_job(T, k, Some(job_key("cancel-1"))).await.unwrap();
    assert!(matches!((c1, c2), (Executed::Fresh(_), Executed::Replayed(_))));
    f.finish().await;
}

/// 200 concurrent allocations of 1 on 50: exactly 50 succeed, the rest are refused for stock
/// (or contention), and on_hand is 0.
async fn exact_successes_under_contention(f: Fixture) {
    f.create_sku("HOT", 50).await;
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..200 {
        let (store, req) = (f.store.clone(), f.allocation("HOT", 1));
        set.spawn(async move { store.allocate(T, req, None).await });
    }
    let (mut ok, mut refused) = (0, 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(_)) => ok += 1,
            Err(AllotError::InsufficientStock { .. }) | Err(AllotError::Contention { .. }) => refused += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, refused), (50, 150));
    assert_eq!(f.store.get_sku(T, "HOT").await.unwrap().on_hand, 0);
    f.finish().await;
}

fn idem(key: &str) -> Idempotency<Allocation> {
    Idempotency {
        key: key.into(),
        fingerprint: "fp".into(),
        render: Box::new(|a: &Allocation| StoredResponse {
            code: 201,
            body: a.id.clone().into_bytes(),
        }),
    }
}

/// 20 concurrent requests with one idempotency key: one effect; the others replay it or find
/// the key in use; a later retry replays the first answer byte for byte.
async fn one_key_one_effect(f: Fixture) {
    f.create_sku("K", 100).await;
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (store, req) = (f.store.clone(), f.allocation("K", 3));
        set.spawn(async move { store.allocate(T, req, Some(idem("order-1"))).await });
    }
    let mut fresh = Vec::new();
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(a)) => fresh.push(a.id),
            Ok(Executed::Replayed(resp)) => assert_eq!(resp.code, 201),
            Err(AllotError::IdempotencyKeyInUse) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(fresh.len(), 1, "one effect");
    assert_eq!(f.store.get_sku(T, "K").await.unwrap().on_hand, 97);
    let again = f
        .store
        .allocate(T, f.allocation("K", 3), Some(idem("order-1")))
        .await
        .unwrap();
    let Executed::Replayed(resp) = again else {
        panic!("replayed")
    };
    assert_eq!(resp.body, fresh[0].as_bytes());
    f.finish().await;
}

/// After a replay (or a refusal) the key is free the moment the answer is back: a request
/// with the same key and another body right after it — through a second store on the same
/// database, so on another connection — is `idempotency_key_reused`, never
/// `idempotency_key_in_use` (the transaction ended before the answer), 20 times in a row.
async fn a_replay_frees_its_key_at_once(f: Fixture) {
    f.create_sku("R", 1000).await;
    let second = allot_store::open(&f.url, &Default::default()).await.unwrap();
    let other = |key: &str| Idempotency {
        fingerprint: "another body".into(),
        ..idem(key)
    };
    for n in 0..20 {
        let key = format!("k{n}");
        let first = f
            .store
            .allocate(T, f.allocation("R", 1), Some(idem(&key)))
            .await
            .unwrap();
        assert!(matches!(first, Executed::Fresh(_)));
        let again = f
            .store
            .allocate(T, f.allocation("R", 1), Some(idem(&key)))
            .await
            .unwrap();
        assert!(matches!(again, Executed::Replayed(_)));
        let err = second
            .allocate(T, f.allocation("R", 1), Some(other(&key)))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "idempotency_key_reused", "after the replay of {key}");
        let err = f
            .store
            .allocate(T, f.allocation("R", 1), Some(other(&key)))
            .await
            .unwrap_err();
        let err2 = second
            .allocate(T, f.allocation("R", 1), Some(other(&key)))
            .await
            .unwrap_err();
        assert_eq!(
            (err.code(), err2.code()),
            ("idempotency_key_reused", "idempotency_key_reused"),
            "after the refusal of {key}"
        );
    }
    assert_eq!(f.store.get_sku(T, "R").await.unwrap().on_hand, 980);
    drop(second);
    f.finish().await;
}

/// A hold reads expired once the clock passes its expiry — no sleeping — and cannot be
/// confirmed; its quantity is available again, and the sweeper finishes it once.
async fn holds_expire_by_the_clock(f: Fixture) {
    f.create_sku("H", 10).await;
    let body = serde_json::from_value(json!({"lines": [{"sku": "H", "quantity": 4}], "ttl_ms": 600_000})).unwrap();
    let req = validate::hold("h1".into(), body, f.store.default_strategy(), &f.limits).unwrap();
    let Executed::Fresh(hold) = f.store.create_hold(T, req, None).await.unwrap() else {
        panic!("fresh")
    };
    assert_eq!(f.store.get_sku(T, "H").await.unwrap().available, 6);
    f.clock.advance_past(hold.expires_at);
    assert_eq!(
        f.store.get_hold(T, &hold.id).await.unwrap().status,
        hold::HoldStatus::Expired
    );
    assert_eq!(f.store.get_sku(T, "H").await.unwrap().available, 10);
    let err = f.store.confirm_hold(T, &hold.id, None, None, None).await.unwrap_err();
    assert_eq!(err.code(), "hold_expired");
    assert_eq!(f.store.expire_holds(f.store.now(), 100).await.unwrap(), 1);
    assert_eq!(f.store.expire_holds(f.store.now(), 100).await.unwrap(), 0);
    f.finish().await;
}

/// 5 units, 5 concurrent claims of 2: exactly 2 succeed, no unit twice, 1 left.
async fn no_unit_twice(f: Fixture) {
    let units: Vec<serde_json::Value> = (0..5).map(|i| json!({"serial": format!("S{i}")})).collect();
    let body = serde_json::from_value(json!({ "units": units })).unwrap();
    let req = validate::add_units("U", body, f.store.now(), &f.limits).unwrap();
    f.store.add_units(T, req, None).await.unwrap();
    let mut set = tokio::task::JoinSet::new();
    for n in 0..5 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let body = serde_json::from_value(json!({"sku": "U", "quantity": 2})).unwrap();
            let strategy = store.default_unit_strategy();
            let req = validate::unit_claim(format!("c{n}"), body, strategy, &limits).unwrap();
            store.claim_units(T, req, None).await
        });
    }
    let (mut ids, mut ok) = (Vec::new(), 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(a)) => {
                ok += 1;
                ids.extend(a.units.iter().map(|u| u.id));
            }
            Err(AllotError::InsufficientStock { .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    let n = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!((ok, n, ids.len()), (2, 4, 4), "two claims of two, no unit twice");
    assert_eq!(f.store.get_sku(T, "U").await.unwrap().on_hand, 1);
    f.finish().await;
}

/// 50 jobs, 10 concurrent claimers of up to 3 until empty: each job leased and completed once.
async fn no_job_leased_twice(f: Fixture) {
    let jobs: Vec<serde_json::Value> = (0..50).map(|i| json!({ "payload": i })).collect();
    let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
    let req = validate::enqueue("q", body, f.store.now(), &f.limits).unwrap();
    f.store.enqueue(T, req, None).await.unwrap();
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let mut got = Vec::new();
            loop {
                let body = serde_json::from_value(json!({"max": 3, "lease_ms": 60_000})).unwrap();
                let claim = validate::claim("q", body, store.default_claim_strategy(), &limits).unwrap();
                let jobs = store.claim_jobs(T, claim, None).await.unwrap().fresh().unwrap();
                if jobs.is_empty() {
                    return got;
                }
                for j in jobs {
                    store.complete_job(T, j.id, &j.lease_token, None).await.unwrap();
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
        f.store.queue_counts(T, "q").await.unwrap().counts[&JobState::Completed],
        50
    );
    f.finish().await;
}

/// Ten identical bookings at once: exactly one is made, nine overlap it.
async fn one_booking_of_ten(f: Fixture) {
    let mut set = tokio::task::JoinSet::new();
    for n in 0..10 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let body = serde_json::from_value(
                json!({"start": "2030-05-01T00:00:00Z", "end": "2030-05-02T00:00:00Z", "holder": format!("h{n}")}),
            )
            .unwrap();
            let strategy = store.default_booking_strategy();
            let req = validate::booking(format!("b{n}"), "room", body, strategy, &limits).unwrap();
            store.book(T, req, None).await
        });
    }
    let (mut ok, mut overlap) = (0, 0);
    while let Some(r) = set.join_next().await {
        match r.unwrap() {
            Ok(Executed::Fresh(_)) => ok += 1,
            Err(AllotError::BookingOverlap { .. }) => overlap += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!((ok, overlap), (1, 9));
    f.finish().await;
}

async fn enqueue_n(f: &Fixture, tenant: &str, n: usize) -> Vec<i64> {
    let jobs: Vec<serde_json::Value> = (0..n).map(|i| json!({ "payload": i })).collect();
    let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
    let req = validate::enqueue("q", body, f.store.now(), &f.limits).unwrap();
    f.store.enqueue(tenant, req, None).await.unwrap().fresh().unwrap().ids
}

async fn ledger_ids(f: &Fixture, tenant: &str, sku: &str) -> Vec<i64> {
    let entries = f.store.ledger(tenant, sku, 0, 100).await.unwrap();
    entries.iter().map(|e| e.id).collect()
}

/// Ids count only their tenant's objects (issue 24): a tenant's jobs, ledger entries and
/// units are numbered 1, 2, 3, … whatever other tenants make in between; ten first enqueues
/// at once of a new tenant (its counter made under a race) get exactly 1..=10; and an id two
/// tenants both have names only the caller's object.
async fn ids_count_only_their_tenant(f: Fixture) {
    let (a, b) = ("tenant-a", "tenant-b");
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
    let units = f.store.list_units(a, "U", &filter, 0, 100).await.unwrap();
    let ids: Vec<(i64, &str)> = units.iter().map(|u| (u.unit.id, u.unit.serial.as_str())).collect();
    assert_eq!(ids, [(1, "A1"), (2, "A2"), (3, "A3")]);
    assert_eq!(ledger_ids(&f, a, "U").await, [4, 5], "after the tenant's own 3 on S");

    let mut set = tokio::task::JoinSet::new();
    for _ in 0..10 {
        let (store, limits) = (f.store.clone(), f.limits.clone());
        set.spawn(async move {
            let body = serde_json::from_value(json!({"jobs": [{"payload": 0}]})).unwrap();
            let req = validate::enqueue("q", body, store.now(), &limits).unwrap();
            store.enqueue("tenant-c", req, None).await.unwrap().fresh().unwrap().ids
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
    f.store.complete_job(b, 1, &leased[0].lease_token, None).await.unwrap();
    let counts = f.store.queue_counts(a, "q").await.unwrap();
    assert_eq!(
        (counts.counts[&JobState::Available], counts.open()),
        (3, 3),
        "{counts:?}"
    );
    f.finish().await;
}

fn body<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
    serde_json::from_value(v).unwrap()
}

/// The store's clock, ten days ahead of the database's, gives every instant a write records:
/// every ledger entry of every kind of write (the single-statement allocation, the envelope,
/// `batched`, holds and their partial confirm, units, cancels, returns, transfers, levels)
/// is stamped within the writes' window on that clock, and a keyed write's idempotency key
/// is as old as the clock says (pruning before the window keeps it, after it takes it).
async fn every_instant_comes_from_the_clock(f: Fixture) {
    f.clock.advance_ms(10 * 86_400_000);
    let from = f.store.now();
    let (s, l) = (&f.store, &f.limits);
    f.create_sku("C", 100).await;
    s.adjust(
        T,
        validate::adjustment("C", body(json!({"delta": 5})), l).unwrap(),
        None,
    )
    .await
    .unwrap();
    let fast = f.allocation("C", 1);
    let fast_id = fast.id.clone();
    s.allocate(T, fast, None).await.unwrap();
    s.allocate(T, f.allocation("C", 1), Some(idem("clock-1")))
        .await
        .unwrap();
    if s.supports(Strategy::Batched) {
        let b = body(json!({"lines": [{"sku": "C", "quantity": 1}], "strategy": "batched"}));
        let req = validate::allocation("b1".into(), b, Strategy::Batched, l).unwrap();
        s.allocate(T, req, None).await.unwrap();
    }
    let hold = |id: &str| {
        let b = body(json!({"lines": [{"sku": "C", "quantity": 3}], "ttl_ms": 600_000}));
        validate::hold(id.into(), b, s.default_strategy(), l).unwrap()
    };
    s.create_hold(T, hold("h1"), None).await.unwrap();
    let part = validate::confirm(body(json!({"lines": [{"sku": "C", "quantity": 1}]})), l).unwrap();
    s.confirm_hold(T, "h1", part, None, None).await.unwrap();
    s.create_hold(T, hold("h2"), None).await.unwrap();
    s.release_hold(T, "h2", None, None).await.unwrap();
    s.cancel_allocation(T, &fast_id, None, None).await.unwrap();
    let back = body(json!({"lines": [{"sku": "C", "quantity": 1, "state": "sellable"}]}));
    let ret = validate::returns("r1".into(), "h1", back, l).unwrap();
    s.return_allocation(T, ret, None).await.unwrap();
    let loc = validate::location(body(json!({"location": "north"})), l).unwrap();
    s.create_location(T, loc, 10).await.unwrap();
    let t = body(json!({"sku": "C", "from": "default", "to": "north", "quantity": 2}));
    s.transfer(T, validate::transfer("t1".into(), t, l).unwrap(), None)
        .await
        .unwrap();
    let level = body(json!({"on_hand": 5, "compare_on_hand": 2}));
    s.set_level(T, validate::set_level("C", "north", level, l).unwrap(), None)
        .await
        .unwrap();
    let units = body(json!({"units": [{"serial": "A"}, {"serial": "B"}]}));
    s.add_units(T, validate::add_units("U", units, s.now(), l).unwrap(), None)
        .await
        .unwrap();
    let claim = |id: &str, hold: bool| {
        let b = if hold {
            json!({"sku": "U", "quantity": 1, "hold_ttl_ms": 600_000})
        } else {
            json!({"sku": "U", "quantity": 1})
        };
        validate::unit_claim(id.into(), body(b), s.default_unit_strategy(), l).unwrap()
    };
    s.claim_units(T, claim("uc1", false), None).await.unwrap();
    s.claim_units(T, claim("uc2", true), None).await.unwrap();
    let to = f.store.now();
    let mut kinds = std::collections::BTreeSet::new();
    for sku in ["C", "U"] {
        for e in s.ledger(T, sku, 0, 1000).await.unwrap() {
            assert!(
                from <= e.at && e.at <= to,
                "{:?} at {} outside {from}..{to}",
                e.kind,
                e.at
            );
            kinds.insert(e.kind.as_str());
        }
    }
    assert!(kinds.len() >= 9, "every kind of write was seen: {kinds:?}");
    assert_eq!(
        s.prune_idempotency_keys(from, 100).await.unwrap(),
        0,
        "the key is not older than the window"
    );
    assert_eq!(
        s.prune_idempotency_keys(to + chrono::Duration::seconds(1), 100)
            .await
            .unwrap(),
        1
    );
    f.finish().await;
}
