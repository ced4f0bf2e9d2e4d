//! `dsh-session-reference`: the conformance suite, the reference adapter and
//! the vector tools.

/// The binary's allocator. A protocol message of megabytes becomes hundreds
/// of thousands of small strings and vectors; with glibc's allocator the
/// reference adapter spent about 40% of a 100 000-session `candidates/list`
/// allocating and freeing them (issue #13). The library never chooses an
/// allocator: this is the binary's choice.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use dsh_session_reference::config::{Config, Generation, NoModels};
use dsh_session_reference::harness::runner::adapter::{BuiltIn, External, Implementation};
use dsh_session_reference::harness::runner::report::Subject;
use dsh_session_reference::harness::runner::vectors::{self, Expect, Suite, Vector};
use dsh_session_reference::harness::runner::{
    self, baseline, compliance, differential, report, Selection, Status, VectorResult,
};
use dsh_session_reference::harness::spec;
use dsh_session_reference::js::json;
use dsh_session_reference::pre_step::pre_step;
use dsh_session_reference::prepare::{Agent, Services};
use dsh_session_reference::protocol::server;
use dsh_session_reference::protocol::wire::{Outcome, UNSUPPORTED};
use dsh_session_reference::spill::{FolderSpillStore, SpillStore};
use dsh_session_reference::surface::FolderReader;
use dsh_session_reference::{JsString, Json};
use std::collections::HashMap;
use std::io::{self, IsTerminal};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use std::time::Instant;

#[derive(Parser)]
#[command(
    version,
    about = "Session references: reference implementation and conformance suite"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the conformance vectors against an implementation (the built-in
    /// reference when --impl is absent). Exit 0 when nothing failed, 1 on
    /// failures, 2 when the suite or the implementation could not be used.
    Conformance {
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
        /// How to print the results: lines for a person, or one JSON object.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Also write a JUnit XML report to this file.
        #[arg(long)]
        junit: Option<PathBuf>,
        /// Seconds to wait for each answer.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        timeout: u64,
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
    },
    /// Print a vector (input, expected outcome, features, required
    /// capabilities) with the text of each rule it cites.
    Show {
        /// The vector id.
        id: String,
        /// Directory of vector files (default: the embedded suite).
        #[arg(long)]
        vectors: Option<PathBuf>,
    },
    /// The embedded vector files.
    Vectors {
        #[command(subcommand)]
        command: VectorsCommand,
    },
    /// Speak the adapter protocol on stdin/stdout with the reference.
    Adapter {
        /// Behave as this upstream generation.
        #[arg(long, value_parser = parse_generation, default_value = "newest")]
        generation: Generation,
    },
    /// Show what a host would send to the model for one user message that
    /// mentions sessions stored as snapshot files (`*.json`) in a folder.
    Prepare {
        /// The user's message text, with mentions.
        text: String,
        /// Folder of session snapshot files.
        #[arg(long)]
        sessions: PathBuf,
        /// The id of the session the message is typed in.
        #[arg(long, default_value = "current-session")]
        agent: String,
        /// A fixed per-reference budget (default: automatic, 64 KiB without a model).
        #[arg(long)]
        max_reference_bytes: Option<u64>,
        /// Folder where full snapshots of truncated references are saved.
        #[arg(long)]
        spill_dir: Option<PathBuf>,
    },
    /// Send the same seeded random requests to two implementations and
    /// report where they disagree, one class per likely cause (each with a
    /// count and an example shrunk within its class), then `agree N/M` and
    /// `classes K`. Exit 0 when they agree on every case, 1 otherwise, 2
    /// when one cannot be used.
    Differential {
        /// Command of the first implementation (default: the built-in
        /// reference, newest generation).
        #[arg(long = "a")]
        a: Option<String>,
        /// Command of the second implementation.
        #[arg(long = "b")]
        b: String,
        /// Number of cases.
        #[arg(long, default_value_t = 1000)]
        cases: u64,
        /// Seed: the same seed sends the same requests.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Generate only these ops (comma-separated).
        #[arg(long, value_delimiter = ',')]
        ops: Option<Vec<String>>,
        /// Seconds to wait for each answer.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
        timeout: u64,
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
    },
    /// Put JSON reports of `conformance --format json` (one per
    /// implementation) side by side: a self-contained HTML page with a
    /// per-rule matrix, and optionally its Markdown summary for a CI job.
    /// Exit 0 when written, 2 when a report cannot be read or a file
    /// cannot be written.
    Report {
        /// The JSON reports, one per implementation, in column order.
        #[arg(required = true)]
        reports: Vec<PathBuf>,
        /// Where to write the HTML page.
        #[arg(long)]
        html: PathBuf,
        /// Where to write the Markdown summary (areas × implementations,
        /// failing rules).
        #[arg(long)]
        markdown: Option<PathBuf>,
    },
    /// Rewrite each vector's `expect` with what the oracles answer (the
    /// upstream package rc.8, a newer upstream build when one is at hand,
    /// and the emulation of the newest generation), and its `requires` with
    /// what its input and expectation need. Every oracle that declares one
    /// of a vector's features and every capability its input requires is
    /// asked; they must agree. Vectors no oracle covers keep their
    /// expectation. Ends with how many vectors each set of oracles answered.
    Regen {
        /// Command that starts an oracle adapter (repeatable), such as
        /// `node conformance/adapters/upstream-npm/adapter.mjs`, the newer
        /// build's `node …/upstream-un-a/adapter.mjs` and
        /// `node conformance/adapters/upstream-next/adapter.mjs`.
        #[arg(long = "impl", required = true)]
        implementations: Vec<String>,
        /// Directory of vector files (in a checkout of this repository).
        #[arg(long, default_value = "conformance/vectors")]
        vectors: PathBuf,
    },
}

