//! `differential`: the same seeded random requests sent to two
//! implementations, and where they disagree reported one class per likely
//! cause (spec `runner.differential`; the testing itself is
//! [`runner::differential`](crate::harness::runner::differential)'s), told
//! as blocks for a person or as one JSON object.

use super::output::say;
use super::{Exit, Format};
use crate::harness::runner::adapter::{
    default_grace, BuiltIn, External, Implementation, MAX_HANGS_PER_OP,
};
use crate::harness::runner::differential::{self, corpus};
use crate::harness::runner::vectors::Suite;
use crate::js::json;
use crate::Json;
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

/// The arguments of `differential`; their doc comments are its `--help` text.
#[derive(clap::Args)]
pub struct DifferentialArgs {
    /// Command of the first implementation (default: the built-in
    /// reference, with B's behaviours).
    #[arg(long = "a")]
    a: Option<String>,
    /// Command of the second implementation.
    #[arg(long = "b")]
    b: String,
    /// Run B as this upstream release (spec `runner.releases`): its
    /// behaviours are the release's, in place of those its features name,
    /// and of its ops those the release has.
    #[arg(long)]
    release: Option<String>,
    /// Run A, given with --a, as this upstream release (without --a, A is
    /// the reference with B's behaviours).
    #[arg(long, requires = "a")]
    a_release: Option<String>,
    /// Number of cases.
    #[arg(long, default_value_t = 1000)]
    cases: u64,
    /// Seed: the same seed sends the same requests.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Generate only these ops (comma-separated).
    #[arg(long, value_delimiter = ',')]
    ops: Option<Vec<String>>,
    /// Where a share of the cases grows from: the suite's vector inputs
    /// of the ops both sides run, mutated, or none.
    #[arg(long, value_enum, default_value_t = Corpus::Vectors)]
    corpus: Corpus,
    /// Send every case well typed: no type confusion, even where both
    /// sides declare `dynamic-inputs` (by default every eighth case of an
    /// op is type-confused there, spec `runner.differential.reach`).
    #[arg(long)]
    no_type_confusion: bool,
    /// Leave out the small scope of the order of checks: by default, when
    /// `pre-step` is drawn, every order of one to three messages, each
    /// passing or failing at one tier, under each cancel stage (775 cases)
    /// is sent after the drawn cases (spec `runner.differential.reach`).
    #[arg(long)]
    no_order_scope: bool,
    /// Seconds to wait for each answer.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Seconds to wait after the timeout before taking an implementation
    /// to hang: an answer within them is compared and reported slow
    /// (default: five times the timeout, at most 600).
    #[arg(long)]
    grace: Option<u64>,
    /// Stop generating after this many seconds and report what was
    /// found.
    #[arg(long)]
    time_limit: Option<u64>,
    /// How to print the report: blocks for a person, or one JSON object.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    format: Format,
    /// Print the detail of at most this many classes (counts stay
    /// complete).
    #[arg(long)]
    max_classes: Option<usize>,
    /// Show a progress line on stderr even when it is not a terminal.
    #[arg(long)]
    progress: bool,
    /// Let the implementations inherit RUST_BACKTRACE (default: removed,
    /// so that a crash costs a panic message, not a backtrace).
    #[arg(long)]
    backtrace: bool,
}

/// Where a share of `differential`'s cases grows from (spec
/// `runner.differential.corpus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Corpus {
    /// The embedded suite's vector inputs, mutated.
    Vectors,
    /// None: every case drawn by the op's strategy.
    None,
}

/// What `differential` was asked to do.
struct DifferentialRun {
    a: Option<String>,
    b: String,
    release: Option<String>,
    a_release: Option<String>,
    ops: Option<Vec<String>>,
    corpus: Corpus,
    type_confusion: bool,
    order_scope: bool,
    timeout: Duration,
    grace: Duration,
    cases: u64,
    seed: u64,
    time_limit: Option<Duration>,
    format: Format,
    max_classes: Option<usize>,
    progress: bool,
    backtrace: bool,
}

