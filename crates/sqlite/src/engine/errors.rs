//! rusqlite errors mapped by SQLite result code (never by message text), and stored names
//! and documents read strictly.

use allot_core::AllotError;
use rusqlite::ErrorCode;

/// Map a rusqlite error to the domain error by SQLite result code.
pub fn map_error(e: rusqlite::Error) -> AllotError {
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => AllotError::Contention {
                attempts: 1,
                retry_after_ms: 100,
            },
            ErrorCode::CannotOpen | ErrorCode::SystemIoFailure | ErrorCode::DiskFull | ErrorCode::ReadOnly => {
                AllotError::Unavailable(format!("sqlite: {e}"))
            }
            _ => AllotError::Internal(format!("sqlite: {e}")),
        },
        _ => AllotError::Internal(format!("sqlite: {e}")),
    }
}

/// Column `i` parsed by `parse`; a stored name it does not know is a conversion error (never
/// a silent default).
pub(crate) fn stored_name<T, I: rusqlite::RowIndex>(
    r: &rusqlite::Row<'_>,
    column: I,
    parse: fn(&str) -> Option<T>,
) -> rusqlite::Result<T> {
    let i = column.idx(r.as_ref())?;
    let s: String = r.get(i)?;
    parse(&s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("unknown stored name `{s}`").into(),
        )
    })
}

/// Column `i`, a stored JSON document (`NULL` stays `None`); text that does not parse is a
/// conversion error (never a silent `null`).
pub(crate) fn stored_json<I: rusqlite::RowIndex>(
    r: &rusqlite::Row<'_>,
    column: I,
) -> rusqlite::Result<Option<serde_json::Value>> {
    let i = column.idx(r.as_ref())?;
    let Some(text) = r.get::<_, Option<String>>(i)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, Box::new(e)))
}
