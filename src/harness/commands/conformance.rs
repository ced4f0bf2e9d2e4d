//! `conformance`: the suite run against an implementation (the reference
//! in each generation when none is given), told as lines for a person or
//! one JSON object, with an optional JUnit file and baseline (spec
//! `runner.reports`, `runner.baseline`, `runner.exit-status`).

use super::output::say;
use super::vectors::load;
use super::{Exit, Format};
use crate::features;
use crate::harness::runner::adapter::{
    default_grace, BuiltIn, Description, External, Implementation,
};
use crate::harness::runner::report::Subject;
use crate::harness::runner::vectors::Vector;
use crate::harness::runner::{self, baseline, report, Selection, Status, VectorResult};
use std::path::PathBuf;
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

/// What `conformance` was asked to do.
struct ConformanceRun {
    implementation: Option<String>,
    release: Option<String>,
    selection: Selection,
    format: Format,
    junit: Option<PathBuf>,
    timeout: Duration,
    grace: Duration,
    vectors: Option<PathBuf>,
    baseline: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    verbose: bool,
    backtrace: bool,
    cost: bool,
}

/// How many failing rules the human report lists at its end.
const FAILING_RULES_SHOWN: usize = 10;

/// Runs the suite as `args` ask, prints the results, and tells whether
/// anything failed (outside the baseline, when one is given).
pub fn run(args: ConformanceArgs) -> Exit {
    let ConformanceArgs {
        implementation,
        filter,
        features,
        release,
        format,
        junit,
        timeout,
        grace,
        vectors,
        baseline,
        write_baseline,
        verbose,
        backtrace,
        cost,
    } = args;
    let timeout = Duration::from_secs(timeout);
    conformance(ConformanceRun {
        implementation,
        release,
        selection: Selection {
            filters: filter,
            features,
        },
        format,
        junit,
        timeout,
        grace: grace.map_or_else(|| default_grace(timeout), Duration::from_secs),
        vectors,
        baseline,
        write_baseline,
        verbose,
        backtrace,
        cost,
    })
}

/// `implementation`'s `describe`, named on the human report; a failure
/// is reported and ends the command as unusable.
fn described(
    implementation: &mut dyn Implementation,
    release: Option<&str>,
    human: bool,
) -> Result<Description, Exit> {
    let described = implementation
        .describe()
        .and_then(|description| match release {
            Some(release) => description.as_release(release),
            None => Ok(description),
        });
    match described {
        Ok(description) => {
            if human {
                say!("implementation: {description}");
            }
            Ok(description)
        }
        Err(problem) => {
            eprintln!("describe failed: {problem}");
            Err(Exit::Unusable)
        }
    }
}

