//! The runner against implementations that break the adapter protocol
//! (issue #5, item 3), and against malformed vector files.
//!
//! The implementation under test is `tests/fixtures/adapters/misbehaving.mjs`:
//! it answers `uri/encode` correctly and misbehaves when the session id asks
//! (a crash, a hang, a line that is not JSON, an answer out of order or with
//! the wrong id, …). Each misbehaviour must fail the vector where it
//! happened, with `protocol failure: …`; the implementation is restarted and
//! the vectors after it pass. Malformed vector files stop the command line
//! with exit status 2 and a message naming the file and the entry, never a
//! panic. Each test names the spec rules it checks in comments
//! (`// runner.restart`).

use dsh_session_reference::harness::runner::adapter::{Description, External, Implementation};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::harness::runner::{self, report, Report, Selection, Status};
use dsh_session_reference::js::json;
use dsh_session_reference::{uri, JsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The fixture adapter, by absolute path.
fn adapter_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/adapters/misbehaving.mjs")
}

/// The command that starts the fixture adapter, with `env` assignments
/// (`NAME=value …`, possibly empty) in front.
fn adapter_command(env: &str) -> String {
    format!("{env} node '{}'", adapter_path().display())
}

/// A fresh directory under the system temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "dsh-runner-robustness-{}-{}-{name}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `text` to `relative` (parents created) and returns its path.
    fn write(&self, relative: &str, text: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("create dir");
        std::fs::write(&path, text).expect("write file");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The vector id for a session id: `robust.<session id>`.
fn vector_id(session_id: &str) -> String {
    format!("robust.{session_id}")
}

/// One `uri/encode` vector whose expectation is the correct URI of
/// `session_id` (an ASCII id, as the fixture encodes only those).
fn vector_json(session_id: &str) -> String {
    let id = JsString::from(session_id);
    let expected = uri::encode(id.units());
    format!(
        r#"{{"id":"{}","rules":["uri.encode.form"],"description":"robustness","op":"uri/encode","features":["uri"],"input":{{"sessionId":{}}},"expect":{{"output":"{expected}"}}}}"#,
        vector_id(session_id),
        json::quote(id.units()),
    )
}

/// A vector file holding one `uri/encode` vector per session id, in order.
fn vector_file(session_ids: &[&str]) -> String {
    let vectors: Vec<String> = session_ids.iter().map(|id| vector_json(id)).collect();
    format!(
        "{{\"description\":\"runner robustness\",\"vectors\":[\n{}\n]}}\n",
        vectors.join(",\n")
    )
}

/// A temp dir holding one vector file with a vector per session id.
fn suite_dir(name: &str, session_ids: &[&str]) -> TempDir {
    let dir = TempDir::new(name);
    dir.write("uri/robustness.json", vector_file(session_ids));
    dir
}

/// Runs one vector per session id on `implementation`, as the command line
/// does (features `["uri"]`, no filter).
fn run_on(implementation: &mut External, session_ids: &[&str]) -> Report {
    let dir = suite_dir("run", session_ids);
    let suite = Suite::load(dir.path()).unwrap_or_else(|error| panic!("{error}"));
    let report = runner::run(
        &suite,
        implementation,
        &Description {
            name: "fixture".to_owned(),
            version: "0".to_owned(),
            features: vec!["uri".to_owned()],
            release: None,
            capabilities: Vec::new(),
        },
        &Selection::default(),
        |_, _| {},
    );
    let ids: Vec<String> = report.results.iter().map(|r| r.id.clone()).collect();
    let expected: Vec<String> = session_ids.iter().map(|id| vector_id(id)).collect();
    assert_eq!(ids, expected, "one result per vector, in suite order");
    report
}

/// Runs one vector per session id on a fresh fixture adapter.
fn run_fixture(session_ids: &[&str], timeout: Duration) -> Report {
    let mut implementation =
        External::new(&adapter_command(""), timeout).with_grace(Duration::ZERO);
    run_on(&mut implementation, session_ids)
}

/// The failure text of the vector for `session_id`; panics if it did not
/// fail.
fn failure(report: &Report, session_id: &str) -> String {
    let id = vector_id(session_id);
    let result = report
        .results
        .iter()
        .find(|result| result.id == id)
        .unwrap_or_else(|| panic!("no result for {id}"));
    match &result.status {
        Status::Failed(detail) => detail.explanation(),
        other => panic!("{id} should have failed, got {other:?}\n{report:#?}"),
    }
}

/// Asserts that the vectors of `passing` passed.
fn assert_passed(report: &Report, passing: &[&str]) {
    for session_id in passing {
        let id = vector_id(session_id);
        let result = report
            .results
            .iter()
            .find(|result| result.id == id)
            .unwrap_or_else(|| panic!("no result for {id}"));
        assert_eq!(
            result.status,
            Status::Passed,
            "{id} should pass (the implementation restarted)\n{report:#?}"
        );
    }
}

/// Runs `ok-1, <mode>, ok-2, ok-3` and checks that exactly `<mode>` failed,
/// with a protocol failure whose text contains every one of `needles`, and
/// that the vectors after it passed. Returns the failure text.
fn misbehaviour_fails_only_its_vector(mode: &str, timeout: Duration, needles: &[&str]) -> String {
    let report = run_fixture(&["ok-1", mode, "ok-2", "ok-3"], timeout);
    let detail = failure(&report, mode).to_owned();
    assert!(detail.starts_with("protocol failure: "), "{mode}: {detail}");
    for needle in needles {
        assert!(
            detail.contains(needle),
            "{mode}: {detail:?} lacks {needle:?}"
        );
    }
    assert_passed(&report, &["ok-1", "ok-2", "ok-3"]);
    assert_eq!(report.summary(), "3 passed, 1 failed, 0 skipped");
    detail
}

const TIMEOUT: Duration = Duration::from_secs(5);
/// Long enough for node to start on a loaded machine, short enough to keep
/// the hang tests quick.
const SHORT_TIMEOUT: Duration = Duration::from_secs(1);

#[test]
fn well_behaved_fixture_passes_everything() {
    // runner.protocol-failure (baseline: a well-behaved implementation has
    // none, so every failure below is the misbehaviour under test)
    let report = run_fixture(&["ok-1", "ok-2", "abc", "x.y-z"], TIMEOUT);
    assert_eq!(report.summary(), "4 passed, 0 failed, 0 skipped");
    let mut implementation = External::new(&adapter_command(""), TIMEOUT);
    let description = implementation.describe().expect("describe");
    assert_eq!(description.features, ["uri"]);
}

/// True for the runner's ways of saying the implementation is gone: it
/// exited or closed its output before answering (which of the two depends
/// on whether its exit was already observed), or it was gone before the
/// request could be written.
fn gone(problem: &str) -> bool {
    problem.contains("without answering")
        || problem.contains("before reading the request")
        || problem.contains("cannot write request")
}

#[test]
fn crash_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: a crash fails the vector where it happens
    // runner.restart
    let detail = misbehaviour_fails_only_its_vector("crash", TIMEOUT, &[]);
    assert!(gone(&detail), "{detail}");
}

