//! Random protocol requests for the `differential` command, one strategy
//! per op, drawn from the same strategies as the property tests
//! ([`crate::harness::strategies`]) and the fuzz targets ([`crate::checks::draw`]).
//!
//! A strategy builds the op's `input` object. [`Scope`] says which
//! behaviours the two implementations both have and which they differ in:
//! where they differ, a request stays where the behaviour does not show
//! (no route or spill store, no developer or system events, no
//! `capturedThroughSeq` outside its domain, no query, as the behaviour
//! asks), so that their outcomes are comparable once
//! [`normalize`](super::normalize::normalize) hides what only one adds.
//! [`Reach`] says what else both declare (features of our own decisions,
//! the capability `optional-seq`); requests stay inside it.

use crate::checks::draw::{self, BudgetChoice, Draw, PrepareCase, SpillChoice, Stored, AGENT_ID};
use crate::harness::strategies::{
    deep_value, edged_label, finite_number, js_units, json_tree, near_uri, nested, short_text,
    text, units,
};
use crate::js::case::to_lower;
use crate::js::JsString;
use crate::protocol::input_types;
use crate::surface::is_session_seq;
use crate::{mention, projection, retention, Json};
use proptest::prelude::*;

pub use super::plan::{Reach, Scope};

/// The input strategy of `op`, or `None` for an op this command does not
/// generate, with everything the generation defines ([`Reach::ALL`]).
pub fn input_strategy(op: &str, scope: Scope) -> Option<BoxedStrategy<Json>> {
    input_strategy_within(op, scope, Reach::ALL)
}

/// The input strategy of `op` within `reach`, or `None` for an op this
/// command does not generate.
pub fn input_strategy_within(op: &str, scope: Scope, reach: Reach) -> Option<BoxedStrategy<Json>> {
    Some(typed_within(op, reach, drawn_inputs(op, scope, reach)?))
}

/// `inputs` of `op` as `reach` allows them: each made well typed
/// ([`input_types::well_typed`]) unless both declare `dynamic-inputs`
/// (spec `runner.differential.reach`); drawn and grown inputs alike. The
/// run type-confuses a share of them ([`super::confusion`]).
pub fn typed_within(op: &str, reach: Reach, inputs: BoxedStrategy<Json>) -> BoxedStrategy<Json> {
    if reach.dynamic_inputs {
        return inputs;
    }
    let op = op.to_owned();
    inputs
        .prop_map(move |input| input_types::well_typed(&op, input))
        .boxed()
}

/// The inputs of `op` as its strategy draws them, ill-typed members
/// included, before any type confusion ([`typed_within`]).
pub fn drawn_inputs(op: &str, scope: Scope, reach: Reach) -> Option<BoxedStrategy<Json>> {
    Some(match op {
        "uri/encode" => js_units(16)
            .prop_map(|id| Json::object([("sessionId", string(id))]))
            .boxed(),
        "uri/decode" => near_uri()
            .prop_map(|uri| Json::object([("uri", string(uri))]))
            .boxed(),
        "mention/format" => (
            js_units(10),
            prop::option::of(prop_oneof![js_units(10), edged_label()]),
        )
            .prop_map(|(id, label)| {
                let mut members = vec![(JsString::from("sessionId"), string(id))];
                if let Some(label) = label {
                    members.push((JsString::from("label"), string(label)));
                }
                Json::Object(members)
            })
            .boxed(),
        "mention/parse" => prop_oneof![2 => text(), 2 => short_text(), 1 => js_units(48)]
            .prop_map(|text| Json::object([("text", string(text))]))
            .boxed(),
        // Now and then a value nested thousands of levels deep (spec
        // `wire.json.depth`).
        "json/tag-safe" => prop_oneof![19 => json_tree(finite_number()), 1 => deep_value()]
            .prop_map(|value| Json::object([("value", value)]))
            .boxed(),
        "retain" => bytes()
            .prop_map(move |b| retain_input(&b, scope, reach))
            .boxed(),
        "prepare" => bytes()
            .prop_map(move |b| prepare_input(&b, scope, reach, false))
            .boxed(),
        "pre-step" => bytes()
            .prop_map(move |b| prepare_input(&b, scope, reach, true))
            .boxed(),
        "config/check" => config(scope)
            .prop_map(|config| Json::object([("config", config)]))
            .boxed(),
        "candidates/list" => candidates_input(scope, true),
        "candidates/remote" => candidates_input(scope, false),
        "files/token" => (js_units(12), prop::option::of(0usize..16))
            .prop_map(|(line, cursor)| files_token_input(line, cursor))
            .boxed(),
        "files/format" => files_format_input(),
        "files/list" => files_list_input(),
        _ => return None,
    })
}

