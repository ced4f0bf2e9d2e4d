//! The GitHub action's one step, `action/run.sh` (spec `runner.action`), run
//! as a runner runs it: with `GITHUB_STEP_SUMMARY`, `GITHUB_OUTPUT` and
//! `RUNNER_TEMP` set and the action's inputs as `DSH_*` variables, the tool
//! given as this build's binary. On a fixture port with known failures it
//! writes the summary and the outputs and exits 1; on a fresh skeleton from
//! `init` (spec `runner.init`) it exits 0.

mod common;

use common::Scratch;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const BINARY: &str = env!("CARGO_BIN_EXE_dsh-session-reference");

/// A runner's temporary folder (`temp/` its `RUNNER_TEMP`), removed on drop.
struct Runner(Scratch);

impl Runner {
    fn new(name: &str) -> Runner {
        let scratch = Scratch::new("action", name);
        std::fs::create_dir_all(scratch.0.join("temp")).expect("create the runner's folder");
        Runner(scratch)
    }

    fn path(&self) -> &Path {
        &self.0 .0
    }

    /// Runs the action's script from `workdir` with `adapter`, and returns
    /// its exit status, the step summary and the outputs it set.
    fn run(&self, workdir: &Path, adapter: &str, env: &[(&str, &str)]) -> Step {
        let summary = self.path().join("step-summary.md");
        let outputs = self.path().join("github-output");
        std::fs::write(&summary, "").expect("summary file");
        std::fs::write(&outputs, "").expect("output file");
        let status = Command::new("bash")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("action/run.sh"))
            .current_dir(workdir)
            .env("DSH_TOOL", BINARY)
            .env("DSH_ADAPTER", adapter)
            .env("DSH_ACTION_PATH", env!("CARGO_MANIFEST_DIR"))
            .env("RUNNER_TEMP", self.path().join("temp"))
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_OUTPUT", &outputs)
            .envs(env.iter().copied())
            .output()
            .expect("run action/run.sh");
        let outputs = std::fs::read_to_string(&outputs).expect("outputs");
        Step {
            code: status.status.code(),
            summary: std::fs::read_to_string(&summary).expect("summary"),
            outputs: outputs
                .lines()
                .filter_map(|line| line.split_once('='))
                .map(|(key, value)| (key.to_owned(), value.to_owned()))
                .collect(),
        }
    }
}

struct Step {
    code: Option<i32>,
    summary: String,
    outputs: BTreeMap<String, String>,
}

impl Step {
    fn count(&self, name: &str) -> usize {
        self.outputs[name].parse().expect("a count")
    }
}

/// runner.action: a port with known failures (the well-formed fixture
/// claiming lone surrogates) fails the step, with its counts in the
/// outputs and in the summary, and its reports where the outputs say.
#[test]
fn a_port_with_failures_fails_the_step_with_summary_and_outputs() {
    let runner = Runner::new("failing");
    let port = format!(
        "node '{}' '{BINARY}'",
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/adapters/well-formed.mjs")
            .display()
    );
    let step = runner.run(
        runner.path(),
        &port,
        &[
            ("WELL_FORMED_CLAIMS_LONE_SURROGATES", "1"),
            ("DSH_ARGS", "--timeout 30"),
        ],
    );
    assert_eq!(step.code, Some(1));
    assert_eq!(step.outputs["exit-code"], "1");
    let failed = step.count("failed");
    assert!(failed > 0, "{:?}", step.outputs);
    assert!(step.count("passed") > 1000, "{:?}", step.outputs);
    assert!(
        step.summary.starts_with(&format!(
            "**session-reference conformance** of `{port}`: {} passed, {failed} failed, {} skipped (exit 1)",
            step.outputs["passed"], step.outputs["skipped"]
        )),
        "{}",
        step.summary
    );
    assert!(step.summary.contains("### Causes"), "{}", step.summary);
    for report in ["report-json", "junit", "summary", "html"] {
        assert!(Path::new(&step.outputs[report]).is_file(), "{report}");
    }
    let junit = std::fs::read_to_string(&step.outputs["junit"]).expect("junit");
    assert!(
        junit.contains(&format!("failures=\"{failed}\"")),
        "{}",
        &junit[..300.min(junit.len())]
    );
}

/// runner.action, runner.init: the step passes on the reference, and on a
/// fresh Python skeleton run from its folder, as the skeleton's workflow
/// runs it.
#[test]
fn the_reference_and_a_fresh_skeleton_pass_the_step() {
    let runner = Runner::new("passing");
    let step = runner.run(runner.path(), &format!("'{BINARY}' adapter"), &[]);
    assert_eq!(step.code, Some(0), "{}", step.summary);
    assert_eq!(step.count("failed"), 0);
    assert!(step.count("passed") > 3000);

    let skeleton = runner.path().join("my-port");
    let init = Command::new(BINARY)
        .args(["init", "--lang", "python"])
        .arg(&skeleton)
        .output()
        .expect("init");
    assert!(init.status.success());
    let step = runner.run(
        &skeleton,
        "python3 adapter.py",
        &[("DSH_RELEASE", "0.1.0-rc.8")],
    );
    assert_eq!(step.code, Some(0), "{}", step.summary);
    assert_eq!((step.count("passed"), step.count("failed")), (0, 0));
    assert!(step.count("skipped") > 5000);
}
