//! The requests a lane queues and the combiner's lanes: plain data and channels, nothing
//! that touches the database (the lanes' tasks live in `lane.rs`).

use allot_core::store::{Executed, Keyed, StoredResponse};
use allot_core::strategy::fnv1a_64;
use allot_core::{Allocation, AllocationRequest, AllotError, Hold, HoldRequest, Limits, Result};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot, OwnedSemaphorePermit, Semaphore};

/// Lanes per instance: requests whose first SKUs hash apart run their transactions in
/// parallel (on different rows); one hot SKU always lands on one lane.
pub(crate) const LANES: usize = 8;

/// Most `batched` holds an instance remembers the lane of (see [`Combiner::hold_lane`]); at
/// it, the holds past their expiry are forgotten first, and only if that frees nothing does
/// the map start over (a forgotten hold finishes on the per-request path).
pub(crate) const MAX_REMEMBERED_HOLDS: usize = 100_000;

/// A hold of a tenant: (tenant, hold id).
type TenantHold = (String, String);

/// A hold's expiry and the store's now.
pub(crate) type Instants = (DateTime<Utc>, DateTime<Utc>);

/// Where a request's answer goes.
pub(crate) type Reply<T> = oneshot::Sender<Result<Executed<T>>>;

/// One request waiting on a lane.
pub(crate) enum Op {
    Allocate {
        req: AllocationRequest,
        idem: Keyed<Allocation>,
        reply: Reply<Allocation>,
    },
    Hold {
        req: HoldRequest,
        idem: Keyed<Hold>,
        reply: Reply<Hold>,
    },
    Confirm {
        id: String,
        actor: Option<String>,
        idem: Keyed<Allocation>,
        reply: Reply<Allocation>,
    },
    Release {
        id: String,
        actor: Option<String>,
        idem: Keyed<Hold>,
        reply: Reply<Hold>,
    },
}

/// A decided request's result, before it is sent.
pub(crate) enum Answer {
    Allocation(Allocation),
    Hold(Hold),
}

impl Op {
    /// The idempotency key and fingerprint the request carried.
    pub(crate) fn idem_key(&self) -> Option<(&str, &str)> {
        fn of<T>(idem: &Keyed<T>) -> Option<(&str, &str)> {
            idem.as_ref().map(|i| (i.key.as_str(), i.fingerprint.as_str()))
        }
        match self {
            Op::Allocate { idem, .. } | Op::Confirm { idem, .. } => of(idem),
            Op::Hold { idem, .. } | Op::Release { idem, .. } => of(idem),
        }
    }

    /// The response to store for `answer`, when the request carried a key.
    pub(crate) fn render(&self, answer: &Answer) -> Option<StoredResponse> {
        match (self, answer) {
            (Op::Allocate { idem: Some(i), .. } | Op::Confirm { idem: Some(i), .. }, Answer::Allocation(a)) => {
                Some((i.render)(a))
            }
            (Op::Hold { idem: Some(i), .. } | Op::Release { idem: Some(i), .. }, Answer::Hold(h)) => {
                Some((i.render)(h))
            }
            _ => None,
        }
    }

    /// Send the request its answer (a fresh result of the wrong kind cannot be built here).
    pub(crate) fn answer(self, result: Result<Executed<Answer>>) {
        fn pick<T>(r: Result<Executed<Answer>>, f: impl Fn(Answer) -> Option<T>) -> Result<Executed<T>> {
            match r? {
                Executed::Replayed(s) => Ok(Executed::Replayed(s)),
                Executed::Fresh(a) => f(a)
                    .map(Executed::Fresh)
                    .ok_or_else(|| AllotError::Internal("batched: answer of the wrong kind".into())),
            }
        }
        let as_alloc = |a| match a {
            Answer::Allocation(a) => Some(a),
            Answer::Hold(_) => None,
        };
        let as_hold = |a| match a {
            Answer::Hold(h) => Some(h),
            Answer::Allocation(_) => None,
        };
        match self {
            Op::Allocate { reply, .. } | Op::Confirm { reply, .. } => {
                let _ = reply.send(pick(result, as_alloc));
            }
            Op::Hold { reply, .. } | Op::Release { reply, .. } => {
                let _ = reply.send(pick(result, as_hold));
            }
        }
    }
}

/// One waiting request, its tenant and the SKU that picks its lane (with the tenant).
pub(crate) struct Pending {
    pub(crate) op: Op,
    pub(crate) tenant: String,
    pub(crate) lane_sku: String,
    /// The SKUs whose overdue holds were finalised for it, once per pass
    /// ([`crate::engine::tx::may_expire_again`]).
    pub(crate) expired: Vec<String>,
    /// The span current when the request joined (linked to its batch's).
    pub(crate) span: tracing::Span,
}

/// A lane may queue at most this share of `batch_max_queued` (1/2): one hot SKU's lane may
/// take most of the instance's bound, and a lane stuck behind a row lock still leaves the
/// other lanes room.
pub(crate) const LANE_SHARE_DIVISOR: usize = 2;

/// A request on a lane's queue with its places in the instance's bound and in its lane's
/// (both given back when its lane takes it into a batch).
pub(crate) type Queued = (Pending, (OwnedSemaphorePermit, OwnedSemaphorePermit));

