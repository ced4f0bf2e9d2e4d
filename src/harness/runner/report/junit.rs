//! The JUnit XML report (`--junit`, spec `runner.reports`), for CI
//! dashboards: one test case per vector, grouped by vector file.

use super::human::shown_path;
use super::json::{actual_json, difference_of, expect_json};
use crate::harness::runner::vectors::SuiteVersion;
use crate::harness::runner::{Report, Status, VectorResult};
use crate::js::json;
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use std::path::Path;

/// The run as JUnit XML (written by quick-junit): one `testsuite` per
/// vector file (named by its area and file), one `testcase` per vector;
/// a failure carries its explanation, rules and expected/actual outcomes,
/// and `system-err` what the implementation wrote to stderr; a skip
/// carries its reason. The report's properties name the suite version.
pub fn to_junit(report: &Report, name: &str, suite: &SuiteVersion, base: &Path) -> String {
    let mut junit = quick_junit::Report::new(name);
    let mut files: Vec<(String, Vec<&VectorResult>)> = Vec::new();
    for result in &report.results {
        let file = shown_path(&result.file, base);
        match files.last_mut() {
            Some((last, results)) if *last == file => results.push(result),
            _ => files.push((file, vec![result])),
        }
    }
    junit.set_time(report.results.iter().map(|r| r.duration).sum());
    for (file, results) in &files {
        let suite_name = suite_name(file);
        let mut test_suite = TestSuite::new(suite_name.as_str());
        test_suite.add_properties([
            Property::new("file", file.as_str()),
            Property::new("suite.crateVersion", suite.crate_version.as_str()),
            Property::new("suite.vectors", suite.vectors.to_string()),
            Property::new("suite.hash", suite.hash.as_str()),
        ]);
        test_suite.set_time(results.iter().map(|r| r.duration).sum());
        for result in results {
            test_suite.add_test_case(test_case(result, &suite_name));
        }
        junit.add_test_suite(test_suite);
    }
    junit
        .to_string()
        .unwrap_or_else(|error| format!("<!-- JUnit report could not be written: {error} -->\n"))
}

/// One vector's test case: a failure with its explanation, rules and
/// outcomes, and in `system-err` what the implementation wrote to stderr;
/// a skip with its reason.
fn test_case(result: &VectorResult, suite_name: &str) -> TestCase {
    let status = match &result.status {
        Status::Passed => TestCaseStatus::success(),
        Status::Failed(detail) => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            let explanation = detail.explanation();
            status
                .set_message(explanation.lines().next().unwrap_or_default())
                .set_type(difference_of(detail).kind)
                .set_description(format!(
                    "rules: {}\n{explanation}\nexpected: {}\nactual: {}",
                    result.rules.join(", "),
                    json::to_ascii(&expect_json(&detail.expected)),
                    json::to_ascii(&actual_json(&detail.actual)),
                ));
            status
        }
        other => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(other.skip_reason().unwrap_or_default());
            status
        }
    };
    let mut case = TestCase::new(result.id.as_str(), status);
    case.set_classname(suite_name).set_time(result.duration);
    if let Status::Failed(detail) = &result.status {
        if !detail.stderr.is_empty() {
            case.set_system_err(detail.stderr.as_str());
        }
    }
    case
}

/// `conformance/vectors/uri/decode.json` → `uri.decode`: the area and the
/// file's stem, as dashboards group test classes.
fn suite_name(file: &str) -> String {
    let path = Path::new(file);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match path.parent().and_then(Path::file_name) {
        Some(area) => format!("{}.{stem}", area.to_string_lossy()),
        None => stem,
    }
}
