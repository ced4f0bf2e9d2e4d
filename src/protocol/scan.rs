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
use crate::js::skim::Skim;
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
/// only too deep for it); the [`Skim`] keeps no stack, whatever the depth.
pub fn raw_member<'l>(line: &'l str, name: &str) -> Option<&'l str> {
    let mut skim = Skim::new(line);
    let mut found = None;
    skim.object(|skim, key| {
        let value = skim.value()?;
        if skim.key_is(&key, name) {
            found = Some(&line[value]);
        }
        Some(())
    })?;
    found
}
