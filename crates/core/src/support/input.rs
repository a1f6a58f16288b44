//! The boundary policy for scalar inputs, one rule per kind of value, applied by
//! the validators (`validate.rs`) to every field of every request so that both backends store — and
//! refuse — exactly the same things:
//!
//! - **tokens** (lease tokens, idempotency keys, strategy names as echoed): no control
//!   characters, bounded;
//! - **free text** (reasons, holders, serials, workers, error texts): no NUL (PostgreSQL's
//!   `text` cannot hold one: SQLSTATE 22021 character_not_in_repertoire) and no control
//!   characters other than tab, line feed and carriage return, bounded in chars;
//! - **identifiers** (serials, lots, unit locations, unique keys, key names): free text that
//!   also holds no format character (Unicode category Cf: zero-width spaces and joiners,
//!   bidirectional overrides, the BOM — invisible, so two serials that look alike would differ)
//!   and is kept in Unicode Normalization Form C (so `é` typed precomposed or as `e` + U+0301
//!   is one serial; UAX #15);
//! - **JSON documents** (job payloads, booking metadata): no NUL in any string or key
//!   (`jsonb` refuses `\u0000`: SQLSTATE 22P05 untranslatable_character), bounded in bytes;
//! - **instants**: between 1970-01-01 and 9999-12-31 UTC, no leap second, truncated to whole
//!   microseconds (the precision both stores keep, so an answer echoes what was stored).

use crate::support::error::{AllotError, Result, Rule};
use chrono::{DateTime, Datelike, Timelike, Utc};

/// The earliest instant accepted (the Unix epoch): SQLite keeps instants as microseconds
/// since it, and nothing allot schedules or books lies before it.
pub const MIN_YEAR: i32 = 1970;
/// The latest year accepted: RFC 3339 has four-digit years.
pub const MAX_YEAR: i32 = 9999;
pub use crate::support::error::{echo, MAX_ECHO_CHARS};

fn too_long(field: &str, limit: &'static str, max: usize, len: usize, unit: &str) -> AllotError {
    AllotError::LimitExceeded {
        limit,
        max: max as u64,
        message: format!("{field} is {len} {unit} long"),
    }
}

/// A token: 1..=`max` bytes, no control characters (`limit` names the bound).
pub fn token(field: &str, value: &str, limit: &'static str, max: usize) -> Result<()> {
    if value.is_empty() {
        return Err(AllotError::invalid(format!("{field} must not be empty")));
    }
    if value.len() > max {
        return Err(too_long(field, limit, max, value.len(), "bytes"));
    }
    if value.chars().any(char::is_control) {
        return Err(AllotError::invalid(format!(
            "{field} must not contain control characters"
        )));
    }
    Ok(())
}

/// Free text: at most `max` chars, no NUL, no control characters but `\t`, `\n`, `\r`.
pub fn free_text(field: &str, value: &str, limit: &'static str, max: usize) -> Result<()> {
    let len = value.chars().count();
    if len > max {
        return Err(too_long(field, limit, max, len, "chars"));
    }
    if let Some(c) = value
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    {
        return Err(AllotError::invalid(format!(
            "{field} contains the control character U+{:04X}",
            u32::from(c)
        )));
    }
    Ok(())
}

/// Whether `c` is a format character (Unicode general category Cf) of the Basic Multilingual
/// Plane — zero-width spaces and joiners, bidirectional marks and overrides, the BOM, the soft
/// hyphen — which an identifier may not hold. Astral ones (tag characters, which emoji flag
/// sequences use; musical and Egyptian formatting) are allowed, and every regex dialect can
/// express the rule as a character class of BMP code points.
pub fn is_format_char(c: char) -> bool {
    use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
    u32::from(c) <= 0xFFFF && c.general_category() == GeneralCategory::Format
}

