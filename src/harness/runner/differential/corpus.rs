//! Requests grown from the vectors (spec `runner.differential.corpus`):
//! the suite's inputs are its best edge cases, so a share of each op's
//! cases starts from one of them and mutates it, structure-aware, instead
//! of drawing from the op's strategy alone.
//!
//! A seed is the input of a vector both implementations run (each declares
//! one of its features and every capability it needs). A mutation picks a
//! node of the seed's JSON tree and changes it as porting bugs are found:
//! a string spliced with a JavaScript-tricky piece, a number moved to a
//! boundary, an array item duplicated, dropped or moved, an array grown
//! past ten items, a member removed or set to `null`. The bytes that
//! choose the seed and the mutations are drawn by proptest, so shrinking
//! moves towards the seed unchanged and towards the first seed.

use super::plan::Plan;
use crate::harness::runner::adapter::Description;
use crate::harness::runner::vectors::{required_capabilities, Expect, Suite};
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::input_types::{self, Type};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The seeds of each planned op: the inputs of the vectors both `a` and
/// `b` run. An op whose behaviours differ between the sides
/// ([`Scope::is_mixed`](super::plan::Scope::is_mixed)) has none: its
/// vectors hold what only one defines.
pub fn seeds(
    plan: &Plan,
    a: &Description,
    b: &Description,
    suite: &Suite,
) -> BTreeMap<&'static str, Vec<Json>> {
    let (declared_a, declared_b) = (a.declared(), b.declared());
    let mut seeds: BTreeMap<&'static str, Vec<Json>> = BTreeMap::new();
    for planned in plan.ops.iter().filter(|planned| !planned.scope.is_mixed()) {
        let inputs: Vec<Json> = suite
            .vectors()
            .map(|(_, vector)| vector)
            .filter(|vector| vector.op == planned.op)
            .filter(|vector| {
                declared_a.satisfies(&vector.op, &vector.features)
                    && declared_b.satisfies(&vector.op, &vector.features)
            })
            .filter(|vector| {
                let expected = match &vector.expect {
                    Expect::Output(output) => output.clone(),
                    Expect::Error(_) => Json::Null,
                };
                vector
                    .requires
                    .iter()
                    .chain(&required_capabilities(&vector.op, &vector.input, &expected))
                    .all(|capability| plan.capabilities.contains(capability))
            })
            .map(|vector| vector.input.clone())
            .collect();
        if !inputs.is_empty() {
            seeds.insert(planned.op, inputs);
        }
    }
    seeds
}

/// Inputs grown from `seeds`: one seed, changed by up to six mutations.
pub fn strategy(op: &'static str, seeds: Vec<Json>) -> BoxedStrategy<Json> {
    let count = seeds.len();
    (0..count, prop::collection::vec(any::<[u8; 3]>(), 0..6))
        .prop_map(move |(index, mutations)| {
            mutations
                .iter()
                .fold(seeds[index].clone(), |input, mutation| {
                    mutate(op, input, *mutation)
                })
        })
        .boxed()
}

/// Pieces spliced into strings: what JavaScript strings, regular
/// expressions, tag safety and the mention syntax treat specially.
const PIECES: [&str; 16] = [
    "\u{2028}",
    "\u{feff}",
    "\u{a0}",
    "<",
    "&",
    "@[",
    "](",
    "dsh-session:",
    "\u{1f600}",
    "\\",
    "\"",
    "ß",
    "İ",
    " ",
    "\n",
    "\u{3000}",
];

/// Numbers a number is moved to: zero and its sign, one, the safe-integer
/// limit and past it, a fraction, a large and a tiny one.
const BOUNDARIES: [f64; 10] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    9_007_199_254_740_991.0,
    9_007_199_254_740_992.0,
    0.5,
    1e21,
    5e-324,
    65_536.0,
];

/// `op`'s `input` with one mutation: `choice[0]` picks the node (in
/// preorder), `choice[1]` what to do there, `choice[2]` where or with what.
/// A member the protocol types (`protocol.input-types`) is never removed,
/// nor set to `null` unless `null` reads as absent: the corpus changes the
/// values of the request's typed members, and what a request without one
/// answers is the input-type table's (and its vectors').
pub fn mutate(op: &str, input: Json, choice: [u8; 3]) -> Json {
    let nodes = count_nodes(&input);
    let mut target = usize::from(choice[0]) % nodes;
    let schema = input_types::input_members(op).map(Type::Object);
    change_node(input, schema, &mut target, choice[1], choice[2])
}

fn count_nodes(value: &Json) -> usize {
    1 + match value {
        Json::Array(items) => items.iter().map(count_nodes).sum(),
        Json::Object(members) => members.iter().map(|(_, value)| count_nodes(value)).sum(),
        _ => 0,
    }
}

/// The declared type of `name` inside a value of type `ty`, if typed.
fn member_type(ty: Option<Type>, name: &JsString) -> Option<Type> {
    match ty? {
        Type::Object(members) | Type::BooleanOrObject(members) => members
            .iter()
            .find(|member| name.is(member.name))
            .map(|member| member.ty),
        Type::Map(entry, _) => Some(*entry),
        _ => None,
    }
}

