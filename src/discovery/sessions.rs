//! Session candidates: which sessions a user can mention, ranked by
//! working-directory affinity and, with `candidates-fuzzy`, by fuzzy
//! relevance (spec `candidates.*`).
//!
//! A host builds a [`CandidateIndex`] once per listing (lower-casing every
//! field once) and asks it on every keystroke.

use crate::features::Features;
use crate::js::case::to_lower;
use crate::js::json::Json;
use crate::js::{is_js_whitespace, JsString};
use crate::mention;
use crate::reach;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One listed session.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct SessionRecord {
    /// The session id.
    pub id: JsString,
    /// Its recorded working directory.
    pub cwd: Option<JsString>,
    /// When it was created, as the listing gives it.
    pub created_at: Option<Json>,
    /// Its latest title, when one is recorded.
    pub title: Option<JsString>,
    /// A subagent's creation label, when the session is a subagent's.
    pub subagent_label: Option<JsString>,
}

impl SessionRecord {
    /// `label`: the title when recorded (even empty), else the id
    /// (spec `candidates.label`).
    pub fn label(&self) -> &JsString {
        self.title.as_ref().unwrap_or(&self.id)
    }

    /// The label a remote candidate's mention shows: the display title
    /// with `remote-display-label`, else the label (spec
    /// `candidates.remote`).
    pub fn mention_label(&self, features: Features) -> &JsString {
        if features.remote_display_label {
            self.display_title()
        } else {
            self.label()
        }
    }

    /// `displayTitle`: the subagent label when recorded, else the label
    /// (spec `candidates.v2.display-title`).
    pub fn display_title(&self) -> &JsString {
        self.subagent_label.as_ref().unwrap_or_else(|| self.label())
    }
}

/// A candidate as the protocol writes it.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate<'a> {
    /// The listed session.
    pub record: &'a SessionRecord,
    /// Its working directory is the agent's (rank 0).
    pub same_workspace: bool,
    /// Its place in the listing the index was built from.
    pub position: usize,
}

impl Candidate<'_> {
    /// The candidate's JSON with the members `features` add, in upstream's
    /// member order (spec `candidates.v1.output`, `candidates.v2.output`);
    /// with `mention`, the canonical mention appended last (spec
    /// `candidates.remote`).
    pub fn to_json(&self, features: Features, with_mention: bool) -> Json {
        let record = self.record;
        reach::point("candidates.label");
        if features.display_title && features.same_workspace {
            reach::point("candidates.v2.output");
        } else if !features.display_title && !features.same_workspace {
            reach::point("candidates.v1.output");
        }
        let mut members = vec![
            (JsString::from("sessionId"), Json::String(record.id.clone())),
            (
                JsString::from("label"),
                Json::String(record.label().clone()),
            ),
        ];
        if features.display_title {
            reach::point("candidates.v2.display-title");
            if record.subagent_label.is_none() {
                reach::point("candidates.v2.display-title-present");
            }
            members.push((
                JsString::from("displayTitle"),
                Json::String(record.display_title().clone()),
            ));
        }
        if let Some(cwd) = &record.cwd {
            members.push((JsString::from("cwd"), Json::String(cwd.clone())));
        }
        if features.same_workspace {
            reach::point("candidates.v2.same-workspace");
            members.push((
                JsString::from("sameWorkspace"),
                Json::Bool(self.same_workspace),
            ));
        }
        if let Some(created_at) = &record.created_at {
            members.push((JsString::from("createdAt"), created_at.clone()));
        }
        if with_mention {
            reach::point("candidates.remote");
            let label = record.mention_label(features);
            let text = mention::format(record.id.units(), Some(label.units()));
            members.push((JsString::from("mention"), Json::String(text)));
        }
        Json::Object(members)
    }
}

/// A candidate serializes as the newest release's candidate object
/// (`sessionId`, `label`, `displayTitle`, `cwd`, `sameWorkspace`,
/// `createdAt`), the form hosts show.
#[cfg(feature = "serde")]
impl serde::Serialize for Candidate<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json(Features::NEWEST, false).serialize(serializer)
    }
}

/// Where one record's lower-cased fields lie in the index's arenas.
struct Entry {
    id: Field,
    cwd: Option<Field>,
    label: Field,
    display_title: Field,
}

