//! Bookings on SQLite: check and insert in one serialized write transaction (`serialized`).
//! A resource that was put (capacity, slots, pools, rules) is decided by
//! `allot_core::booking::judge` on the picture `capacity.rs` reads in the same transaction.

mod announce;
mod capacity;
mod hold_lines;

pub(crate) use hold_lines::{hold_booking_lines, hold_bookings};

use crate::engine::clock::{from_us, now_us, us};
use crate::engine::errors::map_error;
use crate::engine::store::SqliteStore;
use allot_core::booking::capacity::{Pool, Resource, SlotCapacityBody};
use allot_core::booking::fill;
use allot_core::booking::judge::{judge, refusal, Ask};
use allot_core::booking::reason::{Explain, SlotAvailability};
use allot_core::booking::BookingStatus;
use allot_core::booking::Reschedule;
use allot_core::store::{BookingStore, Executed, Keyed};
use allot_core::tenant::Tenant;
use allot_core::BookingStrategy;
use allot_core::Capable;
use allot_core::Limits;
use allot_core::{AllotError, Booking, BookingRequest, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use rusqlite::{params, Connection, OptionalExtension};

/// A half-open range of instants.
type Range = (DateTime<Utc>, DateTime<Utc>);

const COLS: &str =
    "id, resource, start_us, end_us, holder, quantity, metadata, status, strategy, expires_at_us, created_at_us, hold_id";

fn booking_of(r: &rusqlite::Row<'_>, now_us: i64) -> rusqlite::Result<Booking> {
    let stored = crate::engine::errors::stored_name(r, "status", BookingStatus::parse)?;
    let expires_at = r.get::<_, Option<i64>>("expires_at_us")?.map(from_us);
    Ok(Booking {
        id: r.get("id")?,
        resource: r.get("resource")?,
        start: from_us(r.get("start_us")?),
        end: from_us(r.get("end_us")?),
        holder: r.get("holder")?,
        quantity: r.get("quantity")?,
        metadata: crate::engine::errors::stored_json(r, "metadata")?,
        status: stored.effective(expires_at, from_us(now_us)),
        strategy: crate::engine::errors::stored_name(r, "strategy", BookingStrategy::parse)?,
        expires_at,
        created_at: from_us(r.get("created_at_us")?),
        hold_id: r.get("hold_id")?,
    })
}

fn read_booking(c: &Connection, tenant: &str, id: &str, now_us: i64) -> Result<Booking> {
    c.prepare_cached(&format!("SELECT {COLS} FROM bookings WHERE tenant = ?2 AND id = ?1"))
        .and_then(|mut s| s.query_row([id, tenant], |r| booking_of(r, now_us)).optional())
        .map_err(map_error)?
        .ok_or_else(|| AllotError::not_found("booking", id))
}

/// Refuse a booking on a resource never put that overlaps a blocking one.
fn plain_conflict(tx: &Connection, t: &str, req: &BookingRequest, now: i64) -> Result<()> {
    let conflict: Option<String> = tx
        .prepare_cached(&format!(
            "SELECT id FROM bookings
              WHERE tenant = ?5 AND resource = ?1 AND start_us < ?3 AND end_us > ?2 AND {BLOCKING}
              ORDER BY start_us LIMIT 1"
        ))
        .and_then(|mut s| {
            s.query_row(params![req.resource, us(req.start), us(req.end), now, t], |r| r.get(0))
                .optional()
        })
        .map_err(map_error)?;
    match conflict {
        Some(id) => Err(AllotError::BookingOverlap {
            conflicting_booking_id: Some(id),
        }),
        None => Ok(()),
    }
}

/// Insert `b`; `slots`: the slots it takes on a resource with slots (its events carry them).
fn insert(tx: &Connection, t: &str, b: &Booking, now: i64, slots: Option<&serde_json::Value>) -> Result<()> {
    let metadata = b.metadata.as_ref().map(|m| m.to_string());
    let slotted = slots.is_some();
    let slots = slots.map(|s| s.to_string());
    tx.prepare_cached(
        "INSERT INTO bookings (tenant, id, resource, start_us, end_us, holder, metadata, status, strategy,
                               expires_at_us, created_at_us, quantity, slotted, slots, hold_id)
         VALUES (?11, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?12, ?13, ?14, ?15)",
    )
    .and_then(|mut s| {
        s.execute(params![
            b.id,
            b.resource,
            us(b.start),
            us(b.end),
            b.holder,
            metadata,
            b.status.as_str(),
            b.strategy.name(),
            b.expires_at.map(us),
            now,
            t,
            b.quantity,
            slotted,
            slots,
            b.hold_id
        ])
    })
    .map(|_| ())
    .map_err(map_error)
}

