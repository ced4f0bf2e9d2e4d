//! The compliance page: several JSON reports of `conformance --format json`
//! (one per implementation) side by side: each implementation's causes of
//! failure, then spec areas, then rules (spec `runner.compliance-page`).
//!
//! A run's own report says how one implementation fared, vector by vector.
//! A porting team wants to show where its port stands against upstream
//! rc.8, the newest generation and the reference at a glance; a CI job
//! wants the same as a short Markdown summary. A port's failures mostly
//! come from a few causes (one renamed member fails hundreds of vectors),
//! so the page opens with them: per implementation, each cause with its
//! count, its rules and its smallest vector. This module reads the reports
//! with the exact JSON layer (their values may hold lone surrogates, which
//! serde_json refuses), builds a [`Matrix`] (spec areas, then rules, as
//! rows; implementations as columns; pass/fail/skip counts in each cell)
//! and writes it as one self-contained HTML page ([`Matrix::to_html`]:
//! inline CSS, no script, nothing fetched) and as Markdown
//! ([`Matrix::to_markdown`]).
//!
//! A vector citing several rules counts in each rule's row; in the areas'
//! rows it counts once, in the area of its first behaviour rule (see
//! [`first_area`]), so that an implementation's areas add up to its totals.

use crate::harness::runner::report::{is_behaviour_rule, CauseCount};
use crate::harness::spec;
use crate::js::json::{self, Json};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::{self, Write as _};
use std::path::Path;

/// Where the rules that are not in the embedded specification are listed.
pub const OTHER_AREA: &str = "other";

/// How many characters of an expected or actual outcome a failing cell shows.
const EXCERPT_CHARS: usize = 300;

/// How many characters of a rule's text its row shows.
const RULE_TEXT_CHARS: usize = 90;

/// How many of a cause's rules are named; the rest are counted (`and 3
/// more`), as in the human report.
const CAUSE_RULES_SHOWN: usize = 4;

/// A report that could not be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The report's file, as given.
    pub file: String,
    /// What was wrong with it.
    pub problem: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file, self.problem)
    }
}

impl std::error::Error for ReadError {}

/// How a vector went, as the page counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// `passed`
    Passed,
    /// `failed`
    Failed,
    /// `skipped`, for any reason.
    Skipped,
}

/// What a failed vector expected and got, as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The expected outcome, as escaped JSON text.
    pub expected: String,
    /// The actual outcome, as escaped JSON text.
    pub actual: String,
    /// Where the two first differ: `string at $.label, code unit 3`.
    pub difference: String,
    /// The reference profile that failed, for the built-in reference.
    pub profile: Option<String>,
}

/// One vector of a report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorEntry {
    /// The vector id.
    pub id: String,
    /// Its op.
    pub op: String,
    /// The rules it cites.
    pub rules: Vec<String>,
    /// How it went.
    pub verdict: Verdict,
    /// Why it was skipped, for a skipped vector.
    pub reason: Option<String>,
    /// What failed, for a failed vector.
    pub failure: Option<Failure>,
}

/// One implementation's report: a column of the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Implementation {
    /// The column's name: the implementation's name and version (its
    /// profiles', joined, for the built-in reference), made unique among
    /// the columns by [`Matrix::new`].
    pub name: String,
    /// The report's file, as given.
    pub file: String,
    /// The suite it ran: crate version, number of vectors, the start of
    /// its hash, source.
    pub suite: String,
    /// The features it declares.
    pub features: Vec<String>,
    /// The capabilities it declares.
    pub capabilities: Vec<String>,
    /// The report's summary: vectors passed.
    pub passed: usize,
    /// The report's summary: vectors failed.
    pub failed: usize,
    /// The report's summary: vectors skipped.
    pub skipped: usize,
    /// Every vector of the run, in suite order.
    pub vectors: Vec<VectorEntry>,
    /// The causes of its failures, most vectors first (the report's
    /// `causes`).
    pub causes: Vec<CauseCount>,
}

impl Implementation {
    /// The report's summary as [`Counts`].
    pub fn totals(&self) -> Counts {
        Counts {
            passed: self.passed,
            failed: self.failed,
            skipped: self.skipped,
        }
    }
}

