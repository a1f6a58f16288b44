//! Records more than one domain reads or writes: an allocation (made by allocations, hold
//! confirms and unit claims; read back by cancels, returns and listings), a hold record and
//! its lines (stock holds, unit claims that hold), and a unit's columns.

use super::clock::from_us;
use super::errors::map_error;
use allot_core::hold::HoldKind;
use allot_core::{Allocation, AllocationLine, AllocationStatus, AllotError, Result, TakenWith, Unit};
use rusqlite::{params, Connection, OptionalExtension};

/// An allocation's columns as read: id, status, strategy, lines, created_at_us and, per SKU,
/// what its return records add up to (`[[sku, quantity], …]` or NULL), and its owed lines
/// (`allot_core::backorder`, a JSON array or NULL).
type AllocationRow = (String, String, String, String, i64, Option<String>, Option<String>);

/// The columns of an [`AllocationRow`], from `allocations a`: what came back is derived from
/// the return records when the allocation is read.
const ALLOCATION_SELECT: &str = "SELECT a.id, a.status, a.strategy, a.lines, a.created_at_us,
        (SELECT json_group_array(json_array(r.sku, r.q)) FROM
           (SELECT sku, sum(quantity) AS q FROM returns
             WHERE tenant = a.tenant AND allocation_id = a.id GROUP BY sku) r) AS returned,
        (SELECT json_group_array(json_object('allocation_id', b.allocation_id, 'sku', b.sku, 'quantity', b.quantity,
                                             'fills', json(b.fills), 'cancelled', b.cancelled))
           FROM backorders b WHERE b.tenant = a.tenant AND b.allocation_id = a.id) AS backorders
   FROM allocations a";

fn allocation_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<AllocationRow> {
    Ok((
        r.get("id")?,
        r.get("status")?,
        r.get("strategy")?,
        r.get("lines")?,
        r.get("created_at_us")?,
        r.get("returned")?,
        r.get("backorders")?,
    ))
}

/// Read an allocation of `tenant` by id.
pub(crate) fn read_allocation(c: &Connection, tenant: &str, id: &str) -> Result<Allocation> {
    let sql = format!("{ALLOCATION_SELECT} WHERE a.tenant = ?2 AND a.id = ?1");
    let row = c
        .prepare_cached(&sql)
        .and_then(|mut s| s.query_row([id, tenant], allocation_row).optional())
        .map_err(map_error)?;
    allocation_of(row.ok_or_else(|| AllotError::not_found("allocation", id))?)
}

/// Allocations of `tenant` that `filter` (SQL after `WHERE a.tenant = ?1 AND `, with `p` from
/// `?2` on) selects, in its order, in one statement.
pub(crate) fn read_allocations(
    c: &Connection,
    tenant: &str,
    filter: &str,
    p: &[&dyn rusqlite::ToSql],
) -> Result<Vec<Allocation>> {
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&tenant];
    params.extend_from_slice(p);
    let sql = format!("{ALLOCATION_SELECT} WHERE a.tenant = ?1 AND {filter}");
    let rows: Vec<AllocationRow> = c
        .prepare_cached(&sql)
        .and_then(|mut s| s.query_map(params.as_slice(), allocation_row)?.collect())
        .map_err(map_error)?;
    rows.into_iter().map(allocation_of).collect()
}

/// An allocation from its row; a row that cannot be decoded is an `Internal` error.
fn allocation_of((id, status, strategy, lines, at, returned, owed): AllocationRow) -> Result<Allocation> {
    let bad = |what: &str| AllotError::Internal(format!("allocation {id}: an unreadable {what}"));
    let returned: Vec<(String, i64)> = match returned {
        Some(r) => serde_json::from_str(&r).map_err(|_| bad("returns"))?,
        None => Vec::new(),
    };
    let mut lines: Vec<AllocationLine> = serde_json::from_str(&lines).map_err(|_| bad("lines"))?;
    allot_core::returns::derive_returned(&mut lines, &returned);
    let owed: Vec<allot_core::backorder::Backorder> = match owed {
        Some(o) => serde_json::from_str(&o).map_err(|_| bad("backorders"))?,
        None => Vec::new(),
    };
    allot_core::backorder::derive_backorders(&mut lines, &owed)?;
    Ok(Allocation {
        status: AllocationStatus::parse(&status).ok_or_else(|| bad("status"))?,
        strategy: TakenWith::parse(&strategy).ok_or_else(|| bad("strategy"))?,
        lines,
        created_at: from_us(at),
        id,
    })
}

