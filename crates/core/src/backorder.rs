//! Backorders: a SKU may sell up to its `backorder_limit` units more than it has available.
//! An allocation line beyond stock takes what is there and owes the rest (its
//! `backordered`); the owed lines of a SKU are filled oldest first in the very transaction
//! that brings stock back at a location they may use (a receipt, an adjustment, a return, a
//! cancel, a transfer in, a move back to available, a level set), each fill one ledger entry
//! of kind `backorder_filled` (event `allocation.filled`). A cancel gives back what the line
//! took, its fills included, and drops what it still owed.
//!
//! The same idea as Shopify's "continue selling when out of stock" with Saleor's asked-for
//! cap (saleor/saleor#4190); the fills are strictly first-come first-served, as a
//! pre-order queue is.
//!
//! This module is pure: the backends lock the rows, call these to decide, and write.

use crate::location::{RowLevel, Source};
use crate::AllotError;
use serde::{Deserialize, Serialize};

/// A SKU's backorder state, as its answer shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackorderLevel {
    /// Most units the SKU may owe at once (0: no backorders).
    pub limit: i64,
    /// Units owed now (never above `limit` when a backorder was made; a limit lowered later
    /// stops new ones until the owed fall below it).
    pub owed: i64,
}

impl BackorderLevel {
    /// Whether `more` units may be owed on top of what is: `0 < more` and `owed + more <=
    /// limit`.
    pub fn has_room(&self, more: i64) -> bool {
        more > 0 && self.owed.checked_add(more).is_some_and(|t| t <= self.limit)
    }
}

/// One owed line as stored: its allocation, what it backordered, what was filled (each fill's
/// location and quantity, in order) and what a cancel dropped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backorder {
    /// The allocation the line belongs to.
    pub allocation_id: String,
    /// The line's SKU.
    pub sku: String,
    /// Units owed when the allocation was made (> 0).
    pub quantity: i64,
    /// The fills, oldest first.
    #[serde(default)]
    pub fills: Vec<Source>,
    /// Units a cancel dropped (never filled).
    #[serde(default)]
    pub cancelled: i64,
}

impl Backorder {
    /// Units filled so far.
    pub fn filled(&self) -> i64 {
        self.fills.iter().map(|f| f.quantity).sum()
    }

    /// Units still owed: `quantity - filled - cancelled`.
    pub fn owed(&self) -> i64 {
        self.quantity - self.filled() - self.cancelled
    }
}

/// The fills of owed quantities `owed` (oldest first) from `available` units: each takes
/// what is left, up to what it owes, in order, so a younger line is filled only once every
/// older one is whole. The fills sum to `min(available, sum(owed))`.
pub fn plan_fills(owed: &[i64], available: i64) -> Vec<i64> {
    let mut left = available.max(0);
    owed.iter()
        .map(|&o| {
            let f = o.max(0).min(left);
            left -= f;
            f
        })
        .collect()
}

/// What a line of `quantity` can take now from `rows` in `order` when it may owe the rest: as
/// much as each row has, in order, whatever the request's `allow_split` (an owed line is
/// filled later from whichever rows get stock, so keeping it to one row would only leave
/// stock behind for newcomers to take while it waits). Returns the pieces `(row index,
/// quantity)`, summing to at most `quantity`.
pub fn partial_take(rows: &[RowLevel], order: &[usize], quantity: i64) -> Vec<(usize, i64)> {
    crate::location::take_in_order(rows, order, quantity)
}

/// Fold the stored backorders of an allocation into its `lines` as read: each owed line's
/// `backordered` (what it still owes) and its fills added to its `from`. A backorder for a
/// SKU no line has is our own fault.
pub fn derive_backorders(lines: &mut [crate::AllocationLine], backorders: &[Backorder]) -> crate::Result<()> {
    for b in backorders {
        let line = lines
            .iter_mut()
            .find(|l| l.sku == b.sku)
            .ok_or_else(|| AllotError::Internal(format!("a backorder of {} has no line", b.sku)))?;
        line.backordered = Some(b.owed());
        for f in &b.fills {
            match line.from.iter_mut().find(|s| s.location == f.location) {
                Some(s) => s.quantity += f.quantity,
                None => line.from.push(f.clone()),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(bucket: u32, location: &str, on_hand: i64) -> RowLevel {
        RowLevel {
            bucket,
            location: location.into(),
            priority: 0,
            on_hand,
            held: 0,
        }
    }

    #[test]
    fn fills_go_oldest_first_and_never_past_what_is_there() {
        assert_eq!(plan_fills(&[3, 2, 4], 4), vec![3, 1, 0]);
        assert_eq!(plan_fills(&[3, 2], 10), vec![3, 2]);
        assert_eq!(plan_fills(&[3], 0), vec![0]);
        assert_eq!(plan_fills(&[3], -2), vec![0]);
    }

    #[test]
    fn room_is_the_limit_less_what_is_owed() {
        let l = BackorderLevel { limit: 5, owed: 3 };
        assert!(l.has_room(2));
        assert!(!l.has_room(3));
        assert!(!l.has_room(0));
        assert!(!BackorderLevel {
            limit: 5,
            owed: i64::MAX
        }
        .has_room(1));
    }

    #[test]
    fn a_partial_take_takes_every_row_in_order() {
        let rows = vec![row(0, "A", 2), row(1, "B", 3)];
        assert_eq!(partial_take(&rows, &[0, 1], 9), vec![(0, 2), (1, 3)]);
        assert_eq!(partial_take(&rows, &[1, 0], 4), vec![(1, 3), (0, 1)]);
        assert_eq!(partial_take(&[row(0, "A", 0)], &[0], 9), vec![]);
    }

    #[test]
    fn backorders_fold_into_their_lines() {
        let mut lines = vec![crate::AllocationLine::new("A", 5)];
        lines[0].from = vec![Source {
            location: "default".into(),
            quantity: 2,
        }];
        let b = Backorder {
            allocation_id: "x".into(),
            sku: "A".into(),
            quantity: 3,
            fills: vec![
                Source {
                    location: "default".into(),
                    quantity: 1,
                },
                Source {
                    location: "east".into(),
                    quantity: 1,
                },
            ],
            cancelled: 0,
        };
        derive_backorders(&mut lines, &[b]).unwrap();
        assert_eq!(lines[0].backordered, Some(1));
        assert_eq!(lines[0].from.iter().map(|s| s.quantity).sum::<i64>(), 4);
        let none = Backorder {
            sku: "Z".into(),
            ..Backorder {
                allocation_id: "x".into(),
                sku: "A".into(),
                quantity: 1,
                fills: vec![],
                cancelled: 0,
            }
        };
        assert!(derive_backorders(&mut lines, &[none]).is_err());
    }
}
