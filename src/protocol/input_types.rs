//! The protocol's input types (spec `protocol.input-types`, ours): for every
//! op, the input members a typed port declares with one JSON type, and what
//! upstream answers when a request gives such a member another type.
//!
//! Upstream is JavaScript: it reads whatever JSON arrives and its runtime
//! checks decide (a `limit` of `"3"` is `SESSION_REFERENCE_INVALID_REFERENCE`,
//! a `text` of `5` a `TypeError`, a `createdAt` string is copied as given). A
//! port in a typed language never sees such a request: its adapter fails to
//! decode it. So a vector whose input has an ill-typed member requires the
//! capability `dynamic-inputs` ([`DYNAMIC_INPUTS`]), and the
//! [kit](super::kit)'s typed handlers answer such a request themselves with
//! the member's [`Otherwise`] answer. The runner derives the capability from
//! this table ([`first_ill_typed`]); the reference itself reads inputs
//! dynamically, as upstream does, and never consults it.
//!
//! Members not listed here are not typed: any JSON value is read as upstream
//! reads it (`json/tag-safe`'s `value`, `prepare`'s content blocks, a
//! message's blocks, an event's other data).

use crate::config::positive_safe_integer;
use crate::error::Failure;
use crate::js::json::Json;
use crate::js::JsString;

/// The capability of an implementation that reads ill-typed inputs as
/// upstream does (spec `protocol.input-types`).
pub const DYNAMIC_INPUTS: &str = "dynamic-inputs";

