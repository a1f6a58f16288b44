//! Domain types: SKUs, ledger entries, allocations, and the request bodies as they arrive
//! (before validation, which `validate.rs` does).

pub mod order_line;
pub mod reason;
pub mod validate;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// Which SKUs a listing returns (every field optional: all match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkuFilter {
    /// Low stock: only SKUs whose available count is below this (`1`: sold out).
    pub available_below: Option<i64>,
    /// Search: only SKUs whose name starts with this (a SKU name, checked as one).
    pub prefix: Option<String>,
}

/// A SKU's stock. `available = on_hand - held - damaged - quality_control - safety_stock`,
/// never negative. For a segmented SKU the counts are the totals over its buckets and
/// `version` is the sum of the buckets' versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Sku {
    /// The SKU name, 1..=128 chars of `[A-Za-z0-9._:-]`.
    #[cfg_attr(feature = "openapi", schema(example = "HOT"))]
    pub sku: String,
    /// Units physically in stock (not yet allocated): available + held + the unsellable
    /// states.
    pub on_hand: i64,
    /// Units set aside by holds.
    pub held: i64,
    /// What allocations and holds may take: `on_hand - held` less the unsellable states.
    pub available: i64,
    /// On hand but broken or spoiled: never sold (see `allot_core::states`).
    pub damaged: i64,
    /// On hand but waiting for inspection: never sold.
    pub quality_control: i64,
    /// On hand but kept back as a buffer: never sold.
    pub safety_stock: i64,
    /// Expected, not on hand yet: what incoming stock still awaits receipt; never
    /// allocated.
    pub incoming: i64,
    /// Increases with every change; used by the optimistic strategy.
    pub version: i64,
    /// How many buckets (segments) the stock is split into at each location; 1 means
    /// unsegmented.
    pub buckets: u32,
    /// The counts per location, by location name (a unit-tracked SKU's from its units'
    /// `location`, units without one at `default`). The totals above are their sums.
    pub levels: Vec<crate::location::Level>,
    /// Available below this is `sku.low_stock` on the change feed; absent: no threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub low_stock_below: Option<i64>,
    /// Most units allocations may owe beyond stock at once ([`crate::backorder`]); absent: 0,
    /// no backorders.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub backorder_limit: i64,
    /// Units allocations owe now (filled oldest first as stock comes back); absent: 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub backordered: i64,
    /// How `strategy: "auto"` stands for this SKU on the instance that answered; absent
    /// until an `auto` request of it arrived there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto: Option<crate::strategy::auto::AutoView>,
}

impl Sku {
    /// A SKU from its counts; `available` is derived as `on_hand - held`.
    pub fn from_counts(sku: impl Into<String>, on_hand: i64, held: i64, version: i64, buckets: u32) -> Self {
        Sku {
            sku: sku.into(),
            on_hand,
            held,
            available: on_hand - held,
            damaged: 0,
            quality_control: 0,
            safety_stock: 0,
            incoming: 0,
            version,
            buckets,
            levels: Vec::new(),
            low_stock_below: None,
            backorder_limit: 0,
            backordered: 0,
            auto: None,
        }
    }

    /// A freshly created SKU: nothing held, version 1 per bucket, all at its location.
    pub fn created(req: &CreateSku) -> Self {
        let mut s = Sku::from_counts(&req.sku, req.on_hand, 0, i64::from(req.buckets), req.buckets);
        s.levels = crate::location::levels([(req.location.as_str(), req.on_hand, 0)]);
        s.low_stock_below = req.low_stock_below;
        s
    }
}

/// What a ledger entry records. Stored and sent as its snake_case name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum LedgerKind {
    /// A SKU created with its initial stock.
    Created,
    /// A stock adjustment (`ref` is its reason).
    Adjustment,
    /// An allocation (`ref` is its id).
    Allocation,
    /// A hold set stock or units aside (`ref` is the hold's id).
    Hold,
    /// A hold became an allocation.
    HoldConfirmed,
    /// A hold was released.
    HoldReleased,
    /// A hold expired.
    HoldExpired,
    /// Units received into a unit-tracked SKU.
    UnitsReceived,
    /// An allocation was cancelled: its quantity is back (`ref` is the allocation's id).
    AllocationCancelled,
    /// Part of an allocation came back on hand by a sellable return (`ref` is the
    /// allocation's id).
    Returned,
    /// One side of a transfer between locations (`ref` is the transfer's id): the entry at
    /// `from` takes, the one at `to` gives, in one transaction.
    Transfer,
    /// Stock received at a location (`ref` is the receipt's id; see [`crate::receiving`]).
    Received,
    /// Units moved between quantity states at a location (`ref` is the move's id; see
    /// [`crate::states`]): `delta` is what the move did to the sellable part of on hand.
    Moved,
    /// Stock that came back filled part of a backordered allocation line (`ref` is the
    /// allocation's id; see [`crate::backorder`]).
    BackorderFilled,
}

