//! Causes by probing and substitution (spec `runner.probes`, ours): the ops
//! are layers of one another (`mention/format` writes what `uri/encode`
//! answers, `prepare` retains what `retain` does and writes it as
//! `json/tag-safe` does), and the reference knows every intermediate value.
//! So when a request fails, the runner asks the implementation the lower
//! ops' questions of that same request (its *probes*), with the reference's
//! answers as the expectation. A lower op that answers wrong explains the
//! failure only as far as substitution reproduces it: the reference composed
//! with the implementation's answers of that op in place of its own
//! ([`substitution`]) must change its answer the way the implementation's
//! differs; what the substituted run does not reproduce keeps its own
//! causes. So one bug of a lower layer is one cause, however many ops show
//! it, and hides no other bug beside it.
//!
//! A probe is derived from the failed request and from the reference's own
//! answer to it (the ids a text mentions, the data a snapshot retains, the
//! budget a preparation computes). Probes go only to ops the implementation
//! declares, never need a capability it does not declare (a lone
//! surrogate without `lone-surrogates`, an ill-typed member without
//! `dynamic-inputs`, …), and are bounded per failure ([`MAX_PROBES`]) and
//! per run ([`Allowance`]); answers are cached by request for the whole
//! run, so a passing run sends none and a lower op asked again costs
//! nothing. What was learned of the implementation (its JSON spelling, its
//! member edits) stands in for what is not asked: first, before any probe,
//! when it explains the failure and tells its conversation apart (a
//! pervasive bug then costs its first failures' probes only), and past the
//! allowance.

use super::adapter::{Description, Implementation};
use super::causes::{self, Cause, Side};
use super::diff::first_difference;
use super::ops;
use super::substitution::{self, Answers, Composed, Learned, MemberEdit, Spelling};
use super::vectors::required_capabilities;
use crate::config::{budget, positive_safe_integer, Config};
use crate::features::Features;
use crate::js::json::{self, Json};
use crate::js::{is_js_whitespace, JsString};
use crate::protocol::dispatch;
use crate::protocol::wire::{Outcome, INTERNAL, UNSUPPORTED};
use crate::uri::SCHEME_UNITS;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Requests sent to the implementation for one failure, at most (answers
/// already cached are not counted).
pub const MAX_PROBES: usize = 32;

/// Requests a run may send for probes whatever its size; past it, at most
/// as many as the vectors it runs.
pub const MIN_ALLOWANCE: usize = 64;

/// Bytes of requests a run may send for probes whatever its size; past it,
/// at most half the bytes of its vectors' inputs.
pub const MIN_ALLOWANCE_BYTES: usize = 64 * 1024;

/// What a run may send for probes (spec `runner.probes`): requests, and
/// bytes of requests, each of which bounds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allowance {
    /// Requests.
    pub requests: usize,
    /// Bytes of requests (their inputs as JSON text, with the op).
    pub bytes: usize,
}

impl Allowance {
    /// The allowance of a run of `vectors` vectors whose inputs are
    /// `bytes` bytes of JSON text.
    pub fn of_run(vectors: usize, bytes: usize) -> Allowance {
        Allowance {
            requests: MIN_ALLOWANCE.max(vectors),
            bytes: MIN_ALLOWANCE_BYTES.max(bytes / 2),
        }
    }
}

/// After this many failures of one op with the same own causes sent
/// probes that explained nothing (nor told their conversation apart),
/// another sends none: it keeps its own
/// causes, as they did, unless answers already had or what was learned
/// explain it.
const UNEXPLAINED_KIND: usize = 3;

/// How many probes of one kind a request gets at most (the URIs of one
/// text, the references of one preparation).
const MAX_OF_A_KIND: usize = 8;

/// How deep a chain of probes goes: pre-step, prepare, retain, the
/// projection, its JSON.
const MAX_DEPTH: usize = 5;

/// `Number.MAX_SAFE_INTEGER`: a budget nothing exceeds, so that `retain`
/// answers the projection alone.
pub(super) const UNBOUNDED: f64 = 9_007_199_254_740_991.0;

/// One lower op's question, derived from a request.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    /// The lower op.
    pub op: &'static str,
    /// Its input.
    pub input: Json,
}

impl Probe {
    /// The question of `op` with these input members.
    pub fn new<const N: usize>(op: &'static str, members: [(&str, Json); N]) -> Probe {
        Probe {
            op,
            input: Json::object(members),
        }
    }
}

/// A failed request as probing takes it: its op and input, and what the
/// implementation answered (or the protocol failure in its place) with
/// what it wrote to stderr.
#[derive(Clone, Copy, Debug)]
pub struct Failure<'a> {
    /// The op.
    pub op: &'a str,
    /// Its input.
    pub input: &'a Json,
    /// The implementation's answer.
    pub answer: &'a Result<Outcome, String>,
    /// What it wrote to stderr while answering.
    pub stderr: &'a str,
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
    /// Whether the answer is the implementation's JSON spelling as learned
    /// from its other answers, not asked (spec `runner.probes`).
    pub learned: bool,
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
            "{} {} {} {} (expected {})",
            self.op,
            shortened(&json::to_ascii(&self.input)),
            if self.learned {
                "would answer, as learned from its other answers,"
            } else {
                "answers"
            },
            shortened(&show(&self.actual)),
            shortened(&show(&Ok(self.expected.clone())))
        )
    }

    /// The size of the probe's input as JSON text.
    pub fn input_bytes(&self) -> usize {
        json::stringify(&self.input).len()
    }
}

