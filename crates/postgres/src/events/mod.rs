//! The change feed on PostgreSQL: reading a tenant's events, and retention. Writers leave
//! the record of each change (V16); [`sequencer`] turns it into numbered events.

mod sequencer;

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::event::{Event, EventPage, EventQuery, EventType};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, EventStore, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// A page of `$1`'s events after `$2`, of types `$3` (all when NULL), about `$4` (any when
/// NULL), of SKU `$6` (its own events, those whose `data.sku` is it and the `hold.*` events
/// with a line of it; any when NULL), at
/// most `$5`; every row also carries the tenant's highest cursor, read in the same snapshot
/// (one row of NULLs and `top` when the page is empty).
const SQL_PAGE_FILTERED: &str = "SELECT p.cursor, p.type, p.object, p.data, p.at, t.top
      FROM (SELECT max(cursor) AS top FROM events WHERE tenant = $1 AND cursor IS NOT NULL) t
      LEFT JOIN LATERAL (
        SELECT cursor, type, object, data, at FROM events
         WHERE tenant = $1 AND cursor > $2 AND ($3::text[] IS NULL OR type = ANY($3))
           AND ($4::text IS NULL OR object = $4)
           AND ($6::text IS NULL OR object = $6 OR data->>'sku' = $6
                OR (type LIKE 'hold.%' AND EXISTS (SELECT 1 FROM json_array_elements(data->'lines') l
                                                   WHERE l->>'sku' = $6)))
         ORDER BY cursor LIMIT $5) p ON true
     ORDER BY p.cursor";

/// [`SQL_PAGE_FILTERED`] without filters (`$3` is the limit), the feed's common read (streams,
/// the webhook dispatcher): cursors have no gap, so the page is the key range after `$2` (or
/// after the oldest event retention kept) of `$3` cursors, an index range of the page's size
/// whatever the planner thinks of the table. Its `top` is the end of that range when the
/// tenant has more: retention prunes by time, so it may leave a hole, and a short page must
/// move `next` only as far as it looked.
const SQL_PAGE: &str =
    "SELECT p.cursor, p.type, p.object, p.data, p.at, CASE WHEN t.top > t.upto THEN t.upto ELSE t.top END AS top
      FROM (SELECT max(cursor) AS top, greatest($2, min(cursor) - 1) + $3 AS upto
              FROM events WHERE tenant = $1 AND cursor IS NOT NULL) t
      LEFT JOIN LATERAL (
        SELECT cursor, type, object, data, at FROM events
         WHERE tenant = $1 AND cursor > $2 AND cursor <= t.upto
         ORDER BY cursor) p ON true
     ORDER BY p.cursor";

/// Delete up to `$2` numbered events before `$1`.
const SQL_PRUNE: &str = "WITH batch AS MATERIALIZED (
        SELECT e.id FROM events e WHERE e.at < $1 AND e.cursor IS NOT NULL ORDER BY e.id LIMIT $2)
    DELETE FROM events USING batch WHERE events.id = batch.id";

#[async_trait]
impl EventStore for PgStore {
    async fn events(&self, tenant: &Tenant, query: &EventQuery) -> Result<EventPage> {
        let c = self.client().await?;
        let filtered = !query.types.is_empty() || query.object.is_some() || query.sku.is_some();
        let sql = if filtered { SQL_PAGE_FILTERED } else { SQL_PAGE };
        let stmt = c.prepare_cached(sql).await.map_err(map_error)?;
        let types: Option<Vec<&str>> =
            (!query.types.is_empty()).then(|| query.types.iter().map(|t| t.as_str()).collect());
        let (tenant, limit) = (tenant.as_str(), i64::from(query.limit));
        let rows = if filtered {
            c.query(
                &stmt,
                &[&tenant, &query.after, &types, &query.object, &limit, &query.sku],
            )
            .await
        } else {
            c.query(&stmt, &[&tenant, &query.after, &limit]).await
        }
        .map_err(map_error)?;
        let top: Option<i64> = rows.first().and_then(|r| r.get("top"));
        let mut events = Vec::with_capacity(rows.len());
        for r in rows.iter().filter(|r| r.get::<_, Option<i64>>("cursor").is_some()) {
            events.push(event_of(r)?);
        }
        Ok(EventPage::of(events, query, top))
    }

    async fn wait_for_events(&self, _tenant: &Tenant, max_wait: std::time::Duration) {
        let poll = std::time::Duration::from_millis(self.limits.event_poll_interval_ms);
        self.listener.wait_for_feed(max_wait.min(poll)).await;
    }

    async fn last_cursor(&self, tenant: &Tenant) -> Result<i64> {
        let c = self.client().await?;
        let row = c
            .query_opt("SELECT last FROM event_cursors WHERE tenant = $1", &[&tenant.as_str()])
            .await
            .map_err(map_error)?;
        Ok(row.map_or(0, |r| r.get(0)))
    }
}

/// An event from its row (by column name).
fn event_of(r: &tokio_postgres::Row) -> Result<Event> {
    let name: String = r.get("type");
    let kind =
        EventType::parse(&name).ok_or_else(|| AllotError::Internal(format!("an event of unknown type {name}")))?;
    Ok(Event {
        cursor: r.get("cursor"),
        kind,
        object: r.get("object"),
        data: r.get("data"),
        at: r.get("at"),
    })
}

impl PgStore {
    /// See [`allot_core::Maintenance::prune_events`].
    pub(crate) async fn run_prune_events(&self, before: DateTime<Utc>, max: u32) -> Result<u64> {
        let c = self.client().await?;
        c.execute(SQL_PRUNE, &[&before, &i64::from(max.max(1))])
            .await
            .map_err(map_error)
    }
}
