//! Value classes (spec `runner.value-reach`, issue #59): the typed leaf
//! members of each op's input, the classes a value of each can be in, what
//! class a value is in, and a representative of each class.
//!
//! One home for what the value-reach test asks of the vectors
//! (`tests/value_reach.rs`) and what `differential` draws on purpose (its
//! value-class cases, spec `runner.differential.valued`): the classes a
//! vector must hold are the classes a run sends.
//!
//! The leaves are the `Type::String`, `Type::Number` and `Type::Boolean`
//! members of `input_types::input_members(op)`, walked through
//! `Type::Object` members, `Type::Array` items, `Type::Map` values and
//! `Type::BooleanOrObject` members; `Type::Any` leaves have no other type
//! and are skipped. A path writes an object's member `a.b`, every item of
//! an array `a[]`, every value of a map `a{}`.
//!
//! The classes (a value may be in several):
//!
//! - every member: `null` (present with value `null`), `absent` (its
//!   parent object present, the member missing; an array item or a map
//!   value has no `absent`), `other-type` (a JSON value of a type other
//!   than the declared one, not `null`).
//! - numbers: `zero` (+0), `negative-zero` (-0), `negative` (< 0),
//!   `fractional` (finite, not an integer), `wide-integer` (an integer with
//!   1e16 ≤ |x| < 1e21, which JavaScript writes in full and other
//!   languages' float writers with an exponent), `large-exponent` (finite,
//!   |x| ≥ 1e21, which JavaScript writes with an exponent),
//!   `unsafe-integer` (a finite integer with |x| > 2^53).
//! - strings (JavaScript strings, UTF-16 code units): `empty`;
//!   `ascii-whitespace` (U+0020, U+0009, U+000A or U+000D); `js-whitespace`
//!   (U+00A0, U+FEFF, U+000B, U+000C, U+1680, U+2000–U+200A, U+202F,
//!   U+205F or U+3000: JavaScript whitespace beyond the ASCII four);
//!   `line-separator` (U+2028 or U+2029); `delete` (U+007F, the control
//!   past the C0 range); `c1-control` (U+0080–U+009F, controls that
//!   JavaScript's `\s` leaves out and other languages' tables count as
//!   whitespace or controls apart); `combining` (a combining mark,
//!   U+0300–U+036F: text whose Unicode normalization differs, which some
//!   languages' strings apply unasked); `lone-surrogate` (a surrogate
//!   not in a valid pair); `astral` (a valid surrogate pair);
//!   `escaped-elsewhere` (all five of `'` `<` `>` `&` `/`, which other
//!   languages' JSON writers escape by default); `syntax` (the op's own
//!   syntax: for `uri/*` the text `dsh-session:`; for `mention/*` both `]`
//!   and `\` (its representative inserts `\]\a`, two label escapes, just
//!   inside the first label); for `files/*` both `@` and `"`; for
//!   `candidates/*` one of `İ` (U+0130) or `ß`; for every other op `<`).
//! - booleans: `true`, `false`.

use crate::harness::runner::json_path;
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::protocol::input_types::{input_members, Member, Type};

/// The JSON type of a leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// A string member.
    String,
    /// A number member.
    Number,
    /// A boolean member.
    Boolean,
}

/// The classes of a number leaf, beside `null`, `absent`, `other-type`.
const NUMBER_CLASSES: &[&str] = &[
    "zero",
    "negative-zero",
    "negative",
    "fractional",
    "wide-integer",
    "large-exponent",
    "unsafe-integer",
];

/// The classes of a string leaf, beside `null`, `absent`, `other-type`.
const STRING_CLASSES: &[&str] = &[
    "empty",
    "ascii-whitespace",
    "js-whitespace",
    "line-separator",
    "delete",
    "c1-control",
    "combining",
    "lone-surrogate",
    "astral",
    "escaped-elsewhere",
    "syntax",
];

impl Leaf {
    /// `string`, `number`, `boolean`.
    pub fn name(self) -> &'static str {
        match self {
            Leaf::String => "string",
            Leaf::Number => "number",
            Leaf::Boolean => "boolean",
        }
    }

    /// The classes a value of this leaf can be in; an array item or a map
    /// value (`in_object` false) cannot be `absent`.
    pub fn classes(self, in_object: bool) -> Vec<&'static str> {
        let mut classes = vec!["null"];
        if in_object {
            classes.push("absent");
        }
        classes.push("other-type");
        classes.extend_from_slice(match self {
            Leaf::Number => NUMBER_CLASSES,
            Leaf::String => STRING_CLASSES,
            Leaf::Boolean => &["true", "false"],
        });
        classes
    }
}

