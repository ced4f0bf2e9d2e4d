//! rc.8's local file search (`WorkspaceFileSearch` of
//! `@deepseek-ai/dsh-file-reference-local`): the directory listing on the
//! live filesystem and the ranked BFS index (spec `files.list.*`).
//!
//! Paths on the filesystem are Rust strings (names read from a directory are
//! decoded as UTF-8 with replacement, as Node does); queries are JavaScript
//! strings. File contents are never read.

use super::rank::{compare_utf16, kind_rank, rank_candidates, reach_ranked, to_lower};
use super::rank::{
    DIRECTORY_BONUS, SCORE_EXACT_NAME, SCORE_NAME_CONTAINS, SCORE_NAME_PREFIX, SCORE_PATH_CONTAINS,
    SCORE_SUBSEQUENCE,
};
use super::{FileKind, FileReferenceCandidate};
use crate::config::MAX_SAFE_INTEGER;
use crate::js::json::Json;
use crate::js::JsString;
use crate::reach;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

const SLASH: u16 = b'/' as u16;
const BACKSLASH: u16 = b'\\' as u16;
const DOT: u16 = b'.' as u16;

/// rc.8's default number of candidates per query (spec `files.list.config`).
pub const DEFAULT_MAX_RESULTS: usize = 20;
/// rc.8's default bound on the entries of one index (newer upstream: 50 000).
pub const DEFAULT_MAX_ENTRIES: usize = 10_000;
/// rc.8's default excluded directory names (newer upstream excludes more).
pub const DEFAULT_EXCLUDED_DIRECTORIES: [&str; 2] = [".git", "node_modules"];

/// The local provider's configuration (spec `files.list.config`).
#[derive(Clone, Debug, PartialEq)]
pub struct FileSearchConfig {
    /// Candidates returned per query; a positive safe integer.
    pub max_results: usize,
    /// Entries kept by one index; a positive safe integer.
    pub max_entries: usize,
    /// Directory names neither listed nor descended: non-empty, without `/`
    /// or `\`.
    pub excluded_directories: Vec<JsString>,
}

impl Default for FileSearchConfig {
    fn default() -> Self {
        Self {
            max_results: DEFAULT_MAX_RESULTS,
            max_entries: DEFAULT_MAX_ENTRIES,
            excluded_directories: DEFAULT_EXCLUDED_DIRECTORIES
                .iter()
                .map(|name| JsString::from(*name))
                .collect(),
        }
    }
}

/// A JSON count as [`FileSearchConfig::checked`] checks it: a whole number as itself
/// (saturating), anything else as 0, which no configuration may hold.
fn count_of(value: &Json) -> usize {
    match value {
        Json::Number(n) if n.fract() == 0.0 && *n > 0.0 => {
            usize::try_from(*n as u64).unwrap_or(usize::MAX)
        }
        _ => 0,
    }
}

impl FileSearchConfig {
    /// The configuration a request gives, unchecked: absent or `null`
    /// members take rc.8's defaults (`??`); a member of another type reads
    /// as a value [`Self::checked`] refuses (a count of 0, an empty
    /// directory name), so that one check, in rc.8's order, answers every
    /// configuration (spec `files.list.config`).
    pub fn from_json(config: Option<&Json>) -> Self {
        let mut out = Self::default();
        let member = |name: &str| match config.and_then(|config| config.get(name)) {
            None | Some(Json::Null) => None,
            Some(value) => Some(value),
        };
        if let Some(value) = member("maxResults") {
            reach::point("files.list.config");
            out.max_results = count_of(value);
        }
        if let Some(value) = member("maxEntries") {
            reach::point("files.list.config");
            out.max_entries = count_of(value);
        }
        if let Some(value) = member("excludedDirectories") {
            reach::point("files.list.config");
            let names = value.as_array().map_or(&[Json::Null][..], |items| items);
            out.excluded_directories = names
                .iter()
                .map(|item| item.as_js_str().cloned().unwrap_or_default())
                .collect();
        }
        out
    }

