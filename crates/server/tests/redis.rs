//! The Redis strategies against a real Redis (`ALLOT_TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`) and PostgreSQL. Each test has its own key prefix, so tests run
//! in parallel on one Redis and never touch another's keys.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

static T: std::sync::LazyLock<allot_core::Tenant> = std::sync::LazyLock::new(allot_core::Tenant::default_tenant);
use allot_core::store::StockStore;
use common::Kind;
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn redis_url() -> String {
    std::env::var("ALLOT_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

fn prefix() -> String {
    format!("t{}", uuid::Uuid::new_v4().simple())
}

async fn start_redis(url: String, prefix: &str) -> common::TestServer {
    let prefix = prefix.to_string();
    common::start_with(Kind::Postgres, move |c| {
        c.redis_url = Some(url);
        c.redis_key_prefix = prefix;
        c.redis_lock_ttl_ms = 2_000;
    })
    .await
}

fn alloc(sku: &str, q: i64, strategy: &str) -> Value {
    json!({"lines": [{"sku": sku, "quantity": q}], "strategy": strategy})
}

/// Fire `n` copies of `body` at once; count the answers by status and code.
async fn fire(api: &common::Api, path: &str, body: Value, n: usize) -> BTreeMap<String, usize> {
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..n {
        let (api, body, path) = (api.clone(), body.clone(), path.to_string());
        set.spawn(async move { api.post(&path, body).await });
    }
    let mut counts = BTreeMap::new();
    while let Some(r) = set.join_next().await {
        let (s, b) = r.unwrap();
        let key = if s < 300 {
            s.to_string()
        } else {
            format!("{s} {}", b["error"]["code"].as_str().unwrap_or("?"))
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

/// `counts` holds exactly `total` answers, every one of them among `allowed` (so no 5xx or
/// unexpected code hides among the refusals); returns how many were `201`.
fn only(counts: &BTreeMap<String, usize>, total: usize, allowed: &[&str]) -> i64 {
    assert_eq!(counts.values().sum::<usize>(), total, "{counts:?}");
    assert!(counts.keys().all(|k| allowed.contains(&k.as_str())), "{counts:?}");
    counts.get("201").copied().unwrap_or(0) as i64
}

const SOLD_OUT: [&str; 2] = ["201", "409 insufficient_stock"];

/// While counters vanish again and again, an admission that sees its counter vanish twice is
/// refused `503 unavailable` (and applies nothing): allowed, and checked against the books.
const COUNTERS_VANISHING: [&str; 3] = ["201", "409 insufficient_stock", "503 unavailable"];

async fn gate(prefix: &str, lock_ttl_ms: u64) -> allot_redis::RedisGate {
    let mut rc = allot_redis::RedisConfig::new(redis_url());
    rc.key_prefix = prefix.to_string();
    rc.lock_ttl_ms = lock_ttl_ms;
    allot_redis::RedisGate::new(rc).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn both_redis_strategies_sell_exactly_the_stock() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    for strategy in ["redis_counter", "redis_lock"] {
        let sku = format!("HOT-{strategy}");
        ts.create_sku(&sku, 50, 1).await;
        let counts = fire(&ts.api, "/v1/allocations", alloc(&sku, 1, strategy), 200).await;
        // redis_lock may also answer contention when its bounded attempts run out; never more.
        let allowed = ["201", "409 insufficient_stock", "409 contention"];
        assert_eq!(only(&counts, 200, &allowed), 50, "{strategy}: {counts:?}");
        assert_eq!(ts.sku(&sku).await["on_hand"], 0, "{strategy}");
        let entries = ts.ledger(&sku).await;
        assert_eq!(entries.iter().filter(|e| e["kind"] == "allocation").count(), 50);
    }
    // Sold out: the counter answers without the database, with what it has left.
    let (s, b) = ts
        .post("/v1/allocations", alloc("HOT-redis_counter", 1, "redis_counter"))
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str(), b["error"]["available"].as_i64()),
        (409, Some("insufficient_stock"), Some(0))
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn counter_follows_holds_adjustments_and_refusals() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    let g = gate(&p, 2_000).await;
    ts.create_sku("C", 10, 1).await;
    // A cart with an unknown SKU: admitted on C, refused by the database, C given back.
    let (s, b) = ts
        .post("/v1/allocations", json!({"lines": [{"sku": "C", "quantity": 2}, {"sku": "NOPE", "quantity": 1}], "strategy": "redis_counter"}))
        .await;
    assert_eq!(s, 404, "{b}");
    assert_eq!(
        g.counter(&T, "C").await.unwrap(),
        Some(10),
        "nothing of a refused cart stays taken"
    );
    let (s, h) = ts
        .post(
            "/v1/holds",
            json!({"lines": [{"sku": "C", "quantity": 4}], "ttl_ms": 600_000, "strategy": "redis_counter"}),
        )
        .await;
    assert_eq!(s, 201, "{h}");
    assert_eq!(g.counter(&T, "C").await.unwrap(), Some(6));
    let (s, _) = ts
        .post(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(s, 200);
    assert_eq!(
        g.counter(&T, "C").await.unwrap(),
        None,
        "a released hold drops the counter (rebuilt from the database: 10)"
    );
    // Released again: nothing more comes back (a counter added twice would sell 14 below).
    let (s, _) = ts
        .post(&format!("/v1/holds/{}/release", h["id"].as_str().unwrap()), json!({}))
        .await;
    assert_eq!(s, 200);
    let (s, _) = ts
        .post("/v1/skus/C/adjustments", json!({"delta": 5, "reason": "restock"}))
        .await;
    assert_eq!(s, 200);
    // The adjustment dropped the counter; the next request loads 15 from the database.
    let counts = fire(&ts.api, "/v1/allocations", alloc("C", 1, "redis_counter"), 40).await;
    assert_eq!(only(&counts, 40, &SOLD_OUT), 15, "{counts:?}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn losing_the_counters_mid_load_never_oversells() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    ts.create_sku("FLUSH", 100, 1).await;
    let client = redis::Client::open(redis_url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let key = format!("{p}:{{FLUSH}}:avail");
    // 400 requests for 100 units while the counter is deleted (what a restart, FLUSHALL or
    // failover does to it) again and again.
    let load = {
        let api = ts.api.clone();
        tokio::spawn(async move { fire(&api, "/v1/allocations", alloc("FLUSH", 1, "redis_counter"), 400).await })
    };
    // Delete the counter whenever the load has (re)built it, up to 20 times, while the load
    // runs: the signal is the key's existence, not a timer (a slow start of the load once saw
    // 20 fixed ticks pass before its first request built the counter). Bounded: at most
    // 5000 polls of 2 ms.
    let mut during_load = 0;
    for _ in 0..5_000 {
        if during_load >= 20 || load.is_finished() {
            break;
        }
        let deleted: i64 = redis::cmd("DEL").arg(&key).query_async(&mut con).await.unwrap();
        during_load += i64::from(deleted == 1 && !load.is_finished());
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    assert!(during_load >= 1, "the counter was never lost while the load ran");
    let counts = load.await.unwrap();
    let ok = only(&counts, 400, &COUNTERS_VANISHING);
    assert!(ok <= 100, "oversold: {counts:?}");
    let on_hand = ts.sku("FLUSH").await["on_hand"].as_i64().unwrap();
    assert_eq!(on_hand, 100 - ok, "every 201 took one unit, nothing else did");
    // Whatever the counter undersold, and a restock of 10, is sold exactly once the counter
    // is rebuilt from the database.
    ts.ok("/v1/skus/FLUSH/adjustments", json!({"delta": 10, "reason": "restock"}))
        .await;
    let _: () = redis::cmd("DEL").arg(&key).query_async(&mut con).await.unwrap();
    let rest = fire(&ts.api, "/v1/allocations", alloc("FLUSH", 1, "redis_counter"), 150).await;
    assert_eq!(only(&rest, 150, &SOLD_OUT), on_hand + 10, "{rest:?}");
    assert_eq!(ts.sku("FLUSH").await["on_hand"], 0);
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// Every key allot writes in Redis expires: counters, locks and fencing tokens, also for SKU
/// names that do not exist (a client could send any number of them).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_redis_key_expires() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    ts.create_sku("E", 10, 1).await;
    for strategy in ["redis_counter", "redis_lock"] {
        let (s, b) = ts.post("/v1/allocations", alloc("E", 1, strategy)).await;
        assert_eq!(s, 201, "{strategy}: {b}");
        let (s, b) = ts.post("/v1/allocations", alloc("NO-SUCH-SKU", 1, strategy)).await;
        assert_eq!(s, 404, "{strategy}: {b}");
    }
    let client = redis::Client::open(redis_url()).unwrap();
    let mut con = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{p}:*"))
        .query_async(&mut con)
        .await
        .unwrap();
    assert!(
        keys.iter().any(|k| k.ends_with(":fence")),
        "a fencing token was written: {keys:?}"
    );
    for k in &keys {
        let ttl: i64 = redis::cmd("PTTL").arg(k).query_async(&mut con).await.unwrap();
        assert!(ttl > 0, "{k} has no expiry (PTTL {ttl})");
    }
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lock_holder_paused_past_its_ttl_is_fenced_off() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    ts.create_sku("P", 10, 1).await;
    let g = gate(&p, 200).await;
    // The watchdog keeps a working holder's lock well past its TTL.
    let working = g.lock_skus(&T, &["P".to_string()]).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(g.is_locked(&T, "P").await.unwrap(), "renewed while held");
    working.release().await;
    assert!(!g.is_locked(&T, "P").await.unwrap(), "released");
    // A holder that pauses: its lock lapses and another holder writes.
    let mut paused = g.lock_skus(&T, &["P".to_string()]).await.unwrap();
    paused.stop_watchdog();
    let mut waited = 0;
    while g.is_locked(&T, "P").await.unwrap() {
        assert!(waited < 500, "lock never lapsed");
        waited += 1;
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let (s, b) = ts.post("/v1/allocations", alloc("P", 1, "redis_lock")).await;
    assert_eq!(s, 201, "{b}");
    // The paused holder wakes up and writes with its old token: refused, nothing changes.
    let store = allot_postgres::PgStore::connect(&allot_postgres::PgConfig::new(&ts.database_url)).unwrap();
    let limits = allot_core::Limits::default();
    let body: allot_core::AllocationBody =
        serde_json::from_value(json!({"lines": [{"sku": "P", "quantity": 3}]})).unwrap();
    let mut req =
        allot_core::validate::allocation("stale-1".into(), body, allot_core::Strategy::RedisLock, &limits).unwrap();
    req.fences = paused.fences().to_vec();
    let err = store.allocate(&T, req, None).await.unwrap_err();
    assert_eq!(err.code(), "lease_lost", "{err}");
    assert_eq!(ts.sku("P").await["on_hand"], 9);
    assert_eq!(ts.get("/v1/allocations/stale-1").await.0, 404);
    drop(paused);
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_down_answers_503_and_other_strategies_keep_working() {
    // Nothing listens on port 1.
    let ts = start_redis("redis://127.0.0.1:1".into(), &prefix()).await;
    ts.create_sku("D", 10, 1).await;
    for strategy in ["redis_counter", "redis_lock"] {
        let (s, b) = ts.post("/v1/allocations", alloc("D", 1, strategy)).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (503, Some("unavailable")),
            "{strategy}: {b}"
        );
        let (s, b) = ts
            .post(
                "/v1/holds",
                json!({"lines": [{"sku": "D", "quantity": 1}], "ttl_ms": 60_000, "strategy": strategy}),
            )
            .await;
        assert_eq!(s, 503, "{strategy}: {b}");
    }
    let s = ts.sku("D").await;
    assert_eq!(
        (s["on_hand"].as_i64(), s["held"].as_i64()),
        (Some(10), Some(0)),
        "nothing applied"
    );
    let (s, _) = ts.post("/v1/allocations", alloc("D", 1, "atomic")).await;
    assert_eq!(s, 201);
    let (s, h) = ts.get("/healthz").await;
    assert_eq!(
        (s, h["status"].as_str(), h["redis"].as_str()),
        (200, Some("ok"), Some("unavailable"))
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_strategies_need_a_redis_url() {
    let ts = common::start(Kind::Postgres).await;
    ts.create_sku("N", 10, 1).await;
    let (s, b) = ts.post("/v1/allocations", alloc("N", 1, "redis_counter")).await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (400, Some("unsupported_strategy")),
        "{b}"
    );
    let (s, h) = ts.get("/healthz").await;
    assert_eq!((s, h["status"].as_str()), (200, Some("ok")), "{h}");
    assert!(h.as_object().is_some_and(|o| !o.contains_key("redis")), "{h}");
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_a_redis_cluster_counts_are_exact_and_carts_give_back() {
    let cluster = allot_bench::RedisCluster::start().expect("a Redis Cluster (redis-server, redis-cli)");
    let p = prefix();
    let ts = start_redis(cluster.url(), &p).await;
    // Several SKUs (spread over the cluster's slots), both strategies: exactly the stock.
    for strategy in ["redis_counter", "redis_lock"] {
        for n in 0..3 {
            let sku = format!("K{n}-{strategy}");
            ts.create_sku(&sku, 20, 1).await;
            let counts = fire(&ts.api, "/v1/allocations", alloc(&sku, 1, strategy), 60).await;
            let allowed = ["201", "409 insufficient_stock", "409 contention"];
            assert_eq!(only(&counts, 60, &allowed), 20, "{sku}: {counts:?}");
            assert_eq!(ts.sku(&sku).await["on_hand"], 0, "{sku}");
        }
    }
    // A cart over two SKUs: the first line is taken, the second is short, the first goes back.
    ts.create_sku("CART-A", 30, 1).await;
    ts.create_sku("CART-B", 10, 1).await;
    let cart = json!({"lines": [{"sku": "CART-A", "quantity": 1}, {"sku": "CART-B", "quantity": 1}], "strategy": "redis_counter"});
    let counts = fire(&ts.api, "/v1/allocations", cart, 40).await;
    assert_eq!(only(&counts, 40, &SOLD_OUT), 10, "{counts:?}");
    let mut rc = allot_redis::RedisConfig::new(cluster.url());
    rc.key_prefix = p.clone();
    let g = allot_redis::RedisGate::new(rc).unwrap();
    assert_eq!(
        g.counter(&T, "CART-A").await.unwrap(),
        Some(20),
        "short carts gave CART-A back"
    );
    // The whole cluster flushed mid-load: never an oversell, and the audit stays clean.
    ts.create_sku("CF", 100, 1).await;
    let load = {
        let api = ts.api.clone();
        tokio::spawn(async move { fire(&api, "/v1/allocations", alloc("CF", 1, "redis_counter"), 300).await })
    };
    let mut during_load = 0;
    for _ in 0..5 {
        cluster.flushall().expect("FLUSHALL");
        during_load += i64::from(!load.is_finished());
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(during_load >= 1, "no flush happened while the load ran");
    let counts = load.await.unwrap();
    let ok = only(&counts, 300, &COUNTERS_VANISHING);
    assert!(ok <= 100, "{counts:?}");
    let on_hand = ts.sku("CF").await["on_hand"].as_i64().unwrap();
    assert_eq!(on_hand, 100 - ok);
    // Rebuilt from the database after one more flush, the counter sells exactly the rest
    // and a restock of 10.
    ts.ok("/v1/skus/CF/adjustments", json!({"delta": 10, "reason": "restock"}))
        .await;
    cluster.flushall().expect("FLUSHALL");
    let rest = fire(&ts.api, "/v1/allocations", alloc("CF", 1, "redis_counter"), 150).await;
    assert_eq!(only(&rest, 150, &SOLD_OUT), on_hand + 10, "{rest:?}");
    assert_eq!(ts.sku("CF").await["on_hand"], 0);
    ts.assert_audit_clean().await;
    ts.finish().await;
    drop(cluster);
}

/// Every strategy on one SKU, with holds, a release, a cancel, a return and an adjustment
/// between: after each step a counter that exists is the database's `available`, and every
/// refusal (from Redis or from the database) states the database's figure.
async fn mixed_strategies_keep_the_counter_exact(url: String) {
    let p = prefix();
    let ts = start_redis(url.clone(), &p).await;
    let mut rc = allot_redis::RedisConfig::new(url);
    rc.key_prefix = p.clone();
    let g = allot_redis::RedisGate::new(rc).unwrap();
    ts.create_sku("M", 60, 1).await;
    // A database strategy's counter update runs in the background: allowed 2 s to land.
    let check = |step: String| {
        let (api, g) = (ts.api.clone(), &g);
        async move {
            let (_, sku) = api.get("/v1/skus/M").await;
            let available = sku["available"].as_i64().unwrap();
            let mut counter = None;
            for _ in 0..100 {
                counter = g.counter(&T, "M").await.unwrap();
                if counter.is_none_or(|c| c == available) {
                    return available;
                }
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            panic!("{step}: the counter {counter:?} left the database ({sku})");
        }
    };
    let mut ids = Vec::new();
    for strategy in [
        "redis_counter",
        "redis_lock",
        "atomic",
        "pessimistic",
        "optimistic",
        "segmented",
        "batched",
    ] {
        let (s, a) = ts.post("/v1/allocations", alloc("M", 2, strategy)).await;
        assert_eq!(s, 201, "{strategy}: {a}");
        ids.push(a["id"].as_str().unwrap().to_string());
        check(format!("allocated by {strategy}")).await;
    }
    let mut holds = Vec::new();
    for strategy in ["atomic", "redis_counter", "redis_lock"] {
        let body = json!({"lines": [{"sku": "M", "quantity": 3}], "ttl_ms": 600_000, "strategy": strategy});
        let (s, h) = ts.post("/v1/holds", body).await;
        assert_eq!(s, 201, "{strategy}: {h}");
        holds.push(h["id"].as_str().unwrap().to_string());
        check(format!("held by {strategy}")).await;
    }
    // Each released twice: the second changes nothing, on the counter either.
    for h in holds.iter().chain(&holds) {
        let (s, b) = ts.post(&format!("/v1/holds/{h}/release"), json!({})).await;
        assert_eq!(s, 200, "{b}");
        let (s, b) = ts.post("/v1/allocations", alloc("M", 1, "redis_counter")).await;
        assert_eq!(s, 201, "{b}");
        check(format!("released {h}, then an admission")).await;
    }
    let (s, b) = ts.post(&format!("/v1/allocations/{}/cancel", ids[2]), json!({})).await;
    assert!(s == 200 || s == 201, "{b}");
    // The cancel dropped the counter: an admission loads it again, then it must agree.
    let (s, b) = ts.post("/v1/allocations", alloc("M", 1, "redis_counter")).await;
    assert_eq!(s, 201, "{b}");
    check("a cancel, then an admission".into()).await;
    let body = json!({"lines": [{"sku": "M", "quantity": 1}]});
    let (s, b) = ts.post(&format!("/v1/allocations/{}/returns", ids[3]), body).await;
    assert_eq!(s, 201, "{b}");
    let (s, b) = ts.post("/v1/allocations", alloc("M", 1, "redis_counter")).await;
    assert_eq!(s, 201, "{b}");
    check("a return, then an admission".into()).await;
    let (s, b) = ts
        .post("/v1/skus/M/adjustments", json!({"delta": -5, "reason": "shrinkage"}))
        .await;
    assert_eq!(s, 200, "{b}");
    // A counter loaded again by the next admission, then every refusal states the truth.
    let (s, b) = ts.post("/v1/allocations", alloc("M", 1, "redis_counter")).await;
    assert_eq!(s, 201, "{b}");
    let available = check("an adjustment, then an admission".into()).await;
    for strategy in ["redis_counter", "redis_lock", "atomic", "batched"] {
        let (s, b) = ts.post("/v1/allocations", alloc("M", available + 1, strategy)).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (409, Some("insufficient_stock")),
            "{strategy}: {b}"
        );
        assert_eq!(
            b["error"]["available"].as_i64(),
            Some(available),
            "{strategy}: the refusal's figure"
        );
        check(format!("refused by {strategy}")).await;
    }
    // Then exactly what is left sells, through the counter.
    let n = usize::try_from(available).unwrap() + 5;
    let counts = fire(&ts.api, "/v1/allocations", alloc("M", 1, "redis_counter"), n).await;
    assert_eq!(only(&counts, n, &SOLD_OUT), available, "{counts:?}");
    assert_eq!(check("sold out".into()).await, 0);
    ts.assert_audit_clean().await;
    ts.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mixed_strategies_keep_the_counter_exact_on_one_redis() {
    mixed_strategies_keep_the_counter_exact(redis_url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mixed_strategies_keep_the_counter_exact_on_a_redis_cluster() {
    let cluster = allot_bench::RedisCluster::start().expect("a Redis Cluster (redis-server, redis-cli)");
    mixed_strategies_keep_the_counter_exact(cluster.url()).await;
}

/// `redis_counter` answers as every other strategy where its counter would refuse first
/// (found by `allot sim`'s differential runner): a retry by key of an allocation that
/// succeeded is its replay even once the SKU sold out, a key bound to another request is
/// `422 idempotency_key_reused`, and an unknown SKU is `404 not_found`, not
/// `insufficient_stock`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_counter_refuses_after_keys_and_names_as_the_database_does() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    ts.create_sku("K", 2, 1).await;
    let body = alloc("K", 2, "redis_counter").to_string();
    let (s, b, first) = ts.api.post_raw("/v1/allocations", body.clone(), Some("k-1")).await;
    assert_eq!(s, 201, "{first}");
    assert!(!b);
    // Sold out now: the same request by its key is its replay, not a refusal.
    let (s, replayed, again) = ts.api.post_raw("/v1/allocations", body, Some("k-1")).await;
    assert_eq!((s, replayed), (201, true), "{again}");
    assert_eq!(again["id"], first["id"]);
    // The key with another request: the key's rule, not the stock's.
    let (s, _, b) = ts
        .api
        .post_raw(
            "/v1/allocations",
            alloc("K", 1, "redis_counter").to_string(),
            Some("k-1"),
        )
        .await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (422, Some("idempotency_key_reused")),
        "{b}"
    );
    let (s, b) = ts.post("/v1/allocations", alloc("NOPE", 1, "redis_counter")).await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")), "{b}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// A cart whose short line comes before a SKU that does not exist is refused for the short
/// line, in SKU order, on both Redis strategies as on every other (`redis_lock` fenced every
/// SKU first and answered `not_found`: the simulation's seeds 3506 and 3508).
#[tokio::test]
async fn a_short_line_is_refused_before_an_unknown_sku_on_both_redis_strategies() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    ts.create_sku("C", 1, 1).await;
    for strategy in ["redis_lock", "redis_counter"] {
        let cart = json!({"lines": [{"sku": "C", "quantity": 2}, {"sku": "Z", "quantity": 1}], "strategy": strategy});
        let (s, b) = ts.post("/v1/allocations", cart).await;
        assert_eq!(
            (s, b["error"]["code"].as_str(), b["error"]["sku"].as_str()),
            (409, Some("insufficient_stock"), Some("C")),
            "{strategy}: {b}"
        );
    }
    let (s, b) = ts.post("/v1/allocations", alloc("Z", 1, "redis_lock")).await;
    assert_eq!((s, b["error"]["code"].as_str()), (404, Some("not_found")), "{b}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// A key bound to another request is `idempotency_key_reused` on `redis_counter` even when
/// the request names a SKU that does not exist (the counter's admission answered `not_found`
/// before the key was checked: the simulation's seed 3037).
#[tokio::test]
async fn a_reused_key_is_refused_before_an_unknown_sku_on_the_counter() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    ts.create_sku("K", 5, 1).await;
    let first = alloc("K", 1, "redis_counter").to_string();
    let (s, _, b) = ts.api.post_raw("/v1/allocations", first, Some("k-z")).await;
    assert_eq!(s, 201, "{b}");
    let cart =
        json!({"lines": [{"sku": "K", "quantity": 1}, {"sku": "Z", "quantity": 1}], "strategy": "redis_counter"});
    let (s, _, b) = ts.api.post_raw("/v1/allocations", cart.to_string(), Some("k-z")).await;
    assert_eq!(
        (s, b["error"]["code"].as_str()),
        (422, Some("idempotency_key_reused")),
        "{b}"
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// A count line on a unit-tracked SKU is `wrong_tracking` on `redis_counter`, as on every
/// other strategy, for holds and allocations alike, and builds no counter (the counter used
/// to refuse more than its units as `insufficient_stock`, its units counted as `available`:
/// the simulation's finding on a receipt, then a hold).
#[tokio::test]
async fn a_count_line_on_a_unit_tracked_sku_is_wrong_tracking_on_the_counter() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    let units = json!({"units": [{"serial": "S1"}, {"serial": "S2"}]});
    let (s, _, b) = ts.api.post_raw("/v1/skus/U/units", units.to_string(), None).await;
    assert_eq!(s, 201, "{b}");
    for (path, body) in [
        (
            "/v1/holds",
            json!({"lines": [{"sku": "U", "quantity": 3}], "ttl_ms": 60_000, "strategy": "redis_counter"}),
        ),
        ("/v1/allocations", alloc("U", 3, "redis_counter")),
    ] {
        let (s, _, b) = ts.api.post_raw(path, body.to_string(), None).await;
        assert_eq!(
            (s, b["error"]["code"].as_str()),
            (409, Some("wrong_tracking")),
            "{path}: {b}"
        );
    }
    let g = gate(&p, 30_000).await;
    assert_eq!(
        g.counter(&T, "U").await.unwrap(),
        None,
        "no counter for a unit-tracked SKU"
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}

/// A line placed where only part of its SKU's stock is (pinned, or by a ranked list) is
/// refused by the database with what those locations have, and a cart's refusal names the
/// first short line in SKU order, on `redis_counter` as on every other strategy (the counter
/// is the SKU's total: it named `available: 2` where the database said 0, and `C` where the
/// database said `A`: the simulation's seeds 1 and 4 with locations).
#[tokio::test]
async fn the_counter_leaves_placed_lines_to_the_database() {
    let p = prefix();
    let ts = start_redis(redis_url(), &p).await;
    let (s, _, b) = ts
        .api
        .post_raw(
            "/v1/locations",
            json!({"location": "W", "priority": 1}).to_string(),
            None,
        )
        .await;
    assert_eq!(s, 201, "{b}");
    ts.create_sku("A", 3, 1).await;
    ts.create_sku("C", 1, 1).await;
    let short = |b: &Value| {
        (
            b["error"]["code"].clone(),
            b["error"]["sku"].clone(),
            b["error"]["available"].clone(),
        )
    };
    for body in [
        json!({"lines": [{"sku": "A", "quantity": 5}], "placement": ["W"], "strategy": "redis_counter"}),
        json!({"lines": [{"sku": "A", "quantity": 5, "location": "W"}], "strategy": "redis_counter"}),
    ] {
        let (s, _, b) = ts.api.post_raw("/v1/allocations", body.to_string(), None).await;
        assert_eq!(
            (s, short(&b)),
            (409, (json!("insufficient_stock"), json!("A"), json!(0))),
            "{body}: {b}"
        );
    }
    let cart = json!({"lines": [{"sku": "C", "quantity": 2}, {"sku": "A", "quantity": 1, "location": "W"}],
                      "strategy": "redis_counter", "ttl_ms": 60_000});
    let (s, _, b) = ts.api.post_raw("/v1/holds", cart.to_string(), None).await;
    assert_eq!(
        (s, short(&b)),
        (409, (json!("insufficient_stock"), json!("A"), json!(0))),
        "{b}"
    );
    ts.assert_audit_clean().await;
    ts.finish().await;
}
