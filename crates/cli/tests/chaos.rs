//! `allot chaos`, short and bounded: every scenario (SQLite SIGKILL, PostgreSQL fast and
//! immediate restarts, allot SIGKILLed mid-batch, failover to a synchronous standby, by hand
//! and by Patroni (etcd, two nodes, HAProxy on Patroni's health check) — on
//! clusters the suite makes on free ports) with its checkers; the
//! command must exit 0 and report every scenario `ok`, nothing lost, nothing applied twice.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

/// The two tests take turns: the fault suite kills, restarts and fails over PostgreSQL
/// clusters (initdb, pg_basebackup) on the same few cores, and a soak sampled beside it
/// measures that work, not its own (its p99 jumped five-fold in one interval).
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fault_scenario_passes_its_checkers() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let out = tokio::time::timeout(
        std::time::Duration::from_secs(600),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_allot"))
            .args(["chaos", "--scenario", "all", "-c", "8", "-n", "600"])
            .output(),
    )
    .await
    .expect("bounded")
    .expect("allot chaos runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for scenario in [
        "sqlite-kill",
        "pg-restart-fast",
        "pg-restart-immediate",
        "pg-kill-allot",
        "pg-failover",
        "pg-haproxy",
        "pg-patroni",
        "redis-restart",
        "redis-flushall",
    ] {
        let row = table
            .lines()
            .find(|l| l.starts_with(&format!("| {scenario} |")))
            .unwrap_or_else(|| panic!("no row for {scenario}: {table}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | scenario | operations | acknowledged | 503 | unanswered | recovery ms | lost | applied twice | checks |
        assert_eq!(cells[1], scenario);
        assert_eq!(cells[2], "600", "{row}");
        assert_eq!((cells[7], cells[8], cells[9]), ("0", "0", "ok"), "{row}");
    }
    assert!(table.contains("through HAProxy by instances: 1: "), "{table}");
    // The mixed workload's table: every scenario sent unit claims, bookings and jobs through
    // its fault; nothing handed out twice, no job lost (its checkers' findings are in `checks`).
    let mixed = table.split("Mixed workload").nth(1).expect("the mixed table");
    let mut rows = 0;
    for row in mixed
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| scenario"))
    {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // | scenario | unit claims | units twice | bookings won | refused | enqueued | completed | pending | lost |
        assert_eq!((cells[3], cells[9]), ("0", "0"), "{row}");
        assert_eq!(cells[2], "100", "every unit claim applied: {row}");
        assert_eq!(cells[6], "100", "every enqueue applied: {row}");
        rows += 1;
    }
    assert_eq!(rows, 9, "{mixed}");
}

/// The soak, a few seconds of it: every interval answers requests, and memory, descriptors
/// and p99 stay flat.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_soak_stays_flat() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let out = tokio::time::timeout(
        std::time::Duration::from_secs(300),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_allot"))
            .args([
                "chaos",
                "--scenario",
                "soak",
                "--duration-s",
                "6",
                "--sample-s",
                "2",
                "-c",
                "8",
            ])
            .output(),
    )
    .await
    .expect("bounded")
    .expect("allot chaos runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(table.contains("soak: flat"), "{table}");
    assert!(
        table
            .lines()
            .filter(|l| l.starts_with("| ") && !l.starts_with("| at"))
            .count()
            >= 3,
        "{table}"
    );
}
