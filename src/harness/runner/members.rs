//! Members of two objects, name by name (spec `runner.causes`,
//! `runner.probes`): which names one side lacks, one name in two case
//! styles, how two member lists differ ([`ListEdit`], which the cause
//! model names) and the member edits an implementation makes to every
//! answer of an op ([`MemberEdit`], which probing learns and makes to the
//! reference's answers).

use crate::js::json::{array_index, Json};
use crate::js::JsString;
use std::fmt;

/// A name without separators, lower-cased: `originalMessages`,
/// `original_messages` and `original-messages` fold alike.
pub fn fold_case(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The case style a name is written in.
pub fn case_style(key: &str) -> &'static str {
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

/// Whether two member names are one name in two case styles: the same
/// letters and digits, case and `_`/`-` aside.
pub fn same_name(one: &JsString, other: &JsString) -> bool {
    one != other && fold_case(&one.to_string_lossy()) == fold_case(&other.to_string_lossy())
}

/// The members of `value` (none when it is no object) but those named
/// `names`.
pub fn without(value: &Json, names: &[&str]) -> Vec<(JsString, Json)> {
    let members = value.as_object().unwrap_or_default();
    let named = |name: &JsString| names.iter().any(|named| name.is(named));
    members
        .iter()
        .filter(|(name, _)| !named(name))
        .cloned()
        .collect()
}

/// Whether `members` has a member named `name`.
pub fn has(members: &[(JsString, Json)], name: &JsString) -> bool {
    members.iter().any(|(known, _)| known == name)
}

/// One edit of a member an implementation makes to every answer of an op
/// (spec `runner.probes`): learned from its answers, applied to the
/// reference's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberEdit {
    /// Every member of this name is written `null`.
    Null(JsString),
    /// No member of this name is written.
    Missing(JsString),
    /// No member of this name is written when its value is empty
    /// ([`is_empty`]): a writer that omits empty values.
    LeftOutWhenEmpty(JsString),
    /// A member of the first name is written `null` right after the
    /// member of the second where there is none.
    NullAdded(JsString, JsString),
    /// Every member of the first name is written under the second, the
    /// same name in another case style (`sessionId` as `session_id`).
    Renamed(JsString, JsString),
}

/// The member edits that make `ours` into `theirs`, when such edits do
/// and there is one at least.
pub fn member_edits(ours: &Json, theirs: &Json) -> Option<Vec<MemberEdit>> {
    fn collect(ours: &Json, theirs: &Json, edits: &mut Vec<MemberEdit>) {
        match (ours, theirs) {
            (Json::Object(ours), Json::Object(theirs)) => {
                for pair in theirs.windows(2) {
                    let ((after, _), (name, value)) = (&pair[0], &pair[1]);
                    if *value == Json::Null && !has(ours, name) {
                        push(edits, MemberEdit::NullAdded(name.clone(), after.clone()));
                    }
                }
                for (at, (name, value)) in ours.iter().enumerate() {
                    let renamed = theirs
                        .get(at)
                        .filter(|(other, _)| same_name(name, other) && !has(ours, other));
                    if let (Some((to, theirs)), false) = (renamed, has(theirs, name)) {
                        push(edits, MemberEdit::Renamed(name.clone(), to.clone()));
                        collect(value, theirs, edits);
                        continue;
                    }
                    match theirs.iter().find(|(known, _)| known == name) {
                        None if is_empty(value) => {
                            push(edits, MemberEdit::LeftOutWhenEmpty(name.clone()));
                        }
                        None => push(edits, MemberEdit::Missing(name.clone())),
                        Some((_, Json::Null)) if *value != Json::Null => {
                            push(edits, MemberEdit::Null(name.clone()));
                        }
                        Some((_, theirs)) => collect(value, theirs, edits),
                    }
                }
            }
            (Json::Array(ours), Json::Array(theirs)) => {
                for (ours, theirs) in ours.iter().zip(theirs) {
                    collect(ours, theirs, edits);
                }
            }
            _ => {}
        }
    }
    fn push(edits: &mut Vec<MemberEdit>, edit: MemberEdit) {
        if !edits.contains(&edit) {
            edits.push(edit);
        }
    }
    let mut edits = Vec::new();
    collect(ours, theirs, &mut edits);
    (!edits.is_empty() && apply_edits(ours, &edits) == *theirs).then_some(edits)
}

