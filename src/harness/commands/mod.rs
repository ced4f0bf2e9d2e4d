//! The commands of the `dsh-session-reference` binary, one module per
//! command: what each does once its arguments are parsed, and what it
//! prints. The binary (`src/main.rs`) keeps the command line itself (its
//! arguments and their `--help` text) and turns each command's [`Exit`]
//! into the process's exit status (spec `runner.exit-status`).
//!
//! Here rather than in the binary so that the harness library holds the
//! whole harness, and the binary stays a thin layer over it.

mod output;

pub mod adapter;
pub mod conformance;
pub mod differential;
pub mod init;
pub mod prepare;
pub mod report;
pub mod vectors;

/// How a command ended; the binary makes it the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Exit 0: the command was done, and nothing failed.
    Success,
    /// Exit 1: the command was done, and something failed: a vector (with
    /// a baseline, one not listed), a case the implementations disagree on,
    /// a message that could not be prepared.
    Failed,
    /// Exit 2: the command could not be done: the vectors, an
    /// implementation, a file or standard output could not be used.
    Unusable,
}

/// How `conformance` and `differential` print their results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// A line per failure (per vector with -v), skip reasons, a summary line.
    Human,
    /// One JSON object on standard output (`runner::report::to_json`).
    Json,
}
