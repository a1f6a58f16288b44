//! Bookings decided by capacity and rules (a resource that was put), and what reads and
//! writes that configuration: book, reschedule, explain, slot availability, and the puts.
//! A decision takes the locks of `capacity.rs`, reads the picture and judges it in the same
//! transaction; explain and availability read one REPEATABLE READ snapshot without locks
//! (exact at that snapshot, and said so by `as_of`).

use super::{booking_of, capacity, COLS};
use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::booking::capacity::{check_quantity, Pool, Resource, SlotCapacityBody};
use allot_core::booking::fill;
use allot_core::booking::judge::{availability, judge, refusal, Ask, Picture};
use allot_core::booking::reason::{Explain, SlotAvailability};
use allot_core::booking::Reschedule;
use allot_core::store::{Executed, Idempotency, Keyed};
use allot_core::{AllotError, Booking, BookingRequest, BookingStrategy, Capable, Limits, Result};
use chrono::{DateTime, Utc};
use std::sync::LazyLock;
use tokio_postgres::error::SqlState;

type Range = (DateTime<Utc>, DateTime<Utc>);

const SQL_INSERT: &str =
    "INSERT INTO bookings (tenant, id, resource, during, holder, metadata, status, strategy, expires_at, created_at,
                           quantity, slotted, counted, slots, hold_id)
     VALUES ($11, $1, $2, tstzrange($3, $4, '[)'), $5, $6, $7, $8, $9, $10, $12, $13, true, $14, $15)";

/// Insert `b`; `slots`: the slots it takes on a resource with slots (its events carry them).
async fn insert(tx: &impl Db, tenant: &str, b: &Booking, slots: Option<&serde_json::Value>) -> TxResult<()> {
    let (status, strategy) = (b.status.as_str(), b.strategy.name());
    let quantity = b.quantity as i32;
    let slotted = slots.is_some();
    let stmt = tx.prepare_cached(SQL_INSERT).await?;
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 15] = [
        &b.id,
        &b.resource,
        &b.start,
        &b.end,
        &b.holder,
        &b.metadata,
        &status,
        &strategy,
        &b.expires_at,
        &b.created_at,
        &tenant,
        &quantity,
        &slotted,
        &slots,
        &b.hold_id,
    ];
    tx.execute(&stmt, &params).await.map_err(overlap)?;
    Ok(())
}

/// 23P01 on a resource without slots: the constraint saw a booking the lock did not order
/// (a `naive` one); anything else as usual.
fn overlap(e: tokio_postgres::Error) -> TxErr {
    if e.code() == Some(&SqlState::EXCLUSION_VIOLATION) {
        TxErr::Fail(AllotError::BookingOverlap {
            conflicting_booking_id: None,
        })
    } else {
        e.into()
    }
}

impl PgStore {
    /// Whether `resource` is known to have been put (no query).
    pub(super) fn known_put(&self, tenant: &str, resource: &str) -> bool {
        let known = self.put_resources.lock().unwrap_or_else(|p| p.into_inner());
        known.get(tenant).is_some_and(|r| r.contains(resource))
    }

    /// Remember that `resource` was put (never un-put), while there is room.
    pub(super) fn remember_put(&self, tenant: &str, resource: &str) {
        let mut known = self.put_resources.lock().unwrap_or_else(|p| p.into_inner());
        let count: usize = known.values().map(foldhash::HashSet::len).sum();
        if count < crate::engine::store::MAX_KNOWN_PUT_RESOURCES {
            known
                .entry(tenant.to_string())
                .or_default()
                .insert(resource.to_string());
        }
    }

    /// Whether `resource` was put (remembered, or asked).
    pub(super) async fn is_put(&self, tenant: &str, resource: &str) -> Result<bool> {
        if self.known_put(tenant, resource) {
            return Ok(true);
        }
        let c = self.client().await?;
        let stmt = c
            .prepare_cached("SELECT 1 FROM resources WHERE tenant = $1 AND resource = $2")
            .await
            .map_err(map_error)?;
        Ok(c.query_opt(&stmt, &[&tenant, &resource])
            .await
            .map_err(map_error)?
            .is_some())
    }