impl LedgerKind {
    /// Every kind.
    pub const ALL: [LedgerKind; 14] = [
        LedgerKind::Created,
        LedgerKind::Adjustment,
        LedgerKind::Allocation,
        LedgerKind::Hold,
        LedgerKind::HoldConfirmed,
        LedgerKind::HoldReleased,
        LedgerKind::HoldExpired,
        LedgerKind::UnitsReceived,
        LedgerKind::AllocationCancelled,
        LedgerKind::Transfer,
        LedgerKind::Returned,
        LedgerKind::Received,
        LedgerKind::Moved,
        LedgerKind::BackorderFilled,
    ];

    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            LedgerKind::Created => "created",
            LedgerKind::Adjustment => "adjustment",
            LedgerKind::Allocation => "allocation",
            LedgerKind::Hold => "hold",
            LedgerKind::HoldConfirmed => "hold_confirmed",
            LedgerKind::HoldReleased => "hold_released",
            LedgerKind::HoldExpired => "hold_expired",
            LedgerKind::UnitsReceived => "units_received",
            LedgerKind::AllocationCancelled => "allocation_cancelled",
            LedgerKind::Transfer => "transfer",
            LedgerKind::Returned => "returned",
            LedgerKind::Received => "received",
            LedgerKind::Moved => "moved",
            LedgerKind::BackorderFilled => "backorder_filled",
        }
    }

    /// Parse a stored name; `None` for a name no kind has.
    pub fn parse(s: &str) -> Option<Self> {
        LedgerKind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One change of a SKU's `on_hand` and/or `held`. The sum of a SKU's entries is its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LedgerEntry {
    /// Increasing id, for paging with `after`.
    pub id: i64,
    /// Change of the sellable part of `on_hand` (available + held): a `moved` entry
    /// between two unsellable states reads 0.
    pub delta: i64,
    /// Change of `held`.
    pub held_delta: i64,
    /// What made the change.
    pub kind: LedgerKind,
    /// The object that made it: the allocation, hold, transfer, receipt, move or return's
    /// allocation id (an adjustment written before reasons were a closed set: its free-text
    /// reason).
    #[serde(rename = "ref")]
    pub reference: Option<String>,
    /// Why (the reason said, else its kind's, see [`reason::StockReason`]).
    pub reason: reason::StockReason,
    /// The absolute URI of the document behind it, if the request named one.
    #[serde(rename = "reference")]
    pub document: Option<String>,
    /// The location whose stock changed (`None` for a unit-tracked SKU's entries).
    pub location: Option<String>,
    /// Who made the change: the id of the API key (`None`: a server without keys, or the
    /// server itself, e.g. an expiry).
    pub actor: Option<String>,
    /// When it was written (UTC).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub at: DateTime<Utc>,
}

/// One line of an allocation or hold request, as a client may say it: a SKU, how many units
/// and, optionally, the one location they must come from. Nothing else: where a line came
/// from and what came back of it are the server's ([`AllocationLine`]), and naming them in a
/// request is an unknown field (parse, don't validate).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LineBody {
    /// The SKU.
    pub sku: String,
    /// Units, >= 1.
    pub quantity: i64,
    /// Only from this location (overrides the request's `placement`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
}

/// One line of an allocation or hold as the server keeps and answers it: a SKU and how many
/// units, the location it was pinned to, where they came from and how much came back. Only
/// the server makes one (from a validated [`LineBody`], or from stored rows): no request
/// type contains it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AllocationLine {
    /// The SKU.
    pub sku: String,
    /// Units, >= 1.
    pub quantity: i64,
    /// The location the request pinned the line to, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// How much came from each location, in the order taken (a unit claim's lines have none:
    /// its units carry their location).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from: Vec<crate::location::Source>,
    /// How much of the line came back by returns (sellable and damaged), derived from the
    /// allocation's return records when it is read; what is left of it is
    /// `quantity - returned`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub returned: i64,
    /// Units the line still owes, when it was backordered ([`crate::backorder`]): what its
    /// `from` does not yet cover of `quantity` (0 once filled, or once a cancel dropped it);
    /// absent on a line that never owed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backordered: Option<i64>,
}

