//! Every release in upstream's history by name (spec `runner.releases`),
//! through the built binary: a port that declares `"release": "0.1.0-rc.5"`
//! is run as the releases before rc.8 are (no `pre-step`, no Remote face),
//! one that declares `0.1.1-rc.2` as rc.8, and an unknown release stops the
//! run before any vector with the list of the known ones.

mod common;

use common::Scratch;
use std::path::Path;
use std::process::{Command, Output};

const BINARY: &str = env!("CARGO_BIN_EXE_dsh-session-reference");

/// A port written by `init --lang python` that declares `release` and
/// answers every op `UNSUPPORTED`, run through the whole suite.
fn skeleton_declaring(scratch: &Scratch, release: &str) -> Output {
    let dir = scratch.0.join(release);
    let init = Command::new(BINARY)
        .args(["init", "--lang", "python"])
        .arg(&dir)
        .output()
        .expect("init");
    assert!(init.status.success());
    let adapter = dir.join("adapter.py");
    let text = std::fs::read_to_string(&adapter).expect("adapter.py");
    let shipped = r#""release": "0.1.0-rc.8","#;
    assert!(text.contains(shipped), "the skeleton declares a release");
    let declared = text.replace(shipped, &format!(r#""release": "{release}","#));
    std::fs::write(&adapter, declared).expect("write adapter.py");
    Command::new(BINARY)
        .args(["conformance", "--impl", "python3 adapter.py"])
        .current_dir(&dir)
        .output()
        .expect("run conformance")
}

/// The ops the run sent (each answered `UNSUPPORTED`), from the skip line.
fn ops_sent(output: &Output) -> Vec<String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let skipped = stdout
        .lines()
        .find(|line| line.starts_with("skipped: "))
        .expect("a skip line");
    let unsupported = skipped
        .split("; ")
        .find(|part| part.contains("answered UNSUPPORTED"))
        .expect("answered UNSUPPORTED");
    let list = unsupported
        .split_once(" (")
        .map(|(_, list)| list.trim_end_matches(')'))
        .expect("per op");
    list.split(", ")
        .map(|entry| entry.split(": ").next().unwrap_or_default().to_owned())
        .collect()
}

/// runner.releases, runner.releases.before-rc8: 0.1.0-rc.5 is sent every
/// op but `pre-step` and
/// `candidates/remote`; 0.1.1-rc.2 every op, as 0.1.0-rc.8.
#[test]
fn a_declared_release_is_run_as_its_ops() {
    let scratch = Scratch::new("releases", "declared");
    let rc5 = skeleton_declaring(&scratch, "0.1.0-rc.5");
    assert_eq!(rc5.status.code(), Some(0));
    let sent = ops_sent(&rc5);
    assert!(
        !sent
            .iter()
            .any(|op| op == "pre-step" || op == "candidates/remote"),
        "{sent:?}"
    );
    assert!(sent.iter().any(|op| op == "candidates/list") && sent.iter().any(|op| op == "prepare"));
    assert!(String::from_utf8_lossy(&rc5.stdout).contains("(release 0.1.0-rc.5; "));

    let later = ops_sent(&skeleton_declaring(&scratch, "0.1.1-rc.2"));
    let rc8 = ops_sent(&skeleton_declaring(&scratch, "0.1.0-rc.8"));
    assert_eq!(later, rc8);
    assert!(
        rc8.iter().any(|op| op == "pre-step") && rc8.iter().any(|op| op == "candidates/remote")
    );
}

/// runner.releases, runner.exit-status: an unknown release, declared or
/// asked for, runs nothing and lists the known releases (exit 2).
#[test]
fn an_unknown_release_runs_nothing_and_lists_the_known_ones() {
    let scratch = Scratch::new("releases", "unknown");
    let declared = skeleton_declaring(&scratch, "0.1.4-rc.1");
    let asked = Command::new(BINARY)
        .args(["conformance", "--release", "0.1.4-rc.1"])
        .current_dir(Path::new(&scratch.0))
        .output()
        .expect("run conformance");
    for output in [declared, asked] {
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("unknown release \"0.1.4-rc.1\""),
            "{stderr}"
        );
        for known in ["0.0.1-rc.1", "0.1.0-rc.5", "0.1.1-rc.2", "newest"] {
            assert!(stderr.contains(known), "{stderr}");
        }
        assert!(!String::from_utf8_lossy(&output.stdout).contains(" passed, "));
    }
}

/// runner.releases, runner.releases.before-rc8: the reference as
/// 0.1.0-rc.7 answers `pre-step` and
/// `candidates/remote` UNSUPPORTED, and describes itself as that release.
#[test]
fn the_reference_serves_a_release_without_pre_step() {
    let mut adapter = Command::new(BINARY)
        .args(["adapter", "--release", "0.1.0-rc.7"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start the adapter");
    {
        use std::io::Write as _;
        let mut stdin = adapter.stdin.take().expect("stdin");
        stdin
            .write_all(
                concat!(
                    r#"{"id":"0","op":"describe","input":{}}"#,
                    "\n",
                    r#"{"id":"1","op":"pre-step","input":{}}"#,
                    "\n",
                    r#"{"id":"2","op":"candidates/remote","input":{}}"#,
                    "\n",
                    r#"{"id":"3","op":"config/check","input":{"config":{}}}"#,
                    "\n"
                )
                .as_bytes(),
            )
            .expect("write requests");
    }
    let output = adapter.wait_with_output().expect("answers");
    let answers: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect();
    assert_eq!(answers.len(), 4, "{answers:?}");
    assert!(
        answers[0].contains(r#""release":"0.1.0-rc.7""#),
        "{}",
        answers[0]
    );
    assert!(
        answers[0].contains(r#""candidates-list""#),
        "{}",
        answers[0]
    );
    assert!(!answers[0].contains(r#""pre-step""#), "{}", answers[0]);
    for answer in &answers[1..3] {
        assert!(answer.contains(r#""code":"UNSUPPORTED""#), "{answer}");
    }
    assert_eq!(answers[3], r#"{"id":"3","output":true}"#);
}
