//! The fast paths of the wire (issue #13) against plain paths, on arbitrary
//! input: they must change speed, never an answer.
//!
//! - `json::parse` (memchr runs, ASCII widening, inline short strings,
//!   integer fast path) against `plain::parse`, a character-at-a-time
//!   reading of the same grammar: same values (sign of zero included) and
//!   the same errors at the same offsets, on JSON texts full of escapes,
//!   lone surrogates, every kind of code unit, and on corrupted texts.
//! - `json::to_wire`, `json::to_ascii` and `json::quote` (bulk ASCII runs,
//!   byte writer, integer digits) against `plain::write`, which writes one
//!   code unit at a time and every number with `ryu-js`.
//! - `JsString`'s inline and heap forms: equal, ordered and hashed as their
//!   code units.
//! - `uri::decode`'s canonical-literal shortcut against the plain decode
//!   (base64, `JSON.parse`, re-quote and compare).
//! - `dispatch::handle_taking` (listing moved into the index) against
//!   `dispatch::handle_in` (listing copied) for `candidates/*`.
//!
//! The candidate index's ASCII lower-casing is checked against the full
//! Unicode path by a property in `src/discovery/sessions.rs`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use dsh_session_reference::features::Features;
use dsh_session_reference::js::json::{self, Json};
use dsh_session_reference::protocol::dispatch;
use dsh_session_reference::{uri, JsString};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 1024,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/fast_paths.proptest-regressions",
        ))),
        ..ProptestConfig::default()
    }
}

/// The plain paths: the JSON layer as it was before the fast paths, one
/// character at a time.
mod plain {
    use dsh_session_reference::js::json::{Json, ParseError, MAX_DEPTH};
    use dsh_session_reference::JsString;

