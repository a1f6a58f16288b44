//! What each target has made so far, in order, so that a [`Ref`] names the same object on
//! every target: the rule that adds to it reads only the step, its answer and the ids (and
//! lease tokens) the answer carries, the same for the model and for every server.
//!
//! Jobs are named by their place: the `n`-th job any enqueue answered with is job `n`
//! (1-based) in every answer's view, whatever id its store gave it.

use crate::ops::{JobRef, Op, Ref, Token};

/// An id no allocation or hold has (a well-formed UUID).
pub const UNKNOWN_ID: &str = "00000000-0000-4000-8000-000000000000";

/// A job id no job has.
pub const UNKNOWN_JOB: i64 = 999_999_999;

/// A well-formed lease token no claim gave.
pub const UNKNOWN_TOKEN: &str = "00000000-0000-4000-8000-00000000dead";

/// What an answer handed out: an allocation's or a hold's id, the ids an enqueue answered
/// (request order), the jobs a claim leased with their tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Noted {
    /// An allocation or a hold (or the allocation a confirm made).
    Id(String),
    /// A hold made by `POST /v1/holds`, and its bookings (its booking lines', in line order):
    /// the booking steps then name them too (answered `held_by_hold`).
    Hold {
        /// The hold.
        id: String,
        /// Its bookings.
        bookings: Vec<String>,
    },
    /// An enqueue's ids.
    Jobs(Vec<i64>),
    /// A claim's `(id, lease_token)`.
    Leases(Vec<(i64, String)>),
}

/// What a step names once resolved on one target: the object's id and, for a job
/// transition, the lease token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The allocation, hold or job id (empty when the step names none).
    pub id: String,
    /// The lease token (empty when the step carries none).
    pub token: String,
    /// An enqueue's jobs' `depends_on`, each job's as ids (request order).
    pub depends_on: Vec<Vec<i64>>,
}

/// The ids one target handed out, in order.
#[derive(Debug, Default, Clone)]
pub struct Made {
    allocations: Vec<String>,
    holds: Vec<String>,
    /// Holds (by place) confirmed so far: a confirm makes an allocation once.
    confirmed: Vec<usize>,
    /// Job ids by place.
    jobs: Vec<i64>,
    /// The lease tokens each job (by place) was claimed with, oldest first.
    tokens: Vec<Vec<String>>,
    /// The job (by place, 0-based) of every lease handed out, oldest first.
    leases: Vec<usize>,
    bookings: Vec<String>,
    /// Incoming stock by place.
    incoming: Vec<String>,
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

    /// The job `r` names (its place, if any, and its id) and the token `token` names of it.
    fn job(&self, r: JobRef, token: Option<Token>) -> Resolved {
        let place = match r {
            JobRef::Made(Ref::Nth(n)) if !self.jobs.is_empty() => Some(n % self.jobs.len()),
            JobRef::Leased(n) if !self.leases.is_empty() => {
                Some(self.leases[self.leases.len() - 1 - n % self.leases.len()])
            }
            _ => None,
        };
        let id = place.map_or(UNKNOWN_JOB, |i| self.jobs[i]).to_string();
        let tokens = place.map(|i| &self.tokens[i][..]).unwrap_or_default();
        let named = match token {
            None => {
                return Resolved {
                    id,
                    ..Resolved::default()
                }
            }
            Some(Token::Current) => tokens.last(),
            Some(Token::Previous) => tokens.len().checked_sub(2).map(|i| &tokens[i]),
            Some(Token::Unknown) => None,
        };
        let token = named.map_or(UNKNOWN_TOKEN, String::as_str).to_string();
        Resolved {
            id,
            token,
            ..Resolved::default()
        }
    }

    /// The id of the job `r` names among those made (an unknown one when none is).
    fn job_id(&self, r: Ref) -> i64 {
        match r {
            Ref::Nth(n) if !self.jobs.is_empty() => self.jobs[n % self.jobs.len()],
            _ => UNKNOWN_JOB,
        }
    }

    /// The highest job id noted (0 before any).
    pub fn last_job(&self) -> i64 {
        self.jobs.iter().copied().max().unwrap_or(0)
    }