fn string(units: Vec<u16>) -> Json {
    Json::String(JsString::from_units(units))
}

fn number(n: f64) -> Json {
    Json::Number(n)
}

/// Fuzzer-style bytes for the structured cases: shrinking them shortens
/// and zeroes them, which draws smaller cases.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..600)
}

/// Events a side without `developer-events-ignored` cannot read (it
/// throws on them) are dropped unless both ignore them.
fn keep_events_for(scope: Scope, snapshot: Json) -> Json {
    if scope.both.developer_events_ignored {
        return snapshot;
    }
    with_events(snapshot, |events| {
        events
            .into_iter()
            .filter(|event| {
                let kind = event.get("type").and_then(Json::as_string);
                !matches!(
                    kind.as_deref(),
                    Some("developer/message" | "system/message")
                )
            })
            .collect()
    })
}

/// `snapshot` with its events changed by `change`.
fn with_events(snapshot: Json, change: impl Fn(Vec<Json>) -> Vec<Json>) -> Json {
    let Json::Object(members) = snapshot else {
        return snapshot;
    };
    Json::Object(
        members
            .into_iter()
            .map(|(key, value)| match value {
                Json::Array(events) if key.is("events") => (key, Json::Array(change(events))),
                other => (key, other),
            })
            .collect(),
    )
}

/// The snapshot's `capturedThroughSeq` within what both sides read alike
/// (spec `surface.seq-absent`, `surface.seq-outside-domain`): present when either lacks the
/// capability `optional-seq`, and, where the sides differ in `seq-domain`,
/// `null` or a session sequence number (one copies any other value, the
/// other refuses it). A value put in is 7.
fn seq_within(scope: Scope, reach: Reach, snapshot: Json) -> Json {
    let Json::Object(mut members) = snapshot else {
        return snapshot;
    };
    let at = members
        .iter()
        .position(|(key, _)| key.is("capturedThroughSeq"));
    match at {
        None if !reach.optional_seq => {
            let after_header = members
                .iter()
                .position(|(key, _)| key.is("session"))
                .map_or(0, |index| index + 1);
            members.insert(
                after_header,
                (JsString::from("capturedThroughSeq"), number(7.0)),
            );
        }
        Some(at)
            if scope.differ.seq_domain
                && members[at].1 != Json::Null
                && !is_session_seq(&members[at].1) =>
        {
            members[at].1 = number(7.0);
        }
        _ => {}
    }
    Json::Object(members)
}

/// `retain {snapshot, label, maxBytes}` with a budget around the size of
/// the whole data object, so that cuts, boundaries and "cannot fit" all
/// happen.
fn retain_input(bytes: &[u8], scope: Scope, reach: Reach) -> Json {
    let mut draw = Draw::new(bytes);
    let snapshot = seq_within(
        scope,
        reach,
        keep_events_for(scope, draw::snapshot(&mut draw)),
    );
    let label = draw::short_text(&mut draw);
    // Sized as read whatever its capturedThroughSeq (draw::read_snapshot).
    let parsed = draw::read_snapshot(&snapshot);
    let items = projection::project(&parsed);
    let whole = retention::retain(&parsed, &label, items, u64::MAX)
        .map(|retained| {
            let mut written = String::new();
            retained.write_tag_safe(&mut written);
            written.len()
        })
        .unwrap_or(2000);
    let budget = draw::budget(&mut draw, whole);
    let snapshot = with_deep_member(
        with_unknown_event(snapshot, draw.byte()),
        draw.byte(),
        draw.byte(),
    );
    Json::object([
        ("snapshot", snapshot),
        ("label", string(label)),
        ("maxBytes", number(budget as f64)),
    ])
}

