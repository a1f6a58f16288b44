//! Instants in JSON answers: RFC 3339 in UTC with `Z` and as many fractional digits as the
//! instant needs (0, 3, 6 or 9: chrono's `SecondsFormat::AutoSi`), the very text chrono's
//! own `Serialize` writes, written as one string. Chrono's goes through `collect_str`, which
//! hands the text to serde_json one character at a time through its escaping: 2 500
//! instructions per instant; `to_rfc3339_opts` (formatting machinery and a `String`) about
//! 1 000; the digits written here into a buffer on the stack, about 200 (`allot bench cost`).

use chrono::{DateTime, Datelike, SecondsFormat, Timelike, Utc};
use serde::Serializer;

/// Longest text written here: `9999-12-31T23:59:59.999999999Z`.
const MAX_TEXT: usize = 30;

/// `now + ttl_ms`, saturating at the far future: when a hold (of stock, units or a booking)
/// lapses.
pub fn expires_at(now: DateTime<Utc>, ttl_ms: u64) -> DateTime<Utc> {
    now.checked_add_signed(chrono::Duration::milliseconds(ttl_ms.min(i64::MAX as u64) as i64))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// `#[serde(serialize_with = "…")]` of a `DateTime<Utc>`.
pub fn rfc3339<S: Serializer>(at: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; MAX_TEXT];
    match write_utc(at, &mut buf).and_then(|n| std::str::from_utf8(&buf[..n]).ok()) {
        Some(text) => s.serialize_str(text),
        None => s.serialize_str(&chrono_text(at)),
    }
}

/// `at` as answers write it, as a `String` (for instants built as text inside a stored
/// document: [`crate::clock::wire_instant`]).
pub fn text(at: &DateTime<Utc>) -> String {
    let mut buf = [0u8; MAX_TEXT];
    match write_utc(at, &mut buf).and_then(|n| std::str::from_utf8(&buf[..n]).ok()) {
        Some(text) => text.to_string(),
        None => chrono_text(at),
    }
}

/// `at` as the event feed's stored documents write it: six fractional digits always
/// (`2026-12-01T00:00:00.000000Z`), as PostgreSQL's `allot_instant` and SQLite's triggers do.
pub fn feed_text(at: &DateTime<Utc>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// Chrono's own text: for years outside 0..=9999 and leap seconds.
fn chrono_text(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// `at` as chrono's `AutoSi` text into `buf`; its length, or `None` when chrono writes it
/// otherwise (a year outside 0..=9999 is signed, a leap second's nanoseconds pass 10^9).
fn write_utc(at: &DateTime<Utc>, buf: &mut [u8; MAX_TEXT]) -> Option<usize> {
    let (date, time) = (at.date_naive(), at.time());
    let year = u32::try_from(date.year()).ok().filter(|y| *y <= 9999)?;
    let nanos = time.nanosecond();
    if nanos >= 1_000_000_000 {
        return None;
    }
    digits(&mut buf[0..4], year);
    buf[4] = b'-';
    digits(&mut buf[5..7], date.month());
    buf[7] = b'-';
    digits(&mut buf[8..10], date.day());
    buf[10] = b'T';
    digits(&mut buf[11..13], time.hour());
    buf[13] = b':';
    digits(&mut buf[14..16], time.minute());
    buf[16] = b':';
    digits(&mut buf[17..19], time.second());
    let mut end = 19;
    let (width, fraction) = match nanos {
        0 => (0, 0),
        n if n % 1_000_000 == 0 => (3, n / 1_000_000),
        n if n % 1_000 == 0 => (6, n / 1_000),
        n => (9, n),
    };
    if width > 0 {
        buf[end] = b'.';
        digits(&mut buf[end + 1..end + 1 + width], fraction);
        end += 1 + width;
    }
    buf[end] = b'Z';
    Some(end + 1)
}

/// `value`'s last `out.len()` decimal digits, zero-padded, into `out`.
fn digits(out: &mut [u8], mut value: u32) {
    for d in out.iter_mut().rev() {
        *d = b'0' + (value % 10) as u8;
        value /= 10;
    }
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
        let far = [
            Utc.with_ymd_and_hms(0, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(-1, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 0).unwrap(),
        ];
        for start in std::iter::once(base).chain(far) {
            for nanos in [0, 120_000_000, 123_456_000, 123_456_789, 1, 999_999_999] {
                let at = start + chrono::Duration::nanoseconds(nanos);
                let v = serde_json::to_value(Both { fast: at, chrono: at }).unwrap();
                assert_eq!(v["fast"], v["chrono"], "{at:?}");
            }
        }
        // A leap second (nanoseconds past 10^9): chrono's text, `:60`.
        let leap = chrono::NaiveDate::from_ymd_opt(2016, 12, 31)
            .and_then(|d| d.and_hms_nano_opt(23, 59, 59, 1_500_000_000))
            .unwrap()
            .and_utc();
        let v = serde_json::to_value(Both {
            fast: leap,
            chrono: leap,
        })
        .unwrap();
        assert_eq!(v["fast"], v["chrono"]);
    }
}
