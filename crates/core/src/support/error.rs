//! The domain error of allot. Every variant has a stable snake_case `code()` that the
//! server maps to an HTTP status (see README.md, "Errors"). Backends map database errors to these by
//! SQLSTATE, never by message text.

/// Result alias over [`AllotError`].
pub type Result<T, E = AllotError> = std::result::Result<T, E>;

/// Every way a request can fail. A request that fails changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllotError {
    /// Malformed input: bad JSON, wrong types, quantity <= 0, bad name. HTTP 400 `invalid_request`.
    #[error("{0}")]
    InvalidRequest(String),
    /// A named limit (see [`crate::support::limits::Limits`]) was exceeded. HTTP 400 `limit_exceeded`
    /// (413 when `limit` is `max_body_bytes`).
    #[error("limit {limit} ({max}) exceeded: {message}")]
    LimitExceeded {
        /// The limit's name as in `allot serve --help`, e.g. `max_lines`.
        limit: &'static str,
        /// The limit's configured value.
        max: u64,
        /// What exceeded it.
        message: String,
    },
    /// The strategy does not exist or this backend cannot run it. HTTP 400.
    #[error("strategy `{strategy}` is not supported by the {backend} backend{}", reason.text())]
    UnsupportedStrategy {
        /// The strategy as given by the client.
        strategy: String,
        /// The backend's name.
        backend: &'static str,
        /// Why (the server adds how an operator changes it).
        reason: Unsupported,
    },
    /// Unknown SKU, allocation, … HTTP 404 `not_found`.
    #[error("{kind} `{id}` not found")]
    NotFound {
        /// What kind of thing, e.g. `sku`.
        kind: &'static str,
        /// Its identifier.
        id: String,
    },
    /// Creating what exists. HTTP 409 `already_exists`.
    #[error("{kind} `{id}` already exists")]
    AlreadyExists {
        /// What kind of thing.
        kind: &'static str,
        /// Its identifier.
        id: String,
    },
    /// The first short line of a request. HTTP 409 `insufficient_stock`.
    #[error("insufficient stock for sku `{sku}`: requested {requested}, available {available}")]
    InsufficientStock {
        /// The SKU that was short.
        sku: String,
        /// What the line asked for.
        requested: i64,
        /// What was available when it was evaluated (a snapshot).
        available: i64,
    },
    /// A compare-and-set of a level found another value than the caller's
    /// `compare_on_hand`. HTTP 409 `compare_failed` with the current value; nothing changed.
    #[error("on hand of sku `{sku}` at `{location}` is {current}, not the {expected} compared with")]
    CompareFailed {
        /// The SKU.
        sku: String,
        /// The location.
        location: String,
        /// What the caller expected.
        expected: i64,
        /// What it is.
        current: i64,
    },
    /// A return of more than is left of an allocation's line (a SKU it does not have, or a
    /// cancelled allocation, has nothing left). HTTP 409 `exceeds_allocation`.
    #[error("return of {requested} of sku `{sku}`: {left} left of the allocation")]
    ExceedsAllocation {
        /// The SKU.
        sku: String,
        /// What the return asked to give back.
        requested: i64,
        /// What is left of the allocation's line.
        left: i64,
    },
    /// A receipt of more than is still expected of the incoming it names. HTTP 409
    /// `exceeds_incoming`, with what is still expected (`available`).
    #[error("receipt of {requested} of sku `{sku}`: {left} still expected of incoming `{id}`")]
    ExceedsIncoming {
        /// The SKU.
        sku: String,
        /// The incoming.
        id: String,
        /// What the receipt asked to receive.
        requested: i64,
        /// What is still expected of the incoming.
        left: i64,
    },
    /// A move out of an unsellable state of more than that state has at the location. HTTP
    /// 409 `exceeds_state`, with what the state has (`available`).
    #[error("move of {requested} of sku `{sku}` out of `{state}`: it has {left} there")]
    ExceedsState {
        /// The SKU.
        sku: String,
        /// The state's wire name (`damaged`), a name and not the enum so that errors stay
        /// below the domain modules.
        state: &'static str,
        /// What the move asked to take out of it.
        requested: i64,
        /// What the state has there.
        left: i64,
    },
    /// A transfer from a location to itself: well-formed, but it would move nothing. HTTP 422
    /// `same_location`.
    #[error("a transfer needs two different locations (from and to are both `{0}`)")]
    SameLocation(String),
    /// A request naming one SKU in two lines where each SKU may appear once (allocations,
    /// holds, confirms): HTTP 422 `duplicate_sku`.
    #[error("sku `{0}` appears in more than one line: name each SKU once")]
    DuplicateSku(String),
    /// A half-open range `[from, to)` whose end is not after its start: well-formed, but it
    /// holds no instant. HTTP 422 `empty_range`, naming the two fields.
    #[error("{to} must be after {from} (a half-open range [{from}, {to}) holds no instant otherwise)")]
    EmptyRange {
        /// The start's field name.
        from: String,
        /// The end's field name.
        to: String,
    },
    /// A well-formed request, valid by the API document, that breaks a rule JSON Schema
    /// cannot state (a serial twice in one batch, a year outside 1970..=9999, a cron
    /// expression). HTTP 422 with the rule's own code ([`Rule::code`]); the message names the
    /// field.
    #[error("{message}")]
    Unprocessable {
        /// The rule broken.
        rule: Rule,
        /// What broke it, naming the field.
        message: String,
    },
    /// A count request on a unit-tracked SKU, or a unit request on a count-tracked one: the
    /// request is well-formed, the SKU's tracking does not fit it. HTTP 409 `wrong_tracking`.
    #[error("{}", if *units {
        format!("sku `{sku}` is unit-tracked: its units arrive by POST /v1/skus/{{sku}}/units and are taken by unit claims, not as a count")
    } else {
        format!("sku `{sku}` tracks counts, not units: take it with a stock allocation or hold")
    })]
    WrongTracking {
        /// The SKU.
        sku: String,
        /// Whether it is unit-tracked.
        units: bool,
    },
    /// Bounded retries exhausted (optimistic strategy). HTTP 409 `contention` with `Retry-After`.
    #[error("contention: gave up after {attempts} attempts")]
    Contention {
        /// How many attempts were made.
        attempts: u32,
        /// Suggested wait before retrying, in milliseconds.
        retry_after_ms: u64,
    },
    /// Confirm of a hold that is no longer `held` (released, or expired even if not yet
    /// swept). HTTP 409 `hold_expired` / `hold_released`.
    #[error("hold `{id}` is {}", status.as_str())]
    HoldNotActive {
        /// The hold.
        id: String,
        /// Its effective status.
        status: crate::status::HoldStatus,
    },
    /// The range overlaps a blocking booking of the resource. HTTP 409 `booking_overlap`.
    #[error("the range overlaps booking {}", conflicting_booking_id.as_deref().unwrap_or("(unknown)"))]
    BookingOverlap {
        /// The blocking booking it collides with, when known.
        conflicting_booking_id: Option<String>,
    },
    /// A slot of the resource, or of a pool it is in, has not enough free for the booking's
    /// quantity. HTTP 409 `capacity_exceeded`; the reason names the first such slot
    /// (`slot_start`, `free`, `pool`).
    #[error("slot {} of {} has {} free, {} asked", reason_slot(.0), reason_pool(.0), reason_free(.0), reason_requested(.0))]
    CapacityExceeded(Box<crate::booking::reason::Reason>),
    /// A rule of the resource refuses the booking. HTTP 422 `rule_violated`; the reason
    /// names the rule and its figures.
    #[error("the booking breaks the resource's rule `{}`", .0.rule())]
    RuleViolated(Box<crate::booking::reason::Reason>),
    /// The refusal of one line of a request with lines, naming it: `error` refused
    /// `lines[line]`. Made for the refusal of a hold's booking line (`booking_overlap`,
    /// `capacity_exceeded`, `rule_violated`, `needs_slots`), where the error itself cannot say which of
    /// several booking lines it is about. Its code, status, message and details are
    /// `error`'s; [`AllotError::unlined`] gives `error`.
    #[error("{error}")]
    OnLine {
        /// The index in the request's `lines`.
        line: usize,
        /// The refusal.
        error: Box<AllotError>,
    },
    /// Confirm of a booking that is no longer held. HTTP 409 `booking_expired`,
    /// `booking_cancelled`, `booking_released`.
    #[error("booking `{id}` is {}", status.as_str())]
    BookingNotActive {
        /// The booking.
        id: String,
        /// Its effective status.
        status: crate::status::BookingStatus,
    },
    /// The job's lease token is no longer valid (completed, failed, rescued or re-leased
    /// since). HTTP 409 `lease_lost`; nothing changed.
    #[error("job {id}: lease token no longer valid")]
    LeaseLost {
        /// The job.
        id: i64,
    },
    /// A `redis_lock` holder's fencing token is not newer than the last one the SKU has seen:
    /// its lock lapsed (it paused past the TTL) and another holder took it since. HTTP 409
    /// `lease_lost`; nothing changed.
    #[error("sku {sku}: the lock's fencing token {token} is stale (the lock lapsed and was taken again)")]
    Fenced {
        /// The SKU.
        sku: String,
        /// The stale token.
        token: i64,
    },
    /// The same `Idempotency-Key` was used with a different request. HTTP 422.
    #[error("idempotency key was already used with a different request")]
    IdempotencyKeyReused,
    /// A stock write without an `Idempotency-Key` on a server that requires one
    /// (`--require-idempotency-key`). HTTP 400 `idempotency_key_required`, as the IETF's
    /// Idempotency-Key draft (draft-ietf-httpapi-idempotency-key-header, §2.7) advises for a
    /// resource that requires the header. Nothing was applied.
    #[error(
        "{field} is required: this server requires an idempotency key on every stock write (--require-idempotency-key)"
    )]
    IdempotencyKeyRequired {
        /// What is missing: the `Idempotency-Key` header, or a batch operation's
        /// `operations[i].idempotency_key`.
        field: String,
    },
    /// A request with the same `Idempotency-Key` is still running. HTTP 409.
    #[error("a request with this idempotency key is still in progress")]
    IdempotencyKeyInUse,
    /// The request is not in a format allot reads (a body that is not declared as JSON).
    /// HTTP 415 `unsupported_media_type`.
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The caller may not do this (a Host or Origin not allowed). HTTP 403 `forbidden`.
    #[error("{0}")]
    Forbidden(String),
    /// No, a malformed, an unknown or a revoked key where one is required. HTTP 401
    /// `unauthenticated`.
    #[error("{0}")]
    Unauthenticated(String),
    /// The key made more requests than its rate allows. HTTP 429 `rate_limited` with
    /// `Retry-After`.
    #[error("rate limited: retry in {retry_after_ms} ms")]
    RateLimited {
        /// When the next request will be let in, ms from now.
        retry_after_ms: u64,
    },
    /// The key lacks the scope the operation needs. HTTP 403 `forbidden`, detail
    /// `missing_scope`.
    #[error("this key lacks the scope `{scope}`")]
    MissingScope {
        /// The scope's name (`stock:write`).
        scope: &'static str,
    },
    /// The database connection broke while the request's transaction was committing: it may
    /// or may not have been applied (the one case where allot cannot know). HTTP 503
    /// `outcome_unknown`; a retry with the same `Idempotency-Key` tells (a replay: it was).
    #[error("the database connection broke while committing: the request may have been applied; retry it with the same Idempotency-Key to learn which")]
    OutcomeUnknown,
    /// The database (or Redis) is down; nothing was applied. HTTP 503.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A bug or an unexpected database error. HTTP 500 `internal`.
    #[error("internal error: {0}")]
    Internal(String),
}

