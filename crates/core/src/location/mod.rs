//! Locations: where a SKU's stock is (a warehouse, a store, a shelf), and placement — which
//! location(s) a line is taken from. Pure: the stores read the rows, this module orders
//! them and plans the take; the stores (or the database's conditional UPDATE) apply it.
//!
//! A SKU has one stock row per (location, bucket); every row keeps its own `bucket` number
//! (unique per SKU) and its `location`. The policies are those of the inventory systems
//! allot's users know: Saleor's warehouse allocation strategies "prioritize by sorting
//! order" and "prioritize high stock" (here `priority` and `most_available`), and Shopify's
//! per-location levels; a caller's ranked list covers "nearest to the customer first".

pub mod validate;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The location every SKU has before any other is named, and where stock goes when a
/// request names none. It exists in every tenant without being created, with priority 0.
pub const DEFAULT_LOCATION: &str = "default";

/// A location of a tenant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Location {
    /// Name, as a SKU's (1..=128 chars of `[A-Za-z0-9._:-]`).
    #[cfg_attr(feature = "openapi", schema(example = "WH-EAST"))]
    pub location: String,
    /// Placement order of the `priority` policy: lower is placed first; ties by name.
    pub priority: i32,
    /// When it was created (`None` for the built-in `default`).
    pub created_at: Option<DateTime<Utc>>,
}

impl Location {
    /// The built-in `default` location.
    pub fn builtin() -> Self {
        Location {
            location: DEFAULT_LOCATION.to_string(),
            priority: 0,
            created_at: None,
        }
    }
}

/// `POST /v1/locations` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct LocationBody {
    /// Name.
    pub location: String,
    /// Lower is placed first by the `priority` policy (default 0), `-10^6..=10^6`.
    #[serde(default)]
    pub priority: Option<i64>,
}

/// A SKU's counts at one location (`available = on_hand - held - damaged - quality_control -
/// safety_stock`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Level {
    /// The location.
    pub location: String,
    /// On hand there.
    pub on_hand: i64,
    /// Held there.
    pub held: i64,
    /// `on_hand - held`.
    pub available: i64,
    /// Expected there, not on hand yet.
    pub incoming: i64,
    /// On hand there but broken or spoiled: never sold (see `allot_core::states`).
    pub damaged: i64,
    /// On hand there but waiting for inspection: never sold.
    pub quality_control: i64,
    /// On hand there but kept back as a buffer: never sold.
    pub safety_stock: i64,
}

impl Level {
    /// A level with nothing at `location`.
    pub fn empty(location: &str) -> Self {
        Level {
            location: location.to_string(),
            on_hand: 0,
            held: 0,
            available: 0,
            incoming: 0,
            damaged: 0,
            quality_control: 0,
            safety_stock: 0,
        }
    }
}

/// How much of a line came from one location.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The location.
    pub location: String,
    /// Units taken there, >= 1.
    pub quantity: i64,
}

/// A named placement policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum PlacementPolicy {
    /// Locations by priority (lower first), then name.
    Priority,
    /// The location with the most available first (ties by priority, then name).
    MostAvailable,
}

/// A request's `placement` on the wire: a policy name or the caller's ranked list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(untagged)]
pub enum PlacementBody {
    /// `"priority"` or `"most_available"`.
    Policy(PlacementPolicy),
    /// Only these locations, in this order (e.g. nearest to the customer first).
    Ranked(Vec<String>),
}

/// A validated placement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Placement {
    /// By priority (the server default).
    #[default]
    Priority,
    /// Most available first.
    MostAvailable,
    /// Only these locations, in this order.
    Ranked(Vec<String>),
}

impl From<PlacementPolicy> for Placement {
    fn from(p: PlacementPolicy) -> Self {
        match p {
            PlacementPolicy::Priority => Placement::Priority,
            PlacementPolicy::MostAvailable => Placement::MostAvailable,
        }
    }
}

/// How one line may be placed: a pinned location, else the request's placement; and
/// whether it may be filled from several locations.
#[derive(Debug, Clone, Copy)]
pub struct LineRule<'a> {
    /// The line's own `location`: only there.
    pub pin: Option<&'a str>,
    /// The request's placement (ignored when pinned).
    pub placement: &'a Placement,
    /// Whether the line may come from several rows (locations, or buckets of one).
    pub allow_split: bool,
}

