//! Byte-budget retention of one referenced session (spec `retention.*`).
//!
//! The result is byte for byte upstream's, but computed in linear time:
//! upstream re-serializes the whole data object after every dropped message
//! (quadratic); here every size is kept as a running sum of per-item
//! serialized lengths, phase 2 finds the longest text with a heap, and each
//! cut probe of the binary search costs O(1) on the text's UTF-8 bytes
//! (spec `retention.linear`).

use crate::js::json::{self, measure, Json};
use crate::js::{push_utf8_lossy, JsString};
use crate::projection::{Item, Role};
use crate::reach;
use crate::surface::{is_session_seq, Snapshot};
use crate::tag_safe::stringify_tag_safe;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The retention statistics of one reference, in upstream's member order
/// (spec `retention.stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Stats {
    /// Any projected item is a compact checkpoint.
    pub compacted: bool,
    /// Items projected.
    pub original_messages: usize,
    /// Items left after dropping.
    pub retained_messages: usize,
    /// Items dropped.
    pub omitted_messages: usize,
    /// UTF-8 bytes of dropped texts plus bytes cut from retained texts.
    pub omitted_bytes: usize,
    /// Anything was omitted.
    pub truncated: bool,
}

impl Stats {
    /// The stats as JSON members, in order.
    pub fn members(&self) -> Vec<(JsString, Json)> {
        let number = |n: usize| Json::Number(n as f64);
        vec![
            (JsString::from("compacted"), Json::Bool(self.compacted)),
            (
                JsString::from("originalMessages"),
                number(self.original_messages),
            ),
            (
                JsString::from("retainedMessages"),
                number(self.retained_messages),
            ),
            (
                JsString::from("omittedMessages"),
                number(self.omitted_messages),
            ),
            (JsString::from("omittedBytes"), number(self.omitted_bytes)),
            (JsString::from("truncated"), Json::Bool(self.truncated)),
        ]
    }
}

/// One retained conversation message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    /// Its role.
    pub role: Role,
    /// Its text, possibly cut to a head/tail excerpt with a notice.
    pub text: Cow<'a, [u16]>,
}

/// A referenced session fitted into its budget: the data object and stats.
#[derive(Clone, Debug, PartialEq)]
pub struct Retained<'a> {
    /// The fixed fields of the data object, already tag-safe serialized:
    /// `{"sessionId":…,"label":…,"cwd":…,"capturedThroughSeq":…,"conversation":[`.
    head: String,
    /// The header of the snapshot.
    pub snapshot: &'a Snapshot,
    /// The label written into the data.
    pub label: &'a [u16],
    /// The retained conversation.
    pub conversation: Vec<Message<'a>>,
    /// The stats.
    pub stats: Stats,
}

impl Retained<'_> {
    /// Appends `tagSafe(data)` to `out` (spec `retention.size`).
    pub fn write_tag_safe(&self, out: &mut String) {
        out.push_str(&self.head);
        for (index, message) in self.conversation.iter().enumerate() {
            if index > 0 {
                out.push(',');
            }
            out.push_str(item_open(message.role));
            json::push_quoted(&message.text, true, out);
            out.push('}');
        }
        out.push_str("]}");
    }

    /// The data object as JSON, members in upstream's order
    /// (spec `retention.data-object`).
    pub fn data_json(&self) -> Json {
        let conversation = self
            .conversation
            .iter()
            .map(|message| {
                Json::object([
                    ("role", Json::str(message.role.as_str())),
                    (
                        "text",
                        Json::String(JsString::from_units(message.text.to_vec())),
                    ),
                ])
            })
            .collect();
        let mut members = fixed_members(self.snapshot, self.label);
        members.push((JsString::from("conversation"), Json::Array(conversation)));
        Json::Object(members)
    }
}

/// `{sessionId, label, cwd, capturedThroughSeq?}` of the data object.
fn fixed_members(snapshot: &Snapshot, label: &[u16]) -> Vec<(JsString, Json)> {
    reach::point("retention.data-object");
    let mut members = Vec::with_capacity(4);
    members.extend(snapshot.session.id_member());
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
        if *seq == Json::Null || is_session_seq(seq) {
            reach::point("surface.captured-through-seq");
        } else {
            // Only rc.8 gets here: the newest generation refused it on reading.
            reach::point("surface.seq-outside-domain");
        }
        members.push((JsString::from("capturedThroughSeq"), seq.clone()));
    } else {
        reach::point("surface.seq-absent");
    }
    members
}