/// One step of a leaf's path.
#[derive(Clone, Debug)]
pub enum LeafStep {
    /// An object's member (also a `BooleanOrObject` that is an object).
    Member(&'static str),
    /// Every item of an array.
    Items,
    /// Every value of a map.
    Values,
}

/// A typed leaf of an op's input: its steps and its type.
#[derive(Clone, Debug)]
pub struct LeafPath {
    /// From the input object to the leaf.
    pub steps: Vec<LeafStep>,
    /// The leaf's type.
    pub leaf: Leaf,
}

impl LeafPath {
    /// `references[].label`, `sessions{}.session.id`.
    pub fn written(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            match step {
                LeafStep::Member(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                LeafStep::Items => out.push_str("[]"),
                LeafStep::Values => out.push_str("{}"),
            }
        }
        out
    }

    /// Whether the leaf is an object's member (and can be `absent`).
    pub fn in_object(&self) -> bool {
        matches!(self.steps.last(), Some(LeafStep::Member(_)))
    }

    /// The classes a value of this leaf can be in.
    pub fn classes(&self) -> Vec<&'static str> {
        self.leaf.classes(self.in_object())
    }

    /// The places of this leaf in `input` whose parent is there (an
    /// `absent` member's place included), as paths of
    /// [`json_path::Step`]s, in preorder.
    pub fn places(&self, input: &Json) -> Vec<Vec<json_path::Step>> {
        let mut out = Vec::new();
        places_below(input, &self.steps, &mut Vec::new(), &mut out);
        out
    }
}

fn places_below(
    value: &Json,
    steps: &[LeafStep],
    at: &mut Vec<json_path::Step>,
    out: &mut Vec<Vec<json_path::Step>>,
) {
    let Some((step, rest)) = steps.split_first() else {
        out.push(at.clone());
        return;
    };
    match step {
        LeafStep::Member(name) => {
            let Some(object) = value.as_object() else {
                return;
            };
            at.push(json_path::Step::Member(JsString::from(*name)));
            match member(object, name) {
                Some(child) => places_below(child, rest, at, out),
                None if rest.is_empty() => out.push(at.clone()),
                None => {}
            }
            at.pop();
        }
        LeafStep::Items => {
            for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                at.push(json_path::Step::Item(index));
                places_below(item, rest, at, out);
                at.pop();
            }
        }
        LeafStep::Values => {
            // The last of repeated keys is the one JavaScript reads.
            for (key, item) in value.as_object().into_iter().flatten() {
                at.push(json_path::Step::Member(key.clone()));
                places_below(item, rest, at, out);
                at.pop();
            }
        }
    }
}

fn leaves_of_members(members: &[Member], steps: &mut Vec<LeafStep>, out: &mut Vec<LeafPath>) {
    for member in members {
        steps.push(LeafStep::Member(member.name));
        leaves_of_type(member.ty, steps, out);
        steps.pop();
    }
}

fn leaves_of_type(ty: Type, steps: &mut Vec<LeafStep>, out: &mut Vec<LeafPath>) {
    let leaf = match ty {
        Type::String => Leaf::String,
        Type::Number => Leaf::Number,
        Type::Boolean => Leaf::Boolean,
        Type::Any => return,
        Type::Object(members) | Type::BooleanOrObject(members) => {
            return leaves_of_members(members, steps, out)
        }
        Type::Array(item) => {
            steps.push(LeafStep::Items);
            leaves_of_type(*item, steps, out);
            steps.pop();
            return;
        }
        Type::Map(value, _) => {
            steps.push(LeafStep::Values);
            leaves_of_type(*value, steps, out);
            steps.pop();
            return;
        }
    };
    out.push(LeafPath {
        steps: steps.clone(),
        leaf,
    });
}

/// Every typed leaf of `op`'s input (none for an op the table does not
/// know).
pub fn leaves(op: &str) -> Vec<LeafPath> {
    let mut out = Vec::new();
    if let Some(members) = input_members(op) {
        leaves_of_members(members, &mut Vec::new(), &mut out);
    }
    out
}

