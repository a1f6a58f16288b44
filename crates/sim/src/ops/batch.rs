//! The batch API's steps: operations whose outcomes do not depend on the order they run in
//! (a batch runs them concurrently and promises no order, and the model is sequential), so
//! that every target's answer is the model's: allocations and holds on distinct SKUs, with
//! now and then a whole confirm (which leaves what is available as it was) and a release or
//! cancel of an id no object has; or one release or cancel of an object made earlier.
//! Now and then the batch breaks a rule and is refused whole: no operation, a quantity of 0,
//! or one key on two operations.

use super::{Generator, Op, Ref, SKUS};
use rand::Rng;

impl Generator {
    /// A `POST /v1/batch` step.
    pub(super) fn batch_op(&mut self) -> Op {
        let mut ops = match self.rng.random_range(0..10) {
            0 => Vec::new(),
            1..=2 => {
                let r = self.reference();
                vec![self.freeing(r)]
            }
            _ => self.independent(),
        };
        if self.rng.random_range(0..20) == 0 && ops.len() > 1 {
            let key = Some(super::KEYS[self.rng.random_range(0..super::KEYS.len())]);
            set_key(&mut ops[0], key);
            set_key(&mut ops[1], key);
        }
        Op::Batch { ops }
    }

    /// One to three allocations and holds of one line each on distinct SKUs, then (half the
    /// time) a whole confirm and (a fifth of the time) a release or cancel no object answers.
    fn independent(&mut self) -> Vec<Op> {
        let first = self.rng.random_range(0..SKUS.len());
        let n = self.rng.random_range(1..=SKUS.len());
        let mut ops: Vec<Op> = (0..n)
            .map(|i| {
                let line = vec![(SKUS[(first + i) % SKUS.len()], self.rare(&[1, 1, 2], &[0, 9]))];
                match self.rng.random_range(0..2) {
                    0 => Op::Allocate {
                        lines: line,
                        place: self.place(),
                        key: self.key(),
                    },
                    _ => Op::Hold {
                        lines: line,
                        units: Vec::new(),
                        bookings: Vec::new(),
                        ttl_ms: self.ttl_ms(),
                        place: self.place(),
                        key: self.key(),
                    },
                }
            })
            .collect();
        if self.rng.random_range(0..2) == 0 {
            ops.push(Op::Confirm {
                hold: self.reference(),
                part: None,
                key: self.key(),
            });
        }
        if self.rng.random_range(0..5) == 0 {
            ops.push(self.freeing(Ref::Unknown));
        }
        ops
    }

    /// A release of the hold or a cancel of the allocation `r` names.
    fn freeing(&mut self, r: Ref) -> Op {
        match self.rng.random_range(0..2) {
            0 => Op::Release {
                hold: r,
                key: self.key(),
            },
            _ => Op::Cancel {
                allocation: r,
                key: self.key(),
            },
        }
    }
}

/// Put `key` on `op` (an operation a batch carries).
fn set_key(op: &mut Op, key: Option<&'static str>) {
    match op {
        Op::Allocate { key: k, .. }
        | Op::Hold { key: k, .. }
        | Op::Confirm { key: k, .. }
        | Op::Release { key: k, .. }
        | Op::Cancel { key: k, .. } => *k = key,
        _ => {}
    }
}
