//! Where an outcome differs from a vector's expectation, told so that a
//! reader can see it: a path into the value, the first differing code unit
//! of strings, and values shown on one line with every non-ASCII and
//! invisible code unit escaped (spec `runner.diff`).

use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::protocol::wire::Outcome;
use std::fmt;

/// Values shown in full up to this many characters; longer ones are cut to
/// an excerpt around the first difference.
const FULL_LIMIT: usize = 400;
/// Code units of context shown before the first differing unit of a string.
const BEFORE: usize = 24;
/// Code units shown from the first differing unit on.
const AFTER: usize = 48;

/// The first place where two values differ.
#[derive(Clone, Debug, PartialEq)]
pub struct Difference {
    /// A path such as `$.references[0].label`.
    pub path: String,
    /// What differs there.
    pub kind: DifferenceKind,
}

/// What differs at a [`Difference`]'s path.
#[derive(Clone, Debug, PartialEq)]
pub enum DifferenceKind {
    /// Two strings, first differing at code unit `index`.
    String {
        /// The first differing code unit (or the shorter length).
        index: usize,
        /// The expected string's code units.
        expected: Vec<u16>,
        /// The actual string's code units.
        actual: Vec<u16>,
    },
    /// Two arrays of different lengths whose common prefix is equal.
    Length {
        /// Items expected.
        expected: usize,
        /// Items found.
        actual: usize,
    },
    /// Members at the same position with different keys.
    MemberKey {
        /// The member's position.
        index: usize,
        /// The key expected there.
        expected: String,
        /// The key found there.
        actual: String,
    },
    /// Objects with different member counts whose common prefix is equal.
    MemberCount {
        /// Members expected.
        expected: usize,
        /// Members found.
        actual: usize,
    },
    /// Different values of any other kind (types, numbers, literals).
    Value {
        /// The expected value.
        expected: Json,
        /// The actual value.
        actual: Json,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(["expected", "actual"]))
    }
}

impl Difference {
    /// The difference in words, the two sides named `names` (`expected`
    /// and `actual` for a vector; `A` and `B` when two implementations are
    /// compared and neither is expected).
    pub fn describe(&self, names: [&str; 2]) -> String {
        let path = &self.path;
        let [first, second] = names;
        let expected_side = names == ["expected", "actual"];
        match &self.kind {
            DifferenceKind::String {
                index,
                expected,
                actual,
            } => format!(
                "first difference at {path}, code unit {index} ({first} length {}, {second} length {})",
                expected.len(),
                actual.len()
            ),
            DifferenceKind::Length { expected, actual } if expected_side => {
                format!("first difference at {path}: {expected} items expected, {actual} found")
            }
            DifferenceKind::Length { expected, actual } => format!(
                "first difference at {path}: {first} has {expected} items, {second} has {actual}"
            ),
            DifferenceKind::MemberKey {
                index,
                expected,
                actual,
            } if expected_side => format!(
                "first difference at {path}: member {index} is {expected} expected, {actual} found"
            ),
            DifferenceKind::MemberKey {
                index,
                expected,
                actual,
            } => format!(
                "first difference at {path}: member {index} is {expected} in {first}, {actual} in {second}"
            ),
            DifferenceKind::MemberCount { expected, actual } if expected_side => format!(
                "first difference at {path}: {expected} members expected, {actual} found"
            ),
            DifferenceKind::MemberCount { expected, actual } => format!(
                "first difference at {path}: {first} has {expected} members, {second} has {actual}"
            ),
            DifferenceKind::Value { .. } => format!("first difference at {path}"),
        }
    }
}

/// Where two values first differ, or `None` when they are equal. Member
/// order counts; numbers compare as JavaScript numbers (spec
/// `conformance.comparison`).
pub fn first_difference(expected: &Json, actual: &Json) -> Option<Difference> {
    difference_at("$", expected, actual)
}