/// The JSON type a member is declared with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A string.
    String,
    /// A number (an IEEE 754 double: `1.5` is a number, whatever the op
    /// later requires of it).
    Number,
    /// `true` or `false`.
    Boolean,
    /// An object with these typed members (others are untyped).
    Object(&'static [Member]),
    /// An array whose every item has this type (its answer is the array's).
    Array(&'static Type),
    /// An object whose every member value has this type (keys are ids),
    /// and upstream's answer when one has another.
    Map(&'static Type, Otherwise),
    /// Any JSON value.
    Any,
    /// `true`, `false`, or an object with these typed members.
    BooleanOrObject(&'static [Member]),
}

impl Type {
    /// The type's name as the spec writes it.
    pub fn name(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Number => "number",
            Type::Boolean => "boolean",
            Type::Object(_) | Type::Map(..) => "object",
            Type::Array(_) => "array",
            Type::BooleanOrObject(_) => "boolean or object",
            Type::Any => "JSON value",
        }
    }
}

/// What upstream answers when a member has another type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Otherwise {
    /// An error with this code, whatever the other type.
    Code(&'static str),
    /// An output, or an answer that depends on the value: upstream reads
    /// the value as JavaScript does (copies it, coerces it, or never reads
    /// it). No code stands for it.
    Read,
}

/// A typed member of an input object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Member {
    /// The member's name.
    pub name: &'static str,
    /// Its declared type.
    pub ty: Type,
    /// `null` reads as absent (an `Option` that is `None`); otherwise
    /// `null` is another type.
    pub nullable: bool,
    /// Upstream's answer when the member has another type.
    pub otherwise: Otherwise,
}

const INVALID_REFERENCE: Otherwise = Otherwise::Code("SESSION_REFERENCE_INVALID_REFERENCE");
const INVALID_CONFIG: Otherwise = Otherwise::Code("SESSION_REFERENCE_INVALID_CONFIG");
const INTERNAL: Otherwise = Otherwise::Code("INTERNAL");
const READ: Otherwise = Otherwise::Read;

const fn member(name: &'static str, ty: Type, otherwise: Otherwise) -> Member {
    Member {
        name,
        ty,
        nullable: false,
        otherwise,
    }
}

const fn nullable(name: &'static str, ty: Type, otherwise: Otherwise) -> Member {
    Member {
        name,
        ty,
        nullable: true,
        otherwise,
    }
}

/// `config` (spec `protocol.shapes`, `config.wrong-type`): `null` members
/// are absent. rc.8 ignores a `referenceContextFraction` of another type
/// (`config-fraction-type` is newer).
const CONFIG: Type = Type::Object(&[
    nullable("maxReferences", Type::Number, INVALID_CONFIG),
    nullable("candidateLimit", Type::Number, INVALID_CONFIG),
    nullable("maxReferenceBytes", Type::Number, INVALID_CONFIG),
    nullable("referenceContextFraction", Type::Number, INVALID_CONFIG),
]);

/// A content block: its `text`, where present, is a string (projection
/// skips a block whose `text` is not one).
const BLOCK: Type = Type::Object(&[member("text", Type::String, READ)]);

/// A snapshot event: a string `type`, and content blocks in `data.content`
/// (user messages) or `data.message.content` (assistant messages). An
/// excluded event's content is never read.
const EVENT: Type = Type::Object(&[
    member("type", Type::String, INTERNAL),
    member(
        "data",
        Type::Object(&[
            member("content", Type::Array(&BLOCK), READ),
            member(
                "message",
                Type::Object(&[member("content", Type::Array(&BLOCK), READ)]),
                READ,
            ),
        ]),
        READ,
    ),
]);

/// A snapshot's `session` (spec `protocol.shapes`); `cwd` is copied as
/// given.
const SESSION: Member = member(
    "session",
    Type::Object(&[
        member("id", Type::String, INVALID_REFERENCE),
        member("cwd", Type::String, READ),
    ]),
    INVALID_REFERENCE,
);

/// A snapshot's `capturedThroughSeq`, copied as given.
const SEQ: Member = nullable("capturedThroughSeq", Type::Number, READ);

/// A snapshot's events.
const EVENTS: Member = member("events", Type::Array(&EVENT), INTERNAL);

/// The members of a snapshot (spec `protocol.shapes`).
const SNAPSHOT_MEMBERS: &[Member] = &[SESSION, SEQ, EVENTS];

/// A sessions entry's `session`: read as JavaScript reads it (its `id` of
/// any value copied), where `retain`'s makes the reference.
const SESSION_READ: Member = member(
    "session",
    Type::Object(&[
        member("id", Type::String, READ),
        member("cwd", Type::String, READ),
    ]),
    READ,
);

/// `prepare`'s and `pre-step`'s `sessions` entries: a snapshot or
/// `{"readError": MESSAGE}`.
const SESSION_ENTRY: Type = Type::Object(&[
    SESSION_READ,
    SEQ,
    EVENTS,
    member("readError", Type::String, READ),
]);

/// `agent` of `prepare` and `pre-step` (spec `protocol.shapes`,
/// `protocol.route`).
const AGENT: Member = member(
    "agent",
    Type::Object(&[
        member("id", Type::String, READ),
        member("cwd", Type::String, READ),
        member(
            "route",
            Type::Object(&[
                member("provider", Type::String, READ),
                member("model", Type::String, READ),
            ]),
            READ,
        ),
    ]),
    READ,
);

/// The services `prepare` and `pre-step` share.
const SESSIONS: Member = member("sessions", Type::Map(&SESSION_ENTRY, INTERNAL), READ);
const CANCEL: Member = member("cancel", Type::BooleanOrObject(&[]), READ);
const MODELS: Member = member(
    "models",
    Type::Map(
        &Type::Object(&[
            member("contextWindow", Type::Number, READ),
            member("lookupError", Type::String, READ),
        ]),
        READ,
    ),
    READ,
);
const SPILL: Member = member(
    "spill",
    Type::Object(&[member("mode", Type::String, READ)]),
    READ,
);

/// The candidate ops' listing and agent (spec `candidates.*`): every field
/// is copied or compared as given.
const LISTING: Member = member(
    "sessions",
    Type::Array(&Type::Object(&[
        member("id", Type::String, READ),
        member("cwd", Type::String, READ),
        member("createdAt", Type::Number, READ),
        member("title", Type::String, READ),
        member("subagentLabel", Type::String, READ),
    ])),
    READ,
);
const CANDIDATE_AGENT: Member = member(
    "agent",
    Type::Object(&[
        member("id", Type::String, READ),
        member("cwd", Type::String, READ),
    ]),
    READ,
);

const URI_ENCODE: &[Member] = &[member("sessionId", Type::String, READ)];

const URI_DECODE: &[Member] = &[member("uri", Type::String, INTERNAL)];

const MENTION_FORMAT: &[Member] = &[
    member("sessionId", Type::String, READ),
    nullable("label", Type::String, INTERNAL),
];

const MENTION_PARSE: &[Member] = &[member("text", Type::String, INTERNAL)];

const RETAIN: &[Member] = &[
    member(
        "snapshot",
        Type::Object(SNAPSHOT_MEMBERS),
        INVALID_REFERENCE,
    ),
    member("label", Type::String, INVALID_REFERENCE),
    member("maxBytes", Type::Number, INTERNAL),
];

const CONFIG_CHECK: &[Member] = &[nullable("config", CONFIG, READ)];

const PREPARE: &[Member] = &[
    nullable("config", CONFIG, READ),
    AGENT,
    member("content", Type::Array(&Type::Any), READ),
    member(
        "references",
        Type::Array(&Type::Object(&[
            member("sessionId", Type::String, INVALID_REFERENCE),
            member("label", Type::String, INVALID_REFERENCE),
        ])),
        INVALID_REFERENCE,
    ),
    SESSIONS,
    CANCEL,
    MODELS,
    SPILL,
];

const PRE_STEP: &[Member] = &[
    nullable("config", CONFIG, READ),
    AGENT,
    member(
        "messages",
        Type::Array(&Type::Object(&[member(
            "content",
            Type::Array(&Type::Any),
            INTERNAL,
        )])),
        INTERNAL,
    ),
    SESSIONS,
    CANCEL,
    MODELS,
    SPILL,
    member("keepIds", Type::Boolean, READ),
];

const CANDIDATES_LIST: &[Member] = &[
    nullable("config", CONFIG, READ),
    CANDIDATE_AGENT,
    LISTING,
    member("query", Type::String, INTERNAL),
    member("limit", Type::Number, INVALID_REFERENCE),
];

const CANDIDATES_REMOTE: &[Member] = &[
    nullable("config", CONFIG, READ),
    CANDIDATE_AGENT,
    LISTING,
    member("query", Type::String, INTERNAL),
];

const FILES_TOKEN: &[Member] = &[
    member("line", Type::String, READ),
    member("cursor", Type::Number, READ),
];

const FILES_FORMAT: &[Member] = &[
    member(
        "candidate",
        Type::Object(&[
            member("path", Type::String, READ),
            member("kind", Type::String, READ),
        ]),
        READ,
    ),
    nullable("preserveQuote", Type::Boolean, READ),
];

const FILES_LIST: &[Member] = &[
    member(
        "tree",
        Type::Object(&[member("entries", Type::Array(&Type::Any), INTERNAL)]),
        INTERNAL,
    ),
    member("query", Type::String, INTERNAL),
    nullable(
        "config",
        Type::Object(&[
            nullable("excludedDirectories", Type::Array(&Type::String), INTERNAL),
            nullable("maxEntries", Type::Number, INTERNAL),
            nullable("maxResults", Type::Number, INTERNAL),
        ]),
        READ,
    ),
];

/// The typed members of `op`'s input, in the order upstream checks them
/// (a `config` first), or `None` for an op this table does not know.
pub fn input_members(op: &str) -> Option<&'static [Member]> {
    Some(match op {
        "describe" | "json/tag-safe" => &[],
        "uri/encode" => URI_ENCODE,
        "uri/decode" => URI_DECODE,
        "mention/format" => MENTION_FORMAT,
        "mention/parse" => MENTION_PARSE,
        "retain" => RETAIN,
        "config/check" => CONFIG_CHECK,
        "prepare" => PREPARE,
        "pre-step" => PRE_STEP,
        "candidates/list" => CANDIDATES_LIST,
        "candidates/remote" => CANDIDATES_REMOTE,
        "files/token" => FILES_TOKEN,
        "files/format" => FILES_FORMAT,
        "files/list" => FILES_LIST,
        _ => return None,
    })
}

