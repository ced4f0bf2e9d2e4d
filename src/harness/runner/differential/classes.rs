//! Disagreement classes (spec `runner.differential.classes`): each
//! disagreement gets a [`Signature`] that names its likely cause, so that a
//! port's distinct bugs are reported once each, with a count, instead of
//! the loudest one drowning the rest.
//!
//! A signature is the op, the kind of disagreement (output against output,
//! an error against an output, two error codes, a protocol failure), the
//! path of the first difference with array indices folded (`[]`) and
//! arbitrary member names folded (`{}`), and a detail that tells causes
//! apart in practice: for strings, the character classes of the first
//! differing code unit on each side (so `\s` differences, lone surrogates
//! against U+FFFD, and cut positions each form their own class); for
//! members, the two keys; for other values, the two JSON types; for errors,
//! the codes; for protocol failures, which side failed and how, numbers
//! folded.

use super::super::diff::{first_difference, DifferenceKind};
use crate::js::json::{self, Json};
use crate::js::{first_lone_surrogate, is_js_whitespace};
use crate::protocol::wire::Outcome;
use std::fmt;

/// What identifies a class of disagreements.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// The op.
    pub op: String,
    /// `output/output`, `error/output`, `output/error`, `error/error` or
    /// `protocol` (A's side first).
    pub kind: &'static str,
    /// The path of the first difference, indices and arbitrary member names
    /// folded; `$` when the outcomes differ as a whole.
    pub path: String,
    /// What differs there (see the module documentation).
    pub detail: String,
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} at {}: {}",
            self.op, self.kind, self.path, self.detail
        )
    }
}

/// The signature of two answers that disagree (already normalized for the
/// comparison), or `None` when they agree.
pub fn signature(
    op: &str,
    a: &Result<Outcome, String>,
    b: &Result<Outcome, String>,
) -> Option<Signature> {
    let make = |kind, path: String, detail: String| {
        Some(Signature {
            op: op.to_owned(),
            kind,
            path,
            detail,
        })
    };
    match (a, b) {
        (Ok(Outcome::Output(x)), Ok(Outcome::Output(y))) => {
            let difference = first_difference(x, y)?;
            let detail = match &difference.kind {
                DifferenceKind::String {
                    index,
                    expected,
                    actual,
                } => format!(
                    "string: {} vs {}",
                    unit_class(expected, *index),
                    unit_class(actual, *index)
                ),
                DifferenceKind::Length { expected, actual } => {
                    format!("array length: B has {}", fewer_or_more(*expected, *actual))
                }
                DifferenceKind::MemberKey {
                    expected, actual, ..
                } => format!("member {expected} vs {actual}"),
                DifferenceKind::MemberCount { expected, actual } => {
                    format!("member count: B has {}", fewer_or_more(*expected, *actual))
                }
                DifferenceKind::Value { expected, actual } => {
                    format!("{} vs {}", type_name(expected), type_name(actual))
                }
            };
            make("output/output", fold_path(&difference.path), detail)
        }
        (Ok(Outcome::Error { code: x, .. }), Ok(Outcome::Error { code: y, .. })) => {
            if x == y {
                return None;
            }
            make("error/error", "$".to_owned(), format!("{x} vs {y}"))
        }
        (Ok(Outcome::Error { code, .. }), Ok(Outcome::Output(_))) => {
            make("error/output", "$".to_owned(), format!("A {code}"))
        }
        (Ok(Outcome::Output(_)), Ok(Outcome::Error { code, .. })) => {
            make("output/error", "$".to_owned(), format!("B {code}"))
        }
        (Err(problem), Ok(_)) => make("protocol", "$".to_owned(), format!("A {}", fold(problem))),
        (Ok(_), Err(problem)) => make("protocol", "$".to_owned(), format!("B {}", fold(problem))),
        (Err(x), Err(y)) => make(
            "protocol",
            "$".to_owned(),
            format!("A {}; B {}", fold(x), fold(y)),
        ),
    }
}

fn fewer_or_more(expected: usize, actual: usize) -> &'static str {
    if actual < expected {
        "fewer"
    } else {
        "more"
    }
}

fn type_name(value: &Json) -> String {
    match value {
        Json::Null => "null".to_owned(),
        Json::Bool(b) => b.to_string(),
        Json::Number(_) => "number".to_owned(),
        Json::String(_) => "string".to_owned(),
        Json::Array(_) => "array".to_owned(),
        Json::Object(_) => "object".to_owned(),
    }
}

