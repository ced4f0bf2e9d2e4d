//! Differential testing of two implementations (spec `runner.differential`):
//! the same seeded random requests go to both, and every disagreement is
//! reported with the smallest request found that still disagrees.

pub mod classes;
pub mod confusion;
pub mod corpus;
pub mod irregular;
pub mod minimize;
pub mod order;
pub mod requests;

use super::adapter::{is_hang, Description, Implementation, Slow, MAX_HANGS_PER_OP};
use super::causes::{self, Cause};
use super::diff;
pub use super::ops::{known_ops, reference_features};
use super::probes::{self, Chain, Prober};
use super::report::{actual_json, raw};
use super::vectors::{required_capabilities, LONE_SURROGATES, OPTIONAL_SEQ};
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::input_types::DYNAMIC_INPUTS;
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use classes::Signature;
use proptest::prop_oneof;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use requests::{Reach, Scope};
use serde::Serialize;
use serde_json::value::RawValue;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One op the run generates, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedOp {
    /// The op.
    pub op: &'static str,
    /// What its requests may use.
    pub scope: Scope,
}

/// Which ops a run generates and which it leaves out, with why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The ops both implementations support, in the order of the op table.
    pub ops: Vec<PlannedOp>,
    /// Ops not generated, each with the reason.
    pub left_out: Vec<(String, String)>,
    /// Ops whose behaviours differ between the sides, each with what is
    /// hidden.
    pub mixed: Vec<(String, String)>,
    /// Both declare the capability `lone-surrogates`: requests may hold lone
    /// surrogates, and answers holding them are compared (spec
    /// `protocol.capabilities`).
    pub lone_surrogates: bool,
    /// The capabilities both declare: a request that needs another is not
    /// sent (spec `protocol.capabilities`).
    pub capabilities: Vec<String>,
    /// What else both declare, which widens the requests (features
    /// `candidates-fuzzy` and `config-fraction-type`, capability
    /// `optional-seq`).
    pub reach: Reach,
    /// The reference's behaviours disagreements are probed with (spec
    /// `runner.probes`): B's ([`reference_features`]). Probing is off for
    /// the ops whose behaviours differ between the sides, whose lower ops'
    /// answers differ by design.
    pub probes: Option<crate::features::Features>,
    /// The ops a disagreement may be probed on: every op both sides answer
    /// with the same behaviours, drawn or not. `--ops mention/format`
    /// still traces a wrong mention to `uri/encode`, so one bug stays one
    /// class however the draw is narrowed (spec
    /// `runner.differential.classes`).
    pub probe_ops: Vec<&'static str>,
}

impl Plan {
    /// A prober for the run's disagreements, when it probes.
    fn prober(&self) -> Option<Prober> {
        let features = self.probes?;
        Some(Prober::within(
            features,
            self.probe_ops.clone(),
            self.capabilities.clone(),
        ))
    }
}

impl Default for Reach {
    fn default() -> Self {
        Reach::ALL
    }
}

impl Plan {
    /// What the run leaves out because one side does not declare it, one
    /// line each.
    pub fn narrowed(&self) -> Vec<&'static str> {
        let mut lines = Vec::new();
        if !self.reach.fuzzy {
            lines.push("candidates: a non-empty query matches at most one candidate, by substring (the feature candidates-fuzzy is not declared by both)");
        }
        if !self.reach.fraction_types {
            lines.push("configurations: referenceContextFraction is a number or null (the feature config-fraction-type is not declared by both)");
        }
        if !self.reach.optional_seq {
            lines.push("snapshots: capturedThroughSeq always present (the capability optional-seq is not declared by both)");
        }
        if !self.reach.dynamic_inputs {
            lines.push("inputs: every typed member drawn of its declared JSON type (the capability dynamic-inputs is not declared by both)");
        }
        lines
    }
}

/// Decides what to generate from the two `describe` answers, restricted to
/// `only` when given.
pub fn plan(a: &Description, b: &Description, only: Option<&[String]>) -> Plan {
    let capable = |capability: &str| {
        [a, b]
            .iter()
            .all(|d| d.capabilities.iter().any(|c| c == capability))
    };
    let (declared_a, declared_b) = (a.declared(), b.declared());
    let both = |name: &str| declared_a.declares(name) && declared_b.declares(name);
    let mut plan = Plan {
        lone_surrogates: capable(LONE_SURROGATES),
        capabilities: a
            .capabilities
            .iter()
            .filter(|capability| capable(capability))
            .cloned()
            .collect(),
        reach: Reach {
            dynamic_inputs: capable(DYNAMIC_INPUTS),
            fuzzy: both("candidates-fuzzy"),
            fraction_types: both("config-fraction-type"),
            optional_seq: capable(OPTIONAL_SEQ),
        },
        probes: Some(reference_features(b)),
        ..Plan::default()
    };
    for op in known_ops() {
        let answered = declared_a.answers(op) && declared_b.answers(op);
        let scope = Scope::between(op, declared_a.features, declared_b.features);
        if answered && !scope.is_mixed() {
            plan.probe_ops.push(op);
        }
        if only.is_some_and(|only| !only.iter().any(|o| o == op)) {
            continue;
        }
        let Some(missing) = [(&declared_a, a), (&declared_b, b)]
            .into_iter()
            .find(|(declared, _)| !declared.answers(op))
            .map(|(_, description)| &description.name)
        else {
            if scope.is_mixed() {
                let differ: Vec<&str> = scope.differ.names().collect();
                plan.mixed.push((
                    op.to_owned(),
                    format!("{} ({})", hidden(op), differ.join(", ")),
                ));
            }
            plan.ops.push(PlannedOp { op, scope });
            continue;
        };
        let feature = crate::features::op_feature(op).unwrap_or(op);
        plan.left_out.push((
            op.to_owned(),
            format!("{missing} does not declare the feature {feature}"),
        ));
    }
    plan
}

/// What a comparison of sides whose behaviours differ leaves out, per op.
fn hidden(op: &str) -> &'static str {
    match op {
        "prepare" | "pre-step" => "requests without route, spill store, developer/system events or capturedThroughSeq outside its domain; the omissions section and capturedFormatVersion hidden",
        "candidates/list" | "candidates/remote" => "requests with no or an empty query; displayTitle and sameWorkspace hidden",
        "config/check" => "configurations without referenceContextFraction",
        "retain" => "snapshots without developer/system events or capturedThroughSeq outside its domain",
        _ => "nothing",
    }
}

/// The heading of the newest generation's omissions section, which runs to
/// the end of the prompt text (spec `prepare.omissions`).
const OMISSIONS_HEADING: &str = "\n\n## Reference omissions\n\n";

/// An outcome with what only the newest generation adds removed, for a
/// comparison across generations (spec `runner.differential`).
pub fn normalize(op: &str, outcome: Outcome) -> Outcome {
    let Outcome::Output(output) = outcome else {
        return outcome;
    };
    Outcome::Output(match op {
        "prepare" => without_v2_prompt_additions(output),
        "pre-step" => match output {
            Json::Array(messages) => Json::Array(
                messages
                    .into_iter()
                    .map(without_v2_prompt_additions)
                    .collect(),
            ),
            other => other,
        },
        "candidates/list" | "candidates/remote" => match output {
            Json::Array(candidates) => Json::Array(
                candidates
                    .into_iter()
                    .map(|candidate| without_members(candidate, &["displayTitle", "sameWorkspace"]))
                    .collect(),
            ),
            other => other,
        },
        _ => output,
    })
}

fn without_members(value: Json, names: &[&str]) -> Json {
    match value {
        Json::Object(members) => Json::Object(
            members
                .into_iter()
                .filter(|(key, _)| {
                    !names
                        .iter()
                        .any(|n| key.units() == JsString::from(*n).units())
                })
                .collect(),
        ),
        other => other,
    }
}

