//! A conformance adapter for a port built on serde: each op's input is a
//! `Deserialize` struct of the protocol's shape, each answer a `Serialize`
//! type of the protocol's shape, and the kit (`Adapter::op_serde`) does the
//! protocol. The port itself (`mod port`) has its own types, names and
//! integer widths; everything outside that module is the adapter, a thin
//! translation between the protocol's shapes and the port's.
//!
//! It declares no capability: its strings are Rust `String`s (no
//! `lone-surrogates`), its members have one type each (no `dynamic-inputs`:
//! the kit answers an ill-typed input as upstream does before the port sees
//! it), and it reads a `capturedThroughSeq` that is absent as `null` (no
//! `optional-seq`). As shipped, the port's functions call the reference
//! library.
//!
//! ```sh
//! cargo build --release --manifest-path conformance/adapters/rust-serde/Cargo.toml
//! dsh-session-reference conformance --impl conformance/adapters/rust-serde/target/release/dsh-session-reference-serde-adapter
//! ```

#![forbid(unsafe_code)]

use dsh_session_reference::error::Failure;
use dsh_session_reference::protocol::kit::Adapter;
use dsh_session_reference::{mention, uri, Error, ErrorCode, JsString};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::marker::PhantomData;
use std::{fmt, io, thread};

/// The stack the adapter serves on. Requests nest up to 3 000 levels within
/// the contract (spec `wire.json.depth`), and the kit reads and walks them
/// recursively; the main thread's 8 MiB is not meant for that.
const STACK_BYTES: usize = 256 << 20;

/// 2^53 − 1, the largest integer a JSON number holds exactly.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