/// A lower-cased field in one of the two arenas: ASCII fields as bytes, so
/// that SIMD byte search (`memchr`) serves the common case, others as UTF-16.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Ascii(u32, u32),
    Wide(u32, u32),
}

/// The lower-cased query, also as bytes when it is ASCII.
struct Needle<'q> {
    wide: &'q [u16],
    ascii: Option<&'q [u8]>,
}

/// What [`score`] needs of a code unit type.
trait Unit: Copy + Eq {
    /// True when a word starts after this unit (spec `candidates.fuzzy.word-start`).
    fn ends_word(self) -> bool;
    /// The first position of `unit` in `haystack`.
    fn position(haystack: &[Self], unit: Self) -> Option<usize>;
}

impl Unit for u8 {
    fn ends_word(self) -> bool {
        u16::from(self).ends_word()
    }

    fn position(haystack: &[u8], unit: u8) -> Option<usize> {
        memchr::memchr(unit, haystack)
    }
}

impl Unit for u16 {
    fn ends_word(self) -> bool {
        (self < 0x80 && !(self as u8).is_ascii_alphanumeric()) || is_js_whitespace(self)
    }

    fn position(haystack: &[u16], unit: u16) -> Option<usize> {
        haystack.iter().position(|u| *u == unit)
    }
}

/// The bit standing for one code unit: letters and digits get bits of their
/// own, everything else shares the rest.
const fn unit_bit(unit: u16) -> u64 {
    let bit = match unit {
        0x61..=0x7A => unit - 0x61,
        0x30..=0x39 => 26 + unit - 0x30,
        _ => 36 + unit % 28,
    };
    1 << bit
}

/// A 64-bit summary of the code units of `units`.
fn unit_mask<T: Copy + Into<u16>>(units: &[T]) -> u64 {
    units
        .iter()
        .fold(0, |mask, unit| mask | unit_bit((*unit).into()))
}

/// A 64-bit summary of the adjacent pairs of code units of `units`: a
/// string containing a pair the summary lacks cannot be a substring.
fn pair_mask<T: Copy + Into<u32>>(units: &[T]) -> u64 {
    units.windows(2).fold(0, |mask, pair| {
        mask | pair_bit(pair[0].into(), pair[1].into())
    })
}

/// The bit of [`pair_mask`] for the code unit `first` followed by `second`.
fn pair_bit(first: u32, second: u32) -> u64 {
    1 << ((first.wrapping_mul(31) ^ second) & 63)
}

/// [`unit_bit`] of each ASCII code unit.
const ASCII_BITS: [u64; 128] = {
    let mut bits = [0; 128];
    let mut unit = 0;
    while unit < 128 {
        bits[unit] = unit_bit(unit as u16);
        unit += 1;
    }
    bits
};

/// [`unit_mask`] and [`pair_mask`] of ASCII bytes, in one pass with the
/// unit bits looked up and each byte read once (reading each byte twice
/// cost 2.4 ms of the 22.7 ms `candidates/list` op on 100 000 sessions).
fn ascii_masks(bytes: &[u8]) -> (u64, u64) {
    let Some((&first, rest)) = bytes.split_first() else {
        return (0, 0);
    };
    let start = (ASCII_BITS[usize::from(first & 0x7F)], 0, u32::from(first));
    let (units, pairs, _) = rest.iter().fold(start, |(units, pairs, previous), &byte| {
        let byte = u32::from(byte);
        (
            units | ASCII_BITS[(byte & 0x7F) as usize],
            pairs | pair_bit(previous, byte),
            byte,
        )
    });
    (units, pairs)
}

/// A stored field and its [`unit_mask`] and [`pair_mask`].
type Stored = (Field, (u64, u64));

/// The two arenas the index's lower-cased fields live in.
#[derive(Default)]
struct Arenas {
    ascii: Vec<u8>,
    wide: Vec<u16>,
}

