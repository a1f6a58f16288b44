//! The hostile catalogue: requests a hostile or careless client sends, over every endpoint
//! family, each with the exact status and error code it must get, on both backends. After
//! each one the whole observable state (SKUs, ledgers, hold, units, bookings, jobs, audit)
//! must be what it was: a refused request changes nothing. Every answer must be docs/api.md's
//! JSON error with a request id, and never carry driver text.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::{json, Value};

conformance!(hostile_requests_change_nothing);

/// One request of the catalogue and what it must get.
struct Case {
    name: String,
    method: &'static str,
    path: String,
    /// Body bytes and their Content-Type (`None`: no header).
    body: Option<(Vec<u8>, Option<&'static str>)>,
    headers: Vec<(&'static str, String)>,
    status: u16,
    code: &'static str,
}

fn case(name: &str, method: &'static str, path: &str, body: Value, status: u16, code: &'static str) -> Case {
    raw(name, method, path, body.to_string().into_bytes(), status, code)
}

fn raw(name: &str, method: &'static str, path: &str, body: Vec<u8>, status: u16, code: &'static str) -> Case {
    Case {
        name: name.to_string(),
        method,
        path: path.to_string(),
        body: Some((body, Some("application/json"))),
        headers: vec![],
        status,
        code,
    }
}

fn bare(name: &str, method: &'static str, path: &str, status: u16, code: &'static str) -> Case {
    Case {
        body: None,
        ..raw(name, method, path, vec![], status, code)
    }
}

fn typed(name: &str, ct: Option<&'static str>, status: u16, code: &'static str) -> Case {
    Case {
        body: Some((br#"{"sku":"CT","on_hand":1}"#.to_vec(), ct)),
        ..raw(name, "POST", "/v1/skus", vec![], status, code)
    }
}

fn with_header(mut c: Case, name: &'static str, value: &str) -> Case {
    c.headers.push((name, value.to_string()));
    c
}

/// What the catalogue needs to exist: ids made by the setup.
struct Ctx {
    hold: String,
    booking: String,
    job: i64,
}

async fn setup(ts: &TestServer) -> Ctx {
    ts.create_sku("S", 10, 1).await;
    ts.ok(
        "/v1/skus/U/units",
        json!({"units": [{"serial": "S1"}, {"serial": "S2"}, {"serial": "S3"}]}),
    )
    .await;
    let hold = ts
        .ok(
            "/v1/holds",
            json!({"lines": [{"sku": "S", "quantity": 2}], "ttl_ms": 600000}),
        )
        .await;
    let booking = ts
        .ok(
            "/v1/resources/R/bookings",
            json!({"start": "2026-03-01T10:00:00Z", "end": "2026-03-01T12:00:00Z", "holder": "alice"}),
        )
        .await;
    ts.ok("/v1/queues/Q/jobs", json!({"jobs": [{"payload": {"n": 1}}]}))
        .await;
    let claimed = ts
        .ok("/v1/queues/Q/claims", json!({"max": 1, "lease_ms": 600000}))
        .await;
    Ctx {
        hold: hold["id"].as_str().unwrap().to_string(),
        booking: booking["id"].as_str().unwrap().to_string(),
        job: claimed["jobs"][0]["id"].as_i64().unwrap(),
    }
}

/// Everything a client can observe of the setup's objects.
async fn snapshot(ts: &TestServer, ctx: &Ctx) -> Vec<(String, u16, Value)> {
    let paths = [
        "/v1/skus/S".to_string(),
        "/v1/skus/U".to_string(),
        "/v1/skus/S/ledger?limit=1000".to_string(),
        "/v1/skus/U/ledger?limit=1000".to_string(),
        format!("/v1/holds/{}", ctx.hold),
        format!("/v1/bookings/{}", ctx.booking),
        "/v1/resources/R/bookings?from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z".to_string(),
        "/v1/queues/Q".to_string(),
        "/v1/queues/Q/jobs?state=running".to_string(),
        "/v1/audit".to_string(),
    ];
    // Names a refused request would have created.
    let absent = ["CT", "D1", "D2", "UF", "N", "O", "K", "ARR", "T", "BIG", "L0", "Z"];
    let mut out = Vec::new();
    for p in paths.into_iter().chain(absent.iter().map(|n| format!("/v1/skus/{n}"))) {
        let (s, mut b) = ts.get(&p).await;
        if let Some(e) = b.get_mut("error").and_then(Value::as_object_mut) {
            e.remove("request_id");
        }
        out.push((p, s, b));
    }
    for p in [
        "/v1/queues/Q/jobs?state=available",
        "/v1/resources/a-b/bookings?from=2026-01-01T00:00:00Z&to=2026-12-31T00:00:00Z",
    ] {
        let (s, b) = ts.get(p).await;
        out.push((p.to_string(), s, b));
    }
    out
}

fn format_cases() -> Vec<Case> {
    let big = format!(r#"{{"sku":"BIG","on_hand":1,"pad":"{}"}}"#, "x".repeat((1 << 20) + 10));
    let deep = format!(r#"{{"jobs":[{{"payload":{}{}}}]}}"#, "[".repeat(200), "]".repeat(200));
    vec![
        typed("text/plain body", Some("text/plain"), 415, "unsupported_media_type"),
        typed(
            "form body (CSRF)",
            Some("application/x-www-form-urlencoded"),
            415,
            "unsupported_media_type",
        ),
        typed(
            "multipart body",
            Some("multipart/form-data; boundary=x"),
            415,
            "unsupported_media_type",
        ),
        typed("no Content-Type", None, 415, "unsupported_media_type"),
        typed(
            "json look-alike type",
            Some("application/jsonp"),
            415,
            "unsupported_media_type",
        ),
        raw(
            "not JSON",
            "POST",
            "/v1/skus",
            b"not json".to_vec(),
            400,
            "invalid_request",
        ),
        raw("empty body", "POST", "/v1/skus", vec![], 400, "invalid_request"),
        raw(
            "invalid UTF-8",
            "POST",
            "/v1/skus",
            b"{\"sku\":\"\xff\xfe\",\"on_hand\":1}".to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "positional array",
            "POST",
            "/v1/skus",
            br#"["ARR",5]"#.to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "null body",
            "POST",
            "/v1/skus",
            b"null".to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "string body",
            "POST",
            "/v1/skus",
            br#""S""#.to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "duplicate key",
            "POST",
            "/v1/skus",
            br#"{"sku":"D1","on_hand":1,"sku":"D2"}"#.to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "duplicate delta",
            "POST",
            "/v1/skus/S/adjustments",
            br#"{"delta":-5,"delta":5}"#.to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "a fraction that rounds to an integer",
            "POST",
            "/v1/skus/S/adjustments",
            br#"{"delta":1.0000000000000001}"#.to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "an exponent that rounds to zero",
            "POST",
            "/v1/skus/S/adjustments",
            br#"{"delta":1e-400,"reason":"correction"}"#.to_vec(),
            400,
            "invalid_request",
        ),
        raw(
            "trailing garbage",
            "POST",
            "/v1/skus",
            br#"{"sku":"T","on_hand":1} {}"#.to_vec(),
            400,
            "invalid_request",
        ),
        case(
            "unknown field",
            "POST",
            "/v1/skus",
            json!({"sku": "UF", "on_hand": 1, "bukets": 4}),
            400,
            "invalid_request",
        ),
        case(
            "positional line",
            "POST",
            "/v1/allocations",
            json!({"lines": [["S", 1]]}),
            400,
            "invalid_request",
        ),
        raw(
            "nesting past the parser's depth",
            "POST",
            "/v1/queues/Q/jobs",
            deep.into_bytes(),
            400,
            "invalid_request",
        ),
        raw(
            "body over max_body_bytes",
            "POST",
            "/v1/skus",
            big.into_bytes(),
            413,
            "limit_exceeded",
        ),
        bare("unknown route", "GET", "/v1/nope", 404, "not_found"),
        bare("method not allowed", "DELETE", "/v1/skus", 405, "method_not_allowed"),
        bare(
            "PUT on allocations",
            "PUT",
            "/v1/allocations",
            405,
            "method_not_allowed",
        ),
        bare("undecodable path", "GET", "/v1/skus/%FF%FE", 400, "invalid_request"),
        bare("NUL in a path name", "GET", "/v1/skus/a%00b", 400, "invalid_request"),
        bare("NUL in a path id", "GET", "/v1/holds/a%00b", 404, "not_found"),
        bare(
            "long path id",
            "GET",
            &format!("/v1/allocations/{}", "a".repeat(300)),
            404,
            "not_found",
        ),
        with_header(
            bare("foreign Host", "GET", "/v1/skus/S", 403, "forbidden"),
            "host",
            "rebound.example",
        ),
        with_header(
            case(
                "foreign Origin",
                "POST",
                "/v1/skus",
                json!({"sku": "O", "on_hand": 1}),
                403,
                "forbidden",
            ),
            "origin",
            "https://evil.example",
        ),
        with_header(
            case(
                "Idempotency-Key too long",
                "POST",
                "/v1/skus",
                json!({"sku": "K", "on_hand": 1}),
                400,
                "limit_exceeded",
            ),
            "idempotency-key",
            &"k".repeat(300),
        ),
        with_header(
            case(
                "Idempotency-Key empty",
                "POST",
                "/v1/skus",
                json!({"sku": "K", "on_hand": 1}),
                400,
                "invalid_request",
            ),
            "idempotency-key",
            "",
        ),
    ]
}

fn stock_cases() -> Vec<Case> {
    let line = |q: Value| json!({"lines": [{"sku": "S", "quantity": q}]});
    let many: Vec<Value> = (0..101)
        .map(|i| json!({"sku": format!("L{i}"), "quantity": 1}))
        .collect();
    vec![
        case(
            "empty sku",
            "POST",
            "/v1/skus",
            json!({"sku": "", "on_hand": 1}),
            400,
            "invalid_request",
        ),
        case(
            "space in sku",
            "POST",
            "/v1/skus",
            json!({"sku": "a b", "on_hand": 1}),
            400,
            "invalid_request",
        ),
        case(
            "NUL in sku",
            "POST",
            "/v1/skus",
            json!({"sku": "a\u{0}", "on_hand": 1}),
            400,
            "invalid_request",
        ),
        case(
            "unicode sku",
            "POST",
            "/v1/skus",
            json!({"sku": "é", "on_hand": 1}),
            400,
            "invalid_request",
        ),
        case(
            "sku too long",
            "POST",
            "/v1/skus",
            json!({"sku": "x".repeat(129), "on_hand": 1}),
            400,
            "limit_exceeded",
        ),
        case(
            "negative on_hand",
            "POST",
            "/v1/skus",
            json!({"sku": "N", "on_hand": -1}),
            400,
            "invalid_request",
        ),
        case(
            "on_hand over max_quantity",
            "POST",
            "/v1/skus",
            json!({"sku": "N", "on_hand": 10_000_000_000_000i64}),
            400,
            "limit_exceeded",
        ),
        case(
            "on_hand as a string",
            "POST",
            "/v1/skus",
            json!({"sku": "N", "on_hand": "5"}),
            400,
            "invalid_request",
        ),
        case(
            "on_hand fractional",
            "POST",
            "/v1/skus",
            json!({"sku": "N", "on_hand": 1.5}),
            400,
            "invalid_request",
        ),
        raw(
            "on_hand past i64",
            "POST",
            "/v1/skus",
            br#"{"sku":"N","on_hand":9223372036854775808}"#.to_vec(),
            400,
            "invalid_request",
        ),
        case(
            "zero buckets",
            "POST",
            "/v1/skus",
            json!({"sku": "N", "on_hand": 1, "buckets": 0}),
            400,
            "invalid_request",
        ),
        case(
            "too many buckets",
            "POST",
            "/v1/skus",
            json!({"sku": "N", "on_hand": 1, "buckets": 65}),
            400,
            "limit_exceeded",
        ),
        case(
            "existing sku",
            "POST",
            "/v1/skus",
            json!({"sku": "S", "on_hand": 1}),
            409,
            "already_exists",
        ),
        case(
            "zero delta",
            "POST",
            "/v1/skus/S/adjustments",
            json!({"delta": 0}),
            400,
            "invalid_request",
        ),
        case(
            "i64::MIN delta",
            "POST",
            "/v1/skus/S/adjustments",
            json!({"delta": i64::MIN}),
            400,
            "limit_exceeded",
        ),
        case(
            "a reason outside the closed set",
            "POST",
            "/v1/skus/S/adjustments",
            json!({"delta": 1, "reason": "recount"}),
            400,
            "invalid_request",
        ),
        case(
            "NUL in reference",
            "POST",
            "/v1/skus/S/adjustments",
            json!({"delta": 1, "reference": "erp://a\u{0}b"}),
            400,
            "invalid_request",
        ),
        case(
            "reference too long",
            "POST",
            "/v1/skus/S/adjustments",
            json!({"delta": 1, "reference": format!("erp://{}", "r".repeat(2048))}),
            400,
            "invalid_request",
        ),
        case(
            "take beyond available",
            "POST",
            "/v1/skus/S/adjustments",
            json!({"delta": -9}),
            409,
            "insufficient_stock",
        ),
        case(
            "adjust unknown sku",
            "POST",
            "/v1/skus/NOPE/adjustments",
            json!({"delta": 1}),
            404,
            "not_found",
        ),
        case(
            "no lines",
            "POST",
            "/v1/allocations",
            json!({"lines": []}),
            400,
            "invalid_request",
        ),
        case(
            "zero quantity",
            "POST",
            "/v1/allocations",
            line(json!(0)),
            400,
            "invalid_request",
        ),
        case(
            "negative quantity",
            "POST",
            "/v1/allocations",
            line(json!(-1)),
            400,
            "invalid_request",
        ),
        case(
            "null quantity",
            "POST",
            "/v1/allocations",
            line(Value::Null),
            400,
            "invalid_request",
        ),
        case(
            "sku twice",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 1}, {"sku": "S", "quantity": 1}]}),
            422,
            "duplicate_sku",
        ),
        case(
            "101 lines",
            "POST",
            "/v1/allocations",
            json!({"lines": many}),
            400,
            "limit_exceeded",
        ),
        case(
            "unknown strategy",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 1}], "strategy": "nope"}),
            400,
            "unsupported_strategy",
        ),
        case(
            "100 KB strategy",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 1}], "strategy": "s".repeat(100_000)}),
            400,
            "unsupported_strategy",
        ),
        case(
            "naive without the flag",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 1}], "strategy": "naive"}),
            400,
            "unsupported_strategy",
        ),
        case(
            "strategy as a number",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "S", "quantity": 1}], "strategy": 5}),
            400,
            "invalid_request",
        ),
        case(
            "more than available",
            "POST",
            "/v1/allocations",
            line(json!(9)),
            409,
            "insufficient_stock",
        ),
        case(
            "counts from a unit SKU",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "U", "quantity": 1}]}),
            409,
            "wrong_tracking",
        ),
        case(
            "unknown sku line",
            "POST",
            "/v1/allocations",
            json!({"lines": [{"sku": "NOPE", "quantity": 1}]}),
            404,
            "not_found",
        ),
        bare(
            "ledger limit 0",
            "GET",
            "/v1/skus/S/ledger?limit=0",
            400,
            "invalid_request",
        ),
        bare(
            "ledger limit text",
            "GET",
            "/v1/skus/S/ledger?limit=abc",
            400,
            "invalid_request",
        ),
        bare(
            "ledger limit too big",
            "GET",
            "/v1/skus/S/ledger?limit=100000",
            400,
            "limit_exceeded",
        ),
    ]
}