impl LineBody {
    /// A line of `quantity` of `sku`, placed by the request's placement.
    pub fn new(sku: impl Into<String>, quantity: i64) -> Self {
        LineBody {
            sku: sku.into(),
            quantity,
            location: None,
        }
    }
}

impl From<LineBody> for AllocationLine {
    fn from(b: LineBody) -> Self {
        AllocationLine {
            sku: b.sku,
            quantity: b.quantity,
            location: b.location,
            from: Vec::new(),
            returned: 0,
            backordered: None,
        }
    }
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

impl AllocationLine {
    /// Where what is left of an answered line came from, `(location, quantity)` in location
    /// order (the order a give-back locks them in): its `from` less what was returned (taken
    /// off the last locations first); a line without `from` (made before locations) came
    /// from `default`.
    pub fn origins(&self) -> Vec<(&str, i64)> {
        // A line that owed all of it took nothing: its empty `from` is not a line of before
        // locations.
        let mut o: Vec<(&str, i64)> = if self.from.is_empty() && self.backordered.is_none() {
            vec![(crate::location::DEFAULT_LOCATION, self.quantity)]
        } else {
            self.from.iter().map(|s| (s.location.as_str(), s.quantity)).collect()
        };
        let mut returned = self.returned;
        for (_, q) in o.iter_mut().rev() {
            let r = returned.min(*q);
            *q -= r;
            returned -= r;
        }
        o.retain(|(_, q)| *q > 0);
        o.sort();
        o
    }

    /// A line of `quantity` of `sku`, placed by the request's placement.
    pub fn new(sku: impl Into<String>, quantity: i64) -> Self {
        AllocationLine {
            sku: sku.into(),
            quantity,
            location: None,
            from: Vec::new(),
            returned: 0,
            backordered: None,
        }
    }
}

/// The status of an allocation or a unit claim: `allocated` (taken for good), or `held` (a
/// unit claim made with `hold_ttl_ms`, until it is confirmed, released or expires).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum AllocationStatus {
    /// Taken for good.
    Allocated,
    /// Set aside by a unit hold.
    Held,
    /// Cancelled: its quantity went back to stock (its units back to available).
    Cancelled,
}

impl AllocationStatus {
    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            AllocationStatus::Allocated => "allocated",
            AllocationStatus::Held => "held",
            AllocationStatus::Cancelled => "cancelled",
        }
    }

    /// Parse a stored name; `None` for a name no status has.
    pub fn parse(s: &str) -> Option<Self> {
        [
            AllocationStatus::Allocated,
            AllocationStatus::Held,
            AllocationStatus::Cancelled,
        ]
        .into_iter()
        .find(|a| a.as_str() == s)
    }
}

/// An allocation: stock taken for good (all of its lines or none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Allocation {
    /// Server-generated id (UUID v4 text).
    pub id: String,
    /// `allocated`, or `cancelled` once cancelled.
    pub status: AllocationStatus,
    /// The lines, sorted by SKU (the order they were locked in).
    pub lines: Vec<AllocationLine>,
    /// The strategy that served it.
    pub strategy: crate::strategy::TakenWith,
    /// When it was made (UTC).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub created_at: DateTime<Utc>,
}

/// `POST /v1/skus` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct CreateSkuBody {
    /// SKU name.
    pub sku: String,
    /// Initial stock, >= 0.
    pub on_hand: i64,
    /// Buckets for the `segmented` strategy (default 1), at each location.
    #[serde(default)]
    pub buckets: Option<i64>,
    /// Where the initial stock is (default `default`); it must exist.
    #[serde(default)]
    pub location: Option<String>,
    /// Available below this is `sku.low_stock` on the change feed, 1..=`max_quantity`.
    #[serde(default)]
    pub low_stock_below: Option<i64>,
}

/// `PATCH /v1/skus/{sku}` body: settings of a SKU that move no stock, at least one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SkuSettingsBody {
    /// The `sku.low_stock` threshold, 1..=`max_quantity`; `null` removes it; absent: kept.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<i64>))]
    pub low_stock_below: Option<Option<i64>>,
    /// Most units allocations may owe beyond stock at once, 0..=`max_quantity` (0: no
    /// backorders; see `allot_core::backorder`); absent: kept; `null` is refused.
    #[serde(default, deserialize_with = "not_null")]
    #[cfg_attr(feature = "openapi", schema(value_type = i64))]
    pub backorder_limit: Option<i64>,
}

