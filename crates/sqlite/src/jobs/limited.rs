//! Which jobs a claim takes on SQLite, under the queue's settings (`allot_core::job::queue`):
//! none from a paused queue; from a limited one, the best runnable jobs that the limits, the
//! rate's window and FIFO leave room for. It runs inside the claim's write transaction, and
//! SQLite has one writer at a time, so what it counts is exact.

use super::picked::{row, Picked};
use crate::engine::errors::map_error;
use allot_core::job::queue::{QueueSettings, Rate};
use allot_core::job::Claim;
use allot_core::Result;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;

/// Most runnable jobs one limited claim reads (keys without room are already left out by the
/// statement, so it stops long before this once it has what it may take).
const LIMITED_SCAN: i64 = 10_000;

/// The runnable jobs of a limited queue (`?1` queue, `?2` now µs, `?3` most rows, `?4` tenant),
/// leaving out, in the statement, every keyed job whose key has no room: FIFO (`?5`) — an
/// earlier unfinished job of its key, or one of its key running —, `?6` the per-key limit,
/// `?7` the per-key rate with `?8` its window's start. So a key at its limit never fills the
/// rows a claim reads, whatever its number of jobs.
const SQL_RUNNABLE_LIMITED: &str = "SELECT id, payload, attempt, max_attempts, priority, partition_key FROM jobs j
      WHERE tenant = ?4 AND queue = ?1 AND state IN ('available', 'scheduled', 'retryable')
        AND run_at_us <= ?2 AND json_valid(payload)
        AND (partition_key IS NULL OR (
             (NOT ?5 OR (NOT EXISTS (SELECT 1 FROM jobs e WHERE e.tenant = j.tenant AND e.queue = j.queue
                                        AND e.partition_key = j.partition_key AND e.id < j.id
                                        AND e.state IN ('available', 'scheduled', 'retryable', 'running'))
                         AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.tenant = j.tenant AND r.queue = j.queue
                                           AND r.partition_key = j.partition_key AND r.state = 'running')))
             AND (?6 IS NULL OR (SELECT count(*) FROM jobs r WHERE r.tenant = j.tenant AND r.queue = j.queue
                                   AND r.partition_key = j.partition_key AND r.state = 'running') < ?6)
             AND (?7 IS NULL OR (SELECT count(*) FROM job_starts st WHERE st.tenant = j.tenant AND st.queue = j.queue
                                   AND st.partition_key = j.partition_key AND st.started_at_us > ?8) < ?7)))
      ORDER BY priority, run_at_us, id LIMIT ?3";

/// Starts are kept this long past the rate's window, µs (see V18 on PostgreSQL).
const STARTS_KEPT_US: i64 = 60_000_000;

const SQL_RUNNABLE: &str = "SELECT id, payload, attempt, max_attempts, priority, partition_key FROM jobs
      WHERE tenant = ?4 AND queue = ?1 AND state IN ('available', 'scheduled', 'retryable')
        AND run_at_us <= ?2 AND json_valid(payload)
      ORDER BY priority, run_at_us, id LIMIT ?3";

/// `queue`'s settings row, if it has one.
pub(super) fn settings(c: &Connection, tenant: &str, queue: &str) -> Result<Option<QueueSettings>> {
    c.prepare_cached("SELECT * FROM queue_settings WHERE tenant = ?1 AND queue = ?2")
        .and_then(|mut s| {
            s.query_row(params![tenant, queue], |r| {
                let per_window: Option<i64> = r.get("rate_per_window")?;
                let window_ms: Option<i64> = r.get("rate_window_ms")?;
                let per_key: bool = r.get("rate_per_key")?;
                Ok(QueueSettings {
                    queue: queue.to_string(),
                    paused: r.get("paused")?,
                    max_running: r.get("max_running")?,
                    max_running_per_key: r.get("max_running_per_key")?,
                    rate: per_window.zip(window_ms).map(|(per_window, window_ms)| Rate {
                        per_window,
                        window_ms,
                        per_key,
                    }),
                    fifo_per_key: r.get("fifo_per_key")?,
                    keep_completed: r.get("keep_completed")?,
                    fair_by: r
                        .get::<_, Option<String>>("fair_by")?
                        .as_deref()
                        .and_then(allot_core::job::fair::FairBy::parse),
                    weights: serde_json::from_str(&r.get::<_, String>("fair_weights")?).unwrap_or_default(),
                    events: r.get("events")?,
                })
            })
            .optional()
        })
        .map_err(map_error)
}

