//! A SKU's units listed by id, and one unit by serial, on the writer thread.

use crate::engine::clock::now_us;
use crate::engine::errors::{map_error, stored_name};
use crate::engine::location_rows::tracks_units;
use crate::engine::records::unit_from_row;
use crate::engine::store::SqliteStore;
use allot_core::support::page::{Listed, Page};
use allot_core::unit::{UnitFilter, UnitStatus, UnitView};
use allot_core::{AllotError, Result};
use rusqlite::{params, OptionalExtension};

impl SqliteStore {
    /// See `UnitStore::list_units`.
    pub(crate) async fn units_page(
        &self,
        tenant: &str,
        sku: &str,
        f: &UnitFilter,
        page: Page<i64>,
    ) -> Result<Listed<UnitView, i64>> {
        let (t, sku, f) = (tenant.to_string(), sku.to_string(), f.clone());
        let (after, limit) = (page.after, page.probe_limit());
        let units = self
            .call(move |c| {
                // A SKU that tracks counts has no units: an empty page.
                if tracks_units(c, &t, &sku)?.is_none() {
                    return Err(AllotError::not_found("sku", &sku));
                }
                let status = f.status.map(UnitStatus::as_str);
                c.prepare_cached(&format!(
                    "SELECT {COLS} FROM {} WHERE tenant = ?1 AND sku = ?2 AND id > ?3
                    AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR location = ?5) AND (?6 IS NULL OR lot = ?6)
                  ORDER BY id LIMIT ?7",
                    units_at("?8")
                ))
                .and_then(|mut s| {
                    s.query_map(
                        params![t, sku, after, status, f.location, f.lot, limit, now_us()],
                        view_of,
                    )?
                    .collect()
                })
                .map_err(map_error)
            })
            .await?;
        Ok(Listed::from_probe(units, &page, |u: &UnitView| u.unit.id))
    }

    /// See `UnitStore::get_unit`.
    pub(crate) async fn unit_by_serial(&self, tenant: &str, sku: &str, serial: &str) -> Result<UnitView> {
        let (t, sku, serial) = (tenant.to_string(), sku.to_string(), serial.to_string());
        self.call(move |c| {
            c.prepare_cached(&format!(
                "SELECT {COLS} FROM {} WHERE tenant = ?1 AND sku = ?2 AND serial = ?3",
                units_at("?4")
            ))
            .and_then(|mut s| s.query_row(params![t, sku, serial, now_us()], view_of).optional())
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("unit", format!("{sku}/{serial}")))
        })
        .await
    }
}

const COLS: &str = "id, serial, location, lot, received_at, expires_at, status, claim_id";

/// The units with what each reads as at the instant (µs) of parameter `now`: a unit of a hold
/// that expired reads `available` with no claim, as the hold's quantity does, before any
/// sweeper finalises the hold (found by the simulation: the listing read `held`).
fn units_at(now: &str) -> String {
    format!(
        "(SELECT u.id, u.serial, u.location, u.lot, u.received_at, u.expires_at, u.tenant, u.sku,
                 CASE WHEN h.id IS NOT NULL THEN 'available' ELSE u.status END AS status,
                 CASE WHEN h.id IS NOT NULL THEN NULL ELSE u.claim_id END AS claim_id
            FROM units u LEFT JOIN holds h
              ON u.status = 'held' AND h.tenant = u.tenant AND h.id = u.claim_id
             AND h.status = 'held' AND h.expires_at_us <= {now}) v"
    )
}

fn view_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<UnitView> {
    Ok(UnitView {
        unit: unit_from_row(r)?,
        status: stored_name(r, "status", UnitStatus::parse)?,
        claim_id: r.get("claim_id")?,
    })
}
