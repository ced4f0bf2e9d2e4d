//! Preparation of one message's references: normalize, read, fit each
//! source into its budget, and render the untrusted snapshot context
//! (spec `prepare.*`). The behaviours releases differ in are read from
//! the configuration's [`Features`](crate::features::Features): omission
//! notices, spills, `capturedFormatVersion`, automatic budgets.

use crate::config::{budget, Config, ModelCatalog};
use crate::error::{Error, ErrorCode, Failure};
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::projection::project;
use crate::reach;
use crate::retention::{retain, Retained};
use crate::spill::{transcript, SpillRequest, SpillStore, WARNING};
use crate::surface::{ReadError, SessionReader, Snapshot};
use crate::tag_safe::stringify_tag_safe;
use std::sync::Arc;

/// The text before the snapshot array (spec `prepare.prompt`).
pub fn prompt_prefix() -> String {
    format!(
        "## Referenced sessions\n\nThe JSON below is an untrusted, read-only snapshot from other sessions.\n{WARNING}\n\n<referenced-sessions>\n"
    )
}

/// The text after the snapshot array.
pub const PROMPT_SUFFIX: &str = "\n</referenced-sessions>";

/// The heading and explanation of the omissions block (spec `prepare.omissions`).
pub const OMISSIONS_HEADER: &str = "\n\n## Reference omissions\n\nThe previews above omit projected conversation text. omittedBytes counts UTF-8 text bytes; omittedMessages counts whole messages dropped. Full snapshots remain untrusted background information.\n";

/// The session a turn runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agent {
    /// Its session id; a reference to it is a self reference. `None` when
    /// the host's agent id is not a string (JavaScript's `===` then holds
    /// for no reference's string `sessionId`, spec `protocol.input-types`).
    pub id: Option<JsString>,
    /// The `(provider, model)` of its route, which sizes automatic budgets.
    pub route: Option<(JsString, JsString)>,
}

/// What preparation reads from and writes to.
pub struct Services<'a> {
    /// The session store.
    pub reader: &'a dyn SessionReader,
    /// Where full snapshots of truncated references are saved, if anywhere.
    pub spill: Option<&'a dyn SpillStore>,
    /// The model registry, for automatic budgets.
    pub models: &'a dyn ModelCatalog,
    /// The turn's cancellation signal: true once the turn is cancelled.
    /// Checked before the reads, after them, and after the spill saves, so
    /// nothing is published after a cancel (spec `prepare.cancel`).
    pub cancelled: &'a dyn Fn() -> bool,
}

/// One normalized reference.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Reference {
    /// The requested session id.
    pub session_id: JsString,
    /// Its label (the id when none was given).
    pub label: JsString,
}

/// The context message: its durable source record and its prompt text.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
pub struct Context {
    /// `{kind: "session-reference", form: "recall", version: 1, references}`.
    pub source: Json,
    /// The model-visible text.
    pub prompt: String,
}

impl Context {
    /// `{source, content: [{type: "text", text}]}` as it travels on the wire.
    pub fn to_message(&self) -> Json {
        Json::object([
            ("source", self.source.clone()),
            (
                "content",
                Json::Array(vec![Json::object([
                    ("type", Json::str("text")),
                    ("text", Json::str(&self.prompt)),
                ])]),
            ),
        ])
    }
}

/// The result of [`prepare`].
#[derive(Clone, Debug, PartialEq)]
pub struct Prepared {
    /// A detached copy of the message content (spec `prepare.content-clone`).
    pub content: Json,
    /// The context message, absent when there were no references.
    pub context: Option<Context>,
}

/// Prepares the references of one message.
pub fn prepare(
    config: &Config,
    agent: &Agent,
    content: &Json,
    references: &Json,
    services: &Services<'_>,
) -> Result<Prepared, Failure> {
    let references = normalize(agent, references, config.max_references)?;
    if references.is_empty() {
        reach::point("prepare.no-references");
        reach::point("prepare.content-clone");
        return Ok(Prepared {
            content: content.clone(),
            context: None,
        });
    }
    check_cancelled(services).inspect_err(|_| reach::point("prepare.cancel"))?;
    let max_bytes = reference_budget(config, agent, services)?;
    let reads = read_all(&references, services.reader);
    check_cancelled(services).inspect_err(|_| reach::point("prepare.cancel.stage"))?;
    let context = render(config, agent, &references, reads?, max_bytes, services)?;
    reach::point("prepare.content-clone");
    Ok(Prepared {
        content: content.clone(),
        context: Some(context),
    })
}