/// A member of another type than declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllTyped {
    /// Where it is, as `references[2].label`.
    pub path: String,
    /// The declared type.
    pub expected: &'static str,
    /// Upstream's answer.
    pub otherwise: Otherwise,
}

impl IllTyped {
    /// A diagnosis for the error message.
    pub fn describe(&self) -> String {
        format!("input.{} is not a {}", self.path, self.expected)
    }
}

/// The first member of `input` (in the table's order, depth first) whose
/// JSON type is not the one `op` declares, or `None` when every typed
/// member has its type (or the op is unknown).
pub fn first_ill_typed(op: &str, input: &Json) -> Option<IllTyped> {
    let members = input_members(op)?;
    check_members(members, input, &mut String::new())
}

/// The string member `name` of an op's input, or an `INTERNAL` failure
/// saying it is missing.
pub fn string_field<'j>(input: &'j Json, name: &str) -> Result<&'j JsString, Failure> {
    input
        .get(name)
        .and_then(Json::as_js_str)
        .ok_or_else(|| Failure::Internal(format!("input.{name} must be a string")))
}

/// Whether `input` needs the capability `dynamic-inputs`: a member of
/// another type, or a member the protocol requires left out (a typed port
/// cannot receive either).
pub fn needs_dynamic_inputs(op: &str, input: &Json) -> bool {
    first_ill_typed(op, input).is_some() || first_absent_required(op, input).is_some()
}

