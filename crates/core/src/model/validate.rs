//! Validation of the SKU and allocation bodies.

use crate::kit::{Kits, OrderLineBody};
use crate::location::validate::{location_or_default, placement};
use crate::model::reason::StockReason;
use crate::model::{
    Adjustment, AdjustmentBody, AllocationBody, AllocationLine, AllocationRequest, CreateSku, CreateSkuBody, LineBody,
};
use crate::strategy::{fnv1a_64, Strategy};
use crate::support::checks::{bounded, max_lines, name, quantity, NamedOnce};
use crate::support::error::{AllotError, Result};
use crate::support::limits::Limits;

/// Validate `POST /v1/skus`.
pub fn create_sku(body: CreateSkuBody, limits: &Limits) -> Result<CreateSku> {
    name("sku", &body.sku, limits)?;
    quantity("on_hand", body.on_hand, 0, limits)?;
    let buckets = body.buckets.unwrap_or(1);
    bounded("buckets", buckets, 1, "max_buckets", i64::from(limits.max_buckets))?;
    Ok(CreateSku {
        sku: body.sku,
        on_hand: body.on_hand,
        buckets: buckets as u32,
        location: location_or_default(body.location, limits)?,
        low_stock_below: low_stock_below(body.low_stock_below, limits)?,
        actor: None,
    })
}

/// A `low_stock_below` threshold: absent, or 1..=`max_quantity`.
pub fn low_stock_below(value: Option<i64>, limits: &Limits) -> Result<Option<i64>> {
    if let Some(v) = value {
        quantity("low_stock_below", v, 1, limits)?;
    }
    Ok(value)
}

/// Validate `PATCH /v1/skus/{sku}`: at least one setting; `low_stock_below` as
/// [`low_stock_below`], `backorder_limit` 0..=`max_quantity`. Returns (threshold to set, if
/// named; backorder limit to set, if named).
pub fn sku_settings(body: crate::model::SkuSettingsBody, limits: &Limits) -> Result<SkuSettings> {
    if body.low_stock_below.is_none() && body.backorder_limit.is_none() {
        return Err(AllotError::invalid(
            "name low_stock_below or backorder_limit: there is nothing to set",
        ));
    }
    let low_stock_below = body.low_stock_below.map(|v| low_stock_below(v, limits)).transpose()?;
    if let Some(n) = body.backorder_limit {
        quantity("backorder_limit", n, 0, limits)?;
    }
    Ok(SkuSettings {
        low_stock_below,
        backorder_limit: body.backorder_limit,
    })
}

/// A SKU's settings to change (`None`: kept), validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkuSettings {
    /// The new `low_stock_below` (`Some(None)` removes it).
    pub low_stock_below: Option<Option<i64>>,
    /// The new `backorder_limit`.
    pub backorder_limit: Option<i64>,
}

/// Validate `POST /v1/skus/{sku}/adjustments`.
pub fn adjustment(sku: &str, body: AdjustmentBody, limits: &Limits) -> Result<Adjustment> {
    name("sku", sku, limits)?;
    if body.delta == 0 {
        return Err(AllotError::invalid("delta must not be 0"));
    }
    quantity("|delta|", body.delta.checked_abs().unwrap_or(i64::MAX), 1, limits)?;
    if let Some(r) = &body.reference {
        crate::support::input::reference("reference", r)?;
    }
    Ok(Adjustment {
        sku: sku.to_string(),
        delta: body.delta,
        reason: body.reason.unwrap_or(StockReason::Correction),
        reference: body.reference,
        location: location_or_default(body.location, limits)?,
        actor: None,
    })
}

/// Validate `POST /v1/allocations` without kit lines (see [`allocation_with`]).
pub fn allocation(id: String, body: AllocationBody, strategy: Strategy, limits: &Limits) -> Result<AllocationRequest> {
    allocation_with(id, body, strategy, limits, &Kits::new())
}

/// Validate `POST /v1/allocations`: 1..=`max_lines` lines; kit lines turned into their
/// components' demand, summed with the plain lines' ([`crate::kit::expand`], the kits as
/// `kits` holds them); then each SKU once, quantities 1..=`max_quantity`. The strategy must
/// already be resolved by the caller (server default or the body's). The lines come back
/// sorted by SKU, the global lock order.
pub fn allocation_with(
    id: String,
    body: AllocationBody,
    strategy: Strategy,
    limits: &Limits,
    kits: &Kits,
) -> Result<AllocationRequest> {
    if body.lines.is_empty() {
        return Err(AllotError::invalid("lines must not be empty"));
    }
    max_lines(body.lines.len(), limits)?;
    let stock: Vec<LineBody> = match body.lines.iter().any(|l| l.kit().is_some()) {
        true => {
            // Kits' components count as lines: a request takes at most `max_lines` SKUs.
            let expanded = crate::kit::expand(body.lines, kits, limits)?;
            max_lines(expanded.len(), limits)?;
            expanded
        }
        false => body.lines.into_iter().filter_map(OrderLineBody::into_stock).collect(),
    };
    let mut named = NamedOnce::default();
    for l in &stock {
        name("sku", &l.sku, limits)?;
        quantity("quantity", l.quantity, 1, limits)?;
        if let Some(loc) = &l.location {
            name("location", loc, limits)?;
        }
        named.note(&l.sku)?;
    }
    let placement = placement(body.placement, limits)?;
    let mut lines: Vec<AllocationLine> = stock.into_iter().map(AllocationLine::from).collect();
    lines.sort_by(|a, b| a.sku.cmp(&b.sku));
    let spread_hash = fnv1a_64(id.as_bytes());
    Ok(AllocationRequest {
        id,
        lines,
        strategy,
        spread_hash,
        placement,
        allow_split: body.allow_split.unwrap_or(false),
        fences: Vec::new(),
        actor: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::LineBody;
    use crate::support::checks::SMALL_CART;

    fn body(skus: &[&str]) -> AllocationBody {
        AllocationBody {
            lines: skus
                .iter()
                .map(|s| {
                    LineBody {
                        sku: (*s).to_string(),
                        quantity: 1,
                        location: None,
                    }
                    .into()
                })
                .collect(),
            strategy: None,
            placement: None,
            allow_split: None,
        }
    }

    /// The SKU named is the first one named twice in the body's order, in a small cart
    /// (compared line by line) as in a large one (a set), and the lines come back sorted.
    #[test]
    fn the_first_sku_named_twice_is_named() {
        let limits = Limits::default();
        let small = ["D", "C", "B", "C", "D"];
        let mut large: Vec<String> = (0..SMALL_CART + 4).map(|i| format!("S{i:02}")).collect();
        large.extend(["S09".to_string(), "S03".to_string()]);
        let large: Vec<&str> = large.iter().map(String::as_str).collect();
        for (skus, twice) in [(&small[..], "C"), (&large[..], "S09")] {
            let refused = allocation("a".into(), body(skus), Strategy::Atomic, &limits).unwrap_err();
            assert!(
                matches!(&refused, AllotError::DuplicateSku(s) if s == twice),
                "{refused:?}"
            );
        }
        let ok = allocation("a".into(), body(&["B", "A", "C"]), Strategy::Atomic, &limits).unwrap();
        let skus: Vec<&str> = ok.lines.iter().map(|l| l.sku.as_str()).collect();
        assert_eq!(skus, ["A", "B", "C"]);
    }
}
