//! Request extractors that answer in the API's error format instead of axum's plain text,
//! and the strict reading of JSON bodies:
//!
//! - `Content-Type` must be `application/json` (parameters such as `charset=utf-8` allowed):
//!   otherwise `415 unsupported_media_type` — a form post from a web page cannot reach a
//!   handler (CSRF), and a browser must send a CORS preflight first;
//! - the body must be one JSON object, with no key twice in any object (RFC 8259 §4 leaves
//!   duplicate names undefined; we refuse them rather than let the last one win);
//! - fields are read with their path (`lines[0].quantity: …`, serde_path_to_error), and
//!   unknown fields are refused by `#[serde(deny_unknown_fields)]` on every body type;
//! - an array is never accepted in place of an object (serde would read `["HOT",5]` as a
//!   struct): no array of the request schemas holds arrays, so outside the free-form
//!   documents (`payload`, `metadata`) an array inside an array is refused.

use crate::error::ApiError;
use crate::json_numbers::Suspects;
use crate::state::AppState;
use allot_core::AllotError;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use serde::de::{DeserializeOwned, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

/// A JSON body: the parsed value, and its canonical form for an idempotency fingerprint.
pub struct JsonBody<T> {
    /// The parsed body.
    pub value: T,
    /// Canonical JSON text of the body, made only when asked for.
    pub canonical: Canonical,
}

/// A body's canonical JSON text (keys sorted, no whitespace): the body's part of an
/// idempotency fingerprint. Made on first use only, so a request without an
/// `Idempotency-Key` never pays for it.
pub struct Canonical {
    bytes: Bytes,
    text: std::sync::OnceLock<String>,
}

impl Canonical {
    /// The canonical form of a body that already parsed strictly.
    fn of(bytes: Bytes) -> Self {
        Canonical {
            bytes,
            text: std::sync::OnceLock::new(),
        }
    }

    /// The canonical form of a request without a body (empty).
    pub fn none() -> Self {
        Canonical::of(Bytes::new())
    }

    /// The body as a JSON value (`None` for no body): where a part of it is fingerprinted
    /// on its own (an operation of a batch).
    pub fn value(&self) -> Option<Value> {
        strict_value(&self.bytes).ok()
    }

    /// The text (keys sorted, no whitespace; empty for no body).
    pub fn text(&self) -> &str {
        self.text.get_or_init(|| match self.bytes.is_empty() {
            true => String::new(),
            false => strict_value(&self.bytes).map(|v| v.to_string()).unwrap_or_default(),
        })
    }
}

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        require_json(req.headers())?;
        let bytes = read_body();
        let value = parse_body(&bytes)?;
        Ok(JsonBody {
            value,
            canonical: Canonical::of(bytes),
        })
    }
}

/// A JSON body that may be left out: an empty body is `T::default()` (no Content-Type
/// needed); any other body is read exactly as [`JsonBody`] reads it.
pub struct OptionalJsonBody<T>(pub JsonBody<T>);

impl<T: DeserializeOwned + Default> FromRequest<Arc<AppState>> for OptionalJsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        let bytes = read_body();
        // No body, or JSON `null` (the document's optional body): the default.
        if bytes.is_empty() || bytes.trim_ascii() == b"null" {
            return Ok(OptionalJsonBody(JsonBody {
                value: T::default(),
                canonical: Canonical::none(),
            }));
        }
        require_json(req.headers())?;
        let value = parse_body(&bytes)?;
        Ok(OptionalJsonBody(JsonBody {
            value,
            canonical: Canonical::of(bytes),
        }))
    }
}

/// The body's bytes as the edge read them (within `max_body_bytes`, else it answered `413`
/// before the route); empty for a request without a body. Every request passes the edge
/// ([`crate::api::router`]), which keeps the body on the request's task.
fn read_body() -> Bytes {
    crate::request_id::read_body().unwrap_or_default()
}

