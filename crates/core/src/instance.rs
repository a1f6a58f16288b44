//! The instances of `allot serve` that share one database: each records a heartbeat every
//! [`HEARTBEAT_MS`] (`Maintenance::heartbeat`), and the ones seen within [`LIVE_WITHIN_MS`]
//! are the instances an overview lists (`GET /v1/stats`). An instance that stops is forgotten
//! after [`FORGET_AFTER_MS`]. Nothing decides anything by it: it is for people.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// How often an instance records that it is alive, ms.
pub const HEARTBEAT_MS: u64 = 10_000;
/// An instance seen within this long is listed as running, ms (three heartbeats).
pub const LIVE_WITHIN_MS: u64 = 30_000;
/// An instance not seen for this long is deleted, ms (a day).
pub const FORGET_AFTER_MS: u64 = 86_400_000;
/// Most instances an overview lists.
pub const MAX_INSTANCES_LISTED: u32 = 100;

/// One instance as its heartbeat records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Instance {
    /// Made at its start (UUID v4 text).
    pub id: String,
    /// The allot version it runs.
    pub version: String,
    /// When it started (UTC).
    pub started_at: DateTime<Utc>,
    /// Its last heartbeat (UTC).
    pub seen_at: DateTime<Utc>,
}
