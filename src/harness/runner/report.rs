//! How a run is told: lines for a person, one JSON object for tools, JUnit
//! XML for CI dashboards (spec `runner.reports`).
//!
//! The JSON report is a set of typed structs serialized with serde_json;
//! its schema is `conformance/schema/report.schema.json`. Values that come
//! from the vectors or the wire (inputs, expected and actual outcomes) may
//! hold lone surrogates, which serde's strings cannot: they are written by
//! the exact JSON layer ([`json::to_ascii`]) and embedded as raw JSON.

use super::adapter::Description;
use super::diff::DifferenceKind;
use super::ops;
use super::vectors::{Expect, SuiteVersion};
use super::{FailureDetail, Report, Status, VectorResult};
use crate::js::json::{self, Json};
use crate::protocol::wire::Outcome;
use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;
use serde_json::value::RawValue;
use std::collections::BTreeMap;
use std::path::Path;

/// A path shown relative to `base` when it is below it.
pub fn shown_path(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The block a person reads for one failed vector: id, file, op, rules,
/// the explanation, what the implementation wrote to stderr, and how to see
/// the vector and run it alone (`rerun`, the command line that runs this
/// implementation).
pub fn failure_block(
    result: &VectorResult,
    detail: &FailureDetail,
    base: &Path,
    rerun: &str,
) -> String {
    let mut block = format!(
        "FAIL {} ({})\n  op: {}; rules: {}\n  {}",
        result.id,
        shown_path(&result.file, base),
        result.op,
        result.rules.join(", "),
        detail.explanation()
    );
    if !detail.stderr.trim().is_empty() {
        block.push_str("\n  stderr: ");
        block.push_str(&escaped_lines(&detail.stderr));
    }
    block.push_str(&format!(
        "\n  see: dsh-session-reference show {}; alone: {rerun} --filter {}",
        result.id, result.id
    ));
    block
}

/// Text on one line, escaped as a JSON string is (invisible and non-ASCII
/// characters visible), cut to a readable length.
fn escaped_lines(text: &str) -> String {
    const LIMIT: usize = 600;
    let units: Vec<u16> = text.trim_end().encode_utf16().collect();
    let shown = json::quote_ascii(&units[..units.len().min(LIMIT)]);
    if units.len() > LIMIT {
        format!("{shown}… ({} code units)", units.len())
    } else {
        shown
    }
}

/// Skipped vectors by reason, each with what they had in common (the
/// features for feature skips, the capabilities for capability skips, the
/// ops for `UNSUPPORTED`), or `None` when nothing was skipped: `skipped: 140
/// feature not declared (candidates-v2: 110, …); 20 answered UNSUPPORTED
/// (mention/parse: 20)`.
pub fn skip_breakdown(report: &Report) -> Option<String> {
    let mut reasons: BTreeMap<&'static str, BTreeMap<String, usize>> = BTreeMap::new();
    for result in &report.results {
        let Some(reason) = result.status.skip_reason() else {
            continue;
        };
        let key = match result.status {
            Status::SkippedUnsupported | Status::SkippedAfterHangs => result.op.clone(),
            Status::SkippedCapability => result.requires.join(" and "),
            Status::SkippedFilter | Status::SkippedNotSelected => String::new(),
            _ => result.features.join(" and "),
        };
        *reasons.entry(reason).or_default().entry(key).or_default() += 1;
    }
    if reasons.is_empty() {
        return None;
    }
    let parts: Vec<String> = reasons
        .iter()
        .map(|(reason, keys)| {
            let total: usize = keys.values().sum();
            let detail: Vec<String> = keys
                .iter()
                .filter(|(key, _)| !key.is_empty())
                .map(|(key, count)| format!("{key}: {count}"))
                .collect();
            if detail.is_empty() {
                format!("{total} {reason}")
            } else {
                format!("{total} {reason} ({})", detail.join(", "))
            }
        })
        .collect();
    Some(format!("skipped: {}", parts.join("; ")))
}

/// The op to implement first, for a port whose ops answer `UNSUPPORTED`
/// (spec `runner.reports`): the one most skipped vectors wait on, a
/// vector waiting on its own op and on every op that op is composed of
/// ([`ops::composed_of`]), so that a building block (`json/tag-safe`,
/// which `retain`, `prepare` and `pre-step` answer through) comes before
/// the op that needs it. Ties go to the op named first.
pub fn first_op_line(report: &Report) -> Option<String> {
    let mut own: BTreeMap<&str, usize> = BTreeMap::new();
    for result in &report.results {
        if result.status == Status::SkippedUnsupported {
            *own.entry(result.op.as_str()).or_default() += 1;
        }
    }
    let mut waiting: BTreeMap<&str, (usize, Vec<&str>)> = BTreeMap::new();
    for (&op, &count) in &own {
        waiting.entry(op).or_default().0 += count;
        for &lower in ops::composed_of(op).iter().filter(|&&lower| lower != op) {
            let entry = waiting.entry(lower).or_default();
            entry.0 += count;
            entry.1.push(op);
        }
    }
    let (op, (count, users)) = waiting
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then_with(|| b.0.cmp(a.0)))?;
    let own = own.get(op).copied().unwrap_or(0);
    let through = if users.is_empty() {
        String::new()
    } else {
        format!(" and those of {} that use it", users.join(", "))
    };
    let vectors = if count == 1 { "vector" } else { "vectors" };
    Some(format!(
        "implement first: {op} ({count} {vectors} answered UNSUPPORTED wait on it: its own {own}{through})"
    ))
}

