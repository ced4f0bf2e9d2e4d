//! The rules a run's failures cite (spec `runner.reports`): counted for the
//! human report's closing line and the JSON report's `failingRules`.

use crate::harness::runner::Report;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// A rule and how many failed vectors cite it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RuleCount {
    /// The rule id.
    pub rule: String,
    /// Failed vectors citing it.
    pub count: usize,
}
