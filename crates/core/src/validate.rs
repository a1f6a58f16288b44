//! Validation of request bodies against [`Limits`]. Pure functions: a body in, a validated
//! request or an [`AllotError`] out.

use crate::booking::{parse_instant, BookingBody, BookingRequest};
use crate::error::{AllotError, Result};
use crate::hold::{HoldBody, HoldRequest};
use crate::input::{free_text, instant, json_document, token};
use crate::job::{
    Claim, ClaimBody, ClaimStrategy, Completion, CompletionsBody, Enqueue, EnqueueBody, Fail, JobSpec, LeaseBody,
};
use crate::limits::Limits;
use crate::location::{
    Location, LocationBody, Placement, PlacementBody, SetLevel, SetLevelBody, Transfer, TransferBody, DEFAULT_LOCATION,
};
use crate::model::{
    Adjustment, AdjustmentBody, AllocationBody, AllocationLine, AllocationRequest, CreateSku, CreateSkuBody,
};
use crate::returns::{Return, ReturnBody, ReturnLine};
use crate::strategy::{fnv1a_64, Strategy};
use crate::strategy::{BookingStrategy, UnitStrategy};
use crate::unit::{AddUnits, OrderKey, UnitAllocationBody, UnitClaim, UnitColumn, UnitsBody};
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

/// A batch of `n` rows (`noun` in the message): 1..=`max_batch_insert`.
fn batch(field: &str, noun: &str, n: usize, limits: &Limits) -> Result<()> {
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
        location: location_or_default(body.location, limits)?,
        actor: None,
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
        free_text("reason", r, "max_reason_len", limits.max_reason_len)?;
    }
    Ok(Adjustment {
        sku: sku.to_string(),
        delta: body.delta,
        reason: body.reason,
        location: location_or_default(body.location, limits)?,
        actor: None,
    })
}

/// A request's `location`, checked as a name; `default` when absent.
fn location_or_default(location: Option<String>, limits: &Limits) -> Result<String> {
    let l = location.unwrap_or_else(|| DEFAULT_LOCATION.to_string());
    name("location", &l, limits)?;
    Ok(l)
}

