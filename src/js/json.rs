//! Exact JSON for JavaScript strings (spec `json.*` and `wire.*`).
//!
//! `serde_json` refuses lone surrogates and does not keep member order the
//! way JavaScript does, so this module has its own small codec:
//!
//! - [`parse`] reads JSON text (`JSON.parse` grammar) into a [`Json`] tree
//!   that keeps every member, in written order, and JavaScript strings.
//! - [`stringify()`] is `JSON.stringify` of the value that `JSON.parse` would
//!   have built: JavaScript's object model (duplicate keys collapse, canonical
//!   array-index keys first) and ECMAScript number formatting.
//! - [`to_wire`] writes a tree exactly as it is (written order, duplicates
//!   kept), for protocol messages; [`to_pretty`] does the same over several
//!   lines with invisible code points escaped, for vector files.

use super::{is_high_surrogate, is_low_surrogate, push_slot, JsString};
use crate::reach;
use std::collections::HashMap;
use std::fmt;

/// Deepest nesting [`parse`] accepts, arrays and objects counted from the
/// outermost (spec `wire.json.depth`): beyond every op's contracted depth
/// (1 500). Deeper input is an error, never a stack overflow: every walk
/// of a tree recurses at most this deep, which the adapter's thread has
/// the stack for ([`STACK_BYTES`]).
pub const MAX_DEPTH: usize = 10_000;

/// The stack a thread needs to read, walk and write a tree [`MAX_DEPTH`]
/// deep, with room to spare, unoptimized builds included: the command
/// line runs on a thread this large, and the tests' threads get it too
/// (`RUST_MIN_STACK` in `.cargo/config.toml`).
pub const STACK_BYTES: usize = 256 << 20;

/// The message of the error that input nests deeper than [`MAX_DEPTH`].
const TOO_DEEP: &str = "nesting too deep";

/// A JSON value whose strings are JavaScript strings and whose objects keep
/// their members in written order, duplicates included.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number, as JavaScript holds it (an IEEE 754 double).
    Number(f64),
    /// A string of UTF-16 code units.
    String(JsString),
    /// An array.
    Array(Vec<Json>),
    /// An object's members in written order.
    Object(Vec<(JsString, Json)>),
}

impl Json {
    /// Whether any string or member name in the value holds a lone
    /// surrogate (spec `protocol.capabilities`).
    pub fn has_lone_surrogate(&self) -> bool {
        match self {
            Json::String(text) => super::first_lone_surrogate(text.units()).is_some(),
            Json::Array(items) => items.iter().any(Json::has_lone_surrogate),
            Json::Object(members) => members.iter().any(|(key, value)| {
                super::first_lone_surrogate(key.units()).is_some() || value.has_lone_surrogate()
            }),
            Json::Null | Json::Bool(_) | Json::Number(_) => false,
        }
    }

    /// A string value from Rust text.
    pub fn str(text: &str) -> Self {
        Json::String(JsString::from(text))
    }

    /// The member `key` as `JSON.parse` resolves it: the last one written.
    pub fn get(&self, key: &str) -> Option<&Json> {
        let Json::Object(members) = self else {
            return None;
        };
        members
            .iter()
            .rev()
            .find(|(name, _)| name.is(key))
            .map(|(_, value)| value)
    }

