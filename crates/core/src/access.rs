//! Who may do what: API keys and their scopes (the model of Stripe's restricted keys and
//! GitHub's fine-grained tokens). A key belongs to a tenant, carries a short fixed list of
//! scopes that map onto the endpoint families, and is stored only as the SHA-256 of its
//! secret; the secret itself is shown once, at creation.
//!
//! Pure: generating a secret (randomness) and hashing it are the caller's; this module holds
//! the types, the scope rules and the validation of a new key.

use crate::support::error::{AllotError, Result};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The prefix of every secret, so secret scanners can recognise a leaked one.
pub const SECRET_PREFIX: &str = "allot_sk_";

pub use crate::tenant::DEFAULT_TENANT;

/// The highest rate a key may be given, requests per second.
pub const MAX_RATE_PER_S: u32 = 1_000_000;

/// Longest key name, chars.
pub const MAX_KEY_NAME_LEN: usize = 128;

/// One scope. `admin` is everything of its tenant; a `:write` scope implies its `:read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum Scope {
    /// Keys, the audit, and every other scope of the tenant.
    #[serde(rename = "admin")]
    Admin,
    /// Read SKUs, ledgers, allocations and holds.
    #[serde(rename = "stock:read")]
    StockRead,
    /// Create SKUs, adjust, allocate, hold, confirm and release.
    #[serde(rename = "stock:write")]
    StockWrite,
    /// Read units.
    #[serde(rename = "units:read")]
    UnitsRead,
    /// Add and claim units.
    #[serde(rename = "units:write")]
    UnitsWrite,
    /// Read bookings and availability.
    #[serde(rename = "bookings:read")]
    BookingsRead,
    /// Book, confirm, release and cancel.
    #[serde(rename = "bookings:write")]
    BookingsWrite,
    /// Read queues and jobs.
    #[serde(rename = "jobs:read")]
    JobsRead,
    /// Enqueue, cancel and retry jobs.
    #[serde(rename = "jobs:enqueue")]
    JobsEnqueue,
    /// Claim, complete, fail and heartbeat jobs (what a worker needs).
    #[serde(rename = "jobs:work")]
    JobsWork,
    /// Queue settings (pause, resume, limits, FIFO): what an operator of the queue needs.
    #[serde(rename = "jobs:manage")]
    JobsManage,
    /// Read the change feed: pages and streams of events.
    #[serde(rename = "events:read")]
    EventsRead,
    /// Make, list, rotate and delete webhook endpoints, and redeliver to them.
    #[serde(rename = "webhooks:manage")]
    WebhooksManage,
}

impl Scope {
    /// Every scope, in the order README lists them.
    pub const ALL: [Scope; 13] = [
        Scope::Admin,
        Scope::StockRead,
        Scope::StockWrite,
        Scope::UnitsRead,
        Scope::UnitsWrite,
        Scope::BookingsRead,
        Scope::BookingsWrite,
        Scope::JobsRead,
        Scope::JobsEnqueue,
        Scope::JobsWork,
        Scope::JobsManage,
        Scope::EventsRead,
        Scope::WebhooksManage,
    ];

    /// The wire name (`stock:write`).
    pub fn name(self) -> &'static str {
        match self {
            Scope::Admin => "admin",
            Scope::StockRead => "stock:read",
            Scope::StockWrite => "stock:write",
            Scope::UnitsRead => "units:read",
            Scope::UnitsWrite => "units:write",
            Scope::BookingsRead => "bookings:read",
            Scope::BookingsWrite => "bookings:write",
            Scope::JobsRead => "jobs:read",
            Scope::JobsEnqueue => "jobs:enqueue",
            Scope::JobsWork => "jobs:work",
            Scope::JobsManage => "jobs:manage",
            Scope::EventsRead => "events:read",
            Scope::WebhooksManage => "webhooks:manage",
        }
    }

    /// Whether holding `self` grants `needed`: equal, `admin`, or a `:write` (or a jobs
    /// scope) for its family's `:read`.
    pub fn grants(self, needed: Scope) -> bool {
        self == needed
            || self == Scope::Admin
            || matches!(
                (self, needed),
                (Scope::StockWrite, Scope::StockRead)
                    | (Scope::UnitsWrite, Scope::UnitsRead)
                    | (Scope::BookingsWrite, Scope::BookingsRead)
                    | (
                        Scope::JobsEnqueue | Scope::JobsWork | Scope::JobsManage,
                        Scope::JobsRead
                    )
            )
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scope {
    type Err = AllotError;

    fn from_str(s: &str) -> Result<Self> {
        Scope::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| AllotError::invalid(format!("unknown scope `{}`", crate::support::input::echo(s))))
    }
}

