//! The store traits every backend implements, and the idempotency plumbing.
//!
//! Idempotency (the `Idempotency-Key` convention of Stripe-style APIs): the first request's result code and body are stored in
//! the same transaction as its effect. The store does not know the wire format, so the
//! caller passes a `render` function that turns the result into the stored response; the
//! store calls it inside the transaction. Only successful requests are stored: a failed
//! request changes nothing, so a retry of it runs again.

pub mod capabilities;
pub mod idempotency;
pub mod long_poll;
pub mod stores;

use crate::booking::{Booking, BookingRequest};
use crate::hold::{Hold, HoldRequest};
use crate::location::{Location, SetLevel, Transfer};
use crate::model::{Adjustment, Allocation, AllocationRequest, CreateSku, LedgerEntry, Sku};
use crate::support::error::Result;
use crate::support::page::{Listed, Page};
use crate::tenant::Tenant;
use crate::unit::{AddUnits, UnitAllocation, UnitClaim, UnitsCreated};
use async_trait::async_trait;

/// A response as stored for an idempotency key: the caller's result code and body bytes,
/// both opaque to the store (the server stores its status code and JSON body there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// The caller's result code, kept and replayed as given.
    pub code: u16,
    /// The exact body bytes first sent.
    pub body: Vec<u8>,
}

/// Renders a result into the response that is stored with it.
pub type Render<T> = Box<dyn Fn(&T) -> StoredResponse + Send + Sync>;

/// What a request carried for idempotency.
pub struct Idempotency<T> {
    /// The `Idempotency-Key` header value (validated).
    pub key: String,
    /// Identifies the request (method, path, canonical body); the same key with another
    /// fingerprint is `idempotency_key_reused`.
    pub fingerprint: String,
    /// Turns the result into the response to store.
    pub render: Render<T>,
}

/// What a write takes for idempotency: `None` when the request carried no key.
pub type Keyed<T> = Option<Idempotency<T>>;

/// Either the result of running the request now, or the stored response of its first run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Executed<T> {
    /// Ran now.
    Fresh(T),
    /// Replayed from the idempotency store.
    Replayed(StoredResponse),
}

impl<T> Executed<T> {
    /// The fresh value mapped by `f`; a replay stays the stored response.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Executed<U> {
        match self {
            Executed::Fresh(v) => Executed::Fresh(f(v)),
            Executed::Replayed(r) => Executed::Replayed(r),
        }
    }

    /// The fresh value. For callers that passed no key, where a replay cannot happen; a
    /// replay is `internal` (a stored response has no typed value).
    pub fn fresh(self) -> Result<T> {
        match self {
            Executed::Fresh(v) => Ok(v),
            Executed::Replayed(_) => Err(crate::support::error::AllotError::Internal(
                "a replay where no key was given".into(),
            )),
        }
    }
}