#[test]
fn hang_past_the_timeout_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: a hang past the timeout fails its vector
    // runner.restart: the hung process is killed, the next vector passes
    let pids = TempDir::new("hang-pids");
    let pid_file = pids.path().join("pids");
    let command = adapter_command(&format!("MISBEHAVING_PIDS='{}'", pid_file.display()));
    let mut implementation = External::new(&command, SHORT_TIMEOUT).with_grace(Duration::ZERO);
    let started = Instant::now();
    let report = run_on(&mut implementation, &["ok-1", "hang", "ok-2", "ok-3"]);
    let elapsed = started.elapsed();
    drop(implementation);
    let detail = failure(&report, "hang");
    assert!(
        detail.starts_with("protocol failure: no answer within 1s"),
        "{detail}"
    );
    assert_passed(&report, &["ok-1", "ok-2", "ok-3"]);
    assert_eq!(report.summary(), "3 passed, 1 failed, 0 skipped");
    // One timeout, not one per later vector: the hung process was replaced.
    assert!(elapsed < Duration::from_secs(4), "took {elapsed:?}");
    assert_all_gone(&pid_file);
}

#[test]
fn an_op_that_hung_is_still_tested_and_waited_on_briefly() {
    // runner.slow: a hang costs its vector, not its op: the op's later
    // vectors are sent, each awaited in proportion to its answers (here
    // the floor, half a second, under the one-second timeout), and the
    // report names every vector not answered in time and the op answered
    // on under half its vectors.
    let mut implementation =
        External::new(&adapter_command(""), SHORT_TIMEOUT).with_grace(Duration::ZERO);
    let report = run_on(
        &mut implementation,
        &["ok-1", "hang-1", "hang-2", "ok-2", "hang-3"],
    );
    drop(implementation);
    assert_passed(&report, &["ok-1", "ok-2"]);
    assert!(failure(&report, "hang-1").contains("no answer within 1s"));
    for later in ["hang-2", "hang-3"] {
        let detail = failure(&report, later);
        assert!(
            detail.contains("no answer within 500ms (50 times its op's slowest answer"),
            "{detail}"
        );
    }
    assert_eq!(
        report::hangs_lines(&report),
        [
            "not answered in time: 3 of 5 uri/encode vectors: robust.hang-1, robust.hang-2, robust.hang-3",
            "tested too little: uri/encode answered 2 of 5 vectors in time (under half)",
        ]
    );
    assert_eq!(report.summary(), "2 passed, 3 failed, 0 skipped");
}