/// `415 unsupported_media_type` unless the request says its body is `application/json`.
fn require_json(headers: &HeaderMap) -> Result<(), AllotError> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(AllotError::UnsupportedMediaType(format!(
            "the body must be JSON with Content-Type: application/json (got `{}`)",
            allot_core::input::echo(ct)
        )))
    }
}

/// The one JSON value in `bytes`, read with duplicate keys refused and integer-valued numbers
/// as integers (the same reading for parsing and for the canonical form).
fn strict_value(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    strict_value_rounding(bytes).map(|(v, _)| v)
}

/// [`strict_value`], and which of its numbers are worth checking against their text.
fn strict_value_rounding(bytes: &[u8]) -> Result<(Value, Suspects), serde_json::Error> {
    use serde::de::DeserializeSeed;
    let suspects = Cell::new(Suspects::default());
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = StrictSeed {
        as_sent: false,
        suspects: &suspects,
    }
    .deserialize(&mut de)?;
    de.end()?;
    Ok((value, suspects.get()))
}

/// Parse a request body strictly (see the module docs) into `T`.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AllotError> {
    // A body the strict reading would read as serde_json does is read by it directly (see
    // `json_plain`); a refusal still comes from the strict way, which names its field.
    if crate::json_plain::plain(bytes) {
        if let Ok(value) = serde_json::from_slice::<T>(bytes) {
            return Ok(value);
        }
    }
    let (raw, suspects) =
        strict_value_rounding(bytes).map_err(|e| AllotError::invalid(format!("malformed JSON: {e}")))?;
    if !raw.is_object() {
        return Err(AllotError::invalid("the body must be a JSON object"));
    }
    if has_nested_array(&raw) {
        let path = nested_array(&raw, "").unwrap_or_default();
        return Err(AllotError::invalid(format!(
            "{path}: expected an object, found an array"
        )));
    }
    // The happy path moves the value's strings; only a refusal pays for the path of its
    // field (read again from the bytes, which parsed strictly already).
    let value = T::deserialize(raw).map_err(|_| {
        let mut de = serde_json::Deserializer::from_slice(bytes);
        match serde_path_to_error::deserialize::<_, T>(&mut de) {
            Err(e) => AllotError::invalid(format!("{}: {}", e.path(), e.inner())),
            Ok(_) => AllotError::invalid("invalid body"),
        }
    })?;
    // Checked once the body has its type's shape, so the walk is as shallow as the type.
    if suspects.outside || suspects.inside {
        if let Some(found) = crate::json_numbers::inexact_number(bytes, suspects) {
            return Err(match found.in_document {
                true => AllotError::breaks(allot_core::error::Rule::InexactNumber, found.message),
                false => AllotError::invalid(found.message),
            });
        }
    }
    Ok(value)
}

/// Whether an array sits directly inside an array, outside free-form documents (no
/// allocation: [`nested_array`] names it only when there is one).
fn has_nested_array(v: &Value) -> bool {
    match v {
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| !matches!(k.as_str(), "payload" | "metadata" | "output") && has_nested_array(v)),
        Value::Array(a) => a.iter().any(|item| item.is_array() || has_nested_array(item)),
        _ => false,
    }
}

/// The path of the first array found directly inside an array, outside free-form documents.
fn nested_array(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "payload" | "metadata" | "output"))
            .find_map(|(k, v)| nested_array(v, &crate::json_numbers::join(path, k))),
        Value::Array(a) => a.iter().enumerate().find_map(|(i, item)| {
            let p = format!("{path}[{i}]");
            if item.is_array() {
                Some(p)
            } else {
                nested_array(item, &p)
            }
        }),
        _ => None,
    }
}