/// One stock row of a SKU as a placement sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowLevel {
    /// The row's bucket number (unique per SKU).
    pub bucket: u32,
    /// Its location.
    pub location: String,
    /// The location's priority.
    pub priority: i32,
    /// On hand.
    pub on_hand: i64,
    /// Held.
    pub held: i64,
}

impl RowLevel {
    /// `on_hand - held`.
    pub fn available(&self) -> i64 {
        self.on_hand - self.held
    }
}

/// `POST /v1/transfers` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct TransferBody {
    /// The SKU (count-tracked).
    pub sku: String,
    /// Location it leaves (its available must cover `quantity`).
    pub from: String,
    /// Location it arrives at (another one; it must exist).
    pub to: String,
    /// Units, >= 1.
    pub quantity: i64,
    /// An absolute URI naming the document behind it (a transfer order); at most 2048 bytes.
    #[serde(default)]
    pub reference: Option<String>,
}

/// A validated transfer, and (as stored and answered) a transfer made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Transfer {
    /// Server-generated id (UUID v4 text), the `ref` of its two ledger entries.
    pub id: String,
    /// The SKU.
    pub sku: String,
    /// From this location.
    pub from: String,
    /// To this location.
    pub to: String,
    /// Units moved.
    pub quantity: i64,
    /// The document behind it, if the request named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Who asked (the API key's id), for the ledger; not sent.
    #[serde(skip)]
    pub actor: Option<String>,
}

/// `POST /v1/skus/{sku}/levels/{location}` body: set `on_hand` there to `on_hand` only if it
/// is still `compare_on_hand` (Shopify's `compareQuantity`, for counts synced from an ERP or a
/// warehouse scan).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SetLevelBody {
    /// The new on hand at the location, >= its held.
    pub on_hand: i64,
    /// What on hand must still be there; else `409 compare_failed` with the current value.
    pub compare_on_hand: i64,
    /// Why (default `cycle_count`), kept on the ledger entry and in its event.
    #[serde(default)]
    pub reason: Option<crate::model::reason::StockReason>,
    /// An absolute URI naming the document behind it (a count sheet); at most 2048 bytes.
    #[serde(default)]
    pub reference: Option<String>,
}

/// A validated compare-and-set of one level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetLevel {
    /// The SKU (count-tracked).
    pub sku: String,
    /// The location.
    pub location: String,
    /// New on hand.
    pub on_hand: i64,
    /// Expected current on hand.
    pub compare_on_hand: i64,
    /// Why (`cycle_count` unless said).
    pub reason: crate::model::reason::StockReason,
    /// The document behind it.
    pub reference: Option<String>,
    /// Who asks, for the ledger.
    pub actor: Option<String>,
}

/// Whether holds that expired but are not finalised yet could steer where a line placed by
/// `rule` goes, over a SKU's rows `(location, held)`: the locations the line may use (its pin,
/// or the ranked list's, or all) are several and something is held there. A store whose
/// `held` still has an expired hold in it until the hold is finalised finalises the SKU's
/// overdue holds before it places such a line, so that an expired hold stops counting at
/// once for where a line goes, as it does for whether the line fits (`allot sim` found
/// `most_available` choosing by a `held` that still had an expired hold in it). A line with
/// one location to use is never steered: its only question is whether it fits.
pub fn holds_may_steer<'a>(rows: impl IntoIterator<Item = (&'a str, i64)>, rule: LineRule<'_>) -> bool {
    let usable = |l: &str| match (rule.pin, rule.placement) {
        (Some(pin), _) => l == pin,
        (None, Placement::Ranked(list)) => list.iter().any(|x| x == l),
        (None, _) => true,
    };
    let (mut first, mut several, mut held) = (None, false, false);
    for (location, h) in rows.into_iter().filter(|(l, _)| usable(l)) {
        several |= *first.get_or_insert(location) != location;
        held |= h > 0;
    }
    several && held
}

