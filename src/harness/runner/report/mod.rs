//! How a run is told: lines for a person, one JSON object for tools, JUnit
//! XML for CI dashboards (spec `runner.reports`).
//!
//! The JSON report is a set of typed structs serialized with serde_json;
//! its schema is `conformance/schema/report.schema.json`. Values that come
//! from the vectors or the wire (inputs, expected and actual outcomes) may
//! hold lone surrogates, which serde's strings cannot: they are written by
//! the exact JSON layer ([`json::to_ascii`](crate::js::json::to_ascii))
//! and embedded as raw JSON.
//!
//! Each output has its room: `human` (lines), `json` (the report's types),
//! `junit` (XML); `causes` groups a run's failures by cause for all three,
//! `rules` counts the rules they cite, and `hangs` what hangs cost.

mod causes;
mod hangs;
mod human;
mod json;
mod junit;
mod rules;
#[cfg(test)]
mod tests;

pub use causes::{causes, CauseCount};
pub use hangs::{hang_counts, hangs_lines, hung_vectors};
pub use human::{
    causes_block, failing_rules_line, failure_block, first_op_line, shown_path, shown_rules,
    skip_breakdown,
};
pub use json::{
    actual_json, raw, to_json, BaselineSummary, JsonCost, JsonDifference, JsonFailure, JsonPoint,
    JsonProbe, JsonReport, JsonResult, JsonSlow, JsonSummary, SkipCounts, Subject,
};
pub use junit::to_junit;
pub use rules::{failing_rules, is_behaviour_rule, RuleCount};