fn hold_and_unit_cases(ctx: &Ctx) -> Vec<Case> {
    let hold = |ttl: Value| json!({"lines": [{"sku": "S", "quantity": 1}], "ttl_ms": ttl});
    let unit = |u: Value| json!({"units": [u]});
    let claim = |extra: Value| {
        let mut b = json!({"sku": "U", "quantity": 1});
        b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        b
    };
    vec![
        case("zero ttl", "POST", "/v1/holds", hold(json!(0)), 400, "invalid_request"),
        case(
            "confirm naming a SKU twice",
            "POST",
            &format!("/v1/holds/{}/confirm", ctx.hold),
            json!({"lines": [{"sku": "S", "quantity": 1}, {"sku": "S", "quantity": 1}]}),
            422,
            "duplicate_sku",
        ),
        case(
            "ttl over max_hold_ttl_ms",
            "POST",
            "/v1/holds",
            hold(json!(86_400_001)),
            400,
            "limit_exceeded",
        ),
        case(
            "missing ttl",
            "POST",
            "/v1/holds",
            json!({"lines": [{"sku": "S", "quantity": 1}]}),
            400,
            "invalid_request",
        ),
        case(
            "hold more than available",
            "POST",
            "/v1/holds",
            json!({"lines": [{"sku": "S", "quantity": 9}], "ttl_ms": 60000}),
            409,
            "insufficient_stock",
        ),
        bare(
            "confirm unknown hold",
            "POST",
            "/v1/holds/nope/confirm",
            404,
            "not_found",
        ),
        bare(
            "release unknown hold",
            "POST",
            "/v1/holds/nope/release",
            404,
            "not_found",
        ),
        bare(
            "confirm a long id",
            "POST",
            &format!("/v1/holds/{}/confirm", "h".repeat(100)),
            404,
            "not_found",
        ),
        bare(
            "release with a NUL id",
            "POST",
            "/v1/holds/%00/release",
            404,
            "not_found",
        ),
        case(
            "no units",
            "POST",
            "/v1/skus/U/units",
            json!({"units": []}),
            400,
            "invalid_request",
        ),
        case(
            "empty serial",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": ""})),
            400,
            "invalid_request",
        ),
        case(
            "NUL in serial",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": "a\u{0}"})),
            400,
            "invalid_request",
        ),
        case(
            "serial twice",
            "POST",
            "/v1/skus/U/units",
            json!({"units": [{"serial": "Z"}, {"serial": "Z"}]}),
            422,
            "duplicate_serial",
        ),
        case(
            "existing serial",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": "S1"})),
            409,
            "already_exists",
        ),
        case(
            "received in year 1",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": "Y", "received_at": "0001-01-01T00:00:00Z"})),
            422,
            "instant_out_of_range",
        ),
        case(
            "leap second",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": "Y", "received_at": "2016-12-31T23:59:60Z"})),
            422,
            "instant_out_of_range",
        ),
        case(
            "location too long",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": "Y", "location": "l".repeat(257)})),
            400,
            "limit_exceeded",
        ),
        case(
            "control char in lot",
            "POST",
            "/v1/skus/U/units",
            unit(json!({"serial": "Y", "lot": "a\u{1b}[31m"})),
            400,
            "invalid_request",
        ),
        case(
            "claim zero units",
            "POST",
            "/v1/unit-allocations",
            json!({"sku": "U", "quantity": 0}),
            400,
            "invalid_request",
        ),
        case(
            "claim over max_unit_claim",
            "POST",
            "/v1/unit-allocations",
            json!({"sku": "U", "quantity": 1001}),
            400,
            "limit_exceeded",
        ),
        case(
            "order_by unknown column",
            "POST",
            "/v1/unit-allocations",
            claim(json!({"order_by": ["price"]})),
            400,
            "invalid_request",
        ),
        case(
            "order_by SQL",
            "POST",
            "/v1/unit-allocations",
            claim(json!({"order_by": ["id; DROP TABLE units"]})),
            400,
            "invalid_request",
        ),
        case(
            "order_by too many",
            "POST",
            "/v1/unit-allocations",
            claim(json!({"order_by": ["id", "lot", "serial", "location", "received_at"]})),
            400,
            "limit_exceeded",
        ),
        case(
            "unit strategy bogus",
            "POST",
            "/v1/unit-allocations",
            claim(json!({"strategy": "bogus"})),
            400,
            "unsupported_strategy",
        ),
        case(
            "more units than exist",
            "POST",
            "/v1/unit-allocations",
            json!({"sku": "U", "quantity": 4}),
            409,
            "insufficient_stock",
        ),
        case(
            "units of a count SKU",
            "POST",
            "/v1/unit-allocations",
            json!({"sku": "S", "quantity": 1}),
            409,
            "wrong_tracking",
        ),
        case(
            "hold ttl on a claim below min",
            "POST",
            "/v1/unit-allocations",
            claim(json!({"hold_ttl_ms": 1})),
            400,
            "invalid_request",
        ),
        bare(
            "confirm of the hold by a wrong verb",
            "GET",
            &format!("/v1/holds/{}/confirm", ctx.hold),
            405,
            "method_not_allowed",
        ),
    ]
}

