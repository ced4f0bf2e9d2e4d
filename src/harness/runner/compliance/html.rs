//! The compliance page as one self-contained HTML document (spec
//! `runner.compliance-page`): inline CSS, no script, nothing fetched.

use super::matrix::{Column, Counts, Matrix, VectorEntry};
use super::words::{cause_rules, no_causes, rules_count, show_command, vectors_count};
use std::fmt::Write as _;

/// How many characters of an expected or actual outcome a failing cell shows.
const EXCERPT_CHARS: usize = 300;

/// How many characters of a rule's text its row shows.
const RULE_TEXT_CHARS: usize = 90;

impl Matrix {
    /// The page as one self-contained HTML document: inline CSS, no script,
    /// nothing fetched. It opens with each implementation's causes
    /// (`section#causes`), then the areas table (`section#areas`, each
    /// vector once), then the rules (`section#rules`, areas and their
    /// rules), then the implementations' cards. Symbols and words as well
    /// as colours; failing cells expand (`<details>`) to their vectors.
    /// Every cell carries its counts as `data-passed`, `data-failed` and
    /// `data-skipped`, every row its `data-rule` or `data-area`, every
    /// column's cells and every cause block `data-implementation`.
    pub fn to_html(&self) -> String {
        let mut out = String::from(concat!(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
            "<title>Session references: compliance</title>\n<style>\n",
        ));
        out.push_str(STYLE);
        out.push_str("</style>\n</head>\n<body>\n<header>\n");
        out.push_str("<h1>Compliance with the session-reference specification</h1>\n");
        let rules: usize = self.areas.iter().map(|area| area.rules.len()).sum();
        let _ = writeln!(
            out,
            "<p>{} implementations, {rules} rules in {} areas. First each implementation's causes of failure, \
             then the areas (each vector counted once), then the rules (a vector counted under every rule \
             it cites), then the implementations.</p>",
            self.implementations.len(),
            self.areas.len()
        );
        out.push_str(concat!(
            "<p class=\"legend\"><span class=\"pass\">✓ pass</span> every vector passed · ",
            "<span class=\"fail\">✗ fail</span> some failed (open the cell for the vectors) · ",
            "<span class=\"skip\">– skip</span> all skipped · ",
            "<span class=\"none\">· none</span> no vectors</p>\n</header>\n<main>\n",
        ));
        self.html_causes(&mut out);
        self.html_areas(&mut out);
        self.html_matrix(&mut out);
        self.html_implementations(&mut out);
        let files: Vec<String> = self
            .implementations
            .iter()
            .map(|implementation| format!("<code>{}</code>", escape(&implementation.file)))
            .collect();
        let _ = write!(
            out,
            "</main>\n<footer><p>Made by dsh-session-reference {} <code>report</code> from {}.</p></footer>\n</body>\n</html>\n",
            env!("CARGO_PKG_VERSION"),
            files.join(", ")
        );
        out
    }

