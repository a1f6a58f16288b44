//! Fresh PostgreSQL databases for benchmark runs that must not share one (`bench compare
//! --rev`'s builds, the queue peer's runs): a new database beside a given URL's, made and
//! dropped with `psql`.

use anyhow::{bail, Context};
use std::process::Command;

/// Longest `psql` waits to connect, s.
const PSQL_CONNECT_TIMEOUT_S: u64 = 10;

/// Longest its `CREATE DATABASE` or `DROP DATABASE` may take, locks included, ms.
const PSQL_STATEMENT_TIMEOUT_MS: u64 = 60_000;

/// What removes a fresh database (or file) when its run is over.
pub type DropDb = Box<dyn FnOnce() -> anyhow::Result<()> + Send>;

/// Create the database `name` on the server of `given` (a `postgres://` URL) and return its
/// URL (`given`'s with the database replaced, its query kept but for `options`, whose
/// settings such as a `search_path` name what is in the given database) and what drops it.
/// `name` must be a plain identifier (letters, digits, `_`), as this process makes it.
pub fn fresh_pg_database(given: &str, name: &str) -> anyhow::Result<(String, DropDb)> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        bail!("a fresh database's name must be a plain identifier: {name:?}");
    }
    let (prefix, query) = match given.split_once('?') {
        Some((p, q)) => {
            let kept: Vec<&str> = q.split('&').filter(|kv| !kv.starts_with("options=")).collect();
            let query = match kept.is_empty() {
                true => String::new(),
                false => format!("?{}", kept.join("&")),
            };
            (p.to_string(), query)
        }
        None => (given.to_string(), String::new()),
    };
    let server = prefix
        .rsplit_once('/')
        .map(|(s, _)| s.to_string())
        .unwrap_or(prefix.clone());
    let given = given.to_string();
    let psql = move |sql: String| -> anyhow::Result<()> {
        // Bounded: the connection, and the statement with the locks it waits for.
        let status = Command::new("psql")
            .args([given.as_str(), "-qAtc", &sql])
            .env("PGCONNECT_TIMEOUT", PSQL_CONNECT_TIMEOUT_S.to_string())
            .env(
                "PGOPTIONS",
                format!("-c statement_timeout={PSQL_STATEMENT_TIMEOUT_MS} -c lock_timeout={PSQL_STATEMENT_TIMEOUT_MS}"),
            )
            .status()
            .context("run psql")?;
        if !status.success() {
            bail!("psql: {sql} failed");
        }
        Ok(())
    };
    psql(format!("CREATE DATABASE {name}"))?;
    let name = name.to_string();
    // FORCE (PostgreSQL 13): a run's last backends may still be exiting when its process
    // has; the database is the run's own.
    Ok((
        format!("{server}/{name}{query}"),
        Box::new(move || psql(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))),
    ))
}
