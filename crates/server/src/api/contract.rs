//! The served OpenAPI document: what utoipa derives from the handlers and types, completed
//! with what the server enforces, from the same values the validation reads — this server's
//! [`Limits`] (so a configured limit shows in the document) and the strategies its store
//! supports. Added here: minimum/maximum/length/pattern/items bounds per field, the
//! name pattern on path parameters, `Idempotency-Key` on every POST, `x-request-id` on
//! every answer, `Retry-After` where it is sent, the error statuses every operation can
//! give (400, 403, 413/415 for JSON bodies, 500, 503), and `links` from the operations
//! that create an object to those that use its id (OpenAPI 3.1, "Link Object").

use crate::state::AppState;
use allot_core::Capable;
use allot_core::{BookingStrategy, ClaimStrategy, Limits, OrderKey, Strategy, UnitStrategy};
use serde_json::{json, Value};

/// SKU, resource and queue names (see `allot_core::validate::name`).
const NAME_PATTERN: &str = "^[A-Za-z0-9._:-]+$";
/// Free text: no control character but tab, line feed, carriage return (`allot_core::input`).
const TEXT_PATTERN: &str = "^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F]*$";

/// The two documents a server serves: while it answers without keys (`open`: every `/v1`
/// operation's security is optional, `[{"bearer": []}, {}]`) and once it requires them.
pub struct Documents {
    /// While the server requires no key.
    pub open: axum::body::Bytes,
    /// Once it requires one.
    pub keyed: axum::body::Bytes,
    /// `open` as OpenAPI 3.0.3 ([`super::openapi30`]).
    pub open_30: axum::body::Bytes,
    /// `keyed` as OpenAPI 3.0.3.
    pub keyed_30: axum::body::Bytes,
}

impl Documents {
    /// Both documents of a server with `st`'s limits and store, from `api`, the route
    /// table's own document.
    pub fn of(st: &AppState, api: utoipa::openapi::OpenApi) -> Self {
        let keyed = document(st, api);
        let mut open = keyed.clone();
        if let Some(paths) = open["paths"].as_object_mut() {
            for ops in paths.values_mut().filter_map(Value::as_object_mut) {
                for op in ops.values_mut().filter(|op| op.get("security").is_some()) {
                    op["security"] = json!([{"bearer": []}, {}]);
                }
            }
        }
        let bytes = |v: &Value| axum::body::Bytes::from(serde_json::to_vec(v).expect("the document serializes"));
        Documents {
            open: bytes(&open),
            keyed: bytes(&keyed),
            open_30: bytes(&super::openapi30::to_openapi_30(open)),
            keyed_30: bytes(&super::openapi30::to_openapi_30(keyed)),
        }
    }
}

/// The document of a server with `st`'s limits and store (OpenAPI 3.1 JSON) from `api`, the
/// route table's, as it is once the server requires keys.
pub fn document(st: &AppState, api: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(api).expect("the derived document serializes");
    for (schema, prop, patch) in field_bounds(&st.limits, &strategies(st)) {
        let target = &mut doc["components"]["schemas"][schema]["properties"][prop];
        assert!(target.is_object(), "no property {schema}.{prop} in the document");
        merge(target, patch);
    }
    // A ranked placement: 1..=max_locations distinct location names.
    doc["components"]["schemas"]["PlacementBody"] = json!({"oneOf": [
        {"$ref": "#/components/schemas/PlacementPolicy"},
        {"type": "array", "items": merge_into(json!({"type": "string"}), name(&st.limits)),
         "minItems": 1, "maxItems": st.limits.max_locations, "uniqueItems": true}
    ]});
    // `serialized` is a name of both families: the union is "any of", not "exactly one of".
    let taken = &mut doc["components"]["schemas"]["TakenWith"];
    if let Some(one_of) = taken.as_object_mut().and_then(|t| t.remove("oneOf")) {
        taken["anyOf"] = one_of;
    }
    // A SKU's settings name at least one (`{}` is 400). Set here: utoipa 5.5's
    // `min_properties` came out as `maxProperties`.
    doc["components"]["schemas"]["SkuSettingsBody"]["minProperties"] = json!(1);
    bound_operations(&mut doc, &st.limits);
    complete_operations(&mut doc, &st.limits);
    if st.require_idempotency_key {
        require_keys(&mut doc);
    }
    add_links(&mut doc);
    doc
}

