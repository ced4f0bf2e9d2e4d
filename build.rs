//! Embeds the conformance vectors and the specification in the harness
//! (feature `harness`), so that an installed `dsh-session-reference` binary
//! runs the whole suite with no source tree beside it.
//!
//! Writes `$OUT_DIR/embedded.rs`: `VECTOR_FILES`, `SPEC_FILES` and
//! `SKELETON_FILES` (the adapters `init` writes), each a list of (path
//! relative to its folder, contents) sorted by path, and `VECTORS_HASH`,
//! the embedded suite's hash (spec `runner.suite-version`): computed here,
//! not at start-up, because `--version` is part of every command line's
//! parse, and hashing 8 MB of vectors on every start of an adapter took
//! time and put those megabytes in its resident set (issue #61). Without the
//! feature, nothing is embedded.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "harness")]
    embed::write();
}

/// The embedded files and the suite's hash, with the harness only.
#[cfg(feature = "harness")]
mod embed {
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};

    /// Writes `$OUT_DIR/embedded.rs`.
    pub fn write() {
        let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
        let mut out = String::new();
        for (name, folder, extension) in [
            ("VECTOR_FILES", "conformance/vectors", Some("json")),
            ("SPEC_FILES", "spec", Some("md")),
            ("SKELETON_FILES", "conformance/adapters/skeleton", None),
        ] {
            let dir = root.join(folder);
            println!("cargo:rerun-if-changed={}", dir.display());
            let mut files = Vec::new();
            collect(&dir, extension, &mut files);
            files.sort();
            let mut hashed = Vec::new();
            writeln!(out, "/// `{folder}`: (path below it, contents), by path.").unwrap();
            writeln!(out, "pub static {name}: &[(&str, &str)] = &[").unwrap();
            for file in files {
                let relative = file.strip_prefix(&dir).expect("below dir");
                let relative = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                writeln!(
                    out,
                    "    ({relative:?}, include_str!({:?})),",
                    file.display().to_string()
                )
                .unwrap();
                hashed.push((relative, file));
            }
            writeln!(out, "];").unwrap();
            if name == "VECTOR_FILES" {
                writeln!(
                    out,
                    "/// The hash of `VECTOR_FILES`, as `suite_hash` computes it."
                )
                .unwrap();
                let mut texts: Vec<(String, String)> = hashed
                    .into_iter()
                    .map(|(relative, file)| {
                        let text = std::fs::read_to_string(&file).expect("a readable vector file");
                        (relative, text)
                    })
                    .collect();
                texts.sort();
                let hash = suite_hash(
                    texts
                        .iter()
                        .map(|(relative, text)| (relative.as_str(), text.as_str())),
                );
                writeln!(out, "pub const VECTORS_HASH: &str = {hash:?};").unwrap();
            }
        }
        let target =
            PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("embedded.rs");
        std::fs::write(target, out).expect("OUT_DIR is writable");
    }

    // `suite_hash`, the runner's (src/harness/runner/vectors.rs).
    include!("src/harness/runner/suite_hash.rs");

    /// Every file below `dir` (with `extension` when one is given).
    fn collect(dir: &Path, extension: Option<&str>, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            panic!("{} is missing: the harness embeds it", dir.display());
        };
        for entry in entries {
            let path = entry.expect("readable directory").path();
            if path.is_dir() {
                collect(&path, extension, out);
            } else if extension
                .is_none_or(|wanted| path.extension().is_some_and(|ext| ext == wanted))
            {
                out.push(path);
            }
        }
    }
}