/// What `candidates/list` and `candidates/remote` require: the agent's id
/// and each listed session's `id` and `createdAt`.
const LISTING_REQUIRED: &[&str] = &[
    "agent",
    "agent.id",
    "sessions",
    "sessions[].id",
    "sessions[].createdAt",
];

/// The members each op's input requires (`protocol.shapes`, as
/// `conformance/schema/protocol-v1.schema.json` writes them): paths from
/// the input, `[]` for every item of an array.
const REQUIRED: &[(&str, &[&str])] = &[
    ("uri/encode", &["sessionId"]),
    ("uri/decode", &["uri"]),
    ("mention/format", &["sessionId"]),
    ("mention/parse", &["text"]),
    ("retain", &["snapshot", "label", "maxBytes"]),
    (
        "prepare",
        &["agent", "agent.id", "content", "references", "sessions"],
    ),
    (
        "pre-step",
        &[
            "agent",
            "agent.id",
            "messages",
            "messages[].source",
            "messages[].content",
            "sessions",
        ],
    ),
    ("config/check", &["config"]),
    ("candidates/list", LISTING_REQUIRED),
    ("candidates/remote", LISTING_REQUIRED),
    ("files/token", &["line"]),
    (
        "files/format",
        &["candidate", "candidate.path", "candidate.kind"],
    ),
    (
        "files/list",
        &[
            "tree",
            "query",
            "tree.entries",
            "tree.entries[].path",
            "tree.entries[].kind",
        ],
    ),
];

/// The first member `op` requires that `input` leaves out (where its
/// parent is an object: a parent of another type is [`first_ill_typed`]'s).
pub fn first_absent_required(op: &str, input: &Json) -> Option<&'static str> {
    let (_, paths) = REQUIRED.iter().find(|(name, _)| *name == op)?;
    paths
        .iter()
        .copied()
        .find(|path| absent_at(input, path.split('.').collect::<Vec<_>>().as_slice()))
}

fn absent_at(value: &Json, steps: &[&str]) -> bool {
    let Some((step, rest)) = steps.split_first() else {
        return false;
    };
    let (name, every_item) = match step.strip_suffix("[]") {
        Some(name) => (name, true),
        None => (*step, false),
    };
    let Json::Object(_) = value else {
        return false;
    };
    let Some(member) = value.get(name) else {
        return true;
    };
    match (every_item, member) {
        (true, Json::Array(items)) => items.iter().any(|item| absent_at(item, rest)),
        (true, _) => false,
        (false, member) => absent_at(member, rest),
    }
}

/// `input` with every member of another type than `op` declares replaced
/// by a value of its declared type (a number's JSON spelling for a
/// string, otherwise the empty string; `0` for a number, `false` for a boolean, an empty object, array
/// or map): the request a typed port can receive that is nearest to the one
/// drawn (spec `runner.differential`, inputs without `dynamic-inputs`).
/// Members of an op this table does not know, and untyped members, are kept.
pub fn well_typed(op: &str, input: Json) -> Json {
    match input_members(op) {
        Some(members) => typed_members(members, input),
        None => input,
    }
}

fn typed_members(members: &[Member], object: Json) -> Json {
    let Json::Object(entries) = object else {
        return object;
    };
    Json::Object(
        entries
            .into_iter()
            .map(|(key, value)| {
                let typed = match members.iter().find(|member| key.is(member.name)) {
                    Some(member) if !(member.nullable && value == Json::Null) => {
                        typed_value(member.ty, value)
                    }
                    _ => value,
                };
                (key, typed)
            })
            .collect(),
    )
}

