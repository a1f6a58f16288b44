//! Opening the file (WAL, pragmas) and the versioned migrations (refinery,
//! `migrations/V*__*.sql`).

use super::config::SqliteConfig;
use super::errors::map_error;
use allot_core::AllotError;

mod embedded {
    refinery::embed_migrations!("migrations");
}

/// Open the file, set WAL mode and pragmas, and run the versioned migrations (refinery)
/// when `cfg.migrate`; without it the file must exist and is never created.
///
/// Errors: `invalid_request` naming the path when it does not exist and may not be made.
pub fn open(cfg: &SqliteConfig) -> Result<rusqlite::Connection, AllotError> {
    let flags = if cfg.migrate {
        rusqlite::OpenFlags::default()
    } else {
        rusqlite::OpenFlags::default() - rusqlite::OpenFlags::SQLITE_OPEN_CREATE
    };
    if !cfg.migrate && !cfg.path.exists() {
        return Err(AllotError::invalid(format!(
            "no database at {}: `allot migrate --database-url sqlite://{}` (or `allot serve`) creates it",
            cfg.path.display(),
            cfg.path.display()
        )));
    }
    let mut conn = rusqlite::Connection::open_with_flags(&cfg.path, flags).map_err(map_error)?;
    conn.busy_timeout(std::time::Duration::from_millis(cfg.busy_timeout_ms))
        .map_err(map_error)?;
    conn.pragma_update(None, "journal_mode", "WAL").map_err(map_error)?;
    // FULL: a commit survives power loss, as a ledger should.
    conn.pragma_update(None, "synchronous", "FULL").map_err(map_error)?;
    // A job discarded because of its dependencies settles its own dependents by the same
    // trigger (V33), which SQLite runs only with recursive triggers on.
    conn.pragma_update(None, "recursive_triggers", "ON")
        .map_err(map_error)?;
    if cfg.migrate {
        embedded::migrations::runner()
            .run(&mut conn)
            .map_err(|e| AllotError::Internal(format!("sqlite migration failed: {e}")))?;
    }
    Ok(conn)
}

/// The schema version of the open database `c` against this build's newest migration.
pub(crate) fn schema_version(c: &rusqlite::Connection) -> Result<allot_core::SchemaVersion, AllotError> {
    let expected = embedded::migrations::runner()
        .get_migrations()
        .iter()
        .map(|m| i64::from(m.version()))
        .max()
        .unwrap_or(0);
    let has_history: bool = c
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'refinery_schema_history')",
            [],
            |r| r.get(0),
        )
        .map_err(map_error)?;
    let applied = if has_history {
        c.query_row("SELECT max(version) FROM refinery_schema_history", [], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .map_err(map_error)?
    } else {
        None
    };
    Ok(allot_core::SchemaVersion {
        applied,
        expected,
        reach: None,
    })
}

/// Run the migrations on the file at `path` and close it.
pub fn migrate(path: &std::path::Path) -> Result<(), AllotError> {
    open(&SqliteConfig::new(path)).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::config::path_from_url;

    #[test]
    fn urls() {
        assert_eq!(
            path_from_url("sqlite://a.db").unwrap(),
            std::path::PathBuf::from("a.db")
        );
        assert_eq!(
            path_from_url("sqlite:///tmp/a.db").unwrap(),
            std::path::PathBuf::from("/tmp/a.db")
        );
        assert!(path_from_url("postgres://x").is_none());
        assert!(path_from_url("sqlite://").is_none());
    }

    /// A database made before tenants (migrations up to V6, rows written as that schema
    /// had them) migrates into the tenant `default`: its SKUs, units (ids and sequence kept),
    /// bookings, jobs and idempotency keys are the default tenant's and no other's, and the
    /// audit is clean.
    #[tokio::test]
    async fn rows_from_before_tenants_belong_to_the_default_tenant() {
        use allot_core::store::*;
        let path = std::env::temp_dir().join(format!("allot-v6-{}.db", uuid::Uuid::new_v4().simple()));
        let mut c = rusqlite::Connection::open(&path).unwrap();
        embedded::migrations::runner()
            .set_target(refinery::Target::Version(6))
            .run(&mut c)
            .unwrap();
        c.execute_batch(
            "INSERT INTO skus (sku, buckets, created_at_us) VALUES ('OLD', 1, 0);
             INSERT INTO stock (sku, bucket, on_hand) VALUES ('OLD', 0, 5);
             INSERT INTO ledger (sku, delta, held_delta, kind, at_us) VALUES ('OLD', 5, 0, 'created', 0);
             INSERT INTO skus (sku, buckets, created_at_us, tracking) VALUES ('U', 1, 0, 'units');
             INSERT INTO units (sku, serial, received_at) VALUES ('U', 'A', 0), ('U', 'B', 0);
             INSERT INTO ledger (sku, delta, held_delta, kind, at_us) VALUES ('U', 2, 0, 'units_received', 0);
             INSERT INTO bookings (id, resource, start_us, end_us, holder, status, strategy, created_at_us)
                  VALUES ('B1', 'R', 0, 10, 'h', 'confirmed', 'serialized', 0);
             INSERT INTO jobs (queue, state, payload, run_at_us, max_attempts, created_at_us)
                  VALUES ('Q', 'available', '{}', 0, 3, 0);
             INSERT INTO idempotency_keys (key, fingerprint, status, body, created_at_us)
                  VALUES ('K', 'f', 201, x'7b7d', 0);",
        )
        .unwrap();
        drop(c);
        let store = crate::SqliteStore::open(&SqliteConfig::new(&path)).unwrap();
        let d = &allot_core::Tenant::default_tenant();
        let old = store.get_sku(d, "OLD").await.unwrap();
        assert_eq!(old.on_hand, 5);
        // Locations (V9): its stock and its ledger are at `default`.
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
        let add = allot_core::AddUnits {
            sku: "U".into(),
            units: vec![allot_core::NewUnit {
                serial: "C".into(),
                location: None,
                lot: None,
                received_at: None,
                expires_at: None,
            }],
            actor: None,
        };
        store.add_units(d, add, None).await.unwrap();
        let claim = allot_core::validate::unit_claim(
            "X1".into(),
            serde_json::from_value(serde_json::json!({"sku": "U", "quantity": 3, "order_by": ["id"]})).unwrap(),
            allot_core::UnitStrategy::Serialized,
            &Default::default(),
        )
        .unwrap();
        let got = store.claim_units(d, claim, None).await.unwrap().fresh().unwrap();
        let ids: Vec<i64> = got.units.iter().map(|u| u.id).collect();
        assert_eq!(ids, vec![1, 2, 3], "unit ids and their sequence survive the rebuild");
        allot_conformance::upgrade::ids_go_on_per_tenant(&store, &[2, 3, 4]).await;
        let report = store.audit(None).await.unwrap();
        assert!(report.is_clean(), "{report:?}");
        assert_eq!(report.skus_checked, 2);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}
