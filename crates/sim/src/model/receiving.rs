//! Incoming stock and receipts in the model, as docs/api.md ("Incoming stock and receipts")
//! says: incoming is recorded at a location of a count-tracked SKU and is not on hand; a
//! receipt adds to on hand at its location, or at the location of the incoming it names,
//! of which it takes at most what is still expected (`409 exceeds_incoming`).

use super::{Done, Model};
use crate::made::Noted;
use allot_core::{AllotError, DEFAULT_LOCATION};
use serde_json::{json, Value};

/// Stock expected: its SKU, location, quantity and what receipts took of it.
#[derive(Debug, Clone)]
pub(super) struct Incoming {
    sku: String,
    location: String,
    quantity: i64,
    received: i64,
}

impl Model {
    /// What is still expected of `sku`, per location.
    pub(super) fn incoming_at(&self, sku: &str) -> std::collections::BTreeMap<String, i64> {
        let mut out = std::collections::BTreeMap::new();
        for i in self
            .incoming
            .values()
            .filter(|i| i.sku == sku && i.received < i.quantity)
        {
            *out.entry(i.location.clone()).or_default() += i.quantity - i.received;
        }
        out
    }

    /// A count-tracked SKU that exists: `not_found`, `wrong_tracking`.
    pub(super) fn counted(&self, sku: &str) -> Result<(), AllotError> {
        match self.tracks_units(sku) {
            None => Err(AllotError::not_found("sku", sku)),
            Some(true) => Err(AllotError::wrong_tracking(sku, true)),
            Some(false) => Ok(()),
        }
    }

    /// `POST /v1/skus/{sku}/incoming`.
    pub(super) fn add_incoming(
        &mut self,
        sku: &str,
        quantity: i64,
        location: Option<&str>,
    ) -> Result<Done, AllotError> {
        let location = location.unwrap_or(DEFAULT_LOCATION);
        self.counted(sku)?;
        if self.priority(location).is_none() {
            return Err(AllotError::not_found("location", location));
        }
        let id = self.new_id("incoming-");
        let made = Incoming {
            sku: sku.to_string(),
            location: location.to_string(),
            quantity,
            received: 0,
        };
        let view = incoming_view(&made);
        self.incoming.insert(id.clone(), made);
        Ok((201, view, Some(Noted::Id(id))))
    }

    /// `POST /v1/skus/{sku}/receipts`: against the incoming `id` names (when `named`), else
    /// at `location`.
    pub(super) fn receive(
        &mut self,
        sku: &str,
        quantity: i64,
        (named, id): (bool, &str),
        location: Option<&str>,
    ) -> Result<Done, AllotError> {
        self.counted(sku)?;
        let location = match named {
            false => location.unwrap_or(DEFAULT_LOCATION).to_string(),
            true => {
                let i = self
                    .incoming
                    .get_mut(id)
                    .filter(|i| i.sku == sku)
                    .ok_or_else(|| AllotError::not_found("incoming", id))?;
                let left = i.quantity - i.received;
                if quantity > left {
                    return Err(AllotError::ExceedsIncoming {
                        sku: sku.to_string(),
                        id: id.to_string(),
                        requested: quantity,
                        left,
                    });
                }
                i.received += quantity;
                i.location.clone()
            }
        };
        self.change_at(sku, &location, quantity)?;
        let view = json!({"sku": sku, "location": location, "quantity": quantity, "names_incoming": named});
        Ok((201, view, None))
    }
}

/// An incoming as its answer is compared.
fn incoming_view(i: &Incoming) -> Value {
    json!({"sku": i.sku, "location": i.location, "quantity": i.quantity, "received": i.received,
        "reference": "erp://po/sim"})
}