/// An object's member `name` as `JSON.parse` keeps it (the last of
/// duplicates).
pub fn member<'j>(object: &'j [(JsString, Json)], name: &str) -> Option<&'j Json> {
    object
        .iter()
        .rev()
        .find(|(key, _)| key.is(name))
        .map(|(_, value)| value)
}

/// The classes of the values at `steps` below `value`, added to `found`.
pub fn classify_at(
    op: &str,
    value: &Json,
    steps: &[LeafStep],
    leaf: Leaf,
    found: &mut std::collections::BTreeSet<&'static str>,
) {
    let Some((step, rest)) = steps.split_first() else {
        classify(op, value, leaf, found);
        return;
    };
    match step {
        LeafStep::Member(name) => {
            let Some(object) = value.as_object() else {
                return;
            };
            match member(object, name) {
                Some(child) => classify_at(op, child, rest, leaf, found),
                None if rest.is_empty() => {
                    found.insert("absent");
                }
                None => {}
            }
        }
        LeafStep::Items => {
            for item in value.as_array().into_iter().flatten() {
                classify_at(op, item, rest, leaf, found);
            }
        }
        LeafStep::Values => {
            for (_, item) in value.as_object().into_iter().flatten() {
                classify_at(op, item, rest, leaf, found);
            }
        }
    }
}

const ASCII_WHITESPACE: &[u16] = &[0x20, 0x09, 0x0A, 0x0D];

fn is_js_whitespace(unit: u16) -> bool {
    matches!(
        unit,
        0xA0 | 0xFEFF | 0x0B | 0x0C | 0x1680 | 0x2000..=0x200A | 0x202F | 0x205F | 0x3000
    )
}

fn contains(units: &[u16], text: &str) -> bool {
    let needle: Vec<u16> = text.encode_utf16().collect();
    units.windows(needle.len()).any(|window| window == needle)
}

/// The text the `syntax` class's representative inserts for `op`.
fn syntax_of(op: &str) -> &'static str {
    match op.split('/').next().unwrap_or_default() {
        "uri" => "dsh-session:",
        "mention" => "\\]\\a",
        "files" => "@\"",
        "candidates" => "\u{130}",
        _ => "<",
    }
}

/// Where the `syntax` class's text goes when the op's syntax reads it
/// there rather than in the middle: for `mention/*`, just inside the first
/// label (after `@[`), where `\\]` and `\\a` are escapes.
fn syntax_place(op: &str, class: &str, units: &[u16]) -> Option<usize> {
    if class != "syntax" || !op.starts_with("mention/") {
        return None;
    }
    let opening = [u16::from(b'@'), u16::from(b'[')];
    units
        .windows(2)
        .position(|window| window == opening)
        .map(|at| at + 2)
}

/// The characters tried at a syntax edge ([`syntax_edges`]): every ASCII
/// punctuation character, a space, a tab and U+00A0.
pub const EDGE_CHARACTERS: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ \t\u{a0}";

