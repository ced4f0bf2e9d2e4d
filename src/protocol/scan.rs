//! Reading one member out of a request line without reading the rest
//! (spec `protocol.framing`, `wire.json.depth`): the kit hands a typed
//! handler its input as written, and a request too deep to read still gets
//! its own id back. A scan that keeps no stack, whatever the depth.
//!
//! Outside cargo-mutants' scope with the kit (`.cargo/mutants.toml`): no
//! vector sends a request deeper than the reference reads, since beyond the
//! contracted depth an implementation may answer either way; the id of one
//! is checked by `tests/depth.rs`.

use crate::js::json::{self, Json};
use crate::js::JsString;

/// The string `id` of a request line too deeply nested to be read (spec
/// `wire.json.depth`: an over-deep request still gets its own id back),
/// found without reading the rest; `None` for any other unreadable line.
pub fn id_of_too_deep(line: &str) -> Option<JsString> {
    match json::parse(line) {
        Err(error) if error.is_too_deep() => {}
        _ => return None,
    }
    match json::parse(raw_member(line, "id")?) {
        Ok(Json::String(id)) => Some(id),
        _ => None,
    }
}

/// The text of the last top-level member `name` of the JSON object `line`
/// as written (`JSON.parse` keeps the last of duplicates), or `None`. The
/// line is valid JSON (one that
/// [`Request::from_line`](super::wire::Request::from_line) has read, or one
/// only too deep for it); the scan keeps no stack, whatever the depth.
pub fn raw_member<'l>(line: &'l str, name: &str) -> Option<&'l str> {
    let bytes = line.as_bytes();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    let mut found = None;
    at = skip_space(bytes, at + 1);
    if bytes.get(at) == Some(&b'}') {
        return None;
    }
    loop {
        let key_end = value_end(bytes, at)?;
        let key = json::parse(&line[at..key_end]).ok()?;
        at = skip_space(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        let value_start = skip_space(bytes, at + 1);
        let end = value_end(bytes, value_start)?;
        if key.as_js_str().is_some_and(|key| key.is(name)) {
            found = Some(&line[value_start..end]);
        }
        at = skip_space(bytes, end);
        match bytes.get(at) {
            Some(b',') => at = skip_space(bytes, at + 1),
            _ => return found,
        }
    }
}

/// The index after JSON whitespace from `at`.
fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The index just after the JSON value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut index = at;
            loop {
                match *bytes.get(index)? {
                    b'"' => {
                        index = string_end(bytes, index)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(index + 1);
                        }
                    }
                    _ => {}
                }
                index += 1;
            }
        }
        _ => {
            let mut index = at;
            while bytes
                .get(index)
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.'))
            {
                index += 1;
            }
            Some(index)
        }
    }
}

/// The index just after the string whose opening quote is at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut index = at + 1;
    loop {
        match *bytes.get(index)? {
            b'\\' => index += 2,
            b'"' => return Some(index + 1),
            _ => index += 1,
        }
    }
}
