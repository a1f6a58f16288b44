//! Rules every domain's validation shares: names, bounded integers, batch sizes, quantities,
//! line counts, hold lifetimes, free-text fields, page sizes and idempotency keys.

use crate::support::error::{AllotError, Result};
use crate::support::input::free_text;
use crate::support::limits::Limits;

/// Lines up to which a body is checked for a SKU named twice by comparing each with those
/// before it, which costs less than hashing into a set (`allot bench cost`); past them, a set.
pub const SMALL_CART: usize = 8;

/// The SKUs a body's lines named so far, to refuse the first SKU named twice
/// (`duplicate_sku`) at the line that names it again, in the body's order.
#[derive(Default)]
pub struct NamedOnce<'a> {
    few: [&'a str; SMALL_CART],
    len: usize,
    many: Option<std::collections::HashSet<&'a str>>,
}

impl<'a> NamedOnce<'a> {
    /// Note the next line's `sku`: `duplicate_sku` when a line before named it.
    pub fn note(&mut self, sku: &'a str) -> Result<()> {
        let twice = match &mut self.many {
            Some(set) => !set.insert(sku),
            None if self.few[..self.len].contains(&sku) => true,
            None if self.len < SMALL_CART => {
                self.few[self.len] = sku;
                self.len += 1;
                false
            }
            None => {
                self.many = Some(self.few.iter().copied().chain([sku]).collect());
                false
            }
        };
        if twice {
            return Err(AllotError::DuplicateSku(sku.to_string()));
        }
        Ok(())
    }
}

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
pub(crate) fn bounded(what: &str, value: i64, min: i64, limit: &'static str, max: i64) -> Result<()> {
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

/// A batch of `n` rows (`noun` in the message): 1..=`max_batch_insert`.
pub(crate) fn batch(field: &str, noun: &str, n: usize, limits: &Limits) -> Result<()> {
    if n == 0 {
        return Err(AllotError::invalid(format!("{field} must not be empty")));
    }
    if n > limits.max_batch_insert {
        return Err(AllotError::LimitExceeded {
            limit: "max_batch_insert",
            max: limits.max_batch_insert as u64,
            message: format!("{n} {noun}"),
        });
    }
    Ok(())
}

pub(crate) fn quantity(what: &str, q: i64, min: i64, limits: &Limits) -> Result<()> {
    bounded(what, q, min, "max_quantity", limits.max_quantity)
}

/// `limit_exceeded` (`max_lines`) for more than `max_lines` lines of a request.
pub(crate) fn max_lines(n: usize, limits: &Limits) -> Result<()> {
    if n > limits.max_lines {
        return Err(AllotError::LimitExceeded {
            limit: "max_lines",
            max: limits.max_lines as u64,
            message: format!("{n} lines"),
        });
    }
    Ok(())
}

pub(crate) fn hold_ttl(what: &str, ttl_ms: i64, limits: &Limits) -> Result<u64> {
    bounded(
        what,
        ttl_ms,
        limits.min_hold_ttl_ms.min(i64::MAX as u64) as i64,
        "max_hold_ttl_ms",
        limits.max_hold_ttl_ms.min(i64::MAX as u64) as i64,
    )?;
    Ok(ttl_ms as u64)
}

/// A serial, location, lot, holder, worker or unique key: free text within
/// `max_unit_field_len` chars.
pub(crate) fn unit_field(what: &str, value: &str, limits: &Limits) -> Result<()> {
    free_text(what, value, "max_unit_field_len", limits.max_unit_field_len)
}

/// The page size of a listing whose query names none.
pub const DEFAULT_PAGE_SIZE: i64 = 100;

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
