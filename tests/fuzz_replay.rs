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
fn replay(target: &str, check: fn(&[u8])) -> usize {
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

#[test]
fn mention_parse_seeds_and_regressions() {
    assert!(replay("mention_parse", checks::mention_parse) > 0);
}

#[test]
fn uri_decode_seeds_and_regressions() {
    assert!(replay("uri_decode", checks::uri_decode) > 0);
}
