//! Transactions begun and ended by hand, so that `BEGIN` travels with a transaction's first
//! statement and `COMMIT` with its last: the requests of futures polled together on one
//! tokio-postgres client are pipelined, sent in the order they are first polled and answered
//! in that order (tokio-postgres docs, "Pipelining"), so two round trips carry a whole
//! transaction. The stock lanes' batches (`engine/batched/txn.rs`), batched unit claims and
//! batched bookings use it.
//!
//! [`HandTx`] holds the connection of such a transaction: dropped before the transaction
//! ended (a panic, or a cancelled future, between `BEGIN` and the end), it detaches the
//! connection from the pool and closes it, so the server rolls the transaction back and
//! frees its locks, rather than handing the next caller a connection inside it.

use crate::engine::conn::{Conn, Db};
use std::future::Future;
use tokio_postgres::Error;

/// A pooled connection in a transaction begun by hand. Derefs to the client; give it back
/// with [`HandTx::ended`] once the transaction has ended (committed or rolled back).
pub(crate) struct HandTx {
    conn: Option<Conn>,
}

impl HandTx {
    /// Hold `conn` until its transaction ends.
    pub(crate) fn new(conn: Conn) -> Self {
        HandTx { conn: Some(conn) }
    }

    /// The transaction has ended: the connection goes back to the pool.
    pub(crate) fn ended(mut self) {
        drop(self.conn.take());
    }

    /// Roll the transaction back (after a failure before its commit), then give the
    /// connection back; if `ROLLBACK` itself failed, close it instead. After a failed
    /// pipelined `COMMIT` no transaction is left and the server only warns.
    pub(crate) async fn roll_back(mut self) {
        if self.batch_execute("ROLLBACK").await.is_ok() {
            self.ended();
        } else if let Some(conn) = self.conn.take() {
            conn.detach();
        }
    }

    /// End the transaction after [`commit_with`] (or [`commit`]) said `outcome`: a
    /// `Refused` last statement may have been one that could not even be prepared, before
    /// `COMMIT` was sent, so it is rolled back (where the server had already ended it, the
    /// `ROLLBACK` only warns); after any other outcome it has ended and the connection goes
    /// back to the pool.
    pub(crate) async fn end_after<T>(self, outcome: &Result<T, Ended>) {
        if matches!(outcome, Err(Ended::Refused(_))) {
            self.roll_back().await;
        } else {
            self.ended();
        }
    }
}

impl std::ops::Deref for HandTx {
    type Target = Conn;

    fn deref(&self) -> &Conn {
        self.conn.as_ref().expect("a HandTx holds its connection until it ends")
    }
}

impl Drop for HandTx {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            // Out of the pool and closed: the server rolls the transaction back.
            tracing::warn!("a hand-run transaction was dropped before it ended; its connection is closed");
            conn.detach();
        }
    }
}

/// Run `first` with `begin` (a `BEGIN …` text) sent before it in the same round trip; its
/// result.
///
/// `first` must be made of statements of `client` not yet polled, each **already prepared**
/// (a `Statement`, as from `prepare_cached`): tokio-postgres encodes and queues a prepared
/// statement's whole request when its future is first polled, and `join!` here is `biased`,
/// so `begin` is queued first. With a `&str` only its Parse would be queued at that first
/// poll, and the statement itself could run after what follows it.
pub(crate) async fn begin_with<T>(
    client: &Conn,
    begin: &str,
    first: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    let (began, out) = tokio::join!(biased; client.batch_execute(begin), first);
    began?;
    out
}

/// How a transaction's last statement and its pipelined `COMMIT` went wrong.
#[derive(Debug)]
pub(crate) enum Ended {
    /// The last statement failed with an SQLSTATE, or was never sent (a parameter the client
    /// could not encode) while `COMMIT` went through: it applied nothing, and the
    /// transaction has ended (after an error PostgreSQL answers `COMMIT` with a rollback).
    /// Callers also use it for a last statement that could not be prepared, before
    /// `COMMIT` was sent: the transaction is then still open, so every caller rolls back
    /// after `Refused` (a `ROLLBACK` outside a transaction only warns).
    Refused(Error),
    /// The connection broke: the transaction may or may not have committed.
    Unknown,
    /// `COMMIT` failed with an SQLSTATE (40001 at commit, say): nothing was applied.
    CommitFailed(Error),
}

/// Run `last` and `COMMIT` in one round trip; `last`'s result once committed. `last` must be
/// a statement of `client` not yet polled and already prepared, as for [`begin_with`]: with
/// a `&str`, `COMMIT` could run before it, and it in a transaction of its own.
pub(crate) async fn commit_with<T>(client: &Conn, last: impl Future<Output = Result<T, Error>>) -> Result<T, Ended> {
    let (out, committed) = tokio::join!(biased; last, client.batch_execute("COMMIT"));
    match (out, committed) {
        (Ok(out), Ok(())) => Ok(out),
        (Err(e), committed) if e.code().is_some() || committed.is_ok() => Err(Ended::Refused(e)),
        (Err(_), _) => Err(Ended::Unknown),
        (Ok(_), Err(e)) => Err(commit_failed(e)),
    }
}

