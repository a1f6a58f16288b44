//! What the console reads, as any client may: `GET /v1/key` (who the key is, what it may do),
//! `GET /v1/stats` (this instance's recent requests per tenant, allocation outcomes, jobs by
//! state, the feed's newest cursor), the SKU search by prefix and the holds of one SKU — on
//! both backends, with exact counts and tenants kept apart.

mod common;

use allot_core::access::Scope;
use common::{make_key, start_keyed, Kind, TestServer};
use serde_json::{json, Value};

async fn call(ts: &TestServer, bearer: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    ts.call_as(bearer, method, path, body).await
}

async fn ok(ts: &TestServer, bearer: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    ts.ok_as(bearer, method, path, body).await
}

/// The cursor of the newest event the feed serves now.
async fn newest_cursor(ts: &TestServer, bearer: &str) -> i64 {
    let page = ok(ts, bearer, "GET", "/v1/events?after=0&limit=1000", None).await;
    page["events"]
        .as_array()
        .unwrap()
        .last()
        .map_or(0, |e| e["cursor"].as_i64().unwrap())
}

async fn bearer(ts: &TestServer, tenant: &str, scopes: &[Scope]) -> (String, String) {
    let (id, secret) = make_key(ts, tenant, "t", scopes, None).await;
    (id, format!("Bearer {secret}"))
}

async fn who_the_key_is(ts: &TestServer) {
    let (id, reader) = bearer(ts, "acme", &[Scope::StockWrite, Scope::JobsRead]).await;
    let me = ok(ts, &reader, "GET", "/v1/key", None).await;
    assert_eq!(
        (me["id"].as_str(), me["tenant"].as_str()),
        (Some(id.as_str()), Some("acme"))
    );
    assert_eq!(me["scopes"], json!(["stock:write", "jobs:read"]));
    assert_eq!(
        me["grants"],
        json!(["stock:read", "stock:write", "jobs:read"]),
        "a write scope grants its read"
    );
    let (_, admin) = bearer(ts, "acme", &[Scope::Admin]).await;
    let all = ok(ts, &admin, "GET", "/v1/key", None).await;
    assert_eq!(all["grants"].as_array().unwrap().len(), Scope::ALL.len());
    let (s, _) = call(ts, "Bearer allot_sk_nope", "GET", "/v1/key", None).await;
    assert_eq!(s, 401, "an unknown key learns nothing");
}

/// Nine requests of `a`: a SKU of 3, three allocations made, one refused, one rejected, two
/// enqueues of two jobs (queues q1 and q2) and a claim of one.
async fn nine_requests(ts: &TestServer, a: &str) {
    ok(ts, a, "POST", "/v1/skus", Some(json!({"sku": "S", "on_hand": 3}))).await;
    let one = json!({"lines": [{"sku": "S", "quantity": 1}]});
    for _ in 0..3 {
        ok(ts, a, "POST", "/v1/allocations", Some(one.clone())).await;
    }
    let (s, _) = call(ts, a, "POST", "/v1/allocations", Some(one.clone())).await;
    assert_eq!(s, 409, "sold out");
    let (s, _) = call(ts, a, "POST", "/v1/allocations", Some(json!({"lines": []}))).await;
    assert_eq!(s, 400);
    let jobs = json!({"jobs": [{"payload": 1}, {"payload": 2}]});
    ok(ts, a, "POST", "/v1/queues/q1/jobs", Some(jobs.clone())).await;
    ok(ts, a, "POST", "/v1/queues/q2/jobs", Some(jobs)).await;
    ok(ts, a, "POST", "/v1/queues/q2/claims", Some(json!({"max": 1}))).await;
}

