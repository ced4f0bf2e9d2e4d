//! The cause model (spec `runner.causes`, ours): what one failure tells
//! about the bug behind it, abstracted from where it shows, so that many
//! failing vectors (or many disagreeing generated cases) of one bug are
//! reported once, as one cause with a count and its smallest example.
//!
//! A cause is (1) the op's family (`uri`, `mention`, `json`, `snapshot` for
//! `retain`, `prepare` and `pre-step`, `config`, `candidates`, `files`;
//! none for a crash or a hang, which are not about an op), (2) the place's
//! *locus*: the last named member of the path to the first difference, so
//! that indices, generated keys and the op's own nesting fold away (stats
//! renamed in `retain`'s `$.stats` and `prepare`'s
//! `$.additionalContext.source.references[0]` is one cause), and (3) the
//! *edit* that turns the expected value into the actual one, named by kind.
//! A string that holds one JSON value per line (a prompt's snapshot) is
//! compared inside: the edit is the one made to the embedded value.
//!
//! Written for the runner (this crate's own JSON, JavaScript strings as
//! UTF-16 code units), so that a lone surrogate replaced by U+FFFD is named
//! as such.

use crate::js::json::{self, Json};
use crate::js::{first_lone_surrogate, is_js_whitespace, JsString};
use crate::protocol::wire::Outcome;
use std::fmt;

/// One side of a comparison: what was expected (or implementation A's
/// answer) and what came (B's answer).
#[derive(Clone, Copy, Debug)]
pub enum Side<'a> {
    /// An output.
    Output(&'a Json),
    /// An error with this code.
    Error(&'a str),
    /// No answer: a protocol failure (crash, hang, garbage) and what the
    /// implementation wrote to stderr before it.
    Failure {
        /// The runner's text for the failure.
        problem: &'a str,
        /// The implementation's stderr for that request.
        stderr: &'a str,
    },
}

impl<'a> Side<'a> {
    /// An answer as the runner holds it, with the stderr written for it.
    pub fn of(answer: &'a Result<Outcome, String>, stderr: &'a str) -> Side<'a> {
        match answer {
            Ok(Outcome::Output(output)) => Side::Output(output),
            Ok(Outcome::Error { code, .. }) => Side::Error(code),
            Err(problem) => Side::Failure { problem, stderr },
        }
    }
}

/// What identifies a cause (spec `runner.causes`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cause {
    /// The op family, `None` for a crash or a hang.
    pub family: Option<&'static str>,
    /// The edit, with its locus (`whitespace trimmed at label`).
    pub edit: String,
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.family {
            Some(family) => write!(f, "{family}: {}", self.edit),
            None => f.write_str(&self.edit),
        }
    }
}

/// The family of an op: its first path segment, with the three ops that
/// share the snapshot pipeline (surface, projection, retention) as one.
pub fn family(op: &str) -> &'static str {
    match op.split('/').next().unwrap_or(op) {
        "uri" => "uri",
        "mention" => "mention",
        "json" => "json",
        "retain" | "prepare" | "pre-step" => "snapshot",
        "config" => "config",
        "candidates" => "candidates",
        "files" => "files",
        "describe" => "describe",
        _ => "other",
    }
}

/// The cause of `actual` differing from `expected` for a request of `op`,
/// and the folded path where it shows (`$` for a whole outcome); `None`
/// when they agree (outputs compared exactly, errors by code).
pub fn cause(op: &str, expected: Side, actual: Side) -> Option<(Cause, String)> {
    let family = Some(family(op));
    let whole = |edit: String| Some((Cause { family, edit }, "$".to_owned()));
    match (expected, actual) {
        (Side::Output(x), Side::Output(y)) => {
            let found = first_edit(x, y)?;
            let path = found.folded_path();
            let edit = match found.locus() {
                Some(locus) if !found.kind.names_its_member() => {
                    format!("{} at {locus}", found.kind)
                }
                _ => found.kind.to_string(),
            };
            Some((Cause { family, edit }, path))
        }
        (Side::Error(x), Side::Error(y)) if x == y => None,
        (Side::Error(x), Side::Error(y)) => whole(format!("error {y} instead of {x}")),
        (Side::Output(_), Side::Error(code)) => whole(format!("error {code} instead of output")),
        (Side::Error(code), Side::Output(_)) => whole(format!("output instead of error {code}")),
        (expected, Side::Failure { problem, stderr }) => {
            let mut edit = failure(problem, stderr);
            if let Side::Failure { problem, stderr } = expected {
                edit = format!("A: {}; B: {edit}", failure(problem, stderr));
            }
            Some((Cause { family: None, edit }, "$".to_owned()))
        }
        (Side::Failure { problem, stderr }, _) => Some((
            Cause {
                family: None,
                edit: format!("A: {}", failure(problem, stderr)),
            },
            "$".to_owned(),
        )),
    }
}

