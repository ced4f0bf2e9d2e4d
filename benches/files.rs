//! File-reference search at keystroke rate (spec `files.list.index`,
//! `files.rank.*`): a bare query ranked over a prebuilt index of 100 000
//! paths, top 50, for queries of 1, 4, 8 and 12 characters; plus building
//! that index (from memory, and by scanning the same tree on disk).
//! `benches/oracle/files.mjs` generates the identical tree with the same
//! generator and times rc.8's `WorkspaceFileSearch` on the same queries.
//!
//! Budget (spec, `files.md` "Performance"): ≤ 3 ms per query.

mod common;
use common::Rng;

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use dsh_session_reference::discovery::files::{FileIndex, FileKind, FileSearchConfig};

/// Entries (files and directories) in the synthetic tree.
const ENTRIES: usize = 100_000;
/// Candidates per query.
const MAX_RESULTS: usize = 50;

/// Directory names (a few hidden ones; no excluded names, so the oracle's
/// scan indexes every entry). Must stay identical to `benches/oracle/files.mjs`.
const DIRS: &[&str] = &[
    "src",
    "lib",
    "test",
    "tests",
    "docs",
    "packages",
    "components",
    "utils",
    "services",
    "api",
    "server",
    "client",
    "models",
    "views",
    "controllers",
    "handlers",
    "config",
    "scripts",
    "assets",
    "styles",
    "hooks",
    "store",
    "types",
    "internal",
    "core",
    "common",
    "shared",
    "plugins",
    "fixtures",
    "examples",
    "benchmarks",
    "tools",
    "runtime",
    "session",
    "agent",
    "context",
    "reference",
    "Resources",
    ".github",
    ".vscode",
];

/// File name stems.
const STEMS: &[&str] = &[
    "index",
    "main",
    "app",
    "user",
    "users",
    "account",
    "auth",
    "login",
    "session",
    "agent",
    "config",
    "settings",
    "router",
    "routes",
    "handler",
    "server",
    "client",
    "request",
    "response",
    "service",
    "store",
    "reducer",
    "action",
    "helpers",
    "utils",
    "format",
    "parse",
    "render",
    "button",
    "dialog",
    "table",
    "list",
    "item",
    "model",
    "schema",
    "types",
    "errors",
    "logger",
    "cache",
    "queue",
    "worker",
    "retention",
    "projection",
    "mention",
    "README",
    "CHANGELOG",
    "Makefile",
    "package",
    "tsconfig",
    "webpack",
];

/// File extensions.
const EXTS: &[&str] = &[
    "ts", "tsx", "js", "mjs", "json", "md", "rs", "py", "go", "css", "html", "yml", "toml", "txt",
    "snap",
];

/// The timed queries: 1, 4, 8 and 12 characters (no `/`: bare queries rank
/// the index), from "nearly everything matches" to a sparse fuzzy match.
const QUERIES: &[(&str, &str)] = &[
    ("q1", "s"),
    ("q4", "conf"),
    ("q8", "userserv"),
    ("q12", "apihandlerts"),
];

/// FNV-1a (32-bit) of the tree and of each query's answer, as
/// `benches/oracle/files.mjs` computes them: both sides search identical
/// trees and agree on every answer.
const TREE_FNV1A: u32 = 0x8247_6b08;
const ANSWER_FNV1A: [u32; 4] = [0xb7b8_3235, 0x48c9_5e88, 0x18bd_ec4e, 0x2e0a_8ac5];

/// The synthetic tree in generation order: each file path brings its
/// not-yet-seen parent directories first. Directory names never contain a
/// `.` and file names always do, so no path is both.
fn tree() -> Vec<(String, FileKind)> {
    let mut rng = Rng::new();
    let mut entries = Vec::with_capacity(ENTRIES);
    let mut seen = std::collections::HashSet::new();
    while entries.len() < ENTRIES {
        let depth = rng.below(6);
        let mut segments: Vec<String> = Vec::with_capacity(depth + 1);
        for _ in 0..depth {
            let mut name = rng.pick(DIRS).to_owned();
            if rng.below(4) == 0 {
                name.push_str(&format!("-{}", rng.below(50)));
            }
            segments.push(name);
        }
        let mut stem = rng.pick(STEMS).to_owned();
        if rng.below(3) == 0 {
            let second = rng.pick(STEMS);
            stem.push_str(&second[..1].to_ascii_uppercase());
            stem.push_str(&second[1..]);
        }
        if rng.below(5) == 0 {
            stem.push_str(&format!("{}", rng.below(100)));
        }
        let file = format!("{stem}.{}", rng.pick(EXTS));
        for end in 1..=depth {
            let path = segments[..end].join("/");
            if entries.len() < ENTRIES && seen.insert(path.clone()) {
                entries.push((path, FileKind::Directory));
            }
        }
        segments.push(file);
        let path = segments.join("/");
        if entries.len() < ENTRIES && seen.insert(path.clone()) {
            entries.push((path, FileKind::File));
        }
    }
    entries
}

