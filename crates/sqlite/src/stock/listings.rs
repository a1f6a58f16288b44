//! The cursor listings of SKUs and allocations, each page in one statement on the writer
//! thread (one snapshot).

use super::list_skus_with;
use crate::engine::clock::now_us;
use crate::engine::records::read_allocations;
use crate::engine::store::SqliteStore;
use allot_core::support::page::{Listed, Page};
use allot_core::{Allocation, Result, Sku};

impl SqliteStore {
    /// See `StockStore::list_skus`.
    pub(crate) async fn skus_page(
        &self,
        tenant: &str,
        filter: &allot_core::SkuFilter,
        page: Page<Option<&str>>,
    ) -> Result<Listed<Sku, String>> {
        let (t, after, filter) = (tenant.to_string(), page.after.unwrap_or("").to_string(), filter.clone());
        let probe = page.probe_limit();
        let skus = self
            .call(move |c| list_skus_with(c, &t, &after, &filter, probe, now_us()))
            .await?;
        Ok(Listed::from_probe(skus, &page, |s| s.sku.clone()))
    }

    /// See `StockStore::list_allocations`.
    pub(crate) async fn allocations_page(
        &self,
        tenant: &str,
        page: Page<Option<&str>>,
    ) -> Result<Listed<Allocation, String>> {
        let (t, after, limit) = (tenant.to_string(), page.after.map(str::to_string), page.probe_limit());
        let allocations = self
            .call(move |c| {
                let filter = "(?2 IS NULL OR (a.created_at_us, a.id) >
                           (SELECT p.created_at_us, p.id FROM allocations p WHERE p.tenant = ?1 AND p.id = ?2))
                          ORDER BY a.created_at_us, a.id LIMIT ?3";
                read_allocations(c, &t, filter, &[&after, &limit])
            })
            .await?;
        Ok(Listed::from_probe(allocations, &page, |a| a.id.clone()))
    }
}