#[test]
fn hang_behind_a_shell_wrapper_is_killed_too() {
    // runner.restart: the hung process is killed, even when the command is a
    // shell line that does not `exec` the adapter (`sh -c 'node …; exit'`):
    // killing only `sh` would leave the hung adapter running.
    let pids = TempDir::new("hang-wrapper-pids");
    let pid_file = pids.path().join("pids");
    let command = format!(
        "{}; exit $?",
        adapter_command(&format!("MISBEHAVING_PIDS='{}'", pid_file.display()))
    );
    let mut implementation = External::new(&command, SHORT_TIMEOUT).with_grace(Duration::ZERO);
    let report = run_on(&mut implementation, &["ok-1", "hang", "ok-2"]);
    drop(implementation);
    assert!(
        failure(&report, "hang").contains("no answer within"),
        "{report:#?}"
    );
    assert_passed(&report, &["ok-1", "ok-2"]);
    assert_all_gone(&pid_file);
}

/// Asserts that every process whose pid the fixture recorded in `pid_file`
/// is gone (or a zombie) within a short grace period; kills survivors so
/// that a failing test leaves nothing behind.
fn assert_all_gone(pid_file: &Path) {
    let text = std::fs::read_to_string(pid_file).expect("pid file");
    let pids: Vec<u32> = text.lines().map(|l| l.parse().expect("pid")).collect();
    assert!(!pids.is_empty(), "the fixture recorded no pid");
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut alive: Vec<u32>;
    loop {
        alive = pids.iter().copied().filter(|&pid| is_alive(pid)).collect();
        if alive.is_empty() || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    for pid in &alive {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(pid.to_string())
            .status();
    }
    assert!(
        alive.is_empty(),
        "adapter processes {alive:?} (of {pids:?}) outlived the run"
    );
}

/// True when `pid` names a running (not zombie) process.
fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the parenthesised command name.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.trim_start().chars().next())
            .is_some_and(|state| state != 'Z' && state != 'X'),
        Err(_) => false,
    }
}

#[test]
fn late_answer_after_the_timeout_is_not_taken_for_the_next_one() {
    // runner.protocol-failure: past the timeout the vector fails
    // runner.restart: the late answer dies with the old process
    let report = run_fixture(&["ok-1", "slow-2500", "ok-2", "ok-3"], SHORT_TIMEOUT);
    assert!(
        failure(&report, "slow-2500").contains("no answer within"),
        "{report:#?}"
    );
    assert_passed(&report, &["ok-1", "ok-2", "ok-3"]);
}