impl Arenas {
    /// Lower-cases `units` into an arena. ASCII text (the common case) is
    /// lower-cased straight into the byte arena, without an intermediate
    /// string; anything else takes the full Unicode mapping ([`to_lower`]).
    /// Always inlined, so that the field and its summaries stay in
    /// registers: returned through memory, they were reloaded across
    /// narrower stores, which stalls (0.9 ms of the 19.4 ms op on 100 000
    /// sessions).
    #[inline(always)]
    fn store(&mut self, units: &[u16]) -> Stored {
        // Lower-cased as ASCII in the same pass that finds out whether it is.
        let start = self.ascii.len();
        let mut seen = 0;
        self.ascii.extend(units.iter().map(|unit| {
            seen |= *unit;
            (*unit as u8).to_ascii_lowercase()
        }));
        if seen < 0x80 {
            let masks = ascii_masks(&self.ascii[start..]);
            return (Field::Ascii(start as u32, self.ascii.len() as u32), masks);
        }
        self.ascii.truncate(start);
        let lower = to_lower(units);
        let masks = (unit_mask(&lower), pair_mask(&lower));
        let field = if lower.iter().all(|unit| *unit < 0x80) {
            let start = self.ascii.len() as u32;
            self.ascii.extend(lower.iter().map(|unit| *unit as u8));
            Field::Ascii(start, self.ascii.len() as u32)
        } else {
            let start = self.wide.len() as u32;
            self.wide.extend_from_slice(&lower);
            Field::Wide(start, self.wide.len() as u32)
        };
        (field, masks)
    }
}

/// A listing prepared for queries: every field lower-cased once into one
/// contiguous arena, and the records grouped by working directory so that a
/// query visits the agent's group first and stops as soon as no later
/// candidate can enter the top `limit`.
pub struct CandidateIndex {
    records: Vec<SessionRecord>,
    ascii: Vec<u8>,
    wide: Vec<u16>,
    entries: Vec<Entry>,
    /// Per record, a 64-bit summary of the code units its fields contain: a
    /// query with a unit none of them has cannot match. Kept apart from the
    /// entries so that rejecting scans 8 bytes a record.
    units: Vec<u64>,
    /// Per record, the union of its fields' [`pair_mask`]s.
    pairs: Vec<u64>,
    /// Per record, its working-directory group, or `u32::MAX` without one.
    group_of: Vec<u32>,
    groups: FxHashMap<JsString, u32>,
    members: Vec<Vec<u32>>,
    without_cwd: Vec<u32>,
}

/// A ranked hit: rank, relevance (highest first), listing index.
type Hit = (u8, Reverse<u32>, u32);

/// A `need` that tells [`score`] the query is no substring of the field.
const SUBSEQUENCE_ONLY: u32 = u32::MAX;

impl CandidateIndex {
    /// Indexes a listing given in creation (listing) order, in one pass:
    /// each id and label is lower-cased once, the display title only when it
    /// differs from the label (a subagent's), and a working directory once
    /// per group of records sharing it.
    pub fn new(records: Vec<SessionRecord>) -> CandidateIndex {
        // Sized once (ids and labels; working directories are few), rather
        // than grown by doubling: megabytes for a large listing.
        let ascii = records
            .iter()
            .map(|record| record.id.len() + record.label().len())
            .sum();
        let mut arenas = Arenas {
            ascii: Vec::with_capacity(ascii),
            wide: Vec::new(),
        };
        let mut groups: FxHashMap<JsString, u32> = FxHashMap::default();
        let mut group_cwd: Vec<Stored> = Vec::new();
        let mut members: Vec<Vec<u32>> = Vec::new();
        let mut without_cwd = Vec::new();
        let mut entries = Vec::with_capacity(records.len());
        let mut units = Vec::with_capacity(records.len());
        let mut pairs = Vec::with_capacity(records.len());
        let mut group_of = Vec::with_capacity(records.len());
        for (index, record) in records.iter().enumerate() {
            let (id, id_units) = arenas.store(record.id.units());
            let (label, label_units) = arenas.store(record.label().units());
            let (display_title, display_units) = match &record.subagent_label {
                Some(subagent_label) => arenas.store(subagent_label.units()),
                None => (label, label_units),
            };
            let group = record.cwd.as_ref().map(|cwd| {
                let group = match groups.get(cwd) {
                    Some(group) => *group,
                    None => {
                        let group = groups.len() as u32;
                        groups.insert(cwd.clone(), group);
                        group_cwd.push(arenas.store(cwd.units()));
                        members.push(Vec::new());
                        group
                    }
                };
                members[group as usize].push(index as u32);
                group
            });
            let (cwd, cwd_units) = match group {
                Some(group) => {
                    let (field, masks) = group_cwd[group as usize];
                    (Some(field), masks)
                }
                None => {
                    without_cwd.push(index as u32);
                    (None, (0, 0))
                }
            };
            entries.push(Entry {
                id,
                cwd,
                label,
                display_title,
            });
            units.push(id_units.0 | label_units.0 | display_units.0 | cwd_units.0);
            pairs.push(id_units.1 | label_units.1 | display_units.1 | cwd_units.1);
            group_of.push(group.unwrap_or(u32::MAX));
        }
        CandidateIndex {
            records,
            ascii: arenas.ascii,
            wide: arenas.wide,
            entries,
            units,
            pairs,
            group_of,
            groups,
            members,
            without_cwd,
        }
    }

