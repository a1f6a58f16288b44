//! A fair queue's claim on SQLite (`allot_core::job::fair`'s rules): the groups of runnable
//! jobs visited round-robin from the queue's cursor, each group's best jobs its turn and its
//! key's bounds allow, the cursor moved. It runs inside the claim's write transaction (one
//! writer), so the counts it was given are exact.

use super::picked::{row, Picked};
use crate::engine::errors::map_error;
use allot_core::job::fair::{weight, FairCursor, MAX_FAIR_VISITS};
use allot_core::job::queue::QueueSettings;
use allot_core::Result;
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashMap;

/// The group with runnable jobs after `?4` (byte order) of queue `?2` of tenant `?1` at `?3`
/// µs. The first group has a statement of its own ([`SQL_FIRST_GROUP`]): one with
/// `?4 IS NULL OR …` could not start its index scan at `?4`, and would read every entry of the
/// groups before it.
const SQL_NEXT_GROUP: &str = "SELECT coalesce(partition_key, '') FROM jobs
     WHERE tenant = ?1 AND queue = ?2 AND state IN ('available', 'scheduled', 'retryable') AND run_at_us <= ?3
       AND coalesce(partition_key, '') > ?4
     ORDER BY coalesce(partition_key, '') LIMIT 1";

/// The first group with runnable jobs (see [`SQL_NEXT_GROUP`]).
const SQL_FIRST_GROUP: &str = "SELECT coalesce(partition_key, '') FROM jobs
     WHERE tenant = ?1 AND queue = ?2 AND state IN ('available', 'scheduled', 'retryable') AND run_at_us <= ?3
     ORDER BY coalesce(partition_key, '') LIMIT 1";

/// The best `?5` runnable jobs of group `?4` (a job whose key has an earlier unfinished job
/// left out when `?6`, FIFO).
const SQL_GROUP_JOBS: &str = "SELECT id, payload, attempt, max_attempts, priority, partition_key, run_at_us FROM jobs j
     WHERE tenant = ?1 AND queue = ?2 AND state IN ('available', 'scheduled', 'retryable') AND run_at_us <= ?3
       AND coalesce(partition_key, '') = ?4 AND json_valid(payload)
       AND (NOT ?6 OR partition_key IS NULL OR NOT EXISTS (
            SELECT 1 FROM jobs e WHERE e.tenant = j.tenant AND e.queue = j.queue AND e.partition_key = j.partition_key
               AND e.id < j.id AND e.state IN ('available', 'scheduled', 'retryable', 'running')))
     ORDER BY priority, run_at_us, id LIMIT ?5";

/// Jobs running and started in the rate's window, per key.
type Counts<'a> = (&'a HashMap<Option<String>, i64>, &'a HashMap<Option<String>, i64>);

/// The next group after `after` (the first when `None`).
fn next_group(
    c: &Connection,
    (tenant, queue, now_us): (&str, &str, i64),
    after: Option<&str>,
) -> Result<Option<String>> {
    match after {
        Some(after) => c.prepare_cached(SQL_NEXT_GROUP).and_then(|mut s| {
            s.query_row(params![tenant, queue, now_us, after], |r| r.get(0))
                .optional()
        }),
        None => c
            .prepare_cached(SQL_FIRST_GROUP)
            .and_then(|mut s| s.query_row(params![tenant, queue, now_us], |r| r.get(0)).optional()),
    }
    .map_err(map_error)
}

/// How many jobs group `g` may start: its turn's `left`, less what its key's bounds leave
/// (`mine`: what this claim's earlier visits of it took, running and started now).
fn room(s: &QueueSettings, g: &str, (left, mine): (i64, i64), (running, started): Counts<'_>) -> i64 {
    if g.is_empty() {
        return left;
    }
    let key = Some(g.to_string());
    let of = |m: &HashMap<Option<String>, i64>| m.get(&key).copied().unwrap_or(0) + mine;
    left.min(s.key_room(of(running), of(started)))
}

/// Where the claim starts: the cursor's group while its turn lasts and it has work (with what
/// the turn took), else the first group after the cursor, wrapping.
fn first_group(
    c: &Connection,
    at: (&str, &str, i64),
    cursor: &FairCursor,
    s: &QueueSettings,
) -> Result<Option<(String, i64)>> {
    if let Some((g, _)) = cursor.turn_left(&s.weights) {
        let has_work: bool = c
            .prepare_cached(
                "SELECT EXISTS (SELECT 1 FROM jobs WHERE tenant = ?1 AND queue = ?2
                    AND state IN ('available', 'scheduled', 'retryable') AND run_at_us <= ?3
                    AND coalesce(partition_key, '') = ?4)",
            )
            .and_then(|mut st| st.query_row(params![at.0, at.1, at.2, g], |r| r.get(0)))
            .map_err(map_error)?;
        if has_work {
            return Ok(Some((g.to_string(), cursor.served)));
        }
    }
    Ok(next_or_first(c, at, cursor.group.as_deref())?.map(|g| (g, 0)))
}

