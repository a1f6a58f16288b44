//! Test harness: a real server per test on 127.0.0.1:0, on its own PostgreSQL schema (from
//! `ALLOT_TEST_DATABASE_URL`) or its own SQLite file, so tests run in parallel.
#![allow(dead_code)]

use allot_server::{RunningServer, ServerConfig};
use serde_json::{json, Value};

/// An allocation body of `lines` with `strategy`.
pub fn alloc_body(lines: &[(&str, i64)], strategy: &str) -> Value {
    let lines: Vec<Value> = lines.iter().map(|(s, q)| json!({"sku": s, "quantity": q})).collect();
    json!({"lines": lines, "strategy": strategy})
}

/// Base URL of the test PostgreSQL.
pub fn pg_base_url() -> String {
    std::env::var("ALLOT_TEST_DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Postgres,
    Sqlite,
}

/// A cheap, cloneable client of one test server (spawned tasks take a clone).
#[derive(Clone)]
pub struct Api {
    pub kind: Kind,
    pub url: String,
    pub client: reqwest::Client,
    /// The server's clock: tests jump it past an expiry instead of sleeping.
    pub clock: std::sync::Arc<allot_core::TestClock>,
}

/// A running test server and what it owns; derefs to its [`Api`].
pub struct TestServer {
    pub api: Api,
    pub database_url: String,
    server: std::sync::Mutex<Option<RunningServer>>,
    schema: Option<String>,
    file: Option<std::path::PathBuf>,
}

/// Connect to the base database (for schema setup and teardown).
pub async fn admin() -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(&pg_base_url(), tokio_postgres::NoTls)
        .await
        .expect("connect to the test PostgreSQL (set ALLOT_TEST_DATABASE_URL)");
    tokio::spawn(async move {
        let _ = conn.await;
    });
    client
}

/// A URL for a fresh schema of the test database, and the schema's name.
pub async fn fresh_pg_url() -> (String, String) {
    let schema = format!("t_{}", uuid::Uuid::new_v4().simple());
    admin()
        .await
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .await
        .unwrap();
    let base = pg_base_url();
    let sep = if base.contains('?') { '&' } else { '?' };
    (format!("{base}{sep}options=-csearch_path%3D{schema}"), schema)
}

/// Start a test server with the test defaults: holds may be as short as 50 ms and the hold
/// sweeper is effectively off (tests of the sweeper turn it on with [`start_with`]).
pub async fn start(kind: Kind) -> TestServer {
    start_with(kind, |_| {}).await
}

pub async fn start_with(kind: Kind, tweak: impl FnOnce(&mut ServerConfig)) -> TestServer {
    let (database_url, schema, file) = match kind {
        Kind::Postgres => {
            let (url, schema) = fresh_pg_url().await;
            (url, Some(schema), None)
        }
        Kind::Sqlite => {
            let p = std::env::temp_dir().join(format!("allot-test-{}.db", uuid::Uuid::new_v4().simple()));
            (format!("sqlite://{}", p.display()), None, Some(p))
        }
    };
    let mut cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url,
        pool_size: 16,
        hold_sweep_interval_ms: 3_600_000,
        ..ServerConfig::default()
    };
    cfg.limits.min_hold_ttl_ms = 50;
    cfg.limits.min_lease_ms = 50;
    let clock = std::sync::Arc::new(allot_core::TestClock::new());
    cfg.clock = clock.clone();
    tweak(&mut cfg);
    let server = allot_server::spawn(&cfg).await.expect("server starts");
    TestServer {
        api: Api {
            kind,
            url: server.url(),
            client: reqwest::Client::builder().pool_max_idle_per_host(64).build().unwrap(),
            clock,
        },
        database_url: cfg.database_url.clone(),
        server: std::sync::Mutex::new(Some(server)),
        schema,
        file,
    }
}