    pub fn parse(text: &str) -> Result<Json, ParseError> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            text,
            pos: 0,
        };
        parser.skip_whitespace();
        let value = parser.value(0)?;
        parser.skip_whitespace();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("unexpected trailing characters"));
        }
        Ok(value)
    }

    struct Parser<'a> {
        bytes: &'a [u8],
        text: &'a str,
        pos: usize,
    }

    impl Parser<'_> {
        fn error(&self, message: &'static str) -> ParseError {
            ParseError {
                offset: self.pos,
                message,
            }
        }

        fn skip_whitespace(&mut self) {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
        }

        fn literal(&mut self, literal: &[u8], value: Json) -> Result<Json, ParseError> {
            if self.bytes[self.pos..].starts_with(literal) {
                self.pos += literal.len();
                Ok(value)
            } else {
                Err(self.error("invalid literal"))
            }
        }

        fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
            match self.bytes.get(self.pos) {
                None => Err(self.error("unexpected end of JSON input")),
                Some(b'n') => self.literal(b"null", Json::Null),
                Some(b't') => self.literal(b"true", Json::Bool(true)),
                Some(b'f') => self.literal(b"false", Json::Bool(false)),
                Some(b'"') => self.string().map(Json::String),
                Some(b'[') => self.array(depth + 1),
                Some(b'{') => self.object(depth + 1),
                Some(b'-' | b'0'..=b'9') => self.number(),
                Some(_) => Err(self.error("unexpected character")),
            }
        }

        fn array(&mut self, depth: usize) -> Result<Json, ParseError> {
            if depth > MAX_DEPTH {
                return Err(self.error("nesting too deep"));
            }
            self.pos += 1;
            let mut items = Vec::new();
            self.skip_whitespace();
            if self.bytes.get(self.pos) == Some(&b']') {
                self.pos += 1;
                return Ok(Json::Array(items));
            }
            loop {
                self.skip_whitespace();
                items.push(self.value(depth)?);
                self.skip_whitespace();
                match self.bytes.get(self.pos) {
                    Some(b',') => self.pos += 1,
                    Some(b']') => {
                        self.pos += 1;
                        return Ok(Json::Array(items));
                    }
                    _ => return Err(self.error("expected ',' or ']'")),
                }
            }
        }

        fn object(&mut self, depth: usize) -> Result<Json, ParseError> {
            if depth > MAX_DEPTH {
                return Err(self.error("nesting too deep"));
            }
            self.pos += 1;
            let mut members = Vec::new();
            self.skip_whitespace();
            if self.bytes.get(self.pos) == Some(&b'}') {
                self.pos += 1;
                return Ok(Json::Object(members));
            }
            loop {
                self.skip_whitespace();
                if self.bytes.get(self.pos) != Some(&b'"') {
                    return Err(self.error("expected a string key"));
                }
                let key = self.string()?;
                self.skip_whitespace();
                if self.bytes.get(self.pos) != Some(&b':') {
                    return Err(self.error("expected ':'"));
                }
                self.pos += 1;
                self.skip_whitespace();
                let value = self.value(depth)?;
                members.push((key, value));
                self.skip_whitespace();
                match self.bytes.get(self.pos) {
                    Some(b',') => self.pos += 1,
                    Some(b'}') => {
                        self.pos += 1;
                        return Ok(Json::Object(members));
                    }
                    _ => return Err(self.error("expected ',' or '}'")),
                }
            }
        }

        fn digits(&mut self) -> usize {
            let from = self.pos;
            while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                self.pos += 1;
            }
            self.pos - from
        }

        fn number(&mut self) -> Result<Json, ParseError> {
            let start = self.pos;
            if self.bytes.get(self.pos) == Some(&b'-') {
                self.pos += 1;
            }
            match self.bytes.get(self.pos) {
                Some(b'0') => self.pos += 1,
                Some(b'1'..=b'9') => {
                    self.digits();
                }
                _ => return Err(self.error("invalid number")),
            }
            if self.bytes.get(self.pos) == Some(&b'.') {
                self.pos += 1;
                if self.digits() == 0 {
                    return Err(self.error("invalid number"));
                }
            }
            if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
                self.pos += 1;
                if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                    self.pos += 1;
                }
                if self.digits() == 0 {
                    return Err(self.error("invalid number"));
                }
            }
            self.text[start..self.pos]
                .parse::<f64>()
                .map(Json::Number)
                .map_err(|_| self.error("invalid number"))
        }

        fn string(&mut self) -> Result<JsString, ParseError> {
            self.pos += 1;
            let mut units = Vec::new();
            loop {
                let run_start = self.pos;
                while let Some(&byte) = self.bytes.get(self.pos) {
                    if byte == b'"' || byte == b'\\' || byte < 0x20 {
                        break;
                    }
                    self.pos += 1;
                }
                units.extend(self.text[run_start..self.pos].encode_utf16());
                match self.bytes.get(self.pos) {
                    None => return Err(self.error("unterminated string")),
                    Some(b'"') => {
                        self.pos += 1;
                        return Ok(JsString::from_units(units));
                    }
                    Some(b'\\') => {
                        self.pos += 1;
                        let unit = match self.bytes.get(self.pos) {
                            Some(b'"') => 0x22,
                            Some(b'\\') => 0x5C,
                            Some(b'/') => 0x2F,
                            Some(b'b') => 0x08,
                            Some(b'f') => 0x0C,
                            Some(b'n') => 0x0A,
                            Some(b'r') => 0x0D,
                            Some(b't') => 0x09,
                            Some(b'u') => {
                                let hex = self
                                    .bytes
                                    .get(self.pos + 1..self.pos + 5)
                                    .and_then(|digits| std::str::from_utf8(digits).ok())
                                    .filter(|digits| digits.bytes().all(|b| b.is_ascii_hexdigit()))
                                    .and_then(|digits| u16::from_str_radix(digits, 16).ok())
                                    .ok_or_else(|| self.error("invalid \\u escape"))?;
                                self.pos += 4;
                                hex
                            }
                            _ => return Err(self.error("invalid escape")),
                        };
                        self.pos += 1;
                        units.push(unit);
                    }
                    Some(_) => return Err(self.error("control character in string")),
                }
            }
        }
    }

    /// How [`write`] escapes beyond `JSON.stringify`.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Escapes {
        Stringify,
        NonAscii,
    }

    /// `to_wire` (`Stringify`) or `to_ascii` (`NonAscii`), plainly.
    pub fn write(value: &Json, escapes: Escapes, out: &mut String) {
        match value {
            Json::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write(item, escapes, out);
                }
                out.push(']');
            }
            Json::Object(members) => {
                out.push('{');
                for (index, (key, item)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write_string(key.units(), escapes, out);
                    out.push(':');
                    write(item, escapes, out);
                }
                out.push('}');
            }
            Json::Null => out.push_str("null"),
            Json::Bool(true) => out.push_str("true"),
            Json::Bool(false) => out.push_str("false"),
            Json::Number(number) if number.is_infinite() => {
                out.push_str(if *number > 0.0 { "1e999" } else { "-1e999" })
            }
            Json::Number(number) if *number == 0.0 && number.is_sign_negative() => {
                out.push_str("-0")
            }
            Json::Number(number) if number.is_nan() => out.push_str("null"),
            Json::Number(number) if *number == 0.0 => out.push('0'),
            Json::Number(number) => out.push_str(ryu_js::Buffer::new().format_finite(*number)),
            Json::String(text) => write_string(text.units(), escapes, out),
        }
    }

    pub fn write_string(units: &[u16], escapes: Escapes, out: &mut String) {
        let escape = |unit: u16, out: &mut String| out.push_str(&format!("\\u{unit:04x}"));
        let high = |unit: u16| (0xD800..=0xDBFF).contains(&unit);
        let low = |unit: u16| (0xDC00..=0xDFFF).contains(&unit);
        out.push('"');
        let mut index = 0;
        while index < units.len() {
            let unit = units[index];
            match unit {
                0x22 => out.push_str("\\\""),
                0x5C => out.push_str("\\\\"),
                0x08 => out.push_str("\\b"),
                0x0C => out.push_str("\\f"),
                0x0A => out.push_str("\\n"),
                0x0D => out.push_str("\\r"),
                0x09 => out.push_str("\\t"),
                0..=0x1F => escape(unit, out),
                0x80.. if escapes == Escapes::NonAscii => escape(unit, out),
                _ if high(unit) && units.get(index + 1).copied().is_some_and(low) => {
                    let code = 0x10000
                        + ((u32::from(unit) - 0xD800) << 10)
                        + (u32::from(units[index + 1]) - 0xDC00);
                    out.push(char::from_u32(code).expect("a pair is a scalar value"));
                    index += 1;
                }
                _ if high(unit) || low(unit) => escape(unit, out),
                _ => out.push(char::from_u32(u32::from(unit)).expect("not a surrogate")),
            }
            index += 1;
        }
        out.push('"');
    }

    /// `uri::decode` without the shortcut: base64url, `JSON.parse` of the
    /// literal, and the literal must be the id's `JSON.stringify`.
    pub fn decode(uri: &[u16]) -> Option<JsString> {
        use base64::Engine as _;
        let scheme: Vec<u16> = "dsh-session:".encode_utf16().collect();
        let payload = uri.strip_prefix(&scheme[..])?;
        let alphabet =
            |unit: &u16| matches!(*unit, 0x41..=0x5A | 0x61..=0x7A | 0x30..=0x39 | 0x2D | 0x5F);
        if payload.is_empty() || !payload.iter().all(alphabet) {
            return None;
        }
        let payload: Vec<u8> = payload.iter().map(|unit| *unit as u8).collect();
        let literal = super::URL_SAFE_NO_PAD.decode(payload).ok()?;
        let text = std::str::from_utf8(&literal).ok()?;
        let Json::String(id) = parse(text).ok()? else {
            return None;
        };
        let mut quoted = String::new();
        write_string(id.units(), Escapes::Stringify, &mut quoted);
        (quoted.as_bytes() == literal.as_slice()).then_some(id)
    }
}

