//! The conformance runner: drives an implementation over the vectors and
//! compares each outcome exactly (spec `conformance.comparison`).

pub mod adapter;
pub mod vectors;

use crate::config::Generation;
use crate::js::json::{self, Json};
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use adapter::Implementation;
use std::fmt::Write as _;
use vectors::{Expect, Suite, Vector};

/// How one vector went.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The outcome equals the expectation.
    Passed,
    /// It did not; the text explains how.
    Failed(String),
    /// Not run: the implementation declares none of the vector's features.
    SkippedFeature,
    /// Run, but the implementation answered `UNSUPPORTED`.
    SkippedUnsupported,
    /// Not selected by the filter.
    SkippedFilter,
}

/// A vector's id and how it went.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorResult {
    /// The vector id.
    pub id: String,
    /// What happened.
    pub status: Status,
}

/// The results of one run, in suite order.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One entry per vector.
    pub results: Vec<VectorResult>,
}

impl Report {
    /// Vectors that passed.
    pub fn passed(&self) -> usize {
        self.count(|status| matches!(status, Status::Passed))
    }

    /// Vectors that failed.
    pub fn failed(&self) -> usize {
        self.count(|status| matches!(status, Status::Failed(_)))
    }

    /// Vectors skipped for any reason.
    pub fn skipped(&self) -> usize {
        self.results.len() - self.passed() - self.failed()
    }

    fn count(&self, pick: impl Fn(&Status) -> bool) -> usize {
        self.results
            .iter()
            .filter(|result| pick(&result.status))
            .count()
    }

    /// `N passed, N failed, N skipped`.
    pub fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed(),
            self.failed(),
            self.skipped()
        )
    }
}

