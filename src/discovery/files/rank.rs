//! rc.8's file ranking, written literally over UTF-16 code units (spec
//! `files.rank.*`). This is the naive form: the directory listing uses it,
//! and the fast index search ([`super::FileIndex::search`]) must agree with
//! it on every input (checked by this crate's tests).

use super::{FileKind, FileReferenceCandidate};
use crate::reach;
use std::cmp::Ordering;

const SLASH: u16 = b'/' as u16;

/// Score of a name equal to the query (spec `files.rank.score`).
pub const SCORE_EXACT_NAME: u32 = 1000;
/// Score of a name starting with the query.
pub const SCORE_NAME_PREFIX: u32 = 900;
/// Score of a name containing the query.
pub const SCORE_NAME_CONTAINS: u32 = 700;
/// Score of a path containing the query.
pub const SCORE_PATH_CONTAINS: u32 = 500;
/// Base score of a path holding the query as a subsequence.
pub const SCORE_SUBSEQUENCE: u32 = 300;
/// Added to every score of a directory (spec `files.rank.directory-bonus`).
pub const DIRECTORY_BONUS: u32 = 25;

pub use crate::js::case::to_lower;

/// `haystack.indexOf(needle, from)` on code units.
fn index_of(haystack: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    let from = from.min(haystack.len());
    if needle.is_empty() {
        return Some(from);
    }
    haystack[from..]
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|offset| from + offset)
}

/// The subsequence part of the score: the query's code points found left to
/// right in `target`, each searched with `indexOf` from one code unit after
/// the previous match, the skipped code units summed as the gap; `None` when
/// one is missing, else `max(0, 100 − gap)` (spec `files.rank.subsequence`).
fn subsequence_score(target: &[u16], query: &[u16]) -> Option<u32> {
    let mut target_index = 0usize;
    let mut gap = 0usize;
    let mut index = 0;
    while index < query.len() {
        let step = crate::js::code_point_len(query, index);
        let character = &query[index..index + step];
        let found = index_of(target, character, target_index)?;
        gap += found - target_index;
        target_index = found + 1;
        index += step;
    }
    Some(100u32.saturating_sub(u32::try_from(gap).unwrap_or(u32::MAX)))
}

/// `scoreCandidate(candidate, query)`: `None` when the candidate does not
/// match (spec `files.rank.score`, `files.rank.empty-query`); the name is
/// the lower-cased path after its last `/` (spec `files.rank.name`).
pub fn score_candidate(path: &[u16], kind: FileKind, query: &[u16]) -> Option<u32> {
    if query.is_empty() {
        return Some(0);
    }
    let path = to_lower(path);
    let name_start = path
        .iter()
        .rposition(|unit| *unit == SLASH)
        .map_or(0, |slash| slash + 1);
    let name = &path[name_start..];
    let needle = to_lower(query);
    let bonus = if kind == FileKind::Directory {
        DIRECTORY_BONUS
    } else {
        0
    };
    let base = if name == needle.as_slice() {
        SCORE_EXACT_NAME
    } else if name.starts_with(&needle) {
        SCORE_NAME_PREFIX
    } else if index_of(name, &needle, 0).is_some() {
        SCORE_NAME_CONTAINS
    } else if index_of(&path, &needle, 0).is_some() {
        SCORE_PATH_CONTAINS
    } else {
        SCORE_SUBSEQUENCE + subsequence_score(&path, &needle)?
    };
    Some(base + bonus)
}

/// Directories before files (`kindRank`).
pub(crate) fn kind_rank(kind: FileKind) -> u8 {
    match kind {
        FileKind::Directory => 0,
        FileKind::File => 1,
    }
}

/// `rankCandidates(candidates, query, limit)`: score every candidate, drop
/// those that do not match, sort by score (high first), directories first,
/// then — for a non-empty query only — shorter paths (UTF-16 length) first,
/// then paths in code-unit order; keep the first `limit` (spec
/// `files.rank.order`, `files.rank.limit`).
pub fn rank_candidates(
    candidates: Vec<FileReferenceCandidate>,
    query: &[u16],
    limit: usize,
) -> Vec<FileReferenceCandidate> {
    let mut ranked: Vec<(u32, FileReferenceCandidate)> = candidates
        .into_iter()
        .filter_map(|candidate| {
            score_candidate(candidate.path.units(), candidate.kind, query)
                .map(|score| (score, candidate))
        })
        .collect();
    ranked.sort_by(|(left_score, left), (right_score, right)| {
        right_score
            .cmp(left_score)
            .then_with(|| kind_rank(left.kind).cmp(&kind_rank(right.kind)))
            .then_with(|| {
                if query.is_empty() {
                    Ordering::Equal
                } else {
                    left.path.len().cmp(&right.path.len())
                }
            })
            .then_with(|| left.path.units().cmp(right.path.units()))
    });
    if reach::is_recording() {
        let kept = &ranked[..ranked.len().min(limit)];
        // Two returned candidates that only their paths' code units order.
        let tie = kept.windows(2).any(|pair| {
            let ((left_score, left), (right_score, right)) = (&pair[0], &pair[1]);
            left_score == right_score
                && left.kind == right.kind
                && (query.is_empty() || left.path.len() == right.path.len())
        });
        let kept = kept
            .iter()
            .map(|(score, candidate)| (*score, candidate.kind));
        reach_ranked(query, kept, ranked.len() > limit, tie);
    }
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, candidate)| candidate)
        .collect()
}

