//! Webhooks as the Standard Webhooks specification has them (standardwebhooks.com, the
//! cross-vendor spec Svix and others implement, so receivers verify with existing
//! libraries): an endpoint per URL with the event types it wants and a `whsec_` secret; each
//! delivery a `POST` of the event's JSON with `webhook-id` ([`message_id`]: the tenant and
//! the event's cursor),
//! `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,` + base64 of
//! HMAC-SHA256 over `{id}.{timestamp}.{body}` keyed by the secret's bytes; several,
//! space-separated, while a rotated secret overlaps the new one).
//!
//! Pure: the randomness of a new secret, the network and the clock are the caller's.

use crate::event::EventType;
use crate::support::error::{AllotError, Result};
use base64::Engine;
use chrono::{DateTime, Utc};
use hmac::{KeyInit, Mac};
use serde::{Deserialize, Serialize};

/// The prefix of every secret (the spec's).
pub const SECRET_PREFIX: &str = "whsec_";
/// Fewest and most random bytes a secret holds (the spec: 24..=64).
pub const SECRET_BYTES: std::ops::RangeInclusive<usize> = 24..=64;
/// Longest endpoint URL, bytes.
pub const MAX_URL_LEN: usize = 2048;
/// Most endpoints one tenant may have.
pub const MAX_WEBHOOKS_PER_TENANT: usize = 32;
/// When a delivery is tried, ms after the event: the spec's recommended schedule (at once,
/// then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). After the last it is a dead letter.
pub const RETRY_SCHEDULE_MS: [u64; 8] = [
    0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
];
/// How long a rotated-out secret still signs, next to the new one, ms (24 h).
pub const ROTATION_OVERLAP_MS: i64 = 86_400_000;
/// The tenant whose queue carries the deliveries: a name no client tenant can have (tenant
/// names hold no `/`), so no tenant's worker claims them and no tenant sees them.
pub const DELIVERY_TENANT: &str = "allot/webhooks";
/// The queue of the deliveries.
pub const DELIVERY_QUEUE: &str = "deliveries";
/// Tries of one delivery: one per step of [`RETRY_SCHEDULE_MS`].
pub const DELIVERY_ATTEMPTS: i64 = RETRY_SCHEDULE_MS.len() as i64;

/// The `webhook-id` of `tenant`'s event at `cursor`: `{tenant}/{cursor}`. The spec makes it
/// the receiver's deduplication key, so it must be unique across every message a receiver
/// may get: cursors are per tenant, and one receiver may serve several tenants (tenant names
/// hold no `/`, so the pair is unambiguous). The same on every retry and redelivery of the
/// event.
pub fn message_id(tenant: &str, cursor: i64) -> String {
    format!("{tenant}/{cursor}")
}

/// What a delivery job carries: whose event, which endpoint, which cursor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// The event's tenant.
    pub tenant: String,
    /// The endpoint's id.
    pub webhook: String,
    /// The event's cursor (in its `webhook-id`, [`message_id`]).
    pub cursor: i64,
}

/// `POST /v1/webhooks` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct WebhookBody {
    /// Where to `POST`: `https://…` (or `http://…`), no user or password, no fragment.
    pub url: String,
    /// Event types to deliver: `["*"]` for every type, or a list of types.
    pub types: Vec<String>,
    /// `whsec_` + base64 of 24..=64 bytes; made by the server when absent.
    #[serde(default)]
    pub secret: Option<String>,
}

/// Whether an endpoint is delivered to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum WebhookStatus {
    /// Deliveries run.
    Enabled,
    /// No more deliveries (the receiver answered `410 Gone`); deliveries already queued end.
    Disabled,
}

impl WebhookStatus {
    /// The stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            WebhookStatus::Enabled => "enabled",
            WebhookStatus::Disabled => "disabled",
        }
    }

    /// Parse a stored name.
    pub fn parse(name: &str) -> Option<WebhookStatus> {
        [WebhookStatus::Enabled, WebhookStatus::Disabled]
            .into_iter()
            .find(|s| s.as_str() == name)
    }
}

/// An endpoint as listed (never its secret).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Webhook {
    /// Server-made id (UUID v4 text).
    pub id: String,
    /// Where deliveries go.
    pub url: String,
    /// The types it receives; empty: every type (`["*"]` on the wire).
    #[serde(serialize_with = "types_out", deserialize_with = "types_in")]
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    pub types: Vec<EventType>,
    /// Delivered to or not.
    pub status: WebhookStatus,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// How its deliveries have gone.
    #[serde(default)]
    pub health: WebhookHealth,
}

