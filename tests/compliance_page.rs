//! The compliance page and its Markdown summary, built from fixture reports
//! (`tests/fixtures/reports/`): the reference (two profiles, all passed), a
//! port with failures (one actual outcome holding `<script>`, one a lone
//! surrogate, one longer than an excerpt; three causes) and a second report
//! of the same port, whose columns must be told apart. One vector cites a
//! `conformance.*` rule first, then rules of two areas: it counts in one
//! area, that of its first behaviour rule.
//!
//! runner.compliance-page

use dsh_session_reference::harness::runner::compliance::{read_report, Matrix, OTHER_AREA};
use dsh_session_reference::js::json::{self, Json};
use scraper::{ElementRef, Html, Selector};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const REPORTS: [&str; 3] = ["reference", "port", "port-copy"];

/// The column names the page must show, in report order.
const NAMES: [&str; 3] = [
    "dsh-session-reference 0.1.0 (newest) + dsh-session-reference 0.1.0 (rc8)",
    "my-port 1.0.0 (port)",
    "my-port 1.0.0 (port-copy)",
];

fn report_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/reports")
        .join(format!("{name}.json"))
}

fn matrix() -> Matrix {
    Matrix::new(
        REPORTS
            .iter()
            .map(|name| read_report(&report_path(name)).expect("fixture report reads"))
            .collect(),
    )
}

/// Read independently of the page module: per report, per rule cited,
/// `[passed, failed, skipped]` of the vectors citing it, and the summary.
fn expected_counts(name: &str) -> (BTreeMap<String, [usize; 3]>, [usize; 3]) {
    let text = std::fs::read_to_string(report_path(name)).expect("readable");
    let report = json::parse(&text).expect("the exact parser reads lone surrogates");
    let mut rules: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for result in report.get("results").and_then(Json::as_array).unwrap() {
        let slot = match result.get("status").and_then(Json::as_string).as_deref() {
            Some("passed") => 0,
            Some("failed") => 1,
            _ => 2,
        };
        let cited: BTreeSet<String> = result
            .get("rules")
            .and_then(Json::as_array)
            .unwrap()
            .iter()
            .map(|rule| rule.as_string().unwrap())
            .collect();
        for rule in cited {
            rules.entry(rule).or_default()[slot] += 1;
        }
    }
    let summary = report.get("summary").unwrap();
    let number = |key: &str| match summary.get(key) {
        Some(Json::Number(n)) => *n as usize,
        other => panic!("summary.{key} is {other:?}"),
    };
    (
        rules,
        [number("passed"), number("failed"), number("skipped")],
    )
}

fn select(selector: &str) -> Selector {
    Selector::parse(selector).expect("a valid selector")
}

fn counts_of(cell: ElementRef) -> [usize; 3] {
    ["data-passed", "data-failed", "data-skipped"].map(|name| {
        cell.value()
            .attr(name)
            .unwrap_or_else(|| panic!("cell without {name}: {}", cell.html()))
            .parse()
            .expect("a count")
    })
}

fn text(element: ElementRef) -> String {
    element.text().collect()
}

fn sum(counts: impl Iterator<Item = [usize; 3]>) -> [usize; 3] {
    counts.fold([0; 3], |total, counts| {
        [0, 1, 2].map(|slot| total[slot] + counts[slot])
    })
}

#[test]
fn every_rule_and_implementation_is_on_the_page_with_the_reports_counts() {
    let page = Html::parse_document(&matrix().to_html());
    let headers: Vec<String> = page
        .select(&select(
            "table.matrix thead tr:first-child th[data-implementation]",
        ))
        .map(text)
        .collect();
    assert_eq!(headers, NAMES);
    for (report, name) in REPORTS.iter().zip(NAMES) {
        let (rules, summary) = expected_counts(report);
        for (rule, counts) in &rules {
            let row = page
                .select(&select(&format!("tr.rule[data-rule=\"{rule}\"]")))
                .next()
                .unwrap_or_else(|| panic!("no row for {rule}"));
            let cells: Vec<ElementRef> = row
                .select(&select(&format!("td[data-implementation=\"{name}\"]")))
                .collect();
            assert_eq!(cells.len(), 1, "{rule}, {name}");
            assert_eq!(counts_of(cells[0]), *counts, "{rule}, {name}");
        }
        let card = page
            .select(&select(&format!(
                "article.implementation[data-implementation=\"{name}\"]"
            )))
            .next()
            .unwrap_or_else(|| panic!("no summary of {name}"));
        let shown = ["passed", "failed", "skipped"].map(|what| {
            text(
                card.select(&select(&format!("dd[data-count=\"{what}\"]")))
                    .next()
                    .unwrap(),
            )
            .parse::<usize>()
            .unwrap()
        });
        assert_eq!(shown, summary, "{name}");
        let totals: Vec<[usize; 3]> = page
            .select(&select(&format!(
                "tr.totals td[data-implementation=\"{name}\"]"
            )))
            .map(counts_of)
            .collect();
        assert_eq!(totals, [summary, summary], "{name}: areas and rules");
        assert!(
            text(card).contains("0.1.0 (6 vectors, sha256:abab"),
            "{}",
            card.html()
        );
    }
    let rows = page.select(&select("tr.rule")).count();
    let all_rules: BTreeSet<String> = REPORTS
        .iter()
        .flat_map(|report| expected_counts(report).0.into_keys())
        .collect();
    assert_eq!(rows, all_rules.len());
    let port = page
        .select(&select(
            "article.implementation[data-implementation=\"my-port 1.0.0 (port)\"]",
        ))
        .next()
        .unwrap();
    assert!(text(port).contains("mention, uri"), "{}", port.html());
}