/// Fungible stock per SKU. Implemented by every backend; the same conformance suite runs
/// against each.
///
/// Tenants: every method that takes `tenant` reads and writes only that tenant's objects
/// (SKUs, ledger entries, allocations, holds, units, bookings, jobs, idempotency keys); an
/// object of another tenant is `not_found`, exactly as one that does not exist, and names are
/// unique per tenant. `tenant` is a [`Tenant`] (a name checked on its way in), the caller's
/// (the API key's tenant, or [`crate::access::DEFAULT_TENANT`]). The methods without it
/// (sweepers, pruning, gauges) work across tenants.
///
/// Errors: `not_found`, `already_exists`, `insufficient_stock`, `contention`,
/// `idempotency_key_reused`, `idempotency_key_in_use`, `unavailable`, `internal`.
#[async_trait]
pub trait StockStore: Send + Sync + 'static {
    /// Cheap round trip to the store; `unavailable` when it is down.
    async fn health(&self) -> Result<()>;

    /// Create a SKU with its initial stock spread evenly over its buckets, and its
    /// `created` ledger entry. `already_exists` if it exists.
    async fn create_sku(&self, tenant: &Tenant, req: CreateSku, idem: Keyed<Sku>) -> Result<Executed<Sku>>;

    /// Read a SKU's totals.
    async fn get_sku(&self, tenant: &Tenant, sku: &str) -> Result<Sku>;

    /// Set SKU `sku`'s `low_stock_below` (`None` removes it); no stock moves and no ledger
    /// entry is written. Returns the SKU. Errors: `not_found`.
    async fn set_low_stock(&self, tenant: &Tenant, sku: &str, below: Option<i64>) -> Result<Sku>;

    /// Set SKU `sku`'s `backorder_limit` (0..=`max_quantity`, validated by the caller; see
    /// [`crate::backorder`]); no stock moves. Lowering it below what is owed stops new
    /// backorders only. Errors: `not_found`, `wrong_tracking` (a unit-tracked SKU).
    async fn set_backorder_limit(&self, tenant: &Tenant, sku: &str, limit: i64) -> Result<Sku>;

    /// Write kit `kit.kit` (see [`crate::kit`]): made, or its components replaced. Every
    /// component must be a count-tracked SKU of `tenant` (`not_found` for one that is not,
    /// `wrong_tracking` for a unit-tracked one); nothing is written then. No stock moves.
    async fn put_kit(&self, tenant: &Tenant, kit: crate::kit::Kit) -> Result<crate::kit::Kit>;

    /// The kits of `tenant` among `names` (a name no kit has is left out).
    async fn kits(&self, tenant: &Tenant, names: &[String]) -> Result<crate::kit::Kits>;

    /// Remove kit `kit` (what was allocated or held through it stays: it was taken by
    /// component). Errors: `not_found`.
    async fn delete_kit(&self, tenant: &Tenant, kit: &str) -> Result<()>;

    /// Change `on_hand` by `delta` (relative), spreading available stock evenly over the
    /// buckets; writes an `adjustment` ledger entry. A negative delta beyond `available` is
    /// `insufficient_stock`.
    async fn adjust(&self, tenant: &Tenant, req: Adjustment, idem: Keyed<Sku>) -> Result<Executed<Sku>>;

    /// A page of a SKU's ledger entries by id (oldest first), the cursor an entry's id.
    async fn ledger(&self, tenant: &Tenant, sku: &str, page: Page<i64>) -> Result<Listed<LedgerEntry, i64>>;

    /// Allocate all lines or none, with the request's strategy.
    async fn allocate(
        &self,
        tenant: &Tenant,
        req: AllocationRequest,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>>;

    /// Read an allocation.
    async fn get_allocation(&self, tenant: &Tenant, id: &str) -> Result<Allocation>;

    /// Cancel an allocation: each line's quantity goes back to stock (spread over a
    /// count-tracked SKU's buckets as an adjustment is; a unit-tracked SKU's units become
    /// available again), one
    /// `allocation_cancelled` ledger entry per line pointing at it, status `cancelled`.
    /// Cancelling a cancelled allocation returns it unchanged.
    async fn cancel_allocation(
        &self,
        tenant: &Tenant,
        req: crate::model::Cancel,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>>;

    /// Return part of an allocation (`req.lines` sorted by SKU, validated by
    /// [`crate::validate::returns`]): the allocation's row locked first; each line at most
    /// what is left of the allocation's line (else `exceeds_allocation`, nothing changed); a
    /// sellable line back on hand at its location (default: the first it came from) with a
    /// `returned` ledger entry pointing at the allocation, a damaged one recorded only; the
    /// allocation's lines then say how much came back (`returned`), and a later cancel gives
    /// back only what is left. A unit-tracked line is `wrong_tracking` (its units come back
    /// by a cancel). Answers the return with its locations filled in.
    async fn return_allocation(
        &self,
        tenant: &Tenant,
        req: crate::returns::Return,
        idem: Keyed<crate::returns::Return>,
    ) -> Result<Executed<crate::returns::Return>>;

    /// Record stock expected at a location of a count-tracked SKU (see [`crate::receiving`]):
    /// not on hand, never allocated, shown as the SKU's and the level's `incoming` until
    /// received. No ledger entry. Errors: `not_found` (the SKU, the location),
    /// `wrong_tracking` (a unit-tracked SKU).
    async fn add_incoming(
        &self,
        tenant: &Tenant,
        req: crate::receiving::Incoming,
        idem: Keyed<crate::receiving::Incoming>,
    ) -> Result<Executed<crate::receiving::Incoming>>;

    /// Receive `req.quantity` units: on hand rises at the receipt's location (spread over its
    /// buckets as an adjustment is) with one `received` ledger entry pointing at the receipt;
    /// a receipt naming an incoming arrives at the incoming's location and adds to its
    /// `received` (its row locked first; more than is still expected is `exceeds_incoming`,
    /// nothing changed). Answers the receipt with its location filled in. Errors:
    /// `not_found` (the SKU, the location, the incoming of this SKU), `wrong_tracking`.
    async fn receive(
        &self,
        tenant: &Tenant,
        req: crate::receiving::Receipt,
        idem: Keyed<crate::receiving::Receipt>,
    ) -> Result<Executed<crate::receiving::Receipt>>;

    /// Move `req.quantity` units between quantity states at `req.location` (see
    /// [`crate::states`]), in one transaction with one `moved` ledger entry pointing at the
    /// move. Out of `available`: the location's sellable rows fall as an adjustment's do, never
    /// below what holds set aside (`insufficient_stock`, after finalising overdue holds, as a
    /// short line does); into it: they rise. Out of an unsellable state: at most what it has
    /// there (`exceeds_state`, nothing changed). Errors: `not_found` (the SKU, the location),
    /// `wrong_tracking` (a unit-tracked SKU).
    async fn move_stock(
        &self,
        tenant: &Tenant,
        req: crate::states::Move,
        idem: Keyed<crate::states::Move>,
    ) -> Result<Executed<crate::states::Move>>;

    /// A page of `tenant`'s SKUs by name (the cursor a name), those `filter` matches (low
    /// stock, a name prefix). Counts as [`StockStore::get_sku`].
    async fn list_skus(
        &self,
        tenant: &Tenant,
        filter: &crate::model::SkuFilter,
        page: Page<Option<&str>>,
    ) -> Result<Listed<Sku, String>>;

    /// A page of `tenant`'s allocations, oldest first (by creation, then id; the cursor an
    /// allocation's id, an unknown one giving an empty page).
    async fn list_allocations(&self, tenant: &Tenant, page: Page<Option<&str>>) -> Result<Listed<Allocation, String>>;
}

/// Holds on stock and units (see [`crate::hold`]). Every backend.
///
/// Errors: `not_found`, `insufficient_stock`, `contention`, `hold_expired`,
/// `hold_released`, `idempotency_key_*`, `unavailable`, `internal`.
#[async_trait]
pub trait HoldStore: Send + Sync + 'static {
    /// Move each line's quantity from available to held (all lines or none) with the
    /// request's strategy, until `now + ttl_ms`. Writes a `hold` ledger entry per line.
    async fn create_hold(&self, tenant: &Tenant, req: HoldRequest, idem: Keyed<Hold>) -> Result<Executed<Hold>>;

    /// Read a hold; its status is the effective one (overdue reads as `expired`).
    async fn get_hold(&self, tenant: &Tenant, id: &str) -> Result<Hold>;

    /// Turn a `held`, unexpired hold into an allocation with the same id (on_hand and held
    /// both drop; `hold_confirmed` ledger entries). Confirming a confirmed hold returns its
    /// allocation again; an expired or released one is `hold_expired` / `hold_released`.
    /// `req.part`: confirm only these lines of a hold of any kind (validated by
    /// [`crate::validate::confirm`], planned by [`crate::hold::plan_part`]): the hold's stock
    /// pieces in (sku, bucket) order are kept up to each quantity, a unit line keeps its
    /// first units (by id) up to its quantity, the bookings named are kept; the rest (every
    /// SKU and booking not named) is released in the same transaction (`hold_released`
    /// entries; the released units become available, the released bookings read `released`
    /// and belong to the hold no more), and the allocation holds what was kept.
    /// `insufficient_stock` for more than the hold holds of a SKU, `not_in_hold` for a
    /// booking that is not the hold's.
    async fn confirm_hold(
        &self,
        tenant: &Tenant,
        req: crate::hold::Confirm,
        idem: Keyed<Allocation>,
    ) -> Result<Executed<Allocation>>;

    /// Give a `held` hold back (`hold_released` ledger entries). Releasing a released or
    /// expired hold returns it unchanged; releasing a confirmed one is `hold_confirmed`.
    async fn release_hold(
        &self,
        tenant: &Tenant,
        req: crate::hold::Release,
        idem: Keyed<Hold>,
    ) -> Result<Executed<Hold>>;

    /// A page of `tenant`'s holds whose effective status is `status` (a `held` hold past its
    /// expiry lists as `expired`), expiring soonest first (by `expires_at`, then id; the
    /// cursor a hold's id); with `sku`, only holds with a line of that SKU.
    async fn list_holds(
        &self,
        tenant: &Tenant,
        (status, sku): (crate::hold::HoldStatus, Option<&str>),
        page: Page<Option<&str>>,
    ) -> Result<Listed<Hold, String>>;

    /// Extend a `held`, unexpired hold (stock or units) so it lasts at least `ttl_ms` from
    /// now ([`crate::hold::extended_expiry`]); `hold_expired` / `hold_released` /
    /// `hold_confirmed` otherwise (see [`crate::hold::extend_refusal`]). Races with expiry
    /// have one outcome: the hold's row is locked first.
    async fn extend_hold(&self, tenant: &Tenant, id: &str, ttl_ms: u64, idem: Keyed<Hold>) -> Result<Executed<Hold>>;
}

