//! Holds (pre-withholding): stock or units set aside for `ttl_ms` while the buyer pays, then
//! confirmed (becomes an allocation with the hold's id), released, or expired.
//!
//! Expiry is exact for readers and writers before any sweeper runs: a hold whose
//! `expires_at` has passed *is* expired ([`HoldStatus::effective`]); a writer that finds a
//! line short first finalises the overdue holds on its SKUs and tries again (bounded), and the
//! sweeper of `allot serve` finalises the rest in bounded batches. Every finalisation is a
//! conditional `UPDATE … WHERE status = 'held'`, so a hold is returned exactly once and a
//! confirm racing with expiry has exactly one outcome.

pub mod event;
pub mod validate;

use crate::model::{AllocationLine, AllocationRequest};
use crate::unit::Unit;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use crate::status::HoldStatus;

impl HoldStatus {
    /// The ledger entry of a hold reaching this status (`Held` records the hold itself).
    pub fn ledger_kind(self) -> crate::model::LedgerKind {
        use crate::model::LedgerKind;
        match self {
            HoldStatus::Held => LedgerKind::Hold,
            HoldStatus::Confirmed => LedgerKind::HoldConfirmed,
            HoldStatus::Released => LedgerKind::HoldReleased,
            HoldStatus::Expired => LedgerKind::HoldExpired,
        }
    }

    /// The hold's own event on reaching this status (`Held`: its creation).
    pub fn event_type(self) -> crate::event::EventType {
        use crate::event::EventType;
        match self {
            HoldStatus::Held => EventType::HoldCreated,
            HoldStatus::Confirmed => EventType::HoldConfirmed,
            HoldStatus::Released => EventType::HoldReleased,
            HoldStatus::Expired => EventType::HoldExpired,
        }
    }

    /// The status a reader must see at `now`: a stored `held` past `expires_at` is `expired`
    /// even before the sweeper has written it.
    pub fn effective(self, expires_at: DateTime<Utc>, now: DateTime<Utc>) -> Self {
        if self == HoldStatus::Held && expires_at <= now {
            HoldStatus::Expired
        } else {
            self
        }
    }
}

/// What a hold sets aside: fungible stock lines, or individual units of one SKU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum HoldKind {
    /// `POST /v1/holds`: counts per SKU.
    Stock,
    /// `POST /v1/unit-allocations` with `hold_ttl_ms`, or `POST /v1/holds` with unit lines
    /// only: the claimed units are `held`.
    Units,
    /// `POST /v1/holds` with lines of several kinds (stock, units, bookings), taken together.
    Mixed,
}

impl HoldKind {
    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            HoldKind::Stock => "stock",
            HoldKind::Units => "units",
            HoldKind::Mixed => "mixed",
        }
    }

    /// Parse a stored name; `None` for a name no kind has.
    pub fn parse(s: &str) -> Option<Self> {
        [HoldKind::Stock, HoldKind::Units, HoldKind::Mixed]
            .into_iter()
            .find(|k| k.as_str() == s)
    }

    /// Parse a stored strategy name in this kind's family (a stock [`crate::strategy::Strategy`] or a
    /// [`crate::strategy::UnitStrategy`]); `None` for a name the family does not have. A
    /// unit hold made by `POST /v1/holds` records the stock strategy its request resolved.
    pub fn strategy(self, name: &str) -> Option<crate::strategy::TakenWith> {
        use crate::strategy::{TakenWith, UnitStrategy};
        let stock = || name.parse().ok().map(TakenWith::Stock);
        match self {
            HoldKind::Stock | HoldKind::Mixed => stock(),
            HoldKind::Units => UnitStrategy::parse(name).map(TakenWith::Units).or_else(stock),
        }
    }
}

