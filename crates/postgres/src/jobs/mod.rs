//! Jobs on PostgreSQL: batch enqueue (UNNEST, unique keys by a partial unique index), claims
//! with `FOR UPDATE SKIP LOCKED` re-checking the state in the UPDATE, and lease-conditional
//! transitions (`… WHERE state = 'running' AND lease_token = $2`).

mod batch;
mod bulk;
mod depend;
#[cfg(test)]
mod in_tx_tests;
mod ops;
mod queues;
#[cfg(test)]
mod race_tests;
mod schedules;

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::store::PgStore;
use crate::engine::tx::Decided;
use crate::engine::tx::{TxErr, TxResult};
use allot_core::job::{
    Claim, Complete, Completion, Completions, Enqueue, Enqueued, Fail, JobFilter, JobState, JobStatus, JobView,
    LeasedJob, QueueCounts, Snooze,
};
use allot_core::store::{Executed, Idempotency, JobStore, Keyed};
use allot_core::support::limits::Limits;
use allot_core::support::page::{Listed, Page};
use allot_core::tenant::Tenant;
use allot_core::Capable;
use allot_core::{AllotError, Result};
use async_trait::async_trait;
use std::collections::{HashMap, HashSet};

/// Rescue of expired leases (`$1` now, `$2` batch size, `$3` now as answers write it): back to `retryable`, or `discarded`
/// when out of attempts. The batch is a MATERIALIZED CTE joined with FROM, not `id IN
/// (SELECT … LIMIT n FOR UPDATE SKIP LOCKED)`: inlined, the planner (believing few jobs run)
/// rescanned the locking subquery once per outer row — quadratic, minutes for 30 000 expired
/// leases. The outer re-check is only `state = 'running'`: the rows are locked by the CTE.
const SQL_RESCUE: &str = "WITH batch AS MATERIALIZED (
     SELECT tenant, id FROM jobs WHERE state = 'running' AND lease_expires_at <= $1
      ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
 UPDATE jobs j SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'retryable' END,
        run_at = $1, lease_token = NULL, lease_expires_at = NULL,
        finalized_at = CASE WHEN j.attempt >= j.max_attempts THEN $1 END,
        errors = j.errors || jsonb_build_array(jsonb_build_object('attempt', j.attempt, 'error', 'lease expired', 'at', $3::text))
   FROM batch WHERE j.tenant = batch.tenant AND j.id = batch.id AND j.state = 'running'";

/// `$1` ids from the tenant's (`$2`) own job sequence, in order (`allot_next_ids`, V14).
const SQL_NEXT_IDS: &str = "SELECT allot_next_ids('jobs', $2::text, $1::int8)";
/// Insert the jobs in request order with the ids drawn for them; a unique key held by an
/// unfinished job of the queue inserts nothing (the race-free unique index decides). `$9`:
/// the tenant; `$10` partition keys, `$11` each job's tags as a JSON array, `$12` metadata.
const SQL_INSERT_JOBS: &str =
    "INSERT INTO jobs (tenant, id, queue, state, priority, payload, run_at, max_attempts, unique_key, created_at,
                       partition_key, tags, metadata, traceparent)
     SELECT $9, t.id, $1, CASE WHEN t.run_at > $8 THEN 'scheduled' ELSE 'available' END,
            t.priority, t.payload, t.run_at, t.max_attempts, t.unique_key, $8, t.partition_key,
            ARRAY(SELECT json_array_elements_text(t.tags)), t.metadata, $13::text
       FROM unnest($2::int8[], $3::json[], $4::int2[], $5::timestamptz[], $6::int4[], $7::text[], $10::text[],
                   $11::json[], $12::json[])
            WITH ORDINALITY AS t(id, payload, priority, run_at, max_attempts, unique_key, partition_key, tags, metadata, ord)
      ORDER BY t.ord
     ON CONFLICT (tenant, queue, unique_key)
        WHERE unique_key IS NOT NULL AND state NOT IN ('completed', 'discarded', 'cancelled')
     DO NOTHING RETURNING id";
const SQL_UNFINISHED_BY_KEY: &str =
    "SELECT unique_key, id FROM jobs WHERE tenant = $3 AND queue = $1 AND unique_key = ANY($2)
    AND state NOT IN ('completed', 'discarded', 'cancelled')";