/// A protocol failure as a cause: a hang, or a crash named by the first
/// line of what it wrote to stderr (else the runner's text), numbers folded.
fn failure(problem: &str, stderr: &str) -> String {
    if problem.starts_with("no answer within") {
        return "hang: no answer within the timeout".to_owned();
    }
    let first_line = stderr.lines().map(str::trim).find(|line| !line.is_empty());
    format!("crash: {}", fold_numbers(first_line.unwrap_or(problem)))
}

/// `text` with every run of digits written `N`, at most 80 characters.
pub fn fold_numbers(text: &str) -> String {
    let mut folded = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars().take(80) {
        if c.is_ascii_digit() {
            if !in_number {
                folded.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            folded.push(c);
        }
    }
    folded
}

/// A step of the path to a difference.
#[derive(Clone, Debug, PartialEq)]
enum Step {
    Member(String),
    Index,
    /// Into the JSON value a string holds on one of its lines.
    Embedded,
}

/// The first edit found, and where.
#[derive(Debug)]
struct Found {
    path: Vec<Step>,
    kind: EditKind,
}

impl Found {
    fn folded_path(&self) -> String {
        let mut path = "$".to_owned();
        for step in &self.path {
            match step {
                Step::Member(name) if is_plain(name) => {
                    path.push('.');
                    path.push_str(name);
                }
                Step::Member(_) => path.push_str(".{}"),
                Step::Index => path.push_str("[]"),
                Step::Embedded => path.push_str("<json>"),
            }
        }
        path
    }

    /// The last plain member name on the path.
    fn locus(&self) -> Option<&str> {
        self.path.iter().rev().find_map(|step| match step {
            Step::Member(name) if is_plain(name) => Some(name.as_str()),
            _ => None,
        })
    }
}

fn is_plain(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The kinds of edit (spec `runner.causes`).
#[derive(Debug, PartialEq)]
enum EditKind {
    /// Members renamed by a change of case style.
    Renamed {
        from: &'static str,
        to: &'static str,
    },
    /// A member the expected value has and the actual lacks.
    MemberMissing(String),
    /// A member the actual value has and the expected lacks.
    MemberExtra(String),
    /// A member written under another name (not a case-style change).
    MemberReplaced { expected: String, actual: String },
    /// The same members in another order.
    MembersReordered,
    /// The same items in another order.
    ItemsReordered,
    /// Items the expected array has and the actual lacks (the rest kept
    /// in order).
    ItemsMissing,
    /// Items added to the expected array.
    ItemsExtra,
    /// A string edit.
    Text(TextEdit),
    /// Two numbers.
    Number(NumberEdit),
    /// A value of another JSON type.
    Type {
        expected: &'static str,
        actual: &'static str,
    },
}

impl EditKind {
    /// Whether the edit's text already names where it is (a member's key).
    fn names_its_member(&self) -> bool {
        matches!(
            self,
            EditKind::Renamed { .. }
                | EditKind::MemberMissing(_)
                | EditKind::MemberExtra(_)
                | EditKind::MemberReplaced { .. }
        )
    }
}

impl fmt::Display for EditKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditKind::Renamed { from, to } => write!(f, "members renamed {from} → {to}"),
            EditKind::MemberMissing(key) => write!(f, "member {key} missing"),
            EditKind::MemberExtra(key) => write!(f, "member {key} extra"),
            EditKind::MemberReplaced { expected, actual } => {
                write!(f, "member {expected} written as {actual}")
            }
            EditKind::MembersReordered => f.write_str("members reordered"),
            EditKind::ItemsReordered => f.write_str("items reordered"),
            EditKind::ItemsMissing => f.write_str("items missing"),
            EditKind::ItemsExtra => f.write_str("items extra"),
            EditKind::Text(edit) => edit.fmt(f),
            EditKind::Number(edit) => edit.fmt(f),
            EditKind::Type { expected, actual } => write!(f, "{actual} instead of {expected}"),
        }
    }
}

