//! A slow, obviously-correct model of upstream retention, written directly
//! from the upstream facts R1–R7 (`/work/shared/upstream-facts.md` §5): the
//! test oracle for [`crate::retention`], shared by `tests/retention_model.rs`
//! and the `retain_differential` and `prepare_snapshot` fuzz targets.
//!
//! The model does what upstream's loop does, step by step: it keeps the data
//! object as a [`Json`] tree and re-serializes the whole of it with
//! `stringify_tag_safe` after every change it considers; it drops the lowest
//! droppable index one at a time (R2: the number of drops that first fits is
//! bisected, as no drop lengthens the data), truncates the longest current text
//! from its original (R3) with the binary search of R4 over a naive
//! head/tail retainer on the UTF-8 bytes (R5: code-point trimming, one
//! leading BOM dropped from each decoded part but still counted as kept).
//! The fast `retention::retain` keeps running sums instead; the two must
//! agree exactly. Quadratic on purpose: never use it outside checks.

use crate::js::json::Json;
use crate::js::JsString;
use crate::projection::{self, Role};
use crate::retention::Stats;
use crate::surface::Snapshot;
use crate::tag_safe::stringify_tag_safe;
use std::cell::Cell;

/// `Buffer.from(text, "utf8")`: UTF-8 with every lone surrogate as U+FFFD.
pub fn buffer(text: &[u16]) -> String {
    String::from_utf16_lossy(text)
}

/// `Buffer.byteLength(text, "utf8")`.
pub fn byte_length(text: &[u16]) -> usize {
    buffer(text).len()
}

/// Branches the model took on this thread, to check that the
/// generators reach them: decoded parts that lost a leading BOM, phase-2
/// steps that re-cut an already cut text, and phase-2 picks decided by
/// a tie.
#[derive(Clone, Copy, Debug, Default)]
pub struct Trace {
    /// Decoded head or tail parts that lost a leading BOM.
    pub boms_stripped: usize,
    /// Phase-2 steps that cut a text already cut before.
    pub recuts: usize,
    /// Phase-2 picks among several longest texts.
    pub ties: usize,
}

thread_local! {
    /// The branches taken on this thread so far.
    pub static TRACE: Cell<Trace> = const {
        Cell::new(Trace { boms_stripped: 0, recuts: 0, ties: 0 })
    };
}

fn trace(update: impl FnOnce(&mut Trace)) {
    let mut trace = TRACE.get();
    update(&mut trace);
    TRACE.set(trace);
}

/// A default WHATWG `TextDecoder` on well-formed UTF-8: one leading BOM
/// is stripped.
fn decode(part: &str) -> &str {
    match part.strip_prefix('\u{FEFF}') {
        Some(rest) => {
            trace(|t| t.boms_stripped += 1);
            rest
        }
        None => part,
    }
}

/// R5: keep `head` bytes at the front and `tail` bytes at the end of the
/// UTF-8 bytes of `text`, trimmed to whole code points. Returns the kept
/// text and the omitted byte count.
pub fn head_tail(text: &[u16], head: usize, tail: usize) -> (String, usize) {
    let bytes = buffer(text);
    let total = bytes.len();
    // An incomplete trailing sequence of the head is dropped: on
    // well-formed UTF-8, the end moves back to a code-point boundary.
    let mut prefix_end = head;
    while !bytes.is_char_boundary(prefix_end) {
        prefix_end -= 1;
    }
    // Leading continuation bytes of the tail are dropped.
    let mut suffix_start = if tail == 0 { total } else { total - tail };
    while !bytes.is_char_boundary(suffix_start) {
        suffix_start += 1;
    }
    let prefix = &bytes[..prefix_end];
    let suffix = &bytes[suffix_start..];
    let omitted = total - prefix.len() - suffix.len();
    let kept = format!("{}{}", decode(prefix), decode(suffix));
    (kept, omitted)
}

