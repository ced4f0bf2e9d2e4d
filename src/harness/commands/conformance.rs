//! `conformance`: the suite run against an implementation (the reference
//! in each generation when none is given), told as lines for a person or
//! one JSON object, with an optional JUnit file and baseline (spec
//! `runner.reports`, `runner.baseline`, `runner.exit-status`).
//!
//! A run is a pipeline, each stage handing its result to the next: the
//! suite loaded, the implementation described (its declaration selects the
//! vectors it runs), run, its failures attributed to causes, and reported.

use super::output::say;
use super::vectors::load;
use super::{Exit, Format};
use crate::features::{self, Release};
use crate::harness::runner::adapter::{
    default_grace, unknown_release, BuiltIn, Description, External, Implementation,
};
use crate::harness::runner::report::{BaselineSummary, CauseCount, Subject};
use crate::harness::runner::vectors::{Suite, Vector};
use crate::harness::runner::{
    self, baseline, report, rule_reach, Report, Selection, Status, VectorResult,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The arguments of `conformance`; their doc comments are its `--help` text.
#[derive(clap::Args)]
pub struct ConformanceArgs {
    /// Command that starts an adapter speaking the protocol on stdin/stdout.
    #[arg(long = "impl")]
    implementation: Option<String>,
    /// Run only vectors whose id matches (substring, or `*` wildcards;
    /// repeatable).
    #[arg(long)]
    filter: Vec<String>,
    /// Run only vectors of these features (comma-separated), among those
    /// the implementation declares.
    #[arg(long, value_delimiter = ',')]
    features: Option<Vec<String>>,
    /// Run the implementation as this upstream release (spec
    /// `runner.releases`: 0.0.1-rc.1, 0.1.0-rc.1 … rc.3, rc.5 … rc.8,
    /// 0.1.1-rc.1, rc.2, 0.1.2-rc.1, newer-62dde13e, newest): its
    /// behaviours are the release's, in place of those its features name;
    /// its ops are those it declares that the release has.
    #[arg(long)]
    release: Option<String>,
    /// How to print the results: lines for a person, or one JSON object.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Also write a JUnit XML report to this file.
    #[arg(long)]
    junit: Option<PathBuf>,
    /// Seconds to wait for each answer.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Seconds to wait after the timeout before taking the implementation
    /// to hang: an answer within them is compared and reported slow
    /// (default: five times the timeout, at most 600).
    #[arg(long)]
    grace: Option<u64>,
    /// Directory of vector files (default: the suite embedded in this
    /// binary).
    #[arg(long)]
    vectors: Option<PathBuf>,
    /// Known failures, one vector id per line: exit 0 when every
    /// failure is listed, 1 on any other; listed vectors that pass are
    /// named, to be removed.
    #[arg(long)]
    baseline: Option<PathBuf>,
    /// Write the ids of the failed vectors to this file, as a baseline.
    #[arg(long)]
    write_baseline: Option<PathBuf>,
    /// Print every vector, not only failures.
    #[arg(short, long)]
    verbose: bool,
    /// Let the implementation inherit RUST_BACKTRACE (default: removed,
    /// so that a crash costs a panic message, not a backtrace).
    #[arg(long)]
    backtrace: bool,
    /// Also run the cost vectors: time each op at growing input sizes and
    /// fail the ones whose time grows clearly faster than linearly
    /// (opt-in: timing; without the reference's --impl, its adapter).
    #[arg(long)]
    cost: bool,
}

/// How many failing rules the human report lists at its end.
const FAILING_RULES_SHOWN: usize = 10;

/// Runs the suite as `args` ask, prints the results, and tells whether
/// anything failed (outside the baseline, when one is given).
pub fn run(args: ConformanceArgs) -> Exit {
    conformance(&args).unwrap_or_else(|exit| exit)
}

/// The pipeline; a stage that cannot be done has said why, and ends it.
fn conformance(args: &ConformanceArgs) -> Result<Exit, Exit> {
    let suite = load(args.vectors.as_deref())?;
    let listed = read_baseline(args.baseline.as_deref())?;
    let pipeline = Pipeline::new(args, &suite);
    if pipeline.human {
        say!("suite: {}", suite.version);
    }
    let described = pipeline.describe()?;
    let (report, implementation) = pipeline.run(described)?;
    let findings = Findings::attribute(report, implementation, &suite, listed.as_ref());
    pipeline.tell(findings)
}

/// The vector ids `--baseline` lists, when one is given.
fn read_baseline(path: Option<&Path>) -> Result<Option<BTreeSet<String>>, Exit> {
    let Some(path) = path else {
        return Ok(None);
    };
    std::fs::read_to_string(path)
        .map_err(|error| error.to_string())
        .and_then(|text| baseline::parse(&text))
        .map(Some)
        .map_err(|problem| {
            eprintln!("cannot read baseline {}: {problem}", path.display());
            Exit::Unusable
        })
}

/// The implementation to run, described (spec `protocol.features`).
enum Described {
    /// The reference in every release that differs in behaviour (a vector
    /// no release runs runs with the behaviours it names), newest first,
    /// or in the one `asked` for, with that release's ops.
    Reference {
        asked: Option<&'static Release>,
        profiles: Vec<Description>,
    },
    /// The implementation the adapter `--impl` starts.
    Adapter(Box<External>, Description),
}

/// A run's results, its failures attributed to causes (spec
/// `runner.causes`) and compared with the baseline (spec `runner.baseline`).
struct Findings {
    report: Report,
    implementation: Subject,
    causes: Vec<CauseCount>,
    compared: Option<BaselineSummary>,
}

impl Findings {
    fn attribute(
        report: Report,
        implementation: Subject,
        suite: &Suite,
        listed: Option<&BTreeSet<String>>,
    ) -> Findings {
        Findings {
            causes: report::causes(&report),
            compared: listed.map(|listed| baseline::compare(&report, suite, listed)),
            report,
            implementation,
        }
    }
}

/// The stages of a run of `suite` as `args` ask, and what a person sees
/// while it runs (the human format): each failure's block as it comes,
/// each pass with `--verbose`, each cost vector's measurements.
struct Pipeline<'a> {
    args: &'a ConformanceArgs,
    suite: &'a Suite,
    human: bool,
    selection: Selection,
    /// Where paths are shown from: the working directory.
    base: PathBuf,
    /// The command that runs the implementation again.
    rerun: String,
}