/// `(partition_key, count)` rows of `sql` with `params`, as a map.
fn by_key(c: &Connection, sql: &str, params: impl rusqlite::Params) -> Result<HashMap<Option<String>, i64>> {
    c.prepare_cached(sql)
        .and_then(|mut s| s.query_map(params, |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
        .map_err(map_error)
}

/// The jobs `req` leases at `now_us` (best first) and whether their starts are recorded (the
/// queue has a rate).
pub(super) fn pick(c: &Connection, tenant: &str, req: &Claim, now_us: i64) -> Result<(Vec<Picked>, bool)> {
    let Some(s) = settings(c, tenant, &req.queue)?.filter(QueueSettings::gates_claims) else {
        let rows = c
            .prepare_cached(SQL_RUNNABLE)
            .and_then(|mut st| {
                st.query_map(params![req.queue, now_us, req.max, tenant], row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(map_error)?;
        return Ok((rows, false));
    };
    if s.paused {
        return Ok((Vec::new(), false));
    }
    Ok((pick_limited(c, tenant, req, now_us, &s)?, s.rate.is_some()))
}

/// Jobs running, and starts in the rate's window (the old ones pruned first), per key.
type Counts = (HashMap<Option<String>, i64>, HashMap<Option<String>, i64>);

fn counts(c: &Connection, tenant: &str, q: &str, now_us: i64, s: &QueueSettings) -> Result<Counts> {
    let running = by_key(
        c,
        "SELECT partition_key, count(*) FROM jobs WHERE tenant = ?1 AND queue = ?2 AND state = 'running'
            GROUP BY partition_key",
        params![tenant, q],
    )?;
    let Some(r) = s.rate else {
        return Ok((running, HashMap::new()));
    };
    let since = now_us - r.window_ms * 1000;
    c.execute(
        "DELETE FROM job_starts WHERE tenant = ?1 AND queue = ?2 AND started_at_us <= ?3",
        params![tenant, q, since - STARTS_KEPT_US],
    )
    .map_err(map_error)?;
    let started = by_key(
        c,
        "SELECT partition_key, count(*) FROM job_starts WHERE tenant = ?1 AND queue = ?2
            AND started_at_us > ?3 GROUP BY partition_key",
        params![tenant, q, since],
    )?;
    Ok((running, started))
}

/// Room left per key and queue-wide, then the best runnable jobs that fit.
fn pick_limited(c: &Connection, tenant: &str, req: &Claim, now_us: i64, s: &QueueSettings) -> Result<Vec<Picked>> {
    let q = req.queue.as_str();
    let (running, started) = counts(c, tenant, q, now_us, s)?;
    let total = |m: &HashMap<Option<String>, i64>| m.values().sum::<i64>();
    let mut take = req.max;
    if let Some(n) = s.max_running {
        take = take.min(n - total(&running));
    }
    if let Some(r) = s.rate.filter(|r| !r.per_key) {
        take = take.min(r.per_window - total(&started));
    }
    let mut out = Vec::new();
    if take <= 0 {
        return Ok(out);
    }
    if s.fair_by.is_some() {
        return super::fair::pick(c, (tenant, q, now_us), s, take, (&running, &started));
    }
    let mut taken: HashMap<String, i64> = HashMap::new();
    let since = now_us - s.rate.map_or(0, |r| r.window_ms) * 1000;
    let per_key_rate = s.rate.filter(|r| r.per_key).map(|r| r.per_window);
    let mut st = c.prepare_cached(SQL_RUNNABLE_LIMITED).map_err(map_error)?;
    let mut rows = st
        .query(params![
            q,
            now_us,
            LIMITED_SCAN,
            tenant,
            s.fifo_per_key,
            s.max_running_per_key,
            per_key_rate,
            since
        ])
        .map_err(map_error)?;
    while let Some(r) = rows.next().map_err(map_error)? {
        let job = row(r).map_err(map_error)?;
        if let Some(key) = &job.5 {
            let k = Some(key.clone());
            let room = s.key_room(
                running.get(&k).copied().unwrap_or(0),
                started.get(&k).copied().unwrap_or(0),
            );
            let used = taken.entry(key.clone()).or_insert(0);
            if room - *used <= 0 {
                continue;
            }
            *used += 1;
        }
        out.push(job);
        if out.len() as i64 >= take {
            break;
        }
    }
    Ok(out)
}

/// Record the starts of `jobs` at `now_us` (rate-limited queues).
pub(super) fn log_starts(c: &Connection, tenant: &str, queue: &str, jobs: &[Picked], now_us: i64) -> Result<()> {
    let mut st = c
        .prepare_cached("INSERT INTO job_starts (tenant, queue, partition_key, started_at_us) VALUES (?1, ?2, ?3, ?4)")
        .map_err(map_error)?;
    for j in jobs {
        st.execute(params![tenant, queue, j.5, now_us]).map_err(map_error)?;
    }
    Ok(())
}
