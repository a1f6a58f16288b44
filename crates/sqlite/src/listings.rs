//! Cursor listings on SQLite: each page in one statement (a unit hold's units per hold), on
//! the writer thread, so one snapshot.

use crate::clock::now_us;
use crate::holds::{read_holds, unit_from_row};
use crate::location_rows::tracks_units;
use crate::map_error;
use crate::stock::{list_skus_with, read_allocations};
use crate::store::SqliteStore;
use allot_core::hold::HoldStatus;
use allot_core::unit::{UnitFilter, UnitStatus, UnitView};
use allot_core::*;
use rusqlite::{params, OptionalExtension};

impl SqliteStore {
    /// See `StockStore::list_skus`.
    pub(crate) async fn skus_page(
        &self,
        tenant: &str,
        after: Option<&str>,
        below: Option<i64>,
        limit: u32,
    ) -> Result<Vec<Sku>> {
        let (t, after) = (tenant.to_string(), after.unwrap_or("").to_string());
        self.call(move |c| list_skus_with(c, &t, &after, below, limit, now_us()))
            .await
    }

    /// See `StockStore::list_allocations`.
    pub(crate) async fn allocations_page(
        &self,
        tenant: &str,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Allocation>> {
        let (t, after) = (tenant.to_string(), after.map(str::to_string));
        self.call(move |c| {
            let filter = "(?2 IS NULL OR (a.created_at_us, a.id) >
                           (SELECT p.created_at_us, p.id FROM allocations p WHERE p.tenant = ?1 AND p.id = ?2))
                          ORDER BY a.created_at_us, a.id LIMIT ?3";
            read_allocations(c, &t, filter, &[&after, &limit])
        })
        .await
    }

    /// See `HoldStore::list_holds`.
    pub(crate) async fn holds_page(
        &self,
        tenant: &str,
        status: HoldStatus,
        after: Option<&str>,
        limit: u32,
    ) -> Result<Vec<Hold>> {
        let (t, after) = (tenant.to_string(), after.map(str::to_string));
        self.call(move |c| {
            let now = now_us();
            let filter = "(?2 IS NULL OR (h.expires_at_us, h.id) >
                               (SELECT p.expires_at_us, p.id FROM holds p WHERE p.tenant = ?1 AND p.id = ?2))
                          AND CASE ?3 WHEN 'held' THEN h.status = 'held' AND h.expires_at_us > ?4
                                      WHEN 'expired' THEN h.status = 'expired' OR (h.status = 'held' AND h.expires_at_us <= ?4)
                                      ELSE h.status = ?3 END
                        ORDER BY h.expires_at_us, h.id LIMIT ?5";
            read_holds(c, &t, filter, &[&after, &status.as_str(), &now, &limit], now)
        })
        .await
    }

    /// See `UnitStore::list_units`.
    pub(crate) async fn units_page(
        &self,
        tenant: &str,
        sku: &str,
        f: &UnitFilter,
        after: i64,
        limit: u32,
    ) -> Result<Vec<UnitView>> {
        let (t, sku, f) = (tenant.to_string(), sku.to_string(), f.clone());
        self.call(move |c| {
            // A SKU that tracks counts has no units: an empty page.
            if tracks_units(c, &t, &sku)?.is_none() {
                return Err(AllotError::not_found("sku", &sku));
            }
            let status = f.status.map(UnitStatus::as_str);
            c.prepare_cached(&format!(
                "SELECT {COLS} FROM units WHERE tenant = ?1 AND sku = ?2 AND id > ?3
                    AND (?4 IS NULL OR status = ?4) AND (?5 IS NULL OR location = ?5) AND (?6 IS NULL OR lot = ?6)
                  ORDER BY id LIMIT ?7"
            ))
            .and_then(|mut s| {
                s.query_map(params![t, sku, after, status, f.location, f.lot, limit], view_of)?
                    .collect()
            })
            .map_err(map_error)
        })
        .await
    }

    /// See `UnitStore::get_unit`.
    pub(crate) async fn unit_by_serial(&self, tenant: &str, sku: &str, serial: &str) -> Result<UnitView> {
        let (t, sku, serial) = (tenant.to_string(), sku.to_string(), serial.to_string());
        self.call(move |c| {
            c.prepare_cached(&format!(
                "SELECT {COLS} FROM units WHERE tenant = ?1 AND sku = ?2 AND serial = ?3"
            ))
            .and_then(|mut s| s.query_row(params![t, sku, serial], view_of).optional())
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("unit", format!("{sku}/{serial}")))
        })
        .await
    }
}

const COLS: &str = "id, serial, location, lot, received_at, expires_at, status, claim_id";

fn view_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<UnitView> {
    Ok(UnitView {
        unit: unit_from_row(r)?,
        status: crate::stored_name(r, 6, UnitStatus::parse)?,
        claim_id: r.get(7)?,
    })
}
