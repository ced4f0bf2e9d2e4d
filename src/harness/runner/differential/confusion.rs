//! Type confusion (spec `runner.differential.reach`): when both sides
//! declare `dynamic-inputs`, one case in eight takes a drawn or grown
//! request and edits it where a dynamic language's port meets inputs a
//! typed one never sees. Each case makes one to three edits; each edit
//! picks any node below the input object (an object member or an array
//! item, at any depth) and
//! - replaces it by a value of another JSON type ([`VALUES`]),
//! - removes it,
//! - or, at an object, adds a member whose key is integer-like (upstream's
//!   objects write canonical array indices first, `JSON.parse` keeps the
//!   last of repeated keys) or repeats one of its keys.
//!
//! Schemathesis's negative requests, SmallCheck's small values: nothing
//! here knows what upstream answers; the other side does.

use crate::harness::runner::json_path::{node_at, rewritten, Step};
use crate::js::json::Json;
use crate::js::JsString;
use proptest::prelude::*;

/// The values a confused member takes: one of each JSON type, and the
/// edges of each (spec `runner.differential.reach`).
pub const VALUES: [&str; 12] = [
    "null",
    "0",
    "-1",
    "1.5",
    "\"\"",
    "\"x\"",
    "true",
    "false",
    "[]",
    "{}",
    "[null]",
    "{\"a\":1}",
];

/// Keys that look like integers to JavaScript or almost do: canonical
/// array indices (the last one is 2^32 − 2) and near misses.
const INTEGER_LIKE_KEYS: [&str; 8] = ["1", "0", "10", "2", "4294967294", "4294967295", "01", "-1"];

/// One case of each op in this many is type-confused: its last.
pub const EVERY: u64 = 8;

/// Whether an op's `nth` case (from 0) is type-confused.
pub fn is_confused(nth: u64) -> bool {
    nth % EVERY == EVERY - 1
}

/// Bytes that choose the edits: a count, four bytes per edit, then four
/// for the integer-like key every confused case adds to one object.
const CHOICE_BYTES: usize = 1 + 3 * 4 + 4;

/// The bytes a confused case draws after its input.
fn choices() -> BoxedStrategy<Vec<u8>> {
    prop::collection::vec(any::<u8>(), CHOICE_BYTES..=CHOICE_BYTES).boxed()
}

/// `inputs`, each with one to three type-confusing edits and an
/// integer-like key: the input is drawn first, so a confused case edits
/// the input its case would draw.
pub fn strategy(inputs: BoxedStrategy<Json>) -> BoxedStrategy<Json> {
    (inputs, choices())
        .prop_map(|(input, choices)| confuse(input, &choices))
        .boxed()
}

/// What an edit does to the node it picked.
enum Change {
    /// Replace it by this value.
    Replace(Json),
    /// Remove it.
    Remove,
    /// Add a member with this integer-like key at this place (an object).
    AddKey(JsString, usize, Json),
    /// Write this member again with another value (an object).
    RepeatKey(JsString, Json),
}

/// `input` with the edits `choices` picks (missing bytes read as zero).
pub fn confuse(mut input: Json, choices: &[u8]) -> Json {
    let byte = |at: usize| choices.get(at).copied().unwrap_or(0);
    let pick = |at: usize| usize::from(u16::from_be_bytes([byte(at), byte(at + 1)]));
    for edit in 0..1 + usize::from(byte(0)) % 3 {
        let base = 1 + edit * 4;
        let mut paths = Vec::new();
        node_paths(&input, &mut Vec::new(), &mut paths);
        // Never the input object itself: its members are what is confused.
        let Some(path) = paths.get(1 + pick(base) % paths.len().saturating_sub(1).max(1)) else {
            break;
        };
        let Some(node) = node_at(&input, path) else {
            break;
        };
        let change = change_of(node, byte(base + 2), byte(base + 3));
        input = rewritten(input, path, &|node| made(node, &change));
    }
    // Every confused case gives one object an integer-like key: the
    // objects a port copies to its answer are among them.
    let mut paths = Vec::new();
    node_paths(&input, &mut Vec::new(), &mut paths);
    let objects: Vec<&Vec<Step>> = paths
        .iter()
        .skip(1)
        .filter(|path| node_at(&input, path).is_some_and(|node| node.as_object().is_some()))
        .collect();
    if !objects.is_empty() {
        let at = 1 + 3 * 4;
        let path = objects[pick(at) % objects.len()].clone();
        let members = node_at(&input, &path)
            .and_then(Json::as_object)
            .map_or(0, <[_]>::len);
        let key =
            JsString::from(INTEGER_LIKE_KEYS[usize::from(byte(at + 2)) % INTEGER_LIKE_KEYS.len()]);
        let change = Change::AddKey(
            key,
            usize::from(byte(at + 3)) % (members + 1),
            Json::Number(0.0),
        );
        input = rewritten(input, &path, &|node| made(node, &change));
    }
    input
}