/// On a server run with `--require-idempotency-key`: the `Idempotency-Key` of every stock
/// write ([`crate::write::STOCK_WRITES`]) is `required` (a test sends each operation of the
/// document keyless and checks the list against what the server refuses).
fn require_keys(doc: &mut Value) {
    for path in crate::write::STOCK_WRITES {
        let params = doc["paths"][path]["post"]["parameters"].as_array_mut();
        for p in params.into_iter().flatten() {
            if p["name"]
                .as_str()
                .is_some_and(|n| n.eq_ignore_ascii_case("idempotency-key"))
            {
                p["required"] = json!(true);
            }
        }
    }
}

/// A batch: 1..=`max_batch_operations` operations, each one's key as `Idempotency-Key`
/// takes it (the operations are inline variants of `OperationBody`, not named schemas).
fn bound_operations(doc: &mut Value, l: &Limits) {
    let schemas = &mut doc["components"]["schemas"];
    merge(
        &mut schemas["BatchBody"]["properties"]["operations"],
        json!({"minItems": 1, "maxItems": l.max_batch_operations}),
    );
    let key = json!({"minLength": 1, "maxLength": l.max_idempotency_key_len, "pattern": "^[\\x20-\\x7E]+$"});
    if let Some(variants) = schemas["OperationBody"]["oneOf"].as_array_mut() {
        for v in variants {
            merge(&mut v["properties"]["idempotency_key"], key.clone());
            // Each operation takes only its own members (serde refuses others).
            v["additionalProperties"] = json!(false);
        }
    }
}

/// `target` with `patch`'s members added.
fn merge_into(mut target: Value, patch: Value) -> Value {
    merge(&mut target, patch);
    target
}

fn merge(target: &mut Value, patch: Value) {
    if let (Some(t), Value::Object(p)) = (target.as_object_mut(), patch) {
        t.extend(p);
    }
}

/// Wire names of the strategies this server's store runs, per family.
struct Names {
    stock: Vec<&'static str>,
    units: Vec<&'static str>,
    bookings: Vec<&'static str>,
    claims: Vec<&'static str>,
}

fn strategies(st: &AppState) -> Names {
    let s = &st.stores;
    Names {
        stock: Strategy::ALL
            .into_iter()
            .filter(|x| s.require(*x).is_ok())
            .map(|x| x.name())
            .chain([allot_core::auto::AUTO])
            .collect(),
        units: UnitStrategy::ALL
            .into_iter()
            .filter(|x| s.supports_units(*x))
            .map(|x| x.name())
            .collect(),
        bookings: BookingStrategy::ALL
            .into_iter()
            .filter(|x| s.supports_booking(*x))
            .map(|x| x.name())
            .collect(),
        claims: ClaimStrategy::ALL
            .into_iter()
            .filter(|x| s.supports_claim(*x))
            .map(|x| x.name())
            .collect(),
    }
}

fn int(min: i64, max: i64) -> Value {
    json!({"minimum": min, "maximum": max})
}

fn text(max: usize) -> Value {
    json!({"maxLength": max, "pattern": TEXT_PATTERN})
}

/// An identifier (`allot_core::input::identifier`): free text without the BMP's format
/// characters (listed from the same test the validation makes, as `\uXXXX` escapes, which
/// ECMA-262 with or without the `u` flag and Python read alike).
fn ident(min: usize, max: usize) -> Value {
    static PATTERN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let pattern = PATTERN.get_or_init(|| {
        let mut class = String::from("\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F");
        let format: Vec<char> = (0..=0xFFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| allot_core::input::is_format_char(*c))
            .collect();
        let mut i = 0;
        while i < format.len() {
            let mut j = i;
            while j + 1 < format.len() && u32::from(format[j + 1]) == u32::from(format[j]) + 1 {
                j += 1;
            }
            let one = |c: char| format!("\\u{:04X}", u32::from(c));
            class.push_str(&one(format[i]));
            if j > i {
                class.push('-');
                class.push_str(&one(format[j]));
            }
            i = j + 1;
        }
        format!("^[^{class}]*$")
    });
    json!({"minLength": min, "maxLength": max, "pattern": pattern})
}

