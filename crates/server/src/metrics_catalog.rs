//! Every metric allot exports, with its unit and its `# HELP` text (metrics'
//! `describe_*!` macros, rendered by metrics-exporter-prometheus), and the samples taken at
//! scrape time: the database pool's and the process's (metrics-process: CPU, resident
//! memory, open file descriptors, threads — the names Prometheus' own clients use).

use metrics::Unit;

/// What kind of series a metric is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// Every metric: (name, kind, unit, help). A metric emitted anywhere must be here (a test
/// reads the sources to check).
pub(crate) const CATALOG: &[(&str, Kind, Unit, &str)] = &[
    (
        "allot_http_requests_total",
        Kind::Counter,
        Unit::Count,
        "HTTP requests answered, by method, route pattern and status.",
    ),
    (
        "allot_http_request_duration_seconds",
        Kind::Histogram,
        Unit::Seconds,
        "Time from a request's arrival to its answer, by method, route pattern and status.",
    ),
    (
        "allot_http_requests_in_flight",
        Kind::Gauge,
        Unit::Count,
        "Requests taken by the edge and not yet answered.",
    ),
    (
        "allot_allocations_total",
        Kind::Counter,
        Unit::Count,
        "Allocation requests by strategy and outcome (allocated, replayed, or the error code).",
    ),
    (
        "allot_holds_total",
        Kind::Counter,
        Unit::Count,
        "Hold requests by strategy and outcome (held, replayed, or the error code).",
    ),
    (
        "allot_hold_finishes_total",
        Kind::Counter,
        Unit::Count,
        "Holds confirmed or released, by how they finished.",
    ),
    (
        "allot_holds_expired_total",
        Kind::Counter,
        Unit::Count,
        "Holds the sweeper finalised after their expiry.",
    ),
    (
        "allot_unit_claims_total",
        Kind::Counter,
        Unit::Count,
        "Unit claims by strategy and outcome (claimed, replayed, or the error code).",
    ),
    (
        "allot_bookings_total",
        Kind::Counter,
        Unit::Count,
        "Booking requests by strategy and outcome (booked, replayed, or the error code).",
    ),
    (
        "allot_bookings_expired_total",
        Kind::Counter,
        Unit::Count,
        "Held bookings the sweeper expired.",
    ),
    (
        "allot_jobs_enqueued_total",
        Kind::Counter,
        Unit::Count,
        "Jobs enqueued, by queue label (a hash of tenant and queue).",
    ),
    (
        "allot_jobs_claimed_total",
        Kind::Counter,
        Unit::Count,
        "Jobs leased to workers, by queue label.",
    ),
    (
        "allot_job_claim_seconds",
        Kind::Histogram,
        Unit::Seconds,
        "Time a claim took, long-poll wait included, by claim strategy.",
    ),
    (
        "allot_job_claims_waiting",
        Kind::Gauge,
        Unit::Count,
        "Job claims long-polling now.",
    ),
    (
        "allot_job_outcomes_total",
        Kind::Counter,
        Unit::Count,
        "Job transitions by outcome (completed, failed, cancelled, … or the error code).",
    ),
    (
        "allot_jobs_rescued_total",
        Kind::Counter,
        Unit::Count,
        "Running jobs whose lease expired, put back or discarded by the sweeper.",
    ),
    (
        "allot_schedule_jobs_total",
        Kind::Counter,
        Unit::Count,
        "Jobs enqueued by schedules.",
    ),
    (
        "allot_queue_jobs",
        Kind::Gauge,
        Unit::Count,
        "Unfinished jobs by queue label and state.",
    ),
    (
        "allot_events_sequenced_total",
        Kind::Counter,
        Unit::Count,
        "Events given their cursor by the sequencer of the change feed.",
    ),
    (
        "allot_feed_lag_seconds",
        Kind::Gauge,
        Unit::Seconds,
        "Age of the oldest event still waiting for its cursor (0 on SQLite).",
    ),
    (
        "allot_webhook_deliveries_queued_total",
        Kind::Counter,
        Unit::Count,
        "Webhook deliveries queued.",
    ),
    (
        "allot_webhook_deliveries_total",
        Kind::Counter,
        Unit::Count,
        "Webhook delivery attempts by outcome (delivered, failed, gone, endpoint_gone, event_pruned).",
    ),
    (
        "allot_webhook_endpoints_enabled",
        Kind::Gauge,
        Unit::Count,
        "Enabled webhook endpoints.",
    ),
    (
        "allot_webhook_endpoints_failing",
        Kind::Gauge,
        Unit::Count,
        "Enabled webhook endpoints whose last attempt failed.",
    ),
    (
        "allot_auto_switches_total",
        Kind::Counter,
        Unit::Count,
        "Times strategy auto moved a SKU, by the strategy moved to.",
    ),
    (
        "allot_auto_hot_skus",
        Kind::Gauge,
        Unit::Count,
        "SKUs strategy auto found hot at their last request on this instance.",
    ),
    (
        "allot_db_pool_connections",
        Kind::Gauge,
        Unit::Count,
        "Database connections open (PostgreSQL pool; 1 for SQLite's writer).",
    ),
    (
        "allot_db_pool_max_connections",
        Kind::Gauge,
        Unit::Count,
        "Most database connections the pool opens (--pool-size; 1 for SQLite).",
    ),
    (
        "allot_db_pool_idle_connections",
        Kind::Gauge,
        Unit::Count,
        "Open database connections no request holds.",
    ),
    (
        "allot_db_pool_waiting",
        Kind::Gauge,
        Unit::Count,
        "Requests waiting for a database connection (SQLite: for the writer).",
    ),
    (
        "allot_batch_queued",
        Kind::Gauge,
        Unit::Count,
        "Stock requests waiting on the batched lanes for a transaction (PostgreSQL; 0 on SQLite).",
    ),
    (
        "allot_sku_gate_waiting",
        Kind::Gauge,
        Unit::Count,
        "Per-request stock writers waiting at their SKUs' gates for a place (sku_writers; PostgreSQL; 0 on SQLite).",
    ),
    (
        "allot_db_pool_acquire_seconds",
        Kind::Histogram,
        Unit::Seconds,
        "Time a request waited for a database connection (SQLite: for the writer).",
    ),
];

