//! The stock events of ledger entries: what a ledger entry tells the feed (its facts and the
//! SKU's totals right after it) and the threshold events it causes (`sku.sold_out`,
//! `sku.back_in_stock`, `sku.low_stock`, of the SKU and of one location).
//!
//! A backend that derives its stock events after the fact (PostgreSQL's sequencer) starts a
//! [`Levels`] per SKU at its totals before the round's first entry and applies the round's
//! entries in cursor order: each entry's "after" is then exact, and a threshold crossed is one
//! event per crossing, whatever order the writers committed in. SQLite's triggers apply the
//! same rules in SQL (V12); the conformance suite holds both to them.

use crate::event::EventType;
use crate::model::reason::StockReason;
use crate::model::LedgerKind;
use chrono::{DateTime, Utc};
use serde::Serialize;
use std::collections::BTreeMap;

/// One ledger entry, as the deriving backend read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The ledger id (per tenant).
    pub id: i64,
    /// The SKU.
    pub sku: String,
    /// The location whose stock changed (`None`: a unit-tracked SKU's entry).
    pub location: Option<String>,
    /// Change of on hand.
    pub delta: i64,
    /// Change of held.
    pub held_delta: i64,
    /// What made the change.
    pub kind: LedgerKind,
    /// The allocation, hold, transfer, receipt or move id.
    pub reference: Option<String>,
    /// The reason stored (`None`: its kind's).
    pub reason: Option<StockReason>,
    /// The document URI stored, if any.
    pub document: Option<String>,
    /// The API key that made it, if any.
    pub actor: Option<String>,
    /// When it was written (the store's clock).
    pub at: DateTime<Utc>,
}

/// An event derived from an entry: its type, object and `data` (JSON text, as stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// The event's type.
    pub kind: EventType,
    /// What it is about: the allocation, hold, transfer or SKU.
    pub object: String,
    /// The event's `data`, serialized.
    pub data: String,
    /// The entry's instant.
    pub at: DateTime<Utc>,
}

/// A SKU's totals as the entries are applied: the SKU's, and each location's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Levels {
    /// `None` for a unit-tracked SKU: its events carry no totals and cause no thresholds
    /// (its totals would take a count of its whole pool).
    totals: Option<(i64, i64)>,
    /// On hand and held of each location with stock rows.
    locations: BTreeMap<String, (i64, i64)>,
    /// The SKU's `low_stock_below`.
    low_stock_below: Option<i64>,
}

/// On hand (its sellable part), held and available at one moment, of a SKU or of one
/// location: an event's `before` and `after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
struct Level {
    on_hand: i64,
    held: i64,
    available: i64,
}

impl Level {
    fn of((on_hand, held): (i64, i64)) -> Level {
        Level {
            on_hand,
            held,
            available: on_hand - held,
        }
    }
}

/// The `data` of an entry's own event: the ledger's facts, why (`reason`, `reference`), and
/// the levels around it, of the SKU (`before`, `after`; the flat `on_hand`, `held`,
/// `available` are `after`'s, as before `before` existed) and of its location.
#[derive(Serialize)]
struct EntryData<'a> {
    sku: &'a str,
    location: Option<&'a str>,
    delta: i64,
    held_delta: i64,
    kind: LedgerKind,
    #[serde(rename = "ref")]
    reference: Option<&'a str>,
    reason: StockReason,
    #[serde(rename = "reference")]
    document: Option<&'a str>,
    on_hand: Option<i64>,
    held: Option<i64>,
    available: Option<i64>,
    before: Option<Level>,
    after: Option<Level>,
    location_before: Option<Level>,
    location_after: Option<Level>,
    actor: Option<&'a str>,
    ledger_id: i64,
}

/// The `data` of a threshold event.
#[derive(Serialize)]
struct ThresholdData<'a> {
    sku: &'a str,
    location: Option<&'a str>,
    available: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    low_stock_below: Option<i64>,
}