/// One lane: its queue (bounded by [`Combiner::queued`], shared by every lane, and by
/// `places`, its own share) and, until its task starts, the receiving end.
pub(crate) struct Lane {
    pub(crate) tx: mpsc::UnboundedSender<Queued>,
    pub(crate) rx: Mutex<Option<mpsc::UnboundedReceiver<Queued>>>,
    /// `batch_max_queued / LANE_SHARE_DIVISOR` places.
    pub(crate) places: Arc<Semaphore>,
}

/// The combiner of one store: its lanes, each started on first use, the places left in the
/// instance's queue bound, and the lane of each `batched` hold it made that is not finished
/// yet.
pub(crate) struct Combiner {
    lanes: Vec<Lane>,
    /// `batch_max_queued` places shared by all lanes (a lane takes at most its share, see
    /// [`LANE_SHARE_DIVISOR`]).
    pub(crate) queued: Arc<Semaphore>,
    /// The places `queued` started with.
    capacity: usize,
    holds: Mutex<HashMap<TenantHold, (String, DateTime<Utc>)>>,
}

impl std::fmt::Debug for Combiner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Combiner").field("lanes", &self.lanes.len()).finish()
    }
}

impl Combiner {
    /// Lanes that together queue at most `limits.batch_max_queued` requests, each at most
    /// its share.
    pub(crate) fn new(limits: &Limits) -> Self {
        let share = (limits.batch_max_queued / LANE_SHARE_DIVISOR).max(1);
        Combiner {
            lanes: (0..LANES)
                .map(|_| {
                    let (tx, rx) = mpsc::unbounded_channel();
                    Lane {
                        tx,
                        rx: Mutex::new(Some(rx)),
                        places: Arc::new(Semaphore::new(share)),
                    }
                })
                .collect(),
            queued: Arc::new(Semaphore::new(limits.batch_max_queued.max(1))),
            capacity: limits.batch_max_queued.max(1),
            holds: Mutex::new(HashMap::new()),
        }
    }

    /// Remember that `tenant`'s hold `id`, expiring at `expires_at`, was made on the lane of
    /// `lane_sku` (`now`: the store's clock, to forget expired holds when the map is full).
    pub(crate) fn remember_hold(&self, (tenant, id): (&str, &str), lane_sku: &str, (expires_at, now): Instants) {
        let mut holds = self.holds.lock().unwrap_or_else(|p| p.into_inner());
        if holds.len() >= MAX_REMEMBERED_HOLDS {
            holds.retain(|_, (_, expiry)| *expiry > now);
        }
        if holds.len() >= MAX_REMEMBERED_HOLDS {
            holds.clear();
        }
        holds.insert((tenant.to_string(), id.to_string()), (lane_sku.to_string(), expires_at));
    }

    /// The lane SKU of `tenant`'s hold `id` if this instance made it with `batched` and has
    /// not seen it finished; `None` otherwise (another strategy, another instance, a restart:
    /// the finish then takes the per-request path, which is correct for any hold). Taken out
    /// of the map: a finish that comes back deferred or failed is not routed again.
    pub(crate) fn hold_lane(&self, tenant: &str, id: &str) -> Option<String> {
        let mut holds = self.holds.lock().unwrap_or_else(|p| p.into_inner());
        holds
            .remove(&(tenant.to_string(), id.to_string()))
            .map(|(lane, _)| lane)
    }

    /// Requests waiting on the lanes now (taken places of the instance's bound).
    pub(crate) fn queued_now(&self) -> usize {
        self.capacity.saturating_sub(self.queued.available_permits())
    }

    /// The lane of a request of `tenant` whose first SKU is `lane_sku`.
    pub(crate) fn lane(&self, tenant: &str, lane_sku: &str) -> &Lane {
        let key = [tenant.as_bytes(), b"/", lane_sku.as_bytes()].concat();
        &self.lanes[(fnv1a_64(&key) % LANES as u64) as usize]
    }
}

#[cfg(test)]
mod remembered_holds {
    use super::{Combiner, MAX_REMEMBERED_HOLDS};
    use chrono::{Duration, Utc};

    /// At the bound, expired holds are forgotten first; a live one stays; a finish takes its
    /// lane out.
    #[test]
    fn expired_holds_go_first_when_full() {
        let c = Combiner::new(&allot_core::Limits::default());
        let now = Utc::now();
        let past = now - Duration::seconds(1);
        c.remember_hold(("t", "live"), "L", (now + Duration::hours(1), now));
        for i in 1..MAX_REMEMBERED_HOLDS {
            c.remember_hold(("t", &format!("old{i}")), "S", (past, now));
        }
        c.remember_hold(("t", "new"), "N", (now + Duration::hours(1), now));
        let len = c.holds.lock().unwrap().len();
        assert_eq!(len, 2, "the expired ones went, the live one stayed");
        assert_eq!(c.hold_lane("t", "live").as_deref(), Some("L"));
        assert_eq!(c.hold_lane("t", "live"), None, "taken out by its finish");
        assert_eq!(c.hold_lane("t", "old1"), None);
    }
}
