//! `differential`: the same seeded random requests sent to two
//! implementations, and where they disagree reported one class per likely
//! cause (spec `runner.differential`; the testing itself is
//! [`runner::differential`](crate::harness::runner::differential)'s), told
//! as blocks for a person or as one JSON object.

use super::output::say;
use super::{Exit, Format};
use crate::harness::runner::adapter::{
    default_grace, BuiltIn, Description, External, Implementation,
};
use crate::harness::runner::differential::{self, corpus, Progress, Summary};
use crate::harness::runner::pace::{HUNG_OP_FACTOR, HUNG_OP_FLOOR};
use crate::harness::runner::vectors::Suite;
use crate::js::json;
use crate::Json;
use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    /// Leave out the value-class and guided cases: by default, after the
    /// drawn and ordered cases, every value class of every typed member
    /// and the edges of its numbers and letter cases are sent (spec
    /// `runner.differential.valued`), then up to a quarter
    /// as many cases as drawn aim at the rules that fewer than five cases
    /// reached (spec `runner.differential.guided`).
    #[arg(long)]
    no_guide: bool,
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

/// Compares the two implementations as `args` ask, prints the report, and
/// tells whether they agreed on every case.
pub fn run(args: DifferentialArgs) -> Exit {
    differential(&args).unwrap_or_else(|exit| exit)
}

impl DifferentialArgs {
    /// How long to wait for each answer.
    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout)
    }

    /// How long to wait after the timeout before taking a side to hang.
    fn grace(&self) -> Duration {
        self.grace
            .map_or_else(|| default_grace(self.timeout()), Duration::from_secs)
    }
}

/// Plans, runs and reports the comparison `args` ask for: its exit, or
/// the exit of a comparison that could not be done.
fn differential(args: &DifferentialArgs) -> Result<Exit, Exit> {
    known_ops_only(args.ops.as_deref())?;
    let progress = args.progress || io::stderr().is_terminal();
    let mut sides = Compared::described(args)?;
    let (a, b) = (&sides.description_a, &sides.description_b);
    let plan = differential::plan(a, b, args.ops.as_deref());
    let human = args.format == Format::Human;
    if human {
        say_plan(args, &sides, &plan);
    }
    let interrupted = interrupt_flag();
    let seeds = seeds(args.corpus, &plan, &sides)?;
    if human {
        say_corpus(&seeds);
    }
    let options = differential::Options {
        cases: args.cases,
        seed: args.seed,
        time_limit: args.time_limit.map(Duration::from_secs),
        interrupted: Some(&interrupted),
        first_class_only: false,
        shrink: true,
        seeds,
        type_confusion: !args.no_type_confusion,
        order_scope: !args.no_order_scope,
        guided: !args.no_guide,
    };
    let started = Instant::now();
    let (a, b) = (sides.a.as_mut(), &mut sides.b);
    let summary = differential::run(&plan, a, b, &options, progress_line(progress));
    if progress {
        eprintln!();
    }
    if human {
        say_classes(&summary, args.max_classes);
        say_counts(&summary);
        say_coverage(&summary);
    } else {
        say_json(&summary, &plan, args.seed, started.elapsed())?;
    }
    Ok(exit(&summary))
}

/// `Ok` when every op of `ops` is known; else says which is not.
fn known_ops_only(ops: Option<&[String]>) -> Result<(), Exit> {
    let Some(unknown) = ops
        .into_iter()
        .flatten()
        .find(|op| !differential::known_ops().any(|known| known == op.as_str()))
    else {
        return Ok(());
    };
    let known: Vec<&str> = differential::known_ops().collect();
    eprintln!("unknown op {unknown:?} (known: {})", known.join(", "));
    Err(Exit::Unusable)
}

/// The two implementations compared, described.
struct Compared {
    a: Box<dyn Implementation>,
    b: External,
    description_a: Description,
    description_b: Description,
    /// Whether A is the reference with B's behaviours (no `--a`).
    reference_a: bool,
}

impl Compared {
    /// B, then A, started and described as `args` ask.
    fn described(args: &DifferentialArgs) -> Result<Compared, Exit> {
        let external = |command: &str| {
            External::new(command, args.timeout())
                .with_grace(args.grace())
                .with_backtraces(args.backtrace)
                .quiet()
        };
        let mut b = external(&args.b);
        let description_b = as_release(describe("B", &mut b)?, &args.release)?;
        // Without --a, the reference with exactly B's behaviours.
        let (mut a, reference_a): (Box<dyn Implementation>, bool) = match &args.a {
            Some(command) => (Box::new(external(command)), false),
            None => (
                Box::new(BuiltIn(differential::reference_features(&description_b))),
                true,
            ),
        };
        let description_a = as_release(describe("A", a.as_mut())?, &args.a_release)?;
        Ok(Compared {
            a,
            b,
            description_a,
            description_b,
            reference_a,
        })
    }
}

/// What `implementation` (A or B, its `name`) says it is; when it cannot
/// say, why, and what it wrote on stderr.
fn describe(name: &str, implementation: &mut dyn Implementation) -> Result<Description, Exit> {
    implementation.describe().map_err(|problem| {
        let stderr = implementation.take_stderr();
        eprintln!("{name}: describe failed: {problem}");
        if !stderr.trim().is_empty() {
            eprintln!("{name} wrote on stderr:\n{}", stderr.trim_end());
        }
        Exit::Unusable
    })
}

