//! What a window wrote to PostgreSQL's write-ahead log, read back with `pg_walinspect`
//! (PostgreSQL docs, "pg_walinspect"): the bytes of its records and the heap rows they
//! insert, update or delete. On the bench's own cluster (`full_page_writes = off`,
//! autovacuum off, no other database), so the same requests write the same records.

use crate::error::BenchError;
use tokio_postgres::Client;

/// What one window wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct WalCounts {
    /// Bytes of the WAL records (`record_length`, headers included; no full-page images).
    pub wal_bytes: u64,
    /// Heap rows inserted, updated (HOT or not) or deleted.
    pub rows_written: u64,
}

/// The position a window starts at: the WAL flushed so far.
pub async fn position(db: &Client) -> Result<String, BenchError> {
    let row = db
        .query_one("SELECT pg_current_wal_flush_lsn()::text", &[])
        .await
        .map_err(|e| BenchError::Setup(format!("read the WAL position: {e}")))?;
    Ok(row.get(0))
}

/// The records from `start` to the WAL flushed now.
pub async fn since(db: &Client, start: &str) -> Result<WalCounts, BenchError> {
    let end = position(db).await?;
    if end == start {
        return Ok(WalCounts::default());
    }
    let row = db
        .query_one(
            "SELECT coalesce(sum(record_length), 0)::bigint,
                    count(*) FILTER (WHERE resource_manager = 'Heap'
                        AND split_part(record_type, '+', 1) IN ('INSERT', 'UPDATE', 'HOT_UPDATE', 'DELETE'))
               FROM pg_get_wal_records_info($1::text::pg_lsn, $2::text::pg_lsn)",
            &[&start, &end],
        )
        .await
        .map_err(|e| BenchError::Setup(format!("read the WAL records: {e}")))?;
    let (bytes, rows): (i64, i64) = (row.get(0), row.get(1));
    Ok(WalCounts {
        wal_bytes: bytes as u64,
        rows_written: rows as u64,
    })
}