/// Walks to the `target`-th node in preorder and changes it; `ty` is the
/// node's declared type, when the protocol types it.
fn change_node(value: Json, ty: Option<Type>, target: &mut usize, what: u8, with: u8) -> Json {
    if *target == 0 {
        *target = usize::MAX;
        return change(value, ty, what, with);
    }
    *target -= 1;
    match value {
        Json::Array(items) => {
            let item = match ty {
                Some(Type::Array(item)) => Some(*item),
                _ => None,
            };
            Json::Array(
                items
                    .into_iter()
                    .map(|value| walk(value, item, target, what, with))
                    .collect(),
            )
        }
        Json::Object(members) => Json::Object(
            members
                .into_iter()
                .map(|(key, value)| {
                    let typed = member_type(ty, &key);
                    let value = walk(value, typed, target, what, with);
                    (key, value)
                })
                .collect(),
        ),
        other => other,
    }
}

/// [`change_node`] below a node, unless the change was made already.
fn walk(value: Json, ty: Option<Type>, target: &mut usize, what: u8, with: u8) -> Json {
    if *target == usize::MAX {
        value
    } else {
        change_node(value, ty, target, what, with)
    }
}

/// Whether member `name` of an object of type `ty` may be removed
/// (`null`: set to `null`): only when the protocol does not type it (or,
/// for `null`, when `null` reads as absent).
fn may_drop(ty: Option<Type>, name: &JsString, null: bool) -> bool {
    match ty {
        Some(Type::Object(members) | Type::BooleanOrObject(members)) => members
            .iter()
            .find(|member| name.is(member.name))
            .is_none_or(|member| null && member.nullable),
        Some(Type::Map(..)) => !null,
        _ => true,
    }
}

/// One change of one node, as its type allows.
fn change(value: Json, ty: Option<Type>, what: u8, with: u8) -> Json {
    let at = usize::from(with);
    match value {
        Json::String(text) => {
            let mut units = text.units().to_vec();
            let piece: Vec<u16> = PIECES[at % PIECES.len()].encode_utf16().collect();
            let place = if units.is_empty() {
                0
            } else {
                usize::from(what) % (units.len() + 1)
            };
            units.splice(place..place, piece);
            Json::String(JsString::from_units(units))
        }
        Json::Number(number) => Json::Number(match what % 3 {
            0 => BOUNDARIES[at % BOUNDARIES.len()],
            1 => number + 1.0,
            _ => number - 1.0,
        }),
        Json::Array(mut items) if !items.is_empty() => {
            let index = at % items.len();
            match what % 4 {
                0 => {
                    let copy = items[index].clone();
                    items.insert(index, copy);
                }
                1 => {
                    items.remove(index);
                }
                2 => {
                    let moved = items.remove(index);
                    items.push(moved);
                }
                _ => {
                    // Past ten items: transcript numbering, long listings.
                    let original = items.clone();
                    while items.len() <= 10 {
                        items.extend(original.iter().cloned());
                    }
                }
            }
            Json::Array(items)
        }
        Json::Object(mut members) if !members.is_empty() => {
            let index = at % members.len();
            let null = what % 2 == 1;
            if may_drop(ty, &members[index].0, null) {
                if null {
                    members[index].1 = Json::Null;
                } else {
                    members.remove(index);
                }
            }
            Json::Object(members)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::{parse, to_ascii};

    fn mutated(input: &str, choice: [u8; 3]) -> String {
        to_ascii(&mutate("json/tag-safe", parse(input).unwrap(), choice))
    }

    /// runner.differential.corpus: each kind of change, at the node chosen.
    #[test]
    fn a_mutation_changes_one_node_as_its_type_allows() {
        // Preorder: 0 the object, 1 the string "ab", 2 the number 7.
        assert_eq!(
            mutated(r#"{"a":"ab","n":7}"#, [1, 1, 3]),
            r#"{"a":"a<b","n":7}"#
        );
        assert_eq!(
            mutated(r#"{"a":"ab","n":7}"#, [2, 0, 1]),
            r#"{"a":"ab","n":-0}"#
        );
        assert_eq!(
            mutated(r#"{"a":"ab","n":7}"#, [2, 1, 0]),
            r#"{"a":"ab","n":8}"#
        );
        assert_eq!(mutated(r#"{"a":"ab","n":7}"#, [0, 0, 1]), r#"{"a":"ab"}"#);
        assert_eq!(
            mutated(r#"{"a":"ab","n":7}"#, [0, 1, 0]),
            r#"{"a":null,"n":7}"#
        );
        assert_eq!(mutated("[1,2,3]", [0, 0, 1]), "[1,2,2,3]");
        assert_eq!(mutated("[1,2,3]", [0, 1, 0]), "[2,3]");
        assert_eq!(mutated("[1,2]", [0, 3, 0]).matches(',').count(), 11);
    }

    /// runner.differential.corpus: a member the protocol types stays, and
    /// is set to null only where null reads as absent; others go.
    #[test]
    fn typed_members_keep_their_place() {
        let input = r#"{"agent":{"id":"a","x":1},"config":{"maxReferences":2}}"#;
        let retain = |choice| to_ascii(&mutate("candidates/list", parse(input).unwrap(), choice));
        // Node 1 is agent: removing its id does nothing, its x goes.
        assert_eq!(retain([1, 0, 0]), input);
        assert_eq!(
            retain([1, 0, 1]),
            r#"{"agent":{"id":"a"},"config":{"maxReferences":2}}"#
        );
        assert_eq!(retain([1, 1, 0]), input);
        // The root: config may be null (absent), agent may not.
        assert_eq!(
            retain([0, 1, 1]),
            r#"{"agent":{"id":"a","x":1},"config":null}"#
        );
        assert_eq!(retain([0, 1, 0]), input);
    }
}
