//! The flags of the commands that open a store: the database, and a tenant.

use clap::Args;

/// Where the store is: `--database-url`, and PostgreSQL's own address behind a transaction
/// pooler.
#[derive(Args, Clone)]
pub(crate) struct DbArgs {
    /// `sqlite://relative.db`, `sqlite:///absolute/path.db` or `postgres://user@host:port/db`.
    #[arg(long, env = "ALLOT_DATABASE_URL", default_value = "sqlite://allot.db")]
    pub(crate) database_url: String,
    /// PostgreSQL's own address when `--database-url` goes through a transaction pooler
    /// (PgBouncer `pool_mode=transaction`): migrations and LISTEN use it, and pooled
    /// connections send no named prepared statements. Without it, a transaction pooler is
    /// refused at start.
    #[arg(long, env = "ALLOT_DIRECT_DATABASE_URL")]
    pub(crate) direct_database_url: Option<String>,
}

impl DbArgs {
    /// `base` with this database's direct URL.
    pub(crate) fn options(&self, base: allot_store::OpenOptions) -> allot_store::OpenOptions {
        allot_store::OpenOptions {
            direct_url: self.direct_database_url.clone(),
            ..base
        }
    }
}

/// How the commands that work on a database as it is (audit, rebalance, keys list and
/// revoke) open it: never created, never migrated ([`allot_store::OpenMode::Existing`]).
pub(crate) fn existing() -> allot_store::OpenOptions {
    allot_store::OpenOptions {
        mode: allot_store::OpenMode::Existing,
        ..Default::default()
    }
}

/// A `--tenant` argument, checked by the name rule ([`allot_core::Tenant::parse`]).
pub(crate) fn tenant_arg(text: &str) -> Result<allot_core::Tenant, String> {
    allot_core::Tenant::parse(text, &allot_core::Limits::default()).map_err(|e| e.to_string())
}
