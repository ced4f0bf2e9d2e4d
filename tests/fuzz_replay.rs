//! Replays the fuzz seeds (`fuzz/seeds/<target>/`) and any minimised fuzz
//! findings (`tests/fuzz_regressions/<target>/`) through the same property
//! checks the fuzz targets run, so they stay covered by `cargo test`.

use std::fs;
use std::path::{Path, PathBuf};

use dsh_session_reference::checks;

/// The regular files directly inside `dir`, sorted by name.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` on every seed of `target` (there must be some) and on every
/// regression input of `target`, if that directory exists. Returns how many
/// inputs ran.
fn replay(target: &str, check: Check) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds_dir = root.join("fuzz/seeds").join(target);
    let seeds = files_in(&seeds_dir);
    assert!(
        !seeds.is_empty(),
        "no seeds in {}: the replay would pass vacuously",
        seeds_dir.display()
    );
    let regressions_dir = root.join("tests/fuzz_regressions").join(target);
    let regressions = if regressions_dir.is_dir() {
        files_in(&regressions_dir)
    } else {
        Vec::new()
    };
    for path in seeds.iter().chain(&regressions) {
        let data = fs::read(path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
        let outcome = std::panic::catch_unwind(|| check(&data));
        if let Err(panic) = outcome {
            eprintln!("property violated on {}", path.display());
            std::panic::resume_unwind(panic);
        }
    }
    seeds.len() + regressions.len()
}

/// A property check: panics when the property is violated on the input.
type Check = fn(&[u8]);

/// Every fuzz target and the property check it runs.
const TARGETS: [(&str, Check); 5] = [
    ("mention_parse", checks::mention_parse),
    ("uri_decode", checks::uri_decode),
    ("protocol_request", checks::protocol_request),
    ("prepare_snapshot", checks::prepare_snapshot),
    ("retain_differential", checks::retain_differential),
];

/// Every target in `fuzz/fuzz_targets/` is replayed here, with its seeds;
/// no seed or regression directory belongs to a target that does not exist.
#[test]
fn every_fuzz_target_is_replayed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names = |dir: &Path, extension: Option<&str>| -> Vec<String> {
        let mut names: Vec<String> = match fs::read_dir(dir) {
            Ok(entries) => entries
                .map(|entry| entry.expect("directory entry").path())
                .filter(|path| match extension {
                    Some(extension) => path.extension().is_some_and(|e| e == extension),
                    None => path.is_dir(),
                })
                .filter_map(|path| Some(path.file_stem()?.to_str()?.to_owned()))
                .collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        names
    };
    let mut replayed: Vec<String> = TARGETS.iter().map(|(name, _)| (*name).to_owned()).collect();
    replayed.sort();
    assert_eq!(
        names(&root.join("fuzz/fuzz_targets"), Some("rs")),
        replayed,
        "fuzz targets and replayed targets differ"
    );
    for dir in ["fuzz/seeds", "tests/fuzz_regressions"] {
        for name in names(&root.join(dir), None) {
            assert!(
                replayed.contains(&name),
                "{dir}/{name}: no such fuzz target"
            );
        }
    }
}

/// Replays the seeds and regressions of the target called `name`.
fn replay_target(name: &str) {
    let (_, check) = TARGETS
        .iter()
        .find(|(target, _)| *target == name)
        .unwrap_or_else(|| panic!("no fuzz target {name}"));
    assert!(replay(name, *check) > 0);
}

#[test]
fn mention_parse_seeds_and_regressions() {
    replay_target("mention_parse");
}

#[test]
fn uri_decode_seeds_and_regressions() {
    replay_target("uri_decode");
}

#[test]
fn protocol_request_seeds_and_regressions() {
    replay_target("protocol_request");
}

#[test]
fn prepare_snapshot_seeds_and_regressions() {
    replay_target("prepare_snapshot");
}

#[test]
fn retain_differential_seeds_and_regressions() {
    replay_target("retain_differential");
}