/// Individually tracked units (see [`crate::unit`]). Every backend.
///
/// Errors: `not_found`, `already_exists` (a serial the SKU has), `insufficient_stock`,
/// `contention`, `unsupported_strategy`, `invalid_request` (a count-tracked SKU),
/// `idempotency_key_*`, `unavailable`, `internal`.
#[async_trait]
pub trait UnitStore: Send + Sync + 'static {
    /// Insert a batch of units as `available` (one bulk statement on PostgreSQL), creating
    /// the SKU as unit-tracked when it does not exist; a `units_received` ledger entry.
    async fn add_units(
        &self,
        tenant: &Tenant,
        req: AddUnits,
        idem: Keyed<UnitsCreated>,
    ) -> Result<Executed<UnitsCreated>>;

    /// A page of `sku`'s units by id (the cursor a unit's id), those `filter` keeps.
    /// `not_found` for an unknown SKU; a count-tracked SKU has none (an empty page).
    async fn list_units(
        &self,
        tenant: &Tenant,
        sku: &str,
        filter: &crate::unit::UnitFilter,
        page: Page<i64>,
    ) -> Result<Listed<crate::unit::UnitView, i64>>;

    /// The unit of `sku` with `serial`; `not_found` when there is none.
    async fn get_unit(&self, tenant: &Tenant, sku: &str, serial: &str) -> Result<crate::unit::UnitView>;

    /// Claim `quantity` available units in the requested order (all or nothing unless
    /// `allow_partial`), as an allocation or, with `hold_ttl_ms`, as a hold.
    async fn claim_units(
        &self,
        tenant: &Tenant,
        req: UnitClaim,
        idem: Keyed<UnitAllocation>,
    ) -> Result<Executed<UnitAllocation>>;
}

