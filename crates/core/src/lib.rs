//! # allot-core
//!
//! Domain types, validation, named limits, errors and the store traits of allot.
//! This crate does no IO and cannot fail on IO: every function here is pure and is
//! tested with plain data. The backends (`allot-postgres`, `allot-sqlite`) implement
//! [`store::StockStore`]; the server (`allot-server`) is the only layer that knows HTTP/JSON.

pub mod access;
pub mod audit;
pub mod backorder;
pub mod batch;
pub mod booking;
pub mod event;
pub mod hold;
pub mod instance;
pub mod job;
pub mod kit;
pub mod location;
pub mod model;
pub mod operations;
pub mod receiving;
pub mod returns;
pub mod states;
pub mod status;
pub mod store;
pub mod strategy;
pub mod support;
pub mod tenant;
pub mod unit;
pub mod validate;
pub mod webhook;

pub use audit::{books, violation};
pub use store::{capabilities, idempotency, long_poll, stores};
pub use strategy::auto;
pub use support::{clock, error, input, limits, page, retry};

pub use audit::{AuditReport, AuditViolation, Auditor, ClaimAuditRow, JobAuditRow, JobViolation, SkuAuditRow};
pub use booking::{Booking, BookingBody, BookingOverlap, BookingRequest, BookingStatus, FreeSlot};
pub use capabilities::{Capabilities, Capable};
pub use clock::{Clock, ManualClock, SystemClock, TestClock};
pub use error::{AllotError, Result};
pub use hold::{ConfirmBody, ExtendBody, Hold, HoldBody, HoldKind, HoldRequest, HoldStatus};
pub use job::{
    Claim, ClaimBody, ClaimStrategy, Claimed, Complete, CompleteBody, Completion, Completions, CompletionsBody,
    Enqueue, EnqueueBody, Enqueued, JobFilter, JobList, JobSpec, JobState, JobStatus, JobView, LeaseBody, LeasedJob,
    NewJob, QueueCounts, Snooze, SnoozeBody,
};
pub use limits::{LimitInfo, Limits};
pub use location::{
    Level, Location, LocationBody, Placement, PlacementBody, PlacementPolicy, SetLevel, SetLevelBody, Source, Transfer,
    TransferBody, DEFAULT_LOCATION,
};
pub use model::reason::StockReason;
pub use model::{
    plan_rebalance, split_even, Adjustment, AdjustmentBody, Allocation, AllocationBody, AllocationLine,
    AllocationRequest, AllocationStatus, BucketCounts, Cancel, CreateSku, CreateSkuBody, LedgerEntry, LedgerKind,
    LineBody, Sku, SkuFilter,
};
pub use page::{Listed, Page};
pub use receiving::{Incoming, IncomingBody, Receipt, ReceiptBody};
pub use returns::{Return, ReturnBody, ReturnLine, ReturnLineBody, ReturnState};
pub use states::{Move, MoveBody, QuantityState};
pub use store::{
    BookingStore, Database, EventStore, Executed, HoldStore, Idempotency, JobStore, KeyStore, LocationStore,
    Maintenance, PoolStatus, SchemaVersion, StockStore, Store, StoredResponse, UnitStore, WebhookStore,
};
pub use stores::Stores;
pub use strategy::{Backend, BookingStrategy, Strategy, TakenWith, UnitStrategy};
pub use tenant::Tenant;
pub use unit::{
    claim_satisfied, order_by_sql, short_claim_should_retry, AddUnits, NewUnit, OrderKey, Unit, UnitAllocation,
    UnitAllocationBody, UnitClaim, UnitColumn, UnitFilter, UnitStatus, UnitView, UnitsBody, UnitsCreated,
};