/// `snapshot` with, for one `choice` in 20, a member no op reads nested
/// deep ([`deep`]).
fn with_deep_member(snapshot: Json, choice: u8, levels: u8) -> Json {
    let Json::Object(mut members) = snapshot else {
        return snapshot;
    };
    members.extend(deep(choice, levels).map(|deep| (JsString::from("toolState"), deep)));
    Json::Object(members)
}

/// For one `choice` in 20, a value nested 100 to 1 375 levels deep
/// (`levels` picks how deep): within the contracted depth of 1 500 (spec
/// `wire.json.depth`).
fn deep(choice: u8, levels: u8) -> Option<Json> {
    let levels = 100 + usize::from(levels) * 5;
    (choice % 20 == 19).then(|| nested(Json::str("</deep>"), levels, choice))
}

/// Event types no generation knows: every one fails on them, outside the
/// contract (spec `surface.unknown-event`).
const UNKNOWN_EVENT_TYPES: [&str; 3] = ["assistant/chunk", "session/title", "custom/x"];

/// `snapshot` with, for one `choice` in 32 (not 0, which drawn bytes read
/// as once they have run out), an event of a type no generation knows
/// inserted among its events (the rest of `choice` picks the type and the
/// place): rare, since every such request fails. Added to the wire form
/// only: the reference's own reading of drawn snapshots
/// ([`draw::read_snapshot`]) refuses them.
fn with_unknown_event(snapshot: Json, choice: u8) -> Json {
    if choice % 32 != 31 {
        return snapshot;
    }
    let kind = UNKNOWN_EVENT_TYPES[usize::from(choice >> 5) % UNKNOWN_EVENT_TYPES.len()];
    let unknown = Json::object([("type", Json::str(kind)), ("data", Json::object([]))]);
    with_events(snapshot, |mut events| {
        let at = usize::from(choice >> 6) % (events.len() + 1);
        events.insert(at, unknown.clone());
        events
    })
}

/// The tiny model registry of the automatic budgets, on the wire.
fn models() -> Json {
    Json::object([
        ("p/small", Json::object([("contextWindow", number(1000.0))])),
        ("p/huge", Json::object([("contextWindow", number(1e7))])),
        (
            "p/endless",
            Json::object([("contextWindow", number(1e300))]),
        ),
        ("p/unknown", Json::Null),
        (
            "p/odd",
            Json::object([("contextWindow", number(100_003.0))]),
        ),
        (
            "p/fractional",
            Json::object([("contextWindow", number(100_003.7))]),
        ),
    ])
}