    /// For a booking of a resource with slots: take the locks of its resource and pools, and
    /// the now to decide with, read once they are held. `None` for any other booking (or
    /// none: the caller's own read says so). A booking there reads its picture under these
    /// locks and leaves a hold past its expiry out, expiring it row by row before it writes
    /// (`capacity::expire_overdue`, the guard). Whatever keeps a hold alive (confirm, extend)
    /// decides under the same locks too, on a now no earlier than that booking's, so it sees
    /// such a booking first and rarely sends one round again.
    pub(super) async fn lock_if_slotted(
        &self,
        tx: &impl Db,
        tenant: &str,
        id: &str,
    ) -> TxResult<Option<DateTime<Utc>>> {
        let stmt = tx
            .prepare_cached("SELECT resource FROM bookings WHERE tenant = $1 AND id = $2 AND slotted")
            .await?;
        let Some(row) = tx.query_opt(&stmt, &[&tenant, &id]).await? else {
            return Ok(None);
        };
        let resource: String = row.get(0);
        capacity::locked_resource(tx, tenant, &resource, false).await?;
        Ok(Some(self.now()))
    }

    /// Book on a put resource: locks, picture, judge, insert, in one transaction.
    pub(super) async fn book_counted(
        &self,
        tenant: &str,
        req: BookingRequest,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        if req.strategy == BookingStrategy::Batched && idem.is_none() {
            if let Some(b) = self.book_counted_batched(tenant, req.clone()).await? {
                self.booked();
                return Ok(Executed::Fresh(b));
            }
        }
        let out = self
            .retrying(|| self.try_book_counted(tenant, &req, idem.as_ref()))
            .await?;
        if matches!(out, Executed::Fresh(_)) {
            self.booked();
        }
        Ok(out)
    }

    async fn try_book_counted(
        &self,
        tenant: &str,
        req: &BookingRequest,
        idem: Option<&Idempotency<Booking>>,
    ) -> TxResult<Executed<Booking>> {
        self.write(tenant, idem, async |tx| self.counted_body(tx, tenant, req).await)
            .await
    }

    /// A booking decided by capacity in `tx` (ours, or a savepoint of the caller's:
    /// `book_in`): the resource's and pools' locks, then now, the picture, the judge, the
    /// insert and the slots' announcements.
    pub(crate) async fn counted_body(&self, tx: &impl Db, tenant: &str, req: &BookingRequest) -> TxResult<Booking> {
        let naive = req.strategy == BookingStrategy::Naive;
        let r = capacity::locked_resource(tx, tenant, &req.resource, naive).await?;
        // Now, once the locks are held: a hold that expired while this waited no longer counts.
        counted_at(tx, tenant, req, r, self.now()).await
    }
}

/// The decision of [`PgStore::counted_body`] once the locks of resource `r` (and its pools)
/// are held, at `now`: the picture, the judge, the insert and the slots' announcements.
pub(super) async fn counted_at(
    tx: &impl Db,
    tenant: &str,
    req: &BookingRequest,
    r: Resource,
    now: DateTime<Utc>,
) -> TxResult<Booking> {
    check_quantity(&r, req.quantity)?;
    let (mut p, overdue) = capacity::picture_and_overdue(tx, tenant, r, (req.start, req.end), now).await?;
    let ask = Ask {
        start: req.start,
        end: req.end,
        quantity: req.quantity,
        ignore: None,
        now,
    };
    refusal(judge(&p, &ask)?)?;
    // The overdue held bookings the judge left out (on a resource without slots, also out of
    // the exclusion constraint's way).
    capacity::expire_overdue(tx, tenant, &overdue, now).await?;
    let b = req.to_booking(now);
    let Some(cover) = fill::cover(&p, req.start, req.end) else {
        insert(tx, tenant, &b, None).await?;
        return Ok(b);
    };
    // The insert and the read of what was announced, in one round trip.
    let slots = fill::slots_document(&p, b.start, b.end);
    let (inserted, seen) = tokio::join!(
        insert(tx, tenant, &b, slots.as_ref()),
        super::announce::announced(tx, tenant, &b.resource, cover)
    );
    inserted?;
    fill::with_booking(&mut p, &b, now);
    super::announce::announce(tx, tenant, &p, cover, &seen?, now).await?;
    Ok(b)
}