fn item_open(role: Role) -> &'static str {
    match role {
        Role::User => "{\"role\":\"user\",\"text\":",
        Role::Assistant => "{\"role\":\"assistant\",\"text\":",
    }
}

/// Serialized length of one conversation item and the UTF-8 length of its
/// text.
fn item_len(role: Role, text: &[u16]) -> (usize, usize) {
    let lengths = measure(text, true);
    (item_open(role).len() + lengths.quoted + 1, lengths.utf8)
}

/// The omission notice appended to a cut text (spec `retention.notice`).
fn notice(omitted: usize) -> String {
    reach::point("retention.notice");
    format!("\n[\u{2026} omitted {omitted} UTF-8 bytes \u{2026}]")
}

fn notice_len(omitted: usize) -> usize {
    31 + omitted.to_string().len()
}

struct Slot<'a> {
    role: Role,
    checkpoint: bool,
    original: Cow<'a, [u16]>,
    /// The current text when it differs from the original.
    cut: Option<Vec<u16>>,
    current_utf8: usize,
    current_len: usize,
    omitted: usize,
}

/// Fits one projected snapshot into `max_bytes` of tag-safe JSON, exactly as
/// upstream does; `None` when even its fixed fields cannot fit
/// (spec `retention.fail`).
pub fn retain<'a>(
    snapshot: &'a Snapshot,
    label: &'a [u16],
    items: Vec<Item<'a>>,
    max_bytes: u64,
) -> Option<Retained<'a>> {
    let mut head = stringify_tag_safe(&Json::Object(fixed_members(snapshot, label)));
    head.pop();
    head.push_str(",\"conversation\":[");
    let compacted = items.iter().any(|item| item.checkpoint);
    let original_messages = items.len();
    let mut slots: Vec<Slot<'a>> = items
        .into_iter()
        .map(|item| {
            let (current_len, current_utf8) = item_len(item.role, &item.text);
            Slot {
                role: item.role,
                checkpoint: item.checkpoint,
                current_utf8,
                original: item.text,
                cut: None,
                current_len,
                omitted: 0,
            }
        })
        .collect();
    let commas = slots.len().saturating_sub(1);
    let mut size = head.len() + slots.iter().map(|s| s.current_len).sum::<usize>() + commas + 2;
    reach::point("retention.size");
    let fits = |size: usize| size as u64 <= max_bytes;
    if fits(size) {
        reach::point("retention.fits-whole");
    } else {
        reach::point("retention.drop");
    }

    // Phase 1 (spec `retention.drop`): drop the oldest droppable items, each
    // removing its serialized length and one comma (at least two items
    // remain whenever one is dropped: the last is never dropped).
    let mut dropped_bytes = 0;
    let mut omitted_messages = 0;
    let last = slots.len().saturating_sub(1);
    let mut keep = vec![true; slots.len()];
    let mut protected = false;
    for (index, slot) in slots.iter().enumerate() {
        if fits(size) {
            break;
        }
        if index == last || slot.checkpoint {
            protected = true;
            continue;
        }
        keep[index] = false;
        size -= slot.current_len + 1;
        dropped_bytes += slot.current_utf8;
        omitted_messages += 1;
    }
    if protected {
        reach::point("retention.drop-protected");
    }
    let mut flags = keep.into_iter();
    slots.retain(|_| flags.next().unwrap_or(true));

    // Phase 2 (spec `retention.truncate-longest`): cut the longest current
    // text, ties to the lowest index, until the data fits.
    if !fits(size) {
        reach::point("retention.truncate-longest");
        let mut longest: BinaryHeap<(usize, Reverse<usize>)> = slots
            .iter()
            .enumerate()
            .map(|(index, slot)| (slot.current_utf8, Reverse(index)))
            .collect();
        while !fits(size) {
            let (bytes, Reverse(index)) = loop {
                let Some((bytes, index)) = longest.pop() else {
                    reach::point("retention.fail");
                    return None;
                };
                if slots[index.0].current_utf8 == bytes {
                    break (bytes, index);
                }
            };
            if bytes == 0 {
                reach::point("retention.fail");
                return None;
            }
            let slot = &mut slots[index];
            let overflow = size - max_bytes as usize;
            let target = bytes.saturating_sub(overflow);
            reach::point("retention.truncate-target");
            let (text, omitted) = truncate_with_notice(&slot.original, target);
            let current: &[u16] = slot.cut.as_deref().unwrap_or(&slot.original);
            if text.as_slice() == current {
                return None;
            }
            let (new_len, new_utf8) = item_len(slot.role, &text);
            size = size - slot.current_len + new_len;
            slot.current_len = new_len;
            slot.current_utf8 = new_utf8;
            slot.omitted = omitted;
            slot.cut = Some(text);
            longest.push((slot.current_utf8, Reverse(index)));
        }
    }

    let omitted_bytes = dropped_bytes + slots.iter().map(|s| s.omitted).sum::<usize>();
    let retained_messages = slots.len();
    reach::point("retention.stats");
    let conversation = slots
        .into_iter()
        .map(|slot| Message {
            role: slot.role,
            text: slot.cut.map_or(slot.original, Cow::Owned),
        })
        .collect();
    Some(Retained {
        head,
        snapshot,
        label,
        conversation,
        stats: Stats {
            compacted,
            original_messages,
            retained_messages,
            omitted_messages,
            omitted_bytes,
            truncated: omitted_messages > 0 || omitted_bytes > 0,
        },
    })
}

