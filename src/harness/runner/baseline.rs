//! Baselines of known failures, so that a port's CI fails only on new ones
//! (spec `runner.baseline`).
//!
//! A baseline file lists vector ids, one per line; `#` starts a comment
//! (whole line or after the id), and blank lines are ignored. Written by
//! `--write-baseline`, each id is followed by the first line of its failure
//! as a comment.

use super::report::BaselineSummary;
use super::vectors::Suite;
use super::Report;
use std::collections::BTreeSet;

/// The baseline of `report`: every failed vector id, with the first line of
/// its failure as a comment.
pub fn write(report: &Report) -> String {
    let mut text = String::from(
        "# Known failures: vector ids, one per line (dsh-session-reference conformance --baseline).\n",
    );
    for (result, detail) in report.failures() {
        let explanation = detail.explanation();
        let reason = explanation.lines().next().unwrap_or_default();
        text.push_str(&format!("{}  # {reason}\n", result.id));
    }
    text
}

/// The ids a baseline file lists, or what is wrong with a line.
pub fn parse(text: &str) -> Result<BTreeSet<String>, String> {
    let mut ids = BTreeSet::new();
    for (number, line) in text.lines().enumerate() {
        let content = line.split('#').next().unwrap_or_default().trim();
        if content.is_empty() {
            continue;
        }
        if content.contains(char::is_whitespace) {
            return Err(format!(
                "line {}: one vector id per line, found {content:?}",
                number + 1
            ));
        }
        ids.insert(content.to_owned());
    }
    Ok(ids)
}

/// How `report` compares with the `listed` ids: failures known and new,
/// listed vectors that passed, listed ids the suite does not have.
pub fn compare(report: &Report, suite: &Suite, listed: &BTreeSet<String>) -> BaselineSummary {
    let mut summary = BaselineSummary::default();
    for (result, _) in report.failures() {
        if listed.contains(&result.id) {
            summary.known.push(result.id.clone());
        } else {
            summary.new.push(result.id.clone());
        }
    }
    for result in &report.results {
        if matches!(result.status, super::Status::Passed) && listed.contains(&result.id) {
            summary.fixed.push(result.id.clone());
        }
    }
    summary.unknown = listed
        .iter()
        .filter(|id| {
            suite.find(id).is_none() && !suite.cost_vectors().any(|(_, cost)| cost.id == **id)
        })
        .cloned()
        .collect();
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_blank_lines_are_ignored() {
        let ids = parse("# header\n\na.b  # why\n  c.d\n").unwrap();
        assert_eq!(ids.into_iter().collect::<Vec<_>>(), ["a.b", "c.d"]);
        assert!(parse("a.b c.d\n").unwrap_err().contains("line 1"));
    }
}
