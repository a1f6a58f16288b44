//! Validation of request bodies against [`Limits`]. Pure functions: a body in, a validated
//! request or an [`AllotError`] out.

use crate::error::{AllotError, Result};
use crate::limits::Limits;
use crate::model::*;
use crate::strategy::{fnv1a_64, Strategy};
use std::collections::HashSet;

/// Check a SKU/resource/queue name: 1..=`max_name_len` chars of `[A-Za-z0-9._:-]`.
pub fn name(kind: &str, value: &str, limits: &Limits) -> Result<()> {
    if value.is_empty() {
        return Err(AllotError::invalid(format!("{kind} must not be empty")));
    }
    if value.len() > limits.max_name_len {
        return Err(AllotError::LimitExceeded {
            limit: "max_name_len",
            max: limits.max_name_len as u64,
            message: format!("{kind} is {} chars long", value.len()),
        });
    }
    if let Some(c) = value
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | ':' | '-')))
    {
        return Err(AllotError::invalid(format!(
            "{kind} contains {c:?}; allowed are A-Z a-z 0-9 . _ : -"
        )));
    }
    Ok(())
}

/// `value` must be >= `min` (else `invalid_request`) and <= the limit `limit` = `max`
/// (else `limit_exceeded` naming it).
fn bounded(what: &str, value: i64, min: i64, limit: &'static str, max: i64) -> Result<()> {
    if value < min {
        return Err(AllotError::invalid(format!("{what} must be >= {min}, got {value}")));
    }
    if value > max {
        return Err(AllotError::LimitExceeded {
            limit,
            max: max as u64,
            message: format!("{what} is {value}"),
        });
    }
    Ok(())
}

fn quantity(what: &str, q: i64, min: i64, limits: &Limits) -> Result<()> {
    bounded(what, q, min, "max_quantity", limits.max_quantity)
}

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
    })
}

/// Validate `POST /v1/skus/{sku}/adjustments`.
pub fn adjustment(sku: &str, body: AdjustmentBody, limits: &Limits) -> Result<Adjustment> {
    name("sku", sku, limits)?;
    if body.delta == 0 {
        return Err(AllotError::invalid("delta must not be 0"));
    }
    quantity("|delta|", body.delta.checked_abs().unwrap_or(i64::MAX), 1, limits)?;
    if let Some(r) = &body.reason {
        if r.chars().count() > limits.max_reason_len {
            return Err(AllotError::LimitExceeded {
                limit: "max_reason_len",
                max: limits.max_reason_len as u64,
                message: "reason is too long".into(),
            });
        }
    }
    Ok(Adjustment {
        sku: sku.to_string(),
        delta: body.delta,
        reason: body.reason,
    })
}

/// Validate `POST /v1/allocations`: 1..=`max_lines` lines, each SKU once, quantities >= 1.
/// The strategy must already be resolved by the caller (server default or the body's).
/// The lines come back sorted by SKU, the global lock order.
pub fn allocation(id: String, body: AllocationBody, strategy: Strategy, limits: &Limits) -> Result<AllocationRequest> {
    if body.lines.is_empty() {
        return Err(AllotError::invalid("lines must not be empty"));
    }
    if body.lines.len() > limits.max_lines {
        return Err(AllotError::LimitExceeded {
            limit: "max_lines",
            max: limits.max_lines as u64,
            message: format!("{} lines", body.lines.len()),
        });
    }
    let mut seen = HashSet::new();
    for l in &body.lines {
        name("sku", &l.sku, limits)?;
        quantity("quantity", l.quantity, 1, limits)?;
        if !seen.insert(l.sku.as_str()) {
            return Err(AllotError::invalid(format!("sku `{}` appears more than once", l.sku)));
        }
    }
    let mut lines = body.lines;
    lines.sort_by(|a, b| a.sku.cmp(&b.sku));
    let spread_hash = fnv1a_64(id.as_bytes());
    Ok(AllocationRequest {
        id,
        lines,
        strategy,
        spread_hash,
    })
}

/// Validate a ledger page size: 1..=`max_page_size`.
pub fn page_size(limit: i64, limits: &Limits) -> Result<u32> {
    bounded("limit", limit, 1, "max_page_size", i64::from(limits.max_page_size))?;
    Ok(limit as u32)
}

