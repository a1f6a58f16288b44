//! Per-slot events on PostgreSQL (`resource.sold_out`, `resource.back_in_stock`): a writer
//! holding the resource's advisory lock compares the fill of the slots it changed with the
//! slots `slots_sold_out` says were announced (V33), and writes each edge with its event
//! (`allot_core::booking::fill`). A booking, a reschedule and a slot capacity put announce in
//! their own transaction; a cancel, a release and the sweeper's expiry in one right after
//! theirs (taking the lock first, as every writer on the resource does, so no lock cycle with
//! a booking that expires overdue holds), which a crash can skip: the next writer on the slot
//! then announces it, since the comparison is with the level, not with the change.

use super::capacity;
use crate::engine::conn::Db;
use crate::engine::store::PgStore;
use crate::engine::tx::TxResult;
use allot_core::booking::fill::{self, FillEdge};
use allot_core::booking::judge::Picture;
use allot_core::Capable;
use chrono::{DateTime, Utc};

type Range = (DateTime<Utc>, DateTime<Utc>);

/// The slot starts of `resource` in `[from, to)` announced sold out.
pub(super) async fn announced<C: Db>(
    c: &C,
    tenant: &str,
    resource: &str,
    (from, to): Range,
) -> TxResult<Vec<DateTime<Utc>>> {
    let stmt = c
        .prepare_cached(
            "SELECT slot_start FROM slots_sold_out
              WHERE tenant = $1 AND resource = $2 AND slot_start >= $3 AND slot_start < $4",
        )
        .await?;
    let rows = c.query(&stmt, &[&tenant, &resource, &from, &to]).await?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// Write the edges of `p`'s fill over `range` against `announced` (read under the same
/// lock), each with its event at `now`. No statement when nothing changed.
pub(super) async fn announce(
    tx: &impl Db,
    tenant: &str,
    p: &Picture,
    range: Range,
    announced: &[DateTime<Utc>],
    now: DateTime<Utc>,
) -> TxResult<()> {
    let resource = p.resource.resource.as_str();
    for change in fill::changes(&fill::own_fill(p, range.0, range.1), announced) {
        // The level's row decides: an edge is written only if its row really changed.
        let sql = match change.edge {
            FillEdge::SoldOut => {
                "WITH edge AS (INSERT INTO slots_sold_out (tenant, resource, slot_start) VALUES ($1, $2, $3)
                               ON CONFLICT DO NOTHING RETURNING 1)
                 INSERT INTO events (tenant, type, object, data, at)
                 SELECT $1, $4, $2, $5::text::json, $6 FROM edge"
            }
            FillEdge::BackInStock => {
                "WITH edge AS (DELETE FROM slots_sold_out WHERE tenant = $1 AND resource = $2 AND slot_start = $3
                               RETURNING 1)
                 INSERT INTO events (tenant, type, object, data, at)
                 SELECT $1, $4, $2, $5::text::json, $6 FROM edge"
            }
        };
        let stmt = tx.prepare_cached(sql).await?;
        let data = change.data(resource).to_string();
        tx.execute(
            &stmt,
            &[
                &tenant,
                &resource,
                &change.slot.start,
                &change.edge.event_type().as_str(),
                &data,
                &now,
            ],
        )
        .await?;
    }
    Ok(())
}

impl PgStore {
    /// Announce the slots of `resource` that `[start, end)` touches, in a transaction of its
    /// own under the resource's lock (after a cancel, a release or an expiry committed). A
    /// failure is logged, not returned: the change it follows stands, and the next writer on
    /// those slots announces them.
    pub(super) async fn announce_after(&self, tenant: &str, resource: &str, (start, end): Range) {
        let out = self
            .retrying(|| async {
                self.write(tenant, None, async |tx| {
                    let r = capacity::locked_resource(tx, tenant, resource, false).await?;
                    if r.slot_ms.is_none() {
                        return Ok(());
                    }
                    let now = self.now();
                    let p = match capacity::picture(tx, tenant, r, (start, end), now).await {
                        // More slots than one request may touch: the next writer announces them.
                        Err(crate::engine::tx::TxErr::Fail(allot_core::AllotError::InvalidRequest(_))) => return Ok(()),
                        p => p?,
                    };
                    let Some(cover) = fill::cover(&p, start, end) else {
                        return Ok(());
                    };
                    let seen = announced(tx, tenant, resource, cover).await?;
                    announce(tx, tenant, &p, cover, &seen, now).await
                })
                .await
            })
            .await;
        if let Err(e) = out {
            tracing::warn!(tenant, resource, error = %e, "slot fill events not written; the next writer on these slots writes them");
        }
    }
}
