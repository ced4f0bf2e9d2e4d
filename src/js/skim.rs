//! Where JSON's values lie, without reading them (issue #61).
//!
//! A request of megabytes read into one tree holds several times its text:
//! every string a string of code units, every object a vector of members.
//! A reader that needs only some values, or one value at a time, asks a
//! [`Skim`] where they lie and reads each with [`json::parse`](super::json::parse).
//!
//! A skim is certain or silent: it places values in text that is JSON as
//! far as it looks, and answers `None` for malformed structure. It keeps
//! no stack, so it steps over values of any depth (a request too deep to
//! read still has its `id` found, spec `wire.json.depth`). A caller
//! then reads the whole text with [`json::parse`](super::json::parse), which
//! names the error. It checks the structure it places values in (brackets,
//! colons, commas, JSON's whitespace), not the values themselves: those
//! are checked when they are read.

use super::json::{first_stop, WINDOW};
use std::ops::Range;

/// Where a value lies: byte offsets into the text.
pub type Span = Range<usize>;

/// A cursor over JSON text that steps over values, or into the objects
/// and arrays a caller wants to look inside, in one pass.
pub struct Skim<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Skim<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Skim<'a> {
        Skim {
            bytes: text.as_bytes(),
            at: 0,
        }
    }

    /// Where the cursor is: the byte after the last value stepped over.
    pub fn position(&self) -> usize {
        self.at
    }

    /// Steps over the next value; its span.
    pub fn value(&mut self) -> Option<Span> {
        self.skip_whitespace();
        let start = self.at;
        self.at = match self.bytes.get(start)? {
            b'"' => self.string_end(start)?,
            b'{' | b'[' => self.container_end(start)?,
            _ => {
                let end = self.bytes[start..]
                    .iter()
                    .position(|byte| {
                        matches!(
                            byte,
                            b',' | b'}' | b']' | b':' | b' ' | b'\t' | b'\n' | b'\r'
                        )
                    })
                    .map_or(self.bytes.len(), |length| start + length);
                (end > start).then_some(end)?
            }
        };
        Some(start..self.at)
    }

    /// Steps into the next value, an object, and calls `member` with the
    /// span of each member's key (its quotes included) and the cursor at
    /// the member's value, which `member` steps over (or into).
    pub fn object(&mut self, mut member: impl FnMut(&mut Self, Span) -> Option<()>) -> Option<()> {
        if self.opened(b'{', b'}')? {
            return Some(());
        }
        loop {
            self.skip_whitespace();
            let key = self.at;
            if self.bytes.get(key) != Some(&b'"') {
                return None;
            }
            self.at = self.string_end(key)?;
            let key = key..self.at;
            self.skip_whitespace();
            if self.bytes.get(self.at) != Some(&b':') {
                return None;
            }
            self.at += 1;
            member(self, key)?;
            if self.closed(b'}')? {
                return Some(());
            }
        }
    }

    /// Steps into the next value, an array, and calls `item` with the
    /// cursor at each item, which `item` steps over (or into).
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if self.opened(b'[', b']')? {
            return Some(());
        }
        loop {
            item(self)?;
            if self.closed(b']')? {
                return Some(());
            }
        }
    }

    /// Whether the key at `key` (its quotes included) is `name`, read as
    /// JSON reads it (`"i\u0064"` is `id`).
    pub fn key_is(&self, key: &Span, name: &str) -> bool {
        let raw = &self.bytes[key.start + 1..key.end - 1];
        if !raw.contains(&b'\\') {
            return raw == name.as_bytes();
        }
        std::str::from_utf8(&self.bytes[key.clone()])
            .ok()
            .and_then(|text| super::json::parse(text).ok())
            .and_then(|key| key.as_js_str().map(|key| key.is(name)))
            .unwrap_or(false)
    }

    /// Steps over the `open` bracket of the next value; true when `close`
    /// follows at once (stepped over too): the container is empty.
    fn opened(&mut self, open: u8, close: u8) -> Option<bool> {
        self.skip_whitespace();
        if self.bytes.get(self.at) != Some(&open) {
            return None;
        }
        self.at += 1;
        self.skip_whitespace();
        let empty = self.bytes.get(self.at) == Some(&close);
        if empty {
            self.at += 1;
        }
        Some(empty)
    }

    /// After an entry: steps over the comma before the next one (false) or
    /// the `close` that ends the container (true).
    fn closed(&mut self, close: u8) -> Option<bool> {
        self.skip_whitespace();
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        match byte {
            b',' => Some(false),
            _ if byte == close => Some(true),
            _ => None,
        }
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// Where the string whose quote is at `at` ends, past its closing quote:
    /// a window at a time, as the parser finds a string's end
    /// ([`first_stop`]), stepping over escapes and any other stop.
    fn string_end(&self, at: usize) -> Option<usize> {
        let mut position = at + 1;
        loop {
            let rest = self.bytes.get(position..)?;
            let Some(window) = rest.first_chunk::<WINDOW>() else {
                return self.string_end_bytewise(position);
            };
            let Some(stop) = first_stop(window) else {
                position += WINDOW;
                continue;
            };
            position += stop;
            match window[stop] {
                b'"' => return Some(position + 1),
                // An escape: the byte after the backslash is never the end.
                b'\\' => position += 2,
                _ => position += 1,
            }
        }
    }

    /// [`Skim::string_end`] from `position` inside the string, a byte at a
    /// time (the text's last bytes).
    fn string_end_bytewise(&self, mut position: usize) -> Option<usize> {
        loop {
            match self.bytes.get(position)? {
                b'"' => return Some(position + 1),
                b'\\' => position += 2,
                _ => position += 1,
            }
        }
    }

    /// Where the object or array opening at `at` ends, past its closing
    /// bracket.
    fn container_end(&self, at: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut position = at;
        loop {
            match self.bytes.get(position)? {
                b'"' => {
                    position = self.string_end(position)?;
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(position + 1);
                    }
                }
                _ => {}
            }
            position += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps into the value at the cursor, an array or an object, taking
    /// each entry's text (a member as `key=value`).
    fn entries(text: &str, skim: &mut Skim<'_>) -> Option<Vec<String>> {
        let mut entries = Vec::new();
        skim.skip_whitespace();
        if text.as_bytes().get(skim.position()) == Some(&b'{') {
            skim.object(|skim, key| {
                let value = skim.value()?;
                entries.push(format!("{}={}", &text[key], &text[value]));
                Some(())
            })?;
        } else {
            skim.array(|skim| {
                let value = skim.value()?;
                entries.push(text[value].to_owned());
                Some(())
            })?;
        }
        Some(entries)
    }

    #[test]
    fn steps_over_and_into_values() {
        let text = r#" {"a" : [1, "x\"]", {"b":[]}] , "i\u0064":null} "#;
        let mut skim = Skim::new(text);
        let mut keys = Vec::new();
        let mut items = Vec::new();
        skim.object(|skim, key| {
            keys.push(key.clone());
            if skim.key_is(&key, "a") {
                items = entries(text, skim)?;
                Some(())
            } else {
                skim.value().map(drop)
            }
        })
        .unwrap();
        assert_eq!(skim.position(), text.len() - 1);
        assert!(skim.key_is(&keys[1], "id") && !skim.key_is(&keys[0], "id"));
        assert_eq!(items, ["1", r#""x\"]""#, r#"{"b":[]}"#]);
        let mut skim = Skim::new(text);
        assert_eq!(
            entries(text, &mut skim).unwrap(),
            [r#""a"=[1, "x\"]", {"b":[]}]"#, r#""i\u0064"=null"#]
        );
    }

    #[test]
    fn is_silent_on_what_it_cannot_place() {
        for text in [
            "",
            "[1,]",
            "[1 2]",
            "{\"a\" 1}",
            "{\"a\":1,}",
            "[\"open",
            "[[[",
            "{1:2}",
            "{\"a\":1:2}",
        ] {
            let mut skim = Skim::new(text);
            assert_eq!(entries(text, &mut skim), None, "{text:?}");
        }
        let nested = |depth: usize| format!("{}{}", "[".repeat(depth), "]".repeat(depth));
        assert_eq!(Skim::new(&nested(20_000)).value(), Some(0..40_000));
    }
}
