//! Client documents (a job's payload, a booking's metadata) come back exactly as they were
//! accepted, through every way they are read, on both backends: the extreme JSON numbers
//! (f64 extremes, the smallest subnormal, `1.0`, `-0.0`, the i64 and u64 bounds) and strings
//! (line separators, astral characters, NFD, quotes, `</script>`). A number PostgreSQL's jsonb
//! would have rewritten into 309 digits panicked the row reader and left a claim's jobs
//! leased to nobody. A number that could not come back as sent (an integer beyond 64 bits, a
//! float with more digits than an f64 keeps, an underflow) is refused, naming its document.
#![allow(clippy::too_many_lines)] // tests are exempt from the 70-line rule

mod common;

use common::TestServer;
use serde_json::Value;

conformance!(extreme_documents_round_trip);

/// The document, as sent, and what its compact form must contain when it comes back.
const DOC: &str = r#"{"big": 1.7976931348623157e308, "neg": -1.7976931348623157e308, "tiny": 5e-324,
 "one": 1.0, "negzero": -0.0, "i64max": 9223372036854775807, "i64min": -9223372036854775808,
 "u64max": 18446744073709551615, "frac": 0.1, "exp": 1.5e-7,
 "s": "line\u2028sep \ud83d\ude00 e\u0301 \"q\" \\ </script>", "deep": [[[[{"a": [1.0, -0.0]}]]]],
 "empty": {}, "none": null, "list": []}"#;

const MUST_CONTAIN: [&str; 12] = [
    r#""big":1.7976931348623157e+308"#,
    r#""neg":-1.7976931348623157e+308"#,
    r#""tiny":5e-324"#,
    r#""one":1.0"#,
    r#""negzero":-0.0"#,
    r#""i64max":9223372036854775807"#,
    r#""i64min":-9223372036854775808"#,
    r#""u64max":18446744073709551615"#,
    r#""frac":0.1"#,
    r#""exp":1.5e-7"#,
    r#"[[[[{"a":[1.0,-0.0]}]]]]"#,
    r#""empty":{}"#,
];

/// GET or send `req`, and the answer's text (the parsed value would hide `1.0` and `-0.0`).
async fn text(req: reqwest::RequestBuilder) -> (u16, String) {
    let resp = req.send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

/// The document inside `answer` at `path` is the one sent: equal as JSON, and every number
/// written as it was sent.
fn same(answer: &str, path: &[&str], what: &str) {
    let v: Value = serde_json::from_str(answer).unwrap_or_else(|_| panic!("{what}: {answer}"));
    let mut doc = &v;
    for p in path {
        doc = match p.parse::<usize>() {
            Ok(i) => &doc[i],
            Err(_) => &doc[*p],
        };
    }
    let sent: Value = serde_json::from_str(DOC).unwrap();
    assert_eq!(doc, &sent, "{what}: {answer}");
    let compact = doc.to_string();
    for want in MUST_CONTAIN {
        assert!(compact.contains(want), "{what}: {want} not in {compact}");
    }
    assert!(
        compact.contains("\u{2028}") && compact.contains("e\u{301}"),
        "{what}: {compact}"
    );
}

async fn extreme_documents_round_trip(ts: &TestServer) {
    let url = |p: &str| format!("{}{p}", ts.url);
    let post = |p: &str, body: String| {
        ts.client
            .post(url(p))
            .header("content-type", "application/json")
            .body(body)
    };
    // Jobs: enqueued, claimed, listed.
    let (s, b) = text(post(
        "/v1/queues/docs/jobs",
        format!(r#"{{"jobs": [{{"payload": {DOC}}}]}}"#),
    ))
    .await;
    assert_eq!(s, 201, "{b}");
    let (s, b) = text(post(
        "/v1/queues/docs/claims",
        r#"{"max": 5, "lease_ms": 60000}"#.into(),
    ))
    .await;
    assert_eq!(s, 200, "{b}");
    same(&b, &["jobs", "0", "payload"], "claim");
    let (s, b) = text(ts.client.get(url("/v1/queues/docs/jobs?state=running"))).await;
    assert_eq!(s, 200, "{b}");
    same(&b, &["jobs", "0", "payload"], "job listing");
    // Bookings: made, read, listed, cancelled.
    let body = format!(
        r#"{{"start": "2030-01-01T00:00:00Z", "end": "2030-01-02T00:00:00Z", "holder": "h", "metadata": {DOC}}}"#
    );
    let (s, b) = text(post("/v1/resources/room/bookings", body)).await;
    assert_eq!(s, 201, "{b}");
    same(&b, &["metadata"], "booking made");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (s, b) = text(ts.client.get(url(&format!("/v1/bookings/{id}")))).await;
    assert_eq!(s, 200, "{b}");
    same(&b, &["metadata"], "booking read");
    let window = "from=2029-12-01T00:00:00Z&to=2030-02-01T00:00:00Z";
    let (s, b) = text(ts.client.get(url(&format!("/v1/resources/room/bookings?{window}")))).await;
    assert_eq!(s, 200, "{b}");
    same(&b, &["bookings", "0", "metadata"], "booking listing");
    let (s, b) = text(ts.client.delete(url(&format!("/v1/bookings/{id}")))).await;
    assert_eq!(s, 200, "{b}");
    same(&b, &["metadata"], "booking cancelled");
    // A number that would come back as another value is refused, naming its document: an
    // integer beyond 64 bits, a float with more digits than an f64 keeps, an underflow.
    for (path, body, at) in [
        (
            "/v1/queues/docs/jobs",
            r#"{"jobs": [{"payload": {"n": [18446744073709551616]}}]}"#,
            "jobs[0].payload:",
        ),
        (
            "/v1/resources/room2/bookings",
            r#"{"start": "2030-01-01T00:00:00Z", "end": "2030-01-02T00:00:00Z", "holder": "h", "metadata": {"m": -9223372036854775809}}"#,
            "metadata:",
        ),
        (
            "/v1/queues/docs/jobs",
            r#"{"jobs": [{"payload": {"x": 0.1000000000000000000001}}]}"#,
            "jobs[0].payload",
        ),
        (
            "/v1/queues/docs/jobs",
            r#"{"jobs": [{"payload": [1e-400]}]}"#,
            "jobs[0].payload",
        ),
    ] {
        let (s, b) = text(post(path, body.to_string())).await;
        assert_eq!(s, 422, "{b}");
        assert!(b.contains("inexact_number"), "{b}");
        assert!(b.contains(at) && b.contains("would come back as"), "{b}");
    }
    let (s, b) = text(ts.client.get(url(
        "/v1/resources/room2/bookings?from=2029-12-01T00:00:00Z&to=2030-02-01T00:00:00Z",
    )))
    .await;
    assert_eq!(
        (
            s,
            serde_json::from_str::<Value>(&b).unwrap()["bookings"]
                .as_array()
                .map(Vec::len)
        ),
        (200, Some(0)),
        "{b}"
    );
    let (s, audit) = ts.get("/v1/audit").await;
    assert_eq!(
        (s, audit["violations"].as_array().map(Vec::len)),
        (200, Some(0)),
        "{audit}"
    );
}