/// Book on a resource that was put: judge its picture, insert, announce its slots' fill.
fn book_put(tx: &Connection, t: &str, req: &BookingRequest, r: Resource, now: i64) -> Result<Booking> {
    allot_core::booking::capacity::check_quantity(&r, req.quantity)?;
    let mut p = capacity::picture(tx, t, r, (req.start, req.end), now)?;
    let ask = Ask {
        start: req.start,
        end: req.end,
        quantity: req.quantity,
        ignore: None,
        now: from_us(now),
    };
    refusal(judge(&p, &ask)?)?;
    let b = req.to_booking(from_us(now));
    insert(tx, t, &b, now, fill::slots_document(&p, req.start, req.end).as_ref())?;
    if let Some(cover) = fill::cover(&p, req.start, req.end) {
        fill::with_booking(&mut p, &b, from_us(now));
        announce::announce(tx, t, &p, cover, now)?;
    }
    Ok(b)
}

/// Book on a resource never put: one at a time, no live booking overlapping it.
fn book_plain(tx: &Connection, t: &str, req: &BookingRequest, now: i64) -> Result<Booking> {
    allot_core::booking::capacity::check_quantity(&Resource::plain(&req.resource), req.quantity)?;
    plain_conflict(tx, t, req, now)?;
    let b = req.to_booking(from_us(now));
    insert(tx, t, &b, now, None)?;
    Ok(b)
}

/// Set a booking's status by `sql` (`?1` id, `?2` now, `?3` tenant; it returns `slotted`),
/// and announce the slots it freed: whether it changed.
fn free(tx: &Connection, t: &str, id: &str, sql: &str, now: i64) -> Result<bool> {
    let slotted: Option<bool> = tx
        .prepare_cached(sql)
        .and_then(|mut s| s.query_row(params![id, now, t], |r| r.get(0)).optional())
        .map_err(map_error)?;
    if slotted == Some(true) {
        let b = read_booking(tx, t, id, now)?;
        announce::announce_range(tx, t, &b.resource, (b.start, b.end), now)?;
    }
    Ok(slotted.is_some())
}

/// Blocking predicate at `?now`: confirmed, or held and not yet expired.
const BLOCKING: &str = "(status = 'confirmed' OR (status = 'held' AND expires_at_us > ?4))";

#[async_trait]
impl BookingStore for SqliteStore {
    async fn book(&self, tenant: &Tenant, req: BookingRequest, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        if !self.supports_booking(req.strategy) {
            return Err(AllotError::unsupported_strategy(req.strategy.name(), "sqlite"));
        }
        let t = tenant.to_string();
        self.write(tenant, idem, move |tx| {
            match capacity::resource_of(tx, &t, &req.resource)? {
                Some(r) => book_put(tx, &t, &req, r, now_us()),
                None => book_plain(tx, &t, &req, now_us()),
            }
        })
        .await
    }

