//! Units: one row per physical item (serial, lot, location, dates), claimed N at a time in
//! a requested order. See docs/internals.md, "Units" (`skip_locked`, `nowait_scan`).
//!
//! Ordering caveat: on PostgreSQL the order is best effort under concurrency. A claimer
//! skips rows that another transaction has locked; if that transaction then aborts, the
//! skipped row becomes available again although a later one was already handed out. SQLite
//! serializes every claim, so its order is exact.

pub mod validate;

use crate::strategy::UnitStrategy;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One unit to receive, as `POST /v1/skus/{sku}/units` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewUnit {
    /// Serial number, unique per SKU.
    pub serial: String,
    /// Storage location.
    #[serde(default)]
    pub location: Option<String>,
    /// Lot / batch.
    #[serde(default)]
    pub lot: Option<String>,
    /// When it arrived (RFC 3339 with offset); now when absent.
    #[serde(default)]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub received_at: Option<DateTime<Utc>>,
    /// Best-before date, if any.
    #[serde(default)]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// `POST /v1/skus/{sku}/units` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UnitsBody {
    /// 1..=`max_batch_insert` units.
    pub units: Vec<NewUnit>,
}

/// `POST /v1/skus/{sku}/units` answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnitsCreated {
    /// How many units were inserted.
    pub created: u64,
}

/// A validated bulk insert: every serial non-empty and distinct within the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AddUnits {
    /// The SKU (created as unit-tracked when it does not exist yet).
    pub sku: String,
    /// The units, `received_at` filled in.
    pub units: Vec<NewUnit>,
    /// Who adds them (the API key's id), for the ledger.
    pub actor: Option<String>,
}

/// A unit as claims return it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Unit {
    /// Database id.
    pub id: i64,
    /// Serial number.
    pub serial: String,
    /// Location.
    pub location: Option<String>,
    /// Lot.
    pub lot: Option<String>,
    /// When it arrived (UTC).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub received_at: DateTime<Utc>,
    /// Best-before date.
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub expires_at: Option<DateTime<Utc>>,
}

/// The unit columns a claim may order by. A whitelist: the SQL is built from these names
/// only, never from client text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnitColumn {
    /// Insertion order.
    Id,
    /// Serial number.
    Serial,
    /// Location.
    Location,
    /// Lot.
    Lot,
    /// Arrival (FIFO).
    ReceivedAt,
    /// Best-before (FEFO).
    ExpiresAt,
}

impl UnitColumn {
    /// Every column, as `order_by` names them.
    pub const ALL: [UnitColumn; 6] = [
        UnitColumn::Id,
        UnitColumn::Serial,
        UnitColumn::Location,
        UnitColumn::Lot,
        UnitColumn::ReceivedAt,
        UnitColumn::ExpiresAt,
    ];

    /// The column's name in the API and in SQL.
    pub fn name(self) -> &'static str {
        match self {
            UnitColumn::Id => "id",
            UnitColumn::Serial => "serial",
            UnitColumn::Location => "location",
            UnitColumn::Lot => "lot",
            UnitColumn::ReceivedAt => "received_at",
            UnitColumn::ExpiresAt => "expires_at",
        }
    }
}

/// One key of a claim's order: a column, ascending unless the name had a `-` prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OrderKey {
    /// The column.
    pub column: UnitColumn,
    /// `-column` in the request.
    pub descending: bool,
    /// NULL sorts last although ascending: `fefo` only (a unit without a best-before date
    /// goes after every dated one).
    pub nulls_last: bool,
}

/// `order_by`'s name for first-expiry-first-out: `expires_at` ascending with the units
/// that have no best-before date last (Odoo's FEFO removal strategy).
pub const FEFO: &str = "fefo";

impl OrderKey {
    /// The key of `order_by`'s `raw` name: a column (`-` prefix: descending) or `fefo`;
    /// `None` for any other name.
    pub fn parse(raw: &str) -> Option<OrderKey> {
        if raw == FEFO {
            return Some(OrderKey {
                column: UnitColumn::ExpiresAt,
                descending: false,
                nulls_last: true,
            });
        }
        let (descending, col) = raw.strip_prefix('-').map_or((false, raw), |c| (true, c));
        let column = UnitColumn::ALL.into_iter().find(|c| c.name() == col)?;
        Some(OrderKey {
            column,
            descending,
            nulls_last: descending,
        })
    }