/// Whether a rule is about the specification of a port's behaviour, not
/// about the suite itself (`conformance.*` rules say how deep the suite
/// covers a rule; a failure says nothing about them).
pub fn is_behaviour_rule(rule: &str) -> bool {
    !rule.starts_with("conformance.")
}

/// The rules cited by failed vectors, most failures first (ties by id),
/// without the suite's own `conformance.*` rules.
pub fn failing_rules(report: &Report) -> Vec<RuleCount> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (result, _) in report.failures() {
        for rule in result.rules.iter().filter(|rule| is_behaviour_rule(rule)) {
            *counts.entry(rule).or_default() += 1;
        }
    }
    let mut rules: Vec<RuleCount> = counts
        .into_iter()
        .map(|(rule, count)| RuleCount {
            rule: rule.to_owned(),
            count,
        })
        .collect();
    rules.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.rule.cmp(&b.rule)));
    rules
}

/// The human report's closing lines on failing rules: `failing rules (most
/// first): a.b 12, c.d 3, …` (at most `shown` rules).
pub fn failing_rules_line(report: &Report, shown: usize) -> Option<String> {
    let rules = failing_rules(report);
    if rules.is_empty() {
        return None;
    }
    let listed: Vec<String> = rules
        .iter()
        .take(shown)
        .map(|r| format!("{} {}", r.rule, r.count))
        .collect();
    let more = rules.len().saturating_sub(shown);
    Some(format!(
        "failing rules (most first): {}{}",
        listed.join(", "),
        if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        }
    ))
}

/// One cause of a run's failures (spec `runner.causes`): the failed
/// vectors whose failures have the same [`Cause`](super::causes::Cause).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CauseCount {
    /// The cause, on one line (`family: edit at locus`).
    pub signature: String,
    /// Failed vectors with this cause.
    pub count: usize,
    /// Their ops, most vectors first.
    pub ops: Vec<String>,
    /// The rules they cite (not `conformance.*`), most vectors first.
    pub rules: Vec<String>,
    /// Their ids, in suite order.
    pub vectors: Vec<String>,
    /// The one with the fewest input bytes (the first such, in suite
    /// order); when probing traced the cause, the fewest among the traced
    /// ones, so that the probe shown is this vector's own.
    pub example: String,
    /// When probing traced the cause to a lower op (spec `runner.probes`):
    /// the example's lowest failing probe, as `OP INPUT answers X
    /// (expected Y)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
    /// The chain that led to that probe from a failed vector: `OP fails
    /// because OP … answers …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chain: Option<String>,
    /// What substitution reproduced of that vector's failure: `the
    /// implementation's OP in place of the reference's reproduces …`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub substitution: Option<String>,
}

