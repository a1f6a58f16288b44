//! Validation of enqueues, claims and lease transitions.

use crate::booking::parse_instant;
use crate::job::queue::{QueueSettings, QueueSettingsBody, Rate};
use crate::job::{
    Claim, ClaimBody, ClaimStrategy, Complete, CompleteBody, Completion, CompletionsBody, Enqueue, EnqueueBody, Fail,
    JobSpec, LeaseBody, NewJob, Snooze, SnoozeBody,
};
use crate::support::checks::{batch, bounded, name, unit_field};
use crate::support::error::{AllotError, Result, Rule};
use crate::support::input::{free_text, json_document, token};
use crate::support::limits::Limits;
use crate::unit::validate::unit_identifier;

/// Validate an enqueue: 1..=`max_batch_insert` jobs; payload within `max_payload_bytes`,
/// priority 1..=4, `max_attempts` 1..=`max_job_attempts`, `run_at` RFC 3339 with offset,
/// `unique_key` 1..=`max_unit_field_len` chars.
pub fn enqueue(queue: &str, body: EnqueueBody, now: chrono::DateTime<chrono::Utc>, limits: &Limits) -> Result<Enqueue> {
    name("queue", queue, limits)?;
    batch("jobs", "jobs", body.jobs.len(), limits)?;
    let jobs = body
        .jobs
        .into_iter()
        .map(|j| job(j, now, limits))
        .collect::<Result<Vec<_>>>()?;
    let batch = body.batch.map(|b| job_batch(queue, b, now, limits)).transpose()?;
    Ok(Enqueue {
        queue: queue.to_string(),
        jobs,
        now,
        traceparent: None,
        batch,
    })
}

/// A batch's id (an identifier, 1..=`max_unit_field_len` chars), its queue, and its callback
/// as a job without `unique_key`, `depends_on` or `on_failed_dependency`, whose payload is an
/// object (`{}` when not given); errors name `batch.…`.
fn job_batch(
    queue: &str,
    b: crate::job::batch::JobBatchBody,
    now: chrono::DateTime<chrono::Utc>,
    limits: &Limits,
) -> Result<crate::job::batch::JobBatch> {
    if b.id.is_empty() {
        return Err(AllotError::invalid("batch.id must not be empty"));
    }
    let id = unit_identifier("batch.id", &b.id, limits)?;
    let queue = match b.queue {
        Some(q) => {
            name("batch.queue", &q, limits)?;
            q
        }
        None => queue.to_string(),
    };
    let c = &b.callback;
    if c.unique_key.is_some() || c.depends_on.is_some() || c.on_failed_dependency.is_some() {
        return Err(AllotError::breaks(
            Rule::TemplateField,
            "batch.callback: unique_key, depends_on and on_failed_dependency are the batch's to give",
        ));
    }
    let mut callback = b.callback;
    if callback.payload.is_null() {
        callback.payload = serde_json::json!({});
    }
    if !callback.payload.is_object() {
        return Err(AllotError::breaks(
            Rule::TemplateField,
            "batch.callback.payload must be a JSON object (the counts are merged into it)",
        ));
    }
    let callback = job(callback, now, limits).map_err(|e| e.within("batch.callback"))?;
    Ok(crate::job::batch::JobBatch { id, queue, callback })
}

/// One job of an enqueue (see [`enqueue`]); also `partition_key` 1..=`max_unit_field_len`
/// chars, at most `max_job_tags` tags of 1..=`max_unit_field_len` chars (duplicates dropped),
/// `metadata` a JSON object within `max_metadata_bytes`.
pub fn job(j: NewJob, now: chrono::DateTime<chrono::Utc>, limits: &Limits) -> Result<JobSpec> {
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
    let unique_key = optional_key("unique_key", j.unique_key, limits)?;
    let partition_key = optional_key("partition_key", j.partition_key, limits)?;
    let tags = tags("tags", j.tags.unwrap_or_default(), limits)?;
    let metadata = j.metadata.unwrap_or_else(|| serde_json::json!({}));
    if !metadata.is_object() {
        return Err(AllotError::invalid("metadata must be a JSON object"));
    }
    json_document("metadata", &metadata, "max_metadata_bytes", limits.max_metadata_bytes)?;
    let depends_on = crate::job::depend::depends_on(j.depends_on.unwrap_or_default(), limits)?;
    Ok(JobSpec {
        payload: j.payload,
        priority: priority as i16,
        run_at,
        max_attempts: max_attempts as i32,
        unique_key,
        partition_key,
        tags,
        metadata,
        depends_on,
        on_failed_dependency: j.on_failed_dependency.unwrap_or_default(),
    })
}