/// A hold as the API returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Hold {
    /// Server-generated id (UUID v4 text); a confirmed hold's allocation has the same id.
    pub id: String,
    /// Effective status at the time of reading (see [`HoldStatus::effective`]).
    pub status: HoldStatus,
    /// `stock` or `units`.
    pub kind: HoldKind,
    /// Lines sorted by SKU (for a unit hold: one line, the SKU and how many units); a hold
    /// confirmed in part lists what it confirmed.
    pub lines: Vec<AllocationLine>,
    /// The units held (unit holds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub units: Option<Vec<Unit>>,
    /// The bookings its booking lines took, in the order of those lines (a hold with booking
    /// lines only): each `held` until the hold's `expires_at`, then as the hold ends
    /// (`confirmed`, `released`, `expired`), and reached through the hold alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bookings: Option<Vec<crate::booking::Booking>>,
    /// The strategy that took the quantity.
    pub strategy: crate::strategy::TakenWith,
    /// When the hold lapses (UTC).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub expires_at: DateTime<Utc>,
    /// When it was made (UTC).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/holds` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct HoldBody {
    /// One line per SKU (a SKU may appear once): stock lines and unit lines, taken together
    /// or not at all.
    pub lines: Vec<HoldLineBody>,
    /// How long the hold lasts, ms: `min_hold_ttl_ms..=max_hold_ttl_ms`.
    pub ttl_ms: i64,
    /// Strategy name; the server default when absent.
    #[serde(default)]
    pub strategy: Option<String>,
    /// As an allocation's `placement`.
    #[serde(default)]
    pub placement: Option<crate::location::PlacementBody>,
    /// As an allocation's `allow_split`.
    #[serde(default)]
    pub allow_split: Option<bool>,
}

/// One line of `POST /v1/holds`: a stock line (`sku`, `quantity`, `location`?, as an
/// allocation's), a kit line (`kit`, `quantity`, `location`?), a unit line (`units`) or a
/// booking line (`booking`), one kind each (the
/// schema's `oneOf`; a line of two kinds, or of none, is `400` naming `lines[i]`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged, try_from = "HoldLineFields")]
pub enum HoldLineBody {
    /// Units of a unit-tracked SKU, held as a unit claim with `hold_ttl_ms` holds them.
    Units(UnitsLine),
    /// A range of a resource, held as a booking with `hold_ttl_ms` is.
    Booking(BookingLine),
    /// Stock of a count-tracked SKU.
    Stock(crate::model::LineBody),
    /// Whole kits: each component's stock (see [`crate::kit`]).
    Kit(crate::kit::KitLineBody),
}

/// A hold's unit line: `{"units":{…}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UnitsLine {
    /// The units wanted.
    pub units: UnitLineBody,
}

/// A hold's booking line: `{"booking":{…}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BookingLine {
    /// The range wanted.
    pub booking: BookingLineBody,
}

/// The `booking` of a hold line: `[start, end)` of `resource`, `quantity` of its capacity.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct BookingLineBody {
    /// The resource.
    pub resource: String,
    /// Start, inclusive (RFC 3339 with offset).
    pub start: String,
    /// End, exclusive; after `start`.
    pub end: String,
    /// How many of the resource's capacity it takes in each slot (default 1; more needs a
    /// resource with slots).
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1_000_000))]
    pub quantity: Option<u32>,
}

/// A hold line as it is read: every field either kind may have, read in one pass (an
/// untagged enum would buffer each line to try the kinds in turn: five heap allocations per
/// line, `allot bench cost`), then made the one kind it is.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HoldLineFields {
    #[serde(default)]
    sku: Option<String>,
    #[serde(default)]
    kit: Option<String>,
    #[serde(default)]
    quantity: Option<i64>,
    #[serde(default)]
    location: Option<String>,
    #[serde(default)]
    units: Option<UnitLineBody>,
    #[serde(default)]
    booking: Option<BookingLineBody>,
}

impl TryFrom<HoldLineFields> for HoldLineBody {
    type Error = &'static str;