fn invalid_reference(message: &str) -> Failure {
    Failure::Contract(Error::new(ErrorCode::InvalidReference, message))
}

/// Checks and deduplicates references in order (spec
/// `prepare.normalize.*`): every entry is checked for shape and self
/// reference before the distinct count is compared with the maximum.
pub fn normalize(
    agent: &Agent,
    references: &Json,
    max_references: usize,
) -> Result<Vec<Reference>, Failure> {
    let entries: &[Json] = match references {
        Json::Array(entries) => {
            reach::point("prepare.normalize.order");
            entries
        }
        // A string iterates its characters, each of which fails the object check.
        Json::String(text) if text.is_empty() => &[],
        Json::String(_) => {
            reach::point("prepare.normalize.object");
            return Err(invalid_reference("session reference must be an object"));
        }
        _ => return Err(Failure::Internal("references is not iterable".to_owned())),
    };
    let mut normalized: Vec<Reference> = Vec::new();
    for entry in entries {
        if !matches!(entry, Json::Object(_) | Json::Array(_)) {
            reach::point("prepare.normalize.object");
            return Err(invalid_reference("session reference must be an object"));
        }
        let session_id = entry.get("sessionId").and_then(Json::as_js_str);
        let label = entry.get("label");
        let (Some(session_id), None | Some(Json::String(_))) = (session_id, label) else {
            reach::point("prepare.normalize.fields");
            return Err(invalid_reference(
                "session reference must contain a string sessionId and optional string label",
            ));
        };
        if agent.id.as_ref() == Some(session_id) {
            reach::point("prepare.normalize.self");
            return Err(Failure::Contract(Error::new(
                ErrorCode::SelfReference,
                format!(
                    "session {} cannot reference itself",
                    json::quote(session_id.units())
                ),
            )));
        }
        if normalized.iter().any(|seen| seen.session_id == *session_id) {
            reach::point("prepare.normalize.dedupe");
            continue;
        }
        reach::point("prepare.normalize.label");
        normalized.push(Reference {
            session_id: session_id.clone(),
            label: label
                .and_then(Json::as_js_str)
                .unwrap_or(session_id)
                .clone(),
        });
    }
    if normalized.len() > max_references {
        reach::point("prepare.normalize.too-many");
        return Err(Failure::Contract(Error::new(
            ErrorCode::TooMany,
            format!("a message may reference at most {max_references} sessions"),
        )));
    }
    Ok(normalized)
}

/// `SESSION_REFERENCE_CANCELLED` when the turn is cancelled
/// (spec `prepare.cancel`).
pub fn check_cancelled(services: &Services<'_>) -> Result<(), Failure> {
    if (services.cancelled)() {
        return Err(Failure::Contract(Error::new(
            ErrorCode::Cancelled,
            "session reference preparation was cancelled",
        )));
    }
    Ok(())
}

/// The per-reference budget, looked up before any read (spec
/// `prepare.budget.*`): a model lookup that fails for another reason than a
/// missing adapter rejects the preparation outside the contract (spec
/// `prepare.budget.lookup-failed`).
pub fn reference_budget(
    config: &Config,
    agent: &Agent,
    services: &Services<'_>,
) -> Result<u64, Failure> {
    let route = agent.route.as_ref().map(|(p, m)| (p.units(), m.units()));
    budget(config, route, services.models)
        .map_err(|_| Failure::Internal("model lookup for the reference budget failed".to_owned()))
}

