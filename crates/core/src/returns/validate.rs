//! Validation of a return.

use crate::returns::{Return, ReturnBody, ReturnLine};
use crate::support::checks::{max_lines, name, quantity};
use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;

/// Validate `POST /v1/allocations/{id}/returns`: 1..=`max_lines` lines (a SKU may appear in
/// several, e.g. one sellable and one damaged), quantities >= 1, locations (when given) as
/// names, a reference URI. What is left of the allocation is the store's check, line after line.
pub fn returns(id: String, allocation_id: &str, body: ReturnBody, limits: &Limits) -> Result<Return> {
    if body.lines.is_empty() {
        return Err(AllotError::invalid("lines must not be empty"));
    }
    max_lines(body.lines.len(), limits)?;
    if let Some(r) = &body.reference {
        crate::support::input::reference("reference", r)?;
    }
    let mut lines = Vec::with_capacity(body.lines.len());
    for l in body.lines {
        name("sku", &l.sku, limits)?;
        quantity("quantity", l.quantity, 1, limits)?;
        if let Some(loc) = &l.location {
            name("location", loc, limits)?;
        }
        lines.push(ReturnLine {
            sku: l.sku,
            quantity: l.quantity,
            location: l.location,
            state: l.state.unwrap_or_default(),
        });
    }
    // By SKU (stable): the lock order of the sellable lines' stock rows.
    lines.sort_by(|a, b| a.sku.cmp(&b.sku));
    Ok(Return {
        id,
        allocation_id: allocation_id.to_string(),
        lines,
        created_at: chrono::DateTime::<chrono::Utc>::UNIX_EPOCH,
        reference: body.reference,
        actor: None,
    })
}