fn name(l: &Limits) -> Value {
    json!({"minLength": 1, "maxLength": l.max_name_len, "pattern": NAME_PATTERN})
}

/// A lease token: the lower-case hyphenated UUID a claim hands out.
fn lease_token() -> Value {
    json!({"format": "uuid", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$",
           "minLength": 36, "maxLength": 36})
}

fn one_of(names: &[&str]) -> Value {
    json!({"enum": names.iter().map(|n| Value::from(*n)).chain([Value::Null]).collect::<Vec<_>>()})
}

/// Every bounded field: (schema, property, the bounds validation applies).
fn field_bounds(l: &Limits, s: &Names) -> Vec<(&'static str, &'static str, Value)> {
    let mut all = stock_bounds(l, s);
    all.extend(work_bounds(l, s));
    all.extend(capacity_bounds(l));
    all.extend(access_bounds());
    all
}

/// Stock, holds and units.
fn stock_bounds(l: &Limits, s: &Names) -> Vec<(&'static str, &'static str, Value)> {
    use allot_core::location::validate::MAX_PRIORITY;
    let q = l.max_quantity;
    let hold = int(l.min_hold_ttl_ms as i64, l.max_hold_ttl_ms.min(i64::MAX as u64) as i64);
    vec![
        ("CreateSkuBody", "low_stock_below", int(1, q)),
        ("SkuSettingsBody", "low_stock_below", int(1, q)),
        ("SkuSettingsBody", "backorder_limit", int(0, q)),
        ("RedeliverBody", "after", int(0, allot_core::event::MAX_CURSOR)),
        ("RedeliverBody", "until", int(0, i64::MAX)),
        ("CreateSkuBody", "sku", name(l)),
        ("CreateSkuBody", "on_hand", int(0, q)),
        ("CreateSkuBody", "buckets", int(1, i64::from(l.max_buckets))),
        ("CreateSkuBody", "location", name(l)),
        ("AdjustmentBody", "location", name(l)),
        ("LineBody", "location", name(l)),
        ("LocationBody", "location", name(l)),
        ("LocationBody", "priority", int(-MAX_PRIORITY, MAX_PRIORITY)),
        ("TransferBody", "sku", name(l)),
        ("TransferBody", "from", name(l)),
        ("TransferBody", "to", name(l)),
        ("TransferBody", "quantity", int(1, q)),
        ("SetLevelBody", "on_hand", int(0, q)),
        ("SetLevelBody", "compare_on_hand", int(0, q)),
        (
            "AdjustmentBody",
            "delta",
            json!({"minimum": -q, "maximum": q, "not": {"const": 0}}),
        ),
        ("LineBody", "sku", name(l)),
        ("LineBody", "quantity", int(1, q)),
        ("KitLineBody", "kit", name(l)),
        ("KitLineBody", "quantity", int(1, q)),
        ("KitLineBody", "location", name(l)),
        ("KitBody", "components", json!({"minItems": 1, "maxItems": l.max_lines})),
        ("Component", "sku", name(l)),
        ("Component", "quantity", int(1, q)),
        (
            "AllocationBody",
            "lines",
            json!({"minItems": 1, "maxItems": l.max_lines}),
        ),
        ("AllocationBody", "strategy", one_of(&s.stock)),
        ("HoldBody", "lines", json!({"minItems": 1, "maxItems": l.max_lines})),
        ("HoldBody", "ttl_ms", hold.clone()),
        ("HoldBody", "strategy", one_of(&s.stock)),
        ("ExtendBody", "ttl_ms", hold.clone()),
        ("ConfirmBody", "lines", json!({"minItems": 1, "maxItems": l.max_lines})),
        ("ConfirmLine", "sku", name(l)),
        ("ConfirmBookingLine", "booking", name(l)),
        ("ReturnBody", "lines", json!({"minItems": 1, "maxItems": l.max_lines})),
        ("ReturnLineBody", "sku", name(l)),
        ("ReturnLineBody", "quantity", int(1, q)),
        ("ReturnLineBody", "location", name(l)),
        ("ConfirmLine", "quantity", int(1, q)),
        ("NewUnit", "serial", ident(1, l.max_unit_field_len)),
        ("NewUnit", "location", ident(0, l.max_unit_field_len)),
        ("NewUnit", "lot", ident(0, l.max_unit_field_len)),
        (
            "UnitsBody",
            "units",
            json!({"minItems": 1, "maxItems": l.max_batch_insert}),
        ),
    ]
    .into_iter()
    .chain(unit_claim_bounds(l, s, hold))
    .chain(receiving_bounds(l))
    .collect()
}

