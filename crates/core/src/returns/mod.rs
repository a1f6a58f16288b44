//! Returns: part of an allocation coming back later (Shopify's and Saleor's returns,
//! TigerBeetle's partial void). A sellable return goes back on hand at a location (where it
//! came from, or another), a non-sellable one (`damaged`) is recorded and stays out of
//! stock; either way the allocation keeps what is left of it, and never more comes back than
//! is left.

pub mod validate;

use crate::location::DEFAULT_LOCATION;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// What a returned unit is: back in stock, or not sellable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ReturnState {
    /// Back on hand at the return's location (a `returned` ledger entry).
    #[default]
    Sellable,
    /// Not sellable: recorded with the return, not on hand.
    Damaged,
}

impl ReturnState {
    /// Stored and wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ReturnState::Sellable => "sellable",
            ReturnState::Damaged => "damaged",
        }
    }

    /// Parse a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [ReturnState::Sellable, ReturnState::Damaged]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

/// One line of `POST /v1/allocations/{id}/returns`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReturnLineBody {
    /// A SKU of the allocation (count-tracked: units come back by a cancel).
    pub sku: String,
    /// Units, 1..=what is left of the allocation's line.
    pub quantity: i64,
    /// Where a sellable return goes (default: the first location the line came from).
    #[serde(default)]
    pub location: Option<String>,
    /// `sellable` (default) or `damaged`.
    #[serde(default)]
    pub state: Option<ReturnState>,
}

/// `POST /v1/allocations/{id}/returns` body (a SKU may appear in several lines).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ReturnBody {
    /// One line per SKU.
    pub lines: Vec<ReturnLineBody>,
    /// An absolute URI naming the document behind it (an RMA); at most 2048 bytes; kept on
    /// the ledger entries of its sellable lines and in their events.
    #[serde(default)]
    pub reference: Option<String>,
}

/// One line of a return, as made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReturnLine {
    /// The SKU.
    pub sku: String,
    /// Units.
    pub quantity: i64,
    /// The location it went to (`None` in a request: the line's first origin).
    pub location: Option<String>,
    /// Its state.
    pub state: ReturnState,
}

/// A validated return, and (answered) a return made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Return {
    /// Server-generated id (UUID v4 text).
    pub id: String,
    /// The allocation it comes back from (the `ref` of its ledger entries).
    pub allocation_id: String,
    /// Its lines, by SKU (a SKU may have several: one per location and state).
    pub lines: Vec<ReturnLine>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// The document behind it, if the request named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Who asked, for the ledger; not sent.
    #[serde(skip)]
    pub actor: Option<String>,
}

/// Set each line's `returned` from the facts: `returned` holds, per SKU, the sum of the
/// quantities of the allocation's return records (sellable and damaged), as read with the
/// allocation; a SKU without any gets 0, whatever the stored line said. What is left of a
/// line, and so what a cancel or a return may give back, is derived from these records and
/// never from a counter kept in the line (ARCHITECTURE.md, "A hold finishes once").
pub fn derive_returned(lines: &mut [crate::model::AllocationLine], returned: &[(String, i64)]) {
    for line in lines {
        line.returned = returned
            .iter()
            .filter(|(sku, _)| *sku == line.sku)
            .map(|(_, q)| *q)
            .sum();
    }
}

/// Check `line` against the allocation's line for its SKU (`None`: the allocation has none)
/// and fill in its location. Errors: `exceeds_allocation` for more than is left (a
/// cancelled allocation has nothing left), `wrong_tracking` is the caller's.
pub fn settle_line(
    line: &mut ReturnLine,
    of: Option<&crate::model::AllocationLine>,
    cancelled: bool,
) -> crate::support::error::Result<()> {
    let left = match of {
        // What is still owed was never handed over: it cannot come back.
        Some(l) if !cancelled => l.quantity - l.returned - l.backordered.unwrap_or(0),
        _ => 0,
    };
    if line.quantity > left {
        return Err(crate::support::error::AllotError::ExceedsAllocation {
            sku: line.sku.clone(),
            requested: line.quantity,
            left,
        });
    }
    if line.location.is_none() {
        let first = of.and_then(|l| l.from.first()).map(|s| s.location.clone());
        line.location = Some(first.unwrap_or_else(|| DEFAULT_LOCATION.to_string()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::AllocationLine;

    #[test]
    fn never_more_back_than_is_left() {
        let mut of = AllocationLine::new("A", 5);
        of.from = crate::location::sources([("W", 2), ("E", 3)]);
        of.returned = 3;
        let mut line = ReturnLine {
            sku: "A".into(),
            quantity: 2,
            location: None,
            state: ReturnState::Sellable,
        };
        settle_line(&mut line, Some(&of), false).unwrap();
        assert_eq!(line.location.as_deref(), Some("W"));
        line.quantity = 3;
        assert_eq!(
            settle_line(&mut line, Some(&of), false).unwrap_err().code(),
            "exceeds_allocation"
        );
        line.quantity = 1;
        assert_eq!(
            settle_line(&mut line, Some(&of), true).unwrap_err().code(),
            "exceeds_allocation"
        );
        assert_eq!(
            settle_line(&mut line, None, false).unwrap_err().code(),
            "exceeds_allocation"
        );
    }
}