/// How a failure was explained by substitution (spec `runner.probes`):
/// the lower ops whose answers, put in place of the reference's, reproduce
/// some of it, the first path of failing probes down to its lowest op, and
/// what the substituted run reproduced and did not.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The first explaining path: never empty; each step a probe of the one
    /// before, the last the lowest.
    pub steps: Vec<ProbeStep>,
    /// The causes of the substituted lower ops, each traced down as far as
    /// substitution reproduces it; never empty, the first the lowest
    /// step's.
    traced: Vec<Cause>,
    /// The ops whose answers were substituted.
    substituted: Vec<String>,
    /// What the substituted run reproduced: how it differs from the
    /// reference's answer.
    reproduced: Vec<Cause>,
    /// What it did not: how the implementation's answer differs from it,
    /// each its own cause.
    residual: Vec<Cause>,
}

impl Chain {
    /// The lowest failing probe of the first path.
    pub fn lowest(&self) -> &ProbeStep {
        self.steps.last().expect("a chain has a step")
    }

    /// The failure's first cause: its lowest probe's.
    pub fn cause(&self) -> Cause {
        self.traced[0].clone()
    }

    /// Every cause of the failure: the traced ones, then what substitution
    /// left, each once.
    pub fn causes(&self) -> Vec<Cause> {
        let mut all: Vec<Cause> = Vec::new();
        for cause in self.traced.iter().chain(&self.residual) {
            if !all.contains(cause) {
                all.push(cause.clone());
            }
        }
        all
    }

    /// What substitution left: how the implementation's answer differs
    /// from the substituted run's (spec `runner.probes`).
    pub fn residual(&self) -> &[Cause] {
        &self.residual
    }