fn booking_cases(ctx: &Ctx) -> Vec<Case> {
    let b = |start: &str, end: &str| json!({"start": start, "end": end, "holder": "bob"});
    let with = |k: &str, v: Value| {
        let mut x = b("2026-04-01T10:00:00Z", "2026-04-01T11:00:00Z");
        x[k] = v;
        x
    };
    let p = "/v1/resources/R/bookings";
    vec![
        case(
            "no offset",
            "POST",
            p,
            b("2026-04-01T10:00:00", "2026-04-01T11:00:00Z"),
            400,
            "invalid_request",
        ),
        case(
            "end before start",
            "POST",
            p,
            b("2026-04-01T11:00:00Z", "2026-04-01T10:00:00Z"),
            422,
            "empty_range",
        ),
        case(
            "empty range",
            "POST",
            p,
            b("2026-04-01T10:00:00Z", "2026-04-01T10:00:00Z"),
            422,
            "empty_range",
        ),
        case(
            "366 days and 999 µs",
            "POST",
            p,
            b("2028-01-01T00:00:00Z", "2029-01-01T00:00:00.000999Z"),
            400,
            "limit_exceeded",
        ),
        case(
            "range over max_booking_ms",
            "POST",
            p,
            b("2026-01-01T00:00:00Z", "2027-06-01T00:00:00Z"),
            400,
            "limit_exceeded",
        ),
        case(
            "year 1",
            "POST",
            p,
            b("0001-01-01T00:00:00Z", "0001-01-01T01:00:00Z"),
            422,
            "instant_out_of_range",
        ),
        case(
            "year 10000",
            "POST",
            p,
            b("9999-12-31T23:00:00Z", "+10000-01-01T00:00:00Z"),
            400,
            "invalid_request",
        ),
        case(
            "leap second start",
            "POST",
            p,
            b("2016-12-31T23:59:60Z", "2017-01-01T01:00:00Z"),
            422,
            "instant_out_of_range",
        ),
        case(
            "empty holder",
            "POST",
            p,
            with("holder", json!("")),
            400,
            "invalid_request",
        ),
        case(
            "NUL in holder",
            "POST",
            p,
            with("holder", json!("a\u{0}")),
            400,
            "invalid_request",
        ),
        case(
            "metadata over max_metadata_bytes",
            "POST",
            p,
            with("metadata", json!({"pad": "m".repeat(20_000)})),
            400,
            "limit_exceeded",
        ),
        case(
            "NUL in metadata",
            "POST",
            p,
            with("metadata", json!({"k": ["a\u{0}"]})),
            422,
            "nul_character",
        ),
        case(
            "NUL in a metadata key",
            "POST",
            p,
            with("metadata", json!({"k\u{0}": 1})),
            422,
            "nul_character",
        ),
        case(
            "booking strategy bogus",
            "POST",
            p,
            with("strategy", json!("bogus")),
            400,
            "unsupported_strategy",
        ),
        case(
            "hold ttl below min",
            "POST",
            p,
            with("hold_ttl_ms", json!(1)),
            400,
            "invalid_request",
        ),
        case(
            "overlap",
            "POST",
            p,
            b("2026-03-01T11:00:00Z", "2026-03-01T13:00:00Z"),
            409,
            "booking_overlap",
        ),
        case(
            "overlap by a nanosecond",
            "POST",
            p,
            b("2026-03-01T11:59:59.999999999Z", "2026-03-01T13:00:00Z"),
            409,
            "booking_overlap",
        ),
        case(
            "bad resource name",
            "POST",
            "/v1/resources/a%20b/bookings",
            b("2026-04-01T10:00:00Z", "2026-04-01T11:00:00Z"),
            400,
            "invalid_request",
        ),
        bare(
            "availability reversed",
            "GET",
            "/v1/resources/R/availability?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z",
            422,
            "empty_range",
        ),
        bare(
            "listing from == to",
            "GET",
            "/v1/resources/R/bookings?from=2026-03-02T00:00:00Z&to=2026-03-02T00:00:00Z",
            422,
            "empty_range",
        ),
        bare(
            "availability without to",
            "GET",
            "/v1/resources/R/availability?from=2026-03-01T00:00:00Z",
            400,
            "invalid_request",
        ),
        bare(
            "list with a bad time",
            "GET",
            "/v1/resources/R/bookings?from=yesterday&to=today",
            400,
            "invalid_request",
        ),
        bare(
            "cancel unknown booking",
            "DELETE",
            "/v1/bookings/nope",
            404,
            "not_found",
        ),
        bare(
            "confirm a confirmed booking",
            "POST",
            &format!("/v1/bookings/{}/release", ctx.booking),
            409,
            "booking_confirmed",
        ),
    ]
}

