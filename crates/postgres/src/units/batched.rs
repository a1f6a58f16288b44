//! `batched` unit claims: flat combining per (tenant, SKU, order) on `engine/flat.rs`'s
//! queues: a batch takes what is queued (up to `batch_max_requests`), runs one transaction
//! and answers each claim, until the queue is empty; the next batch may pick while the one
//! before it writes and commits ([`UNIT_BATCHES_IN_FLIGHT`]). The transaction locks the units the
//! claims need in one `FOR UPDATE SKIP LOCKED` statement in the claims' order, hands them out
//! one claim after another in arrival order (each takes what it wants, or nothing: a claim
//! allowing partial that cannot be filled runs alone, which finalises overdue holds before it
//! takes less), and
//! writes every claim — the units' status, the allocations, the ledger — in one statement;
//! `BEGIN` travels with the pick and the write with `COMMIT` (`engine/pipeline.rs`), so a
//! batch takes two round trips.
//! A claim that took nothing (and every claim of a batch that failed before its commit) is
//! handed back to run on the per-request path, which retries on contention and tells
//! `insufficient_stock` from `contention`, exactly as `skip_locked` decides it; a commit whose
//! outcome is unknown is `503 outcome_unknown` for the claims that took units. The queue is
//! bounded per key (`batch_max_queued`); a claim whose caller went away is dropped before a
//! batch takes it.

use crate::engine::conn::Db;
use crate::engine::errors::map_error;
use crate::engine::pipeline::{begin_with, commit_with, Ended, HandTx};
use crate::engine::records::unit_rows;
use crate::engine::store::PgStore;
use allot_core::Capable;
use allot_core::{AllocationStatus, AllotError, Result, UnitAllocation, UnitClaim, UnitStrategy};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use tokio_postgres::types::ToSql;

impl PgStore {
    /// Claim through the key's batch: `Some` when the batch decided it, `None` when it is to
    /// run on the per-request path. A full queue (`batch_max_queued` per key) is
    /// `503 unavailable` at once.
    pub(crate) async fn claim_batched(
        &self,
        tenant: &str,
        req: UnitClaim,
        order: &str,
    ) -> Result<Option<UnitAllocation>> {
        let key = (tenant.to_string(), req.sku.clone(), order.to_string());
        let joined = self
            .unit_batches
            .join(&key, req, self.limits.batch_max_queued, "unit")?;
        if joined.start {
            tokio::spawn(run_key(self.clone(), key));
        }
        joined.answer("unit").await
    }
}

/// Batches of one key that run at once: the next batch picks (`FOR UPDATE SKIP LOCKED`, so
/// past the units the one before it locked) while the one before it writes and commits.
/// A batch lets the next begin only once its own pick has returned all it asked for, so
/// batches still take units in arrival order; after a short pick the next waits for the
/// batch to end, as with one batch at a time.
const UNIT_BATCHES_IN_FLIGHT: usize = 2;

/// Run batches of `key` until its queue is empty.
async fn run_key(store: PgStore, key: Key) {
    let decide = |claims: Vec<UnitClaim>, go: crate::engine::flat::Go| {
        let (store, key) = (store.clone(), key.clone());
        async move {
            match run_batch(&store, &key, &claims, go).await {
                Ok(answers) => answers.into_iter().map(Ok::<_, AllotError>).collect(),
                Err((e, shares)) => {
                    tracing::warn!(error = %e, claims = claims.len(), "a batch of unit claims failed");
                    // Before its commit nothing was applied: each claim runs on its own path.
                    // A commit of unknown outcome may have applied the claims that took units.
                    let unknown = matches!(e, AllotError::OutcomeUnknown);
                    shares
                        .iter()
                        .map(|n| {
                            if unknown && *n > 0 {
                                Err(AllotError::OutcomeUnknown)
                            } else {
                                Ok(None)
                            }
                        })
                        .collect()
                }
            }
        }
    };
    store
        .unit_batches
        .run(
            (&key, "units"),
            (store.limits.batch_max_requests, UNIT_BATCHES_IN_FLIGHT),
            decide,
        )
        .await;
}

/// A queue's key: tenant, SKU and the claims' `ORDER BY` text.
type Key = (String, String, String);

/// The pick's head (`$1` tenant, `$2` SKU, `$4` now: never a unit past its best-before
/// date); the claims' `ORDER BY`, `LIMIT $3` (the units they want in all) and
/// `FOR UPDATE SKIP LOCKED` follow.
const SQL_PICK: &str = "SELECT id FROM units WHERE tenant = $1 AND sku = $2 AND status = 'available'
    AND COALESCE(expires_at, 'infinity'::timestamptz) > $4";

