//! Paths into a JSON value (spec `runner.causes`, `runner.differential.classes`):
//! the steps from a value to one of its nodes, the node a path reaches, and
//! the value with that node rewritten. A cause folds the path to the first
//! difference; a differential repair rewrites the node an irregularity is at.

use crate::js::json::Json;
use crate::js::JsString;

/// A step of a path from a value to one of its nodes.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The member of this name (the last, where a name repeats, as
    /// JavaScript reads it).
    Member(JsString),
    /// The item at this index.
    Item(usize),
    /// Into the JSON value a string holds on one of its lines (a prompt's
    /// snapshot): no node of the value itself.
    Embedded,
}

/// The node at `path`, if there is one.
pub fn node_at<'a>(value: &'a Json, path: &[Step]) -> Option<&'a Json> {
    let Some((step, rest)) = path.split_first() else {
        return Some(value);
    };
    let child = match (step, value) {
        (Step::Item(index), Json::Array(items)) => items.get(*index)?,
        (Step::Member(name), Json::Object(members)) => {
            &members.iter().rev().find(|(key, _)| key == name)?.1
        }
        _ => return None,
    };
    node_at(child, rest)
}

/// `input` with the node at `path` replaced by what `change` makes of it
/// (`None` removes it); unchanged where the path is not there.
pub fn rewritten(input: Json, path: &[Step], change: &dyn Fn(Json) -> Option<Json>) -> Json {
    rewritten_at(input, path, change).unwrap_or(Json::Null)
}

fn rewritten_at(node: Json, path: &[Step], change: &dyn Fn(Json) -> Option<Json>) -> Option<Json> {
    let Some((step, rest)) = path.split_first() else {
        return change(node);
    };
    Some(match (step, node) {
        (Step::Item(at), Json::Array(mut items)) if *at < items.len() => {
            let item = rewritten_at(items.remove(*at), rest, change);
            items.splice(*at..*at, item);
            Json::Array(items)
        }
        (Step::Member(name), Json::Object(mut members)) => {
            if let Some(at) = members.iter().rposition(|(key, _)| key == name) {
                let (key, item) = members.remove(at);
                let member = rewritten_at(item, rest, change).map(|item| (key, item));
                members.splice(at..at, member);
            }
            Json::Object(members)
        }
        (_, other) => other,
    })
}
