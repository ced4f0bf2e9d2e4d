//! Structured inputs drawn from raw fuzzer bytes: snapshots, labels, budgets
//! and whole `prepare` cases, for the structure-aware fuzz targets.
//!
//! A [`Draw`] hands out the bytes one at a time and answers `0` once they
//! run out, so every byte string is a valid case and a short input is a
//! small case: counts drawn from an exhausted input are zero. The
//! generators build snapshots as [`Json`] trees, the form hosts send, in
//! the shapes `Snapshot::from_json` accepts ([`read_snapshot`]: the one
//! `capturedThroughSeq` outside its domain, `1.5`, is read as rc.8 reads
//! it); texts come from an alphabet
//! biased to what changes serialized sizes (`<`, `\n`, `"`, `\`, controls),
//! multi-byte characters, U+FEFF and lone surrogates.

use crate::config::{Capacity, Config, ModelCatalog, DEFAULT_MAX_REFERENCE_BYTES};
use crate::js::json::Json;
use crate::js::JsString;
use crate::surface::Snapshot;

/// Fuzzer bytes read front to back; `0` once they run out.
#[derive(Clone, Debug)]
pub struct Draw<'a> {
    bytes: &'a [u8],
}

impl<'a> Draw<'a> {
    /// Draws from `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { bytes }
    }

    /// True once every byte has been drawn.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The next byte, or `0` when none is left.
    pub fn byte(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&first, rest)) => {
                self.bytes = rest;
                first
            }
            None => 0,
        }
    }

    /// A number below `n` (`0` when `n` is `0`): one byte when `n` ≤ 256,
    /// else two (little-endian).
    pub fn below(&mut self, n: usize) -> usize {
        match n {
            0 => 0,
            1..=256 => usize::from(self.byte()) % n,
            _ => usize::from(u16::from_le_bytes([self.byte(), self.byte()])) % n,
        }
    }

    /// One of `choices`, by the next byte.
    pub fn pick<T: Copy>(&mut self, choices: &[T]) -> T {
        choices[self.below(choices.len())]
    }

    /// True with probability `1/n` (for `n` ≥ 1), by the next byte.
    pub fn one_in(&mut self, n: u8) -> bool {
        self.byte() % n.max(1) == 0
    }
}

/// One character of text, as code units. The table's repetitions are its
/// weights: `<` and `\n` most, then quotes, backslashes and letters, then
/// 2- and 3-byte UTF-8, surrogate pairs, U+FEFF, lone surrogates, controls.
const ATOMS: &[&[u16]] = &[
    &[0x3C],
    &[0x3C],
    &[0x3C],
    &[0x3C],
    &[0x0A],
    &[0x0A],
    &[0x0A],
    &[0x22],
    &[0x22],
    &[0x5C],
    &[0x5C],
    &[0x61],
    &[0x62],
    &[0x63],
    &[0x71],
    &[0x78],
    &[0x7A],
    &[0x41],
    &[0x51],
    &[0x5A],
    &[0x3E],
    &[0x20],
    &[0x20],
    &[0x2F],
    &[0xE9],
    &[0xDF],
    &[0x3B1],
    &[0x7FF],
    &[0x754C],
    &[0x20AC],
    &[0x2026],
    &[0xFFFD],
    &[0xD83D, 0xDE00],
    &[0xD800, 0xDC00],
    &[0xDBFF, 0xDFFF],
    &[0xFEFF],
    &[0xFEFF],
    &[0xD800],
    &[0xDBFF],
    &[0xDC00],
    &[0xDFFF],
    &[0x00],
    &[0x01],
    &[0x1F],
    &[0x7F],
    &[0x08],
];

/// Characters of short texts: ids, labels, working directories.
const SHORT_ATOMS: &[&[u16]] = &[
    &[0x61],
    &[0x62],
    &[0x73],
    &[0x31],
    &[0x2F],
    &[0x2D],
    &[0x3C],
    &[0x22],
    &[0x5C],
    &[0x0A],
    &[0x754C],
    &[0xD800],
    &[0xDC00],
    &[0xFEFF],
    &[0xD83D, 0xDE00],
    &[0x20],
];

