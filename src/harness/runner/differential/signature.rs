//! A disagreement's signature (spec `runner.differential.classes`): its
//! class is its cause, named by the cause model of `conformance` (spec
//! `runner.causes`, [`causes`]), with A's answer in the place of the
//! expectation: one bug of a port gives one class, whichever op, path or
//! character it shows through.

use crate::harness::runner::causes::{self, Cause, Side};
use crate::protocol::wire::Outcome;
use std::fmt;

/// A disagreement's class (its [`Cause`]) and where this one showed.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signature {
    /// What identifies the class.
    pub cause: Cause,
    /// The disagreement's other reading, if it has one
    /// ([`causes::alternative`]).
    pub alternative: Option<Cause>,
    /// The op of this disagreement.
    pub op: String,
    /// `output/output`, `error/output`, `output/error`, `error/error` or
    /// `protocol` (A's side first).
    pub kind: &'static str,
    /// The path of this disagreement's first difference, indices and
    /// arbitrary member names folded; `$` when the outcomes differ as a
    /// whole.
    pub path: String,
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.cause.fmt(f)
    }
}

/// The signature of two answers that disagree (already normalized for the
/// comparison), with what each side wrote to stderr for them, or `None`
/// when they agree.
pub fn signature(
    op: &str,
    a: &Result<Outcome, String>,
    b: &Result<Outcome, String>,
    stderr: [&str; 2],
) -> Option<Signature> {
    let (side_a, side_b) = (Side::of(a, stderr[0]), Side::of(b, stderr[1]));
    let (cause, path) = causes::cause(op, side_a, side_b)?;
    let kind = match (a, b) {
        (Ok(Outcome::Output(_)), Ok(Outcome::Output(_))) => "output/output",
        (Ok(Outcome::Error { .. }), Ok(Outcome::Error { .. })) => "error/error",
        (Ok(Outcome::Error { .. }), Ok(Outcome::Output(_))) => "error/output",
        (Ok(Outcome::Output(_)), Ok(Outcome::Error { .. })) => "output/error",
        _ => "protocol",
    };
    Some(Signature {
        cause,
        alternative: causes::alternative(op, side_a, side_b),
        op: op.to_owned(),
        kind,
        path,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::{self, Json};
    use crate::js::JsString;

    fn output(text: &str) -> Result<Outcome, String> {
        Ok(Outcome::Output(json::parse(text).unwrap()))
    }

    fn cause_of(op: &str, a: &Result<Outcome, String>, b: &Result<Outcome, String>) -> String {
        signature(op, a, b, ["", ""]).unwrap().to_string()
    }

    #[test]
    fn one_bug_is_one_class_whatever_character_or_index_it_shows_at() {
        // runner.differential.classes
        let trimmed = |label: &str, index: usize| {
            let mut references = vec![r#"{"sessionId":"s","label":"x"}"#.to_owned(); index];
            references.push(format!(r#"{{"sessionId":"s","label":"{label}"}}"#));
            format!(r#"{{"references":[{}]}}"#, references.join(","))
        };
        let first = cause_of(
            "mention/parse",
            &output(&trimmed(" a", 0)),
            &output(&trimmed("a", 0)),
        );
        let second = cause_of(
            "mention/parse",
            &output(&trimmed("b\\u3000", 3)),
            &output(&trimmed("b", 3)),
        );
        assert_eq!(first, "mention: whitespace trimmed at label");
        assert_eq!(first, second);
        let lone = Ok(Outcome::Output(Json::String(JsString::from_units(vec![
            0x61, 0xD800,
        ]))));
        assert_eq!(
            cause_of("uri/decode", &lone, &output("\"a\u{FFFD}\"")),
            "lone surrogate replaced by U+FFFD"
        );
    }

    #[test]
    fn crashes_are_told_apart_by_their_first_stderr_line() {
        // runner.differential.classes
        let crashed = Err("implementation exited (exit status: 101) without answering".to_owned());
        let panic = |line: &str| {
            signature("x", &output("1"), &crashed, ["", line])
                .unwrap()
                .to_string()
        };
        assert_eq!(
            panic("thread 'main' panicked at src/a.rs:1:2:\nboom"),
            panic("thread 'main' panicked at src/a.rs:30:4:\nboom again")
        );
        assert_ne!(
            panic("thread 'main' panicked at src/a.rs:1:2:"),
            panic("thread 'main' panicked at src/b.rs:1:2:")
        );
        let kind = signature("x", &output("1"), &crashed, ["", ""])
            .unwrap()
            .kind;
        assert_eq!(kind, "protocol");
        let error = |code: &str| {
            Ok(Outcome::Error {
                code: code.to_owned(),
                message: String::new(),
            })
        };
        assert_eq!(signature("x", &error("A"), &error("A"), ["", ""]), None);
        assert_eq!(
            signature("x", &error("A"), &error("B"), ["", ""])
                .unwrap()
                .kind,
            "error/error"
        );
    }
}
