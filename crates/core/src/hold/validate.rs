//! Validation of holds, their confirms and extends.

use crate::hold::{HoldBody, HoldRequest};
use crate::model::validate::allocation_with;
use crate::model::AllocationBody;
use crate::strategy::Strategy;
use crate::support::checks::{hold_ttl, max_lines, name, quantity, NamedOnce};
use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;

/// Validate `POST /v1/holds/{id}/confirm`'s optional body: `None` confirms the whole hold;
/// `lines` has 1..=`max_lines` lines, each a SKU's quantity (>= 1; each SKU once, else
/// `duplicate_sku`; what is kept is the hold's own placement) or a booking's id (each once).
/// The SKUs come back sorted, as every request's lines are, so that of two lines the hold
/// cannot bear the first in SKU order is the one refused (an order `allot sim` found the
/// backends and the model to disagree on); the bookings sorted too. A refusal of a line names
/// it (`lines[i]`).
pub fn confirm(body: crate::hold::ConfirmBody, limits: &Limits) -> Result<Option<crate::hold::ConfirmPart>> {
    let Some(lines) = body.lines else {
        return Ok(None);
    };
    if lines.is_empty() {
        return Err(AllotError::invalid(
            "lines must not be empty (omit it to confirm the whole hold)",
        ));
    }
    max_lines(lines.len(), limits)?;
    let mut named = NamedOnce::default();
    let mut part = crate::hold::ConfirmPart::default();
    for (i, l) in lines.iter().enumerate() {
        match l {
            crate::hold::ConfirmLineBody::Sku(l) => {
                name("sku", &l.sku, limits).map_err(|e| of_line(i, e))?;
                quantity("quantity", l.quantity, 1, limits).map_err(|e| of_line(i, e))?;
                named.note(&l.sku)?;
                part.lines.push((l.sku.clone(), l.quantity));
            }
            crate::hold::ConfirmLineBody::Booking(b) => {
                name("booking", &b.booking, limits).map_err(|e| of_line(i, e))?;
                if part.bookings.contains(&b.booking) {
                    return Err(of_line(i, AllotError::invalid("booking: names a booking twice")));
                }
                part.bookings.push(b.booking.clone());
            }
        }
    }
    part.lines.sort();
    part.bookings.sort();
    Ok(Some(part))
}

/// Validate `POST /v1/holds/{id}/extend` (and a booking's): `ttl_ms` within the hold limits.
pub fn extend(body: &crate::hold::ExtendBody, limits: &Limits) -> Result<u64> {
    hold_ttl("ttl_ms", body.ttl_ms, limits)
}

/// Validate `POST /v1/holds`: 1..=`max_lines` lines, each either a stock line (checked as
/// an allocation's) or a unit line (checked as a unit claim's: quantity
/// 1..=`max_unit_claim`, `order_by`, or exactly `quantity` distinct `serials`), never both; each SKU once across all lines; and
/// `min_hold_ttl_ms <= ttl_ms <= max_hold_ttl_ms` (below is `invalid_request`, above
/// `limit_exceeded`). A refusal of a line names it (`lines[i]`).
pub fn hold(id: String, body: HoldBody, strategy: Strategy, limits: &Limits) -> Result<HoldRequest> {
    hold_with(id, body, strategy, limits, &crate::kit::Kits::new())
}