/// Same values, numbers compared bit for bit (so `-0` is not `0`).
fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => x.to_bits() == y.to_bits(),
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

/// Code units of every kind the fast paths treat differently: plain ASCII
/// (most), `"` and `\`, controls, U+007F, Latin-1, BMP, surrogates paired or
/// lone.
fn unit() -> impl Strategy<Value = u16> {
    prop_oneof![
        8 => 0x20u16..0x7F,
        1 => prop::sample::select(vec![0x22u16, 0x5C, 0x2F, 0x7F, 0x3C]),
        1 => 0u16..0x20,
        1 => 0x80u16..0x800,
        1 => 0x800u16..0xD800,
        1 => 0xD800u16..0xE000,
        1 => 0xE000u16..=0xFFFF,
    ]
}

fn units(max: usize) -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        vec(unit(), 0..max),
        // Long plain runs with the odd special unit: the bulk paths.
        (vec(0x20u16..0x7F, 0..200), vec(unit(), 0..4)).prop_map(|(mut run, extra)| {
            for (index, unit) in extra.into_iter().enumerate() {
                let at = (index * 37) % (run.len() + 1);
                run.insert(at, unit);
            }
            run
        }),
    ]
}

use proptest::collection::vec;

/// One piece of a JSON string literal's text: raw text, or an escape.
fn literal_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[ -!#-\\[\\]-~]{0,40}",
        1 => any::<char>().prop_filter("raw text", |c| *c >= ' ' && *c != '"' && *c != '\\').prop_map(String::from),
        1 => prop::sample::select(vec!["\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t"]).prop_map(String::from),
        2 => (any::<u16>(), any::<bool>()).prop_map(|(unit, upper)| if upper { format!("\\u{unit:04X}") } else { format!("\\u{unit:04x}") }),
        1 => prop::sample::select(vec!["\\ud83d\\ude00", "\\uD800", "\\udc00x", "\u{1F600}", "é", "\u{2028}"]).prop_map(String::from),
    ]
}

