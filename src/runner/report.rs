//! How a run is told: lines for a person, one JSON object for tools, JUnit
//! XML for CI dashboards (spec `runner.reports`).

use super::{Report, Status, VectorResult};
use crate::js::json::{self, Json};
use crate::js::JsString;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// A path shown relative to `base` when it is below it.
pub fn shown_path(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The block a person reads for one failed vector: id, file, op, rules,
/// then the explanation, indented.
pub fn failure_block(result: &VectorResult, detail: &str, base: &Path) -> String {
    format!(
        "FAIL {} ({})\n  op: {}; rules: {}\n  {detail}",
        result.id,
        shown_path(&result.file, base),
        result.op,
        result.rules.join(", ")
    )
}

/// Skipped vectors by reason, each with what they had in common (the
/// features for feature skips, the ops for `UNSUPPORTED`), or `None` when
/// nothing was skipped: `skipped: 140 feature not declared (candidates-v2:
/// 110, …); 20 answered UNSUPPORTED (mention/parse: 20)`.
pub fn skip_breakdown(report: &Report) -> Option<String> {
    let mut reasons: BTreeMap<&'static str, BTreeMap<String, usize>> = BTreeMap::new();
    for result in &report.results {
        let Some(reason) = result.status.skip_reason() else {
            continue;
        };
        let key = match result.status {
            Status::SkippedUnsupported => result.op.clone(),
            Status::SkippedFilter | Status::SkippedNotSelected => String::new(),
            _ => result.features.join(" or "),
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

fn status_word(status: &Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed(_) => "failed",
        _ => "skipped",
    }
}

/// The whole run as one JSON object: `{implementation, summary: {passed,
/// failed, skipped}, skipped: {feature, notSelected, unsupported, filter},
/// results: [{id, file, op, status, reason?, detail?, seconds}]}`.
pub fn to_json(report: &Report, implementation: Json, base: &Path) -> Json {
    let count = |n: usize| Json::Number(n as f64);
    let results = report
        .results
        .iter()
        .map(|result| {
            let mut members = vec![
                (JsString::from("id"), Json::str(&result.id)),
                (
                    JsString::from("file"),
                    Json::str(&shown_path(&result.file, base)),
                ),
                (JsString::from("op"), Json::str(&result.op)),
                (
                    JsString::from("status"),
                    Json::str(status_word(&result.status)),
                ),
            ];
            if let Some(reason) = result.status.skip_reason() {
                members.push((JsString::from("reason"), Json::str(reason)));
            }
            if let Status::Failed(detail) = &result.status {
                members.push((JsString::from("detail"), Json::str(detail)));
            }
            members.push((
                JsString::from("seconds"),
                Json::Number(result.duration.as_secs_f64()),
            ));
            Json::Object(members)
        })
        .collect();
    Json::object([
        ("implementation", implementation),
        (
            "summary",
            Json::object([
                ("passed", count(report.passed())),
                ("failed", count(report.failed())),
                ("skipped", count(report.skipped())),
            ]),
        ),
        (
            "skipped",
            Json::object([
                ("feature", count(report.count_of(&Status::SkippedFeature))),
                (
                    "notSelected",
                    count(report.count_of(&Status::SkippedNotSelected)),
                ),
                (
                    "unsupported",
                    count(report.count_of(&Status::SkippedUnsupported)),
                ),
                ("filter", count(report.count_of(&Status::SkippedFilter))),
            ]),
        ),
        ("results", Json::Array(results)),
    ])
}

/// The run as JUnit XML: one `testsuite` per vector file (named by its
/// area and file), one `testcase` per vector, `failure` with the
/// explanation, `skipped` with the reason.
pub fn to_junit(report: &Report, name: &str, base: &Path) -> String {
    let mut files: Vec<(String, Vec<&VectorResult>)> = Vec::new();
    for result in &report.results {
        let file = shown_path(&result.file, base);
        match files.last_mut() {
            Some((last, results)) if *last == file => results.push(result),
            _ => files.push((file, vec![result])),
        }
    }
    let total_seconds: f64 = report
        .results
        .iter()
        .map(|r| r.duration.as_secs_f64())
        .sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{total_seconds:.6}\">",
        xml(name),
        report.results.len(),
        report.failed(),
        report.skipped()
    );
    for (file, results) in &files {
        let suite_name = suite_name(file);
        let failures = results
            .iter()
            .filter(|r| matches!(r.status, Status::Failed(_)))
            .count();
        let skipped = results
            .iter()
            .filter(|r| r.status.skip_reason().is_some())
            .count();
        let seconds: f64 = results.iter().map(|r| r.duration.as_secs_f64()).sum();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" file=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\" time=\"{seconds:.6}\">",
            xml(&suite_name),
            xml(file),
            results.len()
        );
        for result in results {
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" time=\"{:.6}\"",
                xml(&result.id),
                xml(&suite_name),
                xml(file),
                result.duration.as_secs_f64()
            );
            match &result.status {
                Status::Passed => out.push_str("/>\n"),
                Status::Failed(detail) => {
                    let first_line = detail.lines().next().unwrap_or_default();
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{}\">rules: {}\n{}</failure>\n    </testcase>",
                        xml(first_line),
                        xml(&result.rules.join(", ")),
                        xml(detail)
                    );
                }
                other => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        xml(other.skip_reason().unwrap_or_default())
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
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

/// Text escaped for an XML attribute or element; characters XML 1.0 cannot
/// hold at all (most controls) are written as `\uXXXX` text.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\t' | '\r' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            _ => out.push(c),
        }
    }
    out
}

