//! Holds on SQLite. Every write is one serialized `BEGIN IMMEDIATE` transaction on the
//! writer thread, so a hold is finished exactly once.

mod confirm_part;
mod listings;

use crate::engine::clock::{from_us, now_us, us};
use crate::engine::errors::map_error;
use crate::engine::overdue::finish_holds;
use crate::engine::placement::{answered, take_lines, Take};
use crate::engine::records::read_allocation;
use crate::engine::records::{hold_event, insert_hold, insert_hold_line, unit_from_row, HoldKey};
use crate::engine::store::SqliteStore;
use allot_core::hold::{confirm_refusal, HoldKind, HoldStatus};
use allot_core::hold::{Confirm, Release};
use allot_core::store::{Executed, HoldStore, Keyed};
use allot_core::tenant::Tenant;
use allot_core::Capable;
use allot_core::{Allocation, AllotError, Hold, HoldRequest, Result};
use allot_core::{TakenWith, UnitStrategy};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

const HOLD_COLUMNS: &str = "id, kind, status, strategy, lines, expires_at_us, created_at_us";

struct HoldRow {
    id: String,
    kind: HoldKind,
    stored: HoldStatus,
    strategy: TakenWith,
    lines: String,
    expires_at_us: i64,
    created_at_us: i64,
}

/// A row of [`HOLD_COLUMNS`].
fn hold_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<HoldRow> {
    let kind = crate::engine::errors::stored_name(r, "kind", HoldKind::parse)?;
    Ok(HoldRow {
        id: r.get("id")?,
        kind,
        stored: crate::engine::errors::stored_name(r, "status", HoldStatus::parse)?,
        strategy: match kind {
            HoldKind::Stock | HoldKind::Mixed => {
                crate::engine::errors::stored_name(r, "strategy", |s| HoldKind::Stock.strategy(s))?
            }
            HoldKind::Units => crate::engine::errors::stored_name(r, "strategy", |s| HoldKind::Units.strategy(s))?,
        },
        lines: r.get("lines")?,
        expires_at_us: r.get("expires_at_us")?,
        created_at_us: r.get("created_at_us")?,
    })
}

fn hold_row(c: &Connection, tenant: &str, id: &str) -> Result<HoldRow> {
    c.prepare_cached(&format!(
        "SELECT {HOLD_COLUMNS} FROM holds WHERE tenant = ?2 AND id = ?1"
    ))
    .and_then(|mut s| s.query_row([id, tenant], hold_of).optional())
    .map_err(map_error)?
    .ok_or_else(|| AllotError::not_found("hold", id))
}

/// A page of the tenant's holds that `filter` selects (with `p` from `?2`, its limit at
/// `page`'s probe): the row past the page says another follows and is dropped before its
/// units are read.
pub(crate) fn read_holds_page<P>(
    c: &Connection,
    (tenant, filter): (&str, &str),
    p: &[&dyn rusqlite::ToSql],
    now_us: i64,
    page: &allot_core::Page<P>,
) -> Result<allot_core::Listed<Hold, String>> {
    let rows = allot_core::Listed::from_probe(hold_rows(c, tenant, filter, p)?, page, |h| h.id.clone());
    let items = rows.items.into_iter().map(|h| hold_of_row(c, tenant, h, now_us));
    Ok(allot_core::Listed {
        items: items.collect::<Result<_>>()?,
        next: rows.next,
    })
}

/// The rows of the tenant's holds that `filter` (with `p` from `?2`) selects.
fn hold_rows(c: &Connection, tenant: &str, filter: &str, p: &[&dyn rusqlite::ToSql]) -> Result<Vec<HoldRow>> {
    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&tenant];
    params.extend_from_slice(p);
    c.prepare_cached(&format!(
        "SELECT {HOLD_COLUMNS} FROM holds h WHERE h.tenant = ?1 AND {filter}"
    ))
    .and_then(|mut s| s.query_map(params.as_slice(), hold_of)?.collect())
    .map_err(map_error)
}

fn read_hold(c: &Connection, tenant: &str, id: &str, now_us: i64) -> Result<Hold> {
    hold_of_row(c, tenant, hold_row(c, tenant, id)?, now_us)
}

