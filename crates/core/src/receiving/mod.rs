//! Receiving: stock expected at a location (`incoming`: a purchase order, goods in transit
//! from a supplier) and its receipts, which turn it into stock on hand. Incoming is not on
//! hand and never allocated; the SKU answer shows it beside on hand, per location and in
//! total (Shopify's `incoming` quantity state). A receipt adds to on hand at a location with a
//! `received` ledger entry; one naming an incoming takes from what is still expected of it,
//! never more (`409 exceeds_incoming`), so two receipts of one delivery racing each other
//! cannot both book the last units.

pub mod validate;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::support::input::MAX_REFERENCE_LEN;

/// `POST /v1/skus/{sku}/incoming` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct IncomingBody {
    /// Units expected, 1..=`max_quantity`.
    pub quantity: i64,
    /// Where they will arrive (default `default`); it must exist.
    #[serde(default)]
    pub location: Option<String>,
    /// When they are expected (RFC 3339); informational.
    #[serde(default)]
    pub expected_at: Option<DateTime<Utc>>,
    /// An absolute URI naming the document behind it (at most 2048 bytes).
    #[serde(default)]
    pub reference: Option<String>,
}

/// Stock expected at a location: a validated request, and (as stored and answered) the
/// incoming with what has been received of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Incoming {
    /// Server-generated id (UUIDv7 text).
    pub id: String,
    /// The SKU (count-tracked).
    pub sku: String,
    /// Where it will arrive.
    pub location: String,
    /// Units expected.
    pub quantity: i64,
    /// Units received of it so far, `0..=quantity`; `quantity - received` is still incoming.
    pub received: i64,
    /// When it is expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_at: Option<DateTime<Utc>>,
    /// The document behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Who asked (the API key's id); not sent.
    #[serde(skip)]
    pub actor: Option<String>,
}

/// `POST /v1/skus/{sku}/receipts` body: name either the incoming it fulfils (`incoming_id`;
/// it arrives at that incoming's location) or the `location`, not both.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReceiptBody {
    /// Units received, 1..=`max_quantity` (with `incoming_id`: at most what is still expected
    /// of it, else `409 exceeds_incoming`).
    pub quantity: i64,
    /// Where they arrive (default `default`); not with `incoming_id`.
    #[serde(default)]
    pub location: Option<String>,
    /// The incoming this receipt fulfils, in part or whole.
    #[serde(default)]
    pub incoming_id: Option<String>,
    /// An absolute URI naming the document behind it (a delivery note); at most 2048 bytes.
    #[serde(default)]
    pub reference: Option<String>,
}

/// A receipt: a validated request, and (as answered) the receipt made, its location filled
/// in from the incoming it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Receipt {
    /// Server-generated id (UUIDv7 text), the `ref` of its `received` ledger entry.
    pub id: String,
    /// The SKU (count-tracked).
    pub sku: String,
    /// Where the units arrived (always set in an answer: with an incoming, its location).
    pub location: Option<String>,
    /// Units received.
    pub quantity: i64,
    /// The incoming it fulfils.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incoming_id: Option<String>,
    /// The document behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Who asked (the API key's id), for the ledger; not sent.
    #[serde(skip)]
    pub actor: Option<String>,
}

/// Add each location's incoming `(location, units still expected)` to `levels`, making a
/// level with nothing on hand for a location that has incoming only, and set the total.
pub fn with_incoming<'a>(sku: &mut crate::model::Sku, incoming: impl IntoIterator<Item = (&'a str, i64)>) {
    for (location, n) in incoming {
        match sku.levels.iter_mut().find(|l| l.location == location) {
            Some(l) => l.incoming += n,
            None => sku.levels.push(crate::location::Level {
                incoming: n,
                ..crate::location::Level::empty(location)
            }),
        }
        sku.incoming += n;
    }
    sku.levels.sort_by(|a, b| a.location.cmp(&b.location));
}