fn fnv1a(hash: u32, text: &str) -> u32 {
    text.encode_utf16().fold(hash, |hash, unit| {
        (hash ^ u32::from(unit)).wrapping_mul(0x0100_0193)
    })
}

/// `d path\n` / `f path\n` for each entry.
fn fnv1a_entries<S: AsRef<str>>(entries: impl Iterator<Item = (S, FileKind)>) -> u32 {
    entries.fold(0x811c_9dc5, |hash, (path, kind)| {
        let tag = if kind == FileKind::Directory {
            "d "
        } else {
            "f "
        };
        fnv1a(fnv1a(fnv1a(hash, tag), path.as_ref()), "\n")
    })
}

/// The tree written to a temporary directory (empty files), removed on drop.
struct OnDisk(PathBuf);

impl OnDisk {
    fn create(entries: &[(String, FileKind)]) -> OnDisk {
        let root = std::env::temp_dir().join(format!("dsh-files-bench-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir(&root).expect("temporary directory");
        let disk = OnDisk(root);
        for (path, kind) in entries {
            let target = disk.0.join(path);
            match kind {
                FileKind::Directory => std::fs::create_dir_all(&target).expect("directory"),
                FileKind::File => {
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent).expect("parent");
                    }
                    std::fs::File::create(&target).expect("file");
                }
            }
        }
        disk
    }

    fn root(&self) -> &Path {
        &self.0
    }
}

impl Drop for OnDisk {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn bench_files(c: &mut Criterion) {
    let entries = tree();
    let tree_hash = fnv1a_entries(entries.iter().map(|(p, k)| (p.as_str(), *k)));
    let index = FileIndex::from_entries(entries.clone());
    assert_eq!(index.len(), ENTRIES);

    let mut report = Vec::new();
    for ((name, query), expected) in QUERIES.iter().zip(ANSWER_FNV1A) {
        let units: Vec<u16> = query.encode_utf16().collect();
        let found = index.search(&units, MAX_RESULTS);
        let hash = fnv1a_entries(found.iter().map(|c| (c.path.to_string_lossy(), c.kind)));
        report.push(format!(
            "{name} {query:?}: {} results, fnv1a {hash:08x}",
            found.len()
        ));
        assert_eq!(hash, expected, "{name}: answer differs from the oracle's");
    }
    eprintln!(
        "tree: {ENTRIES} entries, fnv1a {tree_hash:08x}\n{}",
        report.join("\n")
    );
    assert_eq!(tree_hash, TREE_FNV1A, "the tree differs from the oracle's");

    let mut group = c.benchmark_group("files/search");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(50);
    for (name, query) in QUERIES {
        let units: Vec<u16> = query.encode_utf16().collect();
        group.bench_function(*name, |b| {
            b.iter(|| index.search(black_box(&units), MAX_RESULTS))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("files/index");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(10);
    group.bench_function("from-entries", |b| {
        b.iter(|| FileIndex::from_entries(black_box(entries.clone())))
    });
    let disk = OnDisk::create(&entries);
    let config = FileSearchConfig {
        max_results: MAX_RESULTS,
        max_entries: 200_000,
        ..FileSearchConfig::default()
    };
    let scanned = FileIndex::scan(disk.root(), &config);
    assert_eq!(scanned.len(), ENTRIES, "the scan finds every entry");
    group.bench_function("scan-disk", |b| {
        b.iter(|| FileIndex::scan(black_box(disk.root()), &config))
    });
    group.finish();
}

criterion_group!(benches, bench_files);
criterion_main!(benches);
