//! The JSON report (`--format json`, spec `runner.reports`): its typed
//! structs, serialized with serde_json (schema
//! `conformance/schema/report.schema.json`), and how a run fills them.

use super::causes::CauseCount;
use super::human::shown_path;
use super::rules::{failing_rules, RuleCount};
use crate::harness::runner::adapter::Description;
use crate::harness::runner::diff::DifferenceKind;
use crate::harness::runner::vectors::{Expect, SuiteVersion};
use crate::harness::runner::{cost, probes, FailureDetail, Report, Status, VectorResult};
use crate::js::json::{self, Json};
use crate::protocol::wire::Outcome;
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::path::Path;

/// Which implementation ran: one description, or the reference's profiles.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Subject {
    /// An implementation behind an adapter.
    One(Description),
    /// The built-in reference, in each of its generations.
    Profiles {
        /// One description per generation.
        profiles: Vec<Description>,
    },
}

/// The JSON report of a run (`--format json`).
#[derive(Debug, Serialize)]
pub struct JsonReport {
    /// Which vectors ran.
    pub suite: SuiteVersion,
    /// Which implementation answered.
    pub implementation: Subject,
    /// Counts of the run.
    pub summary: JsonSummary,
    /// Skips by reason.
    pub skipped: SkipCounts,
    /// Rules cited by failures, most failures first.
    #[serde(rename = "failingRules")]
    pub failing_rules: Vec<RuleCount>,
    /// The failures' causes, most vectors first (spec `runner.causes`).
    pub causes: Vec<CauseCount>,
    /// The baseline comparison, when a baseline was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineSummary>,
    /// The vectors answered after the timeout, within the grace period
    /// (spec `runner.slow`); absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slow: Vec<JsonSlow>,
    /// How many vectors of each op were not answered in time (spec
    /// `runner.slow`); absent when none was.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub hangs: BTreeMap<String, u64>,
    /// The vectors not answered in time, in suite order (spec
    /// `runner.slow`); absent when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hung: Vec<String>,
    /// Per rule, the vectors of the run that reached its decisions on the
    /// reference (spec `runner.reach`).
    pub reach: BTreeMap<&'static str, Vec<String>>,
    /// One entry per vector, in suite order.
    pub results: Vec<JsonResult>,
}

/// A vector answered late: `{id, seconds, limit}`.
#[derive(Debug, Serialize)]
pub struct JsonSlow {
    /// The vector.
    pub id: String,
    /// Seconds its answer took.
    pub seconds: f64,
    /// The timeout, in seconds.
    pub limit: f64,
}

/// `{passed, failed, skipped, probes}`.
#[derive(Debug, Serialize)]
pub struct JsonSummary {
    /// Vectors that passed.
    pub passed: usize,
    /// Vectors that failed.
    pub failed: usize,
    /// Vectors skipped for any reason.
    pub skipped: usize,
    /// Requests sent for probes (spec `runner.probes`).
    pub probes: usize,
}

/// Skips by reason.
#[derive(Debug, Serialize)]
pub struct SkipCounts {
    /// No declared feature.
    pub feature: usize,
    /// A required capability not declared.
    pub capability: usize,
    /// No selected feature.
    #[serde(rename = "notSelected")]
    pub not_selected: usize,
    /// Answered `UNSUPPORTED`.
    pub unsupported: usize,
    /// Not matched by the filter.
    pub filter: usize,
    /// Cost vectors, run only with `--cost`.
    pub cost: usize,
}

/// How a run compares with a baseline of known failures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BaselineSummary {
    /// Failed and listed: known.
    pub known: Vec<String>,
    /// Failed and not listed: these fail the run.
    pub new: Vec<String>,
    /// Listed but passed: remove them from the baseline.
    pub fixed: Vec<String>,
    /// Listed but not in the suite.
    pub unknown: Vec<String>,
}

/// One vector's result.
#[derive(Debug, Serialize)]
pub struct JsonResult {
    /// The vector id.
    pub id: String,
    /// Its file.
    pub file: String,
    /// Its op.
    pub op: String,
    /// The rules it tests.
    pub rules: Vec<String>,
    /// The features it runs under.
    pub features: Vec<String>,
    /// The capabilities it requires.
    pub requires: Vec<String>,
    /// `passed`, `failed` or `skipped`.
    pub status: &'static str,
    /// Why it was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    /// Seconds the implementation took.
    pub seconds: f64,
    /// What failed, for a failed vector.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub failure: Option<JsonFailure>,
    /// A cost vector's measurements, when it ran (spec `runner.cost`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<JsonCost>,
}

