//! Every conformance vector as its own named test, run in process against
//! the reference in each release whose behaviours the vector runs on;
//! plus the whole suite through the reference adapter over a real pipe,
//! once per release and once for a set declared by features, which
//! exercises the wire path end to end (and `describe`'s declaration).

use dsh_session_reference::features::{Declared, Release, RELEASES};
use dsh_session_reference::harness::runner::adapter::{External, Implementation};
use dsh_session_reference::harness::runner::vectors::Suite;
use dsh_session_reference::harness::runner::{self, Selection, Status};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn suite() -> Suite {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors");
    Suite::load(&dir).unwrap_or_else(|error| panic!("cannot load vectors: {error}"))
}

/// A declaration served by `adapter`: a release (`--release NAME`), or a
/// set of features named one by one (`--features LIST`, no release).
#[derive(Clone, Copy)]
enum Profile {
    Release(&'static Release),
    Features(&'static str),
}

/// rc.8 plus one newer behaviour, declared by features (spec
/// `protocol.features`: any set is served).
const RC8_PLUS_SAME_WORKSPACE: &str =
    "uri,mention,json,retain,prepare,pre-step,config,candidates,files,same-workspace";

impl Profile {
    fn name(self) -> String {
        match self {
            Profile::Release(release) => release.name.to_owned(),
            Profile::Features(list) => format!("features-{list}"),
        }
    }

    fn argument(self) -> String {
        match self {
            Profile::Release(release) => format!("--release {}", release.name),
            Profile::Features(list) => format!("--features {list}"),
        }
    }

    fn declared(self) -> Declared {
        match self {
            Profile::Release(release) => Declared::release(release),
            Profile::Features(list) => Declared::from_names(list.split(',')),
        }
    }
}

/// Fewer vectors than any profile runs (rc.8 runs over 3 000): a pipe run
/// that counts fewer expected its vectors to be skipped, and proves nothing.
const LEAST_EXPECTED: usize = 2_000;

fn pipe_trial(suite: Arc<Suite>, profile: Profile) -> Trial {
    let name = format!("pipe::reference-adapter-{}", profile.name());
    Trial::test(name, move || {
        let command = format!(
            "'{}' adapter {}",
            env!("CARGO_BIN_EXE_dsh-session-reference"),
            profile.argument()
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
        let declared = profile.declared();
        let expected = suite
            .vectors()
            .filter(|(_, v)| declared.satisfies(&v.op, &v.features))
            .count();
        let failures: Vec<String> = report
            .results
            .iter()
            .filter(|result| !matches!(result.status, Status::Passed | Status::SkippedFeature))
            .map(|result| format!("{}: {:?}", result.id, result.status))
            .collect();
        if failures.is_empty() && report.passed() == expected && expected >= LEAST_EXPECTED {
            Ok(())
        } else {
            Err(format!(
                "{} passed of {expected} (at least {LEAST_EXPECTED} expected)\n{}",
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
        trials.push(pipe_trial(Arc::clone(&suite), Profile::Release(release)));
    }
    trials.push(pipe_trial(
        Arc::clone(&suite),
        Profile::Features(RC8_PLUS_SAME_WORKSPACE),
    ));
    libtest_mimic::run(&arguments, trials).exit();
}
