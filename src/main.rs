//! `dsh-session-reference`: the conformance suite, the reference adapter and
//! the vector tools.

use clap::{Parser, Subcommand};
use dsh_session_reference::config::{Config, Generation, NoModels};
use dsh_session_reference::js::json;
use dsh_session_reference::pre_step::pre_step;
use dsh_session_reference::prepare::{Agent, Services};
use dsh_session_reference::protocol::server;
use dsh_session_reference::protocol::wire::{Outcome, UNSUPPORTED};
use dsh_session_reference::runner::adapter::{BuiltIn, External, Implementation};
use dsh_session_reference::runner::vectors::{Expect, Suite, Vector};
use dsh_session_reference::runner::{self, differential, report, Selection, Status, VectorResult};
use dsh_session_reference::spill::{FolderSpillStore, SpillStore};
use dsh_session_reference::surface::FolderReader;
use dsh_session_reference::{JsString, Json};
use std::collections::HashMap;
use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
        /// Directory of vector files.
        #[arg(long, default_value = DEFAULT_VECTORS)]
        vectors: PathBuf,
        /// Print every vector, not only failures.
        #[arg(short, long)]
        verbose: bool,
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
    /// report where they disagree (shrunk), then `agree N/M`. Exit 0 when
    /// they agree on every case, 1 otherwise, 2 when one cannot be used.
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
    },
    /// Rewrite each vector's `expect` with what the oracles answer (the
    /// upstream package, and the emulation of its newest generation). Every
    /// oracle that declares one of a vector's features is asked; they must
    /// agree. Vectors no oracle covers are kept as they are.
    Regen {
        /// Command that starts an oracle adapter (repeatable).
        #[arg(long = "impl", required = true)]
        implementations: Vec<String>,
        /// Directory of vector files.
        #[arg(long, default_value = DEFAULT_VECTORS)]
        vectors: PathBuf,
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
    vectors: PathBuf,
    verbose: bool,
}

/// The suite shipped with this crate.
const DEFAULT_VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/vectors");

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
            verbose,
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
            verbose,
        }),
        Command::Adapter { generation } => {
            match server::serve(generation, io::stdin().lock(), io::stdout().lock()) {
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
        } => differential(a, &b, cases, seed, ops, Duration::from_secs(timeout)),
    }
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

fn load(dir: &std::path::Path) -> Result<Suite, ExitCode> {
    Suite::load(dir).map_err(|error| {
        eprintln!("cannot load vectors: {error}");
        ExitCode::from(2)
    })
}

fn conformance(run: ConformanceRun) -> ExitCode {
    let suite = match load(&run.vectors) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let base = std::env::current_dir().unwrap_or_default();
    let human = run.format == Format::Human;
    let show = |_: &Vector, result: &VectorResult| match &result.status {
        Status::Failed(detail) if human => {
            say!("{}", report::failure_block(result, detail, &base));
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
                profiles.push(description.to_json());
            }
            let implementation = Json::object([("profiles", Json::Array(profiles))]);
            let report = runner::run_reference(&suite, &run.selection, show);
            (report, implementation)
        }
        Some(command) => {
            let mut subject = External::new(command, run.timeout);
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
            let implementation = description.to_json();
            let report = runner::run(
                &suite,
                &mut subject,
                &description.features,
                &run.selection,
                show,
            );
            (report, implementation)
        }
    };
    if let Some(path) = &run.junit {
        let xml = report::to_junit(&report, "dsh-session-reference conformance", &base);
        if let Err(error) = std::fs::write(path, xml) {
            eprintln!("cannot write {}: {error}", path.display());
            return ExitCode::from(2);
        }
    }
    if human {
        if let Some(skips) = report::skip_breakdown(&report) {
            say!("{skips}");
        }
        say!("{}", report.summary());
    } else {
        say!("{}", report::json_text(&report, implementation, &base));
    }
    if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn differential(
    a: Option<String>,
    b: &str,
    cases: u64,
    seed: u64,
    ops: Option<Vec<String>>,
    timeout: Duration,
) -> ExitCode {
    if let Some(unknown) = ops
        .iter()
        .flatten()
        .find(|op| !differential::known_ops().any(|known| known == op.as_str()))
    {
        let known: Vec<&str> = differential::known_ops().collect();
        eprintln!("unknown op {unknown:?} (known: {})", known.join(", "));
        return ExitCode::from(2);
    }
    let mut first: Box<dyn Implementation> = match &a {
        Some(command) => Box::new(External::new(command, timeout)),
        None => Box::new(BuiltIn(Generation::Newest)),
    };
    let mut second = External::new(b, timeout);
    let describe = |name: &str, implementation: &mut dyn Implementation| {
        implementation.describe().map_err(|problem| {
            eprintln!("{name}: describe failed: {problem}");
            ExitCode::from(2)
        })
    };
    let (description_a, description_b) =
        match (describe("A", first.as_mut()), describe("B", &mut second)) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(code), _) | (_, Err(code)) => return code,
        };
    say!("A: {description_a}");
    say!("B: {description_b}");
    let plan = differential::plan(&description_a, &description_b, ops.as_deref());
    let compared: Vec<&str> = plan.ops.iter().map(|planned| planned.op).collect();
    say!("compared: {}", compared.join(", "));
    for (op, what) in &plan.mixed {
        say!("generations differ for {op}: {what}");
    }
    for (op, why) in &plan.left_out {
        say!("not compared: {op} ({why})");
    }
    let summary = differential::run(&plan, first.as_mut(), &mut second, cases, seed, |found| {
        say!(
            "DISAGREE case {} ({}), shrunk in {} steps\n  input: {}\n  {}",
            found.case,
            found.op,
            found.shrink_steps,
            json::to_ascii(&found.input),
            found.detail
        );
    });
    let per_op: Vec<String> = summary
        .per_op
        .iter()
        .map(|(op, (agreed, run))| format!("{op} {agreed}/{run}"))
        .collect();
    say!("per op: {}", per_op.join(", "));
    say!("{}", summary.line());
    if summary.cases > 0 && summary.agreed == summary.cases {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn regen(commands: &[String], dir: &std::path::Path) -> ExitCode {
    let suite = match load(dir) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let mut answers: HashMap<String, (Expect, String)> = HashMap::new();
    for command in commands {
        let mut oracle = External::new(command, Duration::from_secs(30));
        let features = match oracle.describe() {
            Ok(description) => description.features,
            Err(problem) => {
                eprintln!("{command}: describe failed: {problem}");
                return ExitCode::from(2);
            }
        };
        for (_, vector) in suite.vectors() {
            if !vector
                .features
                .iter()
                .any(|feature| features.contains(feature))
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
            match answers.get(&vector.id) {
                Some((earlier, by)) if *earlier != expect => {
                    eprintln!("{}: the oracles disagree:\n  {by}\n  {command}", vector.id);
                    return ExitCode::from(2);
                }
                Some(_) => {}
                None => {
                    answers.insert(vector.id.clone(), (expect, command.clone()));
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
    say!(
        "rewrote {} expectations in {} files",
        answers.len(),
        suite.files.len()
    );
    ExitCode::SUCCESS
}
