//! The compliance page's tests (spec `runner.compliance-page`): counts,
//! areas and the order of the page, in HTML and Markdown, and the reader.

use super::markdown::markdown_code;
use super::matrix::OTHER_AREA;
use super::matrix::{first_area, Column, Counts, FailedVector, Matrix, VectorEntry, Verdict};
use super::reader::parse_report;
use crate::harness::runner::report::CauseCount;
use crate::js::json;

fn vector(id: &str, rules: &[&str], verdict: Verdict) -> VectorEntry {
    VectorEntry {
        id: id.to_owned(),
        op: "uri/decode".to_owned(),
        rules: rules.iter().map(|rule| (*rule).to_owned()).collect(),
        verdict,
        reason: None,
        failure: (verdict == Verdict::Failed).then(|| FailedVector {
            expected: "{}".to_owned(),
            actual: "{}".to_owned(),
            difference: "outcome at $".to_owned(),
            profile: None,
        }),
    }
}

fn cause(signature: &str, vectors: &[&str], rules: &[&str]) -> CauseCount {
    CauseCount {
        signature: signature.to_owned(),
        count: vectors.len(),
        ops: vec!["uri/decode".to_owned()],
        rules: rules.iter().map(|rule| (*rule).to_owned()).collect(),
        vectors: vectors.iter().map(|id| (*id).to_owned()).collect(),
        example: vectors[0].to_owned(),
        probe: None,
        chain: None,
        substitution: None,
    }
}

fn implementation(name: &str, vectors: Vec<VectorEntry>, causes: Vec<CauseCount>) -> Column {
    let count = |verdict| vectors.iter().filter(|v| v.verdict == verdict).count();
    Column {
        name: name.to_owned(),
        file: format!("{name}.json"),
        suite: "0.1.0".to_owned(),
        features: Vec::new(),
        capabilities: Vec::new(),
        passed: count(Verdict::Passed),
        failed: count(Verdict::Failed),
        skipped: count(Verdict::Skipped),
        vectors,
        causes,
    }
}

/// A port whose vectors cite rules of several areas, `conformance.*`
/// rules first, and a reference that passes them all.
fn matrix() -> Matrix {
    let vectors = |verdicts: [Verdict; 5]| {
        vec![
            vector(
                "a",
                &[
                    "conformance.depth",
                    "uri.decode.prefix",
                    "mention.format.form",
                ],
                verdicts[0],
            ),
            vector(
                "b",
                &["mention.format.form", "uri.decode.prefix"],
                verdicts[1],
            ),
            vector("c", &["conformance.depth"], verdicts[2]),
            vector("d", &["custom.rule", "uri.decode.error"], verdicts[3]),
            vector("e", &[], verdicts[4]),
        ]
    };
    use Verdict::*;
    Matrix::new(vec![
        implementation("reference", vectors([Passed; 5]), Vec::new()),
        implementation(
            "port",
            vectors([Failed, Failed, Skipped, Failed, Passed]),
            vec![
                cause(
                    "crash: <script>alert(1)</script> `x`",
                    &["a", "d"],
                    &[
                        "uri.decode.prefix",
                        "mention.format.form",
                        "custom.rule",
                        "uri.decode.error",
                        "uri.scheme",
                        "uri.encode.form",
                    ],
                ),
                CauseCount {
                    chain: Some(
                        "mention/format fails because uri/encode {\"sessionId\":\"<\"} answers \"x\" (expected \"y\")"
                            .to_owned(),
                    ),
                    ..cause("mention: whitespace trimmed at label", &["b"], &[])
                },
            ],
        ),
    ])
}

// runner.compliance-page
#[test]
fn a_vector_counts_in_the_area_of_its_first_behaviour_rule() {
    let rules = |ids: &[&str]| ids.iter().map(|id| (*id).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        first_area(&rules(&[
            "conformance.depth",
            "mention.format.form",
            "uri.decode.prefix"
        ])),
        "mention"
    );
    assert_eq!(first_area(&rules(&["conformance.depth"])), "conformance");
    assert_eq!(
        first_area(&rules(&["custom.rule", "uri.scheme"])),
        OTHER_AREA
    );
    assert_eq!(first_area(&[]), OTHER_AREA);
}

