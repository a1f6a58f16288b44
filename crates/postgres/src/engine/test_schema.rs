//! The crate's unit tests that need PostgreSQL run in a schema of their own on the test
//! server (`ALLOT_TEST_DATABASE_URL`, default `postgres://postgres@127.0.0.1:5432/postgres`),
//! dropped at the end: a `TestSchema` makes it and gives the URL that lands in it.

/// A fresh schema on the test PostgreSQL and an admin connection to drop it with.
pub(crate) struct TestSchema {
    /// A connection outside the schema.
    pub(crate) admin: tokio_postgres::Client,
    /// The schema's name.
    pub(crate) name: String,
    /// The test server's URL with `search_path` set to the schema.
    pub(crate) url: String,
}

impl TestSchema {
    /// A new schema named `<prefix>_<pid>_<random>`.
    pub(crate) async fn new(prefix: &str) -> Self {
        let base = std::env::var("ALLOT_TEST_DATABASE_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into());
        let name = format!("{prefix}_{}_{}", std::process::id(), rand::random::<u32>());
        let (admin, conn) = tokio_postgres::connect(&base, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        admin.batch_execute(&format!("CREATE SCHEMA {name}")).await.unwrap();
        let sep = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{sep}options=-csearch_path%3D{name}");
        TestSchema { admin, name, url }
    }

    /// A migrated store on the schema.
    pub(crate) async fn store(&self) -> crate::engine::store::PgStore {
        self.store_with(|_| {}).await
    }

    /// A migrated store on the schema, its configuration changed by `configure` first (a
    /// pool of one connection, a longer wait).
    pub(crate) async fn store_with(
        &self,
        configure: impl FnOnce(&mut crate::engine::config::PgConfig),
    ) -> crate::engine::store::PgStore {
        crate::engine::migrate::migrate(&self.url).await.unwrap();
        let mut cfg = crate::engine::config::PgConfig::new(self.url.clone());
        configure(&mut cfg);
        crate::engine::store::PgStore::connect(&cfg).unwrap()
    }

    /// A session of its own on the schema (outside any pool): to hold a lock, or to watch.
    pub(crate) async fn session(&self) -> tokio_postgres::Client {
        let (c, conn) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        c
    }

    /// A session of its own that has run `sql` (which begins a transaction and takes locks),
    /// and its backend's pid (for [`TestSchema::wait_blocked_by`]); it holds those locks until
    /// it runs `COMMIT` or `ROLLBACK`.
    pub(crate) async fn writer_holding(&self, sql: &str) -> (tokio_postgres::Client, i32) {
        let writer = self.session().await;
        let pid: i32 = writer.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
        writer.batch_execute(sql).await.unwrap();
        (writer, pid)
    }

    /// Wait (bounded, 10 s) until some backend waits on a lock that the backend `pid` holds;
    /// the statement it waits in (`pg_stat_activity` keeps its first 1 kB).
    pub(crate) async fn wait_blocked_by(&self, pid: i32) -> String {
        let watcher = self.session().await;
        for _ in 0..1000 {
            let rows = watcher
                .query(
                    "SELECT query FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
                    &[&pid],
                )
                .await
                .unwrap();
            if let Some(r) = rows.first() {
                return r.get(0);
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        panic!("no backend waited on a lock of backend {pid} within 10 s");
    }

    /// Drop the schema and everything in it, and the schema of its SQL functions (V18).
    pub(crate) async fn drop(self) {
        let sql = format!(
            "DROP SCHEMA {0} CASCADE; DROP SCHEMA IF EXISTS {0}_allot CASCADE",
            self.name
        );
        self.admin.batch_execute(&sql).await.unwrap();
    }
}
