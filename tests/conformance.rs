//! Every conformance vector as its own named test, run in process against
//! the reference in each release whose behaviours the vector runs on;
//! plus the whole suite through the reference adapter over a real pipe,
//! once per release, which exercises the wire path end to end.

use dsh_session_reference::features::{Declared, Release, RELEASES};
use dsh_session_reference::harness::runner::adapter::{External, Implementation};
use dsh_session_reference::harness::runner::vectors::{Suite, Vector};
use dsh_session_reference::harness::runner::{self, Selection, Status};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn suite() -> Suite {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors");
    Suite::load(&dir).unwrap_or_else(|error| panic!("cannot load vectors: {error}"))
}

fn declared(release: &Release, vector: &Vector) -> bool {
    Declared::release(release).satisfies(&vector.op, &vector.features)
}

fn pipe_trial(suite: Arc<Suite>, release: &'static Release) -> Trial {
    let name = format!("pipe::reference-adapter-{}", release.name);
    Trial::test(name, move || {
        let command = format!(
            "'{}' adapter --release {}",
            env!("CARGO_BIN_EXE_dsh-session-reference"),
            release.name
        );
        let mut adapter = External::new(&command, Duration::from_secs(20));
        let description = adapter.describe()?;
        let report = runner::run(
            &suite,
            &mut adapter,
            &description,
            &Selection::default(),
            |_, _| {},
        );
        let expected = suite
            .vectors()
            .filter(|(_, v)| declared(release, v))
            .count();
        let failures: Vec<String> = report
            .results
            .iter()
            .filter(|result| !matches!(result.status, Status::Passed | Status::SkippedFeature))
            .map(|result| format!("{}: {:?}", result.id, result.status))
            .collect();
        if failures.is_empty() && report.passed() == expected {
            Ok(())
        } else {
            Err(format!(
                "{} passed of {expected}\n{}",
                report.passed(),
                failures.join("\n")
            )
            .into())
        }
    })
}

fn main() {
    let arguments = Arguments::from_args();
    let suite = Arc::new(suite());
    let mut trials: Vec<Trial> = suite
        .vectors()
        .map(|(_, vector)| {
            let vector = vector.clone();
            Trial::test(vector.id.clone(), move || {
                match runner::check_reference(&vector) {
                    Status::Passed => Ok(()),
                    other => Err(Failed::from(format!("{other:?}"))),
                }
            })
        })
        .collect();
    for release in RELEASES {
        trials.push(pipe_trial(Arc::clone(&suite), release));
    }
    libtest_mimic::run(&arguments, trials).exit();
}
