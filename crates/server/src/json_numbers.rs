//! Numbers whose f64 does not say what their text said.
//!
//! - Outside the free-form documents, a number with a zero fractional part is an integer
//!   (JSON Schema: "any number with a zero fractional part"), so `2.0` and `1e3` are read as
//!   `2` and `1000`; but the f64 a parser makes cannot tell `2.0` from `2.0000000000000001`
//!   (both round to 2.0). Such a number is refused when its decimal text has a fraction.
//! - Inside a document (`payload`, `metadata`), which must come back as it was sent, a number
//!   is refused when what would come back has another decimal value: an integer beyond 64 bits
//!   (`1e30` for the 31 digits sent: RFC 8259 §6 calls such integers not interoperable), a
//!   float with more digits than an f64 keeps (`0.1000000000000000000001` would come back as
//!   `0.1`), one that underflows (`1e-400` as `0.0`). `0.10` coming back as `0.1` is the same
//!   value and passes.
//!
//! The extractor notes while parsing whether a body has a number of either kind; only then is
//! its text read again (serde_json's `RawValue`): the typed part of the body, which is shallow,
//! by structure, and each document by one flat scan of its number tokens, so the cost is one
//! more pass over the body whatever its nesting. Also the path of a field in a body as
//! refusals name it (`lines[0].quantity`), which both this and the extractor use.

use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// Which numbers of a body the parse found worth checking against their text.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Suspects {
    /// An integral f64 outside the documents (its text may have had a fraction).
    pub(crate) outside: bool,
    /// A float, or an integer beyond 64 bits, inside a document.
    pub(crate) inside: bool,
}

/// A number whose f64 does not say what its text said: the refusal's message, naming its
/// path, and whether it sits inside a document (a rule the API document cannot state: `422
/// inexact_number`) or in a typed field (a fraction where the document says integer: `400`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Inexact {
    /// The refusal's message.
    pub(crate) message: String,
    /// Inside a `payload`, `metadata` or `output`.
    pub(crate) in_document: bool,
}

/// The first number of `body` (among the `suspects`) whose f64 does not say what its text
/// said; `None` when there is none or `body` is not JSON.
pub(crate) fn inexact_number(body: &[u8], suspects: Suspects) -> Option<Inexact> {
    let raw: &RawValue = serde_json::from_slice(body).ok()?;
    walk(raw, "", suspects)
}

fn walk(raw: &RawValue, path: &str, suspects: Suspects) -> Option<Inexact> {
    let text = raw.get();
    match text.as_bytes().first()? {
        b'{' => {
            let map: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
            map.iter().find_map(|(k, v)| match k.as_str() {
                "payload" | "metadata" | "output" if suspects.inside => {
                    scan_document(v.get(), &join(path, k)).map(|message| Inexact {
                        message,
                        in_document: true,
                    })
                }
                "payload" | "metadata" | "output" => None,
                _ => walk(v, &join(path, k), suspects),
            })
        }
        b'[' => {
            let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(v, &format!("{path}[{i}]"), suspects))
        }
        b'-' | b'0'..=b'9' if suspects.outside => {
            let rounds_integral = text.parse::<f64>().is_ok_and(|v| v.fract() == 0.0);
            (rounds_integral && !integral_text(text)).then(|| Inexact {
                message: format!("{path}: {text} has a fractional part, an integer is expected"),
                in_document: false,
            })
        }
        _ => None,
    }
}