/// Incoming stock, receipts, moves between quantity states, and the `reference` URI of every
/// stock write that takes one.
fn receiving_bounds(l: &Limits) -> Vec<(&'static str, &'static str, Value)> {
    use allot_core::receiving::{validate::REFERENCE_PATTERN, MAX_REFERENCE_LEN};
    let reference = json!({"minLength": 1, "maxLength": MAX_REFERENCE_LEN, "pattern": REFERENCE_PATTERN});
    vec![
        ("IncomingBody", "quantity", int(1, l.max_quantity)),
        ("IncomingBody", "location", name(l)),
        ("IncomingBody", "reference", reference.clone()),
        ("ReceiptBody", "quantity", int(1, l.max_quantity)),
        ("ReceiptBody", "location", name(l)),
        ("ReceiptBody", "incoming_id", name(l)),
        ("ReceiptBody", "reference", reference.clone()),
        ("MoveBody", "quantity", int(1, l.max_quantity)),
        ("MoveBody", "location", name(l)),
        ("MoveBody", "reference", reference.clone()),
        ("AdjustmentBody", "reference", reference.clone()),
        ("SetLevelBody", "reference", reference.clone()),
        ("TransferBody", "reference", reference.clone()),
        ("ReturnBody", "reference", reference),
    ]
}

/// A unit claim's fields, and a hold's unit line's (checked as a unit claim is).
fn unit_claim_bounds(l: &Limits, s: &Names, hold: Value) -> Vec<(&'static str, &'static str, Value)> {
    let columns = OrderKey::names();
    let order_by = json!({"maxItems": l.max_order_by, "uniqueItems": true, "items": {"enum": columns}});
    vec![
        ("UnitAllocationBody", "sku", name(l)),
        ("UnitAllocationBody", "quantity", int(1, l.max_unit_claim)),
        ("UnitAllocationBody", "order_by", order_by.clone()),
        ("UnitAllocationBody", "hold_ttl_ms", hold),
        ("UnitAllocationBody", "strategy", one_of(&s.units)),
        ("UnitLineBody", "sku", name(l)),
        ("UnitLineBody", "quantity", int(1, l.max_unit_claim)),
        ("UnitLineBody", "order_by", order_by),
        (
            "UnitLineBody",
            "serials",
            json!({"minItems": 1, "maxItems": l.max_unit_claim, "uniqueItems": true,
                   "items": merge_into(json!({"type": "string"}), ident(1, l.max_unit_field_len))}),
        ),
    ]
}

/// Capacity: the ranges of reschedules, slot capacities, closures and a hold's booking lines,
/// and the pools a resource names.
fn capacity_bounds(l: &Limits) -> Vec<(&'static str, &'static str, Value)> {
    let instant = json!({"format": "date-time"});
    vec![
        ("BookingLineBody", "resource", name(l)),
        ("BookingLineBody", "start", instant.clone()),
        ("BookingLineBody", "end", instant.clone()),
        ("RescheduleBookingBody", "start", instant.clone()),
        ("RescheduleBookingBody", "end", instant.clone()),
        ("SlotCapacityBody", "from", instant.clone()),
        ("SlotCapacityBody", "to", instant.clone()),
        ("ClosedBody", "from", instant.clone()),
        ("ClosedBody", "to", instant),
        (
            "ResourceBody",
            "pools",
            json!({"items": merge_into(json!({"type": "string"}), name(l))}),
        ),
    ]
}