/// Where a value is read: in the body's own fields, a number with no fraction is an integer
/// (`as_sent: false`); inside a free-form document (`payload`, `metadata`), which allot stores
/// and gives back, a number stays as sent (`1.0` stays a float, `-0.0` keeps its sign).
/// `suspects` notes the numbers whose f64 may not say what their text said (an integral one
/// outside the documents; any float inside them), so that their text is checked
/// ([`crate::json_numbers`]).
#[derive(Clone, Copy)]
struct StrictSeed<'a> {
    as_sent: bool,
    suspects: &'a Cell<Suspects>,
}

impl<'de> serde::de::DeserializeSeed<'de> for StrictSeed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor(self))
    }
}

struct StrictVisitor<'a>(StrictSeed<'a>);

impl<'de> Visitor<'de> for StrictVisitor<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    /// A number with no fraction within i64 (`2.0`, `1e3`) is that integer, as JSON Schema
    /// counts it ("integer": "any number with a zero fractional part").
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        let integer = v.fract() == 0.0 && (-9.2e18..=9.2e18).contains(&v);
        let mut suspects = self.0.suspects.get();
        if self.0.as_sent {
            suspects.inside = true;
        } else if integer {
            suspects.outside = true;
        }
        self.0.suspects.set(suspects);
        if !self.0.as_sent && integer {
            return Ok(Value::from(v as i64));
        }
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self.0)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let as_sent = self.0.as_sent || matches!(key.as_str(), "payload" | "metadata" | "output");
            let v = map.next_value_seed(StrictSeed { as_sent, ..self.0 })?;
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!(
                    "the key `{}` appears twice in one object",
                    allot_core::input::echo(&key)
                )));
            }
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

/// `idempotency-key`, parsed once.
pub(crate) const IDEMPOTENCY_KEY: axum::http::HeaderName = axum::http::HeaderName::from_static("idempotency-key");

/// The `Idempotency-Key` header, validated (1..=255 printable ASCII), if present.
pub struct IdempotencyKey(pub Option<String>);

impl FromRequestParts<Arc<AppState>> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        match parts.headers.get(IDEMPOTENCY_KEY) {
            None => Ok(IdempotencyKey(None)),
            Some(v) => {
                let s = v
                    .to_str()
                    .map_err(|_| AllotError::invalid("Idempotency-Key must be printable ASCII"))?;
                allot_core::validate::idempotency_key(s, &state.limits)?;
                Ok(IdempotencyKey(Some(s.to_string())))
            }
        }
    }
}

/// Who makes a `/v1` request: the tenant it acts in (its key's, or the default tenant on a
/// server that requires no keys) and, for the ledger, the id of its API key (`actor`, `None`
/// on a server that requires no keys). The guard sets the principal on every `/v1` request;
/// a handler reached without one is our fault, `internal`, never another tenant.
pub struct Caller {
    /// The tenant the request acts in.
    pub tenant: allot_core::Tenant,
    /// The API key's id.
    pub actor: Option<String>,
}

impl FromRequestParts<Arc<AppState>> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(_: &mut Parts, _: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        let caller = crate::request_id::with_principal(|p| Caller {
            tenant: p.tenant.clone(),
            actor: p.key_id.clone(),
        });
        caller.ok_or_else(without_principal)
    }
}

/// The principal the guard admitted the request as (whole: its scopes and rate too).
pub struct Who(pub crate::access::Principal);

impl FromRequestParts<Arc<AppState>> for Who {
    type Rejection = ApiError;

    async fn from_request_parts(_: &mut Parts, _: &Arc<AppState>) -> Result<Self, Self::Rejection> {
        crate::request_id::with_principal(|p| Who(p.clone())).ok_or_else(without_principal)
    }
}