/// The group after `after`, or the first of all past the last (the walk wraps around).
fn next_or_first(c: &Connection, at: (&str, &str, i64), after: Option<&str>) -> Result<Option<String>> {
    match next_group(c, at, after)? {
        Some(g) => Ok(Some(g)),
        None => next_group(c, at, None),
    }
}

/// The queue's cursor (its settings row exists: the queue is fair).
fn cursor(c: &Connection, tenant: &str, queue: &str) -> Result<FairCursor> {
    c.prepare_cached("SELECT fair_cursor, fair_served FROM queue_settings WHERE tenant = ?1 AND queue = ?2")
        .and_then(|mut s| {
            s.query_row(params![tenant, queue], |r| {
                Ok(FairCursor {
                    group: r.get(0)?,
                    served: r.get(1)?,
                })
            })
        })
        .map_err(map_error)
}

/// The jobs a fair claim of at most `take` (the queue-wide limits applied) leases, the
/// cursor moved past them. `at`: tenant, queue, now µs.
pub(super) fn pick(
    c: &Connection,
    at: (&str, &str, i64),
    s: &QueueSettings,
    take: i64,
    counts: Counts<'_>,
) -> Result<Vec<Picked>> {
    let (tenant, queue, now_us) = at;
    let start = cursor(c, tenant, queue)?;
    let mut cur = start.clone();
    let mut out: Vec<(i64, Picked)> = Vec::new();
    let Some((first, mut served)) = first_group(c, at, &cur, s)? else {
        return Ok(Vec::new());
    };
    let (mut group, mut idle_from, mut visits) = (Some(first), None::<String>, 0);
    let mut taken: HashMap<String, i64> = HashMap::new();
    let mut st = c.prepare_cached(SQL_GROUP_JOBS).map_err(map_error)?;
    while let Some(g) = group {
        if visits >= MAX_FAIR_VISITS || out.len() as i64 >= take {
            break;
        }
        visits += 1;
        let left = (weight(&s.weights, &g) - served).min(take - out.len() as i64);
        let mine = taken.get(&g).copied().unwrap_or(0);
        let room = room(s, &g, (left, mine), counts);
        let mut got = 0;
        if room > 0 {
            let rows = st
                .query_map(params![tenant, queue, now_us, g, room, s.fifo_per_key], |r| {
                    Ok((r.get("run_at_us")?, row(r)?))
                })
                .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
                .map_err(map_error)?;
            got = rows.len() as i64;
            *taken.entry(g.clone()).or_insert(0) += got;
            // Running from now on, so the walk's next reads (a later visit of this group, the
            // next group with runnable jobs) no longer see them; the claim then leases them
            // (its token and lease replace these placeholders in the same transaction).
            for (_, j) in &rows {
                c.prepare_cached(
                    "UPDATE jobs SET state = 'running', lease_token = 'claiming', lease_expires_at_us = ?3
                     WHERE tenant = ?1 AND id = ?2",
                )
                .and_then(|mut u| u.execute(params![tenant, j.0, now_us]))
                .map_err(map_error)?;
            }
            out.extend(rows);
        }
        cur = FairCursor {
            group: Some(g.clone()),
            served: served + got,
        };
        served = 0;
        // A walk back at the group an idle stretch began with has seen every group take
        // nothing (a group's runnable jobs only leave by being taken): stop.
        if got > 0 {
            idle_from = None;
        } else if idle_from.is_none() {
            idle_from = Some(g.clone());
        }
        group = next_or_first(c, at, Some(&g))?;
        if group.is_some() && group == idle_from {
            break;
        }
    }
    // Written only when it moved (a claim that found nothing writes nothing).
    if cur != start {
        c.execute(
            "UPDATE queue_settings SET fair_cursor = ?3, fair_served = ?4 WHERE tenant = ?1 AND queue = ?2",
            params![tenant, queue, cur.group, cur.served],
        )
        .map_err(map_error)?;
    }
    // Answered best first, as every claim is.
    out.sort_by_key(|(run_at, j)| (j.4, *run_at, j.0));
    Ok(out.into_iter().map(|(_, j)| j).collect())
}