/// Validate `POST /v1/locations`: a name, and a priority within `-10^6..=10^6` (default 0).
pub fn location(body: LocationBody, limits: &Limits) -> Result<Location> {
    name("location", &body.location, limits)?;
    let priority = body.priority.unwrap_or(0);
    if !(-1_000_000..=1_000_000).contains(&priority) {
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
fn placement(body: Option<PlacementBody>, limits: &Limits) -> Result<Placement> {
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

/// Validate `POST /v1/allocations/{id}/returns`: 1..=`max_lines` lines (a SKU may appear in
/// several, e.g. one sellable and one damaged), quantities >= 1, locations (when given) as
/// names. What is left of the allocation is the store's check, line after line.
pub fn returns(id: String, allocation_id: &str, body: ReturnBody, limits: &Limits) -> Result<Return> {
    if body.lines.is_empty() {
        return Err(AllotError::invalid("lines must not be empty"));
    }
    max_lines(body.lines.len(), limits)?;
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
        actor: None,
    })
}

/// Validate `POST /v1/transfers`: SKU, two different locations, quantity >= 1.
pub fn transfer(id: String, body: TransferBody, limits: &Limits) -> Result<Transfer> {
    name("sku", &body.sku, limits)?;
    name("from", &body.from, limits)?;
    name("to", &body.to, limits)?;
    quantity("quantity", body.quantity, 1, limits)?;
    if body.from == body.to {
        return Err(AllotError::SameLocation(crate::input::echo(&body.from)));
    }
    Ok(Transfer {
        id,
        sku: body.sku,
        from: body.from,
        to: body.to,
        quantity: body.quantity,
        actor: None,
    })
}

/// Validate `POST /v1/skus/{sku}/levels/{location}`: both counts within `0..=max_quantity`.
pub fn set_level(sku: &str, location: &str, body: SetLevelBody, limits: &Limits) -> Result<SetLevel> {
    name("sku", sku, limits)?;
    name("location", location, limits)?;
    quantity("on_hand", body.on_hand, 0, limits)?;
    quantity("compare_on_hand", body.compare_on_hand, 0, limits)?;
    if let Some(r) = &body.reason {
        free_text("reason", r, "max_reason_len", limits.max_reason_len)?;
    }
    Ok(SetLevel {
        sku: sku.to_string(),
        location: location.to_string(),
        on_hand: body.on_hand,
        compare_on_hand: body.compare_on_hand,
        reason: body.reason,
        actor: None,
    })
}

/// `limit_exceeded` (`max_lines`) for more than `max_lines` lines of a request.
fn max_lines(n: usize, limits: &Limits) -> Result<()> {
    if n > limits.max_lines {
        return Err(AllotError::LimitExceeded {
            limit: "max_lines",
            max: limits.max_lines as u64,
            message: format!("{n} lines"),
        });
    }
    Ok(())
}

/// Validate `POST /v1/allocations`: 1..=`max_lines` lines, each SKU once, quantities >= 1.
/// The strategy must already be resolved by the caller (server default or the body's).
/// The lines come back sorted by SKU, the global lock order.
pub fn allocation(id: String, body: AllocationBody, strategy: Strategy, limits: &Limits) -> Result<AllocationRequest> {
    if body.lines.is_empty() {
        return Err(AllotError::invalid("lines must not be empty"));
    }
    max_lines(body.lines.len(), limits)?;
    let mut seen = HashSet::new();
    for l in &body.lines {
        name("sku", &l.sku, limits)?;
        quantity("quantity", l.quantity, 1, limits)?;
        if let Some(loc) = &l.location {
            name("location", loc, limits)?;
        }
        if !seen.insert(l.sku.as_str()) {
            return Err(AllotError::DuplicateSku(l.sku.clone()));
        }
    }
    let placement = placement(body.placement, limits)?;
    let mut lines: Vec<AllocationLine> = body.lines.into_iter().map(AllocationLine::from).collect();
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

/// Validate `POST /v1/holds/{id}/confirm`'s optional body: `None` confirms the whole hold;
/// `lines` has 1..=`max_lines` lines with quantities >= 1; each SKU once (`duplicate_sku` otherwise; what
/// is kept is the hold's own placement).
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
    let mut summed: Vec<(String, i64)> = Vec::new();
    for l in lines {
        name("sku", &l.sku, limits)?;
        quantity("quantity", l.quantity, 1, limits)?;
        if summed.iter().any(|(s, _)| *s == l.sku) {
            return Err(AllotError::DuplicateSku(l.sku));
        }
        summed.push((l.sku, l.quantity));
    }
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

fn hold_ttl(what: &str, ttl_ms: i64, limits: &Limits) -> Result<u64> {
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
fn unit_field(what: &str, value: &str, limits: &Limits) -> Result<()> {
    free_text(what, value, "max_unit_field_len", limits.max_unit_field_len)
}

/// A serial, lot, unit location or unique key: an identifier (no format characters, kept in
/// NFC; see [`crate::input::identifier`]) within `max_unit_field_len` chars.
fn unit_identifier(what: &str, value: &str, limits: &Limits) -> Result<String> {
    crate::input::identifier(what, value, "max_unit_field_len", limits.max_unit_field_len)
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
            return Err(AllotError::invalid(format!(
                "serial `{}` appears more than once in the batch",
                u.serial
            )));
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
        let (descending, col) = match raw.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, raw.as_str()),
        };
        let column = UnitColumn::ALL.into_iter().find(|c| c.name() == col).ok_or_else(|| {
            let allowed: Vec<&str> = UnitColumn::ALL.iter().map(|c| c.name()).collect();
            AllotError::invalid(format!(
                "order_by: unknown column `{raw}`; allowed are {} (prefix `-` for descending)",
                allowed.join(", ")
            ))
        })?;
        if order_by.iter().any(|k: &OrderKey| k.column == column) {
            return Err(AllotError::invalid(format!("order_by names `{col}` twice")));
        }
        order_by.push(OrderKey { column, descending });
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
    })
}

/// Validate a booking: RFC 3339 times with offsets, `end > start`, a range of at most
/// `max_booking_ms`, a holder of 1..=`max_unit_field_len` chars, `hold_ttl_ms` within the
/// hold limits. The strategy is resolved by the caller.
pub fn booking(
    id: String,
    resource: &str,
    body: BookingBody,
    strategy: BookingStrategy,
    limits: &Limits,
) -> Result<BookingRequest> {
    name("resource", resource, limits)?;
    let (start, end) = window("start", &body.start, "end", &body.end, limits)?;
    if body.holder.is_empty() {
        return Err(AllotError::invalid("holder must not be empty"));
    }
    unit_field("holder", &body.holder, limits)?;
    if let Some(m) = &body.metadata {
        json_document("metadata", m, "max_metadata_bytes", limits.max_metadata_bytes)?;
    }
    let hold_ttl_ms = body
        .hold_ttl_ms
        .map(|t| hold_ttl("hold_ttl_ms", t, limits))
        .transpose()?;
    Ok(BookingRequest {
        id,
        resource: resource.to_string(),
        start,
        end,
        holder: body.holder,
        metadata: body.metadata,
        strategy,
        hold_ttl_ms,
    })
}