    async fn get_booking(&self, tenant: &Tenant, id: &str) -> Result<Booking> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.call(move |c| read_booking(c, &t, &id, now_us())).await
    }

    async fn cancel_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            allot_core::booking::not_held_by_hold(&read_booking(tx, &t, &id, now)?)?;
            free(
                tx,
                &t,
                &id,
                "UPDATE bookings SET status = 'cancelled', expires_at_us = NULL, status_at_us = ?2
                  WHERE tenant = ?3 AND id = ?1 AND (status = 'confirmed' OR (status = 'held' AND expires_at_us > ?2))
                 RETURNING slotted",
                now,
            )?;
            read_booking(tx, &t, &id, now)
        })
        .await
    }

    async fn release_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            allot_core::booking::not_held_by_hold(&read_booking(tx, &t, &id, now)?)?;
            free(
                tx,
                &t,
                &id,
                "UPDATE bookings SET status = 'released', status_at_us = ?2
                  WHERE tenant = ?3 AND id = ?1 AND status = 'held' AND expires_at_us > ?2
                 RETURNING slotted",
                now,
            )?;
            let b = read_booking(tx, &t, &id, now)?;
            if b.status == BookingStatus::Confirmed {
                return Err(AllotError::BookingNotActive { id, status: b.status });
            }
            Ok(b)
        })
        .await
    }

    async fn confirm_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            allot_core::booking::not_held_by_hold(&read_booking(tx, &t, &id, now)?)?;
            let n = tx
                .prepare_cached(
                    "UPDATE bookings SET status = 'confirmed', expires_at_us = NULL, status_at_us = ?2
                      WHERE tenant = ?3 AND id = ?1 AND status = 'held' AND expires_at_us > ?2",
                )
                .and_then(|mut s| s.execute(params![id, now, t]))
                .map_err(map_error)?;
            let b = read_booking(tx, &t, &id, now)?;
            if n == 0 && b.status != BookingStatus::Confirmed {
                return Err(AllotError::BookingNotActive { id, status: b.status });
            }
            Ok(b)
        })
        .await
    }

    async fn extend_booking(
        &self,
        tenant: &Tenant,
        id: &str,
        ttl_ms: u64,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            allot_core::booking::not_held_by_hold(&read_booking(tx, &t, &id, now)?)?;
            let (stored, expires_at_us): (String, Option<i64>) = tx
                .prepare_cached("SELECT status, expires_at_us FROM bookings WHERE tenant = ?2 AND id = ?1")
                .and_then(|mut s| {
                    s.query_row([&id, &t], |r| Ok((r.get("status")?, r.get("expires_at_us")?)))
                        .optional()
                })
                .map_err(map_error)?
                .ok_or_else(|| AllotError::not_found("booking", &id))?;
            let stored = BookingStatus::parse(&stored)
                .ok_or_else(|| AllotError::Internal(format!("booking {id}: unknown status `{stored}`")))?;
            let expires_at = expires_at_us.map(from_us);
            stored.extend_refusal(&id, expires_at, from_us(now))?;
            let until = allot_core::hold::extended_expiry(expires_at.unwrap_or(from_us(now)), from_us(now), ttl_ms);
            tx.prepare_cached("UPDATE bookings SET expires_at_us = ?3 WHERE tenant = ?2 AND id = ?1")
                .and_then(|mut s| s.execute(params![id, t, us(until)]))
                .map_err(map_error)?;
            read_booking(tx, &t, &id, now)
        })
        .await
    }

    async fn put_resource(&self, tenant: &Tenant, r: Resource) -> Result<Resource> {
        let t = tenant.to_string();
        self.write(tenant, None, move |tx| {
            let now = now_us();
            let old = capacity::resource_of(tx, &t, &r.resource)?;
            if r.regrids(old.as_ref()) {
                capacity::regrid(tx, &t, &r, old.as_ref(), now)?;
            }
            let r = r.put_over(old.as_ref(), from_us(now));
            capacity::put_resource(tx, &t, &r, now)?;
            Ok(r)
        })
        .await
        .and_then(Executed::fresh)
    }

    async fn get_resource(&self, tenant: &Tenant, resource: &str) -> Result<Resource> {
        let (t, resource) = (tenant.to_string(), resource.to_string());
        self.call(move |c| capacity::resource_or_plain(c, &t, &resource)).await
    }

    async fn put_pool(&self, tenant: &Tenant, p: Pool) -> Result<Pool> {
        let t = tenant.to_string();
        self.write(tenant, None, move |tx| {
            let now = now_us();
            let old = capacity::pool_of(tx, &t, &p.pool)?;
            let p = p.put_over(old.as_ref(), from_us(now));
            capacity::put_pool(tx, &t, &p, now)?;
            Ok(p)
        })
        .await
        .and_then(Executed::fresh)
    }

    async fn put_slot_capacity(
        &self,
        tenant: &Tenant,
        resource: &str,
        body: SlotCapacityBody,
        limits: &Limits,
    ) -> Result<Vec<SlotAvailability>> {
        let (t, resource, limits) = (tenant.to_string(), resource.to_string(), limits.clone());
        self.write(tenant, None, move |tx| {
            let now = now_us();
            let r = capacity::resource_of(tx, &t, &resource)?
                .ok_or_else(|| AllotError::not_found("resource", &resource))?;
            let set = allot_core::booking::capacity::slot_capacity(&r, body, &limits)?;
            capacity::put_slots(tx, &t, &set, r.capacity, now)?;
            let (Some(first), Some(last)) = (set.starts.first(), set.starts.last()) else {
                return Ok(Vec::new());
            };
            let until = r.grid().map_or(*last, |g| g.slot_at(*last).end);
            let p = capacity::picture(tx, &t, r, (*first, until), now)?;
            announce::announce(tx, &t, &p, (*first, until), now)?;
            allot_core::booking::judge::availability(&p, *first, until)
        })
        .await
        .and_then(Executed::fresh)
    }

    async fn explain(&self, tenant: &Tenant, resource: &str, range: Range, quantity: u32) -> Result<Explain> {
        let (t, resource) = (tenant.to_string(), resource.to_string());
        self.call(move |c| {
            let now = now_us();
            let r = capacity::resource_or_plain(c, &t, &resource)?;
            allot_core::booking::capacity::check_quantity(&r, quantity)?;
            let p = capacity::picture(c, &t, r, range, now)?;
            let ask = Ask {
                start: range.0,
                end: range.1,
                quantity,
                ignore: None,
                now: from_us(now),
            };
            let reasons = judge(&p, &ask)?;
            Ok(Explain {
                bookable: reasons.is_empty(),
                reasons,
                as_of: from_us(now),
            })
        })
        .await
    }

    async fn slot_availability(&self, tenant: &Tenant, resource: &str, range: Range) -> Result<Vec<SlotAvailability>> {
        let (t, resource) = (tenant.to_string(), resource.to_string());
        self.call(move |c| {
            let r = capacity::resource_or_plain(c, &t, &resource)?;
            let p = capacity::picture(c, &t, r, range, now_us())?;
            allot_core::booking::judge::availability(&p, range.0, range.1)
        })
        .await
    }

    async fn reschedule_booking(
        &self,
        tenant: &Tenant,
        id: &str,
        to: Reschedule,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        let (t, id) = (tenant.to_string(), id.to_string());
        self.write(tenant, idem, move |tx| {
            let now = now_us();
            let b = read_booking(tx, &t, &id, now)?;
            allot_core::booking::not_held_by_hold(&b)?;
            if !b.status.blocks() {
                return Err(AllotError::BookingNotActive { id, status: b.status });
            }
            let r = capacity::resource_or_plain(tx, &t, &b.resource)?;
            let quantity = to.quantity.unwrap_or(b.quantity);
            allot_core::booking::capacity::check_quantity(&r, quantity)?;
            let p = capacity::picture(tx, &t, r, (to.start, to.end), now)?;
            let ask = Ask {
                start: to.start,
                end: to.end,
                quantity,
                ignore: Some(&id),
                now: from_us(now),
            };
            refusal(judge(&p, &ask)?)?;
            // Decided on the resource as it is now: slotted or not by its grid now, as a new
            // booking would be (the resource may have gained or lost its slots since).
            let slots = fill::slots_document(&p, to.start, to.end).map(|s| s.to_string());
            let slotted = slots.is_some();
            tx.prepare_cached(
                "UPDATE bookings SET start_us = ?3, end_us = ?4, quantity = ?5, rescheduled_at_us = ?6, slots = ?7,
                                     slotted = ?8
                  WHERE tenant = ?2 AND id = ?1",
            )
            .and_then(|mut s| s.execute(params![id, t, us(to.start), us(to.end), quantity, now, slots, slotted]))
            .map_err(map_error)?;
            // The slots it took, then those it left (each read again: the move is seen).
            announce::announce_range(tx, &t, &b.resource, (to.start, to.end), now)?;
            announce::announce_range(tx, &t, &b.resource, (b.start, b.end), now)?;
            read_booking(tx, &t, &id, now)
        })
        .await
    }

    async fn list_bookings(
        &self,
        tenant: &Tenant,
        resource: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Booking>> {
        let (t, resource) = (tenant.to_string(), resource.to_string());
        self.call(move |c| {
            let now = now_us();
            c.prepare_cached(&format!(
                "SELECT {COLS} FROM bookings
                  WHERE tenant = ?6 AND resource = ?1 AND start_us < ?3 AND end_us > ?2 AND {BLOCKING}
                  ORDER BY start_us, id LIMIT ?5"
            ))
            .and_then(|mut s| {
                s.query_map(params![resource, us(from), us(to), now, limit, t], |r| {
                    booking_of(r, now)
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(map_error)
        })
        .await
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl SqliteStore {
    pub(crate) async fn run_expire_bookings(&self, now: DateTime<Utc>, max: u32) -> Result<u64> {
        let now = us(now);
        self.call(move |c| {
            let tx = c
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
                .map_err(map_error)?;
            let expired: Vec<(String, String, i64, i64, bool)> = tx
                .prepare_cached(
                    "UPDATE bookings SET status = 'expired', status_at_us = ?1 WHERE rowid IN
                        (SELECT rowid FROM bookings WHERE status = 'held' AND expires_at_us <= ?1 LIMIT ?2)
                     RETURNING tenant, resource, start_us, end_us, slotted",
                )
                .and_then(|mut s| {
                    s.query_map(params![now, max.max(1)], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                    })?
                    .collect()
                })
                .map_err(map_error)?;
            // The slots the expired holds of resources with slots freed.
            for (t, resource, start, end, _) in expired.iter().filter(|e| e.4) {
                announce::announce_range(&tx, t, resource, (from_us(*start), from_us(*end)), now)?;
            }
            tx.commit().map_err(map_error)?;
            Ok(expired.len() as u64)
        })
        .await
    }
}
