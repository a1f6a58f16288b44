//! The queues of `batched` unit claims, one per (tenant, SKU, order): plain data and
//! channels, nothing that touches the database (the batches run in `units/batched.rs`), so
//! the store can own them without the engine using the units domain.

use allot_core::{Result, UnitAllocation, UnitClaim};
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::oneshot;

/// What a batch answers a claim: claimed, or `None` to run it on the per-request path.
pub(crate) type Reply = oneshot::Sender<Result<Option<UnitAllocation>>>;

/// A queue's key: tenant, SKU and the claims' `ORDER BY` text (whitelisted columns only).
pub(crate) type Key = (String, String, String);

/// One key's waiting claims, and whether a task is running its batches.
pub(crate) struct Queue {
    pub(crate) pending: Vec<(UnitClaim, Reply)>,
    pub(crate) running: bool,
}

/// Every key's queue of one store.
#[derive(Default)]
pub(crate) struct UnitBatches {
    pub(crate) queues: Mutex<HashMap<Key, Queue>>,
}

impl std::fmt::Debug for UnitBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnitBatches").finish_non_exhaustive()
    }
}
