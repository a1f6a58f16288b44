//! Integers written as decimals. Outside the free-form documents, a number with a zero
//! fractional part is an integer (JSON Schema: "any number with a zero fractional part"),
//! so `2.0` and `1e3` are read as `2` and `1000`. The f64 a parser makes cannot tell `2.0`
//! from `2.0000000000000001` (both round to 2.0), so when a body had such a number its text
//! is read again (serde_json's `RawValue`) and each one's decimal text must have a zero
//! fractional part itself.

use serde_json::value::RawValue;
use std::collections::BTreeMap;

/// The path and text of a number outside `payload`/`metadata` whose f64 is integral while
/// its decimal text has a non-zero fractional part (`1.0000000000000001`, `1e-400`); `None`
/// when there is none or `body` is not JSON.
pub(crate) fn fractional_integral(body: &[u8]) -> Option<(String, String)> {
    let raw: &RawValue = serde_json::from_slice(body).ok()?;
    walk(raw, "")
}

fn walk(raw: &RawValue, path: &str) -> Option<(String, String)> {
    let text = raw.get();
    match text.as_bytes().first()? {
        b'{' => {
            let map: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
            map.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "payload" | "metadata"))
                .find_map(|(k, v)| walk(v, &crate::extract::join(path, k)))
        }
        b'[' => {
            let items: Vec<&RawValue> = serde_json::from_str(text).ok()?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(v, &format!("{path}[{i}]")))
        }
        b'-' | b'0'..=b'9' => {
            let rounds_integral = text.parse::<f64>().is_ok_and(|v| v.fract() == 0.0);
            (rounds_integral && !integral_text(text)).then(|| (path.to_string(), text.to_string()))
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
    fn found_with_their_path_outside_documents() {
        let body = br#"{"lines":[{"sku":"A","quantity":2.0},{"sku":"B","quantity":1.0000000000000001}],
                        "payload":{"x":1.0000000000000001}}"#;
        assert_eq!(
            fractional_integral(body),
            Some(("lines[1].quantity".into(), "1.0000000000000001".into()))
        );
        assert_eq!(fractional_integral(br#"{"a":2.0,"metadata":[1e-400],"b":[1e3]}"#), None);
    }
}