/// The places in `units` beside the op's own syntax, where a port's
/// grammar decides what may stand, each with its kind: for `mention/*` and
/// `files/*`, `before @` (just before the first `@`: what may precede a
/// mention or a token); for `mention/*`, `after explicit URI` (just after
/// the payload run of the first `dsh-session:` inside `](` … `)`: what ends
/// it), `before bare URI` and `after bare URI` (just before the first
/// `dsh-session:` elsewhere and just after its payload run: what may
/// precede and end it).
pub fn syntax_edges(op: &str, units: &[u16]) -> Vec<(&'static str, usize)> {
    let family = op.split('/').next().unwrap_or_default();
    if family != "mention" && family != "files" {
        return Vec::new();
    }
    let mut edges: Vec<(&'static str, usize)> = units
        .iter()
        .position(|&unit| unit == u16::from(b'@'))
        .map(|at| ("before @", at))
        .into_iter()
        .collect();
    if family != "mention" {
        return edges;
    }
    let scheme: Vec<u16> = "dsh-session:".encode_utf16().collect();
    let opening: Vec<u16> = "](".encode_utf16().collect();
    let mut start = 0;
    while let Some(found) = units[start..]
        .windows(scheme.len())
        .position(|window| window == scheme)
    {
        let at = start + found;
        let payload = at + scheme.len();
        let run = units[payload..]
            .iter()
            .take_while(|&&unit| {
                u8::try_from(unit)
                    .is_ok_and(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-')
            })
            .count();
        let found = if units[..at].ends_with(&opening) {
            [("after explicit URI", payload + run)].to_vec()
        } else {
            [("before bare URI", at), ("after bare URI", payload + run)].to_vec()
        };
        for (kind, edge) in found {
            if edges.iter().all(|(seen, _)| *seen != kind) {
                edges.push((kind, edge));
            }
        }
        start = payload;
    }
    edges
}

/// Whether `units` holds the op's own syntax.
fn has_syntax(op: &str, units: &[u16]) -> bool {
    let has = |c: char| contains(units, c.encode_utf8(&mut [0; 4]));
    match op.split('/').next().unwrap_or_default() {
        "uri" => contains(units, "dsh-session:"),
        "mention" => has(']') && has('\\'),
        "files" => has('@') && has('"'),
        "candidates" => has('\u{130}') || has('ß'),
        _ => has('<'),
    }
}

/// The classes of one value of a leaf of type `leaf`.
pub fn classify(
    op: &str,
    value: &Json,
    leaf: Leaf,
    found: &mut std::collections::BTreeSet<&'static str>,
) {
    match (leaf, value) {
        (_, Json::Null) => {
            found.insert("null");
        }
        (Leaf::Number, Json::Number(x)) => found.extend(number_classes(*x)),
        (Leaf::String, Json::String(text)) => found.extend(string_classes(op, text.units())),
        (Leaf::Boolean, Json::Bool(true)) => {
            found.insert("true");
        }
        (Leaf::Boolean, Json::Bool(false)) => {
            found.insert("false");
        }
        _ => {
            found.insert("other-type");
        }
    }
}

fn number_classes(x: f64) -> Vec<&'static str> {
    let integer = x.is_finite() && x.fract() == 0.0;
    [
        (x == 0.0 && x.is_sign_positive(), "zero"),
        (x == 0.0 && x.is_sign_negative(), "negative-zero"),
        (x < 0.0, "negative"),
        (x.is_finite() && x.fract() != 0.0, "fractional"),
        (integer && (1e16..1e21).contains(&x.abs()), "wide-integer"),
        (x.is_finite() && x.abs() >= 1e21, "large-exponent"),
        (
            integer && x.abs() > 9_007_199_254_740_992.0,
            "unsafe-integer",
        ),
    ]
    .into_iter()
    .filter_map(|(is, class)| is.then_some(class))
    .collect()
}

fn string_classes(op: &str, units: &[u16]) -> Vec<&'static str> {
    let (mut lone, mut pair) = (false, false);
    let mut at = 0;
    while at < units.len() {
        let unit = units[at];
        let next = units.get(at + 1).copied().unwrap_or(0);
        if (0xD800..0xDC00).contains(&unit) && (0xDC00..0xE000).contains(&next) {
            pair = true;
            at += 2;
            continue;
        }
        lone |= (0xD800..0xE000).contains(&unit);
        at += 1;
    }
    let any = |test: fn(u16) -> bool| units.iter().any(|unit| test(*unit));
    [
        (units.is_empty(), "empty"),
        (any(|u| ASCII_WHITESPACE.contains(&u)), "ascii-whitespace"),
        (any(is_js_whitespace), "js-whitespace"),
        (any(|u| matches!(u, 0x2028 | 0x2029)), "line-separator"),
        (any(|u| u == 0x7F), "delete"),
        (any(|u| (0x80..=0x9F).contains(&u)), "c1-control"),
        (any(|u| (0x300..=0x36F).contains(&u)), "combining"),
        (lone, "lone-surrogate"),
        (pair, "astral"),
        (
            ['\'', '<', '>', '&', '/']
                .iter()
                .all(|c| contains(units, c.encode_utf8(&mut [0; 4]))),
            "escaped-elsewhere",
        ),
        (has_syntax(op, units), "syntax"),
    ]
    .into_iter()
    .filter_map(|(is, class)| is.then_some(class))
    .collect()
}

