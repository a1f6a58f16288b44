//! The tenant every object belongs to, as its own type.
//!
//! Every store method that reads or writes a tenant's objects takes a `&Tenant` first, so a
//! tenant can never be passed where a SKU, an id or a queue name is expected (all three are
//! text too). A tenant comes from the API key that authenticated the request
//! (the `tenant` of an `access::ApiKey`), from a stored row, or from an operator's argument
//! checked by [`Tenant::parse`]; the stores never see tenant text a client typed unchecked.

use crate::support::error::Result;
use crate::support::limits::Limits;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The tenant of a server that requires no keys, and of every object made before tenants
/// existed (the migrations put them there).
pub const DEFAULT_TENANT: &str = "default";

/// A tenant's name: 1..=`max_name_len` chars of `[A-Za-z0-9._:-]` when it came through
/// [`Tenant::parse`]. Serialises as the bare string. Derefs to `&str`, so SQL parameters and
/// helpers that take `&str` accept it as is.
// Shared, not copied: a clone is a reference count (a request's tenant is cloned into its
// principal, its log line and its caller; `allot bench cost`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema), schema(value_type = String))]
pub struct Tenant(Arc<str>);

impl Serialize for Tenant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Tenant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        String::deserialize(d).map(|s| Tenant(s.into()))
    }
}

impl Tenant {
    /// Check an operator's or a client's tenant text against the name rule
    /// ([`crate::support::checks::name`]). Errors: `400 invalid_request` naming `tenant`, or
    /// `400 limit_exceeded` (`max_name_len`).
    pub fn parse(text: &str, limits: &Limits) -> Result<Tenant> {
        crate::support::checks::name("tenant", text, limits)?;
        Ok(Tenant(text.into()))
    }

    /// A tenant the store or the key store already holds (read back from a row or a key).
    /// No check: what was stored was checked on its way in.
    pub fn stored(name: impl Into<String>) -> Tenant {
        Tenant(name.into().into())
    }

    /// The tenant of a server that requires no keys ([`DEFAULT_TENANT`]).
    pub fn default_tenant() -> Tenant {
        static DEFAULT: std::sync::OnceLock<Tenant> = std::sync::OnceLock::new();
        DEFAULT.get_or_init(|| Tenant(DEFAULT_TENANT.into())).clone()
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Tenant {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Tenant {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Tenant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for Tenant {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Tenant {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_checks_the_name_rule() {
        let limits = Limits::default();
        assert_eq!(Tenant::parse("acme-eu.1", &limits).unwrap().as_str(), "acme-eu.1");
        for bad in ["", "acme eu", "acme/eu", "ацме"] {
            let err = Tenant::parse(bad, &limits).unwrap_err();
            assert!(err.to_string().contains("tenant"), "{bad:?}: {err}");
        }
        let long = "a".repeat(limits.max_name_len + 1);
        assert!(Tenant::parse(&long, &limits).is_err());
    }

    #[test]
    fn serialises_as_the_bare_name() {
        let t = Tenant::stored("acme");
        assert_eq!(serde_json::to_string(&t).unwrap(), "\"acme\"");
        assert_eq!(serde_json::from_str::<Tenant>("\"acme\"").unwrap(), t);
        assert_eq!(Tenant::default_tenant(), "default");
    }
}