/// Register every metric's unit and help text with the installed recorder, and the
/// process metrics' own.
pub(crate) fn describe() {
    for (name, kind, unit, help) in CATALOG {
        match kind {
            Kind::Counter => metrics::describe_counter!(*name, *unit, *help),
            Kind::Gauge => metrics::describe_gauge!(*name, *unit, *help),
            Kind::Histogram => metrics::describe_histogram!(*name, *unit, *help),
        }
    }
    process().describe();
}

fn process() -> &'static metrics_process::Collector {
    static COLLECTOR: std::sync::OnceLock<metrics_process::Collector> = std::sync::OnceLock::new();
    COLLECTOR.get_or_init(metrics_process::Collector::default)
}

/// Take the samples that are read, not counted: the pool's state and the process's.
pub(crate) fn sample(pool: allot_core::PoolStatus) {
    metrics::gauge!("allot_db_pool_connections").set(pool.connections as f64);
    metrics::gauge!("allot_db_pool_max_connections").set(pool.max_connections as f64);
    metrics::gauge!("allot_db_pool_idle_connections").set(pool.idle as f64);
    metrics::gauge!("allot_db_pool_waiting").set(pool.waiting as f64);
    metrics::gauge!("allot_batch_queued").set(pool.batch_queued as f64);
    metrics::gauge!("allot_sku_gate_waiting").set(pool.gate_waiting as f64);
    process().collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `"allot_…"` metric name written in a `counter!`, `gauge!`, `histogram!` or
    /// `count_outcome` call of the server and backend sources is in the catalog.
    #[test]
    fn every_metric_emitted_is_described() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut missing = Vec::new();
        let mut seen = 0;
        for dir in ["server/src", "postgres/src", "sqlite/src", "redis/src", "worker/src"] {
            visit(&root.join(dir), &mut |text| {
                for name in emitted(text) {
                    seen += 1;
                    if !CATALOG.iter().any(|(n, ..)| *n == name) {
                        missing.push(name);
                    }
                }
            });
        }
        assert!(seen > 20, "the scan found only {seen} metric uses");
        assert!(missing.is_empty(), "metrics without a description: {missing:?}");
    }

    fn visit(dir: &std::path::Path, f: &mut dyn FnMut(&str)) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                visit(&path, f);
            } else if path.extension().is_some_and(|e| e == "rs") {
                f(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }

    /// The metric names in `text`: a string literal starting `allot_` right after one of the
    /// emitting calls' opening parenthesis (whitespace allowed).
    fn emitted(text: &str) -> Vec<String> {
        let mut names = Vec::new();
        for call in ["counter!(", "gauge!(", "histogram!(", "count_outcome("] {
            for (at, _) in text.match_indices(call) {
                let rest = text[at + call.len()..].trim_start();
                if let Some(quoted) = rest.strip_prefix("\"allot_") {
                    let end = quoted.find('"').unwrap_or(0);
                    names.push(format!("allot_{}", &quoted[..end]));
                }
            }
        }
        names
    }
}