/// `prepare` (or, with `pre_step`, `pre-step` over one user message whose
/// text mentions the same references) from a drawn [`PrepareCase`].
fn prepare_input(bytes: &[u8], scope: Scope, reach: Reach, pre_step: bool) -> Json {
    let mut case = PrepareCase::draw(&mut Draw::new(bytes));
    let last = bytes.last().copied().unwrap_or(1);
    for (index, stored) in case.sessions.iter_mut().enumerate() {
        if let Stored::Snapshot(snapshot) = stored {
            *snapshot = seq_within(scope, reach, snapshot.clone());
            if index == 0 {
                *snapshot = with_unknown_event(snapshot.clone(), last);
            }
        }
    }
    if !scope.both.automatic_budget {
        if let BudgetChoice::Automatic(..) = case.budget {
            case.budget = BudgetChoice::Fixed(1 + (bytes.len() as u64 * 37) % 2000);
        }
    }
    if !scope.both.spill {
        case.spill = SpillChoice::None;
    }
    for stored in &mut case.sessions {
        if let Stored::Snapshot(snapshot) = stored {
            *snapshot = keep_events_for(scope, snapshot.clone());
        }
    }
    let mut config = vec![(
        JsString::from("maxReferences"),
        number(case.max_references as f64),
    )];
    match case.budget {
        BudgetChoice::Fixed(bytes) => {
            config.push((JsString::from("maxReferenceBytes"), number(bytes as f64)))
        }
        // Absent, or (one case in two) null, which reads as absent: the
        // automatic budget applies (spec config.null-is-absent).
        BudgetChoice::Automatic(_, None) if last % 2 == 0 => {
            config.push((JsString::from("maxReferenceBytes"), Json::Null))
        }
        BudgetChoice::Automatic(_, None) => {}
        BudgetChoice::Automatic(_, Some(fraction)) => {
            config.push((JsString::from("referenceContextFraction"), number(fraction)))
        }
    }
    let mut agent = vec![(JsString::from("id"), Json::str(AGENT_ID))];
    if let Some((provider, model)) = case.route() {
        agent.push((
            JsString::from("route"),
            Json::Object(vec![
                (JsString::from("provider"), Json::String(provider)),
                (JsString::from("model"), Json::String(model)),
            ]),
        ));
    }
    let mut input = vec![
        (JsString::from("config"), Json::Object(config)),
        (JsString::from("agent"), Json::Object(agent)),
    ];
    // One case in twenty carries a member nested hundreds of levels deep
    // that the answer copies, within the contracted depth of 1 500 levels
    // (spec `wire.json.depth`): a message's `metadata`, a content block's
    // `source`.
    let deep = match (bytes.get(1), bytes.get(2)) {
        (Some(choice), Some(levels)) => deep(*choice, *levels),
        _ => None,
    };
    if pre_step {
        let mut messages = turn(&case, bytes.first().copied().unwrap_or(0));
        if let (Some(deep), Some(Json::Object(first))) = (deep, messages.first_mut()) {
            first.push((JsString::from("metadata"), deep));
        }
        input.push((JsString::from("messages"), Json::Array(messages)));
    } else {
        let mut content = vec![text_block("what changed?")];
        if let Some(deep) = deep {
            content.push(Json::object([
                ("type", Json::str("image")),
                ("source", deep),
            ]));
        }
        input.push((JsString::from("content"), Json::Array(content)));
        input.push((JsString::from("references"), case.references_json()));
    }
    input.push((JsString::from("sessions"), case.sessions_json()));
    if case.cancelled {
        input.push((JsString::from("cancel"), Json::Bool(true)));
    }
    if scope.both.automatic_budget || scope.both.spill {
        input.push((JsString::from("models"), models()));
        let mode = match case.spill {
            SpillChoice::None => "unconfigured",
            SpillChoice::Saves => "saves",
            SpillChoice::Fails => "fails",
        };
        input.push((
            JsString::from("spill"),
            Json::object([("mode", Json::str(mode))]),
        ));
    }
    Json::Object(input)
}

fn text_block(text: &str) -> Json {
    Json::object([("type", Json::str("text")), ("text", Json::str(text))])
}

/// A turn of one to four messages around the user message that mentions
/// the case's references, as `shape`'s bits choose (zero, where shrinking
/// goes, is that message alone): a plain user message before it, a plugin
/// message citing a session (passed through unexamined), extra members on
/// text blocks, and a block of another type.
fn turn(case: &PrepareCase, shape: u8) -> Vec<Json> {
    let bit = |n: u8| shape & (1 << n) != 0;
    let block = |text: &str, extra: bool| {
        let mut members = vec![
            (JsString::from("type"), Json::str("text")),
            (JsString::from("text"), Json::str(text)),
        ];
        if extra {
            members.push((JsString::from("cache"), Json::Bool(true)));
        }
        Json::Object(members)
    };
    let message = |kind: &str, blocks: Vec<Json>| {
        Json::object([
            ("source", Json::object([("kind", Json::str(kind))])),
            ("content", Json::Array(blocks)),
        ])
    };
    let mut messages = Vec::new();
    if bit(0) {
        messages.push(message("user", vec![block("first, plain", bit(1))]));
    }
    if bit(2) {
        messages.push(message(
            "plugin",
            vec![block("see dsh-session:InMxIg", false)],
        ));
    }
    let mut mentioning = user_message(case);
    if let Json::Object(members) = &mut mentioning {
        for (key, value) in members.iter_mut() {
            if let (true, Json::Array(blocks)) = (key.units() == units("content").as_slice(), value)
            {
                if bit(3) {
                    blocks.push(block("and more", bit(1)));
                }
                if bit(4) {
                    blocks.insert(
                        0,
                        Json::object([("type", Json::str("image")), ("url", Json::str("x.png"))]),
                    );
                }
            }
        }
    }
    messages.push(mentioning);
    if bit(5) {
        messages.push(message("user", vec![block("after", bit(1))]));
    }
    messages
}