    fn html_causes(&self, out: &mut String) {
        out.push_str(
            "<section aria-labelledby=\"causes\">\n<h2 id=\"causes\">Causes</h2>\n\
             <p>Each implementation's failed vectors grouped by cause, most vectors first; \
             the example is the cause's vector with the fewest input bytes.</p>\n<div class=\"causes\">\n",
        );
        for implementation in &self.implementations {
            let totals = implementation.totals();
            let (_, word) = totals.symbol();
            let _ = write!(
                out,
                "<article class=\"causes-of state-{word}\" data-implementation=\"{name}\">\n<h3>{name}</h3>\n",
                name = escape(&implementation.name),
            );
            if implementation.causes.is_empty() {
                let _ = writeln!(
                    out,
                    "<p class=\"no-causes\">{}</p>\n</article>",
                    escape(&no_causes(implementation))
                );
                continue;
            }
            let _ = writeln!(
                out,
                "<p class=\"total\">{} in {}</p>\n<ol class=\"cause-list\">",
                vectors_count(implementation.failed, "failed vector"),
                vectors_count(implementation.causes.len(), "cause"),
            );
            for cause in &implementation.causes {
                let rules = cause_rules(&cause.rules, |rule| {
                    format!("<a href=\"#rule-{0}\"><code>{0}</code></a>", escape(rule))
                });
                let _ = writeln!(
                    out,
                    "<li class=\"cause\" data-vectors=\"{count}\"><p class=\"cause-head\"><code class=\"signature\">{signature}</code> \
                     <span class=\"cause-count\">{vectors}</span></p>\n<dl>\n\
                     <dt>rules</dt><dd class=\"cause-rules\">{rules}</dd>\n\
                     <dt>example</dt><dd class=\"cause-example\" data-vector=\"{example}\"><code>{example}</code></dd>\n\
                     <dt>show it</dt><dd class=\"cause-command\"><code>{command}</code></dd>\n{probed}{substituted}</dl></li>",
                    probed = cause.chain.as_ref().map_or(String::new(), |chain| format!(
                        "<dt>probed</dt><dd class=\"cause-probe\"><code>{}</code></dd>\n",
                        escape(chain)
                    )),
                    substituted = cause.substitution.as_ref().map_or(String::new(), |substitution| format!(
                        "<dt>substituted</dt><dd class=\"cause-substitution\">{}</dd>\n",
                        escape(substitution)
                    )),
                    count = cause.count,
                    signature = escape(&cause.signature),
                    vectors = vectors_count(cause.count, "vector"),
                    example = escape(&cause.example),
                    command = escape(&show_command(&cause.example)),
                );
            }
            out.push_str("</ol>\n</article>\n");
        }
        out.push_str("</div>\n</section>\n");
    }

    /// One counts cell per implementation, in column order.
    fn count_cells(&self, out: &mut String, counts: impl Iterator<Item = Counts>) {
        for (implementation, counts) in self.implementations.iter().zip(counts) {
            cell_open(out, &implementation.name, &counts);
            out.push_str(&cell_label(&counts));
            out.push_str("</td>");
        }
    }

    /// The implementations' column headers.
    fn column_headers(&self, out: &mut String) {
        for implementation in &self.implementations {
            let _ = write!(
                out,
                "<th scope=\"col\" data-implementation=\"{0}\">{0}</th>",
                escape(&implementation.name)
            );
        }
    }

    fn html_areas(&self, out: &mut String) {
        out.push_str(
            "<section aria-labelledby=\"areas\">\n<h2 id=\"areas\">Areas</h2>\n\
             <p>Each vector counts once, in the area of its first rule that is not <code>conformance.*</code>, \
             so each column's areas add up to its <em>all vectors</em> row.</p>\n\
             <div class=\"scroll\" role=\"region\" aria-label=\"Areas by implementation\" tabindex=\"0\">\n\
             <table class=\"areas\">\n<thead>\n<tr><th scope=\"col\">area</th>",
        );
        self.column_headers(out);
        out.push_str("</tr>\n</thead>\n<tbody>\n");
        for area in &self.areas {
            let _ = write!(
                out,
                "<tr class=\"area-total\" data-area=\"{0}\"><th scope=\"row\"><a href=\"#area-{0}\">{0}</a> \
                 <span class=\"rules-count\">({1})</span></th>",
                escape(&area.name),
                rules_count(area.rules.len())
            );
            self.count_cells(out, area.cells.iter().map(|cell| cell.counts));
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody>\n<tfoot>\n<tr class=\"totals\"><th scope=\"row\">all vectors</th>");
        self.count_cells(out, self.implementations.iter().map(Column::totals));
        out.push_str("</tr>\n</tfoot>\n</table>\n</div>\n</section>\n");
    }

