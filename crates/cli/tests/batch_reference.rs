//! `allot bench batch`'s reference on PostgreSQL: pgbench runs the batch's own write
//! statement and writes exactly what a batch of allocations writes. A run against a server
//! on a schema of its own, then the reference's SKU is checked in the database: every unit it
//! took has one allocation record and one ledger entry, in whole transactions, and the audit
//! stays clean.

#[path = "../../server/tests/common/mod.rs"]
mod common;

use common::{Kind, TestServer};
use serde_json::Value;

/// Allocations per batch, and so per transaction of the reference (under
/// `batch_max_requests`).
const BATCH: i64 = 200;

/// Longest the run (load, the wait for the change feed, one second of pgbench) may take.
const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(300);

/// The reference's SKU, its on hand, its allocation records (one unit each, `batched`,
/// allocated) and its ledger entries (one unit each, each naming one of those records).
async fn reference_rows(ts: &TestServer) -> (String, i64, i64, i64) {
    let (c, conn) = tokio_postgres::connect(&ts.database_url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    let row = c
        .query_one(
            "SELECT s.sku, s.on_hand,
                    (SELECT count(*) FROM allocations a WHERE a.lines->0->>'sku' = s.sku
                        AND a.status = 'allocated' AND a.strategy = 'batched'
                        AND (a.lines->0->>'quantity')::int = 1) AS records,
                    (SELECT count(*) FROM ledger l JOIN allocations a ON a.tenant = l.tenant AND a.id = l.ref
                      WHERE l.sku = s.sku AND l.kind = 'allocation' AND l.delta = -1) AS entries
               FROM stock s WHERE s.sku LIKE 'pgbench-batch-%'",
            &[],
        )
        .await
        .unwrap();
    (row.get(0), row.get(1), row.get(2), row.get(3))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_batch_reference_writes_what_a_batch_writes() {
    assert!(
        allot_bench::pgbench_available(),
        "pgbench is not on the PATH: the reference cannot be tested"
    );
    let ts = common::start(Kind::Postgres).await;
    let json = std::env::temp_dir().join(format!("allot-batch-ref-{}.json", std::process::id()));
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_allot"))
        .args(["bench", "batch", "--url", &ts.url, "--database-url", &ts.database_url])
        .args(["--strategy", "batched", "-n", "1000", "-b", &BATCH.to_string()])
        .args(["--pgbench-seconds", "1", "--json", json.to_str().unwrap()])
        .env("ALLOT_LOG", "warn")
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(RUN_LIMIT, run)
        .await
        .expect("bench batch ran past its limit")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains("the batch's write statement alone (200 allocations per transaction"),
        "{stdout}"
    );
    let reports: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let rate = reports[0]["pgbench_allocations_per_s"].as_f64().unwrap();
    assert!(rate > 0.0, "{reports}");

    let (sku, on_hand, records, entries) = reference_rows(&ts).await;
    let taken = 1_000_000_000 - on_hand;
    assert!(taken > 0 && taken % BATCH == 0, "{sku}: {taken} taken");
    assert_eq!((records, entries), (taken, taken), "{sku}");
    ts.assert_audit_clean().await;
    ts.finish().await;
}
