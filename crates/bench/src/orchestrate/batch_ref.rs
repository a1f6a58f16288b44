//! `allot bench batch`'s reference: PostgreSQL's own cost of the rows a batch of allocations
//! writes, without HTTP or the server. pgbench runs the very statement a `batched`
//! transaction writes with ([`allot_postgres::batch_write_sql`]), filled for `:b` one-unit
//! allocations of one SKU, on a SKU of its own beside the run's, as one statement in its own
//! transaction: what a batch sends besides (its `BEGIN` and the read of its stock row, one
//! round trip) is the server's part. Its rate, in allocations per second, is about the most
//! the batch API could reach on this machine and this database if the server cost nothing
//! (the sequencer of the change feed, still running in the server, turns the reference's
//! entries into events as it does the batch API's).

use super::pgbench_refs::{fill_parameters, LEDGER_SEQUENCE, REFERENCE_STOCK};
use crate::compare::FeedWait;
use crate::compare::PgbenchFigures;
use crate::compare::PgbenchProtocol;
use crate::compare::PgbenchRun;

/// Longest wait for the change feed to number the run's changes before the reference.
const FEED_CATCH_UP: std::time::Duration = std::time::Duration::from_secs(120);

/// The reference, measured: its rows per transaction, its clients and what pgbench reported.
pub struct BatchReference {
    /// Allocations each transaction writes (`:b`).
    pub per_transaction: usize,
    /// pgbench's clients.
    pub clients: usize,
    /// pgbench's figures (transactions per second, p99 of a transaction).
    pub figures: PgbenchFigures,
}

impl BatchReference {
    /// Allocations per second: transactions per second times the allocations of each.
    pub fn allocations_per_s(&self) -> f64 {
        self.figures.tps * self.per_transaction as f64
    }
}

/// Run the reference on `db` (the database of the server at `url`) from `clients`
/// connections for `seconds`, `per_transaction` allocations per transaction, on a SKU made
/// through the API first, once the server's change feed has caught up with the run (at most
/// [`FEED_CATCH_UP`]; past it, or with no gauge to read, a line on stderr says so and the
/// reference runs anyway). `None` (with a line on stderr) when pgbench failed. Errors: the
/// SKU could not be made, or the server could not be reached.
pub async fn run_reference(
    (url, db): (&str, &str),
    clients: usize,
    per_transaction: usize,
    seconds: u64,
) -> anyhow::Result<Option<BatchReference>> {
    let sku = format!("pgbench-batch-{}", std::process::id());
    crate::compare::create_reference_skus(url, std::slice::from_ref(&sku), REFERENCE_STOCK).await?;
    match crate::compare::wait_for_feed(url, FEED_CATCH_UP).await? {
        FeedWait::CaughtUp => {}
        FeedWait::NoGauge => eprintln!("no change-feed lag to read on {url}/metrics: the reference did not wait for it"),
        FeedWait::StillBehind => eprintln!(
            "the change feed had not caught up with the run after {FEED_CATCH_UP:?}: the reference shares the machine with it"
        ),
    }
    eprintln!(
        "== pgbench: the batch's write statement, {per_transaction} allocations per transaction, {clients} clients"
    );
    let script = batch_write_script();
    let defines = [("sku", sku), ("b", per_transaction.to_string())];
    let run = (clients, PgbenchRun::Seconds(seconds), PgbenchProtocol::Prepared);
    let figures = crate::compare::pgbench_script_figures(db, ("batch-write", &script), run, &defines);
    if figures.is_none() {
        eprintln!("no reference for the batch API: pgbench failed");
    }
    Ok(figures.map(|figures| BatchReference {
        per_transaction,
        clients,
        figures,
    }))
}

/// The ids of one transaction's allocations (the ledger entries' reference too): `pgb-`, the
/// transaction's id and the allocation's place, zero-padded so they sort in the order they
/// are made, as the server's time-ordered ids do.
const IDS: &str = "(SELECT array_agg('pgb-' || pg_current_xact_id() || '-' || lpad(g::text, 6, '0') ORDER BY g) \
     FROM generate_series(1, :b::int4) AS g)";