/// An identifier: free text (see [`free_text`]; its length as sent) without format
/// characters, returned in Normalization Form C — the form it is stored, compared, looked up
/// and answered in (a few characters grow under NFC, so what is stored may be a little longer
/// than what was sent).
pub fn identifier(field: &str, value: &str, limit: &'static str, max: usize) -> Result<String> {
    use unicode_normalization::UnicodeNormalization;
    free_text(field, value, limit, max)?;
    if let Some(c) = value.chars().find(|c| is_format_char(*c)) {
        return Err(AllotError::invalid(format!(
            "{field} contains the invisible format character U+{:04X}",
            u32::from(c)
        )));
    }
    Ok(value.nfc().collect())
}

/// A JSON document: at most `max` bytes serialized, no NUL in any string or key.
pub fn json_document(field: &str, value: &serde_json::Value, limit: &'static str, max: usize) -> Result<()> {
    let size = value.to_string().len();
    if size > max {
        return Err(too_long(field, limit, max, size, "bytes"));
    }
    if has_nul(value) {
        return Err(AllotError::breaks(
            Rule::NulCharacter,
            format!("{field} must not contain U+0000 in any string or key"),
        ));
    }
    Ok(())
}

fn has_nul(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains('\0'),
        serde_json::Value::Array(a) => a.iter().any(has_nul),
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}

/// An instant as allot keeps it: within [`MIN_YEAR`]..=[`MAX_YEAR`], not a leap second
/// (`…:60`), truncated to whole microseconds.
pub fn instant(field: &str, t: DateTime<Utc>) -> Result<DateTime<Utc>> {
    if !(MIN_YEAR..=MAX_YEAR).contains(&t.year()) {
        return Err(AllotError::breaks(
            Rule::InstantOutOfRange,
            format!("{field} must lie in the years {MIN_YEAR}..={MAX_YEAR}"),
        ));
    }
    let nanos = t.nanosecond();
    if nanos >= 1_000_000_000 {
        return Err(AllotError::breaks(
            Rule::InstantOutOfRange,
            format!("{field} must not be a leap second"),
        ));
    }
    Ok(t.with_nanosecond(nanos - nanos % 1000).unwrap_or(t))
}

/// Serde `deserialize_with` for an optional nested object of a request body: only a JSON
/// object (or null or absent) is taken. Serde's derive would also build a struct from an array
/// of its fields in order (`"filter": [null, null]`), which no client means and the document
/// does not allow.
pub fn object_only<'de, D, T>(d: D) -> std::result::Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::de::Error as _;
    use serde::Deserialize as _;
    match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(v @ serde_json::Value::Object(_)) => serde_json::from_value(v).map(Some).map_err(D::Error::custom),
        Some(_) => Err(D::Error::custom("expected an object")),
    }
}

/// [`object_only`] for an optional list of nested objects: each item a JSON object.
pub fn objects_only<'de, D, T>(d: D) -> std::result::Result<Option<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::de::Error as _;
    use serde::Deserialize as _;
    match Option::<Vec<serde_json::Value>>::deserialize(d)? {
        None => Ok(None),
        Some(items) => items
            .into_iter()
            .map(|v| match v {
                v @ serde_json::Value::Object(_) => serde_json::from_value(v).map_err(D::Error::custom),
                _ => Err(D::Error::custom("expected an object")),
            })
            .collect::<std::result::Result<Vec<T>, D::Error>>()
            .map(Some),
    }
}

/// [`object_only`] for a required nested object.
pub fn object<'de, D, T>(d: D) -> std::result::Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::de::Error as _;
    object_only(d)?.ok_or_else(|| D::Error::custom("expected an object"))
}

/// Longest `reference`, bytes: an absolute URI naming the document behind a change (a
/// purchase order, an ERP record), e.g. `erp://po/4711`.
pub const MAX_REFERENCE_LEN: usize = 2048;

