//! Kits on SQLite (see `allot_core::kit`): one row per kit, its components as JSON text,
//! written only when every component is a count-tracked SKU of the tenant; one statement
//! reads the components' SKUs, one the kits a request names.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::kit::{check_components, components_of, Kit, Kits};
use allot_core::{AllotError, Result};
use rusqlite::params;

impl SqliteStore {
    /// `StockStore::put_kit`, in one transaction: the components checked, the row written.
    pub(crate) async fn write_kit(&self, tenant: &str, kit: Kit) -> Result<Kit> {
        let t = tenant.to_string();
        self.transact(move |tx| {
            let skus: Vec<&str> = kit.components.iter().map(|c| c.sku.as_str()).collect();
            let skus = serde_json::to_string(&skus).map_err(|e| AllotError::Internal(e.to_string()))?;
            let found = tx
                .prepare_cached(
                    "SELECT sku, tracking = 'units' FROM skus
                      WHERE tenant = ?1 AND sku IN (SELECT value FROM json_each(?2))",
                )
                .and_then(|mut s| {
                    s.query_map(params![t, skus], |r| Ok((r.get::<_, String>(0)?, r.get::<_, bool>(1)?)))?
                        .collect::<rusqlite::Result<Vec<_>>>()
                })
                .map_err(map_error)?;
            check_components(&kit, &found)?;
            let json = serde_json::to_string(&kit.components).map_err(|e| AllotError::Internal(e.to_string()))?;
            tx.execute(
                "INSERT INTO kits (tenant, kit, components, updated_at_us) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (tenant, kit) DO UPDATE SET components = excluded.components,
                                                         updated_at_us = excluded.updated_at_us",
                params![t, kit.kit, json, now_us()],
            )
            .map_err(map_error)?;
            Ok(kit)
        })
        .await
    }

    /// `StockStore::kits`.
    pub(crate) async fn read_kits(&self, tenant: &str, names: &[String]) -> Result<Kits> {
        if names.is_empty() {
            return Ok(Kits::new());
        }
        let t = tenant.to_string();
        let names = serde_json::to_string(names).map_err(|e| AllotError::Internal(e.to_string()))?;
        self.call(move |c| {
            let rows = c
                .prepare_cached(
                    "SELECT kit, components FROM kits WHERE tenant = ?1 AND kit IN (SELECT value FROM json_each(?2))",
                )
                .and_then(|mut s| {
                    s.query_map(params![t, names], |r| {
                        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
                    })?
                    .collect::<rusqlite::Result<Vec<_>>>()
                })
                .map_err(map_error)?;
            rows.into_iter()
                .map(|(kit, json)| {
                    let components = components_of(&kit, &json)?;
                    Ok((kit.clone(), Kit { kit, components }))
                })
                .collect()
        })
        .await
    }

    /// `StockStore::delete_kit`.
    pub(crate) async fn remove_kit(&self, tenant: &str, kit: &str) -> Result<()> {
        let (t, kit) = (tenant.to_string(), kit.to_string());
        self.transact(move |tx| {
            let n = tx
                .execute("DELETE FROM kits WHERE tenant = ?1 AND kit = ?2", params![t, kit])
                .map_err(map_error)?;
            if n == 0 {
                return Err(AllotError::not_found("kit", &kit));
            }
            Ok(())
        })
        .await
    }
}