/// One head/tail cut of `bytes` keeping `head` and `tail` bytes, trimmed to
/// code point boundaries (spec `retention.head-tail`).
struct Cut {
    prefix_end: usize,
    suffix_start: usize,
}

impl Cut {
    fn new(bytes: &[u8], head: usize, tail: usize) -> Cut {
        let is_continuation = |byte: u8| byte & 0xC0 == 0x80;
        // Drop an incomplete sequence at the end of the head
        // (spec `retention.head-tail.head-trim`).
        let mut prefix_end = head;
        let mut lead = head;
        while lead > 0 && is_continuation(bytes[lead - 1]) && head - (lead - 1) <= 3 {
            lead -= 1;
        }
        if lead > 0 {
            let start = lead - 1;
            let expected = match bytes[start] {
                0x00..=0x7F => 1,
                0x80..=0xDF => 2,
                0xE0..=0xEF => 3,
                0xF0..=0xF7 => 4,
                _ => 0,
            };
            if expected != 0 && head - start < expected {
                reach::point("retention.head-tail.head-trim");
                prefix_end = start;
            }
        }
        // Drop the tail's leading continuation bytes
        // (spec `retention.head-tail.tail-trim`).
        let mut suffix_start = bytes.len() - tail;
        while suffix_start < bytes.len() && is_continuation(bytes[suffix_start]) {
            suffix_start += 1;
        }
        if suffix_start != bytes.len() - tail {
            reach::point("retention.head-tail.tail-trim");
        }
        Cut {
            prefix_end,
            suffix_start,
        }
    }

    /// Bytes omitted: what lies between head and tail, trimming included.
    fn omitted(&self) -> usize {
        self.suffix_start - self.prefix_end
    }

    /// UTF-8 length of the visible text: each part loses a leading BOM when
    /// decoded (spec `retention.bom`).
    fn visible_len(&self, bytes: &[u8]) -> usize {
        let prefix = &bytes[..self.prefix_end];
        let suffix = &bytes[self.suffix_start..];
        prefix.len() - bom_len(prefix) + suffix.len() - bom_len(suffix)
    }