    /// Every name `order_by` takes: each column, each with `-`, and `fefo`.
    pub fn names() -> Vec<String> {
        UnitColumn::ALL
            .iter()
            .flat_map(|c| [c.name().to_string(), format!("-{}", c.name())])
            .chain([FEFO.to_string()])
            .collect()
    }
}

/// `fefo`'s key on PostgreSQL: a unit's best-before date, `infinity` for none (no instant
/// the API takes is `infinity`, so it sorts exactly as `expires_at ASC NULLS LAST`). V40
/// indexes available units by it; a pick's "not past its date" is `FEFO_KEY > now`, an
/// index range in that order.
pub const FEFO_KEY: &str = "COALESCE(expires_at, 'infinity'::timestamptz)";

/// The `ORDER BY` list of a claim: the keys, then `id` as the tie-breaker. NULL sorts as
/// the smallest value on every backend (first ascending, last descending) except under
/// `fefo` (last): SQLite's native order, spelled out for PostgreSQL with `explicit_nulls`
/// (its indexes are declared `NULLS FIRST` to match), so both backends give the same order
/// and both can read it from an index; `fefo` is `NULLS LAST` on SQLite and [`FEFO_KEY`]
/// on PostgreSQL. Only whitelisted names reach the SQL.
pub fn order_by_sql(keys: &[OrderKey], explicit_nulls: bool) -> String {
    let mut parts: Vec<String> = keys
        .iter()
        .map(|k| {
            let dir = if k.descending { "DESC" } else { "ASC" };
            if k.nulls_last && !k.descending && explicit_nulls {
                // `fefo` on PostgreSQL: the expression V40's index is in, so a pick reads the
                // units in date from the first one after now (`FEFO_KEY > now`) instead of
                // stepping over every unit past its date first.
                return format!("{FEFO_KEY} ASC");
            }
            let nulls = match (k.nulls_last, explicit_nulls || (k.nulls_last && !k.descending)) {
                (_, false) => "",
                (true, true) => " NULLS LAST",
                (false, true) => " NULLS FIRST",
            };
            format!("{} {dir}{nulls}", k.column.name())
        })
        .collect();
    if !keys.iter().any(|k| k.column == UnitColumn::Id) {
        parts.push("id ASC".into());
    }
    parts.join(", ")
}

/// `POST /v1/unit-allocations` body.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct UnitAllocationBody {
    /// The SKU (unit-tracked).
    pub sku: String,
    /// How many units, 1..=`max_unit_claim`.
    pub quantity: i64,
    /// Columns to order candidates by (`id`, `serial`, `location`, `lot`, `received_at`,
    /// `expires_at`; a `-` prefix means descending; NULL sorts as the smallest value), or
    /// `fefo` (earliest `expires_at` first, units without one last). Default: `id`
    /// (insertion order). A unit past its `expires_at` is never taken, whatever the order.
    #[serde(default)]
    pub order_by: Vec<String>,
    /// Take fewer than `quantity` (at least one) when fewer are available.
    #[serde(default)]
    pub allow_partial: bool,
    /// `skip_locked` (default on PostgreSQL), `nowait_scan`, `batched` (PostgreSQL: many claims
    /// of one SKU in one transaction), or `serialized` (SQLite).
    #[serde(default)]
    pub strategy: Option<String>,
    /// Make it a hold of this many ms (confirmed/released like stock holds).
    #[serde(default)]
    pub hold_ttl_ms: Option<i64>,
}

/// A validated unit claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitClaim {
    /// The allocation's (or hold's) id.
    pub id: String,
    /// The SKU.
    pub sku: String,
    /// Units wanted.
    pub quantity: i64,
    /// Order keys (validated).
    pub order_by: Vec<OrderKey>,
    /// Whether fewer (>= 1) may be taken.
    pub allow_partial: bool,
    /// Strategy (resolved).
    pub strategy: UnitStrategy,
    /// `Some(ttl)` makes it a hold.
    pub hold_ttl_ms: Option<u64>,
    /// Who claims (the API key's id), for the ledger.
    pub actor: Option<String>,
    /// The very units to take, by serial, sorted (a hold's unit line only; empty: the first
    /// `quantity` free ones in `order_by`'s order).
    pub serials: Vec<String>,
}