impl PgStore {
    async fn try_reschedule(
        &self,
        tenant: &str,
        id: &str,
        to: &Reschedule,
        idem: Option<&Idempotency<Booking>>,
    ) -> TxResult<Executed<Booking>> {
        self.write(tenant, idem, async |tx| {
            let resource: String = {
                let stmt = tx
                    .prepare_cached("SELECT resource FROM bookings WHERE tenant = $1 AND id = $2")
                    .await?;
                tx.query_opt(&stmt, &[&tenant, &id])
                    .await?
                    .ok_or_else(|| AllotError::not_found("booking", id))?
                    .get(0)
            };
            let r = capacity::locked_resource(tx, tenant, &resource, false).await?;
            let now = self.now();
            let b = read_for_update(tx, tenant, id, now).await?;
            allot_core::booking::not_held_by_hold(&b)?;
            if !b.status.blocks() {
                return Err(TxErr::Fail(AllotError::BookingNotActive {
                    id: id.to_string(),
                    status: b.status,
                }));
            }
            let quantity = to.quantity.unwrap_or(b.quantity);
            check_quantity(&r, quantity)?;
            let (p, overdue) = capacity::picture_and_overdue(tx, tenant, r, (to.start, to.end), now).await?;
            let ask = Ask {
                start: to.start,
                end: to.end,
                quantity,
                ignore: Some(id),
                now,
            };
            refusal(judge(&p, &ask)?)?;
            let slotted = p.resource.slot_ms.is_some();
            capacity::expire_overdue(tx, tenant, &overdue, now).await?;
            let stmt = tx
                .prepare_cached(
                    "UPDATE bookings SET during = tstzrange($3, $4, '[)'), quantity = $5, rescheduled_at = $6,
                                         slotted = $7, counted = true, slots = $8
                      WHERE tenant = $1 AND id = $2",
                )
                .await?;
            let q = quantity as i32;
            let slots = fill::slots_document(&p, to.start, to.end);
            tx.execute(&stmt, &[&tenant, &id, &to.start, &to.end, &q, &now, &slotted, &slots])
                .await
                .map_err(overlap)?;
            let moved = Booking {
                start: to.start,
                end: to.end,
                quantity,
                ..b
            };
            announce_moved(tx, tenant, p, (b.start, b.end), &moved, now).await?;
            Ok(moved)
        })
        .await
    }
}

/// Announce the slots a reschedule changed: those of the new range (on `p`, read before the
/// move, with the moved booking counted), then those of the old range it left (read again:
/// the move is seen).
async fn announce_moved(
    tx: &impl Db,
    tenant: &str,
    mut p: Picture,
    old: Range,
    moved: &Booking,
    now: DateTime<Utc>,
) -> TxResult<()> {
    let Some(cover) = fill::cover(&p, moved.start, moved.end) else {
        return Ok(());
    };
    fill::with_booking(&mut p, moved, now);
    let seen = super::announce::announced(tx, tenant, &moved.resource, cover).await?;
    super::announce::announce(tx, tenant, &p, cover, &seen, now).await?;
    let Some(left) = fill::cover(&p, old.0, old.1) else {
        return Ok(());
    };
    let before = capacity::picture(tx, tenant, p.resource, old, now).await?;
    let seen = super::announce::announced(tx, tenant, &moved.resource, left).await?;
    super::announce::announce(tx, tenant, &before, left, &seen, now).await
}

impl PgStore {
    /// Read `range` of `resource` in one snapshot: the resource, its picture and now.
    async fn snapshot<T>(
        &self,
        tenant: &str,
        resource: &str,
        range: Range,
        f: impl FnOnce(allot_core::booking::judge::Picture, DateTime<Utc>) -> Result<T>,
    ) -> Result<T> {
        let now = self.now();
        let p = self
            .retry_plain(|| async {
                let mut c = self.client().await?;
                let tx = c
                    .build_transaction(tokio_postgres::IsolationLevel::RepeatableRead, true)
                    .await?;
                let r = capacity::resource_or_plain(&tx, tenant, resource).await?;
                let p = capacity::picture(&tx, tenant, r, range, now).await?;
                tx.commit().await?;
                Ok(p)
            })
            .await?;
        f(p, now)
    }
}

