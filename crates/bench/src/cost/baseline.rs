//! The cost gate: this build's rows against a committed baseline (`bench/cost-baseline.json`,
//! written by `allot bench cost --write-baseline`). A path fails on a rise of more than
//! [`Limits::instructions`] in instructions or allocations per operation, or on any rise in
//! statements, round trips or rows written per operation, or of more than
//! [`Limits::wal_bytes`] in WAL bytes (a record's length follows the values it carries: ids
//! and cursors grow by a digit now and then). A fall passes, and says the baseline can be
//! lowered.

use super::CostRow;

/// The baseline file: the rows, and the build profile they were counted on (a debug build
/// executes several times the instructions of a release build: they never compare).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    /// `debug` or `release`.
    pub profile: String,
    /// Operations per path it was counted with.
    pub ops: u64,
    /// What each path cost.
    pub rows: Vec<CostRow>,
}

/// How much a count may rise before the gate fails, as a fraction of the baseline's.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Instructions and heap allocations per operation (3 %).
    pub instructions: f64,
    /// WAL bytes per operation (1 %).
    pub wal_bytes: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            instructions: 0.03,
            wal_bytes: 0.01,
        }
    }
}

/// How far statements, round trips and rows written per operation may move before it is a
/// rise or a fall: a statement more every 20 operations. Less is noise, not a change: the
/// `batched` lanes (the batch API's, and `batched` allocations) coalesce whatever waits when
/// they run, so how many transactions carry a window's operations follows the timing (up to
/// 0.04 per operation between runs, seen); the access cache re-reads the keys every 2 s.
const COUNT_SLACK: f64 = 0.05;

/// What the gate found.
#[derive(Debug, Default)]
pub struct Verdict {
    /// Rises past the limits, one line each.
    pub failures: Vec<String>,
    /// Falls worth lowering the baseline for, one line each.
    pub improvements: Vec<String>,
}

/// Compare `rows` with `base`, path by path (a path missing on either side is skipped).
pub fn check(base: &Baseline, rows: &[CostRow], limits: Limits) -> Verdict {
    let mut v = Verdict::default();
    for r in rows {
        let Some(b) = base.rows.iter().find(|b| b.path == r.path) else {
            continue;
        };
        let rel = |name: &str, was: Option<f64>, now: Option<f64>, limit: f64, v: &mut Verdict| {
            if let (Some(was), Some(now)) = (was, now) {
                let change = if was > 0.0 { now / was - 1.0 } else { 0.0 };
                let line = format!(
                    "{}: {name} {was:.0} → {now:.0} per operation ({:+.1} %)",
                    r.path,
                    change * 100.0
                );
                if change > limit {
                    v.failures.push(line);
                } else if change < -limit {
                    v.improvements.push(line);
                }
            }
        };
        rel(
            "instructions",
            b.instructions_per_op,
            r.instructions_per_op,
            limits.instructions,
            &mut v,
        );
        rel(
            "heap allocations",
            b.allocations_per_op,
            r.allocations_per_op,
            limits.instructions,
            &mut v,
        );
        rel(
            "WAL bytes",
            Some(b.wal_bytes_per_op),
            Some(r.wal_bytes_per_op),
            limits.wal_bytes,
            &mut v,
        );
        for (name, was, now) in [
            ("statements", b.statements_per_op, r.statements_per_op),
            ("round trips", b.round_trips_per_op, r.round_trips_per_op),
            ("rows written", b.rows_written_per_op, r.rows_written_per_op),
        ] {
            let line = format!("{}: {name} {was:.2} → {now:.2} per operation", r.path);
            if now > was + COUNT_SLACK {
                v.failures.push(line);
            } else if now < was - COUNT_SLACK {
                v.improvements.push(line);
            }
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(instructions: f64, statements: f64) -> CostRow {
        CostRow {
            path: "atomic".into(),
            about: String::new(),
            ops: 100,
            requests_per_op: 1.0,
            instructions_per_op: Some(instructions),
            allocations_per_op: Some(100.0),
            statements_per_op: statements,
            round_trips_per_op: 3.0,
            wal_bytes_per_op: 500.0,
            rows_written_per_op: 3.0,
        }
    }

    /// 2 % more instructions passes, 4 % fails; one statement more per operation fails; fewer
    /// of either is an improvement, not a failure.
    #[test]
    fn rises_fail_and_falls_pass() {
        let base = Baseline {
            profile: "release".into(),
            ops: 100,
            rows: vec![row(100_000.0, 4.0)],
        };
        let limits = Limits::default();
        assert!(check(&base, &[row(102_000.0, 4.0)], limits).failures.is_empty());
        assert_eq!(check(&base, &[row(104_000.0, 4.0)], limits).failures.len(), 1);
        assert_eq!(check(&base, &[row(100_000.0, 5.0)], limits).failures.len(), 1);
        let better = check(&base, &[row(50_000.0, 3.0)], limits);
        assert!(better.failures.is_empty());
        assert_eq!(better.improvements.len(), 2);
    }
}
