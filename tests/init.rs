//! `init` as a newcomer meets it (spec `runner.init`, `runner.reports`):
//! each skeleton, written into a fresh folder by the built binary, runs the
//! command `init` prints from that folder, exiting 0 with nothing failed,
//! every op's vectors answered `UNSUPPORTED` and the op to implement first
//! named; a folder that is not empty is left as it was.

mod common;

use common::Scratch;
use dsh_session_reference::harness::commands::init::{skeleton, Language};
use std::path::Path;
use std::process::{Command, Output};

const BINARY: &str = env!("CARGO_BIN_EXE_dsh-session-reference");

fn init(language: &str, dir: &Path, extra: &[&str]) -> Output {
    Command::new(BINARY)
        .args(["init", "--lang", language])
        .arg(dir)
        .args(extra)
        .output()
        .expect("run init")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `command` with `sh` from `dir`, this build's binary first on PATH
/// under its installed name.
fn run_from(dir: &Path, command: &str) -> Output {
    let bin = Path::new(BINARY).parent().expect("the binary's folder");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .expect("run the printed command")
}

/// Writes `language`'s skeleton, checks what `init` printed, runs its last
/// line from the folder, and checks the run (runner.init).
fn the_printed_command_passes(language: &str, prepare: impl FnOnce(&Path)) {
    let scratch = Scratch::new("init", language);
    let dir = scratch.0.join("my-port");
    let written = init(language, &dir, &[]);
    assert!(written.status.success(), "{}", text(&written.stderr));
    let printed = text(&written.stdout);
    let command = printed.lines().last().expect("a last line").to_owned();
    assert!(
        command.contains("dsh-session-reference conformance --impl"),
        "{printed}"
    );
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("a README");
    assert!(
        readme.contains(&command),
        "the README says another command than {command:?}"
    );
    assert!(dir.join(".github/workflows/conformance.yml").is_file());
    prepare(&dir);
    let run = run_from(&dir, &command);
    let stdout = text(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&run.stderr)
    );
    let summary = stdout.lines().last().expect("a summary line");
    assert!(summary.starts_with("0 passed, 0 failed, "), "{summary}");
    assert!(
        stdout.contains("\nimplement first: json/tag-safe ("),
        "no op named first:\n{stdout}"
    );
    let skipped = stdout
        .lines()
        .find(|line| line.starts_with("skipped: "))
        .expect("a skip line");
    for op in [
        "uri/encode",
        "retain",
        "pre-step",
        "candidates/remote",
        "files/list",
    ] {
        assert!(
            skipped.contains(&format!("{op}: ")),
            "{op} not answered UNSUPPORTED: {skipped}"
        );
    }
}

#[test]
fn the_python_skeleton_runs_green_on_the_first_try() {
    the_printed_command_passes("python", |dir| {
        assert!(dir.join("adapter.py").is_file());
    });
}

#[test]
fn the_node_skeleton_runs_green_on_the_first_try() {
    the_printed_command_passes("node", |dir| {
        assert!(dir.join("adapter.mjs").is_file());
    });
}

/// The Rust skeleton builds against this checkout (its dependency patched
/// here, as its README says) and its command passes (runner.init).
#[test]
#[ignore = "heavy: builds the Rust skeleton (about 30 s)"]
fn the_rust_skeleton_builds_here_and_runs_green() {
    the_printed_command_passes("rust", |dir| {
        let manifest = dir.join("Cargo.toml");
        let mut toml = std::fs::read_to_string(&manifest).expect("Cargo.toml");
        toml.push_str(&format!(
            "\n[patch.crates-io]\ndsh-session-reference = {{ path = {:?} }}\n",
            env!("CARGO_MANIFEST_DIR")
        ));
        std::fs::write(&manifest, toml).expect("patch Cargo.toml");
    });
}

/// A folder that is not empty is refused with exit 2 and left as it was;
/// `--force` writes over it (runner.init).
#[test]
fn init_changes_nothing_in_a_folder_that_is_not_empty() {
    let scratch = Scratch::new("init", "not-empty");
    let mine = scratch.0.join("adapter.py");
    std::fs::write(&mine, "my own work\n").expect("write");
    let refused = init("python", &scratch.0, &[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("is not empty"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&mine).expect("read"),
        "my own work\n"
    );
    let entries = std::fs::read_dir(&scratch.0).expect("read dir").count();
    assert_eq!(entries, 1, "init wrote beside the file");

    let forced = init("python", &scratch.0, &["--force"]);
    assert!(forced.status.success(), "{}", text(&forced.stderr));
    assert_ne!(
        std::fs::read_to_string(&mine).expect("read"),
        "my own work\n"
    );
}

/// An unknown language is refused with the list of languages (runner.init).
#[test]
fn an_unknown_language_lists_the_languages() {
    let scratch = Scratch::new("init", "unknown");
    let refused = init("cobol", &scratch.0.join("port"), &[]);
    assert_eq!(refused.status.code(), Some(2));
    let stderr = text(&refused.stderr);
    assert!(stderr.contains("python, node, rust"), "{stderr}");
    assert!(!scratch.0.join("port").exists());
}

/// Every skeleton file is a template of `conformance/adapters/skeleton/`
/// byte for byte, so that what the suite tests is what `init` writes, and
/// each language's README names its own command (runner.init).
#[test]
fn the_skeletons_are_the_files_of_the_source_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/adapters/skeleton");
    for (language, folder) in [
        (Language::Python, "python"),
        (Language::Node, "node"),
        (Language::Rust, "rust"),
    ] {
        let files = skeleton(language);
        assert!(files.iter().any(|(path, _)| path == "README.md"));
        for (relative, text) in files {
            let source = root.join(folder).join(&relative);
            let source = if source.exists() {
                source
            } else {
                root.join(folder).join(format!("{relative}.template"))
            };
            assert_eq!(
                std::fs::read_to_string(&source).expect("the template exists"),
                text,
                "{}",
                source.display()
            );
            if relative == "README.md" {
                assert!(text.contains(language.command()), "{folder}'s README");
            }
        }
    }
}