/// A user message mentioning the case's references (string labels only:
/// a mention's label is text).
fn user_message(case: &PrepareCase) -> Json {
    let mut text = units("see ");
    for reference in &case.references {
        if let draw::DrawnReference::Entry { target, label } = reference {
            let label = label.as_ref().and_then(Json::as_js_str);
            let id = PrepareCase::target_id(target);
            text.extend_from_slice(mention::format(id.units(), label.map(JsString::units)).units());
            text.push(u16::from(b' '));
        }
    }
    Json::object([
        ("source", Json::object([("kind", Json::str("user"))])),
        (
            "content",
            Json::Array(vec![Json::object([
                ("type", Json::str("text")),
                ("text", string(text)),
            ])]),
        ),
    ])
}

/// A configuration object: each known member present or not, with values
/// valid, out of range or of the wrong type; `referenceContextFraction`
/// of another type than a number only where both sides have
/// `config-fraction-type` (its check is this specification's,
/// `config.fraction-type`).
fn config(scope: Scope) -> impl Strategy<Value = Json> {
    let value = prop::sample::select(vec![
        Json::Number(0.0),
        Json::Number(1.0),
        Json::Number(2.0),
        Json::Number(3.0),
        Json::Number(4.0),
        Json::Number(-1.0),
        Json::Number(1.5),
        Json::Number(65536.0),
        Json::Number(9007199254740992.0),
        Json::Number(0.2),
        Json::Null,
        Json::Bool(true),
        Json::str("3"),
    ]);
    let mut names = vec!["maxReferences", "candidateLimit", "maxReferenceBytes"];
    if !scope.differ.context_fraction {
        names.push("referenceContextFraction");
    }
    prop::collection::vec((prop::sample::select(names), value), 0..4).prop_map(move |members| {
        let mut seen: Vec<(JsString, Json)> = Vec::new();
        for (name, value) in members {
            let value = match value {
                Json::Bool(_) | Json::String(_)
                    if name == "referenceContextFraction" && !scope.both.fraction_type =>
                {
                    Json::Number(0.5)
                }
                value => value,
            };
            if !seen
                .iter()
                .any(|(key, _)| key.units() == units(name).as_slice())
            {
                seen.push((JsString::from(name), value));
            }
        }
        Json::Object(seen)
    })
}

/// A short field of a listing: a few letters, separators, case pairs and
/// non-ASCII characters, so that queries match in several ways.
fn field() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a", "b", "c", "A", "B", "-", " ", "/", "x", "ß", "İ", "é", "\u{2028}", "1",
            // Case-folding alphabets: pairs that lower-case unlike ASCII.
            "s", "S", "σ", "ς", "Σ", "i", "I", "ı", "k", "K", "\u{212A}", "ẞ",
        ]),
        0..7,
    )
    .prop_map(|pieces| units(&pieces.concat()))
}

