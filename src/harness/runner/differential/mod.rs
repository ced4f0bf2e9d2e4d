//! Differential testing of two implementations (spec `runner.differential`):
//! the same seeded random requests go to both, and every disagreement is
//! reported with the smallest request found that still disagrees.

pub mod requests;

use super::adapter::{Description, Implementation};
use super::diff::{self, first_difference};
use super::vectors::LONE_SURROGATES;
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::wire::Outcome;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use requests::Scope;
use std::collections::BTreeMap;

/// Every op the command can generate, with the features that define it in
/// each generation: `(op, rc.8 feature, newest feature)`; one feature for
/// both when the op is the same in every generation.
const OPS: &[(&str, &str, &str)] = &[
    ("uri/encode", "uri", "uri"),
    ("uri/decode", "uri", "uri"),
    ("mention/format", "mention", "mention"),
    ("mention/parse", "mention", "mention"),
    ("json/tag-safe", "json", "json"),
    // The newest generation's retain ignores developer/system events
    // (`surface-v2`); rc.8's throws on them.
    ("retain", "retain", "surface-v2"),
    ("prepare", "prepare-v1", "prepare-v2"),
    ("pre-step", "pre-step-v1", "pre-step-v2"),
    ("config/check", "config-v1", "config-v2"),
    ("candidates/list", "candidates-v1", "candidates-v2"),
    ("candidates/remote", "candidates-v1", "candidates-v2"),
    ("files/token", "files", "files"),
    ("files/format", "files", "files"),
    ("files/list", "files", "files"),
];

/// The op names the command can generate.
pub fn known_ops() -> impl Iterator<Item = &'static str> {
    OPS.iter().map(|(op, _, _)| *op)
}

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
    /// Ops whose generations differ, each with what is hidden.
    pub mixed: Vec<(String, String)>,
    /// Both declare the capability `lone-surrogates`: requests may hold lone
    /// surrogates, and answers holding them are compared (spec
    /// `protocol.capabilities`).
    pub lone_surrogates: bool,
}

/// Decides what to generate from the two `describe` answers, restricted to
/// `only` when given.
pub fn plan(a: &Description, b: &Description, only: Option<&[String]>) -> Plan {
    let capable = |d: &Description| d.capabilities.iter().any(|c| c == LONE_SURROGATES);
    let mut plan = Plan {
        lone_surrogates: capable(a) && capable(b),
        ..Plan::default()
    };
    let has = |d: &Description, feature: &str| d.features.iter().any(|f| f == feature);
    for &(op, v1, v2) in OPS {
        if only.is_some_and(|only| !only.iter().any(|o| o == op)) {
            continue;
        }
        let generation = |d: &Description| match (has(d, v1), has(d, v2)) {
            (_, true) if v1 != v2 => Some(Scope::V2),
            (true, _) => Some(Scope::V1),
            _ => None,
        };
        let (Some(in_a), Some(in_b)) = (generation(a), generation(b)) else {
            let missing = if generation(a).is_none() {
                &a.name
            } else {
                &b.name
            };
            plan.left_out.push((
                op.to_owned(),
                format!("{missing} declares neither {v1} nor {v2}"),
            ));
            continue;
        };
        let scope = if in_a == in_b { in_a } else { Scope::Common };
        if scope == Scope::Common {
            plan.mixed.push((op.to_owned(), hidden(op).to_owned()));
        }
        plan.ops.push(PlannedOp { op, scope });
    }
    plan
}

/// What a comparison across generations leaves out, per op.
fn hidden(op: &str) -> &'static str {
    match op {
        "prepare" | "pre-step" => "requests without route, spill store or developer/system events; the omissions section and capturedFormatVersion hidden",
        "candidates/list" | "candidates/remote" => "requests with no or an empty query; displayTitle and sameWorkspace hidden",
        "config/check" => "configurations without referenceContextFraction",
        "retain" => "snapshots without developer/system events",
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

/// How two answers to one request compare: `None` when they agree.
/// Outputs compare exactly, errors by code (spec `conformance.comparison`).
pub fn disagreement(
    op: &str,
    scope: Scope,
    a: Result<Outcome, String>,
    b: Result<Outcome, String>,
) -> Option<String> {
    let prepare = |outcome: Result<Outcome, String>| {
        outcome.map(|outcome| {
            if scope == Scope::Common {
                normalize(op, outcome)
            } else {
                outcome
            }
        })
    };
    match (prepare(a), prepare(b)) {
        (Ok(Outcome::Output(x)), Ok(Outcome::Output(y))) => {
            first_difference(&x, &y).map(|_| diff::explain_as(&x, &y, ["A", "B"]))
        }
        (Ok(Outcome::Error { code: x, .. }), Ok(Outcome::Error { code: y, .. })) if x == y => None,
        (a, b) => Some(format!("A: {}\n  B: {}", show(&a), show(&b))),
    }
}

fn show(answer: &Result<Outcome, String>) -> String {
    match answer {
        Ok(Outcome::Output(output)) => format!("output {}", diff::show(output)),
        Ok(Outcome::Error { code, message }) => format!("error {code} ({message})"),
        Err(problem) => format!("protocol failure: {problem}"),
    }
}

/// One disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// The case number (0-based).
    pub case: u64,
    /// The op.
    pub op: &'static str,
    /// The smallest request input found that still disagrees.
    pub input: Json,
    /// How the answers differ on it.
    pub detail: String,
    /// Shrinking steps that kept a disagreement.
    pub shrink_steps: usize,
}