fn literal_text() -> impl Strategy<Value = String> {
    vec(literal_piece(), 0..6).prop_map(|pieces| format!("\"{}\"", pieces.concat()))
}

fn number_text() -> impl Strategy<Value = String> {
    (
        any::<bool>(),
        prop_oneof!["0", "[1-9][0-9]{0,20}"],
        prop::option::of("[0-9]{1,8}"),
        prop::option::of(("[eE]", "[+-]?", "[0-9]{1,3}")),
    )
        .prop_map(|(negative, integer, fraction, exponent)| {
            let mut text = String::new();
            if negative {
                text.push('-');
            }
            text.push_str(&integer);
            if let Some(fraction) = fraction {
                text.push('.');
                text.push_str(&fraction);
            }
            if let Some((e, sign, digits)) = exponent {
                text.push_str(&e);
                text.push_str(&sign);
                text.push_str(&digits);
            }
            text
        })
}

fn value_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        4 => literal_text(),
        3 => number_text(),
        1 => prop::sample::select(vec!["null", "true", "false", " 1 ", "[ ]", "{ }"]).prop_map(String::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(|items| format!("[{}]", items.join(","))),
            vec((literal_text(), inner), 0..6).prop_map(|members| {
                let members: Vec<String> = members
                    .into_iter()
                    .map(|(key, value)| format!("{key}:{value}"))
                    .collect();
                format!("{{ {} }}", members.join(" ,"))
            }),
        ]
    })
}

/// JSON text, valid or corrupted: cut short, or with one character put in.
fn json_text() -> impl Strategy<Value = String> {
    (
        value_text(),
        0u8..4,
        any::<prop::sample::Index>(),
        any::<char>(),
    )
        .prop_map(|(text, how, at, ch)| {
            let boundaries: Vec<usize> = (0..=text.len())
                .filter(|i| text.is_char_boundary(*i))
                .collect();
            let at = boundaries[at.index(boundaries.len())];
            match how {
                0 => text[..at].to_owned(),
                1 => format!("{}{ch}{}", &text[..at], &text[at..]),
                _ => text,
            }
        })
}

