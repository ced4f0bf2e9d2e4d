//! The compliance page in Markdown (spec `runner.compliance-page`), for a
//! CI job summary: causes, areas, failing rules.

use super::matrix::Matrix;
use super::words::{cause_rules, no_causes, rules_count, show_command, vectors_count};
use std::fmt::Write as _;

impl Matrix {
    /// The condensed page in Markdown, for a CI job summary: each
    /// implementation's causes, then areas × implementations (each vector
    /// once), then each implementation's failing rules.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from(concat!(
            "## Compliance with the session-reference specification\n\n### Causes\n\n",
            "Each implementation's failed vectors grouped by cause, most vectors first; ",
            "the example is the cause's vector with the fewest input bytes.\n",
        ));
        self.markdown_causes(&mut out);
        out.push_str(concat!(
            "\n### Areas\n\n✓ every vector passed, ✗ some failed, – all skipped, · no vectors. ",
            "Each vector counts once, in the area of its first rule that is not `conformance.*`, ",
            "so each column's areas add up to its **all vectors** row.\n\n| area |",
        ));
        self.markdown_areas(&mut out);
        out.push_str(concat!(
            "\n\n### Failing rules\n\nThe rules cited by failed vectors, most failures first ",
            "(a vector citing several rules counts in each).\n\n",
        ));
        for (column, implementation) in self.implementations.iter().enumerate() {
            let rules = self.failing_rules(column);
            let listed = if rules.is_empty() {
                "none".to_owned()
            } else {
                rules
                    .iter()
                    .map(|(rule, failed)| format!("{} ({failed})", markdown_code(rule)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let name = markdown_text(&implementation.name);
            let _ = writeln!(out, "- **{name}**: {listed}");
        }
        out
    }

    /// Each implementation's causes, numbered, with their rules and example.
    fn markdown_causes(&self, out: &mut String) {
        for implementation in &self.implementations {
            let name = markdown_text(&implementation.name);
            if implementation.causes.is_empty() {
                let _ = writeln!(out, "\n**{name}**: {}.", no_causes(implementation));
                continue;
            }
            let _ = writeln!(
                out,
                "\n**{name}**: {} in {}:\n",
                vectors_count(implementation.failed, "failed vector"),
                vectors_count(implementation.causes.len(), "cause"),
            );
            for (number, cause) in implementation.causes.iter().enumerate() {
                let rules = cause_rules(&cause.rules, markdown_code);
                let _ = writeln!(
                    out,
                    "{}. {} ({}); rules: {rules}; example: {} ({})",
                    number + 1,
                    markdown_code(&cause.signature),
                    vectors_count(cause.count, "vector"),
                    markdown_code(&cause.example),
                    markdown_code(&show_command(&cause.example)),
                );
                if let Some(chain) = &cause.chain {
                    let _ = writeln!(out, "   probed: {}", markdown_code(chain));
                }
                if let Some(substitution) = &cause.substitution {
                    let _ = writeln!(out, "   substituted: {}", markdown_code(substitution));
                }
            }
        }
    }

    /// The areas table after its first header cell: a column per
    /// implementation, its totals, then a row per area.
    fn markdown_areas(&self, out: &mut String) {
        for implementation in &self.implementations {
            let _ = write!(out, " {} |", markdown_text(&implementation.name));
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(self.implementations.len()));
        out.push_str("\n| **all vectors** |");
        for implementation in &self.implementations {
            let _ = write!(out, " **{}** |", implementation.totals().label());
        }
        for area in &self.areas {
            let (name, rules) = (markdown_text(&area.name), rules_count(area.rules.len()));
            let _ = write!(out, "\n| {name} ({rules}) |");
            for cell in &area.cells {
                let _ = write!(out, " {} |", cell.counts.label());
            }
        }
    }
}

/// `text` shown literally in a Markdown table cell or list item.
fn markdown_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// `text` as a Markdown code span, backticks and all: the fence is one
/// backtick longer than the longest run of backticks in `text`, padded with
/// a space where `text` starts or ends with one (or with a space); line
/// breaks become spaces.
pub(super) fn markdown_code(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if longest > 0 && (text.starts_with('`') || text.ends_with('`')) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}
