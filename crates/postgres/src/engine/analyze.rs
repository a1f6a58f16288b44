//! When a table's planner statistics are refreshed after rows arrive in bulk.
//!
//! Right after a bulk load the statistics still describe an empty table, and the planner
//! would sort or scan what it should read from the head of an index; autovacuum fixes that
//! only at its next round. So the store runs `ANALYZE` itself once enough rows arrived since
//! the last run. The threshold grows [`ANALYZE_GROWTH`]-fold after every run, from
//! [`FIRST_ANALYZE_ROWS`] to [`MAX_ANALYZE_ROWS`], as autovacuum's own threshold grows with the table
//! (`autovacuum_analyze_scale_factor`, PostgreSQL docs §25.1.6): a steady stream of
//! batches no longer keeps an `ANALYZE` running back to back (13 % of the machine's CPU in
//! a profile of `allot bench queue`), and a store's first thousand rows still bring a run.
//! The gate belongs to the store's process, not to the table: a table emptied and filled
//! again late in a long-lived process waits for the grown threshold (or autovacuum).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Rows that must arrive before the first `ANALYZE` of a store's life.
pub(crate) const FIRST_ANALYZE_ROWS: u64 = 1000;
/// How much the threshold grows after each run.
pub(crate) const ANALYZE_GROWTH: u64 = 4;
/// The threshold stops growing here: at most one `ANALYZE` per this many rows.
pub(crate) const MAX_ANALYZE_ROWS: u64 = 1_000_000;

/// Counts rows arriving in one table and says when to analyze it: one run at a time, after
/// at least the current threshold of rows since the last run.
#[derive(Debug)]
pub(crate) struct AnalyzeGate {
    running: AtomicBool,
    since: AtomicU64,
    threshold: AtomicU64,
}

impl Default for AnalyzeGate {
    fn default() -> Self {
        AnalyzeGate {
            running: AtomicBool::new(false),
            since: AtomicU64::new(0),
            threshold: AtomicU64::new(FIRST_ANALYZE_ROWS),
        }
    }
}

impl AnalyzeGate {
    /// Count `rows` new rows; `true` when the caller should run `ANALYZE` now, and must
    /// then call [`AnalyzeGate::finished`] when it ends.
    pub(crate) fn arrived(&self, rows: u64) -> bool {
        let since = self.since.fetch_add(rows, Ordering::AcqRel) + rows;
        if since < self.threshold.load(Ordering::Acquire) || self.running.swap(true, Ordering::AcqRel) {
            return false;
        }
        // Ours to run, unless a run that ended meanwhile already counted these rows.
        if self.since.load(Ordering::Acquire) < self.threshold.load(Ordering::Acquire) {
            self.running.store(false, Ordering::Release);
            return false;
        }
        self.since.swap(0, Ordering::AcqRel);
        true
    }

    /// The `ANALYZE` that [`AnalyzeGate::arrived`] asked for has ended: the threshold grows
    /// when it `ran`, and stays when it failed (the next rows try again).
    pub(crate) fn finished(&self, ran: bool) {
        if ran {
            let next = (self.threshold.load(Ordering::Acquire) * ANALYZE_GROWTH).min(MAX_ANALYZE_ROWS);
            self.threshold.store(next, Ordering::Release);
        }
        self.running.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_grow_up_to_the_cap_and_runs_do_not_overlap() {
        let gate = AnalyzeGate::default();
        assert!(!gate.arrived(999));
        assert!(gate.arrived(1));
        // Running: more rows wait for it to finish.
        assert!(!gate.arrived(5000));
        gate.finished(true);
        // 5000 rows since the run began ≥ the next threshold, 4000.
        assert!(gate.arrived(0));
        gate.finished(true);
        assert!(!gate.arrived(15_999));
        assert!(gate.arrived(1));
        // A run that failed leaves the threshold (16 000): the next 16 000 rows try again.
        gate.finished(false);
        assert!(!gate.arrived(15_999));
        assert!(gate.arrived(1));
        gate.finished(true);
        for _ in 0..20 {
            assert!(gate.arrived(MAX_ANALYZE_ROWS));
            gate.finished(true);
        }
        assert!(!gate.arrived(MAX_ANALYZE_ROWS - 1));
        assert!(gate.arrived(1));
    }
}