/// Pass, fail and skip counts of the vectors in one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Vectors that passed.
    pub passed: usize,
    /// Vectors that failed.
    pub failed: usize,
    /// Vectors skipped.
    pub skipped: usize,
}

impl Counts {
    fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Skipped => self.skipped += 1,
        }
    }

    /// The cell's symbol and its word: `✗` failed, `✓` passed, `–` all
    /// skipped, `·` no vectors.
    pub fn symbol(&self) -> (&'static str, &'static str) {
        if self.failed > 0 {
            ("✗", "fail")
        } else if self.passed > 0 {
            ("✓", "pass")
        } else if self.skipped > 0 {
            ("–", "skip")
        } else {
            ("·", "none")
        }
    }

    /// The counts in words: `✗ 2 failed, 5 passed, 1 skipped`.
    pub fn label(&self) -> String {
        let (symbol, _) = self.symbol();
        let parts: Vec<String> = [
            (self.failed, "failed"),
            (self.passed, "passed"),
            (self.skipped, "skipped"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, word)| format!("{count} {word}"))
        .collect();
        if parts.is_empty() {
            format!("{symbol} no vectors")
        } else {
            format!("{symbol} {}", parts.join(", "))
        }
    }
}

/// One implementation's vectors citing a rule (or an area's rules).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// Their counts.
    pub counts: Counts,
    /// The failed ones, as indices into the implementation's
    /// [`Implementation::vectors`].
    pub failures: Vec<usize>,
}

impl Cell {
    fn add(&mut self, index: usize, vector: &VectorEntry) {
        self.counts.add(vector.verdict);
        if vector.verdict == Verdict::Failed {
            self.failures.push(index);
        }
    }
}

/// A rule's row: one cell per implementation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRow {
    /// The rule id.
    pub id: String,
    /// Its text in the embedded specification, if it is there.
    pub text: Option<String>,
    /// One cell per implementation, in column order.
    pub cells: Vec<Cell>,
}

/// A spec area (a spec file, such as `uri` for `spec/uri.md`) and its
/// rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Area {
    /// The area's name: the spec file's stem, or [`OTHER_AREA`].
    pub name: String,
    /// Per implementation, the vectors whose [`first_area`] this is: each
    /// vector counts in one area, so an implementation's areas add up to
    /// all its vectors.
    pub cells: Vec<Cell>,
    /// The rules cited by the reports' vectors, by id.
    pub rules: Vec<RuleRow>,
}

/// The reports side by side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matrix {
    /// The columns.
    pub implementations: Vec<Implementation>,
    /// The rows: areas by name ([`OTHER_AREA`] last), each with its rules.
    pub areas: Vec<Area>,
}

/// The area of a rule: its spec file's stem, or [`OTHER_AREA`].
pub fn area_of(rule: &str) -> String {
    spec::rule(rule)
        .map(|found| found.file.trim_end_matches(".md").to_owned())
        .unwrap_or_else(|| OTHER_AREA.to_owned())
}

/// The area a vector counts in among the areas: that of the first rule it
/// cites that is not a `conformance.*` rule (those say how deep the suite
/// covers a rule, not what a port does), else that of its first rule, else
/// [`OTHER_AREA`].
pub fn first_area(rules: &[String]) -> String {
    rules
        .iter()
        .find(|rule| is_behaviour_rule(rule))
        .or(rules.first())
        .map(|rule| area_of(rule))
        .unwrap_or_else(|| OTHER_AREA.to_owned())
}

/// Reads the JSON report in `path` (spec `runner.reports`).
pub fn read_report(path: &Path) -> Result<Implementation, ReadError> {
    let file = path.display().to_string();
    let error = |problem: String| ReadError {
        file: file.clone(),
        problem,
    };
    let text = std::fs::read_to_string(path).map_err(|e| error(format!("cannot read: {e}")))?;
    let value = json::parse(&text)
        .map_err(|e| error(format!("not JSON: {} at byte {}", e.message, e.offset)))?;
    parse_report(&value, &file).map_err(error)
}

