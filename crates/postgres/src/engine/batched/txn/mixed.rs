//! The mixed holds of a batch (`POST /v1/holds` with stock lines and unit or booking lines,
//! `batched`): each takes its unit and booking lines inside the batch's transaction, after
//! the batch locked its stock rows, and its stock lines in the batch's one write, so the hot
//! row pays one commit for the whole batch, not one per hold.
//!
//! - Locks: the batch's stock rows first; then, in a savepoint around all of the mixed holds'
//!   lines (`batch_mixed`), every resource they name and then their pools, ascending key each
//!   ([`crate::bookings::lock_holds_resources`]); then the units. Resources before units
//!   (the per-request path takes units first) cannot close a cycle, because the batch's unit
//!   claims never wait (`FOR UPDATE SKIP LOCKED`): a hold with a unit line by serials (whose
//!   rows are locked with a wait) runs on the per-request path. The batch then waits only on
//!   stock rows and on resource and pool locks, taken in the global order.
//! - At most [`MAX_SAVEPOINT_HOLDS`] holds of a batch take their lines in savepoints (a
//!   transaction's subtransactions past 64 overflow PostgreSQL's cache of them and slow every
//!   session's snapshots); the rest run on the per-request path.
//! - Rounds: the stock of the open requests is evaluated in arrival order; each mixed hold
//!   placed takes its lines, in that order: a run of holds of one unit line and no booking
//!   line pipelined (one statement takes a line's units or none, and a short one is an answer,
//!   not an error), any other hold in a savepoint of its own. A refused line rolls back to it
//!   and the hold gets the line's refusal (`insufficient_stock` of the unit SKU,
//!   `booking_overlap`, …), or runs on the per-request path when it must be run again (others
//!   lock the units it could take, overdue holds, 40001/40P01) or failed with a fault. If one
//!   was refused, the stock is evaluated again without it, so no request is refused for
//!   stock a refused hold would have taken, and a hold placed for the first time takes its
//!   lines in turn. Every round but the last settles a hold, so the rounds are bounded by the
//!   batch's size.
//! - Give-back: taking a request out can let an earlier short one in, which can make a later
//!   one short (the evaluation is greedy); should that be a hold that took its lines, or
//!   should a pipelined claim fail with a database error (which aborts the transaction) or
//!   find units it could take locked by others, the
//!   batch rolls back to `batch_mixed`: every mixed hold's lines are given back, and every
//!   mixed hold, refused ones included (their refusals may have come of lines given back),
//!   runs on the per-request path; the other requests are evaluated again without them.

use super::{BatchTx, Outcome};
use crate::engine::combiner::Op;
use crate::engine::conn::{Conn, Db};
use crate::engine::tx::{TxErr, TxResult};
use allot_core::batch::BatchResult as Evaluation;
use allot_core::{AllotError, Booking, HoldRequest, Unit};
use chrono::{DateTime, Utc};
use std::collections::HashSet;
use tokio_postgres::Error;

/// Most holds of one batch that take their lines in savepoints of their own (see the module's
/// doc); a run of pipelined holds takes none.
pub(super) const MAX_SAVEPOINT_HOLDS: usize = 32;

/// Most claims pipelined at once: `futures`' `join_all` polls up to 30 futures in order (its
/// first poll of each sends that claim), and beyond that switches to an unordered set.
const MAX_PIPELINED: usize = 30;

/// How a round of taking lines ended.
enum Round {
    /// Every hold took its lines.
    Taken,
    /// A hold was refused: evaluate again without it.
    Refused,
    /// A pipelined claim failed with a database error: the transaction is aborted until the
    /// batch rolls back to `batch_mixed`.
    Broken,
}

/// What a mixed hold of the batch took besides its stock.
pub(super) struct Parts {
    /// Its units, by id.
    pub(super) units: Vec<Unit>,
    /// Its bookings, in the order of its booking lines.
    pub(super) bookings: Vec<Booking>,
}

