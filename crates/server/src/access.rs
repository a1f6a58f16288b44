//! Who may call what: the principal a request's bearer key names (the guard,
//! [`crate::admit::guard`]), its scopes (checked against the route's:
//! [`crate::admit::Admissions`]) and its rate.
//!
//! A server requires keys as soon as a key was ever made in its database (checked at most
//! every [`CACHE_TTL`]; revoking the last key never reopens it); with none, `allot serve` on a loopback address answers everyone as
//! the default tenant with every scope (the README's first command), and refuses to start on
//! any other address unless `--insecure-no-auth` says so. Secrets are `allot_sk_` and 64 hex
//! digits (256 random bits), stored as their SHA-256 and found by it (an index lookup on the
//! hash: the secret itself is never compared, and timing on a hash of 256 random bits tells
//! an attacker nothing about any secret — the reason GitHub and Stripe store tokens this
//! way). Keys read from the store are cached for [`CACHE_TTL`]: a revocation takes effect on
//! every instance within that time.

use allot_core::access::{ApiKey, Scope, SECRET_PREFIX};
use allot_core::{AllotError, KeyStore};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a key (or "no key exists") read from the store is trusted: the bound on how
/// late a revocation or a first key takes effect.
pub const CACHE_TTL: Duration = Duration::from_secs(2);
/// Most cached keys; past it the cache starts over (it is a cache, not the truth).
pub const CACHE_MAX: usize = 10_000;
pub use allot_core::access::DEFAULT_TENANT;

/// Who is calling: set on the request for the handlers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The tenant everything it does lives in.
    pub tenant: allot_core::Tenant,
    /// The key's id; `None` on a server that requires no keys.
    pub key_id: Option<String>,
    /// What it may do.
    pub scopes: Vec<Scope>,
    /// Its own rate, if it has one.
    pub rate_per_s: Option<u32>,
}

/// A new secret: the prefix and 64 hex digits of 256 random bits.
pub fn new_secret() -> String {
    let bytes: [u8; 32] = rand::random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{SECRET_PREFIX}{hex}")
}

/// Make a key of `tenant` whose body is validated here: a new secret, stored as its hash.
/// Returns the key and the secret, which nothing can show again.
pub async fn create_key(
    keys: &dyn KeyStore,
    now: chrono::DateTime<chrono::Utc>,
    tenant: &allot_core::Tenant,
    body: &allot_core::access::NewKeyBody,
) -> Result<(ApiKey, String), AllotError> {
    let name = allot_core::access::new_key(body)?;
    let secret = new_secret();
    let key = ApiKey {
        id: uuid::Uuid::new_v4().to_string(),
        tenant: tenant.clone(),
        name,
        scopes: body.scopes.clone(),
        prefix: secret[..SECRET_PREFIX.len() + 6].to_string(),
        rate_per_s: body.rate_per_s,
        created_at: now,
        revoked_at: None,
    };
    let secret_sha256 = hash_secret(&secret);
    let key = keys
        .create_key(allot_core::access::NewKey { key, secret_sha256 })
        .await?;
    Ok((key, secret))
}

/// SHA-256 of `secret`, lower-case hex: what the store keeps.
pub fn hash_secret(secret: &str) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    // One allocation: this runs on every request of a server that requires keys.
    let mut hex = String::with_capacity(64);
    for b in sha2::Sha256::digest(secret.as_bytes()) {
        let _ = write!(hex, "{b:02x}");
    }
    hex
}

/// Whether `secret` has the shape of one (so a malformed one never reaches the store).
fn well_formed(secret: &str) -> bool {
    secret
        .strip_prefix(SECRET_PREFIX)
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
}

type Limiter = governor::DefaultDirectRateLimiter;

/// A key read from the store (or "no such key") and when it was read, by secret hash.
type Cached = (Instant, Option<Arc<ApiKey>>);