#[derive(Subcommand)]
enum VectorsCommand {
    /// Write the embedded vector files into DIR (`DIR/uri/decode.json`, …),
    /// for implementations that read the files themselves.
    Export {
        /// Where to write them.
        dir: PathBuf,
    },
}

/// `println!` that ends the process quietly (exit 2) when standard output
/// is gone, such as a closed pipe, instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        emit(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` with [`say!`]'s handling of a closed output.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        emit(&format!($($arg)*))
    };
}

fn emit(text: &str) {
    use std::io::Write as _;
    let mut out = io::stdout().lock();
    if out
        .write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        std::process::exit(2);
    }
}

/// How `conformance` prints its results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// A line per failure (per vector with -v), skip reasons, a summary line.
    Human,
    /// One JSON object on standard output (`runner::report::to_json`).
    Json,
}

/// What `conformance` was asked to do.
struct ConformanceRun {
    implementation: Option<String>,
    selection: Selection,
    format: Format,
    junit: Option<PathBuf>,
    timeout: Duration,
    vectors: Option<PathBuf>,
    baseline: Option<PathBuf>,
    write_baseline: Option<PathBuf>,
    verbose: bool,
    backtrace: bool,
}

/// Ends the adapter as soon as no one can read its answers: the reader of
/// standard output is gone (a pipe reports an error), so the runner that
/// started it is. Without this an adapter stuck in a request (a mutant that
/// loops, under cargo-mutants) would outlive a runner killed from outside:
/// the runner gives each implementation a process group of its own, which
/// no signal to the runner's group reaches. A watching thread, so that a
/// request under way is no obstacle; reading standard input is not touched,
/// so requests piped in and then closed are still all answered.
#[cfg(unix)]
fn exit_once_answers_go_unread() {
    use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
    use std::os::fd::AsFd;
    std::thread::spawn(|| {
        let stdout = io::stdout();
        loop {
            // No events asked for: poll returns only on an error or a hang-up.
            let mut watched = [PollFd::new(stdout.as_fd(), PollFlags::empty())];
            match poll(&mut watched, PollTimeout::NONE) {
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => return,
                Ok(_) => {
                    let gone = PollFlags::POLLERR | PollFlags::POLLHUP;
                    if watched[0]
                        .revents()
                        .is_some_and(|events| events.intersects(gone))
                    {
                        std::process::exit(0);
                    }
                    // Not a stream that reports its reader (POLLNVAL): stop watching.
                    return;
                }
            }
        }
    });
}