/// Applies `change` to the member `name` of an object.
fn map_member(value: Json, name: &str, change: impl FnOnce(Json) -> Json) -> Json {
    match value {
        Json::Object(members) => {
            let mut change = Some(change);
            Json::Object(
                members
                    .into_iter()
                    .map(|(key, member)| {
                        if key.units() == JsString::from(name).units() {
                            if let Some(change) = change.take() {
                                return (key, change(member));
                            }
                        }
                        (key, member)
                    })
                    .collect(),
            )
        }
        other => other,
    }
}

fn map_items(value: Json, change: impl Fn(Json) -> Json) -> Json {
    match value {
        Json::Array(items) => Json::Array(items.into_iter().map(change).collect()),
        other => other,
    }
}

/// A prepared message or `prepare` result (`{content, additionalContext?}`
/// or `{source, content}`) without the omissions section and without
/// `capturedFormatVersion` in the source record.
fn without_v2_prompt_additions(value: Json) -> Json {
    let strip_text = |block: Json| {
        map_member(block, "text", |text| match text {
            Json::String(text) => {
                let units = text.units();
                let heading: Vec<u16> = OMISSIONS_HEADING.encode_utf16().collect();
                let cut = units
                    .windows(heading.len())
                    .position(|window| window == heading.as_slice());
                match cut {
                    Some(at) => Json::String(JsString::from_units(units[..at].to_vec())),
                    None => Json::String(text),
                }
            }
            other => other,
        })
    };
    let strip_source = |source: Json| {
        map_member(source, "references", |references| {
            map_items(references, |reference| {
                without_members(reference, &["capturedFormatVersion"])
            })
        })
    };
    let is_reference_message = value
        .get("source")
        .and_then(|source| source.get("kind"))
        .and_then(Json::as_string)
        .is_some_and(|kind| kind == "session-reference");
    let value = map_member(value, "additionalContext", |context| {
        let context = map_member(context, "source", strip_source);
        map_member(context, "content", |content| map_items(content, strip_text))
    });
    if is_reference_message {
        let value = map_member(value, "source", strip_source);
        map_member(value, "content", |content| map_items(content, strip_text))
    } else {
        value
    }
}

/// How two answers to one request compare: `None` when they agree, else
/// the disagreement's class and an explanation. Outputs compare exactly,
/// errors by code (spec `conformance.comparison`); where the sides'
/// behaviours differ ([`Scope::is_mixed`](requests::Scope::is_mixed)) the newer additions are hidden
/// first.
pub fn compare(
    op: &str,
    scope: Scope,
    a: Result<Outcome, String>,
    b: Result<Outcome, String>,
    stderr: [&str; 2],
) -> Option<Mismatch> {
    let prepare = |outcome: Result<Outcome, String>| {
        outcome.map(|outcome| {
            if scope.is_mixed() {
                normalize(op, outcome)
            } else {
                outcome
            }
        })
    };
    let (a, b) = (prepare(a), prepare(b));
    let signature = classes::signature(op, &a, &b, stderr)?;
    let (explanation, also) = match (&a, &b) {
        (Ok(Outcome::Output(x)), Ok(Outcome::Output(y))) => (
            diff::explain_as(x, y, ["A", "B"]),
            causes::causes_per_region(op, x, y)
                .into_iter()
                .map(|(_, cause)| cause)
                .filter(|cause| *cause != signature.cause)
                .collect(),
        ),
        _ => (format!("A: {}\n  B: {}", show(&a), show(&b)), Vec::new()),
    };
    Some(Mismatch {
        signature,
        also,
        explanation,
        a,
        b,
        chain: None,
    })
}

/// Two answers that disagree.
#[derive(Clone, Debug)]
pub struct Mismatch {
    /// Its class.
    pub signature: Signature,
    /// Every further cause it shows, each counted in its own class too
    /// (spec `runner.differential.classes`, `runner.causes`: every edit
    /// counts): another region's, or what a substituted run reproduced
    /// beside what it left.
    pub also: Vec<Cause>,
    /// Both sides and the first difference, for a person.
    pub explanation: String,
    /// A's answer, as compared.
    pub a: Result<Outcome, String>,
    /// B's answer, as compared.
    pub b: Result<Outcome, String>,
    /// The failing probes down to the lowest op where B answers otherwise
    /// than A (spec `runner.probes`), when one does.
    pub chain: Option<Chain>,
}

impl Mismatch {
    /// Whether a side did not answer at all (spec `runner.slow`).
    fn hung(&self) -> bool {
        [&self.a, &self.b]
            .into_iter()
            .any(|answer| matches!(answer, Err(problem) if is_hang(problem)))
    }

    /// This disagreement, which `irregularity` alone makes of a request
    /// that agrees without it (spec `runner.differential.classes`): its
    /// class is the irregularity's, in `op`'s family for a value of
    /// another type, everywhere for an integer-like key; what the answers
    /// show is its other reading.
    fn irregular_by(mut self, op: &str, irregularity: &irregular::Irregularity) -> Mismatch {
        // What the answers show stays the other reading: a bug of another
        // layer that only an irregular value brings out joins its class
        // when that class is larger (spec runner.causes).
        let shown = self.signature.cause.clone();
        self.signature.cause = if irregularity.index_key {
            Cause {
                family: None,
                edit: super::causes::INDEX_KEYS.to_owned(),
            }
        } else {
            Cause {
                family: Some(super::causes::family(op)),
                edit: format!("a value of another type at {}", irregularity.locus),
            }
        };
        self.signature.alternative = Some(shown);
        self.chain = None;
        self.also.clear();
        self
    }

    /// This disagreement explained by `chain` (spec `runner.probes`): when
    /// the substituted run reproduces all of it, its class is the lowest
    /// probe's cause, shown at that probe; else it is the first cause the
    /// substituted run leaves, the disagreement's own.
    fn traced(mut self, chain: Chain) -> Mismatch {
        let first = chain
            .residual()
            .first()
            .cloned()
            .unwrap_or_else(|| chain.cause());
        self.also = chain
            .causes()
            .into_iter()
            .filter(|cause| *cause != first)
            .collect();
        if !chain.residual().is_empty() {
            self.signature.cause = first;
            self.signature.alternative = None;
            return self;
        }
        let lowest = chain.lowest();
        let (_, path) = lowest.cause_at();
        self.signature.cause = first;
        self.signature.alternative = None;
        self.signature.op = lowest.op.clone();
        self.signature.path = path;
        self.chain = Some(chain);
        self
    }
}

/// What one request of a substitution told.
enum Asked {
    /// The sides disagree on it: the request, and the disagreement.
    Disagrees(Json, Box<Mismatch>),
    /// The sides agree on it.
    Agrees,
    /// It could not tell (not sent, or not compared).
    Unknown,
}

/// What substitution decided about a disagreement on an irregular request
/// (spec `runner.differential.classes`).
enum Substituted {
    /// The request with every irregularity repaired disagrees too: this is
    /// the disagreement, and no irregularity is its cause.
    Regular(Json, Box<Mismatch>),
    /// The repaired request agrees, and the irregularity at this index put
    /// back alone makes the same disagreement (the request, the
    /// disagreement): it is sufficient, the cause.
    Sufficient(Json, Box<Mismatch>, usize),
    /// No irregularity alone was sufficient (or the repaired request could
    /// not be asked), and repairing the one at this index alone makes the
    /// sides agree: it is necessary, the cause.
    Necessary(usize),
    /// Neither.
    Undecided,
}

/// Requests one substitution asks at most, beyond the disagreement's own.
const SUBSTITUTION_REQUESTS: usize = 16;

