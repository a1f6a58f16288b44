//! Which request bodies the strict reading ([`crate::extract::parse_body`]) may hand to
//! serde_json as they are: those where reading them strictly and reading them plainly cannot
//! differ. One pass over the bytes, without allocating; anything it is not sure of goes the
//! strict way (a value tree first, then the type), which alone explains a refusal.
//!
//! Plain means: one object at the top; no number with a fraction or an exponent and none of
//! more than 18 digits (the strict reading turns `2.0` into an integer and checks inexact
//! numbers against their text); no array directly inside an array (serde would read
//! `["HOT",5]` as a struct); no object key written with an escape, none twice in one object
//! (a map or a free-form document would keep the last one silently); at most
//! [`MAX_DEPTH`] levels and [`MAX_KEYS`] keys open at once. Reading an allocation's body the
//! plain way costs a third of the strict way's instructions (`allot bench cost`).

/// Most containers open at once on the plain path.
const MAX_DEPTH: usize = 16;

/// Most keys of the objects open at once on the plain path.
const MAX_KEYS: usize = 64;

/// A container being read: an object (with where its keys start in the key list, and
/// whether a key comes next) or an array.
#[derive(Clone, Copy)]
enum Frame {
    Object { first_key: usize, want_key: bool },
    Array,
}

/// The open containers and the keys of the open objects, on the stack.
struct Open<'a> {
    bytes: &'a [u8],
    frames: [Frame; MAX_DEPTH],
    depth: usize,
    keys: [(usize, usize); MAX_KEYS],
    key_count: usize,
}

impl Open<'_> {
    fn push(&mut self, frame: Frame) -> bool {
        if self.depth == MAX_DEPTH {
            return false;
        }
        self.frames[self.depth] = frame;
        self.depth += 1;
        true
    }

    fn pop(&mut self) {
        if self.depth > 0 {
            self.depth -= 1;
            if let Frame::Object { first_key, .. } = self.frames[self.depth] {
                self.key_count = first_key;
            }
        }
    }

    fn top(&mut self) -> Option<&mut Frame> {
        self.depth.checked_sub(1).map(|d| &mut self.frames[d])
    }

    /// The string at `start..end` (escaped or not) was read: a key of the object on top
    /// when one was due. False when that key cannot be read plainly.
    fn string(&mut self, (start, end): (usize, usize), escaped: bool) -> bool {
        let Some(Frame::Object { first_key, want_key }) = self.top() else {
            return true;
        };
        if !*want_key {
            return true;
        }
        *want_key = false;
        let first = *first_key;
        let key = &self.bytes[start..end];
        if escaped || self.key_count == MAX_KEYS {
            return false;
        }
        let seen = self.keys[first..self.key_count]
            .iter()
            .any(|&(s, e)| &self.bytes[s..e] == key);
        self.keys[self.key_count] = (start, end);
        self.key_count += 1;
        !seen
    }
}

/// The end of the string whose contents start at `start` (the index of its closing quote),
/// and whether it holds an escape; `None` when it never ends.
fn string_end(bytes: &[u8], start: usize) -> Option<(usize, bool)> {
    let (mut i, mut escaped) = (start, false);
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((i, escaped)),
            b'\\' => {
                escaped = true;
                i += 2;
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether `bytes` may be read plainly (see the module's doc).
pub(crate) fn plain(bytes: &[u8]) -> bool {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return false;
    }
    let mut open = Open {
        bytes,
        frames: [Frame::Array; MAX_DEPTH],
        depth: 0,
        keys: [(0, 0); MAX_KEYS],
        key_count: 0,
    };
    let (mut i, mut last, mut digits) = (0, b' ', 0usize);
    while i < bytes.len() {
        let b = bytes[i];
        let fine = match b {
            b'"' => match string_end(bytes, i + 1) {
                Some((end, escaped)) => {
                    let fine = open.string((i + 1, end), escaped);
                    i = end;
                    fine
                }
                None => false,
            },
            b'{' => {
                let first_key = open.key_count;
                open.push(Frame::Object {
                    first_key,
                    want_key: true,
                })
            }
            b'[' => !matches!(open.top(), Some(Frame::Array)) && open.push(Frame::Array),
            b'}' | b']' => {
                open.pop();
                true
            }
            b',' => {
                if let Some(Frame::Object { want_key, .. }) = open.top() {
                    *want_key = true;
                }
                true
            }
            b'.' | b'e' | b'E' => !last.is_ascii_digit(),
            b'0'..=b'9' => {
                digits = if last.is_ascii_digit() { digits + 1 } else { 1 };
                digits <= 18
            }
            _ => true,
        };
        if !fine {
            return false;
        }
        if !b.is_ascii_whitespace() {
            last = if b == b'"' { b'"' } else { b };
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::plain;

    /// What an allocation, a claim or a job sends reads plainly; whatever the strict reading
    /// treats otherwise does not.
    #[test]
    fn plain_and_not() {
        for ok in [
            r#"{"lines":[{"sku":"HOT","quantity":1}],"strategy":"atomic"}"#,
            r#" {"max":10,"lease_ms":30000,"wait_ms":5000,"worker":"w1"}"#,
            r#"{"jobs":[{"payload":{"to":"a@b","n":[1,2]},"priority":1}]}"#,
            r#"{"a":{"x":1},"b":{"x":2},"note":"1.5 e \"x\" [[ ]]"}"#,
            r#"{"ok":true,"no":false,"none":null,"n":-123456789012345678}"#,
        ] {
            assert!(plain(ok.as_bytes()), "{ok}");
        }
        for strict in [
            r#"["HOT",1]"#,
            r#"{"quantity":2.0}"#,
            r#"{"quantity":1e3}"#,
            r#"{"n":1234567890123456789}"#,
            r#"{"lines":[["HOT",5]]}"#,
            r#"{"lines":[{"sku":"A"}, ["HOT",5]]}"#,
            r#"{"sku":"A","sku":"B"}"#,
            r#"{"payload":{"k":1,"k":2}}"#,
            r#"{"s\u006bu":"A","sku":"B"}"#,
            r#"{"unterminated":"abc}"#,
        ] {
            assert!(!plain(strict.as_bytes()), "{strict}");
        }
        let deep = format!("{}{}", "{\"a\":".repeat(20), "1");
        assert!(!plain(deep.as_bytes()));
    }
}
