//! When the database is down every request is `503 unavailable` (with Retry-After), never a
//! 500, and `/healthz` says so.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

use allot_server::{router, AppState, ServerConfig};
use std::sync::Arc;

#[tokio::test]
async fn postgres_down_is_503() {
    // Nothing listens on port 1 of loopback; the pool connects lazily.
    let url = "postgres://postgres@127.0.0.1:1/postgres";
    let mut pg = allot_postgres::PgConfig::new(url);
    pg.pool_wait_ms = 500;
    let store = allot_postgres::PgStore::connect(&pg).unwrap();
    let cfg = ServerConfig {
        database_url: url.into(),
        ..ServerConfig::default()
    };
    let app = axum::ServiceExt::<axum::extract::Request>::into_make_service(router(Arc::new(
        AppState::new(Arc::new(store), &cfg).unwrap(),
    )));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let client = reqwest::Client::new();

    let r = client.get(format!("http://{addr}/healthz")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 503);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["status"], "unavailable");

    let r = client
        .post(format!("http://{addr}/v1/allocations"))
        .json(&serde_json::json!({"lines": [{"sku": "A", "quantity": 1}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 503);
    assert!(r.headers().get("retry-after").is_some());
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unavailable");
}

#[tokio::test]
async fn unreachable_database_fails_startup_cleanly() {
    let cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: "postgres://postgres@127.0.0.1:1/postgres".into(),
        ..ServerConfig::default()
    };
    let err = allot_server::spawn(&cfg)
        .await
        .err()
        .expect("no server without a database");
    assert_eq!(err.0.code(), "unavailable");
    let cfg = ServerConfig {
        database_url: "mysql://x".into(),
        ..cfg
    };
    assert_eq!(
        allot_server::spawn(&cfg).await.err().unwrap().0.code(),
        "invalid_request"
    );
}

#[tokio::test]
async fn default_strategy_must_fit_backend() {
    let p = std::env::temp_dir().join(format!("allot-test-{}.db", uuid::Uuid::new_v4().simple()));
    let cfg = ServerConfig {
        listen: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}", p.display()),
        default_strategy: Some(allot_core::Strategy::Atomic),
        ..ServerConfig::default()
    };
    let err = allot_server::spawn(&cfg)
        .await
        .err()
        .expect("atomic is PostgreSQL-only");
    assert_eq!(err.0.code(), "unsupported_strategy");
    let _ = std::fs::remove_file(&p);
}