/// Delta debugging over a request's irregularities (Zeller: a state is a
/// cause when putting the failing run's value into the passing run
/// reproduces the failure). `asked` asks the request with the given
/// irregularities repaired; `target` is the disagreement's cause. An
/// irregularity put back is refined into those it holds (an object of
/// another type holding an integer-like key is the key's); necessity is
/// tried innermost first.
fn substitution(
    irregular: &[irregular::Irregularity],
    target: &Cause,
    asked: &mut dyn FnMut(Vec<&irregular::Irregularity>) -> Asked,
) -> Substituted {
    let mut budget = SUBSTITUTION_REQUESTS;
    let mut ask = |skip: &[usize]| {
        if budget == 0 {
            return Asked::Unknown;
        }
        budget -= 1;
        asked(
            irregular
                .iter()
                .enumerate()
                .filter(|(at, _)| !skip.contains(at))
                .map(|(_, irregularity)| irregularity)
                .collect(),
        )
    };
    let same = |asked: Asked| match asked {
        Asked::Disagrees(request, found) if found.signature.cause == *target => {
            Some((request, found))
        }
        _ => None,
    };
    let inside = |outer: &irregular::Irregularity, inner: &irregular::Irregularity| {
        inner.path.len() > outer.path.len() && inner.path.starts_with(&outer.path)
    };
    match ask(&[]) {
        Asked::Disagrees(regular, found) => return Substituted::Regular(regular, found),
        Asked::Agrees => {
            for (at, outer) in irregular.iter().enumerate() {
                if irregular.iter().any(|other| inside(other, outer)) {
                    continue;
                }
                let held: Vec<usize> = (0..irregular.len())
                    .filter(|inner| inside(outer, &irregular[*inner]))
                    .collect();
                let whole: Vec<usize> = std::iter::once(at).chain(held.iter().copied()).collect();
                let Some((request, found)) = same(ask(&whole)) else {
                    continue;
                };
                if held.is_empty() {
                    return Substituted::Sufficient(request, found, at);
                }
                if let Some((request, found)) = same(ask(&[at])) {
                    return Substituted::Sufficient(request, found, at);
                }
                for inner in &held {
                    if let Some((request, found)) = same(ask(&[at, *inner])) {
                        return Substituted::Sufficient(request, found, *inner);
                    }
                }
                return Substituted::Sufficient(request, found, at);
            }
        }
        Asked::Unknown => {}
    }
    for at in (0..irregular.len()).rev() {
        let all_but: Vec<usize> = (0..irregular.len()).filter(|other| *other != at).collect();
        if let Asked::Agrees = ask(&all_but) {
            return Substituted::Necessary(at);
        }
    }
    Substituted::Undecided
}

fn show(answer: &Result<Outcome, String>) -> String {
    match answer {
        Ok(Outcome::Output(output)) => format!("output {}", diff::show(output)),
        Ok(Outcome::Error { code, message }) => format!("error {code} ({message})"),
        Err(problem) => format!("protocol failure: {problem}"),
    }
}

/// One class of disagreements, with its shrunk example.
#[derive(Clone, Debug)]
pub struct Class {
    /// What identifies it (its cause), and where its first case showed.
    pub signature: Signature,
    /// The ops its cases came from, in the order first seen.
    pub ops: Vec<&'static str>,
    /// The other reading all its cases share, if they do.
    pub alternative: Option<Cause>,
    /// Cases that fell in it.
    pub count: u64,
    /// The first case numbers (at most [`CASES_KEPT`]).
    pub cases: Vec<u64>,
    /// The smallest request input found with the same signature.
    pub input: Json,
    /// The answers to it.
    pub example: Mismatch,
    /// Shrinking steps that kept the signature.
    pub shrink_steps: usize,
}

impl Class {
    /// The class case number `case` of `op` opens, shown by `example` (the
    /// answers to `input`, found in `shrink_steps` steps).
    fn first(
        op: &'static str,
        case: u64,
        input: Json,
        example: Mismatch,
        shrink_steps: usize,
    ) -> Class {
        Class {
            alternative: example.signature.alternative.clone(),
            signature: example.signature.clone(),
            ops: vec![op],
            count: 1,
            cases: vec![case],
            input,
            example,
            shrink_steps,
        }
    }

    /// Counts case number `case` of `op` in the class; `alternative` is
    /// the case's other reading when the class is its first cause's (a
    /// class keeps an other reading only all its cases share), `None` when
    /// the class is a further cause of the case.
    fn add(&mut self, op: &'static str, case: u64, alternative: Option<&Option<Cause>>) {
        self.count += 1;
        if !self.ops.contains(&op) {
            self.ops.push(op);
        }
        if alternative.is_some_and(|alternative| *alternative != self.alternative) {
            self.alternative = None;
        }
        if self.cases.len() < CASES_KEPT && !self.cases.contains(&case) {
            self.cases.push(case);
        }
    }
}

/// How many case numbers a class keeps.
pub const CASES_KEPT: usize = 10;

/// Why a run ended before its last case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stopped {
    /// `--time-limit` passed.
    TimeLimit,
    /// The run was interrupted (SIGINT).
    Interrupted,
    /// An implementation cannot be started or described any more.
    Dead(String),
    /// The caller asked to stop at the first class.
    FirstClass,
}

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stopped::TimeLimit => f.write_str("the time limit passed"),
            Stopped::Interrupted => f.write_str("interrupted"),
            Stopped::Dead(why) => write!(f, "an implementation is dead: {why}"),
            Stopped::FirstClass => f.write_str("the first class was found"),
        }
    }
}

/// The outcome of a run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases compared.
    pub cases: u64,
    /// Cases where both agreed.
    pub agreed: u64,
    /// Per op: (agreed, compared).
    pub per_op: BTreeMap<&'static str, (u64, u64)>,
    /// Per op: the cases A and B answered `UNSUPPORTED` (not compared, not
    /// counted in `cases`).
    pub not_implemented: BTreeMap<&'static str, [u64; 2]>,
    /// Per op: the cases drawn (compared or not).
    pub drawn: BTreeMap<&'static str, u64>,
    /// Per op: why its cases were not compared (outside what both declare,
    /// or not sent after hangs), and how many each reason kept out.
    pub kept_out: BTreeMap<&'static str, BTreeMap<String, u64>>,
    /// Per op and side (`A`, `B`): the cases answered after the timeout,
    /// within the grace period, and the latest of them (spec
    /// `runner.slow`).
    pub slow: BTreeMap<(&'static str, &'static str), (u64, Slow)>,
    /// Per op: the cases a side did not answer at all (at most
    /// [`MAX_HANGS_PER_OP`]; later cases of the op are not sent).
    pub hung: BTreeMap<&'static str, u64>,
    /// The classes, in the order they were found.
    pub classes: Vec<Class>,
    /// Why the run ended early, if it did.
    pub stopped: Option<Stopped>,
}

impl Summary {
    /// `agree N/M`, and the cases left out for a missing capability.
    pub fn line(&self) -> String {
        let mut line = format!("agree {}/{}", self.agreed, self.cases);
        let beyond = self.beyond_capability();
        if beyond > 0 {
            line.push_str(&format!(
                " ({beyond} more cases not compared: outside what both declare, per op above)"
            ));
        }
        line
    }

    /// Cases not compared because they lie outside what both declare (a
    /// capability one side lacks, the protocol's contract), not counted in
    /// `cases`: every case kept out but those not sent after hangs.
    pub fn beyond_capability(&self) -> u64 {
        self.kept_out
            .values()
            .flat_map(|reasons| reasons.iter())
            .filter(|(why, _)| why.as_str() != HUNG_TOO_OFTEN)
            .map(|(_, count)| count)
            .sum()
    }

    /// The cases of `op` a side answered `UNSUPPORTED`.
    pub fn unsupported(&self, op: &str) -> u64 {
        self.not_implemented
            .get(op)
            .map_or(0, |counts| counts.iter().sum())
    }