/// Validate a half-open window `[from, to)`: both RFC 3339 with offsets, `to > from`, at most
/// `max_booking_ms` long (`limit_exceeded` beyond).
pub fn window(
    from_name: &str,
    from: &str,
    to_name: &str,
    to: &str,
    limits: &Limits,
) -> Result<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)> {
    let start = parse_instant(from_name, from)?;
    let end = parse_instant(to_name, to)?;
    if end <= start {
        return Err(AllotError::EmptyRange {
            from: from_name.to_string(),
            to: to_name.to_string(),
        });
    }
    // Compared in µs (the stored precision): a range 1 µs over the limit is over it.
    let us = (end - start).num_microseconds().unwrap_or(i64::MAX);
    if us > limits.max_booking_ms.saturating_mul(1000) {
        return Err(AllotError::LimitExceeded {
            limit: "max_booking_ms",
            max: limits.max_booking_ms as u64,
            message: format!("the range is {us} µs long"),
        });
    }
    Ok((start, end))
}

/// Validate an enqueue: 1..=`max_batch_insert` jobs; payload within `max_payload_bytes`,
/// priority 1..=4, `max_attempts` 1..=`max_job_attempts`, `run_at` RFC 3339 with offset,
/// `unique_key` 1..=`max_unit_field_len` chars.
pub fn enqueue(queue: &str, body: EnqueueBody, now: chrono::DateTime<chrono::Utc>, limits: &Limits) -> Result<Enqueue> {
    name("queue", queue, limits)?;
    batch("jobs", "jobs", body.jobs.len(), limits)?;
    let mut jobs = Vec::with_capacity(body.jobs.len());
    for j in body.jobs {
        json_document("payload", &j.payload, "max_payload_bytes", limits.max_payload_bytes)?;
        let priority = j.priority.unwrap_or(1);
        if !(1..=4).contains(&priority) {
            return Err(AllotError::invalid(format!("priority must be 1..=4, got {priority}")));
        }
        let max_attempts = j.max_attempts.unwrap_or(25);
        bounded(
            "max_attempts",
            max_attempts,
            1,
            "max_job_attempts",
            limits.max_job_attempts,
        )?;
        let run_at = match &j.run_at {
            Some(t) => parse_instant("run_at", t)?,
            None => now,
        };
        let unique_key = match &j.unique_key {
            Some(k) if k.is_empty() => return Err(AllotError::invalid("unique_key must not be empty")),
            Some(k) => Some(unit_identifier("unique_key", k, limits)?),
            None => None,
        };
        jobs.push(JobSpec {
            payload: j.payload,
            priority: priority as i16,
            run_at,
            max_attempts: max_attempts as i32,
            unique_key,
        });
    }
    Ok(Enqueue {
        queue: queue.to_string(),
        jobs,
        now,
    })
}

/// Validate a lease length: `min_lease_ms..=max_lease_ms`.
pub fn lease_ms(value: i64, limits: &Limits) -> Result<i64> {
    bounded(
        "lease_ms",
        value,
        limits.min_lease_ms,
        "max_lease_ms",
        limits.max_lease_ms,
    )?;
    Ok(value)
}

/// Validate a claim: `max` 1..=`max_claim` (default 1), `lease_ms` (default 30 000),
/// `wait_ms` 0..=`max_wait_ms` (default 0). The strategy is resolved by the caller.
pub fn claim(queue: &str, body: ClaimBody, strategy: ClaimStrategy, limits: &Limits) -> Result<Claim> {
    name("queue", queue, limits)?;
    let max = body.max.unwrap_or(1);
    bounded("max", max, 1, "max_claim", limits.max_claim)?;
    let lease = lease_ms(body.lease_ms.unwrap_or(30_000), limits)?;
    if let Some(w) = &body.worker {
        unit_field("worker", w, limits)?;
    }
    let wait_ms = body.wait_ms.unwrap_or(0);
    bounded("wait_ms", wait_ms, 0, "max_wait_ms", limits.max_wait_ms)?;
    Ok(Claim {
        queue: queue.to_string(),
        max,
        lease_ms: lease,
        worker: body.worker,
        strategy,
        wait_ms,
        final_try: true,
    })
}