/// The locations of `rows` a line may use, in the order to use them.
pub fn location_order<'r>(rows: &'r [RowLevel], rule: LineRule<'_>) -> Vec<&'r str> {
    let mut locs: Vec<(&str, i32, i64)> = Vec::new();
    for r in rows {
        match locs.iter_mut().find(|(l, _, _)| *l == r.location) {
            Some(e) => e.2 += r.available(),
            None => locs.push((&r.location, r.priority, r.available())),
        }
    }
    if let Some(pin) = rule.pin {
        locs.retain(|(l, _, _)| *l == pin);
        return locs.into_iter().map(|(l, _, _)| l).collect();
    }
    match rule.placement {
        Placement::Priority => locs.sort_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0))),
        Placement::MostAvailable => locs.sort_by(|a, b| (-a.2, a.1, a.0).cmp(&(-b.2, b.1, b.0))),
        Placement::Ranked(list) => {
            let rank = |l: &str| list.iter().position(|x| x == l);
            locs.retain(|(l, _, _)| rank(l).is_some());
            locs.sort_by_key(|(l, _, _)| rank(l));
        }
    }
    locs.into_iter().map(|(l, _, _)| l).collect()
}

/// The rows of `rows` (indices) a line tries, in order: location by location as
/// [`location_order`] gives them, and within a location its rows by bucket, starting at the
/// `start`-th (mod their count; `segmented` passes its request hash).
pub fn row_order(rows: &[RowLevel], rule: LineRule<'_>, start: u64) -> Vec<usize> {
    let mut order = Vec::with_capacity(rows.len());
    for loc in location_order(rows, rule) {
        let mut at: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].location == loc).collect();
        at.sort_by_key(|&i| rows[i].bucket);
        let k = (start % at.len() as u64) as usize;
        at.rotate_left(k);
        order.extend(at);
    }
    order
}

/// Plan a take of `quantity` over `rows` in `order`: the whole of it from the first row
/// that has it, or with `allow_split` as much as each row has until it is all placed.
/// Returns `(row index, quantity)` pieces, or `None` when the rows in `order` cannot bear it.
pub fn plan_take(rows: &[RowLevel], order: &[usize], quantity: i64, allow_split: bool) -> Option<Vec<(usize, i64)>> {
    let plan = if allow_split {
        split_take(rows, order, quantity)
    } else {
        order
            .iter()
            .find(|&&i| rows[i].available() >= quantity)
            .map(|&i| vec![(i, quantity)])
    };
    debug_assert!(
        plan.as_ref()
            .is_none_or(|p| p.iter().map(|&(_, q)| q).sum::<i64>() == quantity),
        "a plan sums to its quantity"
    );
    plan
}

/// As much as each row in `order` has until `quantity` is placed; none when they cannot
/// bear it.
fn split_take(rows: &[RowLevel], order: &[usize], quantity: i64) -> Option<Vec<(usize, i64)>> {
    let pieces = take_in_order(rows, order, quantity);
    (pieces.iter().map(|&(_, q)| q).sum::<i64>() == quantity).then_some(pieces)
}

/// As much as each row in `order` has, in that order, until `quantity` is placed or the rows
/// run out: pieces `(row index, quantity)` summing to at most `quantity` (a split line's
/// plan; what a line that may owe takes, `crate::backorder::partial_take`).
pub fn take_in_order(rows: &[RowLevel], order: &[usize], quantity: i64) -> Vec<(usize, i64)> {
    let mut left = quantity;
    let mut pieces = Vec::new();
    for &i in order {
        if left == 0 {
            break;
        }
        let q = left.min(rows[i].available());
        if q > 0 {
            pieces.push((i, q));
            left -= q;
        }
    }
    pieces
}

/// What the rows in `order` have available in all (a short line's `available`).
pub fn available_in(rows: &[RowLevel], order: &[usize]) -> i64 {
    order.iter().map(|&i| rows[i].available()).sum()
}

/// Pieces `(location, quantity)` summed by location, in first-taken order: a line's `from`.
pub fn sources<'a>(pieces: impl IntoIterator<Item = (&'a str, i64)>) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    for (loc, q) in pieces {
        match out.iter_mut().find(|s| s.location == loc) {
            Some(s) => s.quantity += q,
            None => out.push(Source {
                location: loc.to_string(),
                quantity: q,
            }),
        }
    }
    out
}

