//! Causes by probing (spec `runner.probes`, ours): the ops are layers of one
//! another (`mention/format` writes what `uri/encode` answers, `prepare`
//! retains what `retain` does and writes it as `json/tag-safe` does), and
//! the reference knows every intermediate value. So when a request fails,
//! the runner asks the implementation the lower ops' questions of that same
//! request (its *probes*), with the reference's answers as the expectation,
//! and traces the failure to the lowest op that already answers wrong: one
//! bug of a lower layer is one cause, however many ops show it.
//!
//! A probe is derived from the failed request and from the reference's own
//! answer to it (the ids a text mentions, the data a snapshot retains, the
//! budget a preparation computes). Probes go only to ops the implementation
//! declares, never need a capability it does not declare (a lone
//! surrogate without `lone-surrogates`, an ill-typed member without
//! `dynamic-inputs`, …), and are bounded per failure ([`MAX_PROBES`]); answers
//! are cached by request for the whole run, so a passing run sends none and
//! a lower op asked again costs nothing.

use super::adapter::{Description, Implementation};
use super::causes::{self, Cause, Side};
use super::diff::first_difference;
use super::ops;
use super::vectors::required_capabilities;
use crate::config::{budget, Config};
use crate::features::Features;
use crate::js::json::{self, Json};
use crate::js::{is_js_whitespace, JsString};
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use crate::uri::SCHEME_UNITS;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use std::collections::{HashMap, HashSet};

/// Requests sent to the implementation for one failure, at most (answers
/// already cached are not counted).
pub const MAX_PROBES: usize = 12;

/// Requests a run may send for probes whatever its size; past it, at most
/// a fifth of the vectors it runs.
pub const MIN_ALLOWANCE: usize = 64;

/// How many probes of one kind a request gets at most (the URIs of one
/// text, the references of one preparation).
const MAX_OF_A_KIND: usize = 8;

/// How deep a chain of probes goes: pre-step, prepare, retain, the
/// projection, its JSON.
const MAX_DEPTH: usize = 5;

/// `Number.MAX_SAFE_INTEGER`: a budget nothing exceeds, so that `retain`
/// answers the projection alone.
const UNBOUNDED: f64 = 9_007_199_254_740_991.0;

/// One lower op's question, derived from a request.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The lower op.
    pub op: &'static str,
    /// Its input.
    pub input: Json,
}

impl Probe {
    fn new<const N: usize>(op: &'static str, members: [(&str, Json); N]) -> Probe {
        Probe {
            op,
            input: Json::object(members),
        }
    }
}

/// A probe that failed: the question, the expected answer (the
/// reference's, or side A's in `differential`) and the implementation's.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbeStep {
    /// The lower op.
    pub op: String,
    /// Its input.
    pub input: Json,
    /// The expected answer.
    pub expected: Outcome,
    /// The implementation's answer, or the protocol failure in its place.
    pub actual: Result<Outcome, String>,
    /// What the implementation wrote to stderr while answering.
    pub stderr: String,
}

impl ProbeStep {
    /// The probe's cause (spec `runner.causes`), as a vector of its op that
    /// failed the same way would have.
    pub fn cause(&self) -> Cause {
        self.cause_at().0
    }

    /// The probe's cause and the folded path where it shows (`$` for a
    /// whole outcome).
    pub fn cause_at(&self) -> (Cause, String) {
        let expected = match &self.expected {
            Outcome::Output(output) => Side::Output(output),
            Outcome::Error { code, .. } => Side::Error(code),
        };
        let actual = Side::of(&self.actual, &self.stderr);
        causes::cause(&self.op, expected, actual).unwrap_or_else(|| {
            let cause = Cause {
                family: Some(causes::family(&self.op)),
                edit: "outcome differs".to_owned(),
            };
            (cause, "$".to_owned())
        })
    }

    /// `uri/encode {"sessionId":"\ud800"} answers "…" (expected "…")`.
    pub fn describe(&self) -> String {
        format!(
            "{} {} answers {} (expected {})",
            self.op,
            shortened(&json::to_ascii(&self.input)),
            shortened(&show(&self.actual)),
            shortened(&show(&Ok(self.expected.clone())))
        )
    }

    /// The size of the probe's input as JSON text.
    pub fn input_bytes(&self) -> usize {
        json::stringify(&self.input).len()
    }
}

/// The failing probes from a failure down to the lowest op that answers
/// wrong: each step is a probe of the one before.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// Never empty; the last is the lowest.
    pub steps: Vec<ProbeStep>,
    /// The failure's cause: its lowest probe's, its conversation told
    /// apart by that probe's own probes ([`Prober::tell`]).
    cause: Cause,
}