fn difference_at(path: &str, expected: &Json, actual: &Json) -> Option<Difference> {
    let at = |kind| {
        Some(Difference {
            path: path.to_owned(),
            kind,
        })
    };
    match (expected, actual) {
        (Json::String(a), Json::String(b)) => {
            let (a, b) = (a.units(), b.units());
            if a == b {
                return None;
            }
            let index = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            at(DifferenceKind::String {
                index,
                expected: a.to_vec(),
                actual: b.to_vec(),
            })
        }
        (Json::Array(a), Json::Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(index, (x, y))| difference_at(&format!("{path}[{index}]"), x, y))
            .or_else(|| {
                (a.len() != b.len())
                    .then(|| {
                        at(DifferenceKind::Length {
                            expected: a.len(),
                            actual: b.len(),
                        })
                    })
                    .flatten()
            }),
        (Json::Object(a), Json::Object(b)) => {
            for (index, ((ka, va), (kb, vb))) in a.iter().zip(b).enumerate() {
                if ka != kb {
                    return at(DifferenceKind::MemberKey {
                        index,
                        expected: json::quote_ascii(ka.units()),
                        actual: json::quote_ascii(kb.units()),
                    });
                }
                let member = format!("{path}.{}", ka.to_string_lossy());
                if let Some(found) = difference_at(&member, va, vb) {
                    return Some(found);
                }
            }
            (a.len() != b.len())
                .then(|| {
                    at(DifferenceKind::MemberCount {
                        expected: a.len(),
                        actual: b.len(),
                    })
                })
                .flatten()
        }
        (a, b) if a == b => None,
        (a, b) => at(DifferenceKind::Value {
            expected: a.clone(),
            actual: b.clone(),
        }),
    }
}

/// A value on one line, every non-ASCII and invisible code unit escaped.
pub fn show(value: &Json) -> String {
    json::to_ascii(value)
}

/// How [`show_answer`] writes an answer on one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    /// A step of a probe chain: an output as its value, an error by its
    /// code.
    Brief,
    /// A differential case: `output VALUE`, an error with its message.
    WithMessage,
    /// A vector's failure: as [`Shown::WithMessage`], the message escaped
    /// like a value, so that invisible or non-ASCII characters in it are
    /// seen.
    Escaped,
}

/// An answer on one line (spec `runner.diff`): an output, an error, or
/// what went wrong with the protocol, every report's one way of showing
/// one, in the detail `shown` asks.
pub fn show_answer(answer: Result<&Outcome, &str>, shown: Shown) -> String {
    match (answer, shown) {
        (Ok(Outcome::Output(output)), Shown::Brief) => show(output),
        (Ok(Outcome::Output(output)), _) => format!("output {}", show(output)),
        (Ok(Outcome::Error { code, .. }), Shown::Brief) => format!("error {code}"),
        (Ok(Outcome::Error { code, message }), Shown::WithMessage) => {
            format!("error {code} ({message})")
        }
        (Ok(Outcome::Error { code, message }), Shown::Escaped) => format!(
            "error {code} ({})",
            json::quote_ascii(JsString::from(message.as_str()).units())
        ),
        (Err(problem), _) => format!("protocol failure: {problem}"),
    }
}

/// The report of a mismatch: both values in full when they are short, else
/// the path of the first difference with an excerpt of both sides there.
pub fn explain(expected: &Json, actual: &Json) -> String {
    explain_as(expected, actual, ["expected", "actual"])
}