/// R4: `truncateWithNotice(text, maxOut)`.
pub fn truncate_with_notice(text: &[u16], max_out: usize) -> (Vec<u16>, usize) {
    let total = byte_length(text);
    if total <= max_out {
        return (text.to_vec(), 0);
    }
    let mut best: (Vec<u16>, usize) = (Vec::new(), total);
    let (mut lo, mut hi) = (0i64, max_out as i64);
    while lo <= hi {
        let r = (lo + hi) / 2;
        let head = (r + 1) / 2;
        let tail = r / 2;
        let (kept, omitted) = head_tail(text, head as usize, tail as usize);
        let candidate = format!("{kept}\n[\u{2026} omitted {omitted} UTF-8 bytes \u{2026}]");
        if candidate.len() <= max_out {
            best = (candidate.encode_utf16().collect(), omitted);
            lo = r + 1;
        } else {
            hi = r - 1;
        }
    }
    best
}

#[derive(Clone)]
struct Entry {
    role: Role,
    checkpoint: bool,
    original: Vec<u16>,
    current: Vec<u16>,
    omitted: usize,
}

/// R1: the members of the data object before its conversation.
fn fixed_members(snapshot: &Snapshot, label: &[u16]) -> Vec<(JsString, Json)> {
    let mut members: Vec<(JsString, Json)> = snapshot.session.id_member().into_iter().collect();
    members.extend([
        (
            JsString::from("label"),
            Json::String(JsString::from_units(label.to_vec())),
        ),
        (
            JsString::from("cwd"),
            snapshot.session.cwd.clone().unwrap_or(Json::Null),
        ),
    ]);
    if let Some(seq) = &snapshot.captured_through_seq {
        members.push((JsString::from("capturedThroughSeq"), seq.clone()));
    }
    members
}

/// R1: the data object of one reference: its fixed members, then the
/// conversation.
fn data(fixed: &[(JsString, Json)], items: &[Entry]) -> Json {
    let conversation = items
        .iter()
        .map(|item| {
            Json::object([
                ("role", Json::str(item.role.as_str())),
                (
                    "text",
                    Json::String(JsString::from_units(item.current.clone())),
                ),
            ])
        })
        .collect();
    let mut members = fixed.to_vec();
    members.push((JsString::from("conversation"), Json::Array(conversation)));
    Json::Object(members)
}

/// The projected items, untouched.
fn projected(snapshot: &Snapshot) -> Vec<ProjectedItem> {
    projection::project(snapshot)
        .into_iter()
        .map(|item| (item.role, item.checkpoint, item.text.to_vec()))
        .collect()
}

impl Entry {
    fn new(role: Role, checkpoint: bool, text: Vec<u16>) -> Entry {
        Entry {
            role,
            checkpoint,
            current: text.clone(),
            original: text,
            omitted: 0,
        }
    }
}

/// Upstream's retention of one reference: the tag-safe data JSON and the
/// stats, or `None` when it cannot fit (R6).
pub fn retain(snapshot: &Snapshot, label: &[u16], max_bytes: usize) -> Option<(String, Stats)> {
    let mut measure = |data: &Json| Some(stringify_tag_safe(data).len());
    let (data, stats) = retain_measured(
        fixed_members(snapshot, label),
        projected(snapshot),
        max_bytes,
        &mut measure,
    )??;
    Some((stringify_tag_safe(&data), stats))
}

/// One projected item as [`retain_measured`] takes it: its role, whether it
/// is a compact checkpoint, its text.
pub type ProjectedItem = (Role, bool, Vec<u16>);

