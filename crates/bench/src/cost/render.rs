//! The cost table, as Markdown.

use super::CostRow;

/// One row per path and floor: every count per operation.
pub fn render_table(rows: &[CostRow]) -> String {
    let mut out = String::from(
        "| path | one operation | ops | requests | server instructions | heap allocations | statements | round trips | WAL bytes | rows written |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        let opt = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{v:.0}"));
        out.push_str(&format!(
            "| {} | {} | {} | {:.2} | {} | {} | {:.2} | {:.2} | {:.0} | {:.2} |\n",
            r.path,
            r.about,
            r.ops,
            r.requests_per_op,
            opt(r.instructions_per_op),
            opt(r.allocations_per_op),
            r.statements_per_op,
            r.round_trips_per_op,
            r.wal_bytes_per_op,
            r.rows_written_per_op
        ));
    }
    out
}

/// Two builds' rows side by side: each count of `head` over `base`'s, path by path.
pub fn render_versus(base: &[CostRow], head: &[CostRow], base_name: &str) -> String {
    let mut out = format!(
        "| path | instructions {base_name} | instructions this build | this / {base_name} | allocations {base_name} | allocations this build | statements {base_name} → this | round trips {base_name} → this | WAL bytes {base_name} → this |\n\
         |---|---:|---:|---:|---:|---:|---|---|---|\n"
    );
    for h in head {
        let Some(b) = base.iter().find(|b| b.path == h.path) else {
            continue;
        };
        let opt = |x: Option<f64>| x.map_or_else(|| "-".to_string(), |v| format!("{v:.0}"));
        let ratio = b
            .instructions_per_op
            .zip(h.instructions_per_op)
            .filter(|(b, _)| *b > 0.0)
            .map_or_else(|| "-".to_string(), |(b, h)| format!("{:.2}", h / b));
        out.push_str(&format!(
            "| {} | {} | {} | {ratio} | {} | {} | {:.2} → {:.2} | {:.2} → {:.2} | {:.0} → {:.0} |\n",
            h.path,
            opt(b.instructions_per_op),
            opt(h.instructions_per_op),
            opt(b.allocations_per_op),
            opt(h.allocations_per_op),
            b.statements_per_op,
            h.statements_per_op,
            b.round_trips_per_op,
            h.round_trips_per_op,
            b.wal_bytes_per_op,
            h.wal_bytes_per_op
        ));
    }
    out
}
