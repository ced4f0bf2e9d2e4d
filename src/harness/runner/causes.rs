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

use super::json_path::Step;
use super::members::{fold_case, list_edits, ListEdit, EMPTY_LEFT_OUT};
use super::ops::family;
use crate::js::json::{self, Json};
use crate::js::{first_lone_surrogate, is_js_whitespace, JsString};
use crate::protocol::wire::Outcome;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::collections::HashMap;
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
            Ok(outcome) => Side::expected(outcome),
            Err(problem) => Side::Failure { problem, stderr },
        }
    }

    /// An answer that is an outcome (an expected one).
    pub fn expected(outcome: &'a Outcome) -> Side<'a> {
        match outcome {
            Outcome::Output(output) => Side::Output(output),
            Outcome::Error { code, .. } => Side::Error(code),
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

/// The op families.
const FAMILIES: &[&str] = &[
    "uri",
    "mention",
    "json",
    "snapshot",
    "config",
    "candidates",
    "files",
];

/// The cause of `actual` differing from `expected` for a request of `op`,
/// and the folded path where it shows (`$` for a whole outcome); `None`
/// when they agree (outputs compared exactly, errors by code).
pub fn cause(op: &str, expected: Side, actual: Side) -> Option<(Cause, String)> {
    let whole = |cause: Cause| Some((cause, "$".to_owned()));
    let any = |edit: String| whole(Cause { family: None, edit });
    match (expected, actual) {
        (Side::Output(x), Side::Output(y)) => {
            let found = edits(x, y);
            let found = primary(&found)?;
            Some(output_cause(op, found))
        }
        (expected, Side::Failure { problem, stderr }) => {
            let mut edit = failure(problem, stderr);
            if let Side::Failure { problem, stderr } = expected {
                edit = format!("A: {}; B: {edit}", failure(problem, stderr));
            }
            any(edit)
        }
        (Side::Failure { problem, stderr }, _) => any(format!("A: {}", failure(problem, stderr))),
        (Side::Error(x), Side::Error(y)) if x == y => None,
        (Side::Error(x), Side::Error(y)) if is_order_of_checks(op, x, y) => {
            whole(order_of_checks_cause())
        }
        (Side::Error(code), _) | (_, Side::Error(code))
            if CONVERSATION_ERRORS.contains(&code) && family(op) == "snapshot" =>
        {
            whole(conversation_cause())
        }
        (Side::Error(code), Side::Error(_) | Side::Output(_)) => whole(not_raised(code)),
        (Side::Output(_), Side::Error(_)) => whole(unexpected_error(op)),
    }
}

/// [`cause`], or `outcome differs` at `$` when the cause model folds the
/// difference away.
pub fn cause_or_differs(op: &str, expected: Side, actual: Side) -> (Cause, String) {
    cause(op, expected, actual).unwrap_or_else(|| {
        let family = Some(family(op));
        let edit = "outcome differs".to_owned();
        (Cause { family, edit }, "$".to_owned())
    })
}

/// Every cause of `actual` differing from `expected` for a request of
/// `op`: [`cause_or_differs`]'s, then each other region's
/// ([`causes_per_region`]).
pub fn every(op: &str, expected: Side, actual: Side) -> Vec<Cause> {
    let mut all = vec![cause_or_differs(op, expected, actual).0];
    if let (Side::Output(expected), Side::Output(actual)) = (expected, actual) {
        for (_, cause) in causes_per_region(op, expected, actual) {
            if !all.contains(&cause) {
                all.push(cause);
            }
        }
    }
    all
}

/// The cause an edit of an output of `op` names, and its folded path.
fn output_cause(op: &str, found: &Found) -> (Cause, String) {
    let path = found.folded_path();
    let op_family = family(op);
    if op_family == "snapshot" && found.is_conversation() {
        return (conversation_cause(), path);
    }
    // A member named after a family holds that family's value (a
    // candidate's `mention`); an op's whole output is its family's.
    let locus = found.locus();
    let locus = locus.as_deref().unwrap_or(op_family);
    let family = (!found.kind.is_global()).then(|| {
        FAMILIES
            .iter()
            .copied()
            .find(|f| *f == locus)
            .unwrap_or(op_family)
    });
    let edit = if found.kind.has_locus() {
        format!("{} at {locus}", found.kind)
    } else {
        found.kind.to_string()
    };
    (Cause { family, edit }, path)
}

/// The part of an output an edit is in (spec `runner.causes`): what
/// retention decided (a conversation, the retention stats) inside a
/// prepared message, or the rest, the op's own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// The op's own part of its output.
    Own,
    /// What retention decides: in `retain`'s answer, its conversation and
    /// stats; for a source of a prepared message, its conversation in the
    /// prompt, its stats in the source record.
    Retained,
}

/// Every cause of two outputs of `op` that differ: the most telling edit
/// of the op's own region, then each other member missing, extra or written
/// `null` there (each wrong member a cause; an edit that one writer's rule
/// explains, a rename or a spelling, is one cause however many members it
/// touches, and stands alone when it is the most telling), then each
/// cause of the region `retain` answers (the
/// conversation, whose stats are folded into it, and `compacted`). Only
/// `retain` (its own answer), `prepare` and `pre-step` (each source of a
/// prepared message) have two regions.
pub fn causes_per_region(op: &str, expected: &Json, actual: &Json) -> Vec<(Region, Cause)> {
    let prepared = super::ops::prepares_messages(op) || op == "retain";
    let (mut own, mut retained) = (Vec::new(), Vec::new());
    for found in edits(expected, actual) {
        if prepared && found.is_retained() {
            retained.push(found);
        } else {
            own.push(found);
        }
    }
    // Each wrong member is a cause of its own (spec `runner.causes`): the
    // most telling edit, then each member missing, extra or written null
    // elsewhere; a value changed beside it may follow from it (a label
    // parsed otherwise leaves other text; a list changed changes the
    // lists made from it), and a writer's rule (a global edit) that is
    // the most telling stands alone, since how a port reads and writes
    // strings changes what it computes from them.
    let mut causes: Vec<(Region, Cause)> = Vec::new();
    if let Some(first) = primary(&own) {
        let members = own
            .iter()
            .filter(|found| !first.kind.is_global() && found.names_its_member());
        for found in std::iter::once(first).chain(members) {
            let cause = output_cause(op, found).0;
            if !causes.iter().any(|(_, known)| *known == cause) {
                causes.push((Region::Own, cause));
            }
        }
    }
    // What retain answers is already folded (the conversation and the
    // stats derived from it are one cause): each of its causes counts. In
    // `retain`'s own answer, `compacted` beside a conversation that differs
    // is part of what was kept (a checkpoint projected otherwise compacts
    // otherwise): one cause with it.
    let conversation_differs = retained.iter().any(Found::is_conversation);
    for found in retained {
        if op == "retain" && conversation_differs && !found.is_conversation() {
            continue;
        }
        let cause = output_cause(op, &found).0;
        if !causes.iter().any(|(_, known)| *known == cause) {
            causes.push((Region::Retained, cause));
        }
    }
    causes
}

/// The other reading of `cause`, one of [`causes_per_region`]'s for the
/// outputs `expected` and `actual` of `op`, when it has one (spec
/// `runner.causes`): the one empty member of a list left out is also
/// every empty member left out.
pub fn alternative_of(op: &str, expected: &Json, actual: &Json, cause: &Cause) -> Option<Cause> {
    edits(expected, actual)
        .iter()
        .any(|found| found.reads_as_empty_left_out() && output_cause(op, found).0 == *cause)
        .then(empty_left_out_cause)
}

/// Members holding empty values left out, wherever they are.
fn empty_left_out_cause() -> Cause {
    Cause {
        family: None,
        edit: EMPTY_LEFT_OUT.to_owned(),
    }
}

/// An error where the expected answer has none (an output, or another
/// error: see [`alternative`]).
pub fn unexpected_error(op: &str) -> Cause {
    Cause {
        family: Some(family(op)),
        edit: "unexpected error".to_owned(),
    }
}

/// Whether a preparation that answered error `actual` where `expected` was
/// due failed another of its checks first (spec `runner.causes`: the
/// order of checks). Both are failures a preparation meets on its way
/// (normalization, cancellation, reads, retention), so the request holds
/// both and the port reached them in another order; two failures of the
/// conversation are the conversation's, and a configuration error is
/// decided before the preparation starts.
fn is_order_of_checks(op: &str, expected: &str, actual: &str) -> bool {
    super::ops::prepares_messages(op)
        && expected != actual
        && ![expected, actual].contains(&INVALID_CONFIG)
        && !(CONVERSATION_ERRORS.contains(&expected) && CONVERSATION_ERRORS.contains(&actual))
}

/// An error `code` the expected answer raises and the actual does not.
pub fn not_raised(code: &str) -> Cause {
    Cause {
        family: None,
        edit: format!("error {code} not raised"),
    }
}

/// A preparation that failed another of its checks first: one cause
/// whichever codes the order changes (spec `runner.causes`).
pub fn order_of_checks_cause() -> Cause {
    Cause {
        family: Some("snapshot"),
        edit: "checks in another order".to_owned(),
    }
}

const INVALID_CONFIG: &str = "SESSION_REFERENCE_INVALID_CONFIG";
const CANCELLED: &str = "SESSION_REFERENCE_CANCELLED";

/// The other reading of a failure, when it has one: an error with another
/// code than the expected one is the expected error not raised (its
/// [`cause`]) or an unexpected error raised (this); a preparation's checks
/// in another order (its [`cause`]) may be an unexpected error raised
/// (this), and two failures of its conversation, or a cancel on one side
/// only, may be its checks in another order. A report counts such a failure under whichever reading more of
/// the run's failures share (spec `runner.causes`).
pub fn alternative(op: &str, expected: Side, actual: Side) -> Option<Cause> {
    match (expected, actual) {
        // The one empty member of an object left out is that member
        // missing, or every empty member left out.
        (Side::Output(x), Side::Output(y)) => {
            let found = edits(x, y);
            let found = primary(&found)?;
            found.reads_as_empty_left_out().then(empty_left_out_cause)
        }
        (Side::Error(x), Side::Error(y)) if is_order_of_checks(op, x, y) => {
            Some(unexpected_error(op))
        }
        // A preparation cancelled where the other side answers: the cancel
        // is checked at another stage (or not at all).
        (Side::Output(_), Side::Error(code)) | (Side::Error(code), Side::Output(_))
            if code == CANCELLED && super::ops::prepares_messages(op) =>
        {
            Some(order_of_checks_cause())
        }
        // Two failures of a preparation's conversation (`INTERNAL`,
        // `BUDGET_EXCEEDED`) are what retention decided, or the checks met
        // in another order (an `INTERNAL` of the messages beside a budget).
        (Side::Error(x), Side::Error(y))
            if x != y
                && super::ops::prepares_messages(op)
                && CONVERSATION_ERRORS.contains(&x)
                && CONVERSATION_ERRORS.contains(&y) =>
        {
            Some(order_of_checks_cause())
        }
        (Side::Error(x), Side::Error(y)) if x != y => {
            let conversation = family(op) == "snapshot"
                && [x, y].iter().any(|code| CONVERSATION_ERRORS.contains(code));
            (!conversation).then(|| unexpected_error(op))
        }
        _ => None,
    }
}

/// The errors a snapshot op answers about the conversation it projects: a
/// surface that cannot be projected (`INTERNAL`, as upstream's exhaustive
/// switch over event types throws) and a reference that does not fit its
/// budget at all.
const CONVERSATION_ERRORS: &[&str] = &["INTERNAL", "SESSION_REFERENCE_BUDGET_EXCEEDED"];

/// The retention stats, which describe what was kept of the conversation
/// (`compacted` says whether the source was compacted, not what was kept:
/// an edit of it is a cause of its own).
const STATS: &[&str] = &[
    "originalMessages",
    "retainedMessages",
    "omittedMessages",
    "omittedBytes",
    "truncated",
];

/// The projected and retained conversation differs: anything in it, its
/// stats, a snapshot that fits against one that does not (`null`, or the
/// budget error), a surface refused. These are one region: how a port
/// reads the surface, projects it and measures or cuts what it keeps (spec
/// `surface.*`, `projection.*`, `retention.*`), whichever way it shows;
/// probing tells which of these it is ([`Told`]), and this is the cause
/// when nothing lower could be asked.
pub fn conversation_cause() -> Cause {
    Cause {
        family: Some("snapshot"),
        edit: "conversation differs".to_owned(),
    }
}

/// What probing tells a conversation that differs apart as (spec
/// `runner.probes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Told {
    /// The projection alone (`retain` with an unbounded budget) differs:
    /// what was read of the surface.
    Projection,
    /// The projection agrees and what `retain` kept differs: what was
    /// dropped, or cut and where.
    Retention,
    /// Every source's `retain` at the reference's budget agrees and the
    /// preparation's differs: the budget it retained with (or the
    /// snapshot it retained).
    Budget,
}

/// The cause of a conversation that probing told apart.
pub fn told_conversation(told: Told) -> Cause {
    let edit = match told {
        Told::Projection => "projection differs",
        Told::Retention => "retention differs",
        Told::Budget => "budget differs",
    };
    Cause {
        family: Some("snapshot"),
        edit: edit.to_owned(),
    }
}

/// Whether two causes are the same one, a conversation's told apart or
/// not counting as one (the telling depends on what was asked).
pub fn same_cause(one: &Cause, other: &Cause) -> bool {
    let conversation = |cause: &Cause| {
        *cause == conversation_cause()
            || [Told::Projection, Told::Retention, Told::Budget]
                .into_iter()
                .any(|told| *cause == told_conversation(told))
    };
    one == other || (conversation(one) && conversation(other))
}

/// A preparation whose model lookup fails, answered otherwise (spec
/// `prepare.budget.lookup-failed`): the lookup happens before any read,
/// so the conversation is not what differs.
pub fn lookup_cause() -> Cause {
    Cause {
        family: Some("snapshot"),
        edit: "model lookup failure differs".to_owned(),
    }
}

/// A protocol failure as a cause: a hang, or a crash named by the first
/// line of what it wrote to stderr (else the runner's text), numbers folded.
fn failure(problem: &str, stderr: &str) -> String {
    if super::adapter::is_hang(problem) {
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

/// An edit found, and where.
#[derive(Debug)]
struct Found {
    path: Vec<Step>,
    kind: EditKind,
}

impl Found {
    /// An edit of `kind` at `path`.
    fn at(path: &[Step], kind: EditKind) -> Found {
        Found {
            path: path.to_vec(),
            kind,
        }
    }

    fn folded_path(&self) -> String {
        let mut path = "$".to_owned();
        for step in &self.path {
            match step {
                Step::Member(name) => match plain(name) {
                    Some(name) => {
                        path.push('.');
                        path.push_str(&name);
                    }
                    None => path.push_str(".{}"),
                },
                Step::Item(_) => path.push_str("[]"),
                Step::Embedded => path.push_str("<json>"),
            }
        }
        path
    }

    /// The last plain member name on the path.
    fn locus(&self) -> Option<String> {
        self.path.iter().rev().find_map(|step| match step {
            Step::Member(name) => plain(name),
            _ => None,
        })
    }

    /// Whether the edit shows what projection and retention kept: it is in
    /// a `conversation`, in the retention stats, or a whole snapshot
    /// against `null`.
    fn is_conversation(&self) -> bool {
        let in_conversation = self.path.iter().any(|step| {
            matches!(step, Step::Member(name) if name.is("conversation") || name.is(OMISSIONS))
        });
        let whole_against_null = self.path.is_empty()
            && matches!(self.kind, EditKind::Type { expected, actual } if expected == "null" || actual == "null");
        in_conversation
            || self
                .locus()
                .is_some_and(|locus| STATS.contains(&locus.as_str()))
            || whole_against_null
    }

    /// Whether the edit names the member it is about: one missing, extra,
    /// written `null` or under another name.
    fn names_its_member(&self) -> bool {
        matches!(&self.kind, EditKind::Members(edit) if edit.names_its_member())
    }

    /// Whether the edit is the one empty member of a list left out, which
    /// also reads as every empty member left out.
    fn reads_as_empty_left_out(&self) -> bool {
        matches!(
            self.kind,
            EditKind::Members(ListEdit::Missing { empty: true, .. })
        )
    }

    /// Whether the edit is in what `retain` answers for a source: its
    /// conversation, or any of its stats (`compacted` too).
    fn is_retained(&self) -> bool {
        self.is_conversation() || self.locus().as_deref() == Some("compacted")
    }

    /// What makes two edits one cause (within one op family): edits of a
    /// conversation are one; an edit whose kind names its member (a
    /// `null` written, a member missing) is one wherever the member is, as
    /// its cause is named ([`output_cause`]).
    fn key(&self) -> String {
        if self.is_conversation() {
            return conversation_cause().edit;
        }
        if !self.kind.has_locus() {
            return self.kind.to_string();
        }
        format!(
            "{} at {}",
            self.kind,
            self.locus().as_deref().unwrap_or("$")
        )
    }
}

/// A member name as a path shows it, when it is a plain one (an
/// identifier).
fn plain(name: &JsString) -> Option<String> {
    let name = name.to_string_lossy();
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain.then_some(name)
}

/// The kinds of edit (spec `runner.causes`), most telling first: when an
/// output holds several edits, the cause is the most telling one (a
/// count that changed is usually the consequence of a list that did).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EditKind {
    /// The same text once escapes are read, or a character the expected
    /// text writes as an escape written raw (or the reverse): escapes
    /// added (`true`) or removed.
    Escape { added: bool },
    /// Characters of one class replaced by characters of another (a lone
    /// surrogate by U+FFFD).
    ClassReplaced {
        expected: RunClass,
        actual: RunClass,
    },
    /// The member lists differ ([`ListEdit`], in its order of telling), or
    /// `null` is written where the expected value has another.
    Members(ListEdit),
    /// Items added, removed or reordered, or several items changed by
    /// different causes.
    Items,
    /// Whitespace cut from (or added to) the start or the end.
    Whitespace { trimmed: bool },
    /// A number written another way (same value).
    NumberSpelled,
    /// A JSON value written as other text (same value, not by its
    /// escapes): spacing, number spelling.
    JsonSpelled,
    /// Any other change of a text.
    TextChanged,
    /// A value of another JSON type.
    Type {
        expected: &'static str,
        actual: &'static str,
    },
    /// The other boolean.
    BooleanChanged,
    /// Another number.
    NumberChanged,
}

impl EditKind {
    /// Edits that are one cause whichever op shows them: they come from
    /// how a port writes JSON and strings, not from one op's logic.
    fn is_global(&self) -> bool {
        matches!(
            self,
            EditKind::Escape { .. }
                | EditKind::ClassReplaced { .. }
                | EditKind::Members(
                    ListEdit::Renamed { .. } | ListEdit::IndexKeysPlaced | ListEdit::EmptyLeftOut
                )
                | EditKind::NumberSpelled
                | EditKind::JsonSpelled
        )
    }

    /// Edits named by where they are (their locus).
    fn has_locus(&self) -> bool {
        !self.is_global() && !matches!(self, EditKind::Members(edit) if edit.names_its_member())
    }
}

impl fmt::Display for EditKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditKind::Escape { added: true } => f.write_str("escape added"),
            EditKind::Escape { added: false } => f.write_str("escape removed"),
            EditKind::ClassReplaced { expected, actual } => {
                write!(f, "{expected} replaced by {actual}")
            }
            EditKind::Members(edit) => edit.fmt(f),
            EditKind::Items => f.write_str("items differ"),
            EditKind::Whitespace { trimmed: true } => f.write_str("whitespace trimmed"),
            EditKind::Whitespace { trimmed: false } => f.write_str("whitespace padded"),
            EditKind::NumberSpelled => f.write_str("number spelled otherwise"),
            EditKind::JsonSpelled => f.write_str("JSON spelled otherwise"),
            EditKind::TextChanged => f.write_str("text changed"),
            EditKind::Type { expected, actual } => write!(f, "{actual} instead of {expected}"),
            EditKind::NumberChanged => f.write_str("number changed"),
            EditKind::BooleanChanged => f.write_str("boolean changed"),
        }
    }
}