/// A key field (`unique_key`, `partition_key`): absent, or 1..=`max_unit_field_len` chars.
fn optional_key(field: &str, value: Option<String>, limits: &Limits) -> Result<Option<String>> {
    match value {
        Some(k) if k.is_empty() => Err(AllotError::invalid(format!("{field} must not be empty"))),
        Some(k) => Ok(Some(unit_identifier(field, &k, limits)?)),
        None => Ok(None),
    }
}

/// Tags (`field` names them in errors): at most `max_job_tags`, each a non-empty identifier;
/// duplicates dropped.
pub fn tags(field: &str, values: Vec<String>, limits: &Limits) -> Result<Vec<String>> {
    if values.len() > limits.max_job_tags {
        return Err(AllotError::LimitExceeded {
            limit: "max_job_tags",
            max: limits.max_job_tags as u64,
            message: format!("{field} has {} entries", values.len()),
        });
    }
    let mut out: Vec<String> = Vec::with_capacity(values.len());
    for t in values {
        if t.is_empty() {
            return Err(AllotError::invalid(format!("{field}: a tag must not be empty")));
        }
        let t = unit_identifier(field, &t, limits)?;
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(out)
}

/// Validate a metadata filter (`?metadata={"order":42}`): a JSON object of exactly one key (an
/// identifier without `"`, 1..=`max_unit_field_len` chars) whose value is a string, a number
/// or a boolean.
pub fn metadata_filter(text: &str, limits: &Limits) -> Result<(String, serde_json::Value)> {
    field_filter("metadata", text, limits)
}

/// Validate a listing's `payload` filter the same way as [`metadata_filter`]: one top-level
/// key of the payload (an object) and its scalar value.
pub fn payload_filter(text: &str, limits: &Limits) -> Result<(String, serde_json::Value)> {
    field_filter("payload", text, limits)
}

/// `{"key": scalar}` for the document `param` names, errors naming `param`.
fn field_filter(param: &'static str, text: &str, limits: &Limits) -> Result<(String, serde_json::Value)> {
    let rule = || {
        AllotError::breaks(
            Rule::InvalidFilter,
            format!("{param}: a JSON object of one key with a string, number or boolean value"),
        )
    };
    free_text(param, text, "max_metadata_bytes", limits.max_metadata_bytes)?;
    let v: serde_json::Value = serde_json::from_str(text).map_err(|_| rule())?;
    let Some((key, value)) = v.as_object().filter(|o| o.len() == 1).and_then(|o| o.iter().next()) else {
        return Err(rule());
    };
    if key.is_empty() || key.contains('"') || !(value.is_string() || value.is_number() || value.is_boolean()) {
        return Err(rule());
    }
    let key = unit_identifier(param, key, limits).map_err(|_| rule())?;
    Ok((key, value.clone()))
}

/// Validate `POST /v1/jobs/{id}/complete`: the token, and `output` within `max_payload_bytes`.
pub fn complete(body: CompleteBody, limits: &Limits) -> Result<Complete> {
    lease_token(&body.lease_token, limits)?;
    if let Some(o) = &body.output {
        json_document("output", o, "max_payload_bytes", limits.max_payload_bytes)?;
    }
    Ok(Complete {
        lease_token: body.lease_token,
        output: body.output,
    })
}

/// Validate `POST /v1/jobs/{id}/snooze`: the token, `delay_ms` 0..=`max_snooze_ms`.
pub fn snooze(body: SnoozeBody, limits: &Limits) -> Result<Snooze> {
    lease_token(&body.lease_token, limits)?;
    bounded("delay_ms", body.delay_ms, 0, "max_snooze_ms", limits.max_snooze_ms)?;
    Ok(Snooze {
        lease_token: body.lease_token,
        delay_ms: body.delay_ms,
    })
}

/// Validate `POST /v1/jobs/{id}/reschedule`: `delay_ms` 0..=`max_snooze_ms`.
pub fn reschedule(body: crate::job::RescheduleBody, limits: &Limits) -> Result<i64> {
    bounded("delay_ms", body.delay_ms, 0, "max_snooze_ms", limits.max_snooze_ms)?;
    Ok(body.delay_ms)
}

/// Validate `PUT /v1/queues/{queue}`: each limit 1..=`max_queue_limit`, `rate.window_ms`
/// 1..=`max_rate_window_ms`.
pub fn queue_settings(queue: &str, body: QueueSettingsBody, limits: &Limits) -> Result<QueueSettings> {
    name("queue", queue, limits)?;
    let max = limits.max_queue_limit;
    for (field, v) in [
        ("max_running", body.max_running),
        ("max_running_per_key", body.max_running_per_key),
    ] {
        if let Some(v) = v {
            bounded(field, v, 1, "max_queue_limit", max)?;
        }
    }
    if let Some(Rate {
        per_window, window_ms, ..
    }) = body.rate
    {
        bounded("rate.per_window", per_window, 1, "max_queue_limit", max)?;
        bounded(
            "rate.window_ms",
            window_ms,
            1,
            "max_rate_window_ms",
            limits.max_rate_window_ms,
        )?;
    }
    let weights = fair_weights(body.weights, limits)?;
    Ok(QueueSettings {
        queue: queue.to_string(),
        paused: body.paused.unwrap_or(false),
        max_running: body.max_running,
        max_running_per_key: body.max_running_per_key,
        rate: body.rate,
        fifo_per_key: body.fifo_per_key.unwrap_or(false),
        keep_completed: body.keep_completed.unwrap_or(true),
        fair_by: body.fair_by,
        weights,
        events: body.events.unwrap_or(false),
    })
}

/// A queue's `weights` (they apply while it has `fair_by`; kept either way, as the settings
/// were put): at most [`crate::job::fair::MAX_FAIR_WEIGHTS`] keys, each a valid
/// `partition_key`, each weight 1..=[`crate::job::fair::MAX_FAIR_WEIGHT`]. Errors name
/// `weights` or `weights.<key>`.
fn fair_weights(
    weights: Option<std::collections::BTreeMap<String, i64>>,
    limits: &Limits,
) -> Result<std::collections::BTreeMap<String, i64>> {
    use crate::job::fair::{MAX_FAIR_WEIGHT, MAX_FAIR_WEIGHTS};
    let Some(weights) = weights else {
        return Ok(Default::default());
    };
    if weights.len() > MAX_FAIR_WEIGHTS {
        return Err(AllotError::LimitExceeded {
            limit: "max_fair_weights",
            max: MAX_FAIR_WEIGHTS as u64,
            message: format!("weights names {} keys", weights.len()),
        });
    }
    let mut out = std::collections::BTreeMap::new();
    for (key, w) in weights {
        let key = optional_key("weights", Some(key), limits)?.unwrap_or_default();
        bounded(&format!("weights.{key}"), w, 1, "max_fair_weight", MAX_FAIR_WEIGHT)?;
        out.insert(key, w);
    }
    Ok(out)
}

/// Validate `POST /v1/schedules` at `now`: names, the expression and zone (see
/// [`crate::job::schedule::Timetable::parse`]), an expression that matches some time, and the
/// job template as an enqueue would take it, without `run_at` or `unique_key` (each tick
/// gives both) and without dependencies.
pub fn schedule(
    body: crate::job::schedule::ScheduleBody,
    now: chrono::DateTime<chrono::Utc>,
    limits: &Limits,
) -> Result<crate::job::schedule::NewSchedule> {
    name("name", &body.name, limits)?;
    name("queue", &body.queue, limits)?;
    let timezone = body.timezone.unwrap_or_else(|| "UTC".to_string());
    free_text("timezone", &timezone, "max_name_len", limits.max_name_len)?;
    let table = crate::job::schedule::Timetable::parse(&body.cron, &timezone)?;
    if body.job.run_at.is_some() || body.job.unique_key.is_some() {
        return Err(AllotError::breaks(
            Rule::TemplateField,
            "job: run_at and unique_key are given by each tick, not by the template",
        ));
    }
    if body.job.depends_on.is_some() || body.job.on_failed_dependency.is_some() {
        return Err(AllotError::breaks(
            Rule::TemplateField,
            "job: depends_on and on_failed_dependency name jobs of one enqueue, not of every tick",
        ));
    }
    let template = serde_json::to_value(&body.job).map_err(|e| AllotError::Internal(e.to_string()))?;
    job(body.job, now, limits).map_err(|e| e.within("job"))?;
    let next_run_at = table
        .next_after(now)
        .ok_or_else(|| AllotError::breaks(Rule::InvalidCron, "cron: the expression never matches"))?;
    Ok(crate::job::schedule::NewSchedule {
        name: body.name,
        cron: body.cron,
        timezone,
        queue: body.queue,
        job: template,
        missed: body.missed.unwrap_or_default(),
        next_run_at,
    })
}

/// Validate `POST /v1/queues/{queue}/jobs/bulk`: a filter state the action applies to, a tag
/// and a partition key as an enqueue takes them, `max` 1..=`max_bulk_jobs` (default that).
pub fn bulk(queue: &str, body: crate::job::bulk::BulkBody, limits: &Limits) -> Result<crate::job::bulk::Bulk> {
    name("queue", queue, limits)?;
    let filter = body.filter.unwrap_or_default();
    let applies = body.action.states();
    let states = match filter.state {
        Some(s) if applies.contains(&s) => vec![s],
        Some(s) => {
            return Err(AllotError::breaks(
                Rule::StateNotApplicable,
                format!("filter.state: the action does not apply to `{}` jobs", s.as_str()),
            ))
        }
        None => applies.to_vec(),
    };
    let tag = match filter.tag {
        Some(t) => tags("filter.tag", vec![t], limits)?.pop(),
        None => None,
    };
    let max = body.max.unwrap_or(limits.max_bulk_jobs);
    bounded("max", max, 1, "max_bulk_jobs", limits.max_bulk_jobs)?;
    Ok(crate::job::bulk::Bulk {
        queue: queue.to_string(),
        action: body.action,
        states,
        tag,
        partition_key: optional_key("filter.partition_key", filter.partition_key, limits)?,
        dry_run: body.dry_run.unwrap_or(false),
        max,
        actor: None,
    })
}

/// The job a schedule's stored `template` (a [`NewJob`] document that [`schedule`] took)
/// enqueues for `tick` of schedule `name`: validated as an enqueue at the tick, with the tick's
/// unique key (`crate::job::schedule::tick_key`).
pub fn tick_job(
    name: &str,
    template: &serde_json::Value,
    tick: chrono::DateTime<chrono::Utc>,
    limits: &Limits,
) -> Result<JobSpec> {
    let j: NewJob = serde_json::from_value(template.clone())
        .map_err(|_| AllotError::Internal(format!("schedule {name}: its stored job template does not parse")))?;
    let mut spec = job(j, tick, limits)?;
    spec.unique_key = Some(crate::job::schedule::tick_key(name, tick));
    Ok(spec)
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

/// Validate a long poll's `wait_ms` (a claim's, or `GET /v1/jobs/{id}`'s): 0..=`max_wait_ms`.
/// The wait as a duration.
pub fn wait(wait_ms: i64, limits: &Limits) -> Result<std::time::Duration> {
    bounded("wait_ms", wait_ms, 0, "max_wait_ms", limits.max_wait_ms)?;
    Ok(std::time::Duration::from_millis(wait_ms.unsigned_abs()))
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
    wait(wait_ms, limits)?;
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
