//! Answers protocol requests with the reference implementation
//! (spec `protocol.ops`).

use super::input_types;
use super::listing::{Listing, Records, StandIns};
use super::wire::{Outcome, UNSUPPORTED};
use crate::config::{positive_safe_integer, Capacity, Config, ModelCatalog};
use crate::discovery::sessions::CandidateIndex;
use crate::error::Failure;
use crate::features::{Declared, Features};
use crate::js::json::{self, Json};
use crate::js::JsString;
use crate::prepare::{prepare, Agent, Services};
use crate::projection::project;
use crate::reach;
use crate::retention::retain;
use crate::spill::{SimulatedSpillStore, SpillStore};
use crate::surface::{JsonSessions, ReadError, SessionReader, Snapshot};
use crate::{mention, pre_step, tag_safe, uri};
use std::cell::Cell;
use std::sync::Arc;

/// The name the reference gives in `describe`.
pub const NAME: &str = "dsh-session-reference";

/// The capabilities the reference declares (spec `protocol.capabilities`):
/// its strings are JavaScript strings, lone surrogates included; it reads
/// snapshots without `capturedThroughSeq` (spec `surface.seq-absent`); it
/// takes model lookups that fail (`models` entries `{"lookupError"}`, spec
/// `prepare.budget.lookup-failed`), cancellation at a stage (`cancel:
/// {"onRead" | "onSave"}`, spec `prepare.cancel.stage`) and message ids
/// kept through the pre-step (`keepIds`, spec `pre-step.ids`); and it reads
/// every input member as upstream does, of whatever JSON type
/// (`dynamic-inputs`, spec `protocol.input-types`).
pub const CAPABILITIES: &[&str] = &[
    "lone-surrogates",
    "optional-seq",
    "model-lookup-errors",
    "staged-cancel",
    "message-ids",
    "dynamic-inputs",
];

/// The output of `describe` for the reference with `features`, every op
/// answered (see [`describe_declared`]).
pub fn describe(features: Features) -> Json {
    describe_declared(&Declared::every_op(features))
}

/// The output of `describe` for the reference serving `declared`: `{name,
/// version, features, capabilities}`, and `release` when the set is one
/// of the releases (spec `protocol.describe`, `runner.releases`).
pub fn describe_declared(declared: &Declared) -> Json {
    let release = declared.release_name();
    let name = match release {
        Some("newest") => NAME.to_owned(),
        Some(release) => format!("{NAME} ({release} profile)"),
        None => format!("{NAME} (features profile)"),
    };
    let mut members = vec![
        (JsString::from("name"), Json::str(&name)),
        (
            JsString::from("version"),
            Json::str(env!("CARGO_PKG_VERSION")),
        ),
        (
            JsString::from("features"),
            Json::Array(declared.names().iter().map(|f| Json::str(f)).collect()),
        ),
        (
            JsString::from("capabilities"),
            Json::Array(CAPABILITIES.iter().map(|c| Json::str(c)).collect()),
        ),
    ];
    if let Some(release) = release {
        members.push((JsString::from("release"), Json::str(release)));
    }
    Json::Object(members)
}

/// Answers one operation as the newest release.
pub fn handle(op: &str, input: &Json) -> Outcome {
    handle_in(Features::NEWEST, op, input)
}

/// Answers one operation with `features`' behaviours. The input is read
/// as `JSON.parse` builds it (spec `protocol.input-types`): a repeated
/// key keeps its first place and last value, integer-like keys come first.
pub fn handle_in(features: Features, op: &str, input: &Json) -> Outcome {
    if !json::is_js_object_model(input) {
        return handle_modelled(features, op, &json::into_js_object_model(input.clone()));
    }
    handle_modelled(features, op, input)
}

fn handle_modelled(features: Features, op: &str, input: &Json) -> Outcome {
    let answer = match op {
        "describe" => Ok(describe(features)),
        "uri/encode" => uri_encode(input),
        "uri/decode" => uri_decode(input),
        "mention/format" => mention_format(input),
        "mention/parse" => mention_parse(input),
        "json/tag-safe" => json_tag_safe(input),
        "retain" => retain_op(features, input),
        "prepare" => prepare_op(features, input),
        "pre-step" => pre_step_op(features, input),
        "config/check" => config_check(features, input),
        "candidates/list" => candidates_op(features, input, false, Listing::Borrowed(input)),
        "candidates/remote" => candidates_op(features, input, true, Listing::Borrowed(input)),
        "files/token" | "files/format" | "files/list" => super::files::answer(op, input),
        _ => Err(Outcome::Error {
            code: UNSUPPORTED.to_owned(),
            message: format!("unknown op {op:?}"),
        }),
    };
    answer.map_or_else(|failure| failure, as_written)
}