/// The pattern of a `reference` (ECMA-262, as the API document states it): an absolute URI,
/// RFC 3986 §4.3 — a scheme, a colon, then printable ASCII without spaces.
pub const REFERENCE_PATTERN: &str = "^[A-Za-z][A-Za-z0-9+.-]*:[!-~]+$";

/// A `reference`: [`REFERENCE_PATTERN`] (ASCII only), at most [`MAX_REFERENCE_LEN`] bytes;
/// `invalid_request` naming `field` otherwise.
pub fn reference(field: &str, value: &str) -> Result<()> {
    if value.len() > MAX_REFERENCE_LEN {
        return Err(AllotError::invalid(format!(
            "{field} is {} bytes, longer than {MAX_REFERENCE_LEN}",
            value.len()
        )));
    }
    let (scheme, rest) = value.split_once(':').unwrap_or(("", ""));
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'));
    if !scheme_ok || rest.is_empty() || !rest.chars().all(|c| c.is_ascii_graphic()) {
        return Err(AllotError::invalid(format!(
            "{field} must be an absolute URI (a scheme, a colon, no spaces), such as erp://po/4711"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn text_rules() {
        assert!(free_text("reason", "a\tb\nc", "max_reason_len", 10).is_ok());
        assert!(free_text("reason", "a\0b", "max_reason_len", 10).is_err());
        assert!(free_text("reason", "a\u{7}b", "max_reason_len", 10).is_err());
        assert!(matches!(
            free_text("reason", "ééé", "max_reason_len", 2),
            Err(AllotError::LimitExceeded {
                limit: "max_reason_len",
                ..
            })
        ));
        assert!(token("lease_token", "abc", "max_token_len", 3).is_ok());
        assert!(token("lease_token", "a\nb", "max_token_len", 9).is_err());
        assert!(token("lease_token", "", "max_token_len", 9).is_err());
        assert!(token("lease_token", "abcd", "max_token_len", 3).is_err());
    }

    #[test]
    fn json_rules() {
        let ok = serde_json::json!({"a": ["b", {"c": 1}]});
        assert!(json_document("payload", &ok, "max_payload_bytes", 100).is_ok());
        assert!(json_document(
            "payload",
            &serde_json::json!({"a": ["b\u{0}"]}),
            "max_payload_bytes",
            100
        )
        .is_err());
        assert!(json_document("payload", &serde_json::json!({"a\u{0}": 1}), "max_payload_bytes", 100).is_err());
        assert!(json_document("payload", &ok, "max_payload_bytes", 5).is_err());
    }

    #[test]
    fn instant_rules() {
        let p = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let t = instant("start", p("2026-03-01T10:00:00.123456789Z")).unwrap();
        assert_eq!(t, p("2026-03-01T10:00:00.123456Z"));
        assert!(instant("start", p("2026-06-30T23:59:60Z")).is_err());
        assert!(instant("start", p("0001-01-01T00:00:00Z")).is_err());
        assert!(instant("start", p("1969-12-31T23:59:59Z")).is_err());
        assert!(instant("start", p("9999-12-31T23:59:59.999999Z")).is_ok());
    }

    #[test]
    fn echo_is_bounded() {
        assert_eq!(echo("short"), "short");
        assert_eq!(echo(&"x".repeat(100_000)).chars().count(), MAX_ECHO_CHARS + 1);
    }

    proptest! {
        #[test]
        fn text_checks_never_panic(s in any::<String>(), max in 0usize..64) {
            let _ = free_text("f", &s, "l", max);
            let _ = token("f", &s, "l", max);
            let _ = echo(&s);
        }

        #[test]
        fn instants_never_panic(secs in i64::MIN / 1000..i64::MAX / 1000, nanos in 0u32..2_000_000_000) {
            if let Some(t) = DateTime::<Utc>::from_timestamp(secs, nanos) {
                if let Ok(k) = instant("t", t) {
                    prop_assert_eq!(k.nanosecond() % 1000, 0);
                }
            }
        }
    }
}