/// `candidates/list` (with `limit`) or `candidates/remote`: a listing of
/// up to eight sessions with unique ids, an agent that may be one of them,
/// and a query (none or empty where the sides match queries otherwise, and
/// no subagent labels where they label otherwise). With `display-title`
/// on both sides but not `candidates-fuzzy`, a non-empty query matches at
/// most one candidate, by substring ([`documented_matches_only`]).
fn candidates_input(scope: Scope, with_limit: bool) -> BoxedStrategy<Json> {
    let session = (
        prop::option::of(prop::sample::select(vec!["/w", "/w/a", "/W", "/other"])),
        prop::option::of(field()),
        prop::option::of(field()),
    );
    // Sides that match queries otherwise get none, or an empty one.
    let query = if scope.differ.display_title || scope.differ.fuzzy {
        prop::sample::select(vec![None, Some(Vec::new())]).boxed()
    } else {
        prop::option::of(field()).boxed()
    };
    let labels_differ = scope.differ.display_title || scope.differ.remote_display_label;
    let limit = prop::sample::select(vec![
        None,
        None,
        Some(Json::Number(1.0)),
        Some(Json::Number(2.0)),
        Some(Json::Number(5.0)),
        Some(Json::Number(0.0)),
        Some(Json::Number(1.5)),
        Some(Json::str("3")),
    ]);
    // Now and then a `config`, valid or not.
    let config = prop_oneof![
        3 => Just(None),
        1 => prop::sample::select(vec![
            Json::object([("candidateLimit", Json::Number(1.0))]),
            Json::object([("candidateLimit", Json::Number(3.0))]),
            Json::object([("candidateLimit", Json::Number(0.0))]),
            Json::object([("maxReferences", Json::Number(2.0))]),
        ])
        .prop_map(Some),
    ];
    (
        prop::collection::vec(session, 0..8),
        prop::option::of(prop::sample::select(vec!["/w", "/other"])),
        0usize..10,
        query,
        (limit, config),
    )
        .prop_map(
            move |(sessions, agent_cwd, agent_index, query, (limit, config))| {
                let agent_id = format!("s{agent_index}");
                let listing: Vec<Json> = sessions
                    .into_iter()
                    .enumerate()
                    .map(|(index, (cwd, title, subagent))| {
                        let mut members =
                            vec![(JsString::from("id"), Json::str(&format!("s{index}")))];
                        if let Some(cwd) = cwd {
                            members.push((JsString::from("cwd"), Json::str(cwd)));
                        }
                        members.push((JsString::from("createdAt"), number(100.0 - index as f64)));
                        if let Some(title) = title {
                            members.push((JsString::from("title"), string(title)));
                        }
                        // rc.8 knows no subagent labels; the newest labels a
                        // remote mention with one.
                        if let (Some(subagent), false) = (subagent, labels_differ) {
                            members.push((JsString::from("subagentLabel"), string(subagent)));
                        }
                        Json::Object(members)
                    })
                    .collect();
                let listing = match (&query, scope.both.display_title && !scope.both.fuzzy) {
                    (Some(query), true) if !query.is_empty() => {
                        documented_matches_only(listing, query, &agent_id)
                    }
                    _ => listing,
                };
                let mut agent = vec![(JsString::from("id"), Json::str(&agent_id))];
                if let Some(cwd) = agent_cwd {
                    agent.push((JsString::from("cwd"), Json::str(cwd)));
                }
                let mut input = Vec::new();
                if let Some(config) = config {
                    input.push((JsString::from("config"), config));
                }
                input.push((JsString::from("agent"), Json::Object(agent)));
                input.push((JsString::from("sessions"), Json::Array(listing)));
                match (query, with_limit) {
                    (Some(query), _) => input.push((JsString::from("query"), string(query))),
                    (None, false) => input.push((JsString::from("query"), Json::str(""))),
                    (None, true) => {}
                }
                if let (true, Some(limit)) = (with_limit, limit) {
                    input.push((JsString::from("limit"), limit));
                }
                Json::Object(input)
            },
        )
        .boxed()
}

/// The listing without what only the specification's relevance decides
/// (spec `candidates.fuzzy.*`, feature `candidates-fuzzy`): of the
/// sessions other than the agent's that `query` matches in any way
/// (`candidates.v2.match`: a substring of the lower-cased id, cwd, label
/// or display title, or a subsequence of the label or display title),
/// only the first one that it matches by substring is kept, so that the
/// answer lists at most one candidate, found as every matcher finds it.
fn documented_matches_only(listing: Vec<Json>, query: &[u16], agent_id: &str) -> Vec<Json> {
    let q = to_lower(query);
    let field = |session: &Json, name: &str| session.get(name).and_then(Json::as_js_str).cloned();
    let contains = |field: &[u16]| field.windows(q.len()).any(|window| window == q.as_slice());
    let in_order = |field: &[u16]| {
        let mut rest = field.iter();
        q.iter().all(|unit| rest.any(|other| other == unit))
    };
    let mut kept_one = false;
    listing
        .into_iter()
        .filter(|session| {
            let id = field(session, "id").unwrap_or_default();
            if id.is(agent_id) {
                return true;
            }
            let label = field(session, "title").unwrap_or_else(|| id.clone());
            let display = field(session, "subagentLabel").unwrap_or_else(|| label.clone());
            let cwd = field(session, "cwd");
            let lower = |text: &JsString| to_lower(text.units());
            let by_substring = [Some(&id), Some(&label), Some(&display), cwd.as_ref()]
                .into_iter()
                .flatten()
                .any(|text| contains(&lower(text)));
            let fuzzily = in_order(&lower(&label)) || in_order(&lower(&display));
            match (by_substring, fuzzily) {
                (false, false) => true,
                (true, _) if !kept_one => {
                    kept_one = true;
                    true
                }
                _ => false,
            }
        })
        .collect()
}