/// A cost vector's sizes, times and estimated exponent.
#[derive(Debug, Serialize)]
pub struct JsonCost {
    /// Each size tried, smallest first, with its fastest answer.
    pub points: Vec<JsonPoint>,
    /// The estimated growth exponent; `null` when fewer than two sizes
    /// took long enough to judge.
    pub exponent: Option<f64>,
    /// The exponent above which the vector fails.
    pub limit: f64,
}

/// One measured size of a cost vector.
#[derive(Debug, Serialize)]
pub struct JsonPoint {
    /// The generator's `n`.
    pub size: u64,
    /// The fastest answer, in seconds.
    pub seconds: f64,
}

/// The fields of a failed result.
#[derive(Debug, Serialize)]
pub struct JsonFailure {
    /// The op's input, exactly.
    pub input: Box<RawValue>,
    /// `{"output": …}` or `{"error": {"code"}}`.
    pub expected: Box<RawValue>,
    /// `{"output": …}`, `{"error": {"code", "message"}}`, or
    /// `{"protocolFailure": TEXT}`.
    pub actual: Box<RawValue>,
    /// Where the two first differ.
    pub difference: JsonDifference,
    /// What the implementation wrote to stderr meanwhile (bounded).
    pub stderr: String,
    /// The explanation a person reads.
    pub explanation: String,
    /// The reference profile that failed, for the built-in reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<&'static str>,
    /// The failing probes down to the lowest op that answers wrong (spec
    /// `runner.probes`), when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<Vec<JsonProbe>>,
    /// What putting the implementation's lower answers in place of the
    /// reference's reproduced of this failure (spec `runner.probes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub substitution: Option<String>,
}

/// A failing probe in a failure's chain.
#[derive(Debug, Serialize)]
pub struct JsonProbe {
    /// The lower op asked.
    pub op: String,
    /// Its input.
    pub input: Box<RawValue>,
    /// The reference's answer, as `expected` is written.
    pub expected: Box<RawValue>,
    /// The implementation's, as `actual` is written.
    pub actual: Box<RawValue>,
}

/// The first difference of a failure.
#[derive(Debug, Serialize)]
pub struct JsonDifference {
    /// `$` for the whole outcome, else a path such as `$.references[0].label`.
    pub path: String,
    /// `string`, `length`, `member-key`, `member-count`, `value`, `outcome`
    /// (output vs error, or another error code) or `protocol`.
    pub kind: &'static str,
    /// For strings: the first differing code unit.
    #[serde(rename = "codeUnit", skip_serializing_if = "Option::is_none")]
    pub code_unit: Option<usize>,
}

/// A value as raw JSON for a serde report, written by the exact JSON layer
/// (`\uXXXX` for every non-ASCII code unit, lone surrogates included).
pub fn raw(value: &Json) -> Box<RawValue> {
    RawValue::from_string(json::to_ascii(value))
        .expect("the exact JSON writer writes valid JSON text")
}

pub(super) fn expect_json(expect: &Expect) -> Json {
    match expect {
        Expect::Output(output) => Json::object([("output", output.clone())]),
        Expect::Error(code) => Json::object([("error", Json::object([("code", Json::str(code))]))]),
    }
}

/// An answer as reports write it: `{"output": …}`, `{"error": {"code",
/// "message"}}` or `{"protocolFailure": TEXT}`.
pub fn actual_json(actual: &Result<Outcome, String>) -> Json {
    match actual {
        Ok(Outcome::Output(output)) => Json::object([("output", output.clone())]),
        Ok(Outcome::Error { code, message }) => Json::object([(
            "error",
            Json::object([("code", Json::str(code)), ("message", Json::str(message))]),
        )]),
        Err(problem) => Json::object([("protocolFailure", Json::str(problem))]),
    }
}