/// The access state of a server: its store, whether it may run without keys, the cache, and
/// each key's rate limiter (governor's GCRA token bucket) and long-poll permits.
pub struct Access {
    keys_store: Arc<dyn KeyStore>,
    /// No key ever made and this is allowed (loopback or `--insecure-no-auth`): open.
    open_without_keys: bool,
    keys: Mutex<HashMap<String, Cached>>,
    any_key: Mutex<Option<(Instant, bool)>>,
    /// How long a read of the store is trusted ([`CACHE_TTL`] unless told otherwise).
    cache_ttl: Duration,
    default_rate_per_s: u32,
    limiters: Mutex<HashMap<String, Arc<Limiter>>>,
    long_polls_per_key: usize,
    polls: Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>,
    streams_per_key: usize,
    streams: Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>,
}

/// A permit of `map`'s semaphore for `id` (made with `per_key` permits on first use), or
/// `None` when all are taken.
fn permit(
    map: &Mutex<HashMap<String, Arc<tokio::sync::Semaphore>>>,
    id: &str,
    per_key: usize,
) -> Option<tokio::sync::OwnedSemaphorePermit> {
    let sem = map
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(id.to_string())
        .or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(per_key)))
        .clone();
    sem.try_acquire_owned().ok()
}

impl Access {
    /// Access for `keys_store`; `open_without_keys` when the server may answer without keys while
    /// none exists; `default_rate_per_s` for keys without their own rate; at most
    /// `long_polls_per_key` waiting claims per key.
    pub fn new(
        keys_store: Arc<dyn KeyStore>,
        open_without_keys: bool,
        default_rate_per_s: u32,
        long_polls_per_key: usize,
    ) -> Self {
        Access {
            keys_store,
            open_without_keys,
            keys: Mutex::new(HashMap::new()),
            any_key: Mutex::new(None),
            cache_ttl: CACHE_TTL,
            default_rate_per_s: default_rate_per_s.max(1),
            limiters: Mutex::new(HashMap::new()),
            long_polls_per_key: long_polls_per_key.max(1),
            polls: Mutex::new(HashMap::new()),
            streams_per_key: allot_core::Limits::default().max_streams_per_key as usize,
            streams: Mutex::new(HashMap::new()),
        }
    }

    /// The same access trusting a read of the store for `ttl` instead of [`CACHE_TTL`]
    /// (`allot bench cost`, whose windows must hold no periodic read).
    pub fn with_cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// The same access with at most `n` open event streams per key.
    pub fn with_streams_per_key(mut self, n: usize) -> Self {
        self.streams_per_key = n.max(1);
        self
    }

    /// A permit for one open event stream of the key `key_id` (none needed without a key),
    /// or `None` when the key has `max_streams_per_key` open already.
    pub fn stream(&self, key_id: Option<&str>) -> Option<Option<tokio::sync::OwnedSemaphorePermit>> {
        let Some(id) = key_id else {
            return Some(None);
        };
        permit(&self.streams, id, self.streams_per_key).map(Some)
    }

    /// Let one request of `who` in, or `rate_limited` with when the next one will be.
    pub(crate) fn admit(&self, who: &Principal) -> Result<(), AllotError> {
        self.admit_n(who, std::num::NonZeroU32::MIN)
    }

    /// Charge `who`'s rate for a request of `n` operations (a batch counts each: the guard
    /// charged one, this the rest), or `rate_limited`; more than the key may do in one second
    /// can never pass and is `limit_exceeded` (`rate_per_s`).
    pub(crate) fn admit_operations(&self, who: &Principal, n: u32) -> Result<(), AllotError> {
        let rate = who.rate_per_s.unwrap_or(self.default_rate_per_s).max(1);
        if who.key_id.is_some() && n > rate {
            return Err(AllotError::LimitExceeded {
                limit: "rate_per_s",
                max: u64::from(rate),
                message: format!("{n} operations are more than this key may do in a second"),
            });
        }
        match std::num::NonZeroU32::new(n.saturating_sub(1)) {
            Some(more) => self.admit_n(who, more),
            None => Ok(()),
        }
    }

