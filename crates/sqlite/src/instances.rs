//! The instances' heartbeats on SQLite (V18): `Maintenance::heartbeat` and `instances`.

use crate::engine::clock::{from_us, us};
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::instance::Instance;
use allot_core::Result;
use chrono::{DateTime, Utc};
use rusqlite::params;

impl SqliteStore {
    pub(crate) async fn run_heartbeat(&self, instance: &Instance, forget_before: DateTime<Utc>) -> Result<()> {
        let i = instance.clone();
        self.call(move |c| {
            c.prepare_cached(
                "INSERT INTO instances (id, version, started_at_us, seen_at_us) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (id) DO UPDATE SET seen_at_us = excluded.seen_at_us, version = excluded.version",
            )
            .and_then(|mut s| s.execute(params![i.id, i.version, us(i.started_at), us(i.seen_at)]))
            .map_err(map_error)?;
            c.prepare_cached("DELETE FROM instances WHERE seen_at_us < ?1 AND id <> ?2")
                .and_then(|mut s| s.execute(params![us(forget_before), i.id]))
                .map_err(map_error)?;
            Ok(())
        })
        .await
    }

    pub(crate) async fn run_instances(&self, seen_since: DateTime<Utc>, max: u32) -> Result<Vec<Instance>> {
        self.call(move |c| {
            c.prepare_cached(
                "SELECT id, version, started_at_us, seen_at_us FROM instances WHERE seen_at_us >= ?1
                  ORDER BY started_at_us, id LIMIT ?2",
            )
            .and_then(|mut s| {
                s.query_map(params![us(seen_since), max], |r| {
                    Ok(Instance {
                        id: r.get(0)?,
                        version: r.get(1)?,
                        started_at: from_us(r.get(2)?),
                        seen_at: from_us(r.get(3)?),
                    })
                })?
                .collect()
            })
            .map_err(map_error)
        })
        .await
    }
}