/// Text of at most `max` code units (plus a leading BOM one time in eight):
/// characters drawn one by one, or one to three runs of a repeated
/// character (1, 50, 100, 200 or up to 255 long), so that texts tie in
/// length and mix plain and escape-heavy stretches.
pub fn text(draw: &mut Draw<'_>, max: usize) -> Vec<u16> {
    let mode = draw.byte();
    let mut units = if mode & 0x07 == 1 {
        vec![0xFEFF]
    } else {
        Vec::new()
    };
    let limit = units.len() + max;
    if mode & 0x08 == 0 {
        let count = draw.below(max + 1);
        for _ in 0..count {
            if draw.is_empty() {
                break;
            }
            units.extend_from_slice(draw.pick(ATOMS));
        }
    } else {
        for _ in 0..=draw.below(3) {
            let atom = draw.pick(ATOMS);
            let count = match draw.byte() {
                0..=63 => 1,
                64..=95 => 50,
                96..=127 => 100,
                128..=143 => 200,
                other => usize::from(other - 143),
            };
            for _ in 0..count {
                units.extend_from_slice(atom);
            }
        }
    }
    units.truncate(limit);
    units
}

/// A short text of up to seven characters.
pub fn short_text(draw: &mut Draw<'_>) -> Vec<u16> {
    let mut units = Vec::new();
    for _ in 0..draw.below(8) {
        units.extend_from_slice(draw.pick(SHORT_ATOMS));
    }
    units
}

fn string(units: Vec<u16>) -> Json {
    Json::String(JsString::from_units(units))
}

/// Content blocks of a message: mostly one text block; sometimes zero to
/// three blocks mixing text, reasoning (skipped by projection) and a text
/// block whose `text` is not a string (skipped too).
fn content(draw: &mut Draw<'_>) -> Json {
    let text_block = |draw: &mut Draw<'_>| {
        Json::object([
            ("type", Json::str("text")),
            ("text", string(text(draw, 300))),
        ])
    };
    let shape = draw.byte();
    if shape % 4 != 0 {
        return Json::Array(vec![text_block(draw)]);
    }
    let blocks = (0..(shape >> 2) % 4)
        .map(|_| match draw.byte() % 6 {
            0..=2 => text_block(draw),
            3 => Json::object([
                ("type", Json::str("reasoning")),
                ("text", string(text(draw, 20))),
            ]),
            4 => Json::object([("type", Json::str("text")), ("text", Json::Number(7.0))]),
            _ => Json::object([("type", Json::str("image"))]),
        })
        .collect();
    Json::Array(blocks)
}

fn user(source: Json, content: Json) -> Json {
    Json::object([
        ("type", Json::str("user/message")),
        (
            "data",
            Json::object([("source", source), ("content", content)]),
        ),
    ])
}

/// One surface event: a user message (direct, compact checkpoint, or from
/// another source), an assistant message, a tool result, or a developer or
/// system message (which the newest generation ignores).
pub fn event(draw: &mut Draw<'_>, kind: u8) -> Json {
    match kind % 16 {
        0..=3 => user(Json::object([("kind", Json::str("user"))]), content(draw)),
        4..=6 => user(
            Json::object([
                ("kind", Json::str("plugin")),
                ("plugin", Json::str("compact")),
                ("compactionId", Json::str("c1")),
            ]),
            content(draw),
        ),
        7..=10 => Json::object([
            ("type", Json::str("assistant/message")),
            (
                "data",
                Json::object([
                    ("source", Json::object([("kind", Json::str("model"))])),
                    (
                        "message",
                        Json::object([
                            ("role", Json::str("assistant")),
                            ("content", content(draw)),
                        ]),
                    ),
                ]),
            ),
        ]),
        11 => user(
            Json::object([
                ("kind", Json::str("plugin")),
                ("plugin", Json::str("memory")),
            ]),
            content(draw),
        ),
        12 => user(
            Json::object([("kind", Json::str("session-reference"))]),
            content(draw),
        ),
        13 => Json::object([
            ("type", Json::str("tool/result")),
            (
                "data",
                Json::object([("callId", Json::str("t1")), ("output", Json::str("<x>"))]),
            ),
        ]),
        14 => Json::object([
            ("type", Json::str("developer/message")),
            ("data", Json::object([("content", content(draw))])),
        ]),
        _ => Json::object([
            ("type", Json::str("system/message")),
            ("data", Json::object([("content", content(draw))])),
        ]),
    }
}