    /// `not implemented: OP by B (N cases), …` (spec
    /// `runner.differential`), when a side answered `UNSUPPORTED`.
    pub fn not_implemented_line(&self) -> Option<String> {
        let listed: Vec<String> = self
            .not_implemented_by_side()
            .map(|(op, side, cases)| format!("{op} by {side} ({cases} cases)"))
            .collect();
        (!listed.is_empty()).then(|| format!("not implemented: {}", listed.join(", ")))
    }

    /// Each op a side answered `UNSUPPORTED`, that side and its cases.
    fn not_implemented_by_side(
        &self,
    ) -> impl Iterator<Item = (&'static str, &'static str, u64)> + '_ {
        self.not_implemented.iter().flat_map(|(op, counts)| {
            ["A", "B"]
                .into_iter()
                .zip(counts)
                .filter(|(_, cases)| **cases > 0)
                .map(|(side, cases)| (*op, side, *cases))
        })
    }

    /// The ops that compared fewer than [`STARVED_PERCENT`] % of the cases
    /// drawn for them (less those a side does not implement), each with
    /// what kept most of them out (spec `runner.differential.reach`): such
    /// a run fails, since an op it says it compared was hardly tested.
    pub fn starved(&self) -> Vec<Starved> {
        self.drawn
            .iter()
            .filter_map(|(op, &drawn)| {
                let unsupported = self.unsupported(op);
                let planned = drawn - unsupported;
                let compared = self.per_op.get(op).map_or(0, |counts| counts.1);
                // A side that answered every case sent `UNSUPPORTED` does not
                // implement the op: listed as such, not starved.
                let kept_out: u64 = self
                    .kept_out
                    .get(op)
                    .map_or(0, |reasons| reasons.values().sum());
                let not_implemented = unsupported > 0 && unsupported + kept_out >= drawn;
                if planned == 0 || not_implemented || compared * 100 >= planned * STARVED_PERCENT {
                    return None;
                }
                // What kept most cases out: a reason of the contract, or a
                // side's `UNSUPPORTED` to some of them.
                let reasons = self
                    .kept_out
                    .get(op)
                    .into_iter()
                    .flatten()
                    .map(|(why, count)| (*count, why.clone()));
                let unsupported_by_side = self
                    .not_implemented_by_side()
                    .filter(|(side_op, _, _)| side_op == op)
                    .map(|(_, side, cases)| {
                        (
                            cases,
                            format!("{side} answered UNSUPPORTED to {cases} of {drawn} cases"),
                        )
                    });
                let reason = reasons
                    .chain(unsupported_by_side)
                    .max_by_key(|(count, _)| *count)
                    .map_or_else(|| "the run ended".to_owned(), |(_, why)| why);
                Some(Starved {
                    op,
                    planned,
                    compared,
                    reason,
                })
            })
            .collect()
    }

    /// `slow: OP by SIDE answered in N s (limit M s), K cases`, one line
    /// per op and side answered late (spec `runner.slow`).
    pub fn slow_lines(&self) -> Vec<String> {
        self.slow
            .iter()
            .map(|((op, side), (cases, latest))| {
                format!("slow: {op} by {side} {latest} at the latest, {cases} cases")
            })
            .collect()
    }

    /// `hangs: OP N, …` with the cases not sent after them, when a side
    /// hung (spec `runner.slow`).
    pub fn hangs_line(&self) -> Option<String> {
        let listed: Vec<String> = self
            .hung
            .iter()
            .map(|(op, hangs)| {
                let skipped = self
                    .kept_out
                    .get(op)
                    .and_then(|reasons| reasons.get(HUNG_TOO_OFTEN))
                    .map_or(String::new(), |skipped| {
                        format!(" ({skipped} later cases not sent)")
                    });
                format!("{op} {hangs}{skipped}")
            })
            .collect();
        (!listed.is_empty()).then(|| format!("hangs: {}", listed.join(", ")))
    }

    /// The classes, largest first (ties: found first).
    pub fn classes_by_size(&self) -> Vec<&Class> {
        let mut classes: Vec<&Class> = self.classes.iter().collect();
        classes.sort_by_key(|class| std::cmp::Reverse(class.count));
        classes
    }
}

/// Below this share (in percent) of its planned cases compared, an op
/// fails the run (spec `runner.differential.reach`).
pub const STARVED_PERCENT: u64 = 5;

/// An op whose cases were nearly all left out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Starved {
    /// The op.
    pub op: &'static str,
    /// Its cases drawn, less those a side answered `UNSUPPORTED`.
    pub planned: u64,
    /// Its cases compared.
    pub compared: u64,
    /// What kept most of the others out: the member or capability, or a
    /// side's `UNSUPPORTED`.
    pub reason: String,
}

impl fmt::Display for Starved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} compared {} of {} cases (under {STARVED_PERCENT} %): {}",
            self.op, self.compared, self.planned, self.reason
        )
    }
}

/// Why an op's later cases were not sent after its hangs.
const HUNG_TOO_OFTEN: &str = "a side hung on it twice: later cases not sent";

/// At most this many shrinking probes for a class whose example hangs,
/// each waiting the timeout only (spec `runner.slow`).
pub const HANG_SHRINK_PROBES: usize = 8;

/// How a run goes.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    /// Cases to generate.
    pub cases: u64,
    /// The seed: the same seed sends the same requests.
    pub seed: u64,
    /// Stop generating after this long, and report what was found.
    pub time_limit: Option<Duration>,
    /// Set (by a signal handler) to stop and report what was found.
    pub interrupted: Option<&'a AtomicBool>,
    /// Stop at the first disagreement (after shrinking it).
    pub first_class_only: bool,
    /// Shrink each new class's first case (on by default; off where only
    /// the classes and their counts matter).
    pub shrink: bool,
    /// Per op, the vector inputs a share of its cases grow from
    /// ([`corpus::seeds`]; spec `runner.differential.corpus`); none for
    /// `--corpus none`.
    pub seeds: BTreeMap<&'static str, Vec<Json>>,
    /// Type-confuse every eighth case of an op where both sides declare
    /// `dynamic-inputs` (spec `runner.differential.reach`; on by
    /// default).
    pub type_confusion: bool,
    /// After the drawn cases, send every case of the small scope of the
    /// order of checks ([`order::cases`]) when `pre-step` is drawn (spec
    /// `runner.differential.reach`; on by default).
    pub order_scope: bool,
}

impl Options<'_> {
    /// `cases` cases seeded with `seed`, no limits.
    pub fn new(cases: u64, seed: u64) -> Options<'static> {
        Options {
            cases,
            seed,
            time_limit: None,
            interrupted: None,
            first_class_only: false,
            shrink: true,
            seeds: BTreeMap::new(),
            type_confusion: true,
            order_scope: true,
        }
    }
}

/// Where a run is, for a progress line.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Cases done (compared or not).
    pub done: u64,
    /// Cases asked for.
    pub total: u64,
    /// Classes found so far.
    pub classes: usize,
    /// Time since the run started.
    pub elapsed: Duration,
}

