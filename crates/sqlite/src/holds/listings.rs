//! The cursor listing of holds: one statement for the rows (a unit hold's units per hold) on
//! the writer thread.

use super::read_holds_page;
use crate::engine::clock::now_us;
use crate::engine::store::SqliteStore;
use allot_core::hold::HoldStatus;
use allot_core::support::page::{Listed, Page};
use allot_core::{Hold, Result};

impl SqliteStore {
    /// See `HoldStore::list_holds`.
    pub(crate) async fn holds_page(
        &self,
        tenant: &str,
        (status, sku): (HoldStatus, Option<&str>),
        page: Page<Option<&str>>,
    ) -> Result<Listed<Hold, String>> {
        let (t, after, sku) = (
            tenant.to_string(),
            page.after.map(str::to_string),
            sku.map(str::to_string),
        );
        let (limit, shape) = (page.probe_limit(), Page::new((), page.limit));
        self.call(move |c| {
            let now = now_us();
            let filter = "(?2 IS NULL OR (h.expires_at_us, h.id) >
                               (SELECT p.expires_at_us, p.id FROM holds p WHERE p.tenant = ?1 AND p.id = ?2))
                          AND CASE ?3 WHEN 'held' THEN h.status = 'held' AND h.expires_at_us > ?4
                                      WHEN 'expired' THEN h.status = 'expired' OR (h.status = 'held' AND h.expires_at_us <= ?4)
                                      ELSE h.status = ?3 END
                          AND (?6 IS NULL OR EXISTS (SELECT 1 FROM hold_lines l
                                 WHERE l.tenant = ?1 AND l.hold_id = h.id AND l.sku = ?6))
                        ORDER BY h.expires_at_us, h.id LIMIT ?5";
            let p: [&dyn rusqlite::ToSql; 5] = [&after, &status.as_str(), &now, &limit, &sku];
            read_holds_page(c, (&t, filter), &p, now, &shape)
        })
        .await
    }
}
