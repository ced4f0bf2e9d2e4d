//! JavaScript string semantics (spec `wire.strings.utf16`).
//!
//! Every string in the session-reference contract is a JavaScript string: a
//! sequence of UTF-16 code units that may contain lone surrogates. Rust's
//! `String` cannot hold those, so the reference works on [`JsString`] and
//! borrowed `&[u16]` slices, with `&str` conveniences on top.

pub mod case;
pub mod coerce;
pub mod json;
#[cfg(feature = "serde")]
mod serde;
pub mod skim;

/// An owned JavaScript string: UTF-16 code units, lone surrogates allowed.
///
/// Strings of up to [`INLINE_UNITS`] code units (object keys, most ids and
/// paths) are held inline, without a heap allocation: a protocol message of
/// megabytes holds hundreds of thousands of them, and allocating and freeing
/// each one was most of the cost of reading it. The representation is
/// invisible: equality, order and hashing are those of the code units.
#[derive(Clone)]
pub struct JsString(Repr);

/// Code units a [`JsString`] holds inline.
pub const INLINE_UNITS: usize = 14;

#[derive(Clone)]
enum Repr {
    Inline { len: u8, units: [u16; INLINE_UNITS] },
    Heap(Vec<u16>),
}

impl Default for JsString {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl PartialEq for JsString {
    fn eq(&self, other: &Self) -> bool {
        self.units() == other.units()
    }
}

impl Eq for JsString {}

impl std::hash::Hash for JsString {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.units().hash(state)
    }
}

impl PartialOrd for JsString {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for JsString {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.units().cmp(other.units())
    }
}

impl JsString {
    /// The empty string, as a constant: a slot the JSON parser reads into
    /// is filled from it with whole-width stores.
    pub const EMPTY: Self = Self::inline_ascii("");

    /// A short ASCII string as a constant, such as an object key written
    /// into many answers: a constant is copied with whole-width moves,
    /// where converting the same text each time costs a conversion and
    /// store-forwarding stalls. Compilation fails for text that is not
    /// ASCII or longer than [`INLINE_UNITS`].
    pub(crate) const fn inline_ascii(text: &str) -> Self {
        let bytes = text.as_bytes();
        assert!(bytes.len() <= INLINE_UNITS, "longer than an inline string");
        let mut units = [0; INLINE_UNITS];
        let mut index = 0;
        while index < bytes.len() {
            assert!(bytes[index].is_ascii(), "not ASCII");
            units[index] = bytes[index] as u16;
            index += 1;
        }
        Self(Repr::Inline {
            len: bytes.len() as u8,
            units,
        })
    }

    /// Wraps code units as they are.
    pub fn from_units(units: Vec<u16>) -> Self {
        Self(Repr::Heap(units))
    }

    /// A copy of `units`, inline when short enough.
    pub fn from_slice(units: &[u16]) -> Self {
        Self::from_iter_len(units.len(), units.iter().copied())
    }

    /// The string of `len` code units produced by `units`: inline (no
    /// allocation) when `len` is at most [`INLINE_UNITS`].
    fn from_iter_len(len: usize, units: impl Iterator<Item = u16>) -> Self {
        if len <= INLINE_UNITS {
            let mut inline = [0; INLINE_UNITS];
            for (slot, unit) in inline.iter_mut().zip(units) {
                *slot = unit;
            }
            Self(Repr::Inline {
                len: len as u8,
                units: inline,
            })
        } else {
            let mut heap = Vec::with_capacity(len);
            heap.extend(units);
            Self(Repr::Heap(heap))
        }
    }

    /// ASCII (or Latin-1) bytes as code units, one each.
    pub(crate) fn from_latin1(bytes: &[u8]) -> Self {
        Self::from_iter_len(bytes.len(), bytes.iter().map(|&byte| u16::from(byte)))
    }

    /// Makes this string the ASCII (or Latin-1) `bytes`, one code unit
    /// each. A short string is written in place when this one is inline:
    /// the JSON parser reads keys and short values straight into their
    /// slots this way, without building a string and moving it.
    pub(crate) fn assign_latin1(&mut self, bytes: &[u8]) {
        self.assign(bytes.len(), bytes.iter().map(|&byte| u16::from(byte)));
    }

    /// Makes this string a copy of `units`, in place when short, as
    /// [`assign_latin1`](Self::assign_latin1) does.
    pub(crate) fn assign_slice(&mut self, units: &[u16]) {
        self.assign(units.len(), units.iter().copied());
    }

    /// Makes this string the `len` code units of `new_units`: written into
    /// the inline array when both this string and the new one are short,
    /// else built anew.
    fn assign(&mut self, new_len: usize, new_units: impl Iterator<Item = u16>) {
        if let (Repr::Inline { len, units }, true) = (&mut self.0, new_len <= INLINE_UNITS) {
            for (unit, new_unit) in units.iter_mut().zip(new_units) {
                *unit = new_unit;
            }
            *len = new_len as u8;
        } else {
            *self = Self::from_iter_len(new_len, new_units);
        }
    }

    /// The code units.
    pub fn units(&self) -> &[u16] {
        match &self.0 {
            Repr::Inline { len, units } => &units[..usize::from(*len)],
            Repr::Heap(units) => units,
        }
    }

    /// Consumes the string, returning its code units.
    pub fn into_units(self) -> Vec<u16> {
        match self.0 {
            Repr::Inline { .. } => self.units().to_vec(),
            Repr::Heap(units) => units,
        }
    }

    /// Number of UTF-16 code units (JavaScript `length`).
    pub fn len(&self) -> usize {
        self.units().len()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.units().is_empty()
    }

