//! Numbers whose f64 does not say what their text said. Outside the free-form documents, a
//! number with a zero fractional part is an integer (JSON Schema: "any number with a zero
//! fractional part"), so `2.0` and `1e3` are read as `2` and `1000`; but the f64 a parser
//! makes cannot tell `2.0` from `2.0000000000000001` (both round to 2.0). Inside a document
//! (`payload`, `metadata`), which comes back as it was sent, an integer beyond 64 bits would
//! come back as the nearest f64 (`1e30`, not the 31 digits sent: RFC 8259 §6 calls such
//! integers not interoperable). When a body had such a number its text is read again
//! (serde_json's `RawValue`): the first is refused when its decimal text has a fraction, the
//! second always (a client sends such an integer as a string). Also the path of a field in
//! a body as refusals name it (`lines[0].quantity`), which both walks here and the
//! extractor's use.

use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// The first number of `body` whose f64 does not say what its text said, as a refusal's
/// message naming its path: outside `payload`/`metadata`, an f64 that is integral while the
/// decimal text has a fraction (`1.0000000000000001`, `1e-400`); inside them, an integer
/// text beyond 64 bits. `None` when there is none or `body` is not JSON.
pub(crate) fn inexact_number(body: &[u8]) -> Option<String> {
    let raw: &RawValue = serde_json::from_slice(body).ok()?;
    walk(raw, "", false)
}

fn walk(raw: &RawValue, path: &str, in_document: bool) -> Option<String> {
    let text = raw.get();
    match text.as_bytes().first()? {
        b'{' => {
            let map: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
            map.iter().find_map(|(k, v)| {
                let document = in_document || matches!(k.as_str(), "payload" | "metadata");
                walk(v, &join(path, k), document)
            })
        }
        b'[' => {
            let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(v, &format!("{path}[{i}]"), in_document))
        }
        b'-' | b'0'..=b'9' if in_document => {
            let plain_integer = !text.contains(['.', 'e', 'E']);
            let fits = text.parse::<i64>().is_ok() || text.parse::<u64>().is_ok();
            (plain_integer && !fits).then(|| {
                format!(
                    "{path}: the integer {text} is beyond 64 bits and would not come back as sent; send it as a string"
                )
            })
        }
        b'-' | b'0'..=b'9' => {
            let rounds_integral = text.parse::<f64>().is_ok_and(|v| v.fract() == 0.0);
            (rounds_integral && !integral_text(text))
                .then(|| format!("{path}: {text} has a fractional part, an integer is expected"))
        }
        _ => None,
    }
}

/// Whether a JSON number's decimal text (RFC 8259 §6: `-?int(.frac)?([eE][+-]?exp)?`) is an
/// integer: every digit right of the decimal point, once the exponent has moved it, is 0.
pub(crate) fn integral_text(text: &str) -> bool {
    let unsigned = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], &unsigned[i + 1..]),
        None => (unsigned, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    // Saturating: an exponent beyond any body's digit count moves the point past them all.
    let exponent = exponent
        .parse::<i64>()
        .unwrap_or(if exponent.starts_with('-') { i64::MIN } else { i64::MAX });
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

    #[test]
    fn found_with_their_path() {
        let body = br#"{"lines":[{"sku":"A","quantity":2.0},{"sku":"B","quantity":1.0000000000000001}],
                        "payload":{"x":1.0000000000000001}}"#;
        let found = inexact_number(body).unwrap();
        assert!(found.starts_with("lines[1].quantity: 1.0000000000000001 "), "{found}");
        assert_eq!(
            inexact_number(br#"{"a":2.0,"metadata":[1e-400, 1e30, -9223372036854775808],"b":[1e3]}"#),
            None
        );
        let body = br#"{"jobs":[{"payload":{"n":18446744073709551615,"m":[18446744073709551616]}}]}"#;
        let found = inexact_number(body).unwrap();
        assert!(
            found.starts_with("jobs[0].payload.m[0]: the integer 18446744073709551616 "),
            "{found}"
        );
    }
}