/// The event type of an entry's own event.
pub fn entry_type(kind: LedgerKind, location: Option<&str>) -> EventType {
    match kind {
        LedgerKind::Created => EventType::SkuCreated,
        LedgerKind::Adjustment => EventType::StockAdjusted,
        LedgerKind::UnitsReceived => EventType::UnitsReceived,
        LedgerKind::Allocation if location.is_none() => EventType::UnitClaimCreated,
        LedgerKind::Allocation => EventType::AllocationCreated,
        LedgerKind::AllocationCancelled => EventType::AllocationCancelled,
        LedgerKind::Returned => EventType::ReturnCreated,
        LedgerKind::Hold => EventType::StockHeld,
        LedgerKind::HoldConfirmed => EventType::StockHoldConfirmed,
        LedgerKind::HoldReleased => EventType::StockHoldReleased,
        LedgerKind::HoldExpired => EventType::StockHoldExpired,
        LedgerKind::Transfer => EventType::TransferCreated,
        LedgerKind::Received => EventType::StockReceived,
        LedgerKind::Moved => EventType::StockMoved,
        LedgerKind::BackorderFilled => EventType::AllocationFilled,
    }
}

/// Crossing 0 either way is one branch: reaching it is sold out, leaving it back in stock.
fn crossing(before: i64, after: i64) -> Option<EventType> {
    match (before <= 0, after <= 0) {
        (false, true) => Some(EventType::SkuSoldOut),
        (true, false) => Some(EventType::SkuBackInStock),
        _ => None,
    }
}

impl Levels {
    /// A SKU's levels before the first entry to apply: `totals` (on hand, held; `None` for a
    /// unit-tracked SKU), each stocked location's (on hand, held), its `low_stock_below`.
    pub fn new(
        totals: Option<(i64, i64)>,
        locations: BTreeMap<String, (i64, i64)>,
        low_stock_below: Option<i64>,
    ) -> Self {
        Levels {
            totals,
            locations,
            low_stock_below,
        }
    }

    /// Add a stocked location's on hand and held (to the SKU's totals too, where it has them).
    pub fn add_location(&mut self, location: String, on_hand: i64, held: i64) {
        if let Some(totals) = &mut self.totals {
            totals.0 += on_hand;
            totals.1 += held;
        }
        self.locations.insert(location, (on_hand, held));
    }

    /// Apply `e` (the next entry of this SKU in cursor order): its own event, then the
    /// threshold events it causes, in that order.
    pub fn apply(&mut self, e: &Entry) -> Vec<Derived> {
        let change = e.delta - e.held_delta;
        let sku_before = self.totals;
        if let Some((on_hand, held)) = &mut self.totals {
            *on_hand += e.delta;
            *held += e.held_delta;
        }
        let location = e.location.as_deref();
        let mut location_levels = None;
        let at_location = location.and_then(|l| self.locations.get_mut(l)).map(|(on_hand, held)| {
            let before = (*on_hand, *held);
            *on_hand += e.delta;
            *held += e.held_delta;
            location_levels = Some((Level::of(before), Level::of((*on_hand, *held))));
            *on_hand - *held
        });
        let mut out = vec![self.own(e, sku_before.map(Level::of), location_levels)];
        let event = |kind, location, available, low_stock_below| Derived {
            kind,
            object: e.sku.clone(),
            data: json(&ThresholdData {
                sku: &e.sku,
                location,
                available,
                low_stock_below,
            }),
            at: e.at,
        };
        // The SKU as a whole: a transfer moves stock between locations and never changes it;
        // a new SKU is not "back" in stock (its `sku.created` says what it has).
        if let (Some(available), false) = (
            self.available(),
            matches!(e.kind, LedgerKind::Transfer | LedgerKind::Created),
        ) {
            let before = available - change;
            if let Some(kind) = crossing(before, available) {
                out.push(event(kind, None, available, None));
            }
            if let Some(low) = self.low_stock_below.filter(|low| available < *low && before >= *low) {
                out.push(event(EventType::SkuLowStock, None, available, Some(low)));
            }
        }
        // One location of a SKU stocked at several (a transfer's two sides always are).
        let several = self.locations.len() > 1 || e.kind == LedgerKind::Transfer;
        if let (Some(available), true, false) = (at_location, several, e.kind == LedgerKind::Created) {
            if let Some(kind) = crossing(available - change, available) {
                out.push(event(kind, location, available, None));
            }
        }
        out
    }