/// The class of the code unit at `index` of `units`.
fn unit_class(units: &[u16], index: usize) -> String {
    let Some(&unit) = units.get(index) else {
        return "end".to_owned();
    };
    if first_lone_surrogate(&units[index..index + 1]).is_some() {
        let paired = (0xD800..0xDC00).contains(&unit)
            && units
                .get(index + 1)
                .is_some_and(|next| (0xDC00..0xE000).contains(next));
        return if paired { "astral" } else { "lone surrogate" }.to_owned();
    }
    match unit {
        0xFFFD => "U+FFFD".to_owned(),
        _ if unit < 0x80 && (unit as u8).is_ascii_alphanumeric() => "alphanumeric".to_owned(),
        _ if unit < 0x80 && is_js_whitespace(unit) => "ASCII whitespace".to_owned(),
        _ if is_js_whitespace(unit) => "Unicode whitespace".to_owned(),
        _ if unit < 0x20 || unit == 0x7F => "control".to_owned(),
        _ if unit < 0x80 => json::quote_ascii(&[unit]),
        _ => "non-ASCII".to_owned(),
    }
}

/// `$.references[3].label` → `$.references[].label`; a member name that is
/// not a plain identifier (a key from generated data) becomes `{}`.
fn fold_path(path: &str) -> String {
    let mut folded = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(c) = rest.chars().next() {
        match c {
            '[' => {
                let end = rest.find(']').map_or(rest.len(), |at| at + 1);
                folded.push_str("[]");
                rest = &rest[end..];
            }
            '.' => {
                let end = rest[1..].find(['.', '[']).map_or(rest.len(), |at| at + 1);
                let name = &rest[1..end];
                let plain = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                folded.push('.');
                folded.push_str(if plain { name } else { "{}" });
                rest = &rest[end..];
            }
            _ => {
                folded.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    folded
}

/// A protocol failure's text with numbers folded to `N` (they name the
/// instance, not the kind), at most 80 characters.
fn fold(problem: &str) -> String {
    let mut folded = String::with_capacity(problem.len());
    let mut in_number = false;
    for c in problem.chars().take(80) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;

    fn output(text: &str) -> Result<Outcome, String> {
        Ok(Outcome::Output(json::parse(text).unwrap()))
    }

    #[test]
    fn indices_and_generated_keys_fold_in_paths() {
        assert_eq!(fold_path("$.references[12].label"), "$.references[].label");
        assert_eq!(fold_path("$.value.a b[0]"), "$.value.{}[]");
        assert_eq!(fold_path("$"), "$");
    }

    #[test]
    fn string_differences_are_told_apart_by_character_class() {
        let lone = Ok(Outcome::Output(Json::String(JsString::from_units(vec![
            0x61, 0xD800,
        ]))));
        let replaced = output("\"a\u{FFFD}\"");
        let lone_vs_replaced = signature("uri/decode", &lone, &replaced).unwrap();
        assert_eq!(
            lone_vs_replaced.to_string(),
            "uri/decode output/output at $: string: lone surrogate vs U+FFFD"
        );
        let space = signature(
            "mention/parse",
            &output(r#"{"text":"a\u00a0"}"#),
            &output(r#"{"text":"a"}"#),
        )
        .unwrap();
        assert_eq!(space.detail, "string: Unicode whitespace vs end");
    }

    #[test]
    fn members_errors_and_protocol_failures_have_their_own_details() {
        let snake = signature(
            "retain",
            &output(r#"{"originalMessages":1}"#),
            &output(r#"{"original_messages":1}"#),
        )
        .unwrap();
        assert_eq!(
            snake.detail,
            "member \"originalMessages\" vs \"original_messages\""
        );
        let error = |code: &str| {
            Ok(Outcome::Error {
                code: code.to_owned(),
                message: String::new(),
            })
        };
        assert_eq!(signature("x", &error("A"), &error("A")), None);
        assert_eq!(
            signature("x", &error("A"), &error("B")).unwrap().kind,
            "error/error"
        );
        assert_eq!(
            signature("x", &output("1"), &error("B")).unwrap().detail,
            "B B"
        );
        let crash = signature(
            "x",
            &output("1"),
            &Err("implementation exited (exit status: 101) without answering".to_owned()),
        )
        .unwrap();
        assert_eq!(
            crash.detail,
            "B implementation exited (exit status: N) without answering"
        );
        let hang = signature("x", &output("1"), &Err("no answer within 10s".to_owned())).unwrap();
        assert_eq!(hang.detail, "B no answer within Ns");
    }
}
