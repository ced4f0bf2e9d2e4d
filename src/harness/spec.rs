//! The specification's rules, embedded in the binary so that messages can
//! quote them (`show ID`) wherever the binary runs (spec
//! `conformance.rule-ids`).
//!
//! A rule is a line `r[rule.id]` in `spec/*.md`; its text is the block that
//! follows, up to the next blank line, rule or heading (`conformance.rule-ids`).
//! Lines are joined by spaces, except that each numbered step of an algorithm
//! (`1. …`) starts a line of its own.

use super::embedded::SPEC_FILES;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One rule of the specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// `uri.decode.canonical`
    pub id: String,
    /// The spec file it is in, such as `uri.md`.
    pub file: String,
    /// Its normative paragraph, lines joined by spaces.
    pub text: String,
    /// The sides of the boundary the rule draws between cases, from the
    /// paragraph's last line `Sides: \`a\`, \`b\`.` (spec
    /// `conformance.sides`); empty for a rule that draws none.
    pub sides: Vec<String>,
}

/// The rules written in one spec file, in order.
pub fn parse(file: &str, text: &str) -> Vec<Rule> {
    let mut rules: Vec<Rule> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(id) = line
            .strip_prefix("r[")
            .and_then(|rest| rest.strip_suffix(']'))
        {
            rules.push(Rule {
                id: id.to_owned(),
                file: file.to_owned(),
                text: String::new(),
                sides: Vec::new(),
            });
            open = true;
        } else if line.trim().is_empty() || line.starts_with('#') {
            open = false;
        } else if open {
            if let Some(rule) = rules.last_mut() {
                let line = line.trim();
                if let Some(list) = line.strip_prefix("Sides:") {
                    rule.sides = list
                        .trim()
                        .trim_end_matches('.')
                        .split(',')
                        .map(|side| side.trim().trim_matches('`').to_owned())
                        .filter(|side| !side.is_empty())
                        .collect();
                }
                if !rule.text.is_empty() {
                    rule.text.push(if is_step(line) { '\n' } else { ' ' });
                }
                rule.text.push_str(line);
            }
        }
    }
    rules
}

/// `line` (trimmed) opens a numbered step: digits, a dot, a space.
pub fn is_step(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(". ")
}

/// Every rule of the embedded specification, by id.
pub fn rules() -> &'static BTreeMap<String, Rule> {
    static RULES: OnceLock<BTreeMap<String, Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        SPEC_FILES
            .iter()
            .flat_map(|(file, text)| parse(file, text))
            .map(|rule| (rule.id.clone(), rule))
            .collect()
    })
}

/// The rule with this id in the embedded specification.
pub fn rule(id: &str) -> Option<&'static Rule> {
    rules().get(id)
}

/// The spec files whose rules the reference decides (spec
/// `runner.reach`): each such rule has a reach point, or is decided
/// in prose ([`decided_in_prose`]).
pub const REFERENCE_AREAS: &[&str] = &[
    "uri.md",
    "mention.md",
    "json.md",
    "surface.md",
    "projection.md",
    "retention.md",
    "config.md",
    "prepare.md",
    "pre-step.md",
    "candidates.md",
    "files.md",
    "wire.md",
];

/// The rules of the reference's areas decided in prose, with why: the
/// rows `` | `rule.id` | reason | `` of the table after the heading
/// `Rules decided in prose` in `conformance.md` (spec
/// `runner.reach`).
pub fn decided_in_prose() -> BTreeMap<&'static str, &'static str> {
    let text = SPEC_FILES
        .iter()
        .find(|(file, _)| *file == "conformance.md")
        .map_or("", |(_, text)| text);
    let Some(table) = text.split("Rules decided in prose").nth(1) else {
        return BTreeMap::new();
    };
    table
        .lines()
        .skip_while(|line| !line.starts_with('|'))
        .take_while(|line| line.starts_with('|'))
        .filter_map(|line| {
            let mut cells = line.trim_matches('|').split('|').map(str::trim);
            let id = cells.next()?.strip_prefix('`')?.strip_suffix('`')?;
            Some((id, cells.next()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_is_the_paragraph_after_its_id() {
        let text = "# Title\n\nr[a.b]\nFirst line\nsecond line.\n\nProse.\nr[a.c]\nOne.\n## Next\n";
        let rules = parse("x.md", text);
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].text, "First line second line.");
        assert_eq!(rules[1].id, "a.c");
        assert_eq!(rules[1].text, "One.");
        assert!(rules[0].sides.is_empty());
    }

    #[test]
    fn a_sides_line_names_the_sides_of_a_rule() {
        let text = "r[a.b]\nFits or not.\nSides: `fits`, `over`.\n";
        let rules = parse("x.md", text);
        assert_eq!(rules[0].sides, ["fits", "over"]);
        assert_eq!(rules[0].text, "Fits or not. Sides: `fits`, `over`.");
    }

    #[test]
    fn each_numbered_step_starts_a_line() {
        let text = "r[a.steps]\nTo scan:\n1. look\n   further;\n10. stop.\n";
        let rules = parse("x.md", text);
        assert_eq!(rules[0].text, "To scan:\n1. look further;\n10. stop.");
        assert!(!is_step("1.5 bytes"));
    }

    #[test]
    fn the_embedded_spec_has_its_rules() {
        let rule = rule("uri.scheme").expect("uri.scheme is embedded");
        assert_eq!(rule.file, "uri.md");
        assert!(rule.text.contains("dsh-session:"), "{}", rule.text);
        assert!(rules().len() > 100);
    }
}
