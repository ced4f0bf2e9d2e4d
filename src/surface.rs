//! The current surface of a referenced session (spec `surface.*`): what a
//! host's session query returns for one id, and the [`SessionReader`] trait
//! through which preparation reads it.

use crate::config::MAX_SAFE_INTEGER;
use crate::error::Failure;
use crate::features::Features;
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::reach;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// The session header: id, working directory and format version.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionHeader {
    /// The session id written into snapshots (may differ from the id asked
    /// for): the value as given, of any type, `None` when absent
    /// (`undefined`, not written; spec `protocol.input-types`).
    pub id: Option<Json>,
    /// The recorded working directory; `None` when absent or null.
    pub cwd: Option<Json>,
    /// The session format generation, when the header records one.
    pub version: Option<Json>,
}

impl SessionHeader {
    /// The `sessionId` member written for this header: absent when the id
    /// is (`undefined` is not written).
    pub fn id_member(&self) -> Option<(JsString, Json)> {
        self.id.clone().map(|id| (JsString::from("sessionId"), id))
    }

    /// The id as text: the string, or its JSON spelling for another value
    /// (what a spill store names the source by), empty when absent.
    pub fn text_id(&self) -> JsString {
        match &self.id {
            Some(Json::String(id)) => id.clone(),
            Some(other) => JsString::from(json::stringify(other).as_str()),
            None => JsString::EMPTY,
        }
    }
}

/// Where a user message came from, as far as projection cares
/// (spec `projection.user-direct`, `projection.checkpoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserSource {
    /// Typed by the user: `{kind: "user"}`.
    Direct,
    /// A compact checkpoint: `{kind: "plugin", plugin: "compact"}`.
    Checkpoint,
    /// Anything else: injected context, other plugins.
    Other,
}

/// One event of the current surface (spec `surface.snapshot`).
#[derive(Clone, Debug, PartialEq)]
pub enum SurfaceEvent {
    /// `user/message`: its source and, for direct and checkpoint messages,
    /// the texts of its text blocks in order.
    User {
        /// The message source.
        source: UserSource,
        /// Text blocks' texts (empty for [`UserSource::Other`], never read).
        texts: Vec<JsString>,
    },
    /// `assistant/message` and the texts of its text blocks.
    Assistant {
        /// Text blocks' texts in order.
        texts: Vec<JsString>,
    },
    /// `tool/result`, `developer/message`, `system/message`: not conversation
    /// (spec `surface.tool-result`, `surface.developer-system`).
    Ignored,
}

/// A current-surface observation of one session.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// The header.
    pub session: SessionHeader,
    /// The sequence number of the last raw log event; `None` when the member
    /// is absent (it then disappears from serialized data). With
    /// `seq-domain` it is `null` or a non-negative safe integer (spec
    /// `surface.captured-through-seq`).
    pub captured_through_seq: Option<Json>,
    /// The folded surface events in order.
    pub events: Vec<SurfaceEvent>,
}

impl Snapshot {
    /// Reads a snapshot from its JSON form. Shapes upstream would trip over
    /// (a missing source, content that is not an array) and unknown event
    /// types are failures outside the contract (spec `surface.unknown-event`).
    pub fn from_json(value: &Json) -> Result<Snapshot, Failure> {
        Snapshot::from_json_in(value, Features::NEWEST)
    }

    /// [`Snapshot::from_json`] with `features`: without
    /// `developer-events-ignored` developer and system messages fail (spec
    /// `surface.developer-system`); with `seq-domain` a `capturedThroughSeq`
    /// that is present and neither `null` nor a session sequence number
    /// fails (spec `surface.seq-outside-domain`), without it any value is
    /// copied. Both are failures outside the contract, reported when the
    /// reference is retained (`prepare.budget-exceeded`).
    pub fn from_json_in(value: &Json, features: Features) -> Result<Snapshot, Failure> {
        let internal = |what: &str| Failure::Internal(format!("malformed snapshot: {what}"));
        let session = value
            .get("session")
            .ok_or_else(|| internal("no session header"))?;
        // `session.id` of any value but `null` or `undefined` reads as
        // JavaScript reads it (spec `protocol.input-types`).
        if *session == Json::Null {
            return Err(internal("Cannot read properties of null (reading 'id')"));
        }
        let id = session.get("id").cloned();
        let present = |member: Option<&Json>| member.filter(|v| **v != Json::Null).cloned();
        let header = SessionHeader {
            id,
            cwd: present(session.get("cwd")),
            version: session.get("version").cloned(),
        };
        // `for (const event of snapshot.events)`: a string iterates its
        // characters, none of which is an event (spec `protocol.input-types`).
        let events = match value.get("events") {
            Some(Json::Array(events)) => events.as_slice(),
            Some(Json::String(text)) if text.is_empty() => &[],
            Some(Json::String(_)) => {
                // Each character is an event of no known type.
                reach::point("surface.unknown-event");
                return Err(internal(
                    "unreachable variant in session-reference surface event",
                ));
            }
            _ => return Err(internal("snapshot.events is not iterable")),
        };
        let events = events
            .iter()
            .map(|event| event_from_json(event, features))
            .collect::<Result<_, _>>()?;
        let captured_through_seq = value.get("capturedThroughSeq").cloned();
        if let Some(seq) = captured_through_seq
            .as_ref()
            .filter(|_| features.seq_domain)
        {
            if *seq != Json::Null && !is_session_seq(seq) {
                reach::point("surface.seq-outside-domain");
                return Err(Failure::Internal(format!(
                    "SessionSeq must be a non-negative safe integer, got {}",
                    json::stringify(seq)
                )));
            }
        }
        reach::point("surface.snapshot");
        Ok(Snapshot {
            session: header,
            captured_through_seq,
            events,
        })
    }
}