    /// The score of the needle against a field (spec `candidates.fuzzy.score`).
    fn score(&self, field: Field, needle: &Needle<'_>, need: u32) -> Option<u32> {
        match field {
            Field::Ascii(start, end) => {
                let query = needle.ascii?;
                let field = &self.ascii[start as usize..end as usize];
                score(field, query, need, |from| find(field, query, from))
            }
            Field::Wide(start, end) => {
                let field = &self.wide[start as usize..end as usize];
                score(field, needle.wide, need, |from| {
                    find(field, needle.wide, from)
                })
            }
        }
    }

    /// True when the needle occurs in the field.
    fn contains(&self, field: Field, needle: &Needle<'_>) -> bool {
        match field {
            Field::Ascii(start, end) => needle.ascii.is_some_and(|query| {
                find(&self.ascii[start as usize..end as usize], query, 0).is_some()
            }),
            Field::Wide(start, end) => {
                find(&self.wide[start as usize..end as usize], needle.wide, 0).is_some()
            }
        }
    }

    /// The candidates for `agent_id` in `agent_cwd` matching `query`, best
    /// first, at most `limit` (spec `candidates.rank`, `candidates.v1.match`,
    /// `candidates.v2.match`, `candidates.fuzzy.order`).
    pub fn list(
        &self,
        agent_id: &JsString,
        agent_cwd: Option<&JsString>,
        query: &[u16],
        limit: usize,
        features: Features,
    ) -> Vec<Candidate<'_>> {
        let lowered = to_lower(query);
        let needle_units = unit_mask(&lowered);
        let needle_pairs = pair_mask(&lowered);
        let ascii_bytes: Option<Vec<u8>> = lowered
            .iter()
            .all(|unit| *unit < 0x80)
            .then(|| lowered.iter().map(|unit| *unit as u8).collect());
        let needle = Needle {
            wide: &lowered,
            ascii: ascii_bytes.as_deref(),
        };
        let same_group = agent_cwd.and_then(|cwd| self.groups.get(cwd)).copied();
        // The best `limit` hits so far; the worst on top.
        let mut best: BinaryHeap<Hit> =
            BinaryHeap::with_capacity(limit.min(self.entries.len()) + 1);
        let highest = if features.fuzzy && !lowered.is_empty() {
            1000
        } else {
            0
        };
        // Stages visit ranks in order and indices ascending, so once the top
        // is full and its worst hit beats the best that the next candidate
        // could score, no later candidate can enter (spec `candidates.rank`).
        let visit = |index: u32, rank: u8, best: &mut BinaryHeap<Hit>| -> bool {
            if best.len() >= limit
                && best
                    .peek()
                    .is_some_and(|worst| *worst <= (rank, Reverse(highest), index))
            {
                return false;
            }
            if self.units[index as usize] & needle_units != needle_units {
                return true;
            }
            let (record, entry) = (&self.records[index as usize], &self.entries[index as usize]);
            if record.id == *agent_id {
                reach::point("candidates.exclude-self");
                return true;
            }
            // With the top full, a candidate of the worst hit's rank enters
            // only by scoring above it (its index is larger).
            let need = match best.peek() {
                Some(worst) if best.len() >= limit && worst.0 == rank => worst.1 .0 + 1,
                _ => 0,
            };
            // Without every adjacent pair of the query, no field contains it:
            // only a scattered subsequence can match.
            let substring = self.pairs[index as usize] & needle_pairs == needle_pairs;
            let relevance = if lowered.is_empty() {
                Some(0)
            } else if !features.fuzzy {
                (substring && self.substring_matches(entry, &needle, features.display_title))
                    .then_some(0)
            } else if !substring {
                self.relevance(entry, &needle, SUBSEQUENCE_ONLY)
            } else {
                self.relevance(entry, &needle, need)
            };
            if let Some(relevance) = relevance {
                let hit = (rank, Reverse(relevance), index);
                if best.len() < limit {
                    best.push(hit);
                } else if best.peek().is_some_and(|worst| hit < *worst) {
                    best.pop();
                    best.push(hit);
                }
            }
            true
        };
        if lowered.is_empty() {
            // An empty query keeps every candidate (relevance 0).
            if features.display_title {
                reach::point("candidates.v2.match");
            }
            if features.fuzzy {
                reach::point("candidates.fuzzy.relevance");
            }
        } else {
            reach::point("candidates.lowercase");
            if !features.fuzzy {
                if features.display_title {
                    reach::point("candidates.v2.match");
                } else {
                    reach::point("candidates.v1.match");
                }
            } else {
                reach::point("candidates.fuzzy.relevance");
                reach::point("candidates.fuzzy.score");
            }
        }
        let members = same_group.map_or(&[][..], |group| &self.members[group as usize]);
        let same = same_group.unwrap_or(u32::MAX);
        let others = (0..self.entries.len() as u32).filter(|index| {
            let group = self.group_of[*index as usize];
            group != u32::MAX && group != same
        });
        let stages = members
            .iter()
            .map(|index| (*index, 0))
            .chain(self.without_cwd.iter().map(|index| (*index, 1)))
            .chain(others.map(|index| (index, 2)));
        for (index, rank) in stages {
            if !visit(index, rank, &mut best) {
                break;
            }
        }
        let mut hits = best.into_vec();
        hits.sort_unstable();
        reach::point("candidates.rank");
        if features.fuzzy && !lowered.is_empty() && reach::is_recording() {
            reach_fuzzy(&hits);
        }
        hits.into_iter()
            .map(|(rank, _, index)| Candidate {
                record: &self.records[index as usize],
                same_workspace: rank == 0,
                position: index as usize,
            })
            .collect()
    }

    /// A substring of the id, cwd or label (spec `candidates.v1.match`),
    /// or, `with_display_title`, of the display title
    /// (`candidates.v2.match`).
    fn substring_matches(
        &self,
        entry: &Entry,
        needle: &Needle<'_>,
        with_display_title: bool,
    ) -> bool {
        self.contains(entry.id, needle)
            || entry.cwd.is_some_and(|cwd| self.contains(cwd, needle))
            || self.contains(entry.label, needle)
            || (with_display_title && self.contains(entry.display_title, needle))
    }

    /// The best of the label and display title scores and the id and cwd
    /// substring matches (spec `candidates.fuzzy.relevance`).
    /// Relevances below `need` are reported as `None` (see [`score`]).
    fn relevance(&self, entry: &Entry, needle: &Needle<'_>, need: u32) -> Option<u32> {
        let label = self.score(entry.label, needle, need);
        let display_title = if entry.display_title == entry.label {
            label
        } else {
            self.score(entry.display_title, needle, need)
        };
        let fuzzy = label.max(display_title);
        if fuzzy >= Some(500) || need > 500 {
            return fuzzy.filter(|relevance| need == SUBSEQUENCE_ONLY || *relevance >= need);
        }
        let substring = |field: Field| self.contains(field, needle).then_some(500);
        substring(entry.id)
            .or_else(|| entry.cwd.and_then(substring))
            .or(fuzzy)
    }
}