/// How many failing rules the human report lists at its end.
const FAILING_RULES_SHOWN: usize = 10;

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Conformance {
            implementation,
            filter,
            features,
            format,
            junit,
            timeout,
            vectors,
            baseline,
            write_baseline,
            verbose,
            backtrace,
        } => conformance(ConformanceRun {
            implementation,
            selection: Selection {
                filters: filter,
                features,
            },
            format,
            junit,
            timeout: Duration::from_secs(timeout),
            vectors,
            baseline,
            write_baseline,
            verbose,
            backtrace,
        }),
        Command::Show { id, vectors } => show(&id, vectors.as_deref()),
        Command::Vectors {
            command: VectorsCommand::Export { dir },
        } => match vectors::export_embedded(&dir) {
            Ok(count) => {
                say!("wrote {count} vector files to {}", dir.display());
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("cannot write {}: {error}", dir.display());
                ExitCode::from(2)
            }
        },
        Command::Adapter { generation } => {
            // Requests of megabytes come through a pipe: read it a pipe's
            // worth at a time, not 8 KiB, so the writer is woken a few times
            // a request rather than hundreds (issue #13: the 9.2 MB candidate
            // round trip 71-83 ms -> 60-71 ms beside the same binary).
            let input = io::BufReader::with_capacity(1 << 20, io::stdin().lock());
            #[cfg(unix)]
            exit_once_answers_go_unread();
            match server::serve(generation, input, io::stdout().lock()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    eprintln!("adapter: {error}");
                    ExitCode::from(2)
                }
            }
        }
        Command::Prepare {
            text,
            sessions,
            agent,
            max_reference_bytes,
            spill_dir,
        } => prepare(&text, &sessions, &agent, max_reference_bytes, spill_dir),
        Command::Regen {
            implementations,
            vectors,
        } => regen(&implementations, &vectors),
        Command::Differential {
            a,
            b,
            cases,
            seed,
            ops,
            timeout,
            time_limit,
            format,
            max_classes,
            progress,
            backtrace,
        } => differential(DifferentialRun {
            a,
            b,
            ops,
            timeout: Duration::from_secs(timeout),
            cases,
            seed,
            time_limit: time_limit.map(Duration::from_secs),
            format,
            max_classes,
            progress: progress || io::stderr().is_terminal(),
            backtrace,
        }),
        Command::Report {
            reports,
            html,
            markdown,
        } => compliance_report(&reports, &html, markdown.as_deref()),
    }
}