/// Every claim of the batch in one statement (`$3` unit ids with `$4` their claim, `$6..$8`
/// each claim's id, count and actor, `$5` now), sent with `COMMIT`: it fails (`XX000`, V27's
/// `allot_check`), and so applies nothing, unless it marked every unit it was given. Every
/// one is locked by the batch's pick, so it always does; the check keeps the ledger's counts
/// and the units marked equal even if that ever stopped being so.
const SQL_WRITE: &str = concat!(
    "WITH pick AS (SELECT * FROM unnest($3::int8[], $4::text[]) AS t(id, claim)),
upd AS (
    UPDATE units u SET status = 'allocated', claim_id = pick.claim
      FROM pick WHERE u.tenant = $1 AND u.id = pick.id AND u.status = 'available'
    RETURNING u.id, u.serial, u.location, u.lot, u.received_at, u.expires_at),
rec AS (
    ",
    crate::engine::records::insert_allocation!(),
    "
    SELECT $1, c.id, 'allocated', 'batched', jsonb_build_array(jsonb_build_object('sku', $2::text, 'quantity', c.n)), $5
      FROM unnest($6::text[], $7::int8[]) AS c(id, n)),
led AS (
    INSERT INTO ledger (tenant, sku, delta, held_delta, kind, ref, actor, at)
    SELECT $1, $2, -c.n, 0, 'allocation', c.id, c.actor, $5 FROM unnest($6::text[], $7::int8[], $8::text[]) AS c(id, n, actor))
SELECT id, serial, location, lot, received_at, expires_at FROM upd
UNION ALL
SELECT NULL, NULL, NULL, NULL, NULL, NULL
 WHERE NOT allot_check((SELECT count(*) FROM upd) = cardinality($3::int8[]), 'a unit batch marked fewer units than it picked')"
);

/// A batch's `BEGIN`: READ COMMITTED whatever the server's default.
const BEGIN_BATCH: &str = "BEGIN ISOLATION LEVEL READ COMMITTED";

/// Why a batch failed, and each claim's share (0 for all when the failure came before the
/// shares were known).
type Failed = (AllotError, Vec<i64>);

/// One batch transaction in two round trips (`BEGIN` with the pick, the write with
/// `COMMIT`): each claim's allocation, or `None` for the per-request path. `go` lets the
/// key's next batch begin once this one's pick has returned every unit it asked for (else
/// when this batch ends).
async fn run_batch(
    store: &PgStore,
    (tenant, sku, order): &Key,
    claims: &[UnitClaim],
    go: crate::engine::flat::Go,
) -> std::result::Result<Vec<Option<UnitAllocation>>, Failed> {
    let none = |e: AllotError| (e, vec![0; claims.len()]);
    let tx = HandTx::new(store.client().await.map_err(none)?);
    // Held (unsent) until the batch ends when its pick is short.
    let mut go = Some(go);
    let now = store.now();
    let ids = match pick(&tx, (tenant, sku, order), (claims, now), &mut go).await {
        Ok(ids) => ids,
        Err(e) => {
            tx.roll_back().await;
            return Err(none(e));
        }
    };
    let shares = hand_out(claims, ids.len() as i64);
    if shares.iter().all(|s| *s == 0) {
        // Nothing to write (sold out, locked, or no such SKU): each claim finds out alone.
        tx.roll_back().await;
        return Ok(claims.iter().map(|_| None).collect());
    }
    let written = write_and_commit(&tx, (tenant, sku), claims, (&shares, &ids), now).await;
    tx.end_after(&written).await;
    match written {
        Ok(units) => Ok(answers(claims, &shares, &ids, units, now)),
        // Nothing applied: each claim runs on its own path.
        Err(Ended::Refused(e)) => Err(none(map_error(e))),
        Err(Ended::Unknown) => Err((AllotError::OutcomeUnknown, shares)),
        Err(Ended::CommitFailed(_)) => Err((AllotError::Unavailable("a unit batch's commit failed".into()), shares)),
    }
}