    /// Whether the SKU is count-tracked (it has totals).
    pub fn counted(&self) -> bool {
        self.totals.is_some()
    }

    /// Each stocked location's on hand and held, as the entries applied so far left them.
    pub fn locations(&self) -> impl Iterator<Item = (&String, &(i64, i64))> {
        self.locations.iter()
    }

    /// Available now (`None` for a unit-tracked SKU).
    fn available(&self) -> Option<i64> {
        self.totals.map(|(on_hand, held)| on_hand - held)
    }

    /// The entry's own event: the totals `before` it (`None`: unit-tracked) and after it, and
    /// its location's (`None`: no stock rows there the levels know).
    fn own(&self, e: &Entry, before: Option<Level>, location: Option<(Level, Level)>) -> Derived {
        let data = EntryData {
            sku: &e.sku,
            location: e.location.as_deref(),
            delta: e.delta,
            held_delta: e.held_delta,
            kind: e.kind,
            reference: e.reference.as_deref(),
            reason: StockReason::of(e.kind, e.reason),
            document: e.document.as_deref(),
            on_hand: self.totals.map(|t| t.0),
            held: self.totals.map(|t| t.1),
            available: self.available(),
            before,
            after: self.totals.map(Level::of),
            location_before: location.map(|l| l.0),
            location_after: location.map(|l| l.1),
            actor: e.actor.as_deref(),
            ledger_id: e.id,
        };
        let by_sku = matches!(
            e.kind,
            LedgerKind::Created | LedgerKind::Adjustment | LedgerKind::UnitsReceived
        );
        Derived {
            kind: entry_type(e.kind, e.location.as_deref()),
            object: match &e.reference {
                Some(r) if !by_sku => r.clone(),
                _ => e.sku.clone(),
            },
            data: json(&data),
            at: e.at,
        }
    }
}