    fn html_implementations(&self, out: &mut String) {
        out.push_str(
            "<section aria-labelledby=\"implementations\">\n\
             <h2 id=\"implementations\">Implementations</h2>\n<div class=\"cards\">\n",
        );
        for implementation in &self.implementations {
            let list = |items: &[String]| {
                if items.is_empty() {
                    "none".to_owned()
                } else {
                    escape(&items.join(", "))
                }
            };
            let totals = implementation.totals();
            let (_, word) = totals.symbol();
            let _ = writeln!(
                out,
                "<article class=\"implementation state-{word}\" data-implementation=\"{name}\">\n\
                 <h3>{name}</h3>\n<p class=\"total\">{label}</p>\n<dl>\n\
                 <dt>suite</dt><dd>{suite}</dd>\n\
                 <dt>features</dt><dd>{features}</dd>\n\
                 <dt>capabilities</dt><dd>{capabilities}</dd>\n\
                 <dt>passed</dt><dd data-count=\"passed\">{passed}</dd>\n\
                 <dt>failed</dt><dd data-count=\"failed\">{failed}</dd>\n\
                 <dt>skipped</dt><dd data-count=\"skipped\">{skipped}</dd>\n\
                 <dt>report</dt><dd><code>{file}</code></dd>\n</dl>\n</article>",
                name = escape(&implementation.name),
                label = escape(&totals.label()),
                suite = escape(&implementation.suite),
                features = list(&implementation.features),
                capabilities = list(&implementation.capabilities),
                passed = implementation.passed,
                failed = implementation.failed,
                skipped = implementation.skipped,
                file = escape(&implementation.file),
            );
        }
        out.push_str("</div>\n</section>\n");
    }

