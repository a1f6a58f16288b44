//! The idempotency decision table, one pure function for every envelope: PostgreSQL's write
//! envelope, its `batched` transaction and SQLite's transaction all read the key's lock and
//! its stored record, then ask [`decide`] what the request does. The protocol is Stripe's
//! idempotent requests (IETF draft "The Idempotency-Key HTTP Header Field"): the first
//! request with a key runs and its answer is stored with the effect in one transaction; a
//! retry with the same request gets that answer back; the key used for another request is
//! refused; a retry while the first is still running is refused until it has finished.

use crate::store::StoredResponse;
use crate::support::error::AllotError;

/// What a request carrying an idempotency key does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyDecision {
    /// No record: run the request, and store its answer with its effect.
    Run,
    /// The same request ran before: answer with its stored response, change nothing.
    Replay(StoredResponse),
    /// Refuse: `idempotency_key_in_use` (the first request still runs) or
    /// `idempotency_key_reused` (the key belongs to another request).
    Refuse(AllotError),
}

/// The record stored under a key: the request's fingerprint and the response it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredKey {
    /// SHA-256 of the first request's method, path and canonical body.
    pub fingerprint: String,
    /// Its response.
    pub response: StoredResponse,
}

/// Decide for a request with `fingerprint` whose key's lock was taken (`locked`; false: another
/// transaction holds it) and whose stored record is `stored`.
pub fn decide(locked: bool, stored: Option<StoredKey>, fingerprint: &str) -> KeyDecision {
    match (locked, stored) {
        (false, _) => KeyDecision::Refuse(AllotError::IdempotencyKeyInUse),
        (true, None) => KeyDecision::Run,
        (true, Some(s)) if s.fingerprint != fingerprint => KeyDecision::Refuse(AllotError::IdempotencyKeyReused),
        (true, Some(s)) => KeyDecision::Replay(s.response),
    }
}

#[cfg(test)]
mod tests {
    use super::{decide, KeyDecision, StoredKey};
    use crate::store::StoredResponse;
    use crate::support::error::AllotError;

    #[test]
    fn the_table() {
        let response = StoredResponse {
            code: 201,
            body: b"{}".to_vec(),
        };
        let stored = |fp: &str| {
            Some(StoredKey {
                fingerprint: fp.into(),
                response: response.clone(),
            })
        };
        assert_eq!(decide(true, None, "a"), KeyDecision::Run);
        assert_eq!(decide(true, stored("a"), "a"), KeyDecision::Replay(response.clone()));
        assert_eq!(
            decide(true, stored("b"), "a"),
            KeyDecision::Refuse(AllotError::IdempotencyKeyReused)
        );
        for s in [None, stored("a"), stored("b")] {
            assert_eq!(
                decide(false, s, "a"),
                KeyDecision::Refuse(AllotError::IdempotencyKeyInUse)
            );
        }
    }
}