/// Bookings of time ranges on resources (see [`crate::booking`]).
///
/// Errors: `booking_overlap` (with the conflicting id when known), `not_found`,
/// `booking_expired` / `booking_cancelled` / `booking_released` (confirm), `contention`,
/// `unsupported_strategy`, `idempotency_key_*`, `unavailable`, `internal`.
#[async_trait]
pub trait BookingStore: Send + Sync + 'static {
    /// Book `[start, end)` unless it overlaps a blocking booking of the resource. A held
    /// booking past its expiry never blocks: it is expired first (bounded retries).
    async fn book(&self, tenant: &Tenant, req: BookingRequest, idem: Keyed<Booking>) -> Result<Executed<Booking>>;

    /// Read a booking (effective status).
    async fn get_booking(&self, tenant: &Tenant, id: &str) -> Result<Booking>;

    /// Cancel a confirmed or held booking (the range is free at once); cancelling a booking
    /// that no longer blocks returns it unchanged.
    async fn cancel_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>>;

    /// Give back a held, unexpired booking (`released`); a booking that no longer blocks is
    /// returned unchanged; a confirmed one is `booking_confirmed` (cancel it instead).
    async fn release_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>>;

    /// Confirm a held, unexpired booking; a confirmed one is returned again.
    async fn confirm_booking(&self, tenant: &Tenant, id: &str, idem: Keyed<Booking>) -> Result<Executed<Booking>>;

    /// Extend a held, unexpired booking so its hold lasts at least `ttl_ms` from now (never
    /// shorter); `booking_expired` / `booking_confirmed` / `booking_released` /
    /// `booking_cancelled` otherwise.
    async fn extend_booking(
        &self,
        tenant: &Tenant,
        id: &str,
        ttl_ms: u64,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>>;

    /// Put a resource's capacity, slots, pools and rules (`not_found` for a pool never put).
    /// Taken
    /// under the resource's lock, so no booking is decided half on the old and half on the
    /// new configuration.
    async fn put_resource(
        &self,
        tenant: &Tenant,
        r: crate::booking::capacity::Resource,
    ) -> Result<crate::booking::capacity::Resource>;

    /// A resource as put, or [`crate::booking::capacity::Resource::plain`] if never put.
    async fn get_resource(&self, tenant: &Tenant, resource: &str) -> Result<crate::booking::capacity::Resource>;

    /// Put a pool.
    async fn put_pool(
        &self,
        tenant: &Tenant,
        p: crate::booking::capacity::Pool,
    ) -> Result<crate::booking::capacity::Pool>;

    /// Set the capacity of slots of a put resource with slots (`not_found` for one never
    /// put; `invalid_request` for one without slots).
    async fn put_slot_capacity(
        &self,
        tenant: &Tenant,
        resource: &str,
        body: crate::booking::capacity::SlotCapacityBody,
        limits: &crate::support::limits::Limits,
    ) -> Result<Vec<crate::booking::reason::SlotAvailability>>;

    /// Every reason a booking of `[start, end)` × `quantity` on `resource` would be refused
    /// now, read in one snapshot.
    async fn explain(
        &self,
        tenant: &Tenant,
        resource: &str,
        range: (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>),
        quantity: u32,
    ) -> Result<crate::booking::reason::Explain>;

    /// The slots of a resource with slots in `[from, to)`, with capacity, used, held and
    /// free, read in one snapshot.
    async fn slot_availability(
        &self,
        tenant: &Tenant,
        resource: &str,
        range: (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>),
    ) -> Result<Vec<crate::booking::reason::SlotAvailability>>;

    /// Move a blocking booking to a new range (and quantity) in one transaction: decided as a
    /// new booking that does not count the old one; refused, nothing changed.
    /// `booking_*` for a booking that no longer blocks.
    async fn reschedule_booking(
        &self,
        tenant: &Tenant,
        id: &str,
        to: crate::booking::Reschedule,
        idem: Keyed<Booking>,
    ) -> Result<Executed<Booking>>;

    /// Blocking bookings of `resource` overlapping `[from, to)`, by start, at most `limit`.
    async fn list_bookings(
        &self,
        tenant: &Tenant,
        resource: &str,
        from: chrono::DateTime<chrono::Utc>,
        to: chrono::DateTime<chrono::Utc>,
        limit: u32,
    ) -> Result<Vec<Booking>>;
}