/// `BEGIN` with the pick at `now`, in one round trip: the ids of the units locked for the
/// batch, in the claims' order.
async fn pick(
    tx: &HandTx,
    (tenant, sku, order): (&str, &str, &str),
    (claims, now): (&[UnitClaim], DateTime<Utc>),
    go: &mut Option<crate::engine::flat::Go>,
) -> Result<Vec<i64>> {
    let wanted: i64 = claims.iter().map(|c| c.quantity).sum();
    let pick = format!("{SQL_PICK} ORDER BY {order} LIMIT $3 FOR UPDATE SKIP LOCKED");
    let stmt = tx.prepare_text(&pick).await.map_err(map_error)?;
    // READ COMMITTED, whatever the server's default: the next batch's pick must see this
    // one's units as locked (skipped), then as taken once it commits.
    let rows = begin_with(tx, BEGIN_BATCH, tx.query(&stmt, &[&tenant, &sku, &wanted, &now]))
        .await
        .map_err(map_error)?;
    let ids: Vec<i64> = rows
        .iter()
        .map(|r| r.try_get(0))
        .collect::<std::result::Result<_, _>>()
        .map_err(map_error)?;
    if ids.len() as i64 == wanted {
        // Only a full pick lets the next batch pick now: a short one still holds units it
        // will not write until it ends, which the next pick would skip past.
        if let Some(go) = go.take() {
            let _ = go.send(());
        }
    }
    Ok(ids)
}

/// The write of every claim that took units (`shares`, from the picked `ids` in order),
/// pipelined with `COMMIT`: the units as marked.
async fn write_and_commit(
    tx: &HandTx,
    (tenant, sku): (&str, &str),
    claims: &[UnitClaim],
    (shares, ids): (&[i64], &[i64]),
    now: DateTime<Utc>,
) -> std::result::Result<Vec<allot_core::Unit>, Ended> {
    let unit_claims = assign(claims, shares);
    let written: &[i64] = &ids[..unit_claims.len()];
    let (c_id, c_n, c_actor) = claimed_columns(claims, shares);
    let stmt = tx.prepare_cached(SQL_WRITE).await.map_err(Ended::Refused)?;
    let params: [&(dyn ToSql + Sync); 8] = [&tenant, &sku, &written, &unit_claims, &now, &c_id, &c_n, &c_actor];
    let rows = commit_with(tx, tx.query(&stmt, &params)).await?;
    Ok(unit_rows(&rows))
}

/// How many units each claim takes, one after another in arrival order from `available`:
/// what it wants, else nothing. A claim allowing partial that is left short runs alone
/// (`skip_locked`), which finalises overdue holds before it takes less than it wants (the
/// batch's pick does not see their units: found by the simulation).
fn hand_out(claims: &[UnitClaim], available: i64) -> Vec<i64> {
    let mut left = available;
    claims
        .iter()
        .map(|c| {
            let least = c.quantity;
            let take = c.quantity.min(left);
            if take >= least {
                left -= take;
                take
            } else {
                0
            }
        })
        .collect()
}

/// The claim of each unit handed out, in pick order (the picked ids are consumed from the
/// front, claim after claim).
fn assign(claims: &[UnitClaim], shares: &[i64]) -> Vec<String> {
    let mut out = Vec::with_capacity(shares.iter().sum::<i64>() as usize);
    for (c, n) in claims.iter().zip(shares) {
        out.extend(std::iter::repeat_n(c.id.clone(), *n as usize));
    }
    out
}

/// The claims that took units: id, count, actor.
fn claimed_columns(claims: &[UnitClaim], shares: &[i64]) -> (Vec<String>, Vec<i64>, Vec<Option<String>>) {
    let taken = claims.iter().zip(shares).filter(|(_, n)| **n > 0);
    let ids = taken.clone().map(|(c, _)| c.id.clone()).collect();
    let counts = taken.clone().map(|(_, n)| *n).collect();
    let actors = taken.map(|(c, _)| c.actor.clone()).collect();
    (ids, counts, actors)
}

