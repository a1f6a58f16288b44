//! `allot bench checkout`: what confirming a hold inside the caller's own transaction costs on
//! one hot SKU (PostgreSQL). C clients each run N checkouts: a hold of one unit over HTTP, then
//! an order written with `--work-ms` of work in the caller's transaction, in three ways:
//!
//! - `api`: confirm over HTTP, then the order in a transaction of its own (two systems: the
//!   reference);
//! - `sql_first`: `BEGIN; SELECT allot.confirm_hold(…); INSERT order; work; COMMIT` — the SKU's
//!   row stays locked through the work;
//! - `sql_last`: `BEGIN; INSERT order; work; SELECT allot.confirm_hold(…); COMMIT` — locked
//!   only from the confirm to the commit;
//! - `rust_in`: everything in one transaction from Rust, no hold: `BEGIN; INSERT order; work;`
//!   `allot_postgres::PgStore::allocate_in` (`atomic`, the API's own code path); `COMMIT` —
//!   locked from the allocation to the commit, one system, no HTTP.
//!
//! Then the checks: every checkout confirmed with its order, on hand = stock - N, nothing held,
//! the audit clean.

use crate::error::BenchError;
use crate::load::{drive, error_count, get, post, run_id, LoadReport, Sample};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// Options of `allot bench checkout`.
#[derive(Debug, Clone)]
pub struct CheckoutOptions {
    /// Base URL of a running server (loopback) on `database_url`.
    pub url: String,
    /// The server's PostgreSQL database (the clients' own transactions run there).
    pub database_url: String,
    /// Concurrent clients (C), each with a database connection of its own.
    pub clients: usize,
    /// Checkouts per way (N).
    pub checkouts: u64,
    /// Work inside the caller's transaction, ms (`pg_sleep`: what writing an order's rows
    /// and calling a payment provider's cache would take).
    pub work_ms: u64,
    /// Show progress bars.
    pub progress: bool,
}

/// The ways, in the table's order.
const WAYS: [&str; 4] = ["api", "sql_first", "sql_last", "rust_in"];

/// Run every way on a SKU of its own; one report row each (`strategy` names the way).
pub async fn checkout_bench(opts: &CheckoutOptions) -> Result<Vec<LoadReport>, BenchError> {
    let client = crate::load::client_builder()
        .pool_max_idle_per_host(opts.clients)
        .timeout(Duration::from_secs(60))
        .build()?;
    let run = run_id();
    let orders = format!("allot_bench_orders_{run}");
    let setup = connect(&opts.database_url).await?;
    setup
        .batch_execute(&format!(
            "CREATE TABLE {orders} (id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())"
        ))
        .await
        .map_err(db)?;
    let functions = functions_schema(&setup).await?;
    let store = allot_postgres::PgStore::connect(&allot_postgres::PgConfig::new(opts.database_url.clone()))
        .map_err(|e| BenchError::Setup(format!("store: {e}")))?;
    let store = Arc::new(store);
    let mut reports = Vec::new();
    for way in WAYS {
        let sku = format!("checkout-{run}-{way}");
        crate::load::create_sku(&client, &opts.url, &sku, opts.checkouts as i64).await?;
        let mut sessions = Vec::new();
        for _ in 0..opts.clients.max(1) {
            sessions.push(connect(&opts.database_url).await?);
        }
        let flow = Arc::new(Checkout {
            client: client.clone(),
            base: opts.url.clone(),
            sku: sku.clone(),
            way,
            orders: orders.clone(),
            functions: functions.clone(),
            store: store.clone(),
            work_s: opts.work_ms as f64 / 1000.0,
            sessions: tokio::sync::Mutex::new(sessions),
        });
        let collected = drive(
            &format!("checkout {way}"),
            opts.clients,
            opts.checkouts,
            opts.progress,
            move |i| {
                let flow = flow.clone();
                async move { flow.run(i).await }
            },
        )
        .await?;
        let violations = check(&client, opts, (&sku, way, &orders), &setup, &collected).await?;
        reports.push(LoadReport::new("checkout", way, opts.clients, &collected, violations));
    }
    setup.batch_execute(&format!("DROP TABLE {orders}")).await.map_err(db)?;
    Ok(reports)
}

fn db(e: tokio_postgres::Error) -> BenchError {
    BenchError::Setup(format!("database: {e}"))
}