/// Marks the fuzzy rules the ranked `hits` of a non-empty query show, from
/// their relevances (one pass over at most `limit` hits, after the search
/// loop): a tier-3/4 score (800, 700) or a subsequence score (300–450)
/// decided a word start; a subsequence score came from
/// `candidates.fuzzy.subsequence`; two hits of one rank group were ordered
/// by relevance then index (`candidates.fuzzy.order`).
fn reach_fuzzy(hits: &[Hit]) {
    if hits
        .iter()
        .any(|(_, Reverse(relevance), _)| matches!(relevance, 700 | 800 | 300..=450))
    {
        reach::point("candidates.fuzzy.word-start");
    }
    if hits
        .iter()
        .any(|(_, Reverse(relevance), _)| (300..=450).contains(relevance))
    {
        reach::point("candidates.fuzzy.subsequence");
    }
    if hits.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        reach::point("candidates.fuzzy.order");
    }
}

/// The first occurrence of `needle` in `haystack` at or after `from`.
/// Fields are short, so a direct scan beats a prepared searcher.
/// Whether `text`, lower-cased, contains `lowered` (rc.8's match of a
/// query, spec `candidates.v1.match`), as the index finds it.
pub fn contains_lowered(text: &[u16], lowered: &[u16]) -> bool {
    find(&to_lower(text), lowered, 0).is_some()
}