/// A JSON report already parsed; `file` names it.
pub fn parse_report(report: &Json, file: &str) -> Result<Implementation, String> {
    let suite = member(report, "suite")?;
    let hash = string(member(suite, "hash")?, "suite.hash")?;
    let suite = format!(
        "{} ({} vectors, {}…, {})",
        string(member(suite, "crateVersion")?, "suite.crateVersion")?,
        count(member(suite, "vectors")?, "suite.vectors")?,
        hash.chars().take(19).collect::<String>(),
        string(member(suite, "source")?, "suite.source")?,
    );
    let implementation = member(report, "implementation")?;
    let (descriptions, profiles): (Vec<&Json>, bool) = match implementation.get("profiles") {
        Some(profiles) => (
            profiles
                .as_array()
                .ok_or("implementation.profiles is not an array")?
                .iter()
                .collect(),
            true,
        ),
        None => (vec![implementation], false),
    };
    let mut names = Vec::new();
    let mut features = BTreeSet::new();
    let mut capabilities = BTreeSet::new();
    for description in descriptions {
        let name = string(member(description, "name")?, "implementation.name")?;
        let version = string(member(description, "version")?, "implementation.version")?;
        // runner.releases: the upstream release an implementation follows
        // heads its column, unless its name says it (the reference's
        // profiles are named by theirs).
        names.push(match optional_string(description, "release")? {
            Some(release) if !profiles && !name.contains(&release) => {
                format!("{name} {version}, release {release}")
            }
            _ => format!("{name} {version}"),
        });
        features.extend(strings(member(description, "features")?, "features")?);
        capabilities.extend(strings(
            member(description, "capabilities")?,
            "capabilities",
        )?);
    }
    let summary = member(report, "summary")?;
    let vectors = member(report, "results")?
        .as_array()
        .ok_or("results is not an array")?
        .iter()
        .enumerate()
        .map(|(index, result)| {
            vector_entry(result).map_err(|problem| format!("results[{index}]: {problem}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut causes = member(report, "causes")?
        .as_array()
        .ok_or("causes is not an array")?
        .iter()
        .enumerate()
        .map(|(index, entry)| {
            cause_entry(entry).map_err(|problem| format!("causes[{index}]: {problem}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The report lists them most vectors first; the page relies on it.
    causes.sort_by_key(|cause| std::cmp::Reverse(cause.count));
    Ok(Implementation {
        name: names.join(" + "),
        file: file.to_owned(),
        suite,
        features: features.into_iter().collect(),
        capabilities: capabilities.into_iter().collect(),
        passed: count(member(summary, "passed")?, "summary.passed")?,
        failed: count(member(summary, "failed")?, "summary.failed")?,
        skipped: count(member(summary, "skipped")?, "summary.skipped")?,
        vectors,
        causes,
    })
}

fn cause_entry(entry: &Json) -> Result<CauseCount, String> {
    Ok(CauseCount {
        signature: string(member(entry, "signature")?, "signature")?,
        count: count(member(entry, "count")?, "count")?,
        ops: strings(member(entry, "ops")?, "ops")?,
        rules: strings(member(entry, "rules")?, "rules")?,
        vectors: strings(member(entry, "vectors")?, "vectors")?,
        example: string(member(entry, "example")?, "example")?,
        probe: optional_string(entry, "probe")?,
        chain: optional_string(entry, "chain")?,
        substitution: optional_string(entry, "substitution")?,
    })
}

/// A string member that may be absent.
fn optional_string(entry: &Json, name: &str) -> Result<Option<String>, String> {
    entry.get(name).map(|value| string(value, name)).transpose()
}

fn vector_entry(result: &Json) -> Result<VectorEntry, String> {
    let verdict = match string(member(result, "status")?, "status")?.as_str() {
        "passed" => Verdict::Passed,
        "failed" => Verdict::Failed,
        "skipped" => Verdict::Skipped,
        other => return Err(format!("unknown status {other:?}")),
    };
    let failure = match verdict {
        Verdict::Failed => {
            let difference = member(result, "difference")?;
            let mut shown = format!(
                "{} at {}",
                string(member(difference, "kind")?, "difference.kind")?,
                string(member(difference, "path")?, "difference.path")?
            );
            if let Some(unit) = difference.get("codeUnit") {
                shown.push_str(&format!(
                    ", code unit {}",
                    count(unit, "difference.codeUnit")?
                ));
            }
            Some(Failure {
                expected: json::to_ascii(member(result, "expected")?),
                actual: json::to_ascii(member(result, "actual")?),
                difference: shown,
                profile: result
                    .get("profile")
                    .map(|profile| string(profile, "profile"))
                    .transpose()?,
            })
        }
        _ => None,
    };
    Ok(VectorEntry {
        id: string(member(result, "id")?, "id")?,
        op: string(member(result, "op")?, "op")?,
        rules: strings(member(result, "rules")?, "rules")?,
        verdict,
        reason: result
            .get("reason")
            .map(|reason| string(reason, "reason"))
            .transpose()?,
        failure,
    })
}

fn member<'a>(value: &'a Json, key: &str) -> Result<&'a Json, String> {
    value.get(key).ok_or_else(|| format!("no member {key:?}"))
}

/// A string member as text; one holding a lone surrogate is shown with
/// `\uXXXX` escapes.
fn string(value: &Json, what: &str) -> Result<String, String> {
    let text = value
        .as_js_str()
        .ok_or_else(|| format!("{what} is not a string"))?;
    Ok(text.to_str().unwrap_or_else(|| {
        let quoted = json::quote_ascii(text.units());
        quoted[1..quoted.len() - 1].to_owned()
    }))
}

fn strings(value: &Json, what: &str) -> Result<Vec<String>, String> {
    value
        .as_array()
        .ok_or_else(|| format!("{what} is not an array"))?
        .iter()
        .map(|item| string(item, what))
        .collect()
}

fn count(value: &Json, what: &str) -> Result<usize, String> {
    match value {
        Json::Number(n) if *n >= 0.0 && n.fract() == 0.0 && *n <= u32::MAX as f64 => {
            Ok(*n as usize)
        }
        _ => Err(format!("{what} is not a count")),
    }
}

impl Matrix {
    /// The matrix of these reports, in this column order; columns with the
    /// same name get their report file's stem appended.
    pub fn new(mut implementations: Vec<Implementation>) -> Matrix {
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for implementation in &implementations {
            *seen.entry(implementation.name.clone()).or_default() += 1;
        }
        let mut taken = BTreeSet::new();
        for implementation in &mut implementations {
            if seen[&implementation.name] > 1 {
                let stem = Path::new(&implementation.file)
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default();
                implementation.name = format!("{} ({stem})", implementation.name);
            }
            let base = implementation.name.clone();
            let mut next = 2;
            while !taken.insert(implementation.name.clone()) {
                implementation.name = format!("{base} #{next}");
                next += 1;
            }
        }
        let columns = implementations.len();
        let mut area_cells: BTreeMap<String, Vec<Cell>> = BTreeMap::new();
        let mut rule_cells: BTreeMap<String, Vec<Cell>> = BTreeMap::new();
        for (column, implementation) in implementations.iter().enumerate() {
            for (index, vector) in implementation.vectors.iter().enumerate() {
                let rules: BTreeSet<&String> = vector.rules.iter().collect();
                for rule in rules {
                    rule_cells
                        .entry(rule.clone())
                        .or_insert_with(|| vec![Cell::default(); columns])[column]
                        .add(index, vector);
                }
                area_cells
                    .entry(first_area(&vector.rules))
                    .or_insert_with(|| vec![Cell::default(); columns])[column]
                    .add(index, vector);
            }
        }
        // An area whose rules are cited only by vectors counted elsewhere
        // still lists its rules, with no vectors of its own.
        for rule in rule_cells.keys() {
            area_cells
                .entry(area_of(rule))
                .or_insert_with(|| vec![Cell::default(); columns]);
        }
        let mut areas: Vec<Area> = area_cells
            .into_iter()
            .map(|(name, cells)| Area {
                cells,
                rules: rule_cells
                    .iter()
                    .filter(|(id, _)| area_of(id) == name)
                    .map(|(id, cells)| RuleRow {
                        id: id.clone(),
                        text: spec::rule(id).map(|rule| rule.text.clone()),
                        cells: cells.clone(),
                    })
                    .collect(),
                name,
            })
            .collect();
        areas.sort_by_key(|area| area.name == OTHER_AREA);
        Matrix {
            implementations,
            areas,
        }
    }

    /// The rules that failed for `implementation` (a column index), most
    /// failures first (ties by id), with their counts; like the report's
    /// `failingRules`, without the suite's own `conformance.*` rules.
    pub fn failing_rules(&self, implementation: usize) -> Vec<(&str, usize)> {
        let mut rules: Vec<(&str, usize)> = self
            .areas
            .iter()
            .flat_map(|area| &area.rules)
            .filter(|rule| is_behaviour_rule(&rule.id))
            .map(|rule| (rule.id.as_str(), rule.cells[implementation].counts.failed))
            .filter(|(_, failed)| *failed > 0)
            .collect();
        rules.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        rules
    }

    /// The condensed page in Markdown, for a CI job summary: each
    /// implementation's causes, then areas × implementations (each vector
    /// once), then each implementation's failing rules.
    pub fn to_markdown(&self) -> String {
        let mut out = String::from(
            "## Compliance with the session-reference specification

",
        );
        out.push_str(
            "### Causes

",
        );
        out.push_str(
            "Each implementation's failed vectors grouped by cause, most vectors first; \
             the example is the cause's vector with the fewest input bytes.\n",
        );
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
                let rules = shown_rules(&cause.rules);
                let rules = if rules.is_empty() {
                    "none".to_owned()
                } else {
                    rules
                        .iter()
                        .map(|rule| match rule {
                            Shown::Rule(rule) => markdown_code(rule),
                            Shown::More(more) => format!("and {more} more"),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
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
        out.push_str("\n### Areas\n\n");
        out.push_str("✓ every vector passed, ✗ some failed, – all skipped, · no vectors. ");
        out.push_str(
            "Each vector counts once, in the area of its first rule that is not `conformance.*`, \
             so each column's areas add up to its **all vectors** row.\n\n| area |",
        );
        for implementation in &self.implementations {
            let _ = write!(out, " {} |", markdown_text(&implementation.name));
        }
        out.push_str("\n|---|");
        out.push_str(&"---|".repeat(self.implementations.len()));
        out.push_str("\n| **all vectors** |");
        for implementation in &self.implementations {
            let totals = implementation.totals();
            let _ = write!(out, " **{}** |", totals.label());
        }
        for area in &self.areas {
            let _ = write!(
                out,
                "\n| {} ({}) |",
                markdown_text(&area.name),
                rules_count(area.rules.len())
            );
            for cell in &area.cells {
                let _ = write!(out, " {} |", cell.counts.label());
            }
        }
        out.push_str("\n\n### Failing rules\n\n");
        out.push_str(
            "The rules cited by failed vectors, most failures first \
             (a vector citing several rules counts in each).\n\n",
        );
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
            let _ = writeln!(
                out,
                "- **{}**: {listed}",
                markdown_text(&implementation.name)
            );
        }
        out
    }

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
        let mut out = String::new();
        out.push_str(concat!(
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
        out.push_str("</main>\n<footer><p>Made by dsh-session-reference ");
        out.push_str(env!("CARGO_PKG_VERSION"));
        out.push_str(" <code>report</code> from ");
        let files: Vec<String> = self
            .implementations
            .iter()
            .map(|implementation| format!("<code>{}</code>", escape(&implementation.file)))
            .collect();
        out.push_str(&files.join(", "));
        out.push_str(".</p></footer>\n</body>\n</html>\n");
        out
    }

    fn html_causes(&self, out: &mut String) {
        out.push_str("<section aria-labelledby=\"causes\">\n<h2 id=\"causes\">Causes</h2>\n");
        out.push_str(
            "<p>Each implementation's failed vectors grouped by cause, most vectors first; \
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
                let rules = shown_rules(&cause.rules);
                let rules = if rules.is_empty() {
                    "none".to_owned()
                } else {
                    rules
                        .iter()
                        .map(|rule| match rule {
                            Shown::Rule(rule) => {
                                format!("<a href=\"#rule-{0}\"><code>{0}</code></a>", escape(rule))
                            }
                            Shown::More(more) => format!("and {more} more"),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
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
        out.push_str("<section aria-labelledby=\"areas\">\n<h2 id=\"areas\">Areas</h2>\n");
        out.push_str(
            "<p>Each vector counts once, in the area of its first rule that is not <code>conformance.*</code>, \
             so each column's areas add up to its <em>all vectors</em> row.</p>\n",
        );
        out.push_str(
            "<div class=\"scroll\" role=\"region\" aria-label=\"Areas by implementation\" tabindex=\"0\">\n\
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
        self.count_cells(out, self.implementations.iter().map(Implementation::totals));
        out.push_str("</tr>\n</tfoot>\n</table>\n</div>\n</section>\n");
    }

    fn html_implementations(&self, out: &mut String) {
        out.push_str("<section aria-labelledby=\"implementations\">\n");
        out.push_str("<h2 id=\"implementations\">Implementations</h2>\n<div class=\"cards\">\n");
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
        out.push_str("<section aria-labelledby=\"rules\">\n<h2 id=\"rules\">Rules</h2>\n");
        out.push_str(
            "<p>Each cell counts the vectors citing the rule (a vector citing several rules counts in each); \
             an area's row counts each vector once, as in the areas table.</p>\n",
        );
        out.push_str(
            "<div class=\"scroll\" role=\"region\" aria-label=\"Rules by implementation\" tabindex=\"0\">\n<table class=\"matrix\">\n<thead>\n<tr><th scope=\"col\">rule</th>",
        );
        self.column_headers(out);
        out.push_str("</tr>\n<tr class=\"totals\"><th scope=\"row\">all vectors</th>");
        self.count_cells(out, self.implementations.iter().map(Implementation::totals));
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

/// `1 rule`, `5 rules`.
fn rules_count(count: usize) -> String {
    if count == 1 {
        "1 rule".to_owned()
    } else {
        format!("{count} rules")
    }
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
fn markdown_code(text: &str) -> String {
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

/// `1 vector`, `5 vectors` (`what` is the singular).
fn vectors_count(count: usize, what: &str) -> String {
    if count == 1 {
        format!("1 {what}")
    } else {
        format!("{count} {what}s")
    }
}

/// The command that shows a vector.
fn show_command(id: &str) -> String {
    format!("dsh-session-reference show {id}")
}

/// What an implementation without causes shows instead of their list:
/// `no failures`, or, for a report that lists failures but no causes,
/// how many.
fn no_causes(implementation: &Implementation) -> String {
    if implementation.failed == 0 {
        "no failures".to_owned()
    } else {
        format!(
            "{}, no causes in the report",
            vectors_count(implementation.failed, "failed vector")
        )
    }
}

/// A cause's rule as listed: named, or the count of the rest.
enum Shown<'a> {
    Rule(&'a str),
    More(usize),
}

/// A cause's first [`CAUSE_RULES_SHOWN`] rules, then how many more.
fn shown_rules(rules: &[String]) -> Vec<Shown<'_>> {
    let mut shown: Vec<Shown> = rules
        .iter()
        .take(CAUSE_RULES_SHOWN)
        .map(|rule| Shown::Rule(rule))
        .collect();
    if rules.len() > CAUSE_RULES_SHOWN {
        shown.push(Shown::More(rules.len() - CAUSE_RULES_SHOWN));
    }
    shown
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

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(id: &str, rules: &[&str], verdict: Verdict) -> VectorEntry {
        VectorEntry {
            id: id.to_owned(),
            op: "uri/decode".to_owned(),
            rules: rules.iter().map(|rule| (*rule).to_owned()).collect(),
            verdict,
            reason: None,
            failure: (verdict == Verdict::Failed).then(|| Failure {
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

    fn implementation(
        name: &str,
        vectors: Vec<VectorEntry>,
        causes: Vec<CauseCount>,
    ) -> Implementation {
        let count = |verdict| vectors.iter().filter(|v| v.verdict == verdict).count();
        Implementation {
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
        assert!(
            at("data-implementation=\"reference\">\n<h3>reference</h3>") < at("<h2 id=\"areas\">")
        );
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
}