    /// The configuration, checked: `maxResults`, `maxEntries` and
    /// `excludedDirectories`, in that order, with rc.8's messages (spec
    /// `files.list.config`); on the wire a failure is `INTERNAL` (rc.8
    /// throws a plain `Error`). The one check every configuration passes:
    /// a search is built only from a [`CheckedConfig`].
    pub fn checked(self) -> Result<CheckedConfig, String> {
        let count = |value: usize, name: &str| {
            if value == 0 || value as f64 > MAX_SAFE_INTEGER {
                reach::point("files.list.config");
                Err(format!(
                    "file-reference-local: {name} must be a positive safe integer"
                ))
            } else {
                Ok(())
            }
        };
        count(self.max_results, "maxResults")?;
        count(self.max_entries, "maxEntries")?;
        if self.excluded_directories.iter().any(|name| {
            name.is_empty() || name.units().iter().any(|u| *u == SLASH || *u == BACKSLASH)
        }) {
            reach::point("files.list.config");
            return Err(
                "file-reference-local: excludedDirectories entries must be non-empty directory basenames"
                    .to_owned(),
            );
        }
        Ok(CheckedConfig(self))
    }
}

/// A configuration [`FileSearchConfig::checked`] let through.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedConfig(FileSearchConfig);

impl CheckedConfig {
    /// The configuration.
    pub fn get(&self) -> &FileSearchConfig {
        &self.0
    }
}

/// The excluded names, as directory names (Rust strings) and as typed text.
#[derive(Clone, Debug)]
struct Excluded {
    names: HashSet<String>,
    units: HashSet<Vec<u16>>,
}

impl Excluded {
    fn new(config: &FileSearchConfig) -> Self {
        Self {
            names: config
                .excluded_directories
                .iter()
                .filter_map(JsString::to_str)
                .collect(),
            units: config
                .excluded_directories
                .iter()
                .map(|name| name.units().to_vec())
                .collect(),
        }
    }
}

/// One directory entry: its name and whether it is a real directory or a
/// regular file (`None`: a symlink or anything else, never listed).
struct DirEntry {
    name: String,
    kind: Option<FileKind>,
}

/// `readDirectory`: the entries of `absolute` sorted by name in code-unit
/// order; any failure reads as an empty directory (spec
/// `files.list.read-directory`). Types are those of the entries themselves,
/// symlinks not followed (spec `files.list.symlinks`).
fn read_directory(absolute: &Path) -> Vec<DirEntry> {
    let Ok(reader) = std::fs::read_dir(absolute) else {
        reach::point("files.list.read-directory");
        return Vec::new();
    };
    let mut entries = Vec::new();
    // A symlink or special file was read (and will be skipped).
    let mut special = false;
    for entry in reader {
        let Ok(entry) = entry else {
            reach::point("files.list.read-directory");
            return Vec::new();
        };
        let Ok(file_type) = entry.file_type() else {
            reach::point("files.list.read-directory");
            return Vec::new();
        };
        let kind = if file_type.is_dir() {
            Some(FileKind::Directory)
        } else if file_type.is_file() {
            Some(FileKind::File)
        } else {
            special = true;
            None
        };
        entries.push(DirEntry {
            name: entry.file_name().to_string_lossy().into_owned(),
            kind,
        });
    }
    entries.sort_by(|left, right| compare_utf16(&left.name, &right.name));
    reach::point("files.list.read-directory");
    if special {
        reach::point("files.list.symlinks");
    }
    entries
}

/// What the ranking needs of one indexed path, precomputed and kept small
/// so that a search streams through memory: the lower-cased paths live
/// concatenated in [`FileIndex`]'s `lower`, the original paths apart.
#[derive(Clone, Debug)]
struct Hot {
    /// Bit `b & 127` set for every byte `b` of the lower-cased path (exact
    /// for ASCII): a cheap necessary condition for any match.
    mask: u128,
    /// Byte range of `path.toLowerCase()` in the index's `lower`.
    lower_start: usize,
    lower_len: u32,
    /// Byte offset of the name (after the last `/`) in the lower-cased path.
    name_offset: u32,
    /// UTF-16 length of the original path.
    units: u32,
    kind: FileKind,
    /// Some segment starts with `.`.
    hidden: bool,
    /// The lower-cased path is ASCII: byte offsets are code-unit offsets.
    ascii: bool,
}