fn find<T: Unit>(haystack: &[T], needle: &[T], from: usize) -> Option<usize> {
    let first = *needle.first()?;
    let last_start = haystack.len().checked_sub(needle.len())?;
    (from..=last_start)
        .find(|&start| haystack[start] == first && haystack[start..].starts_with(needle))
}

/// Position 0, or after an ASCII unit that is not a letter or digit, or
/// after JavaScript whitespace (spec `candidates.fuzzy.word-start`).
fn is_word_start<T: Unit>(field: &[T], position: usize) -> bool {
    position == 0 || field[position - 1].ends_word()
}

/// The score of `query` against one lower-cased field, `find(from)` giving
/// the next occurrence of the query at or after `from` (spec
/// `candidates.fuzzy.score`, `candidates.fuzzy.subsequence`).
///
/// Scores below `need` cannot change a result, so the tiers under it are not
/// computed and `None` is returned instead: the answer is the same, only
/// faster.
fn score<T: Unit>(
    field: &[T],
    query: &[T],
    need: u32,
    find: impl Fn(usize) -> Option<usize>,
) -> Option<u32> {
    if need == SUBSEQUENCE_ONLY {
        return subsequence(field, query);
    }
    if field == query {
        return Some(1000);
    }
    if need > 900 {
        return None;
    }
    if field.starts_with(query) {
        return Some(900);
    }
    if need > 800 {
        return None;
    }
    if let Some(first) = find(0) {
        let mut at = Some(first);
        while let Some(position) = at {
            if is_word_start(field, position) {
                return Some(800);
            }
            at = find(position + 1);
        }
        return (need <= 700).then_some(700);
    }
    if need > 450 {
        return None;
    }
    subsequence(field, query)
}