#[test]
fn rules_are_grouped_by_spec_area_and_areas_count_each_vector_once() {
    let page = Html::parse_document(&matrix().to_html());
    let areas: Vec<&str> = page
        .select(&select("tbody[data-area]"))
        .map(|area| area.value().attr("data-area").unwrap())
        .collect();
    assert_eq!(areas, ["conformance", "mention", "uri", OTHER_AREA]);
    let table: Vec<&str> = page
        .select(&select("table.areas tr.area-total"))
        .map(|area| area.value().attr("data-area").unwrap())
        .collect();
    assert_eq!(table, areas, "the areas table lists the same areas");
    let uri = page
        .select(&select("tbody[data-area=\"uri\"]"))
        .next()
        .unwrap();
    let uri_rules: Vec<&str> = uri
        .select(&select("tr.rule"))
        .map(|row| row.value().attr("data-rule").unwrap())
        .collect();
    assert!(uri_rules.iter().all(|rule| rule.starts_with("uri.")));
    // The port's uri vectors: one passed, one failed (citing two rules),
    // one skipped.
    let cell = uri
        .select(&select(
            "tr.area td[data-implementation=\"my-port 1.0.0 (port)\"]",
        ))
        .next()
        .unwrap();
    assert_eq!(counts_of(cell), [1, 1, 1]);
    let other = page
        .select(&select("tbody[data-area=\"other\"] tr.rule"))
        .next()
        .unwrap();
    assert_eq!(other.value().attr("data-rule"), Some("custom.not-in-spec"));
    // custom.extra cites conformance.depth, custom.not-in-spec and
    // uri.decode.error: it counts in other only, while each rule's row
    // counts it.
    let port = "td[data-implementation=\"my-port 1.0.0 (port)\"]";
    let area = |name: &str| {
        counts_of(
            page.select(&select(&format!(
                "table.areas tr[data-area=\"{name}\"] {port}"
            )))
            .next()
            .unwrap(),
        )
    };
    assert_eq!(area("conformance"), [0, 0, 0]);
    assert_eq!(area(OTHER_AREA), [0, 1, 0]);
    assert_eq!(area("uri"), [1, 1, 1]);
    let rule = |id: &str| {
        counts_of(
            page.select(&select(&format!("tr.rule[data-rule=\"{id}\"] {port}")))
                .next()
                .unwrap(),
        )
    };
    assert_eq!(rule("conformance.depth"), [0, 1, 0]);
    assert_eq!(rule("uri.decode.error"), [0, 2, 0]);
}

// runner.compliance-page
#[test]
fn each_implementations_areas_add_up_to_its_totals() {
    let page = Html::parse_document(&matrix().to_html());
    for (report, name) in REPORTS.iter().zip(NAMES) {
        let (_, summary) = expected_counts(report);
        let cell = format!("td[data-implementation=\"{name}\"]");
        for rows in ["table.areas tr.area-total", "table.matrix tr.area"] {
            let total = sum(page
                .select(&select(&format!("{rows} {cell}")))
                .map(counts_of));
            assert_eq!(total, summary, "{name}: {rows}");
        }
    }
}

/// Read independently of the page module: the report's causes, as
/// `(signature, count, rules, example)`.
fn expected_causes(name: &str) -> Vec<(String, usize, Vec<String>, String)> {
    let text = std::fs::read_to_string(report_path(name)).expect("readable");
    let report = json::parse(&text).expect("JSON");
    let string = |value: &Json, key: &str| value.get(key).and_then(Json::as_string).unwrap();
    report
        .get("causes")
        .and_then(Json::as_array)
        .unwrap()
        .iter()
        .map(|cause| {
            (
                string(cause, "signature"),
                match cause.get("count") {
                    Some(Json::Number(n)) => *n as usize,
                    other => panic!("count is {other:?}"),
                },
                cause
                    .get("rules")
                    .and_then(Json::as_array)
                    .unwrap()
                    .iter()
                    .map(|rule| rule.as_string().unwrap())
                    .collect(),
                string(cause, "example"),
            )
        })
        .collect()
}

