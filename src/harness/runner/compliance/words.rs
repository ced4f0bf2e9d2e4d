//! The words the Markdown summary and the HTML page share: counts spelled
//! out, a cause's rules as listed, the command that shows a vector.

use super::matrix::Column;
use crate::harness::runner::report::shown_rules;

/// `1 rule`, `5 rules`.
pub(super) fn rules_count(count: usize) -> String {
    if count == 1 {
        "1 rule".to_owned()
    } else {
        format!("{count} rules")
    }
}

/// `1 vector`, `5 vectors` (`what` is the singular).
pub(super) fn vectors_count(count: usize, what: &str) -> String {
    if count == 1 {
        format!("1 {what}")
    } else {
        format!("{count} {what}s")
    }
}

/// The command that shows a vector.
pub(super) fn show_command(id: &str) -> String {
    format!("dsh-session-reference show {id}")
}

/// What an implementation without causes shows instead of their list:
/// `no failures`, or, for a report that lists failures but no causes,
/// how many.
pub(super) fn no_causes(implementation: &Column) -> String {
    if implementation.failed == 0 {
        "no failures".to_owned()
    } else {
        format!(
            "{}, no causes in the report",
            vectors_count(implementation.failed, "failed vector")
        )
    }
}

/// A cause's rules as listed ([`shown_rules`]), each as `name` writes it;
/// `none` when it cites none.
pub(super) fn cause_rules(rules: &[String], name: impl Fn(&str) -> String) -> String {
    if rules.is_empty() {
        return "none".to_owned();
    }
    shown_rules(rules, name).join(", ")
}