#[test]
fn slow_answer_within_the_grace_period_is_compared_and_named() {
    // runner.slow: an answer after the timeout but within the grace period
    // is compared as usual (it passes) and named slow, with its limit
    let mut implementation =
        External::new(&adapter_command(""), SHORT_TIMEOUT).with_grace(Duration::from_secs(8));
    let report = run_on(&mut implementation, &["ok-1", "slow-2500", "ok-2"]);
    assert_eq!(report.summary(), "3 passed, 0 failed, 0 skipped");
    let [(id, late)] = report.slow.as_slice() else {
        panic!("one slow vector: {:?}", report.slow);
    };
    assert_eq!(id, &vector_id("slow-2500"));
    assert_eq!(late.limit, SHORT_TIMEOUT);
    assert!(late.took > SHORT_TIMEOUT, "{late:?}");
    // The command line says it, and passes.
    let dir = suite_dir("cli-slow", &["ok-1", "slow-2500"]);
    let output = Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args(["conformance", "--impl", &adapter_command(""), "--vectors"])
        .arg(dir.path())
        .args(["--timeout", "1", "--grace", "8"])
        .output()
        .expect("run the conformance command");
    let (stdout, _) = assert_exit(&output, 0);
    let line = format!("slow: {} answered in ", vector_id("slow-2500"));
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with(&line) && l.ends_with(" s (limit 1 s)")),
        "{stdout}"
    );
}

#[test]
fn slow_answer_within_the_timeout_passes() {
    // runner.protocol-failure (only past the timeout)
    let report = run_fixture(&["ok-1", "slow-200", "ok-2"], Duration::from_secs(3));
    assert_eq!(report.summary(), "3 passed, 0 failed, 0 skipped");
}

#[test]
fn non_json_line_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: a non-JSON line fails the vector
    // runner.restart
    misbehaviour_fails_only_its_vector("garbage", TIMEOUT, &["not JSON"]);
}

#[test]
fn non_utf8_line_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: a line that is not text fails the vector
    // runner.restart
    misbehaviour_fails_only_its_vector("not-utf8", TIMEOUT, &["not UTF-8"]);
}

#[test]
fn empty_line_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: an empty line is not an answer
    // runner.restart
    misbehaviour_fails_only_its_vector("empty-line", TIMEOUT, &["not JSON"]);
}

#[test]
fn half_a_line_then_exit_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: a truncated answer fails the vector
    // runner.restart
    misbehaviour_fails_only_its_vector("partial", TIMEOUT, &["not JSON"]);
}

#[test]
fn answer_without_outcome_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: an answer that is JSON but not a response
    // runner.restart
    misbehaviour_fails_only_its_vector("no-outcome", TIMEOUT, &["\"output\""]);
}

#[test]
fn wrong_id_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: an answer with the wrong id fails the vector
    // runner.restart
    misbehaviour_fails_only_its_vector("wrong-id", TIMEOUT, &["id", "wrong-"]);
}

#[test]
fn null_id_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: an answer with "id": null is a wrong id
    // runner.restart
    misbehaviour_fails_only_its_vector("null-id", TIMEOUT, &["id"]);
}

#[test]
fn out_of_order_answer_fails_its_vector_and_the_run_goes_on() {
    // runner.protocol-failure: an answer carrying the previous request's id
    // (out of order) fails the vector
    // runner.restart
    // The runner numbers requests: describe "0", ok-1 "1", stale "2".
    misbehaviour_fails_only_its_vector("stale", TIMEOUT, &["\"1\"", "expected \"2\""]);
}

#[test]
fn second_answer_is_caught_as_a_wrong_id_on_the_next_vector() {
    // runner.protocol-failure: a duplicated answer is read as the answer to
    // the next request, whose id it does not carry; that vector fails
    // runner.restart: and the one after it passes
    let report = run_fixture(&["ok-1", "two-answers", "ok-2", "ok-3"], TIMEOUT);
    assert_passed(&report, &["ok-1", "two-answers", "ok-3"]);
    let detail = failure(&report, "ok-2");
    assert!(
        detail.starts_with("protocol failure: answer has id") && detail.contains("expected \"3\""),
        "{detail}"
    );
    assert_eq!(report.summary(), "3 passed, 1 failed, 0 skipped");
}