// runner.compliance-page
#[test]
fn the_page_opens_with_each_implementations_causes_then_areas_then_rules() {
    let page = Html::parse_document(&matrix().to_html());
    let sections: Vec<&str> = page
        .select(&select("main > section > h2"))
        .map(|heading| heading.value().attr("id").unwrap())
        .collect();
    assert_eq!(sections, ["causes", "areas", "rules", "implementations"]);
    let blocks: Vec<&str> = page
        .select(&select(
            "section[aria-labelledby=\"causes\"] article.causes-of",
        ))
        .map(|block| block.value().attr("data-implementation").unwrap())
        .collect();
    assert_eq!(blocks, NAMES, "one block per column, named as the column");
    for (report, name) in REPORTS.iter().zip(NAMES) {
        let block = page
            .select(&select(&format!(
                "article.causes-of[data-implementation=\"{name}\"]"
            )))
            .next()
            .unwrap();
        let items: Vec<ElementRef> = block.select(&select("ol > li.cause")).collect();
        let causes = expected_causes(report);
        assert_eq!(items.len(), causes.len(), "{name}");
        if causes.is_empty() {
            assert_eq!(
                text(block.select(&select(".no-causes")).next().unwrap()),
                "no failures",
                "{name}"
            );
        }
        for (item, (signature, count, rules, example)) in items.iter().zip(&causes) {
            let shown = |selector: &str| text(item.select(&select(selector)).next().unwrap());
            assert_eq!(&shown(".signature"), signature);
            assert_eq!(item.value().attr("data-vectors"), Some(&*count.to_string()));
            let vectors = if *count == 1 { "vector" } else { "vectors" };
            assert_eq!(shown(".cause-count"), format!("{count} {vectors}"));
            assert_eq!(shown(".cause-rules"), rules.join(", "));
            assert_eq!(&shown(".cause-example"), example);
            assert_eq!(
                shown(".cause-command"),
                format!("dsh-session-reference show {example}")
            );
        }
    }
}

#[test]
fn failing_cells_expand_to_their_vectors_with_escaped_excerpts() {
    let html = matrix().to_html();
    let page = Html::parse_document(&html);
    assert_eq!(page.select(&select("script")).count(), 0, "nothing runs");
    for external in ["<link", "src=", "@import", "url(", "http://", "https://"] {
        assert!(!html.contains(external), "the page fetches {external}");
    }
    let failing = "td.fail[data-implementation=\"my-port 1.0.0 (port)\"] details";
    let cell = |rule: &str| {
        page.select(&select(&format!("tr[data-rule=\"{rule}\"] {failing}")))
            .next()
            .unwrap_or_else(|| panic!("{rule} does not expand"))
    };
    let decode = cell("uri.decode.prefix");
    assert!(text(decode).contains("<script>alert(1)</script>"));
    assert!(text(decode).contains("outcome at $"));
    let format = cell("mention.format.form");
    let vector = format
        .select(&select("li[data-vector=\"mention.format.basic\"]"))
        .next()
        .unwrap();
    let shown = text(vector);
    assert!(shown.contains("string at $.output, code unit 3"), "{shown}");
    assert!(
        shown.contains(r"[@a\ud800]"),
        "the lone surrogate is escaped: {shown}"
    );
    assert!(shown.contains("<b>&amp;</b>"), "{shown}");
    let long = text(cell("custom.not-in-spec"));
    assert!(
        long.contains("… (") && !long.contains(&"x".repeat(301)),
        "{long}"
    );
    // Every failed vector of the port is listed in each rule it cites.
    let listed = page
        .select(&select(&format!("{failing} li[data-vector]")))
        .count();
    assert_eq!(listed, 2 + 2 + 3);
    assert_eq!(
        page.select(&select("td[data-failed=\"0\"] details"))
            .count(),
        0
    );
}