/// `value` as a member of type `ty` (see [`well_typed`]).
pub fn typed_value(ty: Type, value: Json) -> Json {
    match (ty, value) {
        (Type::Any, value)
        | (Type::String, value @ Json::String(_))
        | (Type::Number, value @ Json::Number(_))
        | (Type::Boolean | Type::BooleanOrObject(_), value @ Json::Bool(_)) => value,
        (Type::String, number @ Json::Number(_)) => Json::str(&crate::js::json::stringify(&number)),
        (Type::String, _) => Json::str(""),
        (Type::Number, _) => Json::Number(0.0),
        (Type::Boolean, _) => Json::Bool(false),
        (Type::Object(members) | Type::BooleanOrObject(members), object @ Json::Object(_)) => {
            typed_members(members, object)
        }
        (Type::Object(_), _) => Json::Object(Vec::new()),
        (Type::BooleanOrObject(_), _) => Json::Bool(false),
        (Type::Array(item), Json::Array(items)) => Json::Array(
            items
                .into_iter()
                .map(|value| typed_value(*item, value))
                .collect(),
        ),
        (Type::Array(_), _) => Json::Array(Vec::new()),
        (Type::Map(entry, _), Json::Object(entries)) => Json::Object(
            entries
                .into_iter()
                .map(|(key, value)| (key, typed_value(*entry, value)))
                .collect(),
        ),
        (Type::Map(..), _) => Json::Object(Vec::new()),
    }
}

/// What puts an `input` of `op` outside the protocol's contract (spec
/// `protocol.shapes`, `protocol.input-types`), if anything. The members a
/// host supplies to upstream (the agent, the session listing, the sessions
/// map, `cancel`, `models`, `spill`) are the protocol's to define, and where
/// the hosts of the oracles read one otherwise, the request is outside:
/// - a candidate listing that repeats a session id (a host lists a session
///   once, and upstream reads titles by id, so the repeated records' own
///   titles are not what it shows);
/// - a candidate listing that is not an array, a listed session that is
///   not an object (a listed session without `id`, and a listed `cwd` of
///   `null`, are the protocol's: see `listing.rs`);
/// - a candidate op's or `pre-step`'s `agent` absent or `null` (`prepare`
///   reads `agent.id` first thing, in every host: `INTERNAL`);
/// - a `spill.mode` other than `"saves"`, `"fails"`, `"unconfigured"` or
///   `null`;
/// - `retain`'s `maxBytes` other than a positive safe integer (the budget a
///   host configures; hosts fail it, reject it or use their default), and
///   what a host makes `retain`'s reference of: a `snapshot` or
///   `snapshot.session` that is not an object, a `session.id` or `label`
///   that is not a string (one host checks the reference, another hands the
///   values to the retention as they are).
pub fn outside_the_contract(op: &str, input: &Json) -> Option<&'static str> {
    if op == "retain" {
        return retain_outside_the_contract(input);
    }
    let mode = input.get("spill").and_then(|spill| spill.get("mode"));
    if matches!(op, "prepare" | "pre-step")
        && mode.is_some_and(|mode| {
            *mode != Json::Null
                && !["saves", "fails", "unconfigured"]
                    .iter()
                    .any(|known| mode.as_js_str().is_some_and(|mode| mode.is(known)))
        })
    {
        return Some("spill.mode names no store the protocol defines (hosts fail it or ignore it)");
    }
    let candidates = op.starts_with("candidates/");
    if (candidates || op == "pre-step") && matches!(input.get("agent"), None | Some(Json::Null)) {
        return Some("the agent is absent or null (a host supplies an agent object)");
    }
    if !candidates {
        return None;
    }
    let Some(listing) = input.get("sessions").and_then(Json::as_array) else {
        return Some("the listing is not an array (a host supplies an array of sessions)");
    };
    if listing.iter().any(|record| record.as_object().is_none()) {
        return Some("a listed session is not an object (a host lists session objects)");
    }
    let ids: Vec<&Json> = listing
        .iter()
        .filter_map(|record| record.get("id"))
        .collect();
    let repeats = ids
        .iter()
        .enumerate()
        .any(|(at, id)| ids[..at].contains(id));
    repeats
        .then_some("the listing repeats a session id (outside the protocol: each id at most once)")
}