impl Chain {
    /// The lowest failing probe.
    pub fn lowest(&self) -> &ProbeStep {
        self.steps.last().expect("a chain has a step")
    }

    /// The failure's cause: its lowest probe's.
    pub fn cause(&self) -> Cause {
        self.cause.clone()
    }

    /// `OP fails because uri/encode {…} answers … (expected …)`, through
    /// every step.
    pub fn explain(&self, op: &str) -> String {
        let mut text = op.to_owned();
        for step in &self.steps[..self.steps.len() - 1] {
            text.push_str(" fails because ");
            text.push_str(&step.op);
        }
        format!("{text} fails because {}", self.lowest().describe())
    }
}

/// An answer on one line, as reports show it.
fn show(answer: &Result<Outcome, String>) -> String {
    match answer {
        Ok(Outcome::Output(output)) => json::to_ascii(output),
        Ok(Outcome::Error { code, .. }) => format!("error {code}"),
        Err(problem) => format!("protocol failure: {problem}"),
    }
}

/// At most 160 characters, the rest elided.
fn shortened(text: &str) -> String {
    const SHOWN: usize = 160;
    match text.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Sends a run's probes and keeps their answers (spec `runner.probes`).
pub struct Prober {
    features: Features,
    declared: Vec<&'static str>,
    capabilities: Vec<String>,
    expected: HashMap<String, Result<Outcome, String>>,
    answers: HashMap<String, (Result<Outcome, String>, String)>,
    /// Requests sent to the implementation so far.
    sent: usize,
    /// For each list of own causes (a failure's causes without probing),
    /// the chain the last failure of each op with them was traced to.
    learned: HashMap<Vec<Cause>, Vec<(String, Chain)>>,
    /// For each op, what the last failure's conversation was told as.
    told: HashMap<String, Cause>,
    /// The run's allowance, once [`Prober::attribute_within`] was given
    /// it.
    allowance: Option<usize>,
    /// Each op and list of own causes a failure was probed for.
    probed: HashSet<(String, Vec<Cause>)>,
}

impl Prober {
    /// A prober for the implementation `description` describes, compared
    /// with the reference at its declared behaviours (`conformance`).
    pub fn new(description: &Description) -> Prober {
        let declared = description.declared();
        Prober::within(
            declared.features,
            ops::known_ops().filter(|op| declared.answers(op)).collect(),
            description.capabilities.clone(),
        )
    }

    /// A prober that derives probes as the reference with `features` does,
    /// sends only ops of `declared`, and only requests that need no
    /// capability but `capabilities` (`differential`: what both sides
    /// declare; spec `protocol.capabilities`).
    pub fn within(
        features: Features,
        declared: Vec<&'static str>,
        capabilities: Vec<String>,
    ) -> Prober {
        Prober {
            features,
            declared,
            capabilities,
            expected: HashMap::new(),
            answers: HashMap::new(),
            sent: 0,
            learned: HashMap::new(),
            told: HashMap::new(),
            allowance: None,
            probed: HashSet::new(),
        }
    }

    /// Requests sent to the implementation for probes so far.
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// The requests the run's allowance still leaves, and whether its
    /// shared part (three quarters) is spent.
    fn left(&self) -> (usize, bool) {
        let allowance = self.allowance.unwrap_or(usize::MAX);
        let left = allowance.saturating_sub(self.sent);
        (left, self.allowance.is_some() && left <= allowance / 4)
    }

    /// The behaviours of the reference probes are derived with.
    pub fn features(&self) -> Features {
        self.features
    }

    /// The chain from a failed request of `op` to the lowest op on which
    /// `actual` answers otherwise than `expected`, or `None` when every
    /// probe agrees (the failure keeps its own cause).
    pub fn attribute(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        op: &str,
        input: &Json,
    ) -> Option<Chain> {
        self.attribute_sending(expected, actual, op, input, MAX_PROBES)
    }

    /// [`Prober::attribute`] sending at most `budget` requests.
    fn attribute_sending(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        op: &str,
        input: &Json,
        mut budget: usize,
    ) -> Option<Chain> {
        let steps = self.descend([expected, actual], op, input, 0, &mut budget)?;
        let lowest = steps.last()?;
        let cause = self.tell(&lowest.op, &lowest.input, lowest.cause());
        Some(Chain { steps, cause })
    }

    /// [`Prober::attribute`] within a run's allowance, which it never
    /// exceeds: once three quarters of `allowance` requests have been
    /// sent, only the first failure of an op with its own causes (its
    /// causes without probing, `own`) is probed, within the last quarter;
    /// another takes the chain the last failure with the same own causes
    /// was traced to, if one was: of the same op, else of another op unless
    /// that chain starts at this op (it would explain the whole failure by
    /// itself) (spec `runner.probes`: probing costs a run at most a fifth of
    /// its requests, and a pervasive bug that spends the shared part hides
    /// no other).
    pub fn attribute_within(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        op: &str,
        input: &Json,
        own: Vec<Cause>,
        allowance: usize,
    ) -> Option<Chain> {
        self.allowance = Some(allowance);
        let (left, spent) = self.left();
        let first_of_its_kind = self.probed.insert((op.to_owned(), own.clone()));
        if left == 0 || (spent && !first_of_its_kind) {
            let traced = self.learned.get(&own)?;
            let same_op = traced.iter().rev().find(|(known, _)| known == op);
            let other_op = || {
                traced
                    .iter()
                    .rev()
                    .find(|(_, chain)| chain.steps[0].op != op)
            };
            return same_op.or_else(other_op).map(|(_, chain)| chain.clone());
        }
        let chain = self.attribute_sending(expected, actual, op, input, left.min(MAX_PROBES))?;
        let traced = self.learned.entry(own).or_default();
        traced.retain(|(known, _)| known != op);
        traced.push((op.to_owned(), chain.clone()));
        Some(chain)
    }

    /// What a failed request of `op` whose conversation differs tells once
    /// its probes were answered (spec `runner.causes`, `runner.probes`):
    /// `cause` itself unless it is the conversation's; then the
    /// projection's when `op` is `retain` with an unbounded budget (the
    /// projection alone), retention's when the `retain` of the same
    /// snapshot with an unbounded budget agrees, the budget's when the
    /// `retain` of each source of a preparation with the reference's
    /// budget agrees; else (nothing lower was asked) the conversation's.
    /// Past the run's allowance, what the last failure of the same op told.
    pub fn tell(&mut self, op: &str, input: &Json, cause: Cause) -> Cause {
        if cause == causes::conversation_cause() && self.lookup_failure_decides(op, input) {
            return causes::lookup_cause();
        }
        if cause != causes::conversation_cause() || !matches!(op, "retain" | "prepare") {
            return cause;
        }
        if op == "retain" && input.get("maxBytes") == Some(&Json::Number(UNBOUNDED)) {
            return causes::told_conversation(causes::Told::Projection);
        }
        let own = dispatch::handle_in(self.features, op, input);
        let retained: Vec<Option<bool>> = derive(self.features, op, input, &own)
            .iter()
            .filter(|probe| probe.op == "retain")
            .map(|probe| {
                let key = key(probe.op, &probe.input);
                let expected = self.expected.get(&key)?.as_ref().ok()?;
                let (actual, _) = self.answers.get(&key)?;
                // Two errors that agree prove nothing of a conversation.
                let output = matches!(expected, Outcome::Output(_));
                Some(output && agrees(expected, actual))
            })
            .collect();
        let agreed = !retained.is_empty() && retained.iter().all(|agrees| *agrees == Some(true));
        let asked = retained.iter().any(Option::is_some);
        let told = match op {
            "retain" if agreed => causes::told_conversation(causes::Told::Retention),
            "prepare" if agreed => causes::told_conversation(causes::Told::Budget),
            _ if self.left().1 && !asked => return self.told.get(op).cloned().unwrap_or(cause),
            _ => return cause,
        };
        self.told.insert(op.to_owned(), told.clone());
        told
    }

    /// Whether the reference's failure of a preparation is its model
    /// lookup's (spec `prepare.budget.lookup-failed`): the request sends a
    /// `models` entry that fails, the reference answers an error, and the
    /// same request without `models` does not fail alike. Such a failure
    /// says nothing of the conversation, which was never read.
    fn lookup_failure_decides(&self, op: &str, input: &Json) -> bool {
        if !matches!(op, "prepare" | "pre-step") {
            return false;
        }
        let Some(Json::Object(models)) = input.get("models") else {
            return false;
        };
        if !models
            .iter()
            .any(|(_, model)| model.get("lookupError").is_some())
        {
            return false;
        }
        let Outcome::Error { code, .. } = dispatch::handle_in(self.features, op, input) else {
            return false;
        };
        let Json::Object(members) = input else {
            return false;
        };
        let without = Json::Object(
            members
                .iter()
                .filter(|(name, _)| !name.is("models"))
                .cloned()
                .collect(),
        );
        !matches!(
            dispatch::handle_in(self.features, op, &without),
            Outcome::Error { code: other, .. } if other == code
        )
    }

    fn descend(
        &mut self,
        sides: [&mut dyn Implementation; 2],
        op: &str,
        input: &Json,
        depth: usize,
        budget: &mut usize,
    ) -> Option<Vec<ProbeStep>> {
        if depth == MAX_DEPTH {
            return None;
        }
        let [expected_side, actual_side] = sides;
        let own = dispatch::handle_in(self.features, op, input);
        for probe in derive(self.features, op, input, &own) {
            if !self.declared.contains(&probe.op)
                || required_capabilities(probe.op, &probe.input, &Json::Null)
                    .iter()
                    .any(|needed| !self.capabilities.contains(needed))
                || (probe.op == op && probe.input == *input)
            {
                continue;
            }
            let key = key(probe.op, &probe.input);
            if !self.expected.contains_key(&key) || !self.answers.contains_key(&key) {
                if *budget == 0 {
                    return None;
                }
                *budget -= 1;
            }
            let expected = self
                .expected
                .entry(key.clone())
                .or_insert_with(|| {
                    let answer = expected_side.call(probe.op, &probe.input);
                    expected_side.take_stderr();
                    answer
                })
                .clone();
            let (actual, stderr) = self
                .answers
                .entry(key)
                .or_insert_with(|| {
                    self.sent += 1;
                    let answer = actual_side.call(probe.op, &probe.input);
                    (answer, actual_side.take_stderr())
                })
                .clone();
            // A probe the expected side cannot answer proves nothing; nor
            // does one whose expected answer needs a capability not
            // declared (a lone surrogate decoded from an escape).
            let Ok(expected) = expected else {
                continue;
            };
            if let Outcome::Output(output) = &expected {
                if required_capabilities(probe.op, &probe.input, output)
                    .iter()
                    .any(|needed| !self.capabilities.contains(needed))
                {
                    continue;
                }
            }
            if agrees(&expected, &actual) {
                continue;
            }
            let step = ProbeStep {
                op: probe.op.to_owned(),
                input: probe.input.clone(),
                expected,
                actual,
                stderr,
            };
            let mut steps = self
                .descend(
                    [&mut *expected_side, &mut *actual_side],
                    probe.op,
                    &probe.input,
                    depth + 1,
                    budget,
                )
                .unwrap_or_default();
            steps.insert(0, step);
            return Some(steps);
        }
        None
    }
}

/// Whether the implementation's answer passes against the reference's, as
/// a vector's would (spec `conformance.comparison`); `UNSUPPORTED` is no
/// disagreement.
fn agrees(expected: &Outcome, actual: &Result<Outcome, String>) -> bool {
    match (expected, actual) {
        (_, Ok(Outcome::Error { code, .. })) if code == UNSUPPORTED => true,
        (Outcome::Output(x), Ok(Outcome::Output(y))) => first_difference(x, y).is_none(),
        (Outcome::Error { code: x, .. }, Ok(Outcome::Error { code: y, .. })) => x == y,
        _ => false,
    }
}

fn key(op: &str, input: &Json) -> String {
    format!("{op}\n{}", json::stringify(input))
}

/// The probes of a request of `op` (spec `runner.probes`), lowest ops
/// first, derived from its input and the reference's answer `own`.
pub fn derive(features: Features, op: &str, input: &Json, own: &Outcome) -> Vec<Probe> {
    let output = match own {
        Outcome::Output(output) => Some(output),
        Outcome::Error { .. } => None,
    };
    let member = |name: &str| input.get(name).cloned();
    let mut probes = Vec::new();
    match op {
        "uri/decode" => {
            let spelled = input
                .get("uri")
                .and_then(Json::as_js_str)
                .and_then(|uri| spelled_id(uri.units()));
            if let Some(id) = spelled {
                probes.push(Probe::new("uri/encode", [("sessionId", Json::String(id))]));
            }
        }
        "mention/format" => {
            if let Some(id @ Json::String(_)) = member("sessionId") {
                probes.push(Probe::new("uri/encode", [("sessionId", id)]));
            }
        }
        "mention/parse" => {
            if let Some(text) = input.get("text").and_then(Json::as_js_str) {
                let mut uris = uris_in(text.units());
                let mut seen = std::collections::HashSet::new();
                uris.retain(|uri| seen.insert(uri.clone()));
                for uri in uris.into_iter().take(MAX_OF_A_KIND) {
                    let uri = Json::String(JsString::from_units(uri));
                    probes.push(Probe::new("uri/decode", [("uri", uri)]));
                }
            }
            let references = output
                .and_then(|output| output.get("references"))
                .and_then(Json::as_array)
                .unwrap_or_default();
            for reference in references.iter().take(MAX_OF_A_KIND) {
                probes.push(format_probe(reference, "sessionId", "label"));
            }
        }
        "retain" => {
            let projection = match (member("snapshot"), member("label")) {
                (Some(snapshot), Some(label)) => Some(Probe::new(
                    "retain",
                    [
                        ("snapshot", snapshot),
                        ("label", label),
                        ("maxBytes", Json::Number(UNBOUNDED)),
                    ],
                )),
                _ => None,
            };
            // The data the reference measured: the whole projection it
            // measures first, then what it retained.
            let whole = projection.as_ref().and_then(|probe| {
                match dispatch::handle_in(features, probe.op, &probe.input) {
                    Outcome::Output(whole) => whole.get("data").cloned(),
                    Outcome::Error { .. } => None,
                }
            });
            let retained = output.and_then(|output| output.get("data")).cloned();
            let kept = retained.filter(|data| Some(data) != whole.as_ref());
            for data in whole.into_iter().chain(kept) {
                probes.push(Probe::new("json/tag-safe", [("value", data)]));
            }
            probes.extend(projection);
        }
        "prepare" => probes.extend(prepare_probes(features, input, output)),
        "pre-step" => probes.extend(pre_step_probes(features, input)),
        "candidates/list" => probes.extend(config_probe(input)),
        "candidates/remote" => {
            probes.extend(config_probe(input));
            probes.push(Probe {
                op: "candidates/list",
                input: input.clone(),
            });
            let candidates = output.and_then(Json::as_array).unwrap_or_default();
            for candidate in candidates.iter().take(MAX_OF_A_KIND) {
                probes.push(format_probe(candidate, "sessionId", "label"));
            }
        }
        _ => {}
    }
    probes
}

/// `mention/format` of a record's id and label.
fn format_probe(record: &Json, id: &str, label: &str) -> Probe {
    Probe::new(
        "mention/format",
        [
            ("sessionId", record.get(id).cloned().unwrap_or(Json::Null)),
            ("label", record.get(label).cloned().unwrap_or(Json::Null)),
        ],
    )
}

/// `config/check` of the request's configuration, when it has one.
fn config_probe(input: &Json) -> Option<Probe> {
    let config = input.get("config")?.clone();
    Some(Probe::new("config/check", [("config", config)]))
}

/// A preparation's probes: its configuration, its prompt's data as tag-safe
/// JSON, and each source retained with the budget the reference computed.
fn prepare_probes(features: Features, input: &Json, output: Option<&Json>) -> Vec<Probe> {
    let mut probes: Vec<Probe> = config_probe(input).into_iter().collect();
    let context = output.and_then(|output| output.get("additionalContext"));
    if let Some(data) = context.and_then(prompt_data) {
        probes.push(Probe::new("json/tag-safe", [("value", data)]));
    }
    let budget = reference_budget(features, input);
    let sessions = input.get("sessions").and_then(Json::as_object);
    // The sources as the request names them (the session store's keys;
    // a snapshot's own id may differ), as the reference normalizes them.
    let references = requested_sources(input);
    for reference in references.iter().take(MAX_OF_A_KIND) {
        let (Some(budget), Some(sessions)) = (budget, sessions) else {
            break;
        };
        let Some(id) = reference.get("sessionId").and_then(Json::as_js_str) else {
            continue;
        };
        // The last member of that name, as JavaScript reads an object.
        let snapshot = sessions
            .iter()
            .rev()
            .find(|(name, _)| name.units() == id.units())
            .map(|(_, snapshot)| snapshot);
        let (Some(snapshot), Some(label)) = (snapshot, reference.get("label")) else {
            continue;
        };
        if snapshot.get("events").is_none() {
            continue;
        }
        probes.push(Probe::new(
            "retain",
            [
                ("snapshot", snapshot.clone()),
                ("label", label.clone()),
                // A budget past any size is the unbounded one, which
                // retain accepts (a safe integer).
                ("maxBytes", Json::Number((budget as f64).min(UNBOUNDED))),
            ],
        ));
    }
    probes
}

/// The per-reference byte budget the reference computes for a preparation
/// (spec `prepare.budget.fixed`, `prepare.budget.automatic`), or `None`
/// when its configuration is refused or its model lookup fails.
fn reference_budget(features: Features, input: &Json) -> Option<u64> {
    let config = Config::from_json(input.get("config"), features).ok()?;
    let route = input.get("agent").and_then(|agent| agent.get("route"));
    let provider = route
        .and_then(|route| route.get("provider"))
        .and_then(Json::as_js_str);
    let model = route
        .and_then(|route| route.get("model"))
        .and_then(Json::as_js_str);
    let route = provider.zip(model).map(|(p, m)| (p.units(), m.units()));
    budget(&config, route, &dispatch::JsonModels(input.get("models"))).ok()
}

/// The request's references as sources: `{sessionId, label}` with the id
/// as label when there is none, each id once.
fn requested_sources(input: &Json) -> Vec<Json> {
    let mut sources: Vec<Json> = Vec::new();
    let references = input
        .get("references")
        .and_then(Json::as_array)
        .unwrap_or_default();
    for reference in references {
        let Some(id @ Json::String(_)) = reference.get("sessionId") else {
            continue;
        };
        if sources
            .iter()
            .any(|known| known.get("sessionId") == Some(id))
        {
            continue;
        }
        let label = match reference.get("label") {
            Some(label @ Json::String(_)) => label.clone(),
            _ => id.clone(),
        };
        sources.push(Json::object([("sessionId", id.clone()), ("label", label)]));
    }
    sources
}

/// The JSON value between a prompt's `<referenced-sessions>` tags.
fn prompt_data(context: &Json) -> Option<Json> {
    const OPEN: &str = "<referenced-sessions>\n";
    const CLOSE: &str = "\n</referenced-sessions>";
    let text = context
        .get("content")
        .and_then(Json::as_array)?
        .first()?
        .get("text")?
        .as_string()?;
    let start = text.find(OPEN)? + OPEN.len();
    let end = start + text[start..].find(CLOSE)?;
    json::parse(&text[start..end]).ok()
}

/// A pre-step's probes: `mention/parse` of each direct user message's text
/// blocks, then `prepare` of each message that mentions a session, as the
/// reference builds it.
fn pre_step_probes(features: Features, input: &Json) -> Vec<Probe> {
    let mut parses = Vec::new();
    let mut preparations = Vec::new();
    let messages = input
        .get("messages")
        .and_then(Json::as_array)
        .unwrap_or_default();
    for message in messages {
        let direct = message
            .get("source")
            .and_then(|source| source.get("kind"))
            .and_then(Json::as_js_str)
            .is_some_and(|kind| kind.is("user"));
        let blocks = message
            .get("content")
            .and_then(Json::as_array)
            .unwrap_or_default();
        if !direct {
            continue;
        }
        let mut content = Vec::new();
        let mut references = Vec::new();
        let mut readable = true;
        for block in blocks {
            let text = block
                .get("type")
                .and_then(Json::as_js_str)
                .filter(|kind| kind.is("text"))
                .and_then(|_| block.get("text"))
                .filter(|text| matches!(text, Json::String(_)));
            let Some(text) = text else {
                content.push(block.clone());
                continue;
            };
            let parse = Probe::new("mention/parse", [("text", text.clone())]);
            match dispatch::handle_in(features, parse.op, &parse.input) {
                Outcome::Output(parsed) => {
                    content.push(Json::object([
                        ("type", Json::str("text")),
                        ("text", parsed.get("text").cloned().unwrap_or(Json::Null)),
                    ]));
                    references.extend(
                        parsed
                            .get("references")
                            .and_then(Json::as_array)
                            .unwrap_or_default()
                            .iter()
                            .cloned(),
                    );
                }
                Outcome::Error { .. } => readable = false,
            }
            parses.push(parse);
        }
        if readable && !references.is_empty() {
            let mut members: Vec<(JsString, Json)> = input
                .as_object()
                .unwrap_or_default()
                .iter()
                .filter(|(name, _)| !name.is("messages") && !name.is("keepIds"))
                .cloned()
                .collect();
            members.push((JsString::from("content"), Json::Array(content)));
            members.push((JsString::from("references"), Json::Array(references)));
            preparations.push(Probe {
                op: "prepare",
                input: Json::Object(members),
            });
        }
    }
    parses.truncate(MAX_OF_A_KIND);
    preparations.truncate(MAX_OF_A_KIND);
    parses.extend(preparations);
    parses
}

/// The session id a URI's payload spells, read leniently (padding,
/// either base64 alphabet, any JSON string literal): what `uri/encode` must
/// be asked to learn whether the URI is canonical.
fn spelled_id(uri: &[u16]) -> Option<JsString> {
    let payload = uri.strip_prefix(&SCHEME_UNITS[..])?;
    let bytes: Vec<u8> = payload
        .iter()
        .filter(|&&unit| unit != u16::from(b'='))
        .map(|&unit| match u8::try_from(unit).ok()? {
            b'+' => Some(b'-'),
            b'/' => Some(b'_'),
            byte => Some(byte),
        })
        .collect::<Option<_>>()?;
    let lenient = GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    let literal = lenient.decode(bytes).ok()?;
    match json::parse(&String::from_utf8_lossy(&literal)).ok()? {
        Json::String(id) => Some(id),
        _ => None,
    }
}

/// Every `dsh-session:` in a text with what follows it up to whitespace or
/// `)`, as an explicit mention's URI runs (spec `mention.parse.uri`), and
/// with its payload characters only, as a bare URI runs, when that is
/// shorter.
fn uris_in(text: &[u16]) -> Vec<Vec<u16>> {
    let scheme = &SCHEME_UNITS[..];
    let mut uris = Vec::new();
    let mut at = 0;
    while at + scheme.len() <= text.len() {
        if !text[at..].starts_with(scheme) {
            at += 1;
            continue;
        }
        let run_end = |stop: &dyn Fn(u16) -> bool| {
            text[at + scheme.len()..]
                .iter()
                .position(|&unit| stop(unit))
                .map_or(text.len(), |length| at + scheme.len() + length)
        };
        let explicit = run_end(&|unit| is_js_whitespace(unit) || unit == u16::from(b')'));
        let bare = run_end(&|unit| !crate::uri::is_payload_unit(unit));
        uris.push(text[at..explicit].to_vec());
        if bare < explicit {
            uris.push(text[at..bare].to_vec());
        }
        at = explicit.max(at + 1);
    }
    uris
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Json {
        json::parse(text).expect("test JSON")
    }

    /// A prober whose caches hold the reference's answer as the
    /// implementation's to every probe of `op` with `input` that is a
    /// `retain`: each such probe was asked and agreed.
    fn agreeing_on_retain(op: &str, input: &Json) -> Prober {
        let mut prober = Prober::within(Features::RC8, vec!["retain"], Vec::new());
        let own = dispatch::handle_in(Features::RC8, op, input);
        for probe in derive(Features::RC8, op, input, &own) {
            if probe.op == "retain" {
                let answer = dispatch::handle_in(Features::RC8, probe.op, &probe.input);
                let key = key(probe.op, &probe.input);
                prober.expected.insert(key.clone(), Ok(answer.clone()));
                prober.answers.insert(key, (Ok(answer), String::new()));
            }
        }
        prober
    }

    #[test]
    fn a_failed_model_lookup_is_not_the_conversation() {
        // prepare.budget.lookup-failed, runner.causes: the reference fails
        // on the lookup before reading any session, so a port answering
        // otherwise is told the lookup, not the conversation.
        let request = |models: &str| {
            parse(&format!(
                r#"{{"agent":{{"id":"me","cwd":"/w","route":{{"provider":"p","model":"m"}}}},"content":[],"references":[{{"sessionId":"s1"}}],"sessions":{{"s1":{{"session":{{"id":"s1","cwd":"/w"}},"capturedThroughSeq":1,"events":[]}}}}{models}}}"#
            ))
        };
        let mut prober = Prober::within(Features::NEWEST, vec!["prepare"], Vec::new());
        let mut told = |input: &Json| {
            prober
                .tell("prepare", input, causes::conversation_cause())
                .to_string()
        };
        assert_eq!(
            told(&request(r#","models":{"p/m":{"lookupError":"down"}}"#)),
            "snapshot: model lookup failure differs"
        );
        // The lookup fails, but a check before it fails the request alike
        // without it: a configuration that is invalid.
        let invalid = parse(
            r#"{"agent":{"id":"me","route":{"provider":"p","model":"m"}},"content":[],"references":[{"sessionId":"s1"}],"sessions":{},"config":{"maxReferences":0},"models":{"p/m":{"lookupError":"down"}}}"#,
        );
        assert_eq!(told(&invalid), "snapshot: conversation differs");
        assert_eq!(
            told(&request(r#","models":{"p/m":{"contextWindow":1000}}"#)),
            "snapshot: conversation differs"
        );
    }

    #[test]
    fn probing_tells_a_conversation_apart() {
        // runner.probes, runner.causes: projection, retention, budget.
        let snapshot = r#"{"session":{"id":"s1","cwd":"/w"},"capturedThroughSeq":1,"events":[{"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]}}]}"#;
        let conversation = causes::conversation_cause();
        let told = |prober: &mut Prober, op: &str, input: &Json| {
            prober.tell(op, input, conversation.clone()).to_string()
        };
        let unbounded = parse(&format!(
            r#"{{"snapshot":{snapshot},"label":"l","maxBytes":9007199254740991}}"#
        ));
        let mut nothing_asked = Prober::within(Features::RC8, vec!["retain"], Vec::new());
        assert_eq!(
            told(&mut nothing_asked, "retain", &unbounded),
            "snapshot: projection differs"
        );
        let bounded = parse(&format!(
            r#"{{"snapshot":{snapshot},"label":"l","maxBytes":100}}"#
        ));
        assert_eq!(
            told(&mut nothing_asked, "retain", &bounded),
            "snapshot: conversation differs"
        );
        assert_eq!(
            told(
                &mut agreeing_on_retain("retain", &bounded),
                "retain",
                &bounded
            ),
            "snapshot: retention differs"
        );
        let prepare = parse(&format!(
            r#"{{"agent":{{"id":"me"}},"content":[],"references":[{{"sessionId":"s1"}}],"sessions":{{"s1":{snapshot}}},"config":null}}"#
        ));
        assert_eq!(
            told(&mut nothing_asked, "prepare", &prepare),
            "snapshot: conversation differs"
        );
        assert_eq!(
            told(
                &mut agreeing_on_retain("prepare", &prepare),
                "prepare",
                &prepare
            ),
            "snapshot: budget differs"
        );
        // Only the conversation's cause is told apart.
        let other = Cause {
            family: Some("snapshot"),
            edit: "member x missing".to_owned(),
        };
        assert_eq!(
            agreeing_on_retain("retain", &bounded).tell("retain", &bounded, other.clone()),
            other
        );
    }

    #[test]
    fn a_uri_is_probed_with_the_id_it_spells_canonical_or_not() {
        // runner.probes
        let id = |uri: &str| spelled_id(&uri.encode_utf16().collect::<Vec<_>>());
        let canonical = crate::uri::encode(&"a/b".encode_utf16().collect::<Vec<_>>());
        assert_eq!(id(&canonical), Some(JsString::from("a/b")));
        assert_eq!(id(&format!("{canonical}==")), Some(JsString::from("a/b")));
        // `"\u00E9"`: upper-case hex, not canonical, still an id.
        assert_eq!(id("dsh-session:Ilx1MDBFOSI"), Some(JsString::from("é")));
        assert_eq!(id("dsh-session:bm90IGpzb24"), None);
        assert_eq!(id("other:Ilx1MDBFOSI"), None);
    }

    #[test]
    fn a_text_is_probed_at_every_uri_it_holds() {
        // runner.probes
        let text: Vec<u16> = "@[a](dsh-session:Ill) and dsh-session:x y dsh-session:"
            .encode_utf16()
            .collect();
        let uris: Vec<String> = uris_in(&text)
            .iter()
            .map(|uri| String::from_utf16_lossy(uri))
            .collect();
        assert_eq!(uris, ["dsh-session:Ill", "dsh-session:x", "dsh-session:"]);
        let bare: Vec<u16> = "see dsh-session:InMi, then".encode_utf16().collect();
        let uris: Vec<String> = uris_in(&bare)
            .iter()
            .map(|uri| String::from_utf16_lossy(uri))
            .collect();
        assert_eq!(uris, ["dsh-session:InMi,", "dsh-session:InMi"]);
    }

    #[test]
    fn each_op_is_probed_at_the_ops_it_is_built_from() {
        // runner.probes
        let ops = |op: &str, input: &str| -> Vec<&'static str> {
            let input = parse(input);
            let own = dispatch::handle_in(Features::RC8, op, &input);
            derive(Features::RC8, op, &input, &own)
                .iter()
                .map(|probe| probe.op)
                .collect()
        };
        assert_eq!(
            ops("mention/format", r#"{"sessionId":"s"}"#),
            ["uri/encode"]
        );
        assert_eq!(
            ops("mention/parse", r#"{"text":"@[l](dsh-session:InMi)"}"#),
            ["uri/decode", "mention/format"]
        );
        let snapshot = r#"{"session":{"id":"s1","cwd":"/w"},"capturedThroughSeq":1,"events":[{"type":"user/message","data":{"source":{"kind":"user"},"content":[{"type":"text","text":"hi"}]}}]}"#;
        assert_eq!(
            ops(
                "retain",
                &format!(r#"{{"snapshot":{snapshot},"label":"l","maxBytes":1000}}"#)
            ),
            ["json/tag-safe", "retain"]
        );
        let prepare = format!(
            r#"{{"agent":{{"id":"me"}},"content":[],"references":[{{"sessionId":"s1"}}],"sessions":{{"s1":{snapshot}}},"config":null}}"#
        );
        assert_eq!(
            ops("prepare", &prepare),
            ["config/check", "json/tag-safe", "retain"]
        );
        let pre_step = format!(
            r#"{{"agent":{{"id":"me"}},"messages":[{{"source":{{"kind":"user"}},"content":[{{"type":"text","text":"see dsh-session:InMxIg"}}]}}],"sessions":{{"s1":{snapshot}}}}}"#
        );
        assert_eq!(ops("pre-step", &pre_step), ["mention/parse", "prepare"]);
        assert_eq!(
            ops("uri/encode", r#"{"sessionId":"s"}"#),
            Vec::<&str>::new()
        );
    }
}
