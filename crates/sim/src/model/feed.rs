//! The model's stock events with reasons and references ([`Op::StockEvents`]): what each
//! successful adjustment, level set, transfer, receipt and move puts in the feed, as
//! [`crate::view::stock_event`] shapes it. The reason is the one the body said
//! ([`crate::ops::said`]), else the server's default for that write: `correction` for an
//! adjustment, `cycle_count` for a level set, `transfer`, `received`.

use super::{Done, Model};
use crate::ops::{said, Op};
use crate::view::stock_event;
use allot_core::{QuantityState, DEFAULT_LOCATION};
use serde_json::{json, Value};

impl Model {
    /// Note the events `op` made, answered with `done` (a success).
    pub(super) fn note_stock_events(&mut self, op: &Op, done: &Done) {
        let (reason, reference) = said(op);
        let mut note = |kind: &str, sku: &str, location: &str, delta: i64, default: &str| {
            let why = (reason.unwrap_or(default), reference);
            self.stock_events
                .push(stock_event(kind, (sku, Some(location)), delta, why));
        };
        match op {
            Op::Adjust {
                sku, delta, location, ..
            } => note(
                "stock.adjusted",
                sku,
                location.unwrap_or(DEFAULT_LOCATION),
                *delta,
                "correction",
            ),
            Op::SetLevel {
                sku,
                location,
                on_hand,
                compare_on_hand,
                ..
            } if on_hand != compare_on_hand => note(
                "stock.adjusted",
                sku,
                location,
                on_hand - compare_on_hand,
                "cycle_count",
            ),
            Op::Transfer {
                sku,
                from,
                to,
                quantity,
                ..
            } => {
                note("transfer.created", sku, from, -quantity, "transfer");
                note("transfer.created", sku, to, *quantity, "transfer");
            }
            Op::Receive { sku, quantity, .. } => {
                let location = done.1["location"].as_str().unwrap_or(DEFAULT_LOCATION).to_string();
                note("stock.received", sku, &location, *quantity, "received")
            }
            Op::Move {
                sku,
                from,
                to,
                quantity,
                location,
                ..
            } => {
                let delta = match (*from, *to) {
                    (QuantityState::Available, _) => -quantity,
                    (_, QuantityState::Available) => *quantity,
                    _ => 0,
                };
                note("stock.moved", sku, location.unwrap_or(DEFAULT_LOCATION), delta, "other")
            }
            _ => {}
        }
    }

    /// [`Op::StockEvents`]'s answer: the first page of the events noted.
    pub(super) fn stock_events_view(&self) -> Value {
        json!(self
            .stock_events
            .iter()
            .take(crate::view::HOLD_EVENTS_PAGE)
            .cloned()
            .collect::<Vec<_>>())
    }
}