    /// `the implementation's json/tag-safe in place of the reference's
    /// reproduces its whole answer (snapshot: retention differs)`, or what
    /// it reproduces and what it leaves.
    pub fn substitution(&self) -> String {
        let named = |causes: &[Cause]| {
            causes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        };
        let ops = self.substituted.join(", ");
        let reproduced = named(&self.reproduced);
        if self.residual.is_empty() {
            format!("the implementation's {ops} in place of the reference's reproduces its whole answer ({reproduced})")
        } else {
            format!(
                "the implementation's {ops} in place of the reference's reproduces {reproduced}, not {}",
                named(&self.residual)
            )
        }
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
    /// The run's allowance, once [`Prober::attribute_within`] was given
    /// it.
    allowance: Option<Allowance>,
    /// Bytes of requests charged to the allowance so far.
    sent_bytes: usize,
    /// Each op and list of own causes a failure was probed for.
    probed: HashSet<(String, Vec<Cause>)>,
    /// For each op and list of own causes, how many failures sent probes
    /// that explained nothing.
    unexplained: HashMap<(String, Vec<Cause>), usize>,
    /// The reference's answers computed in this run, by request.
    references: HashMap<String, Outcome>,
    /// The implementation's JSON spelling, learned from its `json/tag-safe`
    /// answers; `None` once an answer refuted it.
    spelling: Option<Spelling>,
    /// For each op other than `json/tag-safe`, the member edits learned
    /// from its answers (every answer they were learned from is the
    /// reference's with them made).
    edits: HashMap<&'static str, Vec<MemberEdit>>,
    /// For each learned op, the first question a substituted run answered
    /// otherwise than the reference (asked before, or as learned), with that
    /// answer: the step shown for a learned behaviour that stood in.
    first_learned: Vec<ProbeStep>,
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
            allowance: None,
            sent_bytes: 0,
            probed: HashSet::new(),
            unexplained: HashMap::new(),
            spelling: Some(Spelling::default()),
            edits: HashMap::new(),
            first_learned: Vec::new(),
            references: HashMap::new(),
        }
    }

    /// Requests sent to the implementation for probes so far.
    pub fn sent(&self) -> usize {
        self.sent
    }

    /// The requests and bytes the run's allowance still leaves, and
    /// whether its shared part (three quarters of either) is spent.
    fn left(&self) -> (usize, usize, bool) {
        let Some(allowance) = self.allowance else {
            return (usize::MAX, usize::MAX, false);
        };
        let requests = allowance.requests.saturating_sub(self.sent);
        let bytes = allowance.bytes.saturating_sub(self.sent_bytes);
        let spent = requests <= allowance.requests / 4 || bytes <= allowance.bytes / 4;
        (requests, bytes, spent)
    }

    /// Whether a request of `bytes` bytes fits the failure's `budget` and
    /// the run's allowance; if so, it is charged to both.
    fn charge(&mut self, budget: &mut usize, bytes: usize) -> bool {
        let (_, bytes_left, _) = self.left();
        if *budget == 0 || bytes > bytes_left {
            return false;
        }
        *budget -= 1;
        self.sent_bytes += bytes;
        true
    }

    /// The behaviours of the reference probes are derived with.
    pub fn features(&self) -> Features {
        self.features
    }

    /// How the failed request of `op`, to which the implementation gave
    /// `actual` (writing `stderr`), is explained by its lower ops' answers,
    /// or `None` when no substitution reproduces any of it (the failure
    /// keeps its own causes).
    pub fn attribute(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        failure: Failure<'_>,
    ) -> Option<Chain> {
        let mut budget = MAX_PROBES;
        self.explain([expected, actual], failure, 0, &mut budget)
    }

    /// [`Prober::attribute`] within a run's allowance, which it never
    /// exceeds: once three quarters of its requests or bytes have been
    /// sent, only the first failure of an op with its own causes (its
    /// causes without probing, `own`) sends requests, within the last
    /// quarter; after `UNEXPLAINED_KIND` failures of a kind whose probes
    /// explained nothing (nor told its conversation apart), another sends
    /// none; such a failure is explained
    /// only by answers already had and what was learned (spec
    /// `runner.probes`: no failure borrows another's explanation).
    pub fn attribute_within(
        &mut self,
        expected: &mut dyn Implementation,
        actual: &mut dyn Implementation,
        failure: Failure<'_>,
        own: Vec<Cause>,
        allowance: Allowance,
    ) -> Option<Chain> {
        self.allowance = Some(allowance);
        let (left, _, spent) = self.left();
        let kind = (failure.op.to_owned(), own);
        let first_of_its_kind = self.probed.insert(kind.clone());
        let unexplained = self.unexplained.get(&kind).copied().unwrap_or(0);
        let mut budget = if (spent && !first_of_its_kind) || unexplained >= UNEXPLAINED_KIND {
            0
        } else {
            left.min(MAX_PROBES)
        };
        let asked = budget > 0;
        let chain = self.explain([expected, actual], failure, 0, &mut budget);
        // Probes that told the failure's conversation apart told something.
        let told = || {
            kind.1.iter().any(|cause| {
                *cause == causes::conversation_cause()
                    && self.tell(failure.op, failure.input, cause.clone()) != *cause
            })
        };
        if chain.is_none() && asked && !told() {
            *self.unexplained.entry(kind).or_default() += 1;
        }
        chain
    }

    /// What a failed request of `op` whose conversation differs tells once
    /// its probes were answered (spec `runner.causes`, `runner.probes`):
    /// `cause` itself unless it is the conversation's; then the
    /// projection's when `op` is `retain` with an unbounded budget (the
    /// projection alone), retention's when the `retain` of the same
    /// snapshot with an unbounded budget agrees, the budget's when the
    /// `retain` of each source of a preparation with the reference's
    /// budget agrees; else (nothing lower was asked) the conversation's.
    pub fn tell(&self, op: &str, input: &Json, cause: Cause) -> Cause {
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
        match op {
            "retain" if agreed => causes::told_conversation(causes::Told::Retention),
            "prepare" if agreed => causes::told_conversation(causes::Told::Budget),
            _ => cause,
        }
    }

    /// [`Prober::tell`], but a budget told where one side answered
    /// `INTERNAL` is that error's cause (spec `runner.causes`); and when
    /// that leaves a `retain`'s conversation
    /// untold, what the implementation's answer `actual` itself shows:
    /// when its data's members are its projection's and every item it
    /// retains is, in order, an item of that projection (of the same role,
    /// the same text or one cut with a notice), the difference is
    /// retention's. The projection is the implementation's own answer to
    /// the projection probe when it was asked, else the reference's (its
    /// projection then agrees as far as the answer shows).
    pub fn tell_answered(
        &self,
        op: &str,
        input: &Json,
        cause: Cause,
        actual: &Result<Outcome, String>,
    ) -> Cause {
        let told = self.tell(op, input, cause);
        if let Some(error) = self.internal_not_the_conversation(op, input, &told, actual) {
            return error;
        }
        if told != causes::conversation_cause() || op != "retain" {
            return told;
        }
        let Ok(Outcome::Output(answer)) = actual else {
            return told;
        };
        // Both answers in the reference's member names, as a composition
        // reads them.
        let back = self.renamed_back("retain");
        let answer = read_in(back.as_deref(), answer);
        let (Some(data), Some(retained)) = (
            answer.get("data"),
            answer
                .get("data")
                .and_then(|data| data.get("conversation"))
                .and_then(Json::as_array),
        ) else {
            return told;
        };
        let mut members = vec![(
            JsString::from("snapshot"),
            input.get("snapshot").cloned().unwrap_or(Json::Null),
        )];
        members.extend(
            input
                .get("label")
                .map(|label| (JsString::from("label"), label.clone())),
        );
        members.push((JsString::from("maxBytes"), Json::Number(UNBOUNDED)));
        // The projection it retained from: its own when it was asked (the
        // projection probe), else the reference's.
        let request = Json::Object(members);
        let Outcome::Output(reference) = dispatch::handle_in(self.features, "retain", &request)
        else {
            return told;
        };
        let projection = match self.answers.get(&key("retain", &request)) {
            Some((Ok(Outcome::Output(asked)), _)) => read_in(back.as_deref(), asked).into_owned(),
            _ => reference.clone(),
        };
        let fixed = |data: &Json| -> Vec<(JsString, Json)> {
            data.as_object()
                .unwrap_or_default()
                .iter()
                .filter(|(name, _)| !name.is("conversation"))
                .cloned()
                .collect()
        };
        let Some(whole) = projection.get("data") else {
            return told;
        };
        if fixed(whole) != fixed(data) {
            return told;
        }
        let projected = whole
            .get("conversation")
            .and_then(Json::as_array)
            .unwrap_or_default();
        let mut next = 0;
        for item in retained {
            let (Some(role), Some(Json::String(text))) = (item.get("role"), item.get("text"))
            else {
                return told;
            };
            let found = projected[next..].iter().position(|known| {
                known.get("role") == Some(role)
                    && known
                        .get("text")
                        .and_then(Json::as_js_str)
                        .is_some_and(|known| known.units() == text.units() || is_cut(text.units()))
            });
            match found {
                Some(offset) => next += offset + 1,
                None => return told,
            }
        }
        // What it kept is of its projection: the projection's conversation
        // differing from the reference's is what differs, else retention.
        let conversation = |projection: &Json| {
            projection
                .get("data")
                .and_then(|data| data.get("conversation"))
                .cloned()
        };
        if conversation(&projection) != conversation(&reference) {
            return causes::told_conversation(causes::Told::Projection);
        }
        causes::told_conversation(causes::Told::Retention)
    }

    /// The cause of an `INTERNAL` error one side answered where the
    /// conversation was told (spec `runner.causes`) but no conversation
    /// is implicated: every source retained alike with the reference's
    /// budget (`told` the budget), or every preparation of a pre-step
    /// answered alike; a crash copying the content, a check elsewhere:
    /// `unexpected error` or `error INTERNAL not raised`, what differs.
    fn internal_not_the_conversation(
        &self,
        op: &str,
        input: &Json,
        told: &Cause,
        actual: &Result<Outcome, String>,
    ) -> Option<Cause> {
        let budget = *told == causes::told_conversation(causes::Told::Budget);
        let pre_step_conversation = *told == causes::conversation_cause() && op == "pre-step";
        if !(budget || pre_step_conversation) {
            return None;
        }
        let expected = dispatch::handle_in(self.features, op, input);
        let internal =
            |answer: &Outcome| matches!(answer, Outcome::Error { code, .. } if code == INTERNAL);
        let error = match (&expected, actual) {
            (Outcome::Output(_), Ok(answer)) if internal(answer) => causes::unexpected_error(op),
            (expected, Ok(Outcome::Output(_))) if internal(expected) => {
                causes::not_raised(INTERNAL)
            }
            _ => return None,
        };
        // A pre-step's preparations, each answered alike (or none).
        let prepared_alike = || {
            derive(self.features, op, input, &expected)
                .iter()
                .filter(|probe| probe.op == "prepare")
                .all(|probe| {
                    let key = key(probe.op, &probe.input);
                    match (self.expected.get(&key), self.answers.get(&key)) {
                        (Some(Ok(expected)), Some((actual, _))) => agrees(expected, actual),
                        _ => false,
                    }
                })
        };
        (budget || prepared_alike()).then_some(error)
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

    /// Explains `failure` by substitution (spec `runner.probes`): asks its
    /// probes; puts the implementation's answers of the ops that answer
    /// wrong in place of the reference's ([`substitution::compose`]); when
    /// that reproduces some of the failure, the ops whose substitution alone
    /// changes the answer explain it, each traced down the same way, and
    /// what the substituted run does not reproduce keeps its own causes.
    fn explain(
        &mut self,
        sides: [&mut dyn Implementation; 2],
        failure: Failure<'_>,
        depth: usize,
        budget: &mut usize,
    ) -> Option<Chain> {
        if depth == MAX_DEPTH {
            return None;
        }
        let [expected_side, actual_side] = sides;
        // What answers already had and what was learned of the
        // implementation explain without asking when, substituted, they
        // reproduce some of the failure (what they leave keeps its own
        // causes) and tell its conversation apart; only else are probes
        // asked.
        if *budget > 0 {
            let mut nothing = 0;
            let known = self.explain(
                [&mut *expected_side, &mut *actual_side],
                failure,
                depth,
                &mut nothing,
            );
            let told = |chain: &Chain| !chain.causes().contains(&causes::conversation_cause());
            if let Some(chain) = known.filter(told) {
                return Some(chain);
            }
        }
        let Failure {
            op,
            input,
            answer,
            stderr,
        } = failure;
        // A failure's own answer is its op's, a question the op refuses
        // included (a probe's is the question's).
        let own = if depth == 0 && refused_by_its_op(op, input) {
            dispatch::handle_in(self.features, op, input)
        } else {
            self.reference(op, input)
        };
        let mut failing = self.failing_probes(
            [&mut *expected_side, &mut *actual_side],
            Failure {
                op,
                input,
                answer,
                stderr,
            },
            &own,
            budget,
        );
        // `retain`'s own answer, asked (or had): not one stood in for by
        // what was learned, which retains as the reference does.
        let retain_answered = failing.iter().any(|step| step.op == "retain");
        let mut substituted: Vec<&'static str> = Vec::new();
        for step in &failing {
            let op = ops::known_ops().find(|known| *known == step.op)?;
            if !substituted.contains(&op) {
                substituted.push(op);
            }
        }
        // Past the budget, what was learned of the implementation's lower
        // ops stands in for them, without asking.
        let mut stood_in = false;
        if *budget == 0 || self.left().1 == 0 {
            for lower in ops::composed_of(op) {
                if self.learned_within(lower) && !substituted.contains(lower) {
                    substituted.push(lower);
                    stood_in = true;
                }
            }
        }
        if substituted.is_empty() {
            return None;
        }
        // The composition must be the reference's for this input before an
        // implementation's answers are put into it.
        let faithful = self.substituted_run(actual_side, op, input, &own, &[], budget)?;
        if !matches!(&faithful, Composed::Answer(faithful) if agrees(&own, &Ok(faithful.clone()))) {
            return None;
        }
        self.first_learned.clear();
        let run = self.substituted_run(actual_side, op, input, &own, &substituted, budget)?;
        let changes = |run: &Composed| match run {
            Composed::Answer(run) => !agrees(&own, &Ok(run.clone())),
            Composed::Unraised => true,
        };
        if !changes(&run) {
            return None;
        }
        if stood_in {
            for step in std::mem::take(&mut self.first_learned) {
                if !failing.iter().any(|failed| failed.op == step.op) {
                    failing.push(step);
                }
            }
        }
        // The ops whose substitution alone changes the answer explain it;
        // when none does alone, all of them together.
        let mut explaining: Vec<&'static str> = Vec::new();
        for lower in substituted.iter().filter(|_| substituted.len() > 1) {
            let alone = self.substituted_run(actual_side, op, input, &own, &[lower], budget);
            if alone.is_some_and(|alone| changes(&alone)) {
                explaining.push(lower);
            }
        }
        if explaining.is_empty() {
            explaining = substituted.clone();
        }
        let mut steps: Vec<ProbeStep> = Vec::new();
        let mut traced: Vec<Cause> = Vec::new();
        for step in failing
            .iter()
            .filter(|step| explaining.iter().any(|op| *op == step.op))
        {
            let below = self.explain(
                [&mut *expected_side, &mut *actual_side],
                Failure {
                    op: &step.op,
                    input: &step.input,
                    answer: &step.actual,
                    stderr: &step.stderr,
                },
                depth + 1,
                budget,
            );
            let (path, causes) = match below {
                Some(chain) => (chain.steps.clone(), chain.causes()),
                None => (
                    Vec::new(),
                    self.own_causes(
                        &step.op,
                        &step.input,
                        &step.expected,
                        &step.actual,
                        &step.stderr,
                    ),
                ),
            };
            if steps.is_empty() {
                steps.push(step.clone());
                steps.extend(path);
            }
            for cause in causes {
                if !traced.contains(&cause) {
                    traced.push(cause);
                }
            }
        }
        if steps.is_empty() {
            return None;
        }
        // A lower answer that raises no error where the reference's did
        // reproduces the failure's disagreement, and nothing is left to
        // compare past it.
        let retained_by_retain = ops::prepares_messages(op) && retain_answered;
        let (reproduced, mut residual) = match &run {
            Composed::Answer(run) => (
                self.own_causes(op, input, &own, &Ok(run.clone()), ""),
                match (run, answer) {
                    (run, answer) if agrees(run, answer) => Vec::new(),
                    // With `retain`'s own answers in, what still differs in
                    // the region it answers (the prompt's conversation and
                    // what is derived from it, the stats) is what the
                    // composition does not model of them: `retain`'s.
                    (Outcome::Output(run), Ok(Outcome::Output(actual))) if retained_by_retain => {
                        causes::causes_per_region(op, run, actual)
                            .into_iter()
                            .filter(|(region, _)| *region == causes::Region::Own)
                            .map(|(_, cause)| self.tell_answered(op, input, cause, answer))
                            .collect()
                    }
                    _ => self.own_causes(op, input, run, answer, stderr),
                },
            ),
            Composed::Unraised => (self.own_causes(op, input, &own, answer, stderr), Vec::new()),
        };
        // A substituted run that changes the answer otherwise than the
        // failure does reproduces none of it, and explains nothing: the
        // failure keeps its own causes.
        if !residual.is_empty() {
            let failure = self.own_causes(op, input, &own, answer, stderr);
            if !reproduced.iter().any(|cause| failure.contains(cause)) {
                return None;
            }
            // What the substituted run changes that the failure does not
            // show is the composition's (it measured the implementation's
            // answer where the implementation measured otherwise), not the
            // implementation's: nor is its mirror in what the run leaves.
            let introduced: Vec<&Cause> = reproduced
                .iter()
                .filter(|cause| !failure.iter().any(|shown| causes::same_cause(shown, cause)))
                .collect();
            residual.retain(|left| {
                !introduced
                    .iter()
                    .any(|cause| causes::same_cause(cause, left))
            });
        }
        Some(Chain {
            steps,
            traced,
            substituted: explaining.iter().map(|op| (*op).to_owned()).collect(),
            reproduced,
            residual,
        })
    }

    /// The causes of `actual` differing from `expected` for a request of
    /// `op` (spec `runner.causes`): each region's, the conversation's told
    /// apart by the probes already answered.
    fn own_causes(
        &mut self,
        op: &str,
        input: &Json,
        expected: &Outcome,
        actual: &Result<Outcome, String>,
        stderr: &str,
    ) -> Vec<Cause> {
        let expected = match expected {
            Outcome::Output(output) => Side::Output(output),
            Outcome::Error { code, .. } => Side::Error(code),
        };
        causes::every(op, expected, Side::of(actual, stderr))
            .into_iter()
            .map(|cause| self.tell_answered(op, input, cause, actual))
            .collect()
    }

    /// The probes of a failed request on which the implementation answers
    /// otherwise than the expected side, each asked of both (answers cached
    /// for the run) while the budget lasts, then only as already answered,
    /// or as learned; no more once the ops that failed so far, substituted,
    /// reproduce the implementation's whole answer.
    fn failing_probes(
        &mut self,
        sides: [&mut dyn Implementation; 2],
        failure: Failure<'_>,
        own: &Outcome,
        budget: &mut usize,
    ) -> Vec<ProbeStep> {
        let [expected_side, actual_side] = sides;
        let Failure {
            op, input, answer, ..
        } = failure;
        let mut failing = Vec::new();
        for probe in derive(self.features, op, input, own) {
            if !self.askable(&probe) || (probe.op == op && probe.input == *input) {
                continue;
            }
            let key = key(probe.op, &probe.input);
            let cached = self.expected.contains_key(&key) && self.answers.contains_key(&key);
            if !cached && !self.charge(budget, key.len()) {
                if let Some(spelled) = self.stand_in(&probe) {
                    // What was learned of the implementation: not asked.
                    let expected = self.reference(probe.op, &probe.input);
                    if !agrees(&expected, &Ok(spelled.clone())) {
                        failing.push(ProbeStep {
                            op: probe.op.to_owned(),
                            input: probe.input.clone(),
                            expected,
                            actual: Ok(spelled),
                            stderr: String::new(),
                            learned: true,
                        });
                    }
                }
                // Past the budget, a probe is not asked: its op is not
                // substituted, and what it would explain stays its own.
                continue;
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
                if !self.capable(probe.op, &probe.input, output) {
                    continue;
                }
            }
            self.learn(probe.op, &expected, &actual);
            if agrees(&expected, &actual) {
                continue;
            }
            failing.push(ProbeStep {
                op: probe.op.to_owned(),
                input: probe.input.clone(),
                expected,
                actual,
                stderr,
                learned: false,
            });
            // The later probes are not asked once the ops that failed so
            // far reproduce the whole answer.
            let mut substituted: Vec<&'static str> = Vec::new();
            for step in &failing {
                if let Some(op) = ops::known_ops().find(|known| *known == step.op) {
                    if !substituted.contains(&op) {
                        substituted.push(op);
                    }
                }
            }
            let run = self.substituted_run(&mut *actual_side, op, input, own, &substituted, budget);
            if matches!(run, Some(Composed::Answer(run)) if agrees(&run, answer)) {
                break;
            }
        }
        failing
    }

    /// Takes the implementation's answer to a vector whose expected answer
    /// is `expected` as an observation of it, learned from at no cost (a
    /// passing answer of another op than `json/tag-safe` teaches nothing).
    pub fn observe(&mut self, op: &str, expected: &Outcome, answer: &Result<Outcome, String>) {
        if op == "json/tag-safe" || !agrees(expected, answer) {
            self.learn(op, expected, answer);
        }
    }

    /// The reference's answer to a request, computed once per run.
    fn reference(&mut self, op: &str, input: &Json) -> Outcome {
        let key = key(op, input);
        if let Some(known) = self.references.get(&key) {
            return known.clone();
        }
        let answer = reference_answer(self.features, op, input);
        self.references.insert(key, answer.clone());
        answer
    }

    /// Learns from the implementation's answer to a question (spec
    /// `runner.probes`): its JSON spelling from `json/tag-safe` (an answer
    /// that spaces a gap otherwise than an earlier one refutes it for the
    /// run), the member edits another op's answer is the reference's with.
    fn learn(&mut self, op: &str, expected: &Outcome, actual: &Result<Outcome, String>) {
        let (Outcome::Output(ours), Ok(Outcome::Output(theirs))) = (expected, actual) else {
            return;
        };
        if op != "json/tag-safe" {
            let Some(op) = ops::known_ops().find(|known| *known == op) else {
                return;
            };
            let mut taught = vec![(op, substitution::member_edits(ours, theirs))];
            // A preparation writes each source's retained data into its
            // prompt: where `retain` cannot be asked, their member edits
            // are what is learned of it.
            if op == "prepare" && !self.declared.contains(&"retain") {
                let data =
                    |output: &Json| match output.get("additionalContext").and_then(prompt_data) {
                        Some(Json::Array(sources)) => sources,
                        _ => Vec::new(),
                    };
                for (ours, theirs) in data(ours).iter().zip(&data(theirs)) {
                    taught.push(("retain", substitution::member_edits(ours, theirs)));
                }
            }
            for (op, edits) in taught {
                let learned = self.edits.entry(op).or_default();
                for edit in edits.into_iter().flatten() {
                    if !learned.contains(&edit) {
                        learned.push(edit);
                    }
                }
            }
            self.edits.retain(|_, edits| !edits.is_empty());
            return;
        }
        let (Json::String(ours), Json::String(theirs)) = (ours, theirs) else {
            return;
        };
        let learned = self
            .spelling
            .as_mut()
            .map(|spelling| spelling.learn(ours.units(), theirs.units()));
        if learned == Some(Learned::Refuted) {
            self.spelling = None;
        }
    }

    /// Whether something that differs from the reference was learned of
    /// `op`.
    fn learned(&self, op: &str) -> bool {
        match op {
            "json/tag-safe" => self.spelling.as_ref().is_some_and(Spelling::differs),
            _ => self.edits.contains_key(op),
        }
    }

    /// Whether something that differs from the reference was learned of
    /// `op` or of an op it is composed of ([`ops::composed_of`],
    /// which lists them all): what was learned can stand in for its
    /// answers.
    fn learned_within(&self, op: &str) -> bool {
        self.learned(op) || ops::composed_of(op).iter().any(|lower| self.learned(lower))
    }

    /// The implementation's answer to a question as what was learned of it
    /// writes it: the reference's answer spelled as learned (when every
    /// gap of it was seen), or with the learned member edits made.
    fn stand_in(&self, probe: &Probe) -> Option<Outcome> {
        if !self.learned(probe.op) {
            return None;
        }
        let Outcome::Output(ours) = reference_answer(self.features, probe.op, &probe.input) else {
            return None;
        };
        if probe.op != "json/tag-safe" {
            let edits = self.edits.get(probe.op)?;
            return Some(Outcome::Output(substitution::apply_edits(&ours, edits)));
        }
        let spelling = self.spelling.as_ref()?;
        let spelled = spelling.spell(ours.as_js_str()?.units())?;
        Some(Outcome::Output(Json::String(JsString::from_units(spelled))))
    }

    /// What was learned of the implementation's `probe.op` standing in for
    /// its answer: composed of the lower ops as they are substituted, when
    /// the op has a composition (a `retain` measured with the learned
    /// spelling, of a projection with the learned edits), then with the
    /// learned edits made ([`Prober::stand_in`] otherwise).
    fn stood_in(
        &mut self,
        actual_side: &mut dyn Implementation,
        probe: &Probe,
        substituted: &[&'static str],
        budget: &mut usize,
        depth: usize,
    ) -> Option<Outcome> {
        if !self.learned_within(probe.op) {
            return None;
        }
        if depth < MAX_DEPTH && !ops::composed_of(probe.op).is_empty() {
            let features = self.features;
            let reference = self.reference(probe.op, &probe.input);
            let mut lower = |below: &Probe| {
                self.lower_answer(&mut *actual_side, below, substituted, budget, depth + 1)
            };
            let composed =
                substitution::compose(features, probe.op, &probe.input, &reference, &mut lower);
            if let Some(Composed::Answer(Outcome::Output(composed))) = composed {
                let edits = self.edits.get(probe.op).cloned().unwrap_or_default();
                return Some(Outcome::Output(substitution::apply_edits(
                    &composed, &edits,
                )));
            }
        }
        self.stand_in(probe)
    }

    /// Keeps `step` as its op's first learned step, unless one is kept.
    fn first_learned_of(&mut self, step: ProbeStep) {
        if !self.first_learned.iter().any(|known| known.op == step.op) {
            self.first_learned.push(step);
        }
    }

    /// Whether a question may be sent to the implementation: its op is
    /// declared, and it needs no capability not declared.
    fn askable(&self, probe: &Probe) -> bool {
        self.declared.contains(&probe.op)
            && self.capable(probe.op, &probe.input, &Json::Null)
            && !refused_by_its_op(probe.op, &probe.input)
    }

    fn capable(&self, op: &str, input: &Json, output: &Json) -> bool {
        required_capabilities(op, input, output)
            .iter()
            .all(|needed| self.capabilities.contains(needed))
    }

    /// The reference's answer to a request of `op` composed with the
    /// implementation's answers for the ops `substituted` names and its
    /// own composition for the others ([`substitution::compose`]); `None`
    /// when it has no composition or an answer could not be had within
    /// `budget`.
    fn substituted_run(
        &mut self,
        actual_side: &mut dyn Implementation,
        op: &str,
        input: &Json,
        own: &Outcome,
        substituted: &[&'static str],
        budget: &mut usize,
    ) -> Option<Composed> {
        let features = self.features;
        let mut lower =
            |probe: &Probe| self.lower_answer(&mut *actual_side, probe, substituted, budget, 0);
        substitution::compose(features, op, input, own, &mut lower)
    }

    /// A lower op's answer in a substituted run: the implementation's
    /// (asked within `budget`, past it spelled as learned) when its op is
    /// substituted; else the reference's composition of it, which is the
    /// reference's own answer when nothing it is composed of is
    /// substituted.
    fn lower_answer(
        &mut self,
        actual_side: &mut dyn Implementation,
        probe: &Probe,
        substituted: &[&'static str],
        budget: &mut usize,
        depth: usize,
    ) -> Option<Composed> {
        let reference = self.reference(probe.op, &probe.input);
        if !substituted.contains(&probe.op) {
            let composed_of = ops::composed_of(probe.op);
            if depth == MAX_DEPTH || !substituted.iter().any(|op| composed_of.contains(op)) {
                return Some(Composed::Answer(reference));
            }
            let features = self.features;
            let mut lower = |below: &Probe| {
                self.lower_answer(&mut *actual_side, below, substituted, budget, depth + 1)
            };
            let composed =
                substitution::compose(features, probe.op, &probe.input, &reference, &mut lower);
            return Some(composed.unwrap_or(Composed::Answer(reference)));
        }
        let key = key(probe.op, &probe.input);
        if !self.answers.contains_key(&key) {
            if !self.askable(probe) || !self.charge(budget, key.len()) {
                let stood_in =
                    self.stood_in(&mut *actual_side, probe, substituted, budget, depth)?;
                if !agrees(&reference, &Ok(stood_in.clone())) {
                    self.first_learned_of(ProbeStep {
                        op: probe.op.to_owned(),
                        input: probe.input.clone(),
                        expected: reference,
                        actual: Ok(stood_in.clone()),
                        stderr: String::new(),
                        learned: true,
                    });
                }
                return Some(Composed::Answer(self.read_back(probe.op, stood_in)));
            }
            self.sent += 1;
            let answer = actual_side.call(probe.op, &probe.input);
            let stderr = actual_side.take_stderr();
            self.answers.insert(key.clone(), (answer, stderr));
        }
        let (answer, stderr) = self.answers.get(&key)?;
        let answer = match answer {
            Ok(Outcome::Error { code, .. }) if code == UNSUPPORTED => {
                return Some(Composed::Answer(reference))
            }
            Ok(answer) => answer.clone(),
            Err(_) => return None,
        };
        if self.learned(probe.op) && !agrees(&reference, &Ok(answer.clone())) {
            let stderr = stderr.clone();
            self.first_learned_of(ProbeStep {
                op: probe.op.to_owned(),
                input: probe.input.clone(),
                expected: reference,
                actual: Ok(answer.clone()),
                stderr,
                learned: false,
            });
        }
        Some(Composed::Answer(self.read_back(probe.op, answer)))
    }

    /// An answer of `op` as the op composed of it reads it (spec
    /// `runner.probes`): its members in the reference's names where `op`
    /// was learned to rename them ([`substitution::names_read_back`]).
    fn read_back(&self, op: &str, answer: Outcome) -> Outcome {
        match (answer, self.renamed_back(op)) {
            (Outcome::Output(output), Some(back)) => {
                Outcome::Output(substitution::apply_edits(&output, &back))
            }
            (answer, _) => answer,
        }
    }

    /// The edits that read `op`'s answers back in the reference's member
    /// names, when `op` was learned to rename some.
    fn renamed_back(&self, op: &str) -> Option<Vec<MemberEdit>> {
        let back = substitution::names_read_back(self.edits.get(op)?);
        (!back.is_empty()).then_some(back)
    }
}

/// Whether a retained text is a cut one: it holds an omission notice,
/// `\n[` then the implementation's words (spec `retention.notice`; a port
/// may word it otherwise), or nothing is left of it.
fn is_cut(text: &[u16]) -> bool {
    text.is_empty()
        || text
            .windows(2)
            .any(|pair| pair == [u16::from(b'\n'), u16::from(b'[')])
}

/// Whether the implementation's answer passes against the reference's, as
/// a vector's would (spec `conformance.comparison`); `UNSUPPORTED` is no
/// disagreement.
pub fn agrees(expected: &Outcome, actual: &Result<Outcome, String>) -> bool {
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
            if let Some(id) = member("sessionId") {
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
            probes.push(remote_listing(input));
            let candidates = output.and_then(Json::as_array).unwrap_or_default();
            for candidate in candidates.iter().take(MAX_OF_A_KIND) {
                probes.push(format_probe(
                    candidate,
                    "sessionId",
                    mention_label(features),
                ));
            }
        }
        _ => {}
    }
    probes
}

/// The `candidates/list` a `candidates/remote` lists from: its input
/// without `limit`, which a remote listing ignores for the configured one
/// (spec `candidates.remote`).
pub(super) fn remote_listing(input: &Json) -> Probe {
    let members = input
        .as_object()
        .unwrap_or_default()
        .iter()
        .filter(|(name, _)| !name.is("limit"))
        .cloned()
        .collect();
    Probe {
        op: "candidates/list",
        input: Json::Object(members),
    }
}

/// The member of a remote candidate its mention shows (spec
/// `candidates.remote`): the display title with `remote-display-label`.
pub(super) fn mention_label(features: Features) -> &'static str {
    if features.remote_display_label {
        "displayTitle"
    } else {
        "label"
    }
}

/// `mention/format` of a record's id and label.
pub(super) fn format_probe(record: &Json, id: &str, label: &str) -> Probe {
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

/// `answer` read with `back`, the edits that name its members as the
/// reference does ([`substitution::names_read_back`]); itself without.
fn read_in<'a>(back: Option<&[MemberEdit]>, answer: &'a Json) -> Cow<'a, Json> {
    match back {
        Some(back) => Cow::Owned(substitution::apply_edits(answer, back)),
        None => Cow::Borrowed(answer),
    }
}

