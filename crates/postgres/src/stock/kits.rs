//! Kits on PostgreSQL (see `allot_core::kit`): one row per kit, its components as JSON. A
//! kit is written only when every component is a count-tracked SKU of the tenant; a request
//! through it reads it before anything is taken.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::kit::{check_components, components_of, Kit, Kits};
use allot_core::{AllotError, Capable, Result};
use tokio_postgres::types::ToSql;

/// `$1` tenant, `$2` SKUs: those that exist, and whether each counts units.
const SQL_TRACKING: &str = "SELECT sku, tracking = 'units' AS units FROM skus WHERE tenant = $1 AND sku = ANY($2)";
const SQL_PUT: &str = "INSERT INTO kits (tenant, kit, components, updated_at) VALUES ($1, $2, $3::text::jsonb, $4)
     ON CONFLICT (tenant, kit) DO UPDATE SET components = EXCLUDED.components, updated_at = EXCLUDED.updated_at";
const SQL_READ: &str = "SELECT kit, components::text AS components FROM kits WHERE tenant = $1 AND kit = ANY($2)";

impl PgStore {
    /// `StockStore::put_kit`.
    pub(crate) async fn write_kit(&self, tenant: &str, kit: Kit) -> Result<Kit> {
        let c = self.client().await?;
        let skus: Vec<&str> = kit.components.iter().map(|c| c.sku.as_str()).collect();
        let params: [&(dyn ToSql + Sync); 2] = [&tenant, &skus];
        let rows = c.query(SQL_TRACKING, &params).await.map_err(map_error)?;
        let found: Vec<(String, bool)> = rows.iter().map(|r| (r.get("sku"), r.get("units"))).collect();
        check_components(&kit, &found)?;
        let json = serde_json::to_string(&kit.components).map_err(|e| AllotError::Internal(e.to_string()))?;
        let now = self.now();
        let params: [&(dyn ToSql + Sync); 4] = [&tenant, &kit.kit, &json, &now];
        c.execute(SQL_PUT, &params).await.map_err(map_error)?;
        Ok(kit)
    }

    /// `StockStore::kits`.
    pub(crate) async fn read_kits(&self, tenant: &str, names: &[String]) -> Result<Kits> {
        if names.is_empty() {
            return Ok(Kits::new());
        }
        let c = self.client().await?;
        let params: [&(dyn ToSql + Sync); 2] = [&tenant, &names];
        let rows = c.query(SQL_READ, &params).await.map_err(map_error)?;
        rows.iter()
            .map(|r| {
                let kit: String = r.get("kit");
                let components = components_of(&kit, r.get("components"))?;
                Ok((kit.clone(), Kit { kit, components }))
            })
            .collect()
    }

    /// `StockStore::delete_kit`.
    pub(crate) async fn remove_kit(&self, tenant: &str, kit: &str) -> Result<()> {
        let c = self.client().await?;
        let n = c
            .execute("DELETE FROM kits WHERE tenant = $1 AND kit = $2", &[&tenant, &kit])
            .await
            .map_err(map_error)?;
        if n == 0 {
            return Err(AllotError::not_found("kit", kit));
        }
        Ok(())
    }
}