/// Levels per location from rows `(location, on_hand, held)`, sorted by location.
pub fn levels<'a>(rows: impl IntoIterator<Item = (&'a str, i64, i64)>) -> Vec<Level> {
    let mut out: Vec<Level> = Vec::new();
    for (loc, on_hand, held) in rows {
        match out.iter_mut().find(|l| l.location == loc) {
            Some(l) => {
                l.on_hand += on_hand;
                l.held += held;
            }
            None => out.push(Level {
                on_hand,
                held,
                ..Level::empty(loc)
            }),
        }
    }
    for l in &mut out {
        l.available = l.on_hand - l.held;
    }
    out.sort_by(|a, b| a.location.cmp(&b.location));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn row(bucket: u32, location: &str, priority: i32, on_hand: i64) -> RowLevel {
        RowLevel {
            bucket,
            location: location.into(),
            priority,
            on_hand,
            held: 0,
        }
    }

    fn rule(p: &Placement, split: bool) -> LineRule<'_> {
        LineRule {
            pin: None,
            placement: p,
            allow_split: split,
        }
    }

    #[test]
    fn policies_order_locations() {
        let rows = vec![row(0, "A", 2, 5), row(1, "B", 1, 1), row(2, "C", 3, 9)];
        assert_eq!(
            location_order(&rows, rule(&Placement::Priority, false)),
            ["B", "A", "C"]
        );
        assert_eq!(
            location_order(&rows, rule(&Placement::MostAvailable, false)),
            ["C", "A", "B"]
        );
        let ranked = Placement::Ranked(vec!["C".into(), "X".into(), "B".into()]);
        assert_eq!(location_order(&rows, rule(&ranked, false)), ["C", "B"]);
        let pinned = LineRule {
            pin: Some("A"),
            ..rule(&ranked, false)
        };
        assert_eq!(location_order(&rows, pinned), ["A"]);
    }

    #[test]
    fn a_line_is_whole_unless_split() {
        let rows = vec![row(0, "A", 1, 3), row(1, "B", 2, 4)];
        let p = Placement::Priority;
        let order = row_order(&rows, rule(&p, false), 0);
        assert_eq!(plan_take(&rows, &order, 4, false), Some(vec![(1, 4)]));
        assert_eq!(plan_take(&rows, &order, 5, false), None);
        assert_eq!(plan_take(&rows, &order, 5, true), Some(vec![(0, 3), (1, 2)]));
        assert_eq!(plan_take(&rows, &order, 8, true), None);
        assert_eq!(available_in(&rows, &order), 7);
    }

    #[test]
    fn buckets_of_a_location_rotate_from_start() {
        let rows = vec![
            row(0, "A", 0, 1),
            row(1, "A", 0, 1),
            row(2, "B", 1, 1),
            row(3, "A", 0, 1),
        ];
        let p = Placement::Priority;
        assert_eq!(row_order(&rows, rule(&p, false), 1), vec![1, 3, 0, 2]);
    }

    proptest! {
        #[test]
        fn a_plan_never_takes_more_than_a_row_has(
            avail in proptest::collection::vec((0i64..20, 0u8..4), 1..10),
            q in 1i64..100,
            split in any::<bool>(),
        ) {
            let rows: Vec<RowLevel> = avail.iter().enumerate()
                .map(|(i, (a, l))| row(i as u32, &format!("L{l}"), i32::from(*l), *a)).collect();
            let p = Placement::MostAvailable;
            let order = row_order(&rows, rule(&p, split), 0);
            prop_assert_eq!(order.len(), rows.len());
            match plan_take(&rows, &order, q, split) {
                Some(pieces) => {
                    prop_assert_eq!(pieces.iter().map(|p| p.1).sum::<i64>(), q);
                    prop_assert!(pieces.iter().all(|&(i, n)| n > 0 && n <= rows[i].available()));
                    prop_assert!(split || pieces.len() == 1);
                }
                None => {
                    let short = if split {
                        available_in(&rows, &order) < q
                    } else {
                        rows.iter().all(|r| r.available() < q)
                    };
                    prop_assert!(short);
                }
            }
        }
    }
}
