//! Backorders filled where stock comes back (`allot_core::backorder`): the one call every
//! PostgreSQL writer that brings stock back makes in its transaction — a rebalance upwards
//! (`location_rows`), a partial confirm's released part, a lane's releases (pipelined) —
//! to `allot_fill_backorders` (V48), which `allot_finish_holds` calls itself after a release
//! or an expiry. Plumbing below them all: it uses no other engine module but the connection.

use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::tx::TxResult;
use chrono::{DateTime, Utc};

/// The fills at each (SKU, location) pair: `$1` the tenant, `$2`/`$3` the SKUs and locations
/// (pairwise), `$4` the actor, `$5` the instant (V48: pairs in byte order of SKU then
/// location, each fill one `backorder_filled` ledger entry; nothing written when nothing is
/// owed).
pub(crate) const SQL_FILL: &str = "SELECT allot_fill_backorders($1, $2, $3, $4, $5)";

/// Fill the owed lines of the SKUs `skus` that may use the locations `locations` (pairwise)
/// from what is available there now, oldest first, in `tx` (whose writer brought stock back
/// there), by `actor` at `at` ([`SQL_FILL`]). One statement.
pub(crate) async fn fill_backorders(
    tx: &Transaction<'_>,
    tenant: &str,
    (skus, locations): (&[&str], &[&str]),
    (actor, at): (Option<&str>, DateTime<Utc>),
) -> TxResult<()> {
    let stmt = tx.prepare_cached(SQL_FILL).await?;
    tx.execute(&stmt, &[&tenant, &skus, &locations, &actor, &at]).await?;
    Ok(())
}
