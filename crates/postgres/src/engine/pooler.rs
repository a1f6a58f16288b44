//! Telling a transaction pooler from the database: at start-up ([`check_not_transaction_pooled`])
//! and when a request's error says so ([`note_pooler_error`]).
//!
//! Behind a transaction pooler (PgBouncer `pool_mode = transaction`) a session is not a
//! server connection: named prepared statements, `LISTEN` and session advisory locks land
//! on whichever server connection the pooler picks (PgBouncer docs, "Feature matrix for
//! pooling modes"). allot then needs the database's own address as well
//! ([`crate::PgConfig::direct_url`], `--direct-database-url`); without it, it refuses to
//! start, and a pooler it missed (a `26000` on a named statement) marks the instance not
//! ready until it restarts with the flag.

use crate::engine::connect::PgTarget;
use allot_core::AllotError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long the probe waits for the second statement of its first session.
const PROBE_WAIT: Duration = Duration::from_secs(5);

/// What to do about a transaction pooler, in words (start-up errors, `/readyz`, logs).
pub const TRANSACTION_POOLER_ADVICE: &str = "the database URL goes through a transaction pooler \
     (PgBouncer pool_mode=transaction): give the database's own address as well with \
     --direct-database-url (ALLOT_DIRECT_DATABASE_URL), which migrations and LISTEN use";

/// Set once a pooled statement failed as only a transaction pooler makes it fail.
static POOLER_SEEN: AtomicBool = AtomicBool::new(false);

/// Whether this process saw a statement fail as behind an undeclared transaction pooler
/// (`/readyz` reports it; process-wide, as one process serves one database).
pub fn transaction_pooler_seen() -> bool {
    POOLER_SEEN.load(Ordering::Relaxed)
}

/// Record `code`, the SQLSTATE of a failed statement: 26000 invalid_sql_statement_name (a
/// prepared statement missing on the server connection a pooler picked) marks the process as
/// behind an undeclared transaction pooler, logged once. Only named statements can meet it,
/// and allot sends none where a direct URL was given, so it never fires there. (08P01, which
/// PgBouncer also answers to its own errors — a full pool, a failover — says nothing certain
/// and is not counted.)
pub(crate) fn note_pooler_error(code: &tokio_postgres::error::SqlState) {
    use tokio_postgres::error::SqlState;
    if *code == SqlState::INVALID_SQL_STATEMENT_NAME && !POOLER_SEEN.swap(true, Ordering::Relaxed) {
        tracing::error!(sqlstate = code.code(), "{TRANSACTION_POOLER_ADVICE}");
    }
}

/// The server process of `c`'s next statement (by the simple protocol: no named statement).
async fn backend_pid(c: &tokio_postgres::Client) -> Result<Option<String>, tokio_postgres::Error> {
    let messages = c.simple_query("SELECT pg_backend_pid()").await?;
    Ok(messages.iter().find_map(|m| match m {
        tokio_postgres::SimpleQueryMessage::Row(row) => row.get(0).map(str::to_string),
        _ => None,
    }))
}

/// Refuse `url` when it leads to a transaction pooler: two sessions, the second holding a
/// transaction open; a transaction pooler gives the second the first's server process (its
/// most recently freed one), or moves the first to another, or makes it wait; a database,
/// or a session pooler, keeps each session on its own process.
///
/// Errors: `invalid_request` with [`TRANSACTION_POOLER_ADVICE`]; `unavailable` when `url`
/// cannot be reached.
pub async fn check_not_transaction_pooled(url: &str) -> Result<(), AllotError> {
    match tokio::time::timeout(PROBE_LIMIT, probe_url(url)).await {
        Ok(result) => result,
        Err(_) => Err(AllotError::Unavailable(format!(
            "could not tell within {} s whether the database URL leads to a transaction pooler (a pooler with no free \
             server connection?)",
            PROBE_LIMIT.as_secs()
        ))),
    }
}

/// How long the whole start-up probe may take.
const PROBE_LIMIT: Duration = Duration::from_secs(20);

async fn probe_url(url: &str) -> Result<(), AllotError> {
    let target = PgTarget::parse(url)?;
    let (first, c1) = target.connect().await?;
    let t1 = tokio::spawn(c1);
    let (second, c2) = target.connect().await?;
    let t2 = tokio::spawn(c2);
    let pooled = probe(&first, &second).await;
    drop((first, second));
    let _ = (t1.await, t2.await);
    match pooled {
        Ok(false) => Ok(()),
        Ok(true) => Err(AllotError::invalid(TRANSACTION_POOLER_ADVICE)),
        // Start-up, as a refused connection: what happened and what to do, by SQLSTATE.
        Err(e) => Err(target.describe(&e)),
    }
}

async fn probe(first: &tokio_postgres::Client, second: &tokio_postgres::Client) -> Result<bool, tokio_postgres::Error> {
    let pid = backend_pid(first).await?;
    second.batch_execute("BEGIN").await?;
    if backend_pid(second).await? == pid {
        return Ok(true);
    }
    let again = tokio::time::timeout(PROBE_WAIT, backend_pid(first)).await;
    second.batch_execute("ROLLBACK").await?;
    match again {
        Ok(now) => Ok(now? != pid),
        Err(_) => Ok(true),
    }
}
