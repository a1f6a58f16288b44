//! `allot bench compare`'s pgbench references: what a careful engineer would write by hand,
//! run by pgbench on the same database right after allot's rows, each the reference of the
//! rows of its workload (the table prints allot's rate over it).
//!
//! - `hot_sku`: the single conditional relative UPDATE on one hot row (`hot_sku.sql`);
//! - `spread`: the same UPDATE on a random one of the spread workload's SKUs (`spread.sql`);
//!   then, as a row of its own against that reference, `atomic`'s own statement alone on the
//!   same SKUs ([`atomic_statement_script`]);
//! - `units/large`: the single-statement `FOR UPDATE SKIP LOCKED` claim of 3 units, in the
//!   order the workload claims (`units_skip_locked.sql`), on a pool of its own;
//! - `bookings`: the advisory-lock check-then-insert transaction (`bookings_advisory.sql`).

use crate::compare::CompareRow;
use crate::compare::PgbenchRun;

/// What the references run: the workloads asked for and the sizes of `bench compare`.
pub struct References {
    /// Run the hot-SKU reference.
    pub hot_sku: bool,
    /// Run the spread reference.
    pub spread: bool,
    /// Run the units reference.
    pub units: bool,
    /// Run the bookings reference.
    pub bookings: bool,
    /// Clients of the workloads (pgbench runs min(this, 64)).
    pub clients: usize,
    /// Requests of the hot-SKU workload (the units workload ran half).
    pub requests: u64,
    /// SKUs of the spread workload.
    pub spread_skus: u32,
    /// Seconds of each timed pgbench run.
    pub pgbench_seconds: u64,
}

/// At most this many pgbench clients: the server's pool holds connections too, and more
/// clients cannot make one hot row go faster.
const MAX_PGBENCH_CLIENTS: usize = 64;

/// Stock of each SKU of the hot-SKU and spread references (and of `bench batch`'s): more
/// than a run can take.
pub const REFERENCE_STOCK: i64 = 1_000_000_000;

/// Units each pgbench unit claim takes (the script's `LIMIT 3`).
const UNITS_PER_CLAIM: u64 = 3;

/// Run the reference of every workload asked for and set it on that workload's rows.
pub async fn add_pgbench_references(
    rows: &mut Vec<CompareRow>,
    url: &str,
    db: &str,
    a: &References,
) -> anyhow::Result<()> {
    let clients = a.clients.min(MAX_PGBENCH_CLIENTS);
    let run = std::process::id();
    let timed = PgbenchRun::Seconds(a.pgbench_seconds);
    if a.hot_sku {
        let sku = format!("pgbench-hot-{run}");
        crate::compare::create_reference_skus(url, std::slice::from_ref(&sku), REFERENCE_STOCK).await?;
        let script = include_str!("../../../../bench/pgbench/hot_sku.sql");
        let defines = [("sku", format!("'{sku}'"))];
        pgbench_row(rows, (db, clients), ("hot_sku", script), timed, &defines);
    }
    if a.spread {
        let prefix = format!("pgbench-spread-{run}-");
        let skus: Vec<String> = (0..a.spread_skus.max(1)).map(|i| format!("{prefix}{i}")).collect();
        crate::compare::create_reference_skus(url, &skus, REFERENCE_STOCK).await?;
        let script = include_str!("../../../../bench/pgbench/spread.sql");
        let defines = [
            ("prefix", format!("'{prefix}'")),
            ("n", a.spread_skus.max(1).to_string()),
        ];
        pgbench_row(rows, (db, clients), ("spread", script), timed, &defines);
        // After the textbook reference, so the entries it writes cannot slow that reference.
        let statement_defines = [("prefix", prefix.clone()), ("n", a.spread_skus.max(1).to_string())];
        add_atomic_statement_row(rows, (db, clients), timed, &statement_defines);
    }
    if a.units {
        // As many claims as the workload's, from a pool that holds them all: a claim that
        // finds the pool empty would be fast and would flatter the reference.
        let per_client = ((a.requests / 2).max(100) / clients as u64).max(1);
        let sku = format!("pgbench-units-{run}");
        crate::units::create_unit_pool(url, &sku, per_client * clients as u64 * UNITS_PER_CLAIM).await?;
        let script = include_str!("../../../../bench/pgbench/units_skip_locked.sql");
        let run = PgbenchRun::TransactionsPerClient(per_client);
        pgbench_row(
            rows,
            (db, clients),
            ("units/large", script),
            run,
            &[("sku", format!("'{sku}'"))],
        );
    }
    if a.bookings {
        let script = include_str!("../../../../bench/pgbench/bookings_advisory.sql");
        let defines = [("prefix", format!("'pgbench-{run}-'"))];
        pgbench_row(rows, (db, clients), ("bookings", script), timed, &defines);
    }
    Ok(())
}

/// The label of the row of `atomic`'s statement run alone by pgbench.
const ATOMIC_STATEMENT_ROW: &str = "atomic, its statement alone (pgbench)";