    fn try_from(f: HoldLineFields) -> Result<Self, Self::Error> {
        if let Some(booking) = f.booking {
            return match (f.units, f.sku.or(f.kit), f.quantity, f.location) {
                (None, None, None, None) => Ok(HoldLineBody::Booking(BookingLine { booking })),
                _ => Err("a booking line has `booking` only (no units, sku, kit, quantity or location beside it)"),
            };
        }
        if let Some(kit) = f.kit {
            return match (f.units, f.sku, f.quantity) {
                (None, None, Some(quantity)) => Ok(HoldLineBody::Kit(crate::kit::KitLineBody {
                    kit,
                    quantity,
                    location: f.location,
                })),
                _ => Err("a kit line has `kit`, `quantity` and `location`? only"),
            };
        }
        match (f.units, f.sku, f.quantity, f.location) {
            (Some(units), None, None, None) => Ok(HoldLineBody::Units(UnitsLine { units })),
            (Some(_), ..) => Err("a unit line has `units` only (no sku, quantity or location beside it)"),
            (None, Some(sku), Some(quantity), location) => Ok(HoldLineBody::Stock(crate::model::LineBody {
                sku,
                quantity,
                location,
            })),
            (None, ..) => Err("a stock line needs `sku` and `quantity` (a unit line: `units`)"),
        }
    }
}

impl HoldLineBody {
    /// A stock line of `quantity` of `sku`.
    pub fn stock(sku: impl Into<String>, quantity: i64) -> Self {
        HoldLineBody::Stock(crate::model::LineBody::new(sku, quantity))
    }

    /// The SKU the line names (a booking line names none).
    pub fn sku(&self) -> Option<&str> {
        match self {
            HoldLineBody::Units(u) => Some(&u.units.sku),
            HoldLineBody::Stock(l) => Some(&l.sku),
            HoldLineBody::Booking(_) | HoldLineBody::Kit(_) => None,
        }
    }
}

/// The `units` of a hold line.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UnitLineBody {
    /// The SKU (unit-tracked).
    pub sku: String,
    /// How many units, 1..=`max_unit_claim`.
    pub quantity: i64,
    /// As a unit claim's `order_by`.
    #[serde(default)]
    pub order_by: Vec<String>,
    /// The very units to hold, by serial: exactly `quantity` of them, each once, not with
    /// `order_by` (`400` naming the line otherwise). All of them or none: one that is not
    /// available (unknown, claimed, held) refuses the hold with `409 insufficient_stock`,
    /// `available` counting those of them that are.
    #[serde(default)]
    pub serials: Option<Vec<String>>,
}

/// `POST /v1/holds/{id}/confirm` body, optional: without `lines` the whole hold is confirmed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ConfirmBody {
    /// Confirm only these lines: quantities of the hold's stock and unit SKUs (each SKU once,
    /// else 422 `duplicate_sku`; at most what the hold holds of it, else
    /// `insufficient_stock`) and its bookings by id (each once; one not of the hold is 422
    /// `not_in_hold`); what is not named is released. A unit SKU keeps its `quantity` units of
    /// the lowest ids (the order `GET /v1/holds/{id}` lists them in).
    #[serde(default)]
    pub lines: Option<Vec<ConfirmLineBody>>,
}

/// One line of a partial confirm: a quantity of a SKU (`sku`, `quantity`) or a booking
/// (`booking`), one kind each (the schema's `oneOf`; a line of both, or of neither, is `400`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged, try_from = "ConfirmLineFields")]
pub enum ConfirmLineBody {
    /// How much of a stock or unit SKU of the hold is confirmed.
    Sku(ConfirmLine),
    /// A booking line of the hold, confirmed.
    Booking(ConfirmBookingLine),
}

/// A partial confirm's booking line: `{"booking":"<id>"}`, the id of one of the hold's
/// bookings (as the hold lists them).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ConfirmBookingLine {
    /// The booking's id.
    pub booking: String,
}

/// Every field a partial confirm's line may carry, sorted into a [`ConfirmLineBody`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfirmLineFields {
    #[serde(default)]
    sku: Option<String>,
    #[serde(default)]
    quantity: Option<i64>,
    #[serde(default)]
    booking: Option<String>,
}

impl TryFrom<ConfirmLineFields> for ConfirmLineBody {
    type Error = &'static str;

