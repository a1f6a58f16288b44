//! A hold's booking lines (`POST /v1/holds` with `{"booking":{…}}` lines, issue 57), taken in
//! the hold's own transaction after its stock and unit lines (the lock order across kinds:
//! stock rows, units, then every resource the lines name by ascending key, then every pool
//! of theirs by ascending key, as a batch of bookings takes them).
//! Each line is decided as an `advisory` booking is: the resource's transaction-scoped lock,
//! then a resource that was put is judged by its capacity and rules (`counted.rs`), any other
//! by the live bookings in its range (overdue held ones expired on the way). The booking is
//! `held` until the hold's expiry, with the hold's id; finishing the hold finishes it (V37).

use super::{capacity, counted, guard_without_constraint, COLS, SQL_INSERT};
use crate::engine::conn::Db;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::{Booking, BookingRequest, BookingStrategy, HoldRequest};
use chrono::{DateTime, Utc};
use std::sync::LazyLock;
use tokio_postgres::error::SqlState;

/// The bookings of the holds `$1` (ids) of tenant `$2`, by hold, then in the order of its lines.
pub(crate) static SQL_HOLDS_BOOKINGS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {COLS} FROM bookings WHERE tenant = $2 AND hold_id = ANY($1)
          ORDER BY hold_id, resource, lower(during), upper(during)"
    )
});

/// Take every booking line of `req` in `tx` at the hold's `now`: the bookings, in the order
/// of the lines. Errors: a line's refusal as a booking's (`booking_overlap` naming the
/// booking in the way, `capacity_exceeded`, `rule_violated`, `needs_slots`), the first three
/// naming their line ([`allot_core::AllotError::OnLine`]).
pub(crate) async fn hold_booking_lines(
    tx: &impl Db,
    tenant: &str,
    req: &HoldRequest,
    now: DateTime<Utc>,
) -> TxResult<Vec<Booking>> {
    lock_all(tx, tenant, req).await?;
    let mut taken = Vec::with_capacity(req.bookings.len());
    for (i, asked) in req.bookings.iter().enumerate() {
        let line = req.booking_request(i, BookingStrategy::Advisory);
        let named = |e: TxErr| match e {
            TxErr::Fail(e) => TxErr::Fail(e.on_booking_line(asked.line)),
            other => other,
        };
        taken.push(booking_line(tx, tenant, &line, now).await.map_err(named)?);
    }
    Ok(taken)
}

/// Take, before any line is decided, the locks of every resource the lines name (ascending
/// key) and then of every pool those are in (ascending key), as a batch of bookings does: a
/// line's own locks (its resource, then its pools) are then taken again, which costs nothing.
/// Taken line by line instead, a hold of two resources sharing a pool would hold its first
/// resource's pool while it waits for its second resource, whose booking waits for the pool.
async fn lock_all(tx: &impl Db, tenant: &str, req: &HoldRequest) -> TxResult<()> {
    let names = resources_of(tenant, std::iter::once(req));
    if names.len() > 1 {
        capacity::lock_resources_then_pools(tx, &names).await?;
    }
    Ok(())
}

/// Take the locks of every resource the booking lines of `holds` name (ascending key), then of
/// every pool of theirs (ascending key), as [`lock_all`] does for one hold: a `batched` lane
/// takes them before the booking lines of its batch's mixed holds, so that it never holds one
/// of them while it waits for another out of that order.
pub(crate) async fn lock_holds_resources<'a>(
    tx: &impl Db,
    tenant: &'a str,
    holds: impl IntoIterator<Item = &'a HoldRequest>,
) -> TxResult<()> {
    let names = resources_of(tenant, holds);
    if !names.is_empty() {
        capacity::lock_resources_then_pools(tx, &names).await?;
    }
    Ok(())
}

/// The `(tenant, resource)` of every booking line of `holds`, sorted, each once.
fn resources_of<'a>(tenant: &'a str, holds: impl IntoIterator<Item = &'a HoldRequest>) -> Vec<(&'a str, &'a str)> {
    let mut names: Vec<(&str, &str)> = holds
        .into_iter()
        .flat_map(|h| h.bookings.iter().map(move |b| (tenant, b.resource.as_str())))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

async fn booking_line(tx: &impl Db, tenant: &str, req: &BookingRequest, now: DateTime<Utc>) -> TxResult<Booking> {
    // As `book`: a quantity above 1 is for a put resource only, which the capacity path
    // checks; else the `advisory` guard (the resource's lock, the live booking in the way,
    // overdue held ones expired) says whether the resource was put.
    if req.quantity != 1 || !guard_without_constraint(tx, tenant, req, now).await? {
        let r = capacity::locked_resource(tx, tenant, &req.resource, false).await?;
        return counted::counted_at(tx, tenant, req, r, now).await;
    }
    let b = req.to_booking(now);
    let (status, strategy) = (b.status.as_str(), b.strategy.name());
    let stmt = tx.prepare_cached(SQL_INSERT).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 12] = [
        &b.id,
        &b.resource,
        &b.start,
        &b.end,
        &b.holder,
        &b.metadata,
        &status,
        &strategy,
        &b.expires_at,
        &now,
        &tenant,
        &b.hold_id,
    ];
    match tx.execute(&stmt, &params).await {
        Ok(_) => Ok(b),
        // The resource was put while this waited for its lock (V32's trigger), or a booking
        // the check could not see is in the way: the whole hold runs again (bounded), and
        // decides by capacity, or answers the booking in the way.
        Err(e)
            if e.code()
                .is_some_and(|c| c.code() == super::PUT_RESOURCE || *c == SqlState::EXCLUSION_VIOLATION) =>
        {
            Err(TxErr::Retry)
        }
        Err(e) => Err(e.into()),
    }
}