/// Validate a lease token: 1..=`max_token_len` bytes without control characters (a token
/// that passes but matches no lease is `lease_lost`, from the store).
pub fn lease_token(value: &str, limits: &Limits) -> Result<()> {
    token("lease_token", value, "max_token_len", limits.max_token_len)?;
    // A claim hands out a UUID in its hyphenated lower-case form; anything else cannot be a
    // lease of any job (a well-formed token that is not the job's is `409 lease_lost`).
    match uuid::Uuid::try_parse(value) {
        Ok(u) if u.hyphenated().to_string() == value => Ok(()),
        _ => Err(AllotError::invalid(
            "lease_token: not a lease token (the lower-case UUID a claim gave)",
        )),
    }
}

/// Validate `POST /v1/jobs/{id}/fail`: the token, an `error` text within `max_reason_len`
/// chars, `retry_in_ms` within 0..=`max_retry_in_ms`.
pub fn fail(body: LeaseBody, limits: &Limits) -> Result<Fail> {
    lease_token(&body.lease_token, limits)?;
    let error = body.error.unwrap_or_default();
    free_text("error", &error, "max_reason_len", limits.max_reason_len)?;
    if let Some(ms) = body.retry_in_ms {
        bounded("retry_in_ms", ms, 0, "max_retry_in_ms", limits.max_retry_in_ms)?;
    }
    Ok(Fail {
        lease_token: body.lease_token,
        error,
        retry_in_ms: body.retry_in_ms,
    })
}