// runner.compliance-page
#[test]
fn each_implementations_areas_add_up_to_its_totals() {
    let matrix = matrix();
    let names: Vec<&str> = matrix.areas.iter().map(|area| area.name.as_str()).collect();
    assert_eq!(names, ["conformance", "mention", "uri", OTHER_AREA]);
    for (column, implementation) in matrix.implementations.iter().enumerate() {
        let mut sum = Counts::default();
        for area in &matrix.areas {
            let counts = area.cells[column].counts;
            sum.passed += counts.passed;
            sum.failed += counts.failed;
            sum.skipped += counts.skipped;
        }
        assert_eq!(sum, implementation.totals(), "{}", implementation.name);
    }
    let port = |area: &str| {
        let area = matrix.areas.iter().find(|a| a.name == area).unwrap();
        area.cells[1].counts
    };
    // a: uri (its conformance rule skipped over); b: mention; c: only a
    // conformance rule; d and e (no rules): other. uri's rules are cited
    // by b and d too, which count elsewhere.
    let counts = |passed, failed, skipped| Counts {
        passed,
        failed,
        skipped,
    };
    assert_eq!(port("uri"), counts(0, 1, 0));
    assert_eq!(port("mention"), counts(0, 1, 0));
    assert_eq!(port("conformance"), counts(0, 0, 1));
    assert_eq!(port(OTHER_AREA), counts(1, 1, 0));
    // A rule's row still counts every vector citing it.
    let prefix = matrix
        .areas
        .iter()
        .flat_map(|area| &area.rules)
        .find(|rule| rule.id == "uri.decode.prefix")
        .unwrap();
    assert_eq!(prefix.cells[1].counts, counts(0, 2, 0));
}

// runner.compliance-page
#[test]
fn the_page_opens_with_the_causes_escaped_then_the_areas_then_the_rules() {
    let html = matrix().to_html();
    let at = |needle: &str| {
        html.find(needle)
            .unwrap_or_else(|| panic!("no {needle} in the page"))
    };
    assert!(at("<h2 id=\"causes\">") < at("<h2 id=\"areas\">"));
    assert!(at("<h2 id=\"areas\">") < at("<h2 id=\"rules\">"));
    assert!(at("<h2 id=\"rules\">") < at("<h2 id=\"implementations\">"));
    assert!(at("data-implementation=\"reference\">\n<h3>reference</h3>") < at("<h2 id=\"areas\">"));
    assert!(html.contains("<h3>reference</h3>\n<p class=\"no-causes\">no failures</p>"));
    assert!(!html.contains("<script>"), "the signature is escaped");
    let first = at("crash: &lt;script&gt;alert(1)&lt;/script&gt; `x`");
    let second = at("mention: whitespace trimmed at label");
    assert!(first < second && second < at("<h2 id=\"areas\">"));
    assert!(html.contains("<span class=\"cause-count\">2 vectors</span>"));
    assert!(html.contains(
        "<code>custom.rule</code></a>, <a href=\"#rule-uri.decode.error\"><code>uri.decode.error</code></a>, and 2 more</dd>"
    ));
    assert!(html.contains("<dd class=\"cause-rules\">none</dd>"));
    assert!(html.contains("<code>dsh-session-reference show a</code>"));
    // runner.probes: a cause traced by probing shows its chain.
    assert!(html.contains(
        "<dt>probed</dt><dd class=\"cause-probe\"><code>mention/format fails because uri/encode {&quot;sessionId&quot;:&quot;&lt;&quot;} answers &quot;x&quot; (expected &quot;y&quot;)</code></dd>"
    ), "{html}");
    assert!(html.contains("id=\"rule-uri.decode.prefix\""));
}