/// The subsequence score (spec `candidates.fuzzy.subsequence`).
fn subsequence<T: Unit>(field: &[T], query: &[T]) -> Option<u32> {
    let mut previous: Option<usize> = None;
    let mut gap = 0;
    let mut first_at = 0;
    for &unit in query {
        let from = previous.map_or(0, |p| p + 1);
        let found = from + T::position(field.get(from..)?, unit)?;
        match previous {
            Some(p) => gap += found - p - 1,
            None => first_at = found,
        }
        previous = Some(found);
    }
    let bonus = if is_word_start(field, first_at) {
        50
    } else {
        0
    };
    Some(300 + 100u32.saturating_sub(gap as u32) + bonus)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn score_of(field: &[u16], query: &[u16]) -> Option<u32> {
        score(field, query, 0, |from| find(field, query, from))
    }

    proptest::proptest! {
        /// The ASCII fast path of [`Arenas::store`] lower-cases and
        /// summarizes exactly as the full Unicode path does.
        #[test]
        fn stored_fields_are_the_unicode_lower_case(
            units in proptest::collection::vec(
                proptest::prop_oneof![3 => 0u16..0x80, 1 => proptest::num::u16::ANY],
                0..40,
            )
        ) {
            let mut arenas = Arenas::default();
            let (field, masks) = arenas.store(&units);
            let stored: Vec<u16> = match field {
                Field::Ascii(start, end) => arenas.ascii[start as usize..end as usize]
                    .iter()
                    .map(|byte| u16::from(*byte))
                    .collect(),
                Field::Wide(start, end) => arenas.wide[start as usize..end as usize].to_vec(),
            };
            let lower = to_lower(&units);
            proptest::prop_assert_eq!(&stored, &lower);
            proptest::prop_assert_eq!(masks, (unit_mask(&lower), pair_mask(&lower)));
        }
    }

    #[test]
    fn score_tiers() {
        let q = units("plan");
        assert_eq!(score_of(&units("plan"), &q), Some(1000));
        assert_eq!(score_of(&units("planning"), &q), Some(900));
        assert_eq!(score_of(&units("the plan"), &q), Some(800));
        assert_eq!(score_of(&units("explanation"), &q), Some(700));
        assert_eq!(score_of(&units("p-l-a-n"), &q), Some(300 + 97 + 50));
        assert_eq!(score_of(&units("nalp"), &q), None);
        assert!(score_of(&units("my planet"), &q) > score_of(&units("airplane"), &q));
    }

    /// Rank straight from the spec's words (`candidates.rank`).
    fn rank(cwd: Option<&JsString>, agent_cwd: Option<&JsString>) -> u8 {
        match (cwd, agent_cwd) {
            (Some(cwd), Some(agent)) if cwd == agent => 0,
            (None, _) => 1,
            _ => 2,
        }
    }

    /// Every candidate scored in full, sorted, cut: what `list` must equal
    /// whatever it skips.
    fn naive(
        index: &CandidateIndex,
        agent: &JsString,
        cwd: Option<&JsString>,
        query: &str,
        limit: usize,
    ) -> Vec<String> {
        let lowered = to_lower(&units(query));
        let ascii: Vec<u8> = lowered.iter().map(|u| *u as u8).collect();
        let needle = Needle {
            wide: &lowered,
            ascii: lowered.iter().all(|u| *u < 0x80).then_some(&ascii[..]),
        };
        let mut hits: Vec<Hit> = Vec::new();
        for (i, (record, entry)) in index.records.iter().zip(&index.entries).enumerate() {
            if record.id == *agent {
                continue;
            }
            let relevance = if lowered.is_empty() {
                Some(0)
            } else {
                index.relevance(entry, &needle, 0)
            };
            if let Some(relevance) = relevance {
                hits.push((rank(record.cwd.as_ref(), cwd), Reverse(relevance), i as u32));
            }
        }
        hits.sort_unstable();
        hits.truncate(limit);
        hits.into_iter()
            .map(|(_, _, i)| index.records[i as usize].id.to_string_lossy())
            .collect()
    }

    #[test]
    fn skipping_never_changes_the_top() {
        let words = [
            "plan",
            "planet",
            "p-lan",
            "release",
            "notes",
            "x",
            "Plan",
            "PLAN notes",
            "ÉLAN",
            "pla n",
        ];
        let cwds = [Some("/w"), None, Some("/o"), Some("/w")];
        let records = (0..400)
            .map(|i| SessionRecord {
                id: JsString::from(format!("s{i}").as_str()),
                cwd: cwds[i % 4].map(JsString::from),
                created_at: None,
                title: (i % 5 != 0).then(|| {
                    JsString::from(format!("{} {}", words[i % 10], words[(i * 7) % 10]).as_str())
                }),
                subagent_label: (i % 6 == 0).then(|| JsString::from(words[(i * 3) % 10])),
            })
            .collect();
        let index = CandidateIndex::new(records);
        let agent = JsString::from("s3");
        for cwd in [Some(JsString::from("/w")), None] {
            for query in [
                "", "p", "pl", "plan", "lan", "s1", "/o", "notes", "élan", "zz",
            ] {
                for limit in [1, 5, 50, 1000] {
                    let fast: Vec<String> = index
                        .list(&agent, cwd.as_ref(), &units(query), limit, Features::NEWEST)
                        .iter()
                        .map(|c| c.record.id.to_string_lossy())
                        .collect();
                    assert_eq!(
                        fast,
                        naive(&index, &agent, cwd.as_ref(), query, limit),
                        "{query:?} {limit}"
                    );
                }
            }
        }
    }
}
