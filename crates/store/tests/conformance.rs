//! The store conformance suite (`allot-conformance`) on every backend `open` knows: each case
//! gets a fresh PostgreSQL schema (`ALLOT_TEST_DATABASE_URL`) or SQLite file, a `TestClock`
//! and the suite's limits; `postgres::<case>` and `sqlite::<case>` run the same body.
//! `pgbouncer_transaction::<case>` and `pgbouncer_session::<case>` run it again with the pool
//! behind a PgBouncer of the case's own (Debian's 1.18), in each pooling mode, on a database
//! of the case's own (PgBouncer passes no `search_path` option).

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

/// A fresh database reached through a PgBouncer of its own in `mode`: in transaction mode
/// with the database's own address as the direct URL, in session mode without one (which
/// must pass the start-up check for a transaction pooler).
async fn pooled_fixture(mode: allot_bench::PoolMode) -> Fixture {
    let (host, port) = upstream();
    let name = own_database().await;
    let bouncer = allot_bench::PgBouncer::start(mode, (&host, port), 64).expect("pgbouncer");
    let url = bouncer.url(&name);
    let direct =
        (mode == allot_bench::PoolMode::Transaction).then(|| format!("postgres://postgres@{host}:{port}/{name}"));
    let cleanup: Boxed<()> = Box::pin(async move {
        drop(bouncer);
        drop_database(&name).await;
    });
    let clock = Arc::new(TestClock::new());
    let limits = Fixture::limits();
    let opts = allot_store::OpenOptions {
        limits: limits.clone(),
        pool_size: 16,
        clock: clock.clone(),
        direct_url: direct.clone(),
        ..Default::default()
    };
    let store = allot_store::open(&url, &opts).await.expect("open through pgbouncer");
    let reopen = Box::new(move || -> Boxed<Arc<dyn Database>> {
        let (url, direct_url) = (url.clone(), direct.clone());
        Box::pin(async move {
            let opts = allot_store::OpenOptions {
                direct_url,
                ..Default::default()
            };
            allot_store::open(&url, &opts).await.unwrap()
        })
    });
    Fixture::new(store, (clock, limits), reopen, cleanup)
}

mod pgbouncer_transaction {
    allot_conformance::suite!(super::pooled_fixture(allot_bench::PoolMode::Transaction));
}

mod pgbouncer_session {
    allot_conformance::suite!(super::pooled_fixture(allot_bench::PoolMode::Session));
}

mod sqlite {
    allot_conformance::suite!(super::fixture(allot_core::Backend::Sqlite));
}

/// A new, empty database on the test server (a PgBouncer passes no `search_path`, so a
/// pooled case cannot have a schema of its own): its name. Never the shared `postgres`
/// database, whose schema an earlier build may have migrated differently.
async fn own_database() -> String {
    let name = format!("allot_pgb_{}", uuid::Uuid::new_v4().simple());
    admin()
        .await
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap();
    name
}

async fn drop_database(name: &str) {
    let _ = admin()
        .await
        .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        .await;
}

/// The upstream of the test PostgreSQL: its host and port.
fn upstream() -> (String, u16) {
    allot_bench::PgBouncer::upstream_of(&pg_base_url())
}

/// Through a transaction pooler without a direct URL, opening is refused before anything
/// session-scoped ran on it, naming `--direct-database-url`; the same pooler in session mode
/// is taken as the database it leads to.
#[tokio::test]
async fn a_transaction_pooler_without_a_direct_url_is_refused() {
    let (host, port) = upstream();
    let name = own_database().await;
    for (mode, refused) in [
        (allot_bench::PoolMode::Transaction, true),
        (allot_bench::PoolMode::Session, false),
    ] {
        let bouncer = allot_bench::PgBouncer::start(mode, (&host, port), 4).expect("pgbouncer");
        let url = bouncer.url(&name);
        let opened = allot_store::open(&url, &allot_store::OpenOptions::default()).await;
        match (opened, refused) {
            (Err(e), true) => assert!(e.to_string().contains("--direct-database-url"), "{e}"),
            (Ok(_), false) => {}
            (Err(e), _) => panic!("{mode:?}: {e}"),
            (Ok(_), true) => panic!("{mode:?}: opened through a transaction pooler without a direct URL"),
        }
    }
    drop_database(&name).await;
}

/// A session pooler with fewer server connections than allot's pool: a request that would
/// wait inside the pooler for one ends `unavailable` after the pool's wait, and is served once
/// a server connection is free again.
#[tokio::test]
async fn a_full_session_pooler_answers_unavailable_within_the_pool_wait() {
    let (host, port) = upstream();
    let name = own_database().await;
    let bouncer = allot_bench::PgBouncer::start(allot_bench::PoolMode::Session, (&host, port), 2).expect("pgbouncer");
    let url = bouncer.url(&name);
    let opts = allot_store::OpenOptions {
        pool_size: 8,
        pool_wait_ms: 300,
        ..Default::default()
    };
    let store = allot_store::open(&url, &opts).await.expect("open");
    // Two sessions of others hold both server connections.
    let mut others = Vec::new();
    for _ in 0..2 {
        let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        c.simple_query("SELECT 1").await.unwrap();
        others.push(c);
    }
    let tenant = allot_core::Tenant::default_tenant();
    let started = std::time::Instant::now();
    let got = tokio::time::timeout(std::time::Duration::from_secs(20), store.health()).await;
    let waited = started.elapsed();
    match got {
        Ok(Err(allot_core::AllotError::Unavailable(_))) => {}
        other => panic!("expected unavailable, got {other:?} after {waited:?}"),
    }
    assert!(waited < std::time::Duration::from_secs(5), "waited {waited:?}");
    drop(others);
    let served = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            if store
                .get_sku(&tenant, "none")
                .await
                .is_err_and(|e| matches!(e, allot_core::AllotError::NotFound { .. }))
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(served.is_ok(), "never served once the pooler had room");
    drop(store);
    drop(bouncer);
    drop_database(&name).await;
}
