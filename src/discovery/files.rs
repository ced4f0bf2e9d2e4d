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

use crate::js::json::Json;
use crate::js::JsString;

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
