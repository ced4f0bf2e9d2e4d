//! Embeds the conformance vectors and the specification in the harness
//! (feature `harness`), so that an installed `dsh-session-reference` binary
//! runs the whole suite with no source tree beside it.
//!
//! Writes `$OUT_DIR/embedded.rs`: `VECTOR_FILES`, `SPEC_FILES` and
//! `SKELETON_FILES` (the adapters `init` writes), each a list of (path
//! relative to its folder, contents) sorted by path. Without the feature,
//! nothing is embedded.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_HARNESS").is_none() {
        return;
    }
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
        }
        writeln!(out, "];").unwrap();
    }
    let target =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("embedded.rs");
    std::fs::write(target, out).expect("OUT_DIR is writable");
}

/// Every file below `dir` (with `extension` when one is given).
fn collect(dir: &Path, extension: Option<&str>, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("{} is missing: the harness embeds it", dir.display());
    };
    for entry in entries {
        let path = entry.expect("readable directory").path();
        if path.is_dir() {
            collect(&path, extension, out);
        } else if extension.is_none_or(|wanted| path.extension().is_some_and(|ext| ext == wanted)) {
            out.push(path);
        }
    }
}
