//! Value reach (issue #59): every value class of every typed leaf member of
//! the input-type table appears in a vector of every op that reads the
//! member. Fast: the suite is read, nothing is run.
//!
//! The leaves and their value classes are defined once, in
//! `harness::runner::value_classes` (which `differential` also draws from).
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
use dsh_session_reference::harness::runner::value_classes::{classify, classify_at, leaves, Leaf};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::js::json::Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

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
            "delete",
            "c1-control",
            "combining",
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
            for class in leaf.classes() {
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
                    leaf.classes().contains(class),
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
