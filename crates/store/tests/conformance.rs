//! The store conformance suite (`allot-conformance`) on every backend `open` knows: each case
//! gets a fresh PostgreSQL schema (`ALLOT_TEST_DATABASE_URL`) or SQLite file, a `TestClock`
//! and the suite's limits; `postgres::<case>` and `sqlite::<case>` run the same body.

use allot_conformance::fixture::Boxed;
use allot_conformance::Fixture;
use allot_core::{Backend, Database, TestClock};
use std::sync::Arc;

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

/// A database of its own for one case: its URL and how to remove it.
async fn database(backend: Backend) -> (String, Boxed<()>) {
    match backend {
        Backend::Postgres => {
            let schema = format!("s_{}", uuid::Uuid::new_v4().simple());
            admin()
                .await
                .batch_execute(&format!("CREATE SCHEMA {schema}"))
                .await
                .unwrap();
            let base = pg_base_url();
            let sep = if base.contains('?') { '&' } else { '?' };
            let url = format!("{base}{sep}options=-csearch_path%3D{schema}");
            let drop = Box::pin(async move {
                let _ = admin()
                    .await
                    .batch_execute(&format!(
                        "DROP SCHEMA {schema} CASCADE; DROP SCHEMA IF EXISTS {schema}_allot CASCADE"
                    ))
                    .await;
            });
            (url, drop)
        }
        Backend::Sqlite => {
            let p = std::env::temp_dir().join(format!("allot-store-{}.db", uuid::Uuid::new_v4().simple()));
            let url = format!("sqlite://{}", p.display());
            let remove = Box::pin(async move {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", p.display()));
                }
            });
            (url, remove)
        }
    }
}

async fn fixture(backend: Backend) -> Fixture {
    let (url, cleanup) = database(backend).await;
    let clock = Arc::new(TestClock::new());
    let limits = Fixture::limits();
    let opts = allot_store::OpenOptions {
        limits: limits.clone(),
        pool_size: 16,
        clock: clock.clone(),
        ..Default::default()
    };
    let store = allot_store::open(&url, &opts).await.expect("open");
    let reopen = Box::new(move || -> Boxed<Arc<dyn Database>> {
        let url = url.clone();
        Box::pin(async move { allot_store::open(&url, &Default::default()).await.unwrap() })
    });
    Fixture::new(store, (clock, limits), reopen, cleanup)
}

mod postgres {
    allot_conformance::suite!(super::fixture(allot_core::Backend::Postgres));
}

mod sqlite {
    allot_conformance::suite!(super::fixture(allot_core::Backend::Sqlite));
}
