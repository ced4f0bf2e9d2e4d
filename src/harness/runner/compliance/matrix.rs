//! The matrix of the compliance page (spec `runner.compliance-page`): its
//! columns, one implementation's report each, and its rows, spec areas and
//! their rules, with a cell of counts where they meet.

use crate::harness::runner::report::{is_behaviour_rule, CauseCount};
use crate::harness::spec;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Where the rules that are not in the embedded specification are listed.
pub const OTHER_AREA: &str = "other";

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
pub struct FailedVector {
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
    pub failure: Option<FailedVector>,
}

/// One implementation's report: a column of the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
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

impl Column {
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
    /// [`Column::vectors`].
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
    pub implementations: Vec<Column>,
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

impl Matrix {
    /// The matrix of these reports, in this column order; columns with the
    /// same name get their report file's stem appended.
    pub fn new(mut implementations: Vec<Column>) -> Matrix {
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
}
