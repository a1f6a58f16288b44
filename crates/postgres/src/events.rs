//! The change feed on PostgreSQL: reading a tenant's events, the sequencer that gives
//! committed events their cursors, and retention. The events themselves are written by the
//! triggers of V16, in the statement of each change.
//!
//! Why the cursor has no gap and nothing appears behind a reader: a writer leaves `cursor`
//! NULL; [`PgStore::run_sequence_events`] numbers the events committed so far, oldest first,
//! each tenant's after its `event_cursors.last`, in one transaction under an advisory lock
//! (one sequencer at a time across every allot instance). A reader only sees numbered
//! events. Numbers go only to committed events, and the transactions that give them commit
//! one after another, so when cursor N is visible every cursor below it is too. A writer's
//! transaction that commits late is simply numbered in a later round. Cost: one INSERT per
//! event on the writer's path (no counter row to queue on), one UPDATE per event in the
//! background, and a feed that runs up to one sequencer interval behind the writes.

use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::event::{Event, EventPage, EventQuery, EventType};
use allot_core::tenant::Tenant;
use allot_core::{AllotError, EventStore, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

/// The advisory lock class of the sequencer (`pg_try_advisory_xact_lock(class, 0)`); the
/// other classes are the jobs' and the idempotency keys'.
const SEQUENCER_LOCK_CLASS: i32 = 0x0a11_0e5e;

/// Number up to `$1` committed events: per tenant, oldest first, after the tenant's last.
const SQL_SEQUENCE: &str = "WITH pending AS (
        SELECT id, tenant FROM events WHERE cursor IS NULL ORDER BY id LIMIT $1),
    numbered AS (
        SELECT id, tenant, row_number() OVER (PARTITION BY tenant ORDER BY id) AS n FROM pending),
    counts AS (SELECT tenant, count(*) AS taken FROM pending GROUP BY tenant),
    bumped AS (
        INSERT INTO event_cursors AS ec (tenant, last) SELECT tenant, taken FROM counts
        ON CONFLICT (tenant) DO UPDATE SET last = ec.last + EXCLUDED.last
        RETURNING tenant, last)
    UPDATE events ev SET cursor = b.last - c.taken + nb.n
      FROM numbered nb JOIN counts c ON c.tenant = nb.tenant JOIN bumped b ON b.tenant = nb.tenant
     WHERE ev.id = nb.id";

/// Whether any written event waits for its cursor.
const SQL_PENDING: &str = "SELECT EXISTS (SELECT 1 FROM events WHERE cursor IS NULL) AS pending";

/// A page of `$1`'s events after `$2`, of types `$3` (all when NULL), about `$4` (any when
/// NULL), at most `$5`; every row also carries the tenant's highest cursor, read in the same
/// snapshot (one row of NULLs and `top` when the page is empty).
const SQL_PAGE: &str = "SELECT p.cursor, p.type, p.object, p.data, p.at, t.top
      FROM (SELECT max(cursor) AS top FROM events WHERE tenant = $1 AND cursor IS NOT NULL) t
      LEFT JOIN LATERAL (
        SELECT cursor, type, object, data, at FROM events
         WHERE tenant = $1 AND cursor > $2 AND ($3::text[] IS NULL OR type = ANY($3))
           AND ($4::text IS NULL OR object = $4)
         ORDER BY cursor LIMIT $5) p ON true
     ORDER BY p.cursor";

/// Delete up to `$2` numbered events before `$1`.
const SQL_PRUNE: &str = "WITH batch AS MATERIALIZED (
        SELECT e.id FROM events e WHERE e.at < $1 AND e.cursor IS NOT NULL ORDER BY e.id LIMIT $2)
    DELETE FROM events USING batch WHERE events.id = batch.id";

#[async_trait]
impl EventStore for PgStore {
    async fn events(&self, tenant: &Tenant, query: &EventQuery) -> Result<EventPage> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_PAGE).await.map_err(map_error)?;
        let types: Option<Vec<&str>> =
            (!query.types.is_empty()).then(|| query.types.iter().map(|t| t.as_str()).collect());
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
            &tenant.as_str(),
            &query.after,
            &types,
            &query.object,
            &i64::from(query.limit),
        ];
        let rows = c.query(&stmt, &params).await.map_err(map_error)?;
        let top: Option<i64> = rows.first().and_then(|r| r.get("top"));
        let mut events = Vec::with_capacity(rows.len());
        for r in rows.iter().filter(|r| r.get::<_, Option<i64>>("cursor").is_some()) {
            events.push(event_of(r)?);
        }
        Ok(EventPage::of(events, query, top))
    }

    async fn wait_for_events(&self, _tenant: &Tenant, max_wait: std::time::Duration) {
        let poll = std::time::Duration::from_millis(self.limits.event_poll_interval_ms);
        let _ = tokio::time::timeout(max_wait.min(poll), self.event_signal.notified()).await;
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
    /// See [`allot_core::Maintenance::sequence_events`]: one transaction, skipped (0) while
    /// another instance's sequencer holds the lock. Wakes this instance's waiting readers
    /// when it numbered any.
    pub(crate) async fn run_sequence_events(&self, max: u32) -> Result<u64> {
        let mut c = self.client().await?;
        // Idle rounds cost one probe of the partial index, no transaction and no lock.
        let stmt = c.prepare_cached(SQL_PENDING).await.map_err(map_error)?;
        if !c
            .query_one(&stmt, &[])
            .await
            .map_err(map_error)?
            .get::<_, bool>("pending")
        {
            return Ok(0);
        }
        let tx = c.transaction().await.map_err(map_error)?;
        let locked: bool = tx
            .query_one("SELECT pg_try_advisory_xact_lock($1, 0)", &[&SEQUENCER_LOCK_CLASS])
            .await
            .map_err(map_error)?
            .get(0);
        if !locked {
            return Ok(0);
        }
        let stmt = tx.prepare_cached(SQL_SEQUENCE).await.map_err(map_error)?;
        let n = tx.execute(&stmt, &[&i64::from(max.max(1))]).await.map_err(map_error)?;
        tx.commit().await.map_err(map_error)?;
        if n > 0 {
            self.event_signal.notify_waiters();
        }
        Ok(n)
    }

    /// See [`allot_core::Maintenance::oldest_unsequenced_event`]: the first waiting event by
    /// id (ids are drawn in time order, so it is the oldest but for a few µs of skew).
    pub(crate) async fn run_oldest_unsequenced_event(&self) -> Result<Option<DateTime<Utc>>> {
        let c = self.client().await?;
        let row = c
            .query_opt("SELECT at FROM events WHERE cursor IS NULL ORDER BY id LIMIT 1", &[])
            .await
            .map_err(map_error)?;
        Ok(row.map(|r| r.get("at")))
    }

    /// See [`allot_core::Maintenance::prune_events`].
    pub(crate) async fn run_prune_events(&self, before: DateTime<Utc>, max: u32) -> Result<u64> {
        let c = self.client().await?;
        c.execute(SQL_PRUNE, &[&before, &i64::from(max.max(1))])
            .await
            .map_err(map_error)
    }
}