impl<'a> Pipeline<'a> {
    fn new(args: &'a ConformanceArgs, suite: &'a Suite) -> Pipeline<'a> {
        Pipeline {
            args,
            suite,
            human: args.format == Format::Human,
            selection: Selection {
                filters: args.filter.clone(),
                features: args.features.clone(),
            },
            base: std::env::current_dir().unwrap_or_default(),
            rerun: rerun_command(args),
        }
    }

    /// The implementation, described: its declaration selects the vectors
    /// it runs (spec `protocol.features`, `runner.releases`).
    fn describe(&self) -> Result<Described, Exit> {
        let name = self.args.release.as_deref();
        let Some(command) = &self.args.implementation else {
            let asked = name.map(|name| features::release(name).ok_or(name));
            let asked = asked.transpose().map_err(|name| {
                eprintln!("{}", unknown_release(name));
                Exit::Unusable
            })?;
            let releases: Vec<&Release> = match asked {
                None => features::distinct_releases().rev().collect(),
                Some(release) => vec![release],
            };
            let profiles = releases
                .iter()
                .map(|release| {
                    let named = asked.map(|_| release.name);
                    described(&mut BuiltIn(release.features), named, self.human)
                })
                .collect::<Result<_, _>>()?;
            return Ok(Described::Reference { asked, profiles });
        };
        let timeout = Duration::from_secs(self.args.timeout);
        let grace = self
            .args
            .grace
            .map_or_else(|| default_grace(timeout), Duration::from_secs);
        let mut adapter = External::new(command, timeout)
            .with_grace(grace)
            .with_backtraces(self.args.backtrace);
        let description = described(&mut adapter, name, self.human)?;
        Ok(Described::Adapter(Box::new(adapter), description))
    }

    /// Runs the suite on the described implementation, then its cost
    /// vectors.
    fn run(&self, described: Described) -> Result<(Report, Subject), Exit> {
        let (suite, selection) = (self.suite, &self.selection);
        let show = |_: &Vector, result: &VectorResult| self.show(result);
        let (mut report, implementation, measured) = match described {
            Described::Reference { asked, profiles } => {
                let report = match (asked, profiles.first()) {
                    (Some(release), Some(profile)) => {
                        let mut reference = BuiltIn(release.features);
                        runner::run(suite, &mut reference, profile, selection, show)
                    }
                    _ => runner::run_reference(suite, selection, show),
                };
                // Cost is measured through the reference's own adapter
                // process, as a user's host gets it, in the newest release.
                let newest = profiles.first().cloned();
                (report, Subject::Profiles { profiles }, newest)
            }
            Described::Adapter(mut adapter, description) => {
                let report = runner::run(suite, adapter.as_mut(), &description, selection, show);
                (report, Subject::One(description.clone()), Some(description))
            }
        };
        report.results.extend(self.run_cost(measured.as_ref())?);
        Ok((report, implementation))
    }

    /// The cost vectors' results (spec `runner.cost`): measured with
    /// `--cost` on the implementation `description` describes, else
    /// skipped and counted apart.
    fn run_cost(&self, description: Option<&Description>) -> Result<Vec<VectorResult>, Exit> {
        let Some(description) = description else {
            return Ok(Vec::new());
        };
        let mut adapter = self.args.cost.then(|| self.cost_adapter()).transpose()?;
        let measured = adapter
            .as_mut()
            .map(|adapter| adapter as &mut dyn Implementation);
        let show = |result: &VectorResult| self.show_cost(result);
        let results = runner::run_cost(self.suite, measured, description, &self.selection, show);
        Ok(results)
    }

    /// The adapter cost is measured through: the implementation's, or the
    /// reference's own, as a user's host gets it.
    fn cost_adapter(&self) -> Result<External, Exit> {
        let command = match &self.args.implementation {
            Some(command) => command.clone(),
            None => {
                let exe = std::env::current_exe().map_err(|error| {
                    eprintln!("cannot find this binary to run its adapter: {error}");
                    Exit::Unusable
                })?;
                format!("{} adapter", shell_quote(&exe.display().to_string()))
            }
        };
        // A quadratic answer may take seconds at the last size.
        let timeout = Duration::from_secs(self.args.timeout.max(30));
        Ok(External::new(&command, timeout).with_backtraces(self.args.backtrace))
    }

    /// A vector's result as it comes: a failure's block, a pass with
    /// `--verbose`.
    fn show(&self, result: &VectorResult) {
        match &result.status {
            Status::Failed(detail) if self.human => {
                let block = report::failure_block(result, detail, &self.base, &self.rerun);
                say!("{block}");
            }
            Status::Passed if self.human && self.args.verbose => say!("ok   {}", result.id),
            _ => {}
        }
    }

    /// A cost vector's sizes, times and exponent, passed or not.
    fn show_cost(&self, result: &VectorResult) {
        let passed = matches!(result.status, Status::Passed);
        if let (true, Some(growth)) = (self.human, &result.cost) {
            let verdict = if passed { "ok  " } else { "FAIL" };
            say!("cost {verdict} {}: {}", result.id, growth.describe());
        }
        if !passed {
            self.show(result);
        }
    }

    /// Writes the files asked for, then the report (lines for a person,
    /// or one JSON object), and tells how the run ends: with a baseline,
    /// failed when a failure is not in it; writing one records the
    /// failures, it is not a verdict on them (spec `runner.baseline`).
    fn tell(&self, findings: Findings) -> Result<Exit, Exit> {
        let (args, report) = (self.args, &findings.report);
        if let Some(path) = &args.write_baseline {
            write(path, baseline::write(report))?;
        }
        if let Some(path) = &args.junit {
            let name = "dsh-session-reference conformance";
            let xml = report::to_junit(report, name, &self.suite.version, &self.base);
            write(path, xml)?;
        }
        let passed = match &findings.compared {
            _ if args.write_baseline.is_some() => true,
            Some(compared) => compared.new.is_empty(),
            None => report.failed() == 0,
        };
        if self.human {
            print_lines(&findings);
        } else {
            self.print_json(findings)?;
        }
        Ok(if passed { Exit::Success } else { Exit::Failed })
    }

    /// The report as one JSON object.
    fn print_json(&self, findings: Findings) -> Result<(), Exit> {
        let suite = self.suite;
        let inputs = |id: &str| {
            suite
                .find(id)
                .map(|(_, vector)| vector.input.clone())
                .or_else(|| {
                    // A cost vector's input at its first size.
                    suite
                        .cost_vectors()
                        .find(|(_, cost)| cost.id == id)
                        .map(|(_, cost)| cost.input(cost.start))
                })
        };
        let mut json_report = report::to_json(
            &findings.report,
            findings.causes,
            suite.version.clone(),
            findings.implementation,
            findings.compared,
            &inputs,
            &self.base,
        );
        let ran = findings
            .report
            .results
            .iter()
            .filter(|result| matches!(result.status, Status::Passed | Status::Failed(_)));
        json_report.reach = rule_reach::by_rule(
            ran.filter_map(|result| suite.find(&result.id).map(|(_, vector)| vector)),
        );
        let text = serde_json::to_string(&json_report).map_err(|error| {
            eprintln!("cannot write the JSON report: {error}");
            Exit::Unusable
        })?;
        say!("{text}");
        Ok(())
    }
}

