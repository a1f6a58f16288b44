//! The cost gate: this build's rows against a committed baseline (`bench/cost-baseline.json`,
//! written by `allot bench cost --write-baseline`). A path fails on a rise of more than
//! [`INSTRUCTIONS_SHARE`] in instructions per operation, of more than [`ALLOCATION_SLACK`]
//! heap allocations per operation, of more than [`COUNT_SLACK`] in statements, round trips
//! or rows written per operation (any rise beyond the timing's noise), or of more than
//! [`WAL_BYTES_SHARE`] in WAL bytes (a record's length follows the values it carries: ids
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

/// Instructions per operation may rise by this share of the baseline's before it is a rise.
pub const INSTRUCTIONS_SHARE: f64 = 0.03;

/// WAL bytes per operation may rise by this share of the baseline's before it is a rise.
pub const WAL_BYTES_SHARE: f64 = 0.01;

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

/// Heap allocations per operation may rise by this many before it is a rise: one allocation
/// more per request fails. Two runs of one build now agree within 0.02 per operation on
/// every path (debug, 400 operations, 2026-11-29), since the bench sends every request on
/// one connection and every background task, the metrics upkeep included, follows its
/// hour-long interval; before, a path moved by up to 2 (`job`, 270.5 → 272.6).
const ALLOCATION_SLACK: f64 = 0.5;

/// How the floors' rows are named (`floor: …`): the gate leaves them out.
pub const FLOOR: &str = "floor:";

/// Compare `rows` with `base`, path by path (a path missing on either side is skipped).
pub fn check(base: &Baseline, rows: &[CostRow]) -> Verdict {
    let mut v = Verdict::default();
    // The floors are the references (a no-op handler, SQL by hand): how PostgreSQL lays out
    // their rows moves their WAL by a few bytes, and no change of allot's moves them.
    for r in rows.iter().filter(|r| !r.path.starts_with(FLOOR)) {
        let Some(b) = base.rows.iter().find(|b| b.path == r.path) else {
            continue;
        };
        let path = r.path.as_str();
        if let (Some(was), Some(now)) = (b.instructions_per_op, r.instructions_per_op) {
            v.relative(path, "instructions", (was, now), INSTRUCTIONS_SHARE);
        }
        if let (Some(was), Some(now)) = (b.allocations_per_op, r.allocations_per_op) {
            v.absolute(path, "heap allocations", (was, now), ALLOCATION_SLACK);
        }
        v.relative(
            path,
            "WAL bytes",
            (b.wal_bytes_per_op, r.wal_bytes_per_op),
            WAL_BYTES_SHARE,
        );
        v.absolute(
            path,
            "statements",
            (b.statements_per_op, r.statements_per_op),
            COUNT_SLACK,
        );
        v.absolute(
            path,
            "round trips",
            (b.round_trips_per_op, r.round_trips_per_op),
            COUNT_SLACK,
        );
        v.absolute(
            path,
            "rows written",
            (b.rows_written_per_op, r.rows_written_per_op),
            COUNT_SLACK,
        );
    }
    v
}

impl Verdict {
    /// A rise of more than `limit` (a fraction of `was`) fails; a fall as large improves.
    fn relative(&mut self, path: &str, name: &str, (was, now): (f64, f64), limit: f64) {
        let change = if was > 0.0 { now / was - 1.0 } else { 0.0 };
        let line = format!(
            "{path}: {name} {was:.0} → {now:.0} per operation ({:+.1} %)",
            change * 100.0
        );
        if change > limit {
            self.failures.push(line);
        } else if change < -limit {
            self.improvements.push(line);
        }
    }

    /// A rise of more than `slack` (per operation) fails; a fall as large improves.
    fn absolute(&mut self, path: &str, name: &str, (was, now): (f64, f64), slack: f64) {
        let line = format!("{path}: {name} {was:.2} → {now:.2} per operation");
        if now > was + slack {
            self.failures.push(line);
        } else if now < was - slack {
            self.improvements.push(line);
        }
    }
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

    /// 2 % more instructions passes, 4 % fails; one statement or one allocation more per
    /// operation fails, a fifth of one (within the noise) passes; fewer of either is an
    /// improvement, not a failure.
    #[test]
    fn rises_fail_and_falls_pass() {
        let base = Baseline {
            profile: "release".into(),
            ops: 100,
            rows: vec![row(100_000.0, 4.0)],
        };
        assert!(check(&base, &[row(102_000.0, 4.0)]).failures.is_empty());
        assert_eq!(check(&base, &[row(104_000.0, 4.0)]).failures.len(), 1);
        assert_eq!(check(&base, &[row(100_000.0, 5.0)]).failures.len(), 1);
        let mut one_more = row(100_000.0, 4.0);
        one_more.allocations_per_op = Some(101.0);
        assert_eq!(check(&base, &[one_more]).failures.len(), 1);
        let mut noise = row(100_000.0, 4.0);
        noise.allocations_per_op = Some(100.2);
        assert!(check(&base, &[noise]).failures.is_empty());
        let better = check(&base, &[row(50_000.0, 3.0)]);
        assert!(better.failures.is_empty());
        assert_eq!(better.improvements.len(), 2);
    }
}