fn job_cases(ctx: &Ctx) -> Vec<Case> {
    let job = |j: Value| json!({"jobs": [j]});
    let q = "/v1/queues/Q/jobs";
    let fail = format!("/v1/jobs/{}/fail", ctx.job);
    let lease = |extra: Value| {
        let mut b = json!({"lease_token": "00000000-0000-0000-0000-000000000000"});
        b.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        b
    };
    vec![
        case("no jobs", "POST", q, json!({"jobs": []}), 400, "invalid_request"),
        case(
            "NUL in payload",
            "POST",
            q,
            job(json!({"payload": {"a": "x\u{0}"}})),
            422,
            "nul_character",
        ),
        case(
            "NUL in a payload key",
            "POST",
            q,
            job(json!({"payload": {"a\u{0}": 1}})),
            422,
            "nul_character",
        ),
        case(
            "payload over max_payload_bytes",
            "POST",
            q,
            job(json!({"payload": "p".repeat(70_000)})),
            400,
            "limit_exceeded",
        ),
        case(
            "priority 9",
            "POST",
            q,
            job(json!({"payload": 1, "priority": 9})),
            400,
            "invalid_request",
        ),
        case(
            "run_at in year 1",
            "POST",
            q,
            job(json!({"payload": 1, "run_at": "0001-01-01T00:00:00Z"})),
            422,
            "instant_out_of_range",
        ),
        case(
            "zero attempts",
            "POST",
            q,
            job(json!({"payload": 1, "max_attempts": 0})),
            400,
            "invalid_request",
        ),
        case(
            "NUL in unique_key",
            "POST",
            q,
            job(json!({"payload": 1, "unique_key": "k\u{0}"})),
            400,
            "invalid_request",
        ),
        case(
            "bad queue name",
            "POST",
            "/v1/queues/a%20b/jobs",
            job(json!({"payload": 1})),
            400,
            "invalid_request",
        ),
        case(
            "claim zero",
            "POST",
            "/v1/queues/Q/claims",
            json!({"max": 0}),
            400,
            "invalid_request",
        ),
        case(
            "lease below min",
            "POST",
            "/v1/queues/Q/claims",
            json!({"lease_ms": 10}),
            400,
            "invalid_request",
        ),
        case(
            "wait over max_wait_ms",
            "POST",
            "/v1/queues/Q/claims",
            json!({"wait_ms": 999_999}),
            400,
            "limit_exceeded",
        ),
        case(
            "NUL in worker",
            "POST",
            "/v1/queues/Q/claims",
            json!({"worker": "w\u{0}"}),
            400,
            "invalid_request",
        ),
        case(
            "claim strategy bogus",
            "POST",
            "/v1/queues/Q/claims",
            json!({"strategy": "bogus"}),
            400,
            "unsupported_strategy",
        ),
        case(
            "NUL in lease token",
            "POST",
            &format!("/v1/jobs/{}/complete", ctx.job),
            json!({"lease_token": "t\u{0}"}),
            400,
            "invalid_request",
        ),
        case(
            "stale token",
            "POST",
            &format!("/v1/jobs/{}/complete", ctx.job),
            lease(json!({})),
            409,
            "lease_lost",
        ),
        case(
            "retry_in_ms i64::MAX",
            "POST",
            &fail,
            lease(json!({"retry_in_ms": i64::MAX})),
            400,
            "limit_exceeded",
        ),
        case(
            "retry_in_ms 9e15",
            "POST",
            &fail,
            lease(json!({"retry_in_ms": 9_000_000_000_000_000i64})),
            400,
            "limit_exceeded",
        ),
        case(
            "negative retry_in_ms",
            "POST",
            &fail,
            lease(json!({"retry_in_ms": -1})),
            400,
            "invalid_request",
        ),
        case(
            "NUL in error",
            "POST",
            &fail,
            lease(json!({"error": "e\u{0}"})),
            400,
            "invalid_request",
        ),
        case(
            "heartbeat lease 0",
            "POST",
            &format!("/v1/jobs/{}/heartbeat", ctx.job),
            lease(json!({"lease_ms": 0})),
            400,
            "invalid_request",
        ),
        case(
            "job id text",
            "POST",
            "/v1/jobs/abc/complete",
            lease(json!({})),
            404,
            "not_found",
        ),
        case(
            "no completions",
            "POST",
            "/v1/queues/Q/completions",
            json!({"jobs": []}),
            400,
            "invalid_request",
        ),
        case(
            "completion without token",
            "POST",
            "/v1/queues/Q/completions",
            json!({"jobs": [{"id": 1}]}),
            400,
            "invalid_request",
        ),
        bare(
            "list with a bogus state",
            "GET",
            "/v1/queues/Q/jobs?state=bogus",
            400,
            "invalid_request",
        ),
        bare("cancel unknown job", "POST", "/v1/jobs/999999/cancel", 404, "not_found"),
    ]
}