/// A unit from its columns, by name (id, serial, location, lot, received_at, expires_at).
pub(crate) fn unit_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Unit> {
    Ok(Unit {
        id: r.get("id")?,
        serial: r.get("serial")?,
        location: r.get("location")?,
        lot: r.get("lot")?,
        received_at: from_us(r.get("received_at")?),
        expires_at: r.get::<_, Option<i64>>("expires_at")?.map(from_us),
    })
}

/// A hold by its key: the tenant it belongs to and its id.
#[derive(Clone, Copy)]
pub(crate) struct HoldKey<'a> {
    pub(crate) tenant: &'a str,
    pub(crate) id: &'a str,
}

pub(crate) fn insert_hold(
    c: &Connection,
    key: HoldKey<'_>,
    kind: HoldKind,
    strategy: &str,
    lines: &[AllocationLine],
    expires_at_us: i64,
    now_us: i64,
) -> Result<()> {
    let json = serde_json::to_string(lines).map_err(|e| AllotError::Internal(e.to_string()))?;
    c.prepare_cached(
        "INSERT INTO holds (tenant, id, kind, status, strategy, lines, expires_at_us, created_at_us)
         VALUES (?7, ?1, ?2, 'held', ?3, ?4, ?5, ?6)",
    )
    .and_then(|mut s| {
        s.execute(params![
            key.id,
            kind.as_str(),
            strategy,
            json,
            expires_at_us,
            now_us,
            key.tenant
        ])
    })
    .map_err(map_error)?;
    Ok(())
}

/// An instant column (µs since the epoch) as the feed writes instants: RFC 3339, UTC, with
/// microseconds (PostgreSQL's `allot_instant`).
fn instant_sql(column: &str) -> String {
    format!("strftime('%Y-%m-%dT%H:%M:%S', {column} / 1000000, 'unixepoch') || printf('.%06dZ', {column} % 1000000)")
}

/// [`hold_event`]'s statement: `?1` tenant, `?2` hold, `?3` type, `?4` instant.
static SQL_HOLD_EVENT: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "INSERT INTO events (tenant, type, object, data, at_us)
         SELECT h.tenant, ?3, h.id,
                json_object('id', h.id, 'kind', h.kind, 'status', h.status, 'expires_at', {expires},
                            'lines', json(h.lines),
                            'bookings', json((SELECT json_group_array(json(j)) FROM (
                                SELECT json_object('id', b.id, 'resource', b.resource, 'start', {start},
                                                   'end', {end}, 'quantity', b.quantity) AS j
                                  FROM bookings b WHERE b.tenant = h.tenant AND b.hold_id = h.id
                                 ORDER BY b.resource, b.start_us, b.end_us)))),
                ?4
           FROM holds h WHERE h.tenant = ?1 AND h.id = ?2",
        expires = instant_sql("h.expires_at_us"),
        start = instant_sql("b.start_us"),
        end = instant_sql("b.end_us"),
    )
});

/// A hold's own event (`hold.created`, `hold.confirmed`, `hold.released`, `hold.expired`,
/// as `kind`), written once its lines are written or given back, so that it follows their
/// events: `id`, `kind`, `status`, `expires_at`, `lines` (the hold's row's), `bookings` (its
/// booking lines: `id`, `resource`, `start`, `end`, `quantity`, in resource and range order).
/// PostgreSQL writes the same by a deferred trigger (V39).
pub(crate) fn hold_event(
    c: &Connection,
    key: HoldKey<'_>,
    kind: allot_core::event::EventType,
    at_us: i64,
) -> Result<()> {
    c.prepare_cached(&SQL_HOLD_EVENT)
        .and_then(|mut s| s.execute(params![key.tenant, key.id, kind.as_str(), at_us]))
        .map_err(map_error)?;
    Ok(())
}

pub(crate) fn insert_hold_line(
    c: &Connection,
    key: HoldKey<'_>,
    (sku, bucket, location): (&str, i64, Option<&str>),
    quantity: i64,
    now_us: i64,
    actor: Option<&str>,
) -> Result<()> {
    c.prepare_cached("INSERT INTO hold_lines (tenant, hold_id, sku, bucket, quantity) VALUES (?5, ?1, ?2, ?3, ?4)")
        .and_then(|mut s| s.execute(params![key.id, sku, bucket, quantity, key.tenant]))
        .map_err(map_error)?;
    c.prepare_cached(
        "INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, at_us, actor, location)
         VALUES (?6, ?1, 0, ?2, 'hold', ?3, ?4, ?5, ?7)",
    )
    .and_then(|mut s| s.execute(params![sku, quantity, key.id, now_us, actor, key.tenant, location]))
    .map_err(map_error)?;
    Ok(())
}
