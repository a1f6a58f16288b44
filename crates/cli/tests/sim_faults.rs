//! `allot sim --faults`, short and bounded: two seeds of clients on two instances over a
//! PostgreSQL cluster the run makes on a free port, every fault injected once per seed, the
//! heal phase, and every check (linearizable histories, the books, the audit) passing.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_faults_phase_passes_its_checks() {
    let out = tokio::time::timeout(
        std::time::Duration::from_secs(300),
        tokio::process::Command::new(env!("CARGO_BIN_EXE_allot"))
            .args(["sim", "--faults", "--seed", "1", "--seeds", "2", "--clients", "6"])
            // Past the bound, the run (its cluster, its instances) goes with the test.
            .kill_on_drop(true)
            .output(),
    )
    .await
    .expect("bounded")
    .expect("allot sim --faults runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seeds: Vec<&str> = report.lines().filter(|l| l.starts_with("faults seed")).collect();
    assert_eq!(seeds.len(), 2, "{report}");
    for line in seeds {
        // 3 SKUs and 40 jobs: 43 histories, each linearizable.
        assert!(line.ends_with("43 histories linearizable"), "{line}");
    }
    // Each seed injected its seven faults (three on PostgreSQL, a Redis flush, two SIGKILLs,
    // a clock jump: libfaketime is installed where the tests run), none FAILED.
    assert_eq!(report.matches("  fault: ").count(), 14, "{report}");
    assert_eq!(report.matches("clock jump of").count(), 2, "{report}");
    assert!(!report.contains("FAILED") && !report.contains("VIOLATION"), "{report}");
}