    fn try_from(f: ConfirmLineFields) -> Result<Self, Self::Error> {
        match (f.booking, f.sku, f.quantity) {
            (Some(booking), None, None) => Ok(ConfirmLineBody::Booking(ConfirmBookingLine { booking })),
            (Some(_), ..) => Err("a booking line has `booking` only (no sku or quantity beside it)"),
            (None, Some(sku), Some(quantity)) => Ok(ConfirmLineBody::Sku(ConfirmLine { sku, quantity })),
            (None, ..) => Err("a line needs `sku` and `quantity`, or `booking`"),
        }
    }
}

/// What a confirm of part of a hold keeps (validated by `validate::confirm`); the rest is
/// released.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfirmPart {
    /// `(sku, quantity)` kept of the hold's stock and unit SKUs, sorted by SKU, each once.
    pub lines: Vec<(String, i64)>,
    /// The ids of the hold's bookings kept, sorted, each once.
    pub bookings: Vec<String>,
}

/// What a partial confirm does to a hold: [`plan_part`]'s answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartPlan {
    /// Of each stock piece (in the order given), how much is kept.
    pub stock: Vec<i64>,
    /// Of each unit line (in the order given), how many of its units are kept: the first,
    /// in the order the hold lists them (by unit id).
    pub units: Vec<i64>,
    /// The hold's bookings that are released (not named), in the order given.
    pub released_bookings: Vec<String>,
}

impl PartPlan {
    /// The hold's lines once shrunk by this plan, from its stock pieces `(sku, location)`
    /// and its unit lines' SKUs, in the order planned: stock lines with `from`, unit lines,
    /// in SKU order ([`kept_lines`], [`with_kept_units`]).
    pub fn lines<'a>(
        &self,
        pieces: impl IntoIterator<Item = (&'a str, &'a str)>,
        units: impl IntoIterator<Item = &'a str>,
    ) -> Vec<AllocationLine> {
        let kept = pieces.into_iter().zip(&self.stock).map(|((s, l), k)| (s, l, *k));
        with_kept_units(kept_lines(kept), units.into_iter().zip(self.units.iter().copied()))
    }
}

/// What a hold holds, for [`plan_part`]: its stock pieces `(sku, quantity)` (in the order of
/// [`keep_of`]), its unit lines `(sku, quantity)`, its bookings (ids).
pub type HeldParts<'a> = (&'a [(String, i64)], &'a [(String, i64)], &'a [String]);

/// Plan the confirm of `part` of hold `hold_id`, which holds stock `pieces` `(sku,
/// quantity)` (in the order of [`keep_of`]), unit lines `units` `(sku, quantity)` and the
/// bookings `bookings` (ids).
///
/// Errors, in this order: `insufficient_stock` for a SKU named beyond what the hold holds of
/// it (stock and units together; a SKU it does not hold holds 0), the first in SKU order;
/// `not_in_hold` (422) for a booking named that is not one of the hold's.
pub fn plan_part(
    hold_id: &str,
    (pieces, units, bookings): HeldParts<'_>,
    part: &ConfirmPart,
) -> crate::support::error::Result<PartPlan> {
    for (sku, q) in &part.lines {
        let held: i64 = pieces
            .iter()
            .chain(units)
            .filter(|(s, _)| s == sku)
            .map(|(_, n)| n)
            .sum();
        if *q > held {
            return Err(crate::support::error::AllotError::InsufficientStock {
                sku: sku.clone(),
                requested: *q,
                available: held,
            });
        }
    }
    if let Some(b) = part.bookings.iter().find(|b| !bookings.contains(b)) {
        return Err(crate::support::error::AllotError::Unprocessable {
            rule: crate::support::error::Rule::NotInHold,
            message: format!("lines: booking `{b}` is not one of hold `{hold_id}`'s bookings"),
        });
    }
    let of_stock: Vec<(String, i64)> = part
        .lines
        .iter()
        .filter(|(s, _)| pieces.iter().any(|(p, _)| p == s))
        .cloned()
        .collect();
    let kept_units = units
        .iter()
        .map(|(sku, _)| part.lines.iter().find(|(s, _)| s == sku).map_or(0, |(_, q)| *q))
        .collect();
    Ok(PartPlan {
        stock: keep_of(pieces, &of_stock)?,
        units: kept_units,
        released_bookings: bookings
            .iter()
            .filter(|b| !part.bookings.contains(b))
            .cloned()
            .collect(),
    })
}