/// A snapshot as hosts send it: a header (id; cwd a string, `null` or
/// absent; sometimes a format version), `capturedThroughSeq` an integer,
/// `null`, `1.5` or absent, and 0–12 events, an event sometimes repeating
/// the one before it so that texts tie.
pub fn snapshot(draw: &mut Draw<'_>) -> Json {
    let mut header = vec![(JsString::from("id"), string(short_text(draw)))];
    match draw.byte() % 4 {
        0 | 1 => header.push((JsString::from("cwd"), string(short_text(draw)))),
        2 => header.push((JsString::from("cwd"), Json::Null)),
        _ => {}
    }
    match draw.byte() % 8 {
        0 => header.push((JsString::from("version"), Json::Number(2.0))),
        1 => header.push((JsString::from("version"), Json::str("v<1>"))),
        _ => {}
    }
    let mut members = vec![(JsString::from("session"), Json::Object(header))];
    let seq = draw.byte();
    match seq % 8 {
        0..=3 => members.push((
            JsString::from("capturedThroughSeq"),
            Json::Number(f64::from(u32::from(seq) * 397 + u32::from(draw.byte()))),
        )),
        4 => members.push((JsString::from("capturedThroughSeq"), Json::Null)),
        5 => members.push((JsString::from("capturedThroughSeq"), Json::Number(1.5))),
        _ => {}
    }
    let mut events: Vec<Json> = Vec::new();
    for _ in 0..draw.below(13) {
        let kind = draw.byte();
        match events.last() {
            Some(previous) if kind >> 4 < 3 => events.push(previous.clone()),
            _ => events.push(event(draw, kind)),
        }
    }
    members.push((JsString::from("events"), Json::Array(events)));
    Json::Object(members)
}

/// A snapshot of session `id` in `/w`, captured through sequence 1, whose
/// one event is a user message of `text`.
fn plain_snapshot(id: &str, text: &str) -> Json {
    Json::object([
        (
            "session",
            Json::object([("id", Json::str(id)), ("cwd", Json::str("/w"))]),
        ),
        ("capturedThroughSeq", Json::Number(1.0)),
        (
            "events",
            Json::Array(vec![user(
                Json::object([("kind", Json::str("user"))]),
                Json::Array(vec![Json::object([
                    ("type", Json::str("text")),
                    ("text", Json::str(text)),
                ])]),
            )]),
        ),
    ])
}

/// A drawn snapshot as the reference reads it, except that its
/// `capturedThroughSeq` is copied whatever it is, as rc.8 copies it: the
/// newest generation refuses one outside the session-sequence domain
/// (spec `surface.seq-outside-domain`), which is no concern of
/// projection and retention. Panics on a snapshot not drawn by
/// [`snapshot`].
pub fn read_snapshot(value: &Json) -> Snapshot {
    let seq = value.get("capturedThroughSeq").cloned();
    let without_seq = match value {
        Json::Object(members) => Json::Object(
            members
                .iter()
                .filter(|(key, _)| !key.is("capturedThroughSeq"))
                .cloned()
                .collect(),
        ),
        other => other.clone(),
    };
    let mut read = Snapshot::from_json(&without_seq).expect("drawn snapshots are well formed");
    read.captured_through_seq = seq;
    read
}

/// A retention budget once the size of the whole data object is known: a
/// fixed 1–2000 bytes, the whole size −1, 0 or +1, or a share of it (in
/// per mille); never below 1.
pub fn budget(draw: &mut Draw<'_>, whole: usize) -> u64 {
    let whole = whole as u64;
    let budget = match draw.byte() % 9 {
        0..=3 => 1 + draw.below(2000) as u64,
        4 => whole.saturating_sub(1),
        5 => whole,
        6 => whole + 1,
        _ => whole * draw.below(1001) as u64 / 1000,
    };
    budget.max(1)
}

/// A tiny model registry: `p/small` (1,000 tokens), `p/huge` (10^7
/// tokens), `p/endless` (an infinite window), `p/unknown` (no window
/// known), `p/odd` (100,003 tokens), `p/fractional` (100,003.7 tokens);
/// any other route has no adapter.
#[derive(Clone, Copy, Debug, Default)]
pub struct TinyModels;