    /// The string's code units, if this is a string.
    pub fn as_js_str(&self) -> Option<&JsString> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    /// The string as Rust text, if this is a string without lone surrogates.
    pub fn as_string(&self) -> Option<String> {
        self.as_js_str().and_then(JsString::to_str)
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Json]> {
        match self {
            Json::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&[(JsString, Json)]> {
        match self {
            Json::Object(members) => Some(members),
            _ => None,
        }
    }

    /// An object from `(key, value)` pairs, in the given order.
    pub fn object<const N: usize>(members: [(&str, Json); N]) -> Self {
        Json::Object(
            members
                .into_iter()
                .map(|(key, value)| (JsString::from(key), value))
                .collect(),
        )
    }
}

/// Where and why JSON text could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was wrong.
    pub message: &'static str,
}

impl ParseError {
    /// Whether the input was well formed as far as read, but nested deeper
    /// than [`MAX_DEPTH`].
    pub fn is_too_deep(&self) -> bool {
        self.message == TOO_DEEP
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON text (RFC 8259, as `JSON.parse` reads it: whitespace is
/// only space, tab, LF and CR; `\u` escapes may produce lone surrogates).
///
/// Built for protocol messages of megabytes: string content is found a run
/// at a time (`memchr` for `"` and `\`), ASCII runs are widened to code
/// units in bulk and only non-ASCII runs are decoded; short integers are
/// read without float parsing; the members and items of a container are
/// gathered on shared stacks and moved into one exactly sized vector each.
pub fn parse(text: &str) -> Result<Json, ParseError> {
    let mut parser = Parser {
        input: Input {
            bytes: text.as_bytes(),
            text,
            pos: 0,
        },
        items: Vec::new(),
        members: Vec::new(),
    };
    parser.input.skip_whitespace();
    let value = parser.value(0)?;
    parser.input.skip_whitespace();
    if parser.input.pos != parser.input.bytes.len() {
        return Err(parser.input.error("unexpected trailing characters"));
    }
    Ok(value)
}

/// The items of one array of a JSON text, read one at a time (issue #61):
/// a reader that uses each item and lets it go holds one item, not the
/// array. Each item is read as [`parse`] reads it, its depth counted from
/// the text's outermost value (spec `wire.json.depth`).
pub struct ArrayItems<'a> {
    parser: Parser<'a>,
    /// The array's depth, itself counted.
    depth: usize,
    /// Whether the array's `]` has been read.
    done: bool,
}

impl<'a> ArrayItems<'a> {
    /// The items of the array whose `[` is at byte `at` of `text`, nested
    /// `depth` containers deep (itself counted: the items of a root array
    /// are 1 deep).
    pub fn new(text: &'a str, at: usize, depth: usize) -> Result<ArrayItems<'a>, ParseError> {
        let mut parser = Parser {
            input: Input {
                bytes: text.as_bytes(),
                text,
                pos: at,
            },
            items: Vec::new(),
            members: Vec::new(),
        };
        if parser.input.peek() != Some(b'[') {
            return Err(parser.input.error("expected '['"));
        }
        let done = parser.input.open_is_empty(depth, b']')?;
        Ok(ArrayItems {
            parser,
            depth,
            done,
        })
    }

    /// The next item, or `None` once the array's `]` is read.
    pub fn next_item(&mut self) -> Result<Option<Json>, ParseError> {
        if self.done {
            return Ok(None);
        }
        self.parser.input.skip_whitespace();
        let item = self.parser.value(self.depth)?;
        self.done = self.parser.input.entry_ends(b']', "expected ',' or ']'")?;
        Ok(Some(item))
    }

    /// The byte after the array's `]`, once read.
    pub fn end(&self) -> Option<usize> {
        self.done.then_some(self.parser.input.pos)
    }
}

/// The parser: the text being read, and the stacks its containers gather
/// their members and items on.
///
/// Leaf values (strings, numbers, literals) are written straight into the
/// stack slot of the item or member they belong to, rather than returned
/// through a `Result` and moved: moving a just-built 32-byte value out of a
/// callee's return slot stalled on store forwarding, and those stalls were a
/// third of the time of reading a large candidate list. That is why the
/// reading of the text ([`Input`]) is apart from the stacks: a slot of a
/// stack can be borrowed while the text is read.
struct Parser<'a> {
    input: Input<'a>,
    /// Items of the arrays being read, innermost last.
    items: Vec<Json>,
    /// Members of the objects being read, innermost last.
    members: Vec<(JsString, Json)>,
}

/// The value a stack slot holds until a leaf is read into it: a string, so
/// that every byte of the slot is written, with whole-width stores (a
/// placeholder of one byte, such as `null`, made the slot's next read stall).
const VACANT: Json = Json::String(JsString::EMPTY);

/// A member slot before its key and value are read into it.
const VACANT_MEMBER: (JsString, Json) = (JsString::EMPTY, VACANT);

/// The JSON text and the read position in it.
struct Input<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

/// The entries of `stack` above `base`, moved into a vector of their exact
/// length with one block copy (draining them one by one was a tenth of the
/// time of reading a large message). At the bottom of the stack the stack
/// itself is taken and trimmed, so no container keeps the stack's spare
/// capacity.
fn take_above<T>(stack: &mut Vec<T>, base: usize) -> Vec<T> {
    if base == 0 {
        let mut taken = std::mem::take(stack);
        taken.shrink_to_fit();
        taken
    } else {
        stack.split_off(base)
    }
}

/// The value of one hexadecimal digit.
fn hex_digit(byte: u8) -> Option<u16> {
    match byte {
        b'0'..=b'9' => Some(u16::from(byte - b'0')),
        b'a'..=b'f' => Some(u16::from(byte - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(byte - b'A' + 10)),
        _ => None,
    }
}

/// True when `bytes` holds a control character (below U+0020), which a JSON
/// string may not contain raw. Tested 16 bytes at a time without branches,
/// which the compiler vectorizes.
fn has_control(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(16);
    let found = chunks.any(|chunk| chunk.iter().fold(false, |any, &b| any | (b < 0x20)));
    found || chunks.remainder().iter().any(|&b| b < 0x20)
}

/// True for a printable ASCII byte (U+0020..U+007F): one a string may hold
/// raw and that stands for one code unit.
fn is_printable(byte: u8) -> bool {
    byte.wrapping_sub(0x20) < 0x60
}

/// Bytes [`first_stop`] looks at.
pub(super) const WINDOW: usize = 32;

/// The index of the first byte of `window` that ends a plain run (`"`,
/// `\\`, or a byte that is not printable ASCII), found eight bytes at a
/// time in a machine word. Each test below sets the high bit of a byte that
/// matches; a match can set stray bits in the bytes after it (a borrow
/// runs upward), never before it, so the lowest bit set is exact.
pub(super) fn first_stop(window: &[u8; WINDOW]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    (0..WINDOW / 8).find_map(|index| {
        let word = u64::from_le_bytes(std::array::from_fn(|byte| window[index * 8 + byte]));
        let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x;
        let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
        let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
        let control = word.wrapping_sub(ONES * 0x20) & !word;
        let stops = (quote | backslash | control | word) & HIGH;
        (stops != 0).then(|| index * 8 + stops.trailing_zeros() as usize / 8)
    })
}

/// True when every byte of `bytes` is printable ASCII, tested 16 bytes at a
/// time without branches.
fn is_printable_ascii(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(16);
    chunks.all(|chunk| chunk.iter().fold(true, |all, &b| all & is_printable(b)))
        && chunks.remainder().iter().all(|&b| is_printable(b))
}

impl Parser<'_> {
    /// Reads the value at the read position (the root, or a container
    /// nested in a container).
    fn value(&mut self, depth: usize) -> Result<Json, ParseError> {
        match self.input.peek() {
            Some(b'[') => self.array(depth + 1).map(Json::Array),
            Some(b'{') => self.object(depth + 1).map(Json::Object),
            _ => {
                let mut leaf = VACANT;
                self.input.leaf_into(&mut leaf)?;
                Ok(leaf)
            }
        }
    }

    /// Reads the array at the read position, its items gathered on the
    /// item stack.
    fn array(&mut self, depth: usize) -> Result<Vec<Json>, ParseError> {
        if self.input.open_is_empty(depth, b']')? {
            return Ok(Vec::new());
        }
        let base = self.items.len();
        loop {
            self.input.skip_whitespace();
            match self.input.peek() {
                Some(b'[' | b'{') => {
                    let item = self.value(depth)?;
                    self.items.push(item);
                }
                _ => self.input.leaf_into(push_slot(&mut self.items, VACANT))?,
            }
            if self.input.entry_ends(b']', "expected ',' or ']'")? {
                return Ok(take_above(&mut self.items, base));
            }
        }
    }

    /// Reads the object at the read position, its members gathered on the
    /// member stack.
    fn object(&mut self, depth: usize) -> Result<Vec<(JsString, Json)>, ParseError> {
        if self.input.open_is_empty(depth, b'}')? {
            return Ok(Vec::new());
        }
        let base = self.members.len();
        loop {
            self.input.skip_whitespace();
            if self.input.peek() != Some(b'"') {
                return Err(self.input.error("expected a string key"));
            }
            let (key, value) = push_slot(&mut self.members, VACANT_MEMBER);
            self.input.string_into(key)?;
            self.input.skip_whitespace();
            if self.input.peek() != Some(b':') {
                return Err(self.input.error("expected ':'"));
            }
            self.input.pos += 1;
            self.input.skip_whitespace();
            match self.input.peek() {
                Some(b'[' | b'{') => {
                    let nested = self.value(depth)?;
                    if let Some((_, value)) = self.members.last_mut() {
                        *value = nested;
                    }
                }
                _ => self.input.leaf_into(value)?,
            }
            if self.input.entry_ends(b'}', "expected ',' or '}'")? {
                return Ok(take_above(&mut self.members, base));
            }
        }
    }
}

impl Input<'_> {
    fn error(&self, message: &'static str) -> ParseError {
        ParseError {
            offset: self.pos,
            message,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// Steps over the bracket that opens a container `depth` deep (an error
    /// past [`MAX_DEPTH`]); true when `close` follows at once, stepped over
    /// too: the container is empty.
    fn open_is_empty(&mut self, depth: usize, close: u8) -> Result<bool, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error(TOO_DEEP));
        }
        self.pos += 1;
        self.skip_whitespace();
        let empty = self.peek() == Some(close);
        if empty {
            self.pos += 1;
        }
        Ok(empty)
    }