/// One line of a partial confirm: how much of a SKU the hold holds is confirmed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ConfirmLine {
    /// A SKU of the hold.
    pub sku: String,
    /// Units confirmed, 1..=what the hold holds of it.
    pub quantity: i64,
}

/// A partial confirm's plan: of each held piece `(sku, quantity)` (in the order given, e.g.
/// by bucket), how much is kept (confirmed); the rest is released. `wanted` holds each SKU
/// once with a quantity >= 1 (validated).
///
/// Errors: `insufficient_stock` (with what the hold holds as `available`) for more than the
/// hold holds of a SKU, or for a SKU it does not hold.
pub fn keep_of(pieces: &[(String, i64)], wanted: &[(String, i64)]) -> crate::support::error::Result<Vec<i64>> {
    for (sku, q) in wanted {
        let held: i64 = pieces.iter().filter(|(s, _)| s == sku).map(|(_, n)| n).sum();
        if *q > held {
            return Err(crate::support::error::AllotError::InsufficientStock {
                sku: sku.clone(),
                requested: *q,
                available: held,
            });
        }
    }
    let mut left: std::collections::HashMap<&str, i64> = wanted.iter().map(|(s, q)| (s.as_str(), *q)).collect();
    Ok(pieces
        .iter()
        .map(|(sku, n)| {
            let l = left.get_mut(sku.as_str()).map_or(0, |l| {
                let k = (*l).min(*n);
                *l -= k;
                k
            });
            l
        })
        .collect())
}

/// The lines a partial confirm keeps, from its kept pieces `(sku, location, quantity)` in
/// (sku, bucket) order (pieces of 0 are left out): one line per SKU with its `from`.
pub fn kept_lines<'a>(pieces: impl IntoIterator<Item = (&'a str, &'a str, i64)>) -> Vec<crate::model::AllocationLine> {
    let mut lines: Vec<crate::model::AllocationLine> = Vec::new();
    for (sku, location, k) in pieces.into_iter().filter(|p| p.2 > 0) {
        if lines.last().is_none_or(|l| l.sku != sku) {
            lines.push(crate::model::AllocationLine::new(sku, 0));
        }
        let l = lines.last_mut().expect("pushed above");
        l.quantity += k;
        let mut from: Vec<(&str, i64)> = l.from.iter().map(|s| (s.location.as_str(), s.quantity)).collect();
        from.push((location, k));
        l.from = crate::location::sources(from);
    }
    lines
}

/// `POST /v1/holds/{id}/extend` and `POST /v1/bookings/{id}/extend` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ExtendBody {
    /// The hold lasts at least this long from now, ms: `min_hold_ttl_ms..=max_hold_ttl_ms`
    /// (an extension never shortens a hold; see [`extended_expiry`]).
    pub ttl_ms: i64,
}

/// The expiry of a hold extended at `now` by `ttl_ms`: `now + ttl_ms`, or the current expiry
/// when that is later (extending never shortens; the bound `max_hold_ttl_ms` counts from now,
/// as seats.io's hold-token extension does).
pub fn extended_expiry(current: DateTime<Utc>, now: DateTime<Utc>, ttl_ms: u64) -> DateTime<Utc> {
    current.max(expires_at(now, ttl_ms))
}

/// Whether a hold in `stored` state with `expires_at` may be extended at `now`: only a `held`
/// hold that has not expired; otherwise `hold_expired` / `hold_released` / `hold_confirmed`.
pub fn extend_refusal(
    id: &str,
    stored: HoldStatus,
    expires_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> crate::support::error::Result<()> {
    match stored.effective(expires_at, now) {
        HoldStatus::Held => Ok(()),
        status => Err(crate::support::error::AllotError::HoldNotActive {
            id: id.to_string(),
            status,
        }),
    }
}

/// Confirming hold `id` (see `HoldStore::confirm_hold`): whole, or only `part`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    /// The hold.
    pub id: String,
    /// Only these lines (validated by `validate::confirm`); `None`: the whole hold.
    pub part: Option<ConfirmPart>,
    /// Who confirms (the API key's id), for the ledger.
    pub actor: Option<String>,
}