/// Upstream's retention loop over any data object's `fixed` members and
/// projected `items`, with `measure` as the size of a data object in
/// place of `Buffer.byteLength(stringifyTagSafeJson(data))`: what the
/// conformance runner substitutes an implementation's `json/tag-safe` and
/// projection with (spec `runner.probes`). The data object and its stats,
/// `Some(None)` when it cannot fit (R6), `None` when `measure` could not
/// measure.
pub fn retain_measured(
    fixed: Vec<(JsString, Json)>,
    items: Vec<ProjectedItem>,
    max_bytes: usize,
    measure: &mut dyn FnMut(&Json) -> Option<usize>,
) -> Option<Option<(Json, Stats)>> {
    let mut items: Vec<Entry> = items
        .into_iter()
        .map(|(role, checkpoint, text)| Entry::new(role, checkpoint, text))
        .collect();
    let mut size = |items: &[Entry]| measure(&data(&fixed, items));
    let compacted = items.iter().any(|item| item.checkpoint);
    let original_messages = items.len();
    let mut omitted_messages = 0;
    let mut dropped_bytes = 0;

    // R2: drop the lowest non-checkpoint, non-last index, one at a time:
    // the state after k drops is the items without the first k droppable
    // ones, and no drop lengthens the data, so the first k that fits is
    // found by bisection.
    let last = items.len().wrapping_sub(1);
    let droppable: Vec<usize> = (0..items.len())
        .filter(|&i| !items[i].checkpoint && i != last)
        .collect();
    // The first k droppable indices are the droppable ones up to the k-th.
    let without = |items: &[Entry], k: usize| -> Vec<Entry> {
        let through = k.checked_sub(1).map(|at| droppable[at]);
        items
            .iter()
            .enumerate()
            .filter(|&(index, item)| {
                let dropped = through.is_some_and(|through| index <= through)
                    && !item.checkpoint
                    && index != last;
                !dropped
            })
            .map(|(_, item)| item.clone())
            .collect()
    };
    let (mut fits, mut over) = (droppable.len(), 0);
    if size(&items)? <= max_bytes {
        fits = 0;
    } else {
        // Invariant: `over` drops do not fit; `fits` drops fit, or are all.
        while fits - over > 1 {
            let middle = over + (fits - over) / 2;
            if size(&without(&items, middle))? <= max_bytes {
                fits = middle;
            } else {
                over = middle;
            }
        }
    }
    for &index in &droppable[..fits] {
        omitted_messages += 1;
        dropped_bytes += byte_length(&items[index].original);
    }
    items = without(&items, fits);

    // R3: truncate the longest current text, from its original.
    loop {
        let overflow = match size(&items)?.checked_sub(max_bytes) {
            Some(overflow) if overflow > 0 => overflow,
            _ => break,
        };
        let mut longest: Option<(usize, usize)> = None;
        for (index, item) in items.iter().enumerate() {
            let bytes = byte_length(&item.current);
            if longest.is_none_or(|(_, most)| bytes > most) {
                longest = Some((index, bytes));
            }
        }
        let Some((index, bytes)) = longest else {
            return Some(None);
        };
        if bytes == 0 {
            return Some(None);
        }
        if items
            .iter()
            .filter(|item| byte_length(&item.current) == bytes)
            .count()
            > 1
        {
            trace(|t| t.ties += 1);
        }
        if items[index].current != items[index].original {
            trace(|t| t.recuts += 1);
        }
        let target = bytes.saturating_sub(overflow);
        let (text, omitted) = truncate_with_notice(&items[index].original, target);
        if text == items[index].current {
            return Some(None);
        }
        items[index].current = text;
        items[index].omitted = omitted;
    }

    // R7.
    let omitted_bytes = items.iter().map(|item| item.omitted).sum::<usize>() + dropped_bytes;
    let stats = Stats {
        compacted,
        original_messages,
        retained_messages: items.len(),
        omitted_messages,
        omitted_bytes,
        truncated: omitted_messages > 0 || omitted_bytes > 0,
    };
    Some(Some((data(&fixed, &items), stats)))
}

/// The tag-safe data JSON with nothing retained away.
pub fn whole(snapshot: &Snapshot, label: &[u16]) -> String {
    stringify_tag_safe(&data(
        &fixed_members(snapshot, label),
        &projected(snapshot)
            .into_iter()
            .map(|(role, checkpoint, text)| Entry::new(role, checkpoint, text))
            .collect::<Vec<_>>(),
    ))
}