pub(super) fn difference_of(detail: &FailureDetail) -> JsonDifference {
    let whole = |kind| JsonDifference {
        path: "$".to_owned(),
        kind,
        code_unit: None,
    };
    if detail.actual.is_err() {
        return whole("protocol");
    }
    let Some(difference) = detail.difference() else {
        return whole("outcome");
    };
    let (kind, code_unit) = match difference.kind {
        DifferenceKind::String { index, .. } => ("string", Some(index)),
        DifferenceKind::Length { .. } => ("length", None),
        DifferenceKind::MemberKey { .. } => ("member-key", None),
        DifferenceKind::MemberCount { .. } => ("member-count", None),
        DifferenceKind::Value { .. } => ("value", None),
    };
    JsonDifference {
        path: difference.path,
        kind,
        code_unit,
    }
}

fn status_word(status: &Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed(_) => "failed",
        _ => "skipped",
    }
}

/// The whole run as a [`JsonReport`], its failures' `causes` as
/// [`causes`](super::causes::causes) groups them; `inputs` finds each
/// vector's input.
pub fn to_json(
    report: &Report,
    causes: Vec<CauseCount>,
    suite: SuiteVersion,
    implementation: Subject,
    baseline: Option<BaselineSummary>,
    inputs: &dyn Fn(&str) -> Option<Json>,
    base: &Path,
) -> JsonReport {
    JsonReport {
        suite,
        implementation,
        summary: JsonSummary {
            passed: report.passed(),
            failed: report.failed(),
            skipped: report.skipped(),
            probes: report.probes,
        },
        skipped: SkipCounts {
            feature: report.count_of(&Status::SkippedFeature),
            capability: report.count_of(&Status::SkippedCapability),
            not_selected: report.count_of(&Status::SkippedNotSelected),
            unsupported: report.count_of(&Status::SkippedUnsupported),
            filter: report.count_of(&Status::SkippedFilter),
            cost: report.count_of(&Status::SkippedCost),
        },
        failing_rules: failing_rules(report),
        causes,
        baseline,
        slow: report
            .slow
            .iter()
            .map(|(id, late)| JsonSlow {
                id: id.clone(),
                seconds: late.took.as_secs_f64(),
                limit: late.limit.as_secs_f64(),
            })
            .collect(),
        hangs: super::hang_counts(report),
        hung: super::hung_vectors(report),
        reach: BTreeMap::new(),
        results: report
            .results
            .iter()
            .map(|result| json_result(result, inputs, base))
            .collect(),
    }
}

/// One vector's entry in the report's `results`.
fn json_result(
    result: &VectorResult,
    inputs: &dyn Fn(&str) -> Option<Json>,
    base: &Path,
) -> JsonResult {
    JsonResult {
        id: result.id.clone(),
        file: shown_path(&result.file, base),
        op: result.op.clone(),
        rules: result.rules.clone(),
        features: result.features.clone(),
        requires: result.requires.clone(),
        status: status_word(&result.status),
        reason: result.status.skip_reason(),
        seconds: result.duration.as_secs_f64(),
        failure: match &result.status {
            Status::Failed(detail) => Some(json_failure(detail, inputs(&result.id))),
            _ => None,
        },
        cost: result.cost.as_ref().map(|growth| JsonCost {
            points: growth
                .points
                .iter()
                .map(|point| JsonPoint {
                    size: point.size,
                    seconds: point.seconds,
                })
                .collect(),
            exponent: growth.exponent,
            limit: cost::LIMIT,
        }),
    }
}

/// What a failed vector's entry adds; `input` is the vector's, if found.
fn json_failure(detail: &FailureDetail, input: Option<Json>) -> JsonFailure {
    JsonFailure {
        input: raw(&input.unwrap_or(Json::Null)),
        expected: raw(&expect_json(&detail.expected)),
        actual: raw(&actual_json(&detail.actual)),
        difference: difference_of(detail),
        stderr: detail.stderr.clone(),
        explanation: detail.explanation(),
        profile: detail.profile,
        chain: detail.chain.as_ref().map(|chain| {
            chain
                .steps
                .iter()
                .map(|step| JsonProbe {
                    op: step.op.clone(),
                    input: raw(&step.input),
                    expected: raw(&actual_json(&Ok(step.expected.clone()))),
                    actual: raw(&actual_json(&step.actual)),
                })
                .collect()
        }),
        substitution: detail.chain.as_ref().map(probes::Chain::substitution),
    }
}