async fn read_for_update(tx: &impl Db, tenant: &str, id: &str, now: DateTime<Utc>) -> TxResult<Booking> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("SELECT {COLS} FROM bookings WHERE tenant = $2 AND id = $1 FOR UPDATE"));
    let stmt = tx.prepare_text(&SQL).await?;
    let row = tx
        .query_opt(&stmt, &[&id, &tenant])
        .await?
        .ok_or_else(|| AllotError::not_found("booking", id))?;
    Ok(booking_of(&row, now)?)
}

/// The trait's capacity methods, called from `mod.rs`.
impl PgStore {
    pub(super) async fn put_resource_(&self, tenant: &str, r: Resource) -> Result<Resource> {
        let now = self.now();
        // A resource once put is never un-put: remembered even if this put fails.
        self.remember_put(tenant, &r.resource);
        self.retrying(|| async {
            self.write(tenant, None, async |tx| {
                capacity::put_resource(tx, tenant, r.clone(), now).await
            })
            .await
        })
        .await?
        .fresh()
    }

    pub(super) async fn put_pool_(&self, tenant: &str, p: Pool) -> Result<Pool> {
        let now = self.now();
        self.retrying(|| async {
            self.write(tenant, None, async |tx| {
                capacity::put_pool(tx, tenant, p.clone(), now).await
            })
            .await
        })
        .await?
        .fresh()
    }

    pub(super) async fn put_slots_(
        &self,
        tenant: &str,
        resource: &str,
        body: SlotCapacityBody,
        limits: &Limits,
    ) -> Result<Vec<SlotAvailability>> {
        let now = self.now();
        self.retrying(|| async {
            self.write(tenant, None, async |tx| {
                let r = capacity::locked_resource(tx, tenant, resource, false).await?;
                if r.updated_at.is_none() {
                    return Err(TxErr::Fail(AllotError::not_found("resource", resource)));
                }
                let set = allot_core::booking::capacity::slot_capacity(&r, body.clone(), limits)?;
                capacity::put_slots(tx, tenant, &set, r.capacity, now).await?;
                let (Some(first), Some(last)) = (set.starts.first(), set.starts.last()) else {
                    return Ok(Vec::new());
                };
                let until = r.grid().map_or(*last, |g| g.slot_at(*last).end);
                let p = capacity::picture(tx, tenant, r, (*first, until), now).await?;
                let seen = super::announce::announced(tx, tenant, resource, (*first, until)).await?;
                super::announce::announce(tx, tenant, &p, (*first, until), &seen, now).await?;
                Ok(availability(&p, *first, until)?)
            })
            .await
        })
        .await?
        .fresh()
    }

    pub(super) async fn explain_(&self, tenant: &str, resource: &str, range: Range, quantity: u32) -> Result<Explain> {
        self.snapshot(tenant, resource, range, |p, now| {
            check_quantity(&p.resource, quantity)?;
            let ask = Ask {
                start: range.0,
                end: range.1,
                quantity,
                ignore: None,
                now,
            };
            let reasons = judge(&p, &ask)?;
            Ok(Explain {
                bookable: reasons.is_empty(),
                reasons,
                as_of: now,
            })
        })
        .await
    }

    pub(super) async fn availability_(
        &self,
        tenant: &str,
        resource: &str,
        range: Range,
    ) -> Result<Vec<SlotAvailability>> {
        self.snapshot(tenant, resource, range, |p, _| availability(&p, range.0, range.1))
            .await
    }

    pub(super) async fn reschedule_(
        &self,
        tenant: &str,
        id: &str,
        to: Reschedule,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        self.retrying(|| self.try_reschedule(tenant, id, &to, idem.as_ref()))
            .await
    }
}