    /// After a container's entry: steps over the `,` before the next one
    /// (false) or the `close` that ends the container (true); anything else
    /// is the error `expected`.
    fn entry_ends(&mut self, close: u8, expected: &'static str) -> Result<bool, ParseError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(byte) if byte == close => {
                self.pos += 1;
                Ok(true)
            }
            _ => Err(self.error(expected)),
        }
    }

    /// Reads the leaf value (string, number or literal) at the read position
    /// into `slot`; any other byte is an error. A string is read into the
    /// slot's own string when it holds one, as a [`VACANT`] slot does.
    fn leaf_into(&mut self, slot: &mut Json) -> Result<(), ParseError> {
        match (self.peek(), slot) {
            (None, _) => Err(self.error("unexpected end of JSON input")),
            (Some(b'"'), Json::String(text)) => self.string_into(text),
            (Some(b'"'), slot) => {
                let mut text = JsString::EMPTY;
                self.string_into(&mut text)?;
                *slot = Json::String(text);
                Ok(())
            }
            (Some(b'-' | b'0'..=b'9'), slot) => {
                *slot = Json::Number(self.number()?);
                Ok(())
            }
            (Some(b'n'), slot) => self.literal(b"null", Json::Null, slot),
            (Some(b't'), slot) => self.literal(b"true", Json::Bool(true), slot),
            (Some(b'f'), slot) => self.literal(b"false", Json::Bool(false), slot),
            (Some(_), _) => Err(self.error("unexpected character")),
        }
    }

    fn literal(&mut self, literal: &[u8], value: Json, slot: &mut Json) -> Result<(), ParseError> {
        if self.bytes[self.pos..].starts_with(literal) {
            self.pos += literal.len();
            *slot = value;
            Ok(())
        } else {
            Err(self.error("invalid literal"))
        }
    }

    /// Skips ASCII digits; returns how many.
    fn digits(&mut self) -> usize {
        let from = self.pos;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.pos - from
    }

    fn number(&mut self) -> Result<f64, ParseError> {
        let start = self.pos;
        let negative = self.bytes.get(self.pos) == Some(&b'-');
        if negative {
            self.pos += 1;
        }
        let integer_start = self.pos;
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("invalid number")),
        }
        let integer_end = self.pos;
        let mut integral = true;
        if self.bytes.get(self.pos) == Some(&b'.') {
            integral = false;
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            integral = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        // Up to 15 digits the integer is below 2^53, so exact as a double.
        if integral && integer_end - integer_start <= 15 {
            let magnitude = self.bytes[integer_start..integer_end]
                .iter()
                .fold(0u64, |value, digit| value * 10 + u64::from(digit - b'0'));
            let value = magnitude as f64;
            return Ok(if negative { -value } else { value });
        }
        // Rust's float parsing is correctly rounded, as ECMAScript requires.
        self.text[start..self.pos]
            .parse::<f64>()
            .map_err(|_| self.error("invalid number"))
    }

    /// Reads the string at the read position into `slot`.
    fn string_into(&mut self, slot: &mut JsString) -> Result<(), ParseError> {
        self.pos += 1;
        let rest = &self.bytes[self.pos..];
        // Keys, ids and most short values end within a few words: looking
        // at the next 32 bytes a word at a time finds their closing quote
        // without the set-up cost of a vector scan, and a byte at a time
        // was a fifth of the time of reading a candidate list.
        if let Some(window) = rest.first_chunk::<WINDOW>() {
            if let Some(end) = first_stop(window).filter(|&end| window[end] == b'"') {
                self.pos += end + 1;
                slot.assign_latin1(&window[..end]);
                return Ok(());
            }
        }
        // Longer strings are mostly printable ASCII without escapes too: one
        // scan finds the closing quote, one checks the run, one widens it.
        if let Some(end) = memchr::memchr2(b'"', b'\\', rest) {
            let run = &rest[..end];
            if rest[end] == b'"' && is_printable_ascii(run) {
                self.pos += end + 1;
                slot.assign_latin1(run);
                return Ok(());
            }
        }
        let mut units: Vec<u16> = Vec::new();
        loop {
            let start = self.pos;
            let rest = &self.bytes[start..];
            let run_len = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
            let run = &rest[..run_len];
            if has_control(run) {
                self.pos += run.iter().position(|&b| b < 0x20).unwrap_or(0);
                return Err(self.error("control character in string"));
            }
            if units.capacity() == 0 {
                // Most strings are one run: one allocation of the right size
                // (a run's UTF-16 length is at most its UTF-8 length).
                units.reserve_exact(run_len);
            }
            let ascii = run.iter().position(|b| !b.is_ascii()).unwrap_or(run_len);
            units.extend(run[..ascii].iter().map(|&b| u16::from(b)));
            if ascii < run_len {
                // `"` and `\` are ASCII, so the run ends on a character
                // boundary; so does its ASCII prefix.
                units.extend(self.text[start + ascii..start + run_len].encode_utf16());
            }
            self.pos += run_len;
            match self.bytes.get(self.pos) {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    *slot = JsString::from_units(units);
                    return Ok(());
                }
                _ => {
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
                                .and_then(|digits| {
                                    digits.iter().try_fold(0u16, |value, &digit| {
                                        Some(value << 4 | hex_digit(digit)?)
                                    })
                                })
                                .ok_or_else(|| self.error("invalid \\u escape"))?;
                            self.pos += 4;
                            hex
                        }
                        _ => return Err(self.error("invalid escape")),
                    };
                    self.pos += 1;
                    units.push(unit);
                }
            }
        }
    }
}