impl TinyModels {
    /// The routes a case may draw, as `(provider, model)`.
    pub const ROUTES: [(&'static str, &'static str); 7] = [
        ("p", "small"),
        ("p", "huge"),
        ("p", "endless"),
        ("p", "unknown"),
        ("q", "small"),
        ("p", "odd"),
        ("p", "fractional"),
    ];

    /// The route whose automatic budget is no whole number of bytes.
    pub const ODD: usize = 5;

    /// The route whose window is no whole number of tokens.
    pub const FRACTIONAL: usize = 6;

    /// The capacity of a route, by name.
    pub fn capacity_of(provider: &str, model: &str) -> Capacity {
        match (provider, model) {
            ("p", "small") => Capacity::ContextWindow(1_000.0),
            // Not a multiple of 5: × 4 × 0.2 gives 80 002.4 bytes, above
            // the 64 KiB floor (spec `prepare.budget.automatic`).
            ("p", "odd") => Capacity::ContextWindow(100_003.0),
            // A window that is no whole number of tokens, as a port may
            // read leniently: × 4 × 0.2 gives 80 002.96 bytes.
            ("p", "fractional") => Capacity::ContextWindow(100_003.7),
            ("p", "huge") => Capacity::ContextWindow(10_000_000.0),
            ("p", "endless") => Capacity::ContextWindow(f64::INFINITY),
            ("p", "unknown") => Capacity::Unknown,
            _ => Capacity::NoAdapter,
        }
    }
}

impl ModelCatalog for TinyModels {
    fn capacity(&self, provider: &[u16], model: &[u16]) -> Capacity {
        TinyModels::capacity_of(
            &String::from_utf16_lossy(provider),
            &String::from_utf16_lossy(model),
        )
    }
}

/// Where a drawn reference points.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// The session stored under `ref-<n>`.
    Session(usize),
    /// An id no session has.
    Missing,
    /// The agent's own session.
    OwnSession,
}

/// One drawn reference entry.
#[derive(Clone, Debug, PartialEq)]
pub enum DrawnReference {
    /// `{sessionId, label?}`; a label is a string or, to be rejected, `null`.
    Entry {
        /// What its `sessionId` names.
        target: Target,
        /// Its `label` member, when present.
        label: Option<Json>,
    },
    /// Not an object: rejected as malformed.
    NotAnObject,
}

/// A stored session: a snapshot, or one whose read fails.
#[derive(Clone, Debug, PartialEq)]
pub enum Stored {
    /// `ref-<n>` holds this snapshot.
    Snapshot(Json),
    /// `ref-<n>` is `{"readError": …}`.
    ReadError,
}

/// How a case sizes its budget.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BudgetChoice {
    /// `maxReferenceBytes`, 1–2000.
    Fixed(u64),
    /// Automatic: the agent's route (an index into [`TinyModels::ROUTES`],
    /// or none) and the context fraction, or none when the configuration
    /// leaves it out (the default applies).
    Automatic(Option<usize>, Option<f64>),
}

/// The spill store of a case: none, or the protocol's simulated store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpillChoice {
    /// No store: notices say `storage-not-configured`.
    None,
    /// A store whose saves succeed.
    Saves,
    /// A store whose saves fail: notices say `save-failed`.
    Fails,
}

/// A whole `prepare` case: 1–3 stored sessions under `ref-0`…, 1–4
/// references, the configuration's reference maximum and budget, a spill
/// store and, rarely, a cancelled turn.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepareCase {
    /// The stored sessions, `ref-0` first.
    pub sessions: Vec<Stored>,
    /// The references, in input order.
    pub references: Vec<DrawnReference>,
    /// `maxReferences`, 1–3.
    pub max_references: usize,
    /// The budget.
    pub budget: BudgetChoice,
    /// The spill store.
    pub spill: SpillChoice,
    /// Whether the turn is cancelled from the start.
    pub cancelled: bool,
}

/// The agent's own session id in prepare cases.
pub const AGENT_ID: &str = "agent-self";

/// The key a stored session is requested by.
pub fn session_key(index: usize) -> JsString {
    JsString::from(format!("ref-{index}"))
}