/// Whether any of `held` grants `needed`.
pub fn allows(held: &[Scope], needed: Scope) -> bool {
    held.iter().any(|s| s.grants(needed))
}

/// A key as stored and listed (never the secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ApiKey {
    /// Server-made id (UUID v4 text).
    pub id: String,
    /// The tenant the key acts in.
    pub tenant: crate::tenant::Tenant,
    /// A name for people (`checkout`).
    pub name: String,
    /// What it may do.
    pub scopes: Vec<Scope>,
    /// The first characters of the secret (`allot_sk_ab12…`), to recognise it in a list.
    pub prefix: String,
    /// Requests per second it may make (token bucket); `None`: the server's default.
    pub rate_per_s: Option<u32>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// `POST /v1/keys` body and `allot keys create` arguments.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewKeyBody {
    /// A name for people, 1..=128 chars.
    pub name: String,
    /// At least one scope.
    pub scopes: Vec<Scope>,
    /// Requests per second, 1..=1 000 000; the server's default when absent.
    #[serde(default)]
    pub rate_per_s: Option<u32>,
}

/// A validated new key, with the hash of its secret (the store keeps nothing else of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewKey {
    /// The key as it will be listed.
    pub key: ApiKey,
    /// SHA-256 of the secret, lower-case hex.
    pub secret_sha256: String,
}

/// Validate a new key's body (the tenant was checked when it became a
/// [`crate::tenant::Tenant`]): a name (an identifier, see
/// [`crate::support::input::identifier`]), at least one scope, each once, a sane rate. Returns the
/// name as it is kept (NFC).
pub fn new_key(body: &NewKeyBody) -> Result<String> {
    if body.name.is_empty() {
        return Err(AllotError::invalid("name must not be empty"));
    }
    let name = crate::support::input::identifier("name", &body.name, "max_key_name_len", MAX_KEY_NAME_LEN)?;
    if body.scopes.is_empty() {
        return Err(AllotError::invalid("scopes must name at least one scope"));
    }
    let mut seen = body.scopes.clone();
    seen.sort();
    seen.dedup();
    if seen.len() != body.scopes.len() {
        return Err(AllotError::invalid("scopes names a scope twice"));
    }
    if let Some(r) = body.rate_per_s {
        if !(1..=MAX_RATE_PER_S).contains(&r) {
            return Err(AllotError::invalid("rate_per_s must be 1..=1000000"));
        }
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_parse_and_imply() {
        for s in Scope::ALL {
            assert_eq!(s.name().parse::<Scope>().unwrap(), s);
            assert_eq!(serde_json::to_value(s).unwrap(), serde_json::json!(s.name()));
            assert!(Scope::Admin.grants(s));
            assert!(s.grants(s));
        }
        assert!(Scope::StockWrite.grants(Scope::StockRead));
        assert!(!Scope::StockRead.grants(Scope::StockWrite));
        assert!(!Scope::StockWrite.grants(Scope::UnitsRead));
        assert!(Scope::JobsWork.grants(Scope::JobsRead));
        assert!(!Scope::JobsWork.grants(Scope::JobsEnqueue));
        assert!(!Scope::StockWrite.grants(Scope::Admin));
        assert!("stock:delete".parse::<Scope>().is_err());
    }

    #[test]
    fn new_keys_are_checked() {
        let l = crate::support::limits::Limits::default();
        let body = |name: &str, scopes: Vec<Scope>, rate| NewKeyBody {
            name: name.into(),
            scopes,
            rate_per_s: rate,
        };
        assert!(new_key(&body("checkout", vec![Scope::StockWrite], None)).is_ok());
        assert!(new_key(&body("", vec![Scope::StockWrite], None)).is_err());
        assert!(new_key(&body("c", vec![], None)).is_err());
        assert!(new_key(&body("c", vec![Scope::Admin, Scope::Admin], None)).is_err());
        assert!(new_key(&body("c", vec![Scope::Admin], Some(0))).is_err());
        assert!(crate::tenant::Tenant::parse("a b", &l).is_err());
    }
}