/// `atomic`'s allocation statement ([`allot_postgres::atomic_allocation_sql`]) as a pgbench
/// script on a random one of `:n` SKUs named `:prefix || i`, tenant `default` (as
/// `spread.sql`), for one unit: the allocation id (the ledger entry's reference too) is
/// `pgb-` and the transaction's id, the lines name the SKU taken, and the tenant's ledger
/// sequence is looked up by name (the server sends its cached oid), so the script needs the
/// sequence to exist (allot's own spread rows made it). The answer's `taken` divides by
/// itself: a transaction that took nothing fails with 22012, so pgbench fails rather than
/// time a statement that matched no row.
pub fn atomic_statement_script() -> String {
    let values = [
        "(:prefix || :i)",
        "1::int8",
        "0",
        "('pgb-' || pg_current_xact_id())",
        "'atomic'",
        "now()",
        "NULL::text",
        "'default'",
        LEDGER_SEQUENCE,
    ];
    let sql = fill_parameters(allot_postgres::atomic_allocation_sql(), &values).replace(
        TAKEN,
        "(SELECT count(*) FROM upd) / (SELECT count(*) FROM upd) AS taken",
    );
    format!("\\set i random(0, :n - 1)\n{sql};\n")
}

/// Tenant `default`'s ledger sequence, as the oid the server sends, looked up by name once
/// per statement (an uncorrelated subquery).
pub const LEDGER_SEQUENCE: &str = "(SELECT allot_id_sequence('ledger', 'default')::regclass::oid)";

/// A statement of the server made into a pgbench script: `sql` with each parameter `$n`
/// replaced by `values[n - 1]` (SQL text), the highest first so `$1` cannot eat the head of
/// `$10`.
pub fn fill_parameters(sql: &str, values: &[&str]) -> String {
    (1..=values.len())
        .rev()
        .fold(sql.to_string(), |sql, n| sql.replace(&format!("${n}"), values[n - 1]))
}

/// The statement's count of rows taken, which the script makes fail on 0.
const TAKEN: &str = "(SELECT count(*) FROM upd) AS taken";

/// `atomic`'s statement alone through pgbench on the spread reference's SKUs, added after
/// the spread rows with the textbook reference's rate as its own (its p99 from pgbench's
/// transaction log); left out, with a line on stderr, when pgbench failed. Prepared, as the
/// server prepares it once per connection (the textbook runs unprepared; see
/// docs/benchmarks.md). Its variables are then sent as parameters, so `defines` name the
/// prefix without SQL quotes.
fn add_atomic_statement_row(
    rows: &mut Vec<CompareRow>,
    (db, clients): (&str, usize),
    run: PgbenchRun,
    defines: &[(&str, String)],
) {
    eprintln!("== pgbench: spread, atomic's statement");
    let script = atomic_statement_script();
    let protocol = crate::compare::PgbenchProtocol::Prepared;
    let Some(f) =
        crate::compare::pgbench_script_figures(db, ("atomic-statement", &script), (clients, run, protocol), defines)
    else {
        eprintln!("no row for atomic's statement alone: pgbench failed");
        return;
    };
    let reference = rows.iter().find(|r| r.workload == "spread").and_then(|r| r.pgbench_tps);
    let after_spread = rows
        .iter()
        .rposition(|r| r.workload == "spread")
        .map_or(rows.len(), |i| i + 1);
    let row = CompareRow {
        workload: "spread".into(),
        strategy: ATOMIC_STATEMENT_ROW.into(),
        ops_per_s: f.tps,
        latency_us_p99: f.latency_us_p99,
        invariants_ok: true,
        pgbench_tps: reference,
        reference: reference.map(|_| "pgbench".to_string()),
        noop_per_s: None,
        cpu_us_per_op: None,
    };
    rows.insert(after_spread, row);
}

/// Run pgbench's `script` (on `db` from `clients` connections) as the reference of the rows
/// of `workload` (its name also labels the run and the script's temporary file).
fn pgbench_row(
    rows: &mut [CompareRow],
    (db, clients): (&str, usize),
    (workload, script): (&str, &str),
    run: PgbenchRun,
    defines: &[(&str, String)],
) {
    eprintln!("== pgbench: {workload}");
    let name = workload.replace('/', "-");
    let tps = crate::compare::pgbench_script_tps(db, (&name, script), clients, run, defines);
    set_reference(rows, workload, "pgbench", tps);
}

/// Make `rate` (when its tool ran) the reference, named `tool`, of the rows of `workload`.
fn set_reference(rows: &mut [CompareRow], workload: &str, tool: &str, rate: Option<f64>) {
    for r in rows.iter_mut().filter(|r| r.workload == workload) {
        r.pgbench_tps = rate;
        r.reference = rate.map(|_| tool.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_atomic_statement_script_leaves_no_parameter() {
        let script = atomic_statement_script();
        assert!(script.starts_with("\\set i random(0, :n - 1)\n"), "{script}");
        assert!(!script.contains('$'), "{script}");
        assert!(
            script.contains("nextval((SELECT allot_id_sequence('ledger', 'default')::regclass::oid)::oid::regclass)"),
            "{script}"
        );
        assert!(script.contains("sku = (:prefix || :i)"), "{script}");
        assert!(script.contains("/ (SELECT count(*) FROM upd) AS taken"), "{script}");
        assert_eq!(
            script.matches("('pgb-' || pg_current_xact_id())").count(),
            2,
            "{script}"
        );
    }
}
