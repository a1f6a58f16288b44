//! [`Maintenance`] on PgStore: the sweepers', the audit's and the CLI's work, each method
//! delegating to the domain that owns the rows (holds, bookings, jobs, stock, the audit). Above
//! the domains, like `lib.rs`: it may use them all; no domain uses it.

use crate::engine::store::PgStore;
use allot_core::audit::AuditReport;
use allot_core::job::JobState;
use allot_core::tenant::Tenant;
use allot_core::{Maintenance, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

#[async_trait]
impl Maintenance for PgStore {
    async fn rebalance(&self, tenant: &Tenant, sku: Option<&str>) -> Result<u64> {
        self.run_rebalance(tenant, sku).await
    }

    async fn audit(&self, tenant: Option<&Tenant>) -> Result<AuditReport> {
        self.audit_snapshot(tenant.map(Tenant::as_str)).await
    }

    async fn prune_idempotency_keys(&self, before: DateTime<Utc>, max_rows: u32) -> Result<u64> {
        self.run_prune_idempotency_keys(before, max_rows).await
    }

    async fn expire_holds(&self, now: DateTime<Utc>, max_holds: u32) -> Result<u64> {
        self.run_expire_holds(now, max_holds).await
    }

    async fn expire_bookings(&self, now: DateTime<Utc>, max: u32) -> Result<u64> {
        self.run_expire_bookings(now, max).await
    }

    async fn fold_queue_counts(&self, max: u32) -> Result<u64> {
        self.run_fold_queue_counts(max).await
    }

    async fn run_schedules(&self, now: DateTime<Utc>, max: u32) -> Result<u64> {
        self.run_run_schedules(now, max).await
    }

    async fn rescue_jobs(&self, now: DateTime<Utc>, max: u32) -> Result<u64> {
        self.run_rescue_jobs(now, max).await
    }

    async fn prune_jobs(&self, before: DateTime<Utc>, max: u32) -> Result<u64> {
        self.run_prune_jobs(before, max).await
    }

    async fn sequence_events(&self, max: u32) -> Result<u64> {
        self.run_sequence_events(max).await
    }

    async fn oldest_unsequenced_event(&self) -> Result<Option<DateTime<Utc>>> {
        self.run_oldest_unsequenced_event().await
    }

    async fn prune_events(&self, before: DateTime<Utc>, max: u32) -> Result<u64> {
        self.run_prune_events(before, max).await
    }

    async fn schema_version(&self) -> Result<allot_core::SchemaVersion> {
        self.run_schema_version().await
    }

    async fn heartbeat(&self, instance: &allot_core::instance::Instance, forget_before: DateTime<Utc>) -> Result<()> {
        self.run_heartbeat(instance, forget_before).await
    }

    async fn instances(&self, seen_since: DateTime<Utc>, max: u32) -> Result<Vec<allot_core::instance::Instance>> {
        self.run_instances(seen_since, max).await
    }

    fn pool_status(&self) -> allot_core::PoolStatus {
        let s = self.pool().status();
        allot_core::PoolStatus {
            connections: s.size as u64,
            max_connections: s.max_size as u64,
            idle: s.available as u64,
            waiting: s.waiting as u64,
            batch_queued: self.combiner.as_ref().map_or(0, |c| c.queued_now() as u64),
            gate_waiting: self.sku_gate.waiting(),
        }
    }

    async fn queue_depths(&self) -> Result<Vec<(String, String, JobState, i64)>> {
        self.run_queue_depths().await
    }
}