/// [`explain`] with other names for the two sides (such as `A` and `B`).
pub fn explain_as(expected: &Json, actual: &Json, names: [&str; 2]) -> String {
    let width = names[0].len().max(names[1].len()) + 1;
    let [first, second] = names.map(|name| format!("{:width$}", format!("{name}:")));
    let Some(difference) = first_difference(expected, actual) else {
        return "equal".to_owned();
    };
    let found = difference;
    let difference = found.describe(names);
    let (full_expected, full_actual) = (show(expected), show(actual));
    if full_expected.len() + full_actual.len() <= 2 * FULL_LIMIT {
        return format!("{first} {full_expected}\n  {second} {full_actual}\n  {difference}");
    }
    let (near_expected, near_actual) = match &found.kind {
        DifferenceKind::String {
            index,
            expected,
            actual,
        } => (excerpt(expected, *index), excerpt(actual, *index)),
        DifferenceKind::Value { expected, actual } => {
            (shorten(show(expected)), shorten(show(actual)))
        }
        DifferenceKind::MemberKey {
            expected, actual, ..
        } => (expected.clone(), actual.clone()),
        DifferenceKind::Length { .. } | DifferenceKind::MemberCount { .. } => {
            (shorten(full_expected.clone()), shorten(full_actual.clone()))
        }
    };
    format!(
        "{difference}\n  {first} {near_expected}\n  {second} {near_actual}\n  (values of {} and {} characters)",
        full_expected.len(),
        full_actual.len()
    )
}

/// The code units of a string around `index`, quoted, with `…` where cut.
fn excerpt(units: &[u16], index: usize) -> String {
    let start = index.saturating_sub(BEFORE);
    let end = units.len().min(index + AFTER);
    let start = start.min(end);
    format!(
        "{}{}{} (units {start}..{end} of {})",
        if start > 0 { "…" } else { "" },
        json::quote_ascii(&units[start..end]),
        if end < units.len() { "…" } else { "" },
        units.len()
    )
}

fn shorten(mut text: String) -> String {
    if text.len() > FULL_LIMIT {
        let mut cut = FULL_LIMIT;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;

    fn string(units: Vec<u16>) -> Json {
        Json::String(JsString::from_units(units))
    }

    #[test]
    fn strings_are_shown_with_non_ascii_and_lone_surrogates_escaped() {
        // runner.diff
        let text = explain(
            &string(vec![0x61, 0xD800, 0xE9]),
            &string(vec![0x61, 0xFFFD, 0xE9]),
        );
        assert!(text.contains("expected: \"a\\ud800\\u00e9\""), "{text}");
        assert!(text.contains("actual:   \"a\\ufffd\\u00e9\""), "{text}");
        assert!(text.contains("code unit 1 (expected length 3"), "{text}");
    }

    #[test]
    fn long_values_show_an_excerpt_at_the_first_difference() {
        // runner.diff
        let mut expected: Vec<u16> = "x".repeat(5000).encode_utf16().collect();
        let mut actual = expected.clone();
        expected[3000] = 0x2028;
        actual[3000] = u16::from(b' ');
        let object = |text| Json::object([("data", Json::object([("text", string(text))]))]);
        let text = explain(&object(expected), &object(actual));
        assert!(
            text.starts_with("first difference at $.data.text, code unit 3000"),
            "{text}"
        );
        assert!(text.contains("\\u2028"), "{text}");
        assert!(text.contains("(units 2976..3048 of 5000)"), "{text}");
        assert!(text.len() < 800, "{}", text.len());
    }

    #[test]
    fn differences_name_lengths_keys_and_values() {
        let d = |a: &str, b: &str| {
            let parse = |t: &str| json::parse(t).expect("test JSON");
            first_difference(&parse(a), &parse(b)).map(|d| d.to_string())
        };
        assert_eq!(d("[1,2]", "[1,2]"), None);
        assert_eq!(
            d("[1,2]", "[1]").as_deref(),
            Some("first difference at $: 2 items expected, 1 found")
        );
        assert_eq!(
            d(r#"{"a":1,"b":2}"#, r#"{"b":2,"a":1}"#).as_deref(),
            Some("first difference at $: member 0 is \"a\" expected, \"b\" found")
        );
        assert_eq!(
            d(r#"{"a":[true]}"#, r#"{"a":[null]}"#).as_deref(),
            Some("first difference at $.a[0]")
        );
        assert_eq!(d("1.0", "1"), None);
    }
}