/// A field that may be absent (`None`), `null` (`Some(None)`) or a value: serde gives a
/// missing field its default and this the rest (the "double option" of serde's docs).
fn present<'de, D, T>(d: D) -> std::result::Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// A field that may be absent (`None`, serde's default for a missing field) or a value, never
/// `null` (a deserialization error naming the field: Schemathesis sent `null` where the
/// document says integer).
fn not_null<'de, D, T>(d: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(d).map(Some)
}

/// `POST /v1/skus/{sku}/adjustments` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AdjustmentBody {
    /// Change of `on_hand`, non-zero; negative beyond `available` is `insufficient_stock`.
    pub delta: i64,
    /// Why (default `correction`), kept on the ledger entry and in its event.
    #[serde(default)]
    pub reason: Option<reason::StockReason>,
    /// An absolute URI naming the document behind it (a count sheet, a ticket); at most 2048
    /// bytes.
    #[serde(default)]
    pub reference: Option<String>,
    /// Which location's stock changes (default `default`); it must exist.
    #[serde(default)]
    pub location: Option<String>,
}

/// `POST /v1/allocations` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct AllocationBody {
    /// One line per SKU (a SKU may appear once in a plain line) or per kit (its components'
    /// demand summed with the plain lines' before anything is checked).
    pub lines: Vec<order_line::OrderLineBody>,
    /// Strategy name; the server default when absent.
    #[serde(default)]
    pub strategy: Option<String>,
    /// Which locations an unpinned line is taken from: `priority` (default),
    /// `most_available`, or a ranked list of locations (only those, in that order).
    #[serde(default)]
    pub placement: Option<crate::location::PlacementBody>,
    /// Whether a line may be filled from several locations (default false: each line from
    /// one location).
    #[serde(default)]
    pub allow_split: Option<bool>,
}

/// A validated SKU creation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateSku {
    /// Name.
    pub sku: String,
    /// Initial stock.
    pub on_hand: i64,
    /// Buckets per location, >= 1.
    pub buckets: u32,
    /// Where the initial stock is.
    pub location: String,
    /// The `sku.low_stock` threshold.
    pub low_stock_below: Option<i64>,
    /// Who asks (the API key's id), for the ledger.
    pub actor: Option<String>,
}

/// Cancelling allocation `id` (see `StockStore::cancel_allocation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cancel {
    /// The allocation.
    pub id: String,
    /// Who cancels (the API key's id), for the ledger.
    pub actor: Option<String>,
}

impl Cancel {
    /// Cancel allocation `id` for `actor`.
    pub fn new(id: impl Into<String>, actor: Option<String>) -> Self {
        Cancel { id: id.into(), actor }
    }
}

/// A validated adjustment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Adjustment {
    /// SKU.
    pub sku: String,
    /// Non-zero change of `on_hand`.
    pub delta: i64,
    /// Why (`correction` unless said).
    pub reason: reason::StockReason,
    /// The document behind it.
    pub reference: Option<String>,
    /// The location whose stock changes.
    pub location: String,
    /// Who asks (the API key's id), for the ledger.
    pub actor: Option<String>,
}

/// A validated allocation request: lines sorted by SKU (the global lock order), ids assigned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllocationRequest {
    /// The allocation's id, chosen before execution.
    pub id: String,
    /// Lines sorted by SKU, each SKU once.
    pub lines: Vec<AllocationLine>,
    /// The strategy to run.
    pub strategy: crate::strategy::Strategy,
    /// Hash of the request id, used by `segmented` to pick the first bucket.
    pub spread_hash: u64,
    /// Where unpinned lines are taken from.
    pub placement: crate::location::Placement,
    /// Whether a line may come from several rows (locations or buckets).
    pub allow_split: bool,
    /// Fencing tokens of a `redis_lock` acquisition, `(sku, token)` per line (empty for every
    /// other strategy): the store applies the request only if each token is newer than the
    /// last one its SKU row has seen, and records it.
    pub fences: Vec<(String, i64)>,
    /// Who asks (the API key's id), for the ledger.
    pub actor: Option<String>,
}

impl AllocationRequest {
    /// The placement rule of `line`.
    pub fn rule<'a>(&'a self, line: &'a AllocationLine) -> crate::location::LineRule<'a> {
        crate::location::LineRule {
            pin: line.location.as_deref(),
            placement: &self.placement,
            allow_split: self.allow_split,
        }
    }