/// Whether a question of `op` is one its op refuses, which the reference
/// answers as the op composed of it asks it (spec `runner.probes`): the
/// retention of a preparation's source whose snapshot has no string id (a
/// preparation checks its request's reference, `retain` the snapshot's).
/// It is never sent: what was learned of the implementation stands in.
pub fn refused_by_its_op(op: &str, input: &Json) -> bool {
    op == "retain"
        && !matches!(
            input
                .get("snapshot")
                .and_then(|snapshot| snapshot.get("session"))
                .and_then(|session| session.get("id")),
            Some(Json::String(_))
        )
}

/// The reference's answer to a question of `op`: the op's, or what the op
/// composed of it asks where its op refuses it ([`refused_by_its_op`]):
/// what a preparation retains of the source ([`dispatch::retained`]).
pub fn reference_answer(features: Features, op: &str, input: &Json) -> Outcome {
    if !refused_by_its_op(op, input) {
        return dispatch::handle_in(features, op, input);
    }
    let (Some(max_bytes), Some(Json::String(label))) = (
        input.get("maxBytes").and_then(positive_safe_integer),
        input.get("label"),
    ) else {
        return dispatch::handle_in(features, op, input);
    };
    let snapshot = input.get("snapshot").unwrap_or(&Json::Null);
    dispatch::retained(features, snapshot, label, max_bytes)
        .map_or_else(|failure| failure, Outcome::Output)
}

