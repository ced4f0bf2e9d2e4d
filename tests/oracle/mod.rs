//! The pinned upstream oracle (`conformance/adapters/upstream-npm/`), for
//! the tests that run it (`mutants.rs`, `cost.rs`): each declares `mod
//! oracle;`.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// Fails (never skips) when the oracle cannot run: these tests exist to
/// show that the suite catches broken implementations. On a fresh checkout
/// the pinned oracle is installed first (`npm ci`, once per test run), so
/// that `cargo test` works on a new machine as the README promises.
pub fn require_oracle() {
    static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
    let installed = INSTALLED.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/adapters/upstream-npm");
        let package = dir.join("node_modules/@deepseek-ai/dsh-session-reference/package.json");
        if package.is_file() {
            return Ok(());
        }
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(&dir)
            .status();
        match status {
            Ok(status) if status.success() && package.is_file() => Ok(()),
            other => Err(format!(
                "the upstream oracle is not installed ({} is missing) and `npm ci` in {} failed: {other:?}",
                package.display(),
                dir.display()
            )),
        }
    });
    if let Err(problem) = installed {
        panic!("{problem}");
    }
    let node = Command::new("node").arg("--version").output();
    assert!(
        matches!(&node, Ok(output) if output.status.success()),
        "node is needed to run the upstream oracle and its mutants, and `node --version` failed: {node:?}"
    );
}