/// `JSON.stringify(JSON.parse(text))` for the text `value` was parsed from:
/// JavaScript's object model (spec `json.stringify.*`).
pub fn stringify(value: &Json) -> String {
    reach::point("json.stringify.compact");
    reach::point("json.stringify.strings");
    Writer {
        js_object_model: true,
        escapes: Escapes::Stringify,
    }
    .compact_text(value)
}

/// `JSON.stringify(value, null, 2)`: containers one member a line, two
/// spaces an indent level, empty ones as `[]` and `{}`.
pub fn stringify_indented(value: &Json) -> String {
    reach::point("json.stringify.strings");
    let mut out = String::new();
    Writer {
        js_object_model: true,
        escapes: Escapes::Stringify,
    }
    .pretty(value, usize::MAX, 0, &mut out);
    out
}

/// The value written exactly as it is: members in written order with
/// duplicates, strings escaped as `JSON.stringify` escapes them. One line.
pub fn to_wire(value: &Json) -> String {
    Writer {
        js_object_model: false,
        escapes: Escapes::Stringify,
    }
    .compact_text(value)
}

/// Appends [`to_wire`]'s text of `value` to `out`: for a protocol message
/// that wraps a value without copying it into a new tree. The value is
/// written as bytes and `out` checked as UTF-8 once, so this is meant for
/// one large value a line, not many small ones.
pub fn push_wire(value: &Json, out: &mut String) {
    let mut bytes = std::mem::take(out).into_bytes();
    Writer {
        js_object_model: false,
        escapes: Escapes::Stringify,
    }
    .compact(value, &mut bytes);
    *out = into_text(bytes);
}

/// The value written exactly as it is, containers down to `expand_depth`
/// one member a line, deeper values compact; invisible code points escaped
/// so that a reader sees them. For vector files.
pub fn to_pretty(value: &Json, expand_depth: usize) -> String {
    let mut out = String::new();
    Writer {
        js_object_model: false,
        escapes: Escapes::Invisible,
    }
    .pretty(value, expand_depth, 0, &mut out);
    out.push('\n');
    out
}

/// A JavaScript string shows as [`quote_visible`] writes it. (Here, not
/// beside the type: `js` holds strings, and JSON is built on them, not the
/// other way round.)
impl fmt::Debug for JsString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&quote_visible(self.units()))
    }
}

/// A JSON string literal with invisible and ambiguous code points written
/// as `\u` escapes: how reports and `Debug` show JavaScript strings.
pub fn quote_visible(units: &[u16]) -> String {
    let mut out = String::new();
    write_string(units, Escapes::Invisible, &mut out);
    out
}

