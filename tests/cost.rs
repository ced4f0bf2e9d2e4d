//! Cost vectors through the command line (spec `runner.cost`): skipped and
//! counted apart without `--cost`; with it, the reference passes and a port
//! with one quadratic step fails on that op only.

use dsh_session_reference::js::json::{self, Json};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

/// The timed runs take turns: each is judged on its own growth, not on the
/// other's load (the runner tolerates load; the test need not add it).
static TIMED: Mutex<()> = Mutex::new(());

/// Runs `conformance` on the cost vectors with `args`; its exit code and
/// JSON report.
fn cost_run(args: &[&str]) -> (Option<i32>, Json) {
    let output = Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args(["conformance", "--filter", "cost.*", "--format", "json"])
        .args(args)
        .output()
        .expect("run conformance");
    let text = String::from_utf8_lossy(&output.stdout);
    let report = json::parse(text.trim()).unwrap_or_else(|error| panic!("{error}: {text}"));
    (output.status.code(), report)
}

fn results(report: &Json) -> Vec<Json> {
    report
        .get("results")
        .and_then(Json::as_array)
        .expect("results")
        .iter()
        .filter(|result| {
            result
                .get("id")
                .and_then(Json::as_string)
                .is_some_and(|id| id.starts_with("cost."))
        })
        .cloned()
        .collect()
}

fn text(value: &Json, name: &str) -> String {
    value
        .get(name)
        .and_then(Json::as_string)
        .unwrap_or_default()
}

#[test]
fn cost_vectors_run_only_with_the_flag() {
    // runner.cost: without --cost, every cost vector is skipped, counted apart.
    let (code, report) = cost_run(&[]);
    assert_eq!(code, Some(0));
    let cost = results(&report);
    assert!(cost.len() >= 12, "{}", cost.len());
    for result in &cost {
        assert_eq!(text(result, "status"), "skipped");
        assert_eq!(text(result, "reason"), "cost vector (run with --cost)");
        assert!(result.get("cost").is_none());
    }
    let skipped_cost = report.get("skipped").and_then(|s| s.get("cost"));
    assert_eq!(skipped_cost, Some(&Json::Number(cost.len() as f64)));
}

#[test]
fn show_prints_a_cost_vectors_generator() {
    // runner.cost: `show` knows cost vectors too.
    let output = Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args(["show", "cost.mention.unclosed-brackets"])
        .output()
        .expect("run show");
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("generator: {\"text\":{\"$text\":[{\"$repeat\":\"@[\""),
        "{text}"
    );
    assert!(text.contains("cost.mention-parse (spec/cost.md)"), "{text}");
}

#[test]
fn the_reference_grows_linearly() {
    // runner.cost, cost.*: through its own adapter process, every cost
    // vector passes, each with its sizes and times.
    let _turn = TIMED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (code, report) = cost_run(&["--cost"]);
    let cost = results(&report);
    for result in &cost {
        let measured = result.get("cost").expect("measured");
        let points = measured
            .get("points")
            .and_then(Json::as_array)
            .expect("points");
        assert!(points.len() >= 3, "{}", text(result, "id"));
        assert_eq!(
            text(result, "status"),
            "passed",
            "{}",
            json::to_wire(result)
        );
    }
    assert_eq!(code, Some(0));
}

#[test]
fn a_quadratic_step_fails_on_its_op_only() {
    // runner.cost, cost.mention-parse: a port whose mention parser scans
    // again from every `@[` fails the unclosed-brackets vector with an
    // exponent near 2, and no vector of another op.
    let port = format!(
        "node '{}' '{}'",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/adapters/well-formed.mjs")
            .display(),
        env!("CARGO_BIN_EXE_dsh-session-reference")
    );
    let _turn = TIMED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let output = Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args([
            "conformance",
            "--filter",
            "cost.*",
            "--format",
            "json",
            "--cost",
            "--impl",
            &port,
        ])
        .env("PORT_BUGS", "quadratic-parse")
        .output()
        .expect("run conformance");
    assert_eq!(output.status.code(), Some(1));
    let report = json::parse(String::from_utf8_lossy(&output.stdout).trim()).expect("a report");
    let failed: Vec<Json> = results(&report)
        .into_iter()
        .filter(|result| text(result, "status") == "failed")
        .collect();
    let ids: Vec<String> = failed.iter().map(|result| text(result, "id")).collect();
    assert_eq!(ids, ["cost.mention.unclosed-brackets"]);
    let exponent = failed[0]
        .get("cost")
        .and_then(|cost| cost.get("exponent"))
        .and_then(|k| match k {
            Json::Number(k) => Some(*k),
            _ => None,
        })
        .expect("an exponent");
    assert!(exponent > 1.7, "{exponent}");
    let causes = report
        .get("causes")
        .and_then(Json::as_array)
        .expect("causes");
    assert_eq!(causes.len(), 1);
    assert_eq!(
        text(&causes[0], "signature"),
        "cost: mention/parse grows faster than linearly"
    );
}