/// A transaction an enqueue runs in: allot's own (statements from the pool's cache) or the
/// caller's ([`enqueue_in`]: prepared on it).
enum Tx<'a, 'b> {
    Pooled(&'a crate::engine::conn::Tx<'b>),
    Caller(&'a tokio_postgres::Transaction<'b>),
}

impl Tx<'_, '_> {
    async fn query(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> std::result::Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        match self {
            Tx::Pooled(t) => {
                let stmt = t.prepare_text(sql).await?;
                t.query(&stmt, params).await
            }
            Tx::Caller(t) => t.query(&t.prepare(sql).await?, params).await,
        }
    }
}

/// Insert `req`'s jobs under `ids`; the ids actually inserted (a duplicate unique key is not).
async fn insert_jobs(
    tx: &Tx<'_, '_>,
    tenant: &str,
    req: &Enqueue,
    ids: &[i64],
    keys: &[Option<&str>],
) -> std::result::Result<HashSet<i64>, tokio_postgres::Error> {
    let payloads: Vec<&serde_json::Value> = req.jobs.iter().map(|j| &j.payload).collect();
    let priorities: Vec<i16> = req.jobs.iter().map(|j| j.priority).collect();
    let run_ats: Vec<chrono::DateTime<chrono::Utc>> = req.jobs.iter().map(|j| j.run_at).collect();
    let max_attempts: Vec<i32> = req.jobs.iter().map(|j| j.max_attempts).collect();
    let partitions: Vec<Option<&str>> = req.jobs.iter().map(|j| j.partition_key.as_deref()).collect();
    let tags: Vec<serde_json::Value> = req.jobs.iter().map(|j| serde_json::json!(j.tags)).collect();
    let metadata: Vec<&serde_json::Value> = req.jobs.iter().map(|j| &j.metadata).collect();
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 13] = [
        &req.queue,
        &ids,
        &payloads,
        &priorities,
        &run_ats,
        &max_attempts,
        &keys,
        &req.now,
        &tenant,
        &partitions,
        &tags,
        &metadata,
        &req.traceparent,
    ];
    Ok(tx
        .query(SQL_INSERT_JOBS, &params)
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// Insert a validated enqueue in `tx` (see `JobStore::enqueue`): its jobs, then its batch's
/// callback when it has one (`batch.rs`).
async fn insert_batch(tx: &Tx<'_, '_>, tenant: &str, req: &Enqueue, limits: &Limits) -> TxResult<Enqueued> {
    if let Some(b) = &req.batch {
        batch::unused(tx, tenant, b).await?;
    }
    let mut done = insert_members(tx, tenant, req, limits).await?;
    if let Some(b) = &req.batch {
        done.batch = Some(batch::make(tx, tenant, req, b, &done.ids, limits).await?);
    }
    Ok(done)
}

/// Insert `req`'s jobs in `tx` and NOTIFY its queue's claimers, which PostgreSQL delivers
/// when `tx` commits. `Err(TxErr::Retry)` when a job that a unique key pointed at finished in
/// between: run the whole enqueue again.
async fn insert_members(tx: &Tx<'_, '_>, tenant: &str, req: &Enqueue, limits: &Limits) -> TxResult<Enqueued> {
    let starts = depend::lock(tx, tenant, req, limits).await?;
    let n = req.jobs.len() as i64;
    // Ids first, so each job's id is known in request order whatever the insert does.
    let ids: Vec<i64> = tx
        .query(SQL_NEXT_IDS, &[&n, &tenant])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let keys: Vec<Option<&str>> = req.jobs.iter().map(|j| j.unique_key.as_deref()).collect();
    let inserted = insert_jobs(tx, tenant, req, &ids, &keys).await?;
    let mut out = ids.clone();
    let dup_keys: Vec<&str> = ids
        .iter()
        .zip(&keys)
        .filter(|(id, _)| !inserted.contains(id))
        .filter_map(|(_, k)| *k)
        .collect();
    if !dup_keys.is_empty() {
        let existing: HashMap<String, i64> = tx
            .query(SQL_UNFINISHED_BY_KEY, &[&req.queue, &dup_keys, &tenant])
            .await?
            .iter()
            .map(|r| (r.get("unique_key"), r.get("id")))
            .collect();
        for (slot, key) in out.iter_mut().zip(&keys) {
            if !inserted.contains(slot) {
                *slot = *key.and_then(|k| existing.get(k)).ok_or(TxErr::Retry)?;
            }
        }
    }
    // After the duplicates are resolved: a job that starts discarded must still be the
    // unfinished holder of its key for a later job of the request with the same key.
    depend::start(tx, tenant, req, &ids, &inserted, &starts).await?;
    if !inserted.is_empty() {
        let channel = crate::engine::listen::channel_key(tenant, &req.queue);
        tx.query("SELECT pg_notify('allot_jobs', $1)", &[&channel]).await?;
    }
    Ok(Enqueued { ids: out, batch: None })
}

/// Enqueue inside the caller's own transaction: the jobs exist if and only if `tx` commits,
/// and waiting claimers (on every instance) are woken at that commit. `req` comes from
/// `allot_core::validate::enqueue`. `tx` must reach allot's tables by its `search_path`
/// (allot's schema, `public` by default). The SQL function `allot.enqueue` (V18) is the same
/// for callers in other languages.
///
/// Errors: `unavailable`/`internal` from the database, mapped by SQLSTATE; `contention` when
/// the caller's transaction must run again (40001/40P01, or a unique key whose job finished
/// in between). A duplicate `unique_key` is not an error: its id is the existing job's.
/// `depends_on` is refused as through the API (`unknown_dependency`, and chains deeper than
/// the default `max_dependency_depth`).
pub async fn enqueue_in(tx: &tokio_postgres::Transaction<'_>, tenant: &Tenant, req: &Enqueue) -> Result<Enqueued> {
    match insert_batch(&Tx::Caller(tx), tenant.as_str(), req, &Limits::default()).await {
        Ok(done) => Ok(done),
        Err(TxErr::Fail(e)) => Err(e),
        // 40001/40P01, or a unique key whose job finished in between: the caller's
        // transaction is the unit to run again.
        Err(_) => Err(AllotError::Contention {
            attempts: 1,
            retry_after_ms: 0,
        }),
    }
}

impl PgStore {
    async fn try_enqueue(
        &self,
        tenant: &str,
        req: &Enqueue,
        idem: Option<&Idempotency<Enqueued>>,
    ) -> TxResult<Executed<Enqueued>> {
        self.write(tenant, idem, async |tx| {
            insert_batch(&Tx::Pooled(tx), tenant, req, &self.limits).await
        })
        .await
    }
}

/// Run `$body` (a future over the client `$c`) on a pooled connection when the request has
/// no idempotency key, or, with one, inside the write envelope (one transaction with the key,
/// under the retry policy); both answer `Result<Executed<_>>`.
macro_rules! keyed {
    ($store:expr, $tenant:expr, $idem:expr, |$c:ident| $body:expr) => {
        match $idem {
            None => {
                let client = $store.client().await?;
                let $c = &client;
                Ok(Executed::Fresh($body.await?))
            }
            Some(idem) => {
                $store
                    .retrying(|| {
                        $store.write($tenant, Some(&idem), async |tx| {
                            let $c = &*tx;
                            Ok($body.await?)
                        })
                    })
                    .await
            }
        }
    };
}

#[async_trait]
impl JobStore for PgStore {
    /// Enqueued jobs are counted towards a background `ANALYZE jobs` (see
    /// `engine::analyze`): with the statistics of an empty table the claim plans degrade
    /// badly on a freshly loaded queue.
    async fn enqueue(&self, tenant: &Tenant, req: Enqueue, idem: Keyed<Enqueued>) -> Result<Executed<Enqueued>> {
        let result = self.retrying(|| self.try_enqueue(tenant, &req, idem.as_ref())).await?;
        if let Executed::Fresh(e) = &result {
            self.analyze_in_background(&self.analyzing_jobs, "jobs", e.ids.len() as u64);
        }
        Ok(result)
    }

    async fn claim_jobs(
        &self,
        tenant: &Tenant,
        req: Claim,
        idem: Keyed<Vec<LeasedJob>>,
    ) -> Result<Executed<Vec<LeasedJob>>> {
        let now = self.now();
        let Some(idem) = idem else {
            let c = self.client().await?;
            return Ok(Executed::Fresh(ops::claim(&c, tenant, &req, now).await?));
        };
        // An empty try that is not the answer rolls back: nothing is stored for the key.
        let written = self
            .retrying(|| {
                self.write_or(tenant, Some(&idem), async |tx| {
                    let jobs = ops::claim(&*tx, tenant, &req, now).await?;
                    Ok(if jobs.is_empty() && !req.final_try {
                        Decided::Rollback(())
                    } else {
                        Decided::Commit(jobs)
                    })
                })
            })
            .await?;
        Ok(written.unwrap_or(Executed::Fresh(Vec::new())))
    }

    async fn complete_job(
        &self,
        tenant: &Tenant,
        id: i64,
        req: Complete,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::complete(c, tenant, id, &req, now))
    }

    async fn snooze_job(
        &self,
        tenant: &Tenant,
        id: i64,
        req: Snooze,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::snooze(c, tenant, id, &req, now))
    }

    async fn fail_job(
        &self,
        tenant: &Tenant,
        id: i64,
        fail: Fail,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::fail(c, tenant, &fail, id, now))
    }

    async fn heartbeat_job(
        &self,
        tenant: &Tenant,
        id: i64,
        lease_token: &str,
        lease_ms: i64,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::heartbeat(
            c,
            tenant,
            id,
            lease_token,
            lease_ms,
            now
        ))
    }

    async fn complete_jobs(
        &self,
        tenant: &Tenant,
        queue: &str,
        jobs: Vec<Completion>,
        idem: Keyed<Completions>,
    ) -> Result<Executed<Completions>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::complete_batch(
            c, tenant, queue, &jobs, now
        ))
    }

    async fn cancel_job(&self, tenant: &Tenant, id: i64, idem: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::cancel(c, tenant, id, now))
    }

    async fn reschedule_job(
        &self,
        tenant: &Tenant,
        id: i64,
        delay_ms: i64,
        idem: Keyed<JobStatus>,
    ) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::reschedule(c, tenant, id, delay_ms, now))
    }

    async fn retry_job(&self, tenant: &Tenant, id: i64, idem: Keyed<JobStatus>) -> Result<Executed<JobStatus>> {
        let now = self.now();
        keyed!(self, tenant, idem, |c| ops::retry(c, tenant, id, now))
    }

    async fn list_jobs(
        &self,
        tenant: &Tenant,
        queue: &str,
        filter: JobFilter,
        page: Page<i64>,
    ) -> Result<Listed<JobView, i64>> {
        let c = self.client().await?;
        let stmt = c.prepare_cached(queues::SQL_LIST_JOBS).await.map_err(map_error)?;
        let page_bytes = self.limits.max_page_bytes as i64;
        let state = filter.state.map(JobState::as_str);
        let rows = c
            .query(
                &stmt,
                &[
                    &queue,
                    &state,
                    &page.after,
                    &i64::from(page.limit),
                    &tenant.as_str(),
                    &page_bytes,
                    &filter.tag,
                    &filter.metadata.as_ref().map(|(k, _)| k.as_str()),
                    &filter.metadata.as_ref().map(|(_, v)| v),
                    &filter.payload.as_ref().map(|(k, _)| k.as_str()),
                    &filter.payload.as_ref().map(|(_, v)| v),
                ],
            )
            .await
            .map_err(map_error)?;
        // The job that crosses `max_page_bytes` ends the page: `following` (the next matching
        // job's id, `lead`) says whether another page has any.
        let cut = rows
            .last()
            .is_some_and(|r| r.get::<_, Option<i64>>("following").is_some());
        let jobs = rows.iter().map(queues::job_view).collect::<Result<Vec<_>>>()?;
        Ok(Listed::with_more(jobs, cut, |j| j.id))
    }

    async fn wait_for_jobs(&self, tenant: &Tenant, queue: &str, max_wait: std::time::Duration) {
        self.listener.start();
        // Bounded by a short poll as well: scheduled jobs become runnable without a NOTIFY,
        // and a NOTIFY between the empty claim and this wait is not missed for long.
        let wait = max_wait.min(std::time::Duration::from_millis(self.limits.job_poll_interval_ms));
        self.listener
            .wait(&crate::engine::listen::channel_key(tenant, queue), wait)
            .await;
    }

    /// From the maintained counts (V20): no count of `jobs`.
    async fn queue_counts(&self, tenant: &Tenant, queue: &str) -> Result<QueueCounts> {
        let rows = self.count_rows(tenant.as_str(), Some(queue), "").await?;
        QueueCounts::from_rows(queue, rows.into_iter().map(|(_, state, n)| (state, n)))
    }
}