fn byte_mask(bytes: &[u8]) -> u128 {
    bytes.iter().fold(0, |mask, byte| mask | 1 << (byte & 127))
}

/// One index entry as the scoring sees it.
#[derive(Clone, Copy)]
struct Entry<'a> {
    hot: &'a Hot,
    lower: &'a str,
    path: &'a str,
}

impl Entry<'_> {
    fn candidate(&self) -> FileReferenceCandidate {
        FileReferenceCandidate {
            path: JsString::from(self.path),
            kind: self.hot.kind,
        }
    }

    /// UTF-16 length of `lower[from..to]` (code-point boundaries): one unit
    /// per UTF-8 leading byte, two for a four-byte sequence.
    fn units_between(&self, from: usize, to: usize) -> usize {
        if self.hot.ascii {
            return to - from;
        }
        let bytes = self.lower.as_bytes().get(from..to).unwrap_or_default();
        bytes
            .iter()
            .map(|byte| match byte {
                0x80..=0xBF => 0,
                0xF0..=0xFF => 2,
                _ => 1,
            })
            .sum()
    }
}

/// `haystack.find(needle)` on bytes.
fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (&first, rest) = needle.split_first()?;
    let mut from = 0;
    while from + needle.len() <= haystack.len() {
        let offset = haystack[from..=haystack.len() - needle.len()]
            .iter()
            .position(|byte| *byte == first)?;
        let at = from + offset;
        if &haystack[at + 1..at + needle.len()] == rest {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// A lower-cased, well-formed query prepared for [`FileIndex::search`].
struct Needle {
    text: String,
    mask: u128,
    /// The query is one ASCII character: the mask decides containment.
    single_ascii: bool,
}

/// [`super::rank::score_candidate`] on an index entry with a well-formed
/// query, working on UTF-8: for well-formed strings, code-unit equality,
/// prefixes and substrings are those of UTF-8, and gaps are counted in
/// UTF-16 code units. Tiers are tried from the best down and abandoned as
/// soon as they cannot reach `floor` (`None`: below the floor or no match;
/// a floor of 0 gives the exact score). The caller has checked that the
/// entry's byte set holds the needle's.
fn score_entry(entry: Entry<'_>, needle: &Needle, floor: u32) -> Option<u32> {
    let lower = entry.lower.as_bytes();
    let name = lower
        .get(entry.hot.name_offset as usize..)
        .unwrap_or_default();
    let query = needle.text.as_bytes();
    let bonus = if entry.hot.kind == FileKind::Directory {
        DIRECTORY_BONUS
    } else {
        0
    };
    let reach = |tier: u32| tier + bonus >= floor;
    // The first byte decides most prefix tests without a call to memcmp.
    let prefix = name.first() == query.first() && name.starts_with(query);
    let base = if prefix && name.len() == query.len() {
        SCORE_EXACT_NAME
    } else if prefix {
        SCORE_NAME_PREFIX
    } else if !reach(SCORE_NAME_CONTAINS) {
        return None;
    } else {
        // Every lower tier needs the query as a subsequence of the path
        // (a substring is one): a cheap linear scan that rejects most paths.
        let subsequence = subsequence_entry(entry, &needle.text)?;
        if find_bytes(name, query).is_some() {
            SCORE_NAME_CONTAINS
        } else if !reach(SCORE_PATH_CONTAINS) {
            return None;
        } else if needle.single_ascii || find_bytes(lower, query).is_some() {
            // One ASCII byte present in the mask is present in the path.
            SCORE_PATH_CONTAINS
        } else {
            SCORE_SUBSEQUENCE + subsequence
        }
    };
    Some(base + bonus)
}

/// The subsequence score on UTF-8 (spec `files.rank.subsequence`). upstream
/// resumes one code unit after a match, so after an astral character the
/// next search starts on its low surrogate, which counts as one skipped
/// code unit when the next character is found.
fn subsequence_entry(entry: Entry<'_>, needle: &str) -> Option<u32> {
    let lower = entry.lower.as_bytes();
    let mut position = 0usize;
    let mut gap = 0usize;
    let mut carry = 0usize;
    let mut encoded = [0u8; 4];
    for character in needle.chars() {
        let rest = lower.get(position..).unwrap_or_default();
        // A whole UTF-8 sequence only matches at a code-point boundary.
        let offset = if character.is_ascii() {
            rest.iter().position(|b| *b == character as u8)?
        } else {
            find_bytes(rest, character.encode_utf8(&mut encoded).as_bytes())?
        };
        gap += carry + entry.units_between(position, position + offset);
        position += offset + character.len_utf8();
        carry = character.len_utf16() - 1;
    }
    Some(100u32.saturating_sub(u32::try_from(gap).unwrap_or(u32::MAX)))
}

/// `visibleForGlobalQuery`: hidden paths (a segment starting with `.`) are
/// searched only when the query starts with `.` or contains `/.` (spec
/// `files.list.hidden`).
fn shows_hidden(query: &[u16]) -> bool {
    query.first() == Some(&DOT) || query.windows(2).any(|pair| pair == [SLASH, DOT])
}

/// The BFS index of a working directory: paths relative to it, in traversal
/// order (spec `files.list.index`). Built once, searched per keystroke.
#[derive(Clone, Debug, Default)]
pub struct FileIndex {
    hot: Vec<Hot>,
    /// Every lower-cased path, concatenated.
    lower: String,
    /// The original paths.
    paths: Vec<Box<str>>,
}

impl FileIndex {
    /// `scanWorkspace`: breadth first from `root` (root first, each
    /// directory's entries in code-unit order of their names), excluded
    /// directory names neither listed nor descended, symlinks and special
    /// files skipped, stopping at `config.max_entries` entries (spec
    /// `files.list.index`, `files.list.max-entries`).
    pub fn scan(root: &Path, config: &FileSearchConfig) -> FileIndex {
        let excluded = Excluded::new(config);
        let mut index = FileIndex::default();
        let mut directories: Vec<(PathBuf, String)> = vec![(root.to_path_buf(), String::new())];
        let mut cursor = 0;
        // An excluded directory was met (neither indexed nor descended).
        let mut excluded_met = false;
        while cursor < directories.len() && index.len() < config.max_entries {
            let (absolute, relative) = directories[cursor].clone();
            cursor += 1;
            for entry in read_directory(&absolute) {
                let path = if relative.is_empty() {
                    entry.name.clone()
                } else {
                    format!("{relative}/{}", entry.name)
                };
                match entry.kind {
                    Some(FileKind::Directory) => {
                        if excluded.names.contains(&entry.name) {
                            excluded_met = true;
                            continue;
                        }
                        directories.push((absolute.join(&entry.name), path.clone()));
                        index.push(path, FileKind::Directory);
                    }
                    Some(FileKind::File) => index.push(path, FileKind::File),
                    None => {}
                }
                if index.len() >= config.max_entries {
                    reach::point("files.list.max-entries");
                    break;
                }
            }
        }
        if excluded_met {
            reach::point("files.list.excluded");
        }
        index
    }

    /// An index of the given paths, as if a scan had found them in this
    /// order (for hosts that enumerate the tree themselves, and benches).
    pub fn from_entries(entries: impl IntoIterator<Item = (String, FileKind)>) -> FileIndex {
        let mut index = FileIndex::default();
        for (path, kind) in entries {
            index.push(path, kind);
        }
        index
    }

    /// Appends one path with its precomputed ranking data.
    fn push(&mut self, path: String, kind: FileKind) {
        let lower_start = self.lower.len();
        if path.is_ascii() {
            self.lower
                .extend(path.bytes().map(|b| char::from(b.to_ascii_lowercase())));
        } else {
            self.lower.push_str(&path.to_lowercase());
        }
        let lower = &self.lower[lower_start..];
        let name_offset = lower.rfind('/').map_or(0, |slash| slash + 1);
        self.hot.push(Hot {
            mask: byte_mask(lower.as_bytes()),
            lower_start,
            lower_len: u32::try_from(lower.len()).unwrap_or(u32::MAX),
            name_offset: u32::try_from(name_offset).unwrap_or(u32::MAX),
            units: u32::try_from(path.encode_utf16().count()).unwrap_or(u32::MAX),
            kind,
            hidden: path.split('/').any(|segment| segment.starts_with('.')),
            ascii: lower.is_ascii(),
        });
        self.paths.push(path.into_boxed_str());
    }

    fn entry(&self, position: usize) -> Entry<'_> {
        let hot = &self.hot[position];
        let end = hot.lower_start + hot.lower_len as usize;
        Entry {
            hot,
            lower: self.lower.get(hot.lower_start..end).unwrap_or_default(),
            path: &self.paths[position],
        }
    }

    /// Number of indexed paths.
    pub fn len(&self) -> usize {
        self.hot.len()
    }

    /// True when nothing was indexed.
    pub fn is_empty(&self) -> bool {
        self.hot.is_empty()
    }

    /// The indexed paths in traversal order.
    pub fn entries(&self) -> impl Iterator<Item = FileReferenceCandidate> + '_ {
        (0..self.len()).map(|position| self.entry(position).candidate())
    }

    /// The ranked candidates for a bare `query` (no `/`): hidden paths only
    /// when the query asks for them (spec `files.list.hidden`), then
    /// [`rank_candidates`] with `limit` (spec `files.rank.*`), computed on
    /// precomputed lower-cased paths, a byte-set prefilter, score floors
    /// and a bounded heap of the best `limit`.
    pub fn search(&self, query: &[u16], limit: usize) -> Vec<FileReferenceCandidate> {
        let show_hidden = shows_hidden(query);
        reach::point("files.list.hidden");
        let visible = (0..self.len()).filter(|position| show_hidden || !self.hot[*position].hidden);
        let needle = match String::from_utf16(&to_lower(query)) {
            Ok(text) if !query.is_empty() => Needle {
                mask: byte_mask(text.as_bytes()),
                single_ascii: text.len() == 1,
                text,
            },
            // Empty query (every entry scores 0, no length tie-break) or a
            // query with lone surrogates: the literal algorithm.
            _ => {
                let candidates = visible.map(|position| self.entry(position).candidate());
                return rank_candidates(candidates.collect(), query, limit);
            }
        };
        if limit == 0 {
            return Vec::new();
        }
        // The best `limit` so far in a max-heap: its top is the worst kept.
        // Sort key: score (high first), directories first, shorter first;
        // ties beyond it by path in code-unit order (`Ranked`'s `Ord`).
        let mut kept: BinaryHeap<Ranked<'_>> = BinaryHeap::with_capacity(limit + 1);
        let mut floor = 0;
        // A match was left out because the top `limit` was full.
        let mut cut = false;
        for position in visible {
            if self.hot[position].mask & needle.mask != needle.mask {
                continue;
            }
            let entry = self.entry(position);
            let Some(score) = score_entry(entry, &needle, floor) else {
                continue;
            };
            let ranked = Ranked {
                key: (u64::from(SCORE_CEILING - score) << 33)
                    | (u64::from(kind_rank(entry.hot.kind)) << 32)
                    | u64::from(entry.hot.units),
                path: entry.path,
                position,
            };
            if kept.len() < limit {
                kept.push(ranked);
            } else if kept.peek().is_some_and(|worst| ranked < *worst) {
                cut = true;
                kept.pop();
                kept.push(ranked);
            } else {
                cut = true;
            }
            if kept.len() == limit {
                floor = kept.peek().map_or(0, Ranked::score);
            }
        }
        let kept = kept.into_sorted_vec();
        if reach::is_recording() {
            reach_ranked(
                query,
                kept.iter()
                    .map(|ranked| (ranked.score(), self.hot[ranked.position].kind)),
                cut,
                kept.windows(2).any(|pair| pair[0].key == pair[1].key),
            );
        }
        kept.into_iter()
            .map(|ranked| self.entry(ranked.position).candidate())
            .collect()
    }
}