/// Every node's path, in preorder (the root's is empty).
fn node_paths(value: &Json, path: &mut Vec<Step>, paths: &mut Vec<Vec<Step>>) {
    paths.push(path.clone());
    match value {
        Json::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Item(index));
                node_paths(item, path, paths);
                path.pop();
            }
        }
        Json::Object(members) => {
            for (key, item) in members {
                path.push(Step::Member(key.clone()));
                node_paths(item, path, paths);
                path.pop();
            }
        }
        _ => {}
    }
}

fn change_of(node: &Json, what: u8, with: u8) -> Change {
    let members = node.as_object().map_or(0, <[_]>::len);
    let replace = |index: usize| Change::Replace(value(VALUES[index % VALUES.len()]));
    match what % 16 {
        index @ 0..=11 => replace(usize::from(index)),
        12 | 13 => Change::Remove,
        14 if node.as_object().is_some() => Change::AddKey(
            JsString::from(INTEGER_LIKE_KEYS[usize::from(with) % INTEGER_LIKE_KEYS.len()]),
            usize::from(with / 8) % (members + 1),
            Json::Number(f64::from(with % 4)),
        ),
        15 if members > 0 => {
            let (key, _) = &node.as_object().unwrap_or_default()[usize::from(with) % members];
            Change::RepeatKey(key.clone(), value(VALUES[usize::from(with) % VALUES.len()]))
        }
        _ => replace(usize::from(with)),
    }
}

fn value(text: &str) -> Json {
    crate::js::json::parse(text).unwrap_or(Json::Null)
}

/// The node `change` makes of `node`; `None` removes it.
fn made(node: Json, change: &Change) -> Option<Json> {
    match change {
        Change::Replace(replacement) => Some(replacement.clone()),
        Change::Remove => None,
        Change::AddKey(key, at, value) => match node {
            Json::Object(mut members) => {
                members.insert((*at).min(members.len()), (key.clone(), value.clone()));
                Some(Json::Object(members))
            }
            other => Some(other),
        },
        Change::RepeatKey(key, value) => match node {
            Json::Object(mut members) => {
                members.push((key.clone(), value.clone()));
                Some(Json::Object(members))
            }
            other => Some(other),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::{parse, to_wire};

    fn confused(input: &str, choices: &[u8]) -> String {
        to_wire(&confuse(parse(input).expect("fixture"), choices))
    }

    #[test]
    fn an_edit_replaces_removes_or_adds_keys_anywhere_below_the_input() {
        // Missing bytes read as zero: after its edits, every case gives its
        // first object the key "1" at its start.
        let input = r#"{"a":{"b":[1,2]},"c":"x"}"#;
        // Node 1 is `a`; 0 replaces by null (no object is left for a key).
        assert_eq!(confused(input, &[0, 0, 0, 0, 0]), r#"{"a":null,"c":"x"}"#);
        // Node 3 is the first item of `b`; 12 removes it.
        assert_eq!(
            confused(input, &[0, 0, 2, 12, 0]),
            r#"{"a":{"1":0,"b":[2]},"c":"x"}"#
        );
        // Node 5 is `c`; 9 replaces by {}.
        assert_eq!(
            confused(input, &[0, 0, 4, 9, 0]),
            r#"{"a":{"1":0,"b":[1,2]},"c":{}}"#
        );
        // Node 1 is an object: 14 adds the key "10" (10 % 8 = 2) at 10 / 8 % 2 = 1, its end.
        assert_eq!(
            confused(input, &[0, 0, 0, 14, 10]),
            r#"{"a":{"1":0,"b":[1,2],"10":2},"c":"x"}"#
        );
        // 15 repeats a key of the object with another value.
        assert_eq!(
            confused(input, &[0, 0, 0, 15, 5]),
            r#"{"a":{"1":0,"b":[1,2],"b":"x"},"c":"x"}"#
        );
    }

    #[test]
    fn every_confused_case_gives_one_object_an_integer_like_key() {
        // One edit: node 1 + 2 % 4 = 3 is `c`, replaced by null. Then the
        // only object left, `a`, gets the key "10" (2) at place 1 % 2.
        let choices = [0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 1];
        assert_eq!(
            confused(r#"{"a":{"b":1},"c":{"d":2}}"#, &choices),
            r#"{"a":{"b":1,"10":0},"c":null}"#
        );
    }

    #[test]
    fn up_to_three_edits_and_never_the_input_object() {
        let input = r#"{"a":1,"b":2,"c":3}"#;
        assert_eq!(
            confused(input, &[2, 0, 0, 12, 0, 0, 0, 12, 0, 0, 0, 12, 0]),
            "{}"
        );
        assert_eq!(confused("{}", &[2, 0, 0, 0, 0]), "{}");
    }
}
