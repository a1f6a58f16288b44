//! Validation of enqueues, claims and lease transitions.

use crate::booking::parse_instant;
use crate::job::{
    Claim, ClaimBody, ClaimStrategy, Completion, CompletionsBody, Enqueue, EnqueueBody, Fail, JobSpec, LeaseBody,
};
use crate::support::checks::{batch, bounded, name, unit_field};
use crate::support::error::{AllotError, Result};
use crate::support::input::{free_text, json_document, token};
use crate::support::limits::Limits;
use crate::unit::validate::unit_identifier;

/// Validate an enqueue: 1..=`max_batch_insert` jobs; payload within `max_payload_bytes`,
/// priority 1..=4, `max_attempts` 1..=`max_job_attempts`, `run_at` RFC 3339 with offset,
/// `unique_key` 1..=`max_unit_field_len` chars.
pub fn enqueue(queue: &str, body: EnqueueBody, now: chrono::DateTime<chrono::Utc>, limits: &Limits) -> Result<Enqueue> {
    name("queue", queue, limits)?;
    batch("jobs", "jobs", body.jobs.len(), limits)?;
    let mut jobs = Vec::with_capacity(body.jobs.len());
    for j in body.jobs {
        json_document("payload", &j.payload, "max_payload_bytes", limits.max_payload_bytes)?;
        let priority = j.priority.unwrap_or(1);
        if !(1..=4).contains(&priority) {
            return Err(AllotError::invalid(format!("priority must be 1..=4, got {priority}")));
        }
        let max_attempts = j.max_attempts.unwrap_or(25);
        bounded(
            "max_attempts",
            max_attempts,
            1,
            "max_job_attempts",
            limits.max_job_attempts,
        )?;
        let run_at = match &j.run_at {
            Some(t) => parse_instant("run_at", t)?,
            None => now,
        };
        let unique_key = match &j.unique_key {
            Some(k) if k.is_empty() => return Err(AllotError::invalid("unique_key must not be empty")),
            Some(k) => Some(unit_identifier("unique_key", k, limits)?),
            None => None,
        };
        jobs.push(JobSpec {
            payload: j.payload,
            priority: priority as i16,
            run_at,
            max_attempts: max_attempts as i32,
            unique_key,
        });
    }
    Ok(Enqueue {
        queue: queue.to_string(),
        jobs,
        now,
    })
}

/// Validate a lease length: `min_lease_ms..=max_lease_ms`.
pub fn lease_ms(value: i64, limits: &Limits) -> Result<i64> {
    bounded(
        "lease_ms",
        value,
        limits.min_lease_ms,
        "max_lease_ms",
        limits.max_lease_ms,
    )?;
    Ok(value)
}

/// Validate a claim: `max` 1..=`max_claim` (default 1), `lease_ms` (default 30 000),
/// `wait_ms` 0..=`max_wait_ms` (default 0). The strategy is resolved by the caller.
pub fn claim(queue: &str, body: ClaimBody, strategy: ClaimStrategy, limits: &Limits) -> Result<Claim> {
    name("queue", queue, limits)?;
    let max = body.max.unwrap_or(1);
    bounded("max", max, 1, "max_claim", limits.max_claim)?;
    let lease = lease_ms(body.lease_ms.unwrap_or(super::DEFAULT_LEASE_MS), limits)?;
    if let Some(w) = &body.worker {
        unit_field("worker", w, limits)?;
    }
    let wait_ms = body.wait_ms.unwrap_or(0);
    bounded("wait_ms", wait_ms, 0, "max_wait_ms", limits.max_wait_ms)?;
    Ok(Claim {
        queue: queue.to_string(),
        max,
        lease_ms: lease,
        worker: body.worker,
        strategy,
        wait_ms,
        final_try: true,
    })
}

/// Validate a lease token: 1..=`max_token_len` bytes without control characters (a token
/// that passes but matches no lease is `lease_lost`, from the store).
pub fn lease_token(value: &str, limits: &Limits) -> Result<()> {
    token("lease_token", value, "max_token_len", limits.max_token_len)?;
    // A claim hands out a UUID in its hyphenated lower-case form; anything else cannot be a
    // lease of any job (a well-formed token that is not the job's is `409 lease_lost`).
    match uuid::Uuid::try_parse(value) {
        Ok(u) if u.hyphenated().to_string() == value => Ok(()),
        _ => Err(AllotError::invalid(
            "lease_token: not a lease token (the lower-case UUID a claim gave)",
        )),
    }
}

/// Validate `POST /v1/jobs/{id}/fail`: the token, an `error` text within `max_reason_len`
/// chars, `retry_in_ms` within 0..=`max_retry_in_ms`.
pub fn fail(body: LeaseBody, limits: &Limits) -> Result<Fail> {
    lease_token(&body.lease_token, limits)?;
    let error = body.error.unwrap_or_default();
    free_text("error", &error, "max_reason_len", limits.max_reason_len)?;
    if let Some(ms) = body.retry_in_ms {
        bounded("retry_in_ms", ms, 0, "max_retry_in_ms", limits.max_retry_in_ms)?;
    }
    Ok(Fail {
        lease_token: body.lease_token,
        error,
        retry_in_ms: body.retry_in_ms,
    })
}

/// Validate `POST /v1/queues/{queue}/completions`: 1..=`max_batch_insert` entries, each
/// token valid.
pub fn completions(queue: &str, body: CompletionsBody, limits: &Limits) -> Result<Vec<Completion>> {
    name("queue", queue, limits)?;
    batch("jobs", "completions", body.jobs.len(), limits)?;
    for c in &body.jobs {
        lease_token(&c.lease_token, limits)?;
    }
    Ok(body.jobs)
}
