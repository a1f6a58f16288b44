//! `allot bench fairness`: one heavy key's jobs enqueued first, then many light keys' few, on
//! a queue claimed oldest first and on one claimed fair (`fair_by: partition_key`), straight
//! on the store: a single claimer claims `claim_batch` at a time and completes each batch at
//! once. Per mode: how many jobs were claimed before every light key had started one (the
//! starvation figure), how long that took, and the whole drain's jobs per second (what
//! fairness costs the claim). The check: every job completed exactly once.

use allot_core::job::fair::FairBy;
use allot_core::job::queue::QueueSettings;
use allot_core::job::{Claim, Completion, Enqueue, JobSpec};
use allot_core::store::Executed;
use allot_core::{AllotError, Database, Result, Tenant};
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

/// Options of `allot bench fairness`.
#[derive(Debug, Clone)]
pub struct FairnessOptions {
    /// Jobs of the heavy key, enqueued first.
    pub heavy: u64,
    /// Light keys, enqueued after the heavy key's jobs.
    pub light_keys: u64,
    /// Jobs per light key.
    pub per_key: u64,
    /// Jobs per claim, at most.
    pub claim_batch: i64,
}

/// One mode's figures.
#[derive(Debug, Clone, Serialize)]
pub struct FairnessRun {
    /// `oldest_first` or `fair`.
    pub mode: &'static str,
    /// Jobs claimed until every light key had started one.
    pub jobs_until_every_key: u64,
    /// Claims made until then.
    pub claims_until_every_key: u64,
    /// Time until then, ms.
    pub ms_until_every_key: f64,
    /// Jobs per second over the whole drain (claim + complete, one claimer).
    pub drain_jobs_per_s: f64,
    /// Jobs completed (the check: all of them, each once).
    pub completed: u64,
    /// Jobs enqueued.
    pub total: u64,
}

/// Enqueue batches (rows per statement).
const ENQUEUE_BATCH: u64 = 1000;

/// Run both modes on `store`; each on a queue of its own (`run` names them).
pub async fn fairness_bench(store: Arc<dyn Database>, o: &FairnessOptions, run: &str) -> Result<Vec<FairnessRun>> {
    let mut out = Vec::new();
    for (mode, fair) in [("oldest_first", false), ("fair", true)] {
        let queue = format!("fairness-{run}-{mode}");
        fill(&*store, &queue, o).await?;
        if fair {
            let s = QueueSettings {
                queue: queue.clone(),
                fair_by: Some(FairBy::PartitionKey),
                ..QueueSettings::default()
            };
            store.put_queue_settings(&tenant(), s).await?;
        }
        out.push(drain(&*store, &queue, o, mode).await?);
    }
    Ok(out)
}

fn tenant() -> Tenant {
    Tenant::default_tenant()
}

/// The heavy key's jobs, then every light key's.
async fn fill(store: &dyn Database, queue: &str, o: &FairnessOptions) -> Result<()> {
    let keys: Vec<String> = std::iter::repeat_n("heavy".to_string(), o.heavy as usize)
        .chain((0..o.light_keys * o.per_key).map(|i| format!("light{:05}", i % o.light_keys)))
        .collect();
    for chunk in keys.chunks(ENQUEUE_BATCH as usize) {
        let jobs = chunk
            .iter()
            .map(|k| JobSpec {
                partition_key: Some(k.clone()),
                ..JobSpec::new(serde_json::json!({"key": k}), store.now())
            })
            .collect();
        let req = Enqueue {
            queue: queue.to_string(),
            jobs,
            now: store.now(),
            traceparent: None,
            batch: None,
        };
        store.enqueue(&tenant(), req, None).await?;
    }
    Ok(())
}

/// Claim and complete until the queue is empty, noting when every light key has started.
async fn drain(store: &dyn Database, queue: &str, o: &FairnessOptions, mode: &'static str) -> Result<FairnessRun> {
    let total = o.heavy + o.light_keys * o.per_key;
    let (started, mut seen) = (Instant::now(), HashSet::new());
    let (mut claimed, mut claims, mut completed) = (0u64, 0u64, 0u64);
    let mut until: Option<(u64, u64, f64)> = None;
    while completed < total {
        let claim = Claim {
            queue: queue.to_string(),
            max: o.claim_batch,
            lease_ms: 600_000,
            worker: None,
            strategy: store.default_claim_strategy(),
            wait_ms: 0,
            final_try: true,
        };
        let Executed::Fresh(jobs) = store.claim_jobs(&tenant(), claim, None).await? else {
            return Err(AllotError::Internal("a claim without a key was replayed".into()));
        };
        if jobs.is_empty() {
            // Lost jobs: the report says so (completed < total), the command fails on it.
            break;
        }
        claims += 1;
        claimed += jobs.len() as u64;
        for j in &jobs {
            if let Some(k) = j.payload["key"].as_str().filter(|k| k.starts_with("light")) {
                seen.insert(k.to_string());
            }
        }
        if until.is_none() && seen.len() as u64 == o.light_keys {
            until = Some((claimed, claims, started.elapsed().as_secs_f64() * 1000.0));
        }
        let done: Vec<Completion> = jobs
            .iter()
            .map(|j| Completion {
                id: j.id,
                lease_token: j.lease_token.clone(),
            })
            .collect();
        if let Executed::Fresh(c) = store.complete_jobs(&tenant(), queue, done, None).await? {
            completed += c.completed.len() as u64;
        }
    }
    let (jobs_until, claims_until, ms_until) = until.unwrap_or((claimed, claims, 0.0));
    Ok(FairnessRun {
        mode,
        jobs_until_every_key: jobs_until,
        claims_until_every_key: claims_until,
        ms_until_every_key: ms_until,
        drain_jobs_per_s: completed as f64 / started.elapsed().as_secs_f64(),
        completed,
        total,
    })
}

/// The figures as a Markdown table.
pub fn render_fairness_table(runs: &[FairnessRun]) -> String {
    let mut t = String::from(
        "| mode | jobs claimed until every light key started | claims | ms | drain jobs/s | completed |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for r in runs {
        t.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.0} | {} |\n",
            r.mode,
            r.jobs_until_every_key,
            r.claims_until_every_key,
            r.ms_until_every_key,
            r.drain_jobs_per_s,
            r.completed
        ));
    }
    t
}
