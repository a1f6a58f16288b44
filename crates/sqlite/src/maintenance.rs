//! [`Maintenance`] on SqliteStore: the sweepers', the audit's and the CLI's work, each method
//! delegating to the domain that owns the rows (holds, bookings, jobs, stock, the audit). Above
//! the domains, like `lib.rs`: it may use them all; no domain uses it.

use crate::engine::store::SqliteStore;
use allot_core::audit::AuditReport;
use allot_core::job::JobState;
use allot_core::tenant::Tenant;
use allot_core::{Maintenance, Result};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

#[async_trait]
impl Maintenance for SqliteStore {
    async fn rebalance(&self, tenant: &Tenant, sku: Option<&str>) -> Result<u64> {
        self.run_rebalance(tenant, sku).await
    }

    async fn audit(&self, tenant: Option<&Tenant>) -> Result<AuditReport> {
        self.audit_snapshot(tenant.map(Tenant::to_string)).await
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

    /// SQLite's triggers keep the totals in place: nothing to fold.
    async fn fold_queue_counts(&self, _max: u32) -> Result<u64> {
        Ok(0)
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

    /// Nothing to do: each event takes its cursor in the transaction that writes it.
    async fn sequence_events(&self, _max: u32) -> Result<u64> {
        Ok(0)
    }

    /// None ever waits: each event takes its cursor in the transaction that writes it.
    async fn oldest_unsequenced_event(&self) -> Result<Option<DateTime<Utc>>> {
        Ok(None)
    }

    async fn prune_events(&self, before: DateTime<Utc>, max: u32) -> Result<u64> {
        self.run_prune_events(before, max).await
    }

    async fn schema_version(&self) -> Result<allot_core::SchemaVersion> {
        self.call(|c| crate::engine::migrate::schema_version(c)).await
    }

    async fn heartbeat(&self, instance: &allot_core::instance::Instance, forget_before: DateTime<Utc>) -> Result<()> {
        self.run_heartbeat(instance, forget_before).await
    }

    async fn instances(&self, seen_since: DateTime<Utc>, max: u32) -> Result<Vec<allot_core::instance::Instance>> {
        self.run_instances(seen_since, max).await
    }

    fn pool_status(&self) -> allot_core::PoolStatus {
        let waiting = self.writer_queue_len();
        allot_core::PoolStatus {
            connections: 1,
            max_connections: 1,
            idle: u64::from(waiting == 0),
            waiting,
            batch_queued: 0,
            gate_waiting: 0,
        }
    }

    async fn queue_depths(&self) -> Result<Vec<(String, String, JobState, i64)>> {
        self.run_queue_depths().await
    }
}
