//! A job a claim picked, as the claim's statements read it (oldest first, limited or fair).

/// A picked job: id, payload text, attempt, max_attempts, priority, partition key.
pub(super) type Picked = (i64, String, i32, i32, i16, Option<String>);

/// A [`Picked`] of a row with those columns by name.
pub(super) fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Picked> {
    Ok((
        r.get("id")?,
        r.get("payload")?,
        r.get("attempt")?,
        r.get("max_attempts")?,
        r.get("priority")?,
        r.get("partition_key")?,
    ))
}
