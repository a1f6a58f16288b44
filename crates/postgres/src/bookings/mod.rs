//! Bookings on PostgreSQL: `exclusion` (the constraint decides; 23P01 exclusion_violation is
//! `booking_overlap`), `advisory` (`pg_advisory_xact_lock` on the resource's FNV-1a hash, then
//! check and insert), `naive` (check then insert, no lock; outside the constraint),
//! `batched` (many bookings in one transaction under all their resources' locks, in key
//! order: `batched.rs`; a keyed one, or one its batch could not decide, runs as `exclusion`).
//! `exclusion`, `advisory` and `batched` take the same key per resource, so they mix safely.
//!
//! Why a hash collision of the advisory key costs only waiting: the lock only serialises
//! transactions; the check inside it reads the resource's own rows. Two resources sharing a
//! key just wait for each other.

use crate::engine::conn::{Db, Tx as Transaction};
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use crate::engine::tx::{Decided, TxErr, TxResult};
use allot_core::booking::capacity::{Pool, Resource, SlotCapacityBody};
use allot_core::booking::reason::{Explain, SlotAvailability};
use allot_core::booking::BookingStatus;
use allot_core::booking::Reschedule;
use allot_core::store::{BookingStore, Executed, Idempotency, Keyed};
use allot_core::strategy::fnv1a_64;
use allot_core::tenant::Tenant;
use allot_core::BookingStrategy;
use allot_core::Capable;
use allot_core::{AllotError, Booking, BookingRequest, Limits, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use std::sync::LazyLock;
use tokio_postgres::error::SqlState;

mod announce;
mod batched;
mod capacity;
mod counted;
mod counted_batch;
mod hold_lines;
mod in_tx;

pub(crate) use hold_lines::{hold_booking_lines, lock_holds_resources, SQL_HOLDS_BOOKINGS};

/// A status change: its statement (`$1` id, `$2` now, `$3` tenant; returning `slotted`)
/// and what to answer when it changed nothing (the booking as it is).
type Transition = (&'static str, fn(&Booking) -> Result<()>);

const COLS: &str =
    "id, resource, lower(during) AS start, upper(during) AS \"end\", holder, quantity, metadata, status, strategy,
     expires_at, created_at, hold_id";
/// `$11`: the tenant; `$12`: the hold whose line it is, if any.
const SQL_INSERT: &str = "INSERT INTO bookings (tenant, id, resource, during, holder, metadata, status, strategy,
                                               expires_at, created_at, hold_id)
     VALUES ($11, $1, $2, tstzrange($3, $4, '[)'), $5, $6, $7, $8, $9, $10, $12)";
/// The `exclusion` insert: the resource's advisory lock (`$12`) is taken by the same
/// statement, before its row exists (the row comes out of the subquery that locks), so
/// concurrent inserts on one resource are ordered in one round trip. A resource that was put
/// (capacity, slots, rules) inserts nothing here and takes no lock: it is decided by
/// `counted.rs`.
const SQL_INSERT_LOCKED: &str =
    "INSERT INTO bookings (tenant, id, resource, during, holder, metadata, status, strategy, expires_at, created_at)
     SELECT $11, $1, $2, tstzrange($3, $4, '[)'), $5, $6, $7, $8, $9, $10
       FROM (SELECT pg_advisory_xact_lock($12)
              WHERE NOT EXISTS (SELECT 1 FROM resources WHERE tenant = $11 AND resource = $2)) AS locked";
/// Bookings of tenant `$5` in a blocking status overlapping `[$2, $3)` (whether each is
/// overdue is decided in Rust). The guarded strategies see what the constraint sees; `naive`
/// ($4) sees all. The inner query tests only what the GiST indexes hold (the hash of tenant
/// and resource, V26, and the range) and is planned on its own (`OFFSET 0`), so that no plan
/// walks the primary key over the tenant's bookings; the tenant and resource themselves are
/// tested on what it returns (see `batched.rs`'s `SQL_IN_WAY`).
const SQL_CONFLICTS: &str = "SELECT id, status, expires_at FROM (
        SELECT id, tenant, resource, status, expires_at FROM bookings
         WHERE resource_hash = allot_resource_hash($5, $1) AND during && tstzrange($2, $3, '[)')
           AND status IN ('confirmed', 'held') AND (strategy <> 'naive' OR $4)
        OFFSET 0) b
     WHERE tenant = $5 AND resource = $1 ORDER BY id";