/// A fair queue's `weights`: each 1..=`MAX_FAIR_WEIGHT`, at most `MAX_FAIR_WEIGHTS` keys, each
/// a partition key.
fn weights_bound(l: &Limits) -> Value {
    json!({
        "additionalProperties": merge_into(json!({"type": "integer"}), int(1, allot_core::job::fair::MAX_FAIR_WEIGHT)),
        "maxProperties": allot_core::job::fair::MAX_FAIR_WEIGHTS,
        "propertyNames": ident(1, l.max_unit_field_len),
    })
}

/// Bookings and jobs.
fn work_bounds(l: &Limits, s: &Names) -> Vec<(&'static str, &'static str, Value)> {
    let hold = int(l.min_hold_ttl_ms as i64, l.max_hold_ttl_ms.min(i64::MAX as u64) as i64);
    let lease = int(l.min_lease_ms, l.max_lease_ms);
    let field = json!({"minLength": 1, "maxLength": l.max_unit_field_len, "pattern": TEXT_PATTERN});
    vec![
        ("BookingBody", "start", json!({"format": "date-time"})),
        ("BookingBody", "end", json!({"format": "date-time"})),
        ("BookingBody", "holder", field.clone()),
        ("BookingBody", "hold_ttl_ms", hold),
        ("BookingBody", "strategy", one_of(&s.bookings)),
        ("NewJob", "priority", int(1, 4)),
        ("NewJob", "max_attempts", int(1, l.max_job_attempts)),
        ("NewJob", "run_at", json!({"format": "date-time"})),
        ("NewJob", "unique_key", ident(1, l.max_unit_field_len)),
        (
            "EnqueueBody",
            "jobs",
            json!({"minItems": 1, "maxItems": l.max_batch_insert}),
        ),
        ("ClaimBody", "max", int(1, l.max_claim)),
        ("ClaimBody", "lease_ms", lease.clone()),
        ("ClaimBody", "worker", text(l.max_unit_field_len)),
        ("ClaimBody", "strategy", one_of(&s.claims)),
        ("ClaimBody", "wait_ms", int(0, l.max_wait_ms)),
        ("LeaseBody", "lease_token", lease_token()),
        ("LeaseBody", "error", text(l.max_reason_len)),
        ("LeaseBody", "retry_in_ms", int(0, l.max_retry_in_ms)),
        ("LeaseBody", "lease_ms", lease),
        ("Completion", "lease_token", lease_token()),
        ("CompleteBody", "lease_token", lease_token()),
        ("SnoozeBody", "lease_token", lease_token()),
        ("SnoozeBody", "delay_ms", int(0, l.max_snooze_ms)),
        ("RescheduleBody", "delay_ms", int(0, l.max_snooze_ms)),
        ("NewJob", "partition_key", ident(1, l.max_unit_field_len)),
        (
            "NewJob",
            "tags",
            json!({"maxItems": l.max_job_tags,
                   "items": merge_into(json!({"type": "string"}), ident(1, l.max_unit_field_len))}),
        ),
        ("NewJob", "metadata", json!({"type": ["object", "null"]})),
        ("JobBatchBody", "id", ident(1, l.max_unit_field_len)),
        ("JobBatchBody", "queue", name(l)),
        (
            "NewJob",
            "depends_on",
            json!({"maxItems": l.max_job_dependencies,
                   "items": {"type": "integer", "format": "int64", "minimum": 1}}),
        ),
        ("QueueSettingsBody", "max_running", int(1, l.max_queue_limit)),
        ("QueueSettingsBody", "weights", weights_bound(l)),
        ("QueueSettingsBody", "max_running_per_key", int(1, l.max_queue_limit)),
        ("Rate", "per_window", int(1, l.max_queue_limit)),
        ("Rate", "window_ms", int(1, l.max_rate_window_ms)),
        ("BulkBody", "max", int(1, l.max_bulk_jobs)),
        ("BulkFilter", "tag", ident(1, l.max_unit_field_len)),
        ("BulkFilter", "partition_key", ident(1, l.max_unit_field_len)),
        ("ScheduleBody", "name", name(l)),
        ("ScheduleBody", "queue", name(l)),
        (
            "ScheduleBody",
            "cron",
            json!({"minLength": 1, "maxLength": 256, "pattern": "^[ -~]+$"}),
        ),
        ("ScheduleBody", "timezone", name(l)),
        (
            "CompletionsBody",
            "jobs",
            json!({"minItems": 1, "maxItems": l.max_batch_insert}),
        ),
    ]
}