/// How one string became another.
#[derive(Debug, PartialEq)]
enum TextEdit {
    /// The same text once escapes (`\X`, `\uXXXX`) are read: the actual
    /// one has more escapes (`true`) or fewer.
    Escape { added: bool },
    /// Characters removed at the start or the end.
    Trimmed(Class),
    /// Characters added at the start or the end.
    Padded(Class),
    /// Characters removed inside.
    Removed(Class),
    /// Characters added inside.
    Inserted(Class),
    /// Characters of one class replaced by characters of another.
    Replaced { expected: Class, actual: Class },
    /// A number written another way (same value).
    NumberSpelled,
    /// A number in the text changed.
    NumberInText(NumberEdit),
    /// Anything else.
    Changed,
}

impl fmt::Display for TextEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextEdit::Escape { added: true } => f.write_str("escape added"),
            TextEdit::Escape { added: false } => f.write_str("escape removed"),
            TextEdit::Trimmed(class) => write!(f, "{class} trimmed"),
            TextEdit::Padded(class) => write!(f, "{class} padded"),
            TextEdit::Removed(class) => write!(f, "{class} removed"),
            TextEdit::Inserted(class) => write!(f, "{class} inserted"),
            TextEdit::Replaced { expected, actual } => write!(f, "{expected} replaced by {actual}"),
            TextEdit::NumberSpelled => f.write_str("number spelled otherwise"),
            TextEdit::NumberInText(edit) => write!(f, "{edit} in text"),
            TextEdit::Changed => f.write_str("text changed"),
        }
    }
}

/// The class of a run of characters an edit removed or added.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    Whitespace,
    LoneSurrogate,
    Replacement,
    Text,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Whitespace => "whitespace",
            Class::LoneSurrogate => "lone surrogate",
            Class::Replacement => "U+FFFD",
            Class::Text => "text",
        })
    }
}

fn class_of(units: &[u16]) -> Class {
    if !units.is_empty() && units.iter().all(|&unit| is_js_whitespace(unit)) {
        Class::Whitespace
    } else if !units.is_empty() && units.iter().all(|&unit| unit == 0xFFFD) {
        Class::Replacement
    } else if units.iter().all(|unit| (0xD800..0xE000).contains(unit))
        && first_lone_surrogate(units).is_some()
    {
        Class::LoneSurrogate
    } else {
        Class::Text
    }
}

/// How one number became another.
#[derive(Debug, PartialEq)]
enum NumberEdit {
    OffByOne,
    Rounded,
    Other,
}

impl fmt::Display for NumberEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberEdit::OffByOne => "number off by one",
            NumberEdit::Rounded => "number rounded",
            NumberEdit::Other => "number changed",
        })
    }
}

fn number_edit(expected: f64, actual: f64) -> NumberEdit {
    if (expected - actual).abs() == 1.0 {
        NumberEdit::OffByOne
    } else if expected.fract() != 0.0
        && [expected.floor(), expected.ceil(), expected.round()].contains(&actual)
    {
        NumberEdit::Rounded
    } else {
        NumberEdit::Other
    }
}

