//! The background work of `allot serve`, started once the server can run and stopped with
//! it: the sweepers, the sequencer of the change feed, the gauges, this instance's heartbeat,
//! and the webhook dispatcher with its delivery workers.

use crate::config::ServerConfig;
use crate::{metrics_layer, sweepers, webhooks};
use allot_core::{Database, Stores};
use std::sync::Arc;

/// The running tasks; [`Background::stop`] ends them.
pub(crate) struct Background {
    tasks: Vec<tokio::task::JoinHandle<()>>,
    deliveries: Option<allot_worker::WorkerPool>,
}

impl Background {
    /// Start every task on `store` (its maintenance) and `stores` (the request paths the
    /// webhook dispatcher and its workers use).
    pub(crate) fn start(
        store: Arc<dyn Database>,
        stores: &Stores,
        cfg: &ServerConfig,
        instance: Arc<crate::recent::Recent>,
    ) -> Result<Self, allot_core::AllotError> {
        let retention = sweepers::Retention {
            idempotency_ms: cfg.idempotency_retention_ms,
            jobs_ms: cfg.job_retention_ms,
            events_ms: cfg.event_retention_ms,
        };
        let deliverer = webhooks::Deliverer::new(stores.clone(), cfg.webhook_timeout_ms, cfg.webhook_allow_private)?;
        let mut workers = allot_worker::WorkerConfig::new(
            allot_core::webhook::DELIVERY_QUEUE,
            allot_core::Capable::default_claim_strategy(stores),
        );
        workers.tenant = webhooks::delivery_tenant();
        workers.concurrency = cfg.webhook_concurrency.max(1);
        // One interval for every task when the configuration names one (`allot bench cost`).
        let every = |own_ms: u64| cfg.background_interval_ms.unwrap_or(own_ms);
        workers.poll_ms = every(workers.poll_ms);
        let tasks = vec![
            tokio::spawn(sweepers::sweep(store.clone(), retention, every(cfg.sweep_interval_ms))),
            tokio::spawn(sweepers::sequence_events(
                store.clone(),
                every(cfg.limits.event_sequence_interval_ms),
                cfg.limits.event_sequence_batch,
            )),
            tokio::spawn(metrics_layer::upkeep(every(metrics_layer::UPKEEP_MS))),
            tokio::spawn(sweepers::sample_queue_depths(
                store.clone(),
                every(sweepers::SAMPLE_QUEUE_DEPTHS_MS),
            )),
            tokio::spawn(sweepers::run_schedules(
                store.clone(),
                every(sweepers::SCHEDULE_PASS_MS),
            )),
            tokio::spawn(sweepers::fold_queue_counts(
                store.clone(),
                every(sweepers::FOLD_QUEUE_COUNTS_MS),
            )),
            tokio::spawn(sweepers::heartbeat(
                store.clone(),
                instance,
                every(allot_core::instance::HEARTBEAT_MS),
            )),
            tokio::spawn(sweepers::sweep_holds(
                store,
                every(cfg.hold_sweep_interval_ms),
                cfg.limits.hold_sweep_batch,
            )),
            tokio::spawn(webhooks::dispatch(
                stores.clone(),
                every(cfg.webhook_dispatch_interval_ms),
                cfg.limits.max_page_size,
            )),
        ];
        let deliveries = allot_worker::WorkerPool::start(stores.jobs.clone(), workers, Arc::new(deliverer));
        Ok(Background {
            tasks,
            deliveries: Some(deliveries),
        })
    }

    /// Stop every task; the delivery workers finish the deliveries in flight.
    pub(crate) async fn stop(mut self) {
        for t in &self.tasks {
            t.abort();
        }
        if let Some(pool) = self.deliveries.take() {
            pool.shutdown().await;
        }
    }
}
