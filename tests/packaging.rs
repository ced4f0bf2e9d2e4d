//! The distributable artifacts as their users install them (spec
//! `runner.packages`, `runner.action`): `.ci/packaging` builds the wheel,
//! the npm packages and the archive with `packaging/build`, checks
//! `SHA256SUMS`, installs each with no network (pip `--no-index`, npm
//! `--offline`, tar), and holds every installed binary to the built
//! binary's `--version` and to the whole suite run from an unrelated
//! folder; the action's script then installs the wheel itself and gates
//! the reference, and a newcomer with no Rust toolchain on PATH goes from
//! the wheel to a first report on a skeleton.

use std::path::Path;
use std::process::Command;

#[test]
#[ignore = "heavy: builds and installs every artifact (about 20 s after the release build)"]
fn every_artifact_installs_and_passes_the_suite_from_another_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let build = Command::new("cargo")
        .args(["build", "--release", "--quiet"])
        .current_dir(root)
        .status()
        .expect("run cargo build --release");
    assert!(build.success(), "the release build failed");
    let packaging = Command::new("bash")
        .arg(root.join(".ci/packaging"))
        .current_dir(root)
        .output()
        .expect("run .ci/packaging");
    let stdout = String::from_utf8_lossy(&packaging.stdout);
    println!("{stdout}");
    assert!(
        packaging.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&packaging.stderr)
    );
    for check in [
        "ok: wheel: conformance, run from an empty folder, exits 0",
        "ok: npm: conformance, run from an empty folder, exits 0",
        "ok: archive: conformance, run from an empty folder, exits 0",
        "ok: action: installed the wheel",
        "ok: newcomer: pip install, init,",
    ] {
        assert!(stdout.contains(check), "missing: {check}");
    }
}
