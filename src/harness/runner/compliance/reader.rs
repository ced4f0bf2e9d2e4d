//! Reading a JSON report of `conformance --format json` (spec
//! `runner.reports`) into an [`Column`], a column of the matrix,
//! with the exact JSON layer: its values may hold lone surrogates.

use super::matrix::{Column, FailedVector, VectorEntry, Verdict};
use crate::harness::runner::report::CauseCount;
use crate::js::json::{self, Json};
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

/// A report that could not be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The report's file, as given.
    pub file: String,
    /// What was wrong with it.
    pub problem: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.problem)
    }
}

impl std::error::Error for ReadError {}

/// Reads the JSON report in `path` (spec `runner.reports`).
pub fn read_report(path: &Path) -> Result<Column, ReadError> {
    let file = path.display().to_string();
    let error = |problem: String| ReadError {
        file: file.clone(),
        problem,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(format!("cannot read: {e}")))?;
    let value = json::parse(&text)
        .map_err(|e| error(format!("not JSON: {} at byte {}", e.message, e.offset)))?;
    parse_report(&value, &file).map_err(error)
}

/// A JSON report already parsed; `file` names it.
pub fn parse_report(report: &Json, file: &str) -> Result<Column, String> {
    let suite = member(report, "suite")?;
    let hash = string(member(suite, "hash")?, "suite.hash")?;
    let suite = format!(
        "{} ({} vectors, {}…, {})",
        string(member(suite, "crateVersion")?, "suite.crateVersion")?,
        count(member(suite, "vectors")?, "suite.vectors")?,
        hash.chars().take(19).collect::<String>(),
        string(member(suite, "source")?, "suite.source")?,
    );
    let implementation = member(report, "implementation")?;
    let (descriptions, profiles): (Vec<&Json>, bool) = match implementation.get("profiles") {
        Some(profiles) => (
            profiles
                .as_array()
                .ok_or("implementation.profiles is not an array")?
                .iter()
                .collect(),
            true,
        ),
        None => (vec![implementation], false),
    };
    let mut names = Vec::new();
    let mut features = BTreeSet::new();
    let mut capabilities = BTreeSet::new();
    for description in descriptions {
        let name = string(member(description, "name")?, "implementation.name")?;
        let version = string(member(description, "version")?, "implementation.version")?;
        // runner.releases: the upstream release an implementation follows
        // heads its column, unless its name says it (the reference's
        // profiles are named by theirs).
        names.push(match optional_string(description, "release")? {
            Some(release) if !profiles && !name.contains(&release) => {
                format!("{name} {version}, release {release}")
            }
            _ => format!("{name} {version}"),
        });
        features.extend(strings(member(description, "features")?, "features")?);
        capabilities.extend(strings(
            member(description, "capabilities")?,
            "capabilities",
        )?);
    }
    let summary = member(report, "summary")?;
    let vectors = member(report, "results")?
        .as_array()
        .ok_or("results is not an array")?
        .iter()
        .enumerate()
        .map(|(index, result)| {
            vector_entry(result).map_err(|problem| format!("results[{index}]: {problem}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut causes = member(report, "causes")?
        .as_array()
        .ok_or("causes is not an array")?
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            cause_entry(entry).map_err(|problem| format!("causes[{index}]: {problem}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The report lists them most vectors first; the page relies on it.
    causes.sort_by_key(|cause| std::cmp::Reverse(cause.count));
    Ok(Column {
        name: names.join(" + "),
        file: file.to_owned(),
        suite,
        features: features.into_iter().collect(),
        capabilities: capabilities.into_iter().collect(),
        passed: count(member(summary, "passed")?, "summary.passed")?,
        failed: count(member(summary, "failed")?, "summary.failed")?,
        skipped: count(member(summary, "skipped")?, "summary.skipped")?,
        vectors,
        causes,
    })
}

fn cause_entry(entry: &Json) -> Result<CauseCount, String> {
    Ok(CauseCount {
        signature: string(member(entry, "signature")?, "signature")?,
        count: count(member(entry, "count")?, "count")?,
        ops: strings(member(entry, "ops")?, "ops")?,
        rules: strings(member(entry, "rules")?, "rules")?,
        vectors: strings(member(entry, "vectors")?, "vectors")?,
        example: string(member(entry, "example")?, "example")?,
        probe: optional_string(entry, "probe")?,
        chain: optional_string(entry, "chain")?,
        substitution: optional_string(entry, "substitution")?,
    })
}

/// A string member that may be absent.
fn optional_string(entry: &Json, name: &str) -> Result<Option<String>, String> {
    entry.get(name).map(|value| string(value, name)).transpose()
}

fn vector_entry(result: &Json) -> Result<VectorEntry, String> {
    let verdict = match string(member(result, "status")?, "status")?.as_str() {
        "passed" => Verdict::Passed,
        "failed" => Verdict::Failed,
        "skipped" => Verdict::Skipped,
        other => return Err(format!("unknown status {other:?}")),
    };
    let failure = match verdict {
        Verdict::Failed => {
            let difference = member(result, "difference")?;
            let mut shown = format!(
                "{} at {}",
                string(member(difference, "kind")?, "difference.kind")?,
                string(member(difference, "path")?, "difference.path")?
            );
            if let Some(unit) = difference.get("codeUnit") {
                shown.push_str(&format!(
                    ", code unit {}",
                    count(unit, "difference.codeUnit")?
                ));
            }
            Some(FailedVector {
                expected: json::to_ascii(member(result, "expected")?),
                actual: json::to_ascii(member(result, "actual")?),
                difference: shown,
                profile: result
                    .get("profile")
                    .map(|profile| string(profile, "profile"))
                    .transpose()?,
            })
        }
        _ => None,
    };
    Ok(VectorEntry {
        id: string(member(result, "id")?, "id")?,
        op: string(member(result, "op")?, "op")?,
        rules: strings(member(result, "rules")?, "rules")?,
        verdict,
        reason: result
            .get("reason")
            .map(|reason| string(reason, "reason"))
            .transpose()?,
        failure,
    })
}

fn member<'a>(value: &'a Json, key: &str) -> Result<&'a Json, String> {
    value.get(key).ok_or_else(|| format!("no member {key:?}"))
}

/// A string member as text; one holding a lone surrogate is shown with
/// `\uXXXX` escapes.
fn string(value: &Json, what: &str) -> Result<String, String> {
    let text = value
        .as_js_str()
        .ok_or_else(|| format!("{what} is not a string"))?;
    Ok(text.to_str().unwrap_or_else(|| {
        let quoted = json::quote_ascii(text.units());
        quoted[1..quoted.len() - 1].to_owned()
    }))
}

fn strings(value: &Json, what: &str) -> Result<Vec<String>, String> {
    value
        .as_array()
        .ok_or_else(|| format!("{what} is not an array"))?
        .iter()
        .map(|item| string(item, what))
        .collect()
}

fn count(value: &Json, what: &str) -> Result<usize, String> {
    match value {
        Json::Number(n) if *n >= 0.0 && n.fract() == 0.0 && *n <= u32::MAX as f64 => {
            Ok(*n as usize)
        }
        _ => Err(format!("{what} is not a count")),
    }
}