impl Confirm {
    /// Confirm hold `id` (whole when `part` is `None`) for `actor`.
    pub fn new(id: impl Into<String>, part: Option<ConfirmPart>, actor: Option<String>) -> Self {
        Confirm {
            id: id.into(),
            part,
            actor,
        }
    }
}

/// Releasing hold `id` (see `HoldStore::release_hold`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The hold.
    pub id: String,
    /// Who releases (the API key's id), for the ledger.
    pub actor: Option<String>,
}

impl Release {
    /// Release hold `id` for `actor`.
    pub fn new(id: impl Into<String>, actor: Option<String>) -> Self {
        Release { id: id.into(), actor }
    }
}

/// A validated hold request: the lines are taken exactly like an allocation's (same
/// strategies, same lock order) but move quantity to `held` instead of out of `on_hand`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldRequest {
    /// Id, stock lines (possibly none), strategy and spread hash, as for an allocation.
    pub take: AllocationRequest,
    /// The unit lines, sorted by SKU: taken after every stock line (the lock order across
    /// kinds: stock rows, then units, then resources).
    pub units: Vec<UnitLine>,
    /// The booking lines, sorted by (resource, start, end): taken after every unit line.
    pub bookings: Vec<HoldBookingLine>,
    /// Validated TTL, ms.
    pub ttl_ms: u64,
}

/// A validated unit line of a hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitLine {
    /// The SKU.
    pub sku: String,
    /// Units wanted (all of them: a hold's line is never partial).
    pub quantity: i64,
    /// Order keys (validated).
    pub order_by: Vec<crate::unit::OrderKey>,
    /// The units by serial, sorted (validated; empty: any `quantity` in `order_by`'s order).
    pub serials: Vec<String>,
}

/// A validated booking line of a hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldBookingLine {
    /// Its index in the request's `lines` (a refusal of it names `lines[line]`).
    pub line: usize,
    /// The resource.
    pub resource: String,
    /// Start, inclusive.
    pub start: DateTime<Utc>,
    /// End, exclusive.
    pub end: DateTime<Utc>,
    /// Quantity, 1..=`MAX_CAPACITY`.
    pub quantity: u32,
}

impl HoldRequest {
    /// What the hold holds: stock, units, or lines of several kinds (booking lines come with
    /// stock or unit lines: see `validate::hold`).
    pub fn kind(&self) -> HoldKind {
        match (
            self.take.lines.is_empty(),
            self.units.is_empty(),
            self.bookings.is_empty(),
        ) {
            (_, true, true) => HoldKind::Stock,
            (true, false, true) => HoldKind::Units,
            _ => HoldKind::Mixed,
        }
    }

    /// Booking line `i` (of [`HoldRequest::bookings`]) as the booking a backend makes for it:
    /// held until the hold's expiry, by `strategy`, for the holder `hold:<id>`; its id is
    /// the hold's id and the line's index, made a UUID ([`booking_id`]).
    pub fn booking_request(&self, i: usize, strategy: crate::strategy::BookingStrategy) -> crate::BookingRequest {
        let b = &self.bookings[i];
        crate::BookingRequest {
            id: booking_id(&self.take.id, i),
            resource: b.resource.clone(),
            start: b.start,
            end: b.end,
            holder: format!("hold:{}", self.take.id),
            metadata: None,
            strategy,
            hold_ttl_ms: Some(self.ttl_ms),
            quantity: b.quantity,
            hold_id: Some(self.take.id.clone()),
        }
    }

    /// Unit line `line` as the unit claim a backend runs for it: held until the hold's
    /// expiry, all or nothing, by `strategy`.
    pub fn unit_claim(&self, line: &UnitLine, strategy: crate::strategy::UnitStrategy) -> crate::unit::UnitClaim {
        crate::unit::UnitClaim {
            id: self.take.id.clone(),
            sku: line.sku.clone(),
            quantity: line.quantity,
            order_by: line.order_by.clone(),
            allow_partial: false,
            strategy,
            hold_ttl_ms: Some(self.ttl_ms),
            actor: self.take.actor.clone(),
            serials: line.serials.clone(),
        }
    }