async fn send(ts: &TestServer, c: &Case) -> (u16, reqwest::header::HeaderMap, String) {
    let method = reqwest::Method::from_bytes(c.method.as_bytes()).unwrap();
    let mut req = ts.client.request(method, format!("{}{}", ts.url, c.path));
    if let Some((body, ct)) = &c.body {
        req = req.body(body.clone());
        if let Some(ct) = ct {
            req = req.header("content-type", *ct);
        }
    }
    for (k, v) in &c.headers {
        req = req.header(*k, v.as_str());
    }
    let resp = req.send().await.expect("request");
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    (status, headers, resp.text().await.unwrap())
}

async fn hostile_requests_change_nothing(ts: &TestServer) {
    let ctx = setup(ts).await;
    let before = snapshot(ts, &ctx).await;
    let mut cases = format_cases();
    cases.extend(stock_cases());
    cases.extend(hold_and_unit_cases(&ctx));
    cases.extend(booking_cases(&ctx));
    cases.extend(job_cases(&ctx));
    assert!(cases.len() >= 80, "the catalogue has {} requests", cases.len());
    let mut wrong = Vec::new();
    for c in &cases {
        let (status, headers, text) = send(ts, c).await;
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let code = body["error"]["code"].as_str().unwrap_or("(no JSON error)");
        let json_type = headers
            .get("content-type")
            .is_some_and(|v| v.to_str().unwrap_or("").starts_with("application/json"));
        if (status, code) != (c.status, c.code) || !json_type {
            wrong.push(format!(
                "{}: wanted {} {}, got {status} {}",
                c.name,
                c.status,
                c.code,
                &text[..text.len().min(300)]
            ));
        }
        assert!(headers.contains_key("x-request-id"), "{}: no x-request-id", c.name);
        for leak in [
            "SQLSTATE",
            "db error",
            "rusqlite",
            "tokio_postgres",
            "SqliteFailure",
            "constraint failed",
        ] {
            assert!(!text.contains(leak), "{}: driver text in {text}", c.name);
        }
        assert!(text.len() < 2048, "{}: an error body of {} bytes", c.name, text.len());
        let after = snapshot(ts, &ctx).await;
        for (a, b) in before.iter().zip(&after) {
            assert!(a == b, "{} changed the state:\n{a:?}\n{b:?}", c.name);
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} answered wrongly:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