const SQL_EXPIRE_IDS: &str = "UPDATE bookings SET status = 'expired', status_at = $2
     WHERE tenant = $3 AND id = ANY($1) AND status = 'held' AND expires_at <= $2";
/// Seed of the resources' advisory lock keys, which `exclusion`, `advisory` and `batched` all
/// take, each in the transaction that inserts (bigint keys; the idempotency locks use the
/// two-int form, so they cannot collide).
const BOOKING_LOCK_SEED: &[u8] = b"allot-booking:";

/// SQLSTATE of V32's trigger: a plain insert on a resource that was put (decide it by
/// capacity instead).
const PUT_RESOURCE: &str = "AL001";

/// How many times a booking expires overdue holds in its way and tries again.
const MAX_BOOKING_ATTEMPTS: u32 = 3;

/// A read's error as the API's: a final refusal as itself, anything else `unavailable`
/// (outside a write, nothing is retried).
fn tx_fail(e: TxErr) -> AllotError {
    match e {
        TxErr::Fail(e) | TxErr::Backorder(e) | TxErr::Overdue { err: e, .. } => e,
        TxErr::Retry | TxErr::VersionConflict => AllotError::Unavailable("a read was interrupted; retry".into()),
    }
}

pub(crate) fn booking_of(r: &tokio_postgres::Row, now: DateTime<Utc>) -> Result<Booking> {
    let stored =
        BookingStatus::parse(r.get("status")).ok_or_else(|| AllotError::Internal("bad booking status".into()))?;
    let expires_at: Option<DateTime<Utc>> = r.get("expires_at");
    Ok(Booking {
        id: r.get("id"),
        resource: r.get("resource"),
        start: r.get("start"),
        end: r.get("end"),
        holder: r.get("holder"),
        quantity: r.get::<_, i32>("quantity").max(1) as u32,
        metadata: crate::engine::errors::col(r, "metadata")?,
        status: stored.effective(expires_at, now),
        strategy: BookingStrategy::parse(r.get("strategy"))
            .ok_or_else(|| AllotError::Internal("bad booking strategy".into()))?,
        expires_at,
        created_at: r.get("created_at"),
        hold_id: r.get("hold_id"),
    })
}

/// The first live blocking booking in the way, and the overdue held ones.
async fn conflicts<C: Db>(
    c: &C,
    tenant: &str,
    req: &BookingRequest,
    now: DateTime<Utc>,
) -> TxResult<(Option<String>, Vec<String>)> {
    let stmt = c.prepare_cached(SQL_CONFLICTS).await?;
    let naive = req.strategy == BookingStrategy::Naive;
    let rows = c
        .query(&stmt, &[&req.resource, &req.start, &req.end, &naive, &tenant])
        .await?;
    let (mut live, mut overdue) = (None, Vec::new());
    for r in rows {
        let status = BookingStatus::parse(r.get("status"))
            .ok_or_else(|| AllotError::Internal("a booking of unknown status".into()))?;
        if status.effective(r.get("expires_at"), now).blocks() {
            live.get_or_insert_with(|| r.get::<_, String>("id"));
        } else {
            overdue.push(r.get("id"));
        }
    }
    Ok((live, overdue))
}

/// What one booking attempt decided.
enum Booked {
    Done(Executed<Booking>),
    /// 23P01 under `exclusion`: look the conflict up and maybe expire it.
    Excluded,
    /// The resource was put: decide it by its capacity and rules (`counted.rs`).
    Counted,
}

/// Why an `exclusion` insert rolled back.
pub(crate) enum NotInserted {
    Excluded,
    Counted,
}