#[test]
fn every_misbehaviour_in_one_run() {
    // runner.protocol-failure: each fails its own vector
    // runner.restart: after each, the next vector passes
    let modes = [
        "crash",
        "garbage",
        "wrong-id",
        "stale",
        "partial",
        "not-utf8",
        "empty-line",
        "null-id",
        "no-outcome",
        "hang",
    ];
    let mut ids = vec!["ok-0"];
    let oks: Vec<String> = (1..=modes.len()).map(|n| format!("ok-{n}")).collect();
    for (mode, ok) in modes.iter().zip(&oks) {
        ids.push(mode);
        ids.push(ok);
    }
    let report = run_fixture(&ids, SHORT_TIMEOUT);
    for mode in modes {
        assert!(
            failure(&report, mode).starts_with("protocol failure: "),
            "{report:#?}"
        );
    }
    let oks: Vec<&str> = oks.iter().map(String::as_str).collect();
    assert_passed(&report, &oks);
    assert_passed(&report, &["ok-0"]);
    assert_eq!(
        report.summary(),
        format!(
            "{} passed, {} failed, 0 skipped",
            modes.len() + 1,
            modes.len()
        )
    );
}

#[test]
fn misbehaviour_on_the_first_and_last_vectors() {
    // runner.protocol-failure: at the edges of the run too
    // runner.restart
    let report = run_fixture(&["crash", "ok-1", "garbage"], TIMEOUT);
    assert!(failure(&report, "crash").starts_with("protocol failure: "));
    assert!(failure(&report, "garbage").contains("not JSON"));
    assert_passed(&report, &["ok-1"]);
    assert_eq!(report.summary(), "1 passed, 2 failed, 0 skipped");
}

#[test]
fn describe_failing_after_a_restart_fails_each_vector_without_panicking() {
    // runner.protocol-failure: when the restarted implementation cannot
    // even describe itself, each vector fails with a protocol failure
    for (mode, needle) in [("crash", "without answering"), ("hang", "no answer within")] {
        let command = adapter_command(&format!("MISBEHAVING_DESCRIBE={mode}"));
        let mut implementation = External::new(&command, SHORT_TIMEOUT).with_grace(Duration::ZERO);
        let report = run_on(&mut implementation, &["ok-1", "ok-2"]);
        assert_eq!(report.summary(), "0 passed, 2 failed, 0 skipped", "{mode}");
        for id in ["ok-1", "ok-2"] {
            let detail = failure(&report, id);
            assert!(detail.starts_with("protocol failure: "), "{mode}: {detail}");
            assert!(detail.contains(needle), "{mode}: {detail}");
        }
    }
}

#[test]
fn missing_implementation_fails_each_vector_without_panicking() {
    // runner.protocol-failure: a command that does not exist, or exits at
    // once, fails every vector with a protocol failure
    for command in ["/nonexistent/dsh-adapter 2>/dev/null", "true", "exit 7"] {
        let mut implementation = External::new(command, TIMEOUT);
        let describe = implementation.describe();
        assert!(
            describe.as_ref().is_err_and(|problem| gone(problem)),
            "{command}: {describe:?}"
        );
        let report = run_on(&mut implementation, &["ok-1", "ok-2"]);
        assert_eq!(report.summary(), "0 passed, 2 failed, 0 skipped");
        assert!(failure(&report, "ok-1").starts_with("protocol failure: "));
    }
}

// --- through the command line -------------------------------------------

/// `dsh-session-reference conformance --impl CMD --vectors DIR --timeout 1`.
fn conformance_cli(command: &str, vectors: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .args(["conformance", "--impl", command, "--vectors"])
        .arg(vectors)
        .args(["--timeout", "1", "--grace", "0"])
        .output()
        .expect("run the conformance command")
}