    fn admit_n(&self, who: &Principal, n: std::num::NonZeroU32) -> Result<(), AllotError> {
        let Some(id) = &who.key_id else { return Ok(()) };
        let rate = who.rate_per_s.unwrap_or(self.default_rate_per_s).max(1);
        let limiter = {
            let mut map = self.limiters.lock().unwrap_or_else(|p| p.into_inner());
            map.entry(id.to_string())
                .or_insert_with(|| {
                    let per_s = std::num::NonZeroU32::new(rate).unwrap_or(std::num::NonZeroU32::MIN);
                    Arc::new(governor::RateLimiter::direct(governor::Quota::per_second(per_s)))
                })
                .clone()
        };
        let checked = limiter.check_n(n).map_err(|_| AllotError::LimitExceeded {
            limit: "rate_per_s",
            max: u64::from(rate),
            message: format!("{n} operations are more than this key may do in a second"),
        })?;
        checked.map_err(|not_until| {
            use governor::clock::Clock;
            let wait = not_until.wait_time_from(governor::clock::DefaultClock::default().now());
            AllotError::RateLimited {
                retry_after_ms: (wait.as_millis() as u64).max(1),
            }
        })
    }

    /// A permit for one waiting claim of the key `key_id` (none needed without a key), or
    /// `None` when the key has `long_polls_per_key` waiting already.
    pub fn long_poll(&self, key_id: Option<&str>) -> Option<Option<tokio::sync::OwnedSemaphorePermit>> {
        let Some(id) = key_id else {
            return Some(None);
        };
        permit(&self.polls, id, self.long_polls_per_key).map(Some)
    }

    /// Whether a request needs a key now: always on a server that may not answer without
    /// one; otherwise once any key was ever made (read at most every [`CACHE_TTL`]).
    pub(crate) async fn keys_required(&self) -> Result<bool, AllotError> {
        if !self.open_without_keys {
            return Ok(true);
        }
        if let Some((at, any)) = *self.any_key.lock().unwrap_or_else(|p| p.into_inner()) {
            // Keys are never deleted (a revoked one stays): once one exists, always.
            if any || at.elapsed() < self.cache_ttl {
                return Ok(any);
            }
        }
        let any = self.keys_store.any_key().await?;
        *self.any_key.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), any));
        Ok(any)
    }

    async fn key(&self, secret: &str) -> Result<Option<Arc<ApiKey>>, AllotError> {
        let hash = hash_secret(secret);
        if let Some((at, k)) = self.keys.lock().unwrap_or_else(|p| p.into_inner()).get(&hash) {
            if at.elapsed() < self.cache_ttl {
                return Ok(k.clone());
            }
        }
        let found = self.keys_store.key_by_hash(&hash).await?.map(Arc::new);
        let mut cache = self.keys.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= CACHE_MAX {
            cache.clear();
        }
        cache.insert(hash, (Instant::now(), found.clone()));
        Ok(found)
    }

    /// The principal of a request with `authorization`, or why not (`unauthenticated`).
    pub async fn principal(&self, authorization: Option<&str>) -> Result<Principal, AllotError> {
        if !self.keys_required().await? {
            return Ok(Principal {
                tenant: allot_core::Tenant::default_tenant(),
                key_id: None,
                scopes: vec![Scope::Admin],
                rate_per_s: None,
            });
        }
        let unauthenticated = |why: &str| AllotError::Unauthenticated(why.to_string());
        let header =
            authorization.ok_or_else(|| unauthenticated("this server requires a key: Authorization: Bearer …"))?;
        // The scheme is case-insensitive (RFC 9110 §11.1); one space, then the secret.
        let secret = header
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, secret)| secret)
            .filter(|s| well_formed(s))
            .ok_or_else(|| unauthenticated("malformed Authorization: expected Bearer allot_sk_…"))?;
        let key = self.key(secret).await?.ok_or_else(|| unauthenticated("unknown key"))?;
        if key.revoked_at.is_some() {
            return Err(unauthenticated("the key was revoked"));
        }
        Ok(Principal {
            tenant: key.tenant.clone(),
            key_id: Some(key.id.clone()),
            scopes: key.scopes.clone(),
            rate_per_s: key.rate_per_s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_their_shape_and_hash() {
        let s = new_secret();
        assert!(well_formed(&s), "{s}");
        assert_ne!(s, new_secret());
        assert_eq!(hash_secret(&s).len(), 64);
        assert!(!well_formed("allot_sk_xyz"));
        assert!(!well_formed(&s.replace("allot_sk_", "sk_")));
    }
}