impl PrepareCase {
    /// Draws a case.
    pub fn draw(draw: &mut Draw<'_>) -> PrepareCase {
        let control = draw.byte();
        let max_references = match control % 8 {
            0 => 1,
            1 => 2,
            _ => 3,
        };
        let spill = match (control >> 3) % 4 {
            0 | 1 => SpillChoice::Saves,
            2 => SpillChoice::Fails,
            _ => SpillChoice::None,
        };
        let cancelled = control >> 5 == 7 && draw.one_in(4);
        let budget = match draw.byte() % 8 {
            0 => {
                let route = draw.below(TinyModels::ROUTES.len() + 1);
                let fraction = draw.pick(&[
                    None,
                    Some(0.2),
                    Some(0.0),
                    Some(0.001),
                    Some(0.5),
                    Some(1.0),
                ]);
                BudgetChoice::Automatic(route.checked_sub(1), fraction)
            }
            _ => BudgetChoice::Fixed(1 + draw.below(2000) as u64),
        };
        let sessions = (0..=draw.below(3))
            .map(|_| {
                if draw.one_in(16) {
                    Stored::ReadError
                } else {
                    Stored::Snapshot(snapshot(draw))
                }
            })
            .collect::<Vec<_>>();
        let count = match draw.byte() % 16 {
            0..=6 => 1,
            7..=11 => 2,
            12..=14 => 3,
            _ => 4,
        };
        let references = (0..count)
            .map(|_| {
                let target = draw.byte();
                let target = match target % 32 {
                    29 => Target::Missing,
                    30 => Target::OwnSession,
                    31 => return DrawnReference::NotAnObject,
                    n => Target::Session(usize::from(n) % sessions.len()),
                };
                let label = match draw.byte() % 16 {
                    0..=5 => None,
                    6 => Some(Json::Null),
                    _ => Some(string(short_text(draw))),
                };
                DrawnReference::Entry { target, label }
            })
            .collect();
        let case = PrepareCase {
            sessions,
            references,
            max_references,
            budget,
            spill,
            cancelled,
        };
        // Shapes that independent draws almost never reach (issue #22),
        // in place of a case that has no more references than it may (so
        // that as many cases as before have too many); not when the bytes
        // have run out (they read as zeros).
        let shape = draw.byte() % 16;
        if case.references.len() > case.max_references {
            return case;
        }
        match shape {
            1 => PrepareCase::spill_after_whole(draw),
            2 => case.above_the_floor(draw, false),
            3 => case.above_the_floor(draw, true),
            _ => case,
        }
    }

    /// Two references, the first small enough to stay whole and the second
    /// cut, with a store whose saves succeed: the one transcript saved is
    /// named after the second (spec `prepare.spill`).
    fn spill_after_whole(draw: &mut Draw<'_>) -> PrepareCase {
        let long = "x".repeat(500 + draw.below(1500));
        PrepareCase {
            sessions: vec![
                Stored::Snapshot(plain_snapshot("whole", "hi")),
                Stored::Snapshot(plain_snapshot("cut", &long)),
            ],
            references: [0, 1]
                .map(|index| DrawnReference::Entry {
                    target: Target::Session(index),
                    label: None,
                })
                .to_vec(),
            max_references: 3,
            budget: BudgetChoice::Fixed(400),
            spill: SpillChoice::Saves,
            cancelled: false,
        }
    }

    /// One snapshot of 60–100 KB, above the 64 KiB floor, under an
    /// automatic budget (spec `prepare.budget.automatic`): that of a window
    /// that is no multiple of 5 (80 002.4 bytes) at the default fraction,
    /// left out; or, `varied`, that of this window, of one that is no whole
    /// number of tokens or of a small one (below the floor, so the floor
    /// applies), with every class of `referenceContextFraction`: below, at
    /// and above the default, 0 and 1 (spec `config.fraction`).
    fn above_the_floor(self, draw: &mut Draw<'_>, varied: bool) -> PrepareCase {
        let long = "y".repeat(60_000 + draw.below(40_000));
        let budget = if varied {
            let route = match draw.byte() % 4 {
                0 => 0,
                1 => TinyModels::FRACTIONAL,
                _ => TinyModels::ODD,
            };
            let fraction = draw.pick(&[
                None,
                Some(0.25),
                Some(0.5),
                Some(0.1),
                Some(0.0),
                Some(1.0),
                Some(0.2),
            ]);
            BudgetChoice::Automatic(Some(route), fraction)
        } else {
            BudgetChoice::Automatic(Some(TinyModels::ODD), None)
        };
        PrepareCase {
            sessions: vec![Stored::Snapshot(plain_snapshot("large", &long))],
            references: vec![DrawnReference::Entry {
                target: Target::Session(0),
                label: None,
            }],
            budget,
            ..self
        }
    }

