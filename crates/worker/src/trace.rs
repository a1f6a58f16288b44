//! A job's run as a span of the trace that enqueued it (OpenTelemetry messaging
//! conventions): the first attempt is a child of the enqueuing span, whose W3C
//! `traceparent` the job carries; a retry is a new span linked to it, so one trace does not
//! grow with every retry. Completions are flushed in batches: each batch is a span of its
//! own, and each job's span links to the batch that completed it. All at `debug`: exported
//! only when the process exports traces.

use allot_core::job::LeasedJob;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The span of one attempt of `job` from `queue`.
pub(crate) fn job_span(job: &LeasedJob, queue: &str) -> tracing::Span {
    let span = tracing::debug_span!(
        "job",
        otel.name = "job.run",
        otel.kind = "consumer",
        job.id = job.id,
        job.attempt = job.attempt,
        job.queue = queue,
    );
    let Some(traceparent) = job.traceparent.as_deref().filter(|_| !span.is_disabled()) else {
        return span;
    };
    let carrier = std::collections::HashMap::from([("traceparent".to_string(), traceparent.to_string())]);
    let cx = opentelemetry_sdk::propagation::TraceContextPropagator::new().extract(&carrier);
    let enqueued = cx.span().span_context().clone();
    if !enqueued.is_valid() {
        return span;
    }
    if job.attempt <= 1 {
        let _ = span.set_parent(cx);
    } else {
        span.add_link(enqueued);
    }
    span
}

/// The span of one completion flush, every job span of it linked to it.
pub(crate) fn completion_span<'a>(jobs: impl ExactSizeIterator<Item = &'a tracing::Span>) -> tracing::Span {
    let span = tracing::debug_span!("completions", otel.name = "job.complete_batch", jobs = jobs.len());
    if !span.is_disabled() {
        for job in jobs {
            job.follows_from(&span);
        }
    }
    span
}
