//! allot's differential simulation: a reference model of its semantics ([`model`]), a seeded
//! generator of operation sequences ([`ops`]), and a runner ([`run`]) that applies one sequence
//! to the model and to real servers on every backend and strategy, compares every answer and
//! the stock after every step (and the audit after the last), and shrinks a sequence that diverges to a few steps.
//!
//! The approach is TigerBeetle's VOPR and FoundationDB's simulation testing, with the model as
//! the oracle as Turso tests itself against SQLite: one seed gives one sequence, one trace and
//! one digest, so any run can be replayed (`allot sim --seed S`).

pub mod faults;
pub mod in_tx;
pub mod made;
pub mod model;
pub mod ops;
pub mod request;
pub mod run;
pub mod target;
pub mod view;

pub use run::{run, shrink_divergence, Config, Divergence, Report};

/// An answer as the simulation compares it: the HTTP status, whether the server said it was a
/// replay (`Idempotent-Replayed: true`), and the view of its body ([`view`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// A stored answer replayed for its idempotency key.
    pub replayed: bool,
    /// What is compared of the body.
    pub view: serde_json::Value,
}

impl Answer {
    /// No answer at all (status 0, no body): what a step that sent no request shows.
    pub fn none() -> Self {
        Answer {
            status: 0,
            replayed: false,
            view: serde_json::Value::Null,
        }
    }

    /// The answer as one operation's result in a batch's answer: status, replay, view.
    pub fn as_result(&self) -> serde_json::Value {
        serde_json::json!({"status": self.status, "replayed": self.replayed, "view": self.view})
    }
}

/// Why a simulation could not run (a divergence is not an error: it is the run's finding).
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// A target could not be started or reached.
    #[error("{0}")]
    Setup(String),
}
