//! `allot bench`'s flow workloads run on a server's URL and reported: holds, units,
//! bookings, and the console's calls. Each prints its table, writes its JSON and fails when
//! a safe strategy broke an invariant (the console: when the overview is too slow).

use std::path::Path;

use anyhow::bail;

use super::report::{finish_load, write_json};
use crate::bookings::BookingsOptions;
use crate::console::ConsoleOptions;
use crate::holds::HoldsOptions;
use crate::units::UnitsOptions;

/// `allot bench holds`: hold flows and the conservation check.
pub async fn holds(opts: &HoldsOptions, json: Option<&Path>) -> anyhow::Result<()> {
    let reports = crate::holds::holds_bench(opts).await?;
    let title = format!(
        "holds: C={} k={} N={} ttl_ms={}",
        opts.clients, opts.stock, opts.flows, opts.ttl_ms
    );
    finish_load(&title, &reports, json)
}

/// `allot bench checkout`: a hold confirmed over HTTP or inside the caller's transaction,
/// on one hot SKU, with the order's work before or after the confirm.
pub async fn checkout(opts: &crate::CheckoutOptions, json: Option<&Path>) -> anyhow::Result<()> {
    let reports = crate::checkout::checkout_bench(opts).await?;
    let title = format!(
        "checkout: C={} N={} work_ms={} (strategy = how the hold is confirmed)",
        opts.clients, opts.checkouts, opts.work_ms
    );
    finish_load(&title, &reports, json)
}

/// `allot bench units`: claims from a large pool and a nearly empty one.
pub async fn units(opts: &UnitsOptions, json: Option<&Path>) -> anyhow::Result<()> {
    let reports = crate::units::units_bench(opts).await?;
    let title = format!(
        "units: C={} pool={} N={} quantity={}..={} scarce={} order_by={}",
        opts.clients,
        opts.pool_units,
        opts.requests,
        opts.min_quantity,
        opts.max_quantity,
        opts.scarce_units,
        opts.order_by.join(",")
    );
    finish_load(&title, &reports, json)
}

/// `allot bench bookings`: random bookings over the resources and the overlap check.
pub async fn bookings(opts: &BookingsOptions, json: Option<&Path>) -> anyhow::Result<()> {
    let reports = crate::bookings::bookings_bench(opts).await?;
    let title = format!(
        "bookings: C={} N={} resources={} days={} horizon_days={}",
        opts.clients, opts.requests, opts.resources, opts.days, opts.horizon_days
    );
    finish_load(&title, &reports, json)
}

/// `allot bench console`: the console's calls one at a time on a filled server; fails when
/// the overview's p99 reaches [`crate::console::OVERVIEW_P99_TARGET_US`].
pub async fn console(opts: &ConsoleOptions, json: Option<&Path>) -> anyhow::Result<()> {
    eprintln!(
        "filling: {} jobs over {} queues, {} SKUs",
        opts.jobs, opts.queues, opts.skus
    );
    let report = crate::console::console_bench(opts).await?;
    println!("console calls, one at a time, {} samples each\n", opts.samples);
    print!("{}", crate::console::render_console_table(&report));
    write_json(json, &report)?;
    let overview = report.calls.iter().find(|c| c.page == "overview");
    if overview.is_some_and(|o| o.latency_us_p99 >= crate::console::OVERVIEW_P99_TARGET_US) {
        bail!("the overview's p99 is over 100 ms");
    }
    Ok(())
}
