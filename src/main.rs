//! `dsh-session-reference`: the conformance suite, the reference adapter and
//! the vector tools.

use clap::{Parser, Subcommand};
use dsh_session_reference::protocol::server;
use dsh_session_reference::protocol::wire::{Outcome, UNSUPPORTED};
use dsh_session_reference::runner::adapter::{BuiltIn, External, Implementation};
use dsh_session_reference::runner::vectors::{Expect, Suite};
use dsh_session_reference::runner::{self, Status};
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
        /// Run only vectors whose id matches (substring, or `*` wildcards).
        #[arg(long)]
        filter: Vec<String>,
        /// Seconds to wait for each answer.
        #[arg(long, default_value_t = 10)]
        timeout: u64,
        /// Directory of vector files.
        #[arg(long, default_value = DEFAULT_VECTORS)]
        vectors: PathBuf,
        /// Print every vector, not only failures.
        #[arg(short, long)]
        verbose: bool,
    },
    /// Speak the adapter protocol on stdin/stdout with the reference.
    Adapter,
    /// Rewrite each vector's `expect` with what an implementation (the
    /// upstream oracle) answers. Vectors whose features it lacks are kept.
    Regen {
        /// Command that starts the oracle adapter.
        #[arg(long = "impl")]
        implementation: String,
        /// Directory of vector files.
        #[arg(long, default_value = DEFAULT_VECTORS)]
        vectors: PathBuf,
    },
}

/// The suite shipped with this crate.
const DEFAULT_VECTORS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/conformance/vectors");

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Conformance {
            implementation,
            filter,
            timeout,
            vectors,
            verbose,
        } => conformance(
            implementation,
            &filter,
            Duration::from_secs(timeout),
            &vectors,
            verbose,
        ),
        Command::Adapter => match server::serve(io::stdin().lock(), io::stdout().lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("adapter: {error}");
                ExitCode::from(2)
            }
        },
        Command::Regen {
            implementation,
            vectors,
        } => regen(&implementation, &vectors),
    }
}

fn load(dir: &std::path::Path) -> Result<Suite, ExitCode> {
    Suite::load(dir).map_err(|error| {
        eprintln!("cannot load vectors: {error}");
        ExitCode::from(2)
    })
}

fn conformance(
    implementation: Option<String>,
    filters: &[String],
    timeout: Duration,
    dir: &std::path::Path,
    verbose: bool,
) -> ExitCode {
    let suite = match load(dir) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let mut subject: Box<dyn Implementation> = match &implementation {
        Some(command) => Box::new(External::new(command, timeout)),
        None => Box::new(BuiltIn),
    };
    let description = match subject.describe() {
        Ok(description) => description,
        Err(problem) => {
            eprintln!("describe failed: {problem}");
            return ExitCode::from(2);
        }
    };
    println!(
        "implementation: {} {} (features: {})",
        description.name,
        description.version,
        description.features.join(", ")
    );
    let report = runner::run(
        &suite,
        subject.as_mut(),
        &description.features,
        filters,
        |vector, result| match &result.status {
            Status::Failed(detail) => {
                println!("FAIL {} [{}]\n  {detail}", vector.id, vector.op);
            }
            Status::Passed if verbose => println!("ok   {}", vector.id),
            _ => {}
        },
    );
    let skipped_feature = report
        .results
        .iter()
        .filter(|r| r.status == Status::SkippedFeature)
        .count();
    let skipped_unsupported = report
        .results
        .iter()
        .filter(|r| r.status == Status::SkippedUnsupported)
        .count();
    if skipped_feature + skipped_unsupported > 0 {
        println!(
            "skipped: {skipped_feature} for undeclared features, {skipped_unsupported} answered {UNSUPPORTED}"
        );
    }
    println!("{}", report.summary());
    if report.failed() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn regen(command: &str, dir: &std::path::Path) -> ExitCode {
    let suite = match load(dir) {
        Ok(suite) => suite,
        Err(code) => return code,
    };
    let mut oracle = External::new(command, Duration::from_secs(30));
    let features = match oracle.describe() {
        Ok(description) => description.features,
        Err(problem) => {
            eprintln!("describe failed: {problem}");
            return ExitCode::from(2);
        }
    };
    let mut answers: HashMap<String, Expect> = HashMap::new();
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
                eprintln!("{}: protocol failure: {problem}", vector.id);
                return ExitCode::from(2);
            }
        };
        answers.insert(vector.id.clone(), expect);
    }
    for file in &suite.files {
        let text = file.rewritten(&|id| answers.get(id).cloned());
        if let Err(error) = std::fs::write(&file.path, text) {
            eprintln!("cannot write {}: {error}", file.path.display());
            return ExitCode::from(2);
        }
    }
    println!(
        "rewrote {} expectations in {} files",
        answers.len(),
        suite.files.len()
    );
    ExitCode::SUCCESS
}
