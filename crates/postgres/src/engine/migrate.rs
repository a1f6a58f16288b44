//! The versioned migrations (refinery, `migrations/V*__*.sql`), run under a session advisory
//! lock.

use super::errors::map_error;
use crate::engine::conn::Db;
use allot_core::AllotError;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Run the versioned migrations (refinery, `migrations/V*__*.sql`) on `url`. Several
/// instances starting at once are serialised by a session advisory lock.
///
/// Errors: `unavailable` saying what to do when the server cannot be reached or refuses
/// ([`crate::PgTarget::describe`]); `invalid_request` for a bad URL.
pub async fn migrate(url: &str) -> Result<(), AllotError> {
    let (mut client, conn) = crate::engine::connect::PgTarget::parse(url)?.connect().await?;
    let handle = tokio::spawn(async move {
        let _ = conn.await;
    });
    const MIGRATION_LOCK: i64 = 0x616c_6c6f_745f_6d67; // "allot_mg"

    // refinery's `CREATE TABLE IF NOT EXISTS` of its history answers a NOTICE on every start
    // after the first ("already exists, skipping"), which the driver logs: this session asks
    // for warnings and errors only.
    client
        .batch_execute("SET client_min_messages TO warning")
        .await
        .map_err(map_error)?;
    client
        .execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(map_error)?;
    let result = embedded::migrations::runner()
        .run_async(&mut client)
        .await
        .map_err(|e| AllotError::Internal(format!("migration failed: {e}")));
    let _ = client
        .execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK])
        .await;
    drop(client);
    let _ = handle.await;
    result.map(|_| ())
}

/// The newest migration this build carries.
pub(crate) fn expected_version() -> i64 {
    embedded::migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| i64::from(m.version()))
        .max()
        .unwrap_or(0)
}

impl crate::engine::store::PgStore {
    /// The schema version of the database (refinery's history table, resolved through the
    /// connection's `search_path`) against [`expected_version`].
    pub(crate) async fn run_schema_version(&self) -> Result<allot_core::SchemaVersion, AllotError> {
        let c = self.client().await?;
        let has_history: bool = c
            .query_one("SELECT to_regclass('refinery_schema_history') IS NOT NULL", &[])
            .await
            .map_err(map_error)?
            .get(0);
        let applied = if has_history {
            c.query_one("SELECT max(version)::int8 FROM refinery_schema_history", &[])
                .await
                .map_err(map_error)?
                .get(0)
        } else {
            None
        };
        Ok(allot_core::SchemaVersion {
            applied,
            expected: expected_version(),
            reach: crate::engine::pooler::transaction_pooler_seen()
                .then(|| crate::engine::pooler::TRANSACTION_POOLER_ADVICE.to_string()),
        })
    }
}

/// A database made before tenants (migrations up to V8, rows as that schema had them)
/// migrates into the tenant `default`. Against the test PostgreSQL
/// (`ALLOT_TEST_DATABASE_URL`), in a schema of its own.
#[cfg(test)]
mod tenant_migration {
    use allot_core::store::*;

    #[tokio::test]
    async fn rows_from_before_tenants_belong_to_the_default_tenant() {
        let schema = crate::engine::test_schema::TestSchema::new("t_v8").await;
        let url = schema.url.clone();
        let (mut c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        super::embedded::migrations::runner()
            .set_target(refinery::Target::Version(8))
            .run_async(&mut c)
            .await
            .unwrap();
        c.batch_execute(
            "INSERT INTO skus (sku) VALUES ('OLD');
             INSERT INTO stock (sku, bucket, on_hand) VALUES ('OLD', 0, 5);
             INSERT INTO ledger (sku, delta, kind) VALUES ('OLD', 5, 'created');
             INSERT INTO skus (sku, tracking) VALUES ('U', 'units');
             INSERT INTO units (sku, serial, received_at) VALUES ('U', 'A', now()), ('U', 'B', now());
             INSERT INTO ledger (sku, delta, kind) VALUES ('U', 2, 'units_received');
             INSERT INTO bookings (id, resource, during, holder, status, strategy, created_at)
                  VALUES ('B1', 'R', tstzrange(now(), now() + interval '1 hour', '[)'), 'h', 'confirmed', 'exclusion', now());
             INSERT INTO jobs (queue, state, payload, run_at, max_attempts, created_at)
                  VALUES ('Q', 'available', '{}', now(), 3, now());",
        )
        .await
        .unwrap();
        crate::engine::migrate::migrate(&url).await.unwrap();
        let store = crate::engine::store::PgStore::connect(&crate::engine::config::PgConfig::new(url.clone())).unwrap();
        let d = &allot_core::Tenant::default_tenant();
        let old = store.get_sku(d, "OLD").await.unwrap();
        assert_eq!(old.on_hand, 5);
        // Locations (V11): its stock and its ledger are at `default`.
        assert_eq!(old.levels, allot_core::location::levels([("default", 5, 0)]));
        let first_page = allot_core::Page::new(0, 10);
        let ledger = store.ledger(d, "OLD", first_page).await.unwrap().items;
        assert_eq!(ledger[0].location.as_deref(), Some("default"));
        let units_ledger = store.ledger(d, "U", first_page).await.unwrap().items;
        assert_eq!(units_ledger[0].location, None, "a unit-tracked SKU's entries name none");
        assert!(
            store.get_sku(&allot_core::Tenant::stored("acme"), "OLD").await.is_err(),
            "another tenant sees it"
        );
        assert_eq!(store.get_booking(d, "B1").await.unwrap().resource, "R");
        assert_eq!(store.queue_counts(d, "Q").await.unwrap().open(), 1);
        let claim = allot_core::validate::unit_claim(
            "X1".into(),
            serde_json::from_value(serde_json::json!({"sku": "U", "quantity": 2, "order_by": ["id"]})).unwrap(),
            allot_core::UnitStrategy::SkipLocked,
            &Default::default(),
        )
        .unwrap();
        let got = store.claim_units(d, claim, None).await.unwrap().fresh().unwrap();
        assert_eq!(got.units.len(), 2);
        allot_conformance::upgrade::ids_go_on_per_tenant(&store, &[2, 3]).await;
        let report = store.audit(None).await.unwrap();
        assert!(report.is_clean(), "{report:?}");
        assert_eq!(report.skus_checked, 2);
        drop(store);
        schema.drop().await;
    }
}