// runner.compliance-page
#[test]
fn the_markdown_summary_opens_with_the_causes() {
    let markdown = matrix().to_markdown();
    let at = |needle: &str| {
        markdown
            .find(needle)
            .unwrap_or_else(|| panic!("no {needle} in {markdown}"))
    };
    assert!(at("### Causes") < at("**reference**: no failures."));
    assert!(at("**port**: 3 failed vectors in 2 causes:") < at("| area |"));
    assert!(markdown.contains(
        "1. `` crash: <script>alert(1)</script> `x` `` (2 vectors); rules: `uri.decode.prefix`, \
         `mention.format.form`, `custom.rule`, `uri.decode.error`, and 2 more; \
         example: `a` (`dsh-session-reference show a`)\n\
         2. `mention: whitespace trimmed at label` (1 vector); rules: none; \
         example: `b` (`dsh-session-reference show b`)\n   \
         probed: `mention/format fails because uri/encode {\"sessionId\":\"<\"} answers \"x\" (expected \"y\")`\n"
    ), "{markdown}");
    assert!(at("| area |") < at("### Failing rules"));
    assert!(
        markdown.contains("| conformance (1 rule) | ✓ 1 passed | – 1 skipped |"),
        "{markdown}"
    );
    // conformance.depth failed for the port, but says nothing about it.
    assert!(markdown.contains(
        "- **port**: `mention.format.form` (2), `uri.decode.prefix` (2), `custom.rule` (1), `uri.decode.error` (1)\n"
    ), "{markdown}");
}

#[test]
fn code_spans_hold_backticks() {
    assert_eq!(markdown_code("a.b"), "`a.b`");
    assert_eq!(markdown_code("a `b` c"), "``a `b` c``");
    assert_eq!(markdown_code("`b``"), "``` `b`` ```");
    assert_eq!(markdown_code("a\nb"), "`a b`");
}

// runner.compliance-page, runner.releases
#[test]
fn a_column_names_the_release_its_implementation_follows() {
    let report = |implementation: &str| {
        let text = format!(
            r#"{{"suite": {{"crateVersion": "0.1.0", "vectors": 0, "hash": "sha256:ab", "source": "embedded"}},
            "implementation": {implementation},
            "summary": {{"passed": 0, "failed": 0, "skipped": 0}}, "results": [], "causes": []}}"#
        );
        parse_report(&json::parse(&text).unwrap(), "r.json")
            .unwrap()
            .name
    };
    assert_eq!(
        report(
            r#"{"name": "port", "version": "2", "release": "0.1.0-rc.5", "features": [], "capabilities": []}"#
        ),
        "port 2, release 0.1.0-rc.5"
    );
    assert_eq!(
        report(r#"{"name": "port", "version": "2", "features": [], "capabilities": []}"#),
        "port 2"
    );
    assert_eq!(
        report(
            r#"{"profiles": [{"name": "ref (0.1.0-rc.7 profile)", "version": "1", "release": "0.1.0-rc.7", "features": [], "capabilities": []}]}"#
        ),
        "ref (0.1.0-rc.7 profile) 1"
    );
}

// runner.compliance-page
#[test]
fn a_report_without_causes_is_refused_and_causes_come_most_vectors_first() {
    let report = r#"{"suite": {"crateVersion": "0.1.0", "vectors": 0, "hash": "sha256:ab", "source": "embedded"},
        "implementation": {"name": "p", "version": "1", "features": [], "capabilities": []},
        "summary": {"passed": 0, "failed": 0, "skipped": 0}, "results": []CAUSES}"#;
    let parse = |causes: &str| {
        parse_report(
            &json::parse(&report.replace("CAUSES", causes)).unwrap(),
            "r.json",
        )
    };
    assert_eq!(parse("").unwrap_err(), "no member \"causes\"");
    assert_eq!(
        parse(r#", "causes": [{"signature": "s"}]"#).unwrap_err(),
        "causes[0]: no member \"count\""
    );
    let cause = |signature: &str, count: usize| {
        format!(
            r#"{{"signature": "{signature}", "count": {count}, "ops": [], "rules": [], "vectors": [], "example": "x"}}"#
        )
    };
    let parsed = parse(&format!(
        ", \"causes\": [{}, {}, {}]",
        cause("one", 1),
        cause("three", 3),
        cause("other one", 1)
    ))
    .unwrap();
    let order: Vec<&str> = parsed.causes.iter().map(|c| c.signature.as_str()).collect();
    assert_eq!(order, ["three", "one", "other one"]);
}