async fn connect(url: &str) -> Result<tokio_postgres::Client, BenchError> {
    let (c, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.map_err(db)?;
    tokio::spawn(conn);
    Ok(c)
}

/// One way's checkouts: what they need.
struct Checkout {
    client: reqwest::Client,
    base: String,
    sku: String,
    way: &'static str,
    orders: String,
    /// The schema of `allot.confirm_hold`.
    functions: String,
    /// The store `rust_in` allocates through, in the client's transaction.
    store: Arc<allot_postgres::PgStore>,
    work_s: f64,
    /// Idle database sessions (one per client).
    sessions: tokio::sync::Mutex<Vec<tokio_postgres::Client>>,
}

impl Checkout {
    /// Checkout `i`: hold one unit, then confirm it and write order `i` as the way says
    /// (`rust_in`: no hold, one allocation in the order's transaction).
    async fn run(&self, i: u64) -> Sample {
        if self.way == "rust_in" {
            let Some(mut session) = self.sessions.lock().await.pop() else {
                return outcome("client_error: no session".into());
            };
            let done = self.allocate_in(&mut session, i).await;
            self.sessions.lock().await.push(session);
            return done.map_or_else(outcome, |()| ok());
        }
        let body = json!({"lines": [{"sku": self.sku, "quantity": 1}], "ttl_ms": 600_000});
        let hold = match post(&self.client, &format!("{}/v1/holds", self.base), &body).await {
            Ok((201, h)) => h,
            Ok((s, b)) => return outcome(format!("hold:{}", crate::load::outcome_of(s, &b, 201))),
            Err(e) => return outcome(format!("client_error: {e}")),
        };
        let id = hold["id"].as_str().unwrap_or_default().to_string();
        let Some(mut session) = self.sessions.lock().await.pop() else {
            return outcome("client_error: no session".into());
        };
        let done = self.finish(&mut session, &id, i).await;
        self.sessions.lock().await.push(session);
        done.map_or_else(outcome, |()| ok())
    }

    /// `rust_in`'s checkout `i`: the order, its work and one unit of the SKU allocated by
    /// `allocate_in`, in one transaction.
    async fn allocate_in(&self, c: &mut tokio_postgres::Client, i: u64) -> Result<(), String> {
        let e = |e: tokio_postgres::Error| format!("sql: {}", e.code().map_or("?", |c| c.code()));
        let body = json!({"lines": [{"sku": self.sku, "quantity": 1}]});
        let body = serde_json::from_value(body).map_err(|e| format!("client_error: {e}"))?;
        let limits = allot_core::Limits::default();
        let req = allot_core::validate::allocation(format!("rust_in-{i}"), body, allot_core::Strategy::Atomic, &limits)
            .map_err(|e| format!("invalid: {}", e.code()))?;
        let mut tx = c.transaction().await.map_err(e)?;
        let order = format!("INSERT INTO {} (id) VALUES ('{}-{i}')", self.orders, self.way);
        tx.batch_execute(&format!("{order}; SELECT pg_sleep({})", self.work_s))
            .await
            .map_err(e)?;
        let tenant = allot_core::Tenant::default_tenant();
        self.store
            .allocate_in(&mut tx, &tenant, req, None)
            .await
            .map_err(|e| format!("allocate_in:{}", e.code()))?;
        tx.commit().await.map_err(e)
    }

    /// Confirm hold `id` and write order `i` the way's way.
    async fn finish(&self, c: &mut tokio_postgres::Client, id: &str, i: u64) -> Result<(), String> {
        let order = format!("INSERT INTO {} (id) VALUES ('{}-{i}')", self.orders, self.way);
        let work = format!("SELECT pg_sleep({})", self.work_s);
        let confirm = format!("SELECT {}.confirm_hold($1)", self.functions);
        let e = |e: tokio_postgres::Error| format!("sql: {}", e.code().map_or("?", |c| c.code()));
        if self.way == "api" {
            let url = format!("{}/v1/holds/{id}/confirm", self.base);
            match post(&self.client, &url, &json!({})).await {
                Ok((200, _)) => {}
                Ok((s, b)) => return Err(format!("confirm:{}", crate::load::outcome_of(s, &b, 200))),
                Err(e) => return Err(format!("client_error: {e}")),
            }
        }
        let tx = c.transaction().await.map_err(e)?;
        if self.way == "sql_first" {
            tx.query_one(&confirm, &[&id]).await.map_err(e)?;
        }
        tx.batch_execute(&format!("{order}; {work}")).await.map_err(e)?;
        if self.way == "sql_last" {
            tx.query_one(&confirm, &[&id]).await.map_err(e)?;
        }
        tx.commit().await.map_err(e)
    }
}

fn ok() -> Sample {
    Sample {
        outcome: "ok".into(),
        quantity: 1,
        requested: 1,
        ids: Vec::new(),
    }
}

fn outcome(outcome: String) -> Sample {
    Sample {
        outcome,
        requested: 1,
        ..Sample::default()
    }
}

/// The schema of `allot.confirm_hold` as the migrations installed it for the session's
/// schema (`allot` beside `public`, else `<schema>_allot`).
async fn functions_schema(c: &tokio_postgres::Client) -> Result<String, BenchError> {
    let row = c
        .query_one(
            "SELECT CASE current_schema() WHEN 'public' THEN 'allot' ELSE current_schema() || '_allot' END",
            &[],
        )
        .await
        .map_err(db)?;
    Ok(row.get(0))
}

/// After a way's checkouts: no errors, every order written, on hand = stock - N, nothing
/// held, the audit clean for the SKU.
async fn check(
    client: &reqwest::Client,
    opts: &CheckoutOptions,
    (sku, way, orders): (&str, &str, &str),
    setup: &tokio_postgres::Client,
    collected: &crate::load::Collected,
) -> Result<Vec<String>, BenchError> {
    let mut violations = Vec::new();
    let errors =
        error_count(&collected.outcomes) + collected.outcomes.iter().filter(|(k, _)| *k != "ok").count() as u64;
    if errors > 0 {
        violations.push(format!("checkouts that failed: {:?}", collected.outcomes));
    }
    let written: i64 = setup
        .query_one(
            &format!("SELECT count(*) FROM {orders} WHERE id LIKE $1"),
            &[&format!("{way}-%")],
        )
        .await
        .map_err(db)?
        .get(0);
    let ok = collected.outcomes.get("ok").copied().unwrap_or(0) as i64;
    if written != ok {
        violations.push(format!("{written} orders for {ok} checkouts"));
    }
    let v = get(client, &format!("{}/v1/skus/{sku}", opts.url)).await?;
    let (on_hand, held) = (v["on_hand"].as_i64().unwrap_or(-1), v["held"].as_i64().unwrap_or(-1));
    if on_hand != opts.checkouts as i64 - ok || held != 0 {
        violations.push(format!("on_hand {on_hand}, held {held} after {ok} checkouts"));
    }
    if !crate::load::audit_clean_for(client, &opts.url, sku).await? {
        violations.push("audit found violations".into());
    }
    Ok(violations)
}
