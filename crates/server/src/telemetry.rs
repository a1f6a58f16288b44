//! Traces over OTLP/HTTP with OpenTelemetry, off unless the standard variable
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set
//! (OpenTelemetry spec, "OTLP Exporter Configuration"; `OTEL_SERVICE_NAME` defaults to
//! `allot`). Context crosses process boundaries as W3C Trace Context (`traceparent`): read
//! from each request, stored with each enqueued job, sent with each webhook delivery.
//!
//! allot's spans are `tracing` spans at `debug` on its own targets; the OpenTelemetry layer
//! (tracing-opentelemetry) has its own filter that takes exactly those, so traces cost
//! nothing when off and never depend on `ALLOT_LOG`.

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::filter::{LevelFilter, Targets};

/// The crates whose spans are exported.
const TRACED_TARGETS: [&str; 7] = [
    "allot",
    "allot_server",
    "allot_core",
    "allot_postgres",
    "allot_sqlite",
    "allot_redis",
    "allot_worker",
];

/// The exporter's provider; [`Traces::shutdown`] flushes what is still buffered.
pub struct Traces {
    provider: SdkTracerProvider,
}

/// How long the exit waits for the last spans to reach the collector.
pub const SHUTDOWN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

impl Traces {
    /// Export what is buffered and stop (call once, at exit), waiting at most
    /// [`SHUTDOWN_TIMEOUT`]: an unreachable collector never holds the exit.
    pub fn shutdown(self) {
        let _ = self.provider.shutdown_with_timeout(SHUTDOWN_TIMEOUT);
    }
}

/// Whether the environment asks for traces.
pub fn traces_configured() -> bool {
    ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// The layer that exports allot's spans over OTLP/HTTP (protobuf), batched by the SDK's
/// batch processor (bounded queue; `OTEL_BSP_*` tune it), and the provider to flush at
/// exit; `None` when [`traces_configured`] is false.
///
/// Errors: the exporter cannot be built (a bad endpoint), in words.
pub fn otlp_layer<S>() -> Result<Option<(impl tracing_subscriber::Layer<S>, Traces)>, String>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::Layer as _;
    if !traces_configured() {
        return Ok(None);
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|e| format!("OTLP exporter: {e}"))?;
    let mut resource = opentelemetry_sdk::Resource::builder();
    if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
        resource = resource.with_service_name("allot");
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let tracer = provider.tracer("allot");
    let targets = TRACED_TARGETS
        .iter()
        .fold(Targets::new(), |t, name| t.with_target(*name, LevelFilter::DEBUG));
    let layer = tracing_opentelemetry::layer().with_tracer(tracer).with_filter(targets);
    Ok(Some((layer, Traces { provider })))
}

/// Name `span`'s exported span `name` (`POST /v1/allocations`) once the route is known: a
/// span already started takes a new name only this way (a later `otel.name` record is
/// ignored by tracing-opentelemetry once the span has begun).
pub(crate) fn name_span(span: &tracing::Span, name: String) {
    use opentelemetry::trace::TraceContextExt;
    span.context().span().update_name(name);
}

/// Make `span` a child of the `traceparent` in `headers`, if it has a valid one.
pub(crate) fn continue_trace(span: &tracing::Span, headers: &axum::http::HeaderMap) {
    let cx = TraceContextPropagator::new().extract(&opentelemetry_http::HeaderExtractor(headers));
    let _ = span.set_parent(cx);
}

/// The W3C `traceparent` of `span` (`00-<trace id>-<span id>-<flags>`); `None` when the span
/// is not exported.
pub fn traceparent_of(span: &tracing::Span) -> Option<String> {
    if span.is_disabled() {
        return None;
    }
    let mut carrier = std::collections::HashMap::new();
    TraceContextPropagator::new().inject_context(&span.context(), &mut carrier);
    carrier.remove("traceparent")
}