/// A rule of a request that the API document cannot state in JSON Schema: a request the
/// document admits that breaks one is refused `422` with the rule's code, the same way on
/// every endpoint (see docs/api.md, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// One serial twice in one batch of units (`duplicate_serial`).
    DuplicateSerial,
    /// `order_by` naming one field twice, ascending or descending (`duplicate_order_by`).
    DuplicateOrderBy,
    /// One `Idempotency-Key` on two operations of one batch (`duplicate_idempotency_key`).
    DuplicateIdempotencyKey,
    /// An instant outside the years 1970..=9999, or a leap second (`instant_out_of_range`).
    InstantOutOfRange,
    /// A cron expression that does not parse or never matches (`invalid_cron`).
    InvalidCron,
    /// A time zone name that is not in the IANA database (`unknown_time_zone`).
    UnknownTimeZone,
    /// A JSON filter inside a query parameter that is not an object of one key with a
    /// scalar value (`invalid_filter`).
    InvalidFilter,
    /// A bulk action's `filter.state` the action does not apply to (`state_not_applicable`).
    StateNotApplicable,
    /// U+0000 inside free JSON (a payload, metadata), which no backend stores
    /// (`nul_character`).
    NulCharacter,
    /// A number in a client document (a payload, metadata) that would come back as another
    /// decimal value (beyond 64 bits, more digits than an f64 keeps): `inexact_number`.
    InexactNumber,
    /// A field a template job must leave out: a schedule's (each tick gives it) or a batch's
    /// callback (the batch gives it, and its payload must be an object): `template_field`.
    TemplateField,
    /// A `slot_ms` that does not divide a day (`slot_length`).
    SlotLength,
    /// What only a resource with slots has — a capacity other than 1, pools, stay lengths, a
    /// quantity other than 1, slot capacities — asked of one without (`needs_slots`).
    NeedsSlots,
    /// `min_slots` above `max_slots` (`stay_bounds`).
    StayBounds,
    /// A change of a resource's `slot_ms` or `time_zone` while capacities put for slots of
    /// the old ones have not ended (`slot_grid_in_use`).
    SlotGridInUse,
    /// A booking's own confirm, cancel, release, extend or reschedule of a booking that is a
    /// hold's line: the hold decides it (`held_by_hold`).
    HeldByHold,
    /// A partial confirm naming a booking that is not one of the hold's (`not_in_hold`).
    NotInHold,
    /// A receipt naming both an incoming and a location: it arrives at the incoming's
    /// (`location_with_incoming`).
    LocationWithIncoming,
    /// A move from a quantity state to itself (`same_state`).
    SameState,
    /// A job's `depends_on` naming an id that is no job of the tenant (never enqueued, or
    /// pruned): `unknown_dependency`.
    UnknownDependency,
}