/// A session sequence number: a non-negative safe integer, `-0` excluded
/// (spec `surface.seq-outside-domain`).
pub fn is_session_seq(value: &Json) -> bool {
    matches!(value, Json::Number(n)
        if n.fract() == 0.0 && *n >= 0.0 && n.is_sign_positive() && *n <= MAX_SAFE_INTEGER)
}

fn event_from_json(event: &Json, features: Features) -> Result<SurfaceEvent, Failure> {
    // Compared as code units: no Rust string is built for the event type.
    let kind = event.get("type").and_then(Json::as_js_str);
    let kind = [
        "user/message",
        "assistant/message",
        "tool/result",
        "developer/message",
        "system/message",
    ]
    .into_iter()
    .find(|name| kind.is_some_and(|kind| kind.is(name)))
    .unwrap_or_default();
    let data = event.get("data");
    match kind {
        "user/message" => {
            let source = data
                .and_then(|data| data.get("source"))
                .filter(|source| **source != Json::Null)
                .ok_or_else(|| {
                    reach::point("surface.snapshot");
                    Failure::Internal("user/message without a source".to_owned())
                })?;
            let source = classify_source(source);
            let texts = match source {
                UserSource::Other => Vec::new(),
                _ => texts_of(data.and_then(|data| data.get("content")))?,
            };
            Ok(SurfaceEvent::User { source, texts })
        }
        "assistant/message" => {
            let content = data
                .and_then(|data| data.get("message"))
                .and_then(|m| m.get("content"));
            Ok(SurfaceEvent::Assistant {
                texts: texts_of(content)?,
            })
        }
        "tool/result" => {
            reach::point("surface.tool-result");
            Ok(SurfaceEvent::Ignored)
        }
        "developer/message" | "system/message" if features.developer_events_ignored => {
            reach::point("surface.developer-system");
            Ok(SurfaceEvent::Ignored)
        }
        _ => {
            // The guard: an unknown type (`""` here), or, in rc.8, a
            // developer or system message.
            if kind.is_empty() {
                reach::point("surface.unknown-event");
            } else {
                reach::point("surface.developer-system");
            }
            Err(Failure::Internal(format!(
                "unreachable variant in session-reference surface event: {}",
                json::stringify(event)
            )))
        }
    }
}

fn classify_source(source: &Json) -> UserSource {
    let is = |name: &str, value: &str| {
        source
            .get(name)
            .and_then(Json::as_js_str)
            .is_some_and(|text| text.is(value))
    };
    if is("kind", "plugin") && is("plugin", "compact") {
        UserSource::Checkpoint
    } else if is("kind", "user") {
        UserSource::Direct
    } else {
        UserSource::Other
    }
}

/// The texts of the blocks whose `type` is `"text"` and whose `text` is a
/// string, in order (spec `projection.text-join`). Upstream reads each
/// block's `type`: a `null` block throws there (`INTERNAL`, spec
/// `protocol.input-types`); a block of another type has no `type "text"`.
fn texts_of(content: Option<&Json>) -> Result<Vec<JsString>, Failure> {
    let blocks = content.and_then(Json::as_array).ok_or_else(|| {
        reach::point("surface.snapshot");
        Failure::Internal("content.flatMap is not a function".to_owned())
    })?;
    let mut texts = Vec::new();
    let mut skipped = false;
    for block in blocks {
        if *block == Json::Null {
            reach::point("surface.snapshot");
            return Err(Failure::Internal(
                "Cannot read properties of null (reading 'type')".to_owned(),
            ));
        }
        let is_text = block
            .get("type")
            .and_then(Json::as_js_str)
            .is_some_and(|kind| kind.is("text"));
        if let Some(text) = block
            .get("text")
            .and_then(Json::as_js_str)
            .filter(|_| is_text)
        {
            texts.push(text.clone());
        } else {
            skipped = true;
        }
    }
    if skipped {
        // A block that is not a text block with a string `text` is skipped
        // without leaving a separator.
        reach::point("projection.text-join");
    }
    Ok(texts)
}

