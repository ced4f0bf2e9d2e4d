//! Value reach (issue #59): every value class of every typed leaf member of
//! the input-type table appears in a vector of every op that reads the
//! member. Fast: the suite is read, nothing is run.
//!
//! The leaves are the `Type::String`, `Type::Number` and `Type::Boolean`
//! members of `input_types::input_members(op)`, walked recursively through
//! `Type::Object` members, `Type::Array` items, `Type::Map` values and
//! `Type::BooleanOrObject` members; `Type::Any` leaves have no other type
//! and are skipped. A path writes an object's member `a.b`, every item of
//! an array `a[]`, every value of a map `a{}`.
//!
//! A value at a member path is classified (a value may be in several
//! classes):
//!
//! - every member: `null` (the member present with value `null`), `absent`
//!   (its parent object present, the member missing; an array item or a
//!   map value has no `absent`), `other-type` (a JSON value of a type other
//!   than the declared one, not `null`).
//! - `Type::Number`: `zero` (+0), `negative-zero` (-0), `negative` (< 0),
//!   `fractional` (finite, not an integer), `large-exponent` (finite, |x| ≥
//!   1e21, which JavaScript writes with an exponent), `unsafe-integer` (a
//!   finite integer with |x| > 2^53).
//! - `Type::String` (a JavaScript string, UTF-16 code units): `empty`;
//!   `ascii-whitespace` (contains U+0020, U+0009, U+000A or U+000D);
//!   `js-whitespace` (contains U+00A0, U+FEFF, U+000B, U+000C, U+1680,
//!   U+2000–U+200A, U+202F, U+205F or U+3000, JavaScript whitespace outside
//!   the ASCII four); `line-separator` (contains U+2028 or U+2029);
//!   `lone-surrogate` (a surrogate code unit not in a valid pair); `astral`
//!   (contains a valid surrogate pair); `escaped-elsewhere` (contains all
//!   five of `'` `<` `>` `&` `/`, which other languages' JSON writers escape
//!   by default); `syntax` (contains the op's own syntax: for `uri/*` the
//!   text `dsh-session:`; for `mention/*` both `]` and `\`; for `files/*`
//!   both `@` and `"`; for `candidates/*` one of `İ` (U+0130) or `ß`; for
//!   every other op `<`).
//! - `Type::Boolean`: `true`, `false`.
//!
//! A member whose enclosing object or array no vector of the op holds is
//! missing every class. A class whose every value puts the request outside
//! the protocol's shapes (`conformance/schema/protocol-v1.schema.json`: an
//! enumeration, a minimum, a required member that the input-type table does
//! not flag as `dynamic-inputs`) asks nothing of an implementation and is
//! listed in [`LEFT_OUT`] instead. `conformance/tools/value-classes.py`
//! writes a vector for each missing triple
//! (`conformance/vectors/<area>/values.json`); `regen` fills their
//! expectations from the oracles.

use dsh_session_reference::checks::{known_op, known_op_count};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::js::json::Json;
use dsh_session_reference::protocol::input_types::{input_members, Member, Type};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The JSON type of a leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf {
    String,
    Number,
    Boolean,
}

impl Leaf {
    fn name(self) -> &'static str {
        match self {
            Leaf::String => "string",
            Leaf::Number => "number",
            Leaf::Boolean => "boolean",
        }
    }

    /// The classes a value of this leaf can be in; an array item or a map
    /// value (`in_object` false) cannot be `absent`.
    fn classes(self, in_object: bool) -> Vec<&'static str> {
        let mut classes = vec!["null"];
        if in_object {
            classes.push("absent");
        }
        classes.push("other-type");
        classes.extend_from_slice(match self {
            Leaf::Number => &[
                "zero",
                "negative-zero",
                "negative",
                "fractional",
                "large-exponent",
                "unsafe-integer",
            ],
            Leaf::String => &[
                "empty",
                "ascii-whitespace",
                "js-whitespace",
                "line-separator",
                "lone-surrogate",
                "astral",
                "escaped-elsewhere",
                "syntax",
            ],
            Leaf::Boolean => &["true", "false"],
        });
        classes
    }
}

