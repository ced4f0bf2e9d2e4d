//! Members of two objects, name by name (spec `runner.causes`,
//! `runner.probes`): which names one side lacks, one name in two case
//! styles, and the member edits an implementation makes to every answer of
//! an op. The cause model names these edits; probing learns them and makes
//! them to the reference's answers.

use crate::js::json::Json;
use crate::js::JsString;

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
                if edits.contains(&MemberEdit::Missing(name.clone())) {
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