/// The classes a port most often takes `class` for: a `null` for an
/// absent member and back (`== null`, `Option`); `0`, `-0` and `""` for
/// absent (`||` defaults, truthiness); `-0` for a negative number (a sign
/// bit read); an integer past 1e16 for one past 1e21 and back (float
/// writers that switch to exponents early); `true` for `false` and back.
/// Empty: the class is told apart from the value it replaces.
pub fn confused_with(class: &str) -> &'static [&'static str] {
    match class {
        "null" => &["absent"],
        "absent" => &["null"],
        "zero" | "empty" => &["absent"],
        "negative-zero" => &["negative", "absent"],
        "wide-integer" => &["large-exponent"],
        "large-exponent" => &["wide-integer"],
        "true" => &["false"],
        "false" => &["true"],
        _ => &[],
    }
}

/// Every character of a class whose members ports tell apart one by one
/// (a tab where a space passes, U+2029 where U+2028 passes), the one
/// [`representative`] inserts first; empty for the other classes.
const CLASS_CHARACTERS: &[(&str, &[&str])] = &[
    ("ascii-whitespace", &[" ", "\t", "\n", "\r"]),
    (
        "js-whitespace",
        &[
            "\u{a0}", "\u{b}", "\u{c}", "\u{feff}", "\u{1680}", "\u{2000}", "\u{200a}", "\u{202f}",
            "\u{205f}", "\u{3000}",
        ],
    ),
    ("line-separator", &["\u{2028}", "\u{2029}"]),
    ("c1-control", &["\u{85}", "\u{80}", "\u{9f}"]),
];

/// The characters of `class` ([`CLASS_CHARACTERS`]).
fn kinds_of(class: &str) -> &'static [&'static str] {
    CLASS_CHARACTERS
        .iter()
        .find(|(name, _)| *name == class)
        .map_or(&[], |(_, kinds)| kinds)
}

/// What a string class puts in the middle of the value it changes.
fn inserted(op: &str, class: &str) -> Option<Vec<u16>> {
    let text = match class {
        "delete" => "\u{7f}",
        "combining" => "e\u{301}",
        "lone-surrogate" => return Some(vec![0xD800]),
        "astral" => "\u{1f600}",
        "escaped-elsewhere" => "'<>&/",
        "syntax" => syntax_of(op),
        _ => kinds_of(class).first()?,
    };
    Some(text.encode_utf16().collect())
}

/// The other kinds of a class: the characters of a whitespace or control
/// class but the one [`representative`] inserts (a tab where a space
/// passes, U+2029 where U+2028 passes); none for the other classes.
pub fn other_kinds(class: &str) -> &'static [&'static str] {
    kinds_of(class).get(1..).unwrap_or_default()
}

/// `old` with `kind` inserted where [`representative`] inserts its class's
/// text (the middle, or where the op's syntax reads it).
pub fn with_kind(op: &str, class: &str, kind: &str, old: Option<&Json>) -> Json {
    insert_at_class_place(op, class, kind.encode_utf16().collect(), old)
}

/// `old` (or `x`) with `piece` inserted in its middle, or where the op's
/// syntax reads the class's text; never between the halves of a pair.
fn insert_at_class_place(op: &str, class: &str, piece: Vec<u16>, old: Option<&Json>) -> Json {
    let mut units = match old {
        Some(Json::String(text)) => text.units().to_vec(),
        _ => vec![u16::from(b'x')],
    };
    let mut middle = syntax_place(op, class, &units).unwrap_or(units.len() / 2);
    if units
        .get(middle)
        .is_some_and(|unit| (0xDC00..0xE000).contains(unit))
        && middle > 0
        && (0xD800..0xDC00).contains(&units[middle - 1])
    {
        middle += 1;
    }
    units.splice(middle..middle, piece);
    Json::String(JsString::from_units(units))
}