/// A hold from its row, with its units when it is a unit hold that still has them.
fn hold_of_row(c: &Connection, tenant: &str, h: HoldRow, now_us: i64) -> Result<Hold> {
    let expires_at = from_us(h.expires_at_us);
    let units = match (h.kind, h.stored) {
        (HoldKind::Stock, _) => None,
        (_, HoldStatus::Held | HoldStatus::Confirmed) => Some(
            c.prepare_cached(
                "SELECT id, serial, location, lot, received_at, expires_at FROM units
                  WHERE tenant = ?2 AND claim_id = ?1 ORDER BY id",
            )
            .and_then(|mut s| {
                s.query_map([h.id.as_str(), tenant], unit_from_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(map_error)?,
        ),
        _ => Some(Vec::new()),
    };
    let bookings = match h.kind {
        HoldKind::Mixed => Some(crate::bookings::hold_bookings(c, tenant, &h.id, now_us)?).filter(|b| !b.is_empty()),
        _ => None,
    };
    Ok(Hold {
        id: h.id,
        status: h.stored.effective(expires_at, from_us(now_us)),
        kind: h.kind,
        lines: serde_json::from_str(&h.lines).map_err(|e| AllotError::Internal(e.to_string()))?,
        units,
        bookings,
        strategy: h.strategy,
        expires_at,
        created_at: from_us(h.created_at_us),
    })
}

/// A hold in its write transaction: every stock line into `held` (placement, in SKU order),
/// then every unit line's units held with the hold's id, the hold's row and its lines (a
/// unit line's at bucket -1).
fn hold_in(tx: &Connection, t: &str, req: &HoldRequest) -> Result<Hold> {
    let now = now_us();
    let taken = take_lines(tx, t, &req.take, Take::Hold, now)?;
    let mut units = Vec::new();
    for line in &req.units {
        let claim = req.unit_claim(line, UnitStrategy::Serialized);
        units.push(crate::engine::unit_picks::take_units(tx, t, &claim, now)?);
    }
    let bookings = crate::bookings::hold_booking_lines(tx, t, req, now)?;
    let answered = req.take.lines.iter().zip(&taken).map(|(l, p)| answered(l, p)).collect();
    let mut hold = req.to_hold(answered, from_us(now));
    if let Some(held) = hold.bookings.as_mut() {
        *held = bookings;
    }
    let key = HoldKey {
        tenant: t,
        id: &hold.id,
    };
    let expires_us = us(hold.expires_at);
    insert_hold(tx, key, hold.kind, hold.strategy.name(), &hold.lines, expires_us, now)?;
    let actor = req.take.actor.as_deref();
    for (line, pieces) in req.take.lines.iter().zip(&taken) {
        for p in pieces {
            let at = (line.sku.as_str(), p.bucket, Some(p.location.as_str()));
            insert_hold_line(tx, key, at, p.quantity, now, actor)?;
        }
    }
    for (line, got) in req.units.iter().zip(&units) {
        insert_hold_line(tx, key, (&line.sku, -1, None), got.len() as i64, now, actor)?;
    }
    hold_event(tx, key, allot_core::event::EventType::HoldCreated, now)?;
    if let Some(held) = hold.units.as_mut() {
        *held = units.into_iter().flatten().collect();
        held.sort_by_key(|u| u.id);
    }
    Ok(hold)
}

#[async_trait]
impl HoldStore for SqliteStore {
    async fn create_hold(&self, tenant: &Tenant, req: HoldRequest, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        self.require(req.take.strategy)?;
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| hold_in(tx, &t, &req)).await
    }

    async fn get_hold(&self, tenant: &Tenant, id: &str) -> Result<Hold> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.call(move |c| read_hold(c, &t, &id, now_us())).await
    }

    async fn confirm_hold(
        &self,
        tenant: &Tenant,
        req: Confirm,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>> {
        let (t, Confirm { id, part, actor }) = (tenant.to_string(), req);
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            let mut h = hold_row(tx, &t, &id)?;
            if h.stored == HoldStatus::Held && h.expires_at_us > now {
                if let Some(p) = &part {
                    h.lines = confirm_part::shrink_hold(tx, (&t, &id), p, now, actor.as_deref())?;
                }
                finish_holds(
                    tx,
                    &t,
                    std::slice::from_ref(&id),
                    HoldStatus::Confirmed,
                    now,
                    actor.as_deref(),
                )?;
                tx.prepare_cached(
                    "INSERT INTO allocations (tenant, id, status, strategy, lines, created_at_us)
                     VALUES (?5, ?1, 'allocated', ?2, ?3, ?4)",
                )
                .and_then(|mut s| s.execute(params![id, h.strategy.name(), h.lines, now, t]))
                .map_err(map_error)?;
            } else {
                confirm_refusal(&id, h.stored, from_us(h.expires_at_us), from_us(now))?;
            }
            read_allocation(tx, &t, &id)
        })
        .await
    }

    async fn release_hold(&self, tenant: &Tenant, req: Release, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        let (t, Release { id, actor }) = (tenant.to_string(), req);
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            let h = hold_row(tx, &t, &id)?;
            match h.stored.effective(from_us(h.expires_at_us), from_us(now)) {
                HoldStatus::Confirmed => {
                    return Err(AllotError::HoldNotActive {
                        id,
                        status: HoldStatus::Confirmed,
                    })
                }
                HoldStatus::Expired if h.stored == HoldStatus::Held => {
                    finish_holds(tx, &t, std::slice::from_ref(&id), HoldStatus::Expired, now, None)?;
                }
                HoldStatus::Held => {
                    finish_holds(
                        tx,
                        &t,
                        std::slice::from_ref(&id),
                        HoldStatus::Released,
                        now,
                        actor.as_deref(),
                    )?;
                }
                _ => {}
            }
            read_hold(tx, &t, &id, now)
        })
        .await
    }

    async fn list_holds(
        &self,
        tenant: &Tenant,
        of: (HoldStatus, Option<&str>),
        page: allot_core::Page<Option<&str>>,
    ) -> Result<allot_core::Listed<Hold, String>> {
        self.holds_page(tenant, of, page).await
    }

    async fn extend_hold(&self, tenant: &Tenant, id: &str, ttl_ms: u64, idem: Keyed<Hold>) -> Result<Executed<Hold>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            let h = hold_row(tx, &t, &id)?;
            let (expires_at, at) = (from_us(h.expires_at_us), from_us(now));
            allot_core::hold::extend_refusal(&id, h.stored, expires_at, at)?;
            let until = us(allot_core::hold::extended_expiry(expires_at, at, ttl_ms));
            tx.prepare_cached("UPDATE holds SET expires_at_us = ?3, extended_at_us = ?4 WHERE tenant = ?2 AND id = ?1")
                .and_then(|mut s| s.execute(params![id, t, until, now]))
                .map_err(map_error)?;
            // A hold's bookings expire with it.
            tx.prepare_cached(
                "UPDATE bookings SET expires_at_us = ?3 WHERE tenant = ?2 AND hold_id = ?1 AND status = 'held'",
            )
            .and_then(|mut s| s.execute(params![id, t, until]))
            .map_err(map_error)?;
            read_hold(tx, &t, &id, now)
        })
        .await
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl SqliteStore {
    pub(crate) async fn run_expire_holds(&self, now: DateTime<Utc>, max_holds: u32) -> Result<u64> {
        let now = us(now);
        self.transact(move |tx| {
            let rows: Vec<(String, String)> = tx
                .prepare_cached(
                    "SELECT tenant, id FROM holds WHERE status = 'held' AND expires_at_us <= ?1 ORDER BY tenant, id LIMIT ?2",
                )
                .and_then(|mut s| {
                    s.query_map(params![now, max_holds.max(1)], |r| Ok((r.get("tenant")?, r.get("id")?)))?
                        .collect()
                })
                .map_err(map_error)?;
            // Each tenant's at once: what they gave back fills once, in one order (as
            // PostgreSQL's sweeper finishes them).
            let mut by_tenant: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
            for (tenant, id) in &rows {
                by_tenant.entry(tenant).or_default().push(id.clone());
            }
            let mut done = 0;
            for (tenant, ids) in &by_tenant {
                done += finish_holds(tx, tenant, ids, HoldStatus::Expired, now, None)?;
            }
            Ok(done)
        })
        .await
    }
}