/// An output as `JSON.stringify` writes upstream's answer on the wire
/// (spec `wire.json.numbers`): a number copied from the input that is not
/// finite is `null` (−0 stays: numbers are compared as numbers, and the
/// wire writes it exactly). Walked without recursion: an output
/// copies input values nested up to [`json::MAX_DEPTH`].
fn as_written(mut output: Json) -> Outcome {
    let mut pending = vec![&mut output];
    while let Some(value) = pending.pop() {
        match value {
            Json::Number(number) if !number.is_finite() => {
                reach::point("wire.json.numbers");
                *value = Json::Null;
            }
            Json::Array(items) => pending.extend(items.iter_mut()),
            Json::Object(members) => pending.extend(members.iter_mut().map(|(_, item)| item)),
            _ => {}
        }
    }
    Outcome::Output(output)
}

/// Answers one operation with `features`' behaviours, free to take parts of
/// `input` it keeps: `candidates/*` moves the session listing (100 000
/// sessions are megabytes of strings) into its index instead of copying it.
/// What is left of `input` is the caller's to drop, after answering.
pub fn handle_taking(features: Features, op: &str, input: &mut Json) -> Outcome {
    let remote = match op {
        "candidates/list" => false,
        "candidates/remote" => true,
        _ => return handle_in(features, op, input),
    };
    if !json::is_js_object_model(input) {
        *input = json::into_js_object_model(std::mem::replace(input, Json::Null));
    }
    // The listing is taken apart where it lies: its strings move into the
    // index, the emptied entries stay in `input` to be dropped later.
    let mut sessions = match input {
        Json::Object(members) => members
            .iter_mut()
            .rev()
            .find(|(key, _)| key.is("sessions"))
            .map(|(_, value)| std::mem::replace(value, Json::Null)),
        _ => None,
    };
    let answer = candidates_op(features, input, remote, Listing::Taken(sessions.as_mut()));
    // Back in (emptied, and last): dropped with the request, after answering.
    if let (Json::Object(members), Some(sessions)) = (input, sessions) {
        members.push((JsString::from("sessions"), sessions));
    }
    answer.map_or_else(|failure| failure, as_written)
}

type Answer = Result<Json, Outcome>;

fn string_field<'a>(input: &'a Json, name: &str) -> Result<&'a JsString, Outcome> {
    Ok(input_types::string_field(input, name)?)
}

/// Upstream encodes `JSON.stringify(sessionId)` of any value; an absent
/// one has no JSON text (spec `protocol.input-types`).
fn uri_encode(input: &Json) -> Answer {
    let session_id = input
        .get("sessionId")
        .ok_or_else(|| Outcome::internal("input.sessionId is undefined: no JSON text to encode"))?;
    Ok(Json::str(&uri::encode_value(session_id)))
}

fn uri_decode(input: &Json) -> Answer {
    let text = string_field(input, "uri")?;
    Ok(Json::String(uri::decode(text.units())?))
}

/// Nullish labels default to the id (spec `mention.format.default-label`),
/// which must then be a string, as upstream escapes it with a string
/// method; the id itself is encoded whatever its type (spec
/// `protocol.input-types`).
fn mention_format(input: &Json) -> Answer {
    let session_id = input.get("sessionId");
    reach::point("mention.format.default-label");
    let label = match (input.get("label"), session_id) {
        (Some(Json::String(label)), _) => label.units(),
        (None | Some(Json::Null), Some(Json::String(session_id))) => session_id.units(),
        (None | Some(Json::Null), _) => {
            return Err(Outcome::internal(
                "the label defaults to sessionId, which is not a string",
            ))
        }
        (Some(_), _) => return Err(Outcome::internal("input.label must be a string")),
    };
    let session_id = session_id
        .ok_or_else(|| Outcome::internal("input.sessionId is undefined: no JSON text to encode"))?;
    Ok(Json::String(mention::format_encoded(
        label,
        &uri::encode_value(session_id),
    )))
}

fn mention_parse(input: &Json) -> Answer {
    let text = string_field(input, "text")?;
    Ok(parsed_json(mention::parse(text.units())?))
}

/// `mention/parse`'s output: `{text, references: [{sessionId, label}]}`.
pub fn parsed_json(parsed: mention::Parsed) -> Json {
    // A dense text has tens of thousands of references: their keys are
    // constants, not converted from text each time.
    const SESSION_ID: JsString = JsString::inline_ascii("sessionId");
    const LABEL: JsString = JsString::inline_ascii("label");
    let references = parsed
        .references
        .into_iter()
        .map(|reference| {
            Json::Object(vec![
                (SESSION_ID, Json::String(reference.session_id)),
                (LABEL, Json::String(reference.label)),
            ])
        })
        .collect();
    Json::object([
        ("text", Json::String(parsed.text)),
        ("references", Json::Array(references)),
    ])
}