/// The advisory lock key of `resource` of `tenant` (a NUL separates them: names hold none).
fn resource_key(tenant: &str, resource: &str) -> i64 {
    fnv1a_64(&[BOOKING_LOCK_SEED, tenant.as_bytes(), b"\0", resource.as_bytes()].concat()) as i64
}

/// Take the transaction-scoped advisory lock of `resource` (waits for the holder to end);
/// whether the resource was put, in the same statement (a put that commits while this waits
/// is caught by V32's trigger at the insert).
async fn lock_resource(tx: &impl Db, tenant: &str, resource: &str) -> TxResult<bool> {
    let stmt = tx
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM resources WHERE tenant = $2 AND resource = $3)
               FROM (SELECT pg_advisory_xact_lock($1)) AS locked",
        )
        .await?;
    let row = tx
        .query_one(&stmt, &[&resource_key(tenant, resource), &tenant, &resource])
        .await?;
    Ok(row.get(0))
}

/// The check of the strategies without the exclusion constraint (`advisory`: under a
/// transaction-scoped advisory lock on the resource; `naive`: none): refuse a live overlap,
/// expire the overdue holds in the way. `Ok(false)`: the resource was put (decide it by
/// capacity instead; nothing done).
async fn guard_without_constraint(
    tx: &impl Db,
    tenant: &str,
    req: &BookingRequest,
    now: DateTime<Utc>,
) -> TxResult<bool> {
    if req.strategy == BookingStrategy::Advisory && lock_resource(tx, tenant, &req.resource).await? {
        return Ok(false);
    }
    let (live, overdue) = conflicts(tx, tenant, req, now).await?;
    if let Some(id) = live {
        return Err(TxErr::Fail(AllotError::BookingOverlap {
            conflicting_booking_id: Some(id),
        }));
    }
    if !overdue.is_empty() {
        let stmt = tx.prepare_cached(SQL_EXPIRE_IDS).await?;
        tx.execute(&stmt, &[&overdue, &now, &tenant]).await?;
    }
    Ok(true)
}

/// A plain booking's insert in `tx` (ours, or a savepoint of the caller's: `book_in`) at
/// `now`: committed with the booking, or rolled back saying why it was not inserted (the
/// resource was put: decide it by capacity; someone's booking is in the way).
pub(crate) async fn insert_body(
    tx: &Transaction<'_>,
    tenant: &str,
    req: &BookingRequest,
    now: DateTime<Utc>,
) -> TxResult<Decided<Booking, NotInserted>> {
    let booking = req.to_booking(now);
    // `exclusion`: the constraint is the guard. The resource's lock (taken by the
    // insert itself) only orders concurrent inserts on one resource: unordered, two
    // inserts that each find the other's uncommitted entry wait on each other, and
    // PostgreSQL breaks that deadlock only after `deadlock_timeout` (1 s default).
    let exclusion = matches!(req.strategy, BookingStrategy::Exclusion | BookingStrategy::Batched);
    if !exclusion && !guard_without_constraint(tx, tenant, req, now).await? {
        return Ok(Decided::Rollback(NotInserted::Counted));
    }
    let key = resource_key(tenant, &req.resource);
    let (status, strategy) = (booking.status.as_str(), booking.strategy.name());
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![
        &booking.id,
        &booking.resource,
        &booking.start,
        &booking.end,
        &booking.holder,
        &booking.metadata,
        &status,
        &strategy,
        &booking.expires_at,
        &now,
        &tenant,
    ];
    if exclusion {
        params.push(&key);
    } else {
        params.push(&booking.hold_id);
    }
    let stmt = tx
        .prepare_cached(if exclusion { SQL_INSERT_LOCKED } else { SQL_INSERT })
        .await?;
    let inserted = tx.execute(&stmt, &params).await;
    match inserted {
        Ok(0) => Ok(Decided::Rollback(NotInserted::Counted)),
        // Put while this insert waited for the resource's lock (V32's trigger).
        Err(e) if e.code().is_some_and(|c| c.code() == PUT_RESOURCE) => Ok(Decided::Rollback(NotInserted::Counted)),
        Ok(_) => Ok(Decided::Commit(booking)),
        // Someone else's booking is in the way: the caller looks it up (answers
        // with it) or runs again, bounded.
        Err(e) if e.code() == Some(&SqlState::EXCLUSION_VIOLATION) => Ok(Decided::Rollback(NotInserted::Excluded)),
        Err(e) => Err(e.into()),
    }
}

