//! The ranking of `files/list` explored in a small scope (spec
//! `runner.differential.ranking`, ours): every tree of two entries over a
//! fixed set of paths and kinds, under each of a few queries.
//!
//! A ranking bug shows only between two candidates whose scores are close
//! (a directory's bonus against a smaller gap, an exact name against a
//! shorter path it starts), and random trees put two such entries side by
//! side only by luck. The small-scope hypothesis (Jackson) says most bugs
//! show in small instances: the paths are chosen so that, under the
//! queries, every tier of the score (an exact name at the root and nested,
//! a prefix, a substring of the name and of the path, subsequences whose
//! gaps differ by less than the directory bonus, a hidden name) meets
//! every other, as a file and as a directory.

use crate::js::json::{self, Json};

/// The paths of the scope.
const PATHS: &[&str] = &["a", "ab", "xab", "b/a", "x/ab", "axb", "axxb", ".a"];

/// The queries of the scope: global ones (a name, a prefix, a
/// subsequence) and listings (the root, a directory).
const QUERIES: &[&str] = &["a", "ab", "", "b/", "./"];

/// The kinds an entry may have.
const KINDS: &[&str] = &["file", "directory"];

/// Every case of the scope for `op` (none for another op than
/// `files/list`), in a fixed order.
pub fn cases(op: &str) -> Vec<Json> {
    if op != "files/list" {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (at, first) in PATHS.iter().enumerate() {
        for second in &PATHS[at + 1..] {
            for first_kind in KINDS {
                for second_kind in KINDS {
                    for query in QUERIES {
                        let text = format!(
                            r#"{{"tree":{{"entries":[{{"path":"{first}","kind":"{first_kind}"}},{{"path":"{second}","kind":"{second_kind}"}}]}},"query":"{query}"}}"#
                        );
                        out.extend(json::parse(&text).ok());
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// runner.differential.ranking: every pair of paths, under every pair
    /// of kinds and every query, once; none for another op.
    #[test]
    fn every_pair_of_entries_meets_every_query() {
        let all = cases("files/list");
        let pairs = PATHS.len() * (PATHS.len() - 1) / 2;
        assert_eq!(all.len(), pairs * KINDS.len() * KINDS.len() * QUERIES.len());
        let written: Vec<String> = all.iter().map(json::to_ascii).collect();
        assert!(written.iter().any(|text| text.contains(
            r#""path":"axb","kind":"file"},{"path":"axxb","kind":"directory"}]},"query":"ab""#
        )));
        assert!(cases("files/token").is_empty());
    }
}