/// Marks the `files.rank.*` rules a ranked answer shows, once per query
/// after ranking, never per candidate: `kept` are the returned candidates'
/// scores and kinds, best first; `cut` tells that the limit left matches
/// out, `tie` that two returned candidates were ordered by code units alone.
pub(crate) fn reach_ranked(
    query: &[u16],
    kept: impl Iterator<Item = (u32, FileKind)>,
    cut: bool,
    tie: bool,
) {
    if query.is_empty() {
        reach::point("files.rank.empty-query");
    } else {
        reach::point("files.rank.lowercase");
        reach::point("files.rank.name");
        reach::point("files.rank.score");
    }
    let (mut count, mut directory, mut subsequence) = (0, false, false);
    for (score, kind) in kept {
        count += 1;
        let base = if kind == FileKind::Directory {
            directory = true;
            score.saturating_sub(DIRECTORY_BONUS)
        } else {
            score
        };
        subsequence |= (SCORE_SUBSEQUENCE..SCORE_PATH_CONTAINS).contains(&base);
    }
    if directory && !query.is_empty() {
        reach::point("files.rank.directory-bonus");
    }
    if subsequence {
        reach::point("files.rank.subsequence");
    }
    if count >= 2 {
        reach::point("files.rank.order");
    }
    if tie {
        reach::point("files.rank.code-unit-order");
    }
    if cut {
        reach::point("files.rank.limit");
    }
}

/// Compares two Rust strings in UTF-16 code-unit order, JavaScript's `<` on
/// strings (spec `files.rank.code-unit-order`). UTF-8 byte order differs
/// from it only between U+E000–U+FFFF and astral code points.
pub fn compare_utf16(left: &str, right: &str) -> Ordering {
    let (a, b) = (left.as_bytes(), right.as_bytes());
    let common = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    if common == a.len() || common == b.len() {
        return a.len().cmp(&b.len());
    }
    if a[common] < 0x80 && b[common] < 0x80 {
        return a[common].cmp(&b[common]);
    }
    // Back up to the start of the code point holding the first difference;
    // the equal bytes before it make it a boundary in both strings.
    let mut start = common;
    while !left.is_char_boundary(start) {
        start -= 1;
    }
    let (Some(x), Some(y)) = (left[start..].chars().next(), right[start..].chars().next()) else {
        return a.len().cmp(&b.len());
    };
    let (mut x_units, mut y_units) = ([0u16; 2], [0u16; 2]);
    x.encode_utf16(&mut x_units)
        .iter()
        .cmp(y.encode_utf16(&mut y_units).iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn score(path: &str, kind: FileKind, query: &str) -> Option<u32> {
        score_candidate(&units(path), kind, &units(query))
    }

    #[test]
    fn facts_scores() {
        use FileKind::{Directory, File};
        assert_eq!(score("src/components", Directory, "mn"), Some(417));
        assert_eq!(score("main", File, "mn"), Some(398));
        assert_eq!(score("main", File, "main"), Some(1000));
        assert_eq!(score("mainframe.c", File, "main"), Some(900));
        assert_eq!(score("src/amain.ts", File, "main"), Some(700));
        assert_eq!(score("main/x", File, "main"), Some(500));
        assert_eq!(score("abc", File, "x"), None);
        assert_eq!(score("abc", File, ""), Some(0));
        // An astral match leaves the search on its low surrogate: one more
        // code unit of gap for the next character.
        assert_eq!(score("\u{1F600}x.txt", File, "\u{1F600}t"), Some(397));
    }

    #[test]
    fn lowercase_is_locale_independent_with_final_sigma() {
        let lower = |text: &str| String::from_utf16_lossy(&to_lower(&units(text)));
        assert_eq!(lower("İstanbul"), "i\u{307}stanbul");
        assert_eq!(lower("ẞ ß"), "ß ß");
        assert_eq!(lower("ΟΔΟΣ ΣΑ"), "οδος σα");
        assert_eq!(to_lower(&[0x41, 0xD800, 0x42]), vec![0x61, 0xD800, 0x62]);
    }

    #[test]
    fn utf16_order() {
        assert_eq!(compare_utf16("a", "b"), Ordering::Less);
        assert_eq!(compare_utf16("ab", "a"), Ordering::Greater);
        assert_eq!(compare_utf16("\u{FF61}", "\u{1F600}"), Ordering::Greater);
        assert_eq!(compare_utf16("x\u{E000}", "x\u{10000}"), Ordering::Greater);
        assert_eq!(compare_utf16("é", "z"), Ordering::Greater);
        assert_eq!(compare_utf16("Z", "a"), Ordering::Less);
        for (a, b) in [("\u{FF61}a", "\u{1F600}"), ("é", "è"), ("界", "ü")] {
            let expected = units(a).cmp(&units(b));
            assert_eq!(compare_utf16(a, b), expected, "{a} vs {b}");
        }
    }
}