/// The edits that read an answer made with `edits` back in the
/// reference's member names: each rename undone. What a port wrote `null`
/// or left out stays so: that is what its answer tells the op composed of
/// it, where a name in another case style is only how it spells it.
pub fn names_read_back(edits: &[MemberEdit]) -> Vec<MemberEdit> {
    edits
        .iter()
        .filter_map(|edit| match edit {
            MemberEdit::Renamed(from, to) => Some(MemberEdit::Renamed(to.clone(), from.clone())),
            _ => None,
        })
        .collect()
}

/// `value` with `edits` made to every member at any depth.
pub fn apply_edits(value: &Json, edits: &[MemberEdit]) -> Json {
    match value {
        Json::Object(members) => {
            let mut edited = Vec::with_capacity(members.len());
            for (name, member) in members {
                let left_out = edits.contains(&MemberEdit::Missing(name.clone()))
                    || (is_empty(member)
                        && edits.contains(&MemberEdit::LeftOutWhenEmpty(name.clone())));
                if left_out {
                    continue;
                }
                let member = if edits.contains(&MemberEdit::Null(name.clone())) {
                    Json::Null
                } else {
                    apply_edits(member, edits)
                };
                let written = edits.iter().find_map(|edit| match edit {
                    MemberEdit::Renamed(from, to) if from == name => Some(to.clone()),
                    _ => None,
                });
                edited.push((written.unwrap_or_else(|| name.clone()), member));
                for edit in edits {
                    if let MemberEdit::NullAdded(added, after) = edit {
                        if after == name && !has(members, added) {
                            edited.push((added.clone(), Json::Null));
                        }
                    }
                }
            }
            Json::Object(edited)
        }
        Json::Array(items) => {
            Json::Array(items.iter().map(|item| apply_edits(item, edits)).collect())
        }
        other => other.clone(),
    }
}

/// Objects whose members with integer-like keys are placed otherwise than
/// JavaScript places them, or that such a key changes the answer for: how
/// a port's object model orders keys, one cause wherever it shows (spec
/// `runner.causes`, `runner.differential.classes`).
pub const INDEX_KEYS: &str = "objects with integer-like keys";

/// How two objects' member lists differ (spec `runner.causes`), most
/// telling first.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ListEdit {
    /// Members renamed by a change of case style.
    Renamed {
        /// The expected names' style.
        from: &'static str,
        /// The actual names' style.
        to: &'static str,
    },
    /// The same members, in the same order but for those whose keys are
    /// canonical array indices, which JavaScript writes first, ascending.
    IndexKeysPlaced,
    /// Several members left out, each holding an empty value (`false`,
    /// `0`, `""`, `null`, `[]`, `{}`), and nothing else changed in the
    /// list: how a writer that omits empty values (Go's `omitempty`,
    /// serde's `skip_serializing_if`) writes objects, one cause wherever
    /// it shows.
    EmptyLeftOut,
    /// A member the expected value has and the actual lacks; `empty` when
    /// it is the one change of the list and holds an empty value, so that
    /// it may also be read as [`ListEdit::EmptyLeftOut`] (spec
    /// `runner.causes`: the reading more failures share).
    Missing {
        /// Its name.
        name: String,
        /// Whether it is the list's one change and holds an empty value.
        empty: bool,
    },
    /// A member the actual value has and the expected lacks.
    Extra(String),
    /// `null` written as a member's value where the expected value has
    /// another value or no such member: one cause whatever upstream wrote
    /// there (a port's absent value written as `null`).
    NullWritten(String),
    /// A member written under another name (not a case-style change).
    Replaced {
        /// The expected name.
        expected: String,
        /// The name written.
        actual: String,
    },
    /// The same members in another order.
    Reordered,
}

impl ListEdit {
    /// Whether the edit names its member, and so is one cause wherever
    /// the member is.
    pub fn names_its_member(&self) -> bool {
        matches!(
            self,
            ListEdit::Missing { .. }
                | ListEdit::Extra(_)
                | ListEdit::NullWritten(_)
                | ListEdit::Replaced { .. }
        )
    }
}

