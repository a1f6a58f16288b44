//! Kits on SQLite (see `allot_core::kit`): one row per kit, its components as JSON text,
//! written only when every component is a count-tracked SKU of the tenant.

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
            let mut found = Vec::with_capacity(kit.components.len());
            for c in &kit.components {
                let row = tx
                    .prepare_cached("SELECT tracking = 'units' FROM skus WHERE tenant = ?1 AND sku = ?2")
                    .and_then(|mut s| {
                        rusqlite::OptionalExtension::optional(s.query_row(params![t, c.sku], |r| r.get::<_, bool>(0)))
                    })
                    .map_err(map_error)?;
                if let Some(units) = row {
                    found.push((c.sku.clone(), units));
                }
            }
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
        let (t, names) = (tenant.to_string(), names.to_vec());
        self.call(move |c| {
            let mut kits = Kits::new();
            for name in &names {
                let json: Option<String> = c
                    .prepare_cached("SELECT components FROM kits WHERE tenant = ?1 AND kit = ?2")
                    .and_then(|mut s| {
                        rusqlite::OptionalExtension::optional(s.query_row(params![t, name], |r| r.get(0)))
                    })
                    .map_err(map_error)?;
                if let Some(json) = json {
                    let components = components_of(name, &json)?;
                    kits.insert(
                        name.clone(),
                        Kit {
                            kit: name.clone(),
                            components,
                        },
                    );
                }
            }
            Ok(kits)
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