fn json_tag_safe(input: &Json) -> Answer {
    let value = input.get("value").ok_or_else(|| {
        reach::point("json.tag-safe.not-serializable");
        Outcome::internal("session-reference data is not JSON-serializable")
    })?;
    Ok(Json::str(&tag_safe::stringify_tag_safe(value)))
}

impl From<Failure> for Outcome {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::Contract(error) => error.into(),
            Failure::Internal(message) => Outcome::internal(message),
        }
    }
}

/// `retain` is one reference's preparation: the budget is checked first,
/// then the reference `{sessionId: snapshot.session.id, label}` as every
/// reference is (a string id, a string label if any:
/// `SESSION_REFERENCE_INVALID_REFERENCE`), then the snapshot is read (spec
/// `protocol.op.retain`, `protocol.input-types`).
fn retain_op(features: Features, input: &Json) -> Answer {
    reach::point("retention.op");
    let max_bytes = input
        .get("maxBytes")
        .and_then(positive_safe_integer)
        .ok_or_else(|| Outcome::internal("input.maxBytes must be a positive safe integer"))?;
    let snapshot_json = input.get("snapshot").unwrap_or(&Json::Null);
    let invalid = |message: &str| {
        Outcome::from(crate::Error::new(
            crate::ErrorCode::InvalidReference,
            message,
        ))
    };
    let session_id = snapshot_json
        .get("session")
        .and_then(|session| session.get("id"))
        .and_then(Json::as_js_str)
        .ok_or_else(|| invalid("session reference must contain a string sessionId"))?;
    let label = match input.get("label") {
        None => session_id,
        Some(Json::String(label)) => label,
        Some(_) => return Err(invalid("session reference label must be a string")),
    };
    retained(features, snapshot_json, label, max_bytes)
}

/// `snapshot_json` retained within `max_bytes`, labelled `label`: `{data,
/// stats}`, or `null` when it cannot fit. This is `retain`'s answer past
/// its reference check, and what a preparation retains of one source
/// (spec `prepare.header-id`: a preparation checks its request's
/// reference, not the snapshot's id); the runner's probes answer with it
/// a source whose snapshot has no string id (spec `runner.probes`).
pub fn retained(
    features: Features,
    snapshot_json: &Json,
    label: &JsString,
    max_bytes: u64,
) -> Result<Json, Outcome> {
    let snapshot = Snapshot::from_json_in(snapshot_json, features).map_err(Outcome::from)?;
    let Some(retained) = retain(&snapshot, label.units(), project(&snapshot), max_bytes) else {
        return Ok(Json::Null);
    };
    Ok(Json::object([
        ("data", retained.data_json()),
        ("stats", Json::Object(retained.stats.members())),
    ]))
}

fn config_of(features: Features, input: &Json) -> Result<Config, Outcome> {
    Config::from_json(input.get("config"), features).map_err(Outcome::from)
}

fn config_check(features: Features, input: &Json) -> Answer {
    reach::point("config.op");
    config_of(features, input)?;
    Ok(Json::Bool(true))
}

/// The host's agent (spec `protocol.input-types`): upstream reads
/// `agent.id` first thing, so an absent or `null` agent fails there
/// (`INTERNAL`); any other value reads as JavaScript reads it, an `id` that
/// is not a string (or absent) equal to no reference.
fn agent_of(input: &Json) -> Result<Agent, Outcome> {
    let agent =
        match input.get("agent") {
            None | Some(Json::Null) => return Err(Outcome::internal(
                "Cannot read properties of undefined (reading 'id'): the agent is absent or null",
            )),
            Some(agent) => agent,
        };
    let id = agent.get("id").and_then(Json::as_js_str).cloned();
    let route = agent.get("route").and_then(|route| {
        let provider = route.get("provider").and_then(Json::as_js_str)?;
        let model = route.get("model").and_then(Json::as_js_str)?;
        Some((provider.clone(), model.clone()))
    });
    Ok(Agent { id, route })
}

/// The protocol's `models` input as a model registry (the runner's probes
/// size a preparation's budget with it too, spec `runner.probes`).
pub struct JsonModels<'a>(pub Option<&'a Json>);

