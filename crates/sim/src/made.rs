//! What each target has made so far, in order, so that a [`Ref`] names the same object on
//! every target: the rule that adds to it reads only the step and its answer, the same for the
//! model and for every server.

use crate::ops::{Op, Ref};
use crate::Answer;

/// An id no allocation or hold has (a well-formed UUID).
pub const UNKNOWN_ID: &str = "00000000-0000-4000-8000-000000000000";

/// The ids one target handed out, in order.
#[derive(Debug, Default, Clone)]
pub struct Made {
    allocations: Vec<String>,
    holds: Vec<String>,
    /// Holds (by place) confirmed so far: a confirm makes an allocation once.
    confirmed: Vec<usize>,
}

impl Made {
    /// The id `r` names among `ids`.
    fn pick(ids: &[String], r: Ref) -> (Option<usize>, String) {
        match r {
            Ref::Nth(n) if !ids.is_empty() => {
                let i = n % ids.len();
                (Some(i), ids[i].clone())
            }
            _ => (None, UNKNOWN_ID.to_string()),
        }
    }

    /// The allocation `r` names (its id, or an unknown one).
    pub fn allocation(&self, r: Ref) -> String {
        Self::pick(&self.allocations, r).1
    }

    /// The hold `r` names (its id, or an unknown one).
    pub fn hold(&self, r: Ref) -> String {
        Self::pick(&self.holds, r).1
    }

    /// The id of the allocation or hold `op` names (empty when it names none).
    pub fn id_of(&self, op: &Op) -> String {
        match op {
            Op::GetAllocation { allocation: r } | Op::Cancel { allocation: r, .. } => self.allocation(*r),
            Op::GetHold { hold: r }
            | Op::Confirm { hold: r, .. }
            | Op::Release { hold: r, .. }
            | Op::Extend { hold: r, .. } => self.hold(*r),
            _ => String::new(),
        }
    }

    /// Note what `op` made, given its answer and the id the answer carries.
    pub fn note(&mut self, op: &Op, answer: &Answer, id: Option<String>) {
        if answer.replayed || !(200..300).contains(&answer.status) {
            return;
        }
        match (op, id) {
            (Op::Allocate { .. }, Some(id)) if answer.status == 201 => self.allocations.push(id),
            (Op::Hold { .. }, Some(id)) if answer.status == 201 => self.holds.push(id),
            (Op::Confirm { hold, .. }, Some(id)) => {
                if let (Some(i), _) = Self::pick(&self.holds, *hold) {
                    if !self.confirmed.contains(&i) {
                        self.confirmed.push(i);
                        self.allocations.push(id);
                    }
                }
            }
            _ => {}
        }
    }
}