/// Keys and webhook endpoints.
fn access_bounds() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        ("WebhookBody", "url", webhook_url()),
        ("WebhookBody", "types", webhook_types()),
        ("WebhookBody", "secret", webhook_secret()),
        ("NewKeyBody", "name", ident(1, allot_core::access::MAX_KEY_NAME_LEN)),
        ("NewKeyBody", "scopes", json!({"minItems": 1, "uniqueItems": true})),
        (
            "NewKeyBody",
            "rate_per_s",
            int(1, allot_core::access::MAX_RATE_PER_S as i64),
        ),
    ]
}

/// An endpoint URL (`allot_core::webhook::check_url`): `http://` or `https://`, a host, no user
/// or password, no fragment, no white space. Where the host points is the server's policy
/// (`--webhook-allow-private`), not the document's.
fn webhook_url() -> Value {
    json!({"format": "uri", "minLength": 8, "maxLength": allot_core::webhook::MAX_URL_LEN,
           "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@\\s\\\\]+([/?][^#\\s]*)?$"})
}

/// `["*"]`, or known event types.
fn webhook_types() -> Value {
    let names: Vec<&str> = allot_core::event::EventType::ALL.iter().map(|t| t.as_str()).collect();
    json!({"minItems": 1, "anyOf": [
        {"maxItems": 1, "items": {"type": "string", "enum": ["*"]}},
        {"items": {"type": "string", "enum": names}}
    ]})
}

/// `whsec_` + canonical standard base64 of 24..=64 bytes (`allot_core::webhook::parse_secret`):
/// whole groups of 4, then a last group of 2 or 3 symbols whose unused bits are 0.
fn webhook_secret() -> Value {
    let b = "[A-Za-z0-9+/]";
    let tail = format!("({b}[AQgw]==|{b}{{2}}[AEIMQUYcgkosw048]=)");
    let pattern = format!("^whsec_(({b}{{4}}){{8,20}}{tail}?|({b}{{4}}){{21}}({b}[AQgw]==)?)$");
    json!({"pattern": pattern})
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "headers": {"x-request-id": {"$ref": "#/components/headers/RequestId"}},
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
    })
}

/// Statuses, headers and parameters every operation shares.
fn complete_operations(doc: &mut Value, l: &Limits) {
    doc["components"]["securitySchemes"] = json!({
        "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "allot_sk_ followed by 64 hex digits",
                   "description": "An API key (allot keys create, or POST /v1/keys). Required once a key exists, and on any non-loopback server."}
    });
    doc["components"]["headers"] = json!({
        "RequestId": {"description": "The request's id (echoed when the client sent a sane one)", "schema": {"type": "string"}},
        "RetryAfter": {"description": "Seconds to wait before retrying", "schema": {"type": "integer", "minimum": 1}},
    });
    let Some(paths) = doc["paths"].as_object_mut() else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(ops) = item.as_object_mut() else { continue };
        for op in ops.values_mut() {
            complete_operation(path, op, l);
        }
    }
}

