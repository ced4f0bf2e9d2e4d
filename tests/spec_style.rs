//! The specification's style (spec/README.md, "Conventions"): normative text
//! only inside rules, informative notes and examples visibly apart, and each
//! algorithm written as numbered steps inside its rule (issue #14).

use dsh_session_reference::harness::spec;
use std::path::{Path, PathBuf};

/// The rules that state an algorithm; each must be written as numbered steps.
const ALGORITHMS: [&str; 9] = [
    "mention.parse.scan",
    "retention.drop",
    "retention.truncate-longest",
    "retention.cut-search",
    "retention.head-tail",
    "prepare.order",
    "pre-step.order",
    "candidates.rank",
    "candidates.fuzzy.score",
];

/// The normative documents: every `spec/*.md` but the index.
fn spec_files() -> Vec<(PathBuf, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("spec");
    let mut files: Vec<(PathBuf, String)> = std::fs::read_dir(&dir)
        .expect("spec/ exists")
        .map(|entry| entry.expect("readable").path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "md")
                && path.file_name().is_some_and(|name| name != "README.md")
        })
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("readable");
            (path, text)
        })
        .collect();
    files.sort();
    files
}

/// The blocks of a Markdown text: runs of non-blank lines, a fenced code
/// block being one block whatever it holds.
fn blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            current.push(line);
        } else if !fenced && line.trim().is_empty() {
            if !current.is_empty() {
                blocks.push(std::mem::take(&mut current));
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        blocks.push(current);
    }
    blocks
}

/// Every block of every normative document, as `(file, lines)`.
fn spec_blocks() -> Vec<(String, Vec<String>)> {
    spec_files()
        .iter()
        .flat_map(|(path, text)| {
            blocks(text).into_iter().map(move |block| {
                let lines = block.into_iter().map(str::to_owned).collect();
                (path.display().to_string(), lines)
            })
        })
        .collect()
}

/// Outside its rules, a document holds only headings, informative
/// blockquotes (`> **Note.**`, `> **Example.**`, `> **Decided by**`), tables
/// and code: a paragraph or a list there would be normative text without an
/// id.
#[test]
fn normative_text_is_inside_rules() {
    let mut stray = Vec::new();
    for (file, block) in spec_blocks() {
        let lines: Vec<&String> = block
            .iter()
            .skip_while(|line| line.starts_with('#'))
            .collect();
        let Some(first) = lines.first() else { continue };
        let informative = first.starts_with("r[")
            || first.starts_with("```")
            || lines.iter().all(|line| line.starts_with('>'))
            || lines.iter().all(|line| line.starts_with('|'));
        if !informative {
            stray.push(format!("{file}: {first}"));
        }
    }
    assert!(
        stray.is_empty(),
        "text outside any rule (make it a rule, or a `> **Note.**`):\n{}",
        stray.join("\n")
    );
}

/// Examples are informative: they follow their rule as a `> **Example.**`
/// block instead of sitting in its normative text.
#[test]
fn examples_stand_apart_from_rules() {
    let inside: Vec<&str> = spec::rules()
        .values()
        .filter(|rule| rule.text.contains("Example"))
        .map(|rule| rule.id.as_str())
        .collect();
    assert!(
        inside.is_empty(),
        "rules with an example inside: {inside:?}"
    );
}

/// Each informative blockquote says what it is.
#[test]
fn notes_are_labelled() {
    let unlabelled: Vec<String> = spec_blocks()
        .into_iter()
        .filter_map(|(file, block)| {
            let first = block.into_iter().next()?;
            let labelled = ["> **Note.**", "> **Example.**", "> **Decided by**"]
                .iter()
                .any(|label| first.starts_with(label));
            (first.starts_with('>') && !labelled).then(|| format!("{file}: {first}"))
        })
        .collect();
    assert!(
        unlabelled.is_empty(),
        "unlabelled blockquotes:\n{}",
        unlabelled.join("\n")
    );
}

/// The algorithms are numbered steps inside their rules.
#[test]
fn algorithms_are_numbered_steps() {
    for id in ALGORITHMS {
        let rule = spec::rule(id).unwrap_or_else(|| panic!("rule {id} exists"));
        assert!(
            rule.text.contains("\n1. ") && rule.text.contains("\n2. "),
            "{id} is not written as numbered steps: {}",
            rule.text
        );
    }
}
