//! Proptest strategies for JavaScript strings and the texts session
//! references are made of, shared by the property tests (`tests/`) and the
//! `differential` command, so both draw from the same distribution.
//!
//! Strings are JavaScript strings: every strategy builds UTF-16 code-unit
//! vectors (`any::<String>()` never yields a lone surrogate), biased toward
//! the characters the grammar cares about: mention delimiters, JSON escapes,
//! every JavaScript whitespace and its near misses, lone surrogates.

use crate::js::{is_js_whitespace, JsString};
use crate::{mention, uri, Json};
use proptest::prelude::*;

/// The code units of a Rust string.
pub fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Characters the mention grammar, JSON and JavaScript whitespace care about.
pub const DELIMITERS: &[u16] = &[
    0x40, 0x5B, 0x5D, 0x28, 0x29, 0x5C, 0x3A, 0x22, 0x3C, 0x3E, 0x2F, 0x20, 0x09, 0x0A, 0x0D,
    0x2028, 0x2029, 0x0085, 0xFEFF, 0x00A0, 0x0000,
];

/// The base64url alphabet of URI payloads.
pub const BASE64URL: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// One of [`DELIMITERS`].
pub fn delimiter() -> impl Strategy<Value = Vec<u16>> {
    prop::sample::select(DELIMITERS).prop_map(|unit| vec![unit])
}

/// An ASCII letter.
pub fn ascii_letter() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![0x41u16..=0x5A, 0x61u16..=0x7A].prop_map(|unit| vec![unit])
}

/// A unit of the base64url alphabet.
pub fn base64url_unit() -> impl Strategy<Value = u16> {
    prop::sample::select(BASE64URL).prop_map(u16::from)
}

/// Every JavaScript whitespace code point, and near misses that are not
/// (U+0085, U+180E, zero-width characters, U+001C–U+001F, U+FFFE).
pub fn space_like() -> impl Strategy<Value = Vec<u16>> {
    let mut spaces: Vec<u16> = (0u16..=0xFFFF).filter(|u| is_js_whitespace(*u)).collect();
    spaces.extend([
        0x0085, 0x180E, 0x200B, 0x200C, 0x200D, 0x2060, 0x001C, 0x001F, 0xFFFE,
    ]);
    prop::sample::select(spaces).prop_map(|unit| vec![unit])
}

/// A high surrogate on its own.
pub fn lone_high() -> impl Strategy<Value = Vec<u16>> {
    (0xD800u16..=0xDBFF).prop_map(|unit| vec![unit])
}

/// A low surrogate on its own.
pub fn lone_low() -> impl Strategy<Value = Vec<u16>> {
    (0xDC00u16..=0xDFFF).prop_map(|unit| vec![unit])
}

/// A well-formed surrogate pair (an astral code point).
pub fn surrogate_pair() -> impl Strategy<Value = Vec<u16>> {
    (0xD800u16..=0xDBFF, 0xDC00u16..=0xDFFF).prop_map(|(high, low)| vec![high, low])
}

/// Any code unit.
pub fn any_unit() -> impl Strategy<Value = Vec<u16>> {
    any::<u16>().prop_map(|unit| vec![unit])
}

/// One piece of a JavaScript string: a single code unit or a pair, chosen
/// to hit every interesting class.
pub fn piece() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        6 => delimiter(),
        4 => ascii_letter(),
        3 => base64url_unit().prop_map(|unit| vec![unit]),
        2 => lone_high(),
        2 => lone_low(),
        2 => surrogate_pair(),
        2 => any_unit(),
        2 => space_like(),
        1 => Just(units(uri::SCHEME)),
    ]
}

/// The pieces one after another.
pub fn concat(pieces: Vec<Vec<u16>>) -> Vec<u16> {
    pieces.concat()
}

/// An arbitrary JavaScript string (session id, label, JSON string).
pub fn js_units(max_pieces: usize) -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(piece(), 0..max_pieces).prop_map(concat)
}

/// A valid URI payload: the encoding of a short arbitrary id, without the scheme.
pub fn valid_payload() -> impl Strategy<Value = Vec<u16>> {
    js_units(6).prop_map(|id| units(&uri::encode(&id)[uri::SCHEME.len()..]))
}