impl Rule {
    /// The rule's stable snake_case error code.
    pub fn code(self) -> &'static str {
        match self {
            Rule::DuplicateSerial => "duplicate_serial",
            Rule::DuplicateOrderBy => "duplicate_order_by",
            Rule::DuplicateIdempotencyKey => "duplicate_idempotency_key",
            Rule::InstantOutOfRange => "instant_out_of_range",
            Rule::InvalidCron => "invalid_cron",
            Rule::UnknownTimeZone => "unknown_time_zone",
            Rule::InvalidFilter => "invalid_filter",
            Rule::StateNotApplicable => "state_not_applicable",
            Rule::NulCharacter => "nul_character",
            Rule::InexactNumber => "inexact_number",
            Rule::TemplateField => "template_field",
            Rule::SlotLength => "slot_length",
            Rule::NeedsSlots => "needs_slots",
            Rule::StayBounds => "stay_bounds",
            Rule::SlotGridInUse => "slot_grid_in_use",
            Rule::HeldByHold => "held_by_hold",
            Rule::NotInHold => "not_in_hold",
            Rule::LocationWithIncoming => "location_with_incoming",
            Rule::SameState => "same_state",
            Rule::UnknownDependency => "unknown_dependency",
        }
    }

    /// Every rule, for the documentation and its tests.
    pub const ALL: [Rule; 20] = [
        Rule::DuplicateSerial,
        Rule::DuplicateOrderBy,
        Rule::DuplicateIdempotencyKey,
        Rule::InstantOutOfRange,
        Rule::InvalidCron,
        Rule::UnknownTimeZone,
        Rule::InvalidFilter,
        Rule::StateNotApplicable,
        Rule::NulCharacter,
        Rule::InexactNumber,
        Rule::TemplateField,
        Rule::SlotLength,
        Rule::NeedsSlots,
        Rule::StayBounds,
        Rule::SlotGridInUse,
        Rule::HeldByHold,
        Rule::NotInHold,
        Rule::LocationWithIncoming,
        Rule::SameState,
        Rule::UnknownDependency,
    ];
}