    /// The place of job `id` (1-based, as views name jobs), or 0 for one never seen.
    pub fn job_place(&self, id: i64) -> usize {
        self.jobs.iter().position(|j| *j == id).map_or(0, |i| i + 1)
    }

    /// What `op` names on this target (empty when it names nothing).
    pub fn resolve(&self, op: &Op) -> Resolved {
        let id = |id| Resolved {
            id,
            ..Resolved::default()
        };
        match op {
            Op::Enqueue { jobs, .. } => Resolved {
                depends_on: jobs
                    .iter()
                    .map(|j| j.depends_on.iter().map(|r| self.job_id(*r)).collect())
                    .collect(),
                ..Resolved::default()
            },
            Op::OtherTenant { op } => self.resolve(op),
            Op::GetAllocation { allocation: r }
            | Op::Cancel { allocation: r, .. }
            | Op::Return { allocation: r, .. } => id(self.allocation(*r)),
            Op::GetHold { hold: r }
            | Op::Confirm { hold: r, .. }
            | Op::Release { hold: r, .. }
            | Op::Extend { hold: r, .. } => id(self.hold(*r)),
            Op::Complete { job, token, .. }
            | Op::Fail { job, token, .. }
            | Op::Heartbeat { job, token, .. }
            | Op::Snooze { job, token, .. } => self.job(*job, Some(*token)),
            Op::CancelJob { job, .. } | Op::RetryJob { job, .. } | Op::Reschedule { job, .. } => self.job(*job, None),
            Op::GetBooking { booking: r }
            | Op::CancelBooking { booking: r, .. }
            | Op::ConfirmBooking { booking: r, .. }
            | Op::ReleaseBooking { booking: r, .. }
            | Op::RescheduleBooking { booking: r, .. }
            | Op::ExtendBooking { booking: r, .. } => id(Self::pick(&self.bookings, *r).1),
            Op::Receive { incoming: Some(r), .. } => id(Self::pick(&self.incoming, *r).1),
            _ => Resolved::default(),
        }
    }

    /// Note what `op` made, given its answer's status, whether it was a replay, and what it
    /// handed out. Jobs are noted from every answer, a replayed one included (a job is new
    /// only once; a replayed claim's tokens are the ones first given).
    pub fn note(&mut self, op: &Op, (status, replayed): (u16, bool), noted: Option<Noted>) {
        if !(200..300).contains(&status) {
            return;
        }
        match noted {
            Some(Noted::Jobs(ids)) => return self.note_jobs(&ids),
            Some(Noted::Leases(leases)) => return self.note_leases(leases),
            _ => {}
        }
        if replayed {
            return;
        }
        let id = match noted {
            Some(Noted::Id(id)) => Some(id),
            Some(Noted::Hold { id, bookings }) if status == 201 && matches!(op, Op::Hold { .. }) => {
                self.bookings.extend(bookings);
                Some(id)
            }
            Some(Noted::Hold { id, .. }) => Some(id),
            _ => None,
        };
        if let Op::OtherTenant { op } = op {
            return self.note(op, (status, replayed), id.map(Noted::Id));
        }
        match (op, id) {
            (Op::Allocate { .. }, Some(id)) if status == 201 => self.allocations.push(id),
            (Op::Hold { .. }, Some(id)) if status == 201 => self.holds.push(id),
            (Op::ClaimUnits { hold_ttl_ms, .. }, Some(id)) if status == 201 => match hold_ttl_ms {
                Some(_) => self.holds.push(id),
                None => self.allocations.push(id),
            },
            (Op::Book { .. }, Some(id)) if status == 201 => self.bookings.push(id),
            (Op::AddIncoming { .. }, Some(id)) if status == 201 => self.incoming.push(id),
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

    fn note_jobs(&mut self, ids: &[i64]) {
        for id in ids {
            if !self.jobs.contains(id) {
                self.jobs.push(*id);
                self.tokens.push(Vec::new());
            }
        }
    }

    fn note_leases(&mut self, leases: Vec<(i64, String)>) {
        for (id, token) in leases {
            if let Some(i) = self.jobs.iter().position(|j| *j == id) {
                if !self.tokens[i].contains(&token) {
                    self.tokens[i].push(token);
                    self.leases.push(i);
                }
            }
        }
    }
}