/// A JSON string literal with every non-ASCII code unit written as a `\u`
/// escape (surrogate pairs as two): how the conformance runner shows a
/// string whose code units matter.
pub fn quote_ascii(units: &[u16]) -> String {
    let mut out = String::new();
    write_string(units, Escapes::NonAscii, &mut out);
    out
}

/// The value on one line, members as written, every non-ASCII code unit
/// escaped ([`quote_ascii`]): how the conformance runner shows values.
pub fn to_ascii(value: &Json) -> String {
    Writer {
        js_object_model: false,
        escapes: Escapes::NonAscii,
    }
    .compact_text(value)
}

/// The JSON string literal of `units` as `JSON.stringify` writes it
/// (spec `uri.encode.json-literal`).
pub fn quote(units: &[u16]) -> String {
    let mut out = String::new();
    write_string(units, Escapes::Stringify, &mut out);
    out
}

/// Appends the JSON string literal of `units` to `out`; with `tag_safe`,
/// every `<` is written as `\u003c` (spec `json.tag-safe.less-than`). The
/// same text as [`quote`] followed by the tag-safe replacement, in one pass.
pub fn push_quoted(units: &[u16], tag_safe: bool, out: &mut String) {
    if !tag_safe {
        return write_string(units, Escapes::Stringify, out);
    }
    let start = out.len();
    write_string(units, Escapes::Stringify, out);
    if out[start..].contains('<') {
        reach::point("json.tag-safe.less-than");
        let replaced = out[start..].replace('<', "\\u003c");
        out.truncate(start);
        out.push_str(&replaced);
    }
}

/// UTF-8 length of the JSON string literal of `units`, quotes included, as
/// [`push_quoted`] would write it, without writing it.
pub fn quoted_len(units: &[u16], tag_safe: bool) -> usize {
    measure(units, tag_safe).quoted
}

/// Lengths of one string, measured in a single pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measure {
    /// UTF-8 bytes of its JSON string literal, quotes included.
    pub quoted: usize,
    /// UTF-8 bytes of the string itself, a lone surrogate counting 3
    /// (`Buffer.byteLength`).
    pub utf8: usize,
}

/// Measures the JSON literal and the UTF-8 of `units` in one pass. Runs of
/// printable ASCII that needs no escape are counted 16 units at a time with
/// a branch-free test the compiler vectorizes: snapshot text is mostly that.
pub fn measure(units: &[u16], tag_safe: bool) -> Measure {
    const CHUNK: usize = 16;
    let plain = |unit: u16| {
        (0x20..0x7F).contains(&unit) && unit != 0x22 && unit != 0x5C && (!tag_safe || unit != 0x3C)
    };
    let mut quoted = 2;
    let mut utf8 = 0;
    let mut index = 0;
    while index < units.len() {
        if let Some(chunk) = units.get(index..index + CHUNK) {
            if chunk.iter().fold(true, |all, &unit| all & plain(unit)) {
                quoted += CHUNK;
                utf8 += CHUNK;
                index += CHUNK;
                continue;
            }
        }
        let unit = units[index];
        let (literal, bytes) = match unit {
            0x22 | 0x5C | 0x08 | 0x0C | 0x0A | 0x0D | 0x09 => (2, 1),
            0..=0x1F => (6, 1),
            0x3C if tag_safe => (6, 1),
            0x20..=0x7F => (1, 1),
            0x80..=0x7FF => (2, 2),
            _ if is_high_surrogate(unit)
                && units.get(index + 1).copied().is_some_and(is_low_surrogate) =>
            {
                index += 1;
                (4, 4)
            }
            _ if is_high_surrogate(unit) || is_low_surrogate(unit) => (6, 3),
            _ => (3, 3),
        };
        quoted += literal;
        utf8 += bytes;
        index += 1;
    }
    Measure { quoted, utf8 }
}

struct Writer {
    js_object_model: bool,
    escapes: Escapes,
}

/// Which code points a writer spells as `\u` escapes beyond what
/// `JSON.stringify` escapes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// Exactly `JSON.stringify`'s escapes.
    Stringify,
    /// Also the code points a reader could not see or tell apart.
    Invisible,
    /// Also every non-ASCII code unit: a one-line, ASCII-only report.
    NonAscii,
}

/// Where a writer puts its text: a `String`, or bytes that become one at the
/// end. The bytes are the fast path: runs of ASCII code units are narrowed
/// straight into them, where a `String` needs each run checked as UTF-8.
trait Sink {
    fn push_str(&mut self, text: &str);
    fn push_char(&mut self, ch: char);
    /// Appends bytes that are all ASCII.
    fn push_ascii(&mut self, bytes: &[u8]);
    /// Appends code units that are all [`is_plain`] (so ASCII).
    fn push_plain(&mut self, run: &[u16]);
}

impl Sink for Vec<u8> {
    fn push_str(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }

    fn push_char(&mut self, ch: char) {
        let mut buffer = [0u8; 4];
        self.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
    }

    fn push_ascii(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }

    fn push_plain(&mut self, run: &[u16]) {
        self.extend(run.iter().map(|unit| *unit as u8));
    }
}

impl Sink for String {
    fn push_str(&mut self, text: &str) {
        String::push_str(self, text);
    }

    fn push_char(&mut self, ch: char) {
        self.push(ch);
    }

    fn push_ascii(&mut self, bytes: &[u8]) {
        // ASCII is always valid UTF-8.
        String::push_str(self, std::str::from_utf8(bytes).unwrap_or_default());
    }