/// The outcome of a run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Cases run.
    pub cases: u64,
    /// Cases where both agreed.
    pub agreed: u64,
    /// Per op: (agreed, run).
    pub per_op: BTreeMap<&'static str, (u64, u64)>,
    /// Cases not compared because an answer held a lone surrogate and one
    /// side lacks the capability (not counted in `cases`).
    pub beyond_capability: u64,
    /// Every disagreement, in case order.
    pub disagreements: Vec<Disagreement>,
}

impl Summary {
    /// `agree N/M`, and the cases left out for a missing capability.
    pub fn line(&self) -> String {
        let mut line = format!("agree {}/{}", self.agreed, self.cases);
        if self.beyond_capability > 0 {
            line.push_str(&format!(
                " ({} more cases not compared: an answer held a lone surrogate)",
                self.beyond_capability
            ));
        }
        line
    }
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

/// How one case came out.
enum Verdict {
    Agree,
    Disagree(String),
    /// An answer holds a lone surrogate, and one side lacks the capability.
    Beyond,
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

/// At most this many shrinking probes per disagreement (each probe asks
/// both implementations once).
const SHRINK_PROBES: usize = 400;

/// Runs `cases` seeded cases of the planned ops on `a` and `b`, calling
/// `on_disagreement` as each disagreement is found and shrunk.
pub fn run(
    plan: &Plan,
    a: &mut dyn Implementation,
    b: &mut dyn Implementation,
    cases: u64,
    seed: u64,
    mut on_disagreement: impl FnMut(&Disagreement),
) -> Summary {
    let mut summary = Summary::default();
    let strategies: Vec<_> = plan
        .ops
        .iter()
        .filter_map(|planned| {
            requests::input_strategy(planned.op, planned.scope).map(|s| (planned, s))
        })
        .collect();
    if strategies.is_empty() {
        return summary;
    }
    for case in 0..cases {
        let mut runner = TestRunner::new_with_rng(Config::default(), case_rng(seed, case));
        let (planned, strategy) = &strategies[(case % strategies.len() as u64) as usize];
        let Ok(mut tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let lone_surrogates = plan.lone_surrogates;
        // Without the capability on both sides, requests are made
        // well-formed, and a case whose answer holds a lone surrogate
        // anyway (decoded from an escape, or cut from a pair) is outside
        // the domain both implement.
        let mut ask = |input: &Json| -> Verdict {
            let a = a.call(planned.op, input);
            let b = b.call(planned.op, input);
            if !lone_surrogates && (holds_lone_surrogate(&a) || holds_lone_surrogate(&b)) {
                return Verdict::Beyond;
            }
            match disagreement(planned.op, planned.scope, a, b) {
                Some(detail) => Verdict::Disagree(detail),
                None => Verdict::Agree,
            }
        };
        let current = |tree: &dyn ValueTree<Value = Json>| {
            if lone_surrogates {
                tree.current()
            } else {
                well_formed(tree.current())
            }
        };
        let input = current(&tree);
        let detail = match ask(&input) {
            Verdict::Beyond => {
                summary.beyond_capability += 1;
                continue;
            }
            Verdict::Agree => {
                summary.cases += 1;
                summary.agreed += 1;
                let counts = summary.per_op.entry(planned.op).or_default();
                counts.0 += 1;
                counts.1 += 1;
                continue;
            }
            Verdict::Disagree(detail) => detail,
        };
        summary.cases += 1;
        summary.per_op.entry(planned.op).or_default().1 += 1;
        let mut smallest = (input, detail);
        let mut steps = 0;
        let mut probes = 0;
        if tree.simplify() {
            while probes < SHRINK_PROBES {
                probes += 1;
                let candidate = current(&tree);
                let moved = match ask(&candidate) {
                    Verdict::Disagree(detail) => {
                        smallest = (candidate, detail);
                        steps += 1;
                        tree.simplify()
                    }
                    Verdict::Agree | Verdict::Beyond => tree.complicate(),
                };
                if !moved {
                    break;
                }
            }
        }
        let found = Disagreement {
            case,
            op: planned.op,
            input: smallest.0,
            detail: smallest.1,
            shrink_steps: steps,
        };
        on_disagreement(&found);
        summary.disagreements.push(found);
    }
    summary
}