/// Compares the two implementations as `args` ask, prints the report, and
/// tells whether they agreed on every case.
pub fn run(args: DifferentialArgs) -> Exit {
    let DifferentialArgs {
        a,
        b,
        release,
        a_release,
        cases,
        seed,
        ops,
        corpus,
        no_type_confusion,
        no_order_scope,
        timeout,
        grace,
        time_limit,
        format,
        max_classes,
        progress,
        backtrace,
    } = args;
    let timeout = Duration::from_secs(timeout);
    differential(DifferentialRun {
        a,
        b,
        release,
        a_release,
        ops,
        corpus,
        type_confusion: !no_type_confusion,
        order_scope: !no_order_scope,
        timeout,
        grace: grace.map_or_else(|| default_grace(timeout), Duration::from_secs),
        cases,
        seed,
        time_limit: time_limit.map(Duration::from_secs),
        format,
        max_classes,
        progress: progress || io::stderr().is_terminal(),
        backtrace,
    })
}

fn differential(run: DifferentialRun) -> Exit {
    if let Some(unknown) = run
        .ops
        .iter()
        .flatten()
        .find(|op| !differential::known_ops().any(|known| known == op.as_str()))
    {
        let known: Vec<&str> = differential::known_ops().collect();
        eprintln!("unknown op {unknown:?} (known: {})", known.join(", "));
        return Exit::Unusable;
    }
    let external = |command: &str| {
        External::new(command, run.timeout)
            .with_grace(run.grace)
            .with_backtraces(run.backtrace)
            .quiet()
    };
    let mut second = external(&run.b);
    let describe = |name: &str, implementation: &mut dyn Implementation| {
        implementation.describe().map_err(|problem| {
            let stderr = implementation.take_stderr();
            eprintln!("{name}: describe failed: {problem}");
            if !stderr.trim().is_empty() {
                eprintln!("{name} wrote on stderr:\n{}", stderr.trim_end());
            }
            Exit::Unusable
        })
    };
    let as_release = |description: crate::harness::runner::adapter::Description,
                      release: &Option<String>| match release {
        Some(release) => description.as_release(release).map_err(|problem| {
            eprintln!("{problem}");
            Exit::Unusable
        }),
        None => Ok(description),
    };
    let description_b = match describe("B", &mut second).and_then(|d| as_release(d, &run.release)) {
        Ok(description) => description,
        Err(code) => return code,
    };
    // Without --a, the reference with exactly B's behaviours.
    let (mut first, chosen): (Box<dyn Implementation>, bool) = match &run.a {
        Some(command) => (Box::new(external(command)), false),
        None => (
            Box::new(BuiltIn(differential::reference_features(&description_b))),
            true,
        ),
    };
    let description_a =
        match describe("A", first.as_mut()).and_then(|d| as_release(d, &run.a_release)) {
            Ok(description) => description,
            Err(code) => return code,
        };
    let human = run.format == Format::Human;
    let plan = differential::plan(&description_a, &description_b, run.ops.as_deref());
    if human {
        say!("A: {description_a}");
        if chosen {
            say!("A is the reference with B's behaviours (--a chooses another)");
        }
        say!("B: {description_b}");
        let compared: Vec<&str> = plan.ops.iter().map(|planned| planned.op).collect();
        say!("compared: {}", compared.join(", "));
        for (op, what) in &plan.mixed {
            say!("behaviours differ for {op}: {what}");
        }
        for (op, why) in &plan.left_out {
            say!("not compared: {op} ({why})");
        }
        if !plan.lone_surrogates {
            say!("lone surrogates: not generated, answers holding one not compared (the capability lone-surrogates is not declared by both)");
        }
        for line in plan.narrowed() {
            say!("{line}");
        }
        // spec runner.slow: what a hang can cost, said before it does.
        let hang = run.timeout + run.grace;
        let shrink = run.timeout * differential::HANG_SHRINK_PROBES as u32;
        let bound = hang * (MAX_HANGS_PER_OP * plan.ops.len() as u64) as u32 + shrink;
        say!(
            "waiting: {} s for an answer, then {} s more (an answer then is compared and reported slow; none is a hang); an op hangs at most {} times, a hang shrinks in at most {} probes of {} s: at most {} s waited on hangs in all",
            run.timeout.as_secs(),
            run.grace.as_secs(),
            MAX_HANGS_PER_OP,
            differential::HANG_SHRINK_PROBES,
            run.timeout.as_secs(),
            bound.as_secs()
        );
    }
    // SIGINT stops the run; the report so far is still printed. (The
    // implementations run in their own process groups, so the terminal's
    // interrupt does not reach them.)
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    if let Err(error) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        eprintln!("differential: no interrupt handler ({error}); an interrupt ends the run without a report");
    }
    let seeds = match run.corpus {
        Corpus::None => Default::default(),
        Corpus::Vectors => match Suite::embedded() {
            Ok(suite) => corpus::seeds(&plan, &description_a, &description_b, &suite),
            Err(error) => {
                eprintln!("cannot load the embedded vectors for the corpus: {error}");
                return Exit::Unusable;
            }
        },
    };
    if human {
        if seeds.is_empty() {
            say!("corpus: none (every case drawn by its op's strategy)");
        } else {
            let counts: Vec<String> = seeds
                .iter()
                .map(|(op, inputs)| format!("{op} {}", inputs.len()))
                .collect();
            say!(
                "corpus: one case in four grows from a vector's input, mutated ({})",
                counts.join(", ")
            );
        }
    }
    let options = differential::Options {
        cases: run.cases,
        seed: run.seed,
        time_limit: run.time_limit,
        interrupted: Some(&interrupted),
        first_class_only: false,
        shrink: true,
        seeds,
        type_confusion: run.type_confusion,
        order_scope: run.order_scope,
    };
    let started = Instant::now();
    let mut last_shown = Instant::now();
    let summary = differential::run(&plan, first.as_mut(), &mut second, &options, |progress| {
        if run.progress
            && (last_shown.elapsed() >= Duration::from_millis(250)
                || progress.done == progress.total)
        {
            last_shown = Instant::now();
            let rate = progress.done as f64 / progress.elapsed.as_secs_f64().max(1e-9);
            eprint!(
                "\r{}/{} cases, {rate:.0} cases/s, {} classes   ",
                progress.done, progress.total, progress.classes
            );
        }
    });
    if run.progress {
        eprintln!();
    }
    if !human {
        let report = summary.to_report(&plan, run.seed, started.elapsed());
        match serde_json::to_string(&report) {
            Ok(text) => say!("{text}"),
            Err(error) => {
                eprintln!("cannot write the JSON report: {error}");
                return Exit::Unusable;
            }
        }
    } else {
        let classes = summary.classes_by_size();
        let shown = run.max_classes.unwrap_or(usize::MAX);
        for (number, class) in classes.iter().take(shown).enumerate() {
            let cases: Vec<String> = class.cases.iter().map(u64::to_string).collect();
            let more = if class.count as usize > class.cases.len() {
                ", …"
            } else {
                ""
            };
            say!(
                "CLASS {} of {}: {} cases (first: {}{more})\n  {}\n  ops: {}; first difference of the example at {}\n  example, shrunk in {} steps: {}\n  {}",
                number + 1,
                classes.len(),
                class.count,
                cases.join(", "),
                class.signature,
                class.ops.join(", "),
                class.signature.path,
                class.shrink_steps,
                json::to_ascii(&Json::object([
                    ("op", Json::str(&class.signature.op)),
                    ("input", class.input.clone())
                ])),
                class.example.explanation
            );
        }
        if classes.len() > shown {
            let rest: Vec<String> = classes[shown..]
                .iter()
                .map(|class| format!("{} ({})", class.signature, class.count))
                .collect();
            say!("{} more classes: {}", rest.len(), rest.join("; "));
        }
        let per_op: Vec<String> = summary
            .drawn
            .iter()
            .map(|(op, drawn)| {
                let (agreed, compared) = summary.per_op.get(op).copied().unwrap_or_default();
                let unsupported = summary.unsupported(op);
                let left = drawn - compared - unsupported;
                let mut counts = format!("{op} {agreed}/{compared}");
                if left > 0 {
                    counts.push_str(&format!(" ({left} not compared)"));
                }
                if unsupported > 0 {
                    counts.push_str(&format!(" ({unsupported} not implemented)"));
                }
                counts
            })
            .collect();
        say!("per op: {}", per_op.join(", "));
        for starved in summary.starved() {
            say!("too few compared: {starved}");
        }
        if let Some(stopped) = &summary.stopped {
            say!("stopped early: {stopped}");
        }
        if let Some(line) = summary.not_implemented_line() {
            say!("{line}");
        }
        for line in summary.slow_lines() {
            say!("{line}");
        }
        if let Some(line) = summary.hangs_line() {
            say!("{line}");
        }
        say!("{}", summary.line());
        say!("classes {}", summary.classes.len());
    }
    if matches!(summary.stopped, Some(differential::Stopped::Dead(_))) {
        return Exit::Unusable;
    }
    if summary.cases > 0 && summary.agreed == summary.cases && summary.starved().is_empty() {
        Exit::Success
    } else {
        Exit::Failed
    }
}
