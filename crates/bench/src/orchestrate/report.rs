//! What every `allot bench` run does after its load: print the table, write the figures as
//! JSON, and fail when a safe strategy broke an invariant.

use std::path::Path;

use anyhow::bail;

use crate::compare::CompareRow;
use crate::load::render_load_table;
use crate::load::LoadReport;

/// Write `value` as pretty JSON to `path`, when one was given.
pub fn write_json<T: serde::Serialize + ?Sized>(path: Option<&Path>, value: &T) -> anyhow::Result<()> {
    if let Some(path) = path {
        std::fs::write(path, serde_json::to_vec_pretty(value)?)?;
    }
    Ok(())
}

/// Print `title` and the table of `reports`, write them to `json`, and fail naming every
/// workload and strategy that broke an invariant. `naive` breaks its invariants by design
/// (that is what it is for): reported in the table, not fatal.
pub fn finish_load(title: &str, reports: &[LoadReport], json: Option<&Path>) -> anyhow::Result<()> {
    println!("{title}\n");
    print!("{}", render_load_table(reports));
    write_json(json, reports)?;
    let broken: Vec<String> = reports
        .iter()
        .filter(|r| !r.violations.is_empty() && !allot_core::strategy::is_unsafe_name(&r.strategy))
        .map(|r| format!("{} {}", r.workload, r.strategy))
        .collect();
    if !broken.is_empty() {
        bail!("invariants broken: {}", broken.join(", "));
    }
    Ok(())
}

/// The rows of `bench compare` for load reports (no reference of their own).
pub fn load_rows(reports: &[LoadReport]) -> Vec<CompareRow> {
    reports
        .iter()
        .map(|r| {
            // The table says BROKEN only: which checks failed goes to stderr beside it.
            for v in &r.violations {
                eprintln!("{} {}: invariant broken: {v}", r.workload, r.strategy);
            }
            CompareRow::plain(
                &r.workload,
                &r.strategy,
                (r.requests_per_s, r.latency_us_p99),
                r.violations.is_empty(),
            )
        })
        .collect()
}

/// A comma-separated flag as a list, each item trimmed (strategies: `all`, `default` or names;
/// an empty item stays, for the run to refuse as an unknown strategy).
pub fn comma_list(list: &str) -> Vec<String> {
    list.split(',').map(|s| s.trim().to_string()).collect()
}