fn complete_operation(path: &str, op: &mut Value, l: &Limits) {
    if path.starts_with("/v1/") {
        add_security(op);
    }
    let mut add = vec![
        (
            "400",
            "invalid_request, limit_exceeded, unsupported_strategy or idempotency_key_required: the field is named",
        ),
        ("403", "forbidden: the Host or Origin is not allowed"),
        ("414", "limit_exceeded: the request target is over max_uri_bytes"),
        (
            "500",
            "internal: our fault; the log has the details under the request id",
        ),
        (
            "503",
            "unavailable: a dependency is down or the server is at a limit; nothing was applied",
        ),
    ];
    if op.get("requestBody").is_some() {
        add.push(("413", "limit_exceeded: the body is over max_body_bytes"));
        add.push(("415", "unsupported_media_type: the body must be application/json"));
    }
    if path.contains('{') {
        add.push(("404", "not_found"));
    }
    let takes_query = op["parameters"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["in"] == "query"));
    let idempotent = complete_parameters(op, l);
    if idempotent {
        add.push((
            "409",
            "idempotency_key_in_use: a request with this key is still running",
        ));
        add.push((
            "422",
            "idempotency_key_reused: this key was used with another request; or a rule the document \
             cannot state, named by its code (docs/api.md, \"Errors\")",
        ));
    } else if takes_query || op.get("requestBody").is_some() {
        add.push((
            "422",
            "a rule the document cannot state, named by its code (docs/api.md, \"Errors\")",
        ));
    }
    let responses = op["responses"].as_object_mut().expect("every operation has responses");
    for (status, description) in add {
        responses.entry(status).or_insert_with(|| error_response(description));
    }
    // An operation's own 422 (empty_range, duplicate_sku) also covers the shared rules.
    if let Some(d) = responses.get_mut("422").and_then(|r| r.get_mut("description")) {
        let text = d.as_str().unwrap_or_default();
        if !text.contains("cannot state") {
            *d = json!(format!(
                "{text}; or a rule the document cannot state, named by its code"
            ));
        }
    }
    for (status, resp) in responses.iter_mut() {
        let headers = resp
            .as_object_mut()
            .map(|r| r.entry("headers").or_insert_with(|| json!({})));
        if let Some(h) = headers {
            h["x-request-id"] = json!({"$ref": "#/components/headers/RequestId"});
            if status == "409" || status == "503" {
                h["Retry-After"] = json!({"$ref": "#/components/headers/RetryAfter"});
            }
        }
    }
}

/// The bearer scheme, the scope the operation needs, and its 401 and 403.
fn add_security(op: &mut Value) {
    let scope = op[crate::admit::SCOPE_EXTENSION]
        .as_str()
        .unwrap_or("admin")
        .to_string();
    op["security"] = json!([{"bearer": []}]);
    let responses = op["responses"].as_object_mut().expect("every operation has responses");
    let unauthenticated = "unauthenticated: no, a malformed, an unknown or a revoked key";
    responses.insert("401".into(), error_response(unauthenticated));
    let forbidden = format!("forbidden: the key lacks `{scope}` (missing_scope), or the Host or Origin is not allowed");
    responses.insert("403".into(), error_response(&forbidden));
}

/// Bounds on the operation's parameters; whether it takes an `Idempotency-Key`.
fn complete_parameters(op: &mut Value, l: &Limits) -> bool {
    let params = op
        .as_object_mut()
        .unwrap()
        .entry("parameters")
        .or_insert_with(|| json!([]));
    let mut idempotent = false;
    for p in params.as_array_mut().into_iter().flatten() {
        if let Some(schema) = parameter_bounds(p, l) {
            p["schema"] = schema;
        }
        idempotent |= p["name"]
            .as_str()
            .is_some_and(|n| n.eq_ignore_ascii_case("idempotency-key"));
    }
    idempotent
}