/// The RNG of case `case` of a run seeded with `seed`: each case has its
/// own stream, so a case reproduces alone and `--cases` only adds cases.
fn case_rng(seed: u64, case: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    let mut state = seed ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for chunk in bytes.chunks_mut(8) {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// Whether an answer's output holds a lone surrogate.
fn holds_lone_surrogate(answer: &Result<Outcome, String>) -> bool {
    matches!(answer, Ok(Outcome::Output(output)) if output.has_lone_surrogate())
}

/// `value` with every lone surrogate of its strings and member names
/// replaced by U+FFFD, as a port on well-formed strings would receive it.
fn well_formed(value: Json) -> Json {
    let fix = |text: JsString| JsString::from(text.to_string_lossy().as_str());
    match value {
        Json::String(text) => Json::String(fix(text)),
        Json::Array(items) => Json::Array(items.into_iter().map(well_formed).collect()),
        Json::Object(members) => Json::Object(
            members
                .into_iter()
                .map(|(key, value)| (fix(key), well_formed(value)))
                .collect(),
        ),
        other => other,
    }
}

/// The JSON report of a run (`differential --format json`).
#[derive(Debug, Serialize)]
pub struct JsonReport {
    /// The seed.
    pub seed: u64,
    /// Cases compared.
    pub compared: u64,
    /// Cases where both agreed.
    pub agree: u64,
    /// Per op: `{op, agree, compared, drawn}`.
    #[serde(rename = "perOp")]
    pub per_op: Vec<OpCount>,
    /// Every class, largest first (counts complete even when
    /// `--max-classes` caps the human report).
    pub classes: Vec<JsonClass>,
    /// What was not compared, and why.
    #[serde(rename = "notCompared")]
    pub not_compared: NotCompared,
    /// The cases answered after the timeout, within the grace period
    /// (spec `runner.slow`): `{op, side, cases, seconds, limit}`, the
    /// latest answer's seconds.
    pub slow: Vec<JsonSlow>,
    /// Per op: the cases a side did not answer at all.
    pub hangs: BTreeMap<&'static str, u64>,
    /// Why the run ended early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Seconds the run took.
    pub seconds: f64,
}

/// An op a side answered late.
#[derive(Debug, Serialize)]
pub struct JsonSlow {
    /// The op.
    pub op: &'static str,
    /// `A` or `B`.
    pub side: &'static str,
    /// The cases answered late.
    pub cases: u64,
    /// Seconds the latest answer took.
    pub seconds: f64,
    /// The timeout, in seconds.
    pub limit: f64,
}

/// Agreement on one op.
#[derive(Debug, Serialize)]
pub struct OpCount {
    /// The op.
    pub op: &'static str,
    /// Cases agreed.
    pub agree: u64,
    /// Cases compared.
    pub compared: u64,
    /// Cases drawn, compared or not.
    pub drawn: u64,
}

/// What a run left out.
#[derive(Debug, Serialize)]
pub struct NotCompared {
    /// Ops not generated: `{op, reason}`.
    pub ops: Vec<OpReason>,
    /// Cases whose answer held a lone surrogate while one side lacks the
    /// capability.
    #[serde(rename = "beyondCapability")]
    pub beyond_capability: u64,
    /// Ops a side answered `UNSUPPORTED`: `{op, side, cases}`.
    #[serde(rename = "notImplemented")]
    pub not_implemented: Vec<NotImplemented>,
    /// Ops that compared under 5 % of their planned cases (the run fails):
    /// `{op, planned, compared, reason}`.
    pub starved: Vec<Starved>,
}

/// An op a side does not implement.
#[derive(Debug, Serialize)]
pub struct NotImplemented {
    /// The op.
    pub op: &'static str,
    /// `A` or `B`.
    pub side: &'static str,
    /// The cases it answered `UNSUPPORTED`.
    pub cases: u64,
}

/// An op left out, and why.
#[derive(Debug, Serialize)]
pub struct OpReason {
    /// The op.
    pub op: String,
    /// Why.
    pub reason: String,
}

/// One class in the JSON report.
#[derive(Debug, Serialize)]
pub struct JsonClass {
    /// The op of its shrunk example.
    pub op: String,
    /// The ops its cases came from.
    pub ops: Vec<&'static str>,
    /// The cause, as one line (spec `runner.causes`).
    pub signature: String,
    /// `output/output`, `error/output`, `output/error`, `error/error`,
    /// `protocol`.
    pub kind: &'static str,
    /// The folded path of the example's first difference.
    pub path: String,
    /// The cause's edit (the signature without its op family).
    pub detail: String,
    /// Cases in the class.
    pub count: u64,
    /// The first case numbers.
    pub cases: Vec<u64>,
    /// The shrunk example.
    pub example: JsonExample,
}

/// A class's shrunk example.
#[derive(Debug, Serialize)]
pub struct JsonExample {
    /// `{op, input}`.
    pub request: Box<RawValue>,
    /// A's answer.
    pub a: Box<RawValue>,
    /// B's answer.
    pub b: Box<RawValue>,
    /// Shrinking steps that kept the signature.
    #[serde(rename = "shrinkSteps")]
    pub shrink_steps: usize,
}

impl Summary {
    /// The run as a [`JsonReport`].
    pub fn to_report(&self, plan: &Plan, seed: u64, elapsed: Duration) -> JsonReport {
        JsonReport {
            seed,
            compared: self.cases,
            agree: self.agreed,
            per_op: self
                .drawn
                .iter()
                .map(|(op, drawn)| {
                    let (agree, compared) = self.per_op.get(op).copied().unwrap_or_default();
                    OpCount {
                        op,
                        agree,
                        compared,
                        drawn: *drawn,
                    }
                })
                .collect(),
            classes: self
                .classes_by_size()
                .into_iter()
                .map(|class| JsonClass {
                    op: class.signature.op.clone(),
                    ops: class.ops.clone(),
                    signature: class.signature.to_string(),
                    kind: class.signature.kind,
                    path: class.signature.path.clone(),
                    detail: class.signature.cause.edit.clone(),
                    count: class.count,
                    cases: class.cases.clone(),
                    example: JsonExample {
                        request: raw(&Json::object([
                            ("op", Json::str(&class.signature.op)),
                            ("input", class.input.clone()),
                        ])),
                        a: raw(&actual_json(&class.example.a)),
                        b: raw(&actual_json(&class.example.b)),
                        shrink_steps: class.shrink_steps,
                    },
                })
                .collect(),
            not_compared: NotCompared {
                ops: plan
                    .left_out
                    .iter()
                    .map(|(op, reason)| OpReason {
                        op: op.clone(),
                        reason: reason.clone(),
                    })
                    .collect(),
                beyond_capability: self.beyond_capability(),
                not_implemented: self
                    .not_implemented_by_side()
                    .map(|(op, side, cases)| NotImplemented { op, side, cases })
                    .collect(),
                starved: self.starved(),
            },
            slow: self
                .slow
                .iter()
                .map(|((op, side), (cases, latest))| JsonSlow {
                    op,
                    side,
                    cases: *cases,
                    seconds: latest.took.as_secs_f64(),
                    limit: latest.limit.as_secs_f64(),
                })
                .collect(),
            hangs: self.hung.clone(),
            stopped: self.stopped.as_ref().map(ToString::to_string),
            seconds: elapsed.as_secs_f64(),
        }
    }
}

/// At most this many shrinking probes per new class through the
/// generator's own shrinking (each probe asks both implementations once).
const SHRINK_PROBES: usize = 400;

/// At most this many probes per new class removing parts of the request
/// ([`minimize`](minimize::minimize)).
const REMOVAL_PROBES: usize = 1_500;

/// How one case came out.
enum Verdict {
    Agree,
    Disagree(Box<Mismatch>),
    /// The request needs, or an answer holds, what one side lacks a
    /// capability for: why.
    Beyond(String),
    /// A side answered `UNSUPPORTED`: it does not implement the op (spec
    /// `protocol.errors`), which is no disagreement. B's when `true`.
    NotImplemented {
        by_b: bool,
    },
}

/// Why a request that needs the capability `missing` is not sent: the
/// first ill-typed member, for `dynamic-inputs`.
fn beyond(op: &str, input: &Json, missing: &str) -> String {
    let member = (missing == DYNAMIC_INPUTS)
        .then(|| crate::protocol::input_types::first_ill_typed(op, input))
        .flatten()
        .map(|ill_typed| format!("{}, and ", ill_typed.describe()))
        .unwrap_or_default();
    format!("{member}the capability {missing} is not declared by both")
}

/// A protocol failure that means the implementation cannot go on: it cannot
/// be started, or a restarted process cannot describe itself.
fn dead(answer: &Result<Outcome, String>) -> Option<&str> {
    match answer {
        Err(problem)
            if problem.starts_with("cannot start")
                || problem.starts_with("describe after restart") =>
        {
            Some(problem)
        }
        _ => None,
    }
}

/// Runs the planned ops on `a` and `b` as `options` says, sorting every
/// disagreement into its class (spec `runner.differential.classes`): the
/// first case of a class is shrunk to the smallest input found **with the
/// same signature** (a step that changes the class is rejected); later
/// cases of the class are only counted. `on_progress` is called after each
/// case.
pub fn run(
    plan: &Plan,
    a: &mut dyn Implementation,
    b: &mut dyn Implementation,
    options: &Options,
    mut on_progress: impl FnMut(&Progress),
) -> Summary {
    let started = Instant::now();
    let mut summary = Summary::default();
    let strategies: Vec<_> = plan
        .ops
        .iter()
        .filter_map(|planned| {
            let drawn = requests::input_strategy_within(planned.op, planned.scope, plan.reach)?;
            let Some(seeds) = options.seeds.get(planned.op) else {
                return Some((planned, drawn));
            };
            // spec runner.differential.corpus: one case in four grows from
            // a vector's input, inside what both declare.
            let grown = requests::typed_within(
                planned.op,
                plan.reach,
                corpus::strategy(planned.op, seeds.clone()),
            );
            Some((planned, prop_oneof![3 => drawn, 1 => grown].boxed()))
        })
        .map(|(planned, strategy)| {
            // spec runner.differential.reach: every eighth case of an op
            // is type-confused, drawn from the same base so that the other
            // cases are what they would be without it.
            let confused =
                (options.type_confusion && plan.reach.dynamic_inputs && !planned.scope.is_mixed())
                    .then(|| confusion::strategy(strategy.clone()));
            (planned, strategy, confused)
        })
        .collect();
    if strategies.is_empty() {
        return summary;
    }
    let interrupted = || {
        options
            .interrupted
            .is_some_and(|flag| flag.load(Ordering::Relaxed))
    };
    let mut prober = plan.prober();
    let mut index: HashMap<Cause, usize> = HashMap::new();
    // spec runner.differential.reach: the small scope of the order of
    // checks, every case once, numbered after the drawn cases.
    // Only where the op's behaviours are the same on both sides, and only
    // the cases both can take (a stage needs `staged-cancel`).
    let ordered: Vec<(usize, Json)> = match strategies
        .iter()
        .position(|(planned, _, _)| planned.op == "pre-step" && !planned.scope.is_mixed())
    {
        Some(at) if options.order_scope => order::cases()
            .into_iter()
            .filter(|(_, input)| {
                required_capabilities("pre-step", input, &Json::Null)
                    .iter()
                    .all(|capability| plan.capabilities.contains(capability))
            })
            .map(|(_, input)| (at, input))
            .collect(),
        _ => Vec::new(),
    };
    for case in 0..options.cases + ordered.len() as u64 {
        if interrupted() {
            summary.stopped = Some(Stopped::Interrupted);
            break;
        }
        if options
            .time_limit
            .is_some_and(|limit| started.elapsed() >= limit)
        {
            summary.stopped = Some(Stopped::TimeLimit);
            break;
        }
        let mut runner = TestRunner::new_with_rng(Config::default(), case_rng(options.seed, case));
        let ops = strategies.len() as u64;
        let scoped;
        let (planned, strategy) = match case.checked_sub(options.cases) {
            Some(at) => {
                let (op, input) = &ordered[at as usize];
                scoped = proptest::strategy::Just(input.clone()).boxed();
                (&strategies[*op].0, &scoped)
            }
            None => {
                let (planned, plain, confused) = &strategies[(case % ops) as usize];
                let strategy = match confused {
                    Some(confused) if confusion::is_confused(case / ops) => confused,
                    _ => plain,
                };
                (planned, strategy)
            }
        };
        // spec runner.slow: an op that hung too often gets no more cases.
        if summary.hung.get(planned.op).copied().unwrap_or(0) >= MAX_HANGS_PER_OP {
            *summary.drawn.entry(planned.op).or_default() += 1;
            *summary
                .kept_out
                .entry(planned.op)
                .or_default()
                .entry(HUNG_TOO_OFTEN.to_owned())
                .or_default() += 1;
            continue;
        }
        a.set_patient(true);
        b.set_patient(true);
        let Ok(mut tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let lone_surrogates = plan.lone_surrogates;
        let common = &plan.capabilities;
        let dead_side: RefCell<Option<String>> = RefCell::new(None);
        let late: RefCell<Vec<(&'static str, Slow)>> = RefCell::new(Vec::new());
        // Without the capability on both sides, requests are made
        // well-formed, and a case whose answer holds a lone surrogate
        // anyway (decoded from an escape, or cut from a pair) is outside
        // the domain both implement.
        let ask = |a: &mut dyn Implementation,
                   b: &mut dyn Implementation,
                   op: &str,
                   input: &Json|
         -> Verdict {
            // A request that needs a capability one side lacks (an
            // ill-typed member for a typed port, a snapshot without
            // capturedThroughSeq, …) is outside the domain both implement:
            // not sent, generated or shrunk to (spec
            // protocol.capabilities).
            if let Some(why) = crate::protocol::input_types::outside_the_contract(op, input) {
                return Verdict::Beyond(why.to_owned());
            }
            let needed = required_capabilities(op, input, &Json::Null);
            if let Some(missing) = needed
                .iter()
                .find(|capability| !common.contains(capability))
            {
                return Verdict::Beyond(beyond(op, input, missing));
            }
            let answer_a = a.call(op, input);
            let stderr_a = a.take_stderr();
            let slow_a = a.take_slow();
            let answer_b = b.call(op, input);
            let stderr_b = b.take_stderr();
            let slow_b = b.take_slow();
            for (side, slow) in [("A", slow_a), ("B", slow_b)] {
                if let Some(slow) = slow {
                    late.borrow_mut().push((side, slow));
                }
            }
            if let Some(problem) = dead(&answer_a).or(dead(&answer_b)) {
                *dead_side.borrow_mut() = Some(problem.to_owned());
            }
            let unsupported = |answer: &Result<Outcome, String>| matches!(answer, Ok(Outcome::Error { code, .. }) if code == UNSUPPORTED);
            if unsupported(&answer_a) || unsupported(&answer_b) {
                return Verdict::NotImplemented {
                    by_b: !unsupported(&answer_a),
                };
            }
            if !lone_surrogates
                && (holds_lone_surrogate(&answer_a) || holds_lone_surrogate(&answer_b))
            {
                return Verdict::Beyond(format!(
                    "an answer holds a lone surrogate (the capability {LONE_SURROGATES} is not declared by both)"
                ));
            }
            match compare(
                op,
                planned.scope,
                answer_a,
                answer_b,
                [&stderr_a, &stderr_b],
            ) {
                Some(mismatch) => Verdict::Disagree(Box::new(mismatch)),
                None => Verdict::Agree,
            }
        };
        // spec runner.probes: a disagreement is sorted by the lowest op
        // where B already answers otherwise.
        let mut trace = |a: &mut dyn Implementation,
                         b: &mut dyn Implementation,
                         op: &str,
                         input: &Json,
                         mismatch: Mismatch|
         -> Mismatch {
            // A hang is not probed: every probe would wait again.
            let Some(prober) = prober.as_mut().filter(|_| !mismatch.hung()) else {
                return mismatch;
            };
            // What B answered is learned from, as a vector's answer is.
            if let Ok(expected) = &mismatch.a {
                prober.observe(op, expected, &mismatch.b);
            }
            let failure = probes::Failure {
                op,
                input,
                answer: &mismatch.b,
                stderr: "",
            };
            match prober.attribute(a, b, failure) {
                Some(chain) => mismatch.traced(chain),
                None => {
                    let mut mismatch = mismatch;
                    let own = mismatch.signature.cause.clone();
                    mismatch.signature.cause = prober.tell_answered(op, input, own, &mismatch.b);
                    let also = std::mem::take(&mut mismatch.also);
                    for cause in also {
                        let told = prober.tell_answered(op, input, cause, &mismatch.b);
                        if told != mismatch.signature.cause && !mismatch.also.contains(&told) {
                            mismatch.also.push(told);
                        }
                    }
                    mismatch
                }
            }
        };
        let current = |tree: &dyn ValueTree<Value = Json>| {
            if lone_surrogates {
                tree.current()
            } else {
                well_formed(tree.current())
            }
        };
        let mut input = current(&*tree);
        *summary.drawn.entry(planned.op).or_default() += 1;
        let verdict = ask(a, b, planned.op, &input);
        let mut renamed = false;
        for (side, slow) in late.take() {
            let entry = summary.slow.entry((planned.op, side)).or_insert((0, slow));
            entry.0 += 1;
            if slow.took > entry.1.took {
                entry.1 = slow;
            }
        }
        if matches!(&verdict, Verdict::Disagree(mismatch) if mismatch.hung()) {
            *summary.hung.entry(planned.op).or_default() += 1;
            // What follows only asks whether it still hangs: the timeout
            // is enough (spec runner.slow).
            a.set_patient(false);
            b.set_patient(false);
        }
        let mismatch = match verdict {
            Verdict::Beyond(why) => {
                *summary
                    .kept_out
                    .entry(planned.op)
                    .or_default()
                    .entry(why)
                    .or_default() += 1;
                None
            }
            Verdict::NotImplemented { by_b } => {
                summary.not_implemented.entry(planned.op).or_default()[usize::from(by_b)] += 1;
                None
            }
            Verdict::Agree => {
                summary.cases += 1;
                summary.agreed += 1;
                let counts = summary.per_op.entry(planned.op).or_default();
                counts.0 += 1;
                counts.1 += 1;
                None
            }
            Verdict::Disagree(mismatch) => {
                summary.cases += 1;
                summary.per_op.entry(planned.op).or_default().1 += 1;
                let mismatch = trace(a, b, planned.op, &input, *mismatch);
                // spec runner.differential.classes: where the request is
                // irregular (a member of another type, a null item, an
                // integer-like key), substitution decides whether that is
                // the cause: the request with every irregularity repaired
                // disagrees too (then that is the disagreement), or
                // agrees, and one irregularity put back alone makes the
                // same disagreement (then the class is that one's).
                let irregular = if plan.reach.dynamic_inputs {
                    irregular::irregularities(planned.op, &input)
                } else {
                    Vec::new()
                };
                // A crash or a hang is no answer: nothing to substitute.
                if irregular.is_empty() || mismatch.signature.kind == "protocol" {
                    Some(mismatch)
                } else {
                    let target = mismatch.signature.cause.clone();
                    let mut asked = |repairs: Vec<&irregular::Irregularity>| {
                        let candidate = irregular::repaired(input.clone(), &repairs);
                        match ask(a, b, planned.op, &candidate) {
                            Verdict::Disagree(found) if found.signature.kind != "protocol" => {
                                let found = trace(a, b, planned.op, &candidate, *found);
                                Asked::Disagrees(candidate, Box::new(found))
                            }
                            Verdict::Agree => Asked::Agrees,
                            _ => Asked::Unknown,
                        }
                    };
                    match substitution(&irregular, &target, &mut asked) {
                        Substituted::Regular(regular, found) => {
                            input = regular;
                            Some(*found)
                        }
                        Substituted::Sufficient(candidate, found, at) => {
                            input = candidate;
                            renamed = true;
                            Some(found.irregular_by(planned.op, &irregular[at]))
                        }
                        Substituted::Necessary(at) => {
                            renamed = true;
                            Some(mismatch.irregular_by(planned.op, &irregular[at]))
                        }
                        Substituted::Undecided => Some(mismatch),
                    }
                }
            }
        };
        if let Some(mut mismatch) = mismatch {
            // spec runner.differential.classes: every further cause of the
            // case counts in its own class, shown by this case unshrunk
            // (shrinking keeps the first cause, which may leave it).
            for cause in std::mem::take(&mut mismatch.also) {
                match index.get(&cause) {
                    Some(&known) => summary.classes[known].add(planned.op, case, None),
                    None if dead_side.borrow().is_some() => {}
                    None => {
                        let mut example = mismatch.clone();
                        example.signature.cause = cause.clone();
                        example.signature.alternative = None;
                        index.insert(cause, summary.classes.len());
                        summary.classes.push(Class::first(
                            planned.op,
                            case,
                            input.clone(),
                            example,
                            0,
                        ));
                    }
                }
            }
            match index.get(&mismatch.signature.cause) {
                Some(&known) => summary.classes[known].add(
                    planned.op,
                    case,
                    Some(&mismatch.signature.alternative),
                ),
                None if dead_side.borrow().is_some() => {}
                None => {
                    let target = mismatch.signature.cause.clone();
                    // A step keeps the class when its disagreement, traced,
                    // has the same cause, and the same kind (which sides
                    // answered errors) as the example it shrinks: shrinking
                    // never walks to another bug (spec
                    // runner.differential.classes).
                    let mut same = |a: &mut dyn Implementation,
                                    b: &mut dyn Implementation,
                                    op: &str,
                                    candidate: &Json,
                                    kind: Option<&str>|
                     -> Option<Mismatch> {
                        match ask(a, b, op, candidate) {
                            Verdict::Disagree(found) => {
                                let found = trace(a, b, op, candidate, *found);
                                let same_kind =
                                    kind.is_none_or(|kind| kind == found.signature.kind);
                                (found.signature.cause == target && same_kind).then_some(found)
                            }
                            _ => None,
                        }
                    };
                    let mut steps = 0;
                    // A traced class is shown, and shrunk, at its lowest
                    // probe: the smallest request of all.
                    let lowest = mismatch.chain.as_ref().map(|chain| {
                        let step = chain.lowest();
                        (step.op.clone(), step.input.clone())
                    });
                    let (op, mut smallest) = match lowest {
                        Some((op, probe)) => {
                            let at_probe = same(a, b, &op, &probe, None);
                            match at_probe {
                                Some(found) => (op, (probe, found)),
                                None => (planned.op.to_owned(), (input, mismatch)),
                            }
                        }
                        None => (planned.op.to_owned(), (input, mismatch)),
                    };
                    let kind = smallest.1.signature.kind;
                    // spec runner.slow: a hang's shrinking is bounded in
                    // probes, each waiting the timeout only.
                    let (shrink_probes, removal_probes) = if smallest.1.hung() {
                        (HANG_SHRINK_PROBES / 2, HANG_SHRINK_PROBES / 2)
                    } else {
                        (SHRINK_PROBES, REMOVAL_PROBES)
                    };
                    // A class named by an edit keeps the input that edit
                    // alone makes: a shrunk one would lose the edit.
                    let shrink = options.shrink && !renamed;
                    if op == planned.op && shrink && tree.simplify() {
                        let mut probes = 0;
                        while probes < shrink_probes && !interrupted() {
                            probes += 1;
                            let candidate = current(&*tree);
                            let moved = match same(a, b, &op, &candidate, Some(kind)) {
                                Some(found) => {
                                    smallest = (candidate, found);
                                    steps += 1;
                                    tree.simplify()
                                }
                                None => tree.complicate(),
                            };
                            if !moved {
                                break;
                            }
                        }
                    }
                    let mut last = None;
                    let budget = if shrink { removal_probes } else { 0 };
                    let removed = minimize::minimize(smallest.0.clone(), budget, |candidate| {
                        if interrupted() {
                            return false;
                        }
                        match same(a, b, &op, candidate, Some(kind)) {
                            Some(found) => {
                                last = Some(found);
                                true
                            }
                            None => false,
                        }
                    });
                    if removed.steps > 0 {
                        steps += removed.steps;
                        if let Some(found) = last {
                            smallest = (removed.input, found);
                        }
                    }
                    index.insert(target, summary.classes.len());
                    let (input, example) = smallest;
                    summary
                        .classes
                        .push(Class::first(planned.op, case, input, example, steps));
                }
            }
        }
        on_progress(&Progress {
            done: case + 1,
            total: options.cases + ordered.len() as u64,
            classes: summary.classes.len(),
            elapsed: started.elapsed(),
        });
        if let Some(problem) = dead_side.take() {
            summary.stopped = Some(Stopped::Dead(problem));
            break;
        }
        if options.first_class_only && !summary.classes.is_empty() {
            summary.stopped = Some(Stopped::FirstClass);
            break;
        }
    }
    merge_other_readings(&mut summary.classes);
    summary
}

/// Moves each class whose cases all have another reading into the class of
/// that reading, when that class is larger (spec `runner.causes`: a
/// disagreement with two readings counts under the one more share).
fn merge_other_readings(classes: &mut Vec<Class>) {
    let mut at = 0;
    while at < classes.len() {
        let target = classes[at].alternative.as_ref().and_then(|other| {
            classes.iter().position(|class| {
                class.signature.cause == *other && class.count > classes[at].count
            })
        });
        let Some(target) = target else {
            at += 1;
            continue;
        };
        let merged = classes.remove(at);
        let target = if target > at { target - 1 } else { target };
        let class = &mut classes[target];
        class.count += merged.count;
        class.cases.extend(merged.cases);
        class.cases.sort_unstable();
        class.cases.truncate(CASES_KEPT);
        for op in merged.ops {
            if !class.ops.contains(&op) {
                class.ops.push(op);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::Features;
    use crate::harness::runner::adapter::BuiltIn;

    /// runner.differential.classes: a case counts in the class of each
    /// cause it shows, a cut beside members renamed everywhere too.
    #[test]
    fn a_disagreement_shows_each_of_its_causes() {
        let answer = |text: &str| Ok(Outcome::Output(crate::js::json::parse(text).unwrap()));
        let a = answer(
            r#"{"data":{"sessionId":"s","conversation":[{"role":"user","text":"abc"}]},"stats":{"omittedBytes":0}}"#,
        );
        let b = answer(
            r#"{"data":{"session_id":"s","conversation":[{"role":"user","text":"ab"}]},"stats":{"omitted_bytes":1}}"#,
        );
        let mismatch =
            compare("retain", Scope::of(Features::RC8), a, b, ["", ""]).expect("disagree");
        assert_eq!(
            mismatch.signature.cause.to_string(),
            "members renamed camelCase → snake_case"
        );
        let also: Vec<String> = mismatch.also.iter().map(ToString::to_string).collect();
        assert_eq!(also, ["snapshot: conversation differs"]);
    }

    /// runner.differential.reach: a starved op names what kept most of its
    /// cases out, a side's `UNSUPPORTED` to part of them included.
    #[test]
    fn a_starved_op_names_what_kept_most_cases_out() {
        let op = "candidates/remote";
        let summary = Summary {
            drawn: BTreeMap::from([(op, 300)]),
            not_implemented: BTreeMap::from([(op, [0, 295])]),
            kept_out: BTreeMap::from([(
                op,
                BTreeMap::from([("the listing repeats a session id".to_owned(), 3)]),
            )]),
            per_op: BTreeMap::from([(op, (0, 0))]),
            ..Summary::default()
        };
        let starved = summary.starved();
        assert_eq!(starved.len(), 1);
        assert_eq!(
            starved[0].reason,
            "B answered UNSUPPORTED to 295 of 300 cases"
        );
        let fewer = Summary {
            not_implemented: BTreeMap::from([(op, [0, 2])]),
            per_op: BTreeMap::from([(op, (1, 1))]),
            kept_out: BTreeMap::from([(
                op,
                BTreeMap::from([("the listing repeats a session id".to_owned(), 290)]),
            )]),
            ..summary
        };
        assert_eq!(
            fewer.starved()[0].reason,
            "the listing repeats a session id"
        );
    }

    /// runner.differential.operation: a time limit that has passed, or an
    /// interrupt, stops the run before the next case, and the summary says
    /// why.
    #[test]
    fn a_time_limit_or_an_interrupt_stops_the_run_with_its_reason() {
        let mut a = BuiltIn(Features::NEWEST);
        let mut b = BuiltIn(Features::NEWEST);
        let (da, db) = (
            a.describe().expect("describe"),
            b.describe().expect("describe"),
        );
        let plan = plan(&da, &db, Some(&["uri/encode".to_owned()]));
        let mut options = Options::new(1_000, 7);
        options.time_limit = Some(Duration::ZERO);
        let summary = run(&plan, &mut a, &mut b, &options, |_| {});
        assert!(matches!(summary.stopped, Some(Stopped::TimeLimit)));
        assert_eq!(summary.cases, 0);
        let flag = AtomicBool::new(true);
        let mut options = Options::new(1_000, 7);
        options.interrupted = Some(&flag);
        let summary = run(&plan, &mut a, &mut b, &options, |_| {});
        assert!(matches!(summary.stopped, Some(Stopped::Interrupted)));
        let summary = run(&plan, &mut a, &mut b, &Options::new(20, 7), |_| {});
        assert!(summary.stopped.is_none());
        assert_eq!((summary.cases, summary.agreed), (20, 20));
    }

    fn mismatch(cause: &str) -> Box<Mismatch> {
        Box::new(Mismatch {
            also: Vec::new(),
            signature: Signature {
                cause: Cause {
                    family: None,
                    edit: cause.to_owned(),
                },
                alternative: None,
                op: "candidates/list".to_owned(),
                kind: "error/output",
                path: "$".to_owned(),
            },
            explanation: String::new(),
            a: Err(String::new()),
            b: Err(String::new()),
            chain: None,
        })
    }

    /// runner.differential.classes: substitution names the irregularity
    /// that alone makes the disagreement, refined into what it holds; when
    /// the regular request disagrees too, that is the disagreement; when
    /// nothing is sufficient, the innermost necessary one.
    #[test]
    fn substitution_finds_the_irregularity_that_makes_the_disagreement() {
        let input =
            crate::js::json::parse(r#"{"a":{"1":0},"b":5,"sessions":[{"id":"s","cwd":5}]}"#)
                .expect("fixture");
        let irregular = irregular::irregularities("candidates/list", &input);
        let target = mismatch("x").signature.cause;
        // The listed cwd of another type makes it: sufficient.
        let by_cwd = |repairs: Vec<&irregular::Irregularity>| {
            if repairs.iter().any(|repair| repair.locus == "cwd") {
                Asked::Agrees
            } else {
                Asked::Disagrees(Json::Null, mismatch("x"))
            }
        };
        let named = match substitution(&irregular, &target, &mut { by_cwd }) {
            Substituted::Sufficient(_, _, at) => irregular[at].locus.clone(),
            _ => panic!("not sufficient"),
        };
        assert_eq!(named, "cwd");
        // Every request disagrees: the regular one is the disagreement.
        let always = |_: Vec<&irregular::Irregularity>| Asked::Disagrees(Json::Null, mismatch("x"));
        assert!(matches!(
            substitution(&irregular, &target, &mut { always }),
            Substituted::Regular(..)
        ));
        // The regular request cannot be asked: the one whose repair alone
        // makes the sides agree is necessary.
        let necessary = |repairs: Vec<&irregular::Irregularity>| match repairs.len() {
            1 if repairs[0].locus == "cwd" => Asked::Agrees,
            1 => Asked::Disagrees(Json::Null, mismatch("x")),
            _ => Asked::Unknown,
        };
        let named = match substitution(&irregular, &target, &mut { necessary }) {
            Substituted::Necessary(at) => irregular[at].locus.clone(),
            _ => panic!("not necessary"),
        };
        assert_eq!(named, "cwd");
    }
}
