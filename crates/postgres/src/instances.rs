//! The instances' heartbeats on PostgreSQL (V23): `Maintenance::heartbeat` and `instances`.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::instance::Instance;
use allot_core::Result;
use chrono::{DateTime, Utc};

/// Insert instance `$1` or move its `seen_at`; then forget those not seen since `$5`.
const SQL_HEARTBEAT: &str = "WITH seen AS (
        INSERT INTO instances (id, version, started_at, seen_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, version = excluded.version
        RETURNING id)
    DELETE FROM instances WHERE seen_at < $5 AND id NOT IN (SELECT id FROM seen)";

impl PgStore {
    pub(crate) async fn run_heartbeat(&self, instance: &Instance, forget_before: DateTime<Utc>) -> Result<()> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(SQL_HEARTBEAT).await.map_err(map_error)?;
        let i = instance;
        c.execute(&stmt, &[&i.id, &i.version, &i.started_at, &i.seen_at, &forget_before])
            .await
            .map_err(map_error)?;
        Ok(())
    }

    pub(crate) async fn run_instances(&self, seen_since: DateTime<Utc>, max: u32) -> Result<Vec<Instance>> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT id, version, started_at, seen_at FROM instances WHERE seen_at >= $1
                  ORDER BY started_at, id LIMIT $2",
                &[&seen_since, &i64::from(max)],
            )
            .await
            .map_err(map_error)?;
        Ok(rows
            .iter()
            .map(|r| Instance {
                id: r.get(0),
                version: r.get(1),
                started_at: r.get(2),
                seen_at: r.get(3),
            })
            .collect())
    }
}