/// `implementation`'s `describe`, named on the human report; a failure
/// is reported and ends the command as unusable.
fn described(
    implementation: &mut dyn Implementation,
    release: Option<&str>,
    human: bool,
) -> Result<Description, Exit> {
    let description = implementation
        .describe()
        .and_then(|description| match release {
            Some(release) => description.as_release(release),
            None => Ok(description),
        })
        .map_err(|problem| {
            eprintln!("describe failed: {problem}");
            Exit::Unusable
        })?;
    if human {
        say!("implementation: {description}");
    }
    Ok(description)
}

fn write(path: &Path, text: String) -> Result<(), Exit> {
    std::fs::write(path, text).map_err(|error| {
        eprintln!("cannot write {}: {error}", path.display());
        Exit::Unusable
    })
}

/// The human report's closing lines: skips, the op to implement first,
/// failing rules, causes, the baseline, slow vectors, hangs, the summary.
fn print_lines(findings: &Findings) {
    let report = &findings.report;
    let closing = [
        report::skip_breakdown(report),
        report::first_op_line(report),
        report::failing_rules_line(report, FAILING_RULES_SHOWN),
        report::causes_block(&findings.causes),
    ];
    for line in closing.into_iter().flatten() {
        say!("{line}");
    }
    if let Some(compared) = &findings.compared {
        say!(
            "baseline: {} known failures, {} new",
            compared.known.len(),
            compared.new.len()
        );
        for id in &compared.new {
            say!("new failure (not in the baseline): {id}");
        }
        for id in &compared.fixed {
            say!("fixed: remove from the baseline: {id}");
        }
        for id in &compared.unknown {
            say!("unknown id in the baseline (not in this suite): {id}");
        }
    }
    for (id, late) in &report.slow {
        say!("slow: {id} {late}");
    }
    for line in report::hangs_lines(report) {
        say!("{line}");
    }
    say!("{}", report.summary());
}

/// The command line that runs `args`' implementation again, for the
/// "alone:" hint of each failure.
fn rerun_command(args: &ConformanceArgs) -> String {
    let mut command = "dsh-session-reference conformance".to_owned();
    if let Some(implementation) = &args.implementation {
        command.push_str(&format!(" --impl {}", shell_quote(implementation)));
    }
    if let Some(dir) = &args.vectors {
        command.push_str(&format!(
            " --vectors {}",
            shell_quote(&dir.display().to_string())
        ));
    }
    command
}

fn shell_quote(text: &str) -> String {
    if text
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,".contains(&b))
    {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}