    /// Whether every line takes from the row its SKU's placement policy picks: no line pinned
    /// to a location, no ranked list of locations. A SKU stocked at one location then has one
    /// row every such writer meets on (the single-statement path, the writers' gate).
    pub fn placed_by_policy(&self) -> bool {
        !matches!(self.placement, crate::location::Placement::Ranked(_))
            && self.lines.iter().all(|l| l.location.is_none())
    }

    /// The allocation this request becomes when it succeeds at `created_at`.
    pub fn to_allocation(&self, created_at: DateTime<Utc>) -> Allocation {
        Allocation {
            id: self.id.clone(),
            status: AllocationStatus::Allocated,
            lines: self.lines.clone(),
            strategy: self.strategy.into(),
            created_at,
        }
    }

    /// [`AllocationRequest::to_allocation`], taking the request's id and lines instead of
    /// copying them.
    pub fn into_allocation(self, created_at: DateTime<Utc>) -> Allocation {
        Allocation {
            id: self.id,
            status: AllocationStatus::Allocated,
            lines: self.lines,
            strategy: self.strategy.into(),
            created_at,
        }
    }
}

/// Split `total` as evenly as possible over `n` parts (the first ones get the remainder).
pub fn split_even(total: i64, n: u32) -> Vec<i64> {
    let n = i64::from(n.max(1));
    let base = total.div_euclid(n);
    let rem = total.rem_euclid(n);
    (0..n).map(|i| base + i64::from(i < rem)).collect()
}

/// One bucket's counts, as read under lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BucketCounts {
    /// Bucket number, 0-based.
    pub bucket: u32,
    /// On hand.
    pub on_hand: i64,
    /// Held.
    pub held: i64,
}

/// Plan the relative change of each bucket of `sku` so that its total `on_hand` changes by
/// `delta` and its available stock ends up spread evenly over the buckets (each bucket keeps
/// its held units). Returns `(bucket, on_hand change)` for buckets that change.
///
/// Errors: `insufficient_stock` when the new total available would be negative.
pub fn plan_rebalance(
    sku: &str,
    buckets: &[BucketCounts],
    delta: i64,
) -> crate::support::error::Result<Vec<(u32, i64)>> {
    let before: i64 = buckets.iter().map(|b| b.on_hand - b.held).sum();
    let available = before + delta;
    if available < 0 {
        return Err(crate::support::error::AllotError::InsufficientStock {
            sku: sku.to_string(),
            requested: -delta,
            available: before,
        });
    }
    let shares = split_even(available, buckets.len() as u32);
    Ok(buckets
        .iter()
        .zip(shares)
        .map(|(b, share)| (b.bucket, b.held + share - b.on_hand))
        .filter(|(_, d)| *d != 0)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn split_even_examples() {
        assert_eq!(split_even(10, 3), vec![4, 3, 3]);
        assert_eq!(split_even(0, 2), vec![0, 0]);
        assert_eq!(split_even(5, 1), vec![5]);
    }

    proptest! {
        #[test]
        fn rebalance_conserves_and_spreads(
            counts in proptest::collection::vec((0i64..1000, 0i64..1000), 1..8),
            delta in -3000i64..3000,
        ) {
            let buckets: Vec<BucketCounts> = counts.iter().enumerate()
                .map(|(i, (a, h))| BucketCounts { bucket: i as u32, on_hand: a + h, held: *h })
                .collect();
            let before: i64 = buckets.iter().map(|b| b.on_hand).sum();
            let avail: i64 = buckets.iter().map(|b| b.on_hand - b.held).sum();
            match plan_rebalance("S", &buckets, delta) {
                Err(e) => {
                    prop_assert!(avail + delta < 0);
                    prop_assert_eq!(e, crate::support::error::AllotError::InsufficientStock { sku: "S".into(), requested: -delta, available: avail });
                }
                Ok(plan) => {
                    let mut after: Vec<BucketCounts> = buckets.clone();
                    for (b, d) in plan { after[b as usize].on_hand += d; }
                    prop_assert_eq!(after.iter().map(|b| b.on_hand).sum::<i64>(), before + delta);
                    let avails: Vec<i64> = after.iter().map(|b| b.on_hand - b.held).collect();
                    prop_assert!(avails.iter().all(|a| *a >= 0));
                    prop_assert!(avails.iter().max().unwrap() - avails.iter().min().unwrap() <= 1);
                }
            }
        }
    }
}