/// Above every score (1025 at most): sort keys hold `SCORE_CEILING - score`.
const SCORE_CEILING: u32 = 1 << 16;

/// An index entry with its sort key; ordered best first.
struct Ranked<'a> {
    key: u64,
    path: &'a str,
    position: usize,
}

impl Ranked<'_> {
    fn score(&self) -> u32 {
        // The key's top bits hold `SCORE_CEILING - score`.
        SCORE_CEILING.saturating_sub(u32::try_from(self.key >> 33).unwrap_or(u32::MAX))
    }
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key
            .cmp(&other.key)
            .then_with(|| compare_utf16(self.path, other.path))
    }
}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked<'_> {}

/// `WorkspaceFileSearch`: one working directory's search, with its index
/// built on the first bare query and reused until [`Self::invalidate`].
#[derive(Debug)]
pub struct WorkspaceFileSearch {
    root: PathBuf,
    config: CheckedConfig,
    excluded: Excluded,
    index: OnceLock<FileIndex>,
}

impl WorkspaceFileSearch {
    /// A search rooted at `root` (spec `files.list.root`) with a checked
    /// configuration (spec `files.list.config`).
    pub fn new(root: impl Into<PathBuf>, config: CheckedConfig) -> Self {
        Self {
            root: root.into(),
            excluded: Excluded::new(config.get()),
            config,
            index: OnceLock::new(),
        }
    }