/// A value of class `class` for a leaf of type `leaf` of `op` whose value
/// is now `old` (`None` when absent): `Some(None)` leaves the member out
/// (`absent`); `None` for a class the leaf does not have. A string class
/// inserts its characters in the middle of the old string (or of `x`), so
/// that the rest of the request still means what it meant; a number class
/// moves the old number as little as the class allows.
pub fn representative(
    op: &str,
    leaf: Leaf,
    class: &str,
    old: Option<&Json>,
) -> Option<Option<Json>> {
    let number = match old {
        Some(Json::Number(x)) if x.is_finite() => *x,
        _ => 1.0,
    };
    Some(Some(match (leaf, class) {
        (_, "absent") => return Some(None),
        (_, "null") => Json::Null,
        (Leaf::String, "other-type") => Json::Number(7.0),
        (Leaf::Number, "other-type") => Json::String(JsString::from(
            json::to_ascii(&Json::Number(number)).as_str(),
        )),
        (Leaf::Boolean, "other-type") => Json::Number(1.0),
        (Leaf::Boolean, "true") => Json::Bool(true),
        (Leaf::Boolean, "false") => Json::Bool(false),
        (Leaf::Number, "zero") => Json::Number(0.0),
        (Leaf::Number, "negative-zero") => Json::Number(-0.0),
        (Leaf::Number, "negative") if number != 0.0 => Json::Number(-number.abs()),
        (Leaf::Number, "negative") => Json::Number(-1.0),
        (Leaf::Number, "fractional") if number.abs() < 4e15 => Json::Number(number.trunc() + 0.5),
        (Leaf::Number, "fractional") => Json::Number(1.5),
        (Leaf::Number, "wide-integer") => Json::Number(1e20),
        (Leaf::Number, "large-exponent") => Json::Number(1e21),
        (Leaf::Number, "unsafe-integer") => Json::Number(9_007_199_254_740_994.0),
        (Leaf::String, "empty") => Json::String(JsString::from("")),
        (Leaf::String, class) => insert_at_class_place(op, class, inserted(op, class)?, old),
        _ => return None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// runner.differential.valued: the `syntax` class of `mention/*` puts
    /// two label escapes just inside the first label, where the label's
    /// grammar reads them; elsewhere its text goes in the middle.
    #[test]
    fn mention_syntax_goes_inside_the_label() {
        let at = |old: &str| {
            let old = Json::String(JsString::from(old));
            match representative("mention/parse", Leaf::String, "syntax", Some(&old)) {
                Some(Some(Json::String(text))) => String::from_utf16_lossy(text.units()),
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(
            at("@[label](dsh-session:abc)"),
            "@[\\]\\alabel](dsh-session:abc)"
        );
        assert_eq!(at("abcd"), "ab\\]\\acd");
    }

    /// runner.differential.valued: the syntax edges of a mention text are
    /// before its first `@` and after the first explicit and the first
    /// bare URI's payload runs; a file line's only before its `@`.
    #[test]
    fn syntax_edges_sit_beside_the_grammar() {
        let units = |text: &str| text.encode_utf16().collect::<Vec<u16>>();
        let text = "a @[x](dsh-session:Ab-_) dsh-session:ImEi= z";
        assert_eq!(
            syntax_edges("mention/parse", &units(text)),
            [
                ("before @", 2),
                ("after explicit URI", 23),
                ("before bare URI", 25),
                ("after bare URI", 41)
            ]
        );
        assert_eq!(
            syntax_edges("files/token", &units("x @dsh-session:a")),
            [("before @", 2)]
        );
        assert!(syntax_edges("retain", &units("@x")).is_empty());
    }

    /// runner.value-reach: a representative of each class of each leaf of
    /// every op is in that class (so a run that sends them sends every
    /// class the vectors must hold).
    #[test]
    fn every_representative_is_in_its_class() {
        for op in [
            "uri/decode",
            "mention/parse",
            "retain",
            "prepare",
            "files/token",
        ] {
            for leaf in leaves(op) {
                for class in leaf.classes() {
                    let olds = [
                        None,
                        Some(Json::String(JsString::from("ab\u{1f600}"))),
                        Some(Json::Number(3.0)),
                    ];
                    for old in &olds {
                        let value = representative(op, leaf.leaf, class, old.as_ref())
                            .unwrap_or_else(|| panic!("{op} {} {class}", leaf.written()));
                        let Some(value) = value else {
                            assert_eq!(class, "absent");
                            continue;
                        };
                        let mut found = BTreeSet::new();
                        classify(op, &value, leaf.leaf, &mut found);
                        assert!(found.contains(class), "{op} {} {class}", leaf.written());
                    }
                }
            }
        }
    }

    #[test]
    fn places_name_every_slot_of_a_leaf_and_an_absent_member() {
        let input =
            json::parse(r#"{"references":[{"sessionId":"a"},{"label":"b"}]}"#).expect("fixture");
        let leaf = leaves("prepare")
            .into_iter()
            .find(|leaf| leaf.written() == "references[].label")
            .expect("a leaf");
        assert_eq!(leaf.places(&input).len(), 2);
    }
}