/// Why a read failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The storage failed or has no such session: `SESSION_REFERENCE_READ_FAILED`.
    Failed(String),
    /// The stored snapshot is malformed: a failure outside the contract.
    Malformed(Failure),
}

/// How preparation reads referenced sessions. Hosts implement it over their
/// session store; a shared snapshot (`Arc`) lets a host that caches
/// snapshots hand one out without copying it.
pub trait SessionReader {
    /// The current surface of session `id`.
    fn read_surface(&self, id: &JsString) -> Result<Arc<Snapshot>, ReadError>;
}

/// Sessions given as JSON: an object from id to a snapshot, or to
/// `{"readError": MESSAGE}` for a session whose read fails (the protocol's
/// `sessions` input). An id that is not a member fails its read.
pub struct JsonSessions<'a> {
    sessions: &'a Json,
    features: Features,
}

impl<'a> JsonSessions<'a> {
    /// Reads from `sessions` (an object; anything else has no sessions).
    pub fn new(sessions: &'a Json) -> Self {
        Self::with_features(sessions, Features::NEWEST)
    }

    /// Reads snapshots with `features` ([`Snapshot::from_json_in`]).
    pub fn with_features(sessions: &'a Json, features: Features) -> Self {
        Self { sessions, features }
    }
}

impl SessionReader for JsonSessions<'_> {
    fn read_surface(&self, id: &JsString) -> Result<Arc<Snapshot>, ReadError> {
        let entry = self
            .sessions
            .as_object()
            .and_then(|members| members.iter().rev().find(|(key, _)| key == id))
            .map(|(_, entry)| entry)
            .ok_or_else(|| {
                ReadError::Failed(format!("session not found: {}", id.to_string_lossy()))
            })?;
        if let Some(message) = entry.get("readError") {
            let message = message
                .as_js_str()
                .map(JsString::to_string_lossy)
                .unwrap_or_default();
            return Err(ReadError::Failed(message));
        }
        Snapshot::from_json_in(entry, self.features)
            .map(Arc::new)
            .map_err(ReadError::Malformed)
    }
}

/// Snapshots stored as JSON files in a folder, one session a file, found by
/// their header id: the reader the command line uses when there is no host.
pub struct FolderReader {
    snapshots: HashMap<JsString, Json>,
}

impl FolderReader {
    /// Reads every `*.json` file of `dir`.
    pub fn open(dir: &Path) -> Result<FolderReader, String> {
        let mut snapshots = HashMap::new();
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let value = json::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            let id = value
                .get("session")
                .and_then(|session| session.get("id"))
                .and_then(Json::as_js_str)
                .cloned()
                .ok_or_else(|| format!("{}: no session.id", path.display()))?;
            snapshots.insert(id, value);
        }
        Ok(FolderReader { snapshots })
    }
}

impl SessionReader for FolderReader {
    fn read_surface(&self, id: &JsString) -> Result<Arc<Snapshot>, ReadError> {
        let value = self.snapshots.get(id).ok_or_else(|| {
            ReadError::Failed(format!("session not found: {}", id.to_string_lossy()))
        })?;
        Snapshot::from_json(value)
            .map(Arc::new)
            .map_err(ReadError::Malformed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_seq(seq: Option<&str>) -> Json {
        let seq = seq.map_or(String::new(), |seq| {
            format!(r#""capturedThroughSeq":{seq},"#)
        });
        json::parse(&format!(r#"{{"session":{{"id":"s"}},{seq}"events":[]}}"#)).unwrap()
    }

    #[test]
    fn the_newest_generation_reads_only_session_sequence_numbers() {
        for seq in ["0", "7", "9007199254740991", "null"] {
            let read = Snapshot::from_json_in(&with_seq(Some(seq)), Features::NEWEST);
            assert!(read.is_ok(), "{seq}");
        }
        assert_eq!(
            Snapshot::from_json_in(&with_seq(None), Features::NEWEST)
                .unwrap()
                .captured_through_seq,
            None
        );
        for seq in [
            "1.5",
            "-1",
            "-0",
            "9007199254740992",
            "1e300",
            "\"7\"",
            "true",
            "[]",
        ] {
            let read = Snapshot::from_json_in(&with_seq(Some(seq)), Features::NEWEST);
            assert!(matches!(read, Err(Failure::Internal(_))), "{seq}");
            // rc.8 copies whatever it is given.
            let read = Snapshot::from_json_in(&with_seq(Some(seq)), Features::RC8).unwrap();
            assert!(read.captured_through_seq.is_some(), "{seq}");
        }
    }
}
