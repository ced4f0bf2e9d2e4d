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

/// Bytes that choose the edits: a count, then four bytes per edit.
const CHOICE_BYTES: usize = 1 + 3 * 4;

/// `inputs`, each with one to three type-confusing edits: the input is
/// drawn first, so a confused case edits the input its case would draw.
pub fn strategy(inputs: BoxedStrategy<Json>) -> BoxedStrategy<Json> {
    (
        inputs,
        prop::collection::vec(any::<u8>(), CHOICE_BYTES..=CHOICE_BYTES),
    )
        .prop_map(|(input, choices)| confuse(input, &choices))
        .boxed()
}

/// `input` with the edits `choices` picks (missing bytes read as zero).
pub fn confuse(mut input: Json, choices: &[u8]) -> Json {
    let byte = |at: usize| choices.get(at).copied().unwrap_or(0);
    let edits = 1 + usize::from(byte(0)) % 3;
    for edit in 0..edits {
        let base = 1 + edit * 4;
        let nodes = count_nodes(&input);
        if nodes <= 1 {
            break;
        }
        let picked = usize::from(u16::from_be_bytes([byte(base), byte(base + 1)]));
        // Never the input object itself: its members are what is confused.
        let mut target = 1 + picked % (nodes - 1);
        input = edit_node(input, &mut target, byte(base + 2), byte(base + 3));
    }
    input
}

fn count_nodes(value: &Json) -> usize {
    1 + match value {
        Json::Array(items) => items.iter().map(count_nodes).sum(),
        Json::Object(members) => members.iter().map(|(_, value)| count_nodes(value)).sum(),
        _ => 0,
    }
}

/// What an edit does to the node it picked.
enum Edit {
    Replace(Json),
    Remove,
    AddKey(JsString, usize),
    RepeatKey(usize),
}

fn edit_of(node: &Json, what: u8, with: u8) -> Edit {
    let members = node.as_object().map_or(0, <[_]>::len);
    match what % 16 {
        index @ 0..=11 => Edit::Replace(value(VALUES[usize::from(index)])),
        12 | 13 => Edit::Remove,
        14 if node.as_object().is_some() => Edit::AddKey(
            JsString::from(INTEGER_LIKE_KEYS[usize::from(with) % INTEGER_LIKE_KEYS.len()]),
            usize::from(with / 8) % (members + 1),
        ),
        15 if members > 0 => Edit::RepeatKey(usize::from(with) % members),
        _ => Edit::Replace(value(VALUES[usize::from(with) % VALUES.len()])),
    }
}

fn value(text: &str) -> Json {
    crate::js::json::parse(text).unwrap_or(Json::Null)
}

/// Walks to the `target`-th node in preorder (the root is 0) and edits it.
fn edit_node(value: Json, target: &mut usize, what: u8, with: u8) -> Json {
    edit_below(value, target, what, with).unwrap_or(Json::Null)
}

/// [`edit_node`]; `None` for the node the edit removes.
fn edit_below(value: Json, target: &mut usize, what: u8, with: u8) -> Option<Json> {
    if *target == 0 {
        *target = usize::MAX;
        return apply(value, what, with);
    }
    *target -= 1;
    Some(match value {
        Json::Array(items) => Json::Array(
            items
                .into_iter()
                .filter_map(|item| walk(item, target, what, with))
                .collect(),
        ),
        Json::Object(members) => Json::Object(
            members
                .into_iter()
                .filter_map(|(key, item)| walk(item, target, what, with).map(|item| (key, item)))
                .collect(),
        ),
        other => other,
    })
}

fn walk(value: Json, target: &mut usize, what: u8, with: u8) -> Option<Json> {
    if *target == usize::MAX {
        Some(value)
    } else {
        edit_below(value, target, what, with)
    }
}

/// The edit `what` and `with` choose, made to `node`; `None` removes it.
fn apply(node: Json, what: u8, with: u8) -> Option<Json> {
    match edit_of(&node, what, with) {
        Edit::Replace(replacement) => Some(replacement),
        Edit::Remove => None,
        Edit::AddKey(key, at) => {
            let Json::Object(mut members) = node else {
                return Some(node);
            };
            members.insert(at, (key, Json::Number(f64::from(with % 4))));
            Some(Json::Object(members))
        }
        Edit::RepeatKey(index) => {
            let Json::Object(mut members) = node else {
                return Some(node);
            };
            let key = members[index].0.clone();
            members.push((key, value(VALUES[usize::from(with) % VALUES.len()])));
            Some(Json::Object(members))
        }
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
        let input = r#"{"a":{"b":[1,2]},"c":"x"}"#;
        // Node 1 is `a`; 0 replaces by null.
        assert_eq!(confused(input, &[0, 0, 0, 0, 0]), r#"{"a":null,"c":"x"}"#);
        // Node 3 is the first item of `b`; 12 removes it.
        assert_eq!(
            confused(input, &[0, 0, 2, 12, 0]),
            r#"{"a":{"b":[2]},"c":"x"}"#
        );
        // Node 5 is `c`; 9 replaces by {}.
        assert_eq!(
            confused(input, &[0, 0, 4, 9, 0]),
            r#"{"a":{"b":[1,2]},"c":{}}"#
        );
        // Node 1 is an object: 14 adds the key "1" (8 % 8 = 0) at 8 / 8 % 2 = 1, its end.
        assert_eq!(
            confused(input, &[0, 0, 0, 14, 8]),
            r#"{"a":{"b":[1,2],"1":0},"c":"x"}"#
        );
        // 15 repeats a key of the object with another value.
        assert_eq!(
            confused(input, &[0, 0, 0, 15, 5]),
            r#"{"a":{"b":[1,2],"b":"x"},"c":"x"}"#
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