fn main() -> io::Result<()> {
    thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(serve)?
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Declares exactly what the port implements, one feature per area (spec
/// `protocol.features`): a feature is declared only when its ops answer as
/// all its rules say.
///
/// The port sits between two generations. Its configuration is the newest
/// generation's (`config-v2`). Its `retain` ignores developer and system
/// events as the newest generation does, but copies a `capturedThroughSeq`
/// outside the session-sequence domain as rc.8 does, so it declares
/// `retain` (the rules both generations share) and not `surface-v2`.
/// `prepare`, `pre-step` and the candidate ops are not written yet: no
/// feature of theirs is declared, so the runner sends none of their
/// vectors, and no handler is registered, so the kit answers them
/// `UNSUPPORTED` (in `differential`, for one), which is reported as not
/// implemented, never as a failure (spec `protocol.errors`). An op of a
/// declared feature should not answer `UNSUPPORTED`: its vectors are then
/// skipped, never passed.
fn serve() -> io::Result<()> {
    Adapter::new("rust-serde-adapter-example", env!("CARGO_PKG_VERSION"))
        .features(["uri", "mention", "retain", "config-v2"])
        .op_serde("uri/encode", uri_encode)
        .op_serde("uri/decode", uri_decode)
        .op_serde("mention/format", mention_format)
        .op_serde("mention/parse", mention_parse)
        .op_serde("retain", retain)
        .op_serde("config/check", config_check)
        .serve(io::stdin().lock(), io::stdout().lock())
}

/// The port: its own types and functions, as a Rust port of the library
/// might have them, knowing nothing of the protocol. Its events have ids,
/// its messages roles, its counts are `u64` and `usize`, its stats have its
/// own field names and order. As shipped its functions call the reference
/// library; a port has its own code here.
mod port {
    use dsh_session_reference::js::json::{self, Json};
    use dsh_session_reference::surface::{self, SessionHeader, SurfaceEvent, UserSource};
    use dsh_session_reference::{projection, retention, JsString};

    /// The id of an event in the port's session store.
    pub type EventId = u64;

    /// One event of a session. The port's type requires an id, by which
    /// the port orders events; the protocol's events have none.
    pub struct Event {
        pub id: EventId,
        pub kind: EventKind,
    }

    pub enum EventKind {
        /// A user or assistant message.
        Message(Message),
        /// A tool's result: not conversation.
        ToolResult,
        /// A developer or system message: ignored, as the newest
        /// generation ignores it.
        Instructions,
    }

    pub struct Message {
        pub role: Role,
        pub origin: Origin,
        /// The texts of the message's text blocks, in order (empty for an
        /// injected message, whose content is never read).
        pub texts: Vec<String>,
    }

    #[derive(Clone, Copy)]
    pub enum Role {
        User,
        Assistant,
    }

    /// Where a message came from, as far as retention cares.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Origin {
        /// Typed by the user, or written by the assistant.
        Typed,
        /// A compaction checkpoint.
        Checkpoint,
        /// Anything else (injected context, other plugins): not conversation.
        Injected,
    }

    pub struct Snapshot {
        pub session_id: String,
        pub cwd: Option<String>,
        /// How far the snapshot was captured: a JSON number, or `None` for
        /// `null`. An `f64`, not a `u64`: rc.8 copies whatever number it is
        /// given (`1.5`, `-1`, `9007199254740993` read as
        /// `9007199254740992`) into the data object, and its width counts
        /// against the budget.
        pub captured_through_seq: Option<f64>,
        pub events: Vec<Event>,
    }

    /// The port's own retention stats: its names, its order.
    pub struct Stats {
        pub original_messages: usize,
        pub retained_messages: usize,
        pub omitted_messages: usize,
        pub omitted_bytes: usize,
        pub compacted: bool,
        pub truncated: bool,
    }

    pub struct Retained {
        /// The data object, written as tag-safe JSON text.
        pub data_json: String,
        pub stats: Stats,
    }

    /// Retains one snapshot within `max_bytes`; `None` when even its fixed
    /// fields do not fit.
    pub fn retain(snapshot: &Snapshot, label: &str, max_bytes: u64) -> Option<Retained> {
        // The port works on its events in id order.
        let mut events: Vec<&Event> = snapshot.events.iter().collect();
        events.sort_by_key(|event| event.id);
        // The reference's own snapshot type, built from the port's: the
        // port's event ids have no place in it, nor in any output.
        let surface = surface::Snapshot {
            session: SessionHeader {
                id: Some(Json::str(&snapshot.session_id)),
                cwd: snapshot.cwd.as_deref().map(Json::str),
                version: None,
            },
            captured_through_seq: Some(
                snapshot
                    .captured_through_seq
                    .map_or(Json::Null, Json::Number),
            ),
            events: events.into_iter().map(surface_event).collect(),
        };
        let label: Vec<u16> = label.encode_utf16().collect();
        let retained =
            retention::retain(&surface, &label, projection::project(&surface), max_bytes)?;
        let stats = &retained.stats;
        Some(Retained {
            data_json: json::to_wire(&retained.data_json()),
            stats: Stats {
                original_messages: stats.original_messages,
                retained_messages: stats.retained_messages,
                omitted_messages: stats.omitted_messages,
                omitted_bytes: stats.omitted_bytes,
                compacted: stats.compacted,
                truncated: stats.truncated,
            },
        })
    }

    fn surface_event(event: &Event) -> SurfaceEvent {
        let texts = |message: &Message| {
            message
                .texts
                .iter()
                .map(|text| JsString::from(text.as_str()))
                .collect()
        };
        match &event.kind {
            EventKind::Message(message) => match (message.role, message.origin) {
                (Role::Assistant, _) => SurfaceEvent::Assistant {
                    texts: texts(message),
                },
                (Role::User, Origin::Typed) => SurfaceEvent::User {
                    source: UserSource::Direct,
                    texts: texts(message),
                },
                (Role::User, Origin::Checkpoint) => SurfaceEvent::User {
                    source: UserSource::Checkpoint,
                    texts: texts(message),
                },
                (Role::User, Origin::Injected) => SurfaceEvent::User {
                    source: UserSource::Other,
                    texts: Vec::new(),
                },
            },
            EventKind::ToolResult | EventKind::Instructions => SurfaceEvent::Ignored,
        }
    }

    /// The port's configuration: counts are `u64`.
    pub struct Config {
        pub max_references: u64,
        /// Read by discovery, which this port has not written yet.
        #[allow(dead_code)]
        pub candidate_limit: u64,
        /// Read by `prepare`, not written yet; `None`: the automatic
        /// budget (newest generation).
        #[allow(dead_code)]
        pub max_reference_bytes: Option<u64>,
        pub reference_context_fraction: f64,
    }

    impl Default for Config {
        fn default() -> Self {
            Config {
                max_references: 3,
                candidate_limit: 50,
                max_reference_bytes: None,
                reference_context_fraction: 0.2,
            }
        }
    }

    impl Config {
        /// The checks after the integers' own (newest generation).
        pub fn check(&self) -> Result<(), String> {
            if self.max_references > 3 {
                return Err("maxReferences must not exceed 3".to_owned());
            }
            if !(0.0..=1.0).contains(&self.reference_context_fraction) {
                return Err("referenceContextFraction must be between zero and one".to_owned());
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------
// Numbers: every JSON number is an f64 (spec `wire.json.numbers`).

/// A JSON number as a count: `Number.isSafeInteger(n) && n > 0`, the check
/// upstream makes of `maxBytes` and of the configuration's integers. The
/// request is decoded as `f64`, so `1.5`, `-1`, `1e300` and `2^53` reach
/// this check (and answer the op's code) instead of failing the decoder.
fn positive_safe_integer(number: f64) -> Option<u64> {
    (number.fract() == 0.0 && (1.0..=MAX_SAFE_INTEGER).contains(&number)).then_some(number as u64)
}

fn internal(message: &str) -> Failure {
    Failure::Internal(message.to_owned())
}

fn contract(code: ErrorCode, message: &str) -> Failure {
    Failure::Contract(Error::new(code, message))
}

// ---------------------------------------------------------------------------
// uri, mention: the input structs are the protocol's shapes.

/// `uri/encode` input.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UriEncode {
    session_id: String,
}

/// `uri/decode` input.
#[derive(Deserialize)]
struct UriDecode {
    uri: String,
}

/// `mention/format` input: a null or absent label is the id.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MentionFormat {
    session_id: String,
    label: Option<String>,
}

/// `mention/parse` input.
#[derive(Deserialize)]
struct MentionParse {
    text: String,
}

/// `mention/parse` output, members in the protocol's order:
/// `{text, references: [{sessionId, label}]}`.
#[derive(Serialize)]
struct Parsed {
    text: String,
    references: Vec<Reference>,
}

/// One parsed reference: `{sessionId, label}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Reference {
    session_id: String,
    label: String,
}

/// UTF-16 code units of a Rust string, as the reference takes them.
fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// A reference string as Rust text; one holding a lone surrogate cannot
/// be, and fails clearly (such vectors require `lone-surrogates`).
fn text(string: &JsString) -> Result<String, Failure> {
    string
        .to_str()
        .ok_or_else(|| internal("a lone surrogate cannot be a Rust String"))
}

fn uri_encode(input: UriEncode) -> Result<String, Failure> {
    Ok(uri::encode(&units(&input.session_id)))
}

fn uri_decode(input: UriDecode) -> Result<String, Failure> {
    text(&uri::decode(&units(&input.uri))?)
}

fn mention_format(input: MentionFormat) -> Result<String, Failure> {
    let label = input.label.as_deref().map(units);
    text(&mention::format(
        &units(&input.session_id),
        label.as_deref(),
    ))
}

fn mention_parse(input: MentionParse) -> Result<Parsed, Failure> {
    let parsed = mention::parse(&units(&input.text))?;
    Ok(Parsed {
        text: text(&parsed.text)?,
        references: parsed
            .references
            .iter()
            .map(|reference| {
                Ok(Reference {
                    session_id: text(&reference.session_id)?,
                    label: text(&reference.label)?,
                })
            })
            .collect::<Result<_, Failure>>()?,
    })
}

// ---------------------------------------------------------------------------
// retain: the protocol's snapshot, converted to the port's.

/// `retain` input: `{snapshot, label, maxBytes}`. Every member is an
/// `Option`, so that no well-typed input fails to decode and the checks
/// below run in upstream's order: `maxBytes`, then the reference
/// `{snapshot.session.id, label}`, then the snapshot.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Retain {
    snapshot: Option<WireSnapshot>,
    label: Option<String>,
    /// A JSON number, read as the `f64` `JSON.parse` reads (serde_json's
    /// `float_roundtrip`); the op checks it is a count.
    max_bytes: Option<f64>,
}

/// A snapshot as the protocol sends it (spec `surface.snapshot`):
/// `{session: {id, cwd?}, capturedThroughSeq, events}`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireSnapshot {
    session: Option<WireSession>,
    /// A number, or `null` (`None`). An absent member also reads `None`
    /// here, which is why the adapter does not declare `optional-seq`.
    captured_through_seq: Option<f64>,
    events: Option<Vec<WireEvent>>,
}