/// Whether `resp` is a Server-Sent Events stream (whose body never ends).
pub fn is_event_stream(resp: &reqwest::Response) -> bool {
    resp.headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// Make a key of `tenant` in `ts`'s database, as `allot keys create` would: (its id, its
/// secret).
pub async fn make_key(
    ts: &TestServer,
    tenant: &str,
    name: &str,
    scopes: &[allot_core::access::Scope],
    rate_per_s: Option<u32>,
) -> (String, String) {
    let store = allot_store::open(&ts.database_url, &Default::default()).await.unwrap();
    let body = allot_core::access::NewKeyBody {
        name: name.into(),
        scopes: scopes.to_vec(),
        rate_per_s,
    };
    let (key, secret) = allot_server::access::create_key(
        store.as_ref(),
        chrono::Utc::now(),
        &allot_core::Tenant::stored(tenant),
        &body,
    )
    .await
    .unwrap();
    (key.id, secret)
}

/// Start a test server that requires keys: an `admin` key is made in its database before any
/// request, and the client sends it with every request.
pub async fn start_keyed(kind: Kind) -> TestServer {
    let mut ts = start(kind).await;
    let (_, secret) = make_key(&ts, "default", "conformance", &[allot_core::access::Scope::Admin], None).await;
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::AUTHORIZATION,
        reqwest::header::HeaderValue::from_str(&format!("Bearer {secret}")).unwrap(),
    );
    ts.api.client = reqwest::Client::builder()
        .pool_max_idle_per_host(64)
        .default_headers(headers)
        .build()
        .unwrap();
    // Without the key, the same server refuses.
    let (s, _) = reqwest::Client::new()
        .get(format!("{}/v1/audit", ts.url))
        .send()
        .await
        .map(|r| (r.status().as_u16(), ()))
        .unwrap();
    assert_eq!(s, 401, "a keyed server answered without a key");
    ts
}

impl std::ops::Deref for TestServer {
    type Target = Api;

    fn deref(&self) -> &Api {
        &self.api
    }
}