    /// The protocol's `sessions` input: `{"ref-0": snapshot, …}`.
    pub fn sessions_json(&self) -> Json {
        Json::Object(
            self.sessions
                .iter()
                .enumerate()
                .map(|(index, stored)| {
                    let value = match stored {
                        Stored::Snapshot(snapshot) => snapshot.clone(),
                        Stored::ReadError => {
                            Json::object([("readError", Json::str("disk <on fire>"))])
                        }
                    };
                    (session_key(index), value)
                })
                .collect(),
        )
    }

    /// The id a target names.
    pub fn target_id(target: &Target) -> JsString {
        match target {
            Target::Session(index) => session_key(*index),
            Target::Missing => JsString::from("ref-missing"),
            Target::OwnSession => JsString::from(AGENT_ID),
        }
    }

    /// The references as `prepare` receives them.
    pub fn references_json(&self) -> Json {
        Json::Array(
            self.references
                .iter()
                .map(|reference| match reference {
                    DrawnReference::NotAnObject => Json::Number(7.0),
                    DrawnReference::Entry { target, label } => {
                        let mut members = vec![(
                            JsString::from("sessionId"),
                            Json::String(Self::target_id(target)),
                        )];
                        if let Some(label) = label {
                            members.push((JsString::from("label"), label.clone()));
                        }
                        Json::Object(members)
                    }
                })
                .collect(),
        )
    }

    /// The newest-generation configuration of the case.
    pub fn config(&self) -> Config {
        let (max_reference_bytes, reference_context_fraction) = match self.budget {
            BudgetChoice::Fixed(bytes) => (
                Some(bytes),
                crate::config::DEFAULT_REFERENCE_CONTEXT_FRACTION,
            ),
            BudgetChoice::Automatic(_, fraction) => (
                None,
                fraction.unwrap_or(crate::config::DEFAULT_REFERENCE_CONTEXT_FRACTION),
            ),
        };
        Config {
            max_references: self.max_references,
            max_reference_bytes,
            reference_context_fraction,
            ..Config::default()
        }
    }

    /// The agent's route, when the case has one.
    pub fn route(&self) -> Option<(JsString, JsString)> {
        match self.budget {
            BudgetChoice::Automatic(Some(route), _) => {
                let (provider, model) = TinyModels::ROUTES[route];
                Some((JsString::from(provider), JsString::from(model)))
            }
            _ => None,
        }
    }

    /// The budget every reference gets, computed from the rules: a fixed
    /// budget as given; an automatic one `max(64 KiB, floor(window × 4 ×
    /// fraction))` for a known window (saturating; NaN counts as 0), else
    /// 64 KiB (spec `prepare.budget.*`).
    pub fn expected_budget(&self) -> u64 {
        match self.budget {
            BudgetChoice::Fixed(bytes) => bytes,
            BudgetChoice::Automatic(None, _) => DEFAULT_MAX_REFERENCE_BYTES,
            BudgetChoice::Automatic(Some(route), _) => {
                let fraction = self.config().reference_context_fraction;
                let (provider, model) = TinyModels::ROUTES[route];
                match TinyModels::capacity_of(provider, model) {
                    Capacity::ContextWindow(tokens) => {
                        let bytes = (tokens * 4.0 * fraction).floor();
                        let bytes = if bytes.is_nan() {
                            0
                        } else if bytes >= u64::MAX as f64 {
                            u64::MAX
                        } else {
                            bytes as u64
                        };
                        bytes.max(DEFAULT_MAX_REFERENCE_BYTES)
                    }
                    Capacity::Unknown | Capacity::NoAdapter | Capacity::LookupFailed => {
                        DEFAULT_MAX_REFERENCE_BYTES
                    }
                }
            }
        }
    }
}