    /// The configuration in use.
    pub fn config(&self) -> &FileSearchConfig {
        self.config.get()
    }

    /// Discards the index: the next bare query scans the tree again.
    pub fn invalidate(&mut self) {
        self.index = OnceLock::new();
    }

    /// The index, scanned on first use.
    pub fn index(&self) -> &FileIndex {
        self.index
            .get_or_init(|| FileIndex::scan(&self.root, self.config()))
    }

    /// `list(query)`: backslashes become `/` (spec `files.list.backslash`);
    /// an empty query or one containing `/` lists a directory (spec
    /// `files.list.directory`), any other query ranks the index (spec
    /// `files.list.index`).
    pub fn list(&self, raw_query: &[u16]) -> Vec<FileReferenceCandidate> {
        let mut backslash = false;
        let query: Vec<u16> = raw_query
            .iter()
            .map(|unit| {
                if *unit == BACKSLASH {
                    backslash = true;
                    SLASH
                } else {
                    *unit
                }
            })
            .collect();
        if backslash {
            reach::point("files.list.backslash");
        }
        match query.iter().rposition(|unit| *unit == SLASH) {
            Some(slash) => {
                reach::point("files.list.directory");
                self.list_directory(&query[..=slash], &query[slash + 1..])
            }
            None if query.is_empty() => {
                reach::point("files.list.directory");
                self.list_directory(&[], &[])
            }
            None => {
                reach::point("files.list.index");
                self.index().search(&query, self.config().max_results)
            }
        }
    }

