//! What only the newest generation adds to an answer, hidden for a
//! comparison across generations (spec `runner.differential`): the
//! omissions section, `capturedFormatVersion`, and the candidates'
//! `displayTitle` and `sameWorkspace`.

use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::wire::Outcome;

/// The heading of the newest generation's omissions section, which runs to
/// the end of the prompt text (spec `prepare.omissions`).
const OMISSIONS_HEADING: &str = "\n\n## Reference omissions\n\n";

/// An outcome with what only the newest generation adds removed, for a
/// comparison across generations (spec `runner.differential`).
pub fn normalize(op: &str, outcome: Outcome) -> Outcome {
    let Outcome::Output(output) = outcome else {
        return outcome;
    };
    Outcome::Output(match op {
        "prepare" => without_v2_prompt_additions(output),
        "pre-step" => match output {
            Json::Array(messages) => Json::Array(
                messages
                    .into_iter()
                    .map(without_v2_prompt_additions)
                    .collect(),
            ),
            other => other,
        },
        "candidates/list" | "candidates/remote" => match output {
            Json::Array(candidates) => Json::Array(
                candidates
                    .into_iter()
                    .map(|candidate| without_members(candidate, &["displayTitle", "sameWorkspace"]))
                    .collect(),
            ),
            other => other,
        },
        _ => output,
    })
}

fn without_members(value: Json, names: &[&str]) -> Json {
    match value {
        Json::Object(members) => Json::Object(
            members
                .into_iter()
                .filter(|(key, _)| {
                    !names
                        .iter()
                        .any(|n| key.units() == JsString::from(*n).units())
                })
                .collect(),
        ),
        other => other,
    }
}

/// Applies `change` to the member `name` of an object.
fn map_member(value: Json, name: &str, change: impl FnOnce(Json) -> Json) -> Json {
    match value {
        Json::Object(members) => {
            let mut change = Some(change);
            Json::Object(
                members
                    .into_iter()
                    .map(|(key, member)| {
                        if key.units() == JsString::from(name).units() {
                            if let Some(change) = change.take() {
                                return (key, change(member));
                            }
                        }
                        (key, member)
                    })
                    .collect(),
            )
        }
        other => other,
    }
}

fn map_items(value: Json, change: impl Fn(Json) -> Json) -> Json {
    match value {
        Json::Array(items) => Json::Array(items.into_iter().map(change).collect()),
        other => other,
    }
}

/// A prepared message or `prepare` result (`{content, additionalContext?}`
/// or `{source, content}`) without the omissions section and without
/// `capturedFormatVersion` in the source record.
fn without_v2_prompt_additions(value: Json) -> Json {
    let strip_text = |block: Json| {
        map_member(block, "text", |text| match text {
            Json::String(text) => {
                let units = text.units();
                let heading: Vec<u16> = OMISSIONS_HEADING.encode_utf16().collect();
                let cut = units
                    .windows(heading.len())
                    .position(|window| window == heading.as_slice());
                match cut {
                    Some(at) => Json::String(JsString::from_units(units[..at].to_vec())),
                    None => Json::String(text),
                }
            }
            other => other,
        })
    };
    let strip_source = |source: Json| {
        map_member(source, "references", |references| {
            map_items(references, |reference| {
                without_members(reference, &["capturedFormatVersion"])
            })
        })
    };
    let is_reference_message = value
        .get("source")
        .and_then(|source| source.get("kind"))
        .and_then(Json::as_string)
        .is_some_and(|kind| kind == "session-reference");
    // A record with a source and a content: the reference message, or
    // the additional context of a `prepare` result.
    let strip_record = |record: Json| {
        let record = map_member(record, "source", strip_source);
        map_member(record, "content", |content| map_items(content, strip_text))
    };
    let value = map_member(value, "additionalContext", strip_record);
    if is_reference_message {
        strip_record(value)
    } else {
        value
    }
}