impl PgStore {
    async fn try_book(
        &self,
        tenant: &str,
        req: &BookingRequest,
        idem: Option<&Idempotency<Booking>>,
        now: DateTime<Utc>,
    ) -> TxResult<Booked> {
        let written = self
            .write_or(tenant, idem, async |tx| insert_body(tx, tenant, req, now).await)
            .await?;
        Ok(match written {
            Ok(b) => Booked::Done(b),
            Err(NotInserted::Excluded) => Booked::Excluded,
            Err(NotInserted::Counted) => Booked::Counted,
        })
    }

    /// A booking was made: `bookings` gets fresh planner statistics once enough arrived
    /// (`engine::analyze`), so the plans every connection caches for the conflict check and
    /// the listing (made, after their first five runs, on the statistics of the moment) are
    /// made again on the table as it has grown: ANALYZE invalidates the cached plans that
    /// read the table (PostgreSQL docs, PREPARE, "Notes").
    fn booked(&self) {
        self.analyze_in_background(&self.analyzing_bookings, "bookings", 1);
    }

    /// After a 23P01: the live booking in the way (answer with it), or expire the overdue
    /// holds that caused it and report that a retry may succeed.
    async fn resolve_exclusion(
        &self,
        tenant: &str,
        req: &BookingRequest,
        now: DateTime<Utc>,
    ) -> Result<Option<String>> {
        let c = self.client().await?;
        let (live, overdue) = match conflicts(&c, tenant, req, now).await {
            Ok(v) => v,
            Err(TxErr::Fail(e)) => return Err(e),
            Err(_) => return Ok(None),
        };
        if live.is_some() {
            return Ok(live);
        }
        if !overdue.is_empty() {
            let stmt = c.prepare_cached(SQL_EXPIRE_IDS).await.map_err(map_error)?;
            c.execute(&stmt, &[&overdue, &now, &tenant]).await.map_err(map_error)?;
        }
        Ok(None)
    }

    async fn read_booking<C: Db>(c: &C, tenant: &str, id: &str, now: DateTime<Utc>) -> Result<Booking> {
        static SQL: LazyLock<String> =
            LazyLock::new(|| format!("SELECT {COLS} FROM bookings WHERE tenant = $2 AND id = $1"));
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        let row = c
            .query_opt(&stmt, &[&id, &tenant])
            .await
            .map_err(map_error)?
            .ok_or_else(|| AllotError::not_found("booking", id))?;
        booking_of(&row, now)
    }

    /// Lock a booking's row, check it is a live hold, and push its expiry out. A booking of a
    /// resource with slots takes the locks of its resource and pools first, and reads now
    /// under them (see [`PgStore::try_confirm_booking`]).
    async fn try_extend_booking(
        &self,
        tenant: &str,
        id: &str,
        ttl_ms: u64,
        idem: Option<&Idempotency<Booking>>,
    ) -> TxResult<Executed<Booking>> {
        self.write(tenant, idem, async |tx| {
            let now = match self.lock_if_slotted(tx, tenant, id).await? {
                Some(locked_now) => locked_now,
                None => self.now(),
            };
            static SQL: LazyLock<String> =
                LazyLock::new(|| format!("SELECT {COLS} FROM bookings WHERE tenant = $2 AND id = $1 FOR UPDATE"));
            let stmt = tx.prepare_cached(&SQL).await?;
            let row = tx
                .query_opt(&stmt, &[&id, &tenant])
                .await?
                .ok_or_else(|| AllotError::not_found("booking", id))?;
            let b = booking_of(&row, now)?;
            allot_core::booking::not_held_by_hold(&b)?;
            let stored = BookingStatus::parse(row.get("status"))
                .ok_or_else(|| AllotError::Internal("a booking of unknown status".into()))?;
            stored.extend_refusal(id, b.expires_at, now)?;
            let until = allot_core::hold::extended_expiry(b.expires_at.unwrap_or(now), now, ttl_ms);
            let stmt = tx
                .prepare_cached("UPDATE bookings SET expires_at = $3 WHERE tenant = $2 AND id = $1")
                .await?;
            tx.execute(&stmt, &[&id, &tenant, &until]).await?;
            Ok(Booking {
                expires_at: Some(until),
                ..b
            })
        })
        .await
    }