/// The schema a parameter gets from the limits, where validation bounds it.
fn parameter_bounds(p: &Value, l: &Limits) -> Option<Value> {
    let mut schema = json!({"type": "string"});
    match (p["in"].as_str()?, p["name"].as_str()?) {
        ("path", "sku" | "resource" | "queue" | "location" | "name" | "pool" | "kit") => merge(&mut schema, name(l)),
        ("query", "tag") => merge(&mut schema, ident(1, l.max_unit_field_len)),
        ("header", n) if n.eq_ignore_ascii_case("idempotency-key") => merge(
            &mut schema,
            json!({"minLength": 1, "maxLength": l.max_idempotency_key_len, "pattern": "^[\\x20-\\x7E]+$"}),
        ),
        ("query", "limit") => schema = json!({"type": "integer", "minimum": 1, "maximum": l.max_page_size}),
        ("query", "wait_ms") => schema = json!({"type": "integer", "minimum": 0, "maximum": l.max_wait_ms}),
        // An id cursor (ledger, jobs, units) or a name/id cursor (SKUs, allocations, holds).
        // The feed's cursors stop at `MAX_CURSOR`, which its routes declare.
        ("query", "after") if p["schema"].to_string().contains("integer") => {
            let max = p["schema"]["maximum"].as_i64().unwrap_or(i64::MAX);
            schema = json!({"type": "integer", "minimum": 0, "maximum": max})
        }
        ("query", "after") => merge(
            &mut schema,
            json!({"minLength": 1, "maxLength": l.max_name_len, "pattern": "^[!-~]+$"}),
        ),
        ("query", "object") => merge(&mut schema, name(l)),
        // A SKU name: the holds of one SKU, and the SKU search's prefix.
        ("query", "sku" | "prefix") => merge(&mut schema, name(l)),
        ("query", "types") => merge(&mut schema, json!({"pattern": event_types_pattern()})),
        ("query", "available_below") => schema = json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX}),
        ("query", "location" | "lot") => merge(&mut schema, ident(0, l.max_unit_field_len)),
        ("query", "status") => {
            let names: Vec<&str> = if p["schema"].to_string().contains("UnitStatus") {
                ["available", "held", "allocated"].to_vec()
            } else {
                ["held", "expired", "released", "confirmed"].to_vec()
            };
            schema = json!({"type": "string", "enum": names});
        }
        ("query", "from" | "to" | "start" | "end") => merge(&mut schema, json!({"format": "date-time"})),
        // JSON text of a filter: its form is a rule (422 invalid_filter), its size and
        // characters are free text's.
        ("query", "metadata" | "payload") => merge(&mut schema, text(l.max_metadata_bytes)),
        ("query", "state") => {
            let states: Vec<&str> = allot_core::JobState::ALL.iter().map(|s| s.as_str()).collect();
            schema = json!({"type": "string", "enum": states});
        }
        _ => return None,
    }
    Some(schema)
}

/// `types` of the feed: `*`, or known event types separated by commas (or nothing: all).
fn event_types_pattern() -> String {
    let one = allot_core::event::EventType::ALL
        .iter()
        .map(|t| t.as_str().replace('.', "\\."))
        .collect::<Vec<_>>()
        .join("|");
    format!("^(\\*|({one})(,({one}))*)?$")
}

/// Links from operations that create an object to those that take its id.
fn add_links(doc: &mut Value) {
    let links = [
        (
            "/v1/skus",
            "201",
            "sku",
            "sku",
            &["get_sku", "adjust_sku", "ledger"][..],
        ),
        (
            "/v1/allocations",
            "201",
            "id",
            "id",
            &["get_allocation", "cancel_allocation", "return_allocation"][..],
        ),
        (
            "/v1/holds",
            "201",
            "id",
            "id",
            &["get_hold", "confirm_hold", "release_hold", "extend_hold"][..],
        ),
        (
            "/v1/resources/{resource}/bookings",
            "201",
            "id",
            "id",
            &[
                "get_booking",
                "cancel_booking",
                "confirm_booking",
                "release_booking",
                "extend_booking",
                "reschedule_booking",
            ][..],
        ),
    ];
    for (path, status, field, param, targets) in links {
        let resp = &mut doc["paths"][path]["post"]["responses"][status];
        if !resp.is_object() {
            continue;
        }
        let mut map = serde_json::Map::new();
        for op in targets {
            map.insert(
                op.to_string(),
                json!({"operationId": op, "parameters": {param: format!("$response.body#/{field}")}}),
            );
        }
        resp["links"] = Value::Object(map);
    }
}
