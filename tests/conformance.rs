//! Every conformance vector as its own named test, run in process against
//! the reference; plus the whole suite through the reference adapter over a
//! real pipe, which exercises the wire path end to end.

use dsh_session_reference::protocol::dispatch;
use dsh_session_reference::runner::adapter::{BuiltIn, External, Implementation};
use dsh_session_reference::runner::vectors::{Suite, Vector};
use dsh_session_reference::runner::{self, Status};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use std::time::Duration;

fn suite() -> Suite {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/vectors");
    Suite::load(&dir).unwrap_or_else(|error| panic!("cannot load vectors: {error}"))
}

fn outcome(status: Status) -> Result<(), Failed> {
    match status {
        Status::Passed => Ok(()),
        other => Err(format!("{other:?}").into()),
    }
}

fn main() {
    let arguments = Arguments::from_args();
    let suite = suite();
    let features: Vec<String> = dispatch::FEATURES.iter().map(|f| (*f).to_owned()).collect();
    let declared = |vector: &Vector| vector.features.iter().any(|f| features.contains(f));
    let expected_passes = suite
        .vectors()
        .filter(|(_, vector)| declared(vector))
        .count();
    let mut trials: Vec<Trial> = suite
        .vectors()
        .map(|(_, vector)| {
            // Vectors of a generation the reference does not implement (rc.8
            // only) are listed as ignored, so the count shows them.
            let ignored = !declared(vector);
            let vector = vector.clone();
            Trial::test(vector.id.clone(), move || {
                let answer = BuiltIn.call(&vector.op, &vector.input);
                outcome(runner::check(&vector, answer))
            })
            .with_ignored_flag(ignored)
        })
        .collect();
    trials.push(Trial::test(
        "pipe::reference-adapter-runs-every-vector",
        move || {
            let command = format!("'{}' adapter", env!("CARGO_BIN_EXE_dsh-session-reference"));
            let mut adapter = External::new(&command, Duration::from_secs(20));
            let features = adapter.describe()?.features;
            let report = runner::run(&suite, &mut adapter, &features, &[], |_, _| {});
            let failures: Vec<String> = report
                .results
                .iter()
                .filter(|result| !matches!(result.status, Status::Passed | Status::SkippedFeature))
                .map(|result| format!("{}: {:?}", result.id, result.status))
                .collect();
            if failures.is_empty() && report.passed() == expected_passes {
                Ok(())
            } else {
                Err(failures.join("\n").into())
            }
        },
    ));
    libtest_mimic::run(&arguments, trials).exit();
}
