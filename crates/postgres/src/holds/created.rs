//! A new hold's rows, written in one round trip once its lines are taken: its row, its stock
//! lines' rows and ledger entries, and its `hold.created` event.
//!
//! The event's `data` is built here ([`allot_core::hold::event::hold_event_data`]), not by
//! V39's trigger at the commit with the hold's stock rows still locked: the hold's row says
//! so as it is written (`allot.hold_events` = the transaction's id, which V42's trigger
//! reads; what it was before kept in `allot.hold_events_prior`), and the event's statement
//! puts it back as it was, so a caller's transaction (`hold_in`) that goes on to change holds
//! by other means has their events written by the trigger. The event comes after
//! the ledger entries' statement, so after its lines' events in the feed (V39's order).

use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::placement::PieceColumns;
use crate::engine::tx::TxResult;
use allot_core::hold::event::{hold_event_data, HoldFacts};
use allot_core::hold::HoldStatus;
use allot_core::{AllotError, Hold};
use chrono::{DateTime, Utc};
use tokio_postgres::types::ToSql;

/// The hold's row: `$1` id, `$2` strategy, `$3` lines, `$4` expires_at, `$5` now, `$6` the
/// tenant, `$7` kind. Tells V39's trigger that its event is written by this transaction
/// (the inner select, which keeps the setting as it was, runs first: it feeds the outer).
const SQL_HOLD_ROW: &str = "INSERT INTO holds (tenant, id, kind, status, strategy, lines, expires_at, created_at)
     SELECT $6, $1, $7, 'held', $2, $3, $4, $5
       FROM (SELECT set_config('allot.hold_events', pg_current_xact_id()::text, true)
               FROM (SELECT set_config('allot.hold_events_prior',
                                       coalesce(current_setting('allot.hold_events', true), ''), true)) p) g";

/// The hold's stock lines (`hold_lines`) and their ledger entries, a piece each: `$1` hold id,
/// `$2..$4` and `$7` each piece's SKU, bucket, quantity and location, `$5` actor, `$6` the
/// tenant, `$8` now.
const SQL_PIECES: &str =
    "WITH l AS (SELECT * FROM unnest($2::text[], $3::int4[], $4::int8[], $7::text[]) AS t(sku, bucket, q, loc)),
          hl AS (INSERT INTO hold_lines (tenant, hold_id, sku, bucket, quantity)
                 SELECT $6, $1, sku, bucket, q FROM l)
     INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, location, at)
     SELECT $6, sku, 0, q, 'hold', $1, $5, loc, $8 FROM l";

/// The hold's `hold.created` event: `$1` the tenant, `$2` hold id, `$3` data, `$4` now. Puts
/// `allot.hold_events` back as the hold's row found it, so the trigger writes the events of
/// any later change.
const SQL_CREATED_EVENT: &str = "WITH e AS (
        INSERT INTO events (tenant, type, object, data, at) VALUES ($1, 'hold.created', $2, $3, $4))
     SELECT set_config('allot.hold_events', current_setting('allot.hold_events_prior'), true)";

/// Write `hold` (its lines already taken: `pieces`, the stock lines' pieces) of `tenant` by
/// `actor` at `now`: its row, its pieces and ledger entries, and its event, the three
/// statements pipelined. Errors: the first statement's that failed.
pub(super) async fn write_new_hold(
    tx: &Transaction<'_>,
    (tenant, actor): (&str, Option<&str>),
    hold: &Hold,
    pieces: &PieceColumns<'_>,
    now: DateTime<Utc>,
) -> TxResult<()> {
    let lines = serde_json::to_value(&hold.lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    let data = tokio_postgres::types::Json(hold_event_data(HoldFacts {
        id: &hold.id,
        kind: hold.kind,
        status: HoldStatus::Held,
        expires_at: &hold.expires_at,
        lines: &lines,
        bookings: hold.bookings.as_deref().unwrap_or_default(),
    }));
    // Prepared first: each statement's whole request is queued as its future is first polled,
    // in the biased join's order (engine/pipeline.rs).
    let row_stmt = tx.prepare_cached(SQL_HOLD_ROW).await?;
    let pieces_stmt = tx.prepare_cached(SQL_PIECES).await?;
    let event_stmt = tx.prepare_cached(SQL_CREATED_EVENT).await?;
    let (strategy, kind) = (hold.strategy.name(), hold.kind.as_str());
    let row: [&(dyn ToSql + Sync); 7] = [&hold.id, &strategy, &lines, &hold.expires_at, &now, &tenant, &kind];
    let (skus, buckets, qs, locs) = (&pieces.skus, &pieces.buckets, &pieces.quantities, &pieces.locations);
    let piece_params: [&(dyn ToSql + Sync); 8] = [&hold.id, skus, buckets, qs, &actor, &tenant, locs, &now];
    let event: [&(dyn ToSql + Sync); 4] = [&tenant, &hold.id, &data, &now];
    let (r, p, e) = tokio::join!(biased;
        tx.execute(&row_stmt, &row),
        tx.execute(&pieces_stmt, &piece_params),
        tx.execute(&event_stmt, &event));
    r?;
    p?;
    e?;
    Ok(())
}