fn type_name(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// The first edit that turns `expected` into `actual`, in document order;
/// `None` when they are equal.
fn first_edit(expected: &Json, actual: &Json) -> Option<Found> {
    let mut path = Vec::new();
    let kind = edit_at(&mut path, expected, actual)?;
    Some(Found { path, kind })
}

fn edit_at(path: &mut Vec<Step>, expected: &Json, actual: &Json) -> Option<EditKind> {
    match (expected, actual) {
        (Json::Object(x), Json::Object(y)) => object_edit(path, x, y),
        (Json::Array(x), Json::Array(y)) => array_edit(path, x, y),
        (Json::String(x), Json::String(y)) => {
            if x.units() == y.units() {
                return None;
            }
            if let Some(kind) = embedded_edit(path, x.units(), y.units()) {
                return Some(kind);
            }
            Some(EditKind::Text(text_edit(x.units(), y.units())))
        }
        (Json::Number(x), Json::Number(y)) if x == y => None,
        (Json::Number(x), Json::Number(y)) => Some(EditKind::Number(number_edit(*x, *y))),
        (x, y) if x == y => None,
        (x, y) => Some(EditKind::Type {
            expected: type_name(x),
            actual: type_name(y),
        }),
    }
}

fn object_edit(
    path: &mut Vec<Step>,
    expected: &[(JsString, Json)],
    actual: &[(JsString, Json)],
) -> Option<EditKind> {
    let same_keys = expected.len() == actual.len()
        && expected
            .iter()
            .zip(actual)
            .all(|((a, _), (b, _))| a.units() == b.units());
    if same_keys {
        for ((key, x), (_, y)) in expected.iter().zip(actual) {
            path.push(Step::Member(key.to_string_lossy()));
            if let Some(kind) = edit_at(path, x, y) {
                return Some(kind);
            }
            path.pop();
        }
        return None;
    }
    let has = |members: &[(JsString, Json)], key: &JsString| {
        members.iter().any(|(k, _)| k.units() == key.units())
    };
    let missing: Vec<String> = expected
        .iter()
        .filter(|(key, _)| !has(actual, key))
        .map(|(key, _)| key.to_string_lossy())
        .collect();
    let extra: Vec<String> = actual
        .iter()
        .filter(|(key, _)| !has(expected, key))
        .map(|(key, _)| key.to_string_lossy())
        .collect();
    Some(match (missing.first(), extra.first()) {
        (None, None) => EditKind::MembersReordered,
        (Some(gone), Some(came)) if fold_case(gone) == fold_case(came) => EditKind::Renamed {
            from: case_style(gone),
            to: case_style(came),
        },
        (Some(gone), Some(came)) => EditKind::MemberReplaced {
            expected: gone.clone(),
            actual: came.clone(),
        },
        (Some(gone), None) => EditKind::MemberMissing(gone.clone()),
        (None, Some(came)) => EditKind::MemberExtra(came.clone()),
    })
}

/// A key without separators, lower-cased: `originalMessages`,
/// `original_messages` and `original-messages` fold alike.
fn fold_case(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

fn case_style(key: &str) -> &'static str {
    if key.contains('_') {
        "snake_case"
    } else if key.contains('-') {
        "kebab-case"
    } else if key.starts_with(|c: char| c.is_uppercase()) {
        "PascalCase"
    } else if key.chars().any(char::is_uppercase) {
        "camelCase"
    } else {
        "lowercase"
    }
}

fn array_edit(path: &mut Vec<Step>, expected: &[Json], actual: &[Json]) -> Option<EditKind> {
    if expected.len() < actual.len() && is_subsequence(expected, actual) {
        return Some(EditKind::ItemsExtra);
    }
    if actual.len() < expected.len() && is_subsequence(actual, expected) {
        return Some(EditKind::ItemsMissing);
    }
    if expected.len() == actual.len() && expected != actual && same_items(expected, actual) {
        return Some(EditKind::ItemsReordered);
    }
    for (x, y) in expected.iter().zip(actual) {
        path.push(Step::Index);
        if let Some(kind) = edit_at(path, x, y) {
            return Some(kind);
        }
        path.pop();
    }
    // Equal items (numbers compare as numbers) and equal lengths.
    None
}

fn is_subsequence(short: &[Json], long: &[Json]) -> bool {
    let mut rest = long.iter();
    short.iter().all(|item| rest.any(|other| other == item))
}

fn same_items(x: &[Json], y: &[Json]) -> bool {
    let sorted = |items: &[Json]| {
        let mut texts: Vec<String> = items.iter().map(json::to_ascii).collect();
        texts.sort();
        texts
    };
    sorted(x) == sorted(y)
}

/// When both strings hold the same lines except one line that is a JSON
/// value on each side, and those values differ, the edit made inside them.
fn embedded_edit(path: &mut Vec<Step>, expected: &[u16], actual: &[u16]) -> Option<EditKind> {
    let lines = |units: &[u16]| -> Vec<Vec<u16>> {
        units
            .split(|&unit| unit == u16::from(b'\n'))
            .map(<[u16]>::to_vec)
            .collect()
    };
    let (x, y) = (lines(expected), lines(actual));
    if x.len() != y.len() {
        return None;
    }
    let (line_x, line_y) = x.iter().zip(&y).find(|(a, b)| a != b)?;
    let parse = |line: &[u16]| -> Option<Json> {
        let first = *line.first()?;
        if first != u16::from(b'[') && first != u16::from(b'{') {
            return None;
        }
        let text = String::from_utf16(line).ok()?;
        json::parse(&text).ok()
    };
    let (value_x, value_y) = (parse(line_x)?, parse(line_y)?);
    path.push(Step::Embedded);
    let kind = edit_at(path, &value_x, &value_y);
    if kind.is_none() {
        path.pop();
    }
    kind
}

fn text_edit(expected: &[u16], actual: &[u16]) -> TextEdit {
    if let (Some(x), Some(y)) = (unescaped(expected), unescaped(actual)) {
        if x == y {
            return TextEdit::Escape {
                added: backslashes(actual) > backslashes(expected),
            };
        }
    }
    if let Some(edit) = trimmed_or_padded(expected, actual) {
        return edit;
    }
    let prefix = expected
        .iter()
        .zip(actual)
        .take_while(|(a, b)| a == b)
        .count();
    let room = expected.len().min(actual.len()) - prefix;
    let suffix = expected
        .iter()
        .rev()
        .zip(actual.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let removed = &expected[prefix..expected.len() - suffix];
    let added = &actual[prefix..actual.len() - suffix];
    let at_edge = prefix == 0 || suffix == 0;
    if let Some(edit) = number_in_text(expected, actual, prefix, suffix) {
        return edit;
    }
    match (removed.is_empty(), added.is_empty()) {
        (false, true) if at_edge => TextEdit::Trimmed(class_of(removed)),
        (false, true) => TextEdit::Removed(class_of(removed)),
        (true, false) if at_edge => TextEdit::Padded(class_of(added)),
        (true, false) => TextEdit::Inserted(class_of(added)),
        _ => match (class_of(removed), class_of(added)) {
            (Class::Text, Class::Text) => TextEdit::Changed,
            (expected, actual) if expected != actual => TextEdit::Replaced { expected, actual },
            _ => TextEdit::Changed,
        },
    }
}

/// When one text is the other with characters cut from both ends (or
/// added to both), that edit.
fn trimmed_or_padded(expected: &[u16], actual: &[u16]) -> Option<TextEdit> {
    let inside = |long: &[u16], short: &[u16]| -> Option<Vec<u16>> {
        if short.is_empty() || short.len() >= long.len() {
            return None;
        }
        let at = long
            .windows(short.len())
            .position(|window| window == short)?;
        (at > 0 && at + short.len() < long.len())
            .then(|| [&long[..at], &long[at + short.len()..]].concat())
    };
    if let Some(cut) = inside(expected, actual) {
        return Some(TextEdit::Trimmed(class_of(&cut)));
    }
    inside(actual, expected).map(|added| TextEdit::Padded(class_of(&added)))
}

/// The text with `\uXXXX` and `\X` escapes read, or `None` when it has no
/// backslash (escapes cannot explain a difference then).
fn unescaped(units: &[u16]) -> Option<Vec<u16>> {
    let backslash = u16::from(b'\\');
    if !units.contains(&backslash) {
        return Some(units.to_vec());
    }
    let mut out = Vec::with_capacity(units.len());
    let mut at = 0;
    while at < units.len() {
        if units[at] != backslash || at + 1 == units.len() {
            out.push(units[at]);
            at += 1;
            continue;
        }
        let hex = units.get(at + 2..at + 6).and_then(|digits| {
            let text = String::from_utf16(digits).ok()?;
            u16::from_str_radix(&text, 16).ok()
        });
        match (units[at + 1] == u16::from(b'u'), hex) {
            (true, Some(unit)) => {
                out.push(unit);
                at += 6;
            }
            _ => {
                out.push(units[at + 1]);
                at += 2;
            }
        }
    }
    Some(out)
}

fn backslashes(units: &[u16]) -> usize {
    units
        .iter()
        .filter(|&&unit| unit == u16::from(b'\\'))
        .count()
}

/// When the changed part of the text lies in a number on both sides, how
/// that number changed.
fn number_in_text(
    expected: &[u16],
    actual: &[u16],
    prefix: usize,
    suffix: usize,
) -> Option<TextEdit> {
    let numeric = |unit: u16| {
        unit < 0x80 && {
            let c = unit as u8;
            c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')
        }
    };
    let token = |units: &[u16], end_kept: usize| -> Option<f64> {
        let mut start = prefix;
        while start > 0 && numeric(units[start - 1]) {
            start -= 1;
        }
        let mut end = units.len() - end_kept;
        while end < units.len() && numeric(units[end]) {
            end += 1;
        }
        let text = String::from_utf16(units.get(start..end)?).ok()?;
        if text.is_empty() || !text.bytes().any(|b| b.is_ascii_digit()) {
            return None;
        }
        let changed = &units[prefix..units.len() - end_kept];
        if !changed.iter().all(|&unit| numeric(unit)) {
            return None;
        }
        text.parse::<f64>().ok()
    };
    let x = token(expected, suffix)?;
    let y = token(actual, suffix)?;
    Some(if x == y {
        TextEdit::NumberSpelled
    } else {
        TextEdit::NumberInText(number_edit(x, y))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(text: &str) -> Json {
        json::parse(text).expect("test JSON")
    }

    fn cause_of(op: &str, expected: &str, actual: &str) -> String {
        let (x, y) = (output(expected), output(actual));
        cause(op, Side::Output(&x), Side::Output(&y))
            .map(|(cause, _)| cause.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn case_style_renames_are_one_cause_through_every_op_of_a_family() {
        // runner.causes
        let retain = cause_of(
            "retain",
            r#"{"stats":{"compacted":false,"originalMessages":1}}"#,
            r#"{"stats":{"compacted":false,"original_messages":1}}"#,
        );
        let prepare = cause_of(
            "prepare",
            r#"{"additionalContext":{"source":{"references":[{"sessionId":"s","originalMessages":1}]}}}"#,
            r#"{"additionalContext":{"source":{"references":[{"sessionId":"s","original_messages":1}]}}}"#,
        );
        assert_eq!(retain, "snapshot: members renamed camelCase → snake_case");
        assert_eq!(retain, prepare);
    }

    #[test]
    fn strings_are_named_by_their_edit_not_by_their_characters() {
        // runner.causes
        let trim = |label: &str, trimmed: &str| {
            cause_of(
                "mention/parse",
                &format!(r#"{{"references":[{{"label":"{label}"}}]}}"#),
                &format!(r#"{{"references":[{{"label":"{trimmed}"}}]}}"#),
            )
        };
        assert_eq!(trim(" a", "a"), "mention: whitespace trimmed at label");
        assert_eq!(trim("a\\u00a0", "a"), trim(" a", "a"));
        assert_eq!(trim(" a ", "a"), trim(" a", "a"));
        assert_eq!(
            cause_of("mention/parse", r#""a]b""#, r#""a\\]b""#),
            "mention: escape added"
        );
        assert_eq!(
            cause_of("json/tag-safe", r#""\\u003ca>""#, r#""<a>""#),
            "json: escape removed"
        );
        assert_eq!(
            cause_of("retain", r#"{"text":"a\nb"}"#, r#"{"text":"ab"}"#),
            "snapshot: whitespace removed at text"
        );
        assert_eq!(
            cause_of("uri/decode", r#""a\ud800""#, r#""a\ufffd""#),
            "uri: lone surrogate replaced by U+FFFD"
        );
        assert_eq!(
            cause_of(
                "prepare",
                r#"{"n":"x 1e21 y"}"#,
                r#"{"n":"x 1000000000000000000000 y"}"#
            ),
            "snapshot: number spelled otherwise at n"
        );
        assert_eq!(
            cause_of("prepare", r#"{"n":"x 12 y"}"#, r#"{"n":"x 13 y"}"#),
            "snapshot: number off by one in text at n"
        );
    }

    #[test]
    fn a_prompt_snapshot_is_compared_inside() {
        // runner.causes
        let prompt = |stats: &str| {
            let inner = format!(r#"[{{"sessionId":"s",{stats}}}]"#);
            format!(
                r#"{{"content":[{{"text":{}}}]}}"#,
                json::stringify(&Json::str(&format!("## Heading\n\n<x>\n{inner}\n</x>")))
            )
        };
        assert_eq!(
            cause_of(
                "prepare",
                &prompt(r#""conversation":[{"text":"a"},{"text":"b"}]"#),
                &prompt(r#""conversation":[{"text":"b"}]"#)
            ),
            "snapshot: items missing at conversation"
        );
    }

    #[test]
    fn arrays_and_members_are_named_by_what_changed() {
        // runner.causes
        assert_eq!(
            cause_of("candidates/list", "[1,2]", "[1,2,3]"),
            "candidates: items extra"
        );
        assert_eq!(
            cause_of("prepare", r#"{"r":[1,2]}"#, r#"{"r":[1,1,2]}"#),
            "snapshot: items extra at r"
        );
        assert_eq!(
            cause_of("retain", r#"{"m":[1,2]}"#, r#"{"m":[2,1]}"#),
            "snapshot: items reordered at m"
        );
        assert_eq!(
            cause_of(
                "mention/parse",
                r#"{"r":[{"sessionId":"s","label":"l"}]}"#,
                r#"{"r":[{"label":"l","sessionId":"s"}]}"#
            ),
            "mention: members reordered at r"
        );
        assert_eq!(
            cause_of("retain", r#"{"a":1,"b":2}"#, r#"{"a":1}"#),
            "snapshot: member b missing"
        );
        assert_eq!(
            cause_of("retain", r#"{"a":1.5}"#, r#"{"a":2}"#),
            "snapshot: number rounded at a"
        );
        assert_eq!(
            cause_of("retain", r#"{"a":"x"}"#, r#"{"a":null}"#),
            "snapshot: null instead of string at a"
        );
        assert_eq!(cause_of("retain", r#"{"a":[1]}"#, r#"{"a":[1.0]}"#), "");
    }

    #[test]
    fn errors_crashes_and_hangs_are_causes_too() {
        // runner.causes
        let out = output("1");
        let show = |x: Side, y: Side| cause("uri/decode", x, y).map(|(cause, _)| cause.to_string());
        assert_eq!(show(Side::Error("A"), Side::Error("A")), None);
        assert_eq!(
            show(Side::Error("A"), Side::Error("B")).as_deref(),
            Some("uri: error B instead of A")
        );
        assert_eq!(
            show(Side::Error("A"), Side::Output(&out)).as_deref(),
            Some("uri: output instead of error A")
        );
        assert_eq!(
            show(Side::Output(&out), Side::Error("B")).as_deref(),
            Some("uri: error B instead of output")
        );
        let crash = |stderr| Side::Failure {
            problem: "implementation exited (exit status: 101) without answering",
            stderr,
        };
        assert_eq!(
            show(
                Side::Output(&out),
                crash("\nthread 'main' panicked at src/port.rs:42:9:\nindex 3\n")
            )
            .as_deref(),
            Some("crash: thread 'main' panicked at src/port.rs:N:N:")
        );
        assert_eq!(
            show(Side::Output(&out), crash("")).as_deref(),
            Some("crash: implementation exited (exit status: N) without answering")
        );
        let hang = Side::Failure {
            problem: "no answer within 10s",
            stderr: "",
        };
        assert_eq!(
            show(Side::Error("A"), hang).as_deref(),
            Some("hang: no answer within the timeout")
        );
    }
}