impl BatchTx<'_> {
    /// Request `i` when it is a hold with unit or booking lines.
    pub(super) fn mixed_request(&self, i: usize) -> Option<&HoldRequest> {
        match &self.batch[i].op {
            Op::Hold { req, .. } if !req.units.is_empty() || !req.bookings.is_empty() => Some(req),
            _ => None,
        }
    }

    /// Whether an open request is a mixed hold.
    pub(super) fn has_mixed(&self) -> bool {
        self.open().any(|i| self.mixed_request(i).is_some())
    }

    /// The evaluation of the open requests (their indices beside it), once every mixed hold
    /// it places has taken its unit and booking lines (see the module's doc).
    pub(super) async fn evaluate_mixed(&mut self) -> Result<(Vec<usize>, Evaluation), Error> {
        self.defer_unfit_mixed();
        if self.has_mixed() {
            let batch = self.batch;
            let holds = (0..batch.len()).filter(|&i| self.outcomes[i].is_none());
            let holds = holds.filter_map(|i| match &batch[i].op {
                Op::Hold { req, .. } => Some(req),
                _ => None,
            });
            self.tx.batch_execute("SAVEPOINT batch_mixed").await?;
            // A fault taking them (40P01 included) leaves the mixed holds to the per-request path.
            if crate::bookings::lock_holds_resources(self.tx, &self.tenant, holds)
                .await
                .is_err()
            {
                return self.give_back_parts(&HashSet::new()).await;
            }
        }
        let mut refused = HashSet::new();
        loop {
            let open: Vec<usize> = self.open().collect();
            let result = self.evaluate(&open);
            let mut to_take = Vec::new();
            for (n, &i) in open.iter().enumerate() {
                let placed = result.outcomes[n].is_ok();
                if self.parts.contains_key(&i) && !placed {
                    return self.give_back_parts(&refused).await;
                }
                if placed && !self.parts.contains_key(&i) && self.mixed_request(i).is_some() {
                    to_take.push(i);
                }
            }
            match self.take_round(&to_take, &mut refused).await? {
                Round::Taken => return Ok((open, result)),
                Round::Refused => {}
                Round::Broken => return self.give_back_parts(&refused).await,
            }
        }
    }

    /// The unit and booking lines of holds `to_take`, in their order: a run of holds of one
    /// unit line each (no savepoint: [`BatchTx::take_parts`]) is pipelined, one round trip for
    /// up to [`MAX_PIPELINED`] of them (statements of one connection run in the order sent);
    /// any other hold on its own. The holds refused go into `refused`.
    async fn take_round(&mut self, to_take: &[usize], refused: &mut HashSet<usize>) -> Result<Round, Error> {
        let batch = self.batch;
        let simple = |i: usize| match &batch[i].op {
            Op::Hold { req, .. } => req.units.len() == 1 && req.bookings.is_empty(),
            _ => false,
        };
        let mut round = Round::Taken;
        let mut k = 0;
        while k < to_take.len() {
            let run = to_take[k..].iter().take_while(|&&i| simple(i)).count();
            let group = &to_take[k..k + run.clamp(1, MAX_PIPELINED)];
            k += group.len();
            if simple(group[0]) {
                let (tx, tenant, now) = (self.tx, self.tenant.as_str(), self.now);
                let takes = group.iter().map(|&i| match &batch[i].op {
                    Op::Hold { req, .. } => take(tx, tenant, req, now),
                    _ => unreachable!("a simple request is a hold"),
                });
                for (&i, r) in group.iter().zip(futures::future::join_all(takes).await) {
                    // A database error aborted the transaction; `Retry` may be one (40P01) or
                    // units others lock, which cannot be told apart here: both give back.
                    if matches!(
                        r,
                        Err(TxErr::Retry | TxErr::Fail(AllotError::Internal(_) | AllotError::Unavailable(_)))
                    ) {
                        return Ok(Round::Broken);
                    }
                    if self.settle(i, r.map_err(outcome_of)) {
                        refused.insert(i);
                        round = Round::Refused;
                    }
                }
            } else {
                let r = self.take_parts(group[0]).await?;
                if self.settle(group[0], r) {
                    refused.insert(group[0]);
                    round = Round::Refused;
                }
            }
        }
        Ok(round)
    }

    /// A mixed hold with a unit line by serials, and every hold past the first
    /// [`MAX_SAVEPOINT_HOLDS`] that would take its lines in a savepoint, run on the
    /// per-request path.
    fn defer_unfit_mixed(&mut self) {
        let mut savepoints = 0;
        // By index, not `open()` collected: no allocation on a batch without a mixed hold
        // (`allot bench cost`'s `hold_confirm` row counts heap allocations).
        for i in 0..self.batch.len() {
            if self.outcomes[i].is_some() {
                continue;
            }
            let Some(req) = self.mixed_request(i) else { continue };
            let by_serials = req.units.iter().any(|u| !u.serials.is_empty());
            let in_savepoint = !(req.units.len() == 1 && req.bookings.is_empty());
            savepoints += usize::from(in_savepoint);
            if by_serials || savepoints > MAX_SAVEPOINT_HOLDS {
                self.outcomes[i] = Some(Outcome::Deferred);
            }
        }
    }

    /// Record what hold `i` took, or its outcome; whether it was refused.
    fn settle(&mut self, i: usize, taken: Result<Parts, Outcome>) -> bool {
        match taken {
            Ok(parts) => {
                self.parts.insert(i, parts);
                false
            }
            Err(outcome) => {
                self.outcomes[i] = Some(outcome);
                true
            }
        }
    }

    /// Hold `i`'s unit and booking lines, in a savepoint: what it took, or its outcome when
    /// a line was refused (with nothing of it left). (A hold of one unit line and no booking
    /// line needs none: its one statement takes all its units or none, and a short one is an
    /// answer, not an error: [`BatchTx::take_round`].)
    async fn take_parts(&mut self, i: usize) -> Result<Result<Parts, Outcome>, Error> {
        let batch = self.batch;
        let Op::Hold { req, .. } = &batch[i].op else {
            unreachable!("take_parts of a request that is not a hold")
        };
        self.tx.batch_execute("SAVEPOINT mixed_part").await?;
        match take(self.tx, &self.tenant, req, self.now).await {
            Ok(parts) => {
                self.tx.batch_execute("RELEASE SAVEPOINT mixed_part").await?;
                Ok(Ok(parts))
            }
            Err(e) => {
                self.tx
                    .batch_execute("ROLLBACK TO SAVEPOINT mixed_part; RELEASE SAVEPOINT mixed_part")
                    .await?;
                Ok(Err(outcome_of(e)))
            }
        }
    }

    /// Give back every mixed hold's unit and booking lines (`ROLLBACK TO SAVEPOINT
    /// batch_mixed`, which also makes a transaction aborted by a claim usable again) and run
    /// every mixed hold on the per-request path, those in `refused` too (their refusals may
    /// have come of lines just given back); the evaluation of what is left.
    async fn give_back_parts(&mut self, refused: &HashSet<usize>) -> Result<(Vec<usize>, Evaluation), Error> {
        self.tx.batch_execute("ROLLBACK TO SAVEPOINT batch_mixed").await?;
        self.parts.clear();
        for i in 0..self.batch.len() {
            if refused.contains(&i) || (self.outcomes[i].is_none() && self.mixed_request(i).is_some()) {
                self.outcomes[i] = Some(Outcome::Deferred);
            }
        }
        let open: Vec<usize> = self.open().collect();
        let result = self.evaluate(&open);
        Ok((open, result))
    }
}

/// Take `req`'s unit lines, then its booking lines, in `tx` at `now`.
async fn take(tx: &Conn, tenant: &str, req: &HoldRequest, now: DateTime<Utc>) -> TxResult<Parts> {
    let mut units = Vec::new();
    for line in &req.units {
        units.extend(crate::engine::unit_claims::hold_unit_line(tx, tenant, (req, line), now).await?);
    }
    units.sort_by_key(|u| u.id);
    let bookings = match req.bookings.is_empty() {
        true => Vec::new(),
        false => crate::bookings::hold_booking_lines(tx, tenant, req, now).await?,
    };
    Ok(Parts { units, bookings })
}

/// A refused line's outcome: its refusal, or the per-request path where the hold must be run
/// again or the refusal is a fault (which that path reports as its own).
fn outcome_of(e: TxErr) -> Outcome {
    match e {
        TxErr::Fail(AllotError::Internal(_) | AllotError::Unavailable(_)) => Outcome::Deferred,
        TxErr::Fail(e) | TxErr::Backorder(e) => Outcome::Fail(e),
        TxErr::Retry | TxErr::VersionConflict | TxErr::Overdue { .. } => Outcome::Deferred,
    }
}
