//! The command line as a port's CI uses it (spec `runner.capabilities`,
//! `runner.baseline`, `runner.reports`, `runner.suite-version`): the
//! embedded suite, capabilities, baselines and structured reports, driven
//! through the built binary against a fixture port whose strings are
//! well-formed Unicode (`tests/fixtures/adapters/well-formed.mjs`, Node 20).

mod common;

use common::Scratch;
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::js::json::{self, Json};
use std::path::Path;
use std::process::{Command, Output};

const BINARY: &str = env!("CARGO_BIN_EXE_dsh-session-reference");

/// The fixture port's command; it wraps this build's reference adapter.
fn port() -> String {
    format!(
        "node '{}' '{BINARY}'",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/adapters/well-formed.mjs")
            .display()
    )
}

/// Runs the binary with `args` from an unrelated folder (the system's temp
/// folder), the port claiming `lone-surrogates` when `claims` is set.
fn run(args: &[&str], claims: bool) -> Output {
    Command::new(BINARY)
        .args(args)
        .current_dir(std::env::temp_dir())
        .env(
            "WELL_FORMED_CLAIMS_LONE_SURROGATES",
            if claims { "1" } else { "0" },
        )
        .output()
        .expect("run the binary")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn last_line(output: &Output) -> String {
    stdout(output).lines().last().unwrap_or_default().to_owned()
}

#[test]
fn a_well_formed_port_passes_without_the_capability_and_fails_claiming_it() {
    // runner.capabilities, protocol.capabilities
    let port = port();
    let honest = run(&["conformance", "--impl", &port], false);
    let text = stdout(&honest);
    assert_eq!(honest.status.code(), Some(0), "{text}");
    assert!(last_line(&honest).contains(" passed, 0 failed, "), "{text}");
    assert!(
        text.contains("capability not declared (lone-surrogates: "),
        "{text}"
    );
    let claiming = run(&["conformance", "--impl", &port], true);
    assert_eq!(claiming.status.code(), Some(1), "{}", stdout(&claiming));
    let failed: usize = last_line(&claiming)
        .split(", ")
        .nth(1)
        .and_then(|part| part.strip_suffix(" failed"))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        failed > 20,
        "only {failed} failed: {}",
        last_line(&claiming)
    );
}

#[test]
fn a_baseline_passes_known_failures_and_catches_new_and_fixed_ones() {
    // runner.baseline
    let scratch = Scratch::new("portable-tool", "baseline");
    let baseline = scratch.0.join("known-failures.txt");
    let baseline_arg = baseline.display().to_string();
    let port = port();
    let written = run(
        &[
            "conformance",
            "--impl",
            &port,
            "--write-baseline",
            &baseline_arg,
        ],
        true,
    );
    // Recording the baseline is not a verdict: exit 0, whatever failed.
    assert_eq!(written.status.code(), Some(0), "{}", stdout(&written));
    let text = std::fs::read_to_string(&baseline).expect("baseline written");
    let ids: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split_whitespace().next().unwrap_or_default())
        .collect();
    assert!(ids.len() > 20, "{text}");
    assert!(text.contains("  # "), "each id carries its reason: {text}");

    // Every failure listed: exit 0.
    let known = run(
        &["conformance", "--impl", &port, "--baseline", &baseline_arg],
        true,
    );
    assert_eq!(known.status.code(), Some(0), "{}", stdout(&known));
    assert!(stdout(&known).contains(&format!("baseline: {} known failures, 0 new", ids.len())));

    // One failure left out of the list: exit 1, and it is named.
    let shorter: String = text
        .lines()
        .filter(|line| !line.starts_with(ids[0]))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&baseline, shorter + "uri.decode.no-such-vector\n").expect("write");
    let new = run(
        &["conformance", "--impl", &port, "--baseline", &baseline_arg],
        true,
    );
    let new_text = stdout(&new);
    assert_eq!(new.status.code(), Some(1), "{new_text}");
    assert!(
        new_text.contains(&format!("new failure (not in the baseline): {}", ids[0])),
        "{new_text}"
    );
    assert!(
        new_text
            .contains("unknown id in the baseline (not in this suite): uri.decode.no-such-vector"),
        "{new_text}"
    );

    // The port fixed (it no longer claims the capability, so those vectors
    // are skipped) and a passing vector listed: named as fixed, exit 0.
    std::fs::write(&baseline, format!("{text}wire.echo.astral\n")).expect("write");
    let fixed = run(
        &["conformance", "--impl", &port, "--baseline", &baseline_arg],
        false,
    );
    let fixed_text = stdout(&fixed);
    assert_eq!(fixed.status.code(), Some(0), "{fixed_text}");
    assert!(
        fixed_text.contains("fixed: remove from the baseline: wire.echo.astral"),
        "{fixed_text}"
    );
}