/// The causes of a run's failures, most vectors first (ties: found first).
pub fn causes(report: &Report) -> Vec<CauseCount> {
    struct Group<'a> {
        signature: String,
        ops: Vec<(&'a str, usize)>,
        rules: Vec<(&'a str, usize)>,
        vectors: Vec<&'a str>,
        example: (usize, &'a str),
        /// The traced vector with the fewest input bytes: its size, id,
        /// lowest probe, chain and what substitution reproduced.
        probe: Option<(usize, &'a str, String, String, String)>,
    }
    fn tally<'a>(counts: &mut Vec<(&'a str, usize)>, key: &'a str) {
        match counts.iter_mut().find(|(known, _)| *known == key) {
            Some((_, count)) => *count += 1,
            None => counts.push((key, 1)),
        }
    }
    fn most_first(mut counts: Vec<(&str, usize)>) -> Vec<String> {
        counts.sort_by_key(|count| std::cmp::Reverse(count.1));
        counts.into_iter().map(|(key, _)| key.to_owned()).collect()
    }
    // A failure with two readings counts under the one more failures share.
    let readings: Vec<(Vec<String>, Option<String>)> = report
        .failures()
        .map(|(result, detail)| {
            // A cost vector's failure is its growth, whatever it answered.
            if result.cost.is_some() {
                return (
                    vec![format!("cost: {} grows faster than linearly", result.op)],
                    None,
                );
            }
            let (_, alternative) = detail.causes(&result.op);
            let all = detail
                .all_causes(&result.op)
                .iter()
                .map(ToString::to_string)
                .collect();
            (all, alternative.map(|a| a.to_string()))
        })
        .collect();
    let mut primary: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for (all, _) in &readings {
        *primary.entry(&all[0]).or_default() += 1;
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for ((result, detail), (all, alternative)) in report.failures().zip(&readings) {
        let count = |reading: &str| primary.get(reading).copied().unwrap_or(0);
        let first = match alternative {
            Some(other) if count(other) > count(&all[0]) => other.clone(),
            _ => all[0].clone(),
        };
        // Every edit counts (spec runner.causes): the vector is counted
        // under each of its causes.
        let signatures = std::iter::once(first).chain(all[1..].iter().cloned());
        for signature in signatures {
            let at = *index.entry(signature.clone()).or_insert_with(|| {
                groups.push(Group {
                    signature,
                    ops: Vec::new(),
                    rules: Vec::new(),
                    vectors: Vec::new(),
                    example: (detail.input_bytes, &result.id),
                    probe: None,
                });
                groups.len() - 1
            });
            let group = &mut groups[at];
            if group.vectors.last() == Some(&result.id.as_str()) {
                continue;
            }
            tally(&mut group.ops, &result.op);
            for rule in result.rules.iter().filter(|rule| is_behaviour_rule(rule)) {
                tally(&mut group.rules, rule);
            }
            group.vectors.push(&result.id);
            if detail.input_bytes < group.example.0 {
                group.example = (detail.input_bytes, &result.id);
            }
            let Some(chain) = &detail.chain else {
                continue;
            };
            if chain.cause().to_string() != group.signature {
                continue;
            }
            if group
                .probe
                .as_ref()
                .is_none_or(|(bytes, _, _, _, _)| detail.input_bytes < *bytes)
            {
                group.probe = Some((
                    detail.input_bytes,
                    &result.id,
                    chain.lowest().describe(),
                    chain.explain(&result.op),
                    chain.substitution(),
                ));
            }
        }
    }
    let mut causes: Vec<CauseCount> = groups
        .into_iter()
        .map(|group| CauseCount {
            signature: group.signature,
            count: group.vectors.len(),
            ops: most_first(group.ops),
            rules: most_first(group.rules),
            vectors: group.vectors.iter().map(|id| (*id).to_owned()).collect(),
            example: group
                .probe
                .as_ref()
                .map_or(group.example.1, |(_, id, _, _, _)| id)
                .to_owned(),
            chain: group
                .probe
                .as_ref()
                .map(|(_, _, _, chain, _)| chain.clone()),
            substitution: group
                .probe
                .as_ref()
                .map(|(_, _, _, _, substitution)| substitution.clone()),
            probe: group.probe.map(|(_, _, probe, _, _)| probe),
        })
        .collect();
    causes.sort_by_key(|cause| std::cmp::Reverse(cause.count));
    causes
}

/// How many rules a cause lists in the human report.
const CAUSE_RULES_SHOWN: usize = 4;

/// The human report's closing block on causes: `causes (most vectors
/// first): N`, then one entry per cause with its count, ops, rules and
/// smallest vector, and the command that shows it.
pub fn causes_block(report: &Report) -> Option<String> {
    let causes = causes(report);
    if causes.is_empty() {
        return None;
    }
    let mut block = format!("causes (most vectors first): {}", causes.len());
    for (number, cause) in causes.iter().enumerate() {
        let mut rules: Vec<&str> = cause
            .rules
            .iter()
            .take(CAUSE_RULES_SHOWN)
            .map(String::as_str)
            .collect();
        let more = cause.rules.len().saturating_sub(CAUSE_RULES_SHOWN);
        let more = format!("and {more} more");
        if cause.rules.len() > CAUSE_RULES_SHOWN {
            rules.push(&more);
        }
        block.push_str(&format!(
            "\n  {}. {} ({} {})\n     ops: {}; rules: {}\n     smallest: {} (dsh-session-reference show {})",
            number + 1,
            cause.signature,
            cause.count,
            if cause.count == 1 { "vector" } else { "vectors" },
            cause.ops.join(", "),
            rules.join(", "),
            cause.example,
            cause.example
        ));
        if let Some(probe) = &cause.probe {
            block.push_str(&format!("\n     probed: {probe}"));
        }
        if let Some(substitution) = &cause.substitution {
            block.push_str(&format!("\n     substituted: {substitution}"));
        }
    }
    Some(block)
}

/// A rule and how many failed vectors cite it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    /// The rule id.
    pub rule: String,
    /// Failed vectors citing it.
    pub count: usize,
}

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
    pub summary: Summary,
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
    /// How often each op hung (spec `runner.slow`); absent when none did.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub hangs: BTreeMap<String, u64>,
    /// The vectors not sent because their op had hung twice (spec
    /// `runner.slow`); absent when none was.
    #[serde(rename = "notWaited", skip_serializing_if = "Vec::is_empty")]
    pub not_waited: Vec<String>,
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
pub struct Summary {
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
    /// Not sent: the op had hung twice (spec `runner.slow`).
    #[serde(rename = "afterHangs")]
    pub after_hangs: usize,
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

fn expect_json(expect: &Expect) -> Json {
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

fn difference_of(detail: &FailureDetail) -> JsonDifference {
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

/// The whole run as a [`JsonReport`]; `inputs` finds each vector's input.
pub fn to_json(
    report: &Report,
    suite: SuiteVersion,
    implementation: Subject,
    baseline: Option<BaselineSummary>,
    inputs: &dyn Fn(&str) -> Option<Json>,
    base: &Path,
) -> JsonReport {
    let results = report
        .results
        .iter()
        .map(|result| JsonResult {
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
                Status::Failed(detail) => Some(JsonFailure {
                    input: raw(&inputs(&result.id).unwrap_or(Json::Null)),
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
                    substitution: detail
                        .chain
                        .as_ref()
                        .map(super::probes::Chain::substitution),
                }),
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
                limit: super::cost::LIMIT,
            }),
        })
        .collect();
    JsonReport {
        suite,
        implementation,
        summary: Summary {
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
            after_hangs: report.count_of(&Status::SkippedAfterHangs),
        },
        failing_rules: failing_rules(report),
        causes: causes(report),
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
        hangs: report.hangs.clone(),
        not_waited: report
            .not_waited()
            .map(|result| result.id.clone())
            .collect(),
        results,
    }
}

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
            case.set_classname(suite_name.as_str())
                .set_time(result.duration);
            if let Status::Failed(detail) = &result.status {
                if !detail.stderr.is_empty() {
                    case.set_system_err(detail.stderr.as_str());
                }
            }
            test_suite.add_test_case(case);
        }
        junit.add_test_suite(test_suite);
    }
    junit
        .to_string()
        .unwrap_or_else(|error| format!("<!-- JUnit report could not be written: {error} -->\n"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::JsString;
    use std::path::PathBuf;
    use std::time::Duration;

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
        let json = to_json(
            &report(),
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
            text.contains(r#""skipped":{"feature":1,"capability":1,"notSelected":0,"unsupported":1,"filter":0,"cost":0,"afterHangs":0}"#),
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
            Some("implement first: json/tag-safe (1 vector answered UNSUPPORTED wait on it: its own 1)")
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
}