/// A preparation's probes: its configuration, its prompt's data as tag-safe
/// JSON, and each source retained with the budget the reference computed.
pub(super) fn prepare_probes(
    features: Features,
    input: &Json,
    output: Option<&Json>,
) -> Vec<Probe> {
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
pub(super) fn prompt_data(context: &Json) -> Option<Json> {
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
    let mut reference = |probe: &Probe| Some(dispatch::handle_in(features, probe.op, &probe.input));
    let (mut parses, mut preparations, _) =
        pre_step_questions(input, &mut reference).unwrap_or_default();
    parses.truncate(MAX_OF_A_KIND);
    preparations.truncate(MAX_OF_A_KIND);
    parses.extend(preparations);
    parses
}

/// The `prepare` of each direct user message that mentions a session, as a
/// pre-step builds it from what `parse` answers to each of its text
/// blocks: `Err` with the first parse that fails (the pre-step fails with
/// it, spec `pre-step.errors`), `None` when a parse could not be had.
pub(super) fn pre_step_preparations(
    input: &Json,
    parse: &mut Answers,
) -> Option<Result<Vec<Probe>, Outcome>> {
    let (_, preparations, failed) = pre_step_questions(input, parse)?;
    Some(match failed {
        Some(failed) => Err(failed),
        None => Ok(preparations),
    })
}

/// A pre-step's `mention/parse` questions, its `prepare` questions built
/// from `parse`'s answers, and the first parse that failed.
fn pre_step_questions(
    input: &Json,
    parse: &mut Answers,
) -> Option<(Vec<Probe>, Vec<Probe>, Option<Outcome>)> {
    let mut parses = Vec::new();
    let mut preparations = Vec::new();
    let mut failed = None;
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
            let question = Probe::new("mention/parse", [("text", text.clone())]);
            match parse(&question)? {
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
                error @ Outcome::Error { .. } => {
                    readable = false;
                    failed.get_or_insert(error);
                }
            }
            parses.push(question);
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
    Some((parses, preparations, failed))
}

/// The session id a URI's payload spells, read leniently (padding,
/// either base64 alphabet, any JSON string literal): what `uri/encode` must
/// be asked to learn whether the URI is canonical.
pub(super) fn spelled_id(uri: &[u16]) -> Option<JsString> {
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
        // A run may hold another URI: the scanner may match it alone.
        at += scheme.len();
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
        let prober = Prober::within(Features::NEWEST, vec!["prepare"], Vec::new());
        let told = |input: &Json| {
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
        // A side's `INTERNAL` where every source retains alike is that
        // error, not the budget (a crash copying the content).
        let crash = Ok(Outcome::Error {
            code: INTERNAL.to_owned(),
            message: "RecursionError".to_owned(),
        });
        assert_eq!(
            agreeing_on_retain("prepare", &prepare)
                .tell_answered("prepare", &prepare, conversation.clone(), &crash)
                .to_string(),
            "snapshot: unexpected error"
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