/// Serialize `data` (a struct of strings and integers: it cannot fail).
fn json<T: Serialize>(data: &T) -> String {
    serde_json::to_string(data).unwrap_or_else(|_| "{}".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: i64, kind: LedgerKind, location: &str, delta: i64, held_delta: i64) -> Entry {
        Entry {
            id,
            sku: "HOT".into(),
            location: Some(location.into()),
            delta,
            held_delta,
            kind,
            reference: Some(format!("r{id}")),
            reason: None,
            document: None,
            actor: None,
            at: DateTime::UNIX_EPOCH,
        }
    }

    fn kinds(out: &[Derived]) -> Vec<EventType> {
        out.iter().map(|d| d.kind).collect()
    }

    #[test]
    fn sold_out_once_then_back_in_stock() {
        let mut l = Levels::new(Some((2, 0)), BTreeMap::from([("default".into(), (2, 0))]), None);
        assert_eq!(
            kinds(&l.apply(&entry(1, LedgerKind::Allocation, "default", -1, 0))),
            [EventType::AllocationCreated]
        );
        let out = l.apply(&entry(2, LedgerKind::Allocation, "default", -1, 0));
        assert_eq!(kinds(&out), [EventType::AllocationCreated, EventType::SkuSoldOut]);
        let data: serde_json::Value = serde_json::from_str(&out[0].data).unwrap();
        assert_eq!(
            (
                data["on_hand"].as_i64(),
                data["available"].as_i64(),
                data["ref"].as_str()
            ),
            (Some(0), Some(0), Some("r2"))
        );
        assert_eq!(out[0].object, "r2");
        let back = l.apply(&entry(3, LedgerKind::Adjustment, "default", 5, 0));
        assert_eq!(kinds(&back), [EventType::StockAdjusted, EventType::SkuBackInStock]);
        assert_eq!(back[0].object, "HOT", "an adjustment is about its SKU");
    }

    #[test]
    fn a_hold_counts_and_low_stock_fires_on_the_way_down_only() {
        let mut l = Levels::new(Some((10, 0)), BTreeMap::from([("default".into(), (10, 0))]), Some(8));
        assert_eq!(
            kinds(&l.apply(&entry(1, LedgerKind::Hold, "default", 0, 2))),
            [EventType::StockHeld]
        );
        let out = l.apply(&entry(2, LedgerKind::Hold, "default", 0, 1));
        assert_eq!(kinds(&out), [EventType::StockHeld, EventType::SkuLowStock]);
        assert_eq!(
            out[1].data,
            r#"{"sku":"HOT","location":null,"available":7,"low_stock_below":8}"#
        );
        assert_eq!(
            kinds(&l.apply(&entry(3, LedgerKind::HoldReleased, "default", 0, -3))),
            [EventType::StockHoldReleased]
        );
    }

    #[test]
    fn locations_cross_on_their_own_and_transfers_leave_the_sku_alone() {
        let locations = BTreeMap::from([("default".into(), (1, 0)), ("north".into(), (0, 0))]);
        let mut l = Levels::new(Some((1, 0)), locations, None);
        let out = l.apply(&entry(1, LedgerKind::Transfer, "default", -1, 0));
        assert_eq!(kinds(&out), [EventType::TransferCreated, EventType::SkuSoldOut]);
        assert!(out[1].data.contains(r#""location":"default""#));
        let out = l.apply(&entry(1, LedgerKind::Transfer, "north", 1, 0));
        assert_eq!(kinds(&out), [EventType::TransferCreated, EventType::SkuBackInStock]);
        assert!(out[1].data.contains(r#""location":"north""#));
    }

    #[test]
    fn an_entry_carries_its_reason_reference_and_the_levels_around_it() {
        let locations = BTreeMap::from([("default".into(), (6, 1)), ("north".into(), (4, 0))]);
        let mut l = Levels::new(Some((10, 1)), locations, None);
        let mut e = entry(7, LedgerKind::Adjustment, "north", -3, 0);
        e.reason = Some(StockReason::Shrinkage);
        e.document = Some("erp://count/12".into());
        let data: serde_json::Value = serde_json::from_str(&l.apply(&e)[0].data).unwrap();
        assert_eq!(data["reason"], "shrinkage");
        assert_eq!(data["reference"], "erp://count/12");
        assert_eq!(data["ref"], "r7");
        assert_eq!(
            data["before"],
            serde_json::json!({"on_hand": 10, "held": 1, "available": 9})
        );
        assert_eq!(
            data["after"],
            serde_json::json!({"on_hand": 7, "held": 1, "available": 6})
        );
        assert_eq!(data["location_before"]["available"], 4);
        assert_eq!(data["location_after"]["available"], 1);
        assert_eq!(data["available"], data["after"]["available"]);
        let out = l.apply(&entry(8, LedgerKind::Hold, "default", 0, 2));
        let data: serde_json::Value = serde_json::from_str(&out[0].data).unwrap();
        assert_eq!(
            (data["reason"].as_str(), data["reference"].as_str()),
            (Some("reserved"), None)
        );
    }

    #[test]
    fn unit_tracked_entries_carry_no_totals() {
        let mut l = Levels::new(None, BTreeMap::new(), Some(3));
        let mut e = entry(1, LedgerKind::Allocation, "x", -5, 0);
        e.location = None;
        let out = l.apply(&e);
        assert_eq!(kinds(&out), [EventType::UnitClaimCreated]);
        assert!(out[0].data.contains(r#""on_hand":null,"held":null,"available":null"#));
    }
}