// runner.compliance-page
#[test]
fn the_markdown_summary_opens_with_the_causes_then_areas_then_failing_rules() {
    let markdown = matrix().to_markdown();
    let at = |needle: &str| {
        markdown
            .find(needle)
            .unwrap_or_else(|| panic!("no {needle:?} in {markdown}"))
    };
    let causes = [
        "**dsh-session-reference 0.1.0 (newest) + dsh-session-reference 0.1.0 (rc8)**: no failures.\n",
        "**my-port 1.0.0 (port)**: 3 failed vectors in 3 causes:\n\n\
         1. `uri: output instead of error SESSION_REFERENCE_INVALID_REFERENCE` (1 vector); \
         rules: `uri.decode.prefix`, `uri.decode.error`; \
         example: `uri.decode.bad-prefix` (`dsh-session-reference show uri.decode.bad-prefix`)\n\
         2. `mention: lone surrogate replaced by U+FFFD at output` (1 vector); \
         rules: `mention.format.form`, `mention.format.escape`; \
         example: `mention.format.basic` (`dsh-session-reference show mention.format.basic`)\n\
         3. `other: text replaced by text at output` (1 vector); \
         rules: `custom.not-in-spec`, `uri.decode.error`; \
         example: `custom.extra` (`dsh-session-reference show custom.extra`)\n",
        "**my-port 1.0.0 (port-copy)**: no failures.\n",
    ];
    let mut last = at("### Causes");
    for cause in causes {
        let here = at(cause);
        assert!(last < here, "in column order: {cause}");
        last = here;
    }
    assert!(last < at("### Areas") && at("### Areas") < at("| area |"));
    assert!(at("| area |") < at("### Failing rules"));
    assert!(markdown.contains("each column's areas add up to its **all vectors** row."));
}

#[test]
fn the_markdown_summary_has_areas_by_implementation_and_failing_rules() {
    let markdown = matrix().to_markdown();
    let header = markdown
        .lines()
        .find(|line| line.starts_with("| area |"))
        .expect("a table");
    assert_eq!(
        header,
        "| area | dsh-session-reference 0.1.0 (newest) + dsh-session-reference 0.1.0 (rc8) | my-port 1.0.0 (port) | my-port 1.0.0 (port-copy) |"
    );
    assert!(
        markdown.contains("| **all vectors** | **✓ 6 passed** | **✗ 3 failed, 2 passed, 1 skipped** | **✓ 2 passed, 4 skipped** |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| uri (5 rules) | ✓ 3 passed | ✗ 1 failed, 1 passed, 1 skipped | ✓ 2 passed, 1 skipped |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| other (1 rule) | ✓ 1 passed | ✗ 1 failed | – 1 skipped |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| conformance (1 rule) | · no vectors | · no vectors | · no vectors |"),
        "{markdown}"
    );
    // As the report's failingRules: conformance.depth, cited by a failed
    // vector, is not one.
    assert!(markdown.contains(
        "- **my-port 1.0.0 (port)**: `uri.decode.error` (2), `custom.not-in-spec` (1), `mention.format.escape` (1), `mention.format.form` (1), `uri.decode.prefix` (1)\n"
    ), "{markdown}");
    assert!(markdown.contains("- **my-port 1.0.0 (port-copy)**: none"));
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args(args)
        .output()
        .expect("the binary runs")
}

#[test]
fn the_report_command_writes_both_files_and_refuses_bad_reports() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compliance_page");
    std::fs::create_dir_all(&dir).unwrap();
    let html = dir.join("page.html");
    let markdown = dir.join("page.md");
    let reports: Vec<String> = REPORTS
        .iter()
        .map(|name| report_path(name).display().to_string())
        .collect();
    let mut args = vec!["report"];
    args.extend(reports.iter().map(String::as_str));
    let html_arg = html.display().to_string();
    let markdown_arg = markdown.display().to_string();
    args.extend(["--html", &html_arg, "--markdown", &markdown_arg]);
    let output = run(&args);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(std::fs::read_to_string(&html).unwrap(), matrix().to_html());
    assert_eq!(
        std::fs::read_to_string(&markdown).unwrap(),
        matrix().to_markdown()
    );

    let missing = dir.join("missing.json").display().to_string();
    let output = run(&["report", &missing, "--html", &html_arg]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("missing.json") && stderr.contains("cannot read"),
        "{stderr}"
    );

    let port = std::fs::read_to_string(report_path("port")).unwrap();
    let causes = port.find("\"causes\": [").unwrap();
    let results = port.find("\"results\": [").unwrap();
    // runner.compliance-page: a report without causes (written before
    // they were) stops the command.
    let without_causes = format!("{}{}", &port[..causes], &port[results..]);
    let cause_without_example = port.replacen(", \"example\": \"uri.decode.bad-prefix\"", "", 1);
    for (name, text, problem) in [
        ("not-json.json", "{\"suite\":", "not JSON"),
        ("empty.json", "{}", "no member \"suite\""),
        ("no-causes.json", &without_causes, "no member \"causes\""),
        (
            "cause-without-example.json",
            &cause_without_example,
            "causes[0]: no member \"example\"",
        ),
        (
            "bad-status.json",
            &std::fs::read_to_string(report_path("port"))
                .unwrap()
                .replacen("\"status\": \"passed\"", "\"status\": \"won\"", 1),
            "results[0]: unknown status \"won\"",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let output = run(&["report", &path.display().to_string(), "--html", &html_arg]);
        assert_eq!(output.status.code(), Some(2), "{name}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(name) && stderr.contains(problem),
            "{name}: {stderr}"
        );
    }
}