/// Arbitrary JSON values whose strings hold arbitrary code units.
fn json_value() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        prop_oneof![
            any::<i32>().prop_map(f64::from),
            (-1e16f64..1e16).prop_map(f64::trunc),
            any::<f64>(),
            Just(-0.0),
            Just(f64::INFINITY),
            Just(1e15),
            Just(999_999_999_999_999.0),
        ]
        .prop_map(Json::Number),
        units(40).prop_map(|units| Json::String(JsString::from_units(units))),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Json::Array),
            vec(
                (units(16).prop_map(|u| JsString::from_slice(&u)), inner),
                0..6
            )
            .prop_map(Json::Object),
        ]
    })
}

fn hash_of(text: &JsString) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn parse_agrees_with_the_plain_parser(text in json_text()) {
        match (json::parse(&text), plain::parse(&text)) {
            (Ok(fast), Ok(slow)) => prop_assert!(same(&fast, &slow), "{text:?}: {fast:?} vs {slow:?}"),
            (fast, slow) => prop_assert_eq!(fast.err(), slow.err(), "{:?}", text),
        }
    }

    #[test]
    fn parse_reads_back_every_written_value(value in json_value()) {
        let mut line = String::new();
        plain::write(&value, plain::Escapes::Stringify, &mut line);
        let fast = json::parse(&line);
        prop_assert!(fast.is_ok(), "{:?}", line);
        let slow = plain::parse(&line).expect("plain parse");
        prop_assert!(same(&fast.expect("parsed"), &slow));
    }

    #[test]
    fn writers_agree_with_the_plain_writer(value in json_value()) {
        let mut wire = String::new();
        plain::write(&value, plain::Escapes::Stringify, &mut wire);
        prop_assert_eq!(json::to_wire(&value), wire.clone());
        let mut pushed = String::from("{\"id\":");
        json::push_wire(&value, &mut pushed);
        prop_assert_eq!(pushed, format!("{{\"id\":{wire}"));
        let mut ascii = String::new();
        plain::write(&value, plain::Escapes::NonAscii, &mut ascii);
        prop_assert_eq!(json::to_ascii(&value), ascii);
    }

    #[test]
    fn quote_agrees_with_the_plain_writer(units in units(300)) {
        let mut quoted = String::new();
        plain::write_string(&units, plain::Escapes::Stringify, &mut quoted);
        prop_assert_eq!(json::quote(&units), quoted.clone());
        let mut pushed = String::new();
        json::push_quoted(&units, false, &mut pushed);
        prop_assert_eq!(pushed, quoted);
    }

    #[test]
    fn inline_and_heap_strings_are_the_same_string(a in units(30), b in units(30), text in ".{0,20}") {
        let inline_a = JsString::from_slice(&a);
        let heap_a = JsString::from_units(a.clone());
        prop_assert_eq!(&inline_a, &heap_a);
        prop_assert_eq!(hash_of(&inline_a), hash_of(&heap_a));
        prop_assert_eq!(inline_a.units(), &a[..]);
        prop_assert_eq!(inline_a.clone().into_units(), a.clone());
        let inline_b = JsString::from_slice(&b);
        prop_assert_eq!(inline_a.cmp(&inline_b), a.cmp(&b));
        prop_assert_eq!(heap_a.cmp(&JsString::from_units(b.clone())), a.cmp(&b));
        prop_assert_eq!(inline_a == inline_b, a == b);
        let from_text = JsString::from(text.as_str());
        prop_assert_eq!(from_text.units(), &text.encode_utf16().collect::<Vec<_>>()[..]);
        prop_assert!(from_text.is(&text));
        prop_assert_eq!(inline_a.is(&text), a == text.encode_utf16().collect::<Vec<_>>());
    }

    #[test]
    fn uri_decode_agrees_with_the_plain_decode(
        id in units(60),
        payload in "[A-Za-z0-9_-]{0,200}",
    ) {
        let encoded: Vec<u16> = uri::encode(&id).encode_utf16().collect();
        prop_assert_eq!(uri::decode(&encoded).ok(), Some(JsString::from_units(id.clone())));
        prop_assert_eq!(uri::decode(&encoded).ok(), plain::decode(&encoded));
        let arbitrary: Vec<u16> = format!("dsh-session:{payload}").encode_utf16().collect();
        prop_assert_eq!(uri::decode(&arbitrary).ok(), plain::decode(&arbitrary));
        // A literal that needs no escape, as a payload.
        let literal = format!("\"{}\"", payload.replace('-', " "));
        let canonical: Vec<u16> = format!("dsh-session:{}", URL_SAFE_NO_PAD.encode(&literal))
            .encode_utf16()
            .collect();
        prop_assert_eq!(uri::decode(&canonical).ok(), plain::decode(&canonical));
    }

    #[test]
    fn taking_the_listing_answers_as_reading_it(
        sessions in vec(
            (
                prop_oneof![units(20).prop_map(|u| Json::String(JsString::from_units(u))), Just(Json::Null), Just(Json::Number(1.0))],
                prop::option::of(prop::sample::select(vec!["/w", "/W", "/o", "/work/project/long/path"])),
                prop::option::of(units(30)),
                prop::option::of(units(10)),
                prop::option::of(0..4usize),
            ),
            0..30,
        ),
        query in units(4),
        remote in any::<bool>(),
        rc8 in any::<bool>(),
    ) {
        let listing = Json::Array(
            sessions
                .into_iter()
                .map(|(id, cwd, title, label, duplicate)| {
                    let mut members = vec![(JsString::from("id"), id)];
                    if let Some(cwd) = cwd {
                        members.push((JsString::from("cwd"), Json::str(cwd)));
                    }
                    members.push((JsString::from("createdAt"), Json::Number(7.0)));
                    if let Some(title) = title {
                        members.push((JsString::from("title"), Json::String(JsString::from_units(title))));
                    }
                    if let Some(label) = label {
                        members.push((JsString::from("subagentLabel"), Json::String(JsString::from_units(label))));
                    }
                    // A later member of a name replaces an earlier one,
                    // a string or not.
                    let duplicates = [
                        ("title", Json::str("Dup")),
                        ("title", Json::Null),
                        ("id", Json::str("again")),
                        ("id", Json::Number(2.0)),
                    ];
                    if let Some(which) = duplicate {
                        let (name, value) = duplicates[which].clone();
                        members.push((JsString::from(name), value));
                    }
                    Json::Object(members)
                })
                .collect(),
        );
        let input = Json::object([
            ("agent", Json::object([("id", Json::str("me")), ("cwd", Json::str("/w"))])),
            ("query", Json::String(JsString::from_units(query))),
            ("sessions", listing),
        ]);
        let op = if remote { "candidates/remote" } else { "candidates/list" };
        let generation = if rc8 { Features::RC8 } else { Features::NEWEST };
        let read = dispatch::handle_in(generation, op, &input);
        let taken = dispatch::handle_taking(generation, op, &mut input.clone());
        prop_assert_eq!(read, taken);
    }
}

#[test]
fn parse_errors_and_numbers_at_the_edges() {
    for text in [
        "-0",
        "0",
        "999999999999999",
        "-999999999999999",
        "9999999999999999",
        "123456789012345678901234567890",
        "1e999",
        "-1e999",
        "0.1",
        "\"\\u00e9\\uD83D\\uDE00\"",
        "\"a\u{1}\"",
        "\"abc",
        "\"ab\\",
        "\"ab\\u12\"",
        "\"ab\\uZZZZ\"",
        "[1,2",
        "{\"a\":1,}",
    ] {
        match (json::parse(text), plain::parse(text)) {
            (Ok(fast), Ok(slow)) => assert!(same(&fast, &slow), "{text:?}"),
            (fast, slow) => assert_eq!(fast.err(), slow.err(), "{text:?}"),
        }
    }
}
