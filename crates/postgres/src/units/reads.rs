//! Reading units on PostgreSQL: a SKU's units by id with filters, and one unit by serial.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::support::page::{Listed, Page};
use allot_core::unit::{UnitFilter, UnitStatus, UnitView};
use allot_core::{AllotError, Result};
use std::sync::LazyLock;

const COLS: &str = "id, serial, location, lot, received_at, expires_at, status, claim_id";

fn view_of(r: &tokio_postgres::Row) -> Result<UnitView> {
    let status: &str = r.get("status");
    Ok(UnitView {
        unit: crate::engine::records::unit_of(r),
        status: UnitStatus::parse(status).ok_or_else(|| AllotError::Internal(format!("unit status `{status}`")))?,
        claim_id: r.get("claim_id"),
    })
}

impl PgStore {
    /// See `UnitStore::list_units`.
    pub(crate) async fn units_of(
        &self,
        tenant: &str,
        sku: &str,
        f: &UnitFilter,
        page: Page<i64>,
    ) -> Result<Listed<UnitView, i64>> {
        let c = self.client().await?;
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {COLS} FROM units WHERE tenant = $1 AND sku = $2 AND id > $3
                    AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR location = $5)
                    AND ($6::text IS NULL OR lot = $6)
                  ORDER BY id LIMIT $7"
            )
        });
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        let status = f.status.map(UnitStatus::as_str);
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
            &tenant,
            &sku,
            &page.after,
            &status,
            &f.location,
            &f.lot,
            &i64::from(page.probe_limit()),
        ];
        let rows = c.query(&stmt, &params).await.map_err(map_error)?;
        if rows.is_empty() {
            // Tell "no such units" from "no such SKU" (a SKU that tracks counts has none).
            let stmt = c
                .prepare_cached("SELECT 1 FROM skus WHERE tenant = $1 AND sku = $2")
                .await
                .map_err(map_error)?;
            if c.query_opt(&stmt, &[&tenant, &sku]).await.map_err(map_error)?.is_none() {
                return Err(AllotError::not_found("sku", sku));
            }
        }
        let units = rows.iter().map(view_of).collect::<Result<Vec<_>>>()?;
        Ok(Listed::from_probe(units, &page, |u| u.unit.id))
    }

    /// See `UnitStore::get_unit`.
    pub(crate) async fn unit_by_serial(&self, tenant: &str, sku: &str, serial: &str) -> Result<UnitView> {
        let c = self.client().await?;
        static SQL: LazyLock<String> =
            LazyLock::new(|| format!("SELECT {COLS} FROM units WHERE tenant = $1 AND sku = $2 AND serial = $3"));
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        match c.query_opt(&stmt, &[&tenant, &sku, &serial]).await.map_err(map_error)? {
            Some(r) => view_of(&r),
            None => Err(AllotError::not_found("unit", format!("{sku}/{serial}"))),
        }
    }
}
