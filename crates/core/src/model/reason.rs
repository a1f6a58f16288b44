//! Why stock changed: a closed set of reasons, kept on every ledger entry and carried in its
//! event, beside an optional `reference` URI naming the document behind the change (an order,
//! a delivery note, a count sheet).
//!
//! The set follows the reasons Shopify keeps on inventory changes (Admin API 2026-04,
//! `InventoryChangeReason`: received, correction, cycle count, damaged, promotion, quality
//! control, restock, safety stock, shrinkage, movement, reservation) and adds the ones an
//! allocation engine's own writes need (sold, returned, cancelled, the three hold outcomes).
//! A client names one on the writes where the reason is its to say (adjustments, level sets,
//! moves); every other write has the reason of its kind ([`LedgerKind::default_reason`]), which
//! is what the ledger stores as "none said" (NULL), so the hot paths write nothing more.

use crate::model::LedgerKind;
use serde::{Deserialize, Serialize};

/// Why stock changed (wire and stored name in `snake_case`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum StockReason {
    /// Stock arrived (a receipt, a new SKU's first stock, units received).
    Received,
    /// Taken by an allocation or a confirmed hold.
    Sold,
    /// Came back from a customer.
    Returned,
    /// An allocation was cancelled and its stock given back.
    Cancelled,
    /// Set aside by a hold.
    Reserved,
    /// A hold let go of what it set aside.
    ReservationReleased,
    /// A hold ran out of time and its stock came back.
    ReservationExpired,
    /// Moved between locations.
    Transfer,
    /// Found broken or spoiled.
    Damaged,
    /// Sent to, or back from, inspection.
    QualityControl,
    /// Kept back as a buffer, or released from it.
    SafetyStock,
    /// A count found the books wrong.
    CycleCount,
    /// Correcting an earlier mistake (an adjustment's reason when none is said).
    Correction,
    /// Lost or stolen.
    Shrinkage,
    /// Set aside for, or back from, a promotion.
    Promotion,
    /// Repaired or passed inspection: sellable again.
    Restock,
    /// None of the above (say more in `reference`).
    Other,
}

impl StockReason {
    /// Every reason.
    pub const ALL: [StockReason; 17] = [
        StockReason::Received,
        StockReason::Sold,
        StockReason::Returned,
        StockReason::Cancelled,
        StockReason::Reserved,
        StockReason::ReservationReleased,
        StockReason::ReservationExpired,
        StockReason::Transfer,
        StockReason::Damaged,
        StockReason::QualityControl,
        StockReason::SafetyStock,
        StockReason::CycleCount,
        StockReason::Correction,
        StockReason::Shrinkage,
        StockReason::Promotion,
        StockReason::Restock,
        StockReason::Other,
    ];

    /// The wire and stored name (`cycle_count`).
    pub fn as_str(self) -> &'static str {
        match self {
            StockReason::Received => "received",
            StockReason::Sold => "sold",
            StockReason::Returned => "returned",
            StockReason::Cancelled => "cancelled",
            StockReason::Reserved => "reserved",
            StockReason::ReservationReleased => "reservation_released",
            StockReason::ReservationExpired => "reservation_expired",
            StockReason::Transfer => "transfer",
            StockReason::Damaged => "damaged",
            StockReason::QualityControl => "quality_control",
            StockReason::SafetyStock => "safety_stock",
            StockReason::CycleCount => "cycle_count",
            StockReason::Correction => "correction",
            StockReason::Shrinkage => "shrinkage",
            StockReason::Promotion => "promotion",
            StockReason::Restock => "restock",
            StockReason::Other => "other",
        }
    }

    /// Parse a stored name; `None` for a name no reason has.
    pub fn parse(name: &str) -> Option<StockReason> {
        StockReason::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// The reason of an entry of `kind` that stored `said` (NULL: its kind's).
    pub fn of(kind: LedgerKind, said: Option<StockReason>) -> StockReason {
        said.unwrap_or_else(|| kind.default_reason())
    }

    /// The reason of an entry of `kind` whose row stored the name `stored` (NULL: its
    /// kind's); `None` for a name no reason has (a fault of ours, not the client's).
    pub fn read(kind: LedgerKind, stored: Option<&str>) -> Option<StockReason> {
        match stored {
            None => Some(kind.default_reason()),
            Some(name) => StockReason::parse(name),
        }
    }
}

impl LedgerKind {
    /// The reason of an entry of this kind when none was said.
    pub fn default_reason(self) -> StockReason {
        match self {
            LedgerKind::Created | LedgerKind::UnitsReceived | LedgerKind::Received => StockReason::Received,
            LedgerKind::Adjustment | LedgerKind::Moved => StockReason::Correction,
            LedgerKind::Allocation | LedgerKind::HoldConfirmed | LedgerKind::BackorderFilled => StockReason::Sold,
            LedgerKind::Hold => StockReason::Reserved,
            LedgerKind::HoldReleased => StockReason::ReservationReleased,
            LedgerKind::HoldExpired => StockReason::ReservationExpired,
            LedgerKind::AllocationCancelled => StockReason::Cancelled,
            LedgerKind::Returned => StockReason::Returned,
            LedgerKind::Transfer => StockReason::Transfer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_match_serde() {
        for r in StockReason::ALL {
            assert_eq!(StockReason::parse(r.as_str()), Some(r));
            assert_eq!(serde_json::to_value(r).unwrap(), r.as_str());
        }
        assert_eq!(StockReason::parse("recount"), None);
    }

    #[test]
    fn an_unsaid_reason_is_its_kinds() {
        assert_eq!(StockReason::of(LedgerKind::Allocation, None), StockReason::Sold);
        assert_eq!(
            StockReason::of(LedgerKind::Adjustment, Some(StockReason::Shrinkage)),
            StockReason::Shrinkage
        );
        assert_eq!(
            StockReason::of(LedgerKind::HoldExpired, None),
            StockReason::ReservationExpired
        );
    }
}
