//! The change feed on SQLite: reading a tenant's events and retention. The events are
//! written by the triggers of V12 in the statement of each change, each taking its tenant's
//! next cursor in that transaction: one writer commits transactions one at a time, so the
//! cursor has no gap and a reader never sees a later cursor before an earlier one.

use crate::engine::clock::{from_us, us};
use crate::engine::errors::{map_error, stored_json};
use crate::engine::store::SqliteStore;
use allot_core::event::{Event, EventPage, EventQuery, EventType};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, EventStore, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

/// A page of `?1`'s events after `?2`, of the types in the JSON array `?3` (all when NULL),
/// about `?4` (any when NULL), of SKU `?6` (its own events, those whose `data.sku` is it and
/// the `hold.*` events with a line of it; any when NULL), at most `?5`.
const SQL_PAGE: &str = "SELECT cursor, type, object, data, at_us FROM events
     WHERE tenant = ?1 AND cursor > ?2 AND (?3 IS NULL OR type IN (SELECT value FROM json_each(?3)))
       AND (?4 IS NULL OR object = ?4)
       AND (?6 IS NULL OR object = ?6 OR json_extract(data, '$.sku') = ?6
            OR (type LIKE 'hold.%' AND EXISTS (SELECT 1 FROM json_each(data, '$.lines') l
                                               WHERE json_extract(l.value, '$.sku') = ?6)))
     ORDER BY cursor LIMIT ?5";

#[async_trait]
impl EventStore for SqliteStore {
    async fn events(&self, tenant: &Tenant, query: &EventQuery) -> Result<EventPage> {
        let (t, q) = (tenant.to_string(), query.clone());
        let types = (!q.types.is_empty())
            .then(|| serde_json::to_string(&q.types.iter().map(|t| t.as_str()).collect::<Vec<_>>()))
            .transpose()
            .map_err(|e| AllotError::Internal(e.to_string()))?;
        self.call(move |c| {
            // One connection, one writer: the page and the top are read in the same state.
            let tx = c.transaction().map_err(map_error)?;
            let events = tx
                .prepare_cached(SQL_PAGE)
                .and_then(|mut s| {
                    s.query_map(params![t, q.after, types, q.object, q.limit, q.sku], event_of)?
                        .collect::<rusqlite::Result<Vec<_>>>()
                })
                .map_err(map_error)?;
            let top: Option<i64> = tx
                .query_row("SELECT max(cursor) FROM events WHERE tenant = ?1", [&t], |r| r.get(0))
                .map_err(map_error)?;
            Ok(EventPage::of(events, &q, top))
        })
        .await
    }

    async fn wait_for_events(&self, _tenant: &Tenant, max_wait: std::time::Duration) {
        let poll = std::time::Duration::from_millis(self.limits.event_poll_interval_ms);
        let _ = tokio::time::timeout(max_wait.min(poll), self.event_signal.notified()).await;
    }

    async fn last_cursor(&self, tenant: &Tenant) -> Result<i64> {
        let t = tenant.to_string();
        self.call(move |c| {
            c.query_row("SELECT last FROM event_cursors WHERE tenant = ?1", [&t], |r| r.get(0))
                .optional()
                .map(|last| last.unwrap_or(0))
                .map_err(map_error)
        })
        .await
    }
}

/// An event from its row (by column name).
fn event_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Event> {
    let name: String = r.get("type")?;
    let kind = EventType::parse(&name).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            1,
            rusqlite::types::Type::Text,
            format!("an event of unknown type {name}").into(),
        )
    })?;
    Ok(Event {
        cursor: r.get("cursor")?,
        kind,
        object: r.get("object")?,
        data: stored_json(r, "data")?.unwrap_or_default(),
        at: from_us(r.get("at_us")?),
    })
}

impl SqliteStore {
    /// See [`allot_core::Maintenance::prune_events`].
    pub(crate) async fn run_prune_events(&self, before: DateTime<Utc>, max: u32) -> Result<u64> {
        let before = us(before);
        self.call(move |c| {
            c.execute(
                "DELETE FROM events WHERE rid IN (
                    SELECT e.rid FROM events e
                     WHERE e.at_us < ?1
                     ORDER BY e.rid LIMIT ?2)",
                params![before, max.max(1)],
            )
            .map(|n| n as u64)
            .map_err(map_error)
        })
        .await
    }
}