async fn stats_per_tenant(ts: &TestServer) {
    let (_, a) = bearer(ts, "acme", &[Scope::Admin]).await;
    let (_, b) = bearer(ts, "globex", &[Scope::Admin]).await;
    let (_, stock_only) = bearer(ts, "acme", &[Scope::StockRead]).await;
    nine_requests(ts, &a).await;
    // PostgreSQL numbers events in the background: wait (bounded) until it has begun.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut reads = 1;
    while newest_cursor(ts, &a).await == 0 {
        assert!(std::time::Instant::now() < deadline, "the feed never numbered an event");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        reads += 1;
    }
    let before = newest_cursor(ts, &a).await;
    reads += 1;
    let mine = ok(ts, &a, "GET", "/v1/stats", None).await;
    let after = newest_cursor(ts, &a).await;
    assert_eq!(
        mine["allocations"],
        json!({"made": 3, "refused": 1, "rejected": 1, "failed": 0})
    );
    let requests: u64 = mine["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["requests"].as_u64().unwrap())
        .sum();
    assert_eq!(
        requests,
        9 + reads,
        "every request of acme before this one, of every key"
    );
    assert_eq!(mine["jobs"]["queues"], 2);
    assert_eq!(
        (
            mine["jobs"]["counts"]["available"].as_i64(),
            mine["jobs"]["counts"]["running"].as_i64()
        ),
        (Some(3), Some(1))
    );
    let cursor = mine["feed_cursor"].as_i64().unwrap();
    assert!(
        before > 0 && (before..=after).contains(&cursor),
        "the feed's newest cursor: {before} {cursor} {after}"
    );
    assert!(mine["ready"].as_bool().unwrap());
    assert_eq!(mine["database"], "ok");
    assert_eq!(mine["redis"], Value::Null, "none configured");
    let this: Vec<&Value> = mine["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["this"] == true)
        .collect();
    assert_eq!(this.len(), 1, "this instance, by its heartbeat: {}", mine["instances"]);
    let theirs = ok(ts, &b, "GET", "/v1/stats", None).await;
    assert_eq!(
        theirs["allocations"],
        json!({"made": 0, "refused": 0, "rejected": 0, "failed": 0})
    );
    assert_eq!(
        (theirs["jobs"]["queues"].as_u64(), theirs["feed_cursor"].as_i64()),
        (Some(0), Some(0))
    );
    let narrow = ok(ts, &stock_only, "GET", "/v1/stats", None).await;
    assert!(narrow["allocations"].is_object(), "stock:read sees allocations");
    assert!(
        narrow["jobs"].is_null() && narrow["feed_cursor"].is_null(),
        "but neither jobs nor the feed: {narrow}"
    );
}

async fn search_and_holds_of_a_sku(ts: &TestServer) {
    let (_, a) = bearer(ts, "acme", &[Scope::Admin]).await;
    for sku in ["BOX-1", "BOX-2", "BAG"] {
        ok(ts, &a, "POST", "/v1/skus", Some(json!({"sku": sku, "on_hand": 5}))).await;
    }
    let found = ok(ts, &a, "GET", "/v1/skus?prefix=BOX-", None).await;
    let names: Vec<&str> = found["skus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sku"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["BOX-1", "BOX-2"]);
    let (s, e) = call(ts, &a, "GET", "/v1/skus?prefix=a%20b", None).await;
    assert_eq!(s, 400);
    assert!(
        e["error"]["message"].as_str().unwrap().starts_with("prefix"),
        "names the parameter: {e}"
    );
    let hold = json!({"lines": [{"sku": "BAG", "quantity": 1}], "ttl_ms": 60_000});
    let h = ok(ts, &a, "POST", "/v1/holds", Some(hold)).await;
    let of_bag = ok(ts, &a, "GET", "/v1/holds?sku=BAG", None).await;
    assert_eq!(of_bag["holds"][0]["id"], h["id"]);
    let of_box = ok(ts, &a, "GET", "/v1/holds?sku=BOX-1", None).await;
    assert_eq!(of_box["holds"], json!([]));
    let (s, _) = call(ts, &a, "GET", "/v1/holds?sku=", None).await;
    assert_eq!(s, 400, "an empty SKU is no SKU");
}

async fn all(kind: Kind) {
    let ts = start_keyed(kind).await;
    stats_per_tenant(&ts).await;
    who_the_key_is(&ts).await;
    search_and_holds_of_a_sku(&ts).await;
}

#[tokio::test]
async fn key_stats_search_on_sqlite() {
    all(Kind::Sqlite).await;
}

#[tokio::test]
async fn key_stats_search_on_postgres() {
    all(Kind::Postgres).await;
}