    fn push_plain(&mut self, run: &[u16]) {
        let mut buffer = [0u8; 64];
        for chunk in run.chunks(buffer.len()) {
            for (byte, unit) in buffer.iter_mut().zip(chunk) {
                *byte = *unit as u8;
            }
            self.push_ascii(&buffer[..chunk.len()]);
        }
    }
}

/// The text a writer wrote as bytes. Writers only ever write UTF-8, so the
/// lossy branch is never taken; it keeps this free of panics.
fn into_text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

impl Writer {
    /// [`Writer::compact`] into a new string, written as bytes.
    fn compact_text(&self, value: &Json) -> String {
        let mut out = Vec::new();
        self.compact(value, &mut out);
        into_text(out)
    }

    fn compact_members<'a, S: Sink>(
        &self,
        members: impl IntoIterator<Item = (&'a JsString, &'a Json)>,
        out: &mut S,
    ) {
        out.push_ascii(b"{");
        for (index, (key, item)) in members.into_iter().enumerate() {
            if index > 0 {
                out.push_ascii(b",");
            }
            write_string(key.units(), self.escapes, out);
            out.push_ascii(b":");
            self.compact(item, out);
        }
        out.push_ascii(b"}");
    }

    fn compact<S: Sink>(&self, value: &Json, out: &mut S) {
        match value {
            Json::Array(items) => {
                out.push_ascii(b"[");
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push_ascii(b",");
                    }
                    self.compact(item, out);
                }
                out.push_ascii(b"]");
            }
            Json::Object(members) if self.js_object_model => {
                self.compact_members(js_object_members(members), out)
            }
            Json::Object(members) => {
                self.compact_members(members.iter().map(|(key, item)| (key, item)), out)
            }
            Json::Null => out.push_ascii(b"null"),
            Json::Bool(true) => out.push_ascii(b"true"),
            Json::Bool(false) => out.push_ascii(b"false"),
            Json::Number(number) if self.js_object_model => {
                reach::point("json.stringify.numbers");
                write_number(*number, out)
            }
            Json::Number(number) => write_number_exact(*number, out),
            Json::String(text) => write_string(text.units(), self.escapes, out),
        }
    }

    fn pretty(&self, value: &Json, expand_depth: usize, level: usize, out: &mut String) {
        let indent = |level: usize, out: &mut String| {
            out.push('\n');
            out.push_str(&"  ".repeat(level));
        };
        match value {
            Json::Array(items) if expand_depth > 0 && !items.is_empty() => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    indent(level + 1, out);
                    self.pretty(item, expand_depth - 1, level + 1, out);
                }
                indent(level, out);
                out.push(']');
            }
            Json::Object(members) if expand_depth > 0 && !members.is_empty() => {
                out.push('{');
                for (index, (key, item)) in members.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    indent(level + 1, out);
                    write_string(key.units(), self.escapes, out);
                    out.push_str(": ");
                    self.pretty(item, expand_depth - 1, level + 1, out);
                }
                indent(level, out);
                out.push('}');
            }
            other => self.compact(other, out),
        }
    }
}

/// Whether every object of `value` is as `JSON.parse` builds it: no key
/// repeated, no canonical array index after another key or out of
/// ascending order (spec `json.stringify.member-order`). Walked without
/// recursion: a request nests up to [`MAX_DEPTH`].
pub fn is_js_object_model(value: &Json) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Json::Array(items) => pending.extend(items),
            Json::Object(members) => {
                if !members_in_js_order(members) {
                    return false;
                }
                pending.extend(members.iter().map(|(_, value)| value));
            }
            _ => {}
        }
    }
    true
}

fn members_in_js_order(members: &[(JsString, Json)]) -> bool {
    let mut last_index: Option<u32> = None;
    let mut names_started = false;
    for (key, _) in members {
        match array_index(key.units()) {
            Some(index) if names_started || last_index.is_some_and(|last| last >= index) => {
                return false
            }
            Some(index) => last_index = Some(index),
            None => names_started = true,
        }
    }
    if members.len() <= 16 {
        return members
            .iter()
            .enumerate()
            .all(|(at, (key, _))| members[..at].iter().all(|(other, _)| other != key));
    }
    let mut seen = std::collections::HashSet::with_capacity(members.len());
    members.iter().all(|(key, _)| seen.insert(key))
}

/// `value` with every object as `JSON.parse` builds it
/// (see `js_object_members`): what any JavaScript implementation holds after
/// reading the request, so copied values keep upstream's member order.
/// Rebuilds every object: callers ask [`is_js_object_model`] first.
pub fn into_js_object_model(value: Json) -> Json {
    match value {
        Json::Array(items) => Json::Array(items.into_iter().map(into_js_object_model).collect()),
        Json::Object(members) => {
            reach::point("json.stringify.member-order");
            let mut position: HashMap<JsString, usize> = HashMap::with_capacity(members.len());
            let mut unique: Vec<(JsString, Json)> = Vec::with_capacity(members.len());
            for (key, value) in members {
                let value = into_js_object_model(value);
                match position.get(&key) {
                    Some(&at) => unique[at].1 = value,
                    None => {
                        position.insert(key.clone(), unique.len());
                        unique.push((key, value));
                    }
                }
            }
            let (mut indices, names): (Vec<_>, Vec<_>) = unique
                .into_iter()
                .partition(|(key, _)| array_index(key.units()).is_some());
            indices.sort_by_key(|(key, _)| array_index(key.units()));
            indices.extend(names);
            Json::Object(indices)
        }
        other => other,
    }
}