#[derive(Deserialize)]
struct WireSession {
    id: Option<String>,
    cwd: Option<String>,
}

/// A snapshot event as the protocol sends it: `{type, data}`. It carries no
/// id and no role, and a member it might carry besides is skipped unread
/// (serde_json skips a value without recursion, at any depth).
#[derive(Deserialize)]
struct WireEvent {
    #[serde(rename = "type")]
    kind: Option<String>,
    data: Option<WireEventData>,
}

/// An event's `data`: the members projection reads, of whichever type.
#[derive(Deserialize)]
struct WireEventData {
    source: Option<WireSource>,
    content: Option<Vec<WireBlock>>,
    message: Option<WireMessage>,
}

#[derive(Deserialize)]
struct WireMessage {
    content: Option<Vec<WireBlock>>,
}

/// A content block: only `{type: "text", text: STRING}` is read.
#[derive(Deserialize)]
struct WireBlock {
    #[serde(rename = "type", default)]
    kind: TextOrOther,
    text: Option<String>,
}

/// A user message's `source`: any JSON value (the protocol does not type
/// it). Upstream compares `source.kind` and `source.plugin` with strings;
/// every other member, and a source that is not an object, is never read.
#[derive(Default)]
struct WireSource {
    kind: TextOrOther,
    plugin: TextOrOther,
}

