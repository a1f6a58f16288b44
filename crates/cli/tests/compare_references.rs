//! `allot bench compare`'s references of the queue and the batch API: graphile-worker (npm,
//! pinned under `bench/peers/graphile-worker`) runs beside allot's worker pool on fresh
//! databases, one row per mode with the peer as its reference, and the fresh databases are
//! gone afterwards; the batch API's row has pgbench (the batch's own write statement) as
//! its reference.

#[path = "../../server/tests/common/mod.rs"]
mod common;

use serde_json::Value;

/// Longest the run may take (`npm ci` on first use, eight runs of 2000 jobs, 1000
/// allocations in one batch and a second of pgbench).
const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Fail unless pgbench, Node.js and npm are on the PATH: without them the references
/// cannot run (`scripts/test` installs them).
fn assert_tools() {
    assert!(
        allot_bench::pgbench_available(),
        "pgbench is not on the PATH: the batch API's reference cannot be tested"
    );
    for tool in ["node", "npm"] {
        assert!(
            allot_bench::tool_available(tool),
            "{tool} is not on the PATH: the queue's peer cannot be tested"
        );
    }
}

/// Run `bench compare` of the queue and the batch API on `url`, small and bounded: its
/// process id, its rows (compare.json) and its stderr.
async fn run_compare(url: &str) -> (u32, Value, String) {
    let out_dir = std::env::temp_dir().join(format!("allot-compare-refs-{}", std::process::id()));
    let peers = concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/peers");
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_allot"))
        .args(["bench", "compare", "--database-url", url, "--workloads", "queue,batch"])
        .args(["--jobs", "2000", "--peer-rounds", "1", "--peers-dir", peers])
        .args(["-n", "100", "--pgbench-seconds", "1", "--out"])
        .arg(&out_dir)
        .env("ALLOT_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let out = tokio::time::timeout(RUN_LIMIT, child.wait_with_output())
        .await
        .expect("bench compare ran past its limit")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{stderr}");
    let rows: Value = serde_json::from_slice(&std::fs::read(out_dir.join("compare.json")).unwrap()).unwrap();
    let _ = std::fs::remove_dir_all(&out_dir);
    (pid, rows, stderr)
}

/// The rows of compare.json whose `field` is `value`.
fn rows_where<'a>(rows: &'a Value, field: &str, value: &str) -> Vec<&'a Value> {
    rows.as_array().unwrap().iter().filter(|r| r[field] == value).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_queue_peer_and_the_batch_reference_stand_beside_their_rows() {
    assert_tools();
    let (url, schema) = common::fresh_pg_url().await;
    let (pid, rows, stderr) = run_compare(&url).await;
    let peer_rows = rows_where(&rows, "reference", "graphile-worker");
    let modes: Vec<&str> = peer_rows.iter().map(|r| r["strategy"].as_str().unwrap()).collect();
    assert_eq!(
        modes,
        [
            "skip_locked, the peer's shape, both at once",
            "skip_locked, the peer's shape, enqueue first"
        ],
        "{rows}\n{stderr}"
    );
    for r in &peer_rows {
        assert_eq!(r["workload"], "queue", "{r}");
        assert_eq!(r["invariants_ok"], true, "{r}");
        assert!(r["ops_per_s"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["pgbench_tps"].as_f64().unwrap() > 0.0, "{r}");
    }
    let batch = rows_where(&rows, "workload", "batch");
    assert_eq!(batch.len(), 1, "{rows}");
    assert_eq!(
        batch[0]["strategy"], "batched, one connection, 1000 per batch",
        "{rows}"
    );
    assert_eq!(batch[0]["reference"], "pgbench", "{rows}\n{stderr}");
    assert_eq!(batch[0]["invariants_ok"], true, "{rows}");
    assert!(batch[0]["pgbench_tps"].as_f64().unwrap() > 0.0, "{rows}");
    let admin = common::admin().await;
    let left: i64 = admin
        .query_one(
            "SELECT count(*) FROM pg_database WHERE datname LIKE 'allot_peer_%' AND datname LIKE $1",
            &[&format!("%\\_{pid}\\_%")],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0, "fresh databases of the run left behind");
    admin
        .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
        .await
        .unwrap();
}