    /// Confirm a live hold. A booking of a resource with slots is confirmed under the locks of
    /// its resource and pools, with now read once they are held (`counted.rs`,
    /// `lock_if_slotted`): a booking decided there leaves an expired hold out of its picture
    /// and expires it, row by row, before it writes (`capacity::expire_overdue`), so a
    /// confirm that read now before the expiry finds it expired, or makes that booking run
    /// again; the locks and the late now make the confirm see such a booking first.
    async fn try_confirm_booking(
        &self,
        tenant: &str,
        id: &str,
        idem: Option<&Idempotency<Booking>>,
    ) -> TxResult<Executed<Booking>> {
        const SQL: &str = "UPDATE bookings SET status = 'confirmed', expires_at = NULL, status_at = $2
             WHERE tenant = $3 AND id = $1 AND status = 'held' AND expires_at > $2 AND slotted = $4
               AND hold_id IS NULL";
        self.write(tenant, idem, async |tx| {
            let stmt = tx.prepare_cached(SQL).await?;
            let mut now = self.now();
            let mut changed = tx.execute(&stmt, &[&id, &now, &tenant, &false]).await?;
            if changed == 0 {
                if let Some(locked_now) = self.lock_if_slotted(tx, tenant, id).await? {
                    now = locked_now;
                    changed = tx.execute(&stmt, &[&id, &now, &tenant, &true]).await?;
                }
            }
            let b = Self::read_booking(tx, tenant, id, now).await?;
            allot_core::booking::not_held_by_hold(&b)?;
            match (changed, b.status) {
                (0, BookingStatus::Confirmed) | (1.., _) => Ok(b),
                (_, status) => Err(TxErr::Fail(AllotError::BookingNotActive {
                    id: b.id.clone(),
                    status,
                })),
            }
        })
        .await
    }

    /// Run a conditional status change `sql` ($1 id, $2 now, $3 tenant) in a transaction with
    /// the idempotency protocol; `refuse` decides what an unchanged booking answers.
    async fn try_transition(
        &self,
        tenant: &str,
        id: &str,
        (sql, refuse): Transition,
        idem: Option<&Idempotency<Booking>>,
        now: DateTime<Utc>,
        slotted: &std::sync::atomic::AtomicBool,
    ) -> TxResult<Executed<Booking>> {
        self.write(tenant, idem, async |tx| {
            let stmt = tx.prepare_cached(sql).await?;
            let changed = tx.query(&stmt, &[&id, &now, &tenant]).await?;
            let booking = Self::read_booking(tx, tenant, id, now).await?;
            allot_core::booking::not_held_by_hold(&booking)?;
            match changed.first() {
                None => refuse(&booking)?,
                Some(row) => slotted.store(row.get("slotted"), std::sync::atomic::Ordering::Relaxed),
            }
            Ok(booking)
        })
        .await
    }

    /// A transition that frees what a booking took (`sql` returns its `slotted`): then, on
    /// a resource with slots, the slots' fill is announced (`announce.rs`).
    async fn freeing(
        &self,
        tenant: &str,
        id: &str,
        step: Transition,
        idem: Option<&Idempotency<Booking>>,
        now: DateTime<Utc>,
    ) -> Result<Executed<Booking>> {
        let slotted = std::sync::atomic::AtomicBool::new(false);
        let out = self
            .retrying(|| self.try_transition(tenant, id, step, idem, now, &slotted))
            .await?;
        if let (true, Executed::Fresh(b)) = (slotted.load(std::sync::atomic::Ordering::Relaxed), &out) {
            self.announce_after(tenant, &b.resource, (b.start, b.end)).await;
        }
        Ok(out)
    }
}

