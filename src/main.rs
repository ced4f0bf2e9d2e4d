//! `dsh-session-reference`: the conformance suite, the reference adapter and
//! the vector tools.
//!
//! The command line alone: its arguments (their doc comments are the
//! `--help` text) and the exit status of each command. What each command
//! does is the harness library's, in `harness::commands`.

/// The binary's allocator. A protocol message of megabytes becomes hundreds
/// of thousands of small strings and vectors; with glibc's allocator the
/// reference adapter spent about 40% of a 100 000-session `candidates/list`
/// allocating and freeing them (issue #13). The library never chooses an
/// allocator: this is the binary's choice.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};
use dsh_session_reference::features::{self, Declared, Features, Release};
use dsh_session_reference::harness::commands::conformance::{self, ConformanceArgs};
use dsh_session_reference::harness::commands::differential::{self, DifferentialArgs};
use dsh_session_reference::harness::commands::init::{self, Language};
use dsh_session_reference::harness::commands::{adapter, prepare, report, vectors, Exit};
use dsh_session_reference::js::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// `--version`: the crate's version and the embedded suite's hash (spec
/// `runner.suite-version`).
static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{} (suite {})",
        env!("CARGO_PKG_VERSION"),
        dsh_session_reference::harness::runner::vectors::embedded_hash()
    )
});

#[derive(Parser)]
#[command(
    version = VERSION.as_str(),
    about = "Session references: reference implementation and conformance suite"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write a skeleton adapter for a new port into DIR: the protocol's
    /// framing, `describe`, and one stub per op answering UNSUPPORTED, with
    /// a README of next steps and a CI workflow. The last line printed is
    /// the command that runs the suite on it from DIR. Exit 0 when written,
    /// 2 when DIR is not empty (nothing written) or cannot be written.
    Init {
        /// The language of the port.
        #[arg(long = "lang", value_enum)]
        language: Language,
        /// The folder to write (created when missing; default: the
        /// current folder).
        #[arg(default_value = ".")]
        dir: PathBuf,
        /// Write into a folder that is not empty, replacing files of the
        /// skeleton's names.
        #[arg(long)]
        force: bool,
    },
    /// Run the conformance vectors against an implementation (the built-in
    /// reference when --impl is absent). Exit 0 when nothing failed, 1 on
    /// failures, 2 when the suite or the implementation could not be used.
    Conformance(ConformanceArgs),
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
        /// Behave as this upstream release, its ops and behaviours (spec
        /// `runner.releases`: 0.0.1-rc.1, 0.1.0-rc.1 … rc.3, rc.5 … rc.8,
        /// 0.1.1-rc.1, rc.2, 0.1.2-rc.1, newer-62dde13e, newest).
        #[arg(long, value_parser = parse_release, conflicts_with_all = ["features", "generation"])]
        release: Option<&'static Release>,
        /// Behave with these features (comma-separated behaviours, or the
        /// first vocabulary's names, as a port declares them).
        #[arg(long, value_delimiter = ',', conflicts_with = "generation")]
        features: Option<Vec<String>>,
        /// The first command line's name for a release: `rc8` is
        /// 0.1.0-rc.8, `newest` the newest.
        #[arg(long, value_parser = parse_release, hide = true)]
        generation: Option<&'static Release>,
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
    Differential(DifferentialArgs),
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

fn main() -> ExitCode {
    let command = Cli::parse().command;
    // Requests and vectors may nest up to `json::MAX_DEPTH` levels, which
    // reading, answering and writing walk recursively: every command runs
    // on a thread with the stack for it (spec `wire.json.depth`).
    let running = std::thread::Builder::new()
        .name("main".into())
        .stack_size(json::STACK_BYTES)
        .spawn(move || run(command));
    let exit = match running.map(std::thread::JoinHandle::join) {
        Ok(Ok(exit)) => exit,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(error) => {
            eprintln!("cannot start the main thread: {error}");
            Exit::Unusable
        }
    };
    // The exit statuses the commands' help texts promise (spec
    // `runner.exit-status`).
    match exit {
        Exit::Success => ExitCode::SUCCESS,
        Exit::Failed => ExitCode::from(1),
        Exit::Unusable => ExitCode::from(2),
    }
}

/// Runs one command.
fn run(command: Command) -> Exit {
    match command {
        Command::Conformance(args) => conformance::run(args),
        Command::Init {
            language,
            dir,
            force,
        } => init::run(language, &dir, force),
        Command::Show { id, vectors: dir } => vectors::show(&id, dir.as_deref()),
        Command::Vectors {
            command: VectorsCommand::Export { dir },
        } => vectors::export(&dir),
        Command::Adapter {
            release,
            features,
            generation,
        } => adapter::run(match (release.or(generation), features) {
            (Some(release), _) => Declared::release(release),
            (None, Some(names)) => {
                Declared::every_op(Declared::from_names(names.iter().map(String::as_str)).features)
            }
            (None, None) => Declared::every_op(Features::NEWEST),
        }),
        Command::Prepare {
            text,
            sessions,
            agent,
            max_reference_bytes,
            spill_dir,
        } => prepare::run(&text, &sessions, &agent, max_reference_bytes, spill_dir),
        Command::Regen {
            implementations,
            vectors: dir,
        } => vectors::regen(&implementations, &dir),
        Command::Differential(args) => differential::run(args),
        Command::Report {
            reports,
            html,
            markdown,
        } => report::run(&reports, &html, markdown.as_deref()),
    }
}

fn parse_release(name: &str) -> Result<&'static Release, String> {
    features::release(name).ok_or_else(|| {
        let known: Vec<&str> = features::RELEASES
            .iter()
            .map(|release| release.name)
            .collect();
        format!("unknown release {name:?} ({}, or rc8)", known.join(", "))
    })
}
