//! File references (spec `files.*`): what an editor offers after `@`, as
//! `@deepseek-ai/dsh-file-reference@0.1.0-rc.8` (the `@file` grammar) and
//! `@deepseek-ai/dsh-file-reference-local@0.1.0-rc.8` (the local provider)
//! define it.
//!
//! - [`active_at_token`] finds the `@` token at the cursor;
//!   [`format_file_mention`] writes a chosen candidate back as prompt text.
//! - [`WorkspaceFileSearch`] answers a query on one working directory: a
//!   query with `/` (or none) lists that directory live; a bare query ranks
//!   the [`FileIndex`], a bounded breadth-first index built once and
//!   searched per keystroke ([`FileIndex::search`]).
//! - [`rank_candidates`] is the ranking written literally over UTF-16 code
//!   units; the index search computes the same answer faster.
//!
//! Only paths are ever read from the filesystem, never file contents.
//!
//! ```
//! use dsh_session_reference::discovery::files::{FileIndex, FileKind};
//!
//! let index = FileIndex::from_entries([
//!     ("src".to_owned(), FileKind::Directory),
//!     ("main".to_owned(), FileKind::File),
//!     ("src/main.ts".to_owned(), FileKind::File),
//! ]);
//! let query: Vec<u16> = "main".encode_utf16().collect();
//! let found: Vec<String> = index
//!     .search(&query, 20)
//!     .iter()
//!     .map(|candidate| candidate.path.to_string_lossy())
//!     .collect();
//! assert_eq!(found, ["main", "src/main.ts"]);
//! ```

mod grammar;
mod rank;
mod search;
mod tree;

pub use grammar::{
    active_at_token, format_file_mention, slice_end, token_before_cursor, ActiveToken,
};
pub use rank::{compare_utf16, rank_candidates, score_candidate, to_lower, DIRECTORY_BONUS};
pub use search::{
    CheckedConfig, FileIndex, FileSearchConfig, WorkspaceFileSearch, DEFAULT_EXCLUDED_DIRECTORIES,
    DEFAULT_MAX_ENTRIES, DEFAULT_MAX_RESULTS,
};
pub use tree::{TempTree, TreePlan};

use crate::js::coerce::{to_js_string, to_number};
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::wire::Outcome;

/// A file or a directory (spec `files.candidate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory: its mention keeps completion open.
    Directory,
}

impl FileKind {
    /// The kind as it travels on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::File => "file",
            FileKind::Directory => "directory",
        }
    }
}

/// `FileReferenceCandidate`: a path relative to the working directory (or as
/// typed, for a directory listing) and its kind (spec `files.candidate`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct FileReferenceCandidate {
    /// The user-facing path.
    pub path: JsString,
    /// File or directory.
    pub kind: FileKind,
}

impl FileReferenceCandidate {
    /// `{path, kind}`, in that member order.
    pub fn to_json(&self) -> Json {
        Json::object([
            ("path", Json::String(self.path.clone())),
            ("kind", Json::str(self.kind.as_str())),
        ])
    }
}

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
fn token_op(input: &Json) -> Result<Json, Outcome> {
    let line = string_input(input, "line")?;
    let cursor = input.get("cursor").map(|cursor| to_number(Some(cursor)));
    let end = slice_end(line.len(), cursor);
    Ok(match token_before_cursor(&line.units()[..end]) {
        None => Json::Null,
        Some(token) => Json::object([
            ("prefix", Json::String(token.prefix)),
            ("query", Json::String(token.query)),
            ("quoted", Json::Bool(token.quoted)),
        ]),
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
    let plan = TreePlan::from_json(input.get("tree").unwrap_or(&Json::Null)).map_err(internal)?;
    let query = string_input(input, "query")?;
    let tree = TempTree::create(&plan).map_err(internal)?;
    let search = WorkspaceFileSearch::new(tree.root(), config);
    let found = search.list(query.units());
    drop(tree);
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
            code: crate::protocol::wire::UNSUPPORTED.to_owned(),
            message: format!("unknown op {op:?}"),
        }),
    }
}
