//! The two implementations of a run, asked one request at a time (spec
//! `runner.differential`): whether a request may be sent at all, how the
//! answers compare, and a disagreement traced to the lowest op where B
//! answers otherwise (spec `runner.probes`).

use super::comparison::{compare, Mismatch};
use super::plan::{Plan, Scope};
use crate::harness::runner::adapter::{Implementation, Slow};
use crate::harness::runner::probes::{self, Prober};
use crate::harness::runner::vectors::{required_capabilities, LONE_SURROGATES};
use crate::js::json::Json;
use crate::js::JsString;
use crate::protocol::input_types::{self, DYNAMIC_INPUTS};
use crate::protocol::wire::{Outcome, UNSUPPORTED};
use proptest::strategy::ValueTree;

/// How one request came out.
pub(super) enum CaseVerdict {
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

/// A and B as one case asks them, with what the case met on the way.
pub(super) struct Sides<'r> {
    a: &'r mut dyn Implementation,
    b: &'r mut dyn Implementation,
    plan: &'r Plan,
    prober: Option<Prober>,
    /// A problem that means a side cannot go on, met in this case.
    pub(super) dead: Option<String>,
    /// The answers of this case that came after the timeout, by side.
    pub(super) late: Vec<(&'static str, Slow)>,
}

impl<'r> Sides<'r> {
    /// `a` and `b`, compared as `plan` says.
    pub(super) fn new(
        plan: &'r Plan,
        a: &'r mut dyn Implementation,
        b: &'r mut dyn Implementation,
    ) -> Sides<'r> {
        Sides {
            a,
            b,
            plan,
            prober: plan.prober(),
            dead: None,
            late: Vec::new(),
        }
    }

    /// Whether both wait the grace period after the timeout (spec
    /// `runner.slow`).
    pub(super) fn set_patient(&mut self, patient: bool) {
        self.a.set_patient(patient);
        self.b.set_patient(patient);
    }

    /// Readies both for a new case: patient, and nothing late yet.
    pub(super) fn start_case(&mut self) {
        self.set_patient(true);
        self.late.clear();
    }

    /// The request `tree` holds now, as sent: without the capability
    /// `lone-surrogates` on both sides, requests are made well-formed.
    pub(super) fn request(&self, tree: &dyn ValueTree<Value = Json>) -> Json {
        if self.plan.lone_surrogates {
            tree.current()
        } else {
            well_formed(tree.current())
        }
    }

    /// Asks both `op` with `input`, compared within `scope`.
    pub(super) fn ask(&mut self, op: &str, scope: Scope, input: &Json) -> CaseVerdict {
        if let Some(why) = self.beyond_the_contract(op, input) {
            return CaseVerdict::Beyond(why);
        }
        let answer_a = self.a.call(op, input);
        let (stderr_a, slow_a) = (self.a.take_stderr(), self.a.take_slow());
        let answer_b = self.b.call(op, input);
        let (stderr_b, slow_b) = (self.b.take_stderr(), self.b.take_slow());
        for (side, slow) in [("A", slow_a), ("B", slow_b)] {
            if let Some(slow) = slow {
                self.late.push((side, slow));
            }
        }
        if let Some(problem) = dead(&answer_a).or(dead(&answer_b)) {
            self.dead = Some(problem.to_owned());
        }
        let unsupported = |answer: &Result<Outcome, String>| matches!(answer, Ok(Outcome::Error { code, .. }) if code == UNSUPPORTED);
        if unsupported(&answer_a) || unsupported(&answer_b) {
            return CaseVerdict::NotImplemented {
                by_b: !unsupported(&answer_a),
            };
        }
        // Without the capability on both sides, a case whose answer holds
        // a lone surrogate anyway (decoded from an escape, or cut from a
        // pair) is outside the domain both implement.
        if !self.plan.lone_surrogates
            && (holds_lone_surrogate(&answer_a) || holds_lone_surrogate(&answer_b))
        {
            return CaseVerdict::Beyond(format!(
                "an answer holds a lone surrogate (the capability {LONE_SURROGATES} is not declared by both)"
            ));
        }
        match compare(op, scope, answer_a, answer_b, [&stderr_a, &stderr_b]) {
            Some(mismatch) => CaseVerdict::Disagree(Box::new(mismatch)),
            None => CaseVerdict::Agree,
        }
    }

    /// Why `op`'s `input` is not sent, when it needs a capability one side
    /// lacks (an ill-typed member for a typed port, a snapshot without
    /// capturedThroughSeq, …): it is outside the domain both implement,
    /// not sent, generated or shrunk to (spec protocol.capabilities).
    fn beyond_the_contract(&self, op: &str, input: &Json) -> Option<String> {
        if let Some(why) = input_types::outside_the_contract(op, input) {
            return Some(why.to_owned());
        }
        let needed = required_capabilities(op, input, &Json::Null);
        let missing = needed
            .iter()
            .find(|capability| !self.plan.capabilities.contains(capability))?;
        // For `dynamic-inputs`, the first ill-typed member says why.
        let member = (missing == DYNAMIC_INPUTS)
            .then(|| input_types::first_ill_typed(op, input))
            .flatten()
            .map(|ill_typed| format!("{}, and ", ill_typed.describe()))
            .unwrap_or_default();
        Some(format!(
            "{member}the capability {missing} is not declared by both"
        ))
    }

    /// `mismatch`, the disagreement on `op`'s `input`, sorted by the lowest
    /// op where B already answers otherwise (spec runner.probes).
    pub(super) fn trace(&mut self, op: &str, input: &Json, mismatch: Mismatch) -> Mismatch {
        // A hang is not probed: every probe would wait again.
        let Some(prober) = self.prober.as_mut().filter(|_| !mismatch.hung()) else {
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
        match prober.attribute(&mut *self.a, &mut *self.b, failure) {
            Some(chain) => mismatch.traced(chain),
            None => told(prober, op, input, mismatch),
        }
    }
}

/// `mismatch`, which no probe explains, with each of its causes as
/// `prober` tells it from B's answer.
fn told(prober: &Prober, op: &str, input: &Json, mut mismatch: Mismatch) -> Mismatch {
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