/// The class of a run of characters an edit replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum RunClass {
    Whitespace,
    LoneSurrogate,
    Replacement,
    Text,
}

impl fmt::Display for RunClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RunClass::Whitespace => "whitespace",
            RunClass::LoneSurrogate => "lone surrogate",
            RunClass::Replacement => "U+FFFD",
            RunClass::Text => "text",
        })
    }
}

fn class_of(units: &[u16]) -> RunClass {
    if !units.is_empty() && units.iter().all(|&unit| is_js_whitespace(unit)) {
        RunClass::Whitespace
    } else if !units.is_empty() && units.iter().all(|&unit| unit == 0xFFFD) {
        RunClass::Replacement
    } else if units.iter().all(|unit| (0xD800..0xE000).contains(unit))
        && first_lone_surrogate(units).is_some()
    {
        RunClass::LoneSurrogate
    } else {
        RunClass::Text
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

/// The most telling edit (the first in document order among equals).
fn primary(found: &[Found]) -> Option<&Found> {
    found.iter().min_by(|a, b| a.kind.cmp(&b.kind))
}

/// Every edit that turns `expected` into `actual`, in document order.
fn edits(expected: &Json, actual: &Json) -> Vec<Found> {
    let mut found = Vec::new();
    collect(&mut Vec::new(), expected, actual, &mut found);
    found
}

fn collect(path: &mut Vec<Step>, expected: &Json, actual: &Json, found: &mut Vec<Found>) {
    match (expected, actual) {
        (Json::Object(x), Json::Object(y)) => object_edits(path, x, y, found),
        (Json::Array(x), Json::Array(y)) => array_edits(path, x, y, found),
        (Json::String(x), Json::String(y)) => {
            let (x, y) = (x.units(), y.units());
            if x == y {
                return;
            }
            if embedded_edits(path, x, y, found) {
                return;
            }
            if let Some(kind) = encoded_edit(x, y) {
                return found.push(Found::at(path, kind));
            }
            found.push(Found::at(
                path,
                spelling_edit(x, y).unwrap_or_else(|| text_edit(x, y)),
            ));
        }
        (Json::Number(x), Json::Number(y)) if x == y => {}
        (Json::Number(_), Json::Number(_)) => found.push(Found::at(path, EditKind::NumberChanged)),
        (Json::Bool(x), Json::Bool(y)) if x != y => {
            found.push(Found::at(path, EditKind::BooleanChanged));
        }
        (x, y) if x == y => {}
        (x, y) => {
            let member = match path.last() {
                Some(Step::Member(name)) => plain(name),
                _ => None,
            };
            let kind = match (y, member) {
                (Json::Null, Some(name)) => EditKind::Members(ListEdit::NullWritten(name)),
                _ => EditKind::Type {
                    expected: type_name(x),
                    actual: type_name(y),
                },
            };
            found.push(Found::at(path, kind));
        }
    }
}

/// The edits of two objects: of their member lists, then of each member
/// both have.
fn object_edits(
    path: &mut Vec<Step>,
    x: &[(JsString, Json)],
    y: &[(JsString, Json)],
    found: &mut Vec<Found>,
) {
    let list = list_edits(x, y);
    if list.is_empty() {
        for ((key, a), (_, b)) in x.iter().zip(y) {
            path.push(Step::Member(key.clone()));
            collect(path, a, b, found);
            path.pop();
        }
        return;
    };
    // Every edit counts: the members both have are compared too, a member
    // renamed in another case style with its new name, so another change
    // under a reordered or renamed object still shows.
    found.extend(
        list.into_iter()
            .map(|edit| Found::at(path, EditKind::Members(edit))),
    );
    let theirs: HashMap<&[u16], &Json> =
        y.iter().map(|(key, value)| (key.units(), value)).collect();
    let folded: HashMap<String, &Json> = y
        .iter()
        .map(|(key, value)| (fold_case(&key.to_string_lossy()), value))
        .collect();
    for (key, a) in x {
        let same = theirs
            .get(key.units())
            .or_else(|| folded.get(&fold_case(&key.to_string_lossy())));
        if let Some(b) = same {
            path.push(Step::Member(key.clone()));
            collect(path, a, b, found);
            path.pop();
        }
    }
}

/// Arrays of other lengths, or the same items in another order, are one
/// `Items` edit; otherwise each differing item is compared, and when
/// several differ by different causes, that too is one `Items` edit.
fn array_edits(path: &mut Vec<Step>, expected: &[Json], actual: &[Json], found: &mut Vec<Found>) {
    if expected.len() != actual.len() {
        return found.push(Found::at(path, EditKind::Items));
    }
    // Records whose first members (an identity: a string or a number)
    // differ are other records (another session or file in that place):
    // the list changed. Kept because the lists that show it (candidates,
    // files) come from the lowest ops, which no probe explains.
    let identity = |value: &Json| matches!(value, Json::String(_) | Json::Number(_));
    let other_record = expected.iter().zip(actual).any(|(x, y)| match (x, y) {
        (Json::Object(a), Json::Object(b)) => {
            a.first()
                .zip(b.first())
                .is_some_and(|((ka, va), (kb, vb))| {
                    ka.units() == kb.units() && identity(va) && identity(vb) && va != vb
                })
        }
        _ => false,
    });
    if other_record {
        return found.push(Found::at(path, EditKind::Items));
    }
    let mut per_item: Vec<Vec<Found>> = Vec::new();
    for (index, (x, y)) in expected.iter().zip(actual).enumerate() {
        path.push(Step::Item(index));
        let mut item = Vec::new();
        collect(path, x, y, &mut item);
        path.pop();
        if !item.is_empty() {
            per_item.push(item);
        }
    }
    // Several items changed by different causes are a change of the list.
    let keys: Vec<Option<String>> = per_item.iter().map(|item| primary_key(item)).collect();
    let one_cause = keys.windows(2).all(|pair| pair[0] == pair[1]);
    if per_item.len() > 1 && (!one_cause || same_items(expected, actual)) {
        found.push(Found::at(path, EditKind::Items));
    } else {
        found.extend(per_item.into_iter().flatten());
    }
}

fn primary_key(item: &[Found]) -> Option<String> {
    primary(item).map(Found::key)
}

fn same_items(x: &[Json], y: &[Json]) -> bool {
    let sorted = |items: &[Json]| {
        let mut texts: Vec<String> = items.iter().map(json::to_ascii).collect();
        texts.sort();
        texts
    };
    sorted(x) == sorted(y)
}

/// When both strings hold the same lines except lines that are a JSON
/// value on each side, the edits made inside those values (or to how a
/// line spells the same value); `false` when the strings are not such.
fn embedded_edits(
    path: &mut Vec<Step>,
    expected: &[u16],
    actual: &[u16],
    found: &mut Vec<Found>,
) -> bool {
    let newline = u16::from(b'\n');
    let x: Vec<&[u16]> = expected.split(|&unit| unit == newline).collect();
    let y: Vec<&[u16]> = actual.split(|&unit| unit == newline).collect();
    // Lines only one side has at the end are a notice of omissions one
    // side wrote and the other did not (it follows the snapshot in the
    // newest generation's prompt): what retention decided.
    let shared = x.len().min(y.len());
    let notice = x.len() != y.len();
    if notice
        && !x[shared..]
            .iter()
            .chain(&y[shared..])
            .any(|line| parse_line(line).is_some())
    {
        return false;
    }
    let mut lines = Vec::new();
    for (a, b) in x.iter().zip(&y) {
        if a == b {
            continue;
        }
        match (parse_line(a), parse_line(b)) {
            (Some(value_a), Some(value_b)) => lines.push((*a, *b, value_a, value_b)),
            _ => return false,
        }
    }
    path.push(Step::Embedded);
    if notice {
        path.push(Step::Member(JsString::from(OMISSIONS)));
        found.push(Found::at(path, EditKind::Items));
        path.pop();
    }
    for (line_a, line_b, value_a, value_b) in &lines {
        let before = found.len();
        collect(path, value_a, value_b, found);
        if found.len() == before {
            // The same value written otherwise: escapes, or spelling.
            let kind = match escape_edit(line_a, line_b) {
                Some(added) => EditKind::Escape { added },
                None => EditKind::JsonSpelled,
            };
            found.push(Found::at(path, kind));
        }
    }
    path.pop();
    true
}

/// The JSON value a line of a prompt holds, if it is one (an object or an
/// array).
fn parse_line(line: &[u16]) -> Option<Json> {
    let first = *line.first()?;
    if first != u16::from(b'[') && first != u16::from(b'{') {
        return None;
    }
    // A lone surrogate written raw (inside a string, the only place JSON
    // text can hold one) is read as the escape that spells it, so that it
    // keeps its value instead of becoming U+FFFD.
    let mut text = String::with_capacity(line.len());
    for decoded in char::decode_utf16(line.iter().copied()) {
        match decoded {
            Ok(c) => text.push(c),
            Err(lone) => text.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
        }
    }
    json::parse(&text).ok()
}

/// The locus of a notice of omissions one side of a prompt has and the
/// other lacks.
const OMISSIONS: &str = "omissions";

/// Whether two different texts differ only in escapes: the same once
/// `\X` and `\uXXXX` escapes are read, or the same without backslashes
/// (a label's backslash escapes, `\]` and `\\`, which no lower op
/// explains: spec `runner.causes`); `Some(true)` when the actual one has
/// more backslashes.
fn escape_edit(expected: &[u16], actual: &[u16]) -> Option<bool> {
    let backslash = u16::from(b'\\');
    let count = |units: &[u16]| units.iter().filter(|&&unit| unit == backslash).count();
    let (in_expected, in_actual) = (count(expected), count(actual));
    if in_expected == in_actual {
        return None;
    }
    let added = in_actual > in_expected;
    if unescaped(expected) == unescaped(actual) {
        return Some(added);
    }
    // Backslashes that only extend one text past the other's end escape
    // nothing: that text was cut elsewhere, which is no escape edit.
    let (short, long) = if expected.len() < actual.len() {
        (expected, actual)
    } else {
        (actual, expected)
    };
    if long.starts_with(short) && long[short.len()..].iter().all(|&unit| unit == backslash) {
        return None;
    }
    let without = |units: &[u16]| -> Vec<u16> {
        units
            .iter()
            .copied()
            .filter(|&unit| unit != backslash)
            .collect()
    };
    (without(expected) == without(actual)).then_some(added)
}

/// When two texts differ inside a session URI's payload (the base64url
/// run after `dsh-session:`) whose decoded texts are one JSON value spelled
/// two ways: that spelling's edit, seen through the encoding (spec
/// `runner.causes`), so that a JSON writer's escape is one cause in a URI
/// as in a prompt.
fn encoded_edit(expected: &[u16], actual: &[u16]) -> Option<EditKind> {
    let prefix = expected
        .iter()
        .zip(actual)
        .take_while(|(a, b)| a == b)
        .count();
    let decoded = |units: &[u16]| -> Option<Vec<u16>> {
        let start = units[..prefix]
            .iter()
            .rposition(|&unit| !crate::uri::is_payload_unit(unit))
            .map_or(0, |at| at + 1);
        if !units[..start].ends_with(&crate::uri::SCHEME_UNITS) {
            return None;
        }
        let end = units[prefix..]
            .iter()
            .position(|&unit| !crate::uri::is_payload_unit(unit))
            .map_or(units.len(), |at| prefix + at);
        let run = String::from_utf16(&units[start..end]).ok()?;
        let bytes = URL_SAFE_NO_PAD.decode(run).ok()?;
        Some(String::from_utf8(bytes).ok()?.encode_utf16().collect())
    };
    let (x, y) = (decoded(expected)?, decoded(actual)?);
    if x == y {
        return None;
    }
    if let Some(kind) = spelling_edit(&x, &y) {
        return Some(kind);
    }
    let value = |units: &[u16]| json::parse(&String::from_utf16(units).ok()?).ok();
    (value(&x)? == value(&y)?).then_some(EditKind::JsonSpelled)
}

/// When two different texts are one text written with other escapes:
/// escapes added or removed ([`escape_edit`]), or as many escapes spelled
/// otherwise (`\u000a` for `\n`), which is how a JSON writer spells (spec
/// `runner.causes`): one cause with a prompt's JSON spelled otherwise.
fn spelling_edit(expected: &[u16], actual: &[u16]) -> Option<EditKind> {
    if let Some(added) = escape_edit(expected, actual) {
        return Some(EditKind::Escape { added });
    }
    (unescaped(expected) == unescaped(actual)).then_some(EditKind::JsonSpelled)
}

fn text_edit(expected: &[u16], actual: &[u16]) -> EditKind {
    if let Some(kind) = trimmed_or_padded(expected, actual) {
        return kind;
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
    if number_spelled(expected, actual, prefix, suffix) {
        return EditKind::NumberSpelled;
    }
    match (class_of(removed), class_of(added)) {
        (x, y)
            if !removed.is_empty()
                && !added.is_empty()
                && x != y
                && x != RunClass::Text
                && y != RunClass::Text =>
        {
            EditKind::ClassReplaced {
                expected: x,
                actual: y,
            }
        }
        _ => EditKind::TextChanged,
    }
}

/// When one text is the other with whitespace cut from its start, its end
/// or both (or added there), that edit.
fn trimmed_or_padded(expected: &[u16], actual: &[u16]) -> Option<EditKind> {
    let inside = |long: &[u16], short: &[u16]| -> Option<Vec<u16>> {
        if short.len() >= long.len() {
            return None;
        }
        let at = if short.is_empty() {
            0
        } else {
            long.windows(short.len())
                .position(|window| window == short)?
        };
        Some([&long[..at], &long[at + short.len()..]].concat())
    };
    if let Some(cut) = inside(expected, actual) {
        return (class_of(&cut) == RunClass::Whitespace)
            .then_some(EditKind::Whitespace { trimmed: true });
    }
    let added = inside(actual, expected)?;
    (class_of(&added) == RunClass::Whitespace).then_some(EditKind::Whitespace { trimmed: false })
}

/// The text with `\uXXXX` and `\X` escapes read (JSON's short escapes
/// as JSON reads them).
fn unescaped(units: &[u16]) -> Vec<u16> {
    let backslash = u16::from(b'\\');
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
                out.push(short_escape(units[at + 1]));
                at += 2;
            }
        }
    }
    out
}