    /// `listDirectory(directory, fragment)`: the live entries of the typed
    /// directory, each path being the directory text as typed followed by
    /// the name, ranked by the fragment (spec `files.list.directory`,
    /// `files.list.directory-rank`). Dot names need a dot fragment (spec
    /// `files.list.directory-hidden`); excluded names, typed or listed, give
    /// nothing (spec `files.list.excluded`).
    fn list_directory(&self, directory: &[u16], fragment: &[u16]) -> Vec<FileReferenceCandidate> {
        if directory
            .split(|unit| *unit == SLASH)
            .any(|segment| self.excluded.units.contains(segment))
        {
            reach::point("files.list.excluded");
            return Vec::new();
        }
        let Some(absolute) = resolve_display_directory(&self.root, directory) else {
            return Vec::new();
        };
        let show_hidden = fragment.first() == Some(&DOT);
        if show_hidden {
            reach::point("files.list.directory-hidden");
        }
        let mut candidates = Vec::new();
        // A dot entry was skipped; an excluded directory was met.
        let (mut hidden_skipped, mut excluded_met) = (false, false);
        for entry in read_directory(&absolute) {
            if entry.name.starts_with('.') && !show_hidden {
                hidden_skipped = true;
                continue;
            }
            let kind = match entry.kind {
                Some(FileKind::Directory) if self.excluded.names.contains(&entry.name) => {
                    excluded_met = true;
                    continue;
                }
                Some(kind) => kind,
                None => continue,
            };
            let mut path = directory.to_vec();
            path.extend(entry.name.encode_utf16());
            candidates.push(FileReferenceCandidate {
                path: JsString::from_units(path),
                kind,
            });
        }
        if hidden_skipped {
            reach::point("files.list.directory-hidden");
        }
        if excluded_met {
            reach::point("files.list.excluded");
        }
        reach::point("files.list.directory-rank");
        rank_candidates(candidates, fragment, self.config().max_results)
    }
}

