//! The process's logs (tracing-subscriber): what is logged (`ALLOT_LOG`, an `EnvFilter`
//! directive such as `info` or `warn,allot::request=info`), in which form (`--log-format
//! text|json`), colours only on a terminal (and never with `NO_COLOR` set), and written by
//! a background thread through a bounded buffer (tracing-appender's non-blocking writer) so
//! a slow terminal or pipe never holds a request; and traces over OTLP when the standard
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set ([`allot_server::telemetry`]).

use std::io::IsTerminal;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::Layer as _;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// `2026-11-25T03:58:21Z INFO allot::request: request method="POST" route="/v1/skus" …`.
    Text,
    /// One JSON object per line: `timestamp`, `level`, `target`, `message` and the event's
    /// fields at the top level (`method`, `route`, `status`, `latency_us`, …).
    Json,
}

/// The filter when `ALLOT_LOG` is unset: `info` for the service and the commands, without
/// refinery's line per migration; the load generators and fault suites log warnings only,
/// since the servers they run in-process would write a line per request.
pub fn default_filter(quiet: bool) -> &'static str {
    if quiet {
        "warn"
    } else {
        "info,refinery_core=warn"
    }
}

/// What must outlive the process's work: dropping it flushes the buffered log lines and
/// exports the spans still queued.
pub struct Logging {
    _lines: tracing_appender::non_blocking::WorkerGuard,
    traces: Option<allot_server::telemetry::Traces>,
}

impl Drop for Logging {
    fn drop(&mut self) {
        if let Some(traces) = self.traces.take() {
            traces.shutdown();
        }
    }
}

/// Install the subscriber: the log lines (filtered by `ALLOT_LOG`), and the OTLP exporter
/// when configured (its own filter: allot's spans). Call before any async runtime starts
/// (the exporter's HTTP client is a blocking one). Lines past the buffer (128 000) are
/// dropped, never waited for.
pub fn init(format: LogFormat, quiet: bool) -> Logging {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ALLOT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter(quiet)));
    let (writer, guard) = tracing_appender::non_blocking(std::io::stderr());
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let lines = tracing_subscriber::fmt::layer().with_writer(writer).with_ansi(ansi);
    let lines = match format {
        LogFormat::Text => lines.boxed(),
        LogFormat::Json => lines.json().flatten_event(true).with_current_span(false).boxed(),
    };
    let (otlp, traces) = match allot_server::telemetry::otlp_layer() {
        Ok(Some((layer, traces))) => (Some(layer), Some(traces)),
        Ok(None) => (None, None),
        Err(e) => {
            eprintln!("traces are off: {e}");
            (None, None)
        }
    };
    tracing_subscriber::registry()
        .with(lines.with_filter(filter))
        .with(otlp)
        .init();
    Logging { _lines: guard, traces }
}