/// The batch's write statement as a pgbench script: `:b` one-unit allocations of SKU `:sku`
/// (tenant `default`, location `default`, bucket 0, no actor), in one transaction, as a
/// `batched` transaction writes them: the stock row's net change, a ledger entry and an
/// allocation record each, no hold and no stored response (the batches of `bench batch`
/// carry no idempotency keys). Each parameter is the SQL that makes its array; `$30`, the
/// stock rows the statement must update, is 1, so a SKU not found fails the run (22012)
/// rather than time a statement that wrote only records. Run prepared, so `:sku` and `:b`
/// are given without SQL quotes.
pub fn batch_write_script() -> String {
    let fill = |value: &str| format!("array_fill({value}, ARRAY[:b::int4])");
    let line = "jsonb_build_array(jsonb_build_object('sku', :sku::text, 'quantity', 1, \
                'from', jsonb_build_array(jsonb_build_object('location', 'default', 'quantity', 1))))";
    let (skus, minus_one, zero, kinds) = (
        fill(":sku::text"),
        fill("-1::int8"),
        fill("0::int8"),
        fill("'allocation'::text"),
    );
    let (strategies, lines, actors, locations) = (
        fill("'batched'::text"),
        fill(line),
        fill("NULL::text"),
        fill("'default'::text"),
    );
    let mut values = vec!["ARRAY[:sku::text]", "ARRAY[0]", "ARRAY[-(:b::int8)]", "ARRAY[0::int8]"];
    values.extend([
        skus.as_str(),
        &minus_one,
        &zero,
        &kinds,
        IDS,
        IDS,
        &strategies,
        &lines,
        "now()",
    ]);
    values.extend(["'{}'"; 12]);
    values.extend([actors.as_str(), "'default'", &locations, LEDGER_SEQUENCE, "1"]);
    let sql = fill_parameters(allot_postgres::batch_write_sql(), &values);
    format!("{sql};\n")
}

/// `bench batch`'s reference when `db` (the server's database) is PostgreSQL and `seconds` is
/// not 0: min(B, `batch_max_requests`) allocations per transaction (the default's 512: a
/// server started with another `--batch-max-requests` is still compared with 512), from as
/// many clients as batches in flight, at most as many as one lane runs at once; `(B, batches
/// in flight)`. A reference that could not run is left out with a line on stderr: the run's
/// own figures stand.
pub async fn batch_reference(
    url: &str,
    db: Option<&str>,
    (batch, in_flight): (usize, usize),
    seconds: u64,
) -> Option<BatchReference> {
    let db = db.filter(|d| d.starts_with("postgres"))?;
    if seconds == 0 {
        return None;
    }
    let per_transaction = batch.clamp(1, allot_core::Limits::default().batch_max_requests);
    let clients = in_flight.clamp(1, allot_postgres::batches_in_flight_per_lane());
    match run_reference((url, db), clients, per_transaction, seconds).await {
        Ok(reference) => reference,
        Err(e) => {
            eprintln!("no reference for the batch API: {e:#}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_batch_write_script_leaves_no_parameter_and_checks_its_stock_row_was_updated() {
        let script = batch_write_script();
        assert!(!script.contains('$'), "{script}");
        assert!(
            script
                .trim_end()
                .ends_with("SELECT 1 / ((SELECT count(*) FROM upd) = 1)::int;"),
            "{script}"
        );
        assert!(
            script.contains("nextval((SELECT allot_id_sequence('ledger', 'default')::regclass::oid)::oid::regclass)"),
            "{script}"
        );
        assert_eq!(script.matches(IDS).count(), 2, "{script}");
        assert!(
            script.contains("unnest('{}'::text[], '{}'::jsonb[], '{}'::timestamptz[])"),
            "{script}"
        );
    }
}