/// Why a strategy cannot run: what the client is told (in domain words; the server adds
/// how an operator changes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// A Redis strategy on a store without Redis.
    NeedsRedis,
    /// An unsafe strategy (`naive`) on a store that does not allow them.
    Unsafe,
    /// Anything but `serialized` on SQLite.
    SqliteSerializedOnly,
    /// No such strategy, or none of the above.
    Other,
}

impl Unsupported {
    /// The reason as the tail of the error message (empty for `Other`).
    pub fn text(self) -> &'static str {
        match self {
            Unsupported::NeedsRedis => " without Redis",
            Unsupported::Unsafe => " (unsafe strategies are not allowed here)",
            Unsupported::SqliteSerializedOnly => {
                " (SQLite runs every request as one serialized transaction: use `serialized`)"
            }
            Unsupported::Other => "",
        }
    }
}

fn reason_slot(r: &crate::booking::reason::Reason) -> String {
    match r {
        crate::booking::reason::Reason::Capacity { slot_start, .. } => slot_start.to_rfc3339(),
        _ => String::new(),
    }
}

fn reason_pool(r: &crate::booking::reason::Reason) -> String {
    match r {
        crate::booking::reason::Reason::Capacity { pool: Some(p), .. } => format!("pool `{p}`"),
        _ => "the resource".into(),
    }
}