/// Validate `POST /v1/queues/{queue}/completions`: 1..=`max_batch_insert` entries, each
/// token valid.
pub fn completions(queue: &str, body: CompletionsBody, limits: &Limits) -> Result<Vec<Completion>> {
    name("queue", queue, limits)?;
    batch("jobs", "completions", body.jobs.len(), limits)?;
    for c in &body.jobs {
        lease_token(&c.lease_token, limits)?;
    }
    Ok(body.jobs)
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
    use crate::{LineBody, NewUnit};
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
        let line = |s: &str, q| LineBody::new(s, q);
        let body = |lines| AllocationBody {
            lines,
            strategy: None,
            placement: None,
            allow_split: None,
        };
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
        assert_eq!(err(body(vec![line("A", 1), line("A", 1)])), "duplicate_sku");
        assert_eq!(err(body(vec![line("A", 2_000_000_000_000)])), "limit_exceeded");
        assert_eq!(
            err(body((0..101).map(|i| line(&format!("S{i}"), 1)).collect())),
            "limit_exceeded"
        );
        // A request line cannot say what only the server says of a line.
        for field in ["from", "returned"] {
            let v = serde_json::json!({"sku": "A", "quantity": 1, field: -5});
            assert!(serde_json::from_value::<LineBody>(v).is_err(), "{field} was accepted");
        }
        let placed = |p: serde_json::Value| {
            let mut b = body(vec![line("A", 1)]);
            b.placement = Some(serde_json::from_value(p).unwrap());
            allocation("x".into(), b, Strategy::Atomic, &l())
        };
        assert_eq!(
            placed(serde_json::json!("most_available")).unwrap().placement,
            Placement::MostAvailable
        );
        assert_eq!(
            placed(serde_json::json!(["W", "E"])).unwrap().placement,
            Placement::Ranked(vec!["W".into(), "E".into()])
        );
        assert_eq!(placed(serde_json::json!([])).unwrap_err().code(), "invalid_request");
        assert_eq!(
            placed(serde_json::json!(["W", "W"])).unwrap_err().code(),
            "invalid_request"
        );
        assert_eq!(placed(serde_json::json!(["W/"])).unwrap_err().code(), "invalid_request");
        let many: Vec<String> = (0..65).map(|i| format!("L{i}")).collect();
        assert_eq!(placed(serde_json::json!(many)).unwrap_err().code(), "limit_exceeded");
        assert!(serde_json::from_value::<PlacementBody>(serde_json::json!("nearest")).is_err());
    }

    #[test]
    fn locations_transfers_and_levels() {
        let loc = |name: &str, priority| {
            location(
                LocationBody {
                    location: name.into(),
                    priority,
                },
                &l(),
            )
        };
        assert_eq!(loc("WH-1", None).unwrap().priority, 0);
        assert_eq!(loc("WH 1", None).unwrap_err().code(), "invalid_request");
        assert_eq!(loc("WH", Some(1_000_001)).unwrap_err().code(), "invalid_request");
        let t = |from: &str, to: &str, quantity| {
            transfer(
                "t".into(),
                TransferBody {
                    sku: "A".into(),
                    from: from.into(),
                    to: to.into(),
                    quantity,
                },
                &l(),
            )
        };
        assert!(t("E", "W", 1).is_ok());
        assert_eq!(t("E", "E", 1).unwrap_err().code(), "same_location");
        assert_eq!(t("E", "W", 0).unwrap_err().code(), "invalid_request");
        let s = |on_hand, compare_on_hand| {
            set_level(
                "A",
                "E",
                SetLevelBody {
                    on_hand,
                    compare_on_hand,
                    reason: None,
                },
                &l(),
            )
        };
        assert!(s(0, 5).is_ok());
        assert_eq!(s(-1, 5).unwrap_err().code(), "invalid_request");
        assert_eq!(s(1, -5).unwrap_err().code(), "invalid_request");
    }

    #[test]
    fn create_and_adjust() {
        let c = |on_hand, buckets| {
            create_sku(
                CreateSkuBody {
                    sku: "A".into(),
                    on_hand,
                    buckets,
                    location: None,
                },
                &l(),
            )
        };
        assert!(c(0, None).is_ok());
        assert_eq!(c(-1, None).unwrap_err().code(), "invalid_request");
        assert_eq!(c(1, Some(0)).unwrap_err().code(), "invalid_request");
        assert_eq!(c(1, Some(65)).unwrap_err().code(), "limit_exceeded");
        let a = |delta| {
            adjustment(
                "A",
                AdjustmentBody {
                    delta,
                    reason: None,
                    location: None,
                },
                &l(),
            )
        };
        assert_eq!(a(0).unwrap_err().code(), "invalid_request");
        assert!(a(-5).is_ok());
        assert_eq!(a(i64::MIN).unwrap_err().code(), "limit_exceeded");
    }

    #[test]
    fn holds_and_units() {
        let lines = vec![LineBody::new("A", 1)];
        let h = |ttl_ms| {
            hold(
                "h".into(),
                HoldBody {
                    lines: lines.clone(),
                    ttl_ms,
                    strategy: None,
                    placement: None,
                    allow_split: None,
                },
                Strategy::Atomic,
                &l(),
            )
        };
        assert_eq!(h(1000).unwrap().ttl_ms, 1000);
        assert_eq!(h(999).unwrap_err().code(), "invalid_request");
        assert_eq!(h(86_400_001).unwrap_err().code(), "limit_exceeded");

        let claim = |quantity, order_by: &[&str]| {
            unit_claim(
                "u".into(),
                UnitAllocationBody {
                    sku: "A".into(),
                    quantity,
                    order_by: order_by.iter().map(|s| s.to_string()).collect(),
                    allow_partial: false,
                    strategy: None,
                    hold_ttl_ms: None,
                },
                UnitStrategy::SkipLocked,
                &l(),
            )
        };
        let ok = claim(3, &["received_at", "-location"]).unwrap();
        assert_eq!(ok.order_by[1].column, UnitColumn::Location);
        assert!(ok.order_by[1].descending);
        assert_eq!(claim(0, &[]).unwrap_err().code(), "invalid_request");
        assert_eq!(claim(1001, &[]).unwrap_err().code(), "limit_exceeded");
        assert_eq!(
            claim(1, &["id; DROP TABLE units"]).unwrap_err().code(),
            "invalid_request"
        );
        assert_eq!(claim(1, &["lot", "-lot"]).unwrap_err().code(), "invalid_request");
        assert_eq!(
            claim(1, &["id", "lot", "serial", "location", "received_at"])
                .unwrap_err()
                .code(),
            "limit_exceeded"
        );

        let now = crate::input::instant("now", chrono::Utc::now()).unwrap();
        let unit = |serial: &str| NewUnit {
            serial: serial.into(),
            location: None,
            lot: None,
            received_at: None,
            expires_at: None,
        };
        let add = |units| add_units("A", UnitsBody { units }, now, &l());
        assert_eq!(add(vec![unit("1"), unit("2")]).unwrap().units[0].received_at, Some(now));
        assert_eq!(add(vec![unit("1"), unit("1")]).unwrap_err().code(), "invalid_request");
        assert_eq!(add(vec![]).unwrap_err().code(), "invalid_request");
        assert_eq!(add(vec![unit("")]).unwrap_err().code(), "invalid_request");
    }

    #[test]
    fn bookings() {
        let b = |start: &str, end: &str| {
            booking(
                "b".into(),
                "room-1",
                BookingBody {
                    start: start.into(),
                    end: end.into(),
                    holder: "u".into(),
                    metadata: None,
                    strategy: None,
                    hold_ttl_ms: None,
                },
                BookingStrategy::Exclusion,
                &l(),
            )
        };
        let ok = b("2026-03-01T10:00:00+02:00", "2026-03-01T09:00:00Z").unwrap();
        assert_eq!(ok.start.to_rfc3339(), "2026-03-01T08:00:00+00:00");
        assert_eq!(
            b("2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z").unwrap_err().code(),
            "empty_range"
        );
        assert_eq!(
            b("2026-03-01T10:00:00", "2026-03-02T10:00:00Z").unwrap_err().code(),
            "invalid_request"
        );
        assert_eq!(
            b("2026-01-01T00:00:00Z", "2027-06-01T00:00:00Z").unwrap_err().code(),
            "limit_exceeded"
        );
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
            let lines = skus.iter().map(|s| LineBody::new(s.clone(), 1)).collect();
            let req = allocation("id".into(), AllocationBody { lines, strategy: None, placement: None, allow_split: None }, Strategy::Atomic, &l()).unwrap();
            prop_assert!(req.lines.windows(2).all(|w| w[0].sku < w[1].sku));
            prop_assert_eq!(req.lines.len(), skus.len());
        }

        /// Arbitrary JSON through every body type and, where it reads, through its validator:
        /// never a panic, whatever the numbers (i64 extremes), strings (control characters,
        /// NUL, non-ASCII) and shapes.
        #[test]
        fn every_validator_takes_any_json(v in arb_body()) {
            let now = chrono::Utc::now();
            let limits = l();
            let (id, name) = ("id".to_string(), "Q");
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = create_sku(b, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = adjustment(name, b, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = allocation(id.clone(), b, Strategy::Atomic, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = hold(id.clone(), b, Strategy::Atomic, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = add_units(name, b, now, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = unit_claim(id.clone(), b, UnitStrategy::SkipLocked, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = booking(id.clone(), name, b, BookingStrategy::Exclusion, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = enqueue(name, b, now, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = claim(name, b, ClaimStrategy::SkipLocked, &limits); }
            if let Ok(b) = serde_json::from_value(v.clone()) { let _ = fail(b, &limits); }
            if let Ok(b) = serde_json::from_value(v) { let _ = completions(name, b, &limits); }
        }
    }

    /// Bodies shaped like the API's (the field names it reads, values of any kind), so that
    /// generated cases reach the validators rather than stop at the types.
    fn arb_body() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::{any, prop_oneof, Just};
        use proptest::strategy::Strategy as _;
        use serde_json::Value;
        let scalar = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            prop_oneof![Just(i64::MIN), Just(i64::MAX), Just(0), Just(-1), Just(1)].prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::String),
            "[\\x00-\\x1f]{0,3}".prop_map(Value::String),
            prop_oneof![
                Just("2026-03-01T10:00:00Z"),
                Just("0001-01-01T00:00:00Z"),
                Just("2016-12-31T23:59:60Z"),
                Just("9999-12-31T23:59:59.999999999Z"),
                Just("2026-03-01T10:00:00.123456789+14:00")
            ]
            .prop_map(|s| Value::String(s.into())),
        ];
        let keys = prop_oneof![
            Just("sku"),
            Just("on_hand"),
            Just("buckets"),
            Just("delta"),
            Just("reason"),
            Just("lines"),
            Just("quantity"),
            Just("strategy"),
            Just("ttl_ms"),
            Just("units"),
            Just("serial"),
            Just("location"),
            Just("lot"),
            Just("received_at"),
            Just("expires_at"),
            Just("order_by"),
            Just("allow_partial"),
            Just("hold_ttl_ms"),
            Just("start"),
            Just("end"),
            Just("holder"),
            Just("metadata"),
            Just("jobs"),
            Just("payload"),
            Just("priority"),
            Just("run_at"),
            Just("max_attempts"),
            Just("unique_key"),
            Just("max"),
            Just("lease_ms"),
            Just("worker"),
            Just("wait_ms"),
            Just("lease_token"),
            Just("error"),
            Just("retry_in_ms"),
            Just("id")
        ];
        scalar.prop_recursive(3, 24, 4, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(keys.clone().prop_map(String::from), inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