/// One pass over a document's text (valid JSON, parsed already): each number token outside
/// strings is checked; the message names the document.
fn scan_document(text: &str, path: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| !matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(bytes.len(), |n| i + n);
                if let Some(back) = comes_back_otherwise(&text[i..end]) {
                    let sent = &text[i..end];
                    return Some(format!(
                        "{path}: the number {sent} would come back as {back}; send it as a string"
                    ));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    None
}

/// What a document's number would come back as, when that is another decimal value than its
/// text: serde_json keeps an integer within 64 bits exactly, and anything else as an f64.
fn comes_back_otherwise(text: &str) -> Option<String> {
    if text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok() {
        return None;
    }
    let back = text
        .parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map_or_else(|| "null".to_string(), |n| n.to_string());
    (decimal(&back) != decimal(text)).then_some(back)
}

/// A JSON number's decimal value as (negative, significant digits, point position): the value
/// is `0.digits × 10^point`; zero is `(false, "", 0)` whatever its sign or form.
fn decimal(text: &str) -> (bool, String, i64) {
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = split_exponent(unsigned);
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: String = int.chars().chain(frac.chars()).collect();
    let point = (int.len() as i64).saturating_add(exponent);
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    if significant.is_empty() {
        return (false, String::new(), 0);
    }
    (negative, significant.to_string(), point.saturating_sub(leading as i64))
}

/// A number's text split at its exponent, the exponent read saturating (an exponent beyond any
/// body's digit count moves the point past them all).
fn split_exponent(unsigned: &str) -> (&str, i64) {
    match unsigned.find(['e', 'E']) {
        Some(i) => {
            let e = &unsigned[i + 1..];
            let value = e
                .parse::<i64>()
                .unwrap_or(if e.starts_with('-') { i64::MIN } else { i64::MAX });
            (&unsigned[..i], value)
        }
        None => (unsigned, 0),
    }
}

/// Whether a JSON number's decimal text (RFC 8259 §6: `-?int(.frac)?([eE][+-]?exp)?`) is an
/// integer: every digit right of the decimal point, once the exponent has moved it, is 0.
pub(crate) fn integral_text(text: &str) -> bool {
    let (mantissa, exponent) = split_exponent(text.strip_prefix('-').unwrap_or(text));
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let point = (int.len() as i64)
        .saturating_add(exponent)
        .clamp(0, digits.len() as i64);
    digits[point as usize..].iter().all(|&d| d == b'0')
}

/// `path.key`, the key escaped as error messages echo input.
pub(crate) fn join(path: &str, key: &str) -> String {
    let key = allot_core::input::echo(key);
    if path.is_empty() {
        key
    } else {
        format!("{path}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_texts() {
        for t in [
            "0",
            "-0",
            "2",
            "2.0",
            "2.000",
            "1e3",
            "1E+3",
            "1.5e1",
            "120e-1",
            "0.0e-9",
            "1e999999999999999999999",
        ] {
            assert!(integral_text(t), "{t}");
        }
        for t in [
            "1.0000000000000001",
            "1e-400",
            "0.5",
            "-2.25",
            "-25E-1",
            "15e-1",
            "1.05e1",
            "1e-999999999999999999999",
        ] {
            assert!(!integral_text(t), "{t}");
        }
    }

    const ALL: Suspects = Suspects {
        outside: true,
        inside: true,
    };

    #[test]
    fn found_with_their_path() {
        let body = br#"{"lines":[{"sku":"A","quantity":2.0},{"sku":"B","quantity":1.0000000000000001}],
                        "payload":{"x":1}}"#;
        let found = inexact_number(body, ALL).unwrap().message;
        assert!(found.starts_with("lines[1].quantity: 1.0000000000000001 "), "{found}");
        let fine = br#"{"a":2.0,"metadata":[1e30, -9223372036854775808, 18446744073709551615, 0.10, 1.5e-7,
                        -0.0, -0, 5e-324, 1.7976931348623157e308, "1e-400 \" 0.1000000000000000000001"],"b":[1e3]}"#;
        assert_eq!(inexact_number(fine, ALL), None);
        for (document, sent, back) in [
            (r#"{"m":[1e-400]}"#, "1e-400", "0.0"),
            (
                r#"{"s":"\"2\"","m":0.1000000000000000000001}"#,
                "0.1000000000000000000001",
                "0.1",
            ),
            (
                r#"{"n":[[18446744073709551616]]}"#,
                "18446744073709551616",
                "1.8446744073709552e+19",
            ),
        ] {
            let body = format!(r#"{{"jobs":[{{"payload":1}},{{"payload":{document}}}]}}"#);
            let found = inexact_number(body.as_bytes(), ALL).unwrap().message;
            let want = format!("jobs[1].payload: the number {sent} would come back as {back};");
            assert!(found.starts_with(&want), "{found}");
        }
    }

    #[test]
    fn only_the_suspects_are_read() {
        let body = br#"{"quantity":1.0000000000000001,"payload":[1e-400]}"#;
        let outside = Suspects {
            outside: true,
            inside: false,
        };
        let inside = Suspects {
            outside: false,
            inside: true,
        };
        assert!(inexact_number(body, outside).unwrap().message.starts_with("quantity:"));
        assert!(inexact_number(body, inside).unwrap().in_document);
        assert_eq!(inexact_number(body, Suspects::default()), None);
    }
}
