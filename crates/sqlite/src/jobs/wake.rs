//! Whether a finish may have released anything, so that waiting claimers are woken only then.
//!
//! A finish (complete, fail, cancel) releases or discards dependents through V33's trigger on
//! the job's state, in the finish's own statement, and only when the job has some
//! (`has_dependents`). Each finish statement answers that column (`RETURNING
//! has_dependents`); a finish of a job nobody waits for wakes no one (an enqueue does, and
//! waiters poll every `job_poll_interval_ms` besides).

use rusqlite::{Connection, OptionalExtension, Params};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Set by a finish's transaction when a job it finished had dependents; read once it committed.
#[derive(Debug, Clone, Default)]
pub(super) struct Released(Arc<AtomicBool>);

impl Released {
    /// Run the finish `sql` (an UPDATE of at most one job that ends `RETURNING
    /// has_dependents`) with `params` on `c`: how many jobs it finished (0 or 1), noting
    /// whether that job had dependents.
    pub(super) fn finish(&self, c: &Connection, sql: &str, params: impl Params) -> rusqlite::Result<usize> {
        let had = c
            .prepare_cached(sql)?
            .query_row(params, |r| r.get::<_, bool>(0))
            .optional()?;
        if had == Some(true) {
            self.0.store(true, Ordering::Relaxed);
        }
        Ok(usize::from(had.is_some()))
    }

    /// Whether a finished job had dependents (a transaction run again after a busy error may
    /// have noted it in an attempt that rolled back: a wake for nothing, never one missed).
    pub(super) fn any(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::config::SqliteConfig;
    use crate::engine::store::SqliteStore;
    use allot_core::job::{validate, Complete};
    use allot_core::store::JobStore;
    use allot_core::Capable;
    use allot_core::{Limits, Tenant};
    use serde_json::json;
    use std::future::Future;
    use std::time::Duration;

    /// Enqueue `jobs` (JSON) on `queue`; their ids.
    async fn enqueue(s: &SqliteStore, queue: &str, jobs: serde_json::Value) -> Vec<i64> {
        let body = serde_json::from_value(json!({ "jobs": jobs })).unwrap();
        let req = validate::enqueue(queue, body, s.now(), &s.limits).unwrap();
        let done = s.enqueue(&Tenant::default_tenant(), req, None).await.unwrap();
        done.fresh().unwrap().ids.clone()
    }

    /// Claim one job of `queue`: its id and lease token.
    async fn claim(s: &SqliteStore, queue: &str) -> (i64, String) {
        let body = serde_json::from_value(json!({"max": 1, "lease_ms": 60_000})).unwrap();
        let req = validate::claim(queue, body, s.default_claim_strategy(), &s.limits).unwrap();
        let jobs = s.claim_jobs(&Tenant::default_tenant(), req, None).await.unwrap();
        let j = &jobs.fresh().unwrap()[0];
        (j.id, j.lease_token.clone())
    }

    /// Whether a claimer that starts waiting before `finish` runs is woken within `within`
    /// (its poll is a minute).
    async fn wakes(s: &SqliteStore, queue: &str, within: Duration, finish: impl Future<Output = ()>) -> bool {
        let t = Tenant::default_tenant();
        let mut waiter = std::pin::pin!(s.wait_for_jobs(&t, queue, Duration::from_secs(60)));
        // Polled once, so that it waits on the signal before the finish.
        std::future::poll_fn(|cx| {
            assert!(waiter.as_mut().poll(cx).is_pending());
            std::task::Poll::Ready(())
        })
        .await;
        finish.await;
        tokio::time::timeout(within, waiter).await.is_ok()
    }

    #[tokio::test]
    async fn a_finish_wakes_claimers_only_when_it_released_dependents() {
        let path = std::env::temp_dir().join(format!("allot-wake-{}.db", uuid::Uuid::new_v4().simple()));
        let mut cfg = SqliteConfig::new(&path);
        cfg.limits = Limits {
            job_poll_interval_ms: 60_000,
            ..Limits::default()
        };
        let s = SqliteStore::open(&cfg).unwrap();
        let t = Tenant::default_tenant();
        let [plain, head] = enqueue(&s, "w", json!([{}, {}])).await[..] else {
            panic!()
        };
        enqueue(&s, "w2", json!([{ "depends_on": [head] }])).await;
        let (id, token) = claim(&s, "w").await;
        assert_eq!(id, plain);
        let complete = s.complete_job(&t, id, Complete::new(token), None);
        assert!(
            !wakes(&s, "w2", Duration::from_millis(300), async {
                complete.await.unwrap();
            })
            .await,
            "a finish that released nothing"
        );
        let (id, token) = claim(&s, "w").await;
        assert_eq!(id, head);
        let complete = s.complete_job(&t, id, Complete::new(token), None);
        assert!(
            wakes(&s, "w2", Duration::from_secs(10), async {
                complete.await.unwrap();
            })
            .await,
            "the finish released a dependent"
        );
        drop(s);
        let _ = std::fs::remove_file(&path);
    }
}