/// Validate an `Idempotency-Key`: 1..=255 printable ASCII characters.
pub fn idempotency_key(key: &str, limits: &Limits) -> Result<()> {
    if key.is_empty() {
        return Err(AllotError::invalid("Idempotency-Key must not be empty"));
    }
    if key.len() > limits.max_idempotency_key_len {
        return Err(AllotError::LimitExceeded {
            limit: "max_idempotency_key_len",
            max: limits.max_idempotency_key_len as u64,
            message: format!("Idempotency-Key is {} bytes", key.len()),
        });
    }
    if !key.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err(AllotError::invalid("Idempotency-Key must be printable ASCII"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strategy::Strategy;
    use proptest::prelude::{prop_assert, prop_assert_eq, proptest};

    fn l() -> Limits {
        Limits::default()
    }

    #[test]
    fn names() {
        assert!(name("sku", "HOT-1.a_b:c", &l()).is_ok());
        assert_eq!(name("sku", "", &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(name("sku", "a b", &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(name("sku", "é", &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(
            name("sku", &"a".repeat(129), &l()).unwrap_err().code(),
            "limit_exceeded"
        );
        assert!(name("sku", &"a".repeat(128), &l()).is_ok());
    }

    #[test]
    fn allocation_rules() {
        let line = |s: &str, q| AllocationLine {
            sku: s.into(),
            quantity: q,
        };
        let body = |lines| AllocationBody { lines, strategy: None };
        let ok = allocation(
            "x".into(),
            body(vec![line("B", 1), line("A", 2)]),
            Strategy::Atomic,
            &l(),
        )
        .unwrap();
        assert_eq!(ok.lines[0].sku, "A");
        let err = |b| allocation("x".into(), b, Strategy::Atomic, &l()).unwrap_err().code();
        assert_eq!(err(body(vec![])), "invalid_request");
        assert_eq!(err(body(vec![line("A", 0)])), "invalid_request");
        assert_eq!(err(body(vec![line("A", -1)])), "invalid_request");
        assert_eq!(err(body(vec![line("A", 1), line("A", 1)])), "invalid_request");
        assert_eq!(err(body(vec![line("A", 2_000_000_000_000)])), "limit_exceeded");
        assert_eq!(
            err(body((0..101).map(|i| line(&format!("S{i}"), 1)).collect())),
            "limit_exceeded"
        );
    }

    #[test]
    fn create_and_adjust() {
        let c = |on_hand, buckets| {
            create_sku(
                CreateSkuBody {
                    sku: "A".into(),
                    on_hand,
                    buckets,
                },
                &l(),
            )
        };
        assert!(c(0, None).is_ok());
        assert_eq!(c(-1, None).unwrap_err().code(), "invalid_request");
        assert_eq!(c(1, Some(0)).unwrap_err().code(), "invalid_request");
        assert_eq!(c(1, Some(65)).unwrap_err().code(), "limit_exceeded");
        let a = |delta| adjustment("A", AdjustmentBody { delta, reason: None }, &l());
        assert_eq!(a(0).unwrap_err().code(), "invalid_request");
        assert!(a(-5).is_ok());
        assert_eq!(a(i64::MIN).unwrap_err().code(), "limit_exceeded");
    }

    #[test]
    fn page_sizes() {
        assert_eq!(page_size(1, &l()).unwrap(), 1);
        assert_eq!(page_size(1000, &l()).unwrap(), 1000);
        assert_eq!(page_size(0, &l()).unwrap_err().code(), "invalid_request");
        assert_eq!(page_size(1001, &l()).unwrap_err().code(), "limit_exceeded");
    }

    #[test]
    fn idempotency_keys() {
        assert!(idempotency_key("abc-123", &l()).is_ok());
        assert!(idempotency_key("", &l()).is_err());
        assert!(idempotency_key("a\u{7f}", &l()).is_err());
        assert!(idempotency_key(&"k".repeat(256), &l()).is_err());
    }

    proptest! {
        #[test]
        fn valid_names_pass_and_others_fail(s in "[A-Za-z0-9._:-]{1,128}", bad in "[^A-Za-z0-9._:-]") {
            prop_assert!(name("sku", &s, &l()).is_ok());
            let with_bad = format!("{s}{bad}");
            prop_assert!(name("sku", &with_bad, &l()).is_err());
        }

        #[test]
        fn validated_lines_are_sorted_and_unique(skus in proptest::collection::hash_set("[A-Z]{1,4}", 1..20)) {
            let lines = skus.iter().map(|s| AllocationLine { sku: s.clone(), quantity: 1 }).collect();
            let req = allocation("id".into(), AllocationBody { lines, strategy: None }, Strategy::Atomic, &l()).unwrap();
            prop_assert!(req.lines.windows(2).all(|w| w[0].sku < w[1].sku));
            prop_assert_eq!(req.lines.len(), skus.len());
        }
    }
}