    fn visible_text(&self, bytes: &[u8]) -> Vec<u16> {
        let mut units = Vec::new();
        for part in [&bytes[..self.prefix_end], &bytes[self.suffix_start..]] {
            let bom = bom_len(part);
            if bom != 0 {
                reach::point("retention.bom");
            }
            let part = &part[bom..];
            units.extend(String::from_utf8_lossy(part).encode_utf16());
        }
        units
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

fn bom_len(part: &[u8]) -> usize {
    if part.starts_with(BOM) {
        BOM.len()
    } else {
        0
    }
}

/// Upstream's `truncateWithNotice`: the longest head/tail excerpt of `text`
/// whose text plus notice fits `max_out` UTF-8 bytes, found by the same
/// binary search (spec `retention.cut-search`), or `""` when none fits.
/// Returns the new text and the bytes it omits.
pub fn truncate_with_notice(text: &[u16], max_out: usize) -> (Vec<u16>, usize) {
    let mut bytes = Vec::with_capacity(text.len());
    push_utf8_lossy(text, &mut bytes);
    let total = bytes.len();
    if total <= max_out {
        return (text.to_vec(), 0);
    }
    reach::point("retention.cut-search");
    let mut best: Option<Cut> = None;
    let (mut low, mut high) = (0usize, max_out);
    while low <= high {
        let retained = (low + high) / 2;
        let cut = Cut::new(&bytes, retained - retained / 2, retained / 2);
        if cut.visible_len(&bytes) + notice_len(cut.omitted()) <= max_out {
            best = Some(cut);
            low = retained + 1;
        } else if retained == 0 {
            break;
        } else {
            high = retained - 1;
        }
    }
    match best {
        Some(cut) => {
            reach::point("retention.head-tail");
            if cut.omitted() == total {
                // Nothing kept: the notice alone.
                reach::point("retention.cut-search.notice-alone");
            }
            let mut units = cut.visible_text(&bytes);
            units.extend(notice(cut.omitted()).encode_utf16());
            (units, cut.omitted())
        }
        None => {
            reach::point("retention.cut-search.notice-alone");
            (Vec::new(), total)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::project;

    fn snapshot(events: &str) -> Snapshot {
        let text = format!(
            r#"{{"session":{{"id":"s","cwd":"/w"}},"capturedThroughSeq":7,"events":[{events}]}}"#
        );
        Snapshot::from_json(&json::parse(&text).expect("valid")).expect("snapshot")
    }

    fn assistant(text: &str) -> String {
        format!(
            r#"{{"type":"assistant/message","data":{{"message":{{"content":[{{"type":"text","text":"{text}"}}]}}}}}}"#
        )
    }

    fn rendered(snapshot: &Snapshot, max: u64) -> Option<(String, Stats)> {
        let label = JsString::from("L");
        let retained = retain(snapshot, label.units(), project(snapshot), max)?;
        let mut out = String::new();
        retained.write_tag_safe(&mut out);
        assert!(out.len() as u64 <= max);
        Some((out, retained.stats))
    }

    #[test]
    fn exact_fit_and_one_byte_less() {
        let fixed = snapshot("");
        let (empty, _) = rendered(&fixed, 1000).expect("fits");
        assert_eq!(empty.len(), 81, "{empty}");
        let z = snapshot(&assistant(&"z".repeat(100)));
        let (text, stats) = rendered(&z, 111).expect("V6 fits");
        assert!(text.ends_with(r#"{"role":"assistant","text":""}]}"#));
        assert_eq!((stats.omitted_bytes, stats.truncated), (100, true));
        assert_eq!(rendered(&z, 110), None, "V7");
    }

    #[test]
    fn escape_heavy_text_is_wiped() {
        let lt = snapshot(&assistant(&"<".repeat(100)));
        let (text, stats) = rendered(&lt, 281).expect("V3 fits");
        assert!(text.ends_with(r#""text":""}]}"#), "{text}");
        assert_eq!(stats.omitted_bytes, 100);
    }

    #[test]
    fn bom_is_dropped_but_counted_kept() {
        let original = JsString::from(format!("\u{FEFF}{}", "q".repeat(200)).as_str());
        let bom = snapshot(&assistant(&format!("\u{FEFF}{}", "q".repeat(200))));
        let (_, stats) = rendered(&bom, 201).expect("V5 fits");
        assert_eq!(stats.omitted_bytes, 145);
        assert_eq!(crate::js::utf8_len(original.units()), 203);
    }
}