/// `COMMIT` alone (a transaction with nothing left to write).
pub(crate) async fn commit(client: &Conn) -> Result<(), Ended> {
    client.batch_execute("COMMIT").await.map_err(commit_failed)
}

/// An error of `COMMIT` itself: with an SQLSTATE the server refused the commit; without one
/// the connection broke while committing (see `engine/tx.rs`'s `commit_error`).
fn commit_failed(e: Error) -> Ended {
    if e.code().is_some() {
        Ended::CommitFailed(e)
    } else {
        Ended::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::{begin_with, commit_with, Ended, HandTx};
    use crate::engine::conn::Db;
    use crate::engine::test_schema::TestSchema;

    /// Dropped inside its transaction (as by a panic), a `HandTx` takes its connection out of
    /// the pool and closes it: the server rolls back and frees the lock, and the connection does not go
    /// back to the pool.
    #[tokio::test]
    async fn a_transaction_dropped_before_its_end_leaves_the_pool() {
        let schema = TestSchema::new("t_hand_tx_drop").await;
        let store = schema.store().await;
        let tx = HandTx::new(store.client().await.unwrap());
        // A key of this run's own: advisory locks are shared by the whole database.
        let key = i64::from(rand::random::<u32>()) | 0x0a11_0000_0000;
        let lock = tx.prepare_cached("SELECT pg_advisory_xact_lock($1)").await.unwrap();
        begin_with(&tx, "BEGIN", tx.execute(&lock, &[&key])).await.unwrap();
        let size = store.pool().status().size;
        drop(tx);
        assert_eq!(
            store.pool().status().size,
            size - 1,
            "the connection went back to the pool"
        );
        // Waits (bounded) for the lock the dropped transaction held: granted once the
        // server has seen the connection close.
        schema
            .admin
            .batch_execute(&format!(
                "BEGIN; SET LOCAL lock_timeout = '20s'; SELECT pg_advisory_xact_lock({key}); COMMIT"
            ))
            .await
            .expect("the dropped transaction's lock was never freed");
        schema.drop().await;
    }

    /// A statement the server refuses, pipelined with `COMMIT`, is `Refused` with its
    /// SQLSTATE and undoes the transaction's earlier write; one that succeeds commits both; a
    /// commit the server refuses (a deferred constraint) is `CommitFailed` and applies
    /// nothing; a transaction that ended goes back to the pool.
    #[tokio::test]
    async fn the_last_statement_commits_or_is_refused() {
        let schema = TestSchema::new("t_hand_tx_commit").await;
        let store = schema.store().await;
        let c = store.client().await.unwrap();
        c.batch_execute(
            "CREATE TABLE t_hand (n int PRIMARY KEY);
             CREATE TABLE t_late (n int UNIQUE DEFERRABLE INITIALLY DEFERRED)",
        )
        .await
        .unwrap();
        drop(c);
        // (table of the last write, its value, how it ends): 0 commits, 1 refused (a
        // duplicate key at once), 2 the commit fails (a duplicate key checked at COMMIT).
        for (table, n, ends) in [("t_hand", 1, 0), ("t_hand", 1, 1), ("t_late", 5, 2), ("t_hand", 2, 0)] {
            let tx = HandTx::new(store.client().await.unwrap());
            let first = tx.prepare_cached("INSERT INTO t_hand VALUES ($1)").await.unwrap();
            let rows = if ends == 0 { "($1)" } else { "($1), ($1)" };
            let last = tx
                .prepare_text(&format!("INSERT INTO {table} VALUES {rows}"))
                .await
                .unwrap();
            let first_n = 100 + n + 10 * ends;
            begin_with(&tx, "BEGIN", tx.execute(&first, &[&first_n])).await.unwrap();
            let size = store.pool().status().size;
            match (commit_with(&tx, tx.execute(&last, &[&n])).await, ends) {
                (Ok(1), 0) => {}
                (Err(Ended::Refused(e)), 1) | (Err(Ended::CommitFailed(e)), 2) => {
                    assert_eq!(e.code(), Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION))
                }
                (other, _) => panic!("{table} {n}: {other:?}"),
            }
            tx.ended();
            assert_eq!(store.pool().status().size, size);
        }
        let c = store.client().await.unwrap();
        let kept: Vec<i32> = c
            .query("SELECT n FROM t_hand ORDER BY n", &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert_eq!(kept, [1, 2, 101, 102], "a refused or failed transaction left a write");
        let late: i64 = c.query_one("SELECT count(*) FROM t_late", &[]).await.unwrap().get(0);
        assert_eq!(late, 0);
        assert!(c.batch_execute("SAVEPOINT s").await.is_err(), "still in a transaction");
        drop(c);
        schema.drop().await;
    }
}