    /// The hold this request becomes when it succeeds at `now`, its stock lines taken as
    /// `answered` (with `from`, in SKU order): those and its unit lines, merged in SKU order
    /// ([`with_unit_lines`]); `units` empty until the backend lists what it took.
    pub fn to_hold(&self, answered: Vec<AllocationLine>, now: DateTime<Utc>) -> Hold {
        let kind = self.kind();
        Hold {
            id: self.take.id.clone(),
            status: HoldStatus::Held,
            kind,
            lines: with_unit_lines(answered, &self.units),
            units: (kind != HoldKind::Stock).then(Vec::new),
            bookings: (!self.bookings.is_empty()).then(Vec::new),
            strategy: self.take.strategy.into(),
            expires_at: expires_at(now, self.ttl_ms),
            created_at: now,
        }
    }
}

/// A hold's lines as it answers them: its stock lines as taken (`answered`, with `from`, in
/// SKU order) and its unit lines (`units`, in SKU order), merged in SKU order.
pub fn with_unit_lines(answered: Vec<AllocationLine>, units: &[UnitLine]) -> Vec<AllocationLine> {
    with_kept_units(answered, units.iter().map(|u| (u.sku.as_str(), u.quantity)))
}

/// Stock lines (`stock`, in SKU order, with `from`) and unit lines `(sku, quantity)` (a line
/// of 0 left out: a partial confirm kept none of it) merged in SKU order: a new hold's lines
/// ([`with_unit_lines`]) and a partially confirmed hold's ([`PartPlan::lines`]).
pub fn with_kept_units<'a>(
    stock: Vec<AllocationLine>,
    units: impl IntoIterator<Item = (&'a str, i64)>,
) -> Vec<AllocationLine> {
    let mut lines = stock;
    for (sku, k) in units.into_iter().filter(|u| u.1 > 0) {
        let at = lines.partition_point(|l| l.sku.as_str() < sku);
        lines.insert(at, AllocationLine::new(sku, k));
    }
    lines
}

/// The id of booking line `i` of hold `hold_id`: a name-based UUID (version 5, RFC 9562
/// §5.5) in the hold's UUID as namespace, of the line's index; the same on every backend and
/// in every replay, its own for each line. A hold id that is no UUID (the model's) gives
/// `<hold_id>.<i>`.
pub fn booking_id(hold_id: &str, i: usize) -> String {
    match uuid::Uuid::parse_str(hold_id) {
        Ok(ns) => uuid::Uuid::new_v5(&ns, &(i as u64).to_be_bytes()).to_string(),
        Err(_) => format!("{hold_id}.{i}"),
    }
}

pub use crate::support::instant::expires_at;