/// Each claim's answer: its units in pick order, or `None` when it took none (it runs on the
/// per-request path, which tells `insufficient_stock` from `contention`).
fn answers(
    claims: &[UnitClaim],
    shares: &[i64],
    ids: &[i64],
    units: Vec<allot_core::Unit>,
    now: DateTime<Utc>,
) -> Vec<Option<UnitAllocation>> {
    let mut by_id: HashMap<i64, allot_core::Unit> = units.into_iter().map(|u| (u.id, u)).collect();
    let mut next = 0usize;
    claims
        .iter()
        .zip(shares)
        .map(|(c, n)| {
            let n = *n as usize;
            let mine = &ids[next..next + n];
            next += n;
            (n > 0).then(|| UnitAllocation {
                id: c.id.clone(),
                sku: c.sku.clone(),
                status: AllocationStatus::Allocated,
                strategy: UnitStrategy::Batched,
                units: mine.iter().filter_map(|id| by_id.remove(id)).collect(),
                expires_at: None,
                created_at: now,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::hand_out;
    use crate::engine::conn::Db;
    use allot_core::{UnitClaim, UnitStrategy};

    fn claim(q: i64, partial: bool) -> UnitClaim {
        UnitClaim {
            id: format!("c{q}"),
            sku: "S".into(),
            quantity: q,
            order_by: Vec::new(),
            allow_partial: partial,
            strategy: UnitStrategy::Batched,
            hold_ttl_ms: None,
            actor: None,
            serials: Vec::new(),
        }
    }

    /// [`super::SQL_WRITE`] of one claim `c1` taking the units `ids`, in tenant `t`, SKU `S`.
    async fn write(
        c: &crate::engine::conn::Conn,
        ids: &[i64],
    ) -> std::result::Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
        let claims = vec!["c1".to_string(); ids.len()];
        let (c_id, c_n, c_actor) = (vec!["c1".to_string()], vec![ids.len() as i64], vec![None::<String>]);
        let now = chrono::Utc::now();
        let write = c.prepare_cached(super::SQL_WRITE).await?;
        c.query(&write, &[&"t", &"S", &ids, &claims, &now, &c_id, &c_n, &c_actor])
            .await
    }

    /// The write checks itself (it travels with `COMMIT`, so the batch cannot look first):
    /// given a unit it cannot mark, it fails with `XX000` and applies nothing; given units it
    /// can, it marks them and writes the ledger.
    #[tokio::test]
    async fn a_write_that_marks_fewer_units_than_picked_applies_nothing() {
        let schema = crate::engine::test_schema::TestSchema::new("t_unit_write_check").await;
        let store = schema.store().await;
        let c = store.client().await.unwrap();
        c.batch_execute(
            "INSERT INTO skus (tenant, sku, buckets, tracking, created_at) VALUES ('t', 'S', 1, 'units', now());
             INSERT INTO units (tenant, sku, serial, location, received_at)
             VALUES ('t', 'S', 'A', 'default', now()), ('t', 'S', 'B', 'default', now());
             UPDATE units SET status = 'allocated', claim_id = 'other' WHERE serial = 'B'",
        )
        .await
        .unwrap();
        let ids: Vec<i64> = c
            .query("SELECT id FROM units ORDER BY serial", &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        // As a batch runs it: a prepared statement, here with the generic plan forced.
        c.batch_execute("SET plan_cache_mode = force_generic_plan")
            .await
            .unwrap();
        let err = write(&c, &ids).await.unwrap_err();
        assert_eq!(err.code(), Some(&tokio_postgres::error::SqlState::INTERNAL_ERROR));
        // Not one of them markable: still refused.
        let err = write(&c, &ids[1..]).await.unwrap_err();
        assert_eq!(err.code(), Some(&tokio_postgres::error::SqlState::INTERNAL_ERROR));
        let counts = "SELECT (SELECT count(*) FROM units WHERE status = 'available'),
                             (SELECT count(*) FROM ledger WHERE ref = 'c1'), (SELECT count(*) FROM allocations)";
        let row = c.query_one(counts, &[]).await.unwrap();
        assert_eq!(
            (row.get::<_, i64>(0), row.get::<_, i64>(1), row.get::<_, i64>(2)),
            (1, 0, 0)
        );
        c.batch_execute("UPDATE units SET status = 'available', claim_id = NULL")
            .await
            .unwrap();
        assert_eq!(write(&c, &ids).await.unwrap().len(), 2);
        let row = c.query_one(counts, &[]).await.unwrap();
        assert_eq!(
            (row.get::<_, i64>(0), row.get::<_, i64>(1), row.get::<_, i64>(2)),
            (0, 1, 1)
        );
        drop(c);
        schema.drop().await;
    }

    /// One after another: a claim that does not fit takes nothing and a later, smaller one
    /// still can; a partial one that cannot be filled takes nothing here either (it runs
    /// alone, where the units of expired holds are finalised before it takes less).
    #[test]
    fn handed_out_in_arrival_order() {
        let claims = [
            claim(3, false),
            claim(4, false),
            claim(1, false),
            claim(5, true),
            claim(2, false),
        ];
        assert_eq!(hand_out(&claims, 6), [3, 0, 1, 0, 2]);
        assert_eq!(hand_out(&claims, 0), [0, 0, 0, 0, 0]);
        assert_eq!(hand_out(&claims, 100), [3, 4, 1, 5, 2]);
    }
}