/// A member upstream only compares with a string: a string, or any other
/// JSON value (`None`), skipped unread.
#[derive(Default)]
struct TextOrOther(Option<String>);

impl TextOrOther {
    fn is(&self, text: &str) -> bool {
        self.0.as_deref() == Some(text)
    }
}

/// The port's snapshot from the protocol's (spec `surface.snapshot`,
/// `projection.*`): what upstream requires is required here (an unknown
/// event type, a user message without a source, a read content that is
/// absent: `INTERNAL`), what upstream never reads is not read.
fn port_snapshot(
    session_id: String,
    cwd: Option<String>,
    wire: WireSnapshot,
) -> Result<port::Snapshot, Failure> {
    let events = wire
        .events
        .ok_or_else(|| internal("snapshot.events is not an array"))?
        .into_iter()
        .enumerate()
        // The port's events need ids; the protocol's have none. The index
        // is unique within the snapshot and keeps the protocol's order
        // (spec `projection.order`) where the port orders by id. It is
        // never written back: no output carries a message id (spec
        // `protocol.ops`).
        .map(|(index, event)| port_event(index as port::EventId, event))
        .collect::<Result<_, _>>()?;
    Ok(port::Snapshot {
        session_id,
        cwd,
        captured_through_seq: wire.captured_through_seq,
        events,
    })
}

fn port_event(id: port::EventId, event: WireEvent) -> Result<port::Event, Failure> {
    use port::{EventKind, Message, Origin, Role};
    let texts_of = |blocks: Option<Vec<WireBlock>>| -> Result<Vec<String>, Failure> {
        let blocks = blocks.ok_or_else(|| internal("message content is not an array"))?;
        Ok(blocks
            .into_iter()
            .filter(|block| block.kind.is("text"))
            .filter_map(|block| block.text)
            .collect())
    };
    let kind = match event.kind.as_deref() {
        Some("user/message") => {
            let data = event
                .data
                .ok_or_else(|| internal("user/message without data"))?;
            let source = data
                .source
                .ok_or_else(|| internal("user/message without a source"))?;
            let origin = if source.kind.is("plugin") && source.plugin.is("compact") {
                Origin::Checkpoint
            } else if source.kind.is("user") {
                Origin::Typed
            } else {
                Origin::Injected
            };
            let texts = match origin {
                Origin::Injected => Vec::new(),
                _ => texts_of(data.content)?,
            };
            // The role comes from the event's type: the protocol sends none.
            EventKind::Message(Message {
                role: Role::User,
                origin,
                texts,
            })
        }
        Some("assistant/message") => EventKind::Message(Message {
            role: Role::Assistant,
            origin: Origin::Typed,
            texts: texts_of(event.data.and_then(|data| data.message?.content))?,
        }),
        Some("tool/result") => EventKind::ToolResult,
        Some("developer/message" | "system/message") => EventKind::Instructions,
        _ => {
            return Err(internal(
                "unreachable variant in session-reference surface event",
            ))
        }
    };
    Ok(port::Event { id, kind })
}

/// `retain` output: `{data, stats}`.
#[derive(Serialize)]
struct WireRetained {
    /// The data object as the port wrote it, kept as JSON text so that its
    /// member order survives.
    data: Box<RawValue>,
    stats: WireStats,
}

/// The protocol's stats (spec `retention.stats`): exactly these members,
/// camelCase, in this order. The port's `Stats` has its own names and
/// order; this adapter type, not the port, is written in the protocol's
/// shape. `rename_all` gives the names, the field order the member order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct WireStats {
    compacted: bool,
    original_messages: usize,
    retained_messages: usize,
    omitted_messages: usize,
    omitted_bytes: usize,
    truncated: bool,
}

impl From<&port::Stats> for WireStats {
    fn from(stats: &port::Stats) -> Self {
        WireStats {
            compacted: stats.compacted,
            original_messages: stats.original_messages,
            retained_messages: stats.retained_messages,
            omitted_messages: stats.omitted_messages,
            omitted_bytes: stats.omitted_bytes,
            truncated: stats.truncated,
        }
    }
}