/// [`outside_the_contract`] for `retain`.
fn retain_outside_the_contract(input: &Json) -> Option<&'static str> {
    if input
        .get("maxBytes")
        .and_then(positive_safe_integer)
        .is_none()
    {
        return Some("maxBytes is not a positive safe integer (the budget a host configures)");
    }
    let session = input
        .get("snapshot")
        .filter(|snapshot| snapshot.as_object().is_some())
        .and_then(|snapshot| snapshot.get("session"))
        .filter(|session| session.as_object().is_some());
    let Some(session) = session else {
        return Some(
            "the snapshot or its session is not an object (a host reads a session's snapshot)",
        );
    };
    if session.get("id").and_then(Json::as_js_str).is_none() {
        return Some("session.id is not a string (a host makes the reference of it)");
    }
    if input.get("label").and_then(Json::as_js_str).is_none() {
        return Some("the label is absent or not a string (a host makes the reference of it)");
    }
    None
}

fn check_members(members: &[Member], object: &Json, path: &mut String) -> Option<IllTyped> {
    members.iter().find_map(|member| {
        // `JSON.parse` keeps the last of duplicate members.
        let value = object
            .as_object()?
            .iter()
            .rev()
            .find(|(key, _)| key.is(member.name))
            .map(|(_, value)| value)?;
        if member.nullable && *value == Json::Null {
            return None;
        }
        let length = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(member.name);
        let found = check_value(member.ty, member.otherwise, value, path);
        path.truncate(length);
        found
    })
}