/// The character JSON's short escape `\X` stands for (`\n` is U+000A);
/// any other escaped character stands for itself (`\]`, `\/`).
fn short_escape(unit: u16) -> u16 {
    match u8::try_from(unit) {
        Ok(b'b') => 0x08,
        Ok(b't') => 0x09,
        Ok(b'n') => 0x0A,
        Ok(b'f') => 0x0C,
        Ok(b'r') => 0x0D,
        _ => unit,
    }
}

/// Whether the changed part of the text lies in a number on both sides,
/// written two ways with the same value (`1e21`, `1000000000000000000000`).
fn number_spelled(expected: &[u16], actual: &[u16], prefix: usize, suffix: usize) -> bool {
    let numeric = |unit: u16| {
        unit < 0x80 && {
            let c = unit as u8;
            c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-')
        }
    };
    let token = |units: &[u16]| -> Option<f64> {
        let mut start = prefix;
        while start > 0 && numeric(units[start - 1]) {
            start -= 1;
        }
        let mut end = units.len() - suffix;
        while end < units.len() && numeric(units[end]) {
            end += 1;
        }
        let changed = &units[prefix..units.len() - suffix];
        if !changed.iter().all(|&unit| numeric(unit)) {
            return None;
        }
        let text = String::from_utf16(units.get(start..end)?).ok()?;
        if !text.bytes().any(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse::<f64>().ok()
    };
    matches!((token(expected), token(actual)), (Some(x), Some(y)) if x == y)
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
    fn case_style_renames_are_one_cause_through_every_op() {
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
        assert_eq!(retain, "members renamed camelCase → snake_case");
        assert_eq!(retain, prepare);
    }

    #[test]
    fn strings_are_named_by_their_edit_not_by_their_characters() {
        // runner.causes
        let trim = |label: &str, trimmed: &str| {
            cause_of(
                "mention/parse",
                &format!(r#"{{"references":[{{"sessionId":"s","label":"{label}"}}]}}"#),
                &format!(r#"{{"references":[{{"sessionId":"s","label":"{trimmed}"}}]}}"#),
            )
        };
        assert_eq!(trim(" a", "a"), "mention: whitespace trimmed at label");
        assert_eq!(trim("a\\u00a0", "a"), trim(" a", "a"));
        assert_eq!(trim(" a ", "a"), trim(" a", "a"));
        assert_eq!(trim("a", " a"), "mention: whitespace padded at label");
        assert_eq!(
            cause_of("mention/parse", r#""a]b""#, r#""a\\]b""#),
            "escape added"
        );
        assert_eq!(
            cause_of("json/tag-safe", r#""\\u003ca>""#, r#""<a>""#),
            "escape removed"
        );
        assert_eq!(
            cause_of("mention/format", r#""@[a\\\\b](x)""#, r#""@[a\\b](x)""#),
            "escape removed"
        );
        // A text cut after a backslash is no escape edit.
        assert_eq!(
            cause_of("files/format", r#""ab\\""#, r#""ab""#),
            "files: text changed at files"
        );
        assert_eq!(
            cause_of(
                "mention/parse",
                r#"{"text":"@a\\"}"#,
                r#"{"text":"@a\\\\"}"#
            ),
            "escape added"
        );
        assert_eq!(
            cause_of("uri/decode", r#""a\ud800""#, r#""a\ufffd""#),
            "lone surrogate replaced by U+FFFD"
        );
        assert_eq!(
            cause_of(
                "prepare",
                r#"{"n":"x 1e21 y"}"#,
                r#"{"n":"x 1000000000000000000000 y"}"#
            ),
            "number spelled otherwise"
        );
        assert_eq!(
            cause_of("files/format", r#"{"n":"x 12 y"}"#, r#"{"n":"x 13 y"}"#),
            "files: text changed at n"
        );
        // A candidate's mention is the mention family's value.
        assert_eq!(
            cause_of(
                "candidates/list",
                r#"[{"sessionId":"s","mention":"@[a](x)"}]"#,
                r#"[{"sessionId":"s","mention":"@[b](x)"}]"#
            ),
            cause_of("mention/format", r#""@[a](x)""#, r#""@[b](x)""#)
        );
    }

    #[test]
    fn a_prompt_snapshot_is_compared_inside() {
        // runner.causes
        let prompt = |label: &str| {
            let inner = format!(r#"[{{"sessionId":"s","label":"{label}"}}]"#);
            format!(
                r#"{{"content":[{{"type":"text","text":{}}}]}}"#,
                json::stringify(&Json::str(&format!("## Heading\n\n<x>\n{inner}\n</x>")))
            )
        };
        assert_eq!(
            cause_of("prepare", &prompt(" L"), &prompt("L")),
            "snapshot: whitespace trimmed at label"
        );
    }

    #[test]
    fn what_projection_and_retention_kept_is_one_cause_however_it_shows() {
        // runner.causes
        let retained = "snapshot: conversation differs";
        assert_eq!(
            cause_of(
                "retain",
                r#"{"data":{"conversation":[{"text":"a"},{"text":"b"}]}}"#,
                r#"{"data":{"conversation":[{"text":"b"}]}}"#
            ),
            retained
        );
        assert_eq!(
            cause_of(
                "retain",
                r#"{"data":{"conversation":[{"text":"abc"}]}}"#,
                r#"{"data":{"conversation":[{"text":"ab"}]}}"#
            ),
            retained
        );
        assert_eq!(cause_of("retain", "null", r#"{"data":{}}"#), retained);
        assert_eq!(
            cause_of(
                "retain",
                r#"{"stats":{"truncated":true}}"#,
                r#"{"stats":{"truncated":false}}"#
            ),
            retained
        );
        let out = output("{}");
        let budget = cause(
            "prepare",
            Side::Error("SESSION_REFERENCE_BUDGET_EXCEEDED"),
            Side::Output(&out),
        )
        .map(|(cause, _)| cause.to_string());
        assert_eq!(budget.as_deref(), Some(retained));
        let refused = cause("pre-step", Side::Output(&out), Side::Error("INTERNAL"))
            .map(|(cause, _)| cause.to_string());
        assert_eq!(refused.as_deref(), Some(retained));
        // Elsewhere INTERNAL is an error like any other.
        let elsewhere = cause("uri/decode", Side::Error("INTERNAL"), Side::Output(&out))
            .map(|(cause, _)| cause.to_string());
        assert_eq!(elsewhere.as_deref(), Some("error INTERNAL not raised"));
    }

    #[test]
    fn arrays_and_members_are_named_by_what_changed() {
        // runner.causes
        assert_eq!(
            cause_of("candidates/list", "[1,2]", "[1,2,3]"),
            "candidates: items differ at candidates"
        );
        assert_eq!(
            cause_of("prepare", r#"{"r":[1,2]}"#, r#"{"r":[1,1,2]}"#),
            "snapshot: items differ at r"
        );
        assert_eq!(
            cause_of("files/list", r#"{"m":[1,2]}"#, r#"{"m":[2,1]}"#),
            "files: items differ at m"
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
            cause_of("retain", r#"{"a":1}"#, r#"{"a":1,"c":2}"#),
            "snapshot: member c extra"
        );
        assert_eq!(
            cause_of("retain", r#"{"stats":{"a":1.5}}"#, r#"{"stats":{"a":2}}"#),
            "snapshot: number changed at a"
        );
        // null written for a value of any type, or for no member: one
        // cause (a port's absent value written as null).
        for (expected, actual) in [
            (r#"{"a":"x"}"#, r#"{"a":null}"#),
            (r#"{"a":{"b":1}}"#, r#"{"a":null}"#),
            (r#"{}"#, r#"{"a":null}"#),
        ] {
            assert_eq!(
                cause_of("config/check", expected, actual),
                "config: null written at a"
            );
        }
        assert_eq!(
            cause_of("config/check", r#"{"a":null}"#, r#"{"a":"x"}"#),
            "config: string instead of null at a"
        );
        assert_eq!(
            cause_of("config/check", r#"{"a":["x"]}"#, r#"{"a":[null]}"#),
            "config: null instead of string at a"
        );
        assert_eq!(cause_of("retain", r#"{"a":[1]}"#, r#"{"a":[1.0]}"#), "");
        assert_eq!(
            cause_of("config/check", r#"{"a":[true]}"#, r#"{"a":[true]}"#),
            ""
        );
        // A record with another identity in a place is another record.
        assert_eq!(
            cause_of(
                "candidates/list",
                r#"[{"sessionId":"a","cwd":"/w"}]"#,
                r#"[{"sessionId":"me"}]"#
            ),
            "candidates: items differ at candidates"
        );
        // The most telling edit wins: a count changed with its list.
        assert_eq!(
            cause_of(
                "files/list",
                r#"{"count":2,"files":["a","b"]}"#,
                r#"{"count":3,"files":["a","b","c"]}"#
            ),
            "files: items differ at files"
        );
    }

    #[test]
    fn errors_crashes_and_hangs_are_causes_too() {
        // runner.causes
        let out = output("1");
        let show = |x: Side, y: Side| cause("uri/decode", x, y).map(|(cause, _)| cause.to_string());
        assert_eq!(show(Side::Error("A"), Side::Error("A")), None);
        let missed = Some("error A not raised");
        assert_eq!(show(Side::Error("A"), Side::Error("B")).as_deref(), missed);
        let other_reading = alternative("uri/decode", Side::Error("A"), Side::Error("B"));
        assert_eq!(
            other_reading.map(|cause| cause.to_string()).as_deref(),
            Some("uri: unexpected error")
        );
        assert_eq!(
            alternative("uri/decode", Side::Error("A"), Side::Output(&out)),
            None
        );
        assert_eq!(
            show(Side::Error("A"), Side::Output(&out)).as_deref(),
            missed
        );
        assert_eq!(
            show(Side::Output(&out), Side::Error("A")).as_deref(),
            Some("uri: unexpected error")
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
        // A crash is a crash whatever was expected.
        assert_eq!(
            cause("prepare", Side::Error("INTERNAL"), crash("boom 1"))
                .map(|(c, _)| c.to_string())
                .as_deref(),
            Some("crash: boom N")
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

    /// The causes of two outputs of `prepare`, each region's, named.
    fn prepared_causes(expected: &Json, actual: &Json) -> Vec<String> {
        causes_per_region("prepare", expected, actual)
            .iter()
            .map(|(_, cause)| cause.to_string())
            .collect()
    }

    #[test]
    fn every_region_of_a_prepared_message_is_a_cause() {
        // runner.causes: a pervasive edit of the source record does not
        // hide a retention edit beside it, even under reordered members.
        let prepared = |order: &str, compacted: bool| {
            output(&format!(
                r#"{{"additionalContext":{{"source":{{{order},"references":[{{"sessionId":"s","compacted":{compacted}}}]}}}}}}"#
            ))
        };
        let expected = prepared(r#""kind":"k","version":1"#, true);
        let actual = prepared(r#""version":1,"kind":"k""#, false);
        let causes = prepared_causes(&expected, &actual);
        assert_eq!(
            causes,
            [
                "snapshot: members reordered at source",
                "snapshot: boolean changed at compacted"
            ]
        );
        // `retain`'s answer has the same two regions; another op's output
        // is one region: its most telling edit (a value changed beside it
        // may follow from it).
        assert_eq!(causes_per_region("retain", &expected, &actual).len(), 2);
        let regions = causes_per_region("candidates/list", &expected, &actual);
        assert_eq!(regions.len(), 1);
    }

    #[test]
    fn a_change_inside_renamed_members_still_shows() {
        // runner.causes: a renamed object's members are compared under
        // their new name, so a cut beside a rename is its own cause.
        let expected = output(
            r#"{"additionalContext":{"source":{"references":[{"originalMessages":3,"compacted":true}]}}}"#,
        );
        let actual = output(
            r#"{"additional_context":{"source":{"references":[{"original_messages":3,"compacted":false}]}}}"#,
        );
        let causes = prepared_causes(&expected, &actual);
        assert_eq!(
            causes,
            [
                "members renamed camelCase → snake_case",
                "snapshot: boolean changed at compacted"
            ]
        );
    }

    #[test]
    fn a_null_written_at_one_member_is_one_cause_across_items() {
        // runner.causes: one item's value written `null` and another's
        // absent member added as `null` are the same edit, not a change of
        // the list.
        let expected = output(r#"{"references":[{"label":"a","seq":4},{"label":"b"}]}"#);
        let actual =
            output(r#"{"references":[{"label":"a","seq":null},{"label":"b","seq":null}]}"#);
        let causes = prepared_causes(&expected, &actual);
        assert_eq!(causes, ["snapshot: null written at seq"]);
    }

    #[test]
    fn a_notice_of_omissions_one_side_lacks_is_what_retention_decided() {
        // runner.causes
        let prompt = |notice: &str| {
            let text = format!("## H\n<x>\n[{{\"conversation\":[]}}]\n</x>{notice}");
            format!(
                r#"{{"content":[{{"type":"text","text":{}}}]}}"#,
                json::stringify(&Json::str(&text))
            )
        };
        assert_eq!(
            cause_of(
                "prepare",
                &prompt("\n\nReference omissions\n[{\"omittedMessages\":1}]"),
                &prompt("")
            ),
            "snapshot: conversation differs"
        );
    }

    #[test]
    fn json_written_otherwise_is_one_cause_whatever_op() {
        // runner.causes
        let line = |text: &str| json::stringify(&Json::str(text));
        assert_eq!(
            cause_of(
                "json/tag-safe",
                &line(r#"{"a":[1,2]}"#),
                &line(r#"{"a": [1, 2]}"#)
            ),
            "JSON spelled otherwise"
        );
        assert_eq!(
            cause_of(
                "json/tag-safe",
                &line(r#"[1e21]"#),
                &line(r#"[1000000000000000000000]"#)
            ),
            "JSON spelled otherwise"
        );
        // A lone surrogate written raw keeps its value: an escape removed.
        let escaped = Json::str(r#"["\ud800"]"#);
        let raw = Json::String(JsString::from_units(
            r#"[""#.encode_utf16().chain([0xD800]).chain(r#""]"#.encode_utf16()).collect(),
        ));
        let found = cause("json/tag-safe", Side::Output(&escaped), Side::Output(&raw))
            .map(|(cause, _)| cause.to_string());
        assert_eq!(found.as_deref(), Some("escape removed"));
    }

    fn every_of(op: &str, expected: &str, actual: &str) -> Vec<String> {
        let (x, y) = (output(expected), output(actual));
        every(op, Side::Output(&x), Side::Output(&y))
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn independent_wrong_members_of_one_answer_are_each_a_cause() {
        // runner.causes: a member missing, another written null, a third
        // null where the expected answer has none: three causes.
        let causes = every_of(
            "retain",
            r#"{"data":{"cwd":"/w","capturedThroughSeq":3},"stats":{"compacted":false,"originalMessages":1}}"#,
            r#"{"data":{"cwd":null,"capturedThroughSeq":null},"stats":{"originalMessages":1}}"#,
        );
        assert_eq!(
            causes,
            [
                "snapshot: member compacted missing",
                "snapshot: null written at cwd",
                "snapshot: null written at capturedThroughSeq"
            ]
        );
        // One writer's rule over several members stays one cause.
        let renamed = every_of(
            "retain",
            r#"{"stats":{"compacted":false,"originalMessages":1}}"#,
            r#"{"stats":{"Compacted":false,"OriginalMessages":1}}"#,
        );
        assert_eq!(renamed, ["members renamed lowercase → PascalCase"]);
    }

    #[test]
    fn empty_values_left_out_are_one_cause() {
        // runner.causes: several members left out, each holding an empty
        // value, are one writer's rule; one such member alone reads both
        // ways.
        let expected = r#"{"stats":{"compacted":false,"originalMessages":2,"omittedBytes":0}}"#;
        assert_eq!(
            every_of("retain", expected, r#"{"stats":{"originalMessages":2}}"#),
            [EMPTY_LEFT_OUT]
        );
        let one = r#"{"stats":{"originalMessages":2,"omittedBytes":0}}"#;
        assert_eq!(
            every_of("retain", expected, one),
            ["snapshot: member compacted missing"]
        );
        let (x, y) = (output(expected), output(one));
        let other = alternative("retain", Side::Output(&x), Side::Output(&y));
        assert_eq!(
            other.map(|cause| cause.to_string()).as_deref(),
            Some(EMPTY_LEFT_OUT)
        );
        // So does it where it is not the first cause (a further one).
        let (x, y) = (
            output(r#"{"a":"x","stats":{"compacted":false,"n":2}}"#),
            output(r#"{"a":"y","stats":{"n":2}}"#),
        );
        let missing = Cause {
            family: Some("snapshot"),
            edit: "member compacted missing".to_owned(),
        };
        assert_eq!(
            alternative_of("retain", &x, &y, &missing)
                .map(|cause| cause.to_string())
                .as_deref(),
            Some(EMPTY_LEFT_OUT)
        );
        // A member with a value left out is that member's cause alone.
        let (x, y) = (output(r#"{"a":1,"b":0}"#), output(r#"{"b":0}"#));
        assert_eq!(
            alternative("retain", Side::Output(&x), Side::Output(&y)),
            None
        );
    }

    #[test]
    fn a_spelling_seen_through_an_encoding_is_the_spelling_s_cause() {
        // runner.causes: a JSON writer's `\/` or `\u000a` is one cause in a
        // URI's base64url payload, in a tag-safe text and in a prompt.
        let uri = |literal: &str| {
            let payload = URL_SAFE_NO_PAD.encode(literal);
            json::stringify(&Json::str(&format!("dsh-session:{payload}")))
        };
        assert_eq!(
            cause_of("uri/encode", &uri(r#""a/b""#), &uri(r#""a\/b""#)),
            "escape added"
        );
        assert_eq!(
            cause_of("uri/encode", &uri(r#""a\nb""#), &uri(r#""a\u000ab""#)),
            "JSON spelled otherwise"
        );
        let line = |text: &str| json::stringify(&Json::str(text));
        assert_eq!(
            cause_of(
                "json/tag-safe",
                &line(r#""\t\u003c""#),
                &line(r#""\u0009\u003c""#)
            ),
            "JSON spelled otherwise"
        );
        // Another id in the payload is another text.
        assert_eq!(
            cause_of("uri/encode", &uri(r#""a""#), &uri(r#""b""#)),
            "uri: text changed at uri"
        );
    }
}