impl fmt::Display for ListEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ListEdit::Renamed { from, to } => write!(f, "members renamed {from} → {to}"),
            ListEdit::EmptyLeftOut => f.write_str(EMPTY_LEFT_OUT),
            ListEdit::Missing { name, .. } => write!(f, "member {name} missing"),
            ListEdit::Extra(key) => write!(f, "member {key} extra"),
            ListEdit::NullWritten(key) => write!(f, "null written at {key}"),
            ListEdit::Replaced { expected, actual } => {
                write!(f, "member {expected} written as {actual}")
            }
            ListEdit::IndexKeysPlaced => f.write_str(INDEX_KEYS),
            ListEdit::Reordered => f.write_str("members reordered"),
        }
    }
}

/// The cause of members holding empty values left out wherever they are
/// (spec `runner.causes`).
pub const EMPTY_LEFT_OUT: &str = "members holding empty values left out";

/// Whether `value` is empty as a writer that omits empty values reads it.
pub fn is_empty(value: &Json) -> bool {
    match value {
        Json::Null => true,
        Json::Bool(value) => !value,
        Json::Number(value) => *value == 0.0,
        Json::String(value) => value.units().is_empty(),
        Json::Array(items) => items.is_empty(),
        Json::Object(members) => members.is_empty(),
    }
}

/// How two objects' member lists differ (spec `runner.causes`): nothing
/// when both have the same keys in the same order; else each member
/// missing, extra or written `null` on its own, since each may be a bug of
/// its own, but what one writer's rule explains (names in another case
/// style, empty values left out, the order) as one edit.
pub fn list_edits(expected: &[(JsString, Json)], actual: &[(JsString, Json)]) -> Vec<ListEdit> {
    let same_keys = expected.len() == actual.len()
        && expected
            .iter()
            .zip(actual)
            .all(|((a, _), (b, _))| a.units() == b.units());
    if same_keys {
        return Vec::new();
    }
    let name = |key: &JsString| key.to_string_lossy();
    let mut missing: Vec<&(JsString, Json)> = expected
        .iter()
        .filter(|(key, _)| !has(actual, key))
        .collect();
    let mut extra: Vec<&(JsString, Json)> = actual
        .iter()
        .filter(|(key, _)| !has(expected, key))
        .collect();
    if missing.is_empty() && extra.is_empty() {
        let without_indices = |members: &[(JsString, Json)]| -> Vec<Vec<u16>> {
            members
                .iter()
                .map(|(key, _)| key.units().to_vec())
                .filter(|key| array_index(key).is_none())
                .collect()
        };
        return vec![if without_indices(expected) == without_indices(actual) {
            ListEdit::IndexKeysPlaced
        } else {
            ListEdit::Reordered
        }];
    }
    let mut edits = Vec::new();
    // One style of names: every renamed pair is one edit, named by the
    // first pair's styles.
    let pairs: Vec<(JsString, JsString)> = missing
        .iter()
        .filter_map(|(gone, _)| {
            let (came, _) = extra.iter().find(|(came, _)| same_name(gone, came))?;
            Some((gone.clone(), came.clone()))
        })
        .collect();
    if let Some((gone, came)) = pairs.first() {
        edits.push(ListEdit::Renamed {
            from: case_style(&name(gone)),
            to: case_style(&name(came)),
        });
        missing.retain(|(key, _)| !pairs.iter().any(|(gone, _)| gone == key));
        extra.retain(|(key, _)| !pairs.iter().any(|(_, came)| came == key));
    }
    let empty_left_out =
        edits.is_empty() && extra.is_empty() && missing.iter().all(|(_, value)| is_empty(value));
    if empty_left_out && missing.len() >= 2 {
        edits.push(ListEdit::EmptyLeftOut);
        return edits;
    }
    if let ([(gone, _)], [(came, value)]) = (missing.as_slice(), extra.as_slice()) {
        if *value != Json::Null {
            edits.push(ListEdit::Replaced {
                expected: name(gone),
                actual: name(came),
            });
            return edits;
        }
    }
    for (key, _) in missing {
        edits.push(ListEdit::Missing {
            name: name(key),
            empty: empty_left_out,
        });
    }
    for (key, value) in extra {
        edits.push(match value {
            Json::Null => ListEdit::NullWritten(name(key)),
            _ => ListEdit::Extra(name(key)),
        });
    }
    edits
}
