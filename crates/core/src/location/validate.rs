//! Validation of locations, placements, transfers and compare-and-set.

use crate::location::{
    Location, LocationBody, Placement, PlacementBody, SetLevel, SetLevelBody, Transfer, TransferBody, DEFAULT_LOCATION,
};
use crate::model::reason::StockReason;
use crate::support::checks::{name, quantity};
use crate::support::error::{AllotError, Result};
use crate::support::input::reference;
use crate::support::limits::Limits;
use std::collections::HashSet;

/// A request's `location`, checked as a name; `default` when absent.
pub(crate) fn location_or_default(location: Option<String>, limits: &Limits) -> Result<String> {
    let l = location.unwrap_or_else(|| DEFAULT_LOCATION.to_string());
    name("location", &l, limits)?;
    Ok(l)
}

/// The largest priority a location may have, either way: priorities run
/// `-MAX_PRIORITY..=MAX_PRIORITY`.
pub const MAX_PRIORITY: i64 = 1_000_000;

/// Validate `POST /v1/locations`: a name, and a priority within `-MAX_PRIORITY..=MAX_PRIORITY`
/// (default 0).
pub fn location(body: LocationBody, limits: &Limits) -> Result<Location> {
    name("location", &body.location, limits)?;
    let priority = body.priority.unwrap_or(0);
    if !(-MAX_PRIORITY..=MAX_PRIORITY).contains(&priority) {
        return Err(AllotError::invalid(format!(
            "priority must be within -1000000..=1000000, got {priority}"
        )));
    }
    Ok(Location {
        location: body.location,
        priority: priority as i32,
        created_at: None,
    })
}

/// Validate a request's `placement`: a policy, or a ranked list of 1..=`max_locations`
/// distinct location names.
pub(crate) fn placement(body: Option<PlacementBody>, limits: &Limits) -> Result<Placement> {
    match body {
        None => Ok(Placement::Priority),
        Some(PlacementBody::Policy(p)) => Ok(p.into()),
        Some(PlacementBody::Ranked(list)) => {
            if list.is_empty() {
                return Err(AllotError::invalid("placement must not be an empty list"));
            }
            if list.len() > limits.max_locations as usize {
                return Err(AllotError::LimitExceeded {
                    limit: "max_locations",
                    max: u64::from(limits.max_locations),
                    message: format!("placement lists {} locations", list.len()),
                });
            }
            let mut seen = HashSet::new();
            for l in &list {
                name("placement location", l, limits)?;
                if !seen.insert(l.as_str()) {
                    return Err(AllotError::invalid(format!("placement lists `{l}` twice")));
                }
            }
            Ok(Placement::Ranked(list))
        }
    }
}

/// Validate `POST /v1/transfers`: SKU, two different locations, quantity >= 1, a reference URI.
pub fn transfer(id: String, body: TransferBody, limits: &Limits) -> Result<Transfer> {
    name("sku", &body.sku, limits)?;
    name("from", &body.from, limits)?;
    name("to", &body.to, limits)?;
    quantity("quantity", body.quantity, 1, limits)?;
    if body.from == body.to {
        return Err(AllotError::SameLocation(crate::support::input::echo(&body.from)));
    }
    if let Some(r) = &body.reference {
        reference("reference", r)?;
    }
    Ok(Transfer {
        id,
        sku: body.sku,
        from: body.from,
        to: body.to,
        quantity: body.quantity,
        reference: body.reference,
        actor: None,
    })
}

/// Validate `POST /v1/skus/{sku}/levels/{location}`: both counts within `0..=max_quantity`,
/// a reference URI.
pub fn set_level(sku: &str, location: &str, body: SetLevelBody, limits: &Limits) -> Result<SetLevel> {
    name("sku", sku, limits)?;
    name("location", location, limits)?;
    quantity("on_hand", body.on_hand, 0, limits)?;
    quantity("compare_on_hand", body.compare_on_hand, 0, limits)?;
    if let Some(r) = &body.reference {
        reference("reference", r)?;
    }
    Ok(SetLevel {
        sku: sku.to_string(),
        location: location.to_string(),
        on_hand: body.on_hand,
        compare_on_hand: body.compare_on_hand,
        reason: body.reason.unwrap_or(StockReason::CycleCount),
        reference: body.reference,
        actor: None,
    })
}