/// [`hold`], its kit lines' components taken as [`crate::model::validate::allocation_with`]
/// takes them (the kits as `kits` holds them).
pub fn hold_with(
    id: String,
    body: HoldBody,
    strategy: Strategy,
    limits: &Limits,
    kits: &crate::kit::Kits,
) -> Result<HoldRequest> {
    let ttl_ms = hold_ttl("ttl_ms", body.ttl_ms, limits)?;
    if body.lines.is_empty() {
        return Err(AllotError::invalid("lines must not be empty"));
    }
    max_lines(body.lines.len(), limits)?;
    let mut named = NamedOnce::default();
    for sku in body.lines.iter().filter_map(|l| l.sku()) {
        named.note(sku)?;
    }
    let (mut stock, mut units, mut bookings) = (Vec::new(), Vec::new(), Vec::new());
    for (i, l) in body.lines.into_iter().enumerate() {
        match l {
            crate::hold::HoldLineBody::Units(u) => {
                units.push(unit_line(&id, u.units, limits).map_err(|e| of_line(i, e))?)
            }
            crate::hold::HoldLineBody::Stock(l) => stock.push(crate::kit::OrderLineBody::Stock(l)),
            crate::hold::HoldLineBody::Kit(k) => stock.push(crate::kit::OrderLineBody::Kit(k)),
            crate::hold::HoldLineBody::Booking(b) => {
                bookings.push(booking_line(i, b.booking, limits).map_err(|e| of_line(i, e))?)
            }
        }
    }
    if stock.is_empty() && units.is_empty() {
        return Err(AllotError::invalid(
            "lines: booking lines go with stock or unit lines (bookings alone: POST /v1/resources/{resource}/bookings \
             with hold_ttl_ms)",
        ));
    }
    units.sort_by(|a, b| a.sku.cmp(&b.sku));
    bookings.sort_by(|a, b| (&a.resource, a.start, a.end).cmp(&(&b.resource, b.start, b.end)));
    let take = stock_lines(id, stock, (strategy, body.placement, body.allow_split), (limits, kits))?;
    Ok(HoldRequest {
        take,
        units,
        bookings,
        ttl_ms,
    })
}

/// Booking line `lines[line]`, checked as a booking's resource, range and quantity are.
fn booking_line(line: usize, b: crate::hold::BookingLineBody, limits: &Limits) -> Result<crate::hold::HoldBookingLine> {
    name("resource", &b.resource, limits)?;
    let (start, end) = crate::booking::validate::window("start", &b.start, "end", &b.end, limits)?;
    Ok(crate::hold::HoldBookingLine {
        line,
        resource: b.resource,
        start,
        end,
        quantity: crate::booking::validate::quantity(b.quantity)?,
    })
}

/// A hold's stock lines as an allocation request (no lines when the hold has unit lines
/// only: then only the placement is checked).
fn stock_lines(
    id: String,
    lines: Vec<crate::kit::OrderLineBody>,
    (strategy, placement, allow_split): (Strategy, Option<crate::location::PlacementBody>, Option<bool>),
    (limits, kits): (&Limits, &crate::kit::Kits),
) -> Result<crate::model::AllocationRequest> {
    if !lines.is_empty() {
        let body = AllocationBody {
            lines,
            strategy: None,
            placement,
            allow_split,
        };
        return allocation_with(id, body, strategy, limits, kits);
    }
    let spread_hash = crate::strategy::fnv1a_64(id.as_bytes());
    Ok(crate::model::AllocationRequest {
        id,
        lines: Vec::new(),
        strategy,
        spread_hash,
        placement: crate::location::validate::placement(placement, limits)?,
        allow_split: allow_split.unwrap_or(false),
        fences: Vec::new(),
        actor: None,
    })
}

/// `e` naming the line `lines[i]` it is about (a refusal of a field of the line).
fn of_line(i: usize, e: AllotError) -> AllotError {
    match e {
        AllotError::InvalidRequest(m) => AllotError::InvalidRequest(format!("lines[{i}]: {m}")),
        AllotError::Unprocessable { rule, message } => AllotError::Unprocessable {
            rule,
            message: format!("lines[{i}]: {message}"),
        },
        other => other,
    }
}

/// A unit line, checked as a unit claim of hold `id` is.
fn unit_line(id: &str, u: crate::hold::UnitLineBody, limits: &Limits) -> Result<crate::hold::UnitLine> {
    let body = crate::unit::UnitAllocationBody {
        sku: u.sku.clone(),
        quantity: u.quantity,
        order_by: u.order_by.clone(),
        allow_partial: false,
        strategy: None,
        hold_ttl_ms: None,
    };
    let claim =
        crate::unit::validate::unit_claim(id.to_string(), body, crate::strategy::UnitStrategy::Serialized, limits)?;
    let serials = match u.serials {
        None => Vec::new(),
        Some(_) if !claim.order_by.is_empty() => {
            return Err(AllotError::invalid(
                "serials: a line names its units by serial or orders them by order_by, not both",
            ))
        }
        Some(raw) => crate::unit::validate::serials(raw, claim.quantity, limits)?,
    };
    Ok(crate::hold::UnitLine {
        sku: claim.sku,
        quantity: claim.quantity,
        order_by: claim.order_by,
        serials,
    })
}
