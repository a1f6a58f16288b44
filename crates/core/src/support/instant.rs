//! Instants in JSON answers: RFC 3339 in UTC with `Z` and as many fractional digits as the
//! instant needs (0, 3, 6 or 9: chrono's `SecondsFormat::AutoSi`), the very text chrono's
//! own `Serialize` writes, written as one string. Chrono's goes through `collect_str`, which
//! hands the text to serde_json one character at a time through its escaping: 2 500
//! instructions per instant, where this is a few hundred (`allot bench cost`).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::Serializer;

/// `#[serde(serialize_with = "…")]` of a `DateTime<Utc>`.
pub fn rfc3339<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&at.to_rfc3339_opts(SecondsFormat::AutoSi, true))
}

/// `#[serde(serialize_with = "…")]` of an `Option<DateTime<Utc>>` (`null` for `None`).
pub fn rfc3339_opt<S: Serializer>(at: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match at {
        Some(at) => rfc3339(at, s),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    #[derive(serde::Serialize)]
    struct Both {
        #[serde(serialize_with = "super::rfc3339")]
        fast: chrono::DateTime<Utc>,
        chrono: chrono::DateTime<Utc>,
    }

    /// The same text as chrono's own, for every precision.
    #[test]
    fn same_text_as_chrono() {
        let base = Utc.with_ymd_and_hms(2026, 11, 29, 3, 4, 5).unwrap();
        for nanos in [0, 120_000_000, 123_456_000, 123_456_789, 1] {
            let at = base + chrono::Duration::nanoseconds(nanos);
            let v = serde_json::to_value(Both { fast: at, chrono: at }).unwrap();
            assert_eq!(v["fast"], v["chrono"], "{nanos} ns");
        }
    }
}
