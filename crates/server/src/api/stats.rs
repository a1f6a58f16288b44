//! `GET /v1/stats`: one answer for an overview of the caller's tenant on this instance — the
//! backend and its readiness, requests per bucket with latency percentiles, allocation
//! outcomes, jobs by state over every queue (from the maintained counts, never a count of
//! `jobs`), and the change feed's lag. Each part is there only when the key may read it.

use crate::extract::Who;
use crate::recent::{AllocationOutcomes, RequestBucket, BUCKET_MS};
use crate::state::AppState;
use allot_core::access::Scope;
use allot_core::job::JobState;
use allot_core::Capable;
use axum::extract::State;
use axum::Json;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;
use utoipa::ToSchema;

/// Most queues summed into [`Stats::jobs`].
pub const MAX_STATS_QUEUES: u32 = 1000;

/// `GET /v1/stats` answer.
#[derive(Serialize, ToSchema)]
pub struct Stats {
    /// `postgres` or `sqlite`.
    pub backend: &'static str,
    /// The allot version of this instance.
    pub version: &'static str,
    /// Seconds since this instance started.
    pub uptime_s: u64,
    /// The instances serving this database, seen within the last 30 s, by start; `this`
    /// marks the one that answers.
    pub instances: Vec<InstanceView>,
    /// Whether this instance is ready (as `GET /readyz`).
    pub ready: bool,
    /// What keeps this instance from being ready, in words.
    pub problems: Vec<String>,
    /// The database: `ok`, or `unavailable` (unreachable, or its schema at another version).
    pub database: ServiceHealth,
    /// Redis: `ok` or `unavailable`; `null` when none is configured.
    pub redis: Option<ServiceHealth>,
    /// The width of a bucket of `requests`, ms.
    pub bucket_ms: u64,
    /// The tenant's requests on this instance, one bucket per `bucket_ms`, oldest first, the
    /// current (partial) bucket last: 30 buckets (fewer in the instance's first 5 minutes).
    pub requests: Vec<RequestBucket>,
    /// Allocation requests over those buckets by outcome (with `stock:read`).
    pub allocations: Option<AllocationOutcomes>,
    /// Jobs by state over the tenant's queues (with `jobs:read`).
    pub jobs: Option<JobTotals>,
    /// How long the oldest event has waited for its place in the feed, ms (0: none waits;
    /// with `events:read`; `null` when the database did not answer). Instance-wide: the
    /// sequencer numbers every tenant's events together, so this is the lag of all.
    pub feed_lag_ms: Option<u64>,
    /// The cursor of the tenant's newest event (with `events:read`): `after` for a reader of
    /// the feed that wants only what happens from now on.
    pub feed_cursor: Option<i64>,
}

/// An instance of `allot serve` on this database, by its heartbeat.
#[derive(Serialize, ToSchema)]
pub struct InstanceView {
    /// The instance.
    #[serde(flatten)]
    pub instance: allot_core::instance::Instance,
    /// Whether it is the instance that answers.
    pub this: bool,
}

/// A dependency's health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServiceHealth {
    /// It answered.
    Ok,
    /// It did not answer in time, or not as this build needs.
    Unavailable,
}

impl ServiceHealth {
    fn of(ok: bool) -> ServiceHealth {
        if ok {
            ServiceHealth::Ok
        } else {
            ServiceHealth::Unavailable
        }
    }
}

/// Jobs by state summed over queues.
#[derive(Serialize, ToSchema)]
pub struct JobTotals {
    /// Queues summed (at most 1000, by name).
    pub queues: u64,
    /// Jobs per state, every state present.
    pub counts: BTreeMap<JobState, i64>,
}

#[utoipa::path(get, path = "/v1/stats", responses((status = 200, body = Stats), (status = 401, body = super::ErrorBody)))]
pub(super) async fn stats(State(st): State<Arc<AppState>>, Who(who): Who) -> Json<Stats> {
    let may = |needed: Scope| allot_core::access::allows(&who.scopes, needed);
    let recent = st.recent.of(&who.tenant);
    let readiness = super::service::readiness(&st).await;
    let instances = instances(&st).await;
    let jobs = if may(Scope::JobsRead) {
        job_totals(&st, &who.tenant).await
    } else {
        None
    };
    let (feed_lag_ms, feed_cursor) = if may(Scope::EventsRead) {
        (
            feed_lag_ms(&st).await,
            st.stores.events.last_cursor(&who.tenant).await.ok(),
        )
    } else {
        (None, None)
    };
    Json(Stats {
        backend: st.stores.backend().name(),
        version: env!("CARGO_PKG_VERSION"),
        uptime_s: st.recent.uptime_s(),
        instances,
        ready: readiness.problems.is_empty(),
        problems: readiness.problems,
        database: ServiceHealth::of(readiness.database_ok),
        redis: readiness.redis_ok.map(ServiceHealth::of),
        bucket_ms: BUCKET_MS,
        requests: recent.requests,
        allocations: may(Scope::StockRead).then_some(recent.allocations),
        jobs,
        feed_lag_ms,
        feed_cursor,
    })
}

/// The maintained counts of the tenant's first [`MAX_STATS_QUEUES`] queues, summed; `None`
/// when the database does not answer.
async fn job_totals(st: &AppState, tenant: &allot_core::Tenant) -> Option<JobTotals> {
    let queues = st
        .stores
        .queues
        .list_queues(tenant, allot_core::Page::new(None, MAX_STATS_QUEUES))
        .await
        .ok()?
        .items;
    let mut counts: BTreeMap<JobState, i64> = JobState::ALL.into_iter().map(|s| (s, 0)).collect();
    for q in &queues {
        for (state, n) in &q.counts {
            *counts.entry(*state).or_default() += n;
        }
    }
    Some(JobTotals {
        queues: queues.len() as u64,
        counts,
    })
}

/// The instances seen lately (none when the database does not answer: `problems` says so).
async fn instances(st: &AppState) -> Vec<InstanceView> {
    use allot_core::instance::{LIVE_WITHIN_MS, MAX_INSTANCES_LISTED};
    let since = st.stores.now() - chrono::Duration::milliseconds(LIVE_WITHIN_MS as i64);
    let seen = st
        .maintenance
        .instances(since, MAX_INSTANCES_LISTED)
        .await
        .unwrap_or_default();
    seen.into_iter()
        .map(|instance| InstanceView {
            this: instance.id == st.recent.instance_id(),
            instance,
        })
        .collect()
}

async fn feed_lag_ms(st: &AppState) -> Option<u64> {
    let oldest = st.maintenance.oldest_unsequenced_event().await.ok()?;
    let lag = oldest.map_or(0, |at| (st.stores.now() - at).num_milliseconds().max(0));
    u64::try_from(lag).ok()
}