/// Plans of the job statements with statistics that lie: taken while every job was
/// `available`, then half the jobs run with expired leases. Against the test PostgreSQL
/// (`ALLOT_TEST_DATABASE_URL`), in a schema of its own.
#[cfg(test)]
mod plans {
    use super::*;
    use ops::{SQL_COMPLETE_BATCH, SQL_HEARTBEAT};

    async fn explain(c: &tokio_postgres::Client, sql: &str) -> String {
        c.query(sql, &[])
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `$n` of a statement replaced by literals, for EXPLAIN.
    fn bind(sql: &str, args: &[&str]) -> String {
        let mut out = sql.to_string();
        for (i, a) in args.iter().enumerate().rev() {
            out = out.replace(&format!("${}", i + 1), a);
        }
        out
    }

    #[tokio::test]
    async fn by_id_statements_use_the_primary_key_and_the_rescue_locks_once() {
        let schema = crate::engine::test_schema::TestSchema::new("t_plans").await;
        crate::migrate(&schema.url).await.unwrap();
        let c = schema.session().await;
        c.batch_execute(
            "INSERT INTO jobs (tenant, queue, state, payload, run_at, max_attempts, created_at)
                  SELECT 'default', 'q', 'available', '{}', now(), 3, now() FROM generate_series(1, 20000);
             ANALYZE jobs;
             UPDATE jobs SET state = 'running', attempt = 1, lease_token = 't' || id,
                    lease_expires_at = now() - interval '1 minute' WHERE id <= 10000;",
        )
        .await
        .unwrap();
        let hb = explain(
            &c,
            &format!(
                "EXPLAIN {}",
                bind(SQL_HEARTBEAT, &["42", "'t42'", "now()", "1000", "'default'"])
            ),
        )
        .await;
        assert!(hb.contains("jobs_pkey"), "heartbeat must find its job by id:\n{hb}");
        let batch = explain(
            &c,
            &format!(
                "EXPLAIN {}",
                bind(
                    SQL_COMPLETE_BATCH,
                    &["'q'", "'{1,2,3}'", "'{t1,t2,t3}'", "now()", "'default'"]
                )
            ),
        )
        .await;
        assert!(
            !batch.contains("jobs_queue_state") && !batch.contains("jobs_lease"),
            "batch completion must find its jobs by id:\n{batch}"
        );
        let claim = explain(
            &c,
            &format!(
                "EXPLAIN {}",
                bind(ops::SQL_CLAIM, &["'q'", "now()", "250", "1000", "'w'", "'default'"])
            ),
        )
        .await;
        assert!(
            claim.contains("jobs_fetch") && claim.contains("Tid Scan"),
            "a claim picks by jobs_fetch and writes by the ctid it locked:\n{claim}"
        );
        // The rescue, run for real inside a transaction that is rolled back: its locking
        // batch runs once, and takes exactly the batch size.
        c.batch_execute("BEGIN").await.unwrap();
        let rescue = explain(
            &c,
            &format!(
                "EXPLAIN (ANALYZE, TIMING OFF) {}",
                bind(SQL_RESCUE, &["now()", "1000", "'x'"])
            ),
        )
        .await;
        c.batch_execute("ROLLBACK").await.unwrap();
        let lock_rows = rescue.lines().find(|l| l.contains("LockRows")).unwrap_or_default();
        assert!(
            lock_rows.contains("rows=1000 loops=1"),
            "the rescue batch must run once:\n{rescue}"
        );
        drop(c);
        schema.drop().await;
    }
}

/// The `advisory` claim's lock key is per tenant: ids count per tenant, so two tenants both
/// have a job 1, and one tenant holding the key of its job 1 must not make the other skip
/// its own. Against the test PostgreSQL (`ALLOT_TEST_DATABASE_URL`), in a schema of its own.
#[cfg(test)]
mod advisory_keys {
    use allot_core::store::JobStore;
    use allot_core::validate;
    use allot_core::Capable;
    use serde_json::json;

