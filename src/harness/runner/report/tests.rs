//! The report's tests (spec `runner.reports`): a run with one vector of
//! each kind, told in each output.

use super::causes::causes;
use super::human::{failure_block, first_op_line, skip_breakdown};
use super::json::{to_json, Subject};
use super::junit::to_junit;
use crate::harness::runner::vectors::{Expect, SuiteVersion};
use crate::harness::runner::{FailureDetail, Report, Status, VectorResult};
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::protocol::wire::Outcome;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A vector of `uri/decode` that went as `status`.
fn result(id: &str, status: Status) -> VectorResult {
    VectorResult {
        id: id.to_owned(),
        file: PathBuf::from("/suite/uri/decode.json"),
        op: "uri/decode".to_owned(),
        rules: vec!["uri.decode.canonical".to_owned()],
        features: vec!["uri".to_owned()],
        requires: Vec::new(),
        status,
        duration: Duration::from_millis(2),
        cost: None,
    }
}

/// A failure: a lone surrogate where `<a>` was expected, and a panic.
fn failed() -> Status {
    Status::Failed(Box::new(FailureDetail {
        expected: Expect::Output(Json::str("<a>")),
        actual: Ok(Outcome::Output(Json::String(JsString::from_units(vec![
            0x3C, 0xD800,
        ])))),
        profile: None,
        stderr: "thread panicked at src/lib.rs\n".to_owned(),
        input_bytes: 10,
        chain: None,
        conversation: None,
    }))
}

/// A run with a vector passed, failed, and skipped for each of three reasons.
fn report() -> Report {
    Report {
        results: vec![
            result("uri.decode.a", Status::Passed),
            result("uri.decode.b", failed()),
            result("uri.decode.c", Status::SkippedUnsupported),
            result("uri.decode.d", Status::SkippedFeature),
            result("uri.decode.e", Status::SkippedCapability),
        ],
        ..Report::default()
    }
}

/// The suite of that run.
fn version() -> SuiteVersion {
    SuiteVersion {
        crate_version: "0.1.0".to_owned(),
        vectors: 5,
        hash: "sha256:00".to_owned(),
        source: "embedded".to_owned(),
    }
}

#[test]
fn junit_carries_failures_stderr_skips_and_the_suite_version() {
    // runner.reports
    let xml = to_junit(&report(), "conformance", &version(), Path::new("/suite"));
    assert!(
        xml.contains("tests=\"5\"") && xml.contains("failures=\"1\""),
        "{xml}"
    );
    assert!(xml.contains("<testsuite name=\"uri.decode\""), "{xml}");
    assert!(xml.contains("&quot;&lt;a&gt;&quot;"), "{xml}");
    assert!(xml.contains("\\ud800"), "{xml}");
    assert!(xml.contains("<system-err>thread panicked"), "{xml}");
    assert!(xml.contains("suite.hash"), "{xml}");
    assert!(xml.contains("capability not declared"), "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 5);
}

#[test]
fn json_report_has_structured_failures_and_skip_reasons() {
    // runner.reports, runner.selection (skip reasons)
    let inputs = |_: &str| Some(Json::object([("uri", Json::str("x"))]));
    let report = report();
    let json = to_json(
        &report,
        causes(&report),
        version(),
        Subject::Profiles { profiles: vec![] },
        None,
        &inputs,
        Path::new("/suite"),
    );
    let text = serde_json::to_string(&json).unwrap();
    assert!(
        text.contains(r#""summary":{"passed":1,"failed":1,"skipped":3,"probes":0}"#),
        "{text}"
    );
    assert!(
        text.contains(r#""skipped":{"feature":1,"capability":1,"notSelected":0,"unsupported":1,"filter":0,"cost":0}"#),
        "{text}"
    );
    assert!(text.contains(r#""file":"uri/decode.json""#), "{text}");
    assert!(text.contains(r#""input":{"uri":"x"}"#), "{text}");
    assert!(text.contains(r#""expected":{"output":"<a>"}"#), "{text}");
    assert!(text.contains(r#""actual":{"output":"<\ud800"}"#), "{text}");
    assert!(
        text.contains(r#""difference":{"path":"$","kind":"string","codeUnit":1}"#),
        "{text}"
    );
    assert!(text.contains(r#""failingRules":[{"rule":"uri.decode.canonical","count":1}]"#));
    // A lone surrogate travels as `\ud800`, which serde_json refuses:
    // the report is read with the exact JSON layer.
    let parsed = json::parse(&text).unwrap();
    let stderr = parsed.get("results").and_then(Json::as_array).unwrap()[1]
        .get("stderr")
        .and_then(Json::as_string);
    assert_eq!(stderr.as_deref(), Some("thread panicked at src/lib.rs\n"));
}

#[test]
fn the_op_to_implement_first_is_the_one_most_vectors_wait_on() {
    let unsupported = |id: &str, op: &str| VectorResult {
        op: op.to_owned(),
        ..result(id, Status::SkippedUnsupported)
    };
    let mut report = Report::default();
    assert_eq!(first_op_line(&report), None);
    report.results = vec![
        unsupported("a", "uri/decode"),
        unsupported("b", "uri/decode"),
        unsupported("c", "mention/parse"),
        unsupported("d", "mention/parse"),
        unsupported("e", "mention/parse"),
        unsupported("f", "json/tag-safe"),
    ];
    // uri/encode: none of its own, but uri/decode and mention/parse
    // answer through it (5); uri/decode: its 2 and mention/parse's 3.
    // The tie goes to the op named first.
    assert_eq!(
        first_op_line(&report).as_deref(),
        Some("implement first: uri/decode (5 vectors answered UNSUPPORTED wait on it: its own 2 and those of mention/parse that use it)")
    );
    report.results.push(unsupported("g", "uri/decode"));
    assert_eq!(
        first_op_line(&report).as_deref(),
        Some("implement first: uri/decode (6 vectors answered UNSUPPORTED wait on it: its own 3 and those of mention/parse that use it)")
    );
    report.results = vec![unsupported("f", "json/tag-safe")];
    assert_eq!(
        first_op_line(&report).as_deref(),
        Some(
            "implement first: json/tag-safe (1 vector answered UNSUPPORTED wait on it: its own 1)"
        )
    );
}

#[test]
fn skip_breakdown_names_features_and_ops() {
    assert_eq!(
        skip_breakdown(&report()).as_deref(),
        Some(
            "skipped: 1 answered UNSUPPORTED (uri/decode: 1); 1 capability not declared; 1 feature not declared (uri: 1)"
        )
    );
    assert_eq!(skip_breakdown(&Report::default()), None);
}

#[test]
fn failure_blocks_escape_stderr_and_say_how_to_rerun() {
    let report = report();
    let (result, detail) = report.failures().next().unwrap();
    let block = failure_block(
        result,
        detail,
        Path::new("/suite"),
        "dsh-session-reference conformance --impl ./port",
    );
    assert!(
        block.contains("stderr: \"thread panicked at src/lib.rs\""),
        "{block}"
    );
    assert!(
        block.contains("see: dsh-session-reference show uri.decode.b"),
        "{block}"
    );
    assert!(
        block.contains("--impl ./port --filter uri.decode.b"),
        "{block}"
    );
}