/// The members of the object `JSON.parse` builds from `members`: a repeated
/// key keeps its first position and its last value; keys that are canonical
/// array indices come first in ascending numeric order (spec
/// `json.stringify.member-order`).
fn js_object_members(members: &[(JsString, Json)]) -> Vec<(&JsString, &Json)> {
    reach::point("json.stringify.member-order");
    let mut position: HashMap<&JsString, usize> = HashMap::with_capacity(members.len());
    let mut unique: Vec<(&JsString, &Json)> = Vec::with_capacity(members.len());
    for (key, value) in members {
        match position.get(key) {
            Some(&index) => unique[index].1 = value,
            None => {
                position.insert(key, unique.len());
                unique.push((key, value));
            }
        }
    }
    let mut indices: Vec<(u32, (&JsString, &Json))> = Vec::new();
    let mut names = Vec::with_capacity(unique.len());
    for member in unique {
        match array_index(member.0.units()) {
            Some(index) => indices.push((index, member)),
            None => names.push(member),
        }
    }
    indices.sort_by_key(|(index, _)| *index);
    indices
        .into_iter()
        .map(|(_, member)| member)
        .chain(names)
        .collect()
}

/// The numeric value of a canonical array index key: decimal digits without
/// a leading zero (except `"0"` itself), at most 2^32 − 2.
pub fn array_index(key: &[u16]) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key[0] == u16::from(b'0')) {
        return None;
    }
    let mut value: u64 = 0;
    for &unit in key {
        let digit = unit.checked_sub(u16::from(b'0')).filter(|d| *d <= 9)?;
        value = value * 10 + u64::from(digit);
    }
    u32::try_from(value).ok().filter(|v| *v != u32::MAX)
}

/// ECMAScript `Number::toString`, and `null` for non-finite values as
/// `JSON.stringify` writes them (spec `json.stringify.numbers`).
fn write_number<S: Sink>(number: f64, out: &mut S) {
    if !number.is_finite() {
        out.push_ascii(b"null");
    } else if number == 0.0 {
        out.push_ascii(b"0");
    } else if number.fract() == 0.0 && number.abs() < 1e15 {
        // `Number::toString` writes an integer below 10^21 as its digits;
        // below 10^15 it converts to `i64` exactly.
        push_integer(number as i64, out);
    } else {
        out.push_str(ryu_js::Buffer::new().format_finite(number));
    }
}

/// The decimal digits of `value`, with `-` when negative.
fn push_integer<S: Sink>(value: i64, out: &mut S) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = value.unsigned_abs();
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if value < 0 {
        out.push_ascii(b"-");
    }
    out.push_ascii(&digits[start..]);
}

/// A number spelled so that reading it back gives the same double: `-0`
/// keeps its sign and infinities (from literals too large for a double) are
/// written as literals that overflow again. For [`to_wire`] and
/// [`to_pretty`], which must not change what a peer's `JSON.parse` builds.
fn write_number_exact<S: Sink>(number: f64, out: &mut S) {
    if number.is_infinite() {
        out.push_ascii(if number > 0.0 { b"1e999" } else { b"-1e999" });
    } else if number == 0.0 && number.is_sign_negative() {
        out.push_ascii(b"-0");
    } else {
        write_number(number, out);
    }
}

/// Code points that a reader of a vector file or a report could not see or
/// tell apart, written as escapes when `escape_invisible` is set.
fn is_invisible(unit: u16) -> bool {
    matches!(
        unit,
        0x007F..=0x00A0
            | 0x00AD
            | 0x034F
            | 0x061C
            | 0x115F
            | 0x1160
            | 0x1680
            | 0x180E
            | 0x2000..=0x200F
            | 0x2028..=0x202F
            | 0x205F..=0x206F
            | 0x3000
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0xFFF0..=0xFFFF
    )
}

fn push_unicode_escape<S: Sink>(unit: u16, out: &mut S) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let nibble = |shift: u16| HEX[usize::from(unit >> shift & 0xF)];
    out.push_ascii(&[b'\\', b'u', nibble(12), nibble(8), nibble(4), nibble(0)]);
}

/// A code unit every writer spells as itself, one ASCII byte: printable
/// ASCII but `"` and `\` (U+007F is escaped for readers, so not here).
fn is_plain(unit: u16) -> bool {
    (0x20..0x7F).contains(&unit) && unit != 0x22 && unit != 0x5C
}

/// How many code units at the start of `units` are [`is_plain`]: tested 16
/// at a time with a branch-free fold the compiler vectorizes, then one by
/// one.
fn plain_run(units: &[u16]) -> usize {
    const CHUNK: usize = 16;
    let mut length = 0;
    for chunk in units.chunks_exact(CHUNK) {
        if !chunk.iter().fold(true, |all, &unit| all & is_plain(unit)) {
            break;
        }
        length += CHUNK;
    }
    length
        + units[length..]
            .iter()
            .position(|&unit| !is_plain(unit))
            .unwrap_or(units.len() - length)
}

