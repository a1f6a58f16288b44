//! The span of a batch: one transaction decides many requests, so it belongs to none of
//! their traces. It is a span of its own, and each request's span gets a link to it
//! (tracing's `follows_from`, an OpenTelemetry span link; spec, "Links between spans": the
//! pattern for batch processing).

/// A span for a batch of `kind` deciding `members` (each the span current when its request
/// joined), every member linked to it. At `debug`: exported only when traces are on.
pub(crate) fn batch_span<'a>(
    kind: &'static str,
    members: impl ExactSizeIterator<Item = &'a tracing::Span>,
) -> tracing::Span {
    let span = tracing::debug_span!(
        "batch",
        otel.name = "allot.batch",
        batch.kind = kind,
        batch.requests = members.len()
    );
    if !span.is_disabled() {
        for member in members {
            member.follows_from(&span);
        }
    }
    span
}