/// A URI near the accept set: a canonical URI, then possibly mutated.
pub fn near_uri() -> impl Strategy<Value = Vec<u16>> {
    let canonical = || js_units(8).prop_map(|id| units(&uri::encode(&id)));
    prop_oneof![
        3 => canonical(),
        // Drop 1..3 units from the end.
        2 => (canonical(), 1usize..4).prop_map(|(mut uri, n)| {
            let keep = uri.len().saturating_sub(n);
            uri.truncate(keep);
            uri
        }),
        // Append 1..3 payload units.
        2 => (canonical(), prop::collection::vec(base64url_unit(), 1..4))
            .prop_map(|(mut uri, extra)| {
                uri.extend(extra);
                uri
            }),
        // Replace one unit by a payload unit.
        3 => (canonical(), any::<prop::sample::Index>(), base64url_unit())
            .prop_map(|(mut uri, index, unit)| {
                let at = index.index(uri.len());
                uri[at] = unit;
                uri
            }),
        // Replace one unit by anything interesting.
        1 => (canonical(), any::<prop::sample::Index>(), piece()).prop_map(|(uri, index, with)| {
            let at = index.index(uri.len());
            [&uri[..at], &with[..], &uri[at + 1..]].concat()
        }),
        // The scheme and random payload units.
        2 => prop::collection::vec(base64url_unit(), 0..16)
            .prop_map(|payload| [units(uri::SCHEME), payload].concat()),
        // Non-canonical spellings: base64 padding, whitespace around the
        // URI, an upper-case scheme.
        2 => (canonical(), prop::sample::select(vec!["=", "==", "==="]))
            .prop_map(|(uri, padding)| [uri, units(padding)].concat()),
        1 => (space_like(), canonical(), space_like())
            .prop_map(|(before, uri, after)| [before, uri, after].concat()),
        1 => canonical().prop_map(|uri| {
            [units("DSH-SESSION:"), uri[uri::SCHEME.len()..].to_vec()].concat()
        }),
        // Anything at all.
        1 => js_units(24),
    ]
}

/// A label as users type them: ordinary pieces, often with whitespace of
/// every kind at its start or end, and runs of escape-worthy characters
/// (`\`, `]`, `\]`, `[`, U+FEFF) repeated.
pub fn edged_label() -> impl Strategy<Value = Vec<u16>> {
    let edge = || prop::collection::vec(space_like(), 0..3).prop_map(concat);
    let repeated = (
        prop::sample::select(vec!["\\", "]", "\\]", "[", "\u{feff}"]),
        1usize..4,
    )
        .prop_map(|(piece, times)| units(&piece.repeat(times)));
    let middle =
        prop::collection::vec(prop_oneof![3 => piece(), 1 => repeated], 0..4).prop_map(concat);
    (edge(), middle, edge()).prop_map(|(before, middle, after)| [before, middle, after].concat())
}

/// A piece of text rich in near-miss mentions.
pub fn text_piece() -> impl Strategy<Value = Vec<u16>> {
    prop_oneof![
        8 => piece(),
        3 => Just(units("@[")),
        2 => Just(units("](")),
        2 => Just(units("](dsh-session:")),
        2 => Just(units(")")),
        2 => Just(units("]")),
        2 => Just(units("\\")),
        1 => Just(units("\\]")),
        2 => valid_payload(),
        1 => near_uri(),
        2 => (js_units(4), prop::option::of(js_units(4)))
            .prop_map(|(id, label)| mention::format(&id, label.as_deref()).into_units()),
        2 => (js_units(4), edged_label())
            .prop_map(|(id, label)| mention::format(&id, Some(&label)).into_units()),
        1 => (js_units(4), js_units(4)).prop_map(|(id, label)| {
            // A mention with a raw, unescaped label.
            [units("@["), label, units("]("), units(&uri::encode(&id)), units(")")].concat()
        }),
        3 => (prop::collection::vec(raw_label_piece(), 0..4), js_units(4)).prop_map(|(label, id)| {
            // A mention with a raw label that may not scan.
            [units("@["), label.concat(), units("]("), units(&uri::encode(&id)), units(")")].concat()
        }),
        2 => (js_units(3), prop::collection::vec(prop_oneof![
            3 => base64url_unit().prop_map(|unit| vec![unit]),
            1 => piece(),
        ], 0..6)).prop_map(|(label, run)| {
            // An explicit mention whose URI run is near the payload alphabet.
            [units("@["), label, units("](dsh-session:"), run.concat(), units(")")].concat()
        }),
        2 => (js_units(2), js_units(4), space_like(), any::<bool>()).prop_map(|(label, id, space, before)| {
            // Whitespace of some kind (or a near miss) inside the
            // parentheses of an explicit mention: `\s` decides whether the
            // URI run stops there.
            let uri = units(&uri::encode(&id));
            let inner = if before { [space, uri].concat() } else { [uri, space].concat() };
            [units("@["), label, units("]("), inner, units(")")].concat()
        }),
        2 => prop::sample::select(vec![">?", "~~~", "a>b?", "\u{7ff}", "\u{ff}\u{fe}", "??>"])
            .prop_map(|id| {
                // A bare URI whose payload holds `-` or `_`.
                [units(" "), units(&uri::encode(&units(id))), units(" ")].concat()
            }),
    ]
}

