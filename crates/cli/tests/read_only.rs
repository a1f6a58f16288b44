//! Commands that only read (`allot audit`, `allot keys list`) never create or migrate a
//! database, and every command says what to do when the database is missing, empty or
//! unreachable (the exit code is not 0, the file or schema stays as it was).

#[path = "../../server/tests/common/mod.rs"]
mod common;

use std::process::Command;

/// Run `allot ARGS`; (exit code, stdout, stderr).
fn allot(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_allot"))
        .args(args)
        .env_remove("ALLOT_DATABASE_URL")
        .env_remove("ALLOT_CONFIG")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_missing_sqlite_file_is_not_created() {
    let dir = std::env::temp_dir().join(format!("allot-ro-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("typo.db");
    let url = format!("sqlite://{}", path.display());
    for args in [
        vec!["audit", "--database-url", &url],
        vec!["keys", "list", "--database-url", &url],
    ] {
        let (code, _, err) = allot(&args);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(
            err.contains("no database at") && err.contains("allot migrate"),
            "{args:?}: {err}"
        );
        assert!(!path.exists(), "{args:?} created {}", path.display());
    }
    let (code, _, err) = allot(&["migrate", "--database-url", &url]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = allot(&["audit", "--database-url", &url]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("audit: 0 SKUs"), "{out}");
    assert!(
        !err.contains("refinery") && !err.contains("applying migration"),
        "migration lines: {err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_empty_postgres_schema_is_not_migrated() {
    let (url, schema) = common::fresh_pg_url().await;
    let (code, _, err) = allot(&["audit", "--database-url", &url]);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("has no allot schema"), "{err}");
    let tables: i64 = common::admin()
        .await
        .query_one(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1",
            &[&schema],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(tables, 0, "the audit made tables");
    let (code, _, err) = allot(&["migrate", "--database-url", &url]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = allot(&["keys", "list", "--database-url", &url]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    common::admin()
        .await
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .await
        .unwrap();
}

#[test]
fn a_missing_postgres_database_is_named_with_the_command_that_makes_it() {
    let base = common::pg_base_url();
    let (head, _) = base.rsplit_once('/').unwrap();
    let url = format!("{head}/allot_no_such_database_7c2a");
    for args in [
        vec!["audit", "--database-url", &url],
        vec!["migrate", "--database-url", &url],
    ] {
        let (code, _, err) = allot(&args);
        assert_ne!(code, 0, "{args:?}: {err}");
        assert!(
            err.contains("database \"allot_no_such_database_7c2a\" does not exist") && err.contains("createdb"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("SQLSTATE 3D000: db error"), "{err}");
    }
}