impl ModelCatalog for JsonModels<'_> {
    fn capacity(&self, provider: &[u16], model: &[u16]) -> Capacity {
        let mut key = provider.to_vec();
        key.push(u16::from(b'/'));
        key.extend_from_slice(model);
        let entry = self.0.and_then(Json::as_object).and_then(|members| {
            members
                .iter()
                .rev()
                .find(|(name, _)| name.units() == key.as_slice())
        });
        let Some((_, value)) = entry else {
            return Capacity::NoAdapter;
        };
        // `{"lookupError": MESSAGE}`: the lookup throws (spec
        // `prepare.budget.lookup-failed`).
        if value.get("lookupError").is_some() {
            return Capacity::LookupFailed;
        }
        match value.get("contextWindow") {
            Some(Json::Number(tokens)) => Capacity::ContextWindow(*tokens),
            _ => Capacity::Unknown,
        }
    }
}

/// The protocol's `spill` input: absent or `unconfigured` means no store.
fn spill_store_of(input: &Json) -> Option<SimulatedSpillStore> {
    match input
        .get("spill")
        .and_then(|spill| spill.get("mode"))
        .and_then(Json::as_string)
        .as_deref()
    {
        Some("saves") => Some(SimulatedSpillStore { saves: true }),
        Some("fails") => Some(SimulatedSpillStore { saves: false }),
        _ => None,
    }
}

/// The turn's signal as the protocol's `cancel` describes it (spec
/// `prepare.cancel`, `prepare.cancel.stage`): `true` is aborted from the
/// start; `{"onRead": N}` aborts when the N-th session read of the op
/// starts, `{"onSave": N}` when the N-th spill save starts (the read or
/// save then completes as it would); anything else never aborts.
struct Signal {
    aborted: Cell<bool>,
    read: Stage,
    save: Stage,
}

/// The operations of one kind (reads or saves) started so far, and the one
/// whose start aborts the turn.
struct Stage {
    abort_at: Option<u64>,
    started: Cell<u64>,
}

impl Signal {
    fn of(cancel: Option<&Json>) -> Signal {
        let stage = |name: &str| Stage {
            abort_at: cancel
                .and_then(|c| c.get(name))
                .and_then(positive_safe_integer),
            started: Cell::new(0),
        };
        Signal {
            aborted: Cell::new(cancel == Some(&Json::Bool(true))),
            read: stage("onRead"),
            save: stage("onSave"),
        }
    }

    /// Counts one started operation of `stage`; aborts when it is the
    /// chosen one.
    fn start(&self, stage: &Stage) {
        let count = stage.started.get().saturating_add(1);
        stage.started.set(count);
        if stage.abort_at == Some(count) {
            reach::point("prepare.cancel.stage");
            self.aborted.set(true);
        }
    }
}

/// A session store whose reads the signal counts.
struct CountedReader<'a> {
    inner: &'a dyn SessionReader,
    signal: &'a Signal,
}

impl SessionReader for CountedReader<'_> {
    fn read_surface(&self, id: &JsString) -> Result<Arc<Snapshot>, ReadError> {
        self.signal.start(&self.signal.read);
        self.inner.read_surface(id)
    }
}

/// A spill store whose saves the signal counts.
struct CountedStore<'a> {
    inner: &'a dyn SpillStore,
    signal: &'a Signal,
}

impl SpillStore for CountedStore<'_> {
    fn save(&self, request: &crate::spill::SpillRequest) -> Result<Vec<(JsString, Json)>, String> {
        self.signal.start(&self.signal.save);
        self.inner.save(request)
    }
}