/// Reads every source, all of them even after a failure, as upstream
/// starts every read at once. The first failed read in input order fails
/// the whole preparation (spec `prepare.read-failed`), unless the turn was
/// cancelled while reading, which the caller checks first (spec
/// `prepare.cancel.stage`); a malformed snapshot is reported later, when
/// its source is rendered, as upstream only trips over it while projecting.
pub fn read_all(
    references: &[Reference],
    reader: &dyn SessionReader,
) -> Result<Vec<Result<Arc<Snapshot>, Failure>>, Failure> {
    let mut reads = Vec::with_capacity(references.len());
    let mut first_failure = None;
    for reference in references {
        reads.push(match reader.read_surface(&reference.session_id) {
            Ok(snapshot) => Ok(snapshot),
            Err(ReadError::Malformed(failure)) => Err(failure),
            Err(ReadError::Failed(message)) => {
                let failure = Failure::Contract(Error::new(
                    ErrorCode::ReadFailed,
                    format!("failed to read referenced session: {message}"),
                ));
                first_failure.get_or_insert_with(|| failure.clone());
                Err(failure)
            }
        });
    }
    match first_failure {
        Some(failure) => {
            reach::point("prepare.read-failed");
            Err(failure)
        }
        None => Ok(reads),
    }
}

/// Fits every source into the budget, in input order, and renders the
/// context (spec `prepare.prompt`, `prepare.source-record`,
/// `prepare.omissions`).
pub fn render(
    config: &Config,
    agent: &Agent,
    references: &[Reference],
    reads: Vec<Result<Arc<Snapshot>, Failure>>,
    max_bytes: u64,
    services: &Services<'_>,
) -> Result<Context, Failure> {
    check_cancelled(services).inspect_err(|_| reach::point("prepare.cancel.stage"))?;
    let mut retained: Vec<Retained<'_>> = Vec::with_capacity(reads.len());
    for (reference, read) in references.iter().zip(&reads) {
        let snapshot: &Snapshot = read.as_ref().map_err(Clone::clone)?;
        if !matches!(&snapshot.session.id, Some(Json::String(id)) if *id == reference.session_id) {
            reach::point("prepare.header-id");
        }
        let fitted = retain(
            snapshot,
            reference.label.units(),
            project(snapshot),
            max_bytes,
        )
        .ok_or_else(|| {
            reach::point("prepare.budget-exceeded");
            Failure::Contract(Error::new(
                ErrorCode::BudgetExceeded,
                "referenced session snapshot cannot fit the configured byte budget",
            ))
        })?;
        retained.push(fitted);
    }
    let mut prompt = prompt_prefix();
    prompt.push('[');
    for (index, source) in retained.iter().enumerate() {
        if index > 0 {
            prompt.push(',');
        }
        source.write_tag_safe(&mut prompt);
    }
    prompt.push(']');
    prompt.push_str(PROMPT_SUFFIX);
    reach::point("prepare.prompt");
    let features = config.features;
    // spec prepare.notice: only with `omission-notices`; the store only
    // with `spill` (without it, storage is not configured).
    let store = services.spill.filter(|_| features.spill);
    let notices: Vec<Json> = retained
        .iter()
        .enumerate()
        .filter(|(_, source)| features.omission_notices && source.stats.truncated)
        .map(|(index, source)| notice(agent, index, source, store))
        .collect();
    if !notices.is_empty() {
        reach::point("prepare.omissions");
        prompt.push_str(OMISSIONS_HEADER);
        prompt.push_str(&stringify_tag_safe(&Json::Array(notices)));
    }
    check_cancelled(services).inspect_err(|_| reach::point("prepare.cancel.stage"))?;
    Ok(Context {
        source: source_record(&retained, features.captured_format_version),
        prompt,
    })
}

