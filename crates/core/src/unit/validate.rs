//! Validation of units and unit claims.

use crate::strategy::UnitStrategy;
use crate::support::checks::{batch, bounded, hold_ttl, name};
use crate::support::error::{AllotError, Result, Rule};
use crate::support::input::instant;
use crate::support::limits::Limits;
use crate::unit::{AddUnits, OrderKey, UnitAllocationBody, UnitClaim, UnitColumn, UnitsBody, FEFO};
use std::collections::HashSet;

/// A serial, lot, unit location or unique key: an identifier (no format characters, kept in
/// NFC; see [`crate::support::input::identifier`]) within `max_unit_field_len` chars.
pub(crate) fn unit_identifier(what: &str, value: &str, limits: &Limits) -> Result<String> {
    crate::support::input::identifier(what, value, "max_unit_field_len", limits.max_unit_field_len)
}

/// Validate `POST /v1/skus/{sku}/units`: 1..=`max_batch_insert` units, serials non-empty
/// and distinct within the batch (a serial the SKU already has is `already_exists` from the
/// store), fields within `max_unit_field_len`. A missing `received_at` becomes `now`.
pub fn add_units(sku: &str, body: UnitsBody, now: chrono::DateTime<chrono::Utc>, limits: &Limits) -> Result<AddUnits> {
    name("sku", sku, limits)?;
    batch("units", "units", body.units.len(), limits)?;
    let mut seen = HashSet::new();
    let mut units = body.units;
    for u in &mut units {
        if u.serial.is_empty() {
            return Err(AllotError::invalid("serial must not be empty"));
        }
        u.serial = unit_identifier("serial", &u.serial, limits)?;
        for (what, v) in [("location", &mut u.location), ("lot", &mut u.lot)] {
            if let Some(v) = v {
                *v = unit_identifier(what, v, limits)?;
            }
        }
        if !seen.insert(u.serial.clone()) {
            return Err(AllotError::breaks(
                Rule::DuplicateSerial,
                format!("serial `{}` appears more than once in the batch", u.serial),
            ));
        }
        u.received_at = Some(instant("received_at", u.received_at.unwrap_or(now))?);
        u.expires_at = u.expires_at.map(|t| instant("expires_at", t)).transpose()?;
    }
    Ok(AddUnits {
        sku: sku.to_string(),
        units,
        actor: None,
    })
}

/// Validate `POST /v1/unit-allocations`: quantity 1..=`max_unit_claim`, at most
/// `max_order_by` keys, each a whitelisted column (optionally `-` for descending) named
/// once, and `hold_ttl_ms` within the hold limits. The strategy is resolved by the caller.
pub fn unit_claim(id: String, body: UnitAllocationBody, strategy: UnitStrategy, limits: &Limits) -> Result<UnitClaim> {
    name("sku", &body.sku, limits)?;
    bounded("quantity", body.quantity, 1, "max_unit_claim", limits.max_unit_claim)?;
    if body.order_by.len() > limits.max_order_by {
        return Err(AllotError::LimitExceeded {
            limit: "max_order_by",
            max: limits.max_order_by as u64,
            message: format!("{} order_by keys", body.order_by.len()),
        });
    }
    let mut order_by = Vec::with_capacity(body.order_by.len());
    for raw in &body.order_by {
        let key = OrderKey::parse(raw).ok_or_else(|| {
            AllotError::invalid(format!(
                "order_by: unknown column `{raw}`; allowed are {} (prefix `-` for descending), or `{FEFO}`",
                UnitColumn::ALL.map(|c| c.name()).join(", ")
            ))
        })?;
        if order_by.iter().any(|k: &OrderKey| k.column == key.column) {
            return Err(AllotError::breaks(
                Rule::DuplicateOrderBy,
                format!("order_by names `{}` twice", key.column.name()),
            ));
        }
        order_by.push(key);
    }
    let hold_ttl_ms = body
        .hold_ttl_ms
        .map(|t| hold_ttl("hold_ttl_ms", t, limits))
        .transpose()?;
    Ok(UnitClaim {
        id,
        sku: body.sku,
        quantity: body.quantity,
        order_by,
        allow_partial: body.allow_partial,
        strategy,
        hold_ttl_ms,
        actor: None,
        serials: Vec::new(),
    })
}

/// Validate the `serials` of a hold's unit line of `quantity` units: exactly `quantity` of
/// them, each an identifier (as a received unit's serial), each once; sorted (the order the
/// units are locked in).
pub(crate) fn serials(raw: Vec<String>, quantity: i64, limits: &Limits) -> Result<Vec<String>> {
    if raw.len() as i64 != quantity {
        return Err(AllotError::invalid(format!(
            "serials: {} serials for a quantity of {quantity} (name exactly `quantity` units)",
            raw.len()
        )));
    }
    let mut out = Vec::with_capacity(raw.len());
    for s in &raw {
        if s.is_empty() {
            return Err(AllotError::invalid("serials: a serial must not be empty"));
        }
        out.push(unit_identifier("serials", s, limits)?);
    }
    out.sort_unstable();
    if let Some(w) = out.windows(2).find(|w| w[0] == w[1]) {
        return Err(AllotError::breaks(
            Rule::DuplicateSerial,
            format!("serials names `{}` twice", w[0]),
        ));
    }
    Ok(out)
}