/// `description` run as `release`, when one is given (spec
/// `runner.releases`).
fn as_release(description: Description, release: &Option<String>) -> Result<Description, Exit> {
    match release {
        Some(release) => description.as_release(release).map_err(|problem| {
            eprintln!("{problem}");
            Exit::Unusable
        }),
        None => Ok(description),
    }
}

/// The sides and what the run compares of them, and what it leaves out.
fn say_plan(args: &DifferentialArgs, sides: &Compared, plan: &differential::Plan) {
    say!("A: {}", sides.description_a);
    if sides.reference_a {
        say!("A is the reference with B's behaviours (--a chooses another)");
    }
    say!("B: {}", sides.description_b);
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
    say_waiting(args);
}

/// spec runner.slow: what a hang can cost, said before it does.
fn say_waiting(args: &DifferentialArgs) {
    let (timeout, grace) = (args.timeout(), args.grace());
    say!(
        "waiting: {} s for an answer, then {} s more (an answer then is compared and reported slow; none is a hang); after an op hangs, its answers are awaited {HUNG_OP_FACTOR} times its slowest answer (at least {} s, at most {} s), and a hang shrinks in at most {} probes",
        timeout.as_secs(),
        grace.as_secs(),
        HUNG_OP_FLOOR.as_secs_f64(),
        timeout.as_secs(),
        differential::HANG_SHRINK_PROBES,
    );
}

/// The flag SIGINT sets to stop the run; the report so far is still
/// printed. (The implementations run in their own process groups, so the
/// terminal's interrupt does not reach them.)
fn interrupt_flag() -> Arc<AtomicBool> {
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    if let Err(error) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        eprintln!("differential: no interrupt handler ({error}); an interrupt ends the run without a report");
    }
    interrupted
}

/// The inputs each planned op's cases grow from, per `corpus` (spec
/// `runner.differential.corpus`).
fn seeds(
    corpus: Corpus,
    plan: &differential::Plan,
    sides: &Compared,
) -> Result<BTreeMap<&'static str, Vec<Json>>, Exit> {
    if corpus == Corpus::None {
        return Ok(BTreeMap::new());
    }
    let suite = Suite::embedded().map_err(|error| {
        eprintln!("cannot load the embedded vectors for the corpus: {error}");
        Exit::Unusable
    })?;
    let (a, b) = (&sides.description_a, &sides.description_b);
    Ok(corpus::seeds(plan, a, b, &suite))
}

/// Where the cases grow from.
fn say_corpus(seeds: &BTreeMap<&'static str, Vec<Json>>) {
    if seeds.is_empty() {
        say!("corpus: none (every case drawn by its op's strategy)");
        return;
    }
    let counts: Vec<String> = seeds
        .iter()
        .map(|(op, inputs)| format!("{op} {}", inputs.len()))
        .collect();
    say!(
        "corpus: one case in four grows from a vector's input, mutated ({})",
        counts.join(", ")
    );
}

/// A progress line on stderr after a case, at most every quarter second
/// and after the last, when `shown`.
fn progress_line(shown: bool) -> impl FnMut(&Progress) {
    let mut last_shown = Instant::now();
    move |progress| {
        if shown
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
    }
}

/// The run as one JSON object.
fn say_json(
    summary: &Summary,
    plan: &differential::Plan,
    seed: u64,
    elapsed: Duration,
) -> Result<(), Exit> {
    let text = serde_json::to_string(&summary.to_report(plan, seed, elapsed)).map_err(|error| {
        eprintln!("cannot write the JSON report: {error}");
        Exit::Unusable
    })?;
    say!("{text}");
    Ok(())
}

/// Each class, largest first, in detail up to `max_classes`, the rest by
/// name and count.
fn say_classes(summary: &Summary, max_classes: Option<usize>) {
    let classes = summary.classes_by_size();
    let shown = max_classes.unwrap_or(usize::MAX);
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
            json::to_ascii(&class.example_request()),
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
}

/// The counts per op, what was not compared or answered, and the summary
/// lines.
fn say_counts(summary: &Summary) {
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
    let lines = [summary.not_implemented_line()]
        .into_iter()
        .flatten()
        .chain(summary.slow_lines())
        .chain(summary.hangs_lines());
    for line in lines {
        say!("{line}");
    }
    say!("{}", summary.line());
    say!("classes {}", summary.classes.len());
}

/// The rules the run could reach that no case reached (spec
/// `runner.differential.guided`), when there are any.
fn say_coverage(summary: &Summary) {
    let coverage = &summary.coverage;
    say!(
        "rules reached: {} (value-class cases: {}, guided cases: {})",
        coverage.reached.len(),
        coverage.valued,
        coverage.guided
    );
    let unreached = coverage.unreached();
    if !unreached.is_empty() {
        say!(
            "rules the vectors reach and no case did ({}): {}",
            unreached.len(),
            unreached.join(", ")
        );
    }
}

/// Unusable when a side died; else success when both agreed on every case
/// compared, and every op compared enough of its cases.
fn exit(summary: &Summary) -> Exit {
    if matches!(summary.stopped, Some(differential::Stopped::Dead(_))) {
        return Exit::Unusable;
    }
    if summary.cases > 0 && summary.agreed == summary.cases && summary.starved().is_empty() {
        Exit::Success
    } else {
        Exit::Failed
    }
}
