//! The file-reference ops of the protocol (feature `files`, spec
//! `files.*`): `files/token`, `files/format` and `files/list` read their
//! wire input as upstream's functions read their arguments and answer with
//! [`crate::discovery::files`]. The ops live here, beside the other ops'
//! wire reading, so that discovery never reaches up to the protocol.

use super::wire::{Outcome, UNSUPPORTED};
use crate::discovery::files::{
    format_file_mention, slice_end, token_before_cursor, FileKind, FileReferenceCandidate,
    FileSearchConfig, TempTree, TreePlan, WorkspaceFileSearch,
};
use crate::js::coerce::{to_js_string, to_number};
use crate::js::json::Json;
use crate::js::JsString;
use crate::reach;

fn internal(message: impl Into<String>) -> Outcome {
    Outcome::internal(message)
}

/// JavaScript truthiness of a JSON value (`undefined` for absent).
fn truthy(value: Option<&Json>) -> bool {
    match value {
        None | Some(Json::Null) | Some(Json::Bool(false)) => false,
        Some(Json::Number(n)) => *n != 0.0 && !n.is_nan(),
        Some(Json::String(text)) => !text.is_empty(),
        Some(_) => true,
    }
}

fn string_input<'a>(input: &'a Json, name: &str) -> Result<&'a JsString, Outcome> {
    input
        .get(name)
        .and_then(Json::as_js_str)
        .ok_or_else(|| internal(format!("input.{name} must be a string")))
}

/// `files/token {line, cursor}` → `{prefix, query, quoted}` or `null`. The
/// cursor is `slice`'s end, of any type as `slice` converts it to a number;
/// absent means the whole line (spec `files.token.cursor`,
/// `protocol.input-types`).
///
/// An array `line` is sliced by items, and the regular expressions read the
/// slice as `String` writes it (items joined with `,`); a `line` of any
/// other type has no `slice` (`INTERNAL`).
fn token_op(input: &Json) -> Result<Json, Outcome> {
    let cursor = input.get("cursor").map(|cursor| to_number(Some(cursor)));
    let before_cursor = match input.get("line") {
        Some(Json::String(line)) => line.units()[..slice_end(line.len(), cursor)].to_vec(),
        Some(Json::Array(items)) => {
            let slice = Json::Array(items[..slice_end(items.len(), cursor)].to_vec());
            to_js_string(Some(&slice)).units().to_vec()
        }
        _ => return Err(internal("line.slice is not a function".to_owned())),
    };
    Ok(match token_before_cursor(&before_cursor) {
        None => {
            reach::point("files.token.result");
            Json::Null
        }
        Some(token) => {
            reach::point("files.token.result");
            Json::object([
                ("prefix", Json::String(token.prefix)),
                ("query", Json::String(token.query)),
                ("quoted", Json::Bool(token.quoted)),
            ])
        }
    })
}

/// `files/format {candidate: {path, kind}, preserveQuote?}` → mention or
/// `null`. A kind other than `"directory"` formats as a file, as upstream's
/// `kind === "directory"` test does; `preserveQuote` is JavaScript-truthy.
fn format_op(input: &Json) -> Result<Json, Outcome> {
    // `candidate.kind` throws on `undefined` and `null` only.
    let candidate = match input.get("candidate") {
        None | Some(Json::Null) => return Err(internal("input.candidate must be an object")),
        Some(candidate) => candidate,
    };
    // Upstream's template literal and regular expressions read the path as
    // `String(path)`, whatever its type (spec `protocol.input-types`).
    let path = to_js_string(candidate.get("path"));
    let kind = match candidate.get("kind").and_then(Json::as_string).as_deref() {
        Some("directory") => FileKind::Directory,
        _ => FileKind::File,
    };
    let candidate = FileReferenceCandidate { path, kind };
    Ok(
        format_file_mention(&candidate, truthy(input.get("preserveQuote")))
            .map_or(Json::Null, Json::String),
    )
}

/// `files/list {tree, query, config?}` → `[{path, kind}]`: the configuration
/// is checked first, as rc.8's service does when it is built (a plain
/// error: `INTERNAL`), then the tree materialized in a fresh temporary
/// directory, the query listed there, the directory removed (spec
/// `files.list.tree`).
fn list_op(input: &Json) -> Result<Json, Outcome> {
    let config = FileSearchConfig::from_json(input.get("config"))
        .checked()
        .map_err(internal)?;
    let plan = TreePlan::from_json(input.get("tree").unwrap_or(&Json::Null)).map_err(|error| {
        reach::point("files.list.tree");
        internal(error)
    })?;
    let query = string_input(input, "query")?;
    let tree = TempTree::create(&plan).map_err(|error| {
        reach::point("files.list.tree");
        internal(error)
    })?;
    let search = WorkspaceFileSearch::new(tree.root(), config);
    let found = search.list(query.units());
    drop(tree);
    if !found.is_empty() {
        reach::point("files.candidate");
    }
    Ok(Json::Array(
        found.iter().map(FileReferenceCandidate::to_json).collect(),
    ))
}

/// Answers the file-reference ops of the protocol (feature `files`).
pub fn answer(op: &str, input: &Json) -> Result<Json, Outcome> {
    match op {
        "files/token" => token_op(input),
        "files/format" => format_op(input),
        "files/list" => list_op(input),
        _ => Err(Outcome::Error {
            code: UNSUPPORTED.to_owned(),
            message: format!("unknown op {op:?}"),
        }),
    }
}
