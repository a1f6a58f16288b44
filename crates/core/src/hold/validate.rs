//! Validation of holds, their confirms and extends.

use crate::hold::{HoldBody, HoldRequest};
use crate::model::validate::allocation;
use crate::model::AllocationBody;
use crate::strategy::Strategy;
use crate::support::checks::{hold_ttl, max_lines, name, quantity, NamedOnce};
use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;

/// Validate `POST /v1/holds/{id}/confirm`'s optional body: `None` confirms the whole hold;
/// `lines` has 1..=`max_lines` lines with quantities >= 1; each SKU once (`duplicate_sku` otherwise; what
/// is kept is the hold's own placement). The lines come back sorted by SKU, as every request's
/// lines are, so that of two lines the hold cannot bear the first in SKU order is the one
/// refused (an order `allot sim` found the backends and the model to disagree on).
pub fn confirm(body: crate::hold::ConfirmBody, limits: &Limits) -> Result<Option<Vec<(String, i64)>>> {
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
    for l in &lines {
        name("sku", &l.sku, limits)?;
        quantity("quantity", l.quantity, 1, limits)?;
        named.note(&l.sku)?;
    }
    let mut summed: Vec<(String, i64)> = lines.into_iter().map(|l| (l.sku, l.quantity)).collect();
    summed.sort();
    Ok(Some(summed))
}

/// Validate `POST /v1/holds/{id}/extend` (and a booking's): `ttl_ms` within the hold limits.
pub fn extend(body: &crate::hold::ExtendBody, limits: &Limits) -> Result<u64> {
    hold_ttl("ttl_ms", body.ttl_ms, limits)
}

/// Validate `POST /v1/holds`: the lines as for an allocation, and
/// `min_hold_ttl_ms <= ttl_ms <= max_hold_ttl_ms` (below is `invalid_request`, above
/// `limit_exceeded`).
pub fn hold(id: String, body: HoldBody, strategy: Strategy, limits: &Limits) -> Result<HoldRequest> {
    let ttl_ms = hold_ttl("ttl_ms", body.ttl_ms, limits)?;
    let take = allocation(
        id,
        AllocationBody {
            lines: body.lines,
            strategy: None,
            placement: body.placement,
            allow_split: body.allow_split,
        },
        strategy,
        limits,
    )?;
    Ok(HoldRequest { take, ttl_ms })
}