/// A work queue with leases (see [`crate::job`]).
///
/// Errors: `lease_lost` (stale token: nothing changed), `not_found`, `invalid_request`,
/// `idempotency_key_*`, `unavailable`, `internal`.
#[async_trait]
pub trait JobStore: Send + Sync + 'static {
    /// Insert a batch of jobs (one statement on PostgreSQL). A job whose `unique_key` matches
    /// an unfinished job of the queue is not inserted; its id is the existing job's.
    async fn enqueue(
        &self,
        tenant: &Tenant,
        req: crate::job::Enqueue,
        idem: Keyed<crate::job::Enqueued>,
    ) -> Result<Executed<crate::job::Enqueued>>;

    /// Lease up to `max` runnable jobs (state available/scheduled/retryable, `run_at <= now`)
    /// by priority, run_at, id: each becomes `running` with a fresh lease token, attempt + 1.
    /// With a key, the leased jobs are stored with it (a retry after a lost answer gets the
    /// same jobs and tokens); an empty claim is stored only when `req.final_try` says it is
    /// the answer (a waiting claim's earlier empty tries store nothing).
    async fn claim_jobs(
        &self,
        tenant: &Tenant,
        req: crate::job::Claim,
        idem: Keyed<Vec<crate::job::LeasedJob>>,
    ) -> Result<Executed<Vec<crate::job::LeasedJob>>>;

    /// Finish a running job (`completed`), if `req.lease_token` is still its token; its
    /// `output`, if any, is kept with it.
    async fn complete_job(
        &self,
        tenant: &Tenant,
        id: i64,
        req: crate::job::Complete,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// Put a running job back to `scheduled` at now + `delay_ms` without spending the
    /// attempt (its `attempt` goes back by one), if `req.lease_token` is still its token.
    async fn snooze_job(
        &self,
        tenant: &Tenant,
        id: i64,
        req: crate::job::Snooze,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// Fail this attempt: `retryable` at now + delay (`retry_in_ms`, or exponential backoff
    /// with jitter), or `discarded` when out of attempts; the error is appended to the job.
    async fn fail_job(
        &self,
        tenant: &Tenant,
        id: i64,
        fail: crate::job::Fail,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// Extend a running job's lease to now + `lease_ms`.
    async fn heartbeat_job(
        &self,
        tenant: &Tenant,
        id: i64,
        lease_token: &str,
        lease_ms: i64,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// Complete many jobs of `queue` in one statement; each by its own token.
    async fn complete_jobs(
        &self,
        tenant: &Tenant,
        queue: &str,
        jobs: Vec<crate::job::Completion>,
        idem: Keyed<crate::job::Completions>,
    ) -> Result<Executed<crate::job::Completions>>;

    /// Cancel a job that has not finished (a running one loses its lease: its worker gets
    /// `lease_lost`); a finished job is returned unchanged.
    async fn cancel_job(
        &self,
        tenant: &Tenant,
        id: i64,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// Move a waiting job's next run by hand (an operator's snooze): a job `available`,
    /// `scheduled` or `retryable` runs no earlier than now + `delay_ms` — `available` at 0,
    /// else `scheduled` — with its attempts unchanged. Other states are returned unchanged.
    async fn reschedule_job(
        &self,
        tenant: &Tenant,
        id: i64,
        delay_ms: i64,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// Run a discarded or cancelled job again by hand: `available` now, with at least one
    /// attempt left. Other states are returned unchanged.
    async fn retry_job(
        &self,
        tenant: &Tenant,
        id: i64,
        idem: Keyed<crate::job::JobStatus>,
    ) -> Result<Executed<crate::job::JobStatus>>;

    /// A page of `queue`'s jobs that `filter` lets through, by id (the cursor a job's id),
    /// and at most `max_page_bytes` of documents: the job that crosses that bound ends the
    /// page, which carries `next` when a job follows it.
    async fn list_jobs(
        &self,
        tenant: &Tenant,
        queue: &str,
        filter: crate::job::JobFilter,
        page: Page<i64>,
    ) -> Result<Listed<crate::job::JobView, i64>>;

    /// Wait until a job may have become runnable in `queue` (PostgreSQL: a NOTIFY from an
    /// enqueue; SQLite: a short poll), at most `max_wait`. Spurious wake-ups are allowed:
    /// the caller claims again and waits again until its deadline.
    async fn wait_for_jobs(&self, tenant: &Tenant, queue: &str, max_wait: std::time::Duration);

    /// Jobs of a queue per state.
    async fn queue_counts(&self, tenant: &Tenant, queue: &str) -> Result<crate::job::QueueCounts>;
}

/// The operator's side of the queue ([`crate::job::queue`]): settings (pause, limits, FIFO)
/// and one job in full with why it waits.
///
/// Errors: `not_found`, `unavailable`, `internal`.
#[async_trait]
pub trait QueueStore: Send + Sync + 'static {
    /// Replace `settings.queue`'s settings; the next claim obeys them.
    async fn put_queue_settings(
        &self,
        tenant: &Tenant,
        settings: crate::job::queue::QueueSettings,
    ) -> Result<crate::job::queue::QueueSettings>;

    /// `queue`'s settings (the defaults when none were put).
    async fn queue_settings(&self, tenant: &Tenant, queue: &str) -> Result<crate::job::queue::QueueSettings>;

    /// Pause or resume `queue`, keeping its other settings.
    async fn pause_queue(&self, tenant: &Tenant, queue: &str, paused: bool)
        -> Result<crate::job::queue::QueueSettings>;

    /// Job `id` with its lease and, when it waits, why (`blocked_by`).
    async fn job_detail(&self, tenant: &Tenant, id: i64) -> Result<crate::job::queue::JobDetail>;

    /// A page of the tenant's queues with their counts by state, by name (the cursor a
    /// queue's name); a queue appears while it has jobs. Read from the maintained counts
    /// (never a count of the jobs).
    async fn list_queues(
        &self,
        tenant: &Tenant,
        page: Page<Option<&str>>,
    ) -> Result<Listed<crate::job::QueueCounts, String>>;

    /// Retry, cancel or delete the jobs `req` matches, at most `req.max` (oldest first,
    /// passing over rows another transaction holds); a dry run only counts. Errors:
    /// `already_exists` when a retried job's `unique_key` is held by another unfinished job
    /// (nothing changed).
    async fn bulk_jobs(&self, tenant: &Tenant, req: crate::job::bulk::Bulk) -> Result<crate::job::bulk::BulkResult>;

    /// Store a new schedule. Errors: `already_exists` (the name is taken), `limit_exceeded`
    /// (`max_schedules`).
    async fn create_schedule(
        &self,
        tenant: &Tenant,
        schedule: crate::job::schedule::NewSchedule,
    ) -> Result<crate::job::schedule::Schedule>;

    /// The tenant's schedules, by name.
    async fn list_schedules(&self, tenant: &Tenant) -> Result<Vec<crate::job::schedule::Schedule>>;

    /// Delete a schedule (`not_found` when there is none); jobs it enqueued stay.
    async fn delete_schedule(&self, tenant: &Tenant, name: &str) -> Result<()>;

    /// Pause or resume a schedule; a resumed one runs from its next tick after now (ticks
    /// that passed while it was paused are not run).
    async fn pause_schedule(&self, tenant: &Tenant, name: &str, paused: bool)
        -> Result<crate::job::schedule::Schedule>;
}

/// API keys ([`crate::access`]): stored by the SHA-256 of their secret, never the secret.
///
/// Errors: `already_exists`, `not_found`, `unavailable`, `internal`.
#[async_trait]
pub trait KeyStore: Send + Sync + 'static {
    /// Store a new key.
    async fn create_key(&self, key: crate::access::NewKey) -> Result<crate::access::ApiKey>;

    /// The keys of `tenant`, newest first, revoked ones included.
    async fn list_keys(&self, tenant: &Tenant) -> Result<Vec<crate::access::ApiKey>>;

    /// Revoke key `id` of `tenant` now, by the store's clock (a revoked key is returned as it
    /// is); another tenant's key or an unknown id is `not_found`. `tenant` `None` (the
    /// operator's CLI): whichever tenant it belongs to.
    async fn revoke_key(&self, tenant: Option<&Tenant>, id: &str) -> Result<crate::access::ApiKey>;

    /// The key whose secret hashes to `secret_sha256` (revoked or not), if any.
    async fn key_by_hash(&self, secret_sha256: &str) -> Result<Option<crate::access::ApiKey>>;

    /// Whether any key was ever made, revoked or not (then the server requires keys: revoking
    /// the last key never reopens a server).
    async fn any_key(&self) -> Result<bool>;
}

/// The change feed of a tenant (see [`crate::event`]): every backend. Events are written by
/// the backends themselves, in the transaction of each change, so no method here writes one.
///
/// Errors: `unavailable`, `internal`.
#[async_trait]
pub trait EventStore: Send + Sync + 'static {
    /// Events of `tenant` matching `query`, in cursor order, at most `query.limit`, and the
    /// cursor to ask after next: the last event's, or `query.after` on an empty page. Only
    /// events whose cursor is assigned are served, so a page never shows an event before one
    /// with a lower cursor has committed.
    async fn events(&self, tenant: &Tenant, query: &crate::event::EventQuery) -> Result<crate::event::EventPage>;

    /// Wait at most `max_wait` for new events of `tenant` (a wake-up, or a short poll; a
    /// caller reads again after either). Never fails.
    async fn wait_for_events(&self, tenant: &Tenant, max_wait: std::time::Duration);

    /// The cursor of `tenant`'s newest event in the feed (0 before the first): the `after` of
    /// a reader who wants only what happens from now on.
    async fn last_cursor(&self, tenant: &Tenant) -> Result<i64>;
}

/// Webhook endpoints, and how far each tenant's feed has been handed to their deliveries
/// (see [`crate::webhook`]). Every backend.
///
/// Errors: `not_found` (another tenant's endpoint too), `already_exists`, `limit_exceeded`
/// (`max_webhooks_per_tenant`), `unavailable`, `internal`.
#[async_trait]
pub trait WebhookStore: Send + Sync + 'static {
    /// Make endpoint `id` of `tenant` (status `enabled`, made now). It receives the events
    /// after the tenant's cursor at this moment, none before.
    async fn create_webhook(
        &self,
        tenant: &Tenant,
        id: &str,
        new: crate::webhook::NewWebhook,
    ) -> Result<crate::webhook::Webhook>;

    /// The endpoints of `tenant`, oldest first.
    async fn list_webhooks(&self, tenant: &Tenant) -> Result<Vec<crate::webhook::Webhook>>;

    /// Delete endpoint `id` of `tenant`; its queued deliveries end without a request.
    async fn delete_webhook(&self, tenant: &Tenant, id: &str) -> Result<()>;

    /// Give endpoint `id` a new secret; the one it replaces keeps signing next to it for
    /// [`crate::webhook::ROTATION_OVERLAP_MS`].
    async fn rotate_webhook_secret(
        &self,
        tenant: &Tenant,
        id: &str,
        secret: Vec<u8>,
    ) -> Result<crate::webhook::Webhook>;

    /// Endpoint `id` as its deliveries need it (the keys that sign now), if it exists.
    async fn webhook_target(&self, tenant: &Tenant, id: &str) -> Result<Option<crate::webhook::Target>>;

    /// Record how a delivery attempt to endpoint `id` ended, at the store's clock, in its
    /// health ([`crate::webhook::WebhookHealth`]); [`crate::webhook::Attempt::Gone`] also stops
    /// delivering to it (status `disabled`). `error`: why a failed attempt failed (stored as
    /// [`crate::webhook::error_text`] gives it; ignored for a delivered one). Nothing for an
    /// endpoint that no longer exists.
    async fn record_attempt(
        &self,
        tenant: &Tenant,
        id: &str,
        attempt: crate::webhook::Attempt,
        error: Option<&str>,
    ) -> Result<()>;

    /// Every enabled endpoint of every tenant, with the cursor its tenant's feed was handed
    /// over up to, and the cursor each endpoint started after: what the dispatcher reads.
    async fn webhook_dispatch(&self) -> Result<Vec<(crate::webhook::Target, i64, i64)>>;

    /// Move `tenant`'s hand-over cursor from `from` to `to`; `false` when it was not at
    /// `from` (another dispatcher moved it), and nothing changes.
    async fn advance_webhook_dispatch(&self, tenant: &Tenant, from: i64, to: i64) -> Result<bool>;
}

/// Every domain trait on one object: what a backend implements, and what
/// `Stores::of` (in `store/stores.rs`) splits into one handle per domain for the
/// server.
pub trait Store:
    crate::store::capabilities::Capable
    + StockStore
    + LocationStore
    + HoldStore
    + UnitStore
    + BookingStore
    + JobStore
    + QueueStore
    + KeyStore
    + EventStore
    + WebhookStore
{
}

impl<
        T: crate::store::capabilities::Capable
            + StockStore
            + LocationStore
            + HoldStore
            + UnitStore
            + BookingStore
            + JobStore
            + QueueStore
            + KeyStore
            + EventStore
            + WebhookStore,
    > Store for T
{
}

/// Maintenance: the work no client request asks for — expiry, rescue and pruning by the
/// sweepers, the audit, the rebalance, the queue-depth gauge. Only the sweepers of `allot
/// serve`, `GET /v1/audit`, the CLI and the benchmarks receive it; the request paths get
/// `Stores` (in `store/stores.rs`), so a decorator of the request paths (`allot_redis::RedisGated`) does
/// not wrap it. Each method works across tenants (or names the one it works in) and finishes every row
/// within its own tenant.
#[async_trait]
pub trait Maintenance: Send + Sync + 'static {
    /// Spread each SKU's available stock evenly over its buckets (one SKU of `tenant`, or
    /// all segmented SKUs of `tenant`). Returns how many SKUs were changed. No ledger entry:
    /// totals stay.
    async fn rebalance(&self, tenant: &Tenant, sku: Option<&str>) -> Result<u64>;

    /// Check every invariant of [`crate::audit`] (SKU conservation, unit claims, job states,
    /// overlapping bookings) in one snapshot: of `tenant`, or of every tenant (`None`, the
    /// operator's `allot audit`; each finding names its tenant).
    async fn audit(&self, tenant: Option<&Tenant>) -> Result<crate::audit::AuditReport>;

    /// Delete at most `max_rows` stored idempotency responses created before `before`.
    /// Returns how many were deleted. `allot serve` calls it periodically with
    /// `now - idempotency_retention_ms` (keys are kept at least 24 h).
    async fn prune_idempotency_keys(&self, before: chrono::DateTime<chrono::Utc>, max_rows: u32) -> Result<u64>;

    /// Finalise at most `max_holds` holds whose `expires_at <= now` (status `expired`,
    /// quantity back to available, `hold_expired` ledger entries). Returns how many.
    async fn expire_holds(&self, now: chrono::DateTime<chrono::Utc>, max_holds: u32) -> Result<u64>;

    /// Mark at most `max` held bookings past their expiry `expired`. Returns how many.
    async fn expire_bookings(&self, now: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64>;

    /// Rescue at most `max` running jobs whose lease expired before `now` (their worker died
    /// or stalled): back to `retryable` (runnable at once), or `discarded` when out of
    /// attempts, with a "lease expired" error. A worker that heartbeats keeps its lease
    /// ahead of `now` and is never rescued. Returns how many.
    async fn rescue_jobs(&self, now: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64>;

    /// Enqueue the due ticks of at most `max` schedules (any tenant) whose `next_run_at` is at
    /// or before `now`, and move each past `now`, one transaction per pass: each tick is
    /// enqueued once however many instances run passes ([`crate::job::schedule`]). Returns
    /// how many jobs were enqueued.
    async fn run_schedules(&self, now: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64>;

    /// Delete at most `max` completed, discarded or cancelled jobs finalised before `before`.
    async fn prune_jobs(&self, before: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64>;

    /// Give cursors to at most `max` written events that have none yet, in one transaction,
    /// oldest first, each tenant's continuing its last one without a gap (ARCHITECTURE.md,
    /// "The change feed"). Returns how many. PostgreSQL's events wait for it; SQLite numbers
    /// them in the writing transaction and returns 0.
    async fn sequence_events(&self, max: u32) -> Result<u64>;

    /// When the oldest event still waiting for its cursor happened (`None`: none waits), for
    /// the feed's lag. SQLite's never wait.
    async fn oldest_unsequenced_event(&self) -> Result<Option<chrono::DateTime<chrono::Utc>>>;

    /// Delete at most `max` events that happened before `before`. Returns how many. Cursors
    /// go on from each tenant's counter, so none is ever given twice.
    async fn prune_events(&self, before: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64>;

    /// Fold the appended changes of the queue counts into their totals (PostgreSQL; SQLite
    /// keeps its totals in place and returns 0), at most `max` changes. Returns how many.
    async fn fold_queue_counts(&self, max: u32) -> Result<u64>;

    /// The schema's version: the newest migration applied to the database, and the newest
    /// this build carries. For `/readyz` and the commands that only read, which never migrate.
    async fn schema_version(&self) -> Result<SchemaVersion>;

    /// The database pool's state now, for `/metrics` (SQLite: its one writer and its queue).
    fn pool_status(&self) -> PoolStatus;

    /// Record that `instance` is alive (insert it, or move its `seen_at`), and delete the
    /// instances not seen since `forget_before`. See [`crate::instance`].
    async fn heartbeat(
        &self,
        instance: &crate::instance::Instance,
        forget_before: chrono::DateTime<chrono::Utc>,
    ) -> Result<()>;

    /// The instances seen since `seen_since`, by start (oldest first), at most `max`.
    async fn instances(
        &self,
        seen_since: chrono::DateTime<chrono::Utc>,
        max: u32,
    ) -> Result<Vec<crate::instance::Instance>>;

    /// Unfinished jobs (available, scheduled, retryable, running) per tenant, queue and state
    /// (`(tenant, queue, state, jobs)`), for the queue-depth gauge.
    async fn queue_depths(&self) -> Result<Vec<(String, String, crate::job::JobState, i64)>>;
}

/// A database pool's state at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStatus {
    /// Connections open.
    pub connections: u64,
    /// Most connections the pool opens.
    pub max_connections: u64,
    /// Open connections no request holds.
    pub idle: u64,
    /// Requests waiting for a connection.
    pub waiting: u64,
    /// Stock requests waiting on the `batched` lanes for a transaction (0 without lanes).
    pub batch_queued: u64,
    /// Per-request stock writers waiting at their SKUs' gates for a place (`sku_writers`; 0
    /// without gates).
    pub gate_waiting: u64,
}

/// A database's schema version against this build's (refinery's `refinery_schema_history`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaVersion {
    /// The newest migration applied; `None` when the database has no allot schema at all.
    pub applied: Option<i64>,
    /// The newest migration this build carries.
    pub expected: i64,
    /// What else keeps this instance from serving the database, in words: how it reaches it
    /// (an undeclared transaction pooler). `None` for none.
    pub reach: Option<String>,
}

impl SchemaVersion {
    /// What keeps this build from serving the database, in words (`None`: it is current).
    pub fn problem(&self) -> Option<String> {
        if let Some(reach) = &self.reach {
            return Some(reach.clone());
        }
        match self.applied {
            None => Some("the database has no allot schema; `allot migrate` (or `allot serve`) creates it".into()),
            Some(v) if v < self.expected => Some(format!(
                "the schema is at version {v} and this allot expects {}; `allot migrate` brings it up",
                self.expected
            )),
            Some(v) if v > self.expected => Some(format!(
                "the schema is at version {v}, newer than this allot's {}: a newer allot migrated it",
                self.expected
            )),
            Some(_) => None,
        }
    }
}

/// A backend: the request paths ([`Store`]) and [`Maintenance`]. What `allot_store::open`
/// returns.
pub trait Database: Store + Maintenance {}

impl<T: Store + Maintenance + ?Sized> Database for T {}

/// Locations and what moves stock between them or sets it at one (see [`crate::location`]).
/// Every backend.
///
/// Errors: `not_found` (SKU, location), `already_exists`, `insufficient_stock`,
/// `compare_failed`, `invalid_request` (a unit-tracked SKU), `idempotency_key_*`,
/// `unavailable`, `internal`.
#[async_trait]
pub trait LocationStore: Send + Sync + 'static {
    /// Create a location of `tenant`; `already_exists` for a name it has (`default` included),
    /// `limit_exceeded` (`max_locations`) when it has `max_locations` already.
    async fn create_location(&self, tenant: &Tenant, location: Location, max_locations: u32) -> Result<Location>;

    /// The locations of `tenant`, by name: `default` and those created.
    async fn list_locations(&self, tenant: &Tenant) -> Result<Vec<Location>>;

    /// Move `quantity` of a count-tracked SKU from one location to another in one
    /// transaction: the `from` rows (locked in bucket order with the `to` rows) lose it out
    /// of what is available there, the `to` rows (made when the SKU had none there) gain it,
    /// and two `transfer` ledger entries (one per location) point at the transfer's id.
    /// `insufficient_stock` when `from` has too little available.
    async fn transfer(&self, tenant: &Tenant, req: Transfer, idem: Keyed<Transfer>) -> Result<Executed<Transfer>>;

    /// Set on hand at one location to `on_hand` if it is `compare_on_hand` now, recorded as an
    /// `adjustment` by the difference; else `compare_failed` with the current value (a
    /// location where the SKU has no stock reads as 0). `insufficient_stock` when the new
    /// value is below what is held there.
    async fn set_level(&self, tenant: &Tenant, req: SetLevel, idem: Keyed<Sku>) -> Result<Executed<Sku>>;
}