#[async_trait]
impl BookingStore for PgStore {
    async fn book(&self, tenant: &Tenant, req: BookingRequest, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        if !self.supports_booking(req.strategy) {
            return Err(AllotError::unsupported_strategy(req.strategy.name(), "postgres"));
        }
        // Whether the resource was put is found out without a query of its own: `exclusion` in
        // its insert, `advisory` with its lock, `batched` when its batch's insert meets V32's
        // trigger (the batch falls back to the per-request path, which finds out); a resource
        // once found put is remembered. `naive` (bench only) asks. A quantity above 1 is for a
        // put resource only, which `book_counted` checks.
        if req.quantity != 1
            || self.known_put(tenant, &req.resource)
            || (req.strategy == BookingStrategy::Naive && self.is_put(tenant, &req.resource).await?)
        {
            return self.book_counted(tenant, req, idem).await;
        }
        if req.strategy == BookingStrategy::Batched && idem.is_none() {
            if let Some(b) = self.book_batched(tenant.as_str(), req.clone()).await? {
                self.booked();
                return Ok(Executed::Fresh(b));
            }
        }
        for _ in 0..MAX_BOOKING_ATTEMPTS {
            let now = self.now();
            match self
                .retrying(|| self.try_book(tenant, &req, idem.as_ref(), now))
                .await?
            {
                Booked::Done(b) => {
                    if matches!(b, Executed::Fresh(_)) {
                        self.booked();
                    }
                    return Ok(b);
                }
                Booked::Counted => {
                    self.remember_put(tenant, &req.resource);
                    return self.book_counted(tenant, req, idem).await;
                }
                Booked::Excluded => {
                    if let Some(id) = self.resolve_exclusion(tenant, &req, now).await? {
                        return Err(AllotError::BookingOverlap {
                            conflicting_booking_id: Some(id),
                        });
                    }
                }
            }
        }
        Err(AllotError::BookingOverlap {
            conflicting_booking_id: None,
        })
    }

    async fn get_booking(&self, tenant: &Tenant, id: &str) -> Result<Booking> {
        let c = self.client().await?;
        Self::read_booking(&c, tenant, id, self.now()).await
    }