impl Api {
    /// Strategies that must never oversell on this backend.
    pub fn safe_strategies(&self) -> Vec<&'static str> {
        match self.kind {
            Kind::Postgres => vec!["atomic", "pessimistic", "optimistic", "segmented", "batched"],
            Kind::Sqlite => vec!["serialized"],
        }
    }

    #[must_use = "check the answer: a setup step that failed must fail the test here"]
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.post_with(path, body.to_string(), None).await
    }

    #[must_use = "check the answer: a setup step that failed must fail the test here"]
    pub async fn post_with(&self, path: &str, body: String, key: Option<&str>) -> (u16, Value) {
        let (s, _, b) = self.post_raw(path, body, key).await;
        (s, b)
    }

    /// POST and return status, whether it was replayed, and the body.
    #[must_use = "check the answer: a setup step that failed must fail the test here"]
    pub async fn post_raw(&self, path: &str, body: String, key: Option<&str>) -> (u16, bool, Value) {
        let mut req = self
            .client
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body);
        if let Some(k) = key {
            req = req.header("idempotency-key", k);
        }
        let resp = req.send().await.expect("request");
        let status = resp.status().as_u16();
        let replayed = resp.headers().get("idempotent-replayed").is_some();
        let text = resp.text().await.unwrap();
        let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("JSON body, got {status} {text}"));
        (status, replayed, v)
    }

    /// `method` with a JSON body; the status and the JSON answer.
    #[must_use = "check the answer: a setup step that failed must fail the test here"]
    pub async fn send_json(&self, method: &str, path: &str, body: Value) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let resp = self
            .client
            .request(m, format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .expect("request");
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// `/metrics`, the Prometheus text.
    pub async fn metrics(&self) -> String {
        let resp = self.client.get(format!("{}/metrics", self.url)).send().await.unwrap();
        resp.text().await.unwrap()
    }

    #[must_use = "check the answer: a setup step that failed must fail the test here"]
    pub async fn get(&self, path: &str) -> (u16, Value) {
        let resp = self
            .client
            .get(format!("{}{path}", self.url))
            .send()
            .await
            .expect("request");
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    /// POST that must succeed (2xx): setup steps, so a failure points at the step itself.
    pub async fn ok(&self, path: &str, body: Value) -> Value {
        let (s, b) = self.post(path, body).await;
        assert!((200..300).contains(&s), "{path}: {s} {b}");
        b
    }

    /// Any method with `Authorization: <bearer>` and an optional JSON body: (status, JSON body
    /// or null).
    pub async fn call_as(&self, bearer: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self
            .client
            .request(method.parse().unwrap(), format!("{}{path}", self.url))
            .header("authorization", bearer);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("request");
        (resp.status().as_u16(), resp.json().await.unwrap_or(Value::Null))
    }

    /// [`Api::call_as`] that must succeed (2xx): its body.
    pub async fn ok_as(&self, bearer: &str, method: &str, path: &str, body: Option<Value>) -> Value {
        let (s, b) = self.call_as(bearer, method, path, body).await;
        assert!((200..300).contains(&s), "{method} {path}: {s} {b}");
        b
    }

    /// POST with `Authorization: <bearer>` that must succeed (2xx).
    pub async fn ok_with(&self, bearer: &str, path: &str, body: Value) -> Value {
        let resp = self
            .client
            .post(format!("{}{path}", self.url))
            .header("content-type", "application/json")
            .header("authorization", bearer)
            .body(body.to_string())
            .send()
            .await
            .expect("request");
        let status = resp.status().as_u16();
        let v: Value = resp.json().await.unwrap_or(Value::Null);
        assert!((200..300).contains(&status), "{path}: {status} {v}");
        v
    }

    pub async fn create_sku(&self, sku: &str, on_hand: i64, buckets: i64) {
        let (s, b) = self
            .post("/v1/skus", json!({"sku": sku, "on_hand": on_hand, "buckets": buckets}))
            .await;
        assert_eq!(s, 201, "{b}");
    }

    pub async fn sku(&self, sku: &str) -> Value {
        let (s, b) = self.get(&format!("/v1/skus/{sku}")).await;
        assert_eq!(s, 200, "{b}");
        b
    }

    pub async fn ledger(&self, sku: &str) -> Vec<Value> {
        let (s, b) = self.get(&format!("/v1/skus/{sku}/ledger?limit=1000")).await;
        assert_eq!(s, 200, "{b}");
        b["entries"].as_array().unwrap().clone()
    }

    /// Wait (bounded, polling every 10 ms) until `cond` holds on the SKU's state.
    pub async fn wait_for_sku(&self, sku: &str, cond: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..1000 {
            let v = self.sku(sku).await;
            if cond(&v) {
                return v;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("sku {sku} never reached the expected state: {}", self.sku(sku).await);
    }

    /// Move the server's clock past the RFC 3339 instant `at` (no sleeping).
    pub fn advance_past(&self, at: &Value) {
        let at: chrono::DateTime<chrono::Utc> = at.as_str().unwrap().parse().unwrap();
        self.clock.advance_past(at);
    }

    /// Audit must be clean.
    pub async fn assert_audit_clean(&self) {
        let (s, b) = self.get("/v1/audit").await;
        assert_eq!(s, 200);
        assert_eq!(b["violations"], json!([]), "audit: {b}");
        assert_eq!(b["job_violations"], json!([]), "audit: {b}");
        assert_eq!(b["booking_overlaps"], json!([]), "audit: {b}");
    }
}

impl TestServer {
    /// Stop the server gracefully (in-flight requests finish); its database stays.
    pub async fn stop(&self) {
        let server = self.server.lock().unwrap().take();
        if let Some(s) = server {
            s.stop().await.unwrap();
        }
    }

    /// Stop the server and drop its schema or file.
    pub async fn finish(self) {
        self.stop().await;
        if let Some(schema) = &self.schema {
            let _ = admin()
                .await
                .batch_execute(&format!(
                    "DROP SCHEMA {schema} CASCADE; DROP SCHEMA IF EXISTS {schema}_allot CASCADE"
                ))
                .await;
        }
        if let Some(f) = &self.file {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", f.display()));
            }
        }
    }
}

/// The conformance matrix: each test body runs against every backend, each backend as its
/// own test (`postgres::name`, `sqlite::name`), on a multi-threaded runtime so the server's
/// tasks and the clients really run in parallel.
///
/// - `conformance!(a, b)`: with the test defaults ([`start`]).
/// - `conformance!(mod group, |c| …; a, b)`: with the server configuration changed by the
///   closure, as `group::postgres::a`, `group::sqlite::a`, ….
#[macro_export]
macro_rules! conformance {
    (keyed mod $group:ident; $($name:ident),* $(,)?) => {
        mod $group {
            $crate::conformance!(@keyed postgres, Postgres, $($name),*);
            $crate::conformance!(@keyed sqlite, Sqlite, $($name),*);
        }
    };
    (@keyed $module:ident, $kind:ident, $($name:ident),*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let ts = $crate::common::start_keyed($crate::common::Kind::$kind).await;
                    super::super::$name(&ts).await;
                    ts.finish().await;
                }
            )*
        }
    };
    (mod $group:ident, $tweak:expr; $($name:ident),* $(,)?) => {
        mod $group {
            $crate::conformance!(@grouped postgres, Postgres, ($tweak), $($name),*);
            $crate::conformance!(@grouped sqlite, Sqlite, ($tweak), $($name),*);
        }
    };
    ($($name:ident),* $(,)?) => {
        $crate::conformance!(@backend postgres, Postgres, (|_| {}), $($name),*);
        $crate::conformance!(@backend sqlite, Sqlite, (|_| {}), $($name),*);
    };
    (@backend $module:ident, $kind:ident, ($tweak:expr), $($name:ident),*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let ts = $crate::common::start_with($crate::common::Kind::$kind, $tweak).await;
                    super::$name(&ts).await;
                    ts.finish().await;
                }
            )*
        }
    };
    (@grouped $module:ident, $kind:ident, ($tweak:expr), $($name:ident),*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let ts = $crate::common::start_with($crate::common::Kind::$kind, $tweak).await;
                    super::super::$name(&ts).await;
                    ts.finish().await;
                }
            )*
        }
    };
}