/// One step of a member path.
#[derive(Clone, Debug)]
enum Step {
    /// An object's member (also a `BooleanOrObject` that is an object).
    Member(&'static str),
    /// Every item of an array.
    Items,
    /// Every value of a map.
    Values,
}

/// A typed leaf of an op's input: its steps and its type.
#[derive(Clone, Debug)]
struct LeafPath {
    steps: Vec<Step>,
    leaf: Leaf,
}

impl LeafPath {
    /// `references[].label`, `sessions{}.session.id`.
    fn written(&self) -> String {
        let mut out = String::new();
        for step in &self.steps {
            match step {
                Step::Member(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Step::Items => out.push_str("[]"),
                Step::Values => out.push_str("{}"),
            }
        }
        out
    }

    fn in_object(&self) -> bool {
        matches!(self.steps.last(), Some(Step::Member(_)))
    }
}

fn leaves_of_members(members: &[Member], steps: &mut Vec<Step>, out: &mut Vec<LeafPath>) {
    for member in members {
        steps.push(Step::Member(member.name));
        leaves_of_type(member.ty, steps, out);
        steps.pop();
    }
}

fn leaves_of_type(ty: Type, steps: &mut Vec<Step>, out: &mut Vec<LeafPath>) {
    let leaf = match ty {
        Type::String => Leaf::String,
        Type::Number => Leaf::Number,
        Type::Boolean => Leaf::Boolean,
        Type::Any => return,
        Type::Object(members) | Type::BooleanOrObject(members) => {
            return leaves_of_members(members, steps, out)
        }
        Type::Array(item) => {
            steps.push(Step::Items);
            leaves_of_type(*item, steps, out);
            steps.pop();
            return;
        }
        Type::Map(value, _) => {
            steps.push(Step::Values);
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

/// Every typed leaf of `op`'s input.
fn leaves(op: &str) -> Vec<LeafPath> {
    let mut out = Vec::new();
    leaves_of_members(
        input_members(op).expect("a known op"),
        &mut Vec::new(),
        &mut out,
    );
    out
}

/// An object's member `name` as `JSON.parse` keeps it (the last of
/// duplicates).
fn member<'j>(
    object: &'j [(dsh_session_reference::js::JsString, Json)],
    name: &str,
) -> Option<&'j Json> {
    object
        .iter()
        .rev()
        .find(|(key, _)| key.is(name))
        .map(|(_, value)| value)
}

/// The classes of the values at `steps` below `value`, added to `found`.
fn classify_at(
    op: &str,
    value: &Json,
    steps: &[Step],
    leaf: Leaf,
    found: &mut BTreeSet<&'static str>,
) {
    let Some((step, rest)) = steps.split_first() else {
        classify(op, value, leaf, found);
        return;
    };
    match step {
        Step::Member(name) => {
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
        Step::Items => {
            for item in value.as_array().into_iter().flatten() {
                classify_at(op, item, rest, leaf, found);
            }
        }
        Step::Values => {
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
fn classify(op: &str, value: &Json, leaf: Leaf, found: &mut BTreeSet<&'static str>) {
    match (leaf, value) {
        (_, Json::Null) => {
            found.insert("null");
        }
        (Leaf::Number, Json::Number(x)) => {
            let x = *x;
            if x == 0.0 {
                found.insert(if x.is_sign_negative() {
                    "negative-zero"
                } else {
                    "zero"
                });
            }
            if x < 0.0 {
                found.insert("negative");
            }
            if x.is_finite() && x.fract() != 0.0 {
                found.insert("fractional");
            }
            if x.is_finite() && x.abs() >= 1e21 {
                found.insert("large-exponent");
            }
            if x.is_finite() && x.fract() == 0.0 && x.abs() > 9_007_199_254_740_992.0 {
                found.insert("unsafe-integer");
            }
        }
        (Leaf::String, Json::String(text)) => {
            let units = text.units();
            if units.is_empty() {
                found.insert("empty");
            }
            if units.iter().any(|unit| ASCII_WHITESPACE.contains(unit)) {
                found.insert("ascii-whitespace");
            }
            if units.iter().any(|unit| is_js_whitespace(*unit)) {
                found.insert("js-whitespace");
            }
            if units.iter().any(|unit| matches!(unit, 0x2028 | 0x2029)) {
                found.insert("line-separator");
            }
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
                if (0xD800..0xE000).contains(&unit) {
                    lone = true;
                }
                at += 1;
            }
            if lone {
                found.insert("lone-surrogate");
            }
            if pair {
                found.insert("astral");
            }
            if ['\'', '<', '>', '&', '/']
                .iter()
                .all(|c| contains(units, c.encode_utf8(&mut [0; 4])))
            {
                found.insert("escaped-elsewhere");
            }
            if has_syntax(op, units) {
                found.insert("syntax");
            }
        }
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

/// The value classes no vector holds on purpose: every request with such a
/// value is outside the protocol's shapes (`protocol.shapes`,
/// `conformance/schema/protocol-v1.schema.json`, which every vector's
/// request meets unless it requires `dynamic-inputs`), so it asks nothing of
/// an implementation: as `(ops, path, classes, the shape it breaks)`.
const LEFT_OUT: &[(&[&str], &str, &[&str], &str)] = &[
    (
        &["prepare", "pre-step"],
        "spill.mode",
        &[
            "absent",
            "empty",
            "ascii-whitespace",
            "js-whitespace",
            "line-separator",
            "lone-surrogate",
            "astral",
            "escaped-elsewhere",
            "syntax",
        ],
        "a spill store's mode is required and one of unconfigured, saves, fails",
    ),
    (
        &["prepare", "pre-step"],
        "agent.route.provider",
        &["absent"],
        "a route has a provider and a model",
    ),
    (
        &["prepare", "pre-step"],
        "agent.route.model",
        &["absent"],
        "a route has a provider and a model",
    ),
    (
        &["prepare", "pre-step"],
        "sessions{}.session.id",
        &["absent"],
        "a snapshot's session has an id",
    ),
    (
        &["retain"],
        "snapshot.session.id",
        &["absent"],
        "a snapshot's session has an id (the oracles differ on it too)",
    ),
    (
        &["prepare", "pre-step"],
        "sessions{}.events[].type",
        &["absent"],
        "an event has a type",
    ),
    (
        &["retain"],
        "snapshot.events[].type",
        &["absent"],
        "an event has a type",
    ),
    (
        &["retain"],
        "maxBytes",
        &["zero", "negative-zero", "negative", "fractional"],
        "retain's budget is an integer of at least 1",
    ),
];

/// Whether `LEFT_OUT` leaves out this triple.
fn left_out(op: &str, path: &str, class: &str) -> bool {
    LEFT_OUT.iter().any(|(ops, left, classes, _)| {
        ops.contains(&op) && *left == path && classes.contains(&class)
    })
}

/// One missing triple: op, written path, class, and the leaf's type.
struct Missing {
    op: &'static str,
    path: String,
    class: &'static str,
    leaf: Leaf,
}

fn missing_triples(suite: &Suite) -> Vec<Missing> {
    let mut inputs: BTreeMap<&str, Vec<&Json>> = BTreeMap::new();
    for (_, vector) in suite.vectors() {
        inputs
            .entry(vector.op.as_str())
            .or_default()
            .push(&vector.input);
    }
    let mut missing = Vec::new();
    for op in (0..known_op_count()).filter_map(known_op) {
        for leaf in leaves(op) {
            let mut found = BTreeSet::new();
            for input in inputs.get(op).into_iter().flatten() {
                classify_at(op, input, &leaf.steps, leaf.leaf, &mut found);
            }
            let path = leaf.written();
            for class in leaf.leaf.classes(leaf.in_object()) {
                if !found.contains(class) && !left_out(op, &path, class) {
                    missing.push(Missing {
                        op,
                        path: leaf.written(),
                        class,
                        leaf: leaf.leaf,
                    });
                }
            }
        }
    }
    missing
}

// runner.value-reach: every value class of every typed leaf member of
// the input-type table (protocol.input-types) is in a vector of every op
// that reads the member.
#[test]
fn every_value_class_of_every_typed_member_is_in_a_vector() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors");
    let suite = Suite::load(&dir).unwrap_or_else(|error| panic!("{error}"));
    let missing = missing_triples(&suite);
    // For the generator: the missing triples with their leaves' types.
    if let Some(out) = std::env::var_os("VALUE_REACH_MISSING") {
        let lines: String = missing
            .iter()
            .map(|m| format!("{}\t{}\t{}\t{}\n", m.op, m.path, m.class, m.leaf.name()))
            .collect();
        std::fs::write(out, lines).expect("VALUE_REACH_MISSING is writable");
    }
    let lines: Vec<String> = missing
        .iter()
        .map(|m| format!("{} {} {}", m.op, m.path, m.class))
        .collect();
    assert!(
        lines.is_empty(),
        "{}\n{} (op, member, class) triples in no vector (runner.value-reach; \
         conformance/tools/value-classes.py writes vectors for them)",
        lines.join("\n"),
        lines.len()
    );
}

/// Each triple left out is a typed leaf's class that no vector holds (one
/// that a vector holds is no longer left out: remove it from `LEFT_OUT`).
#[test]
fn triples_left_out_are_in_no_vector() {
    // runner.value-reach: the list of left-out triples cannot go stale.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors");
    let suite = Suite::load(&dir).unwrap_or_else(|error| panic!("{error}"));
    for (ops, path, classes, _) in LEFT_OUT {
        for op in *ops {
            let leaf = leaves(op)
                .into_iter()
                .find(|leaf| leaf.written() == *path)
                .unwrap_or_else(|| panic!("{op} {path} is no typed leaf"));
            let mut held = BTreeSet::new();
            for (_, vector) in suite.vectors().filter(|(_, vector)| vector.op == *op) {
                classify_at(op, &vector.input, &leaf.steps, leaf.leaf, &mut held);
            }
            for class in *classes {
                assert!(
                    leaf.leaf.classes(leaf.in_object()).contains(class),
                    "{op} {path}: no class {class}"
                );
                assert!(
                    !held.contains(class),
                    "{op} {path} {class} is in a vector: remove it from LEFT_OUT"
                );
            }
        }
    }
}

/// The classification itself, on values whose classes are known.
#[test]
fn values_are_classified_as_defined() {
    let classes = |op: &str, leaf: Leaf, text: &str| -> Vec<&'static str> {
        let value = dsh_session_reference::js::json::parse(text).expect("fixture");
        let mut found = BTreeSet::new();
        classify(op, &value, leaf, &mut found);
        found.into_iter().collect()
    };
    assert_eq!(classes("retain", Leaf::Number, "-0"), ["negative-zero"]);
    assert_eq!(classes("retain", Leaf::Number, "0"), ["zero"]);
    assert_eq!(
        classes("retain", Leaf::Number, "-1e21"),
        ["large-exponent", "negative", "unsafe-integer"]
    );
    assert_eq!(
        classes("retain", Leaf::Number, "9007199254740992"),
        Vec::<&str>::new()
    );
    assert_eq!(
        classes("retain", Leaf::Number, "9007199254740994"),
        ["unsafe-integer"]
    );
    assert_eq!(
        classes("retain", Leaf::Number, "-0.5"),
        ["fractional", "negative"]
    );
    assert_eq!(classes("retain", Leaf::Number, "\"1\""), ["other-type"]);
    assert_eq!(classes("retain", Leaf::Number, "null"), ["null"]);
    assert_eq!(classes("retain", Leaf::String, "\"\""), ["empty"]);
    assert_eq!(
        classes("retain", Leaf::String, r#""a\ud800 \ud83d\ude00""#),
        ["ascii-whitespace", "astral", "lone-surrogate"]
    );
    assert_eq!(
        classes("retain", Leaf::String, r#""\udc00\ud800""#),
        ["lone-surrogate"]
    );
    assert_eq!(
        classes("retain", Leaf::String, r#""'<>&/\u2028\u00a0""#),
        [
            "escaped-elsewhere",
            "js-whitespace",
            "line-separator",
            "syntax"
        ]
    );
    assert_eq!(
        classes("uri/decode", Leaf::String, "\"<\""),
        Vec::<&str>::new()
    );
    assert_eq!(
        classes("uri/decode", Leaf::String, "\"dsh-session:x\""),
        ["syntax"]
    );
    assert_eq!(
        classes("mention/parse", Leaf::String, r#""]""#),
        Vec::<&str>::new()
    );
    assert_eq!(
        classes("mention/parse", Leaf::String, r#""]\\""#),
        ["syntax"]
    );
    assert_eq!(classes("files/token", Leaf::String, r#""@\"""#), ["syntax"]);
    assert_eq!(
        classes("candidates/list", Leaf::String, "\"ß\""),
        ["syntax"]
    );
    assert_eq!(
        classes("candidates/list", Leaf::Boolean, "\"ß\""),
        ["other-type"]
    );
    assert_eq!(classes("files/format", Leaf::Boolean, "false"), ["false"]);
}