/// Lexical segments of an absolute path (`path.resolve`): `.` dropped, `..`
/// pops (never above the filesystem root).
fn push_segment(segments: &mut Vec<OsString>, segment: &str) {
    match segment {
        "" | "." => {}
        ".." => {
            segments.pop();
        }
        name => segments.push(OsString::from(name)),
    }
}

fn absolute_segments(path: &Path) -> Vec<OsString> {
    let joined;
    let path = if path.is_absolute() {
        path
    } else {
        joined = std::env::current_dir().unwrap_or_default().join(path);
        &joined
    };
    let mut segments = Vec::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => segments.push(name.to_os_string()),
            Component::ParentDir => {
                segments.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    segments
}

fn path_of(segments: &[OsString]) -> PathBuf {
    let mut path = PathBuf::from("/");
    path.extend(segments);
    path
}

/// `resolveDisplayDirectory`: the typed directory resolved against the root
/// (an absolute one stands alone); `None` when it leaves the root (spec
/// `files.list.escape`) or when a segment of the resolved path below the
/// root is missing, a symlink or not a directory (`lstat`; spec
/// `files.list.directory-segments`). The segments are those of the resolved
/// path, so `missing/../src/` resolves to `src`.
fn resolve_display_directory(root: &Path, directory: &[u16]) -> Option<PathBuf> {
    let root_segments = absolute_segments(root);
    // Node writes a lone surrogate of a path as U+FFFD.
    let typed = String::from_utf16_lossy(directory);
    let mut target = if typed.starts_with('/') {
        reach::point("files.list.escape");
        Vec::new()
    } else {
        root_segments.clone()
    };
    for segment in typed.split('/') {
        push_segment(&mut target, segment);
    }
    if !target.starts_with(&root_segments) {
        reach::point("files.list.escape");
        return None;
    }
    if target.len() > root_segments.len() {
        reach::point("files.list.directory-segments");
    }
    let mut current = path_of(&root_segments);
    for segment in &target[root_segments.len()..] {
        current.push(segment);
        let status = std::fs::symlink_metadata(&current).ok()?;
        if status.file_type().is_symlink() || !status.is_dir() {
            return None;
        }
    }
    Some(path_of(&target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn paths(candidates: &[FileReferenceCandidate]) -> Vec<String> {
        candidates
            .iter()
            .map(|c| {
                let suffix = if c.kind == FileKind::Directory {
                    "/"
                } else {
                    ""
                };
                format!("{}{suffix}", c.path.to_string_lossy())
            })
            .collect()
    }

    fn index(list: &[&str]) -> FileIndex {
        FileIndex::from_entries(list.iter().map(|path| match path.strip_suffix('/') {
            Some(dir) => (dir.to_owned(), FileKind::Directory),
            None => ((*path).to_owned(), FileKind::File),
        }))
    }

    #[test]
    fn facts_ranking_example() {
        let tree = index(&[
            "docs/",
            "main",
            "mainframe.c",
            "src/",
            "docs/domain.md",
            "src/Main.test.ts",
            "src/amain.ts",
            "src/components/",
            "src/main.ts",
        ]);
        assert_eq!(
            paths(&tree.search(&units("main"), 20)),
            [
                "main",
                "mainframe.c",
                "src/main.ts",
                "src/Main.test.ts",
                "src/amain.ts",
                "docs/domain.md"
            ]
        );
        assert_eq!(
            paths(&tree.search(&units("mn"), 2)),
            ["src/components/", "main"]
        );
    }

    /// A small deterministic generator (xorshift32).
    struct Rng(u32);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            self.0 = x;
            x as usize % n
        }
    }

    const PIECES: &[&str] = &[
        "a",
        "b",
        "ab",
        "Main",
        "main",
        ".",
        ".h",
        "é",
        "É",
        "界",
        "\u{1F600}",
        "İ",
        "ß",
        "ẞ",
        "Σ",
        "x",
        "-",
        "\u{FF61}",
        "\u{E000}",
        "mn",
        "s",
    ];

    fn word(rng: &mut Rng) -> String {
        (0..1 + rng.below(3))
            .map(|_| PIECES[rng.below(PIECES.len())])
            .collect()
    }

    /// The fast search agrees with the literal algorithm on random trees and
    /// queries, astral and case-changing characters included.
    #[test]
    fn fast_search_matches_literal_ranking() {
        let mut rng = Rng(0x1234_5678);
        for _ in 0..600 {
            let mut list: Vec<(String, FileKind)> = Vec::new();
            for _ in 0..1 + rng.below(60) {
                let depth = 1 + rng.below(3);
                let path = (0..depth)
                    .map(|_| word(&mut rng))
                    .collect::<Vec<_>>()
                    .join("/");
                let kind = if rng.below(3) == 0 {
                    FileKind::Directory
                } else {
                    FileKind::File
                };
                if !list.iter().any(|(p, _)| *p == path) {
                    list.push((path, kind));
                }
            }
            let tree = FileIndex::from_entries(list.clone());
            for _ in 0..30 {
                let text = if rng.below(2) == 0 {
                    word(&mut rng)
                } else {
                    // A piece of an indexed path, sometimes upper-cased.
                    let chars: Vec<char> = list[rng.below(list.len())].0.chars().collect();
                    let from = rng.below(chars.len() + 1);
                    let to = from + rng.below(chars.len() - from + 1);
                    let piece: String = chars[from..to].iter().filter(|c| **c != '/').collect();
                    if rng.below(3) == 0 {
                        piece.to_uppercase()
                    } else {
                        piece
                    }
                };
                let mut query: Vec<u16> = units(&text);
                if rng.below(10) == 0 {
                    query.push(0xD83D);
                }
                let bound = if rng.below(2) == 0 { 4 } else { 70 };
                let limit = 1 + rng.below(bound);
                let show = shows_hidden(&query);
                let visible: Vec<FileReferenceCandidate> = list
                    .iter()
                    .filter(|(p, _)| show || !p.split('/').any(|s| s.starts_with('.')))
                    .map(|(p, k)| FileReferenceCandidate {
                        path: JsString::from(p.as_str()),
                        kind: *k,
                    })
                    .collect();
                let expected = rank_candidates(visible, &query, limit);
                assert_eq!(
                    tree.search(&query, limit),
                    expected,
                    "query {query:?} in {list:?}"
                );
            }
        }
    }

    #[test]
    fn config_defaults_and_checks() {
        assert_eq!(
            FileSearchConfig::from_json(None),
            FileSearchConfig::default()
        );
        let parse = |text: &str| {
            FileSearchConfig::from_json(Some(&crate::js::json::parse(text).expect("json")))
                .checked()
                .map(|checked| checked.get().clone())
        };
        assert!(parse(r#"{"maxResults":null,"maxEntries":null}"#).is_ok());
        assert!(parse(r#"{"maxResults":0}"#).is_err());
        assert!(parse(r#"{"maxResults":1.5}"#).is_err());
        assert!(parse(r#"{"maxEntries":9007199254740992}"#).is_err());
        assert!(parse(r#"{"maxEntries":"3"}"#).is_err());
        assert!(parse(r#"{"excludedDirectories":["a/b"]}"#).is_err());
        assert!(parse(r#"{"excludedDirectories":[""]}"#).is_err());
        assert!(parse(r#"{"excludedDirectories":"x"}"#).is_err());
        assert_eq!(
            parse(r#"{"excludedDirectories":[],"maxResults":3}"#)
                .map(|c| (c.max_results, c.excluded_directories.len())),
            Ok((3, 0))
        );
    }
}