/// `files/token {line, cursor?}`: a line that often has an `@` token.
fn files_token_input(line: Vec<u16>, cursor: Option<usize>) -> Json {
    let mut line_units = units("see @");
    line_units.extend(line);
    let mut members = vec![(JsString::from("line"), string(line_units.clone()))];
    if let Some(cursor) = cursor {
        members.push((
            JsString::from("cursor"),
            number(cursor.min(line_units.len()) as f64),
        ));
    }
    Json::Object(members)
}

/// `files/format {candidate: {path, kind}, preserveQuote?}`.
fn files_format_input() -> BoxedStrategy<Json> {
    (
        prop::collection::vec(
            prop::sample::select(vec!["src", "a.ts", "/", " ", "\"", "é", "..", "x y", "\\"]),
            1..4,
        ),
        prop::sample::select(vec!["file", "directory"]),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(pieces, kind, preserve)| {
            let mut members = vec![(
                JsString::from("candidate"),
                Json::object([
                    ("path", Json::str(&pieces.concat())),
                    ("kind", Json::str(kind)),
                ]),
            )];
            if let Some(preserve) = preserve {
                members.push((JsString::from("preserveQuote"), Json::Bool(preserve)));
            }
            Json::Object(members)
        })
        .boxed()
}

/// `files/list {tree, query, config?}`: a small working directory (files
/// and directories, some under excluded names) and a query that often
/// names a part of it.
fn files_list_input() -> BoxedStrategy<Json> {
    let directory = prop::sample::select(vec![
        "src",
        "docs",
        "a b",
        ".git",
        "node_modules",
        "src/lib",
    ]);
    let name = prop::sample::select(vec![
        "main.ts",
        "Main.test.ts",
        "amain.rs",
        "x.md",
        "\u{e9}t\u{e9}.txt",
        ".env",
        "READ ME",
        // Gaps in UTF-16 units past an astral character, and gaps above
        // 100 whose scores are all held at 300 (files.rank.subsequence).
        "m\u{1F600}n.txt",
        "mxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxn-a-longer-name.md",
        "myyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyn.md",
    ]);
    let entry = (prop::option::of(directory), name, any::<bool>());
    let query = prop_oneof![
        4 => prop::sample::select(vec!["", "main", "src/", "src/ma", "mn", "MAIN", "a", "./", "../", "/", "docs/x", ".g", "mm"])
            .prop_map(units),
        1 => field(),
    ];
    let config = prop::option::of(prop::sample::select(vec![1.0, 2.0, 5.0]));
    (prop::collection::vec(entry, 1..10), query, config)
        .prop_map(|(entries, query, max_results)| {
            let mut paths: Vec<(String, &str)> = Vec::new();
            for (directory, name, is_directory) in entries {
                let path = match directory {
                    Some(directory) => format!("{directory}/{name}"),
                    None => name.to_owned(),
                };
                let kind = if is_directory { "directory" } else { "file" };
                // A path must not sit below a file, nor repeat.
                let clashes = paths.iter().any(|(other, other_kind)| {
                    *other == path
                        || (*other_kind == "file" && path.starts_with(&format!("{other}/")))
                        || (kind == "file" && other.starts_with(&format!("{path}/")))
                });
                if !clashes {
                    paths.push((path, kind));
                }
            }
            let entries = paths
                .into_iter()
                .map(|(path, kind)| {
                    Json::object([("path", Json::str(&path)), ("kind", Json::str(kind))])
                })
                .collect();
            let mut members = vec![
                (
                    JsString::from("tree"),
                    Json::object([("entries", Json::Array(entries))]),
                ),
                (JsString::from("query"), string(query)),
            ];
            if let Some(max_results) = max_results {
                members.push((
                    JsString::from("config"),
                    Json::object([("maxResults", number(max_results))]),
                ));
            }
            Json::Object(members)
        })
        .boxed()
}