fn compliance_report(
    reports: &[PathBuf],
    html: &std::path::Path,
    markdown: Option<&std::path::Path>,
) -> ExitCode {
    let mut implementations = Vec::new();
    for path in reports {
        match compliance::read_report(path) {
            Ok(implementation) => implementations.push(implementation),
            Err(error) => {
                eprintln!("cannot use the report {error}");
                return ExitCode::from(2);
            }
        }
    }
    let matrix = compliance::Matrix::new(implementations);
    let mut outputs = vec![(html, matrix.to_html())];
    outputs.extend(markdown.map(|path| (path, matrix.to_markdown())));
    for (path, text) in outputs {
        if let Err(error) = std::fs::write(path, text) {
            eprintln!("cannot write {}: {error}", path.display());
            return ExitCode::from(2);
        }
        say!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

fn prepare(
    text: &str,
    sessions: &std::path::Path,
    agent: &str,
    max_reference_bytes: Option<u64>,
    spill_dir: Option<PathBuf>,
) -> ExitCode {
    let reader = match FolderReader::open(sessions) {
        Ok(reader) => reader,
        Err(problem) => {
            eprintln!("cannot read sessions: {problem}");
            return ExitCode::from(2);
        }
    };
    let store = spill_dir.map(FolderSpillStore::new);
    let services = Services {
        reader: &reader,
        spill: store.as_ref().map(|store| store as &dyn SpillStore),
        models: &NoModels,
        cancelled: &|| false,
    };
    let config = Config {
        max_reference_bytes,
        ..Config::default()
    };
    let agent = Agent {
        id: JsString::from(agent),
        route: None,
    };
    let message = Json::object([
        ("source", Json::object([("kind", Json::str("user"))])),
        (
            "content",
            Json::Array(vec![Json::object([
                ("type", Json::str("text")),
                ("text", Json::str(text)),
            ])]),
        ),
    ]);
    match pre_step(&config, &agent, &[message], &services) {
        Ok(messages) => {
            for (index, message) in messages.iter().enumerate() {
                let kind = message
                    .get("source")
                    .and_then(|s| s.get("kind"))
                    .and_then(Json::as_string)
                    .unwrap_or_default();
                say!("--- message {} ({kind})", index + 1);
                let blocks = message
                    .get("content")
                    .and_then(Json::as_array)
                    .unwrap_or_default();
                for block in blocks {
                    if let Some(text) = block.get("text").and_then(Json::as_js_str) {
                        say!("{}", text.to_string_lossy());
                    }
                }
                if kind == "session-reference" {
                    say!("--- source record");
                    say_raw!(
                        "{}",
                        json::to_pretty(message.get("source").unwrap_or(&Json::Null), 2)
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("{failure}");
            ExitCode::from(1)
        }
    }
}

fn parse_generation(name: &str) -> Result<Generation, String> {
    Generation::ALL
        .into_iter()
        .find(|generation| generation.name() == name)
        .ok_or_else(|| format!("unknown generation {name:?} (newest, rc8)"))
}

/// The suite in `dir`, or the embedded one.
fn load(dir: Option<&std::path::Path>) -> Result<Suite, ExitCode> {
    match dir {
        Some(dir) => Suite::load(dir),
        None => Suite::embedded(),
    }
    .map_err(|error| {
        eprintln!("cannot load vectors: {error}");
        ExitCode::from(2)
    })
}

fn show(id: &str, dir: Option<&std::path::Path>) -> ExitCode {
    let suite = match load(dir) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let Some((file, vector)) = suite.find(id) else {
        eprintln!("no vector {id:?} in the suite ({})", suite.version);
        return ExitCode::from(2);
    };
    say!("{} ({})", vector.id, file.path.display());
    say!("  {}", vector.description);
    say!("op:       {}", vector.op);
    say!("features: {} (any one)", vector.features.join(", "));
    if !vector.requires.is_empty() {
        say!("requires: {} (all)", vector.requires.join(", "));
    }
    say!("input:    {}", json::to_ascii(&vector.input));
    match &vector.expect {
        Expect::Output(output) => say!("expected: output {}", json::to_ascii(output)),
        Expect::Error(code) => say!("expected: error {code}"),
    }
    say!("rules:");
    for rule in &vector.rules {
        match spec::rule(rule) {
            Some(found) => say!("  {rule} (spec/{}): {}", found.file, found.text),
            None => say!("  {rule}: (not in the embedded specification)"),
        }
    }
    ExitCode::SUCCESS
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

fn conformance(run: ConformanceRun) -> ExitCode {
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
                return ExitCode::from(2);
            }
        },
    };
    let base = std::env::current_dir().unwrap_or_default();
    let human = run.format == Format::Human;
    if human {
        say!("suite: {}", suite.version);
    }
    let rerun = rerun_command(&run);
    let show = |_: &Vector, result: &VectorResult| match &result.status {
        Status::Failed(detail) if human => {
            say!("{}", report::failure_block(result, detail, &base, &rerun));
        }
        Status::Passed if human && run.verbose => say!("ok   {}", result.id),
        _ => {}
    };
    let (report, implementation) = match &run.implementation {
        None => {
            let mut profiles = Vec::new();
            for generation in Generation::ALL {
                let description = match BuiltIn(generation).describe() {
                    Ok(description) => description,
                    Err(problem) => {
                        eprintln!("describe failed: {problem}");
                        return ExitCode::from(2);
                    }
                };
                if human {
                    say!("implementation: {description}");
                }
                profiles.push(description);
            }
            let report = runner::run_reference(&suite, &run.selection, show);
            (report, Subject::Profiles { profiles })
        }
        Some(command) => {
            let mut subject = External::new(command, run.timeout).with_backtraces(run.backtrace);
            let description = match subject.describe() {
                Ok(description) => description,
                Err(problem) => {
                    eprintln!("describe failed: {problem}");
                    return ExitCode::from(2);
                }
            };
            if human {
                say!("implementation: {description}");
            }
            let report = runner::run(&suite, &mut subject, &description, &run.selection, show);
            (report, Subject::One(description))
        }
    };
    if let Some(path) = &run.write_baseline {
        if let Err(error) = std::fs::write(path, baseline::write(&report)) {
            eprintln!("cannot write {}: {error}", path.display());
            return ExitCode::from(2);
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
            return ExitCode::from(2);
        }
    }
    let compared = listed
        .as_ref()
        .map(|listed| baseline::compare(&report, &suite, listed));
    if human {
        if let Some(skips) = report::skip_breakdown(&report) {
            say!("{skips}");
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
        say!("{}", report.summary());
    } else {
        let inputs = |id: &str| suite.find(id).map(|(_, vector)| vector.input.clone());
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
                return ExitCode::from(2);
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
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// What `differential` was asked to do.
struct DifferentialRun {
    a: Option<String>,
    b: String,
    ops: Option<Vec<String>>,
    timeout: Duration,
    cases: u64,
    seed: u64,
    time_limit: Option<Duration>,
    format: Format,
    max_classes: Option<usize>,
    progress: bool,
    backtrace: bool,
}

fn differential(run: DifferentialRun) -> ExitCode {
    if let Some(unknown) = run
        .ops
        .iter()
        .flatten()
        .find(|op| !differential::known_ops().any(|known| known == op.as_str()))
    {
        let known: Vec<&str> = differential::known_ops().collect();
        eprintln!("unknown op {unknown:?} (known: {})", known.join(", "));
        return ExitCode::from(2);
    }
    let external = |command: &str| {
        External::new(command, run.timeout)
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
            ExitCode::from(2)
        })
    };
    let description_b = match describe("B", &mut second) {
        Ok(description) => description,
        Err(code) => return code,
    };
    // Without --a, the reference in the generation B implements.
    let (mut first, chosen): (Box<dyn Implementation>, Option<Generation>) = match &run.a {
        Some(command) => (Box::new(external(command)), None),
        None => {
            let generation = differential::reference_generation(&description_b);
            (Box::new(BuiltIn(generation)), Some(generation))
        }
    };
    let description_a = match describe("A", first.as_mut()) {
        Ok(description) => description,
        Err(code) => return code,
    };
    let human = run.format == Format::Human;
    let plan = differential::plan(&description_a, &description_b, run.ops.as_deref());
    if human {
        say!("A: {description_a}");
        if let Some(generation) = chosen {
            say!(
                "A is the reference in its {} generation, the one B's features are from (--a chooses another)",
                generation.name()
            );
        }
        say!("B: {description_b}");
        let compared: Vec<&str> = plan.ops.iter().map(|planned| planned.op).collect();
        say!("compared: {}", compared.join(", "));
        for (op, what) in &plan.mixed {
            say!("generations differ for {op}: {what}");
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
    }
    // SIGINT stops the run; the report so far is still printed. (The
    // implementations run in their own process groups, so the terminal's
    // interrupt does not reach them.)
    let interrupted = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupted);
    if let Err(error) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        eprintln!("differential: no interrupt handler ({error}); an interrupt ends the run without a report");
    }
    let options = differential::Options {
        cases: run.cases,
        seed: run.seed,
        time_limit: run.time_limit,
        interrupted: Some(&interrupted),
        first_class_only: false,
        shrink: true,
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
                return ExitCode::from(2);
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
            .per_op
            .iter()
            .map(|(op, (agreed, run))| format!("{op} {agreed}/{run}"))
            .collect();
        say!("per op: {}", per_op.join(", "));
        if let Some(stopped) = &summary.stopped {
            say!("stopped early: {stopped}");
        }
        say!("{}", summary.line());
        say!("classes {}", summary.classes.len());
    }
    if matches!(summary.stopped, Some(differential::Stopped::Dead(_))) {
        return ExitCode::from(2);
    }
    if summary.cases > 0 && summary.agreed == summary.cases {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn regen(commands: &[String], dir: &std::path::Path) -> ExitCode {
    let suite = match load(Some(dir)) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    // Per vector: the expectation and the oracles (their `describe` names)
    // that answered it.
    let mut answers: HashMap<String, (Expect, Vec<String>)> = HashMap::new();
    for command in commands {
        let mut oracle = External::new(command, Duration::from_secs(30));
        let description = match oracle.describe() {
            Ok(description) => description,
            Err(problem) => {
                eprintln!("{command}: describe failed: {problem}");
                return ExitCode::from(2);
            }
        };
        let declares = |capability: &String| description.capabilities.contains(capability);
        for (_, vector) in suite.vectors() {
            if !vector
                .features
                .iter()
                .any(|feature| description.features.contains(feature))
            {
                continue;
            }
            // An oracle is asked only what it declares it can take
            // (protocol.capabilities): the newer upstream build, for one,
            // does not read snapshots without capturedThroughSeq.
            if !vectors::required_capabilities(&vector.op, &vector.input, &Json::Null)
                .iter()
                .all(declares)
            {
                continue;
            }
            let expect = match oracle.call(&vector.op, &vector.input) {
                Ok(Outcome::Output(output)) => Expect::Output(output),
                Ok(Outcome::Error { code, .. }) if code != UNSUPPORTED => Expect::Error(code),
                Ok(Outcome::Error { .. }) => continue,
                Err(problem) => {
                    eprintln!("{}: {command}: protocol failure: {problem}", vector.id);
                    return ExitCode::from(2);
                }
            };
            if matches!(&expect, Expect::Output(output) if output.has_lone_surrogate())
                && !declares(&vectors::LONE_SURROGATES.to_owned())
            {
                continue;
            }
            match answers.get_mut(&vector.id) {
                Some((earlier, by)) if *earlier != expect => {
                    eprintln!(
                        "{}: the oracles disagree:\n  {}\n  {command}",
                        vector.id,
                        by.join(", ")
                    );
                    return ExitCode::from(2);
                }
                Some((_, by)) => by.push(description.name.clone()),
                None => {
                    answers.insert(vector.id.clone(), (expect, vec![description.name.clone()]));
                }
            }
        }
    }
    for file in &suite.files {
        let text = file.rewritten(&|id| answers.get(id).map(|(expect, _)| expect.clone()));
        if let Err(error) = std::fs::write(&file.path, text) {
            eprintln!("cannot write {}: {error}", file.path.display());
            return ExitCode::from(2);
        }
    }
    // Where the expectations came from (spec/README.md records it).
    let mut provenance: std::collections::BTreeMap<String, usize> = Default::default();
    let mut kept = 0;
    for (_, vector) in suite.vectors() {
        match answers.get(&vector.id) {
            Some((_, by)) => *provenance.entry(by.join(" + ")).or_default() += 1,
            None => kept += 1,
        }
    }
    for (oracles, count) in &provenance {
        say!("{count:5} vectors answered alike by {oracles}");
    }
    if kept > 0 {
        say!("{kept:5} vectors no oracle covers kept their expectation");
    }
    say!(
        "rewrote {} expectations in {} files",
        answers.len(),
        suite.files.len()
    );
    ExitCode::SUCCESS
}