/// Matches `pattern` against a vector id; `*` stands for any run of
/// characters, and a pattern without `*` matches ids that contain it.
pub fn matches_filter(pattern: &str, id: &str) -> bool {
    if !pattern.contains('*') {
        return id.contains(pattern);
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !id.starts_with(first) || id.len() < first.len() + last.len() || !id.ends_with(last) {
        return false;
    }
    let mut rest = &id[first.len()..id.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Runs every vector of `suite` selected by `filters` (all when empty) on
/// `implementation`, whose declared `features` gate the vectors.
pub fn run(
    suite: &Suite,
    implementation: &mut dyn Implementation,
    features: &[String],
    filters: &[String],
    on_result: impl FnMut(&Vector, &VectorResult),
) -> Report {
    run_with(suite, filters, on_result, |vector| {
        if vector
            .features
            .iter()
            .any(|feature| features.contains(feature))
        {
            check(vector, implementation.call(&vector.op, &vector.input))
        } else {
            Status::SkippedFeature
        }
    })
}

/// [`run`] for the reference in all its generations ([`check_reference`]).
pub fn run_reference(
    suite: &Suite,
    filters: &[String],
    on_result: impl FnMut(&Vector, &VectorResult),
) -> Report {
    run_with(suite, filters, on_result, check_reference)
}

/// The run loop: filter, decide each vector's status with `status_of`,
/// report it as it completes.
fn run_with(
    suite: &Suite,
    filters: &[String],
    mut on_result: impl FnMut(&Vector, &VectorResult),
    mut status_of: impl FnMut(&Vector) -> Status,
) -> Report {
    let mut report = Report::default();
    for (_, vector) in suite.vectors() {
        let status =
            if !filters.is_empty() && !filters.iter().any(|f| matches_filter(f, &vector.id)) {
                Status::SkippedFilter
            } else {
                status_of(vector)
            };
        let result = VectorResult {
            id: vector.id.clone(),
            status,
        };
        on_result(vector, &result);
        report.results.push(result);
    }
    report
}

/// Runs one vector on the reference in every generation that declares one of
/// its features: the reference implements both, so every vector of the
/// suite runs on it. Passes when every such run passes.
pub fn check_reference(vector: &Vector) -> Status {
    let mut status = Status::SkippedFeature;
    for generation in Generation::ALL {
        if !vector
            .features
            .iter()
            .any(|f| generation.features().contains(&f.as_str()))
        {
            continue;
        }
        match check(
            vector,
            adapter::BuiltIn(generation).call(&vector.op, &vector.input),
        ) {
            Status::Failed(detail) => {
                return Status::Failed(format!("[{} profile] {detail}", generation.name()))
            }
            Status::Passed if status == Status::SkippedFeature => status = Status::Passed,
            Status::Passed => {}
            other => status = other,
        }
    }
    status
}

/// Compares one answer with a vector's expectation.
pub fn check(vector: &Vector, answer: Result<Outcome, String>) -> Status {
    let outcome = match answer {
        Ok(outcome) => outcome,
        Err(problem) => return Status::Failed(format!("protocol failure: {problem}")),
    };
    match (&vector.expect, &outcome) {
        (_, Outcome::Error { code, .. }) if code == UNSUPPORTED => Status::SkippedUnsupported,
        (Expect::Output(expected), Outcome::Output(actual)) => {
            match first_difference(expected, actual) {
                None => Status::Passed,
                Some(difference) => Status::Failed(format!(
                    "expected: {}\n  actual:   {}\n  {difference}",
                    show(expected),
                    show(actual)
                )),
            }
        }
        (Expect::Error(expected), Outcome::Error { code, .. }) if expected == code => {
            Status::Passed
        }
        (expected, actual) => Status::Failed(format!(
            "expected: {}\n  actual:   {}",
            show_outcome_expect(expected),
            show_outcome(actual)
        )),
    }
}

fn show(value: &Json) -> String {
    match value {
        Json::String(text) => json::quote_visible(text.units()),
        other => json::to_pretty(other, 0).trim_end().to_owned(),
    }
}

fn show_outcome_expect(expect: &Expect) -> String {
    match expect {
        Expect::Output(output) => format!("output {}", show(output)),
        Expect::Error(code) => format!("error {code}"),
    }
}

fn show_outcome(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Output(output) => format!("output {}", show(output)),
        Outcome::Error { code, message } => format!("error {code} ({message})"),
    }
}

/// Where two values first differ: a path such as `$.references[0].label`
/// and, for strings, the first differing code unit and both lengths. Member
/// order counts; numbers compare as JavaScript numbers.
pub fn first_difference(expected: &Json, actual: &Json) -> Option<String> {
    difference_at("$", expected, actual)
}

fn difference_at(path: &str, expected: &Json, actual: &Json) -> Option<String> {
    match (expected, actual) {
        (Json::String(a), Json::String(b)) => {
            let (a, b) = (a.units(), b.units());
            let index = a
                .iter()
                .zip(b)
                .position(|(x, y)| x != y)
                .unwrap_or(a.len().min(b.len()));
            (a != b).then(|| {
                format!(
                    "first difference at {path}, code unit {index} (expected length {}, actual length {})",
                    a.len(),
                    b.len()
                )
            })
        }
        (Json::Array(a), Json::Array(b)) => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(index, (x, y))| difference_at(&format!("{path}[{index}]"), x, y))
            .or_else(|| {
                (a.len() != b.len()).then(|| {
                    format!(
                        "first difference at {path}: {} items expected, {} found",
                        a.len(),
                        b.len()
                    )
                })
            }),
        (Json::Object(a), Json::Object(b)) => {
            for (index, ((ka, va), (kb, vb))) in a.iter().zip(b).enumerate() {
                if ka != kb {
                    let mut text = String::new();
                    let _ = write!(
                        text,
                        "first difference at {path}: member {index} is {} expected, {} found",
                        json::quote_visible(ka.units()),
                        json::quote_visible(kb.units())
                    );
                    return Some(text);
                }
                let member = format!("{path}.{}", ka.to_string_lossy());
                if let Some(found) = difference_at(&member, va, vb) {
                    return Some(found);
                }
            }
            (a.len() != b.len()).then(|| {
                format!(
                    "first difference at {path}: {} members expected, {} found",
                    a.len(),
                    b.len()
                )
            })
        }
        (Json::Number(a), Json::Number(b)) if a == b => None,
        (a, b) if a == b => None,
        _ => Some(format!("first difference at {path}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;

    fn vector(expect: Expect) -> Vector {
        Vector {
            id: "uri.encode.example".to_owned(),
            rules: vec!["uri.encode.form".to_owned()],
            description: "example".to_owned(),
            op: "uri/encode".to_owned(),
            features: vec!["uri".to_owned()],
            input: Json::object([("sessionId", Json::str("abc"))]),
            expect,
        }
    }

    #[test]
    fn filters_match_substrings_and_wildcards() {
        assert!(matches_filter("decode", "uri.decode.ascii"));
        assert!(matches_filter("uri.*.ascii", "uri.decode.ascii"));
        assert!(matches_filter("*ascii", "uri.decode.ascii"));
        assert!(!matches_filter("mention.*", "uri.decode.ascii"));
        assert!(!matches_filter("uri.*.x*y", "uri.decode.ascii"));
    }

    #[test]
    fn member_order_is_part_of_the_output() {
        let expected = Json::object([("a", Json::Null), ("b", Json::Null)]);
        let actual = Json::object([("b", Json::Null), ("a", Json::Null)]);
        let status = check(
            &vector(Expect::Output(expected)),
            Ok(Outcome::Output(actual)),
        );
        let Status::Failed(detail) = status else {
            panic!("reordered members passed");
        };
        assert!(
            detail.contains("member 0 is \"a\" expected, \"b\" found"),
            "{detail}"
        );
    }

    #[test]
    fn strings_are_compared_by_code_unit_and_shown_escaped() {
        let expected = Json::String(JsString::from_units(vec![0x61, 0xD800]));
        let actual = Json::String(JsString::from_units(vec![0x61, 0xFFFD]));
        let Status::Failed(detail) = check(
            &vector(Expect::Output(expected)),
            Ok(Outcome::Output(actual)),
        ) else {
            panic!("U+FFFD passed for a lone surrogate");
        };
        assert!(
            detail.contains("\"a\\ud800\"") && detail.contains("code unit 1"),
            "{detail}"
        );
    }

    #[test]
    fn error_codes_protocol_failures_and_unsupported() {
        let code = "SESSION_REFERENCE_INVALID_REFERENCE";
        let error = |code: &str| {
            Ok(Outcome::Error {
                code: code.to_owned(),
                message: String::new(),
            })
        };
        assert_eq!(
            check(&vector(Expect::Error(code.to_owned())), error(code)),
            Status::Passed
        );
        assert!(matches!(
            check(&vector(Expect::Error(code.to_owned())), error("INTERNAL")),
            Status::Failed(_)
        ));
        assert!(matches!(
            check(&vector(Expect::Error(code.to_owned())), Err("hung".into())),
            Status::Failed(_)
        ));
        assert_eq!(
            check(&vector(Expect::Error(code.to_owned())), error(UNSUPPORTED)),
            Status::SkippedUnsupported
        );
    }

    #[test]
    fn undeclared_features_and_filters_skip() {
        let suite = Suite {
            files: vec![vectors::VectorFile::for_tests(vec![vector(
                Expect::Output(Json::str("dsh-session:ImFiYyI")),
            )])],
        };
        let mut reference = adapter::BuiltIn(Generation::Newest);
        let none = run(
            &suite,
            &mut reference,
            &["mention".to_owned()],
            &[],
            |_, _| {},
        );
        assert_eq!(none.results[0].status, Status::SkippedFeature);
        let filtered = run(
            &suite,
            &mut reference,
            &["uri".to_owned()],
            &["mention".to_owned()],
            |_, _| {},
        );
        assert_eq!(filtered.results[0].status, Status::SkippedFilter);
        let ran = run(&suite, &mut reference, &["uri".to_owned()], &[], |_, _| {});
        assert_eq!(ran.summary(), "1 passed, 0 failed, 0 skipped");
    }
}
