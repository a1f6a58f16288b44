//! What the generated client does not give: an idempotency key per logical operation,
//! cursor listings as streams, and verification of webhook deliveries (Standard Webhooks:
//! `webhook-id`, `webhook-timestamp`, `webhook-signature`, HMAC-SHA256 over
//! `{id}.{timestamp}.{body}` with a `whsec_` secret; <https://www.standardwebhooks.com/>).

use crate::{types, Client, Error};
use base64::Engine as _;
use futures::Stream;
use hmac::{KeyInit as _, Mac as _};

/// A new idempotency key (`allot-` and a UUID v4). Make one per logical operation and send
/// the same one on every retry of it: the server answers a retry with the first answer.
pub fn idempotency_key() -> String {
    format!("allot-{}", uuid::Uuid::new_v4())
}

/// Every ledger entry of `sku`, oldest first, fetched `page` at a time (cursor: the last
/// entry's id, `after`), as a stream that ends after the last page.
pub fn ledger_entries<'a>(
    client: &'a Client,
    sku: &str,
    page: i32,
) -> impl Stream<Item = Result<types::LedgerEntry, Error<types::ErrorBody>>> + 'a {
    let sku = sku.to_string();
    let pages = futures::stream::try_unfold(Some(0i64), move |after| {
        let sku = sku.clone();
        async move {
            let Some(after) = after else {
                return Ok::<_, Error<types::ErrorBody>>(None);
            };
            let body = client
                .ledger()
                .sku(sku)
                .after(after)
                .limit(page)
                .send()
                .await?
                .into_inner();
            // `next` is null on the last page: no empty page is ever asked for.
            Ok(Some((
                futures::stream::iter(body.entries.into_iter().map(Ok)),
                body.next,
            )))
        }
    });
    futures::TryStreamExt::try_flatten(pages)
}

/// Why a webhook delivery was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookError {
    /// The secret is not `whsec_` and base64.
    BadSecret,
    /// `webhook-timestamp` is not a number of seconds.
    BadTimestamp,
    /// The timestamp is further than the tolerance from now (a replay, or a clock far off).
    TooOld,
    /// No `v1,` signature in `webhook-signature` matches.
    BadSignature,
}

/// The headers of a delivery that its signature covers.
#[derive(Debug, Clone, Copy)]
pub struct DeliveryHeaders<'a> {
    /// `webhook-id`.
    pub id: &'a str,
    /// `webhook-timestamp`, seconds since the epoch.
    pub timestamp: &'a str,
    /// `webhook-signature`: space-separated `v1,<base64>` signatures.
    pub signature: &'a str,
}

/// Check a delivery: its timestamp within `tolerance_s` of `now_s` (Standard Webhooks
/// suggests 5 minutes), and one of its signatures made with `secret` (an endpoint's, or
/// the previous one while a rotation overlaps) over the raw `body`. Compared in constant
/// time.
pub fn verify_webhook(
    secret: &str,
    headers: DeliveryHeaders<'_>,
    body: &[u8],
    (now_s, tolerance_s): (i64, i64),
) -> Result<(), WebhookError> {
    let key = secret
        .strip_prefix("whsec_")
        .and_then(|k| base64::engine::general_purpose::STANDARD.decode(k).ok())
        .ok_or(WebhookError::BadSecret)?;
    let timestamp: i64 = headers.timestamp.parse().map_err(|_| WebhookError::BadTimestamp)?;
    if now_s.abs_diff(timestamp) > tolerance_s.unsigned_abs() {
        return Err(WebhookError::TooOld);
    }
    let matches = |sig: &str| {
        let Ok(tag) = base64::engine::general_purpose::STANDARD.decode(sig) else {
            return false;
        };
        let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(&key) else {
            return false;
        };
        mac.update(format!("{}.{}.", headers.id, headers.timestamp).as_bytes());
        mac.update(body);
        mac.verify_slice(&tag).is_ok()
    };
    let signed = headers
        .signature
        .split(' ')
        .filter_map(|s| s.strip_prefix("v1,"))
        .any(matches);
    if signed {
        Ok(())
    } else {
        Err(WebhookError::BadSignature)
    }
}