/// The answer of a unit claim.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnitAllocation {
    /// Allocation id (or hold id when `status` is `held`).
    pub id: String,
    /// The SKU.
    pub sku: String,
    /// `allocated`, or `held` when claimed with `hold_ttl_ms`.
    pub status: crate::model::AllocationStatus,
    /// The strategy that served it.
    pub strategy: UnitStrategy,
    /// The units, in the claim's order.
    pub units: Vec<Unit>,
    /// When the hold lapses (holds only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::support::instant::rfc3339_opt")]
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was made (UTC).
    #[serde(serialize_with = "crate::support::instant::rfc3339")]
    pub created_at: DateTime<Utc>,
}

/// Whether a claim that got `got` of `wanted` units is a success: all of them, or (with
/// `allow_partial`) at least one.
pub fn claim_satisfied(got: i64, wanted: i64, allow_partial: bool) -> bool {
    got >= wanted || (allow_partial && got >= 1)
}

/// What a short claim attempt means. `got` is how many units it locked, `visible` how many
/// available units its snapshot holds (locked by others or not, capped at the quantity),
/// `least` how many would satisfy it. When enough exist but some were locked by other
/// claimers, the claim must retry rather than answer `insufficient_stock` while they may
/// still be free; when even counting the locked ones there are too few, no retry can help.
pub fn short_claim_should_retry(got: i64, visible: i64, least: i64) -> bool {
    got < least && visible >= least
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_by_is_built_from_whitelisted_names() {
        assert_eq!(order_by_sql(&[], true), "id ASC");
        let k = |name: &str| OrderKey::parse(name).expect("a known name");
        let keys = [k("received_at"), k("-location")];
        assert_eq!(
            order_by_sql(&keys, true),
            "received_at ASC NULLS FIRST, location DESC NULLS LAST, id ASC"
        );
        assert_eq!(order_by_sql(&keys, false), "received_at ASC, location DESC, id ASC");
        assert_eq!(order_by_sql(&[k("-id")], false), "id DESC");
        assert_eq!(order_by_sql(&[k(FEFO)], false), "expires_at ASC NULLS LAST, id ASC");
        assert_eq!(order_by_sql(&[k(FEFO)], true), format!("{FEFO_KEY} ASC, id ASC"));
        assert!(OrderKey::parse("-fefo").is_none() && OrderKey::parse("price").is_none());
        assert_eq!(OrderKey::names().len(), UnitColumn::ALL.len() * 2 + 1);
    }

    #[test]
    fn claim_rules() {
        assert!(claim_satisfied(3, 3, false));
        assert!(!claim_satisfied(2, 3, false));
        assert!(claim_satisfied(2, 3, true));
        assert!(!claim_satisfied(0, 3, true));
        assert!(short_claim_should_retry(1, 3, 3));
        assert!(!short_claim_should_retry(2, 2, 3), "too few exist: answer insufficient");
        assert!(!short_claim_should_retry(3, 3, 3));
        assert!(short_claim_should_retry(0, 1, 1));
    }
}

/// Where a unit stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum UnitStatus {
    /// Free to claim.
    Available,
    /// In a unit hold.
    Held,
    /// Allocated for good.
    Allocated,
}

impl UnitStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            UnitStatus::Available => "available",
            UnitStatus::Held => "held",
            UnitStatus::Allocated => "allocated",
        }
    }

    /// From the stored name.
    pub fn parse(s: &str) -> Option<UnitStatus> {
        [UnitStatus::Available, UnitStatus::Held, UnitStatus::Allocated]
            .into_iter()
            .find(|u| u.as_str() == s)
    }
}

/// A unit as a listing or a lookup by serial shows it: the unit, its status and the claim
/// (hold or allocation id) that has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct UnitView {
    /// The unit.
    #[serde(flatten)]
    pub unit: Unit,
    /// Its status.
    pub status: UnitStatus,
    /// The hold or allocation that has it (`null` while available).
    pub claim_id: Option<String>,
}

/// Which units of a SKU a listing shows (every field optional: all of them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UnitFilter {
    /// Only units in this status.
    pub status: Option<UnitStatus>,
    /// Only units at this location.
    pub location: Option<String>,
    /// Only units of this lot.
    pub lot: Option<String>,
}