#[test]
fn the_json_report_carries_every_failure_in_full() {
    // runner.reports, runner.suite-version
    let port = port();
    let output = run(&["conformance", "--impl", &port, "--format", "json"], true);
    assert_eq!(output.status.code(), Some(1));
    let report = json::parse(&stdout(&output)).expect("one JSON report");
    let suite = report.get("suite").expect("suite");
    let vectors = Suite::embedded().expect("embedded").version.vectors as f64;
    assert_eq!(suite.get("vectors"), Some(&Json::Number(vectors)));
    let hash = suite
        .get("hash")
        .and_then(Json::as_string)
        .unwrap_or_default();
    assert!(hash.starts_with("sha256:") && hash.len() == 71, "{hash}");
    let results = report
        .get("results")
        .and_then(Json::as_array)
        .expect("results");
    let failures: Vec<&Json> = results
        .iter()
        .filter(|r| r.get("status").and_then(Json::as_string).as_deref() == Some("failed"))
        .collect();
    assert!(failures.len() > 20);
    let mut with_stderr = 0;
    for failure in failures {
        let id = failure
            .get("id")
            .and_then(Json::as_string)
            .unwrap_or_default();
        for field in [
            "rules",
            "input",
            "expected",
            "actual",
            "difference",
            "stderr",
        ] {
            assert!(failure.get(field).is_some(), "{id} has no {field}");
        }
        let actual = failure.get("actual").expect("actual");
        assert!(
            actual.get("output").is_some() || actual.get("error").is_some(),
            "{id}: actual is an outcome"
        );
        let difference = failure.get("difference").expect("difference");
        assert!(
            difference.get("path").and_then(Json::as_string).is_some(),
            "{id}"
        );
        if difference.get("kind").and_then(Json::as_string).as_deref() == Some("string") {
            assert!(difference.get("codeUnit").is_some(), "{id}");
        }
        let stderr = failure.get("stderr").and_then(Json::as_string);
        let input_changed = failure.get("input").is_some_and(Json::has_lone_surrogate);
        // What the port logged while answering is the vector's own line.
        if input_changed {
            let stderr = stderr.unwrap_or_default();
            assert!(
                stderr.contains(&format!(
                    "lone surrogates in the {} input",
                    failure
                        .get("op")
                        .and_then(Json::as_string)
                        .unwrap_or_default()
                )),
                "{id}: {stderr:?}"
            );
            with_stderr += 1;
        }
    }
    assert!(
        with_stderr > 10,
        "only {with_stderr} failures carried stderr"
    );
}

#[test]
fn the_embedded_suite_exports_and_shows_vectors_from_anywhere() {
    // runner.suite-version: the exported files are the same suite
    let scratch = Scratch::new("portable-tool", "export");
    let dir = scratch.0.join("vectors");
    let export = run(&["vectors", "export", &dir.display().to_string()], false);
    assert_eq!(export.status.code(), Some(0), "{}", stdout(&export));
    let exported = Suite::load(&dir).expect("exported files load");
    let embedded = Suite::embedded().expect("embedded suite");
    assert_eq!(exported.version.hash, embedded.version.hash);
    assert_eq!(exported.version.vectors, embedded.version.vectors);

    let shown = run(&["show", "uri.encode.mixed"], false);
    let text = stdout(&shown);
    assert_eq!(shown.status.code(), Some(0), "{text}");
    assert!(text.contains("requires: lone-surrogates (all)"), "{text}");
    assert!(
        text.contains("uri.encode.lone-surrogate (spec/uri.md): "),
        "{text}"
    );
    let unknown = run(&["show", "uri.no-such"], false);
    assert_eq!(unknown.status.code(), Some(2));
}

/// runner.suite-version, runner.packages: `--version` names the crate and
/// the embedded suite's hash, the same the reports carry, so that every
/// packaged build shows which suite it runs.
#[test]
fn the_version_names_the_suite_it_carries() {
    let output = run(&["--version"], false);
    assert!(output.status.success());
    let suite = Suite::embedded().expect("embedded").version;
    assert_eq!(
        stdout(&output),
        format!(
            "dsh-session-reference {} (suite {})\n",
            suite.crate_version, suite.hash
        )
    );
}