fn check_value(
    ty: Type,
    otherwise: Otherwise,
    value: &Json,
    path: &mut String,
) -> Option<IllTyped> {
    let ill_typed = |path: &str| IllTyped {
        path: path.to_owned(),
        expected: ty.name(),
        otherwise,
    };
    match (ty, value) {
        (Type::String, Json::String(_))
        | (Type::Number, Json::Number(_))
        | (Type::Boolean, Json::Bool(_))
        | (Type::BooleanOrObject(_), Json::Bool(_))
        | (Type::Any, _) => None,
        (Type::Object(members) | Type::BooleanOrObject(members), Json::Object(_)) => {
            check_members(members, value, path)
        }
        (Type::Array(item), Json::Array(items)) => {
            items.iter().enumerate().find_map(|(index, value)| {
                let length = path.len();
                path.push_str(&format!("[{index}]"));
                let found = check_value(*item, otherwise, value, path);
                path.truncate(length);
                found
            })
        }
        (Type::Map(entry, entry_otherwise), Json::Object(members)) => {
            members.iter().find_map(|(key, value)| {
                let length = path.len();
                path.push_str(&format!("[{}]", crate::js::json::quote(key.units())));
                let found = check_value(*entry, entry_otherwise, value, path);
                path.truncate(length);
                found
            })
        }
        _ => Some(ill_typed(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::json::parse;

    /// protocol.shapes: the required members are the protocol schema's
    /// (each op's input, and the agent, messages or listed sessions it
    /// refers to), not a copy that drifts.
    #[test]
    fn the_required_members_are_the_schema_s() {
        let schema = parse(include_str!(
            "../../conformance/schema/protocol-v1.schema.json"
        ))
        .expect("the protocol schema");
        let definitions = schema.get("$defs").expect("$defs");
        const NESTED: [&str; 3] = ["agent", "message", "session-listing"];
        // The names a definition (or, with `items`, its items) requires.
        let required = |definition: &Json| -> Vec<String> {
            let shape = definition.get("items").unwrap_or(definition);
            shape
                .get("required")
                .and_then(Json::as_array)
                .into_iter()
                .flatten()
                .filter_map(|name| name.as_js_str().map(|name| name.to_string_lossy()))
                .collect()
        };
        let mut missing = Vec::new();
        for (op, paths) in REQUIRED {
            let input = definitions
                .get(&format!("input-{}", op.replace('/', "-")))
                .expect("the op's input definition");
            let mut top: Vec<String> = paths
                .iter()
                .filter(|path| !path.contains('.'))
                .map(|path| (*path).to_owned())
                .collect();
            let mut expected = required(input);
            expected.sort();
            top.sort();
            assert_eq!(top, expected, "{op}");
            // A member whose schema refers to one of the definitions the
            // table descends into: `agent.id`, `messages[].source`,
            // `sessions[].id` (a snapshot's and a spill store's members
            // are host members, `outside_the_contract`'s).
            let properties = input.get("properties").and_then(Json::as_object);
            for (member, property) in properties.into_iter().flatten() {
                let referred = property.get("items").unwrap_or(property).get("$ref");
                let Some(name) = referred
                    .and_then(Json::as_js_str)
                    .map(JsString::to_string_lossy)
                else {
                    continue;
                };
                let Some(name) = name
                    .strip_prefix("#/$defs/")
                    .filter(|name| NESTED.contains(name))
                else {
                    continue;
                };
                let definition = definitions.get(name).expect("a referred definition");
                let items = property.get("items").or(definition.get("items")).is_some();
                let prefix = format!(
                    "{}{}.",
                    member.to_string_lossy(),
                    if items { "[]" } else { "" }
                );
                for nested in required(definition) {
                    let path = format!("{prefix}{nested}");
                    if !paths.contains(&path.as_str()) {
                        missing.push(format!("{op}: {path}"));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "{missing:?}");
    }

    /// protocol.input-types: a member the protocol requires, left out,
    /// needs `dynamic-inputs` as a member of another type does.
    #[test]
    fn a_required_member_left_out_needs_dynamic_inputs() {
        let needs =
            |op: &str, input: &str| needs_dynamic_inputs(op, &parse(input).expect("fixture"));
        assert!(needs(
            "prepare",
            r#"{"agent":{"id":"a"},"references":[],"sessions":{}}"#
        ));
        assert!(needs(
            "prepare",
            r#"{"agent":{},"content":[],"references":[],"sessions":{}}"#
        ));
        assert!(needs(
            "pre-step",
            r#"{"agent":{"id":"a"},"messages":[{"source":{"kind":"user"}}],"sessions":{}}"#
        ));
        assert!(!needs(
            "prepare",
            r#"{"agent":{"id":"a"},"content":[],"references":[],"sessions":{}}"#
        ));
        assert!(!needs(
            "pre-step",
            r#"{"agent":{"id":"a"},"messages":[{"source":{"kind":"user"},"content":[]}],"sessions":{}}"#
        ));
        assert!(!needs("config/check", r#"{"config":{}}"#));
    }

    fn first(op: &str, input: &str) -> Option<(String, Otherwise)> {
        first_ill_typed(op, &parse(input).unwrap()).map(|found| (found.path, found.otherwise))
    }

    /// protocol.input-types: what a host supplies otherwise than the
    /// protocol defines is outside the contract; the rest is inside.
    #[test]
    fn host_members_otherwise_than_defined_are_outside_the_contract() {
        let outside = |op: &str, input: &str| outside_the_contract(op, &parse(input).unwrap());
        let agent = r#""agent":{"id":"me"}"#;
        let repeated = format!(
            r#"{{{agent},"sessions":[{{"id":"a"}},{{"id":"b"}},{{"id":"a","title":"t"}}]}}"#
        );
        assert!(outside("candidates/list", &repeated).is_some());
        assert!(outside("candidates/remote", &repeated).is_some());
        for listing in [r#""sessions":{}"#, r#""sessions":[0]"#] {
            assert!(
                outside("candidates/list", &format!("{{{agent},{listing}}}")).is_some(),
                "{listing}"
            );
        }
        assert!(outside("candidates/list", r#"{"sessions":[]}"#).is_some());
        assert!(outside("pre-step", r#"{"agent":null,"messages":[]}"#).is_some());
        assert_eq!(outside("prepare", r#"{"agent":null}"#), None);
        assert_eq!(
            outside(
                "candidates/list",
                &format!(
                    r#"{{{agent},"sessions":[{{"id":5,"cwd":3}},{{"id":"b","title":null}},{{}},{{"id":"c","cwd":null}}]}}"#
                )
            ),
            None
        );
        let snapshot = r#""snapshot":{"session":{"id":"s"},"events":[]}"#;
        assert_eq!(
            outside(
                "retain",
                &format!(r#"{{{snapshot},"label":"l","maxBytes":9}}"#)
            ),
            None
        );
        for retain in [
            format!(r#"{{{snapshot},"label":"l","maxBytes":0}}"#),
            format!(r#"{{{snapshot},"maxBytes":9}}"#),
            format!(r#"{{{snapshot},"label":5,"maxBytes":9}}"#),
            r#"{"snapshot":{"session":{"id":5},"events":[]},"label":"l","maxBytes":9}"#.to_owned(),
            r#"{"snapshot":{"session":null},"label":"l","maxBytes":9}"#.to_owned(),
        ] {
            assert!(outside("retain", &retain).is_some(), "{retain}");
        }
    }

    /// runner.differential.reach: each ill-typed member becomes the nearest
    /// value of its type; well-typed and untyped members stay as they are.
    #[test]
    fn ill_typed_members_are_made_well_typed() {
        let typed = |op: &str, input: &str| {
            let made = well_typed(op, parse(input).unwrap());
            assert_eq!(first_ill_typed(op, &made), None);
            crate::js::json::stringify(&made)
        };
        assert_eq!(
            typed(
                "prepare",
                r#"{"config":null,"models":{"p/a":null,"p/b":{"contextWindow":"9"}},"references":[{"sessionId":5,"label":null},7],"content":[1]}"#
            ),
            r#"{"config":null,"models":{"p/a":{},"p/b":{"contextWindow":0}},"references":[{"sessionId":"5","label":""},{}],"content":[1]}"#
        );
        assert_eq!(
            typed(
                "retain",
                r#"{"snapshot":{"session":{"id":"s","cwd":null},"events":[{"type":"user/message","data":{"content":[{"text":true}]}}]},"maxBytes":"3"}"#
            ),
            r#"{"snapshot":{"session":{"id":"s","cwd":""},"events":[{"type":"user/message","data":{"content":[{"text":""}]}}]},"maxBytes":0}"#
        );
        let typed_already =
            r#"{"agent":{"id":"a"},"sessions":[{"id":"s","createdAt":1}],"limit":1.5}"#;
        assert_eq!(typed("candidates/list", typed_already), typed_already);
        assert_eq!(typed("pre-step", r#"{"cancel":3}"#), r#"{"cancel":false}"#);
    }

    #[test]
    fn well_typed_inputs_pass() {
        assert_eq!(
            first(
                "candidates/list",
                r#"{"agent":{"id":"a"},"sessions":[{"id":"s","createdAt":1}],"limit":1.5,"query":"q"}"#
            ),
            None
        );
        assert_eq!(
            first("config/check", r#"{"config":{"maxReferences":null}}"#),
            None
        );
        assert_eq!(
            first("mention/format", r#"{"sessionId":"s","label":null}"#),
            None
        );
        assert_eq!(
            first(
                "prepare",
                r#"{"agent":{"id":"a"},"content":[{"type":"text","text":"x"}],"references":[],"sessions":{"s":{"readError":"gone"}},"cancel":{"onRead":1}}"#
            ),
            None
        );
        assert_eq!(first("json/tag-safe", r#"{"value":[1,"x",null]}"#), None);
        assert_eq!(first("unknown/op", r#"{"x":1}"#), None);
    }

    #[test]
    fn the_first_ill_typed_member_is_named_with_its_answer() {
        assert_eq!(
            first("candidates/list", r#"{"limit":null}"#),
            Some(("limit".into(), INVALID_REFERENCE))
        );
        assert_eq!(
            first(
                "candidates/list",
                r#"{"config":{"candidateLimit":"1"},"query":null}"#
            ),
            Some(("config.candidateLimit".into(), INVALID_CONFIG))
        );
        assert_eq!(
            first(
                "candidates/list",
                r#"{"sessions":[{"id":"a","createdAt":1},{"id":"b","createdAt":"x"}]}"#
            ),
            Some(("sessions[1].createdAt".into(), READ))
        );
        assert_eq!(
            first(
                "prepare",
                r#"{"references":[{"sessionId":"s","label":null}]}"#
            ),
            Some(("references[0].label".into(), INVALID_REFERENCE))
        );
        assert_eq!(
            first("prepare", r#"{"references":[7]}"#),
            Some(("references[0]".into(), INVALID_REFERENCE))
        );
        assert_eq!(
            first(
                "retain",
                r#"{"snapshot":{"events":[{"type":"x","data":{"message":{"content":[{"text":5}]}}}]}}"#
            ),
            Some((
                "snapshot.events[0].data.message.content[0].text".into(),
                READ
            ))
        );
        assert_eq!(
            first("prepare", r#"{"sessions":{"s1":5}}"#),
            Some((r#"sessions["s1"]"#.into(), INTERNAL))
        );
        assert_eq!(
            first("prepare", r#"{"sessions":5,"content":["x",5]}"#),
            Some(("sessions".into(), READ))
        );
        assert_eq!(
            first("files/format", r#"{"preserveQuote":1}"#),
            Some(("preserveQuote".into(), READ))
        );
        assert_eq!(first("mention/parse", r#"{"text":5,"text":"x"}"#), None);
    }
}
