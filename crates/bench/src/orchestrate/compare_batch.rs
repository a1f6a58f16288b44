//! `allot bench compare`'s batch API workload: single-unit allocations on one hot SKU through
//! `POST /v1/batch`, 1000 operations per batch, one batch at a time through one connection
//! (the shape of issue 28's goal), under `batched` on PostgreSQL (the server's default
//! strategy elsewhere: SQLite has no `batched`); on PostgreSQL with pgbench, the batch's own
//! write statement alone as the reference (`batch_ref.rs`, as `allot bench batch` runs it).

use crate::compare::CompareRow;

/// Operations per batch.
const BATCH: usize = 1000;

/// Allocations of the run per request of the hot-SKU workload (`-n`): 10, so 200 000 by
/// default, as `allot bench batch`.
const REQUESTS_PER_N: u64 = 10;

/// The row of the batch API on the server at `url` (its database `db` when known), with its
/// reference when one ran (`pgbench_seconds` of it; 0: none); `n` is `bench compare`'s `-n`.
pub async fn compare_batch(
    url: &str,
    db: Option<&str>,
    pgbench_seconds: u64,
    n: u64,
) -> anyhow::Result<Vec<CompareRow>> {
    eprintln!("== batch");
    let requests = n * REQUESTS_PER_N;
    let strategy = match db.is_some_and(|d| d.starts_with("postgres")) {
        true => "batched",
        false => crate::batch_api::SERVER_DEFAULT,
    };
    let opts = crate::batch_api::BatchOptions {
        url: url.to_string(),
        strategies: vec![strategy.into()],
        connections: 1,
        streams: 1,
        batch: BATCH,
        requests,
        stock: requests as i64,
    };
    let reports = crate::batch_api::batch_bench(&opts).await?;
    let reference = super::batch_ref::batch_reference(url, db, (BATCH, 1), pgbench_seconds).await;
    Ok(reports
        .iter()
        .map(|r| CompareRow {
            pgbench_tps: reference
                .as_ref()
                .map(super::batch_ref::BatchReference::allocations_per_s),
            reference: reference.as_ref().map(|_| "pgbench".to_string()),
            ..CompareRow::plain(
                "batch",
                &format!("{}, one connection, {BATCH} per batch", r.strategy),
                (r.allocations_per_s, r.batch_latency_us_p99),
                r.violations.is_empty(),
            )
        })
        .collect())
}