/// An endpoint's health, as its delivery attempts left it (what an operator looks at before
/// a receiver's owner asks "did you send it?").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WebhookHealth {
    /// The last attempt (UTC); `None` before the first.
    pub last_attempt_at: Option<DateTime<Utc>>,
    /// The HTTP status of the last attempt's answer; `None`: no answer (timeout, no
    /// connection, a refused address) or no attempt yet.
    pub last_status: Option<u16>,
    /// The last `2xx` (UTC).
    pub last_success_at: Option<DateTime<Utc>>,
    /// Attempts that failed since the last `2xx`.
    pub consecutive_failures: i64,
    /// The first failure since the last `2xx`; `None` while deliveries succeed.
    pub failing_since: Option<DateTime<Utc>>,
    /// Why the last attempt failed, in words (`answered 500`, `no answer: …`, an address the
    /// server may not reach); at most [`MAX_ERROR_LEN`] bytes; `None` when it was delivered
    /// or none was made yet.
    #[serde(default)]
    pub last_error: Option<String>,
}

/// Longest stored [`WebhookHealth::last_error`], bytes (a longer reason is cut at a char
/// boundary).
pub const MAX_ERROR_LEN: usize = 300;

/// `why` as stored in [`WebhookHealth::last_error`]: at most [`MAX_ERROR_LEN`] bytes.
pub fn error_text(why: &str) -> String {
    let mut end = why.len().min(MAX_ERROR_LEN);
    while !why.is_char_boundary(end) {
        end -= 1;
    }
    why[..end].to_string()
}

/// How one delivery attempt ended, for its endpoint's health.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attempt {
    /// A `2xx` answer (its status).
    Delivered(u16),
    /// Any other answer but `410` (`Some(status)`), or none (`None`).
    Failed(Option<u16>),
    /// `410 Gone`: the endpoint is disabled.
    Gone,
}

impl Attempt {
    /// The answer's HTTP status, if there was one.
    pub fn status(self) -> Option<u16> {
        match self {
            Attempt::Delivered(s) => Some(s),
            Attempt::Failed(s) => s,
            Attempt::Gone => Some(410),
        }
    }

    /// Whether the receiver took the delivery.
    pub fn delivered(self) -> bool {
        matches!(self, Attempt::Delivered(_))
    }
}

/// `201` answer of `POST /v1/webhooks`: the endpoint and its secret, shown this once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedWebhook {
    /// The endpoint.
    #[serde(flatten)]
    pub webhook: Webhook,
    /// `whsec_…`: verify deliveries with it.
    pub secret: String,
}

/// An endpoint as the deliveries need it: the webhook and the keys that sign (the current
/// secret's bytes first, then a rotated-out one until its overlap ends).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The tenant it belongs to.
    pub tenant: crate::tenant::Tenant,
    /// The endpoint's id.
    pub id: String,
    /// Where to post.
    pub url: String,
    /// The types it receives; empty: all.
    pub types: Vec<EventType>,
    /// Signing keys, newest first.
    pub keys: Vec<Vec<u8>>,
    /// Delivered to or not.
    pub status: WebhookStatus,
    /// Whether its last attempt failed (the `allot_webhook_endpoints_failing` gauge).
    pub failing: bool,
}

impl Target {
    /// Whether it receives events of `kind`.
    pub fn wants(&self, kind: EventType) -> bool {
        self.status == WebhookStatus::Enabled && (self.types.is_empty() || self.types.contains(&kind))
    }
}

fn types_out<S: serde::Serializer>(types: &[EventType], s: S) -> std::result::Result<S::Ok, S::Error> {
    if types.is_empty() {
        return ["*"].serialize(s);
    }
    types.serialize(s)
}

fn types_in<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<EventType>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    event_types(&names).map_err(serde::de::Error::custom)
}

/// A validated new endpoint: its URL, types (empty: all) and secret bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    /// Where to post.
    pub url: String,
    /// The types; empty: all.
    pub types: Vec<EventType>,
    /// The secret's bytes.
    pub secret: Vec<u8>,
}