fn reason_free(r: &crate::booking::reason::Reason) -> i64 {
    match r {
        crate::booking::reason::Reason::Capacity { free, .. } => *free,
        _ => 0,
    }
}

fn reason_requested(r: &crate::booking::reason::Reason) -> i64 {
    match r {
        crate::booking::reason::Reason::Capacity { requested, .. } => *requested,
        _ => 0,
    }
}

/// Longest text echoed back inside an error message, chars; longer values are cut with `…`.
pub const MAX_ECHO_CHARS: usize = 64;

/// `value` cut to [`MAX_ECHO_CHARS`] for an error message (never echo unbounded input).
pub fn echo(value: &str) -> String {
    if value.chars().count() <= MAX_ECHO_CHARS {
        return value.to_string();
    }
    let mut s: String = value.chars().take(MAX_ECHO_CHARS).collect();
    s.push('…');
    s
}

impl AllotError {
    /// The stable snake_case error code (README.md, "Errors").
    pub fn code(&self) -> &'static str {
        match self {
            AllotError::OnLine { error, .. } => error.code(),
            AllotError::InvalidRequest(_) => "invalid_request",
            AllotError::LimitExceeded { .. } => "limit_exceeded",
            AllotError::UnsupportedStrategy { .. } => "unsupported_strategy",
            AllotError::NotFound { .. } => "not_found",
            AllotError::AlreadyExists { .. } => "already_exists",
            AllotError::InsufficientStock { .. } => "insufficient_stock",
            AllotError::CompareFailed { .. } => "compare_failed",
            AllotError::WrongTracking { .. } => "wrong_tracking",
            AllotError::SameLocation(_) => "same_location",
            AllotError::EmptyRange { .. } => "empty_range",
            AllotError::DuplicateSku(_) => "duplicate_sku",
            AllotError::Unprocessable { rule, .. } => rule.code(),
            AllotError::ExceedsAllocation { .. } => "exceeds_allocation",
            AllotError::ExceedsIncoming { .. } => "exceeds_incoming",
            AllotError::ExceedsState { .. } => "exceeds_state",
            AllotError::Contention { .. } => "contention",
            AllotError::HoldNotActive { status, .. } => match status {
                crate::status::HoldStatus::Expired => "hold_expired",
                crate::status::HoldStatus::Released => "hold_released",
                crate::status::HoldStatus::Confirmed => "hold_confirmed",
                crate::status::HoldStatus::Held => "hold_held",
            },
            AllotError::BookingOverlap { .. } => "booking_overlap",
            AllotError::CapacityExceeded(_) => "capacity_exceeded",
            AllotError::RuleViolated(_) => "rule_violated",
            AllotError::BookingNotActive { status, .. } => match status {
                crate::status::BookingStatus::Expired => "booking_expired",
                crate::status::BookingStatus::Cancelled => "booking_cancelled",
                crate::status::BookingStatus::Released => "booking_released",
                crate::status::BookingStatus::Confirmed => "booking_confirmed",
                crate::status::BookingStatus::Held => "booking_held",
            },
            AllotError::LeaseLost { .. } | AllotError::Fenced { .. } => "lease_lost",
            AllotError::IdempotencyKeyReused => "idempotency_key_reused",
            AllotError::IdempotencyKeyRequired { .. } => "idempotency_key_required",
            AllotError::IdempotencyKeyInUse => "idempotency_key_in_use",
            AllotError::UnsupportedMediaType(_) => "unsupported_media_type",
            AllotError::Forbidden(_) | AllotError::MissingScope { .. } => "forbidden",
            AllotError::Unauthenticated(_) => "unauthenticated",
            AllotError::RateLimited { .. } => "rate_limited",
            AllotError::Unavailable(_) => "unavailable",
            AllotError::OutcomeUnknown => "outcome_unknown",
            AllotError::Internal(_) => "internal",
        }
    }

    /// This refusal as the refusal of `lines[line]` ([`AllotError::OnLine`]); a
    /// refusal already naming its line keeps it.
    pub fn on_line(self, line: usize) -> Self {
        match self {
            AllotError::OnLine { .. } => self,
            error => AllotError::OnLine {
                line,
                error: Box::new(error),
            },
        }
    }

    /// A booking's refusal (`booking_overlap`, `capacity_exceeded`, `rule_violated`,
    /// `needs_slots`) as the refusal of `lines[line]`, a hold's booking line; any other error
    /// as it is (a fault, a retry, is no line's).
    pub fn on_booking_line(self, line: usize) -> Self {
        match self {
            AllotError::BookingOverlap { .. }
            | AllotError::CapacityExceeded(_)
            | AllotError::RuleViolated(_)
            | AllotError::Unprocessable {
                rule: Rule::NeedsSlots, ..
            } => self.on_line(line),
            other => other,
        }
    }

    /// The index in the request's `lines` this refusal names ([`AllotError::OnLine`]).
    pub fn line(&self) -> Option<usize> {
        match self {
            AllotError::OnLine { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The refusal itself, without the line it names ([`AllotError::OnLine`]).
    pub fn unlined(&self) -> &AllotError {
        match self {
            AllotError::OnLine { error, .. } => error,
            other => other,
        }
    }

    /// The same refusal about a field inside `parent` (`payload` becomes `job.payload`): an
    /// `invalid_request` or `limit_exceeded` message is prefixed with `parent.`; other errors
    /// are unchanged.
    pub fn within(self, parent: &str) -> Self {
        match self {
            AllotError::InvalidRequest(m) => AllotError::InvalidRequest(format!("{parent}.{m}")),
            AllotError::LimitExceeded { limit, max, message } => AllotError::LimitExceeded {
                limit,
                max,
                message: format!("{parent}.{message}"),
            },
            AllotError::Unprocessable { rule, message } => AllotError::Unprocessable {
                rule,
                message: format!("{parent}.{message}"),
            },
            other => other,
        }
    }

    /// Shorthand for [`AllotError::Unprocessable`]: `message` names the field.
    pub fn breaks(rule: Rule, message: impl Into<String>) -> Self {
        AllotError::Unprocessable {
            rule,
            message: message.into(),
        }
    }

    /// Shorthand for [`AllotError::InvalidRequest`].
    pub fn invalid(msg: impl Into<String>) -> Self {
        AllotError::InvalidRequest(msg.into())
    }

    /// `wrong_tracking` for a SKU used with the wrong kind of request: `units` says whether
    /// the SKU is unit-tracked.
    pub fn wrong_tracking(sku: &str, units: bool) -> Self {
        AllotError::WrongTracking { sku: echo(sku), units }
    }

    /// Shorthand for [`AllotError::NotFound`].
    pub fn not_found(kind: &'static str, id: impl Into<String>) -> Self {
        AllotError::NotFound {
            kind,
            id: echo(&id.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule has its own code, and docs/api.md's table of 422 codes lists each.
    #[test]
    fn every_rule_is_documented_once() {
        let doc = include_str!("../../../../docs/api.md");
        let codes: std::collections::HashSet<&str> = Rule::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), Rule::ALL.len(), "two rules share a code");
        for code in codes {
            assert!(
                doc.contains(&format!("| `{code}` |")),
                "docs/api.md lacks the row of `{code}`"
            );
            let e = AllotError::breaks(Rule::ALL.into_iter().find(|r| r.code() == code).unwrap(), "x");
            assert_eq!(e.code(), code);
        }
    }

    #[test]
    fn unsupported_strategy_hints() {
        let msg = |s, b| AllotError::unsupported_strategy(s, b).to_string();
        assert!(msg("naive", "postgres").contains("unsafe"));
        assert!(msg("redis_counter", "postgres").ends_with("without Redis"));
        assert!(msg("atomic", "sqlite").contains("serialized"));
        assert_eq!(
            msg("bogus", "postgres"),
            "strategy `bogus` is not supported by the postgres backend"
        );
    }
}