    async fn cancel_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        const SQL: &str = "UPDATE bookings SET status = 'cancelled', expires_at = NULL, status_at = $2
             WHERE tenant = $3 AND id = $1 AND (status = 'confirmed' OR (status = 'held' AND expires_at > $2))
               AND hold_id IS NULL
             RETURNING slotted";
        let now = self.now();
        self.freeing(tenant, id, (SQL, |_| Ok(())), idem.as_ref(), now).await
    }

    async fn release_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        const SQL: &str = "UPDATE bookings SET status = 'released', status_at = $2
             WHERE tenant = $3 AND id = $1 AND status = 'held' AND expires_at > $2 AND hold_id IS NULL
             RETURNING slotted";
        let now = self.now();
        let refuse = |b: &Booking| match b.status {
            BookingStatus::Confirmed => Err(AllotError::BookingNotActive {
                id: b.id.clone(),
                status: BookingStatus::Confirmed,
            }),
            _ => Ok(()),
        };
        self.freeing(tenant, id, (SQL, refuse), idem.as_ref(), now).await
    }

    async fn confirm_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>> {
        self.retrying(|| self.try_confirm_booking(tenant, id, idem.as_ref()))
            .await
    }

    async fn extend_booking(
        &self,
        tenant: &Tenant,
        id: &str,
        ttl_ms: u64,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        self.retrying(|| self.try_extend_booking(tenant, id, ttl_ms, idem.as_ref()))
            .await
    }

    async fn put_resource(&self, tenant: &Tenant, r: Resource) -> Result<Resource> {
        self.put_resource_(tenant, r).await
    }

    async fn get_resource(&self, tenant: &Tenant, resource: &str) -> Result<Resource> {
        let c = self.client().await?;
        capacity::resource_or_plain(&c, tenant, resource).await.map_err(tx_fail)
    }

    async fn put_pool(&self, tenant: &Tenant, p: Pool) -> Result<Pool> {
        self.put_pool_(tenant, p).await
    }

    async fn put_slot_capacity(
        &self,
        tenant: &Tenant,
        resource: &str,
        body: SlotCapacityBody,
        limits: &Limits,
    ) -> Result<Vec<SlotAvailability>> {
        self.put_slots_(tenant, resource, body, limits).await
    }

    async fn explain(
        &self,
        tenant: &Tenant,
        resource: &str,
        range: (DateTime<Utc>, DateTime<Utc>),
        quantity: u32,
    ) -> Result<Explain> {
        self.explain_(tenant, resource, range, quantity).await
    }

    async fn slot_availability(
        &self,
        tenant: &Tenant,
        resource: &str,
        range: (DateTime<Utc>, DateTime<Utc>),
    ) -> Result<Vec<SlotAvailability>> {
        self.availability_(tenant, resource, range).await
    }

    async fn reschedule_booking(
        &self,
        tenant: &Tenant,
        id: &str,
        to: Reschedule,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>> {
        self.reschedule_(tenant, id, to, idem).await
    }

    async fn list_bookings(
        &self,
        tenant: &Tenant,
        resource: &str,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Booking>> {
        let now = self.now();
        let c = self.client().await?;
        // The inner query reads only what the GiST index serves, as SQL_CONFLICTS does.
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {COLS} FROM (
                     SELECT * FROM bookings
                      WHERE resource_hash = allot_resource_hash($6, $1) AND during && tstzrange($2, $3, '[)')
                        AND (status = 'confirmed' OR (status = 'held' AND expires_at > $4))
                     OFFSET 0) b
                  WHERE tenant = $6 AND resource = $1
                  ORDER BY lower(during), id LIMIT $5"
            )
        });
        let stmt = c.prepare_cached(&SQL).await.map_err(map_error)?;
        c.query(
            &stmt,
            &[&resource, &from, &to, &now, &i64::from(limit), &tenant.as_str()],
        )
        .await
        .map_err(map_error)?
        .iter()
        .map(|r| booking_of(r, now))
        .collect()
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl PgStore {
    pub(crate) async fn run_expire_bookings(&self, now: DateTime<Utc>, max: u32) -> Result<u64> {
        let c = self.client().await?;
        let rows = c
            .query(
                // A MATERIALIZED batch joined with FROM: an inlined `id IN (SELECT … LIMIT n FOR
                // UPDATE SKIP LOCKED)` can be rescanned once per outer row (quadratic).
                "WITH batch AS MATERIALIZED (
                     SELECT tenant, id FROM bookings WHERE status = 'held' AND expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
                 UPDATE bookings b SET status = 'expired', status_at = $1 FROM batch
                  WHERE b.tenant = batch.tenant AND b.id = batch.id AND b.status = 'held'
                 RETURNING b.tenant, b.resource, lower(b.during) AS start, upper(b.during) AS \"end\", b.slotted",
                &[&now, &i64::from(max.max(1))],
            )
            .await
            .map_err(map_error)?;
        drop(c);
        // The slots the expired holds of resources with slots freed (each range once).
        let mut freed: Vec<(String, String, DateTime<Utc>, DateTime<Utc>)> = rows
            .iter()
            .filter(|r| r.get::<_, bool>("slotted"))
            .map(|r| (r.get("tenant"), r.get("resource"), r.get("start"), r.get("end")))
            .collect();
        freed.sort_unstable();
        freed.dedup();
        for (tenant, resource, start, end) in &freed {
            self.announce_after(tenant, resource, (*start, *end)).await;
        }
        Ok(rows.len() as u64)
    }
}