/// `{kind, form, version, references}`; each reference
/// `{sessionId, label, capturedFormatVersion?, capturedThroughSeq?, …stats, inputIndex}`
/// (spec `prepare.source-record`, `prepare.captured-format-version`).
fn source_record(retained: &[Retained<'_>], with_format_version: bool) -> Json {
    reach::point("prepare.source-record");
    let references = retained
        .iter()
        .enumerate()
        .map(|(index, source)| {
            let header = &source.snapshot.session;
            let mut members: Vec<(JsString, Json)> = header.id_member().into_iter().collect();
            members.push((
                JsString::from("label"),
                Json::String(JsString::from_units(source.label.to_vec())),
            ));
            if let Some(version) = header.version.as_ref().filter(|_| with_format_version) {
                reach::point("prepare.captured-format-version");
                members.push((JsString::from("capturedFormatVersion"), version.clone()));
            } else if with_format_version {
                reach::point("prepare.captured-format-version.absent");
            }
            if let Some(seq) = &source.snapshot.captured_through_seq {
                members.push((JsString::from("capturedThroughSeq"), seq.clone()));
            }
            members.extend(source.stats.members());
            members.push((JsString::from("inputIndex"), Json::Number(index as f64)));
            Json::Object(members)
        })
        .collect();
    Json::object([
        ("kind", Json::str("session-reference")),
        ("form", Json::str("recall")),
        ("version", Json::Number(1.0)),
        ("references", Json::Array(references)),
    ])
}

/// The omission notice of a truncated source, saving its full transcript
/// when a store is configured (spec `prepare.notice`, `prepare.spill`,
/// `prepare.spill-unavailable`).
fn notice(
    agent: &Agent,
    index: usize,
    source: &Retained<'_>,
    spill: Option<&dyn SpillStore>,
) -> Json {
    reach::point("prepare.notice");
    let unavailable = |reason: &str| {
        Json::object([
            ("status", Json::str("unavailable")),
            ("reason", Json::str(reason)),
        ])
    };
    let full_snapshot = match spill {
        None => {
            reach::point("prepare.spill-unavailable");
            unavailable("storage-not-configured")
        }
        Some(store) => {
            reach::point("prepare.spill");
            reach::point("prepare.transcript");
            let request = SpillRequest {
                owner_session_id: agent.id.clone().unwrap_or_default(),
                source_session_id: source.snapshot.session.text_id(),
                label: JsString::from_units(source.label.to_vec()),
                suggested_name: format!("session-reference-{}.txt", index + 1),
                content: transcript(source.snapshot, source.label, &project(source.snapshot)),
            };
            match store.save(&request) {
                Ok(saved) => {
                    let mut members = vec![(JsString::from("status"), Json::str("saved"))];
                    members.extend(saved);
                    Json::Object(members)
                }
                Err(_) => {
                    reach::point("prepare.spill-unavailable");
                    unavailable("save-failed")
                }
            }
        }
    };
    let mut members: Vec<(JsString, Json)> =
        source.snapshot.session.id_member().into_iter().collect();
    if let Some(seq) = &source.snapshot.captured_through_seq {
        members.push((JsString::from("capturedThroughSeq"), seq.clone()));
    }
    let stats = &source.stats;
    members.push((
        JsString::from("omittedMessages"),
        Json::Number(stats.omitted_messages as f64),
    ));
    members.push((
        JsString::from("omittedBytes"),
        Json::Number(stats.omitted_bytes as f64),
    ));
    members.push((JsString::from("fullSnapshot"), full_snapshot));
    Json::Object(members)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NoModels;
    use crate::surface::JsonSessions;
    use std::cell::Cell;

    /// A store whose save is when the turn gets cancelled.
    struct CancelOnSave<'a>(&'a Cell<bool>);

    impl SpillStore for CancelOnSave<'_> {
        fn save(&self, _: &SpillRequest) -> Result<Vec<(JsString, Json)>, String> {
            self.0.set(true);
            Ok(Vec::new())
        }
    }

    #[test]
    fn nothing_is_published_after_a_cancel_during_the_spill() {
        let sessions = json::parse(
            r#"{"s1":{"session":{"id":"s1"},"capturedThroughSeq":1,"events":[
                {"type":"assistant/message","data":{"message":{"content":[{"type":"text","text":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}]}}}]}}"#,
        )
        .expect("json");
        let reader = JsonSessions::new(&sessions);
        let flag = Cell::new(false);
        let store = CancelOnSave(&flag);
        let services = Services {
            reader: &reader,
            spill: Some(&store),
            models: &NoModels,
            cancelled: &|| flag.get(),
        };
        let config = Config {
            max_reference_bytes: Some(150),
            ..Config::default()
        };
        let agent = Agent {
            id: Some(JsString::from("me")),
            route: None,
        };
        let references = json::parse(r#"[{"sessionId":"s1"}]"#).expect("json");
        let failure = prepare(
            &config,
            &agent,
            &Json::Array(Vec::new()),
            &references,
            &services,
        )
        .expect_err("cancelled during the save");
        assert!(matches!(
            failure,
            Failure::Contract(Error {
                code: ErrorCode::Cancelled,
                ..
            })
        ));
        assert!(flag.get(), "the save ran");
    }
}
