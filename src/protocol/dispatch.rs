//! Answers protocol requests with the reference implementation
//! (spec `protocol.ops`).

use super::wire::{Outcome, UNSUPPORTED};
use crate::js::json::Json;
use crate::js::JsString;
use crate::{mention, tag_safe, uri};

/// The name the reference gives in `describe`.
pub const NAME: &str = "dsh-session-reference";

/// The features the reference implements (spec `protocol.features`).
pub const FEATURES: &[&str] = &["uri", "mention", "json"];

/// The output of `describe`: `{name, version, features}`.
pub fn describe() -> Json {
    Json::object([
        ("name", Json::str(NAME)),
        ("version", Json::str(env!("CARGO_PKG_VERSION"))),
        (
            "features",
            Json::Array(FEATURES.iter().map(|f| Json::str(f)).collect()),
        ),
    ])
}

/// Answers one operation.
pub fn handle(op: &str, input: &Json) -> Outcome {
    let answer = match op {
        "describe" => Ok(describe()),
        "uri/encode" => uri_encode(input),
        "uri/decode" => uri_decode(input),
        "mention/format" => mention_format(input),
        "mention/parse" => mention_parse(input),
        "json/tag-safe" => json_tag_safe(input),
        _ => Err(Outcome::Error {
            code: UNSUPPORTED.to_owned(),
            message: format!("unknown op {op:?}"),
        }),
    };
    answer.map_or_else(|failure| failure, Outcome::Output)
}

type Answer = Result<Json, Outcome>;

fn string_field<'a>(input: &'a Json, name: &str) -> Result<&'a JsString, Outcome> {
    input
        .get(name)
        .and_then(Json::as_js_str)
        .ok_or_else(|| Outcome::internal(format!("input.{name} must be a string")))
}

fn uri_encode(input: &Json) -> Answer {
    let session_id = string_field(input, "sessionId")?;
    Ok(Json::str(&uri::encode(session_id.units())))
}

fn uri_decode(input: &Json) -> Answer {
    let text = string_field(input, "uri")?;
    Ok(Json::String(uri::decode(text.units())?))
}

fn mention_format(input: &Json) -> Answer {
    let session_id = string_field(input, "sessionId")?;
    // Nullish labels default to the id (spec `mention.format.default-label`).
    let label = match input.get("label") {
        None | Some(Json::Null) => None,
        Some(Json::String(label)) => Some(label.units()),
        Some(_) => return Err(Outcome::internal("input.label must be a string")),
    };
    Ok(Json::String(mention::format(session_id.units(), label)))
}

fn mention_parse(input: &Json) -> Answer {
    let text = string_field(input, "text")?;
    let parsed = mention::parse(text.units())?;
    let references = parsed
        .references
        .into_iter()
        .map(|reference| {
            Json::object([
                ("sessionId", Json::String(reference.session_id)),
                ("label", Json::String(reference.label)),
            ])
        })
        .collect();
    Ok(Json::object([
        ("text", Json::String(parsed.text)),
        ("references", Json::Array(references)),
    ]))
}

fn json_tag_safe(input: &Json) -> Answer {
    let value = input
        .get("value")
        .ok_or_else(|| Outcome::internal("session-reference data is not JSON-serializable"))?;
    Ok(Json::str(&tag_safe::stringify_tag_safe(value)))
}
