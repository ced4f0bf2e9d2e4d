//! The human report's lines (spec `runner.reports`): a block per failure
//! as it comes, then the skips by reason, the op to implement first, the
//! failing rules and the causes.

use super::causes::CauseCount;
use super::rules::failing_rules;
use crate::harness::runner::{ops, FailureDetail, Report, Status, VectorResult};
use crate::js::json;
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
            Status::SkippedUnsupported => result.op.clone(),
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

/// How many rules a cause lists in the human report and on the
/// compliance page.
const CAUSE_RULES_SHOWN: usize = 4;

/// A cause's first four rules, each as `name` writes it, then how many
/// more (`and 3 more`).
pub fn shown_rules(rules: &[String], name: impl Fn(&str) -> String) -> Vec<String> {
    let mut shown: Vec<String> = rules
        .iter()
        .take(CAUSE_RULES_SHOWN)
        .map(|rule| name(rule))
        .collect();
    if rules.len() > CAUSE_RULES_SHOWN {
        shown.push(format!("and {} more", rules.len() - CAUSE_RULES_SHOWN));
    }
    shown
}

/// The human report's closing block on a run's causes ([`CauseCount`]s):
/// `causes (most vectors first): N`, then one entry per cause with its
/// count, ops, rules and smallest vector, and the command that shows it.
pub fn causes_block(causes: &[CauseCount]) -> Option<String> {
    if causes.is_empty() {
        return None;
    }
    let mut block = format!("causes (most vectors first): {}", causes.len());
    for (number, cause) in causes.iter().enumerate() {
        block.push_str(&format!(
            "\n  {}. {} ({} {})\n     ops: {}; rules: {}\n     smallest: {} (dsh-session-reference show {})",
            number + 1,
            cause.signature,
            cause.count,
            if cause.count == 1 { "vector" } else { "vectors" },
            cause.ops.join(", "),
            shown_rules(&cause.rules, str::to_owned).join(", "),
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
