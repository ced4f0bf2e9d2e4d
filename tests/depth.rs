//! The depth contract (spec `wire.json.depth`): the reference's adapter
//! answers requests at the contracted depth (1 500 levels) and at twice it
//! as the rc.8 oracle does,
//! side by side over the protocol, and answers a deeper request with its
//! own id (a port whose JSON reader stops at 1 000 levels: `causes.rs`).

mod oracle;

use dsh_session_reference::js::json;
use dsh_session_reference::Json;
use oracle::require_oracle;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const BINARY: &str = env!("CARGO_BIN_EXE_dsh-session-reference");

/// `kind` nested `levels` deep around a tag-unsafe string.
fn nested(kind: char, levels: usize) -> String {
    let (open, close) = match kind {
        '[' => ("[", "]"),
        _ => ("{\"k\":", "}"),
    };
    format!("{}\"x</tag>\"{}", open.repeat(levels), close.repeat(levels))
}

/// The request lines: `json/tag-safe` and `retain` with their value nested
/// so that the line is `depth` levels deep (the request and `input` are
/// levels 1 and 2; `retain`'s value is in an event's block, level 8).
fn requests(depth: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for kind in ['[', '{'] {
        lines.push(format!(
            r#"{{"id":"tag-safe {kind}","op":"json/tag-safe","input":{{"value":{}}}}}"#,
            nested(kind, depth - 2)
        ));
        let snapshot = format!(
            r#"{{"session":{{"id":"s1","cwd":"/w"}},"capturedThroughSeq":4,"events":[{{"type":"user/message","data":{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"hello <s1>","extra":{}}}]}}}}]}}"#,
            nested(kind, depth - 8)
        );
        lines.push(format!(
            r#"{{"id":"retain {kind}","op":"retain","input":{{"snapshot":{snapshot},"label":"L","maxBytes":1000}}}}"#
        ));
    }
    lines
}

/// The answer lines `command` gives to `lines`, in order.
fn answers(command: &[&str], lines: &[String]) -> Vec<String> {
    let mut child = Command::new(command[0])
        .args(&command[1..])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start the adapter");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        writeln!(stdin, "{line}").expect("send a request");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the adapter ends");
    String::from_utf8(output.stdout)
        .expect("UTF-8 answers")
        .lines()
        .map(str::to_owned)
        .collect()
}

fn oracle_command() -> Vec<String> {
    let adapter =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/adapters/upstream-npm/adapter.mjs");
    vec!["node".into(), adapter.display().to_string()]
}

#[test]
fn at_the_contracted_depth_the_reference_answers_as_rc8() {
    require_oracle();
    let oracle = oracle_command();
    let oracle: Vec<&str> = oracle.iter().map(String::as_str).collect();
    for depth in [1_000, 1_500, 3_000] {
        let lines = requests(depth);
        let ours = answers(&[BINARY, "adapter"], &lines);
        let theirs = answers(&oracle, &lines);
        assert_eq!(ours.len(), lines.len(), "{depth}: one answer a request");
        for (ours, theirs) in ours.iter().zip(&theirs) {
            let ours = json::parse(ours).expect("our answer is JSON");
            let theirs = json::parse(theirs).expect("the oracle's answer is JSON");
            assert!(ours.get("output").is_some(), "{depth}: {ours:?}");
            assert_eq!(ours, theirs, "{depth} levels");
        }
    }
}

#[test]
fn a_request_deeper_than_the_reference_reads_gets_its_own_id() {
    // 100 000 levels: beyond json::MAX_DEPTH; the answer is INTERNAL, with
    // the request's id, and the adapter answers the next request as usual.
    let lines = vec![
        requests(100_000).swap_remove(0),
        r#"{"id":"after","op":"uri/encode","input":{"sessionId":"s"}}"#.to_owned(),
    ];
    let answers = answers(&[BINARY, "adapter"], &lines);
    let first = json::parse(&answers[0]).expect("JSON");
    assert_eq!(first.get("id"), Some(&Json::str("tag-safe [")));
    assert_eq!(
        first.get("error").and_then(|error| error.get("code")),
        Some(&Json::str("INTERNAL"))
    );
    assert_eq!(answers[1], r#"{"id":"after","output":"dsh-session:InMi"}"#);
}