/// How the stored state of a hold answers a `confirm` that found it not `held` (or `held`
/// but overdue): `Ok(())` when the hold is already confirmed (confirm is idempotent: the
/// caller returns the allocation), else the `409` error naming the state.
pub fn confirm_refusal(
    id: &str,
    stored: HoldStatus,
    expires_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> crate::support::error::Result<()> {
    match stored.effective(expires_at, now) {
        HoldStatus::Confirmed => Ok(()),
        status => Err(crate::support::error::AllotError::HoldNotActive {
            id: id.to_string(),
            status,
        }),
    }
}

#[cfg(test)]
mod partial_tests {
    use super::*;

    #[test]
    fn a_partial_confirm_keeps_the_first_pieces() {
        let p = |v: &[(&str, i64)]| v.iter().map(|(s, n)| (s.to_string(), *n)).collect::<Vec<_>>();
        let pieces = p(&[("A", 2), ("A", 3), ("B", 4)]);
        assert_eq!(keep_of(&pieces, &p(&[("A", 4)])).unwrap(), vec![2, 2, 0]);
        assert_eq!(keep_of(&pieces, &p(&[("B", 4), ("A", 1)])).unwrap(), vec![1, 0, 4]);
        assert_eq!(
            keep_of(&pieces, &p(&[("A", 6)])).unwrap_err().code(),
            "insufficient_stock"
        );
        assert_eq!(
            keep_of(&pieces, &p(&[("C", 1)])).unwrap_err().code(),
            "insufficient_stock"
        );
    }
}

#[cfg(test)]
mod plan_tests {
    use super::*;

    fn p(v: &[(&str, i64)]) -> Vec<(String, i64)> {
        v.iter().map(|(s, n)| (s.to_string(), *n)).collect()
    }

    #[test]
    fn a_part_keeps_stock_units_and_bookings_named_and_nothing_else() {
        let (pieces, units) = (p(&[("TEE", 2), ("TEE", 1)]), p(&[("SEAT", 2), ("BIKE", 1)]));
        let bookings = vec!["b1".to_string(), "b2".to_string()];
        let held = (pieces.as_slice(), units.as_slice(), bookings.as_slice());
        let part = ConfirmPart {
            lines: p(&[("SEAT", 1), ("TEE", 3)]),
            bookings: vec!["b2".into()],
        };
        let plan = plan_part("h", held, &part).unwrap();
        assert_eq!(plan.stock, [2, 1]);
        assert_eq!(plan.units, [1, 0], "BIKE not named: none kept");
        assert_eq!(plan.released_bookings, ["b1"]);
        // Beyond what is held of a unit SKU, or a SKU not held; a booking not the hold's.
        for (lines, code) in [
            (&[("SEAT", 3)][..], "insufficient_stock"),
            (&[("HAT", 1)][..], "insufficient_stock"),
        ] {
            let part = ConfirmPart {
                lines: p(lines),
                bookings: Vec::new(),
            };
            assert_eq!(plan_part("h", held, &part).unwrap_err().code(), code);
        }
        let stranger = ConfirmPart {
            lines: p(&[("TEE", 1)]),
            bookings: vec!["b9".into()],
        };
        assert_eq!(plan_part("h", held, &stranger).unwrap_err().code(), "not_in_hold");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_extension_never_shortens_and_only_a_live_hold_extends() {
        let now = Utc::now();
        let later = now + chrono::Duration::seconds(60);
        assert_eq!(extended_expiry(later, now, 1_000), later);
        assert_eq!(
            extended_expiry(later, now, 120_000),
            now + chrono::Duration::seconds(120)
        );
        assert!(extend_refusal("h", HoldStatus::Held, later, now).is_ok());
        for (stored, exp, code) in [
            (HoldStatus::Held, now, "hold_expired"),
            (HoldStatus::Released, later, "hold_released"),
            (HoldStatus::Confirmed, later, "hold_confirmed"),
            (HoldStatus::Expired, later, "hold_expired"),
        ] {
            assert_eq!(extend_refusal("h", stored, exp, now).unwrap_err().code(), code);
        }
    }

    #[test]
    fn effective_status_expires_exactly_at_expiry() {
        let t = Utc::now();
        assert_eq!(HoldStatus::Held.effective(t, t), HoldStatus::Expired);
        assert_eq!(
            HoldStatus::Held.effective(t + chrono::Duration::milliseconds(1), t),
            HoldStatus::Held
        );
        assert_eq!(HoldStatus::Released.effective(t, t), HoldStatus::Released);
        for s in [
            HoldStatus::Held,
            HoldStatus::Confirmed,
            HoldStatus::Released,
            HoldStatus::Expired,
        ] {
            assert_eq!(HoldStatus::parse(s.as_str()), Some(s));
        }
    }

    #[test]
    fn confirm_refusals() {
        let t = Utc::now();
        assert!(confirm_refusal("h", HoldStatus::Confirmed, t, t).is_ok());
        assert_eq!(
            confirm_refusal("h", HoldStatus::Held, t, t).unwrap_err().code(),
            "hold_expired"
        );
        assert_eq!(
            confirm_refusal("h", HoldStatus::Released, t, t).unwrap_err().code(),
            "hold_released"
        );
    }
}
