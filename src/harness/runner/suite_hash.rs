// Included by src/harness/runner/vectors.rs and by build.rs (which cannot
// use the library it builds), so the suite's hash has one definition.

/// The suite hash (spec `runner.suite-version`): `sha256:` and the hex
/// digest over each file's path below the vector folder and its bytes, in
/// path order, each followed by a NUL.
fn suite_hash<'a>(sorted: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    for (relative, text) in sorted {
        hasher.update(relative.as_bytes());
        hasher.update([0]);
        hasher.update(text.as_bytes());
        hasher.update([0]);
    }
    let digest: String = hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{digest}")
}
