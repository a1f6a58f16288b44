//! Database errors mapped by SQLSTATE (never by message text), and rows decoded without
//! panicking.

use allot_core::AllotError;
use tokio_postgres::error::SqlState;

/// Whether a database error should make the whole transaction run again:
/// 40001 serialization_failure or 40P01 deadlock_detected.
pub fn is_retryable(e: &tokio_postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    )
}

/// Column `name` of `row` as a `T`, or an `Internal` error naming it: a stored value
/// that cannot be decoded fails the request that read it (logged with its request id by the
/// server), never the connection (`Row::get` panics).
pub(crate) fn col<'a, T: tokio_postgres::types::FromSql<'a>>(
    row: &'a tokio_postgres::Row,
    name: &str,
) -> allot_core::Result<T> {
    row.try_get(name).map_err(|e| {
        tracing::error!(column = name, error = %e, "a stored value could not be decoded");
        AllotError::Internal(format!("column {name} could not be decoded"))
    })
}

/// Map a database error to the domain error by SQLSTATE (never by message text).
pub fn map_error(e: tokio_postgres::Error) -> AllotError {
    if let Some(code) = e.code() {
        crate::engine::pooler::note_pooler_error(code);
    }
    match e.code() {
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED => {
            AllotError::Contention {
                attempts: 1,
                retry_after_ms: 10,
            }
        }
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => AllotError::Contention {
            attempts: 1,
            retry_after_ms: 10,
        },
        Some(c) if *c == SqlState::EXCLUSION_VIOLATION => AllotError::BookingOverlap {
            conflicting_booking_id: None,
        },
        Some(c) if *c == SqlState::QUERY_CANCELED => {
            AllotError::Unavailable("query canceled (57014), e.g. statement_timeout".into())
        }
        Some(c) if c.code().starts_with("08") || c.code().starts_with("57P") || c.code().starts_with("53") => {
            AllotError::Unavailable(format!("database unavailable (SQLSTATE {})", c.code()))
        }
        Some(c) => AllotError::Internal(format!("database error SQLSTATE {}: {e}", c.code())),
        None if e.is_closed() => AllotError::Unavailable("database connection closed".into()),
        None => {
            use std::error::Error as _;
            if e.source().is_some_and(|s| s.is::<std::io::Error>()) {
                AllotError::Unavailable(format!("database io error: {e}"))
            } else {
                AllotError::Internal(format!("database client error: {e}"))
            }
        }
    }
}