/// The report as one line of JSON text (for `--format json`).
pub fn json_text(report: &Report, implementation: Json, base: &Path) -> String {
    json::to_wire(&to_json(report, implementation, base))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;
    use std::time::Duration;

    fn result(id: &str, status: Status) -> VectorResult {
        VectorResult {
            id: id.to_owned(),
            file: PathBuf::from("/suite/uri/decode.json"),
            op: "uri/decode".to_owned(),
            rules: vec!["uri.decode.canonical".to_owned()],
            features: vec!["uri".to_owned()],
            status,
            duration: Duration::from_millis(2),
        }
    }

    fn report() -> Report {
        Report {
            results: vec![
                result("uri.decode.a", Status::Passed),
                result(
                    "uri.decode.b",
                    Status::Failed("expected: \"<a>\"\n  actual:   \"\u{1}\"".to_owned()),
                ),
                result("uri.decode.c", Status::SkippedUnsupported),
                result("uri.decode.d", Status::SkippedFeature),
            ],
        }
    }

    #[test]
    fn junit_escapes_markup_and_controls_and_counts() {
        // runner.reports
        let xml = to_junit(&report(), "conformance", Path::new("/suite"));
        assert!(
            xml.contains("tests=\"4\" failures=\"1\" skipped=\"2\""),
            "{xml}"
        );
        assert!(
            xml.contains("<testsuite name=\"uri.decode\" file=\"uri/decode.json\""),
            "{xml}"
        );
        assert!(xml.contains("&quot;&lt;a&gt;&quot;"), "{xml}");
        assert!(xml.contains("\\u0001"), "{xml}");
        assert!(!xml.contains('\u{1}'));
        assert!(
            xml.contains("<skipped message=\"answered UNSUPPORTED\"/>"),
            "{xml}"
        );
        assert_eq!(xml.matches("<testcase ").count(), 4);
    }

    #[test]
    fn json_report_counts_each_skip_reason() {
        // runner.reports, runner.selection (skip reasons)
        let json = to_json(&report(), Json::Null, Path::new("/suite"));
        let wire = json::to_wire(&json);
        assert!(
            wire.contains(r#""summary":{"passed":1,"failed":1,"skipped":2}"#),
            "{wire}"
        );
        assert!(
            wire.contains(r#""skipped":{"feature":1,"notSelected":0,"unsupported":1,"filter":0}"#),
            "{wire}"
        );
        assert!(wire.contains(r#""file":"uri/decode.json""#), "{wire}");
    }

    #[test]
    fn skip_breakdown_names_features_and_ops() {
        assert_eq!(
            skip_breakdown(&report()).as_deref(),
            Some(
                "skipped: 1 answered UNSUPPORTED (uri/decode: 1); 1 feature not declared (uri: 1)"
            )
        );
        assert_eq!(skip_breakdown(&Report::default()), None);
    }
}
