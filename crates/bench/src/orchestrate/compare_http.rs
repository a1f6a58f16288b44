//! `bench compare`'s own workloads: the HTTP ones under every strategy (hot SKU, spread,
//! holds, units, bookings, the no-op handler as the HTTP ceiling) and the queue straight on
//! the store.

use super::compare_options::{CompareOptions, Workload};
use super::report::load_rows;
use crate::compare::CompareRow;

/// Every strategy: what the workloads' `strategies` name.
fn all() -> Vec<String> {
    vec!["all".to_string()]
}

/// The HTTP workloads asked for, under every strategy of the server.
pub(super) async fn http_workloads(opts: &CompareOptions) -> anyhow::Result<Vec<CompareRow>> {
    let n = opts.n();
    let mut rows: Vec<CompareRow> = Vec::new();
    for (kind, workload, spread, stock) in [
        (Workload::HotSku, "hot_sku", 1, n as i64),
        (Workload::Spread, "spread", opts.spread.max(1), 100),
    ] {
        if !opts.runs(kind) {
            continue;
        }
        eprintln!("== {workload}");
        let sale = crate::flash_sale::FlashSaleOptions {
            url: opts.url.clone(),
            strategies: all(),
            clients: opts.clients,
            stock,
            requests: n,
            spread,
            segmented_buckets: 8,
            progress: true,
            api_key: None,
        };
        for r in crate::flash_sale::flash_sale(&sale).await? {
            let mut row = CompareRow::plain(
                workload,
                &r.strategy,
                (r.allocations_per_s, r.latency_us_p99),
                r.violations.is_empty(),
            );
            row.cpu_us_per_op = r.cpu_us_per_request;
            rows.push(row);
        }
    }
    if opts.runs(Workload::HotSku) {
        let ceiling = http_ceiling(&mut rows, opts.clients, n).await?;
        rows.push(ceiling);
    }
    rows.extend(flows(opts, n).await?);
    Ok(rows)
}

/// The holds, units and bookings workloads under every strategy (those asked for).
async fn flows(opts: &CompareOptions, n: u64) -> anyhow::Result<Vec<CompareRow>> {
    let (url, clients) = (opts.url.clone(), opts.clients.min(64));
    let mut rows = Vec::new();
    if opts.runs(Workload::Holds) {
        eprintln!("== holds");
        let holds = crate::holds::HoldsOptions {
            url: url.clone(),
            strategies: all(),
            clients,
            stock: 1_000_000,
            flows: (n / 4).max(100),
            ttl_ms: 2000,
            unit_line: false,
            hold_only: false,
            progress: true,
        };
        rows.extend(load_rows(&crate::holds::holds_bench(&holds).await?));
    }
    if opts.runs(Workload::Units) {
        eprintln!("== units");
        let units = crate::units::UnitsOptions {
            url: url.clone(),
            strategies: all(),
            clients,
            pool_units: 50_000,
            requests: (n / 2).max(100),
            min_quantity: 3,
            max_quantity: 3,
            scarce_units: 200,
            order_by: vec!["received_at".into(), "location".into()],
            pool_sku: None,
            progress: true,
        };
        rows.extend(load_rows(&crate::units::units_bench(&units).await?));
    }
    if opts.runs(Workload::Bookings) {
        eprintln!("== bookings");
        let bookings = crate::bookings::BookingsOptions {
            url,
            strategies: all(),
            clients,
            requests: (n / 2).max(100),
            resources: 100,
            days: 3,
            horizon_days: 3650,
            capacity: None,
            progress: true,
        };
        rows.extend(load_rows(&crate::bookings::bookings_bench(&bookings).await?));
    }
    Ok(rows)
}

/// The no-op axum handler from the same clients (the HTTP ceiling): its own row, and the
/// reference of the hot-SKU rows' `allot / no-op`.
async fn http_ceiling(rows: &mut [CompareRow], clients: usize, n: u64) -> anyhow::Result<CompareRow> {
    eprintln!("== no-op handler (the HTTP ceiling)");
    let c = crate::reference::noop_ceiling(clients, n).await?;
    for r in rows.iter_mut().filter(|r| r.workload == "hot_sku") {
        r.noop_per_s = Some(c.requests_per_s);
    }
    let mut row = CompareRow::plain(
        "http_ceiling",
        "no-op handler",
        (c.requests_per_s, c.latency_us_p99),
        true,
    );
    row.cpu_us_per_op = c.cpu_us_per_request;
    Ok(row)
}

/// The job queue under every claim strategy, straight on the store at `db`.
pub(super) async fn queue_rows(db: &str, opts: &CompareOptions) -> anyhow::Result<Vec<CompareRow>> {
    eprintln!("== queue");
    let store = super::queue_runs::open(db, opts.pool_size).await?;
    let queue = crate::queue::QueueOptions {
        strategies: allot_core::ClaimStrategy::ALL.to_vec(),
        producers: 4,
        jobs: opts.jobs,
        batch: 1000,
        single_fraction: 0.01,
        workers: 4,
        concurrency: 200,
        claim_batch: 100,
        fail_fraction: 0.0,
        kill_workers: 0,
        lease_ms: 30_000,
        drain_timeout_s: 300,
        keys: 0,
        limit_per_key: None,
        fifo: false,
        keep_completed: true,
        enqueue_first: false,
        fair: false,
        events: false,
        chain: 0,
    };
    Ok(crate::queue::queue_bench(store, &queue)
        .await?
        .iter()
        .map(|r| {
            CompareRow::plain(
                "queue",
                &r.strategy,
                (r.completed_per_s, r.claim_latency_us_p99),
                r.violations.is_empty(),
            )
        })
        .collect())
}