    /// True when the string is `text` (compared without allocating).
    pub fn is(&self, text: &str) -> bool {
        let (units, bytes) = (self.units(), text.as_bytes());
        if units.len() == bytes.len() && units.iter().zip(bytes).all(|(u, b)| *u == u16::from(*b)) {
            // A unit for each byte: the same string if the bytes are ASCII
            // (a multi-byte character is fewer units than bytes).
            return bytes.is_ascii();
        }
        // Otherwise only a non-ASCII text, fewer units than bytes, can match.
        units.len() < bytes.len()
            && !bytes.is_ascii()
            && units.iter().copied().eq(text.encode_utf16())
    }

    /// The string as Rust text when it holds no lone surrogate.
    pub fn to_str(&self) -> Option<String> {
        String::from_utf16(self.units()).ok()
    }

    /// The string as Rust text, lone surrogates replaced by U+FFFD (what
    /// Node's `Buffer.from(s, "utf8")` writes for them).
    pub fn to_string_lossy(&self) -> String {
        String::from_utf16_lossy(self.units())
    }
}

/// Pushes `vacant` on `stack` and lends out its slot, for a value to be
/// written into in place: a value built in a callee and moved into a vector
/// is reloaded across the narrower stores that built it, which stalls on
/// store forwarding (the JSON parser and the mention scanner fill their
/// output this way).
pub(crate) fn push_slot<T>(stack: &mut Vec<T>, vacant: T) -> &mut T {
    let index = stack.len();
    stack.push(vacant);
    &mut stack[index]
}

impl From<&str> for JsString {
    fn from(text: &str) -> Self {
        if text.is_ascii() {
            Self::from_latin1(text.as_bytes())
        } else {
            Self::from_units(text.encode_utf16().collect())
        }
    }
}

impl From<String> for JsString {
    fn from(text: String) -> Self {
        Self::from(text.as_str())
    }
}

/// Length in code units of the code point starting at `index`: 2 for a
/// surrogate pair, else 1. JavaScript regular expressions under the `u` flag
/// step by these code points; a lone surrogate is one code point.
pub fn code_point_len(units: &[u16], index: usize) -> usize {
    match (units.get(index), units.get(index + 1)) {
        (Some(high), Some(low)) if is_high_surrogate(*high) && is_low_surrogate(*low) => 2,
        _ => 1,
    }
}

/// The index of the first lone surrogate in `units` (a surrogate that is
/// not half of a pair), or `None` when the string is well-formed UTF-16 and
/// so representable as Rust text.
pub fn first_lone_surrogate(units: &[u16]) -> Option<usize> {
    let mut index = 0;
    while index < units.len() {
        let width = code_point_len(units, index);
        if width == 1 && (0xD800..=0xDFFF).contains(&units[index]) {
            return Some(index);
        }
        index += width;
    }
    None
}

/// U+D800..U+DBFF.
pub fn is_high_surrogate(unit: u16) -> bool {
    (0xD800..=0xDBFF).contains(&unit)
}

/// U+DC00..U+DFFF.
pub fn is_low_surrogate(unit: u16) -> bool {
    (0xDC00..=0xDFFF).contains(&unit)
}

/// JavaScript line terminators: what the regular-expression `.` never
/// matches (spec `mention.parse.label-escape`).
pub fn is_line_terminator(unit: u16) -> bool {
    matches!(unit, 0x000A | 0x000D | 0x2028 | 0x2029)
}

/// JavaScript `\s` (WhiteSpace and LineTerminator), which differs from
/// Unicode `White_Space`: U+FEFF is in, U+0085 is out (spec
/// `mention.parse.js-whitespace`). All of them are BMP code points, so one
/// code unit decides.
pub fn is_js_whitespace(unit: u16) -> bool {
    matches!(
        unit,
        0x0009..=0x000D
            | 0x0020
            | 0x00A0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// UTF-8 length of the string as Node's `Buffer.byteLength(s, "utf8")`
/// counts it: a lone surrogate is written as U+FFFD, three bytes.
pub fn utf8_len(units: &[u16]) -> usize {
    let mut total = 0;
    let mut index = 0;
    while index < units.len() {
        let unit = units[index];
        let step = code_point_len(units, index);
        total += match unit {
            0..=0x7F => 1,
            0x80..=0x7FF => 2,
            _ if step == 2 => 4,
            _ => 3,
        };
        index += step;
    }
    total
}

/// Appends the UTF-8 encoding of `units` to `out`, each lone surrogate as
/// U+FFFD (`Buffer.from(s, "utf8")`).
pub fn push_utf8_lossy(units: &[u16], out: &mut Vec<u8>) {
    for decoded in char::decode_utf16(units.iter().copied()) {
        let ch = decoded.unwrap_or(char::REPLACEMENT_CHARACTER);
        let mut buffer = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buffer).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_len_counts_lone_surrogates_as_three_bytes() {
        let units = [0x61, 0xD800, 0xD83D, 0xDE00, 0x754C, 0xE9, 0xDC00];
        assert_eq!(utf8_len(&units), 1 + 3 + 4 + 3 + 2 + 3);
        let mut bytes = Vec::new();
        push_utf8_lossy(&units, &mut bytes);
        assert_eq!(bytes.len(), utf8_len(&units));
    }

    #[test]
    fn js_whitespace_differs_from_unicode_white_space() {
        assert!(is_js_whitespace(0xFEFF));
        assert!(!is_js_whitespace(0x0085));
        assert!(!is_js_whitespace(0x200B));
        assert_eq!((0..=0xFFFFu16).filter(|u| is_js_whitespace(*u)).count(), 25);
    }
}
