//! Reading units on PostgreSQL: a SKU's units by id with filters, and one unit by serial.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use allot_core::support::page::{Listed, Page};
use allot_core::unit::{UnitFilter, UnitStatus, UnitView};
use allot_core::{AllotError, Capable, Result};
use std::sync::LazyLock;

/// The units with what each reads as at the instant of parameter `$now` (`{now}`): a unit of a
/// hold that expired reads `available` with no claim, as the hold's quantity does, before any
/// sweeper finalises the hold (found by the simulation: the listing read `held`).
fn units_at(now: &str) -> String {
    format!(
        "(SELECT u.id, u.serial, u.location, u.lot, u.received_at, u.expires_at, u.tenant, u.sku,
                 CASE WHEN h.id IS NOT NULL THEN 'available' ELSE u.status END AS status,
                 CASE WHEN h.id IS NOT NULL THEN NULL ELSE u.claim_id END AS claim_id
            FROM units u LEFT JOIN holds h
              ON u.status = 'held' AND h.tenant = u.tenant AND h.id = u.claim_id
             AND h.status = 'held' AND h.expires_at <= {now}) v"
    )
}

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
                "SELECT {COLS} FROM {} WHERE tenant = $1 AND sku = $2 AND id > $3
                    AND ($4::text IS NULL OR status = $4) AND ($5::text IS NULL OR location = $5)
                    AND ($6::text IS NULL OR lot = $6)
                  ORDER BY id LIMIT $7",
                units_at("$8")
            )
        });
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        let status = f.status.map(UnitStatus::as_str);
        let now = self.now();
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 8] = [
            &tenant,
            &sku,
            &page.after,
            &status,
            &f.location,
            &f.lot,
            &i64::from(page.probe_limit()),
            &now,
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
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {COLS} FROM {} WHERE tenant = $1 AND sku = $2 AND serial = $3",
                units_at("$4")
            )
        });
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        match c
            .query_opt(&stmt, &[&tenant, &sku, &serial, &self.now()])
            .await
            .map_err(map_error)?
        {
            Some(r) => view_of(&r),
            None => Err(AllotError::not_found("unit", format!("{sku}/{serial}"))),
        }
    }
}