/// `{data, stats}`, or `null` (`None`) when even the fixed fields do not fit.
fn retain(input: Retain) -> Result<Option<WireRetained>, Failure> {
    // maxBytes first, as upstream: a positive safe integer, else INTERNAL
    // (upstream's plain error). Only then is it a u64.
    let max_bytes = input
        .max_bytes
        .and_then(positive_safe_integer)
        .ok_or_else(|| internal("maxBytes must be a positive safe integer"))?;
    // Then the reference {sessionId: snapshot.session.id, label}.
    let no_id = || {
        contract(
            ErrorCode::InvalidReference,
            "session reference must contain a string sessionId",
        )
    };
    let mut snapshot = input.snapshot.ok_or_else(no_id)?;
    let session = snapshot.session.take().ok_or_else(no_id)?;
    let session_id = session.id.ok_or_else(no_id)?;
    let label = input.label.unwrap_or_else(|| session_id.clone());
    // Then the snapshot itself, into the port's types.
    let snapshot = port_snapshot(session_id, session.cwd, snapshot)?;
    let Some(retained) = port::retain(&snapshot, &label, max_bytes) else {
        return Ok(None);
    };
    let data = RawValue::from_string(retained.data_json)
        .map_err(|error| Failure::Internal(format!("data: {error}")))?;
    Ok(Some(WireRetained {
        data,
        stats: WireStats::from(&retained.stats),
    }))
}

// ---------------------------------------------------------------------------
// config/check (config-v2): numbers to the port's u64 with explicit checks.

/// `config/check` input: `{config}`; `null` or absent is no configuration.
#[derive(Deserialize)]
struct ConfigCheck {
    config: Option<WireConfig>,
}

/// The protocol's configuration: each member a JSON number, `null` the
/// same as absent (`None`, spec `config.null-is-absent`); unknown members
/// are skipped unread.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireConfig {
    max_references: Option<f64>,
    candidate_limit: Option<f64>,
    max_reference_bytes: Option<f64>,
    reference_context_fraction: Option<f64>,
}

fn config_check(input: ConfigCheck) -> Result<bool, Failure> {
    let wire = input.config.unwrap_or_default();
    let defaults = port::Config::default();
    // A number that is not a positive safe integer answers upstream's code
    // (spec `config.positive-integers`), never a decode error.
    let count = |name: &str, number: Option<f64>| -> Result<Option<u64>, Failure> {
        number
            .map(|number| {
                positive_safe_integer(number).ok_or_else(|| {
                    contract(
                        ErrorCode::InvalidConfig,
                        &format!("session-reference: {name} must be a positive safe integer"),
                    )
                })
            })
            .transpose()
    };
    let config = port::Config {
        max_references: count("maxReferences", wire.max_references)?
            .unwrap_or(defaults.max_references),
        candidate_limit: count("candidateLimit", wire.candidate_limit)?
            .unwrap_or(defaults.candidate_limit),
        max_reference_bytes: count("maxReferenceBytes", wire.max_reference_bytes)?
            .or(defaults.max_reference_bytes),
        reference_context_fraction: wire
            .reference_context_fraction
            .unwrap_or(defaults.reference_context_fraction),
    };
    config.check().map_err(|message| {
        contract(
            ErrorCode::InvalidConfig,
            &format!("session-reference: {message}"),
        )
    })?;
    Ok(true)
}

// ---------------------------------------------------------------------------
// Reading untyped members as upstream reads them.

/// Reads any JSON value: a string and an object as `T` says, any other
/// value as `T::default()`. What is not read is skipped with
/// `IgnoredAny`, which serde_json does without recursion, so an unread
/// member nested 3 000 levels deep costs no stack.
trait Lenient: Default {
    fn from_text(_text: &str) -> Self {
        Self::default()
    }

    fn from_object<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Self::default())
    }
}

impl Lenient for TextOrOther {
    fn from_text(text: &str) -> Self {
        TextOrOther(Some(text.to_owned()))
    }
}

impl Lenient for WireSource {
    fn from_object<'de, A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut source = WireSource::default();
        // A member written twice keeps its last value, as in JSON.parse.
        while let Some(name) = map.next_key::<String>()? {
            match name.as_str() {
                "kind" => source.kind = map.next_value()?,
                "plugin" => source.plugin = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(source)
    }
}

struct LenientVisitor<T>(PhantomData<T>);

impl<'de, T: Lenient> Visitor<'de> for LenientVisitor<T> {
    type Value = T;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok(T::default())
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        Ok(T::from_text(text))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(T::default())
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_object(map)
    }
}

impl<'de> Deserialize<'de> for TextOrOther {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LenientVisitor(PhantomData))
    }
}

impl<'de> Deserialize<'de> for WireSource {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(LenientVisitor(PhantomData))
    }
}
