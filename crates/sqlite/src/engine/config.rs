//! The settings of a [`SqliteStore`](super::store::SqliteStore) and the URLs it opens.

/// Settings of a [`SqliteStore`].
#[derive(Debug, Clone)]
pub struct SqliteConfig {
    /// Path of the database file (created when missing, if `migrate`).
    pub path: std::path::PathBuf,
    /// Limits.
    pub limits: allot_core::Limits,
    /// How long a write waits for another process's lock before `contention`, ms. Default 5000.
    pub busy_timeout_ms: u64,
    /// Where "now" comes from. Default [`allot_core::SystemClock`].
    pub clock: std::sync::Arc<dyn allot_core::Clock>,
    /// Whether opening runs the migrations (and so creates a missing file). Default true;
    /// commands that only read open with `false`: a missing file is an error, not a new
    /// empty database.
    pub migrate: bool,
}

impl SqliteConfig {
    /// Defaults for `path`.
    pub fn new(path: impl Into<std::path::PathBuf>) -> Self {
        SqliteConfig {
            path: path.into(),
            limits: allot_core::Limits::default(),
            busy_timeout_ms: 5000,
            clock: std::sync::Arc::new(allot_core::SystemClock),
            migrate: true,
        }
    }
}

/// Parse `sqlite://relative.db`, `sqlite:///absolute/path.db` or `sqlite::memory:`-free
/// plain forms into a file path. `None` when the URL is not a SQLite URL.
pub fn path_from_url(url: &str) -> Option<std::path::PathBuf> {
    let rest = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))?;
    if rest.is_empty() {
        return None;
    }
    Some(std::path::PathBuf::from(rest))
}
