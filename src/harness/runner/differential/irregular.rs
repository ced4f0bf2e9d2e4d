//! A request's irregularities (spec `runner.differential.classes`): where
//! it departs from what a typed port can receive, by the protocol's input
//! types (`protocol.input-types`), and the repair of each. `differential`
//! decides by substitution whether one of them makes a disagreement.

use crate::harness::runner::json_path::{rewritten, Step};
use crate::js::json::Json;
use crate::protocol::input_types::{input_members, typed_value, Member, Type};

/// Where a request departs from what a typed port can receive (spec
/// `runner.differential.classes`): a member of another type than this
/// table declares, a `null` item where an array holds values (no array of
/// the protocol holds `null`), or a member with an integer-like key in an
/// object that is not a map of ids (JavaScript writes such keys first);
/// and the repair that makes the request regular there.
#[derive(Clone, Debug, PartialEq)]
pub struct Irregularity {
    /// The path to the node.
    pub path: Vec<Step>,
    /// The last member name on the path that the protocol defines (the
    /// map's member for a value of a map of ids), `$` when none is.
    pub locus: String,
    /// Whether it is an integer-like key (else a value of another type).
    pub index_key: bool,
    /// The node's repaired value, or `None` to remove it.
    pub repair: Option<Json>,
}

/// Every irregularity of `input`, in preorder.
pub fn irregularities(op: &str, input: &Json) -> Vec<Irregularity> {
    let mut found = Vec::new();
    if let Some(members) = input_members(op) {
        irregular_members(members, input, &mut Vec::new(), "$", &mut found);
    }
    found
}

fn irregular_members(
    members: &[Member],
    object: &Json,
    path: &mut Vec<Step>,
    locus: &str,
    found: &mut Vec<Irregularity>,
) {
    let Json::Object(entries) = object else {
        return;
    };
    for (at, (key, value)) in entries.iter().enumerate() {
        // JavaScript reads a repeated key's last value: the others are
        // never read.
        if entries[at + 1..].iter().any(|(later, _)| later == key) {
            continue;
        }
        path.push(Step::Member(key.clone()));
        let name = key.to_string_lossy();
        if crate::js::json::array_index(key.units()).is_some() {
            found.push(Irregularity {
                path: path.clone(),
                locus: locus.to_owned(),
                index_key: true,
                repair: None,
            });
        } else {
            match members.iter().find(|member| key.is(member.name)) {
                Some(member) if member.nullable && *value == Json::Null => {}
                Some(member) => irregular_value(member.ty, value, path, &name, found),
                None => irregular_value(Type::Any, value, path, &name, found),
            }
        }
        path.pop();
    }
}

fn irregular_value(
    ty: Type,
    value: &Json,
    path: &mut Vec<Step>,
    locus: &str,
    found: &mut Vec<Irregularity>,
) {
    let mut other_type = |repair: Option<Json>| {
        found.push(Irregularity {
            path: path.clone(),
            locus: locus.to_owned(),
            index_key: false,
            repair,
        });
    };
    match (ty, value) {
        (Type::String, Json::String(_))
        | (Type::Number, Json::Number(_))
        | (Type::Boolean | Type::BooleanOrObject(_), Json::Bool(_)) => {}
        (Type::Object(members) | Type::BooleanOrObject(members), Json::Object(_)) => {
            irregular_members(members, value, path, locus, found);
        }
        (Type::Array(item), Json::Array(items)) => {
            for (index, value) in items.iter().enumerate() {
                path.push(Step::Item(index));
                if *value == Json::Null {
                    found.push(Irregularity {
                        path: path.clone(),
                        locus: locus.to_owned(),
                        index_key: false,
                        repair: None,
                    });
                } else {
                    irregular_value(*item, value, path, locus, found);
                }
                path.pop();
            }
        }
        (Type::Map(entry, _), Json::Object(entries)) => {
            for (key, value) in entries {
                path.push(Step::Member(key.clone()));
                irregular_value(*entry, value, path, locus, found);
                path.pop();
            }
        }
        (Type::Any, Json::Object(_)) => irregular_members(&[], value, path, locus, found),
        (Type::Any, Json::Array(_)) => {
            irregular_value(Type::Array(&Type::Any), value, path, locus, found);
        }
        (Type::Any, _) => {}
        (ty, value) => {
            other_type(Some(typed_value(ty, value.clone())));
            // What it holds may be irregular too (an object of another
            // type with an integer-like key).
            irregular_value(Type::Any, value, path, locus, found);
        }
    }
}

/// `input` with the `repairs` made (each at its path, the last first, so
/// that a removed item leaves the paths before it in place).
pub fn repaired(mut input: Json, repairs: &[&Irregularity]) -> Json {
    for irregularity in repairs.iter().rev() {
        input = rewritten(input, &irregularity.path, &|_| irregularity.repair.clone());
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    /// runner.differential.classes: a member of another type (repaired to
    /// its type), a null item and an integer-like key (removed) are
    /// irregular; a map's ids, untyped members' types and a repeated key's
    /// earlier values are not; repairing every one gives the regular
    /// request.
    #[test]
    fn irregularities_are_other_types_null_items_and_integer_like_keys() {
        let input = parse(
            r#"{"agent":{"id":"a"},"sessions":[{"id":"s","cwd":5,"1":0},{"id":"t","cwd":{},"cwd":"/w","title":"x"}],"query":"q"}"#,
        )
        .expect("fixture");
        let found = irregularities("candidates/list", &input);
        let named: Vec<(String, bool)> = found
            .iter()
            .map(|irregularity| (irregularity.locus.clone(), irregularity.index_key))
            .collect();
        assert_eq!(
            named,
            [("cwd".to_owned(), false), ("sessions".to_owned(), true)]
        );
        assert_eq!(found[0].path.len(), 3);
        let all: Vec<&Irregularity> = found.iter().collect();
        assert_eq!(
            crate::js::json::to_wire(&repaired(input, &all)),
            r#"{"agent":{"id":"a"},"sessions":[{"id":"s","cwd":"5"},{"id":"t","cwd":{},"cwd":"/w","title":"x"}],"query":"q"}"#
        );
        let prepare = parse(
            r#"{"agent":{"id":"a"},"content":[null,{"type":"text","text":"x","2":1}],"references":[],"sessions":{"1":{"session":{"id":"1"},"events":[]}}}"#,
        )
        .expect("fixture");
        let found = irregularities("prepare", &prepare);
        assert_eq!(found.len(), 2, "{found:?}");
        let all: Vec<&Irregularity> = found.iter().collect();
        assert_eq!(
            crate::js::json::to_wire(&repaired(prepare, &all)),
            r#"{"agent":{"id":"a"},"content":[{"type":"text","text":"x"}],"references":[],"sessions":{"1":{"session":{"id":"1"},"events":[]}}}"#
        );
    }
}