/// Validate `POST /v1/webhooks`: the URL ([`check_url`]), the types (`["*"]` or known
/// types, at least one), the secret when given ([`parse_secret`]; `made` is used when not).
/// Each error is `400 invalid_request` naming its field.
pub fn new_webhook(body: WebhookBody, made: impl FnOnce() -> Vec<u8>) -> Result<NewWebhook> {
    let url = check_url(&body.url)?;
    let types = event_types(&body.types)?;
    let secret = match &body.secret {
        Some(s) => parse_secret(s)?,
        None => made(),
    };
    Ok(NewWebhook { url, types, secret })
}

/// `["*"]` (every type: empty) or a list of known types, each once.
pub fn event_types(names: &[String]) -> Result<Vec<EventType>> {
    if names.is_empty() {
        return Err(AllotError::invalid("types must name at least one event type, or \"*\""));
    }
    if names.len() == 1 && names[0] == "*" {
        return Ok(Vec::new());
    }
    let mut types = names
        .iter()
        .map(|n| EventType::parse(n).ok_or_else(|| AllotError::invalid(format!("types: unknown event type `{n}`"))))
        .collect::<Result<Vec<_>>>()?;
    types.sort();
    types.dedup();
    Ok(types)
}

/// An endpoint URL: `http` or `https`, a host, no user or password, no fragment, at most
/// [`MAX_URL_LEN`] bytes. Returns it normalised. Where the host points (loopback, private
/// networks) is checked when delivering, against what it resolves to.
pub fn check_url(text: &str) -> Result<String> {
    if text.len() > MAX_URL_LEN {
        return Err(AllotError::invalid(format!("url is longer than {MAX_URL_LEN} bytes")));
    }
    let url = url::Url::parse(text).map_err(|e| AllotError::invalid(format!("url: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(AllotError::invalid("url must be http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(AllotError::invalid("url must name a host"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(AllotError::invalid("url must not carry a user or a password"));
    }
    if url.fragment().is_some() {
        return Err(AllotError::invalid("url must not have a fragment"));
    }
    Ok(url.to_string())
}

/// The bytes of a `whsec_` secret, 24..=64 of them; else `400` naming `secret`.
pub fn parse_secret(text: &str) -> Result<Vec<u8>> {
    let bad = || AllotError::invalid("secret must be whsec_ followed by base64 of 24 to 64 bytes");
    let encoded = text.strip_prefix(SECRET_PREFIX).ok_or_else(bad)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|_| bad())?;
    if !SECRET_BYTES.contains(&bytes.len()) {
        return Err(bad());
    }
    Ok(bytes)
}

/// The `whsec_` text of secret `bytes`.
pub fn format_secret(bytes: &[u8]) -> String {
    format!(
        "{SECRET_PREFIX}{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// The `webhook-signature` header of a delivery: `v1,<base64 HMAC-SHA256>` per key, over
/// `{id}.{timestamp}.{body}`, space-separated.
pub fn signature(keys: &[Vec<u8>], id: &str, timestamp: i64, body: &[u8]) -> String {
    keys.iter()
        .map(|key| {
            let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
            mac.update(format!("{id}.{timestamp}.").as_bytes());
            mac.update(body);
            let tag = mac.finalize().into_bytes();
            format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(tag))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a receiver's answer means for a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 2xx: delivered.
    Delivered,
    /// 410 Gone: the endpoint is disabled; no more tries.
    Gone,
    /// Anything else (3xx included: redirects are not followed), a timeout or no answer: try
    /// again, no sooner than `after_ms` when the receiver said so (`Retry-After` on 429/503).
    Retry {
        /// The receiver's `Retry-After`, ms.
        after_ms: Option<u64>,
    },
}

/// The outcome of an answer with `status` and, on 429/503, `retry_after_ms` (the
/// `Retry-After` header's delay: [`retry_after_ms`]).
pub fn outcome(status: u16, retry_after_ms: Option<u64>) -> Outcome {
    match status {
        200..=299 => Outcome::Delivered,
        410 => Outcome::Gone,
        429 | 503 => Outcome::Retry {
            after_ms: retry_after_ms,
        },
        _ => Outcome::Retry { after_ms: None },
    }
}

/// When to try a delivery again after its `attempt`-th try (1-based) failed: the schedule's
/// next step with ±20 % jitter (`jitter` in 0..1, the caller's randomness), or the receiver's
/// `Retry-After` when later; `None` after the last step (a dead letter).
/// A receiver's `Retry-After` counts up to [`MAX_RETRY_AFTER_MS`], so no receiver can park a
/// delivery for longer than the schedule's longest step.
pub fn retry_in_ms(attempt: u32, jitter: f64, retry_after_ms: Option<u64>) -> Option<u64> {
    let step = *RETRY_SCHEDULE_MS.get(attempt as usize)?;
    let jittered = (step as f64 * (0.8 + 0.4 * jitter.clamp(0.0, 1.0))) as u64;
    Some(jittered.max(retry_after_ms.unwrap_or(0).min(MAX_RETRY_AFTER_MS)))
}

/// The longest `Retry-After` honoured, ms: the schedule's longest step (10 h).
pub const MAX_RETRY_AFTER_MS: u64 = 36_000_000;

/// A `Retry-After` header's delay, ms, at `now`: delay-seconds or an HTTP-date (RFC 9110
/// 10.2.3; a date in the past is 0). `None` for anything else.
pub fn retry_after_ms(value: &str, now: DateTime<Utc>) -> Option<u64> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(seconds.saturating_mul(1000));
    }
    // All three HTTP-date forms (IMF-fixdate, RFC 850, asctime), as RFC 9110 5.6.7 asks.
    let at: DateTime<Utc> = httpdate::parse_http_date(value).ok()?.into();
    Some(u64::try_from((at - now).num_milliseconds()).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_or_a_date_and_bounded() {
        let now = DateTime::parse_from_rfc3339("2026-11-24T10:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(retry_after_ms("120", now), Some(120_000));
        assert_eq!(retry_after_ms("Tue, 24 Nov 2026 10:01:00 GMT", now), Some(60_000));
        assert_eq!(
            retry_after_ms("Tuesday, 24-Nov-26 10:01:00 GMT", now),
            Some(60_000),
            "RFC 850"
        );
        assert_eq!(retry_after_ms("Tue Nov 24 10:01:00 2026", now), Some(60_000), "asctime");
        assert_eq!(
            retry_after_ms("Tue, 24 Nov 2026 09:00:00 GMT", now),
            Some(0),
            "a past date"
        );
        assert_eq!(retry_after_ms("soon", now), None);
        // A year's Retry-After waits no longer than the longest step.
        let far = retry_after_ms("31536000", now);
        assert_eq!(retry_in_ms(1, 0.5, far), Some(MAX_RETRY_AFTER_MS));
    }

    #[test]
    fn the_spec_example_signature() {
        // The Standard Webhooks specification's example (its reference libraries' tests).
        let key = parse_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        assert_eq!(key.len(), 24);
        let body = br#"{"test": 2432232314}"#;
        let sig = signature(&[key], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body);
        assert_eq!(sig, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn secrets_round_trip_and_are_bounded() {
        let bytes = vec![7u8; 32];
        assert_eq!(parse_secret(&format_secret(&bytes)).unwrap(), bytes);
        assert!(parse_secret(&format_secret(&[1u8; 23])).is_err());
        assert!(parse_secret(&format_secret(&[1u8; 65])).is_err());
        assert!(parse_secret("whsec_not base64!").is_err());
        assert!(parse_secret("sk_abc").is_err());
    }

    #[test]
    fn urls_and_types_are_checked() {
        assert!(check_url("https://example.com/hook").is_ok());
        for bad in ["ftp://x/", "https://u:p@x/", "https://x/#f", "not a url", "https://"] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
        assert!(event_types(&["*".into()]).unwrap().is_empty());
        assert_eq!(
            event_types(&["sku.sold_out".into(), "sku.sold_out".into()]).unwrap(),
            [EventType::SkuSoldOut]
        );
        assert!(event_types(&[]).is_err());
        assert!(event_types(&["nope".into()]).is_err());
    }

    #[test]
    fn outcomes_and_the_schedule() {
        assert_eq!(outcome(204, None), Outcome::Delivered);
        assert_eq!(outcome(410, None), Outcome::Gone);
        assert_eq!(outcome(302, None), Outcome::Retry { after_ms: None });
        assert_eq!(outcome(429, Some(7000)), Outcome::Retry { after_ms: Some(7000) });
        assert_eq!(retry_in_ms(1, 0.5, None), Some(5_000));
        assert_eq!(
            retry_in_ms(1, 0.5, Some(60_000)),
            Some(60_000),
            "Retry-After wins when later"
        );
        assert_eq!(retry_in_ms(8, 0.5, None), None, "after the last step: a dead letter");
        let low = retry_in_ms(2, 0.0, None).unwrap();
        let high = retry_in_ms(2, 1.0, None).unwrap();
        assert_eq!((low, high), (240_000, 360_000));
    }
}
