//! Why a benchmark could not run.

/// Why a benchmark could not run (not an invariant failure: those are in the report).
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The server could not be reached or answered something unexpected.
    #[error("http: {0}")]
    Http(#[from] reqwest::Error),
    /// The server answered a setup request with an error.
    #[error("setup failed: {0}")]
    Setup(String),
}