/// Runs `operation` with the request's configuration, agent and services
/// (sessions, spill store, model registry), as `prepare` and `pre-step` share them.
fn with_services(
    features: Features,
    input: &Json,
    operation: impl FnOnce(&Config, &Agent, &Services<'_>) -> Result<Json, Failure>,
) -> Answer {
    let config = config_of(features, input)?;
    let agent = agent_of(input)?;
    let reader =
        JsonSessions::with_features(input.get("sessions").unwrap_or(&Json::Null), features);
    let store = spill_store_of(input);
    let signal = Signal::of(input.get("cancel"));
    let reader = CountedReader {
        inner: &reader,
        signal: &signal,
    };
    let store = store.as_ref().map(|store| CountedStore {
        inner: store,
        signal: &signal,
    });
    let services = Services {
        reader: &reader,
        spill: store.as_ref().map(|store| store as &dyn SpillStore),
        models: &JsonModels(input.get("models")),
        cancelled: &|| signal.aborted.get(),
    };
    Ok(operation(&config, &agent, &services)?)
}

fn prepare_op(features: Features, input: &Json) -> Answer {
    reach::point("prepare.op");
    let content = input.get("content").unwrap_or(&Json::Null);
    let references = input.get("references").unwrap_or(&Json::Null);
    with_services(features, input, |config, agent, services| {
        let prepared = prepare(config, agent, content, references, services)?;
        // Upstream hands `content` back as given: absent stays absent
        // (`undefined` is not written, spec `protocol.input-types`).
        let mut members = Vec::with_capacity(2);
        if input.get("content").is_some() {
            members.push((JsString::from("content"), prepared.content));
        }
        if let Some(context) = prepared.context {
            members.push((JsString::from("additionalContext"), context.to_message()));
        }
        Ok(Json::Object(members))
    })
}

/// `pre-step`: the configuration is read first (upstream's resolver is
/// built before the step runs), then the messages.
fn pre_step_op(features: Features, input: &Json) -> Answer {
    reach::point("pre-step.op");
    // `keepIds: true`: ids of messages that come from input messages stay
    // (spec `pre-step.ids`, capability `message-ids`).
    let keep_ids = input.get("keepIds") == Some(&Json::Bool(true));
    with_services(features, input, |config, agent, services| {
        let messages = input
            .get("messages")
            .and_then(Json::as_array)
            .ok_or_else(|| Failure::Internal("messages is not iterable".to_owned()))?;
        pre_step::pre_step_keeping_ids(config, agent, messages, services, keep_ids).map(Json::Array)
    })
}

/// `candidates/list` and, with `remote`, `candidates/remote`
/// (spec `candidates.*`).
fn candidates_op(features: Features, input: &Json, remote: bool, listing: Listing<'_>) -> Answer {
    let asked = CandidatesAsked::read(features, input, remote)?;
    let (index, stand_ins) = asked.index(listing)?;
    index
        .list(
            stand_ins.agent_id(),
            stand_ins.agent_cwd(),
            asked.query.units(),
            asked.limit,
            features,
        )
        .iter()
        .map(|candidate| stand_ins.answer(candidate, features, remote))
        .collect::<Result<_, _>>()
        .map(Json::Array)
}

/// The listing positions of the sessions `candidates/list` (`candidates/remote`
/// with `remote`) answers for `input`, best first, for a listing whose
/// every session has a string id (each is then the record at its place):
/// what [`chunked`](super::chunked) keeps of each chunk of a long listing.
pub fn candidates_kept(
    features: Features,
    input: &Json,
    remote: bool,
) -> Result<Vec<usize>, Outcome> {
    let asked = CandidatesAsked::read(features, input, remote)?;
    let (index, stand_ins) = asked.index(Listing::Borrowed(input))?;
    let candidates = index.list(
        stand_ins.agent_id(),
        stand_ins.agent_cwd(),
        asked.query.units(),
        asked.limit,
        features,
    );
    Ok(candidates
        .iter()
        .map(|candidate| candidate.position)
        .collect())
}

/// What a `candidates/*` request asks, read in upstream's order: its
/// configuration, limit, query and agent (spec `candidates.*`).
struct CandidatesAsked<'a> {
    features: Features,
    limit: usize,
    query: JsString,
    agent: &'a Json,
}

impl<'a> CandidatesAsked<'a> {
    fn read(features: Features, input: &'a Json, remote: bool) -> Result<Self, Outcome> {
        reach::point("candidates.config");
        let config = config_of(features, input)?;
        reach::point("candidates.limit");
        let limit = match input.get("limit") {
            Some(limit) if !remote => {
                reach::point("candidates.limit.invalid");
                positive_safe_integer(limit).ok_or_else(|| {
                    Outcome::from(crate::Error::new(
                        crate::ErrorCode::InvalidReference,
                        "candidate limit must be a positive safe integer",
                    ))
                })?
            }
            _ => config.candidate_limit,
        };
        let query = match input.get("query") {
            None => {
                reach::point("candidates.query");
                JsString::default()
            }
            Some(Json::String(query)) => query.clone(),
            Some(_) => {
                reach::point("candidates.query");
                return Err(Outcome::internal("input.query must be a string"));
            }
        };
        Ok(CandidatesAsked {
            features,
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            query,
            agent: input.get("agent").unwrap_or(&Json::Null),
        })
    }

    /// The listing's index for this agent and query, and the listed values
    /// its stand-ins stand for.
    fn index(&self, listing: Listing<'_>) -> Result<(CandidateIndex, StandIns), Outcome> {
        let agent = self.agent;
        let listed = Records::read(listing, agent.get("id"), agent.get("cwd"), self.features)?;
        listed.check_query(self.query.units(), self.features)?;
        let (records, stand_ins) = listed.split();
        Ok((CandidateIndex::new(records), stand_ins))
    }
}