/// A `/v1` handler reached without the guard's principal: our fault, never another tenant.
fn without_principal() -> ApiError {
    ApiError(AllotError::Internal("a /v1 request without a principal".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A body the plain path takes reads as the strict way reads it.
    #[test]
    fn plain_bodies_read_as_strict_ones() {
        for body in [
            r#"{"lines":[{"sku":"HOT","quantity":1}],"strategy":"atomic"}"#,
            r#"{"jobs":[{"payload":{"to":"a\u00e9b","n":[1,-2,{"x":null}]},"priority":1}]}"#,
            r#"{"a":{"b":{"c":[true,false,"1.0"]}},"n":-9223372036854775}"#,
        ] {
            assert!(crate::json_plain::plain(body.as_bytes()), "{body}");
            let (strict, _) = strict_value_rounding(body.as_bytes()).unwrap();
            let plain: Value = serde_json::from_slice(body.as_bytes()).unwrap();
            assert_eq!(strict, plain, "{body}");
        }
    }

    fn parse(s: &str) -> Result<Value, AllotError> {
        parse_body::<Value>(s.as_bytes())
    }

    #[test]
    fn strict_json() {
        assert!(parse(r#"{"a":1,"b":[{"c":2}]}"#).is_ok());
        assert!(parse(r#"{"delta":-5,"delta":5}"#)
            .unwrap_err()
            .to_string()
            .contains("twice"));
        assert!(parse(r#"{"a":{"x":1,"x":2}}"#).is_err());
        assert!(parse(r#"["ARR",5]"#).is_err());
        assert!(parse(r#"{"lines":[["HOT",1]]}"#)
            .unwrap_err()
            .to_string()
            .contains("lines[0]"));
        assert!(parse(r#"{"payload":[[1,2]]}"#).is_ok());
        assert!(parse(r#"{"a":1} x"#).is_err());
        assert!(parse("").is_err());
    }

    #[test]
    fn canonical_form_is_made_on_demand_and_stable() {
        let a = Canonical::of(Bytes::from_static(br#"{ "b": 2.0, "a": [1, {"d": 1, "c": 2}] }"#));
        let b = Canonical::of(Bytes::from_static(br#"{"a":[1,{"c":2,"d":1}],"b":2}"#));
        assert!(a.text.get().is_none(), "made only when asked for");
        assert_eq!(a.text(), r#"{"a":[1,{"c":2,"d":1}],"b":2}"#);
        assert_eq!(a.text(), b.text());
        assert_eq!(Canonical::none().text(), "");
    }

    /// Integral numbers read exactly (serde_json's `float_roundtrip`): `-2251799813685247.0`
    /// is that integer, not a float one ULP off it (the default parser's fast path).
    #[test]
    fn integral_floats_read_exactly() {
        let b: allot_core::CompletionsBody = parse_body(
            br#"{"jobs":[{"id":-2251799813685247.0,"lease_token":"00000000-0000-4000-8000-000000000000"}]}"#,
        )
        .unwrap();
        assert_eq!(b.jobs[0].id, -2_251_799_813_685_247);
        let v = strict_value(b"1.7976931348623157e308").unwrap();
        assert_eq!(v.as_f64(), Some(f64::MAX));
    }

    #[test]
    fn fields_are_named() {
        let e = parse_body::<allot_core::AllocationBody>(br#"{"lines":[{"sku":"A","quantity":"x"}]}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("lines[0].quantity"), "{e}");
        let e = parse_body::<allot_core::CreateSkuBody>(br#"{"sku":"A","on_hand":1,"bukets":4}"#)
            .err()
            .unwrap();
        assert!(e.to_string().contains("bukets"), "{e}");
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = parse_body::<allot_core::AllocationBody>(&bytes);
            let _ = parse_body::<allot_core::EnqueueBody>(&bytes);
            let _ = parse_body::<allot_core::BookingBody>(&bytes);
        }

        #[test]
        fn arbitrary_json_never_panics(v in arb_json()) {
            let text = v.to_string();
            let _ = parse_body::<allot_core::HoldBody>(text.as_bytes());
            let _ = parse_body::<allot_core::UnitsBody>(text.as_bytes());
            let _ = parse_body::<allot_core::LeaseBody>(text.as_bytes());
        }
    }

    fn arb_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            ".{0,8}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z_]{0,8}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }
}