    fn html_matrix(&self, out: &mut String) {
        out.push_str(
            "<section aria-labelledby=\"rules\">\n<h2 id=\"rules\">Rules</h2>\n\
             <p>Each cell counts the vectors citing the rule (a vector citing several rules counts in each); \
             an area's row counts each vector once, as in the areas table.</p>\n\
             <div class=\"scroll\" role=\"region\" aria-label=\"Rules by implementation\" tabindex=\"0\">\n\
             <table class=\"matrix\">\n<thead>\n<tr><th scope=\"col\">rule</th>",
        );
        self.column_headers(out);
        out.push_str("</tr>\n<tr class=\"totals\"><th scope=\"row\">all vectors</th>");
        self.count_cells(out, self.implementations.iter().map(Column::totals));
        out.push_str("</tr>\n</thead>\n");
        for area in &self.areas {
            let _ = write!(
                out,
                "<tbody data-area=\"{0}\">\n<tr class=\"area\" data-area=\"{0}\"><th scope=\"rowgroup\" id=\"area-{0}\">{0} <span class=\"rules-count\">({1})</span></th>",
                escape(&area.name),
                rules_count(area.rules.len())
            );
            self.count_cells(out, area.cells.iter().map(|cell| cell.counts));
            out.push_str("</tr>\n");
            for rule in &area.rules {
                let _ = write!(
                    out,
                    "<tr class=\"rule\" data-rule=\"{0}\" id=\"rule-{0}\"><th scope=\"row\"><code>{1}</code>",
                    escape(&rule.id),
                    escape(&rule.id).replace('.', ".<wbr>")
                );
                if let Some(text) = &rule.text {
                    let _ = write!(
                        out,
                        "<span class=\"rule-text\">{}</span>",
                        escape(&shortened(text, RULE_TEXT_CHARS))
                    );
                }
                out.push_str("</th>");
                for (implementation, cell) in self.implementations.iter().zip(&rule.cells) {
                    cell_open(out, &implementation.name, &cell.counts);
                    if cell.failures.is_empty() {
                        out.push_str(&cell_label(&cell.counts));
                    } else {
                        let _ = write!(
                            out,
                            "<details><summary>{}</summary>\n<ol class=\"failures\">\n",
                            cell_label(&cell.counts)
                        );
                        for index in &cell.failures {
                            failure_item(out, &implementation.vectors[*index]);
                        }
                        out.push_str("</ol>\n</details>");
                    }
                    out.push_str("</td>");
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</tbody>\n");
        }
        out.push_str("</table>\n</div>\n</section>\n");
    }
}

/// `<td …>` of a cell with these counts.
fn cell_open(out: &mut String, implementation: &str, counts: &Counts) {
    let (_, word) = counts.symbol();
    let _ = write!(
        out,
        "<td class=\"{word}\" data-implementation=\"{}\" data-passed=\"{}\" data-failed=\"{}\" data-skipped=\"{}\">",
        escape(implementation),
        counts.passed,
        counts.failed,
        counts.skipped
    );
}

/// A cell's counts, each with its symbol (`✗ 2 failed · ✓ 5 passed`); on
/// narrow screens the words are hidden from sight but not from screen
/// readers.
fn cell_label(counts: &Counts) -> String {
    let parts: Vec<String> = [
        (counts.failed, "✗", "failed", "fail"),
        (counts.passed, "✓", "passed", "pass"),
        (counts.skipped, "–", "skipped", "skip"),
    ]
    .iter()
    .filter(|(count, ..)| *count > 0)
    .map(|(count, symbol, what, class)| {
        format!(
            "<span class=\"count {class}\"><span class=\"symbol\" aria-hidden=\"true\">{symbol}</span> {count}<span class=\"word\"> {what}</span></span>"
        )
    })
    .collect();
    if parts.is_empty() {
        "<span class=\"count none\"><span class=\"symbol\" aria-hidden=\"true\">·</span><span class=\"word\"> no vectors</span></span>".to_owned()
    } else {
        parts.join(" · ")
    }
}

/// One failed vector in an expanded cell.
fn failure_item(out: &mut String, vector: &VectorEntry) {
    let _ = write!(
        out,
        "<li data-vector=\"{0}\"><code>{0}</code> <span class=\"op\">{1}</span>",
        escape(&vector.id),
        escape(&vector.op)
    );
    if let Some(failure) = &vector.failure {
        if let Some(profile) = &failure.profile {
            let _ = write!(
                out,
                " <span class=\"profile\">profile {}</span>",
                escape(profile)
            );
        }
        let _ = write!(
            out,
            "\n<dl>\n<dt>difference</dt><dd>{}</dd>\n<dt>expected</dt><dd><pre>{}</pre></dd>\n<dt>actual</dt><dd><pre>{}</pre></dd>\n</dl>",
            escape(&failure.difference),
            escape(&excerpt(&failure.expected, EXCERPT_CHARS)),
            escape(&excerpt(&failure.actual, EXCERPT_CHARS)),
        );
    }
    out.push_str("</li>\n");
}

/// `text` cut to `limit` characters, saying how long it was.
pub fn excerpt(text: &str, limit: usize) -> String {
    let length = text.chars().count();
    if length <= limit {
        text.to_owned()
    } else {
        format!("{} ({length} characters)", shortened(text, limit))
    }
}

/// `text` cut to `limit` characters, `…` marking the cut.
fn shortened(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(limit).collect();
        format!("{}…", cut.trim_end())
    }
}

/// `text` safe in HTML content and in quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page's style: a block per implementation for its causes, scrollable
/// tables with a sticky first column, cards for the implementations, and on
/// narrow screens the cells' words hidden (the symbols and counts stay).
const STYLE: &str = r#":root { color-scheme: light; --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #b3261e; --fail-bg: #ffebe9; --skip: #57606a; --skip-bg: #f2f4f6; --line: #d0d7de; }
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328; background: #fff; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; }
.legend span { font-weight: 600; padding: 0 .3em; border-radius: 3px; }
.pass { color: var(--pass); } .fail { color: var(--fail); } .skip, .none { color: var(--skip); }
td.pass { background: var(--pass-bg); } td.fail { background: var(--fail-bg); } td.skip, td.none { background: var(--skip-bg); }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); gap: .75rem; }
.implementation { border: 1px solid var(--line); border-left: 6px solid var(--skip); border-radius: 6px; padding: .75rem; }
.implementation.state-pass { border-left-color: var(--pass); } .implementation.state-fail { border-left-color: var(--fail); }
.state-pass .total { color: var(--pass); } .state-fail .total { color: var(--fail); }
.implementation .total { margin: 0 0 .5rem; font-weight: 600; }
.implementation dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .75rem; margin: 0; font-size: .9em; }
.implementation dt { color: #57606a; } .implementation dd { margin: 0; overflow-wrap: anywhere; }
a { color: #0969da; }
.causes { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(24rem, 100%), 1fr)); gap: .75rem; align-items: start; }
.causes-of { border: 1px solid var(--line); border-left: 6px solid var(--skip); border-radius: 6px; padding: .75rem; min-width: 0; }
.causes-of.state-pass { border-left-color: var(--pass); } .causes-of.state-fail { border-left-color: var(--fail); }
.causes-of .total, .no-causes { margin: 0 0 .5rem; font-weight: 600; }
.state-pass .no-causes { color: var(--pass); }
.cause-list { margin: 0; padding-left: 1.5rem; }
.cause { margin-bottom: .6rem; }
.cause::marker { font-weight: 600; }
.cause-head { margin: 0; }
.signature { font-weight: 600; overflow-wrap: anywhere; }
.cause-count { color: var(--fail); font-weight: 600; white-space: nowrap; }
.cause dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .6rem; margin: .2rem 0 0; font-size: .9em; }
.cause dt { color: #57606a; } .cause dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.cause-command code { color: #57606a; }
.scroll { overflow: auto; max-height: 85vh; border: 1px solid var(--line); border-radius: 6px; }
.scroll:focus { outline: 3px solid #0969da; outline-offset: 2px; }
table { border-collapse: separate; border-spacing: 0; width: 100%; }
th, td { padding: .35rem .5rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead tr:first-child th { position: sticky; top: 0; z-index: 2; background: #f6f8fa; min-width: 8rem; max-width: 16rem; overflow-wrap: anywhere; }
thead tr:first-child th:first-child { left: 0; z-index: 3; }
thead th[data-implementation] { min-width: 11rem; }
tbody th, tr.totals th { position: sticky; left: 0; z-index: 1; background: #fff; min-width: 17rem; max-width: 24rem; font-weight: normal; border-right: 1px solid var(--line); overflow-wrap: anywhere; }
tr.totals th { background: #f6f8fa; font-weight: 600; }
tr.area th, tr.area td { background-color: #eaeef2; font-weight: 600; border-top: 2px solid #8c959f; }
tr.area td.pass { background: var(--pass-bg); } tr.area td.fail { background: var(--fail-bg); }
.rules-count { font-weight: normal; color: #57606a; }
.rule-text { display: block; color: #57606a; font-size: .8em; white-space: pre-line; }
td { white-space: nowrap; }
.symbol { font-weight: 700; }
.count { white-space: nowrap; }
details summary { cursor: pointer; }
details summary:focus-visible { outline: 3px solid #0969da; }
details[open] { white-space: normal; min-width: 22rem; max-width: 40rem; }
.failures { margin: .5rem 0 0; padding-left: 1.25rem; color: #1f2328; }
.failures li { margin-bottom: .5rem; }
.failures dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .5rem; margin: .25rem 0; }
.failures dd { margin: 0; min-width: 0; }
.failures pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; background: #fff; padding: .2rem .3rem; border-radius: 3px; }
.op, .profile { color: #57606a; font-size: .85em; }
footer { margin-top: 1.5rem; color: #57606a; font-size: .85em; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  body { padding: .5rem; font-size: 14px; }
  .word { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  tbody th, tr.totals th { min-width: 8.5rem; max-width: 10rem; }
  thead tr:first-child th { min-width: 6rem; max-width: 9rem; font-size: .85em; }
  .rule-text { display: none; }
  thead th[data-implementation] { min-width: 6rem; }
  details[open] { min-width: 15rem; }
  .failures dl { grid-template-columns: 1fr; }
}
"#;