/// `JSON.stringify`'s `QuoteJSONString` (ES2019+, well-formed): short
/// escapes, other controls and lone surrogates as lowercase `\u` escapes,
/// everything else raw. Runs of plain ASCII are copied in bulk.
fn write_string<S: Sink>(units: &[u16], escapes: Escapes, out: &mut S) {
    out.push_ascii(b"\"");
    let mut lone_surrogate = false;
    let mut index = 0;
    while index < units.len() {
        let run = plain_run(&units[index..]);
        if run > 0 {
            out.push_plain(&units[index..index + run]);
            index += run;
            continue;
        }
        let unit = units[index];
        match unit {
            0x22 => out.push_ascii(b"\\\""),
            0x5C => out.push_ascii(b"\\\\"),
            0x08 => out.push_ascii(b"\\b"),
            0x0C => out.push_ascii(b"\\f"),
            0x0A => out.push_ascii(b"\\n"),
            0x0D => out.push_ascii(b"\\r"),
            0x09 => out.push_ascii(b"\\t"),
            0..=0x1F => push_unicode_escape(unit, out),
            0x80.. if escapes == Escapes::NonAscii => push_unicode_escape(unit, out),
            _ if is_high_surrogate(unit)
                && units.get(index + 1).copied().is_some_and(is_low_surrogate) =>
            {
                let low = units[index + 1];
                let code = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                out.push_char(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER));
                index += 1;
            }
            _ if is_high_surrogate(unit) || is_low_surrogate(unit) => {
                lone_surrogate = true;
                push_unicode_escape(unit, out)
            }
            _ if escapes == Escapes::Invisible && is_invisible(unit) => {
                push_unicode_escape(unit, out)
            }
            _ => out
                .push_char(char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)),
        }
        index += 1;
    }
    if lone_surrogate && escapes == Escapes::Stringify {
        reach::point("uri.encode.lone-surrogate");
        reach::point("wire.strings.escapes");
    }
    out.push_ascii(b"\"");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(text: &str) -> String {
        stringify(&parse(text).expect("valid JSON"))
    }

    #[test]
    fn numbers_follow_ecmascript_formatting() {
        assert_eq!(
            round("[1e20,1e21,1e-7,0.000001,-0,2.5,46982672554.440796]"),
            "[100000000000000000000,1e+21,1e-7,0.000001,0,2.5,46982672554.440796]"
        );
        assert_eq!(round("1e400"), "null");
    }

    #[test]
    fn object_model_orders_index_keys_first_and_collapses_duplicates() {
        assert_eq!(
            round(r#"{"b":1,"2":"x","a":2,"b":3,"01":0,"0":9,"4294967295":1}"#),
            r#"{"0":9,"2":"x","b":3,"a":2,"01":0,"4294967295":1}"#
        );
        assert_eq!(
            to_wire(&parse(r#"{"b":1,"b":2}"#).expect("valid")),
            r#"{"b":1,"b":2}"#
        );
    }

    #[test]
    fn a_request_is_read_into_the_object_model_json_parse_builds() {
        let modelled = |text: &str| to_wire(&into_js_object_model(parse(text).expect("valid")));
        let text = r#"[{"b":1,"2":"x","a":{"k":1,"1":2},"b":3,"01":0,"0":9,"4294967295":1}]"#;
        assert_eq!(
            modelled(text),
            r#"[{"0":9,"2":"x","b":3,"a":{"1":2,"k":1},"01":0,"4294967295":1}]"#
        );
        for text in [r#"{"0":1,"1":2,"a":{"b":1}}"#, "[]", r#"{"b":1,"a":2}"#] {
            assert!(is_js_object_model(&parse(text).expect("valid")), "{text}");
        }
        for text in [
            r#"{"a":{"b":1,"0":2}}"#,
            r#"{"1":1,"0":2}"#,
            r#"[{"a":1,"a":1}]"#,
        ] {
            assert!(!is_js_object_model(&parse(text).expect("valid")), "{text}");
        }
    }

    #[test]
    fn lone_surrogates_survive_a_round_trip() {
        assert_eq!(
            round(r#""\uD800a\udc00\ud83d\ude00""#),
            "\"\\ud800a\\udc00\u{1F600}\""
        );
    }

    #[test]
    fn quoted_len_measures_what_push_quoted_writes() {
        let units = [
            0x3C, 0x22, 0x0A, 0x01, 0x7F, 0xE9, 0x754C, 0xD83D, 0xDE00, 0xD800, 0xDC00, 0x41,
        ];
        for tag_safe in [false, true] {
            let mut out = String::new();
            push_quoted(&units, tag_safe, &mut out);
            assert_eq!(
                quoted_len(&units, tag_safe),
                out.len(),
                "tag_safe={tag_safe}: {out}"
            );
        }
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for bad in [
            "", "01", "1.", "+1", "[1,]", "{\"a\"}", "\"\t\"", "'a'", "nul", "1 2", "\"\\x\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert!(parse(&deep).is_err_and(|error| error.is_too_deep()));
        // wire.json.depth: exactly MAX_DEPTH levels are read.
        let deepest = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&deepest).is_ok());
    }

    proptest::proptest! {
        /// The word-at-a-time [`first_stop`] finds the first byte that
        /// ends a plain run, as a byte-by-byte look does: on arbitrary
        /// bytes and on printable runs with one stop byte (a stray borrow
        /// bit above a match must not move it).
        #[test]
        fn first_stop_agrees_with_a_byte_by_byte_look(
            mut window in proptest::array::uniform32(proptest::prop_oneof![
                4 => 0x20u8..0x80,
                1 => proptest::num::u8::ANY,
            ]),
            at in 0..WINDOW,
            stop in proptest::sample::select(vec![b'"', b'\\', 0x00, 0x1F, 0x80, 0xFF]),
        ) {
            let plain = |window: &[u8; WINDOW]| {
                window.iter().position(|&b| b == b'"' || b == b'\\' || !is_printable(b))
            };
            proptest::prop_assert_eq!(first_stop(&window), plain(&window));
            window[at] = stop;
            proptest::prop_assert_eq!(first_stop(&window), plain(&window));
        }
    }
}