/// A piece of a raw label: escapes of every kind (including the invalid
/// `\` + line terminator), brackets, `@[` and ordinary pieces.
pub fn raw_label_piece() -> impl Strategy<Value = Vec<u16>> {
    let escaped = prop_oneof![
        Just(vec![0x0A]),
        Just(vec![0x0D]),
        Just(vec![0x2028]),
        Just(vec![0x2029]),
        Just(vec![0x5C]),
        Just(vec![0x5D]),
        piece(),
    ];
    prop_oneof![
        3 => escaped.prop_map(|unit| [vec![0x5C], unit].concat()),
        1 => Just(units("]")),
        1 => Just(units("@[")),
        4 => piece(),
    ]
}

/// A text mixing mentions, `@[` runs, URIs and garbage.
pub fn text() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(text_piece(), 0..24).prop_map(concat)
}

/// A text of one to three pieces. Parsing is all-or-nothing, so in a long
/// text one invalid mention hides every other difference behind the same
/// error; short texts let each piece decide the outcome.
pub fn short_text() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(text_piece(), 1..4).prop_map(concat)
}

/// A finite double: integers, arbitrary doubles and the edge cases of
/// JavaScript's number formatting.
pub fn finite_number() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<i32>().prop_map(f64::from),
        any::<f64>().prop_filter("finite", |n| n.is_finite()),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1e21,
            1e-7,
            5e-324,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.1,
            -2.5,
            9007199254740993.0,
        ]),
    ]
}

/// An object key: often an array-index-like string or one from a small
/// set, so that duplicates and index ordering happen.
pub fn json_key() -> impl Strategy<Value = JsString> {
    prop_oneof![
        2 => js_units(4),
        2 => prop::sample::select(vec!["a", "b", "<", "0", "1", "01", "10", "4294967294", "4294967295", "12345678901234567890123", ""])
            .prop_map(units),
        1 => any::<u32>().prop_map(|n| units(&n.to_string())),
    ]
    .prop_map(JsString::from_units)
}

/// `leaf` inside `levels` containers, arrays or `{"k": …}` objects as the
/// bits of `kinds` say (level by level, repeating), built without
/// recursion (spec `wire.json.depth`).
pub fn nested(leaf: Json, levels: usize, kinds: u8) -> Json {
    (0..levels).fold(leaf, |inner, level| {
        if kinds.rotate_right((level % 8) as u32) & 1 == 0 {
            Json::Array(vec![inner])
        } else {
            Json::Object(vec![(JsString::from("k"), inner)])
        }
    })
}

/// A value nested deep, within the contracted depth (1 500
/// levels of the request line, the value starting at level 3): 100 to
/// 1 490 levels around a tag-unsafe string.
pub fn deep_value() -> impl Strategy<Value = Json> {
    (100usize..=1_490, any::<u8>())
        .prop_map(|(levels, kinds)| nested(Json::str("</deep>"), levels, kinds))
}

/// A JSON value at most four containers deep, numbers from `numbers`.
pub fn json_tree(numbers: impl Strategy<Value = f64> + 'static) -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        numbers.prop_map(Json::Number),
        js_units(8).prop_map(|u| Json::String(JsString::from_units(u))),
    ];
    // Depth ≤ 4: at most four levels of containers above the leaves.
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Json::Array),
            prop::collection::vec((json_key(), inner), 0..6).prop_map(Json::Object),
        ]
    })
}