/// True when the command line's output has a `FAIL <id>` line for the
/// vector of `session_id`.
fn reports_failure(stdout: &str, session_id: &str) -> bool {
    let head = format!("FAIL {}", vector_id(session_id));
    stdout
        .lines()
        .any(|line| line == head || line.starts_with(&format!("{head} ")))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Asserts the process exited with `code` and did not panic.
fn assert_exit(output: &Output, code: i32) -> (String, String) {
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(
        output.status.code(),
        Some(code),
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    assert!(
        !stderr.contains("panicked"),
        "the runner panicked:\n{stderr}"
    );
    (stdout, stderr)
}

#[test]
fn cli_reports_protocol_failures_and_exits_1() {
    // runner.exit-status: 1 when a vector failed
    // runner.protocol-failure: each failing vector is printed with the problem
    // runner.restart: the vectors after each failure pass
    let dir = suite_dir(
        "cli-failures",
        &[
            "ok-1", "garbage", "ok-2", "wrong-id", "ok-3", "crash", "ok-4",
        ],
    );
    let output = conformance_cli(&adapter_command(""), dir.path());
    let (stdout, _) = assert_exit(&output, 1);
    for mode in ["garbage", "wrong-id", "crash"] {
        assert!(reports_failure(&stdout, mode), "{stdout}");
    }
    assert!(
        stdout.contains("protocol failure: response is not JSON"),
        "{stdout}"
    );
    assert!(
        stdout.contains("protocol failure: answer has id"),
        "{stdout}"
    );
    assert!(!stdout.contains("FAIL robust.ok-"), "{stdout}");
    assert!(
        stdout.lines().any(|l| l == "4 passed, 3 failed, 0 skipped"),
        "{stdout}"
    );
}

#[test]
fn cli_hang_fails_its_vector_and_the_command_ends_promptly() {
    // runner.protocol-failure: a hang past --timeout fails its vector
    // runner.restart: the hung process is killed, the run goes on and the
    // command ends without waiting for it (a surviving adapter would hold
    // the command's standard error open)
    // runner.exit-status: 1
    let dir = suite_dir("cli-hang", &["ok-1", "hang", "ok-2"]);
    let started = Instant::now();
    let output = conformance_cli(&adapter_command(""), dir.path());
    let elapsed = started.elapsed();
    let (stdout, _) = assert_exit(&output, 1);
    assert!(reports_failure(&stdout, "hang"), "{stdout}");
    assert!(
        stdout.contains("protocol failure: no answer within 1s"),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l == "2 passed, 1 failed, 0 skipped"),
        "{stdout}"
    );
    // The fixture gives up hanging by itself after 4 s: a run that ends
    // before that did not wait for it.
    assert!(elapsed < Duration::from_millis(3500), "took {elapsed:?}");
}

#[test]
fn cli_describe_hang_exits_2_promptly() {
    // runner.exit-status: 2 when the implementation cannot describe itself
    // within --timeout; the hung process does not outlive the command
    let dir = suite_dir("cli-describe-hang", &["ok-1"]);
    let started = Instant::now();
    let output = conformance_cli(&adapter_command("MISBEHAVING_DESCRIBE=hang"), dir.path());
    let elapsed = started.elapsed();
    let (_, stderr) = assert_exit(&output, 2);
    assert!(
        stderr.contains("describe failed: no answer within 1s"),
        "{stderr}"
    );
    // The fixture gives up hanging by itself after 4 s.
    assert!(elapsed < Duration::from_millis(3500), "took {elapsed:?}");
}

#[test]
fn cli_passes_despite_stderr_noise_and_exits_0() {
    // runner.exit-status: 0 when nothing failed; standard error is free for
    // logs (protocol.framing), even a lot of it
    let dir = suite_dir("cli-noise", &["ok-1", "stderr-noise", "ok-2"]);
    let output = conformance_cli(&adapter_command(""), dir.path());
    let (stdout, stderr) = assert_exit(&output, 0);
    assert!(
        stdout.lines().any(|l| l == "3 passed, 0 failed, 0 skipped"),
        "{stdout}"
    );
    assert!(stderr.len() >= 1 << 20, "the noise reached stderr");
}

#[test]
fn cli_unusable_implementation_exits_2() {
    // runner.exit-status: 2 when the implementation cannot be used: a
    // command that does not exist, one that exits at once, a crash, or an
    // invalid or failed describe
    let dir = suite_dir("cli-unusable", &["ok-1"]);
    let cases = [
        "/nonexistent/dsh-adapter".to_owned(),
        "true".to_owned(),
        adapter_command("MISBEHAVING_DESCRIBE=crash"),
        adapter_command("MISBEHAVING_DESCRIBE=bad"),
        adapter_command("MISBEHAVING_DESCRIBE=error"),
    ];
    let needles: [&dyn Fn(&str) -> bool; 5] = [
        &|e| gone(e),
        &|e| gone(e),
        &|e| gone(e),
        &|e| e.contains("describe output has no"),
        &|e| e.contains("INTERNAL: describe refused"),
    ];
    for (command, expected) in cases.iter().zip(needles) {
        let output = conformance_cli(command, dir.path());
        let (stdout, stderr) = assert_exit(&output, 2);
        assert!(
            stderr.contains("describe failed: ") && expected(&stderr),
            "{command}: {stderr}"
        );
        assert!(
            !stdout.contains("passed"),
            "{command}: ran anyway:\n{stdout}"
        );
    }
}

/// Runs the command line on a suite made of `files` (relative path, text)
/// and asserts exit status 2, no panic, and that standard error names the
/// file `at_fault` and contains every one of `needles`.
fn assert_malformed(name: &str, files: &[(&str, &[u8])], at_fault: &str, needles: &[&str]) {
    // runner.malformed-vectors
    let dir = TempDir::new(name);
    for (path, text) in files {
        dir.write(path, text);
    }
    let output = conformance_cli(&adapter_command(""), dir.path());
    let (stdout, stderr) = assert_exit(&output, 2);
    let file = dir.path().join(at_fault);
    assert!(
        stderr.contains(&format!("cannot load vectors: {}", file.display())),
        "{name}: stderr does not name {}:\n{stderr}",
        file.display()
    );
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{name}: stderr lacks {needle:?}:\n{stderr}"
        );
    }
    assert!(!stdout.contains("passed"), "{name}: ran anyway:\n{stdout}");
}

