//! `init`: a skeleton adapter for a new port (spec `runner.init`), written
//! from the files of `conformance/adapters/skeleton/<language>/`, which
//! `build.rs` embeds: what `init` writes is what the suite tests, one copy.
//!
//! A skeleton speaks the protocol, answers `describe`, and answers
//! `UNSUPPORTED` for every op until the port writes it, so its first run
//! exits 0 with every vector skipped and names the op to implement first.

use super::output::say;
use super::Exit;
use crate::harness::embedded::SKELETON_FILES;
use std::path::{Path, PathBuf};

/// The languages `init` writes a skeleton in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Language {
    /// Python 3, standard library only (`adapter.py`).
    Python,
    /// Node 18 or later, standard library only (`adapter.mjs`).
    Node,
    /// Rust, on the protocol kit of this crate (`src/main.rs`).
    Rust,
}

impl Language {
    /// The folder of its skeleton below `conformance/adapters/skeleton`.
    fn folder(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Node => "node",
            Language::Rust => "rust",
        }
    }

    /// The command that runs the suite on the fresh skeleton, from its
    /// folder; its README says the same.
    pub fn command(self) -> &'static str {
        match self {
            Language::Python => r#"dsh-session-reference conformance --impl "python3 adapter.py""#,
            Language::Node => r#"dsh-session-reference conformance --impl "node adapter.mjs""#,
            Language::Rust => "cargo build --release && dsh-session-reference conformance --impl target/release/my-port-adapter",
        }
    }
}

/// The skeleton's files: (path below the folder written, contents). A
/// template named `*.template` is written without that suffix: a
/// `Cargo.toml` in the source tree would make the skeleton a package of
/// its own, which `cargo package` leaves out of this crate.
pub fn skeleton(language: Language) -> Vec<(String, &'static str)> {
    let prefix = format!("{}/", language.folder());
    SKELETON_FILES
        .iter()
        .filter_map(|(path, text)| {
            let relative = path.strip_prefix(&prefix)?;
            let relative = relative.strip_suffix(".template").unwrap_or(relative);
            Some((relative.to_owned(), *text))
        })
        .collect()
}

/// Writes `language`'s skeleton into `dir` (created when missing), which
/// must be empty unless `force` (then the skeleton's files replace those of
/// the same name, and nothing else is touched). Prints each file written
/// and, last, the command to run from `dir`.
pub fn run(language: Language, dir: &Path, force: bool) -> Exit {
    if !force {
        match first_entry(dir) {
            Ok(None) => {}
            Ok(Some(entry)) => {
                eprintln!(
                    "init: {} is not empty (it holds {}): nothing written; use --force to write the skeleton's files over it",
                    dir.display(),
                    entry.display()
                );
                return Exit::Unusable;
            }
            Err(error) => {
                eprintln!("init: cannot read {}: {error}", dir.display());
                return Exit::Unusable;
            }
        }
    }
    for (relative, text) in skeleton(language) {
        let path = dir.join(&relative);
        if let Err(error) = write(&path, text) {
            eprintln!("init: cannot write {}: {error}", path.display());
            return Exit::Unusable;
        }
        say!("wrote {}", path.display());
    }
    say!(
        "a {} skeleton: every op answers UNSUPPORTED until you write it (README.md). Run the suite from {}:",
        language.folder(),
        dir.display()
    );
    say!("{}", language.command());
    Exit::Success
}

/// The first entry of `dir`, `None` when it is empty or does not exist.
fn first_entry(dir: &Path) -> std::io::Result<Option<PathBuf>> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries
            .next()
            .transpose()
            .map(|entry| entry.map(|entry| entry.path())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error),
    }
}

/// Writes one file, creating its folders; an adapter script is made
/// executable, as its `#!` line expects.
fn write(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, text)?;
    #[cfg(unix)]
    if text.starts_with("#!") {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}