    #[tokio::test]
    async fn a_tenants_lock_does_not_hide_anothers_job() {
        let schema = crate::engine::test_schema::TestSchema::new("t_adv").await;
        let (store, url) = (schema.store().await, schema.url.clone());
        let limits = allot_core::Limits::default();
        for tenant in ["a", "b"] {
            let body = serde_json::from_value(json!({"jobs": [{"payload": tenant}]})).unwrap();
            let req = validate::enqueue("q", body, store.now(), &limits).unwrap();
            let ids = store
                .enqueue(&allot_core::Tenant::stored(tenant), req, None)
                .await
                .unwrap()
                .fresh()
                .unwrap()
                .ids;
            assert_eq!(ids, [1], "{tenant}");
        }
        // Another session holds tenant a's key for its job 1, as a claimer mid-statement would.
        let (mut holder, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        let tx = holder.transaction().await.unwrap();
        tx.execute(
            "SELECT pg_advisory_xact_lock($1::int4, ((1::int8 # hashtext('a')) & 2147483647)::int4)",
            &[&super::ops::JOB_LOCK_CLASS],
        )
        .await
        .unwrap();
        let claim = |tenant: &'static str| {
            let body = serde_json::from_value(json!({"max": 1, "lease_ms": 60_000})).unwrap();
            let req = validate::claim("q", body, allot_core::ClaimStrategy::Advisory, &limits).unwrap();
            let store = &store;
            async move {
                store
                    .claim_jobs(&allot_core::Tenant::stored(tenant), req, None)
                    .await
                    .unwrap()
                    .fresh()
                    .unwrap()
            }
        };
        let b = claim("b").await;
        assert_eq!(b.iter().map(|j| j.id).collect::<Vec<_>>(), [1], "b's job 1 is not a's");
        assert!(claim("a").await.is_empty(), "a's job 1 is locked by the other session");
        tx.rollback().await.unwrap();
        assert_eq!(claim("a").await.len(), 1);
        drop(store);
        schema.drop().await;
    }
}

/// Maintenance work of this domain (see `allot_core::Maintenance`, implemented in
/// `maintenance.rs`).
impl PgStore {
    pub(crate) async fn run_rescue_jobs(&self, now: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64> {
        let c = self.client().await?;
        c.execute(
            SQL_RESCUE,
            &[&now, &i64::from(max.max(1)), &allot_core::clock::wire_instant(now)],
        )
        .await
        .map_err(map_error)
    }

    pub(crate) async fn run_prune_jobs(&self, before: chrono::DateTime<chrono::Utc>, max: u32) -> Result<u64> {
        let c = self.client().await?;
        c.execute(
            // A MATERIALIZED batch joined with USING, for the reason given in rescue_jobs.
            "WITH batch AS MATERIALIZED (
                 SELECT tenant, id FROM jobs WHERE state IN ('completed', 'discarded', 'cancelled') AND finalized_at < $1
                  LIMIT $2 FOR UPDATE SKIP LOCKED)
             DELETE FROM jobs j USING batch WHERE j.tenant = batch.tenant AND j.id = batch.id",
            &[&before, &i64::from(max.max(1))],
        )
        .await
        .map_err(map_error)
    }

    pub(crate) async fn run_queue_depths(&self) -> Result<Vec<(String, String, JobState, i64)>> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT tenant, queue, state, sum(n)::int8 AS depth FROM (
                     SELECT tenant, queue, state, jobs AS n FROM queue_counts
                     UNION ALL SELECT tenant, queue, state, delta FROM queue_count_deltas) c
                  WHERE state IN ('pending', 'available', 'scheduled', 'retryable', 'running') GROUP BY 1, 2, 3",
                &[],
            )
            .await
            .map_err(map_error)?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                Some((
                    r.get("tenant"),
                    r.get("queue"),
                    JobState::parse(r.get("state"))?,
                    r.get("depth"),
                ))
            })
            .collect())
    }
}
