//! Incoming stock and receipts on SQLite (see `allot_core::receiving`), each in one write
//! transaction on the writer thread: a receipt reads what is still expected of its incoming
//! and adds to it in the transaction that adds the stock.

use crate::engine::clock::now_us;
use crate::engine::errors::map_error;
use crate::engine::location_rows::{lock_and_rebalance, require_counted, require_location, Entry};
use crate::engine::store::SqliteStore;
use allot_core::receiving::{Incoming, Receipt};
use allot_core::store::{Executed, Keyed};
use allot_core::{AllotError, LedgerKind, Result};
use rusqlite::{params, Connection, OptionalExtension};

/// The location a receipt arrives at: its own, or (naming an incoming) the incoming's, which
/// takes the receipt's quantity (`exceeds_incoming` beyond what is left).
fn settle_incoming(c: &Connection, tenant: &str, req: &Receipt) -> Result<String> {
    let Some(id) = &req.incoming_id else {
        return Ok(req.location.clone().unwrap_or_default());
    };
    let (location, left): (String, i64) = c
        .prepare_cached("SELECT location, quantity - received FROM incoming WHERE tenant = ?1 AND id = ?2 AND sku = ?3")
        .and_then(|mut s| {
            s.query_row(params![tenant, id, req.sku], |r| Ok((r.get(0)?, r.get(1)?)))
                .optional()
        })
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("incoming", id.as_str()))?;
    if req.quantity > left {
        return Err(AllotError::ExceedsIncoming {
            sku: req.sku.clone(),
            id: id.clone(),
            requested: req.quantity,
            left,
        });
    }
    c.execute(
        "UPDATE incoming SET received = received + ?3 WHERE tenant = ?1 AND id = ?2",
        params![tenant, id, req.quantity],
    )
    .map_err(map_error)?;
    Ok(location)
}

impl SqliteStore {
    /// `StockStore::add_incoming` on SQLite.
    pub(crate) async fn add_incoming_rows(
        &self,
        tenant: &str,
        req: Incoming,
        idem: Keyed<Incoming>,
    ) -> Result<Executed<Incoming>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            require_counted(tx, &t, &req.sku)?;
            require_location(tx, &t, &req.location)?;
            tx.execute(
                "INSERT INTO incoming (tenant, id, sku, location, quantity, expected_at_us, reference, actor,
                                       created_at_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    t,
                    req.id,
                    req.sku,
                    req.location,
                    req.quantity,
                    req.expected_at.map(|e| e.timestamp_micros()),
                    req.reference,
                    req.actor,
                    now_us()
                ],
            )
            .map_err(map_error)?;
            Ok(req)
        })
        .await
    }

    /// `StockStore::receive` on SQLite.
    pub(crate) async fn receive_rows(
        &self,
        tenant: &str,
        req: Receipt,
        idem: Keyed<Receipt>,
    ) -> Result<Executed<Receipt>> {
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            require_counted(tx, &t, &req.sku)?;
            let location = settle_incoming(tx, &t, &req)?;
            let entry = Entry::new(LedgerKind::Received, Some(req.id.as_str()), req.actor.as_deref())
                .because(None, req.reference.as_deref());
            let at = (req.sku.as_str(), location.as_str());
            lock_and_rebalance(tx, &t, at, req.quantity, entry)?;
            tx.execute(
                "INSERT INTO receipts (tenant, id, sku, location, quantity, incoming_id, reference, created_at_us)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    t,
                    req.id,
                    req.sku,
                    location,
                    req.quantity,
                    req.incoming_id,
                    req.reference,
                    now_us()
                ],
            )
            .map_err(map_error)?;
            Ok(Receipt {
                location: Some(location),
                ..req
            })
        })
        .await
    }
}