fn file_with(vectors: &[String]) -> Vec<u8> {
    format!(
        "{{\"description\":\"malformed\",\"vectors\":[{}]}}",
        vectors.join(",")
    )
    .into_bytes()
}

#[test]
fn malformed_not_json() {
    // runner.malformed-vectors: a file that is not JSON
    assert_malformed(
        "not-json",
        &[
            ("uri/good.json", &file_with(&[vector_json("ok-1")])),
            ("uri/bad.json", b"{\"description\": \"x\", \"vectors\": ["),
        ],
        "uri/bad.json",
        &["not JSON"],
    );
}

#[test]
fn malformed_vectors_not_an_array() {
    // runner.malformed-vectors: "vectors" is not an array
    assert_malformed(
        "not-array",
        &[("bad.json", br#"{"description":"x","vectors":{"id":"a.b"}}"#)],
        "bad.json",
        &["\"vectors\""],
    );
}

#[test]
fn malformed_vector_missing_expect() {
    // runner.malformed-vectors: the entry at fault is named by index and id
    let full = vector_json("no-expect");
    let without_expect = format!("{}}}", &full[..full.find(r#","expect":"#).expect("expect")]);
    assert!(!without_expect.contains(r#""expect""#), "{without_expect}");
    assert_malformed(
        "missing-expect",
        &[(
            "uri/bad.json",
            &file_with(&[vector_json("ok-1"), without_expect]),
        )],
        "uri/bad.json",
        &["vector 1 (robust.no-expect)", "missing \"expect\""],
    );
}

#[test]
fn malformed_vector_unknown_field() {
    // runner.malformed-vectors: an unknown field in a vector
    let extra = vector_json("extra").replace(r#""expect":"#, r#""expected":1,"expect":"#);
    assert_malformed(
        "unknown-field",
        &[("bad.json", &file_with(&[extra, vector_json("ok-1")]))],
        "bad.json",
        &["vector 0 (robust.extra)", "unknown field", "expected"],
    );
}

#[test]
fn malformed_file_unknown_field() {
    // runner.malformed-vectors: an unknown field at the top of a file
    assert_malformed(
        "unknown-top-field",
        &[(
            "bad.json",
            br#"{"description":"x","vectors":[],"vector":[]}"#,
        )],
        "bad.json",
        &["unknown field", "vector"],
    );
}

#[test]
fn malformed_file_without_vectors() {
    // runner.malformed-vectors: a file with an empty vector list (the
    // schema's minItems 1); a suite of such files would pass anything
    assert_malformed(
        "no-vectors",
        &[
            ("a.json", &file_with(&[vector_json("ok-1")])),
            ("b.json", br#"{"description":"x","vectors":[]}"#),
        ],
        "b.json",
        &["\"vectors\" is empty"],
    );
}

#[test]
fn malformed_cost_vector() {
    // runner.malformed-vectors, runner.cost: a cost vector whose generator
    // repeats a piece without a count is refused, naming the entry
    assert_malformed(
        "bad-cost",
        &[
            ("a.json", &file_with(&[vector_json("ok-1")])),
            (
                "cost/b.json",
                br#"{"description":"x","cost":[{"id":"cost.x.y","rules":["cost.mention-parse"],"description":"d","op":"mention/parse","features":["mention"],"generator":{"text":{"$text":[{"$repeat":"@["}]}},"start":1,"max":8}]}"#,
            ),
        ],
        "cost/b.json",
        &["vector 0 (cost.x.y)", "\"$count\" must be an integer"],
    );
}

#[test]
fn malformed_duplicate_id_across_files() {
    // runner.malformed-vectors: ids are unique across the suite; the second
    // file holding an id is named, with the entry
    assert_malformed(
        "duplicate-id",
        &[
            ("a.json", &file_with(&[vector_json("twice")])),
            (
                "b.json",
                &file_with(&[vector_json("ok-1"), vector_json("twice")]),
            ),
        ],
        "b.json",
        &["vector 1 (robust.twice)", "duplicate id"],
    );
}

#[test]
fn malformed_invalid_id() {
    // runner.malformed-vectors: an id that is not dotted lowercase words
    let bad = vector_json("bad-id").replace("robust.bad-id", "Not An Id");
    assert_malformed(
        "invalid-id",
        &[("bad.json", &file_with(&[vector_json("ok-1"), bad]))],
        "bad.json",
        &["vector 1 (Not An Id)", "not dotted lowercase"],
    );
}

#[test]
fn malformed_expect_shape() {
    // runner.malformed-vectors: "expect" with both "output" and "error"
    let both = vector_json("both").replace(
        r#""expect":{"output""#,
        r#""expect":{"error":"INTERNAL","output""#,
    );
    assert_malformed(
        "expect-shape",
        &[("bad.json", &file_with(&[both]))],
        "bad.json",
        &["vector 0 (robust.both)", "\"expect\""],
    );
}

#[test]
fn malformed_vector_not_an_object() {
    // runner.malformed-vectors: an entry that is not an object
    assert_malformed(
        "not-object",
        &[(
            "bad.json",
            &file_with(&[vector_json("ok-1"), "[1]".to_owned()]),
        )],
        "bad.json",
        &["vector 1", "object"],
    );
}

#[test]
fn malformed_deeply_nested_and_non_utf8_files() {
    // runner.malformed-vectors: hostile files end in a message, never a
    // stack overflow or a panic
    let deep = format!(
        "{{\"description\":\"x\",\"vectors\":[{}{}]}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_malformed(
        "deep",
        &[("bad.json", deep.as_bytes())],
        "bad.json",
        &["not JSON"],
    );
    assert_malformed(
        "non-utf8",
        &[("bad.json", b"{\"description\":\"\xff\",\"vectors\":[]}")],
        "bad.json",
        &[],
    );
}

#[test]
fn malformed_missing_directory() {
    // runner.malformed-vectors: a vectors directory that does not exist
    let dir = TempDir::new("missing-dir");
    let missing = dir.path().join("nowhere");
    let output = conformance_cli(&adapter_command(""), &missing);
    let (_, stderr) = assert_exit(&output, 2);
    assert!(stderr.contains(&missing.display().to_string()), "{stderr}");
}

#[test]
fn the_reference_adapter_exits_once_its_answers_go_unread() {
    // An adapter stuck in a request would outlive a runner killed from
    // outside (its own process group escapes the runner's signals). The
    // reference adapter ends when the reader of its standard output is gone,
    // even while its standard input stays open.
    let mut adapter = Command::new(env!("CARGO_BIN_EXE_dsh-session-reference"))
        .arg("adapter")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the reference adapter starts");
    let stdin = adapter.stdin.take();
    drop(adapter.stdout.take());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut status = None;
    while status.is_none() && Instant::now() < deadline {
        status = adapter.try_wait().expect("wait");
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = adapter.kill();
    let _ = adapter.wait();
    drop(stdin);
    assert!(
        status.is_some(),
        "the adapter ran on with no reader of its answers and its input open"
    );
}
