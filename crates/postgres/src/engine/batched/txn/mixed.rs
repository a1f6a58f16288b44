//! The mixed holds of a batch (`POST /v1/holds` with stock lines and unit or booking lines,
//! `batched`): each takes its unit and booking lines inside the batch's transaction, after
//! the batch locked its stock rows (the lock order across kinds: stock rows, units, then
//! resources and pools), and its stock lines in the batch's one write, so the hot row pays
//! one commit for the whole batch, not one per hold.
//!
//! - Before any line, in a savepoint around all of them, the batch locks every resource its
//!   mixed holds name, then their pools, ascending key each ([`crate::bookings::lock_holds_resources`]). Their unit lines take
//!   units `FOR UPDATE SKIP LOCKED`, which never waits; a hold with a unit line by serials
//!   (whose rows are locked with a wait) runs on the per-request path. So the batch waits
//!   only on stock rows and on locks it takes in the global order: no cycle with another
//!   transaction.
//! - Each hold the evaluation places takes its lines in a savepoint of its own; a refused
//!   line rolls back to it and the hold gets the line's refusal (`insufficient_stock` of the
//!   unit SKU, `booking_overlap`, …), or runs on the per-request path when it must be run
//!   again (others lock the units it could take, overdue holds, 40001/40P01). The stock is
//!   then evaluated again without the refused holds, so no request is refused for stock a
//!   refused hold would have taken; a hold placed for the first time then takes its lines in
//!   turn. Taking a request out never makes another one short (the evaluation's balances
//!   only grow), so this ends within the batch's size in rounds; should a hold that took its
//!   lines no longer be placed, every mixed hold's lines are given back (a savepoint around
//!   them all) and they run on the per-request path.

use super::{BatchTx, Outcome};
use crate::engine::combiner::Op;
use crate::engine::conn::{Conn, Db};
use crate::engine::tx::{TxErr, TxResult};
use allot_core::batch::BatchResult as Evaluation;
use allot_core::{AllotError, Booking, HoldRequest, Unit};
use chrono::{DateTime, Utc};
use tokio_postgres::Error;

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
        self.defer_by_serials();
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
                return self.give_back_parts().await;
            }
        }
        loop {
            let open: Vec<usize> = self.open().collect();
            let result = self.evaluate(&open);
            let mut to_take = Vec::new();
            for (n, &i) in open.iter().enumerate() {
                let placed = result.outcomes[n].is_ok();
                if self.parts.contains_key(&i) && !placed {
                    return self.give_back_parts().await;
                }
                if placed && !self.parts.contains_key(&i) && self.mixed_request(i).is_some() {
                    to_take.push(i);
                }
            }
            if !self.take_round(&to_take).await? {
                return Ok((open, result));
            }
        }
    }

    /// The unit and booking lines of holds `to_take`, in their order: a run of holds of one
    /// unit line each (no savepoint: [`BatchTx::take_parts`]) is pipelined, one round trip for
    /// the run (statements of one connection run in the order sent); any other hold on its
    /// own. Whether one was refused.
    async fn take_round(&mut self, to_take: &[usize]) -> Result<bool, Error> {
        let batch = self.batch;
        let simple = |i: usize| match &batch[i].op {
            Op::Hold { req, .. } => req.units.len() == 1 && req.bookings.is_empty(),
            _ => false,
        };
        let mut refused = false;
        let mut k = 0;
        while k < to_take.len() {
            let run = to_take[k..].iter().take_while(|&&i| simple(i)).count().max(1);
            let group = &to_take[k..k + run];
            k += run;
            if simple(group[0]) {
                let (tx, tenant, now) = (self.tx, self.tenant.as_str(), self.now);
                let takes = group.iter().map(|&i| match &batch[i].op {
                    Op::Hold { req, .. } => take(tx, tenant, req, now),
                    _ => unreachable!("a simple request is a hold"),
                });
                // A database error in one (a broken connection) aborts the transaction: the
                // batch's next statement fails, and the batch with it, nothing applied.
                let results = futures::future::join_all(takes).await;
                for (&i, r) in group.iter().zip(results) {
                    refused |= self.settle(i, r.map_err(outcome_of));
                }
            } else {
                let r = self.take_parts(group[0]).await?;
                refused |= self.settle(group[0], r);
            }
        }
        Ok(refused)
    }

    /// A mixed hold with a unit line by serials runs on the per-request path.
    fn defer_by_serials(&mut self) {
        for i in self.open().collect::<Vec<_>>() {
            if self
                .mixed_request(i)
                .is_some_and(|r| r.units.iter().any(|u| !u.serials.is_empty()))
            {
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

    /// Give back every mixed hold's unit and booking lines and run them on the per-request
    /// path; the evaluation of what is left.
    async fn give_back_parts(&mut self) -> Result<(Vec<usize>, Evaluation), Error> {
        self.tx.batch_execute("ROLLBACK TO SAVEPOINT batch_mixed").await?;
        self.parts.clear();
        for i in self.open().collect::<Vec<_>>() {
            if self.mixed_request(i).is_some() {
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
        units.extend(crate::holds::hold_unit_line(tx, tenant, req, line, now).await?);
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
        TxErr::Fail(e) => Outcome::Fail(e),
        TxErr::Retry | TxErr::VersionConflict | TxErr::Overdue { .. } => Outcome::Deferred,
    }
}
