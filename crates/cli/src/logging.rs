//! The process's logs (tracing-subscriber): what is logged (`ALLOT_LOG`, an `EnvFilter`
//! directive such as `info` or `warn,allot::request=info`), in which form (`--log-format
//! text|json`), colours only on a terminal (and never with `NO_COLOR` set), and written by
//! a background thread through a bounded buffer (tracing-appender's non-blocking writer) so
//! a slow terminal or pipe never holds a request.

use std::io::IsTerminal;

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

/// Install the subscriber. Keep the guard until the process ends: dropping it flushes the
/// lines still buffered. Lines past the buffer (128 000) are dropped, never waited for.
pub fn init(format: LogFormat, quiet: bool) -> tracing_appender::non_blocking::WorkerGuard {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ALLOT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter(quiet)));
    let (writer, guard) = tracing_appender::non_blocking(std::io::stderr());
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(ansi);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).init(),
    }
    guard
}