/// The command line that runs `run`'s implementation again, for the
/// "alone:" hint of each failure.
fn rerun_command(run: &ConformanceRun) -> String {
    let mut command = "dsh-session-reference conformance".to_owned();
    if let Some(implementation) = &run.implementation {
        command.push_str(&format!(" --impl {}", shell_quote(implementation)));
    }
    if let Some(dir) = &run.vectors {
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

fn conformance(run: ConformanceRun) -> Exit {
    let suite = match load(run.vectors.as_deref()) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let listed = match &run.baseline {
        None => None,
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|error| error.to_string())
            .and_then(|text| baseline::parse(&text))
        {
            Ok(listed) => Some(listed),
            Err(problem) => {
                eprintln!("cannot read baseline {}: {problem}", path.display());
                return Exit::Unusable;
            }
        },
    };
    let base = std::env::current_dir().unwrap_or_default();
    let human = run.format == Format::Human;
    if human {
        say!("suite: {}", suite.version);
    }
    let rerun = rerun_command(&run);
    let show_result = |result: &VectorResult| match &result.status {
        Status::Failed(detail) if human => {
            say!("{}", report::failure_block(result, detail, &base, &rerun));
        }
        Status::Passed if human && run.verbose => say!("ok   {}", result.id),
        _ => {}
    };
    let show = |_: &Vector, result: &VectorResult| show_result(result);
    // A cost vector's sizes, times and exponent, passed or not.
    let show_cost = |result: &VectorResult| {
        if let (true, Some(growth)) = (human, &result.cost) {
            let verdict = if matches!(result.status, Status::Passed) {
                "ok  "
            } else {
                "FAIL"
            };
            say!("cost {verdict} {}: {}", result.id, growth.describe());
        }
        if !matches!(result.status, Status::Passed) {
            show_result(result);
        }
    };
    let (mut report, implementation, cost_description) = match &run.implementation {
        None => {
            let mut profiles = Vec::new();
            // The reference in every release that differs in behaviour (a
            // vector no release runs runs with the behaviours it names), or
            // in the one asked for, with that release's ops.
            let releases: Vec<&features::Release> = match run.release.as_deref() {
                None => features::distinct_releases().rev().collect(),
                Some(name) => match features::release(name) {
                    Some(release) => vec![release],
                    None => {
                        eprintln!("{}", crate::harness::runner::adapter::unknown_release(name));
                        return Exit::Unusable;
                    }
                },
            };
            for release in &releases {
                let asked = run.release.as_ref().map(|_| release.name);
                match described(&mut BuiltIn(release.features), asked, human) {
                    Ok(description) => profiles.push(description),
                    Err(exit) => return exit,
                }
            }
            let report = match (run.release.as_deref(), releases.first()) {
                (Some(_), Some(release)) => runner::run(
                    &suite,
                    &mut BuiltIn(release.features),
                    &profiles[0],
                    &run.selection,
                    show,
                ),
                _ => runner::run_reference(&suite, &run.selection, show),
            };
            // Cost is measured through the reference's own adapter process,
            // as a user's host gets it, in the newest release.
            let newest = profiles.first().cloned();
            (report, Subject::Profiles { profiles }, newest)
        }
        Some(command) => {
            let mut subject = External::new(command, run.timeout)
                .with_grace(run.grace)
                .with_backtraces(run.backtrace);
            let description = match described(&mut subject, run.release.as_deref(), human) {
                Ok(description) => description,
                Err(exit) => return exit,
            };
            let report = runner::run(&suite, &mut subject, &description, &run.selection, show);
            (report, Subject::One(description.clone()), Some(description))
        }
    };
    // Cost vectors (spec `runner.cost`): measured with --cost, else
    // skipped and counted apart.
    let cost_results = match (&cost_description, run.cost) {
        (Some(description), true) => {
            let command = match &run.implementation {
                Some(command) => command.clone(),
                None => match std::env::current_exe() {
                    Ok(exe) => format!("{} adapter", shell_quote(&exe.display().to_string())),
                    Err(error) => {
                        eprintln!("cannot find this binary to run its adapter: {error}");
                        return Exit::Unusable;
                    }
                },
            };
            // A quadratic answer may take seconds at the last size.
            let timeout = run.timeout.max(Duration::from_secs(30));
            let mut subject = External::new(&command, timeout).with_backtraces(run.backtrace);
            runner::run_cost(
                &suite,
                Some(&mut subject),
                description,
                &run.selection,
                |result| show_cost(result),
            )
        }
        (Some(description), false) => {
            runner::run_cost(&suite, None, description, &run.selection, |_| {})
        }
        (None, _) => Vec::new(),
    };
    report.results.extend(cost_results);
    if let Some(path) = &run.write_baseline {
        if let Err(error) = std::fs::write(path, baseline::write(&report)) {
            eprintln!("cannot write {}: {error}", path.display());
            return Exit::Unusable;
        }
    }
    if let Some(path) = &run.junit {
        let xml = report::to_junit(
            &report,
            "dsh-session-reference conformance",
            &suite.version,
            &base,
        );
        if let Err(error) = std::fs::write(path, xml) {
            eprintln!("cannot write {}: {error}", path.display());
            return Exit::Unusable;
        }
    }
    let compared = listed
        .as_ref()
        .map(|listed| baseline::compare(&report, &suite, listed));
    if human {
        if let Some(skips) = report::skip_breakdown(&report) {
            say!("{skips}");
        }
        if let Some(first) = report::first_op_line(&report) {
            say!("{first}");
        }
        if let Some(rules) = report::failing_rules_line(&report, FAILING_RULES_SHOWN) {
            say!("{rules}");
        }
        if let Some(causes) = report::causes_block(&report) {
            say!("{causes}");
        }
        if let Some(compared) = &compared {
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
        if let Some(hangs) = report.hangs_line() {
            say!("{hangs}");
        }
        say!("{}", report.summary());
    } else {
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
        let json_report = report::to_json(
            &report,
            suite.version.clone(),
            implementation,
            compared.clone(),
            &inputs,
            &base,
        );
        match serde_json::to_string(&json_report) {
            Ok(text) => say!("{text}"),
            Err(error) => {
                eprintln!("cannot write the JSON report: {error}");
                return Exit::Unusable;
            }
        }
    }
    // Writing a baseline records the failures; it is not a verdict on them
    // (spec `runner.baseline`).
    let passed = match &compared {
        _ if run.write_baseline.is_some() => true,
        Some(compared) => compared.new.is_empty(),
        None => report.failed() == 0,
    };
    if passed {
        Exit::Success
    } else {
        Exit::Failed
    }
}
